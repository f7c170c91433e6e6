"""``fmu-vehicle bench``: speed of the compiled model, measured in one run on this machine.

For each vehicle and integrator: wall time of 20 s of the paper's bumpy road (a fixed-step method at 1 ms,
RK4 being the paper's setting, or at the step given as ``name@STEPms``; or the adaptive DOP853 reference),
the final-state error against the reference (chassis x, z, pitch and their rates), the largest step of a
ladder at which the method stays stable on the first bump (``stable_step_ladder``), the real-time factor,
microseconds per derivative evaluation (wall time / number of evaluations),
the ratio to the C/C++ CPU time of Dai, Pan et al. (2022, Tables 3, 5 and 6), and the ratio to the same code
run uncompiled (NUMBA_DISABLE_JIT=1, measured in a subprocess on a short run and scaled per
evaluation); the cold compile time (a fresh process with an empty kernel cache: package import and a first
short run of halfcar7, everything compiled); optionally the vehicle FMU through FMPy at a 1 ms communication
step. With RK4 at 1 ms in the run, the fastest method whose final-state error is within
max(2 x RK4's, 1e-6) in every component is named with its wall time over RK4's (``fastest_within``).
Results go to a JSON file for tracking. Timings are wall-clock on a shared machine: compare ratios from one
run.
"""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from ..util import CHILD_HANG_GUARD_S, atomic_write, compiling_child_env
from ..vehicle.loader import load_vehicle_spec
from .paper import MANEUVERS, paper_results

CHILDREN = Path(__file__).with_name("children.py")
"""The file of the functions the bench runs in fresh interpreters (:mod:`.children`)."""


def child_command(name: str, *args: str) -> list[str]:
    """The command line that runs the function ``name`` of :data:`CHILDREN` with ``args`` in a fresh interpreter
    (its text, so that it runs against whatever package is first on the child's path)."""
    return [sys.executable, "-c", CHILDREN.read_text(), name, *args]


COLD_COMPILE_VEHICLE = "halfcar7"
"""Vehicle whose first run with an empty kernel cache is the cold compile time."""

DURATION_S = 20.0
"""Simulated time of every timed run [s] (the paper's 20 s; tests lower it)."""


DEFAULT_STEP_S = 1e-3
"""Step of a fixed-step method named without ``@STEPms`` (the paper's 1 ms)."""


def parse_integrator(text: str) -> tuple[str, float]:
    """(method name, step [s]) of an ``--integrators`` entry: a name of ``INTEGRATORS`` (step 1 ms) or
    ``name@STEPms`` for a fixed-step method, e.g. ``abm4@4ms``; ValueError naming the entry otherwise."""
    from ..integrators import INTEGRATORS, STEPPING_INTEGRATORS
    name, at, step = text.partition("@")
    if name not in INTEGRATORS:
        raise ValueError(f"unknown integrator {name!r} in {text!r}; valid: {', '.join(INTEGRATORS)}")
    if not at:
        return name, DEFAULT_STEP_S
    if name not in STEPPING_INTEGRATORS:
        raise ValueError(f"{text!r}: {name} is adaptive, its output spacing is not a step (give it without @)")
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)ms", step)
    ms = float(m.group(1)) if m else math.nan
    if not (math.isfinite(ms) and ms > 0.0):
        raise ValueError(f"{text!r}: the step must be a positive number of milliseconds, e.g. {name}@4ms")
    return name, ms * 1e-3


def integrator_label(name: str, dt: float) -> str:
    """``name`` at the default step, else ``name@STEPms`` (the report's and the table's label)."""
    return name if dt == DEFAULT_STEP_S or name == "reference" else f"{name}@{dt * 1e3:g}ms"


def _evaluations(nsteps: int) -> int:
    """Derivative evaluations of ``nsteps`` RK4 steps: four per step plus the final state's."""
    return 4 * nsteps + 1


def bumpy_road_run(name: str):
    """(vehicle, system, y0, restore) of the benchmark's bumpy-road run of vehicle ``name``: the paper's
    manoeuvre (drive torque on the driven wheels, equilibrium at its start speed); ``restore()`` puts back
    the workspace a run changes (the engine's x origin, which moves along with the car, its warm start with
    the Newton start's fields and the coordinate partition), so that every run starts alike."""
    from ..multibody.state import PREDICTOR_FIELDS
    from ..vehicle import Vehicle
    from ..vehicle.dynamics import IN_DRIVE
    car = Vehicle.load(name)
    man = MANEUVERS["bumpy_road"]
    system = car.system(man.road)
    for w in car.spec.wheels:
        if w.driven:
            system.data.inputs[car.wheel_index(w.name), IN_DRIVE] = man.drive_torque
    y0 = car.initial_state(system, man.v0)
    d = system.data.mech
    start = (system.data.origin.copy(), d.z.copy(), d.indep.copy(), d.dep.copy())
    predictor = [getattr(d, f).copy() for f in PREDICTOR_FIELDS]

    def restore():
        system.data.origin[:], d.z[:], d.indep[:], d.dep[:] = start
        for f, a in zip(PREDICTOR_FIELDS, predictor):
            getattr(d, f)[:] = a

    return car, system, y0, restore


def time_vehicle(name: str, duration: float = 20.0, dt: float = 1e-3, repeats: int = 3,
                 integrator: str = "rk4") -> dict:
    """Best-of-``repeats`` wall time of ``duration`` s on the bumpy road (after a warm-up run).

    ``integrator`` is a fixed-step method (step ``dt``) or ``reference`` (adaptive DOP853, rtol 1e-9,
    outputs every ``dt``; timed once: it runs Python-level steps and takes seconds).
    """
    from ..integrators import get_integrator, integrate
    car, system, y0, restore = bumpy_road_run(name)
    method = get_integrator(integrator)
    integrate(system, y0, 0.01 if integrator == "reference" else dt * max(1, round(0.01 / dt)), dt,
              integrator=method)       # warm-up: loads/compiles the kernels
    best = float("inf")
    for _ in range(1 if integrator == "reference" else repeats):
        restore()
        t0 = time.perf_counter()
        _, rows, _ = integrate(system, y0, duration, dt, integrator=method, record_every=10)
        best = min(best, time.perf_counter() - t0)
    # methods that count their evaluations say so (nfev); RK4 takes four per step
    evaluations = method.nfev if hasattr(method, "nfev") else _evaluations(round(duration / dt))
    final = {k: float(rows[-1][car.output_names.index(k)]) for k in FINAL_STATE}
    return {"vehicle": name, "integrator": integrator, "label": integrator_label(integrator, dt), "dt_s": dt,
            "simulated_s": duration, "wall_s": best,
            "final_state": final,
            "real_time_factor": duration / best, "evaluations": evaluations,
            "us_per_evaluation": best / evaluations * 1e6,
            "coordinates": car.mech.model.n, "constraints": car.mech.model.m, "dof": car.mech.n_dof}


