"""Anti-lock braking (ABS): a per-wheel slip and wheel-deceleration state machine with hold, release and
apply phases, rear-axle select-low and yaw-moment build-up limiting on split friction. Described in
docs/chassis_control.md §2.

At each sample instant, for every wheel w (effective rolling radius r_w, spin omega_w, vehicle speed v_x)::

    v_w      = omega_w r_w                                   wheel speed [m/s]
    lambda_w = (v_w - v_x) / max(v_x, v_ref)                 slip [-] (< 0 braking)
    a_w      = (v_w - v_w,prev) / T                          wheel acceleration [m/s^2], T the sample period

and the wheel's phase moves through the cycle (Bosch style; Breuer and Bill (eds.) 2008, *Brake Technology
Handbook*, SAE; Reif (ed.) 2014, *Brakes, Brake Control and Driver Assistance Systems*, Springer)::

    NORMAL       valve APPLY (the driver's pressure)    -> RELEASE    if lambda_w < -lambda_rel
                                                         -> HOLD_DECEL if a_w < -a_hold and lambda_w < -lambda_hold
    HOLD_DECEL   valve HOLD                              -> RELEASE    if lambda_w < -lambda_rel
                                                         -> REAPPLY    if a_w >= -a_hold
    RELEASE      valve RELEASE                           -> HOLD_REACC if a_w > a_rel_end and lambda_w > -lambda_deep
    HOLD_REACC   valve HOLD (the wheel spins up)         -> RELEASE    if lambda_w < -lambda_deep
                                                                       or (a_w < -a_hold and lambda_w < -lambda_rel)
                                                         -> REAPPLY    if lambda_w > -lambda_reapply
    REAPPLY      APPLY for t_fast, then pulses of        (as NORMAL)
                 n_apply samples APPLY, n_hold HOLD

The controller is active on a wheel only while v_x >= v_min and the wheel is braked (the driver's
master-cylinder pressure above p_min, or a function before ABS asked for active pressure there); otherwise the
wheel returns to NORMAL.

Split friction: (1) rear select-low: both rear wheels get the most releasing of their two valve modes
(RELEASE > HOLD > APPLY), so the rear axle brakes at the low-friction wheel's level and keeps its side force;
(2) yaw-moment build-up limiting on the front axle: when a front wheel enters its first RELEASE while the other
front wheel has not yet cycled, that other (high-friction) wheel follows the first release (RELEASE while the
low-friction wheel's first release lasts) and its pressure rise is then slowed for t_ym (counted from that first
release): it is held and given one APPLY sample every n_ym samples. The yaw moment of the brake-force
difference then builds up over about t_ym instead of within a few tenths of a second, slowly enough for the
driver to counter-steer (the "yaw moment build-up delay" of Reif 2014). ABS only ever adds holds and
releases to the valve modes it is handed (the unit runs it last).
"""
from __future__ import annotations

import numpy as np

from .ecu import Commands, ControlledVehicle, Sensors, read_tuning
from .hydraulics import APPLY, HOLD, RELEASE

NORMAL, HOLD_DECEL, RELEASE_PHASE, HOLD_REACC, REAPPLY = 0, 1, 2, 3, 4
"""Phases of a wheel (module docstring), as written to ``abs.phase_<wheel>``."""
PHASES = ("normal", "hold_decel", "release", "hold_reacc", "reapply")

# per-wheel slots of the state
_PHASE, _TIMER, _V_PREV, _SLIP, _ACC, _CYCLES, _YM = range(7)
_N_SLOTS = 7


