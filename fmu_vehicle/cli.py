"""Command line: ``fmu-vehicle simulate | reproduce-paper | demo | sweep | ssp | bench | crosscheck | info``.

Errors in the user's input (options included) print one line ``fmu-vehicle: error: ...`` and exit with
code 2; output paths are checked before a run, and output files are written only when the run succeeded,
all of them or none (atomically, never half-written).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from pathlib import Path

from .errors import FmuVehicleError, ModelError
from .util import atomic_write_all, fixed


class UsageError(FmuVehicleError):
    """A command line that argparse refused (its message, one line)."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line ``fmu-vehicle: error: ...`` (raised, printed by main)."""

    def error(self, message):
        raise UsageError(f"{self.prog.split(' ', 1)[-1] + ': ' if ' ' in self.prog else ''}{message}")


def _output_file(path, option: str) -> Path:
    """An output file path that can be written: not a folder, its folder a folder (created later)."""
    p = Path(path)
    if p.is_dir():
        raise ModelError(f"{option}: {p} is a directory, expected a file name")
    for parent in p.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise ModelError(f"{option}: cannot create {p}: {parent} is not a directory")
            if not os.access(parent, os.W_OK):
                raise ModelError(f"{option}: cannot create {p}: {parent} is not writable")
            break
    return p