STABILITY_STEPS_S = (1e-3, 2e-3, 2.5e-3, 4e-3, 5e-3, 10e-3, 12.5e-3, 20e-3, 25e-3, 50e-3)
"""The ladder of steps [s] of ``stable_step_ladder`` (each divides ``STABILITY_SAMPLE_S``)."""
STABILITY_DURATION_S = 2.0
"""Simulated time of each rung [s]: at 20 m/s both axles cross the first bump (x = 20 m), a wheel lifts off
and lands again."""
STABILITY_SAMPLE_S = 0.1
"""Spacing of the samples compared with the reference [s]."""
STABILITY_TOLERANCE = 0.1
"""A rung is stable if the chassis speed and every wheel's spin rate stay within this fraction of the
reference's (of max(|value|, 1)) at every sample."""


def stability_reference(name: str) -> tuple[tuple[str, ...], object]:
    """(compared output names, their reference rows every ``STABILITY_SAMPLE_S``) over
    ``STABILITY_DURATION_S`` of the bumpy road (adaptive DOP853)."""
    from ..integrators import integrate
    car, system, y0, _ = bumpy_road_run(name)
    compared = ("chassis.vx",) + tuple(n for n in car.output_names if n.startswith("wheel_") and n.endswith(".omega"))
    _, rows, _ = integrate(system, y0, STABILITY_DURATION_S, STABILITY_SAMPLE_S, integrator="reference")
    return compared, rows[:, [car.output_names.index(n) for n in compared]]


def stable_step_ladder(name: str, integrator: str, reference=None) -> dict:
    """The largest step of ``STABILITY_STEPS_S`` at which the fixed-step method ``integrator`` stays
    stable on ``STABILITY_DURATION_S`` of the bumpy road, walking up the ladder until a rung is not.

    A rung is stable when the run completes with finite outputs and the chassis speed and every wheel's
    spin rate stay within ``STABILITY_TOLERANCE`` of the reference (``reference``: ``stability_reference``)
    at every sample. An explicit method past its stability limit shows it first in the tire's slip and
    the wheel spin (the fast mode of the stiff tire: slip relaxation at |Vx|/sigma up to 400 1/s, tire
    vertical stiffness), which leave the reference by far more (tens to hundreds of rad/s) than an
    accurate-enough stable run (below 3 rad/s on halfcar7). Returns ``largest_stable_step_s`` (None if
    the first rung is unstable), ``first_unstable_step_s`` (None if every rung is stable) and the rungs
    tried (step, stable, largest relative deviation or the reason)."""
    import numpy as np
    from ..errors import SimulationError
    from ..integrators import get_integrator, integrate
    compared, ref = reference if reference is not None else stability_reference(name)
    car, system, y0, restore = bumpy_road_run(name)
    cols = [car.output_names.index(n) for n in compared]
    scale = np.maximum(np.abs(ref), 1.0)
    rungs, largest, first_unstable = [], None, None
    for dt in STABILITY_STEPS_S:
        restore()
        try:
            _, rows, _ = integrate(system, y0, STABILITY_DURATION_S, dt, integrator=get_integrator(integrator),
                                   record_every=int(round(STABILITY_SAMPLE_S / dt)))
            dev = float(np.max(np.abs(rows[:, cols] - ref) / scale)) if np.isfinite(rows).all() else math.inf
            rung = {"dt_s": dt, "stable": dev <= STABILITY_TOLERANCE, "deviation": dev}
        except SimulationError as e:
            rung = {"dt_s": dt, "stable": False, "stopped": str(e)}
        rungs.append(rung)
        if not rung["stable"]:
            first_unstable = dt
            break
        largest = dt
    return {"largest_stable_step_s": largest, "first_unstable_step_s": first_unstable, "rungs": rungs}


STEP_STEER_SPEED_M_S = 80 / 3.6
"""Speed of the benchmark's step steer (ISO 7401 at 80 km/h, 4 m/s^2 in the single-track estimate)."""


PASS_STATE_S = 3.0
"""Time into the bumpy road [s] at which ``time_passes`` times the evaluation's passes."""


def time_passes(name: str, calls: int = 2000, repeats: int = 30) -> dict:
    """Nanoseconds per call of each pass of one evaluation of vehicle ``name`` (``pass_timing.PASSES``)
    at its state ``PASS_STATE_S`` s into the bumpy road (RK4 at 1 ms): each pass alone in a compiled loop of
    ``calls`` calls, best of ``repeats`` loops (:func:`time_passes_alternated` of one vehicle)."""
    return time_passes_alternated([name], calls, repeats)[name]


