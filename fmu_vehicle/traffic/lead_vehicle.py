"""Lead vehicle moving along x with a piecewise-linear speed profile, integrated exactly.

Profile text ``"0:20,5:20,8:8,12:8"``: breakpoints time [s] : speed [m/s], strictly increasing times,
speeds >= 0, linear in between and constant before the first / after the last breakpoint.  On
segment k (t_k <= t < t_k+1) with a_k = (v_k+1 - v_k)/(t_k+1 - t_k):

    v(t) = v_k + a_k (t - t_k),   s(t) = S_k + v_k (t - t_k) + a_k (t - t_k)^2 / 2

where S_k is the distance accumulated up to t_k, so positions carry no integration error.  The
acceleration is right-continuous (at a breakpoint it is the one of the segment that starts there).

The formulas are numba kernels over flat float64 arrays (:func:`profile_state`, :func:`lead_init`,
:func:`lead_step`), which the Python model, the LeadVehicle FMU's slave and its native build
(``fmu_vehicle.native.block``) all call; :class:`LeadVehicle` only owns the arrays. Layout:

    p = [x0 [m], n, t_1..t_n [s], v_1..v_n [m/s], S_1..S_n [m]]   (parameters: :func:`lead_parameters`)
    s = [t [s], S(t0) [m]]                                        (state: the time, the distance at the start)
    u = []                                                        (no inputs)
    y = [x [m], vx [m/s], ax [m/s^2]]                             (outputs)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fmu_vehicle.errors import ModelError
from fmu_vehicle.numerics.jit import njit

DEFAULT_X0_M = 50.0
"""Position of the lead vehicle's rear bumper at the start time [m] when none is given (the LeadVehicle
FMU's start value of ``x0`` and, before initialization, of ``x``)."""

SPEED_PROFILES = {
    "brake_to_8": "0:20,5:20,8:8,12:8",
    "stop_and_go": "0:0,1:0,9:16,14:16,20.4:0,30:0",
    "platoon": "0:0,1:0,8:14,13:14,16:4,20:4",
    "standstill": "0:0,1000:0",
}
"""The shipped speed profiles (name -> profile text): the LeadVehicle FMU's ``speed_profile`` enumeration, in this
order (item values 1, 2, ...). brake_to_8: cruises at 20 m/s, brakes to 8 m/s between 5 and 8 s (the FMU's
default); stop_and_go: pulls away to 16 m/s, cruises, brakes to a stop (the demo's ACC scenario); platoon: the
platoon scenario's lead; standstill: a stopped target (Euro NCAP CCRs). Other profiles are free text
(``speed_profile_points``)."""


def lead_profile_parameters(text: str) -> dict[str, str]:
    """The LeadVehicle FMU parameters that drive profile ``text`` ('t:v,...' [s:m/s]): the shipped profile's name
    as ``speed_profile`` (an enumeration, which every host sets) when ``text`` is one of ``SPEED_PROFILES``, else
    the text as ``speed_profile_points`` (a String, which overrides the enumeration)."""
    text = str(text)
    for name, shipped in SPEED_PROFILES.items():
        if shipped == text:
            return {"speed_profile": name}
    return {"speed_profile_points": text}


@dataclass(frozen=True)
class SpeedProfile:
    """Breakpoints of a piecewise-linear speed profile (times [s], speeds [m/s])."""

    times: tuple[float, ...]
    speeds: tuple[float, ...]

    def __post_init__(self) -> None:
        dist = [0.0]
        for k in range(len(self.times) - 1):
            dt = self.times[k + 1] - self.times[k]
            dist.append(dist[-1] + 0.5 * (self.speeds[k] + self.speeds[k + 1]) * dt)
        object.__setattr__(self, "table", np.array((*self.times, *self.speeds, *dist), dtype=np.float64))

    def evaluate(self, t: float) -> tuple[float, float, float]:
        """(distance from the first breakpoint [m], speed [m/s], acceleration [m/s^2]) at time t."""
        return profile_state(self.table, len(self.times), t)


@njit
def profile_state(table, n, t):
    """(S(t) [m], v(t) [m/s], a(t) [m/s^2]) of the profile ``table`` = [t_1..t_n, v_1..v_n, S_1..S_n] (module
    docstring; S_k the distance from the first breakpoint to the k-th) at time ``t`` [s]."""
    k = -1                                  # the breakpoint at or before t (-1 before the first one)
    while k + 1 < n and table[k + 1] <= t:
        k += 1
    if k < 0:
        return table[n] * (t - table[0]), table[n], 0.0
    tau = t - table[k]
    if k == n - 1:
        return table[2 * n + k] + table[n + k] * tau, table[n + k], 0.0
    a = (table[n + k + 1] - table[n + k]) / (table[k + 1] - table[k])
    return table[2 * n + k] + table[n + k] * tau + 0.5 * a * tau * tau, table[n + k] + a * tau, a