def _output_dir(path, option: str) -> Path:
    """An output folder path: an existing folder or one that can be created."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ModelError(f"{option}: {p} is not a directory")
    if not p.exists():
        _output_file(p, option)
    elif not os.access(p, os.W_OK):
        raise ModelError(f"{option}: {p} is not writable")
    return p


def _plot_file(path, option: str) -> Path:
    p = _output_file(path, option)
    from matplotlib.backend_bases import FigureCanvasBase
    formats = FigureCanvasBase.get_supported_filetypes()
    if p.suffix.lstrip(".").lower() not in formats:
        raise ModelError(f"{option}: cannot write a plot as {p.name!r}; use one of "
                         f"{', '.join('.' + f for f in sorted(formats))}")
    return p


PROGRESS_MIN_STEPS = 3000   # show a progress bar for runs longer than this many steps


def _torques(items: list[str] | None, what: str) -> dict:
    out = {}
    for item in items or []:
        wheel, sep, value = item.partition("=")
        try:
            v = float(value)
        except ValueError:
            v = math.nan
        if not sep or not wheel or not math.isfinite(v):
            raise ModelError(f"--{what}: expected WHEEL=N_M (e.g. front=300), got {item!r}")
        if what == "brake-torque" and v < 0:
            raise ModelError(f"--{what}: a brake torque is a magnitude >= 0 N m, got {item!r}")
        out[wheel] = v
    return out


def _number(text: str, positive: bool) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(v) or (positive and v <= 0):
        raise argparse.ArgumentTypeError(f"must be a {'positive' if positive else 'finite'} number, got {text}")
    return v


def _count(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {v}")
    return v


def _bench_integrator(text: str) -> str:
    """An ``--integrators`` entry of ``bench``: a method name, or name@STEPms (``bench.parse_integrator``)."""
    from .bench import parse_integrator
    try:
        parse_integrator(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _positive(text: str) -> float:
    return _number(text, True)


def _finite(text: str) -> float:
    return _number(text, False)


def _fixed_step_duration(duration: float, dt: float, integrator: str) -> None:
    """A fixed-step method runs a whole number of steps: ``duration`` [s] must be a multiple of ``dt`` [s]
    (the check the integrators make, ``integrators.base.fixed_steps``, made before anything is built)."""
    from .integrators import STEPPING_INTEGRATORS
    from .integrators.base import fixed_steps
    if integrator not in STEPPING_INTEGRATORS:
        return                                  # adaptive: dt is the output spacing, any duration works
    try:
        fixed_steps(0.0, duration, dt)
    except ValueError:
        n = duration / dt
        raise ModelError(f"--duration: {duration:g} s is not a whole number of --dt steps of {dt:g} s "
                         f"({n:.6g} steps; the {integrator} integrator takes fixed steps): use e.g. "
                         f"--duration {max(1, round(n)) * dt:.10g}") from None


def full_vehicle_panels(units: dict) -> tuple:
    """Plot panels of a full vehicle's run (lateral and vertical chassis quantities, the steering): one panel
    per signal, labelled with its short name and its unit as the signal table gives it (``units``: name ->
    unit, e.g. ``Result.units``)."""
    from .plotting import Panel
    names = ("chassis.x", "chassis.vx", "chassis.y", "chassis.vy", "chassis.yaw", "chassis.yaw_rate",
             "chassis.ay", "steering_wheel_angle_applied", "chassis.roll", "chassis.pitch")
    panels = []
    for name in names:
        if name in units:
            short = name.split(".", 1)[-1].replace("_applied", "").replace("_", " ")
            panels.append(Panel(f"{short} [{units[name]}]" if units[name] else short, ((short, name),)))
    return tuple(panels)


def cmd_simulate(a) -> int:
    from .road import load_road
    from .vehicle import Vehicle
    output = _output_file(a.output, "--output")
    plot = _plot_file(a.plot, "--plot") if a.plot else None
    if plot is not None and plot.absolute() == output.absolute():
        raise ModelError(f"--plot: {plot} is also the --output file")
    _fixed_step_duration(a.duration, a.dt, a.integrator)
    road = load_road(a.road)
    drive, brake = _torques(a.drive_torque, "drive-torque"), _torques(a.brake_torque, "brake-torque")
    # every argument is checked before the vehicle is loaded: loading may compile its kernels (minutes on a
    # first run), and a typo should be refused in seconds, not after that
    from .vehicle.loader import load_vehicle_spec
    spec = load_vehicle_spec(a.vehicle)
    steer = None
    if a.steer is not None:
        from .driver.profile import SteeringProfile
        steer = SteeringProfile.parse(a.steer, name="--steer")
        if spec.steering is None:
            raise ModelError(f"--steer: vehicle '{spec.name}' has no steering (its file has no 'steering' entry); "
                             f"steer a full vehicle, e.g. --vehicle fullcar14")
    wheels = tuple(w.name for w in spec.wheels)
    for w in list(drive) + list(brake):
        if w not in wheels:
            raise ModelError(f"vehicle '{spec.name}': unknown wheel '{w}'; valid: {', '.join(wheels)}")
    car = Vehicle.load(a.vehicle)
    nsteps = a.duration / a.dt
    with compile_progress(quiet=a.quiet):
        res = car.simulate(road, a.duration, dt=a.dt, v0=a.v0, x0=a.x0, drive_torque=drive, brake_torque=brake,
                           integrator=a.integrator, record_every=a.record_every,
                           progress=not a.quiet and nsteps > PROGRESS_MIN_STEPS, steer=steer)
    _warn_past_road_end(road, res)
    write_csv = (output, lambda tmp: res.to_csv(tmp, units="header"))
    if res.meta.get("interrupted"):
        atomic_write_all([write_csv], mode=None)
        print(f"fmu-vehicle: interrupted at t = {res.t[-1]:g} s; {len(res.t)} rows written to {output}",
              file=sys.stderr)
        return 130
    title = f"{car.name} on {road.describe()}"
    panels = full_vehicle_panels(res.units) if "chassis.y" in res.names else None
    atomic_write_all([write_csv] + ([(plot, lambda tmp: res.plot(tmp, title=title, panels=panels))] if plot else []),
                     mode=None)
    lateral = (f"y = {fixed(res.final('chassis.y'), 3)} m, yaw = {fixed(res.final('chassis.yaw'), 4)} rad, "
               if "chassis.y" in res.names else "")
    print(f"{car.name}: {a.duration:g} s on {road.describe()}: x = {fixed(res.final('chassis.x'), 3)} m, {lateral}"
          f"vx = {fixed(res.final('chassis.vx'), 3)} m/s, pitch = {fixed(res.final('chassis.pitch'), 4)} rad "
          f"-> {a.output}" + (f", {a.plot}" if a.plot else ""))
    return 0


def _warn_past_road_end(road, res) -> None:
    """One warning line on stderr if a wheel (or the chassis centre of mass) of the run ``res`` went past the
    last distance of a profile road (``ProfileRoad.past_end_warning``)."""
    check = getattr(road, "past_end_warning", None)
    if check is None:
        return
    import re
    xs = [n for n in res.names if re.fullmatch(r"wheel_[^.]+\.(pos\.)?x", n)] or ["chassis.x"]   # wheel centres
    message = check(max(float(res[n].max()) for n in xs))
    if message:
        print(f"fmu-vehicle: warning: {message}", file=sys.stderr)


class compile_progress:
    """Context: while numba compiles functions in this process (a first run, or after a source change;
    nothing when every kernel is in the cache), say so once on stderr and show a tqdm bar there: the
    functions compiled so far, the one being compiled, the time elapsed (refreshed every second; a kernel
    with its inlined engine takes minutes). ``quiet``: the notice line only, no bar."""

    NOTICE = ("fmu-vehicle: compiling the model's kernels for this machine (first run after an install or an "
              "update; a few minutes, then cached in {cache})")

    def __init__(self, quiet: bool = False, stream=None):
        self.quiet, self.stream, self.bar, self.count, self.active = quiet, stream, None, 0, []

    def __enter__(self):
        from numba.core import event

        outer = self

        class Listener(event.Listener):
            def on_start(self, ev):
                if outer.bar is None:
                    outer._start()
                outer.active.append(_function_name(ev))
                outer._show()

            def on_end(self, ev):
                outer.count += 1
                if outer.active:
                    outer.active.pop()
                if outer.bar is not None:
                    outer.bar.update(1)
                    outer._show()

        self._listener = Listener()
        event.register("numba:compile", self._listener)
        return self

    def _show(self):
        if self.bar is not None and self.active:
            self.bar.set_postfix_str(f"compiling {self.active[0]}", refresh=True)

    def _start(self):
        import threading

        from tqdm import tqdm

        from . import CACHE_DIR
        stream = self.stream or sys.stderr
        print(self.NOTICE.format(cache=CACHE_DIR or "memory only"), file=stream, flush=True)
        self.bar = tqdm(desc="compiled", unit=" functions", file=stream, disable=self.quiet)
        self._stop = threading.Event()

        def tick():                      # the elapsed time moves while one long compile runs
            while not self._stop.wait(1.0):
                self.bar.refresh()

        threading.Thread(target=tick, daemon=True).start()

    def __exit__(self, *exc):
        from numba.core import event
        event.unregister("numba:compile", self._listener)
        if self.bar is not None:
            self._stop.set()
            self.bar.close()
        return False


def _function_name(ev) -> str:
    """The name of the function a numba compile event is about."""
    return getattr(getattr(ev.data.get("dispatcher"), "py_func", None), "__name__", "a function")


def cmd_manoeuvre(a) -> int:
    import json
    from .manoeuvres import plots, runs
    from .vehicle import Vehicle
    out = _output_dir(a.out, "--out")
    car = Vehicle.load(a.vehicle)
    runs.require_steering(car)
    with compile_progress(quiet=a.quiet):
        return _manoeuvre(a, car, out, json, plots, runs)


def _manoeuvre(a, car, out: Path, json, plots, runs) -> int:
    name = a.name
    stem = name.replace('-', '_')
    files, summary = [], {"manoeuvre": name, "vehicle": car.name}
    if name in COMBINATION_MANOEUVRES:
        res = _combination_manoeuvre(a, car, out, files, summary, plots)
    elif name == "step-steer":
        speed = (a.speed_kmh or 80.0) / 3.6
        res, metrics = runs.step_steer_to_target(car, speed, a.ay or 4.0)
        summary.update(speed_m_s=speed, metrics=metrics)
        if abs(metrics["ay_miss_pct"]) > runs.STEP_STEER_AY_TOLERANCE_PCT:
            print(f"fmu-vehicle: warning: step steer: steady lateral acceleration "
                  f"{metrics['ay']['steady_state']:.3f} m/s^2 misses the {metrics['ay_target_m_s2']:g} m/s^2 target "
                  f"by {metrics['ay_miss_pct']:+.1f} % after {metrics['runs']} runs", file=sys.stderr)
        files.append((out / "step_steer.png", lambda tmp: plots.plot_step_steer(
            tmp, res.t, res["steering_wheel_angle_applied"], res["chassis.yaw_rate"], res["chassis.ay"], metrics,
            title=f"{car.name}: ISO 7401 step steer at {speed * 3.6:.0f} km/h")))
    elif name == "constant-radius":
        from .manoeuvres.steady_state import ConstantRadiusRun
        radius = a.radius or 100.0
        run = ConstantRadiusRun(radius_m=radius, ay_end_m_s2=a.ay or 6.0)
        res, ug = runs.constant_radius(car, run)
        summary.update(radius_m=radius, understeer_gradient=ug)
        st = runs.single_track_of(runs.towing_vehicle(car))
        k = res.t > run.settle_s          # the samples the analysis used (after settling on the circle)
        standard = "ISO 14792" if car.spec.units else "ISO 4138"
        files.append((out / "constant_radius.png", lambda tmp: plots.plot_constant_radius(
            tmp, res["chassis.ay"][k], res["steering_wheel_angle_applied"][k], st.steering_ratio, st.wheelbase_m,
            radius, ug, title=f"{car.name}: {standard} constant radius {radius:g} m")))
    elif name == "double-lane-change":
        speed = (a.speed_kmh or 60.0) / 3.6
        res, kpis = runs.double_lane_change(car, speed)
        summary.update(speed_m_s=speed, kpis=kpis)
        files.append((out / "double_lane_change.png", lambda tmp: plots.plot_lane_change(
            tmp, res.t, res["chassis.x"] + res.meta["track_x_m"], res["chassis.y"], res["chassis.yaw"], res["chassis.ay"], kpis,
            runs.vehicle_width(car), title=f"{car.name}: ISO 3888-1 double lane change at {speed * 3.6:.0f} km/h")))
    else:   # kinematics
        corner = a.corner or car.wheel_names[0]
        car.wheel_index(corner)
        table = runs.kinematics(car, corner)
        res = None
        summary.update(corner=corner, gradients_deg_per_m=table.gradients_deg_per_m)
        files.append((out / "kinematics.png", lambda tmp: plots.plot_kinematics(
            tmp, table, title=f"{car.name}: suspension kinematics, {corner}")))
        files.append((out / "kinematics.csv", lambda tmp: _write_rows(tmp, table.rows())))
    if res is not None:
        files.append((out / f"{stem}.csv", lambda tmp: res.to_csv(tmp, units="header")))
    summary = _plain(summary)
    # one summary per manoeuvre (<name>_summary.json): runs of different manoeuvres into one folder keep theirs
    files.append((out / f"{stem}_summary.json", lambda tmp: Path(tmp).write_text(json.dumps(summary, indent=2))))
    atomic_write_all(files, mode=None)
    print(f"{car.name}: {name}: " + json.dumps({k: v for k, v in summary.items() if k not in ("manoeuvre", "vehicle")})
          + f" -> {out}")
    return 0


COMBINATION_MANOEUVRES = ("steering-impulse", "single-sine", "braking-in-turn", "offtracking")
"""The manoeuvres of ``fmu-vehicle manoeuvre`` for a vehicle with towed units (manoeuvres.combination)."""


def _combination_manoeuvre(a, car, out: Path, files: list, summary: dict, plots):
    """Run the articulated-vehicle manoeuvre ``a.name`` (docs/articulated.md §7): add its files (plot, CSV) to
    ``files`` and its KPIs to ``summary``; returns the Result to write as CSV, or None."""
    import numpy as np
    from .manoeuvres import combination as cm
    try:
        unit = cm.towed_unit(car, a.unit).name
    except ModelError as e:
        raise ModelError(f"{'--unit' if car.spec.units else '--vehicle'}: {e}") from None
    summary["unit"] = unit
    if a.name == "steering-impulse":
        speeds = np.array(a.speeds_kmh or cm.IMPULSE_SPEEDS_KMH, dtype=float) / 3.6
        if speeds.size < 2 or np.any(np.diff(speeds) <= 0.0):
            raise ModelError(f"--speeds-kmh: give at least two increasing speeds, got {a.speeds_kmh}")
        sweep = cm.impulse_sweep(car, speeds, unit=unit, progress=not a.quiet)
        lin = sweep["linear"]
        summary.update(speed_m_s=speeds, damping_ratio=sweep["damping_ratio"], frequency_hz=sweep["frequency_hz"],
                       critical_speed_m_s=sweep["critical_speed_m_s"],
                       linear=None if lin is None else {k: v for k, v in lin.items() if k != "model"})
        grid = np.linspace(speeds[0], speeds[-1], 200)
        curve = lin["model"].damping_vs_speed(grid)["damping_ratio"] if lin is not None else np.full(grid.size, np.nan)
        crit = sweep["critical_speed_m_s"]
        label = "multibody, steering impulse" + (f" (critical speed {crit * 3.6:.1f} km/h)" if crit else
                                                 " (no critical speed in the range)")
        files.append((out / "steering_impulse.png", lambda tmp: plots.plot_damping_vs_speed(
            tmp, grid, curve, critical_speed_m_s=lin and lin["snaking_speed_m_s"],
            runs=[(speeds, sweep["damping_ratio"], label)],
            title=f"{car.name}: ISO 9815 steering impulse, damping of {unit}'s articulation")))
        rows = [{"speed_kmh": s * 3.6, "damping_ratio": z, "frequency_hz": f,
                 "linear_damping_ratio": lin["damping_ratio"][i] if lin else math.nan,
                 "linear_frequency_hz": lin["frequency_hz"][i] if lin else math.nan}
                for i, (s, z, f) in enumerate(zip(speeds, sweep["damping_ratio"], sweep["frequency_hz"]))]
        files.append((out / "steering_impulse.csv", lambda tmp: _write_rows(tmp, rows)))
        return None
    if a.name == "offtracking":
        speed = (a.speed_kmh or cm.LOW_SPEED_M_S * 3.6) / 3.6
        radius = a.radius or cm.LOW_SPEED_TURN_RADIUS_M
        res, kpis = cm.low_speed_turn(car, radius, speed_m_s=speed, unit=unit)
        summary.update(speed_m_s=speed, radius_m=radius, kpis=kpis)
        shown = {"offtracking [m]": kpis["offtracking_m"], "closed form [m]": kpis["closed_form_offtracking_m"],
                 "swept path [m]": kpis["max_offtracking_m"]}
        files.append((out / "offtracking.png", lambda tmp: plots.plot_articulation(
            tmp, res.t, res[f"{unit}.articulation"], res.meta["front_xy"], res.meta["trailer_xy"], kpis=shown,
            title=f"{car.name}: low-speed turn, front axle on {kpis['front_radius_m']:.2f} m")))
        return res
    speed = (a.speed_kmh or 80.0) / 3.6
    if a.name == "single-sine":
        res, kpis = cm.single_sine_run(car, speed, a.ay or 2.0, unit=unit)
        summary.update(speed_m_s=speed, kpis=kpis)
        shown = {"RA a_y": kpis["ay"]["ratio"], "RA yaw rate": kpis["yaw_rate"]["ratio"],
                 "peak articulation [deg]": math.degrees(kpis["theta_peak_rad"]),
                 f"peak LTR {unit}": kpis["ltr_peak"][unit], "peak LTR combination": kpis["ltr_peak"]["combination"]}
        files.append((out / "single_sine.png", lambda tmp: plots.plot_articulation(
            tmp, res.t, res[f"{unit}.articulation"], res.meta["front_xy"], res.meta["trailer_xy"], kpis=shown,
            title=f"{car.name}: ISO 14791 single sine steer at {speed * 3.6:.0f} km/h", equal_axes=False)))
        return res
    factors = a.trailer_brake or [1.0, 0.1]
    if any(f < 0.0 for f in factors):
        raise ModelError(f"--trailer-brake: factors must be >= 0, got {factors}")
    results = [cm.braking_in_turn(car, f, speed_m_s=speed, ay_m_s2=a.ay or 3.0, decel_m_s2=a.decel, unit=unit)
               for f in factors]
    summary.update(speed_m_s=speed, decel_m_s2=a.decel, kpis=[k for _, k in results])
    t_brake = results[0][0].meta["t_brake"]
    files.append((out / "braking_in_turn.png", lambda tmp: plots.plot_braking_in_turn(
        tmp, [(f"trailer brakes {100 * k['trailer_brake_factor']:g} %", r.t, r[f"{unit}.articulation"],
               r["chassis.vx"], k["t_peak_s"], k["theta_peak_rad"]) for r, k in results], t_brake,
        title=f"{car.name}: braking at {a.decel:g} m/s^2 in a turn from {speed * 3.6:.0f} km/h")))
    for r, k in results:
        files.append((out / f"braking_in_turn_trailer{100 * k['trailer_brake_factor']:g}pct.csv",
                      lambda tmp, r=r: r.to_csv(tmp, units="header")))
    return None


def _plain(v):
    """``v`` (nested dicts, lists, NumPy values) as plain JSON values, with -0.0 written as 0.0 (a quantity that
    is zero has no sign)."""
    import numpy as np
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_plain(x) for x in (v.tolist() if isinstance(v, np.ndarray) else v)]
    if isinstance(v, (np.floating, np.integer, np.bool_)):
        v = v.item()
    if isinstance(v, float):
        return 0.0 if v == 0.0 else v
    if v is None or isinstance(v, (bool, int, str)):
        return v
    return str(v)


def _write_rows(path, rows):
    import csv
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def cmd_reproduce(a) -> int:
    from .paper import (MANEUVERS, VARIANTS, compare, format_table, paper_final_state, plot_maneuver,
                        road_axes_result, run_maneuver)
    from .vehicle import Vehicle
    out = _output_dir(a.out, "--out")
    unknown = [v for v in a.variants if v not in VARIANTS]
    if unknown:
        raise ModelError(f"--variants: no paper results for vehicle '{unknown[0]}'; valid: {', '.join(VARIANTS)}")
    failures = 0
    for key, man in MANEUVERS.items():
        runs = []
        for variant in a.variants:
            car = Vehicle.load(variant)
            res, axes = run_maneuver(car, man, progress=not a.quiet)
            rows = compare(axes, paper_final_state(key, VARIANTS[variant]))
            failures += sum(1 for r in rows if r[5] is False)
            print(format_table(f"{key} ({man.road}, v0 {man.v0:g} m/s, {man.drive_torque:g} N m front, "
                               f"{man.duration:g} s): {variant} vs paper '{VARIANTS[variant]}'", rows))
            runs.append((variant, road_axes_result(res.t, axes)))
        path = out / f"paper_{key}.png"
        plot_maneuver(runs, path, f"{key}: chassis states in road axes (cf. Dai et al. 2022 Fig. "
                                  f"{'9' if key == 'bumpy_road' else '11'})")
        print(f"plot: {path}")
    print("all final states within the acceptance bands" if failures == 0
          else f"{failures} final state(s) outside the acceptance bands")
    return 0 if failures == 0 else 1


def cmd_info(a) -> int:
    from .road.loader import shipped_roads
    from .vehicle import Vehicle, vehicle_names
    for name in vehicle_names():
        car = Vehicle.load(name)
        m = car.mech
        driven = f" + {m.model.ndrv} driven (steering rack)" if m.model.ndrv else ""
        print(f"{name}: {m.model.n - m.model.ndrv} relative coordinates{driven}, {m.model.m} closure equations, {m.n_dof} DOF, "
              f"{len(m.spec.bodies)} bodies + {len(m.spec.rods)} removed rods, mass {car.total_mass_kg:.1f} kg; "
              f"independent: {', '.join(m.independent_names)}")
    print("roads: " + ", ".join(shipped_roads()))
    return 0


def cmd_demo(a) -> int:
    """Example 2, ACC stop-and-go over the bumps with six FMUs: build the FMUs into dist/fmus if missing or
    stale, run the co-simulation (SSP written to and read from --out), print the summary and whether the ego
    ended stopped behind the stopped lead (exit 1 if not), write CSV and plot."""
    from .fmi.build_cache import ensure_fmus
    from .scenarios.half_car import (FMU_NAMES, acc_stop_and_go, following_metrics, format_following, format_stop,
                                  run_scenario, stop_check)
    say = (lambda message: None) if a.quiet else print
    _output_dir(a.out, "--out")
    fmus = {}
    for name in FMU_NAMES:
        fmus.update(ensure_fmus([name], log=lambda line, name=name: say(line + _build_notice(name))))
    scenario = acc_stop_and_go(fmus)
    say(f"{scenario.title}: {scenario.system.stop_time:g} s at {scenario.system.step_size * 1e3:g} ms")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    # the run writes into a folder of its own inside --out; its files (SSP, CSV, plot) are moved into --out
    # only when it finished, so an interrupted or failed run leaves nothing behind (nor a half set of files)
    with tempfile.TemporaryDirectory(prefix=".demo-", dir=out) as staging:
        run = run_scenario(scenario, Path(staging), progress=not a.quiet)
        written = []
        for path in (run.ssp, run.csv, run.plot):
            os.replace(path, out / Path(path).name)
            written.append(out / Path(path).name)
    print(f"{scenario.name}, {len(scenario.system.components)} FMUs, {run.result.time[-1]:g} s:")
    print(format_following(following_metrics(run.result)))
    check = stop_check(run.result)
    print(format_stop(check))
    print(f"wrote {written[2]}, {written[1]} and {written[0]}")
    return 0 if check["stopped_behind"] else 1


def cmd_ssp(a) -> int:
    """Each shipped scenario system as a self-contained .ssp archive with its FMUs inside (built if missing or
    stale); names are checked before anything is built, archives are written atomically."""
    from .adas.systems import system_file, write_archives
    for name in a.names:
        system_file(name)                       # an unknown name fails before any build
    out = _output_dir(a.out, "--out")
    if a.fmu_dir is not None and not Path(a.fmu_dir).is_dir():
        raise ModelError(f"--fmu-dir: {a.fmu_dir} is not a directory")

    def say(line: str) -> None:
        if not a.quiet:       # ensure_fmus says "building <folder>/<Name>.fmu (missing|stale)"
            built = line.split(" ", 2)[1] if line.startswith("building ") else ""
            print(line + (_build_notice(Path(built).stem) if built.endswith(".fmu") else ""))

    write_archives(a.names or None, out, a.fmu_dir, log=say)
    return 0


def cmd_crosscheck(a) -> int:
    """The FMI Cross-Check folders of every FMU (``fmi.crosscheck``): the FMUs built into --fmu-dir (default
    dist/fmus) if missing or stale, each run through FMPy, the whole set written under --out or nothing."""
    from .fmi.build_cache import ensure_fmus
    from .fmi.crosscheck import CASES, write_crosscheck
    say = (lambda message: None) if a.quiet else print
    _output_dir(a.out, "--out")
    if a.fmu_dir is not None:
        _output_dir(a.fmu_dir, "--fmu-dir")
    fmus = {}
    for name in CASES:
        fmus.update(ensure_fmus([name], a.fmu_dir, log=lambda line, name=name: say(line + _build_notice(name))))
    folder = write_crosscheck(a.out, fmus, log=say)
    print(f"wrote {folder}: {', '.join(sorted(fmus))}")
    return 0


def _build_notice(fmu_name: str) -> str:
    """What the build of the registered FMU ``fmu_name`` compiles, for the line that says it is built: the
    kernels of the models it imports (``jit.dependencies`` of its slave script), compiled once per source
    version at build time; '' for an FMU that compiles nothing (it builds in seconds)."""
    from .fmi.registry import slave_script
    from .numerics.jit import dependencies
    package = Path(__file__).resolve().parent
    modules = {path.relative_to(package).as_posix() for path in dependencies(slave_script(fmu_name))}
    if "vehicle/dynamics.py" in modules:
        return " (compiles the vehicle model once: about 2 minutes on an idle 2-core machine)"
    if "tire/stepper.py" in modules:
        return " (compiles the tire model once)"
    return ""


def cmd_sweep(a) -> int:
    """Every run of a scenario catalogue on dask.distributed; one CSV row per run and a summary plot."""
    from .adas.catalogue import load_catalogue
    from .adas.sweep import sweep
    cat = load_catalogue(a.catalogue)
    out = _output_file(a.output, "--output")
    if out.suffix.lower() != ".csv":
        raise ModelError(f"--output: expected a .csv file name, got {out.name!r}")
    if a.fmu_dir is not None and not Path(a.fmu_dir).is_dir():
        raise ModelError(f"--fmu-dir: {a.fmu_dir} is not a directory")
    say = (lambda message: None) if a.quiet else print
    n = len(cat.runs())
    where = f"scheduler {a.scheduler}" if a.scheduler else f"{a.workers or 'one per core,'} local worker process(es)"
    say(f"{cat.name}: {n} runs of the {cat.protocol} protocol on the system {cat.system.name}, on {where}")
    try:
        res = sweep(cat, out, workers=a.workers, scheduler=a.scheduler, fmu_dir=a.fmu_dir, progress=not a.quiet,
                    log=say)
    except KeyboardInterrupt:
        from .adas.sweep import journal_path
        journal = journal_path(out)
        kept = max(0, len(journal.read_text().splitlines()) - 1) if journal.exists() else 0
        print(f"fmu-vehicle: interrupted: no {out.name} written" + (
            f"; {kept} finished run(s) kept in {journal}: the same command resumes from them" if kept else ""),
            file=sys.stderr)
        return 130
    print(f"{cat.name}: {len(res.rows)} runs ({res.ran} now, {len(res.rows) - res.ran} from the journal), "
          f"{res.failed} failed, {res.wall_s:.1f} s wall ({res.runs_s:.1f} s of runs after the workers started) -> "
          f"{res.csv}" + (f", {res.plot}" if res.plot else ""))
    return 0 if res.failed == 0 else 1


def cmd_bench(a) -> int:
    from .bench import run_bench
    from .vehicle import vehicle_names
    _output_file(a.out, "--out")
    vehicles = a.vehicles or vehicle_names()
    unknown = [v for v in vehicles if v not in vehicle_names()]
    if unknown:
        raise ModelError(f"--vehicles: unknown vehicle '{unknown[0]}'; valid: {', '.join(vehicle_names())}")
    from .bench import COLD_COMPILE_VEHICLES
    cold = a.cold_compile_vehicles or list(COLD_COMPILE_VEHICLES)
    unknown = [v for v in cold if v not in vehicle_names()]
    if unknown:
        raise ModelError(f"--cold-compile-vehicles: unknown vehicle '{unknown[0]}'; valid: "
                         f"{', '.join(vehicle_names())}")
    fmu = Path(a.fmu) if a.fmu else None
    if fmu is not None and not fmu.exists():
        raise ModelError(f"--fmu: no such file {fmu}")
    native = Path(a.native_fmu) if a.native_fmu else None
    if native is not None and not native.exists():
        raise ModelError(f"--native-fmu: no such file {native}")
    if a.native_export:
        from .native.fmu import NATIVE_FMUS
        unknown = [f for f in a.native_export if f not in NATIVE_FMUS]
        if unknown:
            raise ModelError(f"--native-export: no native build of '{unknown[0]}'; native FMUs: "
                             f"{', '.join(NATIVE_FMUS)}")
        import shutil
        if shutil.which("cc") is None:
            raise ModelError("--native-export: a native build needs a C compiler (cc), not found on PATH")
    if a.repeats < 1:
        raise ModelError(f"--repeats: must be at least 1, got {a.repeats}")
    if a.duration is not None and abs(a.duration / 1e-3 - round(a.duration / 1e-3)) > 1e-6:
        raise ModelError(f"--duration: {a.duration} s is not a multiple of the 1 ms step")
    from .bench import DURATION_S, parse_integrator
    duration = DURATION_S if a.duration is None else a.duration
    for entry in a.integrators:
        dt = parse_integrator(entry)[1]
        if abs(duration / dt - round(duration / dt)) > 1e-6 or duration < dt:
            raise ModelError(f"--integrators: {entry}: the duration {duration:g} s is not a multiple of its step "
                             f"{dt * 1e3:g} ms")
    if a.baseline is not None:
        from .bench_baseline import run_baseline
        if native is not None or a.native_export:
            raise ModelError("--baseline: compares the kernels and the Python FMU; time --native-fmu and "
                             "--native-export in a run without it")
        specs = [parse_integrator(entry) for entry in a.integrators if entry != "reference"]
        if not specs:
            raise ModelError("--baseline: give at least one fixed-step method in --integrators (the adaptive "
                             "reference is not compared)")
        run_baseline(a.baseline, vehicles, specs, Path(a.out), repeats=a.repeats, duration=duration,
                     passes=a.passes, fmu=fmu,
                     cold_compile=cold if a.cold_compile_vehicles and not a.no_cold_compile else ())
        print(f"wrote {a.out}")
        return 0
    run_bench(vehicles, Path(a.out), uncompiled=not a.no_uncompiled, fmu=fmu, repeats=a.repeats,
              duration=a.duration, integrators=a.integrators, cold_compile=not a.no_cold_compile,
              stability=not a.no_stability, fmu_baseline=not a.no_fmu_baseline, passes=a.passes,
              native_fmu=native, cold_compile_vehicles=cold, native_export=a.native_export or ())
    print(f"wrote {a.out}")
    return 0


def _fmu_file(path) -> Path:
    """An FMU file that can be checked: a zip archive with a modelDescription.xml and the requirements.txt
    this package's FMUs ship (``fmi.build.shipped_requirements``)."""
    import zipfile
    p = Path(path)
    if not p.is_file():
        raise ModelError(f"FMU: no such file {p}")
    try:
        with zipfile.ZipFile(p) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError) as e:
        raise ModelError(f"FMU: {p} is not an FMU (not a zip archive: {e})") from None
    for member in ("modelDescription.xml", "resources/requirements.txt"):
        if member not in names:
            raise ModelError(f"FMU: {p} is not an FMU of this package (it has no {member})")
    return p