def time_passes_alternated(names, calls: int = 2000, repeats: int = 30) -> dict:
    """{vehicle: {pass: ns per call}} of :func:`time_passes` for several vehicles, alternated: every repeat of a
    pass runs each vehicle's loop in turn, so that a busy spell of a shared machine slows every vehicle's
    loops alike and the ratios between vehicles hold (timed one vehicle after the other, two identical runs
    gave whole-evaluation ratios of 1.38 and 3.74). Leaves each system evaluated at its state."""
    import warnings

    import numpy as np
    from numba.core.errors import NumbaExperimentalFeatureWarning

    from ..integrators import integrate
    from .pass_timing import PASSES, pass_loop
    runs = {}
    for name in names:
        _, system, y0, _ = bumpy_road_run(name)
        _, _, y = integrate(system, y0, PASS_STATE_S, DEFAULT_STEP_S, integrator="rk4")
        runs[name] = (system, y, np.zeros_like(y))
    t = PASS_STATE_S
    result = {name: {} for name in names}
    for which, pass_name in enumerate(PASSES):
        best = dict.fromkeys(names, math.inf)
        for name, (system, y, ydot) in runs.items():
            system.rhs(t, y, system.model, system.data, ydot)       # every pass starts from the evaluated state
            with warnings.catch_warnings():     # numba says its typing of the loop's tuple of calls is experimental
                warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
                pass_loop(which, 10, t, y, system.model, system.data, ydot)   # loads or compiles the loop
        for _ in range(repeats):
            for name, (system, y, ydot) in runs.items():
                t0 = time.perf_counter()
                pass_loop(which, calls, t, y, system.model, system.data, ydot)
                best[name] = min(best[name], time.perf_counter() - t0)
        for name in names:
            result[name][pass_name] = best[name] / calls * 1e9
    for system, y, ydot in runs.values():
        system.rhs(t, y, system.model, system.data, ydot)
    return result


def mass_matrix_structure(name: str) -> dict:
    """Where the open-loop mass matrix M of vehicle ``name`` has entries that may be non-zero
    (``model.mcol_rows``): ``coordinates`` n, ``shared`` the coordinates on every body's path (the chassis
    joint's, and no more: the chain from the root up to the first coordinate with more than one child),
    ``wheels``, and the entries of M in the shared rows and columns (``m_shared``) and elsewhere
    (``m_rest``). Every pass that reads or writes M (``assemble``, ``add_rods``, ``solve_accelerations``) does
    work in proportion to these, so a full car's shared entries, 6 chassis coordinates by every coordinate
    against a half car's 3, grow faster than its corners (docs/formulation.md §9)."""
    from ..vehicle import Vehicle
    car = Vehicle.load(name)
    model = car.system(MANEUVERS["bumpy_road"].road).model.mech
    n = int(model.n)
    children = [[j for j in range(n) if model.parent[j] == i] for i in range(n)]
    shared = [next(i for i in range(n) if model.parent[i] < 0)]
    while len(children[shared[-1]]) == 1:
        shared += children[shared[-1]]
    entries = [(int(model.mcol_rows[j, t]), j) for j in range(n) for t in range(int(model.mcol_nrows[j]))]
    m_shared = sum(1 for i, j in entries if i in shared or j in shared)
    return {"coordinates": n, "shared": len(shared), "wheels": len(car.spec.wheels), "m_shared": m_shared,
            "m_rest": len(entries) - m_shared}


def time_step_steer(name: str, duration: float = 20.0, repeats: int = 3) -> dict:
    """Best-of-``repeats`` wall time of ``duration`` s of an ISO 7401 step steer (RK4, 1 ms, flat road) of
    a vehicle with steering: the handling counterpart of the bumpy-road run. The steering-wheel angle is the
    one of 4 m/s^2 steady state in the single-track model of the vehicle (of a combination: its towing unit's)."""
    from ..manoeuvres.step_steer import step_steer_profile
    from ..manoeuvres.vehicle_model import single_track_of, towing_vehicle
    from ..vehicle import Vehicle
    car = Vehicle.load(name)
    v = STEP_STEER_SPEED_M_S
    st = single_track_of(towing_vehicle(car))
    profile = step_steer_profile(4.0 / (v * st.yaw_rate_gain(v)), hold_s=duration)
    car.simulate("flat", 0.01, v0=v, steer=profile)            # warm-up: loads/compiles the kernels
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = car.simulate("flat", duration, v0=v, steer=profile, record_every=10)
        best = min(best, time.perf_counter() - t0)
    return {"vehicle": name, "manoeuvre": "ISO 7401 step steer, 80 km/h", "simulated_s": duration, "wall_s": best,
            "real_time_factor": duration / best, "final_yaw_rate_rad_s": float(res.final("chassis.yaw_rate")),
            "final_ay_m_s2": float(res.final("chassis.ay"))}


FINAL_STATE = ("chassis.x", "chassis.z", "chassis.pitch", "chassis.vx", "chassis.vz", "chassis.pitch_rate")
"""Outputs whose final values are compared with the adaptive reference (m, m, rad, m/s, m/s, rad/s)."""


def final_errors(final: dict, reference: dict) -> dict:
    """|final - reference| of every ``FINAL_STATE`` output (SI units)."""
    return {k: abs(final[k] - reference[k]) for k in FINAL_STATE}