P_X0, P_N, P_TABLE = 0, 1, 2
"""Positions in the parameter array ``p``: the start position x0 [m], the number of breakpoints, the table."""
N_STATE = 2
"""Length of the state array ``s``: the time [s] and the distance S(t0) [m] at the start time."""


def lead_parameters(profile: SpeedProfile, x0: float) -> np.ndarray:
    """The parameter array ``p`` of a lead vehicle (module docstring)."""
    return np.concatenate(([float(x0), float(len(profile.times))], profile.table))


@njit
def lead_set_time(p, s, y, t):
    """Move to the absolute time ``t`` [s]: s[0] = t and the outputs y = [x0 + S(t) - S(t0), v(t), a(t)]."""
    dist, v, a = profile_state(p[P_TABLE:], int(p[P_N]), t)
    s[0] = t
    y[0] = p[P_X0] + (dist - s[1])
    y[1] = v
    y[2] = a


@njit
def lead_init(p, s, u, y, t0):
    """Start at ``t0`` [s] at the position x0 = p[0] (the block kernels' ``init``; returns 0)."""
    s[1] = profile_state(p[P_TABLE:], int(p[P_N]), t0)[0]
    lead_set_time(p, s, y, t0)
    return 0


@njit
def lead_step(p, s, u, y, t, h):
    """The communication step [t, t + h] [s]: the exact state at t + h (the block kernels' ``step``; returns 0)."""
    lead_set_time(p, s, y, t + h)
    return 0


def parse_speed_profile(text: str, name: str = "speed_profile") -> SpeedProfile:
    """Parse ``"t0:v0,t1:v1,..."``; errors name the parameter, the entry and the reason."""
    entries = [e.strip() for e in str(text).split(",")]
    if not entries or entries == [""]:
        raise ModelError(f"parameter '{name}' = {text!r}: empty, expected 'time:speed,...' e.g. '0:20,5:20,8:8'")
    times, speeds = [], []
    for i, entry in enumerate(entries, start=1):
        parts = entry.split(":")
        try:
            if len(parts) != 2:
                raise ValueError("expected 'time:speed'")
            t, v = float(parts[0]), float(parts[1])
        except ValueError as exc:
            raise ModelError(f"parameter '{name}' = {text!r}: entry {i} '{entry}': {exc}") from None
        if not (math.isfinite(t) and math.isfinite(v)):
            raise ModelError(f"parameter '{name}' = {text!r}: entry {i} '{entry}': values must be finite")
        if v < 0.0:
            raise ModelError(f"parameter '{name}' = {text!r}: entry {i} '{entry}': speed must be >= 0 m/s")
        if times and t <= times[-1]:
            raise ModelError(f"parameter '{name}' = {text!r}: entry {i} '{entry}': times must be strictly "
                             f"increasing (previous {times[-1]} s)")
        times.append(t)
        speeds.append(v)
    return SpeedProfile(tuple(times), tuple(speeds))


class LeadVehicle:
    """Point vehicle on the x axis following a SpeedProfile.

    profile  the speed profile (absolute simulation time)
    x0       position [m] at the start time t0 [s]
    """

    def __init__(self, profile: SpeedProfile, x0: float, t0: float = 0.0):
        self.profile = profile
        self.x0 = float(x0)
        self.t0 = float(t0)
        self.p = lead_parameters(profile, self.x0)
        self.s = np.zeros(N_STATE)
        self.y = np.zeros(3)
        lead_init(self.p, self.s, self.s[:0], self.y, self.t0)

    t = property(lambda self: float(self.s[0]), doc="time [s]")
    x = property(lambda self: float(self.y[0]), doc="position [m]")
    vx = property(lambda self: float(self.y[1]), doc="speed [m/s]")
    ax = property(lambda self: float(self.y[2]), doc="acceleration [m/s^2]")

    def set_time(self, t: float) -> None:
        """Move to absolute time t [s] and update x [m], vx [m/s], ax [m/s^2]."""
        lead_set_time(self.p, self.s, self.y, float(t))

    def step(self, h: float) -> None:
        """Advance by h [s]."""
        lead_step(self.p, self.s, self.s[:0], self.y, self.t, float(h))
