"""``fmu-vehicle linearize``: the linear model of a full vehicle at a steady state (straight run or steady turn)
with its modes beside the single-track model's, checked against the nonlinear step response
(:mod:`fmu_vehicle.manoeuvres.linear_report`): .npz, .mat, a pole map and a summary into a folder, all of them
or none."""
from __future__ import annotations

import sys

from ..errors import ModelError
from ..util import atomic_write_all, fixed
from .arguments import finite, output_dir, positive
from .manoeuvre import plain
from .progress import compile_progress


def add_parser(subparsers):
    p = subparsers.add_parser(
        "linearize", help="linear model (A, B, C, D as .npz and .mat) of a full vehicle at a steady state on a flat "
        "road, its modes (eigenvalues, damping, frequencies) beside the single-track model's, a pole map, and the "
        "check against the nonlinear response to a steering step")
    p.add_argument("--vehicle", default="fullcar14", help="full vehicle name or .json file (default fullcar14)")
    p.add_argument("--speed-kmh", type=positive, default=80.0, help="speed [km/h] (default 80)")
    p.add_argument("--ay-g", type=finite, default=0.0, help="lateral acceleration of the steady turn [g], + left "
                   "(default 0: the straight run)")
    p.add_argument("--step-deg", type=positive, default=0.5, help="steering-wheel step of the check [deg] "
                   "(default 0.5)")
    p.add_argument("--no-check", action="store_true", help="no check against the nonlinear step response")
    p.add_argument("--out", default="dist/linearize", help="output folder (default dist/linearize)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress messages")
    return p


def run(a) -> int:
    import json
    from pathlib import Path

    from ..manoeuvres.linear_report import linear_report, report_files, report_stem, summary
    from ..manoeuvres.linearization import NoSteadyState
    from ..manoeuvres.single_track import G
    from ..vehicle import Vehicle
    out = output_dir(a.out, "--out")
    car = Vehicle.load(a.vehicle)
    if car.spec.steering is None or car.spec.units:
        raise ModelError(f"--vehicle: '{car.name}' is not a single full vehicle with steering (e.g. fullcar14)")

    def progress(text):
        if not a.quiet:
            print(f"fmu-vehicle: {text}", file=sys.stderr, flush=True)

    with compile_progress(quiet=a.quiet):
        try:
            report = linear_report(car, a.speed_kmh / 3.6, a.ay_g * G, step_deg=None if a.no_check else a.step_deg,
                                   progress=progress)
        except NoSteadyState as e:
            raise ModelError(f"--ay-g {a.ay_g:g} at --speed-kmh {a.speed_kmh:g}: {e}") from None
    stem = report_stem(car.name, a.speed_kmh, a.ay_g)
    files = [(out / name, write) for name, write in report_files(report, stem)]
    text = json.dumps(plain(summary(report)), indent=2)
    files.append((out / f"{stem}_summary.json", lambda path: Path(path).write_text(text)))
    atomic_write_all(files, mode=None)
    _print(report)
    print(f"-> {out / stem}.npz, .mat, .png, _summary.json")
    return 0


def _print(report) -> None:
    op, lin = report.op, report.linear
    print(f"{op.vehicle}: steady state at {op.speed_m_s * 3.6:g} km/h, a_y {fixed(op.ay_m_s2, 3)} m/s^2: "
          f"steering-wheel angle {fixed(op.steering_wheel_angle_rad, 5)} rad, drive torque "
          + ", ".join(f"{w} {fixed(t, 1)}" for w, t in op.drive_torque_N_m.items() if t) + " N m")
    print(f"{len(lin.state_names)} states, {len(lin.input_names)} inputs, {len(lin.output_names)} outputs; "
          f"difference of the Jacobians at two step sizes {lin.fd_check:.1e}")
    print(f"{'mode':32s} {'eigenvalue [1/s]':>22s} {'damping':>8s} {'f_n [Hz]':>9s}")
    rows = [(m.name, m) for m in report.modes] + [("single-track: " + m.name, m) for m in report.single_track_modes]
    for name, m in rows:
        lam = m.eigenvalue
        print(f"{name:32s} {fixed(lam.real, 3):>10s} ± {fixed(lam.imag, 3):>8s}j {fixed(m.damping_ratio, 3):>8s} "
              f"{fixed(m.natural_frequency_hz, 3):>9s}")
    if report.check is not None:
        err = report.check["error"]
        print("step check, largest difference linear vs nonlinear (% of the peak): "
              + ", ".join(f"{k} {100.0 * err[k]:.2g}" for k in ("chassis.yaw_rate", "chassis.ay", "chassis.sideslip",
                                                                 "chassis.roll")))
