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
(stable for the stiff converter near SR = 1).

The laws are numba kernels over flat float64 arrays (:func:`powertrain_init`, :func:`powertrain_step`, the
block kernels of ``fmi.block``), called by :class:`Powertrain` (which only owns the arrays), the Powertrain FMU's
slave and its native build alike. Layout:

    p = [step_size [s], idle_speed, idle_droop, max_speed, cutoff_band [rad/s], engine_inertia [kg m^2],
         final_drive_ratio, gearbox_efficiency, final_drive_efficiency [1], shift_time,
         min_time_between_shifts [s], n_gears, n_engine, n_converter, n_throttle,
         gear_ratios[n_gears], engine_speed, full_load_torque, motoring_torque [n_engine each],
         tc_speed_ratio, tc_torque_ratio, tc_coefficient [n_converter each], shift_throttle[n_throttle],
         upshift_speed, downshift_speed [(n_gears - 1) x n_throttle each, row-major]]      (:func:`powertrain_parameters`)
    s = [gear, shift_from_ratio, shift_elapsed [s], since_shift [s], engine_speed [rad/s], t [s],
         pump_torque, turbine_torque [N m]]
    u = [throttle, omega_left, omega_right]
    y = [torque_left, torque_right [N m], engine_speed [rad/s], engine_torque_out [N m], speed_ratio, gear]

