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
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

from fmu_vehicle.errors import ModelError

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


class AccController:
    """Sampled ACC + AEB; set the input attributes, call ``step(h)``, read the output attributes.

    inputs   x_ego [m], v_ego [m/s], a_ego [m/s^2] (used if use_accel_input), x_lead [m], v_lead [m/s]
    outputs  throttle, brake [1]; brake_torque_front, brake_torque_rear [N m per wheel]; a_cmd [m/s^2];
             aeb_active; held (standstill hold); gap [m]; ttc [s] (capped at 1e3 s); lead_detected
    """

    TTC_CAP = 1000.0

    def __init__(self, params: AccParameters, t0: float = 0.0, x_ego: float = 0.0, v_ego: float = 0.0,
                 a_ego: float = 0.0, x_lead: float = 1e6, v_lead: float = 0.0):
        self.p = params
        self.t0 = float(t0)
        self.t = self.t0
        self.x_ego, self.v_ego, self.a_ego = float(x_ego), float(v_ego), float(a_ego)
        self.x_lead, self.v_lead = float(x_lead), float(v_lead)
        self.k = 0                            # index of the next sample instant
        self.a_cmd = 0.0
        self.force_i = 0.0
        self.a_lead_est = 0.0
        self.v_ego_prev = self.v_ego
        self.v_lead_prev = self.v_lead
        self.aeb_active = False
        self.held = False
        self.aeb_engaged = False
        self.fresh = True
        self.throttle = self.brake = 0.0
        self.brake_torque_front = self.brake_torque_rear = 0.0
        self.gap, self.ttc, self.lead_detected = 0.0, self.TTC_CAP, False
        self.sample(first=True)
        self.fresh = True

    def next_sample_time(self) -> float:
        return self.t0 + self.k * self.p.sample_period

    def step(self, h: float) -> None:
        """Advance by h [s]; runs every sample instant t_k in (t, t+h] with the current inputs."""
        t_end = self.t + h
        tol = 1e-6 * self.p.sample_period
        while self.next_sample_time() <= t_end + tol:
            self.sample()
        self.t = t_end

    def jerk_limit(self, v: float) -> float:
        """ACC-stage jerk limit J(v) [m/s^3] at speed v [m/s] (ISO 15622: 5 -> 2.5 m/s^3 from 5 to 20 m/s)."""
        p = self.p
        s = min(max((v - 5.0) / 15.0, 0.0), 1.0)
        return p.jerk_max + (p.jerk_max_high_speed - p.jerk_max) * s

    def sample(self, first: bool = False) -> None:
        """One controller update at instant t_k (k = self.k), then k += 1."""
        p = self.p
        ts = p.sample_period
        v = self.v_ego
        if first or self.fresh:
            a_meas = self.a_ego if p.use_accel_input else 0.0
            a_lead_raw = 0.0
            self.fresh = False
        else:
            a_meas = self.a_ego if p.use_accel_input else (v - self.v_ego_prev) / ts
            a_lead_raw = (self.v_lead - self.v_lead_prev) / ts
        alpha = ts / (p.lead_accel_filter + ts)
        self.a_lead_est = a_lead_raw if first else self.a_lead_est + alpha * (a_lead_raw - self.a_lead_est)

        self.gap = self.x_lead - self.x_ego - p.gap_offset
        self.lead_detected = p.mode != "cruise" and self.gap < p.sensor_range
        closing = v - self.v_lead
        ttc = self.gap / closing if (self.lead_detected and closing > 0.1) else math.inf
        self.ttc = min(max(ttc, 0.0), self.TTC_CAP)

        a_des = p.k_cruise * (p.set_speed - v)
        if self.lead_detected:
            d_des = p.standstill_distance + p.time_gap * max(v, 0.0)
            a_follow = (p.k_gap * (self.gap - d_des) + p.k_speed * (self.v_lead - v)
                        + p.k_lead_accel * self.a_lead_est)
            if self.v_lead < p.lead_stopped_speed:        # stop at the standstill distance
                room = self.gap - p.standstill_distance
                if room > 0.05:
                    v_ref = math.sqrt(2.0 * p.stop_decel * room)
                    a_follow = p.k_speed * (v_ref - v) - v * v / (2.0 * room)
                else:
                    a_follow = -max(p.stop_decel, v * v / 0.1)
            a_des = min(a_des, a_follow)
        lead_stopped = self.lead_detected and self.v_lead < p.lead_stopped_speed
        a_des = min(max(a_des, -p.decel_max), p.accel_max)

        if self.aeb_active and (closing <= 0.0 or (ttc > p.ttc_off and p.mode != "aeb")):
            self.aeb_active = False
        elif not self.aeb_active and ttc < p.ttc_on and p.mode in ("acc_aeb", "aeb"):
            self.aeb_active = True

        if self.aeb_active:
            self.aeb_engaged = True
            self.a_cmd = min(max(a_meas, -p.decel_max), p.accel_max)
            self.force_i = 0.0
            self.throttle, self.brake = 0.0, 1.0
        elif p.mode == "aeb":
            self.a_cmd, self.force_i, self.throttle = 0.0, 0.0, 0.0
            self.brake = p.brake_hold if (self.aeb_engaged and v < p.stop_speed) else 0.0
        else:
            if first:
                self.a_cmd = a_des
            else:
                dj = self.jerk_limit(v) * ts
                self.a_cmd = min(max(a_des, self.a_cmd - dj), self.a_cmd + dj)
            if self.held and not lead_stopped and a_des > p.restart_accel:
                self.held = False                    # automatic restart: the lead moves off
            elif not self.held and v < p.stop_speed and self.a_cmd <= HOLD_ACCEL_TOL:
                self.held, self.force_i = True, 0.0
            if self.held:
                self.a_cmd = min(self.a_cmd, 0.0)
            force = p.mass * self.a_cmd + self.force_i
            throttle = force / p.drive_force_max if force > 0.0 else 0.0
            brake = -force * p.wheel_radius / p.brake_torque_max if force < 0.0 else 0.0
            saturated = throttle >= 1.0 or brake >= 1.0
            holding = self.held
            err = self.a_cmd - a_meas
            if not first and not holding and not (saturated and err * force > 0.0):
                self.force_i += p.mass * p.k_i * err * ts
            self.throttle = min(throttle, 1.0)
            self.brake = min(brake, 1.0)
            if holding:
                self.throttle, self.brake = 0.0, max(self.brake, p.brake_hold)

        self.brake_torque_front = self.brake * p.brake_torque_max * p.brake_front_bias * 0.5
        self.brake_torque_rear = self.brake * p.brake_torque_max * (1.0 - p.brake_front_bias) * 0.5
        self.v_ego_prev, self.v_lead_prev = v, self.v_lead
        self.k += 1

    # ------------------------------------------------------------------ state
    STATE_KEYS = ("t", "x_ego", "v_ego", "a_ego", "x_lead", "v_lead", "k", "a_cmd", "force_i", "a_lead_est",
                  "v_ego_prev", "v_lead_prev", "aeb_active", "held", "aeb_engaged", "fresh", "throttle", "brake",
                  "brake_torque_front", "brake_torque_rear", "gap", "ttc", "lead_detected")

    def get_state(self) -> dict:
        return {k: getattr(self, k) for k in self.STATE_KEYS}

    def set_state(self, state: dict) -> None:
        for k in self.STATE_KEYS:
            setattr(self, k, state[k])
