"""Lead vehicle moving along x with a piecewise-linear speed profile, integrated exactly.

Profile text ``"0:20,5:20,8:8,12:8"``: breakpoints time [s] : speed [m/s], strictly increasing times,
speeds >= 0, linear in between and constant before the first / after the last breakpoint.  On
segment k (t_k <= t < t_k+1) with a_k = (v_k+1 - v_k)/(t_k+1 - t_k):

    v(t) = v_k + a_k (t - t_k),   s(t) = S_k + v_k (t - t_k) + a_k (t - t_k)^2 / 2

where S_k is the distance accumulated up to t_k, so positions carry no integration error.  The
acceleration is right-continuous (at a breakpoint it is the one of the segment that starts there).
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from fmu_vehicle.errors import ModelError

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
        object.__setattr__(self, "_dist", tuple(dist))

    def _segment(self, t: float) -> int:
        """Index k of the breakpoint at or before t (-1 before the first one)."""
        return bisect.bisect_right(self.times, t) - 1

    def evaluate(self, t: float) -> tuple[float, float, float]:
        """(distance from the first breakpoint [m], speed [m/s], acceleration [m/s^2]) at time t."""
        k = self._segment(t)
        if k < 0:
            return self.speeds[0] * (t - self.times[0]), self.speeds[0], 0.0
        tau = t - self.times[k]
        if k == len(self.times) - 1:
            return self._dist[k] + self.speeds[k] * tau, self.speeds[k], 0.0
        a = (self.speeds[k + 1] - self.speeds[k]) / (self.times[k + 1] - self.times[k])
        return self._dist[k] + self.speeds[k] * tau + 0.5 * a * tau * tau, self.speeds[k] + a * tau, a


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
        self._s0 = profile.evaluate(self.t0)[0]
        self.t = self.t0
        self.x, self.vx, self.ax = self.x0, 0.0, 0.0
        self.set_time(self.t0)

    def set_time(self, t: float) -> None:
        """Move to absolute time t [s] and update x [m], vx [m/s], ax [m/s^2]."""
        s, v, a = self.profile.evaluate(t)
        self.t = t
        self.x, self.vx, self.ax = self.x0 + (s - self._s0), v, a

    def step(self, h: float) -> None:
        """Advance by h [s]."""
        self.set_time(self.t + h)
