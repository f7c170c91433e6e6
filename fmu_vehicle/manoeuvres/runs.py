"""The handling manoeuvres run on a multibody vehicle: open-loop step steer (ISO 7401), closed-loop
constant-radius driving (ISO 4138) and double lane change (ISO 3888-1) with the path follower, and the
suspension kinematics sweep. Each returns the run and its analysis; ``fmu-vehicle manoeuvre`` writes them
with a plot (:mod:`fmu_vehicle.manoeuvres.registry`). Described in docs/handling.md §12.

Closed loop (:func:`closed_loop`): every ``driver_dt`` [s] the driver reads the chassis centre of mass
(chassis.x, chassis.y), its yaw and forward speed, and commands a steering-wheel angle (reached linearly
over the next ``driver_dt``, ``VehicleSimulator.set_steering``) and a total wheel torque: a positive torque
is shared by the driven wheels, a negative one is a brake torque shared by all wheels.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..driver.path import Path
from ..driver.path_follower import PathFollower, load_driver_params
from ..errors import ModelError
from ..results import Result
from ..tire.models import unloaded_radius
from .kinematics import kinematics_table
from .lane_change import iso3888_1_layout, lane_change_kpis, lane_change_path
from .steady_state import ConstantRadiusRun, understeer_gradient
from .step_steer import step_steer_metrics, step_steer_profile
from .vehicle_model import _wheel_angles, single_track_of, towing_vehicle

DRIVER_DT_S = 0.01
"""Driver sample period [s] in the closed-loop manoeuvres."""


def vehicle_width(car) -> float:
    """Overall width [m]: the wheel centres' track plus one tire width (the .tir WIDTH, 0.2 m if absent)."""
    widths = [float(t.sections.get("DIMENSION", {}).get("WIDTH", 0.2)) for t in car.spec.tires]
    return float(np.ptp(car.w_center0[:, 1]) + max(widths))


def driver_for(car, path: Path, speed_m_s, single_track=None, **overrides) -> PathFollower:
    """A path follower with the vehicle's wheelbase, steering ratio, mass and wheel radius (from
    ``single_track``, the vehicle's :func:`single_track_of`, computed if not given)."""
    st = single_track if single_track is not None else single_track_of(car)
    radius = float(np.mean([unloaded_radius(p) for p in car.tire_p]))
    params = load_driver_params(wheelbase_m=st.wheelbase_m, steering_ratio=st.steering_ratio,
                                mass_kg=st.mass_kg, wheel_radius_m=radius, **overrides)
    return PathFollower(path, params, speed_m_s)


def closed_loop(car, driver: PathFollower, t_end: float, *, v0: float, road="flat", dt: float = 1e-3,
                driver_dt: float = DRIVER_DT_S, stop=None) -> Result:
    """Drive ``car`` with ``driver`` for ``t_end`` [s] from ``v0`` [m/s] (module docstring), its centre of
    mass starting at x = 0 (``x0`` = -the design CoM x); ``stop(outputs)`` may end the run early. Returns the
    vehicle's outputs at every driver sample."""
    sim = car.simulator(road, v0=v0, x0=-float(car.chassis_com0[0]), dt=dt)
    driven = [w.name for w in car.spec.wheels if w.driven]
    names = car.output_names
    rows, times = [sim.row.copy()], [0.0]
    n = int(round(t_end / driver_dt))
    for k in range(n):
        out = sim.outputs()
        swa, torque = driver.command(sim.t, out["chassis.x"], out["chassis.y"], out["chassis.yaw"],
                                     out["chassis.vx"])
        sim.set_steering(float(np.clip(swa, -20.0, 20.0)))
        for w in car.wheel_names:
            drive = torque / len(driven) if torque > 0.0 and w in driven else 0.0
            sim.set_input(w, torque_drive=drive, torque_brake=max(-torque, 0.0) / car.n_wheels)
        sim.advance(driver_dt)
        rows.append(sim.row.copy())
        times.append(sim.t)
        if stop is not None and stop(sim.outputs()):
            break
    return Result.from_columns(times, names, [u for _, u, _ in car.outputs], np.array(rows),
                               {"vehicle": car.name, "driver_dt": driver_dt, "v0": v0})


