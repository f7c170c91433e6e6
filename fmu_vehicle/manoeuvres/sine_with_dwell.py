"""The sine-with-dwell test of electronic stability control (UN Regulation No. 140, Annex 3, and FMVSS No. 126,
S7): the slowly increasing steer that finds the steering-wheel angle A of 0.3 g, the 0.7 Hz sine with a 500 ms
dwell, the amplitude series, and the pass/fail criteria computed from the time series. Described in
docs/chassis_control.md §5.

Slowly increasing steer (SIS): coasting at 80 km/h, the steering-wheel angle rises at 13.5 deg/s from zero
until the lateral acceleration passes 0.5 g. A is the steering-wheel angle at a_y = 0.3 g of a straight line
fitted by least squares to a_y against the steering-wheel angle delta over the samples of the ramp with
0.1 g <= |a_y| <= 0.375 g (a window around 0.3 g inside the linear range; the regulations ask for a linear
regression)::

    a_y = k delta + c       ->       A = (0.3 g - c) / k

As the regulations have it, each run's |A| is rounded to 0.1 deg and their mean, rounded to 0.1 deg, is the
A of the series (the runs to the left and to the right; the simulation repeats exactly, so one of each).

Sine with dwell (SWD), entered at 80 km/h coasting (pedal and drive torque 0), direction s = +1 counter-
clockwise (left first, ISO 8855), s = -1 clockwise, tau = t - t_start, f = 0.7 Hz, T = 1/f, dwell 0.5 s::

    delta(tau) = s delta_A sin(2 pi f tau)                 0 <= tau < 3T/4
               = -s delta_A                                3T/4 <= tau < 3T/4 + dwell
               = s delta_A sin(2 pi f (tau - dwell))       3T/4 + dwell <= tau < T + dwell
               = 0                                         otherwise

Amplitudes delta_A = 1.5 A, 2 A, ... in steps of 0.5 A up to the final amplitude, the greater of 6.5 A and
270 deg (300 deg if 6.5 A is more than 300 deg), the final amplitude itself the last run; both directions.

Criteria (:func:`swd_criteria`, from the time series alone):

* BOS (beginning of steer): the first instant the steering-wheel angle reaches 5 deg in the direction of the
  first lobe; COS (completion of steer): the instant it returns to zero after the dwell;
* the peak yaw rate psi'_peak: the first local peak of the yaw rate after the steering-wheel angle changes
  sign (in the direction of the second lobe);
* lateral stability: psi'(COS + 1.0 s) / psi'_peak <= 35 % and psi'(COS + 1.75 s) / psi'_peak <= 20 %;
* responsiveness, for amplitudes of 5 A and more (vehicles up to 3.5 t): the lateral displacement of the
  centre of mass at BOS + 1.07 s is at least 1.83 m. As the regulations compute it: the lateral acceleration
  at the centre of mass (without gravity: the roll-corrected signal, here ``chassis.ay``) integrated twice
  from BOS with zero velocity and displacement there (trapezoidal rule), in the direction of the first lobe.
  The displacement on the ground (``chassis.y`` across the heading at BOS) is reported beside it.

The simulated signals are noise-free: they are used as recorded, without the regulations' 10 Hz filter;
the zero offsets of steering-wheel angle, yaw rate and lateral acceleration are the means before the steer.
"""
from __future__ import annotations

import math
import numpy as np

from ..driver.profile import SteeringProfile
from ..errors import ModelError
from .single_track import G

