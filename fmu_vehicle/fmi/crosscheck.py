"""FMI Cross-Check results for the package's FMUs: ``fmu-vehicle crosscheck`` (docs/fmu_hosts.md, "Cross-check").

The FMI Cross-Check rules (Modelica Association, FMI Cross-Check Rules 4.1, §9.1.4-9.1.5 and Appendix B) ask an
exporting tool for one folder per FMU::

    fmus/2.0/cs/linux64/fmu_vehicle/<version>/<Model>/
        <Model>.fmu        the FMU
        <Model>_in.csv     input signals (only for an FMU with inputs; every input of the modelDescription)
        <Model>_ref.csv    the reference result: at most 10 important outputs, from StartTime to StopTime
        <Model>_ref.opt    StartTime, StopTime, StepSize, RelTol (+ OutputIntervalLength)
        ReadMe.md          what the run shows and how it was made

CSV rules: comma separator, first line the variable names in double quotes (exactly as in the
modelDescription), time first and non-decreasing, numbers as C floating-point literals (Booleans 0/1), no
comments, at most 1 MB.  An importing tool runs the FMU from StartTime to StopTime with communication step
StepSize, feeding ``_in.csv`` linearly interpolated, and compares its result with ``_ref.csv``.

The reference results are this package's own run of the built FMU through FMPy (``fmpy.simulate_fmu``, the
FMU's default parameters, communication step = output interval = StepSize) with the inputs read back from
the ``_in.csv`` just written: an FMPy run of the folder reproduces ``_ref.csv`` exactly.  Each input signal
is piecewise linear (``CASES``): the CSV lists every breakpoint, so linear interpolation of the file gives
the signal.  The FMUs integrate with fixed internal steps, so RelTol is not used by them.

Every folder is checked with FMPy's validator of vendor repositories (``fmpy.cross_check.
validate_vendor_repo.validate_test_fmu``: file sizes, modelDescription against the schema, .opt and CSV
rules) before anything is written; the whole ``<version>`` folder is staged beside its destination and
renamed into place only when every FMU ran and passed, so a failed or interrupted run leaves the previous
results as they were.
"""
from __future__ import annotations

import math
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from fmu_vehicle.errors import FmuVehicleError

TOOL_NAME = "fmu_vehicle"
PLATFORM = "linux64"
LAYOUT = ("fmus", "2.0", "cs", PLATFORM, TOOL_NAME)
"""Folders above ``<version>/<Model>`` (FMI version, type, platform, tool name)."""
MAX_CSV_BYTES = 1_000_000
"""The rules' size limit of a CSV file [bytes]."""
MAX_REF_OUTPUTS = 10
"""The rules recommend at most 10 variables in a reference result."""
REL_TOL = 1e-4
"""RelTol written to ``_ref.opt`` (the rules' example value; the FMUs' fixed-step integrators do not use it)."""

Signals = dict[str, list[tuple[float, float]]]
"""Input name -> breakpoints (t [s], value) of a piecewise-linear signal, constant outside."""


@dataclass(frozen=True)
class Case:
    """One cross-check run: duration, communication step, the outputs kept and the moving inputs.

    signals(start) gets the FMU's input start values (name -> float) and returns the inputs that move
    (``Signals``); the other inputs stay at their start values.
    """

    model: str
    stop_time: float
    step_size: float
    outputs: tuple[str, ...]
    signals: Callable[[dict[str, float]], Signals]
    about: str


def _tire_signals(s: dict[str, float]) -> Signals:
    """The default wheel (rolling freely at the loaded radius) moves forward at its speed; from 0.5 s to 1 s
    its spin rises by 10 % (drive slip) and stays; the centre height is held, so the first bump of the default
    road (x = 20 m) compresses the tire."""
    vx, w0 = s["wheel.vx"], s["wheel.omega"]
    return {"wheel.x": [(0.0, s["wheel.x"]), (3.0, s["wheel.x"] + 3.0 * vx)],
            "wheel.omega": [(0.0, w0), (0.5, w0), (1.0, 1.1 * w0), (3.0, 1.1 * w0)]}