def cmd_export(a) -> int:
    from .native.fmu import NATIVE_FMUS, export
    if not a.native:
        raise ModelError("export: only native FMUs are exported by this command (--native); the Python FMUs are "
                         "built with python build_scripts/build_fmus.py")
    settings = {}
    for item in a.set or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ModelError(f"--set {item!r}: expected NAME=VALUE, e.g. --set v0=15")
        settings[name.strip()] = value.strip()
    for fmu in a.fmus or NATIVE_FMUS:
        path = export(fmu, a.out, settings=settings, targets=tuple(a.platform), log=print)
        print(f"{path} written")
    return 0


def cmd_doctor(a) -> int:
    """Check that a host machine can run FMUs: what a host needs, then each FMU in the C host and in FMPy."""
    import importlib.metadata
    import tempfile
    from .fmi.build import shipped_requirements
    from .fmi.hosts import build_host, check_fmu, libpython
    fmus = [_fmu_file(fmu) for fmu in a.fmus]
    print(f"Python {sys.version.split()[0]} at {sys.executable}")
    print(f"shared libpython for non-Python hosts: {libpython()} (LD_PRELOAD it in such hosts on Linux)")
    ok = True
    with tempfile.TemporaryDirectory(prefix="fmu_vehicle_host_") as work:
        host = build_host(Path(work) / "fmi2_host")
        for fmu in fmus:
            for name, req in shipped_requirements(fmu).items():
                try:
                    found = importlib.metadata.version(name)
                except importlib.metadata.PackageNotFoundError:
                    found = None
                ok &= found is not None
                print(f"{fmu.name}: requires {req}: " + (f"installed {found}" if found else "MISSING (pip install it)"))
            report = check_fmu(fmu, runs=a.runs, host=host, n_steps=a.steps)
            for line in report.lines():
                print(line)
            ok &= report.ok
    return 0 if ok else 1