SPEED_M_S = 80.0 / 3.6
"""Entry speed of both manoeuvres [m/s] (80 km/h; the regulations allow 80 +- 2 km/h)."""
SPEED_TOLERANCE_M_S = 2.0 / 3.6
SIS_RATE_RAD_S = math.radians(13.5)
"""Steering-wheel rate of the slowly increasing steer [rad/s]."""
SIS_END_AY_M_S2 = 0.5 * G
"""The slowly increasing steer ends when |a_y| passes this [m/s^2]."""
A_AY_M_S2 = 0.3 * G
"""A is the steering-wheel angle at this lateral acceleration [m/s^2]."""
A_FIT_WINDOW_M_S2 = (0.1 * G, 0.375 * G)
"""|a_y| range of the samples the straight line of the slowly increasing steer is fitted over [m/s^2]."""
FREQUENCY_HZ = 0.7
DWELL_S = 0.5
BOS_ANGLE_RAD = math.radians(5.0)
"""BOS: the steering-wheel angle first reaches this in the direction of the first lobe [rad]."""
YAW_RATE_CHECKS = ((1.0, 35.0), (1.75, 20.0))
"""(time after COS [s], largest yaw rate in % of the peak) of the lateral-stability criteria."""
DISPLACEMENT_TIME_S = 1.07
"""The lateral displacement is taken this long after BOS [s]."""
DISPLACEMENT_MIN_M = 1.83
"""Least lateral displacement at BOS + 1.07 s [m] (vehicles up to 3.5 t)."""
DISPLACEMENT_FROM_A = 5.0
"""The responsiveness criterion applies to amplitudes of this many A and more."""
FIRST_AMPLITUDE_A, AMPLITUDE_STEP_A, LAST_MULTIPLE_A = 1.5, 0.5, 6.5
FINAL_AMPLITUDE_RAD = math.radians(270.0)
MAX_AMPLITUDE_RAD = math.radians(300.0)
CRITERIA = ("yaw_rate_1s", "yaw_rate_1.75s", "lateral_displacement")
"""Names of the three criteria, as they appear in a row's ``failed``."""
DIRECTIONS = {1: "counter-clockwise", -1: "clockwise"}
STEER_START_S = 0.5
"""The runners start steering this long after the run starts (the car settles from its initial state) [s]."""
SETTLE_AFTER_S = 2.0
"""The SWD run goes on this long after COS [s] (the last criterion is at COS + 1.75 s)."""
PROFILE_SAMPLE_S = 0.002
"""Breakpoint spacing of the SWD steering profile [s]: the linear interpolation between breakpoints is within
delta_A (2 pi f h)^2 / 8 < 1e-5 delta_A of the sine."""


# ---------------------------------------------------------------------------------------------- steering
def steer_duration_s(frequency_hz: float = FREQUENCY_HZ, dwell_s: float = DWELL_S) -> float:
    """Duration of the SWD steering input, T + dwell [s] (1.929 s)."""
    return 1.0 / frequency_hz + dwell_s


def sine_with_dwell_angle(t, amplitude_rad: float, *, direction: int = 1, t_start: float = 0.0,
                          frequency_hz: float = FREQUENCY_HZ, dwell_s: float = DWELL_S):
    """Steering-wheel angle [rad] of the SWD at time(s) ``t`` [s] (module docstring)."""
    s = _direction(direction)
    tau = np.asarray(t, dtype=float) - t_start
    w = 2.0 * math.pi * frequency_hz
    t_dwell = 0.75 / frequency_hz
    out = np.where(tau < t_dwell, np.sin(w * tau), np.where(tau < t_dwell + dwell_s, -1.0,
                                                               np.sin(w * (tau - dwell_s))))
    out = np.where((tau < 0.0) | (tau >= t_dwell + 0.25 / frequency_hz + dwell_s), 0.0, out)
    out = s * amplitude_rad * out
    return float(out) if out.ndim == 0 else out


def sine_with_dwell_profile(amplitude_rad: float, *, direction: int = 1, t_start: float = STEER_START_S,
                            frequency_hz: float = FREQUENCY_HZ, dwell_s: float = DWELL_S,
                            sample_s: float = PROFILE_SAMPLE_S) -> SteeringProfile:
    """The SWD as a :class:`SteeringProfile`: breakpoints every ``sample_s`` over the sine parts and at the
    corners (start, first peak, dwell start and end, COS), zero before and after."""
    if not (math.isfinite(amplitude_rad) and amplitude_rad > 0.0):
        raise ModelError(f"sine with dwell: amplitude_rad must be a positive angle, got {amplitude_rad!r}")
    t_dwell = 0.75 / frequency_hz
    end = steer_duration_s(frequency_hz, dwell_s)
    corners = [0.0, 0.25 / frequency_hz, t_dwell, t_dwell + dwell_s, end]
    taus = np.unique(np.concatenate([np.arange(0.0, t_dwell, sample_s), np.arange(t_dwell + dwell_s, end, sample_s),
                                     corners]))
    angles = sine_with_dwell_angle(taus, amplitude_rad, direction=direction, frequency_hz=frequency_hz,
                                   dwell_s=dwell_s)
    angles[-1] = 0.0
    times = t_start + taus
    if t_start > 0.0:
        times, angles = np.concatenate([[0.0], times]), np.concatenate([[0.0], angles])
    return SteeringProfile(times, angles, name=f"sine with dwell {math.degrees(amplitude_rad):.1f} deg")


