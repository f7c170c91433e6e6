"""Automatic-transmission powertrain: engine, torque converter, shifting gearbox, final drive, open diff.

Inputs: throttle [0..1] and the speeds of the two driven wheels [rad/s] (positive = forward);
outputs: drive torque per driven wheel [N m] (positive = forward), engine speed [rad/s], gear.
The only continuous state is the engine speed omega_e; the wheel side is kinematic (held inputs).

Engine (quasi-static map + inertia):
    u     = max(throttle, clip((omega_idle - omega_e)/droop, 0, 1)) * clip((omega_max + band - omega_e)/band, 0, 1)
    T_e   = T_mot(omega_e) + u (T_full(omega_e) - T_mot(omega_e))          (idle governor, fuel cut-off)
    J_e d(omega_e)/dt = T_e - T_p
Torque converter (capacity-factor model, SAE J643 K-factor; Kotwicki 1982 style tables):
    SR = omega_t/omega_e <= 1:  T_p = C(SR) omega_e^2,  T_t = TR(SR) T_p,   C = 1/K^2
    omega_t > omega_e (overrun): T_p = -C(omega_e/omega_t) omega_t^2, T_t = T_p
Gearbox and final drive (shift = linear ratio change over shift_time, the "inertia phase"):
    omega_t = i_g(t) i_fd (omega_left + omega_right)/2
    T_wheel,left = T_wheel,right = T_t i_g(t) i_fd eta^(+1 driving | -1 overrun) / 2   (open differential)
Shift schedule: output-shaft speed thresholds interpolated in throttle; upshift above the up line,
downshift below the (lower) down line, at most one shift per min_time_between_shifts.

Integration: fixed sub-steps <= step_size per call of ``step(h)``, linearly implicit Euler on omega_e
(stable for the stiff converter near SR = 1).  Plain Python on scalars: a numba kernel would not be
faster for three scalar equations and its JIT would cost ~1 s per FMU process (measured per instance at a
1 ms communication step, where pythonfmu's own call overhead dominates the cost of a step).
"""
from __future__ import annotations

import math

import numpy as np

from fmu_vehicle.errors import ModelError
from fmu_vehicle.powertrain.data import PowertrainData


