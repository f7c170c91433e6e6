"""The manoeuvres of ``fmu-vehicle manoeuvre``, by name: what each runs, its defaults, its plot and its files.

:data:`MANOEUVRES` maps a name to a :class:`Manoeuvre`: whether it needs a vehicle with towed units
(``towed``) and the function that runs it on a loaded vehicle with the command's options
(:class:`ManoeuvreOptions`, None where not given: the function picks the default) and returns an
:class:`Outcome`: the run to write as CSV (or None), the quantities of its summary in order, the files it
adds (a plot, CSV rows; each a name in the output folder and a function that writes it into a given path)
and warnings. A new manoeuvre is one function and one entry; the command line reads its choices from here.

The single-vehicle manoeuvres are those of :mod:`fmu_vehicle.manoeuvres.runs` (docs/handling.md §12), the
ones of a combination those of :mod:`fmu_vehicle.manoeuvres.combination` (docs/articulated.md §7). Speeds are
given in km/h and converted as v = v_kmh / 3.6 [m/s]; accelerations in m/s^2, radii in m.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from ..errors import ModelError


@dataclass(frozen=True)
class ManoeuvreOptions:
    """The options of ``fmu-vehicle manoeuvre`` (None: the manoeuvre's default)."""
    speed_kmh: float | None = None         # speed [km/h]
    ay: float | None = None                # lateral acceleration [m/s^2]
    radius: float | None = None            # circle [m]
    corner: str | None = None              # kinematics: the corner
    unit: str | None = None                # articulated manoeuvres: the towed unit analysed
    speeds_kmh: list | None = None         # steering impulse: the speeds [km/h]
    trailer_brake: list | None = None      # braking in a turn: the towed units' brake factors [-]
    decel: float = 4.0                     # braking in a turn: the deceleration the brakes are sized for [m/s^2]
    quiet: bool = False                    # no progress bar


@dataclass
class Outcome:
    """What a manoeuvre run gives: ``result`` (written as ``<name>.csv`` if not None), ``summary`` (its
    quantities, in the order they are reported), ``files`` [(file name, write(path))] and ``warnings``."""
    result: object = None
    summary: dict = field(default_factory=dict)
    files: list = field(default_factory=list)
    warnings: list = field(default_factory=list)


@dataclass(frozen=True)
class Manoeuvre:
    """One manoeuvre of the command: its name (the command's choice), the function that runs it and whether it
    needs a combination."""
    name: str
    run: Callable[[object, ManoeuvreOptions], Outcome]      # (vehicle, options) -> Outcome
    towed: bool = False          # needs a vehicle with towed units (a combination)


def write_rows(path, rows: list[dict]) -> None:
    """``rows`` (dicts with the same keys) as a CSV file with a header line."""
    import csv
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _speed(o: ManoeuvreOptions, default_kmh: float) -> float:
    """The run's speed [m/s]: ``--speed-kmh`` or ``default_kmh``, / 3.6."""
    return (o.speed_kmh or default_kmh) / 3.6


def step_steer(car, o: ManoeuvreOptions) -> Outcome:
    """ISO 7401 step steer at 80 km/h to a steady 4 m/s^2 (``runs.step_steer_to_target``); a warning when the
    steady lateral acceleration misses the target by more than ``runs.STEP_STEER_AY_TOLERANCE_PCT``."""
    from . import plots, runs
    speed = _speed(o, 80.0)
    res, metrics = runs.step_steer_to_target(car, speed, o.ay or 4.0)
    out = Outcome(res, {"speed_m_s": speed, "metrics": metrics})
    if abs(metrics["ay_miss_pct"]) > runs.STEP_STEER_AY_TOLERANCE_PCT:
        out.warnings.append(f"step steer: steady lateral acceleration {metrics['ay']['steady_state']:.3f} m/s^2 "
                            f"misses the {metrics['ay_target_m_s2']:g} m/s^2 target by "
                            f"{metrics['ay_miss_pct']:+.1f} % after {metrics['runs']} runs")
    out.files.append(("step_steer.png", lambda tmp: plots.plot_step_steer(
        tmp, res.t, res["steering_wheel_angle_applied"], res["chassis.yaw_rate"], res["chassis.ay"], metrics,
        title=f"{car.name}: ISO 7401 step steer at {speed * 3.6:.0f} km/h")))
    return out


def constant_radius(car, o: ManoeuvreOptions) -> Outcome:
    """Constant radius (ISO 4138; ISO 14792 for a combination) on a 100 m circle up to 6 m/s^2."""
    from . import plots, runs
    from .steady_state import ConstantRadiusRun
    radius = o.radius or 100.0
    run = ConstantRadiusRun(radius_m=radius, ay_end_m_s2=o.ay or 6.0)
    res, ug = runs.constant_radius(car, run)
    st = runs.single_track_of(runs.towing_vehicle(car))
    k = res.t > run.settle_s          # the samples the analysis used (after settling on the circle)
    standard = "ISO 14792" if car.spec.units else "ISO 4138"
    return Outcome(res, {"radius_m": radius, "understeer_gradient": ug}, [
        ("constant_radius.png", lambda tmp: plots.plot_constant_radius(
            tmp, res["chassis.ay"][k], res["steering_wheel_angle_applied"][k], st.steering_ratio, st.wheelbase_m,
            radius, ug, title=f"{car.name}: {standard} constant radius {radius:g} m"))])


def double_lane_change(car, o: ManoeuvreOptions) -> Outcome:
    """ISO 3888-1 double lane change at 60 km/h."""
    from . import plots, runs
    speed = _speed(o, 60.0)
    res, kpis = runs.double_lane_change(car, speed)
    return Outcome(res, {"speed_m_s": speed, "kpis": kpis}, [
        ("double_lane_change.png", lambda tmp: plots.plot_lane_change(
            tmp, res.t, res["chassis.x"] + res.meta["track_x_m"], res["chassis.y"], res["chassis.yaw"],
            res["chassis.ay"], kpis, runs.vehicle_width(car),
            title=f"{car.name}: ISO 3888-1 double lane change at {speed * 3.6:.0f} km/h"))])


def kinematics(car, o: ManoeuvreOptions) -> Outcome:
    """Toe and camber of a corner (default the first) against wheel and rack travel, plot and table."""
    from . import plots, runs
    corner = o.corner or car.wheel_names[0]
    car.wheel_index(corner)
    table = runs.kinematics(car, corner)
    return Outcome(None, {"corner": corner, "gradients_deg_per_m": table.gradients_deg_per_m}, [
        ("kinematics.png", lambda tmp: plots.plot_kinematics(
            tmp, table, title=f"{car.name}: suspension kinematics, {corner}")),
        ("kinematics.csv", lambda tmp: write_rows(tmp, table.rows()))])


def _towed(car, o: ManoeuvreOptions) -> str:
    """The name of the towed unit a combination manoeuvre analyses (``--unit``, default the last)."""
    from . import combination as cm
    try:
        return cm.towed_unit(car, o.unit).name
    except ModelError as e:
        raise ModelError(f"{'--unit' if car.spec.units else '--vehicle'}: {e}") from None


def steering_impulse(car, o: ManoeuvreOptions) -> Outcome:
    """ISO 9815 steering impulse at each speed (default ``combination.IMPULSE_SPEEDS_KMH``): the damping of
    the articulation against speed, the multibody runs beside the linear reference; plot and rows."""
    import numpy as np

    from . import combination as cm
    from . import plots
    unit = _towed(car, o)
    speeds = np.array(o.speeds_kmh or cm.IMPULSE_SPEEDS_KMH, dtype=float) / 3.6
    if speeds.size < 2 or np.any(np.diff(speeds) <= 0.0):
        raise ModelError(f"--speeds-kmh: give at least two increasing speeds, got {o.speeds_kmh}")
    sweep = cm.impulse_sweep(car, speeds, unit=unit, progress=not o.quiet)
    lin = sweep["linear"]
    summary = {"unit": unit, "speed_m_s": speeds, "damping_ratio": sweep["damping_ratio"],
               "frequency_hz": sweep["frequency_hz"], "critical_speed_m_s": sweep["critical_speed_m_s"],
               "linear": None if lin is None else {k: v for k, v in lin.items() if k != "model"}}
    grid = np.linspace(speeds[0], speeds[-1], 200)
    curve = lin["model"].damping_vs_speed(grid)["damping_ratio"] if lin is not None else np.full(grid.size, np.nan)
    crit = sweep["critical_speed_m_s"]
    label = "multibody, steering impulse" + (f" (critical speed {crit * 3.6:.1f} km/h)" if crit else
                                             " (no critical speed in the range)")
    rows = [{"speed_kmh": s * 3.6, "damping_ratio": z, "frequency_hz": f,
             "linear_damping_ratio": lin["damping_ratio"][i] if lin else math.nan,
             "linear_frequency_hz": lin["frequency_hz"][i] if lin else math.nan}
            for i, (s, z, f) in enumerate(zip(speeds, sweep["damping_ratio"], sweep["frequency_hz"]))]
    return Outcome(None, summary, [
        ("steering_impulse.png", lambda tmp: plots.plot_damping_vs_speed(
            tmp, grid, curve, critical_speed_m_s=lin and lin["snaking_speed_m_s"],
            runs=[(speeds, sweep["damping_ratio"], label)],
            title=f"{car.name}: ISO 9815 steering impulse, damping of {unit}'s articulation")),
        ("steering_impulse.csv", lambda tmp: write_rows(tmp, rows))])


def single_sine(car, o: ManoeuvreOptions) -> Outcome:
    """ISO 14791 single sine steer at 80 km/h of 2 m/s^2 steady-state amplitude: rearward amplification,
    peak articulation and load transfer ratios."""
    from . import combination as cm
    from . import plots
    unit = _towed(car, o)
    speed = _speed(o, 80.0)
    res, kpis = cm.single_sine_run(car, speed, o.ay or 2.0, unit=unit)
    shown = {"RA a_y": kpis["ay"]["ratio"], "RA yaw rate": kpis["yaw_rate"]["ratio"],
             "peak articulation [deg]": math.degrees(kpis["theta_peak_rad"]),
             f"peak LTR {unit}": kpis["ltr_peak"][unit], "peak LTR combination": kpis["ltr_peak"]["combination"]}
    return Outcome(res, {"unit": unit, "speed_m_s": speed, "kpis": kpis}, [
        ("single_sine.png", lambda tmp: plots.plot_articulation(
            tmp, res.t, res[f"{unit}.articulation"], res.meta["front_xy"], res.meta["trailer_xy"], kpis=shown,
            title=f"{car.name}: ISO 14791 single sine steer at {speed * 3.6:.0f} km/h", equal_axes=False))])


def braking_in_turn(car, o: ManoeuvreOptions) -> Outcome:
    """Braking at ``decel`` in a 3 m/s^2 turn from 80 km/h, one run per towed-unit brake factor (default 1
    and 0.1): the articulation of each in one plot, one CSV per run."""
    from . import combination as cm
    from . import plots
    unit = _towed(car, o)
    speed = _speed(o, 80.0)
    factors = o.trailer_brake or [1.0, 0.1]
    if any(f < 0.0 for f in factors):
        raise ModelError(f"--trailer-brake: factors must be >= 0, got {factors}")
    results = [cm.braking_in_turn(car, f, speed_m_s=speed, ay_m_s2=o.ay or 3.0, decel_m_s2=o.decel, unit=unit)
               for f in factors]
    t_brake = results[0][0].meta["t_brake"]
    out = Outcome(None, {"unit": unit, "speed_m_s": speed, "decel_m_s2": o.decel, "kpis": [k for _, k in results]})
    out.files.append(("braking_in_turn.png", lambda tmp: plots.plot_braking_in_turn(
        tmp, [(f"trailer brakes {100 * k['trailer_brake_factor']:g} %", r.t, r[f"{unit}.articulation"],
               r["chassis.vx"], k["t_peak_s"], k["theta_peak_rad"]) for r, k in results], t_brake,
        title=f"{car.name}: braking at {o.decel:g} m/s^2 in a turn from {speed * 3.6:.0f} km/h")))
    for r, k in results:
        out.files.append((f"braking_in_turn_trailer{100 * k['trailer_brake_factor']:g}pct.csv",
                          lambda tmp, r=r: r.to_csv(tmp, units="header")))
    return out


def offtracking(car, o: ManoeuvreOptions) -> Outcome:
    """Low-speed turn at ``combination.LOW_SPEED_M_S``, the steered axle on a circle of
    ``combination.LOW_SPEED_TURN_RADIUS_M``: offtracking against the closed form, swept path."""
    from . import combination as cm
    from . import plots
    unit = _towed(car, o)
    speed = _speed(o, cm.LOW_SPEED_M_S * 3.6)
    radius = o.radius or cm.LOW_SPEED_TURN_RADIUS_M
    res, kpis = cm.low_speed_turn(car, radius, speed_m_s=speed, unit=unit)
    shown = {"offtracking [m]": kpis["offtracking_m"], "closed form [m]": kpis["closed_form_offtracking_m"],
             "swept path [m]": kpis["max_offtracking_m"]}
    return Outcome(res, {"unit": unit, "speed_m_s": speed, "radius_m": radius, "kpis": kpis}, [
        ("offtracking.png", lambda tmp: plots.plot_articulation(
            tmp, res.t, res[f"{unit}.articulation"], res.meta["front_xy"], res.meta["trailer_xy"], kpis=shown,
            title=f"{car.name}: low-speed turn, front axle on {kpis['front_radius_m']:.2f} m"))])


MANOEUVRES = {m.name: m for m in (
    Manoeuvre("step-steer", step_steer),
    Manoeuvre("constant-radius", constant_radius),
    Manoeuvre("double-lane-change", double_lane_change),
    Manoeuvre("kinematics", kinematics),
    Manoeuvre("steering-impulse", steering_impulse, towed=True),
    Manoeuvre("single-sine", single_sine, towed=True),
    Manoeuvre("braking-in-turn", braking_in_turn, towed=True),
    Manoeuvre("offtracking", offtracking, towed=True),
)}
"""The manoeuvres of ``fmu-vehicle manoeuvre`` by name, in the order the command lists them."""

COMBINATION_MANOEUVRES = tuple(name for name, m in MANOEUVRES.items() if m.towed)
"""The manoeuvres for a vehicle with towed units (manoeuvres.combination)."""