Tables are read with ``numerics.interp.interp_held`` (np.interp's operations, so the numbers are those of the
plain-Python model this replaced, bit for bit).
"""
from __future__ import annotations

import math

import numpy as np

from fmu_vehicle.errors import ModelError
from fmu_vehicle.numerics.interp import interp_held
from fmu_vehicle.numerics.jit import njit
from fmu_vehicle.powertrain.data import PowertrainData

(P_STEP, P_IDLE, P_DROOP, P_MAX, P_BAND, P_INERTIA, P_FD, P_ETA_GB, P_ETA_FD, P_SHIFT_TIME, P_MIN_BETWEEN, P_NG, P_NE,
 P_NTC, P_NTH, P_TABLES) = range(16)
"""Positions in the parameter array ``p`` (module docstring); the tables start at ``P_TABLES``."""
S_GEAR, S_FROM, S_ELAPSED, S_SINCE, S_OMEGA, S_T, S_PUMP, S_TURBINE = range(8)
N_STATE = 8
"""Positions in the state array ``s`` and its length."""
U_THROTTLE, U_LEFT, U_RIGHT = range(3)
Y_LEFT, Y_RIGHT, Y_SPEED, Y_TORQUE, Y_RATIO, Y_GEAR = range(6)
"""Positions in the input array ``u`` and the output array ``y``."""


def powertrain_parameters(data: PowertrainData, step_size: float) -> np.ndarray:
    """The parameter array ``p`` of ``data`` with the internal step ``step_size`` [s] (module docstring)."""
    if not (math.isfinite(step_size) and step_size > 0):
        raise ModelError(f"powertrain step_size {step_size!r}: must be a finite number > 0 s")
    d = data
    head = [float(step_size), d.idle_speed, d.idle_droop, d.max_speed, d.cutoff_band, d.engine_inertia,
            d.final_drive_ratio, d.gearbox_efficiency, d.final_drive_efficiency, d.shift_time,
            d.min_time_between_shifts, d.n_gears, d.engine_speed.size, d.tc_speed_ratio.size, d.shift_throttle.size]
    tables = [d.gear_ratios, d.engine_speed, d.full_load_torque, d.motoring_torque, d.tc_speed_ratio,
              d.tc_torque_ratio, d.tc_coefficient, d.shift_throttle, d.upshift_speed, d.downshift_speed]
    return np.concatenate([np.array(head, dtype=np.float64)]
                          + [np.ascontiguousarray(t, dtype=np.float64).reshape(-1) for t in tables])


@njit
def _tables(p):
    """The tables of ``p``: (gear ratios, engine speeds, full-load and motoring torques, converter speed ratios,
    torque ratios and coefficients, shift throttles, upshift and downshift speeds (flat rows))."""
    ng, ne, ntc, nth = int(p[P_NG]), int(p[P_NE]), int(p[P_NTC]), int(p[P_NTH])
    o = P_TABLES
    ratios = p[o:o + ng]
    o += ng
    speed, full, mot = p[o:o + ne], p[o + ne:o + 2 * ne], p[o + 2 * ne:o + 3 * ne]
    o += 3 * ne
    sr, tr, cc = p[o:o + ntc], p[o + ntc:o + 2 * ntc], p[o + 2 * ntc:o + 3 * ntc]
    o += 3 * ntc
    thr = p[o:o + nth]
    o += nth
    m = (ng - 1) * nth
    return ratios, speed, full, mot, sr, tr, cc, thr, p[o:o + m], p[o + m:o + 2 * m]


@njit
def output_shaft_speed(p, u):
    """Gearbox output speed [rad/s] = i_fd * mean driven-wheel speed."""
    return p[P_FD] * 0.5 * (u[U_LEFT] + u[U_RIGHT])


@njit
def gear_ratio(p, s):
    """Current gearbox ratio (linear blend from the old ratio during a shift)."""
    target = _tables(p)[0][int(s[S_GEAR]) - 1]
    if s[S_ELAPSED] >= p[P_SHIFT_TIME]:
        return target
    f = s[S_ELAPSED] / p[P_SHIFT_TIME]
    return s[S_FROM] + (target - s[S_FROM]) * f


@njit
def engine_torque(p, omega_e, throttle):
    """Engine brake torque [N m] at speed omega_e [rad/s] and pedal throttle [0..1]."""
    idle, droop, top, band = p[P_IDLE], p[P_DROOP], p[P_MAX], p[P_BAND]
    governor = min(max((idle - omega_e) / droop, 0.0), 1.0) if droop > 0 else (1.0 if omega_e < idle else 0.0)
    cut = min(max((top + band - omega_e) / band, 0.0), 1.0) if band > 0 else (1.0 if omega_e < top else 0.0)
    u = max(throttle, governor) * cut
    w = max(omega_e, 0.0)
    tables = _tables(p)
    t_full = interp_held(tables[1], tables[2], w)
    t_mot = interp_held(tables[1], tables[3], w)
    return t_mot + u * (t_full - t_mot)


@njit
def converter_torques(p, omega_p, omega_t):
    """(pump torque [N m], turbine torque [N m], speed ratio [1]) of the torque converter."""
    tables = _tables(p)
    sr_tab, tr_tab, cc_tab = tables[4], tables[5], tables[6]
    omega_p = max(omega_p, 0.0)
    if omega_p >= omega_t:
        if omega_p == 0.0:
            return 0.0, 0.0, 1.0
        sr = max(omega_t, 0.0) / omega_p
        c = interp_held(sr_tab, cc_tab, sr)
        tr = interp_held(sr_tab, tr_tab, sr)
        t_p = c * omega_p * omega_p
        return t_p, tr * t_p, omega_t / omega_p
    c = interp_held(sr_tab, cc_tab, omega_p / omega_t)
    t_p = -c * omega_t * omega_t
    return t_p, t_p, omega_t / omega_p if omega_p > 0 else 0.0


@njit
def wheel_torque_total(p, turbine_torque, ratio):
    """Sum of both driven-wheel torques [N m]; efficiency divides when the wheels drive the engine."""
    eta = p[P_ETA_GB] * p[P_ETA_FD]
    i = ratio * p[P_FD]
    return turbine_torque * i * (eta if turbine_torque >= 0.0 else 1.0 / eta)


@njit
def shift_speeds(p, gear, throttle):
    """(downshift, upshift) output-shaft speeds [rad/s] for ``gear``; -inf/inf where none exists."""
    tables = _tables(p)
    thr_tab, up_tab, down_tab = tables[7], tables[8], tables[9]
    ng, nth = int(p[P_NG]), int(p[P_NTH])
    thr = min(max(throttle, 0.0), 1.0)
    down = interp_held(thr_tab, down_tab[(gear - 2) * nth:(gear - 1) * nth], thr) if gear > 1 else -math.inf
    up = interp_held(thr_tab, up_tab[(gear - 1) * nth:gear * nth], thr) if gear < ng else math.inf
    return down, up


@njit
def _net_torque(p, omega_e, omega_t, throttle):
    return engine_torque(p, omega_e, throttle) - converter_torques(p, omega_e, omega_t)[0]


@njit
def steady_engine_speed(p, s, u):
    """Engine speed [rad/s] with T_e = T_pump for the inputs ``u`` and the current ratio (bisection).

    A bracketed bisection on a monotone-by-construction bracket, run once at initialization (no root finder of
    scipy's in the FMU: docs/fmu_hosts.md "Exiting cleanly")."""
    omega_t = output_shaft_speed(p, u) * gear_ratio(p, s)
    throttle = u[U_THROTTLE]
    lo, hi = 0.0, p[P_MAX] + p[P_BAND]
    if _net_torque(p, hi, omega_t, throttle) >= 0.0:
        return hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _net_torque(p, mid, omega_t, throttle) > 0.0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(hi, 1.0):
            break
    return 0.5 * (lo + hi)


@njit
def _update_outputs(p, s, u, y):
    ratio = gear_ratio(p, s)
    omega_t = output_shaft_speed(p, u) * ratio
    w = s[S_OMEGA]
    pump, turbine, sr = converter_torques(p, w, omega_t)
    total = wheel_torque_total(p, turbine, ratio)
    s[S_PUMP], s[S_TURBINE] = pump, turbine
    y[Y_LEFT] = y[Y_RIGHT] = 0.5 * total
    y[Y_SPEED] = w
    y[Y_TORQUE] = engine_torque(p, w, u[U_THROTTLE])
    y[Y_RATIO] = sr
    y[Y_GEAR] = s[S_GEAR]


@njit
def powertrain_init(p, s, u, y, t0):
    """The start (the block kernels' ``init``; returns 0): the gear the shift schedule selects for the inputs
    ``u``, no shift running, the engine at its steady speed; the model's time starts at 0 whatever ``t0``."""
    omega_out = output_shaft_speed(p, u)
    gear = 1
    while gear < int(p[P_NG]) and omega_out > shift_speeds(p, gear, u[U_THROTTLE])[1]:
        gear += 1
    s[S_GEAR] = gear
    s[S_FROM] = _tables(p)[0][gear - 1]
    s[S_ELAPSED] = p[P_SHIFT_TIME]                  # no shift running
    s[S_SINCE] = p[P_MIN_BETWEEN]                   # a shift may start at once
    s[S_T] = 0.0
    s[S_OMEGA] = steady_engine_speed(p, s, u)
    _update_outputs(p, s, u, y)
    return 0


@njit
def _shift_logic(p, s, u):
    if s[S_SINCE] < p[P_MIN_BETWEEN]:
        return
    gear = int(s[S_GEAR])
    down, up = shift_speeds(p, gear, u[U_THROTTLE])
    omega_out = output_shaft_speed(p, u)
    new = gear + 1 if omega_out > up else (gear - 1 if omega_out < down else gear)
    if new != gear:
        s[S_FROM] = gear_ratio(p, s)
        s[S_GEAR] = new
        s[S_ELAPSED] = 0.0
        s[S_SINCE] = 0.0


@njit
def _substep(p, s, u, dt):
    _shift_logic(p, s, u)
    omega_t = output_shaft_speed(p, u) * gear_ratio(p, s)
    w = s[S_OMEGA]
    j = p[P_INERTIA]
    throttle = u[U_THROTTLE]
    f0 = _net_torque(p, w, omega_t, throttle) / j
    dw = 1e-6 * max(w, 1.0)
    df = (_net_torque(p, w + dw, omega_t, throttle) / j - f0) / dw
    s[S_OMEGA] = max(w + dt * f0 / (1.0 - dt * min(df, 0.0)), 0.0)
    s[S_ELAPSED] += dt
    s[S_SINCE] += dt
    s[S_T] += dt


@njit
def powertrain_step(p, s, u, y, t, h):
    """Advance by ``h`` [s] with the inputs ``u`` held: n = ceil(h/step_size) equal sub-steps (the block kernels'
    ``step``; returns 0)."""
    n = max(1, math.ceil(h / p[P_STEP] - 1e-9))
    dt = h / n
    for _ in range(n):
        _substep(p, s, u, dt)
    _update_outputs(p, s, u, y)
    return 0


def _slot(array: str, index: int, kind=float, doc: str = ""):
    """A property reading (and writing) ``self.<array>[index]``."""
    def get(self):
        return kind(getattr(self, array)[index])

    def put(self, value):
        getattr(self, array)[index] = value
    return property(get, put, doc=doc)


class Powertrain:
    """Powertrain state + step; attributes ``throttle``, ``omega_left``, ``omega_right`` are the inputs.

    data       PowertrainData (load_powertrain)
    step_size  max internal step [s]
    throttle, omega_left, omega_right  initial inputs [1], [rad/s]; the engine starts in steady state
                                       in the gear the schedule selects for them
    The arrays ``p``, ``s``, ``u``, ``y`` of the kernels (module docstring) hold everything.
    """

    def __init__(self, data: PowertrainData, step_size: float = 1e-3, throttle: float = 0.0,
                 omega_left: float = 0.0, omega_right: float = 0.0):
        self.data = data
        self.p = powertrain_parameters(data, step_size)
        self.s = np.zeros(N_STATE)
        self.u = np.array([throttle, omega_left, omega_right], dtype=np.float64)
        self.y = np.zeros(6)
        powertrain_init(self.p, self.s, self.u, self.y, 0.0)

    step_size = property(lambda self: float(self.p[P_STEP]), doc="max internal step [s]")
    throttle = _slot("u", U_THROTTLE, doc="accelerator pedal [0..1]")
    omega_left = _slot("u", U_LEFT, doc="left driven wheel speed [rad/s]")
    omega_right = _slot("u", U_RIGHT, doc="right driven wheel speed [rad/s]")
    gear = _slot("s", S_GEAR, int, "engaged (target) gear, 1 = first")
    shift_from_ratio = _slot("s", S_FROM, doc="ratio the running shift started from")
    shift_elapsed = _slot("s", S_ELAPSED, doc="time since the last shift started [s]")
    since_shift = _slot("s", S_SINCE, doc="time since the last shift started, for the shift interval [s]")
    engine_speed = _slot("s", S_OMEGA, doc="engine speed [rad/s]")
    t = _slot("s", S_T, doc="model time [s]")
    pump_torque = _slot("s", S_PUMP, doc="converter pump torque [N m]")
    turbine_torque = _slot("s", S_TURBINE, doc="converter turbine torque [N m]")
    torque_left = _slot("y", Y_LEFT, doc="left wheel drive torque [N m]")
    torque_right = _slot("y", Y_RIGHT, doc="right wheel drive torque [N m]")
    engine_torque_out = _slot("y", Y_TORQUE, doc="engine brake torque [N m]")
    speed_ratio = _slot("y", Y_RATIO, doc="converter speed ratio [1]")

    def gear_ratio(self) -> float:
        """Current gearbox ratio (linear blend from the old ratio during a shift)."""
        return float(gear_ratio(self.p, self.s))

    def step(self, h: float) -> None:
        """Advance by h [s] with the current inputs held (n = ceil(h/step_size) equal sub-steps)."""
        powertrain_step(self.p, self.s, self.u, self.y, self.t, float(h))

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
        self.y[Y_SPEED], self.y[Y_GEAR] = self.s[S_OMEGA], self.s[S_GEAR]