def _child_report(what: str, child: str, *args: str, env=None) -> dict:
    """Run the function ``child`` of :mod:`.children` in a fresh interpreter; it prints a JSON object as its last
    line, returned here."""
    out = subprocess.run(child_command(child, *args), env=env, capture_output=True, text=True,
                         timeout=CHILD_HANG_GUARD_S)
    if out.returncode != 0:
        raise RuntimeError(f"{what} failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _timed_child(what: str, child: str, *args: str, env=None) -> float:
    """Run the function ``child`` of :mod:`.children` in a fresh interpreter; it prints {"seconds": ...} as its
    last line."""
    return _child_report(what, child, *args, env=env)["seconds"]


def time_uncompiled(name: str, duration: float = 0.02) -> float:
    """Seconds per derivative evaluation of the uncompiled path (subprocess, NUMBA_DISABLE_JIT=1)."""
    seconds = _timed_child("uncompiled run", "uncompiled", name, str(duration),
                           env=dict(os.environ, NUMBA_DISABLE_JIT="1"))
    return seconds / _evaluations(round(duration / 1e-3))


COLD_COMPILE_VEHICLES = ("halfcar7", "fullcar14", "tractor_semitrailer")
"""The vehicles whose cold compile ``bench --cold-compile`` times (planar, spatial, articulated)."""


class CompileEvents:
    """numba's compile events of a process (``numba.core.event``, kind ``numba:compile``): each function's own
    compile time, nested compiles (a callee typed while its caller compiles) taken out."""

    def __init__(self):
        self.own: dict[str, float] = {}
        self._stack: list = []

    def on_event(self, ev) -> None:
        import time
        now = time.perf_counter()
        if ev.is_start:
            self._stack.append([now, 0.0])
            return
        if not self._stack:
            return
        start, nested = self._stack.pop()
        spent = now - start
        if self._stack:
            self._stack[-1][1] += spent
        fn = getattr(ev.data.get("dispatcher"), "py_func", None)
        name = f"{fn.__module__.split('.', 1)[-1]}.{fn.__qualname__}" if fn is not None else "?"
        self.own[name] = self.own.get(name, 0.0) + spent - nested

    def exclusive(self, top: int = 12) -> dict[str, float]:
        """{function: its own compile time [s]} of the ``top`` costliest, costliest first."""
        return dict(sorted(self.own.items(), key=lambda kv: -kv[1])[:top])


@contextmanager
def compile_events():
    """Within the block, record numba's compile events into the :class:`CompileEvents` it yields."""
    from numba.core import event
    rec = CompileEvents()

    class _Listener(event.Listener):
        def on_start(self, ev):
            rec.on_event(ev)

        def on_end(self, ev):
            rec.on_event(ev)

    with event.install_listener("numba:compile", _Listener()):
        yield rec


def time_cold_compile(name: str = COLD_COMPILE_VEHICLE) -> dict:
    """Wall time [s] of a fresh process with an empty kernel cache (``FMU_VEHICLE_CACHE_DIR`` a new empty
    folder) that imports the package, loads ``name`` and runs 10 ms of RK4 at 1 ms on the bumpy road: what a
    first run costs when every kernel it uses is compiled (the interpreter start is not timed). ``functions``:
    the costliest compiled functions' own compile times [s] (:class:`CompileEvents`)."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="fmu_vehicle_cold_compile_") as empty:
        report = _child_report("cold compile run", "cold_compile", name, env=compiling_child_env(empty))
    return {"vehicle": name, "simulated_s": 0.01, "seconds": report["seconds"],
            "functions": report.get("functions", {})}


def time_native_export(fmus) -> dict:
    """Wall time [s] of ``fmu-vehicle export --native`` of the native FMUs ``fmus`` (linux64) in a fresh process
    with empty kernel caches (``first_s``: a fresh machine, or sources never exported), then in another fresh
    process with the caches the first left (``second_s``: the same sources exported again). Needs ``cc``."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="fmu_vehicle_native_export_") as empty:
        env = compiling_child_env(empty)
        first = _timed_child("native export", "native_export", *fmus, env=env)
        second = _timed_child("second native export", "native_export", *fmus, env=env)
    return {"fmus": list(fmus), "platform": "linux64", "first_s": first, "second_s": second}


def _native_export_line(e: dict) -> str:
    return (f"native export ({' '.join(e['fmus'])}, {e['platform']}): {e['first_s']:.1f} s with empty kernel "
            f"caches, {e['second_s']:.1f} s again with the caches it left (unchanged sources)")


def build_bare_fmu(fmu: Path, dest: Path) -> Path:
    """A pythonfmu FMU with the Real inputs and outputs of ``fmu`` that computes nothing (:mod:`.bare_slave`,
    its inputs, outputs and class name filled in), built into ``dest``: the host's and pythonfmu's own cost per
    step, for :func:`time_fmu`."""
    from fmpy import read_model_description
    md = read_model_description(str(fmu))
    reals = [v for v in md.modelVariables if v.type == "Real"]
    name = "Bare" + md.coSimulation.modelIdentifier
    inputs = [v.name for v in reals if v.causality == "input"]
    outputs = [v.name for v in reals if v.causality == "output"]
    source = (Path(__file__).parent / "bare_slave.py").read_text()
    for placeholder, value in (("INPUTS: list[str] = []", f"INPUTS = {inputs!r}"),
                               ("OUTPUTS: list[str] = []", f"OUTPUTS = {outputs!r}"),
                               ("class BareSlave(", f"class {name}(")):
        if source.count(placeholder) != 1:
            raise RuntimeError(f"bare FMU: {placeholder!r} is not once in tools/bare_slave.py")
        source = source.replace(placeholder, value)
    script = Path(dest) / f"bench_{name.lower()}.py"
    script.write_text(source)
    out = subprocess.run(child_command("build_fmu", str(script), str(dest)), cwd=dest, capture_output=True,
                         text=True, timeout=CHILD_HANG_GUARD_S)
    if out.returncode != 0:
        raise RuntimeError(f"bare FMU build failed: {out.stderr.strip().splitlines()[-1:]}")
    return Path(dest) / f"{name}.fmu"


def _fmu_model(fmu: Path) -> str | None:
    """The vehicle file an FMU runs by default (the option its ``model`` enumeration starts at), if it has one."""
    from fmpy import read_model_description
    var = next((v for v in read_model_description(str(fmu)).modelVariables if v.name == "model"), None)
    if var is None:
        return None
    return next(i.name for i in var.declaredType.items if int(i.value) == int(var.start))


def time_fmu(fmu: Path, duration: float = 20.0, baseline: bool = True, repeats: int = 3) -> dict:
    """The vehicle FMU through fmpy.simulate_fmu at a 1 ms communication step (bumpy road), each timing in
    a fresh process (so that the FMU, not this process, decides which compiled code it runs); the runs of
    ``duration`` are best of ``repeats`` in that process, like the direct runs they are compared with.

    ``wall_s``         the run with the code the FMU ships (compiled for a portable CPU target)
    ``fixed_s``        the part of a run that does not depend on its length: a 1 ms run in the same process
                       after a warm-up (extraction, instantiation, initialization, one step, clean-up)
    ``native_wall_s``  the same with ``FMU_VEHICLE_NATIVE=1`` (compiled for this CPU; compile not timed)
    ``startup_s``      a 1 ms run in a fresh process (extraction, instantiation, the package import,
                       initialization, one step; not the interpreter start or ``import fmpy``) on a warm machine
    ``cold_start_s``   the same with an empty user cache (a fresh machine with the same Python and numba)
    ``bare_wall_s``    (``baseline``) the same run of a pythonfmu FMU with the same Real inputs and outputs
                       that computes nothing (:func:`build_bare_fmu`, built into a temporary folder): what
                       FMPy and pythonfmu cost per step whatever the model
    """
    import tempfile
    start = json.dumps(bumpy_road_start(fmu))
    base = {k: v for k, v in os.environ.items() if k not in ("FMU_VEHICLE_CACHE_DIR", "FMU_VEHICLE_NATIVE")}
    run = _fmu_run(fmu, start, duration, base, repeats)
    native = _fmu_run(fmu, start, duration, dict(base, FMU_VEHICLE_NATIVE="1"), repeats)["seconds"]
    startup = _timed_child("FMU start-up run", "fmu_startup", str(fmu), start, env=base)
    with tempfile.TemporaryDirectory(prefix="fmu_vehicle_cold_") as empty:
        cold = _timed_child("FMU cold start", "fmu_startup", str(fmu), start, env=dict(base, XDG_CACHE_HOME=empty))
    wall = run["seconds"]
    result = {"fmu": fmu.name, "model": _fmu_model(fmu), "simulated_s": duration, "communication_step_s": 1e-3,
              "steps": round(duration / 1e-3), "wall_s": wall, "fixed_s": run["fixed_seconds"],
              "real_time_factor": duration / wall, "native_wall_s": native, "portable_over_native": wall / native,
              "startup_s": startup, "cold_start_s": cold}
    if baseline:
        with tempfile.TemporaryDirectory(prefix="fmu_vehicle_bare_") as work:
            bare = build_bare_fmu(fmu, Path(work))
            result["bare_wall_s"] = _fmu_run(bare, "{}", duration, base, repeats, skip_exit=True)["seconds"]
        result["bare_us_per_step"] = result["bare_wall_s"] / result["steps"] * 1e6
    return result


def bumpy_road_start(fmu: Path) -> dict:
    """Start values of the bench's bumpy-road run for the vehicle FMU ``fmu``: speed, road, drive torque. The
    road is set as the FMU declares it: an Enumeration by its item's value (as FMPy's ``simulate_fmu`` sets
    one), a String (FMUs of older commits, ``--baseline``) by its name."""
    from fmpy import read_model_description
    man = MANEUVERS["bumpy_road"]
    road = next(v for v in read_model_description(str(fmu)).modelVariables if v.name == "road")
    value = (man.road if road.type == "String"
             else next(int(i.value) for i in road.declaredType.items if i.name == man.road))
    return {"v0": man.v0, "road": value, "wheel_front.torque_drive": man.drive_torque}


def _fmu_run(fmu: Path, start: str, duration: float, env: dict, repeats: int = 1,
             skip_exit: bool = False) -> dict:
    """``children.fmu_run`` in a fresh process (``--skip-exit``: ``children.SKIP_EXIT``): {"seconds": the best of
    ``repeats`` timed runs, "fixed_seconds": a 1 ms run}."""
    return _child_report(f"FMU run of {fmu.name}", "fmu_run", str(fmu), start, repr(duration), str(repeats),
                         *(["--skip-exit"] if skip_exit else []), env=env)


def time_native_fmu(fmu: Path, duration: float = 20.0, repeats: int = 3) -> dict:
    """A native FMU (``fmu-vehicle export --native``; run with its export parameters: the bench sets only the
    bumpy-road run's drive torque), each timing in a fresh process:

    ``wall_s``         through fmpy.simulate_fmu at a 1 ms communication step, best of ``repeats``
    ``host_wall_s``    the same run in the project's C host (no Python in the process), best of ``repeats``;
                       the process's start, loading and initialization included (``first_step_s``)
    ``first_step_s``   the C host making one 1 ms step in a fresh process: start, library load, instantiation
                       (the image read and relocated), initialization, the step; nothing is compiled
    """
    import tempfile

    from ..errors import SimulationError
    from ..fmi.hosts import Inputs, build_host, run_c_host
    man = MANEUVERS["bumpy_road"]
    torque = {"wheel_front.torque_drive": man.drive_torque}
    base = {k: v for k, v in os.environ.items() if k not in ("FMU_VEHICLE_CACHE_DIR", "FMU_VEHICLE_NATIVE")}
    run = _fmu_run(fmu, json.dumps(torque), duration, base, repeats)
    steps = round(duration / 1e-3)
    inputs = Inputs(reals=torque)
    with tempfile.TemporaryDirectory(prefix="fmu_vehicle_native_bench_") as work:
        host = build_host(Path(work) / "fmi2_host")

        def timed(n):
            r = run_c_host(host, fmu, ["chassis.x"], inputs, 1e-3, n, every=n, python=False)
            if r.returncode != 0:
                raise SimulationError(f"{fmu.name} in the C host: exit {r.returncode}: {r.stderr[-300:]}")
            return r.seconds
        host_wall = min(timed(steps) for _ in range(repeats))
        first = min(timed(1) for _ in range(repeats))
    return {"fmu": fmu.name, "model": _fmu_model(fmu), "simulated_s": duration, "steps": steps, "wall_s": run["seconds"],
            "fixed_s": run["fixed_seconds"], "host_wall_s": host_wall, "first_step_s": first,
            "real_time_factor": duration / run["seconds"]}


def _native_line(f: dict) -> str:
    text = (f"{f['fmu']} (native): {f['simulated_s']:g} s bumpy road at 1 ms: FMPy {f['wall_s']:.3f} s, C host "
            f"{f['host_wall_s']:.3f} s, first step in a fresh C host process {f['first_step_s'] * 1e3:.1f} ms")
    if "host_over_direct_us_per_step" in f:
        text += (f"; over the direct kernel: C host {f['host_over_direct_us_per_step']:+.2f} us/step, FMPy "
                 f"{f['over_direct_us_per_step']:+.2f} us/step")
    return text


def fmu_over_direct(f: dict, rows: list[dict]) -> None:
    """Add to the FMU report ``f`` its cost per step over the direct run of the same vehicle and integrator
    (RK4 at 1 ms, same duration) in ``rows``, if the bench ran it: ``over_direct_us_per_step``
    = (wall - direct wall) / steps, and, split, ``fixed_us_per_step`` (the fixed cost of a run spread over
    its steps), ``bare_us_per_step`` (FMPy and pythonfmu, measured on the bare FMU, if timed) and
    ``ours_us_per_step`` (the rest: the slave, the simulator's Python, the compiled call per step and the
    portable code)."""
    direct = next((r for r in rows if r.get("vehicle") == f.get("model") and r.get("integrator") == "rk4"
                   and r.get("dt_s") == DEFAULT_STEP_S and r.get("simulated_s") == f["simulated_s"]
                   and "wall_s" in r), None)
    if direct is None:
        return
    n = f["steps"]
    f["direct_wall_s"] = direct["wall_s"]
    f["over_direct_us_per_step"] = (f["wall_s"] - direct["wall_s"]) / n * 1e6
    f["fixed_us_per_step"] = f["fixed_s"] / n * 1e6
    if "bare_us_per_step" in f:
        f["ours_us_per_step"] = f["over_direct_us_per_step"] - f["fixed_us_per_step"] - f["bare_us_per_step"]


def _fmu_line(f: dict) -> str:
    s = (f"{f['fmu']}: {f['simulated_s']:g} s bumpy road through FMPy at 1 ms: {f['wall_s']:.2f} s wall "
         f"(portable code; native {f['native_wall_s']:.2f} s, x{f['portable_over_native']:.2f}), "
         f"real-time factor {f['real_time_factor']:.1f}, start-up {f['startup_s']:.2f} s, "
         f"cold start {f['cold_start_s']:.2f} s")
    if "over_direct_us_per_step" in f:
        s += (f"\n{f['fmu']} over direct ({f['model']} rk4, {f['direct_wall_s']:.3f} s): "
              f"{f['over_direct_us_per_step']:.1f} us/step, of which fixed cost per run "
              f"{f['fixed_us_per_step']:.1f} us/step ({f['fixed_s'] * 1e3:.0f} ms)")
        if "ours_us_per_step" in f:
            s += (f", FMPy+pythonfmu {f['bare_us_per_step']:.1f} us/step (bare FMU), ours (slave, simulator, "
                  f"compiled call per step, portable code) {f['ours_us_per_step']:.1f} us/step")
    elif "bare_us_per_step" in f:
        s += f"\nFMPy+pythonfmu {f['bare_us_per_step']:.1f} us/step (bare FMU with the same inputs/outputs)"
    return s


def run_bench(vehicles, out: Path, *, uncompiled: bool = True, fmu: Path | None = None, repeats: int = 3,
              duration: float | None = None, integrators=("rk4",), cold_compile: bool = True,
              stability: bool = True, fmu_baseline: bool = True, passes: bool = False,
              native_fmu: Path | None = None, cold_compile_vehicles=COLD_COMPILE_VEHICLES,
              native_export=()) -> dict:
    """Time every vehicle with every integrator (and optionally the FMU) for ``duration`` s (default
    DURATION_S), compare each method's final state with the adaptive reference's, find each fixed-step
    method's largest stable step (unless ``stability`` is False, :func:`stable_step_ladder`) and, unless
    ``cold_compile`` is False, time the cold compile of each of ``cold_compile_vehicles``
    (:func:`time_cold_compile`), with ``passes`` time each
    vehicle's evaluation pass by pass, the vehicles alternated (:func:`time_passes_alternated`), with
    each one's :func:`mass_matrix_structure`; write the JSON report to ``out`` and print it as
    Markdown tables. ``integrators``: entries of :func:`parse_integrator`. ``native_fmu``: also time a native
    FMU (:func:`time_native_fmu`) in the same run; ``native_export``: native FMU names whose export is timed
    (:func:`time_native_export`)."""
    duration = DURATION_S if duration is None else float(duration)
    cpu = paper_results()["cpu_time_20s_simulation_s"]["bumpy_road"]
    from ..errors import SimulationError
    specs = [parse_integrator(i) for i in integrators]
    rows = []
    fastest = []
    for name in vehicles:
        done = []
        ladders = {}
        reference = None
        for integrator, dt in specs:
            label = integrator_label(integrator, dt)
            try:
                r = time_vehicle(name, duration=duration, dt=dt, repeats=repeats, integrator=integrator)
            except SimulationError as e:       # a method that cannot run this road: say so, go on
                print(f"{name:<18} {label:<9} failed: {e}", flush=True)
                rows.append({"vehicle": name, "integrator": integrator, "label": label, "dt_s": dt,
                             "failed": str(e)})
                continue
            if stability and integrator != "reference":
                if integrator not in ladders:
                    reference = reference or stability_reference(name)
                    ladders[integrator] = stable_step_ladder(name, integrator, reference)
                r["stability"] = ladders[integrator]
            done.append(r)
            paper = cpu.get(load_vehicle_spec(name).paper_model or "")      # the vehicle file's paper model
            r["paper_cpu_s"] = paper
            # the paper's CPU time (RK4) is for 20 s: compare per simulated second
            r["speedup_vs_paper"] = paper / 20.0 / (r["wall_s"] / duration) if paper else None
            if uncompiled and integrator == "rk4" and dt == DEFAULT_STEP_S:
                un = time_uncompiled(name)
                r["uncompiled_us_per_evaluation"] = un * 1e6
                r["speedup_vs_uncompiled"] = un * 1e6 / r["us_per_evaluation"]
            rows.append(r)
            print(_line(r), flush=True)
        # final-state error of every method against the adaptive reference (run here if not asked for)
        ref = next((r for r in done if r["integrator"] == "reference"), None)
        if done:
            ref_final = ref["final_state"] if ref else _reference_final(name, duration)
            for r in done:
                r["final_error"] = final_errors(r["final_state"], ref_final)
            f = fastest_within(done)
            if f is not None:
                fastest.append(f)
                print(_fastest_line(f), flush=True)
    report = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "results": rows}
    if fastest:
        report["fastest_within"] = fastest
    steered = [n for n in vehicles if load_vehicle_spec(n).steering is not None]
    if steered:
        report["step_steer"] = []
        for name in steered:
            r = time_step_steer(name, duration=duration, repeats=repeats)
            report["step_steer"].append(r)
            print(f"{name:<18} step steer {r['simulated_s']:g} s in {r['wall_s']:.3f} s "
                  f"(RTF {r['real_time_factor']:.1f}), steady yaw rate {r['final_yaw_rate_rad_s']:.3f} rad/s", flush=True)
    if passes:
        report["passes_ns"] = time_passes_alternated(vehicles)
        report["structure"] = {name: mass_matrix_structure(name) for name in vehicles}
    if cold_compile:
        report["cold_compile"] = []
        for name in cold_compile_vehicles:
            report["cold_compile"].append(c := time_cold_compile(name))
            print(_cold_line(c), flush=True)
    if native_export:
        report["native_export"] = e = time_native_export(native_export)
        print(_native_export_line(e), flush=True)
    if fmu is not None:
        report["fmu"] = f = time_fmu(fmu, duration=duration, baseline=fmu_baseline, repeats=repeats)
        fmu_over_direct(f, rows)
        print(_fmu_line(f), flush=True)
    if native_fmu is not None:
        report["native_fmu"] = f = time_native_fmu(native_fmu, duration=duration, repeats=repeats)
        fmu_over_direct(f, rows)
        if "direct_wall_s" in f:       # the C host's steps over the direct kernel, its start-up taken out
            f["host_over_direct_us_per_step"] = ((f["host_wall_s"] - f["first_step_s"] - f["direct_wall_s"])
                                                 / f["steps"] * 1e6)
        print(_native_line(f), flush=True)
    atomic_write(out, lambda stream: stream.write(json.dumps(report, indent=2) + "\n"))
    print(markdown_table(report), flush=True)
    return report


