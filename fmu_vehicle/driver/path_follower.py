"""A preview driver: steering from the lateral and heading error predicted at a preview point ahead plus a
curvature feed-forward; speed by a PI controller with an acceleration feed-forward, as one wheel torque.

Steering (every call; s0 = arc length of the foot of the reference point on the path, e its signed
lateral error, psi_e = yaw - psi_path(s0) the heading error, v = max(vx, 1 m/s)):

    l_p   = max(preview_distance_min_m, preview_time_s v)                    preview distance [m]
    e_p   = e + l_p sin(psi_e)                 lateral error predicted at the preview point, going straight
    k_ff  = kappa_path(s0 + feedforward_preview_time_s v)                    path curvature ahead [1/m]
    k     = k_ff - 2 e_p / l_p^2                                             curvature demand [1/m]
    delta = atan(L k) + EG_d v^2 k_ff + k_r (v k - r) - k_i integral(e dt)   road-wheel angle [rad]
    delta_sw = i_s delta, limited in rate and angle

The feedback term is the pure-pursuit law (Coulter, R. C. (1992), "Implementation of the Pure Pursuit Path
Tracking Algorithm", Carnegie Mellon University, CMU-RI-TR-92-01: the arc through the preview point has
curvature 2 y / l^2, y its lateral offset) applied to the deviation from the path instead of to the path
point itself; the path's own curvature enters as a feed-forward. For a kinematic vehicle on a straight
path it gives d^2e/ds^2 + (2 / l_p) de/ds + (2 / l_p^2) e = 0: a second-order error decay over the
distance travelled with damping ratio 1/sqrt(2) and natural "wavelength" 2 pi l_p / sqrt(2). Predicting the
error at one preview point is the single-point preview idea of MacAdam, C. C. (1981), "Application of an
optimal preview control for simulation of closed-loop automobile driving", IEEE Trans. Systems, Man, and
Cybernetics 11(6), 393-399. k_r (``yaw_rate_gain_s``) feeds back the yaw-rate error, r measured as the
change of yaw between calls over the elapsed time: it makes up most of the understeer the kinematic law does
not know. EG_d is the driver's estimate of the understeer gradient
(``understeer_gradient_rad_per_m_s2``, 0 by default); the slow integral of the lateral error removes the
steady-state offset that an unknown understeer gradient and the body slip angle leave on a curve (it stops
integrating while the steering is at a limit).

Speed (v_t(t) the target speed, a_t its time derivative by central difference):

    a = a_t + kp (v_t - vx) + ki integral(v_t - vx) dt,  limited to [-deceleration_max, acceleration_max]
    wheel torque = m r_w a      (total over the wheels, + drive, - brake)

with anti-windup (the integral stops while the demand is limited). Parameters are read from
``resources/drivers/<name>.json`` (units in the names) and can be overridden; the vehicle's
``wheelbase_m``, ``steering_ratio``, ``mass_kg`` and ``wheel_radius_m`` must be given. Described in
docs/handling.md §4.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from pathlib import Path as _FsPath

from fmu_vehicle.errors import ModelError
from fmu_vehicle.util import read_json
from fmu_vehicle.paths import resource_path

from .path import Path

MIN_SPEED_M_S = 1.0
"""The preview distance and the understeer feed-forward use at least this speed [m/s]."""


@dataclass(frozen=True)
class DriverParams:
    """Parameters of :class:`PathFollower` (module docstring; SI units as in the names, angles in deg)."""

    wheelbase_m: float
    steering_ratio: float
    mass_kg: float
    wheel_radius_m: float
    preview_time_s: float = 0.45
    preview_distance_min_m: float = 4.0
    feedforward_preview_time_s: float = 0.05
    lateral_integral_gain_rad_per_m_s: float = 0.01
    understeer_gradient_rad_per_m_s2: float = 0.0
    yaw_rate_gain_s: float = 0.1
    steering_wheel_angle_max_deg: float = 540.0
    steering_wheel_rate_max_deg_s: float = 800.0
    speed_kp_1_per_s: float = 2.0
    speed_ki_1_per_s2: float = 1.0
    acceleration_max_m_s2: float = 3.0
    deceleration_max_m_s2: float = 8.0

    #: fields that may be zero (all others must be positive); the understeer estimate may be negative
    _MAY_BE_ZERO = ("feedforward_preview_time_s", "yaw_rate_gain_s", "lateral_integral_gain_rad_per_m_s", "speed_kp_1_per_s",
                    "speed_ki_1_per_s2", "deceleration_max_m_s2", "acceleration_max_m_s2")

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ModelError(f"driver parameters: {f.name} must be a finite number, got {value!r}")
            if f.name == "understeer_gradient_rad_per_m_s2":
                continue
            if value < 0.0 or (value == 0.0 and f.name not in self._MAY_BE_ZERO):
                raise ModelError(f"driver parameters: {f.name} must be "
                                 f"{'>= 0' if f.name in self._MAY_BE_ZERO else 'positive'}, got {value!r}")

    def with_overrides(self, **overrides) -> "DriverParams":
        names = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise ModelError(f"driver parameters: unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
        return replace(self, **overrides)


VEHICLE_FIELDS = ("wheelbase_m", "steering_ratio", "mass_kg", "wheel_radius_m")


def load_driver_params(name_or_path: str | _FsPath = "preview_driver", **overrides) -> DriverParams:
    """Driver parameters from ``resources/drivers/<name>.json`` (or a file path), with ``overrides``
    (field=value) applied; the vehicle fields missing from the file must be among the overrides."""
    path = _FsPath(name_or_path)
    if path.suffix != ".json":
        path = resource_path("drivers", f"{name_or_path}.json")
    doc = read_json(path, "driver")
    if not isinstance(doc, dict) or doc.get("type") != "PathFollower":
        raise ModelError(f"{path}: a driver file is a JSON object with \"type\": \"PathFollower\"")
    values = {k: v for k, v in doc.items() if k not in ("type", "name", "description")}
    values.update(overrides)
    names = {f.name for f in fields(DriverParams)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise ModelError(f"{path}: unknown driver field(s) {', '.join(unknown)}; known: {', '.join(sorted(names))}")
    missing = [f for f in VEHICLE_FIELDS if f not in values]
    if missing:
        raise ModelError(f"{path}: the driver needs the vehicle's {', '.join(missing)} (give them as overrides)")
    return DriverParams(**values)


class PathFollower:
    """Closed-loop driver on ``path`` (module docstring).

    speed_m_s   target speed [m/s]: a number or a callable of time t [s] (None: hold the speed of the
                first call)
    """

    def __init__(self, path: Path, params: DriverParams, speed_m_s=None):
        if not isinstance(path, Path):
            raise ModelError(f"PathFollower: path must be a fmu_vehicle.driver.path.Path, got {type(path).__name__}")
        if not isinstance(params, DriverParams):
            raise ModelError(f"PathFollower: params must be DriverParams, got {type(params).__name__}")
        if speed_m_s is not None and not callable(speed_m_s):
            value = float(speed_m_s)
            if not (math.isfinite(value) and value >= 0.0):
                raise ModelError(f"PathFollower: speed_m_s must be a speed >= 0, got {speed_m_s!r}")
        self.path = path
        self.params = params
        self.speed = speed_m_s
        self.reset()

    def reset(self, steering_wheel_angle_rad: float = 0.0) -> None:
        """Forget the state (integrals, last command and time, path hint)."""
        self._hint = None
        self._t = None
        self._delta_sw = float(steering_wheel_angle_rad)
        self._lat_integral = 0.0
        self._speed_integral = 0.0
        self._hold_speed = None
        self._yaw = 0.0
        self._r = 0.0
        self.last: dict = {}

    #: attributes that make up the follower's memory (``get_state``)
    _STATE = ("_hint", "_t", "_delta_sw", "_lat_integral", "_speed_integral", "_hold_speed", "_yaw", "_r")

    def get_state(self) -> dict:
        """The follower's memory as plain data: path hint, time and command of the last call, the two
        integrals, the held speed, yaw and yaw rate of the last call (None before the first call) and
        ``last``. ``set_state`` of it continues bit-identically. The path, parameters and target speed
        (``speed``) are configuration, not part of it."""
        state = {name[1:]: getattr(self, name) for name in self._STATE}
        state["last"] = dict(self.last)
        return state

    def set_state(self, state: dict) -> None:
        """Restore a ``get_state`` snapshot (a snapshot that is not one raises ModelError naming the entry)."""
        if not isinstance(state, dict) or set(state) != {name[1:] for name in self._STATE} | {"last"}:
            raise ModelError("PathFollower.set_state: not a PathFollower state (other entries than get_state gives)")
        hint = state["hint"]
        if hint is not None and (isinstance(hint, bool) or not isinstance(hint, int)
                                 or not 0 <= hint < self.path.x.size - 1):
            raise ModelError(f"PathFollower.set_state: hint {hint!r} is not a segment of the path")
        for name in self._STATE[1:]:
            value = state[name[1:]]
            if value is None and name in ("_t", "_hold_speed"):
                continue
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not math.isfinite(value)):
                raise ModelError(f"PathFollower.set_state: {name[1:]} = {value!r} is not a finite number")
        if not isinstance(state["last"], dict):
            raise ModelError("PathFollower.set_state: last must be a dict")
        for name in self._STATE:
            setattr(self, name, state[name[1:]])
        self.last = dict(state["last"])

    def target_speed(self, t: float) -> tuple[float, float]:
        """(target speed [m/s], its time derivative [m/s^2]) at time t."""
        if callable(self.speed):
            t0, t1 = max(t - 0.05, 0.0), t + 0.05
            return float(self.speed(t)), (float(self.speed(t1)) - float(self.speed(t0))) / (t1 - t0)
        if self.speed is None:
            return float(self._hold_speed), 0.0
        return float(self.speed), 0.0

    def command(self, t: float, x: float, y: float, yaw: float, vx: float) -> tuple[float, float]:
        """(steering-wheel angle [rad], total wheel torque [N m]) for the vehicle at ground position (x, y)
        [m] with heading ``yaw`` [rad] and forward speed ``vx`` [m/s] at time ``t`` [s]."""
        p = self.params
        first = not self.last
        dt = 0.0 if self._t is None else t - self._t
        if dt < 0.0:
            raise ModelError(f"PathFollower: time went back from {self._t:g} s to {t:g} s (call reset())")
        if self._hold_speed is None:
            self._hold_speed = max(float(vx), 0.0)
        self._t = t
        v = max(float(vx), MIN_SPEED_M_S)

        # ---- lateral
        foot = self.path.nearest(x, y, self._hint)
        self._hint = foot.segment
        psi_e = math.remainder(yaw - foot.heading, 2.0 * math.pi)
        l_p = max(p.preview_distance_min_m, p.preview_time_s * v)
        e_p = foot.lateral_error + l_p * math.sin(psi_e)
        k_ff = self.path.at(foot.s + p.feedforward_preview_time_s * v)[3]
        k = k_ff - 2.0 * e_p / (l_p * l_p)
        if first:
            r_meas = v * k                 # no yaw history yet: no yaw-rate feedback
        elif dt > 0.0:
            r_meas = math.remainder(yaw - self._yaw, 2.0 * math.pi) / dt
        else:
            r_meas = self._r
        self._yaw, self._r = yaw, r_meas
        delta = (math.atan(p.wheelbase_m * k) + p.understeer_gradient_rad_per_m_s2 * v * v * k_ff
                 + p.yaw_rate_gain_s * (v * k - r_meas)
                 - p.lateral_integral_gain_rad_per_m_s * self._lat_integral)
        demand = p.steering_ratio * delta
        limit = math.radians(p.steering_wheel_angle_max_deg)
        step = math.radians(p.steering_wheel_rate_max_deg_s) * dt
        new = demand if first else min(max(demand, self._delta_sw - step), self._delta_sw + step)
        new = min(max(new, -limit), limit)
        if new == demand:                  # anti-windup: no integration at a limit
            self._lat_integral += foot.lateral_error * dt
        self._delta_sw = new

        # ---- longitudinal
        v_t, a_t = self.target_speed(t)
        ev = v_t - float(vx)
        a = a_t + p.speed_kp_1_per_s * ev + p.speed_ki_1_per_s2 * self._speed_integral
        a_lim = min(max(a, -p.deceleration_max_m_s2), p.acceleration_max_m_s2)
        if a_lim == a:
            self._speed_integral += ev * dt
        torque = p.mass_kg * p.wheel_radius_m * a_lim

        self.last = {"t": t, "s_m": foot.s, "lateral_error_m": foot.lateral_error, "heading_error_rad": psi_e,
                     "preview_distance_m": l_p, "preview_error_m": e_p, "curvature_ff_1_per_m": k_ff,
                     "target_speed_m_s": v_t, "steering_demand_rad": demand}
        return new, torque
