"""Adaptive cruise control with an emergency-braking (AEB) stage, sampled at its own period Ts.

All quantities SI; x forward.  At every sample instant t_k = t0 + k Ts (k = 0 at initialization),
with inputs held from the last communication point:

Gap and spacing policy (constant time gap):
    d      = x_lead - x_ego - gap_offset                         bumper-to-bumper gap [m]
    d_des  = d0 + tau * v_ego                                    desired gap [m]
Desired acceleration (lead in sensor range, else cruise only):
    a_cruise = k_cruise (v_set - v_ego)
    a_follow = k_gap (d - d_des) + k_speed (v_lead - v_ego) + k_lead_accel * a_lead_est
    lead stopped (v_lead < v_lead_stopped), stopping behind it at the standstill distance d0 instead:
                 a_follow = k_speed (v_ref - v_ego) - v_ego^2 / (2 (d - d0)),  v_ref = sqrt(2 b_stop (d - d0))
                 (the second term is the constant deceleration that stops the car exactly at d0, the first
                 pulls the speed onto the profile of a stop at b_stop = stop_decel, so the car reaches d0
                 in finite time instead of creeping up to it); once d <= d0 + 0.05 m,
                 a_follow = -max(b_stop, v_ego^2 / 0.1 m)
    a_des    = clip(min(a_cruise, a_follow), -decel_max, accel_max)
    a_lead_est: lead acceleration from successive lead speeds, first-order filtered (time constant T_f)
ACC-stage limits (ISO 15622:2018, full-speed-range ACC), separate from the AEB stage:
    decel_max = 3.5 m/s^2 by default (the standard's bound at high speed, used at all speeds);
    the command is rate limited |a_cmd,k - a_cmd,k-1| <= J(v_ego) Ts with the speed-dependent jerk limit
        J(v) = jerk_max                                         v <= 5 m/s
             = jerk_max + (jerk_max_high_speed - jerk_max) (v - 5) / 15     5 < v < 20 m/s
             = jerk_max_high_speed                              v >= 20 m/s
    (defaults 5 and 2.5 m/s^3: the standard's 5.83 - v/6 m/s^3 between 5 and 20 m/s).
Longitudinal force and actuators (vehicle parameters m, r_w):
    F = m a_cmd + F_i,     F_i += m k_i (a_cmd - a_meas) Ts  (anti-windup: frozen while saturated or held)
    F >= 0: throttle = F / F_drive_max;   F < 0: brake = -F r_w / T_brake_max   (both clipped to [0, 1])
    a_meas = measured acceleration input, or (v_k - v_k-1)/Ts when use_accel_input is false.
    The first sample after initialization differentiates nothing (during initialization the inputs may be
    the connected FMUs' start values, not the state at t0).
AEB (time-to-collision with hysteresis), independent of the ACC-stage limits:
    TTC = d / (v_ego - v_lead) when closing faster than 0.1 m/s, else inf
    on when TTC < ttc_on; off when TTC > ttc_off (the ACC stage then takes over) or the gap stops closing;
    while on: brake = 1, throttle = 0, the ACC command tracks the measured acceleration (bumpless
    hand-back).  In mode "aeb" nothing takes over, so the AEB brakes until the gap stops closing (a release
    at ttc_off would let the car close in again and pulse the brake).
Standstill hold (stop-and-go): entered when v_ego < v_stop and a_cmd <= HOLD_ACCEL_TOL; while held:
    throttle = 0, brake = max(brake, brake_hold), a_cmd <= 0, F_i = 0.  Released (automatic restart) when
    the lead is no longer stopped and a_des > restart_accel.  In mode "aeb" the car is held once an AEB
    intervention has taken place and the speed is below v_stop.
Brake torque per wheel (positive, opposing the wheel spin):
    front = brake T_brake_max bias / 2,  rear = brake T_brake_max (1 - bias) / 2.

Modes: "acc_aeb" (default), "acc" (no AEB stage), "cruise" (lead ignored), "aeb" (AEB stage only: the ACC
stage commands nothing, as in the Euro NCAP AEB car-to-car tests where the driver holds the speed).
Outputs change only at sample instants: ``step(h)`` processes the instants in (t, t+h].

The update is a numba kernel over flat float64 arrays (:func:`acc_init`, :func:`acc_step`, the block kernels of
``fmi.block``), called by :class:`AccController` (which only owns the arrays), the Controller FMU's slave and its
native build alike. Layout: p = the float fields of :class:`AccParameters` in :data:`FIELDS` order, then
use_accel_input (0/1) and the mode's index in :data:`MODES` (:func:`acc_parameters`); s = :data:`STATE`;
u = [x_ego, v_ego, a_ego, x_lead, v_lead]; y = [throttle, brake, brake_torque_front, brake_torque_rear, a_cmd,
gap, ttc, aeb_active, held, lead_detected] (flags as 0/1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from fmu_vehicle.errors import ModelError
from fmu_vehicle.numerics.jit import njit

#: "acc_aeb": ACC + emergency braking; "acc": no AEB stage; "cruise": speed control only, lead ignored;
#: "aeb": emergency braking only (no ACC command).
MODES = ("acc_aeb", "acc", "cruise", "aeb")

HOLD_ACCEL_TOL = 1e-9
"""m/s^2: a command this small counts as "not accelerating" when entering the standstill hold (round-off)."""


@dataclass(frozen=True)
class AccParameters:
    """Controller parameters (SI).  Defaults fit a 2.5 t vehicle on 0.4672 m tires."""

    sample_period: float = 0.01          # s
    set_speed: float = 25.0              # m/s, cruise speed without a lead
    time_gap: float = 1.8                # s
    standstill_distance: float = 5.0     # m, desired gap at rest
    gap_offset: float = 0.0              # m, subtracted from x_lead - x_ego
    sensor_range: float = 150.0          # m, no lead beyond this gap
    accel_max: float = 2.0               # m/s^2
    decel_max: float = 3.5               # m/s^2 (ACC authority, positive; ISO 15622 bound)
    jerk_max: float = 5.0                # m/s^3, jerk limit at and below 5 m/s (ISO 15622)
    jerk_max_high_speed: float = 2.5     # m/s^3, jerk limit at and above 20 m/s (ISO 15622)
    k_cruise: float = 0.4                # 1/s
    k_gap: float = 0.25                  # 1/s^2
    k_speed: float = 0.9                 # 1/s
    k_lead_accel: float = 0.5            # 1
    lead_accel_filter: float = 0.1       # s, time constant of the lead-acceleration estimate
    k_i: float = 0.5                     # 1/s, integral gain of the acceleration loop
    ttc_on: float = 1.5                  # s
    ttc_off: float = 2.5                 # s
    mass: float = 2500.0                 # kg
    wheel_radius: float = 0.4672         # m
    drive_force_max: float = 9000.0      # N, tractive force at full throttle (feed-forward scale)
    brake_torque_max: float = 14000.0    # N m, sum over the four wheels at brake = 1
    brake_front_bias: float = 0.65       # 1
    brake_hold: float = 0.6              # 1, brake command holding the car at rest (against the converter creep)
    stop_speed: float = 0.1              # m/s, below this the car is held (standstill)
    lead_stopped_speed: float = 0.5      # m/s, a lead slower than this counts as stopped
    stop_decel: float = 1.0              # m/s^2, deceleration of the reference stop behind a stopped lead
    restart_accel: float = 0.3           # m/s^2, desired acceleration that releases the standstill hold
    use_accel_input: bool = False
    mode: str = "acc_aeb"                # one of MODES

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ModelError(f"ACC parameter 'mode' = {self.mode!r}: must be one of {list(MODES)}")
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("use_accel_input", "mode"):
                continue
            if not math.isfinite(value):
                raise ModelError(f"ACC parameter '{f.name}' = {value!r}: must be finite")
        positive = ("sample_period", "time_gap", "sensor_range", "accel_max", "decel_max", "jerk_max",
                    "jerk_max_high_speed", "stop_decel",
                    "k_cruise", "k_gap", "mass", "wheel_radius", "drive_force_max", "brake_torque_max", "ttc_on")
        for name in positive:
            if getattr(self, name) <= 0:
                raise ModelError(f"ACC parameter '{name}' = {getattr(self, name)!r}: must be > 0")
        for name in ("standstill_distance", "k_speed", "k_lead_accel", "lead_accel_filter", "k_i", "stop_speed",
                     "lead_stopped_speed", "restart_accel"):
            if getattr(self, name) < 0:
                raise ModelError(f"ACC parameter '{name}' = {getattr(self, name)!r}: must be >= 0")
        for name in ("brake_front_bias", "brake_hold"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ModelError(f"ACC parameter '{name}' = {getattr(self, name)!r}: must be in [0, 1]")
        if self.ttc_off <= self.ttc_on:
            raise ModelError(f"ACC parameters 'ttc_on' = {self.ttc_on!r} s and 'ttc_off' = {self.ttc_off!r} s: "
                             f"ttc_off must exceed ttc_on (the AEB releases above ttc_off, engages below ttc_on)")


FIELDS = tuple(f.name for f in fields(AccParameters) if f.name not in ("use_accel_input", "mode"))
"""The float parameters in ``p``, in this order (then use_accel_input and the mode's index)."""
(P_TS, P_SET_SPEED, P_TIME_GAP, P_D0, P_GAP_OFFSET, P_RANGE, P_ACCEL_MAX, P_DECEL_MAX, P_JERK, P_JERK_HIGH,
 P_K_CRUISE, P_K_GAP, P_K_SPEED, P_K_LEAD, P_LEAD_FILTER, P_K_I, P_TTC_ON, P_TTC_OFF, P_MASS, P_RADIUS, P_DRIVE_MAX,
 P_BRAKE_MAX, P_BIAS, P_HOLD, P_STOP_SPEED, P_LEAD_STOPPED, P_STOP_DECEL, P_RESTART) = range(28)
P_USE_ACCEL, P_MODE = len(FIELDS), len(FIELDS) + 1
M_ACC_AEB, M_ACC, M_CRUISE, M_AEB = range(4)
STATE = ("t", "t0", "k", "a_cmd", "force_i", "a_lead_est", "v_ego_prev", "v_lead_prev", "aeb_active", "held",
         "aeb_engaged", "fresh", "throttle", "brake", "brake_torque_front", "brake_torque_rear", "gap", "ttc",
         "lead_detected")
"""The state array ``s``, in this order (flags and the sample index k as numbers)."""
(S_T, S_T0, S_K, S_ACMD, S_FI, S_ALEAD, S_VPREV, S_VLPREV, S_AEB, S_HELD, S_ENGAGED, S_FRESH, S_THROTTLE, S_BRAKE,
 S_BTF, S_BTR, S_GAP, S_TTC, S_DETECTED) = range(len(STATE))
INPUTS = ("x_ego", "v_ego", "a_ego", "x_lead", "v_lead")
OUTPUTS = ("throttle", "brake", "brake_torque_front", "brake_torque_rear", "a_cmd", "gap", "ttc", "aeb_active", "held",
           "lead_detected")
"""The inputs ``u`` and outputs ``y``, in this order (the Controller FMU's)."""
_PUBLISHED = (S_THROTTLE, S_BRAKE, S_BTF, S_BTR, S_ACMD, S_GAP, S_TTC, S_AEB, S_HELD, S_DETECTED)
TTC_CAP = 1000.0
"""s: the largest time to collision reported (none closing: this)."""


def acc_parameters(params: AccParameters) -> np.ndarray:
    """The parameter array ``p`` of ``params`` (module docstring)."""
    floats = [float(getattr(params, name)) for name in FIELDS]
    return np.array([*floats, 1.0 if params.use_accel_input else 0.0, float(MODES.index(params.mode))])


@njit
def jerk_limit(p, v):
    """ACC-stage jerk limit J(v) [m/s^3] at speed v [m/s] (ISO 15622: 5 -> 2.5 m/s^3 from 5 to 20 m/s)."""
    f = min(max((v - 5.0) / 15.0, 0.0), 1.0)
    return p[P_JERK] + (p[P_JERK_HIGH] - p[P_JERK]) * f


@njit
def _sample(p, s, u, first):
    """One controller update at instant t_k (k = s[S_K]), then k += 1 (module docstring)."""
    ts = p[P_TS]
    mode = int(p[P_MODE])
    use_accel = p[P_USE_ACCEL] != 0.0
    v, a_ego, v_lead = u[1], u[2], u[4]
    if first or s[S_FRESH] != 0.0:
        a_meas = a_ego if use_accel else 0.0
        a_lead_raw = 0.0
        s[S_FRESH] = 0.0
    else:
        a_meas = a_ego if use_accel else (v - s[S_VPREV]) / ts
        a_lead_raw = (v_lead - s[S_VLPREV]) / ts
    alpha = ts / (p[P_LEAD_FILTER] + ts)
    s[S_ALEAD] = a_lead_raw if first else s[S_ALEAD] + alpha * (a_lead_raw - s[S_ALEAD])

    gap = u[3] - u[0] - p[P_GAP_OFFSET]
    s[S_GAP] = gap
    detected = mode != M_CRUISE and gap < p[P_RANGE]
    s[S_DETECTED] = 1.0 if detected else 0.0
    closing = v - v_lead
    ttc = gap / closing if (detected and closing > 0.1) else math.inf
    s[S_TTC] = min(max(ttc, 0.0), TTC_CAP)

    a_des = p[P_K_CRUISE] * (p[P_SET_SPEED] - v)
    if detected:
        d_des = p[P_D0] + p[P_TIME_GAP] * max(v, 0.0)
        a_follow = (p[P_K_GAP] * (gap - d_des) + p[P_K_SPEED] * (v_lead - v)
                    + p[P_K_LEAD] * s[S_ALEAD])
        if v_lead < p[P_LEAD_STOPPED]:              # stop at the standstill distance
            room = gap - p[P_D0]
            if room > 0.05:
                v_ref = math.sqrt(2.0 * p[P_STOP_DECEL] * room)
                a_follow = p[P_K_SPEED] * (v_ref - v) - v * v / (2.0 * room)
            else:
                a_follow = -max(p[P_STOP_DECEL], v * v / 0.1)
        a_des = min(a_des, a_follow)
    lead_stopped = detected and v_lead < p[P_LEAD_STOPPED]
    a_des = min(max(a_des, -p[P_DECEL_MAX]), p[P_ACCEL_MAX])

    if s[S_AEB] != 0.0 and (closing <= 0.0 or (ttc > p[P_TTC_OFF] and mode != M_AEB)):
        s[S_AEB] = 0.0
    elif s[S_AEB] == 0.0 and ttc < p[P_TTC_ON] and (mode == M_ACC_AEB or mode == M_AEB):
        s[S_AEB] = 1.0

    if s[S_AEB] != 0.0:
        s[S_ENGAGED] = 1.0
        s[S_ACMD] = min(max(a_meas, -p[P_DECEL_MAX]), p[P_ACCEL_MAX])
        s[S_FI] = 0.0
        s[S_THROTTLE], s[S_BRAKE] = 0.0, 1.0
    elif mode == M_AEB:
        s[S_ACMD], s[S_FI], s[S_THROTTLE] = 0.0, 0.0, 0.0
        s[S_BRAKE] = p[P_HOLD] if (s[S_ENGAGED] != 0.0 and v < p[P_STOP_SPEED]) else 0.0
    else:
        if first:
            s[S_ACMD] = a_des
        else:
            dj = jerk_limit(p, v) * ts
            s[S_ACMD] = min(max(a_des, s[S_ACMD] - dj), s[S_ACMD] + dj)
        if s[S_HELD] != 0.0 and not lead_stopped and a_des > p[P_RESTART]:
            s[S_HELD] = 0.0                          # automatic restart: the lead moves off
        elif s[S_HELD] == 0.0 and v < p[P_STOP_SPEED] and s[S_ACMD] <= HOLD_ACCEL_TOL:
            s[S_HELD], s[S_FI] = 1.0, 0.0
        if s[S_HELD] != 0.0:
            s[S_ACMD] = min(s[S_ACMD], 0.0)
        force = p[P_MASS] * s[S_ACMD] + s[S_FI]
        throttle = force / p[P_DRIVE_MAX] if force > 0.0 else 0.0
        brake = -force * p[P_RADIUS] / p[P_BRAKE_MAX] if force < 0.0 else 0.0
        saturated = throttle >= 1.0 or brake >= 1.0
        holding = s[S_HELD] != 0.0
        err = s[S_ACMD] - a_meas
        if not first and not holding and not (saturated and err * force > 0.0):
            s[S_FI] += p[P_MASS] * p[P_K_I] * err * ts
        s[S_THROTTLE] = min(throttle, 1.0)
        s[S_BRAKE] = min(brake, 1.0)
        if holding:
            s[S_THROTTLE], s[S_BRAKE] = 0.0, max(s[S_BRAKE], p[P_HOLD])

    s[S_BTF] = s[S_BRAKE] * p[P_BRAKE_MAX] * p[P_BIAS] * 0.5
    s[S_BTR] = s[S_BRAKE] * p[P_BRAKE_MAX] * (1.0 - p[P_BIAS]) * 0.5
    s[S_VPREV], s[S_VLPREV] = v, v_lead
    s[S_K] += 1.0


@njit
def _publish(s, y):
    for i in range(len(_PUBLISHED)):
        y[i] = s[_PUBLISHED[i]]


@njit
def acc_init(p, s, u, y, t0):
    """The first sample at the start time ``t0`` [s] on the inputs ``u`` (the block kernels' ``init``; returns 0).
    Raises for ttc_off <= ttc_on (the other limits are the FMU's parameter ranges)."""
    if not p[P_TTC_OFF] > p[P_TTC_ON]:
        raise ValueError("parameters 'aeb.ttc_on' and 'aeb.ttc_off': ttc_off must exceed ttc_on")
    s[:] = 0.0
    s[S_T] = s[S_T0] = t0
    s[S_VPREV], s[S_VLPREV] = u[1], u[4]
    s[S_TTC] = TTC_CAP
    _sample(p, s, u, True)
    s[S_FRESH] = 1.0
    _publish(s, y)
    return 0


@njit
def acc_step(p, s, u, y, t, h):
    """The communication step [t, t + h] [s]: every sample instant t_k = t0 + k Ts in (t, t + h] (1e-6 Ts
    tolerance) with the inputs ``u`` (the block kernels' ``step``; returns 0)."""
    t_end = t + h
    ts = p[P_TS]
    tol = 1e-6 * ts
    while s[S_T0] + s[S_K] * ts <= t_end + tol:
        _sample(p, s, u, False)
    s[S_T] = t_end
    _publish(s, y)
    return 0


def _slot(array: str, index: int, kind=float):
    """A property reading (and writing) ``self.<array>[index]`` as ``kind``."""
    def get(self):
        return kind(getattr(self, array)[index])

    def put(self, value):
        getattr(self, array)[index] = float(value)
    return property(get, put)


class AccController:
    """Sampled ACC + AEB; set the input attributes, call ``step(h)``, read the output attributes.

    inputs   x_ego [m], v_ego [m/s], a_ego [m/s^2] (used if use_accel_input), x_lead [m], v_lead [m/s]
    outputs  throttle, brake [1]; brake_torque_front, brake_torque_rear [N m per wheel]; a_cmd [m/s^2];
             aeb_active; held (standstill hold); gap [m]; ttc [s] (capped at 1e3 s); lead_detected
    The kernels' arrays ``pa``, ``s``, ``u``, ``y`` (module docstring) hold everything; ``p`` is the
    :class:`AccParameters` (set a new one to change parameters between steps).
    """

    TTC_CAP = TTC_CAP

    def __init__(self, params: AccParameters, t0: float = 0.0, x_ego: float = 0.0, v_ego: float = 0.0,
                 a_ego: float = 0.0, x_lead: float = 1e6, v_lead: float = 0.0):
        self.p = params
        self.s = np.zeros(len(STATE))
        self.u = np.array([x_ego, v_ego, a_ego, x_lead, v_lead], dtype=np.float64)
        self.y = np.zeros(len(OUTPUTS))
        acc_init(self.pa, self.s, self.u, self.y, float(t0))

    @property
    def p(self) -> AccParameters:
        return self._params

    @p.setter
    def p(self, params: AccParameters) -> None:
        self._params = params
        self.pa = acc_parameters(params)

    t0 = property(lambda self: float(self.s[S_T0]))

    def next_sample_time(self) -> float:
        return float(self.s[S_T0] + self.s[S_K] * self.pa[P_TS])

    def step(self, h: float) -> None:
        """Advance by h [s]; runs every sample instant t_k in (t, t+h] with the current inputs."""
        acc_step(self.pa, self.s, self.u, self.y, float(self.s[S_T]), float(h))

    def jerk_limit(self, v: float) -> float:
        """ACC-stage jerk limit J(v) [m/s^3] at speed v [m/s]."""
        return float(jerk_limit(self.pa, float(v)))

    # ------------------------------------------------------------------ state
    STATE_KEYS = ("t", "x_ego", "v_ego", "a_ego", "x_lead", "v_lead", "k", "a_cmd", "force_i", "a_lead_est",
                  "v_ego_prev", "v_lead_prev", "aeb_active", "held", "aeb_engaged", "fresh", "throttle", "brake",
                  "brake_torque_front", "brake_torque_rear", "gap", "ttc", "lead_detected")

    def get_state(self) -> dict:
        return {k: getattr(self, k) for k in self.STATE_KEYS}

    def set_state(self, state: dict) -> None:
        for k in self.STATE_KEYS:
            setattr(self, k, state[k])
        _publish(self.s, self.y)


def _add_slots() -> None:
    """The inputs and the state entries (but t0) as attributes of :class:`AccController` (the sample index and the
    flags as int and bool, as the plain-Python controller had them)."""
    kinds = {"k": int, "aeb_active": bool, "held": bool, "aeb_engaged": bool, "fresh": bool, "lead_detected": bool}
    for i, name in enumerate(INPUTS):
        setattr(AccController, name, _slot("u", i))
    for i, name in enumerate(STATE):
        if name != "t0":
            setattr(AccController, name, _slot("s", i, kinds.get(name, float)))


_add_slots()