class Powertrain:
    """Powertrain state + step; attributes ``throttle``, ``omega_left``, ``omega_right`` are the inputs.

    data       PowertrainData (load_powertrain)
    step_size  max internal step [s]
    throttle, omega_left, omega_right  initial inputs [1], [rad/s]; the engine starts in steady state
                                       in the gear the schedule selects for them
    """

    def __init__(self, data: PowertrainData, step_size: float = 1e-3, throttle: float = 0.0,
                 omega_left: float = 0.0, omega_right: float = 0.0):
        if not (math.isfinite(step_size) and step_size > 0):
            raise ModelError(f"powertrain step_size {step_size!r}: must be a finite number > 0 s")
        self.data = data
        self.step_size = float(step_size)
        self.throttle = float(throttle)
        self.omega_left = float(omega_left)
        self.omega_right = float(omega_right)
        self.t = 0.0
        self.gear = self._initial_gear()
        self.shift_from_ratio = data.gear_ratios[self.gear - 1]
        self.shift_elapsed = data.shift_time            # no shift running
        self.since_shift = data.min_time_between_shifts  # a shift may start at once
        self.engine_speed = self.steady_engine_speed()
        self._update_outputs()

    # ------------------------------------------------------------------ component laws
    def output_shaft_speed(self) -> float:
        """Gearbox output speed [rad/s] = i_fd * mean driven-wheel speed."""
        return self.data.final_drive_ratio * 0.5 * (self.omega_left + self.omega_right)

    def gear_ratio(self) -> float:
        """Current gearbox ratio (linear blend from the old ratio during a shift)."""
        target = self.data.gear_ratios[self.gear - 1]
        if self.shift_elapsed >= self.data.shift_time:
            return target
        s = self.shift_elapsed / self.data.shift_time
        return self.shift_from_ratio + (target - self.shift_from_ratio) * s

    def engine_torque(self, omega_e: float, throttle: float) -> float:
        """Engine brake torque [N m] at speed omega_e [rad/s] and pedal throttle [0..1]."""
        d = self.data
        governor = min(max((d.idle_speed - omega_e) / d.idle_droop, 0.0), 1.0) if d.idle_droop > 0 else \
            (1.0 if omega_e < d.idle_speed else 0.0)
        cut = min(max((d.max_speed + d.cutoff_band - omega_e) / d.cutoff_band, 0.0), 1.0) if d.cutoff_band > 0 \
            else (1.0 if omega_e < d.max_speed else 0.0)
        u = max(throttle, governor) * cut
        w = max(omega_e, 0.0)
        t_full = float(np.interp(w, d.engine_speed, d.full_load_torque))
        t_mot = float(np.interp(w, d.engine_speed, d.motoring_torque))
        return t_mot + u * (t_full - t_mot)

    def converter_torques(self, omega_p: float, omega_t: float) -> tuple[float, float, float]:
        """(pump torque [N m], turbine torque [N m], speed ratio [1]) of the torque converter."""
        d = self.data
        omega_p = max(omega_p, 0.0)
        if omega_p >= omega_t:
            if omega_p == 0.0:
                return 0.0, 0.0, 1.0
            sr = max(omega_t, 0.0) / omega_p
            c = float(np.interp(sr, d.tc_speed_ratio, d.tc_coefficient))
            tr = float(np.interp(sr, d.tc_speed_ratio, d.tc_torque_ratio))
            t_p = c * omega_p * omega_p
            return t_p, tr * t_p, omega_t / omega_p
        c = float(np.interp(omega_p / omega_t, d.tc_speed_ratio, d.tc_coefficient))
        t_p = -c * omega_t * omega_t
        return t_p, t_p, omega_t / omega_p if omega_p > 0 else 0.0

    def wheel_torque_total(self, turbine_torque: float, ratio: float) -> float:
        """Sum of both driven-wheel torques [N m]; efficiency divides when the wheels drive the engine."""
        d = self.data
        eta = d.gearbox_efficiency * d.final_drive_efficiency
        i = ratio * d.final_drive_ratio
        return turbine_torque * i * (eta if turbine_torque >= 0.0 else 1.0 / eta)

    def shift_speeds(self, gear: int, throttle: float) -> tuple[float, float]:
        """(downshift, upshift) output-shaft speeds [rad/s] for ``gear``; -inf/inf where none exists."""
        d = self.data
        thr = min(max(throttle, 0.0), 1.0)
        down = float(np.interp(thr, d.shift_throttle, d.downshift_speed[gear - 2])) if gear > 1 else -math.inf
        up = float(np.interp(thr, d.shift_throttle, d.upshift_speed[gear - 1])) if gear < d.n_gears else math.inf
        return down, up

    # ------------------------------------------------------------------ initialization
    def _initial_gear(self) -> int:
        omega_out = self.output_shaft_speed()
        gear = 1
        while gear < self.data.n_gears and omega_out > self.shift_speeds(gear, self.throttle)[1]:
            gear += 1
        return gear

    def steady_engine_speed(self) -> float:
        """Engine speed [rad/s] with T_e = T_pump for the current inputs and ratio (bisection).

        A bracketed bisection on a monotone-by-construction bracket, run once at initialization; it
        keeps scipy out of the FMU (loading scipy's C++ extensions into a non-Python FMI host made it crash at
        exit, docs/fmu_hosts.md "Exiting cleanly"; an FMU without them has nothing to go wrong there).
        """
        omega_t = self.output_shaft_speed() * self.gear_ratio()
        lo, hi = 0.0, self.data.max_speed + self.data.cutoff_band
        if self._net_torque(hi, omega_t) >= 0.0:
            return hi
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if self._net_torque(mid, omega_t) > 0.0:
                lo = mid
            else:
                hi = mid
            if hi - lo <= 1e-12 * max(hi, 1.0):
                break
        return 0.5 * (lo + hi)

    def _net_torque(self, omega_e: float, omega_t: float) -> float:
        return self.engine_torque(omega_e, self.throttle) - self.converter_torques(omega_e, omega_t)[0]

    # ------------------------------------------------------------------ time stepping
    def _shift_logic(self) -> None:
        d = self.data
        if self.since_shift < d.min_time_between_shifts:
            return
        down, up = self.shift_speeds(self.gear, self.throttle)
        omega_out = self.output_shaft_speed()
        new = self.gear + 1 if omega_out > up else (self.gear - 1 if omega_out < down else self.gear)
        if new != self.gear:
            self.shift_from_ratio = self.gear_ratio()
            self.gear = new
            self.shift_elapsed = 0.0
            self.since_shift = 0.0

    def _substep(self, dt: float) -> None:
        self._shift_logic()
        omega_t = self.output_shaft_speed() * self.gear_ratio()
        w = self.engine_speed
        j = self.data.engine_inertia
        f0 = self._net_torque(w, omega_t) / j
        dw = 1e-6 * max(w, 1.0)
        df = (self._net_torque(w + dw, omega_t) / j - f0) / dw
        self.engine_speed = max(w + dt * f0 / (1.0 - dt * min(df, 0.0)), 0.0)
        self.shift_elapsed += dt
        self.since_shift += dt
        self.t += dt

    def step(self, h: float) -> None:
        """Advance by h [s] with the current inputs held (n = ceil(h/step_size) equal sub-steps)."""
        n = max(1, math.ceil(h / self.step_size - 1e-9))
        dt = h / n
        for _ in range(n):
            self._substep(dt)
        self._update_outputs()

    def _update_outputs(self) -> None:
        ratio = self.gear_ratio()
        omega_t = self.output_shaft_speed() * ratio
        self.engine_torque_out = self.engine_torque(self.engine_speed, self.throttle)
        self.pump_torque, self.turbine_torque, self.speed_ratio = self.converter_torques(self.engine_speed, omega_t)
        total = self.wheel_torque_total(self.turbine_torque, ratio)
        self.torque_left = self.torque_right = 0.5 * total

    # ------------------------------------------------------------------ state
    STATE_KEYS = ("throttle", "omega_left", "omega_right", "t", "gear", "shift_from_ratio", "shift_elapsed",
                  "since_shift", "engine_speed", "engine_torque_out", "pump_torque", "turbine_torque",
                  "speed_ratio", "torque_left", "torque_right")

    def get_state(self) -> dict:
        """All time-varying attributes (floats/ints) as a dict."""
        return {k: getattr(self, k) for k in self.STATE_KEYS}

    def set_state(self, state: dict) -> None:
        """Inverse of get_state."""
        for k in self.STATE_KEYS:
            setattr(self, k, state[k])
