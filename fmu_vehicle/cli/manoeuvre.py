"""``fmu-vehicle manoeuvre``: a handling manoeuvre of a full vehicle (the registry
:mod:`fmu_vehicle.manoeuvres.registry`): its plot, its run as CSV and a summary (``<name>_summary.json``)
into a folder, all of them or none."""
from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

from ..manoeuvres.registry import MANOEUVRES, ManoeuvreOptions
from ..util import atomic_write_all
from .arguments import finite, output_dir, positive
from .progress import compile_progress


def add_parser(subparsers):
    mn = subparsers.add_parser(
        "manoeuvre", help="handling manoeuvre of a full vehicle with a plot: ISO 7401 step steer, "
        "ISO 4138 (ISO 14792 for a combination) constant radius, ISO 3888-1 double lane change, suspension kinematics; of a "
        "combination: ISO 9815 steering impulse over speeds, ISO 14791 single sine, braking in a "
        "turn, low-speed offtracking")
    mn.add_argument("name", choices=tuple(MANOEUVRES))
    mn.add_argument("--vehicle", default="fullcar14", help="full vehicle name or .json file (default fullcar14; "
                    "steering-impulse, single-sine, braking-in-turn and offtracking need a combination, e.g. sedan_caravan "
                    "or tractor_semitrailer)")
    mn.add_argument("--speed-kmh", type=positive, help="speed [km/h] (step steer 80, lane change 60, single sine "
                    "80, braking in a turn 80, offtracking 10.8)")
    mn.add_argument("--ay", type=positive, help="lateral acceleration [m/s^2] (step steer: the steady-state "
                    "target, 4, reached by adjusting the steering amplitude; constant radius: the end, 6; single "
                    "sine: the steady-state a_y of its amplitude, 2; braking in a turn: the turn's, 3)")
    mn.add_argument("--unit", help="articulated manoeuvres: the towed unit analysed (default the last one)")
    mn.add_argument("--speeds-kmh", type=positive, nargs="+", metavar="KMH", help="steering impulse: the "
                    "speeds [km/h], increasing (default 60 80 100 120 140 160)")
    mn.add_argument("--trailer-brake", type=finite, nargs="+", metavar="FACTOR", help="braking in a turn: the "
                    "towed units' brake torque as a fraction of their share, one run each (default 1 0.1)")
    mn.add_argument("--decel", type=positive, default=4.0, help="braking in a turn: the deceleration the brake "
                    "torques are sized for [m/s^2] (default 4)")
    mn.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    mn.add_argument("--radius", type=positive, help="constant-radius circle [m] (default 100); offtracking: the "
                    "steered axle's circle (default 12.5)")
    mn.add_argument("--corner", help="kinematics: the corner (default the first)")
    mn.add_argument("--out", default="dist/manoeuvres", help="output folder (default dist/manoeuvres)")
    return mn


def run(a) -> int:
    from ..manoeuvres.runs import require_steering
    from ..vehicle import Vehicle
    out = output_dir(a.out, "--out")
    car = Vehicle.load(a.vehicle)
    require_steering(car)
    options = ManoeuvreOptions(**{f.name: getattr(a, f.name) for f in fields(ManoeuvreOptions)})
    with compile_progress(quiet=a.quiet):
        return _manoeuvre(a.name, car, options, out)


def _manoeuvre(name: str, car, options: ManoeuvreOptions, out: Path) -> int:
    """Run the manoeuvre ``name`` and write its files into ``out``; one line of summary on stdout."""
    import json
    stem = name.replace('-', '_')
    outcome = MANOEUVRES[name].run(car, options)
    for warning in outcome.warnings:
        print(f"fmu-vehicle: warning: {warning}", file=sys.stderr)
    files = [(out / file, write) for file, write in outcome.files]
    res = outcome.result
    if res is not None:
        files.append((out / f"{stem}.csv", lambda tmp: res.to_csv(tmp, units="header")))
    summary = plain({"manoeuvre": name, "vehicle": car.name, **outcome.summary})
    # one summary per manoeuvre (<name>_summary.json): runs of different manoeuvres into one folder keep theirs
    files.append((out / f"{stem}_summary.json", lambda tmp: Path(tmp).write_text(json.dumps(summary, indent=2))))
    atomic_write_all(files, mode=None)
    print(f"{car.name}: {name}: " + json.dumps({k: v for k, v in summary.items() if k not in ("manoeuvre", "vehicle")})
          + f" -> {out}")
    return 0


def plain(v):
    """``v`` (nested dicts, lists, NumPy values) as plain JSON values, with -0.0 written as 0.0 (a quantity that
    is zero has no sign)."""
    import numpy as np
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [plain(x) for x in (v.tolist() if isinstance(v, np.ndarray) else v)]
    if isinstance(v, (np.floating, np.integer, np.bool_)):
        v = v.item()
    if isinstance(v, float):
        return 0.0 if v == 0.0 else v
    if v is None or isinstance(v, (bool, int, str)):
        return v
    return str(v)
