"""``fmu-vehicle reproduce-paper``: both manoeuvres of Dai et al. 2022 against its Tables 2 and 4
(:mod:`fmu_vehicle.tools.paper`), one table per vehicle and a plot per manoeuvre; exit 1 if a final state is
outside its acceptance band."""
from __future__ import annotations

from ..errors import ModelError
from .arguments import output_dir


def add_parser(subparsers):
    r = subparsers.add_parser("reproduce-paper",
                              help="both manoeuvres of Dai et al. 2022 vs Tables 2 and 4, with plots")
    r.add_argument("--variants", nargs="+", default=["halfcar7", "halfcar7_forkarm"], metavar="VEHICLE",
                   help="vehicles whose model the paper reports (vehicle files with a 'paper_model' the "
                        "paper's tables cover); default: the two half cars")
    r.add_argument("--out", default="dist/paper", help="folder for the plots (default dist/paper)")
    r.add_argument("--quiet", "-q", action="store_true")
    return r


def run(a) -> int:
    from ..tools.paper import (MANEUVERS, VARIANTS, compare, format_table, paper_final_state, plot_maneuver,
                               road_axes_result, run_maneuver)
    from ..vehicle import Vehicle
    out = output_dir(a.out, "--out")
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
