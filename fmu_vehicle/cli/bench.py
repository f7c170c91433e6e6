"""``fmu-vehicle bench``: the speed of the compiled model on this machine (:mod:`fmu_vehicle.tools.bench`),
or with ``--baseline`` against another commit in one sitting (:mod:`fmu_vehicle.tools.bench_baseline`); the
options are checked before anything is timed."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import ModelError
from .arguments import count, output_file, positive


def _bench_integrator(text: str) -> str:
    """An ``--integrators`` entry of ``bench``: a method name, or name@STEPms (``tools.bench.parse_integrator``)."""
    from ..tools.bench import parse_integrator
    try:
        parse_integrator(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def add_parser(subparsers):
    from ..integrators import STEPPING_INTEGRATORS
    b = subparsers.add_parser("bench", help="speed: 20 s of the bumpy road per vehicle, vs the paper's C++ and "
                                            "uncompiled")
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
    b.add_argument("--repeats", type=count, default=3, help="best of N runs (default 3)")
    b.add_argument("--duration", type=positive,
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
    return b


def run(a) -> int:
    from ..tools.bench import COLD_COMPILE_VEHICLES, DURATION_S, parse_integrator, run_bench
    from ..vehicle import vehicle_names
    output_file(a.out, "--out")
    vehicles = a.vehicles or vehicle_names()
    unknown = [v for v in vehicles if v not in vehicle_names()]
    if unknown:
        raise ModelError(f"--vehicles: unknown vehicle '{unknown[0]}'; valid: {', '.join(vehicle_names())}")
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
        from ..native.fmu import NATIVE_FMUS
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
    duration = DURATION_S if a.duration is None else a.duration
    for entry in a.integrators:
        dt = parse_integrator(entry)[1]
        if abs(duration / dt - round(duration / dt)) > 1e-6 or duration < dt:
            raise ModelError(f"--integrators: {entry}: the duration {duration:g} s is not a multiple of its step "
                             f"{dt * 1e3:g} ms")
    if a.baseline is not None:
        from ..tools.bench_baseline import run_baseline
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