def _driver_signals(s: dict[str, float]) -> Signals:
    """A vehicle exactly on the default path (the ISO 3888-1 centre line for the default width) at the default
    speed, from 10 m before the first gate through the first lane change, sampled every 0.05 s."""
    from fmu_vehicle.fmi.driver_parameters import FULLCAR14
    from fmu_vehicle.manoeuvres.lane_change import lane_change_path

    path = lane_change_path(FULLCAR14["width_m"])
    v = s["target_speed"]
    t = np.linspace(0.0, 4.0, 81)
    x = -10.0 + v * t
    y = np.interp(x, path.x, path.y)
    yaw = np.interp(x, path.x, path.heading)
    return {"chassis.x": list(zip(t, x)), "chassis.y": list(zip(t, y)), "chassis.yaw": list(zip(t, yaw)),
            "chassis.vx": [(0.0, v)], "target_speed": [(0.0, v)]}


def _powertrain_signals(s: dict[str, float]) -> Signals:
    """The default throttle held while both driven wheels speed up from rest to 40 rad/s in 10 s (a launch):
    the engine runs up through the torque converter and the transmission shifts up."""
    ramp = [(0.0, 0.0), (10.0, 40.0)]
    return {"wheel_left.omega": ramp, "wheel_right.omega": ramp}


def _controller_signals(s: dict[str, float]) -> Signals:
    """Ego at the default speed (the set speed, 25 m/s) closing in on a lead at 15 m/s that is 120 m ahead
    (inside the sensor range): the ACC brakes, then the time to collision falls below aeb.ttc_on and the AEB
    engages."""
    v_ego, v_lead, gap0, t_end = s["ego.vx"], 15.0, 120.0, 11.0
    return {"ego.x": [(0.0, 0.0), (t_end, v_ego * t_end)], "ego.vx": [(0.0, v_ego)],
            "lead.x": [(0.0, gap0), (t_end, gap0 + v_lead * t_end)], "lead.vx": [(0.0, v_lead)]}


def _vehicle_lv_signals(s: dict[str, float]) -> Signals:
    """Rear drive torque ramped from 0 to 600 N m between 0.2 s and 0.4 s, on the default bumpy road from
    the default 20 m/s: the car accelerates, squats, and crosses the first bumps (x = 20 m, 35 m)."""
    return {"wheel_rear.torque_drive": [(0.0, 0.0), (0.2, 0.0), (0.4, 600.0)]}


def _vehicle_signals(s: dict[str, float]) -> Signals:
    """A steering-wheel step (ISO 7401 style) of 0.5 rad ramped in 0.2 s at 0.5 s, from the default 20 m/s on
    the default bumpy road: yaw rate and lateral acceleration build up and settle; the bumps at 20 m and
    35 m pass under the turning car."""
    return {"steering_wheel_angle": [(0.0, 0.0), (0.5, 0.0), (0.7, 0.5)]}


def _chassis_control_signals(s: dict[str, float]) -> Signals:
    """Braking from 20 m/s: the pedal pressed to 400 N between 0.5 s and 0.6 s and held; the car slows at
    8 m/s^2; the left front wheel overbrakes (its speed falls 40 % below the car's by 0.9 s), recovers by 1.3 s
    and overbrakes again, while the other wheels roll with the car."""
    from fmu_vehicle.fmi.chassis_parameters import FULLCAR14

    r = FULLCAR14["wheel_radius_front_m"]      # the default rolling radius
    t = [0.0, 0.5, 0.9, 1.3, 1.7, 2.1, 3.0]
    v = [20.0 - 8.0 * max(ti - 0.6, 0.0) for ti in t]
    fl = [vi / r * f for vi, f in zip(v, (1.0, 1.0, 0.6, 0.98, 0.6, 0.98, 0.98))]
    rolling = [(ti, vi / r) for ti, vi in zip(t, v)]
    return {"driver.pedal_force": [(0.0, 0.0), (0.5, 0.0), (0.6, 400.0)], "chassis.vx": list(zip(t, v)),
            "wheel_FL.omega": list(zip(t, fl)), "wheel_FR.omega": rolling,
            "wheel_RL.omega": rolling, "wheel_RR.omega": rolling}