def slowly_increasing_steer_profile(*, direction: int = 1, t_start: float = STEER_START_S,
                                    rate_rad_s: float = SIS_RATE_RAD_S,
                                    max_angle_rad: float = math.radians(90.0)) -> SteeringProfile:
    """The SIS ramp: 0 until ``t_start``, then ``rate_rad_s`` in ``direction`` up to ``max_angle_rad``."""
    s = _direction(direction)
    return SteeringProfile([0.0, t_start, t_start + max_angle_rad / rate_rad_s], [0.0, 0.0, s * max_angle_rad],
                           name="slowly increasing steer")


def amplitude_series(A_rad: float) -> list[tuple[float, float]]:
    """The SWD amplitudes (module docstring) as (multiple of A, amplitude [rad]), increasing; the final one's
    multiple is its amplitude / A."""
    if not (math.isfinite(A_rad) and A_rad > 0.0):
        raise ModelError(f"sine with dwell: A must be a positive angle, got {A_rad!r}")
    final = max(LAST_MULTIPLE_A * A_rad, FINAL_AMPLITUDE_RAD)
    if LAST_MULTIPLE_A * A_rad > MAX_AMPLITUDE_RAD:
        final = MAX_AMPLITUDE_RAD
    out, k = [], FIRST_AMPLITUDE_A
    while k * A_rad < final - 1e-9:
        out.append((k, k * A_rad))
        k += AMPLITUDE_STEP_A
    out.append((final / A_rad, final))
    return out


def _direction(direction) -> int:
    if direction not in (1, -1):
        raise ModelError(f"sine with dwell: direction must be +1 (counter-clockwise, left first) or -1 "
                         f"(clockwise), got {direction!r}")
    return int(direction)


# ---------------------------------------------------------------------------------------------- analysis
def _series(name: str, values, n: int | None = None) -> np.ndarray:
    a = np.asarray(values, dtype=float).ravel()
    if n is not None and a.size != n:
        raise ModelError(f"sine with dwell: {name} has {a.size} samples, the time has {n}")
    if not np.all(np.isfinite(a)):
        raise ModelError(f"sine with dwell: {name} has values that are not finite")
    return a


def angle_at_lateral_acceleration(steering_wheel_angle, ay, *, ay_target: float = A_AY_M_S2,
                                  window=A_FIT_WINDOW_M_S2) -> dict:
    """A of one slowly increasing steer (module docstring): the steering-wheel angle [rad] at |a_y| =
    ``ay_target`` [m/s^2] on the line fitted to a_y against the steering-wheel angle over the samples with
    ``window[0] <= |a_y| <= window[1]`` taken up to the first sample above the window. Returns A_rad (> 0),
    direction (+1 left, -1 right), slope_m_s2_per_rad (k), intercept_m_s2 (c), n_points, rms_residual_m_s2."""
    swa = _series("steering_wheel_angle", steering_wheel_angle)
    a = _series("ay", ay, swa.size)
    lo, hi = float(window[0]), float(window[1])
    if not (0.0 <= lo < ay_target < hi):
        raise ModelError(f"slowly increasing steer: the fit window {lo:g} .. {hi:g} m/s^2 must contain "
                         f"ay_target {ay_target:g} m/s^2")
    above = np.flatnonzero(np.abs(a) > hi)
    end = int(above[0]) if above.size else a.size
    if not above.size:
        raise ModelError(f"slowly increasing steer: |a_y| never passes {hi:g} m/s^2 (largest "
                         f"{np.abs(a).max():.3f} m/s^2): the run does not cover the fit window")
    s = 1.0 if a[end] > 0.0 else -1.0
    use = np.flatnonzero((s * a[:end] >= lo) & (s * a[:end] <= hi))
    if use.size < 3:
        raise ModelError(f"slowly increasing steer: only {use.size} samples with {lo:g} <= |a_y| <= {hi:g} m/s^2")
    k, c = np.polyfit(swa[use], a[use], 1)
    residual = a[use] - (k * swa[use] + c)
    A = (s * ay_target - c) / k
    return {"A_rad": float(abs(A)), "direction": int(s), "slope_m_s2_per_rad": float(k), "intercept_m_s2": float(c),
            "n_points": int(use.size), "rms_residual_m_s2": float(np.sqrt(np.mean(residual ** 2)))}


