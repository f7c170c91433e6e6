"""The bench's child processes: each timing that needs a fresh interpreter runs one function of this file
there, ``python -c <this file's text> NAME ARGS...`` (``tools.bench.child_command``), which prints the
function's result as one JSON line (its last stdout line).

The file's text is run, not the module (``python -m``): nothing of the package is imported before a timing
starts (the cold compile and an FMU's start-up time the package import), and a checkout of another commit
(``bench --baseline``, on its own ``PYTHONPATH``) runs these functions against its own package, also a commit
from before this file existed (:func:`_bench` finds its ``bench`` module where that commit has it). Only the
standard library is imported at the top.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
import time

SKIP_EXIT = "--skip-exit"
"""A last argument that ends the child with ``os._exit(0)`` once it printed its result: a bare pythonfmu FMU
may abort the interpreter's exit (docs/fmu_hosts.md)."""


def _bench():
    """The ``bench`` module of the package on the path: ``fmu_vehicle.tools.bench``, or ``fmu_vehicle.bench`` in
    a commit from before the tools package (imported by name: a module of another commit, not of this tree)."""
    try:
        from fmu_vehicle.tools import bench
    except ImportError:
        bench = importlib.import_module("fmu_vehicle.bench")
    return bench


def uncompiled(name: str, duration: str) -> dict:
    """Seconds of ``duration`` s of RK4 at 1 ms of vehicle ``name`` on the bumpy road from 20 m/s (run with
    NUMBA_DISABLE_JIT=1 by ``bench.time_uncompiled``)."""
    from fmu_vehicle.vehicle import Vehicle
    car = Vehicle.load(name)
    system = car.system("bumpy")
    y = car.initial_state(system, 20.0)
    from fmu_vehicle.integrators import integrate
    t0 = time.perf_counter()
    integrate(system, y, float(duration), 1e-3)
    return {"seconds": time.perf_counter() - t0}


def cold_compile(name: str) -> dict:
    """Seconds of the package import, loading vehicle ``name`` and 10 ms of RK4 at 1 ms on the bumpy road, and
    the costliest functions' own compile times [s] (``bench.time_cold_compile`` runs it with an empty
    kernel cache)."""
    t0 = time.perf_counter()
    from fmu_vehicle.tools.bench import compile_events
    with compile_events() as events:
        from fmu_vehicle.integrators import integrate
        from fmu_vehicle.vehicle import Vehicle
        car = Vehicle.load(name)
        system = car.system("bumpy")
        integrate(system, car.initial_state(system, 20.0), 0.01, 1e-3)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "functions": events.exclusive()}


def native_export(*fmus: str) -> dict:
    """Seconds of ``fmu-vehicle export --native`` of ``fmus`` (linux64) into a temporary folder, the package
    import included."""
    t0 = time.perf_counter()
    from fmu_vehicle.native.fmu import export
    with tempfile.TemporaryDirectory() as out:
        for name in fmus:
            export(name, out, targets=("linux64",))
    return {"seconds": time.perf_counter() - t0}


def fmu_startup(fmu: str, start: str) -> dict:
    """Seconds of a 1 ms run of ``fmu`` through ``fmpy.simulate_fmu`` (start values ``start``, JSON), its
    extraction, instantiation and the package import included."""
    from fmpy import simulate_fmu
    t0 = time.perf_counter()
    simulate_fmu(fmu, stop_time=1e-3, output_interval=1e-3, start_values=json.loads(start))
    return {"seconds": time.perf_counter() - t0}


def fmu_run(fmu: str, start: str, duration: str, repeats: str) -> dict:
    """A vehicle FMU through ``fmpy.simulate_fmu`` (start values ``start``, JSON): a warm-up, the fixed cost of a
    1 ms run (best of 3), then the best of ``repeats`` runs of ``duration`` s: {"seconds", "fixed_seconds"}.
    Also the FMU timing of ``bench --baseline`` (it imports nothing of the package)."""
    from fmpy import simulate_fmu
    start_values = json.loads(start)
    simulate_fmu(fmu, stop_time=0.01, output_interval=1e-3, start_values=start_values)      # warm-up
    fixed = float("inf")
    for _ in range(3):          # the fixed cost of a run: extraction, instantiation, initialization, one step
        t0 = time.perf_counter()
        simulate_fmu(fmu, stop_time=1e-3, output_interval=1e-3, start_values=start_values)
        fixed = min(fixed, time.perf_counter() - t0)
    best = float("inf")
    for _ in range(int(repeats)):      # best of N, as the direct runs it is compared with
        t0 = time.perf_counter()
        simulate_fmu(fmu, stop_time=float(duration), output_interval=1e-3, start_values=start_values)
        best = min(best, time.perf_counter() - t0)
    return {"seconds": best, "fixed_seconds": fixed}


def build_fmu(script: str, dest: str) -> str:
    """pythonfmu's build of the slave ``script`` into the folder ``dest``: the FMU's path."""
    from pythonfmu import FmuBuilder
    return str(FmuBuilder.build_FMU(script, dest=dest))


def time_vehicle(name: str, integrator: str, dt: str, duration: str) -> dict:
    """One warm-up and one timed run of ``bench.time_vehicle`` (``bench --baseline``, each side its own)."""
    r = _bench().time_vehicle(name, duration=float(duration), dt=float(dt), repeats=1, integrator=integrator)
    return {k: r[k] for k in ("wall_s", "us_per_evaluation", "evaluations", "coordinates")}


def time_cold_compile(name: str) -> dict:
    """``bench.time_cold_compile`` of vehicle ``name`` (``bench --baseline``)."""
    return _bench().time_cold_compile(name)


def time_passes(name: str):
    """``bench.time_passes`` of vehicle ``name``, None where that commit's bench has none (``bench --baseline``)."""
    bench = _bench()
    return bench.time_passes(name) if hasattr(bench, "time_passes") else None


def ensure_fmu(name: str, folder: str) -> str:
    """The path of the registered FMU ``name`` built into ``folder`` if missing or stale (``bench --baseline``:
    the baseline's own build; the build cache is ``fmi.build_cache``, ``cosim.build_cache`` in older commits)."""
    try:
        from fmu_vehicle.fmi.build_cache import ensure_fmus
    except ImportError:                 # imported by name: a module of another commit, not of this tree
        ensure_fmus = importlib.import_module("fmu_vehicle.cosim.build_cache").ensure_fmus
    return str(ensure_fmus([name], folder)[name])


CHILDREN = {f.__name__: f for f in (uncompiled, cold_compile, native_export, fmu_startup, fmu_run, build_fmu,
                                    time_vehicle, time_cold_compile, time_passes, ensure_fmu)}
"""The functions a child can run, by name."""


def main(argv: list[str]) -> None:
    """Run ``CHILDREN[argv[0]](*argv[1:])`` and print its result as JSON (see :data:`SKIP_EXIT`)."""
    skip_exit = argv[-1:] == [SKIP_EXIT]
    name, *args = argv[:-1] if skip_exit else argv
    print(json.dumps(CHILDREN[name](*args)), flush=True)
    if skip_exit:
        os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