CASES: dict[str, Case] = {case.model: case for case in (
    Case("Powertrain", 10.0, 0.01, ("wheel_left.torque_drive", "wheel_right.torque_drive", "engine.speed",
                                    "engine.torque", "torque_converter.speed_ratio", "transmission.gear"),
         _powertrain_signals,
         "Launch at the default half throttle: both driven wheels speed up from rest to 40 rad/s in 10 s. The "
         "engine runs up from its stall speed through the torque converter (speed ratio 0 -> 1), the "
         "transmission shifts up (transmission.gear) and the drive torque falls with each gear."),
    Case("Controller", 11.0, 0.01, ("throttle", "brake", "accel_command", "gap", "ttc", "aeb_active", "held",
                                    "lead_detected"),
         _controller_signals,
         "Adaptive cruise control at its default set speed 25 m/s with a lead vehicle 120 m ahead at 15 m/s "
         "(the inputs are open loop: the ego keeps 25 m/s). The lead is detected at once; the ACC commands "
         "its deceleration limit (jerk limited); as the gap keeps closing the time to collision falls below "
         "aeb.ttc_on = 1.5 s and the emergency braking engages (brake = 1)."),
    Case("LeadVehicle", 15.0, 0.01, ("x", "vx", "ax"), lambda s: {},
         "The default speed profile '0:20,5:20,8:8,12:8' [s:m/s] from x0 = 50 m: 20 m/s for 5 s, braking at "
         "4 m/s2 to 8 m/s, then 8 m/s. No inputs."),
    Case("VehicleLV", 3.0, 0.01, ("chassis.x", "chassis.z", "chassis.pitch", "chassis.vx", "chassis.az",
                                  "wheel_front.tire_fz", "wheel_rear.tire_fz", "wheel_rear.tire_fx",
                                  "wheel_rear.omega", "wheel_front.travel"),
         _vehicle_lv_signals,
         "The half car from the default 20 m/s on the default bumpy road, rear drive torque ramped to 600 N m "
         "between 0.2 s and 0.4 s: it accelerates and squats (pitch), then crosses the speed bumps at x = 20 m "
         "and 35 m (tire loads and suspension travel)."),
    Case("Vehicle", 3.0, 0.01, ("chassis.x", "chassis.y", "chassis.yaw", "chassis.vx", "chassis.yaw_rate",
                                "chassis.ay", "chassis.roll", "chassis.sideslip", "wheel_FL.tire_fz",
                                "wheel_FL.tire_fy"),
         _vehicle_signals,
         "The full car from the default 20 m/s on the default bumpy road, a steering-wheel step of 0.5 rad "
         "ramped in 0.2 s at t = 0.5 s: yaw rate, lateral acceleration, roll and sideslip build up and "
         "settle into a steady turn; the bumps pass under the turning car."),
    Case("Tire", 3.0, 0.002, ("fx", "fz", "my", "slip", "slip_kinematic", "deflection", "loaded_radius",
                              "rolling_radius", "road.height_used"),
         _tire_signals,
         "The default wheel (planar interface): rolling freely at 10 m/s at its loaded radius under its "
         "nominal load (fz = FNOMIN), then driven: its spin rises by 10 % between 0.5 s and 1 s, the transient "
         "slip follows with its relaxation length and fx builds up. The centre height is held, so at x = 20 m "
         "(t = 2 s) the first bump of the default road compresses the tire (fz peak)."),
    Case("Driver", 4.0, 0.01, ("steering_wheel_angle", "wheel_torque", "throttle", "brake", "lateral_error",
                               "heading_error", "path_s"),
         _driver_signals,
         "The preview driver on its default path (ISO 3888-1 double lane change for the default vehicle width) "
         "at its default target speed 80 km/h, fed a vehicle that moves exactly along the path from 10 m "
         "before the first gate through the first lane change: the steering-wheel angle anticipates each "
         "bend (preview) with small lateral and heading errors, the wheel torque holds the speed."),
    Case("ChassisControl", 3.0, 0.001, ("brakes.master_cylinder_pressure", "brakes.pressure_FL", "brakes.pressure_FR",
                                        "brakes.pressure_RL", "wheel_FL.torque_brake", "ecu.mode_FL", "abs.phase_FL",
                                        "abs.slip_FL", "abs.active"),
         _chassis_control_signals,
         "The brakes with ABS (default parameters: the shipped full car), fed open-loop signals of a stop from "
         "20 m/s: the pedal goes to 400 N at 0.5 s (master-cylinder pressure through the booster), the wheel "
         "pressures follow with their lag and rate limit; when the left front wheel overbrakes (40 % slip) the "
         "ABS holds and releases its pressure, re-applies it in steps as the wheel recovers, and does so again "
         "for the second overbraking. Control unit sample period 10 ms."),
    Case("Robot", 3.0, 0.01, ("steering_wheel_angle", "pedal_force", "drive_torque"), lambda s: {},
         "The robot with its default tables: every table '0:0', so the steering wheel stays straight and the "
         "pedal and drive-torque demands at zero. No inputs."),
)}