def _crossing(t: np.ndarray, x: np.ndarray, start: int, level: float) -> tuple[float, int]:
    """First instant at or after sample ``start`` where x reaches ``level`` from below (linear between
    samples), and the index of the first sample at or above it; (nan, -1) if never."""
    k = np.flatnonzero(x[start:] >= level)
    if not k.size:
        return math.nan, -1
    i = start + int(k[0])
    if i == 0 or x[i - 1] >= level:
        return float(t[i]), i
    f = (level - x[i - 1]) / (x[i] - x[i - 1])
    return float(t[i - 1] + f * (t[i] - t[i - 1])), i


def _integral_from(t: np.ndarray, x: np.ndarray, t0: float) -> tuple[np.ndarray, np.ndarray]:
    """(times, running trapezoidal integral of x from t0) on t0 and the samples after it."""
    xs = float(np.interp(t0, t, x))
    k = np.searchsorted(t, t0, side="right")
    tt, xx = np.concatenate([[t0], t[k:]]), np.concatenate([[xs], x[k:]])
    return tt, np.concatenate([[0.0], np.cumsum(0.5 * (xx[1:] + xx[:-1]) * np.diff(tt))])


def lateral_displacement_series(t, ay, t_from: float) -> tuple[np.ndarray, np.ndarray]:
    """The regulations' lateral displacement [m] against time: a_y [m/s^2] integrated twice from ``t_from``
    with zero lateral velocity and displacement there (trapezoidal rule), + to the left. Returns (times from
    ``t_from`` on, displacement)."""
    t, a = np.asarray(t, dtype=float), np.asarray(ay, dtype=float)
    tt, v = _integral_from(t, a, t_from)
    return _integral_from(tt, v, t_from)


def lateral_displacement(t, ay, t_from: float, t_at: float) -> float:
    """:func:`lateral_displacement_series` at ``t_at`` [s] (linear between samples)."""
    tt, y = lateral_displacement_series(t, ay, t_from)
    return float(np.interp(t_at, tt, y))


