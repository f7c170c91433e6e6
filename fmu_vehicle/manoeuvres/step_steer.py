"""ISO 7401 step steer (lateral transient response, step input): the steering ramp and the response metrics.

Input: the steering wheel turns from 0 to its amplitude as a ramp at ``rate_deg_s`` (ISO 7401: 200 to
500 deg/s), starting at ``t_start_s``, and is held; the standard drives at 80 km/h with an amplitude that
gives a steady lateral acceleration of 4 m/s^2 (for a linear model: amplitude = 4 / (a_y / delta_sw)).

Metrics (:func:`step_steer_metrics`), for the yaw rate r and the lateral acceleration a_y each; t50 is the
instant the steering-wheel angle passes 50 % of its final value, x_ss the mean over the last
``steady_window_s`` of the record:

    response time        first instant x reaches 90 % of x_ss, minus t50                           [s]
    peak response time   instant of the largest |x| after t50, minus t50 (NaN without overshoot)    [s]
    overshoot            (x_peak - x_ss) / x_ss * 100                                               [%]
    steady-state gain    x_ss / delta_sw,ss       (r: [1/s], a_y: [(m/s^2)/rad] of steering-wheel angle)

Crossing instants are interpolated linearly between samples. Described in docs/handling.md §8.
"""
from __future__ import annotations

import math

import numpy as np

from fmu_vehicle.driver.profile import SteeringProfile
from fmu_vehicle.errors import ModelError

RATE_RANGE_DEG_S = (200.0, 500.0)
"""Steering-wheel rate of the ramp allowed by ISO 7401 [deg/s]."""
TEST_SPEED_KMH = 80.0
TARGET_AY_M_S2 = 4.0


def step_steer_profile(amplitude_rad: float, *, t_start_s: float = 0.5, rate_deg_s: float = 400.0,
                       hold_s: float = 5.0) -> SteeringProfile:
    """The ISO 7401 steering ramp: 0 until ``t_start_s``, a ramp at ``rate_deg_s`` to ``amplitude_rad``
    (+ = left), held for ``hold_s`` after the ramp."""
    lo, hi = RATE_RANGE_DEG_S
    if not (lo <= rate_deg_s <= hi):
        raise ModelError(f"step steer: rate_deg_s must be in {lo:g} .. {hi:g} deg/s (ISO 7401), got {rate_deg_s!r}")
    if not (math.isfinite(amplitude_rad) and amplitude_rad != 0.0):
        raise ModelError(f"step steer: amplitude_rad must be a non-zero number, got {amplitude_rad!r}")
    if not (t_start_s >= 0.0 and hold_s > 0.0):
        raise ModelError(f"step steer: t_start_s must be >= 0 and hold_s > 0, got {t_start_s!r}, {hold_s!r}")
    ramp = abs(amplitude_rad) / math.radians(rate_deg_s)
    times = [0.0, t_start_s, t_start_s + ramp, t_start_s + ramp + hold_s] if t_start_s > 0.0 else \
        [0.0, ramp, ramp + hold_s]
    angles = [0.0, 0.0, amplitude_rad, amplitude_rad] if t_start_s > 0.0 else [0.0, amplitude_rad, amplitude_rad]
    return SteeringProfile(times, angles, name="ISO 7401 step steer")


def _first_crossing(t, x, level, start):
    """First instant at or after index ``start`` where x reaches ``level`` (rising), interpolated."""
    idx = np.flatnonzero(x[start:] >= level)
    if idx.size == 0:
        return math.nan
    k = start + int(idx[0])
    if k == 0 or x[k - 1] >= level:
        return float(t[k])
    return float(t[k - 1] + (level - x[k - 1]) * (t[k] - t[k - 1]) / (x[k] - x[k - 1]))


def _response(t, x, sign, t50, k50, swa_ss, window):
    xs = sign * x
    ss = float(np.mean(xs[window]))
    if not ss > 0.0:
        raise ModelError("step_steer_metrics: the response has no steady state in the direction of the steering")
    t90 = _first_crossing(t, xs, 0.9 * ss, k50)
    k_peak = k50 + int(np.argmax(xs[k50:]))
    peak = float(xs[k_peak])
    overshoot = (peak - ss) / ss * 100.0
    has_peak = overshoot > 0.1 and k_peak < t.size - 1
    return {"steady_state": sign * ss, "gain": sign * ss / swa_ss, "response_time_s": t90 - t50,
            "peak": sign * peak, "peak_response_time_s": float(t[k_peak] - t50) if has_peak else math.nan,
            "overshoot_pct": overshoot if has_peak else 0.0}


def step_steer_metrics(t, steering_wheel_angle, yaw_rate, ay, *, steady_window_s: float = 1.0) -> dict:
    """Response metrics of a step-steer run (module docstring): {"t50_s", "steering_wheel_angle_rad",
    "yaw_rate": {...}, "ay": {...}} with steady_state, gain, response_time_s, peak, peak_response_time_s
    and overshoot_pct for each response. The record must end in the steady state."""
    t, swa, r, ay = (np.asarray(a, dtype=float).ravel() for a in (t, steering_wheel_angle, yaw_rate, ay))
    for name, a in (("steering_wheel_angle", swa), ("yaw_rate", r), ("ay", ay)):
        if a.size != t.size:
            raise ModelError(f"step_steer_metrics: {name} has {a.size} samples, t has {t.size}")
    if t.size < 3 or np.any(np.diff(t) <= 0.0):
        raise ModelError("step_steer_metrics: t must increase, with at least 3 samples")
    window = t >= t[-1] - steady_window_s
    if window.sum() < 2 or t[-1] - steady_window_s <= t[0]:
        raise ModelError(f"step_steer_metrics: the record is shorter than steady_window_s = {steady_window_s:g} s")
    swa_ss = float(np.mean(swa[window]))
    if swa_ss == 0.0:
        raise ModelError("step_steer_metrics: the steering-wheel angle ends at 0 (no step)")
    sign = math.copysign(1.0, swa_ss)
    t50 = _first_crossing(t, sign * swa, 0.5 * abs(swa_ss), 0)
    k50 = int(np.searchsorted(t, t50))
    return {"t50_s": t50, "steering_wheel_angle_rad": swa_ss,
            "yaw_rate": _response(t, r, sign, t50, k50, swa_ss, window),
            "ay": _response(t, ay, sign, t50, k50, swa_ss, window)}