def version_folder(out: str | os.PathLike, version: str | None = None) -> Path:
    """``out/fmus/2.0/cs/linux64/fmu_vehicle/<version>`` (version: the package's)."""
    from fmu_vehicle.fmi.version import package_version
    return Path(out).joinpath(*LAYOUT, version or package_version())


def _fmt(value) -> str:
    """A CSV number: the shortest literal that reads back as the same double (Booleans 0/1, integers as is)."""
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    x = float(value)
    if not math.isfinite(x):
        raise FmuVehicleError(f"value {x!r} cannot be written to a cross-check CSV (numbers must be finite)")
    return repr(x)


def csv_text(names: list[str], columns: list) -> str:
    """Cross-check CSV: quoted names (time first), one row per sample, comma-separated (module doc)."""
    lines = [",".join(f'"{name}"' for name in names)]
    for row in zip(*columns):
        lines.append(",".join(_fmt(v) for v in row))
    return "\n".join(lines) + "\n"


def input_table(case: Case, inputs: dict[str, float]) -> tuple[list[str], list[np.ndarray]]:
    """(names, columns) of ``_in.csv``: time, then every input (``inputs``: name -> start value, in
    modelDescription order), at the union of the signals' breakpoints and the start and stop times."""
    signals = case.signals(dict(inputs))
    unknown = sorted(set(signals) - set(inputs))
    if unknown:
        raise FmuVehicleError(f"{case.model}: cross-check signal for unknown input '{unknown[0]}'")
    times = sorted({0.0, case.stop_time, *(float(t) for points in signals.values() for t, _ in points)})
    t = np.array(times)
    columns = [t]
    for name, start in inputs.items():
        points = signals.get(name)
        if points is None:
            columns.append(np.full(t.size, float(start)))
        else:
            tp, vp = np.array([p[0] for p in points], float), np.array([p[1] for p in points], float)
            columns.append(np.interp(t, tp, vp))
    return ["time", *inputs], columns


def simulate(fmu: Path, case: Case, input_csv: Path | None):
    """The FMPy run of the module doc: the structured result array (time and ``case.outputs``)."""
    import fmpy
    from fmpy.util import read_csv

    signals = read_csv(str(input_csv)) if input_csv is not None else None
    return fmpy.simulate_fmu(str(fmu), start_time=0.0, stop_time=case.stop_time, step_size=case.step_size,
                             output_interval=case.step_size, input=signals, output=list(case.outputs))


def opt_text(case: Case) -> str:
    """``_ref.opt``: the rules' required elements (no comments: FMPy's reader takes 'name, number' lines)."""
    return (f"StartTime, 0.0\nStopTime, {case.stop_time!r}\nStepSize, {case.step_size!r}\n"
            f"RelTol, {REL_TOL!r}\nOutputIntervalLength, {case.step_size!r}\n")