def swd_criteria(t, steering_wheel_angle, yaw_rate, ay, *, A_rad: float, x=None, y=None, yaw=None, vx=None,
                 zero_before: float | None = None) -> dict:
    """The result row of one SWD run from its time series (module docstring): ``t`` [s], steering-wheel angle
    [rad], yaw rate [rad/s], lateral acceleration of the centre of mass without gravity [m/s^2]; A [rad] of
    the slowly increasing steer. Optional: the ground position ``x``, ``y`` [m] and heading ``yaw`` [rad] of the
    centre of mass (the ground displacement and the heading change), ``vx`` [m/s] (the speed at BOS);
    ``zero_before`` [s]: the means of steering-wheel angle, yaw rate and a_y before it are their zero offsets.

    Row: direction, amplitude_deg, amplitude_A (amplitude / A), A_deg, bos_s, cos_s, speed_at_bos_km_h,
    peak_yaw_rate_deg_s (> 0, in the direction of the second lobe), yaw_rate_ratio_1s_pct and
    yaw_rate_ratio_1_75s_pct (signed: > 0 the car still yaws the way of the second lobe),
    lateral_displacement_m (regulation), lateral_displacement_ground_m, heading_change_deg (BOS to
    COS + 1.75 s), yaw_rate_1s_pass, yaw_rate_1_75s_pass, lateral_displacement_applies, lateral_displacement_pass
    (True where it does not apply), passed, failed (the failed criteria's names, comma-separated, '' if none)."""
    t = _series("t", t)
    if t.size < 3 or np.any(np.diff(t) <= 0.0):
        raise ModelError("sine with dwell: t must be an increasing array of at least 3 instants")
    swa = _series("steering_wheel_angle", steering_wheel_angle, t.size)
    r = _series("yaw_rate", yaw_rate, t.size)
    a = _series("ay", ay, t.size)
    if not (math.isfinite(A_rad) and A_rad > 0.0):
        raise ModelError(f"sine with dwell: A_rad must be a positive angle, got {A_rad!r}")
    if zero_before is not None:
        pre = t < zero_before
        if pre.any():
            swa, r, a = swa - swa[pre].mean(), r - r[pre].mean(), a - a[pre].mean()
    first = np.flatnonzero(np.abs(swa) >= BOS_ANGLE_RAD)
    if not first.size:
        raise ModelError(f"sine with dwell: the steering-wheel angle never reaches {math.degrees(BOS_ANGLE_RAD):g} "
                         f"deg: no BOS")
    s = 1.0 if swa[first[0]] > 0.0 else -1.0
    bos, _ = _crossing(t, s * swa, 0, BOS_ANGLE_RAD)
    i_bos = int(first[0])
    _, i_rev = _crossing(t, -s * swa, i_bos, 1e-12)
    if i_rev < 0:
        raise ModelError("sine with dwell: the steering-wheel angle never changes sign after BOS")
    amplitude = float(np.abs(swa).max())
    i_dwell = i_rev + int(np.argmax(-s * swa[i_rev:]))
    cos, _ = _crossing(t, s * swa, i_dwell, -1e-9 * amplitude)
    if not math.isfinite(cos):
        raise ModelError("sine with dwell: the steering-wheel angle does not return to zero after the dwell: no COS")
    t_last = cos + YAW_RATE_CHECKS[-1][0]
    if t[-1] < t_last - 1e-9 or t[-1] < bos + DISPLACEMENT_TIME_S - 1e-9:
        raise ModelError(f"sine with dwell: the series ends at {t[-1]:.3f} s, before COS + "
                         f"{YAW_RATE_CHECKS[-1][0]:g} s = {t_last:.3f} s")
    # first local peak of the yaw rate in the second lobe's direction after the sign change
    q = -s * r
    window = np.flatnonzero((t >= t[i_rev]) & (t <= t_last))
    qw = q[window]
    peaks = np.flatnonzero((qw[1:-1] > 0.0) & (qw[1:-1] >= qw[:-2]) & (qw[1:-1] > qw[2:]))
    peak = float(qw[peaks[0] + 1]) if peaks.size else float(qw.max())
    row = {"direction": DIRECTIONS[int(s)], "amplitude_deg": math.degrees(amplitude),
           "amplitude_A": amplitude / A_rad, "A_deg": math.degrees(A_rad), "bos_s": bos, "cos_s": cos,
           "speed_at_bos_km_h": 3.6 * float(np.interp(bos, t, _series("vx", vx, t.size))) if vx is not None
           else math.nan,
           "peak_yaw_rate_deg_s": math.degrees(peak)}
    passes = {}
    for (after, limit), name in zip(YAW_RATE_CHECKS, CRITERIA[:2]):
        ratio = 100.0 * float(np.interp(cos + after, t, q)) / peak if peak > 0.0 else math.inf
        key = name.replace("yaw_rate_", "").replace(".", "_")
        row[f"yaw_rate_ratio_{key}_pct"] = ratio
        passes[name] = ratio <= limit
    disp = s * lateral_displacement(t, a, bos, bos + DISPLACEMENT_TIME_S)
    row["lateral_displacement_m"] = disp
    ground, heading = math.nan, math.nan
    if x is not None and y is not None and yaw is not None:
        xs, ys, ps = (_series(n, v, t.size) for n, v in (("x", x), ("y", y), ("yaw", yaw)))
        p0 = float(np.interp(bos, t, ps))
        dx = float(np.interp(bos + DISPLACEMENT_TIME_S, t, xs) - np.interp(bos, t, xs))
        dy = float(np.interp(bos + DISPLACEMENT_TIME_S, t, ys) - np.interp(bos, t, ys))
        ground = s * (dy * math.cos(p0) - dx * math.sin(p0))
        heading = math.degrees(float(np.interp(t_last, t, ps)) - p0)
    row["lateral_displacement_ground_m"] = ground
    row["heading_change_deg"] = heading
    applies = amplitude >= DISPLACEMENT_FROM_A * A_rad * (1.0 - 1e-6)
    passes[CRITERIA[2]] = (not applies) or disp >= DISPLACEMENT_MIN_M
    row["yaw_rate_1s_pass"] = passes[CRITERIA[0]]
    row["yaw_rate_1_75s_pass"] = passes[CRITERIA[1]]
    row["lateral_displacement_applies"] = applies
    row["lateral_displacement_pass"] = passes[CRITERIA[2]]
    row["passed"] = all(passes.values())
    row["failed"] = ",".join(n for n in CRITERIA if not passes[n])
    return row