ERROR_FLOOR = 1e-6
"""Smallest error bound of ``fastest_within`` per component [m, rad, m/s, rad/s]."""


def fastest_within(results: list[dict]) -> dict | None:
    """Among one vehicle's timed fixed-step runs, the fastest whose final-state error is at most
    max(2 x the error of RK4 at 1 ms, ``ERROR_FLOOR``) in every ``FINAL_STATE`` component, with its wall
    time over RK4's (None without an RK4 run at 1 ms). Every run that meets the bound is listed. A run at a
    step above its method's largest stable step (where measured, ``stable_step_ladder``) is left out: its
    final error is small by chance, not by the method (the next bump may blow it up)."""
    rk4 = next((r for r in results if r["integrator"] == "rk4" and r["dt_s"] == DEFAULT_STEP_S), None)
    if rk4 is None or "final_error" not in rk4:
        return None
    bound = {k: max(2.0 * rk4["final_error"][k], ERROR_FLOOR) for k in FINAL_STATE}

    def stable(r):
        largest = r.get("stability", {}).get("largest_stable_step_s", math.inf)
        return largest is not None and r["dt_s"] <= largest * (1 + 1e-9)

    within = [r for r in results if r["integrator"] != "reference" and "final_error" in r and stable(r)
              and all(r["final_error"][k] <= bound[k] for k in FINAL_STATE)]
    if not within:          # RK4 at 1 ms itself unstable on the ladder
        return None
    best = min(within, key=lambda r: r["wall_s"])
    return {"vehicle": rk4["vehicle"], "bound": bound, "rk4_wall_s": rk4["wall_s"], "fastest": best["label"],
            "wall_s": best["wall_s"], "wall_over_rk4": best["wall_s"] / rk4["wall_s"],
            "within": [r["label"] for r in within]}