def readme_text(case: Case, version: str, has_inputs: bool) -> str:
    files = f"`{case.model}_in.csv` (inputs), " if has_inputs else ""
    return (f"# {case.model}\n\n"
            f"FMI 2.0 Co-Simulation FMU exported by fmu_vehicle {version} (Python FMU: pythonfmu runtime; "
            f"needs Python 3 with the packages of `resources/requirements.txt`). No license check.\n\n"
            f"## What the run shows\n\n{case.about}\n\n"
            f"## How the reference was made\n\n"
            f"{files}`{case.model}_ref.csv` (reference) and `{case.model}_ref.opt`: FMPy `simulate_fmu` from "
            f"0 to {case.stop_time:g} s with a fixed communication step of {case.step_size:g} s (also the output "
            f"interval), all parameters at their start values"
            + (", the inputs interpolated linearly from the input file" if has_inputs else "") +
            ". The model integrates with fixed internal steps, so RelTol is not used. Written by "
            "`fmu-vehicle crosscheck`.\n")


def write_model(folder: Path, fmu: Path, case: Case, version: str) -> None:
    """One model folder (module doc) in ``folder`` (created), checked against the CSV size limit."""
    from fmpy import read_model_description

    folder.mkdir(parents=True)
    shutil.copyfile(fmu, folder / f"{case.model}.fmu")
    md = read_model_description(str(fmu))
    variables = {v.name: v for v in md.modelVariables}
    missing = [name for name in case.outputs if variables.get(name) is None or variables[name].causality != "output"]
    if missing:
        raise FmuVehicleError(f"{case.model}: cross-check output '{missing[0]}' is not an output of {fmu}")
    inputs = {v.name: float(v.start) for v in md.modelVariables if v.causality == "input"}
    input_csv = None
    if inputs:
        input_csv = folder / f"{case.model}_in.csv"
        input_csv.write_text(csv_text(*input_table(case, inputs)))
    result = simulate(folder / f"{case.model}.fmu", case, input_csv)
    names = ["time", *case.outputs]
    (folder / f"{case.model}_ref.csv").write_text(csv_text(names, [result[n] for n in names]))
    (folder / f"{case.model}_ref.opt").write_text(opt_text(case))
    (folder / "ReadMe.md").write_text(readme_text(case, version, bool(inputs)))
    for path in folder.glob("*.csv"):
        if path.stat().st_size > MAX_CSV_BYTES:
            raise FmuVehicleError(f"{path.name}: {path.stat().st_size} bytes, over the rules' 1 MB limit")


def validate_model(folder: Path) -> list[str]:
    """Problems FMPy's validator of cross-check vendor repositories finds in a model folder ([] if none)."""
    from fmpy.cross_check.validate_vendor_repo import validate_test_fmu
    return list(validate_test_fmu(str(folder)))


def write_crosscheck(out: str | os.PathLike, fmus: dict[str, Path], log: Callable[[str], None] = print,
                     version: str | None = None) -> Path:
    """Write the cross-check folders of ``fmus`` (registry name -> built FMU) under ``out``; the ``<version>``
    folder written (module doc: staged, validated, then renamed into place)."""
    from fmu_vehicle.fmi.version import package_version

    version = version or package_version()
    final = version_folder(out, version)
    unknown = sorted(set(fmus) - set(CASES))
    if unknown:
        raise FmuVehicleError(f"no cross-check case for FMU '{unknown[0]}' (cases: {', '.join(CASES)})")
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".crosscheck-", dir=final.parent) as staging:
        # the staged folder has the full layout: the validator reads FMI version, type and platform from it
        staged = version_folder(staging, version)
        for k, (name, fmu) in enumerate(fmus.items(), 1):
            case = CASES[name]
            t0 = time.perf_counter()
            log(f"[{k}/{len(fmus)}] {name}: {case.stop_time:g} s at {case.step_size * 1e3:g} ms ...")
            try:
                write_model(staged / name, Path(fmu), case, version)
            except FmuVehicleError:
                raise
            except Exception as exc:        # FMPy's or the FMU's: one line naming the FMU
                raise FmuVehicleError(f"{name}: {fmu}: {type(exc).__name__}: {exc}") from exc
            problems = validate_model(staged / name)
            if problems:
                raise FmuVehicleError(f"{name}: the cross-check validator found: {problems[0]}")
            log(f"[{k}/{len(fmus)}] {name}: done in {time.perf_counter() - t0:.1f} s")
        old = Path(staging) / "previous"
        if final.exists():
            os.replace(final, old)
        try:
            os.replace(staged, final)
        except BaseException:
            if old.exists():
                os.replace(old, final)          # the previous results stay
            raise
    return final