# ---------------------------------------------------------------------------------------------- runners
# A run is asked of ``simulate(steer, duration_s, stop=None) -> Result``: the car, entered at 80 km/h coasting
# (pedal and drive torque 0), steered by the SteeringProfile ``steer`` for ``duration_s`` [s], ``stop(outputs)``
# True ending it early; the Result has the full vehicle's chassis.* outputs and, if the simulation records it,
# driver.steering_wheel_angle. With the hydraulic brakes and a chassis-control unit (docs/chassis_control.md §5):
#     simulate = lambda steer, duration, stop=None: closed_loop.run(car, "flat", duration,
#         OpenLoopDriver(steer), brakes, controller, v0=SPEED_M_S, stop=stop)
def _steering(res, steer: SteeringProfile) -> np.ndarray:
    """The recorded steering-wheel angle, or the profile's at the recorded times."""
    return res["driver.steering_wheel_angle"] if "driver.steering_wheel_angle" in res else steer.angle(res.t)


def run_slowly_increasing_steer(simulate, *, direction: int = 1, t_start: float = STEER_START_S):
    """The SIS through ``simulate`` (above): the ramp until |a_y| passes 0.5 g. Returns (Result, the fit of
    :func:`angle_at_lateral_acceleration` with ``speed_at_A_km_h``, the speed where |a_y| is nearest 0.3 g)."""
    profile = slowly_increasing_steer_profile(direction=direction, t_start=t_start)
    duration = round(t_start + math.radians(90.0) / SIS_RATE_RAD_S, 3)
    res = simulate(profile, duration, stop=lambda out: abs(out["chassis.ay"]) > SIS_END_AY_M_S2)
    fit = angle_at_lateral_acceleration(_steering(res, profile), res["chassis.ay"])
    k = int(np.argmin(np.abs(np.abs(res["chassis.ay"]) - A_AY_M_S2)))
    fit["speed_at_A_km_h"] = 3.6 * float(res["chassis.vx"][k])
    return res, fit


def find_A(simulate) -> dict:
    """A [rad] as the regulations define it: the mean of the SIS's |A| to the left and to the right (one run
    each: the simulation repeats exactly), each and the mean rounded to 0.1 deg. Returns A_rad, A_deg and the
    fit of each direction ("left", "right", unrounded)."""
    fits = {name: run_slowly_increasing_steer(simulate, direction=d)[1] for d, name in ((1, "left"), (-1, "right"))}
    a_deg = round(0.5 * sum(round(math.degrees(f["A_rad"]), 1) for f in fits.values()), 1)
    return {"A_rad": math.radians(a_deg), "A_deg": a_deg, **fits}


def run_sine_with_dwell(simulate, amplitude_rad: float, *, A_rad: float, direction: int = 1,
                        t_start: float = STEER_START_S):
    """One SWD run through ``simulate`` (above) at ``amplitude_rad`` in ``direction``, until 2 s after COS.
    Returns (Result, the row of :func:`swd_criteria`)."""
    profile = sine_with_dwell_profile(amplitude_rad, direction=direction, t_start=t_start)
    res = simulate(profile, round(t_start + steer_duration_s() + SETTLE_AFTER_S, 2))
    row = swd_criteria(res.t, _steering(res, profile), res["chassis.yaw_rate"], res["chassis.ay"], A_rad=A_rad,
                       x=res["chassis.x"], y=res["chassis.y"], yaw=res["chassis.yaw"], vx=res["chassis.vx"],
                       zero_before=t_start)
    return res, row


def run_series(simulate, *, A_rad: float | None = None, directions=(1, -1), multiples=None) -> list[dict]:
    """The SWD series through ``simulate`` (above): for each direction, each amplitude of
    :func:`amplitude_series` (or only those whose multiple of A is in ``multiples``), one run; A from
    :func:`find_A` through the same ``simulate`` if not given (the regulations find A on the car as tested).
    Returns the rows in run order."""
    if A_rad is None:
        A_rad = find_A(simulate)["A_rad"]
    rows = []
    for d in directions:
        for k, amp in amplitude_series(A_rad):
            if multiples is None or any(abs(k - m) < 1e-9 for m in multiples):
                rows.append(run_sine_with_dwell(simulate, amp, A_rad=A_rad, direction=d)[1])
    return rows