class AntiLock:
    """ABS (module docstring) for one vehicle; ``tuning`` the ``abs`` section of the tuning file."""

    name = "abs"
    TUNING = {
        "speed_min_m_s": ("m/s", "ABS inactive below this speed", 0.1, 50.0),
        "slip_speed_min_m_s": ("m/s", "v_ref: the slip's denominator is max(v_x, v_ref)", 0.1, 50.0),
        "pressure_min_Pa": ("Pa", "a wheel counts as braked above this master-cylinder or active pressure", 0.0, 1e7),
        "wheel_decel_hold_m_s2": ("m/s2", "wheel deceleration that holds the pressure (with slip beyond slip_hold)",
                                  -1e3, 1e3),
        "slip_hold": ("1", "slip magnitude above which the deceleration threshold holds", 0.0, 1.0),
        "slip_release": ("1", "slip magnitude that starts a release", 0.0, 1.0),
        "wheel_acc_release_end_m_s2": ("m/s2", "a release ends once the wheel's acceleration is above this",
                                       -1e3, 1e3),
        "slip_deep": ("1", "slip magnitude beyond which the wheel is always released", 0.0, 1.0),
        "slip_reapply": ("1", "a held wheel whose slip magnitude is back below this is re-applied", 0.0, 1.0),
        "reapply_fast_time_s": ("s", "APPLY time at the start of a re-apply", 0.0, 10.0),
        "reapply_apply_samples": ("1", "APPLY samples per pulse of the stepped re-apply (a whole number)", 1, 100),
        "reapply_hold_samples": ("1", "HOLD samples per pulse of the stepped re-apply (a whole number)", 0, 100),
        "rear_select_low": ("1", "1: rear axle select-low, 0: each rear wheel on its own", 0, 1),
        "yaw_moment_limit_time_s": ("s", "duration of the front yaw-moment build-up limiting (0: off)", 0.0, 10.0),
        "yaw_moment_limit_apply_every_samples": ("1", "one APPLY sample in this many while limiting (a whole "
                                                 "number)", 1, 100),
    }
    """key -> (unit, description, min, max) of the tuning values (section ``abs`` of the tuning file)."""
    OUTPUTS = (("active", "1", "1 while any wheel is in an ABS phase other than normal"),
               ("phase_{wheel}", "1", "ABS phase: 0 normal, 1 hold (deceleration), 2 release, 3 hold "
                "(re-acceleration), 4 stepped re-apply"),
               ("slip_{wheel}", "1", "longitudinal slip (omega r - v_x) / max(v_x, v_ref)"),
               ("wheel_acc_{wheel}", "m/s2", "wheel circumferential acceleration from successive samples"))

    def __init__(self, vehicle: ControlledVehicle, tuning: dict):
        self.vehicle = vehicle
        v = read_tuning(self, tuning)
        self.v_min, self.v_ref, self.p_min = v["speed_min_m_s"], v["slip_speed_min_m_s"], v["pressure_min_Pa"]
        self.slip_release, self.slip_deep = v["slip_release"], v["slip_deep"]
        self.slip_reapply, self.slip_hold = v["slip_reapply"], v["slip_hold"]
        self.decel_hold, self.acc_release_end = v["wheel_decel_hold_m_s2"], v["wheel_acc_release_end_m_s2"]
        self.t_fast = v["reapply_fast_time_s"]
        self.n_apply, self.n_hold = int(v["reapply_apply_samples"]), int(v["reapply_hold_samples"])
        self.select_low = v["rear_select_low"] >= 0.5
        self.t_ym, self.n_ym = v["yaw_moment_limit_time_s"], int(v["yaw_moment_limit_apply_every_samples"])
        n = vehicle.n_wheels
        self.state = np.zeros(_N_SLOTS * n + 1)
        self._w = self.state[:_N_SLOTS * n].reshape(_N_SLOTS, n)      # views: set_state writes in place
        self._front = np.flatnonzero(vehicle.front)
        self._rear = np.flatnonzero(~np.asarray(vehicle.front, dtype=bool))
        self.reset()

    def reset(self):
        self.state[:] = 0.0

    def _transition(self, w: int, slip: float, acc: float, period_s: float) -> None:
        """One wheel's phase update (module docstring table)."""
        s = self._w
        ph = int(s[_PHASE, w])
        new = ph
        if ph == NORMAL or ph == REAPPLY:
            if slip < -self.slip_release:
                new = RELEASE_PHASE
            elif acc < -self.decel_hold and slip < -self.slip_hold:
                new = HOLD_DECEL
        elif ph == HOLD_DECEL:
            if slip < -self.slip_release:
                new = RELEASE_PHASE
            elif acc >= -self.decel_hold:
                new = REAPPLY
        elif ph == RELEASE_PHASE:
            if acc > self.acc_release_end and slip > -self.slip_deep:
                new = HOLD_REACC
        elif ph == HOLD_REACC:
            if slip < -self.slip_deep or (acc < -self.decel_hold and slip < -self.slip_release):
                new = RELEASE_PHASE
            elif slip > -self.slip_reapply:
                new = REAPPLY
        if new != ph:
            s[_PHASE, w] = new
            s[_TIMER, w] = 0.0
            if new == RELEASE_PHASE:
                s[_CYCLES, w] += 1.0
        else:
            s[_TIMER, w] += period_s

    def _mode(self, w: int, period_s: float) -> int:
        """The valve mode a wheel's phase asks for."""
        s = self._w
        ph = int(s[_PHASE, w])
        if ph in (HOLD_DECEL, HOLD_REACC):
            return HOLD
        if ph == RELEASE_PHASE:
            return RELEASE
        if ph == REAPPLY:
            t = s[_TIMER, w]
            if t < self.t_fast - 1e-9:
                return APPLY
            k = int(round((t - self.t_fast) / period_s)) % (self.n_apply + self.n_hold)
            return APPLY if k < self.n_apply else HOLD
        return APPLY

    def step(self, sensors: Sensors, commands: Commands, period_s: float) -> None:
        s, vx = self._w, float(sensors.vx)
        v_wheel = np.asarray(sensors.omega, dtype=float) * self.vehicle.radius_m
        slip = (v_wheel - vx) / max(vx, self.v_ref)
        first = self.state[-1] == 0.0
        acc = np.zeros_like(v_wheel) if first else (v_wheel - s[_V_PREV]) / period_s
        s[_V_PREV] = v_wheel
        s[_SLIP] = slip
        s[_ACC] = acc
        self.state[-1] = 1.0
        braked = (sensors.master_cylinder_pressure > self.p_min) | (commands.active_pressure > self.p_min)
        front_cycled_before = s[_CYCLES, self._front].copy()
        modes = np.full(v_wheel.size, APPLY, dtype=np.int64)
        for w in range(v_wheel.size):
            if vx < self.v_min or not braked[w]:
                s[_PHASE, w] = NORMAL
                s[_TIMER, w] = 0.0
                s[_CYCLES, w] = 0.0
                s[_YM, w] = 0.0
                continue
            self._transition(w, float(slip[w]), float(acc[w]), period_s)
            modes[w] = self._mode(w, period_s)
        # yaw-moment build-up limiting: a front wheel's first release starts the other front wheel's slow rise
        if self.t_ym > 0.0 and self._front.size == 2:
            for i, w in enumerate(self._front):
                other = self._front[1 - i]
                if (front_cycled_before[i] == 0.0 and s[_CYCLES, w] > 0.0 and s[_CYCLES, other] == 0.0
                        and s[_YM, other] == 0.0):
                    s[_YM, other] = self.t_ym
            for i, w in enumerate(self._front):
                if s[_YM, w] > 0.0:
                    other = self._front[1 - i]
                    k = int(round((self.t_ym - s[_YM, w]) / period_s))
                    if s[_PHASE, other] == RELEASE_PHASE and s[_CYCLES, other] <= 1.0:
                        modes[w] = RELEASE          # the low-friction wheel's first release, mirrored
                    elif modes[w] == APPLY and k % self.n_ym != self.n_ym - 1:
                        modes[w] = HOLD
                    s[_YM, w] = max(s[_YM, w] - period_s, 0.0)
        if self.select_low and self._rear.size == 2:
            modes[self._rear] = modes[self._rear].max()
        commands.modes[:] = np.maximum(commands.modes, modes)

    def output_values(self) -> np.ndarray:
        s = self._w
        return np.concatenate([[float(np.any(s[_PHASE] != NORMAL))], s[_PHASE], s[_SLIP], s[_ACC]])