def build_parser() -> argparse.ArgumentParser:
    from .integrators import INTEGRATORS, STEPPING_INTEGRATORS
    p = OneLineParser(prog="fmu-vehicle", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("simulate", help="simulate a vehicle on a road with constant wheel torques")
    s.add_argument("--vehicle", default="halfcar7", help="vehicle name (see `fmu-vehicle info`) or .json file")
    s.add_argument("--road", default="flat", help="road name (flat, bumpy, slope16_5, ...), .json or .csv file")
    s.add_argument("--drive-torque", action="append", metavar="WHEEL=N_M", help="drive torque [N m], e.g. front=300")
    s.add_argument("--brake-torque", action="append", metavar="WHEEL=N_M", help="brake torque [N m], e.g. rear=500")
    s.add_argument("--v0", type=_finite, default=0.0, help="initial speed [m/s] (default 0)")
    s.add_argument("--x0", type=_finite, default=0.0, help="initial position along the road [m] (default 0)")
    s.add_argument("--duration", type=_positive, default=5.0, help="simulated time [s] (default 5)")
    s.add_argument("--dt", type=_positive, default=1e-3, help="integration step [s] (default 0.001)")
    s.add_argument("--integrator", choices=tuple(INTEGRATORS), default="rk4",
                   help="integration method (default rk4; reference: adaptive DOP853, --dt is then the output spacing)")
    s.add_argument("--record-every", type=_count, default=1, help="record every N-th step (default 1)")
    s.add_argument("--output", "-o", default="simulation.csv", help="output CSV (default simulation.csv)")
    s.add_argument("--plot", help="also write a plot of the chassis states (half car: x, vx, z, vz, pitch, pitch "
                                  "rate; full car: x, vx, y, vy, yaw, yaw rate, ay, steering-wheel angle, roll, "
                                  "pitch; format from the suffix, e.g. .png)")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    s.add_argument("--steer", metavar="T:DEG,...", help="steering-wheel angle profile of a full vehicle: "
                   "time [s]:angle [deg] pairs, linear between them, held after the last, + = left "
                   "(e.g. 0:0,0.5:0,0.7:40,6:40)")
    s.set_defaults(func=cmd_simulate)
    mn = sub.add_parser("manoeuvre", help="handling manoeuvre of a full vehicle with a plot: ISO 7401 step steer, "
                        "ISO 4138 (ISO 14792 for a combination) constant radius, ISO 3888-1 double lane change, suspension kinematics; of a "
                        "combination: ISO 9815 steering impulse over speeds, ISO 14791 single sine, braking in a "
                        "turn, low-speed offtracking")
    mn.add_argument("name", choices=("step-steer", "constant-radius", "double-lane-change", "kinematics")
                    + COMBINATION_MANOEUVRES)
    mn.add_argument("--vehicle", default="fullcar14", help="full vehicle name or .json file (default fullcar14; "
                    "steering-impulse, single-sine, braking-in-turn and offtracking need a combination, e.g. sedan_caravan "
                    "or tractor_semitrailer)")
    mn.add_argument("--speed-kmh", type=_positive, help="speed [km/h] (step steer 80, lane change 60, single sine "
                    "80, braking in a turn 80, offtracking 10.8)")
    mn.add_argument("--ay", type=_positive, help="lateral acceleration [m/s^2] (step steer: the steady-state "
                    "target, 4, reached by adjusting the steering amplitude; constant radius: the end, 6; single "
                    "sine: the steady-state a_y of its amplitude, 2; braking in a turn: the turn's, 3)")
    mn.add_argument("--unit", help="articulated manoeuvres: the towed unit analysed (default the last one)")
    mn.add_argument("--speeds-kmh", type=_positive, nargs="+", metavar="KMH", help="steering impulse: the "
                    "speeds [km/h], increasing (default 60 80 100 120 140 160)")
    mn.add_argument("--trailer-brake", type=_finite, nargs="+", metavar="FACTOR", help="braking in a turn: the "
                    "towed units' brake torque as a fraction of their share, one run each (default 1 0.1)")
    mn.add_argument("--decel", type=_positive, default=4.0, help="braking in a turn: the deceleration the brake "
                    "torques are sized for [m/s^2] (default 4)")
    mn.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    mn.add_argument("--radius", type=_positive, help="constant-radius circle [m] (default 100); offtracking: the "
                    "steered axle's circle (default 12.5)")
    mn.add_argument("--corner", help="kinematics: the corner (default the first)")
    mn.add_argument("--out", default="dist/manoeuvres", help="output folder (default dist/manoeuvres)")
    mn.set_defaults(func=cmd_manoeuvre)

    r = sub.add_parser("reproduce-paper", help="both manoeuvres of Dai et al. 2022 vs Tables 2 and 4, with plots")
    r.add_argument("--variants", nargs="+", default=["halfcar7", "halfcar7_forkarm"], metavar="VEHICLE",
                   help="vehicles whose model the paper reports (vehicle files with a 'paper_model' the "
                        "paper's tables cover); default: the two half cars")
    r.add_argument("--out", default="dist/paper", help="folder for the plots (default dist/paper)")
    r.add_argument("--quiet", "-q", action="store_true")
    r.set_defaults(func=cmd_reproduce)
    d = sub.add_parser("demo", help="the main demonstration run with a summary and a plot")
    d.add_argument("--out", default="dist/demo", help="output folder (default dist/demo)")
    d.add_argument("--quiet", "-q", action="store_true")
    d.set_defaults(func=cmd_demo)
    w = sub.add_parser("sweep", help="run a scenario catalogue (resources/scenarios) on dask.distributed, "
                                     "KPIs per run into a CSV, a summary plot")
    w.add_argument("catalogue", help="catalogue name (euroncap-ccrs, ...) or .json file")
    where = w.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_count, help="local worker processes (default: one per core, at most "
                                                      "one per run)")
    where.add_argument("--scheduler", metavar="ADDRESS", help="use the dask scheduler at ADDRESS "
                                                              "(e.g. tcp://host:8786) instead of local workers")
    w.add_argument("--output", "-o", default="results.csv", help="results CSV (default results.csv); the plot "
                                                                 "goes next to it as .png")
    w.add_argument("--fmu-dir", help="folder of the FMUs (default dist/fmus, built if missing or stale)")
    w.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    w.set_defaults(func=cmd_sweep)
    x = sub.add_parser("ssp", help="write each shipped scenario system (resources/scenarios/*.ssd) as a "
                                   "self-contained .ssp archive with its FMUs inside")
    x.add_argument("names", nargs="*", metavar="NAME", help="systems to write, by file stem (default: every "
                                                             "shipped system)")
    x.add_argument("--out", default="dist/ssp", help="output folder (default dist/ssp)")
    x.add_argument("--fmu-dir", help="folder of the FMUs (default dist/fmus, built if missing or stale)")
    x.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    x.set_defaults(func=cmd_ssp)
    b = sub.add_parser("bench", help="speed: 20 s of the bumpy road per vehicle, vs the paper's C++ and uncompiled")
    b.add_argument("--vehicles", nargs="+", metavar="VEHICLE",
                   help="vehicle names (default: every vehicle file in resources/vehicles)")
    b.add_argument("--out", default="dist/bench.json", help="JSON report (default dist/bench.json)")
    b.add_argument("--integrators", nargs="+", type=_bench_integrator, default=["rk4", "reference"],
                   metavar="NAME[@STEPms]",
                   help=f"fixed-step methods ({', '.join(STEPPING_INTEGRATORS)}; 1 ms or the step given as e.g. "
                        "abm4@4ms; best of --repeats) and/or reference (adaptive DOP853, timed once); default rk4 "
                        "reference")
    b.add_argument("--no-stability", action="store_true",
                   help="skip the largest stable step of each fixed-step method (a ladder of steps on 2 s of the "
                        "bumpy road, about a second per method)")
    b.add_argument("--repeats", type=_count, default=3, help="best of N runs (default 3)")
    b.add_argument("--duration", type=_positive,
                   help="simulated time of each timed run [s] (default 20, the paper's; a multiple of 1 ms)")
    b.add_argument("--no-uncompiled", action="store_true", help="skip the (slow) uncompiled comparison")
    b.add_argument("--no-cold-compile", action="store_true",
                   help="skip the cold compile times (a fresh process with an empty kernel cache per vehicle of "
                        "--cold-compile-vehicles, minutes)")
    b.add_argument("--cold-compile-vehicles", nargs="+", metavar="VEHICLE", default=None,
                   help="the vehicles whose cold compile is timed (default halfcar7 fullcar14 tractor_semitrailer); "
                        "with --baseline, the cold compiles are compared with REF's instead of the run times")
    b.add_argument("--fmu", help="also time this vehicle FMU through FMPy (e.g. dist/fmus/VehicleLV.fmu)")
    b.add_argument("--no-fmu-baseline", action="store_true",
                   help="with --fmu, skip the bare pythonfmu FMU with the same inputs/outputs (built into a temporary "
                        "folder, a second or two) that splits the FMU's cost per step into FMPy+pythonfmu and ours")
    b.add_argument("--passes", action="store_true",
                   help="also time each vehicle's derivative evaluation pass by pass (3 s into the bumpy road; the "
                        "first run compiles a timing loop, about a minute): ns per call, ratio to the first vehicle")
    b.add_argument("--native-fmu", metavar="FMU", help="also time this native FMU (fmu-vehicle export --native) "
                   "through FMPy and in the C host, with its first step in a fresh process")
    b.add_argument("--native-export", nargs="+", metavar="FMU", default=None,
                   help="also time `fmu-vehicle export --native` of these FMUs (linux64, e.g. VehicleLV Vehicle) in "
                        "a fresh process with empty kernel caches, then again with the caches it left (minutes; "
                        "needs cc)")
    b.add_argument("--baseline", metavar="REF",
                   help="instead, time the working tree against commit REF of this git checkout in one sitting: "
                        "each vehicle and fixed-step method of --integrators in fresh processes, the two "
                        "alternating, each with its own kernel cache (REF's compiled on its first use, minutes); "
                        "reports each side's best of --repeats and the ratio working tree / REF (with --passes "
                        "also pass by pass; with --fmu also that FMU against REF's own build of it, through FMPy)")
    b.set_defaults(func=cmd_bench)
    e = sub.add_parser("export", help="build native vehicle FMUs: the compiled model and an FMI layer in C, no "
                       "Python on the host (linux64, and win64 with mingw); every parameter but dt fixed at export")
    e.add_argument("fmus", nargs="*", metavar="FMU",
                   help="VehicleLV, Vehicle, VehicleCombination and/or TractorSemitrailer (default all four)")
    e.add_argument("--native", action="store_true", help="build the native FMUs (required: the only kind this "
                   "command builds)")
    e.add_argument("--set", action="append", metavar="NAME=VALUE", help="a parameter's value, fixed in the FMU "
                   "(e.g. --set v0=15 --set road=flat); repeatable")
    e.add_argument("--out", default="dist/native", help="output folder (default dist/native)")
    e.add_argument("--platform", nargs="+", choices=("linux64", "win64"), default=["linux64", "win64"],
                   help="platforms (default both; win64 needs x86_64-w64-mingw32-gcc, left out with a message "
                        "where it is missing)")
    e.set_defaults(func=cmd_export)
    c = sub.add_parser("doctor", help="check that FMUs run on this machine: in a C host (as Simulink, Dymola or "
                       "OMSimulator load them) and in FMPy; exit code 1 if a problem was found")
    c.add_argument("fmus", nargs="+", metavar="FMU", help="FMU files (e.g. dist/fmus/*.fmu)")
    c.add_argument("--runs", type=_count, default=3, help="C host runs per FMU (default 3); each must exit 0")
    c.add_argument("--steps", type=_count, default=1000, help="1 ms steps per run (default 1000)")
    c.set_defaults(func=cmd_doctor)
    x = sub.add_parser("crosscheck", help="FMI Cross-Check results of every FMU: the FMU, input and reference "
                       "CSVs, options and a ReadMe under fmus/2.0/cs/linux64/fmu_vehicle/<version>/<Model>/")
    x.add_argument("--out", default="dist/crosscheck", help="output folder (default dist/crosscheck)")
    x.add_argument("--fmu-dir", default=None, help="where the FMUs are built or reused (default dist/fmus)")
    x.add_argument("--quiet", action="store_true", help="no progress output")
    x.set_defaults(func=cmd_crosscheck)
    i = sub.add_parser("info", help="list the shipped vehicles and roads")
    i.set_defaults(func=cmd_info)
    return p


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split())


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] in (["demo"], ["crosscheck"]):
            # before anything defines a compiled function (the parser imports the integrators): the FMUs these
            # commands run in this process then load the kernels they ship instead of compiling them for this
            # CPU (docs/fmu_hosts.md)
            from .numerics.jit import pin_portable_cpu
            pin_portable_cpu()
        a = build_parser().parse_args(argv)     # the parser imports numba and scipy: an interrupt lands here too
        return a.func(a)
    except FmuVehicleError as e:
        print(f"fmu-vehicle: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except OSError as e:       # e.g. an output that cannot be written after all (disk full, permissions)
        print(f"fmu-vehicle: error: {e.filename or 'file system'}: {_one_line(e.strerror or e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fmu-vehicle: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