def _fastest_line(f: dict) -> str:
    return (f"{f['vehicle']}: fastest within max(2 x rk4's final error, {ERROR_FLOOR:g}): {f['fastest']}, "
            f"{f['wall_s']:.3f} s = {f['wall_over_rk4']:.2f} x rk4's {f['rk4_wall_s']:.3f} s "
            f"(within: {', '.join(f['within'])})")


def _reference_final(name: str, duration: float) -> dict:
    """Final ``FINAL_STATE`` outputs of the adaptive reference on the bumpy road (untimed)."""
    return time_vehicle(name, duration=duration, repeats=1, integrator="reference")["final_state"]


def _error_text(r: dict) -> str:
    """The final-state error column: x, z [m], pitch [rad] / their rates, each in %.1e."""
    e = r.get("final_error")
    if not e:
        return "-"
    return ("{:.1e}, {:.1e}, {:.1e} / {:.1e}, {:.1e}, {:.1e}".format(*(e[k] for k in FINAL_STATE)))


def _stable_text(r: dict) -> str:
    """The largest-stable-step column: '10 ms (12.5 ms not)', '>= 50 ms', 'none of 1 ms ...' or '-'."""
    s = r.get("stability")
    if not s:
        return "-"
    first = s["first_unstable_step_s"]
    if s["largest_stable_step_s"] is None:
        return f"none ({first * 1e3:g} ms not)"
    text = f"{s['largest_stable_step_s'] * 1e3:g} ms"
    return text + (f" ({first * 1e3:g} ms not)" if first is not None else " (largest tried)")