def rolling_resistance_drive(car, coefficient: float = 0.008) -> dict:
    """Drive torque [N m] per driven wheel that stands for the rolling resistance of the whole vehicle (every
    unit of a combination): T = f_r m g r_w shared by the driven wheels, f_r = ``coefficient``, m the total
    mass, r_w the mean unloaded tire radius."""
    driven = [w.name for w in car.spec.wheels if w.driven]
    radius = float(np.mean([unloaded_radius(p) for p in car.tire_p]))
    roll = coefficient * car.total_mass_kg * 9.81 * radius
    return {w: roll / len(driven) for w in driven}


def step_steer(car, speed_m_s: float = 80 / 3.6, ay_m_s2: float = 4.0, *, rate_deg_s: float = 400.0,
               hold_s: float = 4.0):
    """ISO 7401 step steer at ``speed_m_s``: the steering-wheel amplitude that gives ``ay_m_s2`` in the
    single-track estimate, a ramp at ``rate_deg_s``; drive torque holds the speed against rolling
    resistance. Returns (Result, step_steer_metrics)."""
    st = single_track_of(car)
    amplitude = ay_m_s2 / (speed_m_s * st.yaw_rate_gain(speed_m_s))
    profile = step_steer_profile(amplitude, rate_deg_s=rate_deg_s, hold_s=hold_s)
    res = car.simulate("flat", math.ceil(float(profile.breakpoints[-1]) * 1e3) * 1e-3, v0=speed_m_s, steer=profile,
                       drive_torque=rolling_resistance_drive(car))
    metrics = step_steer_metrics(res.t, res["steering_wheel_angle_applied"], res["chassis.yaw_rate"],
                                 res["chassis.ay"])
    return res, metrics


def constant_radius(car, run: ConstantRadiusRun | None = None):
    """ISO 4138 constant-radius run with the path follower; returns (Result, understeer_gradient dict). A
    combination (towed units) runs as ISO 14792 prescribes for heavy vehicle combinations: the towing unit's
    steering ratio and wheelbase give the understeer gradient (its single-track model, ``towing_vehicle``),
    the driver's speed control the whole combination's mass."""
    run = run or ConstantRadiusRun()
    st = single_track_of(towing_vehicle(car))
    driver = driver_for(car, run.path(), run.speed, dataclasses.replace(st, mass_kg=float(car.total_mass_kg)))
    res = closed_loop(car, driver, run.duration_s, v0=run.speed_start_m_s)
    k = res.t > run.settle_s
    radius = np.hypot(res["chassis.vx"], res["chassis.vy"])[k] / np.maximum(np.abs(res["chassis.yaw_rate"][k]), 1e-9)
    ug = understeer_gradient(np.abs(res["chassis.ay"][k]), np.abs(res["steering_wheel_angle_applied"][k]),
                             st.steering_ratio, st.wheelbase_m, radius)
    return res, ug


def double_lane_change(car, speed_m_s: float = 60 / 3.6):
    """ISO 3888-1 double lane change at ``speed_m_s`` with the path follower; returns (Result, KPIs). The
    car starts on the straight run-in, ``meta["track_x_m"]`` before the first gate (track x = chassis.x +
    that)."""
    width = vehicle_width(car)
    path = lane_change_path(width)
    track = iso3888_1_layout(width)
    x_start = float(path.x[0])
    length = track.end_x + 30.0 - x_start
    # the run starts on the path's run-in: shift the path so the car starts at its first point
    driver = driver_for(car, Path(path.x - x_start, path.y, name=path.name), speed_m_s)
    res = closed_loop(car, driver, 1.3 * length / speed_m_s, v0=speed_m_s,
                      stop=lambda o: o["chassis.x"] > length)
    res.meta["track_x_m"] = x_start      # track x of the car's start (x = 0: entry of section 1)
    kpis = lane_change_kpis(res.t, res["chassis.x"] + x_start, res["chassis.y"], res["chassis.yaw"],
                            res["chassis.ay"], width, track=track, path=path, yaw_rate=res["chassis.yaw_rate"])
    return res, kpis


