"""ISO 4138 steady-state circular driving, constant-radius method: the run (a driver on a circle with a
slowly rising speed) and the understeer gradient from its time series.

On a circle of radius R the road-wheel angle of the linear single-track model is delta = L / R + EG a_y,
so at constant R the understeer gradient is the slope

    EG = d(delta_sw / i_s) / d(a_y) - d(L / R) / d(a_y)          [rad/(m/s^2)], in deg/g: EG * 180/pi * g

(ISO 4138: the steering-wheel-angle gradient divided by the overall steering ratio, less the Ackermann
steer-angle gradient, which vanishes at constant radius; Gillespie, T. D. (1992), *Fundamentals of Vehicle
Dynamics*, SAE, ch. 6). :func:`understeer_gradient` fits a straight line to delta_sw / i_s - L / R against
a_y by least squares over the linear range ``ay_min`` <= |a_y| <= ``ay_max`` (0.5 to 4 m/s^2 by default:
above about 4 m/s^2 tire side forces of passenger cars are no longer linear in slip, below 0.5 m/s^2 the
start of the run is still settling). Described in docs/handling.md §7.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fmu_vehicle.errors import ModelError

from .single_track import G  # standard gravity [m/s^2], one value for the manoeuvres
LINEAR_AY_MAX_M_S2 = 4.0
"""Upper end of the linear range used for the fit [m/s^2]."""
LINEAR_AY_MIN_M_S2 = 0.5
"""Lower end of the fit range [m/s^2]."""


@dataclass(frozen=True)
class ConstantRadiusRun:
    """The constant-radius manoeuvre: hold ``speed_start_m_s`` for ``settle_s`` on the circle of
    ``radius_m``, then raise the speed at ``acceleration_m_s2`` until ``speed_end_m_s`` (default: the speed
    of a lateral acceleration ``ay_end_m_s2``, v = sqrt(a_y R))."""

    radius_m: float = 100.0
    speed_start_m_s: float = 5.0
    acceleration_m_s2: float = 0.1
    ay_end_m_s2: float = 6.0
    speed_end_m_s: float | None = None
    settle_s: float = 10.0
    left: bool = True

    def __post_init__(self):
        for field in ("radius_m", "speed_start_m_s", "acceleration_m_s2", "ay_end_m_s2"):
            value = getattr(self, field)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0.0):
                raise ModelError(f"constant-radius run: {field} must be a positive number, got {value!r}")
        if self.end_speed_m_s <= self.speed_start_m_s:
            raise ModelError(f"constant-radius run: the end speed {self.end_speed_m_s:g} m/s must exceed "
                             f"speed_start_m_s {self.speed_start_m_s:g} m/s")

    @property
    def end_speed_m_s(self) -> float:
        return float(self.speed_end_m_s) if self.speed_end_m_s is not None else math.sqrt(self.ay_end_m_s2 * self.radius_m)

    @property
    def duration_s(self) -> float:
        return self.settle_s + (self.end_speed_m_s - self.speed_start_m_s) / self.acceleration_m_s2

    def speed(self, t: float) -> float:
        """Target speed [m/s] at time t [s]."""
        return min(self.speed_start_m_s + self.acceleration_m_s2 * max(t - self.settle_s, 0.0), self.end_speed_m_s)

    def path(self):
        """The circle (``fmu_vehicle.driver.path.Path``) starting at the origin heading along +x."""
        from fmu_vehicle.driver.path import Path

        return Path.circle(self.radius_m, left=self.left)


def understeer_gradient(ay, steering_wheel_angle, steering_ratio: float, wheelbase: float, radius, *,
                        ay_min: float = LINEAR_AY_MIN_M_S2, ay_max: float = LINEAR_AY_MAX_M_S2) -> dict:
    """Understeer gradient of a constant-radius run (module docstring).

    ay [m/s^2] and steering_wheel_angle [rad]: time series (a right-hand circle, both negative, is mirrored);
    radius [m]: the circle's radius, or the measured path radius per sample. Returns
    understeer_gradient_rad_per_m_s2, understeer_gradient_deg_per_g, intercept_rad (the fitted
    delta_sw / i_s - L / R at a_y = 0; near 0 when the run is steady), ackermann_rad (L / R at the mean
    radius), rms_residual_rad, n_points and ay_range_m_s2 (the fitted range)."""
    ay = np.asarray(ay, dtype=float).ravel()
    swa = np.asarray(steering_wheel_angle, dtype=float).ravel()
    if ay.size != swa.size:
        raise ModelError(f"understeer_gradient: {ay.size} lateral accelerations but {swa.size} steering angles")
    for name, value in (("steering_ratio", steering_ratio), ("wheelbase", wheelbase)):
        if not (math.isfinite(value) and value > 0.0):
            raise ModelError(f"understeer_gradient: {name} must be positive, got {value!r}")
    R = np.broadcast_to(np.asarray(radius, dtype=float), ay.shape)
    if not np.all(np.isfinite(R)) or np.any(R == 0.0):
        raise ModelError("understeer_gradient: radius must be finite and non-zero")
    sign = 1.0 if np.median(ay) >= 0.0 else -1.0
    a = sign * ay
    y = sign * swa / steering_ratio - wheelbase / np.abs(R)
    use = np.isfinite(a) & np.isfinite(y) & (a >= ay_min) & (a <= ay_max)
    if use.sum() < 3 or np.ptp(a[use]) < 0.25 * (ay_max - ay_min):
        raise ModelError(f"understeer_gradient: the run covers too little of the linear range {ay_min:g} .. "
                         f"{ay_max:g} m/s^2 ({int(use.sum())} samples"
                         + (f", a_y {a[use].min():.2f} .. {a[use].max():.2f} m/s^2)" if use.any() else ")"))
    slope, intercept = np.polyfit(a[use], y[use], 1)
    residual = y[use] - (slope * a[use] + intercept)
    return {
        "understeer_gradient_rad_per_m_s2": float(slope),
        "understeer_gradient_deg_per_g": float(math.degrees(slope) * G),
        "intercept_rad": float(intercept),
        "ackermann_rad": float(wheelbase / np.mean(np.abs(R))),
        "rms_residual_rad": float(np.sqrt(np.mean(residual ** 2))),
        "n_points": int(use.sum()),
        "ay_range_m_s2": (float(a[use].min()), float(a[use].max())),
    }