def markdown_table(report: dict) -> str:
    """The report as a Markdown table (the one of docs/speed.md §4; the README shows its main rows)."""
    lines = ["| model | integrator | coords / eqs / DOF | wall for 20 s | real-time factor | us per evaluation "
             "| vs paper C++ (s) | vs uncompiled (us/eval) | final error vs reference: x, z, pitch / rates "
             "| largest stable step |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["results"]:
        label = r.get("label", r["integrator"])
        if "failed" in r:
            lines.append(f"| {r['vehicle']} | {label} | failed: {r['failed']} | | | | | | | |")
            continue
        scale = 20.0 / r["simulated_s"]
        paper = (f"x{r['speedup_vs_paper']:.1f} ({r['paper_cpu_s']:.2f})" if r.get("speedup_vs_paper")
                 else "-")
        unc = (f"x{r['speedup_vs_uncompiled']:.0f} ({r['uncompiled_us_per_evaluation']:.0f})"
               if r.get("speedup_vs_uncompiled") else "-")
        lines.append(f"| {r['vehicle']} | {label} | {r['coordinates']} / {r['constraints']} / {r['dof']} "
                     f"| {r['wall_s'] * scale:.3f} s | {r['real_time_factor']:.0f} | {r['us_per_evaluation']:.2f} "
                     f"| {paper} | {unc} | {_error_text(r)} | {_stable_text(r)} |")
    for r in report.get("step_steer", []):
        lines.append(f"| {r['vehicle']}, {r['manoeuvre']} | rk4 | | {r['wall_s'] * 20.0 / r['simulated_s']:.3f} s "
                     f"| {r['real_time_factor']:.0f} | | | | | |")
    f = report.get("fmu")
    if f:
        scale = 20.0 / f["simulated_s"]
        lines.append(f"| {f['fmu']} through FMPy, 1 ms steps (portable code) | rk4 | | {f['wall_s'] * scale:.3f} s "
                     f"| {f['real_time_factor']:.0f} | | | start-up {f['startup_s']:.2f} s, cold start "
                     f"{f['cold_start_s']:.2f} s | | |")
        lines.append(f"| {f['fmu']}, native code (FMU_VEHICLE_NATIVE=1) | rk4 | | {f['native_wall_s'] * scale:.3f} s "
                     f"| {f['simulated_s'] / f['native_wall_s']:.0f} | | | portable / native "
                     f"x{f['portable_over_native']:.2f} | | |")
        if "over_direct_us_per_step" in f:
            split = (f"fixed {f['fixed_us_per_step']:.1f}" + (f", FMPy+pythonfmu {f['bare_us_per_step']:.1f} "
                     f"(bare FMU), ours {f['ours_us_per_step']:.1f}" if "ours_us_per_step" in f else ""))
            lines.append(f"| {f['fmu']} over {f['model']} rk4 direct | rk4 | | +{f['over_direct_us_per_step']:.1f} "
                         f"us/step | | | | {split} us/step | | |")
    f = report.get("native_fmu")
    if f:
        scale = 20.0 / f["simulated_s"]
        over = (f"over direct: C host {f['host_over_direct_us_per_step']:+.2f}, FMPy "
                f"{f['over_direct_us_per_step']:+.2f} us/step" if "host_over_direct_us_per_step" in f else "")
        lines.append(f"| {f['fmu']} native, through FMPy / in the C host | rk4 | | {f['wall_s'] * scale:.3f} s / "
                     f"{f['host_wall_s'] * scale:.3f} s | {f['real_time_factor']:.0f} | | | first step in a fresh "
                     f"process {f['first_step_s'] * 1e3:.1f} ms; {over} | | |")
    if report.get("passes_ns"):
        lines += ["", passes_table(report["passes_ns"])]
    if report.get("structure"):
        lines += ["", structure_table(report["structure"], report["passes_ns"])]
    return "\n".join(lines)


def structure_table(structure: dict, passes_ns: dict) -> str:
    """:func:`mass_matrix_structure` of several vehicles as a Markdown table beside the whole evaluation's
    time per wheel (``passes_ns``) and its ratio to the first vehicle's."""
    names = list(structure)
    per_wheel = {n: passes_ns[n]["vehicle_rhs"] / structure[n]["wheels"] for n in names}
    lines = ["| vehicle | wheels | coordinates | shared (chassis) coordinates | M entries in the shared rows and "
             "columns | M entries elsewhere | evaluation per wheel [ns] | ratio |", "|---|---|---|---|---|---|---|---|"]
    for n in names:
        st = structure[n]
        lines.append(f"| {n} | {st['wheels']} | {st['coordinates']} | {st['shared']} | {st['m_shared']} | "
                     f"{st['m_rest']} | {per_wheel[n]:.0f} | {per_wheel[n] / per_wheel[names[0]]:.2f} |")
    return "\n".join(lines)


def passes_table(passes_ns: dict) -> str:
    """``time_passes`` of several vehicles as a Markdown table: ns per call, and the ratio to the first
    vehicle's (a part of a pass is named "pass: part")."""
    from .pass_timing import PARTS_OF
    names = list(passes_ns)
    first = passes_ns[names[0]]
    lines = ["| pass | " + " | ".join(f"{n} [ns] | ratio" for n in names) + " |",
             "|---|" + "---|---|" * len(names)]
    for p in first:
        label = f"{PARTS_OF[p]}: {p}" if p in PARTS_OF else p
        cells = " | ".join(f"{passes_ns[n][p]:.0f} | {passes_ns[n][p] / first[p]:.2f}" for n in names)
        lines.append(f"| {label} | {cells} |")
    return "\n".join(lines)


def _cold_line(c: dict) -> str:
    own = ", ".join(f"{k} {v:.1f}" for k, v in list(c.get("functions", {}).items())[:5])
    return (f"cold compile: {c['seconds']:.1f} s ({c['vehicle']}: package import and a first "
            f"{c['simulated_s'] * 1e3:g} ms run with an empty kernel cache, in a fresh process)"
            + (f"; costliest own compile times [s]: {own}" if own else ""))


def _line(r: dict) -> str:
    s = (f"{r['vehicle']:<18} {r.get('label', r['integrator']):<9} {r['coordinates']:>3} coords {r['constraints']:>3} eqs "
         f"{r['dof']:>3} DOF: {r['simulated_s']:g} s in {r['wall_s']:.3f} s (RTF {r['real_time_factor']:.1f}), "
         f"{r['us_per_evaluation']:.1f} us/eval")
    if r.get("paper_cpu_s"):
        s += f", paper C++ {r['paper_cpu_s']:.2f} s for 20 s -> x{r['speedup_vs_paper']:.1f}"
    if r.get("speedup_vs_uncompiled"):
        s += f", uncompiled {r['uncompiled_us_per_evaluation']:.0f} us/eval -> x{r['speedup_vs_uncompiled']:.0f}"
    if r.get("stability"):
        s += f", largest stable step {_stable_text(r)}"
    return s