def kinematics(car, corner: str, travel_m=np.linspace(-0.08, 0.08, 17), rack_m=None):
    """Toe and camber of ``corner`` against its wheel travel (chassis at the design position) and, if the
    corner is steered, against the rack travel (default +-1.5 x the rack travel of a quarter turn of the
    steering wheel). Returns a KinematicsTable (wheel travel = wheel centre height change in the chassis)."""
    m = car.mech
    d = m.data
    w = car.wheel_index(corner)
    wi = car.spec.wheels[w]
    base = {c: 0.0 for c in m.independent_names if c.startswith("chassis.")}
    base[wi.travel_coordinate] = 0.0
    st = car.spec.steering
    if st is not None:
        base[st.rack_coordinate] = 0.0
    m.assemble(base, {}, steps=5)

    def angles_at(pos):
        m.assemble({**base, **pos}, {}, steps=5)
        c = d.o[car.w_body[w]] + d.A[car.w_body[w]] @ car.w_center0[w]
        return (c[2] - car.w_center0[w, 2],) + _wheel_angles(car, w)

    rows = np.array([angles_at({wi.travel_coordinate: float(s)}) for s in travel_m])
    rack = toe_r = cam_r = None
    if st is not None and corner in st.corners:
        rack = rack_m if rack_m is not None else np.linspace(-1.5, 1.5, 13) * abs(st.rack_gain_m_per_rad) * math.pi / 2
        rr = np.array([angles_at({st.rack_coordinate: float(s)}) for s in rack])
        toe_r, cam_r = rr[:, 1], rr[:, 2]
    m.assemble(base, {}, steps=5)
    return kinematics_table(rows[:, 0], rows[:, 1], rows[:, 2], rack, toe_r, cam_r, name=corner)


def require_steering(car):
    if car.spec.steering is None:
        raise ModelError(f"vehicle '{car.name}' has no steering: the handling manoeuvres need a full vehicle "
                         f"(e.g. fullcar14)")


STEP_STEER_AY_TOLERANCE_PCT = 0.5
"""How far [%] the steady-state lateral acceleration of :func:`step_steer_to_target` may miss its target."""


def step_steer_to_target(car, speed_m_s: float = 80 / 3.6, ay_m_s2: float = 4.0, *, max_runs: int = 5, **options):
    """ISO 7401 step steer whose steady-state lateral acceleration is ``ay_m_s2`` [m/s^2] (the standard sets
    it, 4 m/s^2): :func:`step_steer` with the single-track amplitude first, then the amplitude scaled by
    target / reached (a secant through zero: a_y is nearly proportional to the steering-wheel angle) until
    the steady state is within :data:`STEP_STEER_AY_TOLERANCE_PCT` of the target, at most ``max_runs``
    runs. Returns (Result, metrics) of the last run; the metrics add ``ay_target_m_s2``, ``ay_miss_pct``
    = (a_y,ss - target) / target x 100 and ``runs``."""
    if not (math.isfinite(ay_m_s2) and ay_m_s2 > 0.0):
        raise ModelError(f"step steer: ay_m_s2 must be a positive number of m/s^2, got {ay_m_s2!r}")
    request = ay_m_s2                   # the single-track a_y whose amplitude is steered (proportional to it)
    for k in range(1, max_runs + 1):
        res, metrics = step_steer(car, speed_m_s, request, **options)
        reached = abs(metrics["ay"]["steady_state"])
        miss = (reached - ay_m_s2) / ay_m_s2 * 100.0
        if abs(miss) <= STEP_STEER_AY_TOLERANCE_PCT or k == max_runs or reached <= 0.0:
            break
        request *= ay_m_s2 / reached
    metrics.update(ay_target_m_s2=ay_m_s2, ay_miss_pct=miss, runs=k)
    return res, metrics
