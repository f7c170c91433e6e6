"""Braking and launch tests for the chassis-control functions (ABS, TCS): KPIs as pure functions of time series
(NumPy arrays, SI units) and thin runners on a full vehicle with its hydraulic brakes and (optionally) a
chassis-control unit (``control.closed_loop.run``). Described in docs/chassis_control.md §6.

Tests (each runner returns ``(result, kpis)``; every KPI key carries its unit):

* :func:`straight_braking`  full braking from 100 km/h in a straight line on a uniform road of friction mu
  (open-loop, as ISO 21994), optionally with a steering input during the stop ("steerable");
* :func:`split_mu_braking`  full braking with the left wheels on ice, the right ones on dry asphalt
  (ISO 14512), with the steering wheel held straight or a counter-steering driver (:class:`CounterSteerDriver`);
* :func:`braking_in_turn`   steady-state circle, then full braking with the steering wheel held (ISO 7975);
* :func:`launch`            full-throttle launch from rest on split friction or a uniform low-friction road.

Stopping distance (:func:`stopping_kpis`): measured from t_0, the first instant at which any wheel's brake
pressure reaches ``ONSET_PRESSURE_PA`` (the brakes start to act; the time the pedal takes to build that
pressure is the driver's, not the system's), to the stop (v_x below ``STOP_SPEED_M_S``, the distance left
from there, v^2 / (2 a) with a the deceleration of the last 0.1 s, added). The mu-limited ideal is the distance
of a constant deceleration mu g from the speed at t_0::

    s_ideal = v(t_0)^2 / (2 mu g),     ratio = s / s_ideal

with mu the road's friction coefficient (the tire's own peak friction, 1.0-1.09 on dry asphalt for the shipped
tire, is what a perfect controller would use; mu is the road's nominal value, the usual reference).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from ..manoeuvres.steady_state import G

KMH = 1.0 / 3.6

ONSET_PRESSURE_PA = 1.0e5
"""Brake pressure [Pa] at which a stopping distance starts (module docstring)."""
STOP_SPEED_M_S = 0.5
"""Speed [m/s] below which a braking run counts as stopped."""
PEDAL_FORCE_N = 600.0
"""Pedal force [N] of full braking: the master cylinder of the shipped brakes is at its run-out (180 bar),
well above what locks every wheel on a dry road (about 110 bar)."""
BRAKE_AT_S = 0.2
"""Time [s] of the pedal step in the braking runs (the pedal force ramps up over ``PEDAL_RAMP_S``)."""
PEDAL_RAMP_S = 0.05
ABS_SLIP_BAND = (-0.30, 0.05)
"""The band [-] the ABS keeps every wheel's slip in, after its first cycle and while v_x >= ``ABS_BAND_SPEED_MIN``
(below it the wheel-tire spin oscillation of the low-speed tire dominates the signal and the distance left
is under 1.3 m)."""
ABS_BAND_SPEED_MIN_M_S = 5.0
TCS_SLIP_BAND = (-0.10, 0.35)
"""The band [-] the TCS keeps the driven wheels' slip in from ``LAUNCH_BAND_FROM_S`` on (before, near rest, the
slip is a slip speed over ``v_min`` and the lightly damped wheel-tire spin oscillation dominates it)."""
LAUNCH_BAND_FROM_S = 1.0


# ---------------------------------------------------------------------------------------------- KPIs
def slip_of(omega, vx, radius: float, v_min: float) -> np.ndarray:
    """Longitudinal slip lambda = (omega r - v_x) / max(v_x, v_min) [-] of one wheel over a run."""
    vx = np.asarray(vx, dtype=float)
    return (np.asarray(omega, dtype=float) * radius - vx) / np.maximum(vx, v_min)


def brake_onset_index(t, pressures) -> int:
    """Index of t_0: the first sample at which any wheel pressure (rows of ``pressures`` [Pa]) reaches
    ``ONSET_PRESSURE_PA``."""
    p = np.atleast_2d(np.asarray(pressures, dtype=float))
    hit = np.flatnonzero(np.any(p >= ONSET_PRESSURE_PA, axis=0))
    if hit.size == 0:
        raise ModelError(f"no wheel's brake pressure reaches {ONSET_PRESSURE_PA:g} Pa: the car never brakes")
    return int(hit[0])


def stopping_kpis(t, x, y, vx, pressures, mu: float) -> dict:
    """Stopping distance from t_0 against the mu-limited ideal (module docstring). ``x``, ``y`` the centre
    of mass path [m], ``vx`` [m/s], ``pressures`` per wheel [Pa] (rows)."""
    t, x, y, vx = (np.asarray(a, dtype=float) for a in (t, x, y, vx))
    if not mu > 0:
        raise ModelError(f"friction coefficient mu must be positive, got {mu!r}")
    k0 = brake_onset_index(t, pressures)
    stopped = np.flatnonzero((vx < STOP_SPEED_M_S) & (t > t[k0]))
    if stopped.size == 0:
        raise ModelError(f"the car does not stop: v_x = {vx[-1]:.2f} m/s at the end (t = {t[-1]:.2f} s)")
    k1 = int(stopped[0])
    s = float(np.sum(np.hypot(np.diff(x[k0:k1 + 1]), np.diff(y[k0:k1 + 1]))))
    kb = int(np.searchsorted(t, t[k1] - 0.1))
    decel = (vx[kb] - vx[k1]) / max(t[k1] - t[kb], 1e-9)
    if decel > 0:
        s += float(vx[k1]) ** 2 / (2.0 * decel)
    v0 = float(vx[k0])
    ideal = v0 * v0 / (2.0 * mu * G)
    return {"brake_onset_s": float(t[k0]), "speed_at_onset_m_s": v0, "stopping_time_s": float(t[k1] - t[k0]),
            "stopping_distance_m": s, "ideal_distance_m": ideal, "ratio": s / ideal,
            "mean_deceleration_m_s2": v0 * v0 / (2.0 * s)}


def heading_kpis(t, yaw, yaw_rate, t_from: float) -> dict:
    """Heading change and peak yaw rate from ``t_from`` [s] to the end: heading_change_deg (end minus
    start), max_abs_heading_deviation_deg, max_yaw_rate_rad_s (signed value of the peak magnitude)."""
    t, yaw, r = (np.asarray(a, dtype=float) for a in (t, yaw, yaw_rate))
    k = int(np.searchsorted(t, t_from))
    psi = np.unwrap(yaw[k:]) - yaw[k]
    i = int(np.argmax(np.abs(r[k:])))
    return {"heading_change_deg": math.degrees(psi[-1]),
            "max_abs_heading_deviation_deg": math.degrees(float(np.max(np.abs(psi)))),
            "max_yaw_rate_rad_s": float(r[k + i])}


def first_cycle_end_index(phase) -> int | None:
    """Index where a wheel's first ABS release ends (the phase leaves 2 = release for the first time), or
    None if it never released."""
    ph = np.asarray(phase, dtype=float)
    rel = np.flatnonzero(ph == 2)
    if rel.size == 0:
        return None
    after = np.flatnonzero(ph[rel[0]:] != 2)
    return int(rel[0] + after[0]) if after.size else None


def slip_band_kpis(slip, use, band) -> dict:
    """Share of the samples ``use`` (boolean mask) with slip in ``band`` = (lo, hi) [-], the extremes and the
    median."""
    s = np.asarray(slip, dtype=float)[np.asarray(use, dtype=bool)]
    if s.size == 0:
        return {"slip_band_fraction": float("nan"), "slip_min": float("nan"), "slip_max": float("nan"),
                "slip_median": float("nan")}
    lo, hi = band
    return {"slip_band_fraction": float(np.mean((s >= lo) & (s <= hi))), "slip_min": float(s.min()),
            "slip_max": float(s.max()), "slip_median": float(np.median(s))}


def circle_deviation_m(x, y, yaw, r0: float, v0: float, k0: int) -> np.ndarray:
    """Radial deviation [m] of the path from the circle driven at the brake onset (index ``k0``): the circle
    through (x, y)[k0] tangent to the heading, of radius R_0 = v_0 / r_0 (centre on the side of the turn);
    positive outside the circle."""
    x, y, yaw = (np.asarray(a, dtype=float) for a in (x, y, yaw))
    R = v0 / r0
    cx, cy = x[k0] - R * math.sin(yaw[k0]), y[k0] + R * math.cos(yaw[k0])
    return np.hypot(x - cx, y - cy) - abs(R)


# ------------------------------------------------------------------------------------------- drivers
@dataclass
class BrakingDriver:
    """Pedal step at ``brake_at_s`` to ``pedal_force_N`` (ramp ``PEDAL_RAMP_S``), no drive torque, steering
    from ``steer`` (a SteeringProfile or None: held straight)."""

    pedal_force_N: float = PEDAL_FORCE_N
    brake_at_s: float = BRAKE_AT_S
    steer: object = None

    def command(self, t, h, outputs):
        swa = 0.0 if self.steer is None else float(self.steer.angle(t + h))
        f = self.pedal_force_N * min(max((t - self.brake_at_s) / PEDAL_RAMP_S, 0.0), 1.0)
        return swa, f, 0.0


@dataclass
class CounterSteerDriver(BrakingDriver):
    """A braking driver who counter-steers on split friction: steering-wheel angle [rad]
    delta_sw = -k_r r - k_psi (psi - psi_0), rate limited to ``rate_rad_s`` and clipped to ``max_rad``, from the
    pedal step on (psi_0 the heading at the step); a human's reaction is modelled by ``delay_s`` (the
    yaw signals are read that much late)."""

    k_yaw_rate_s: float = 1.5
    k_heading: float = 3.0
    rate_rad_s: float = 4.0
    max_rad: float = 2.0
    delay_s: float = 0.2

    def __post_init__(self):
        self._swa = 0.0
        self._psi0 = None
        self._hist: list = []

    def command(self, t, h, outputs):
        if t == 0.0:                                   # a new run
            self.__post_init__()
        _, f, _ = BrakingDriver.command(self, t, h, outputs)
        self._hist.append((t, float(outputs["chassis.yaw_rate"]), float(outputs["chassis.yaw"])))
        target = 0.0
        if t >= self.brake_at_s:
            if self._psi0 is None:
                self._psi0 = self._hist[-1][2]
            td = t - self.delay_s
            while len(self._hist) > 1 and self._hist[1][0] <= td:
                self._hist.pop(0)
            _, r, psi = self._hist[0]
            if self._hist[0][0] >= self.brake_at_s or self.delay_s == 0.0:
                target = -self.k_yaw_rate_s * r - self.k_heading * (psi - self._psi0)
        step = self.rate_rad_s * h
        self._swa += min(max(target - self._swa, -step), step)
        self._swa = min(max(self._swa, -self.max_rad), self.max_rad)
        return self._swa, f, 0.0


@dataclass
class CircleDriver:
    """ISO 7975: steering ramped to ``swa_rad`` over ``ramp_s`` and held; speed held at ``speed_m_s`` by a
    proportional drive torque until ``brake_at_s``, then full braking with the steering wheel held."""

    swa_rad: float
    speed_m_s: float
    brake_at_s: float
    pedal_force_N: float = PEDAL_FORCE_N
    ramp_s: float = 1.0
    gain_Nm_per_m_s: float = 4000.0

    def command(self, t, h, outputs):
        swa = self.swa_rad * min((t + h) / self.ramp_s, 1.0)
        if t < self.brake_at_s:
            drive = max(self.gain_Nm_per_m_s * (self.speed_m_s - float(outputs["chassis.vx"])), 0.0)
            return swa, 0.0, drive
        f = self.pedal_force_N * min((t - self.brake_at_s) / PEDAL_RAMP_S, 1.0)
        return swa, f, 0.0


@dataclass
class LaunchDriver:
    """Full throttle from rest: drive torque [N m] (total at the driven wheels) ramped over 0.2 s, steering
    held straight."""

    drive_torque_Nm: float

    def command(self, t, h, outputs):
        return 0.0, 0.0, self.drive_torque_Nm * min(t / 0.2, 1.0)


# ------------------------------------------------------------------------------------------- runners
def _pressures(res, car):
    return np.array([res[f"brakes.pressure_{w}"] for w in car.wheel_names])


def _stop(o):
    return o["chassis.vx"] < STOP_SPEED_M_S


def abs_slip_kpis(res, wheel_names, radius, band=ABS_SLIP_BAND, v_min: float = ABS_BAND_SPEED_MIN_M_S) -> dict:
    """Per wheel: the slip band KPIs (:func:`slip_band_kpis`) after that wheel's first ABS cycle while
    v_x >= ``v_min``; ``res`` maps chassis.vx, wheel_<w>.omega and abs.phase_<w> to series (a closed-loop Result
    or a dict), ``radius`` per wheel [m]. Keys ``<wheel>.slip_band_fraction`` etc. and the worst share
    ``slip_band_fraction``."""
    out, fractions = {}, []
    vx = res["chassis.vx"]
    for w, name in enumerate(wheel_names):
        lam = slip_of(res[f"wheel_{name}.omega"], vx, radius[w], v_min)
        phase = res[f"abs.phase_{name}"] if f"abs.phase_{name}" in res else np.zeros_like(vx)
        k = first_cycle_end_index(phase)
        use = np.zeros(vx.size, dtype=bool)
        if k is not None:
            use[k:] = vx[k:] >= v_min
        for key, v in slip_band_kpis(lam, use, band).items():
            out[f"{name}.{key}"] = v
        out[f"{name}.abs_cycled"] = float(k is not None)
        fractions.append(out[f"{name}.slip_band_fraction"])
    out["slip_band_fraction"] = float(np.nanmin(fractions)) if not np.all(np.isnan(fractions)) else float("nan")
    return out


def straight_braking(car, brakes, controller=None, *, mu: float = 1.0, v0: float = 100.0 * KMH, steer=None,
                     duration: float | None = None, brake_at_s: float = BRAKE_AT_S):
    """Full braking from ``v0`` [m/s] on a flat road of friction ``mu``, the pedal step at ``brake_at_s`` [s];
    ``steer`` a SteeringProfile applied during the stop (or None); ``duration`` [s] default 1.5 v0 / (mu g) + 1
    (the run ends at the stop). KPIs:
    :func:`stopping_kpis` and :func:`heading_kpis` from the brake onset, and with a controller the ABS slip
    band (:func:`abs_slip_kpis`)."""
    from .closed_loop import run
    road = {"type": "flat", "mu": float(mu)}
    if duration is None:
        duration = float(round(1.5 * v0 / (mu * G) + 1.0))
    res = run(car, road, duration, BrakingDriver(brake_at_s=brake_at_s, steer=steer), brakes, controller, v0=v0,
              stop=_stop)
    k = stopping_kpis(res.time, res["chassis.x"], res["chassis.y"], res["chassis.vx"], _pressures(res, car), mu)
    k.update(heading_kpis(res.time, res["chassis.yaw"], res["chassis.yaw_rate"], k["brake_onset_s"]))
    if controller is not None:
        k.update(abs_slip_kpis(res, car.wheel_names, controller.vehicle.radius_m))
    return res, k


def yaw_rate_bound_ratio(yaw_rate, vx, mu: float, v_min: float = ABS_BAND_SPEED_MIN_M_S) -> float:
    """max |r| v_x / (mu g) [-] over the samples with v_x >= ``v_min`` [m/s]: the yaw rate against the largest
    one a car can have without spinning. The sideslip angle beta of the centre of mass obeys
    d(beta)/dt = a_y / v - r, and the road gives at most |a_y| <= mu g (mu the highest friction under the car):
    a yaw rate above mu g / v turns the body faster than any path the tires can hold, so beta grows — the car
    spins. A ratio below 1 throughout means the yaw never outruns the path."""
    r, v = np.asarray(yaw_rate, dtype=float), np.asarray(vx, dtype=float)
    m = v >= v_min
    return float(np.max(np.abs(r[m]) * v[m]) / (mu * G)) if np.any(m) else 0.0


def split_mu_braking(car, brakes, controller=None, *, v0: float = 100.0 * KMH, driver=None, duration: float = 8.0,
                     mu_high: float = 1.0):
    """ISO 14512 full braking on the ``split_mu`` road (left wheels on mu 0.2, right on 1.0) from ``v0``;
    ``driver`` None holds the steering wheel straight (or e.g. a :class:`CounterSteerDriver`). KPIs: heading
    and yaw rate (:func:`heading_kpis`), lateral offset at the stop ``lateral_offset_m``, peak sideslip
    ``max_abs_sideslip_deg``, ``yaw_rate_bound_ratio`` (:func:`yaw_rate_bound_ratio` with ``mu_high``, the
    dry side's friction), stopping distance (mu = 0.6, the mean of the two sides)."""
    from .closed_loop import run
    res = run(car, "split_mu", duration, driver or BrakingDriver(), brakes, controller, v0=v0, stop=_stop)
    k0 = brake_onset_index(res.time, _pressures(res, car))
    k = heading_kpis(res.time, res["chassis.yaw"], res["chassis.yaw_rate"], res.time[k0])
    k["lateral_offset_m"] = float(res["chassis.y"][-1] - res["chassis.y"][k0])
    k["max_abs_sideslip_deg"] = math.degrees(float(np.max(np.abs(res["chassis.sideslip"][k0:]))))
    k["max_abs_steering_wheel_angle_deg"] = math.degrees(float(np.max(np.abs(res["driver.steering_wheel_angle"]))))
    k["yaw_rate_bound_ratio"] = yaw_rate_bound_ratio(res["chassis.yaw_rate"][k0:], res["chassis.vx"][k0:], mu_high)
    k["stopped"] = float(res["chassis.vx"][-1] < STOP_SPEED_M_S)
    if k["stopped"]:
        s = stopping_kpis(res.time, res["chassis.x"], res["chassis.y"], res["chassis.vx"], _pressures(res, car), 0.6)
        k["stopping_distance_m"] = s["stopping_distance_m"]
    return res, k


def braking_in_turn_kpis(t, x, y, yaw, yaw_rate, vx, ay, k0: int, window_s: float = 1.0) -> dict:
    """ISO 7975 KPIs from the brake onset (index ``k0``) over ``window_s`` [s]: yaw rate and lateral
    acceleration at the onset, peak yaw rate and its ratio to the onset's, heading change against the
    circle's (r_0 window_s) and the path's radial deviation from the onset circle (:func:`circle_deviation_m`,
    + outward) at the window's end."""
    t, yaw, r = (np.asarray(a, dtype=float) for a in (t, yaw, yaw_rate))
    k1 = min(int(np.searchsorted(t, t[k0] + window_s)), t.size - 1)
    r0, v0 = float(r[k0]), float(np.asarray(vx)[k0])
    psi = np.unwrap(yaw)
    seg = r[k0:k1 + 1]
    i = int(np.argmax(np.abs(seg)))
    dev = circle_deviation_m(x, y, yaw, r0, v0, k0)
    return {"yaw_rate_at_onset_rad_s": r0, "ay_at_onset_m_s2": float(np.asarray(ay)[k0]),
            "max_yaw_rate_rad_s": float(seg[i]), "yaw_rate_ratio": float(seg[i] / r0),
            "heading_change_deg": math.degrees(psi[k1] - psi[k0]),
            "heading_deviation_deg": math.degrees(psi[k1] - psi[k0] - r0 * (t[k1] - t[k0])),
            "path_deviation_m": float(dev[k1])}


def braking_in_turn(car, brakes, controller=None, *, radius_m: float = 100.0, ay_m_s2: float = 5.0,
                    swa_rad: float | None = None, brake_at_s: float = 3.0, duration: float = 8.0):
    """ISO 7975: steady circle of ``radius_m`` at lateral acceleration ``ay_m_s2`` (speed sqrt(ay R)), then full
    braking with the steering wheel held. ``swa_rad`` the steering-wheel angle (default: the single-track
    model's steady-state angle for that circle and speed). KPIs: :func:`braking_in_turn_kpis`."""
    from .closed_loop import run
    from ..manoeuvres.vehicle_model import single_track_of
    v = math.sqrt(ay_m_s2 * radius_m)
    if swa_rad is None:
        swa_rad = single_track_of(car).steady_state_steering(v, radius_m)
    drv = CircleDriver(swa_rad, v, brake_at_s)
    res = run(car, "flat", duration, drv, brakes, controller, v0=v, stop=_stop)
    k0 = brake_onset_index(res.time, _pressures(res, car))
    k = braking_in_turn_kpis(res.time, res["chassis.x"], res["chassis.y"], res["chassis.yaw"],
                             res["chassis.yaw_rate"], res["chassis.vx"], res["chassis.ay"], k0)
    k["steering_wheel_angle_rad"] = float(swa_rad)
    k["speed_m_s"] = v
    return res, k


def launch_kpis(t, vx, yaw, slips, t_from: float = LAUNCH_BAND_FROM_S, band=TCS_SLIP_BAND) -> dict:
    """Launch KPIs: speed reached ``speed_end_m_s``, mean acceleration ``mean_acceleration_m_s2`` (v_end / t_end),
    heading change ``heading_change_deg``, and the driven wheels' slip (rows of ``slips``) after ``t_from`` [s]:
    share in ``band`` (worst wheel) and peak."""
    t, vx, yaw = (np.asarray(a, dtype=float) for a in (t, vx, yaw))
    s = np.atleast_2d(np.asarray(slips, dtype=float))
    use = t >= t_from
    lo, hi = band
    frac = [float(np.mean((row[use] >= lo) & (row[use] <= hi))) for row in s]
    return {"speed_end_m_s": float(vx[-1]), "mean_acceleration_m_s2": float((vx[-1] - vx[0]) / (t[-1] - t[0])),
            "heading_change_deg": math.degrees(float(np.unwrap(yaw)[-1] - yaw[0])),
            "slip_band_fraction": min(frac), "slip_max": float(s[:, use].max())}


def launch(car, brakes, controller=None, *, road="split_mu", drive_torque_Nm: float = 6000.0,
           duration: float = 3.0, slip_speed_min_m_s: float | None = None):
    """Launch from rest with ``drive_torque_Nm`` (total) on ``road`` (default split friction; e.g.
    {"type": "flat", "mu": 0.3} for a low-friction launch). KPIs: :func:`launch_kpis` over the driven
    wheels, slip (omega r - v_x) / max(v_x, ``slip_speed_min_m_s``) (default: the TCS's own
    ``tcs.slip_speed_min_m_s`` of the default tuning)."""
    from .closed_loop import run
    from .closed_loop import controlled_vehicle
    from .ecu import load_tuning
    if slip_speed_min_m_s is None:
        slip_speed_min_m_s = float(load_tuning()["tcs"]["slip_speed_min_m_s"])
    res = run(car, road, duration, LaunchDriver(drive_torque_Nm), brakes, controller, v0=0.0)
    cv = controller.vehicle if controller is not None else controlled_vehicle(car, brakes)
    slips = [slip_of(res[f"wheel_{w}.omega"], res["chassis.vx"], cv.radius_m[i], slip_speed_min_m_s)
             for i, w in enumerate(car.wheel_names) if cv.driven[i]]
    return res, launch_kpis(res.time, res["chassis.vx"], res["chassis.yaw"], slips)
