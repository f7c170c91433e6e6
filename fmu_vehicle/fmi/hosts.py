"""Run an FMU the way other tools do: in the C host ``fmi/host/fmi2_host.c`` (a separate process) and in FMPy.

``check_fmu(fmu)`` runs one FMU in both, with the same parameters and inputs, and reports whether each
process exited 0 and whether their outputs agree; ``fmu-vehicle doctor FMU`` prints that report. The C host
loads the FMU binary as a non-Python importer does (``dlopen``). The package's FMU binary links this Python's
``libpython3.X.so`` and starts the interpreter itself; an FMU built with pythonfmu's binary needs ``LD_PRELOAD``
of that library. :func:`host_environment` sets it, and ``PYTHONPATH`` pointing at the packages the FMU imports
(its ``requirements.txt``), from the running interpreter, so that the host runs either.

The inputs are sinusoids ``u(t) = offset + amplitude sin(2 pi f t)`` evaluated at each step's start, in
both hosts; outputs are compared row by row at the printed steps.

See docs/fmu_hosts.md.
"""
from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fmu_vehicle.numerics import elementary
from fmu_vehicle.errors import FmuVehicleError
from fmu_vehicle.util import CHILD_HANG_GUARD_S

HOST_SOURCE = Path(__file__).resolve().parent / "host" / "fmi2_host.c"


class HostError(FmuVehicleError):
    """The C host could not be built or run (no C compiler, no shared libpython, bad FMU)."""


@dataclass(frozen=True)
class Inputs:
    """Sinusoidal Real inputs ``name -> (offset, amplitude, frequency [Hz])`` and fixed parameters."""
    signals: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    reals: dict[str, float] = field(default_factory=dict)
    strings: dict[str, str] = field(default_factory=dict)
    """String parameters and Enumerations by option name (the FMPy host sets an Enumeration's item value with
    fmi2SetInteger; the C host sets the name with fmi2SetString, which the Python FMUs take with a warning)."""

    def value(self, name: str, t: float) -> float:
        off, amp, freq = self.signals[name]
        return off + amp * elementary.sin(2.0 * math.pi * freq * t)   # the C host's fv_sin: the same bits


@dataclass
class HostRun:
    """One run: exit code, printed rows (time first), the host's stderr and the wall time of its process [s]
    (start to exit; the FMU's extraction before it not included)."""
    returncode: int
    rows: np.ndarray
    stderr: str
    seconds: float = 0.0


def libpython() -> Path:
    """This interpreter's shared libpython (what LD_PRELOAD must name for a non-Python host)."""
    libdir, name = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME")
    path = Path(libdir or "") / (name or "")
    if not (name and path.is_file()):
        raise HostError(f"no shared libpython for {sys.executable} (built without --enable-shared?): "
                        f"non-Python FMI hosts cannot load pythonfmu FMUs with it")
    return path


def host_environment() -> dict[str, str]:
    """Environment for a non-Python host: LD_PRELOAD = libpython, PYTHONPATH = this interpreter's sys.path."""
    env = dict(os.environ)
    env["LD_PRELOAD"] = str(libpython())
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and Path(p).is_dir())
    env["PYTHONHOME"] = sys.base_prefix
    return env


WIN64_CC = "x86_64-w64-mingw32-gcc"
"""The cross-compiler of the win64 C host (Debian: gcc-mingw-w64-x86-64)."""


def build_host(dest: Path | None = None, platform: str = "linux64", c_flags=()) -> Path:
    """Compile the C host with the system's ``cc`` (FMI 2.0 headers from FMPy); returns the executable. With
    ``platform`` "win64", a Windows program (mingw) that loads ``binaries/win64`` and runs under wine
    (:func:`run_c_host`). ``c_flags`` are added to the compiler's (a test's sanitizer build)."""
    import fmpy

    name = os.environ.get("CC", "cc") if platform == "linux64" else WIN64_CC
    cc = shutil.which(name)
    if cc is None:
        raise HostError(f"no C compiler ({name}) on PATH: cannot build the {platform} C host")
    headers = Path(fmpy.__file__).resolve().parent / "c-code"
    default = "fmi2_host" + (".exe" if platform == "win64" else "")
    dest = Path(dest) if dest is not None else Path(tempfile.mkdtemp(prefix="fmu_vehicle_host_")) / default
    libs = ["-ldl", "-lm"] if platform == "linux64" else []
    proc = subprocess.run([cc, "-O1", "-std=c99", "-Wall", *c_flags, f"-I{headers}", str(HOST_SOURCE), "-o",
                           str(dest), *libs], capture_output=True, text=True)
    if proc.returncode != 0:
        raise HostError(f"compiling {HOST_SOURCE.name} failed: {proc.stderr.strip()}")
    return dest


def _references(md) -> dict[str, int]:
    return {v.name: v.valueReference for v in md.modelVariables}


def run_c_host(host: Path, fmu: Path, outputs: list[str], inputs: Inputs, step: float, n_steps: int,
               every: int = 1, state_check: bool = False, unload: bool = False,
               timeout: float = CHILD_HANG_GUARD_S, python: bool = True, wine_prefix: Path | None = None) -> HostRun:
    """Run ``fmu`` for ``n_steps`` steps of ``step`` seconds in the C host (its own process); with ``python``
    False (a native FMU), without LD_PRELOAD of libpython or any Python variable in its environment. A win64
    host (``.exe``) runs under wine with ``WINEPREFIX=wine_prefix``."""
    from fmpy import extract, read_model_description

    md = read_model_description(str(fmu))
    vr = _references(md)
    unknown = [n for n in [*outputs, *inputs.signals, *inputs.reals, *inputs.strings] if n not in vr]
    if unknown:
        raise HostError(f"{fmu.name}: no variables {unknown}")
    folder = Path(extract(str(fmu)))
    try:
        args = [str(host), str(folder), md.coSimulation.modelIdentifier, md.guid, repr(step), str(n_steps),
                "-e", str(every)]
        for name, value in inputs.reals.items():
            args += ["-r", f"{vr[name]}={value!r}"]
        for name, text in inputs.strings.items():
            args += ["-s", f"{vr[name]}={text}"]
        for name, (off, amp, freq) in inputs.signals.items():
            args += ["-i", f"{vr[name]}={off!r}:{amp!r}:{freq!r}"]
        for name in outputs:
            args += ["-o", str(vr[name])]
        args += (["-g"] if state_check else []) + (["-u"] if unload else []) + ["-l"]
        env = host_environment() if python else {k: v for k, v in os.environ.items()
                                                   if k != "LD_PRELOAD" and not k.startswith("PYTHON")}
        if str(host).endswith(".exe"):
            wine = shutil.which("wine64") or shutil.which("wine")
            if wine is None:
                raise HostError("running the win64 C host needs wine (not found on PATH)")
            args = [wine, *args]
            env.update(WINEPREFIX=str(wine_prefix or Path(tempfile.gettempdir()) / "fmu_vehicle_wine"),
                       WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=")
        started = time.perf_counter()
        proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout,
                              cwd=folder)
        seconds = time.perf_counter() - started
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    lines = proc.stdout.strip().splitlines()[1:]
    rows = np.array([[float(x) for x in line.split(",")] for line in lines]) if lines else np.zeros((0, 0))
    return HostRun(proc.returncode, rows, proc.stderr, seconds)


FMPY_SCRIPT = """
import json, math, sys
from fmu_vehicle.numerics.jit import pin_portable_cpu
pin_portable_cpu()      # before elementary defines compiled code: the FMU then runs the code it ships, as in a host
import numpy as np
from fmpy import extract, read_model_description
from fmu_vehicle.numerics.elementary import sin   # the C host's fv_sin: the same bits (the C library's sin is not)
from fmpy.fmi2 import FMU2Slave
spec = json.loads(sys.argv[1])
md = read_model_description(spec["fmu"]); folder = extract(spec["fmu"])
vr = {v.name: v.valueReference for v in md.modelVariables}
fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier=md.coSimulation.modelIdentifier,
                instanceName="fmpy")
fmu.instantiate(loggingOn=True); fmu.setupExperiment(startTime=0.0)
for name, value in spec["reals"].items(): fmu.setReal([vr[name]], [value])
items = {v.name: {i.name: int(i.value) for i in v.declaredType.items} for v in md.modelVariables
         if v.type == "Enumeration"}
for name, text in spec["strings"].items():      # an Enumeration by its option's item value
    if name in items: fmu.setInteger([vr[name]], [items[name][text]])
    else: fmu.setString([vr[name]], [text])
def inputs(t):
    for name, (off, amp, freq) in spec["signals"].items():
        fmu.setReal([vr[name]], [off + amp * sin(2.0 * math.pi * freq * t)])
fmu.enterInitializationMode(); inputs(0.0); fmu.exitInitializationMode()
outs = [vr[n] for n in spec["outputs"]]; step, n, every = spec["step"], spec["n_steps"], spec["every"]
rows = [[0.0, *fmu.getReal(outs)]]
for i in range(n):
    inputs(i * step); fmu.doStep(i * step, step)
    if (i + 1) % every == 0 or i + 1 == n: rows.append([(i + 1) * step, *fmu.getReal(outs)])
fmu.terminate(); fmu.freeInstance()
for row in rows: print("ROW," + ",".join(repr(float(x)) for x in row))
import shutil; shutil.rmtree(folder, ignore_errors=True)
"""


def run_fmpy(fmu: Path, outputs: list[str], inputs: Inputs, step: float, n_steps: int, every: int = 1,
             timeout: float = CHILD_HANG_GUARD_S) -> HostRun:
    """The same run through FMPy's low-level API, in a fresh Python process."""
    import json

    spec = {"fmu": str(Path(fmu).resolve()), "outputs": outputs, "reals": inputs.reals, "strings": inputs.strings,
            "signals": inputs.signals, "step": step, "n_steps": n_steps, "every": every}
    with tempfile.TemporaryDirectory(prefix="fmu_vehicle_fmpy_") as cwd:
        proc = subprocess.run([sys.executable, "-c", FMPY_SCRIPT, json.dumps(spec)], capture_output=True, text=True,
                              timeout=timeout, cwd=cwd)
    lines = [line[4:] for line in proc.stdout.splitlines() if line.startswith("ROW,")]
    rows = np.array([[float(x) for x in line.split(",")] for line in lines]) if lines else np.zeros((0, 0))
    return HostRun(proc.returncode, rows, proc.stderr + proc.stdout)


def default_outputs(fmu: Path, limit: int = 12) -> list[str]:
    """The FMU's first ``limit`` Real outputs."""
    from fmpy import read_model_description

    md = read_model_description(str(fmu))
    return [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Real"][:limit]


@dataclass
class Report:
    """What :func:`check_fmu` found."""
    fmu: Path
    c_host: list[HostRun]
    fmpy: HostRun
    max_difference: float

    @property
    def ok(self) -> bool:
        return (self.fmpy.returncode == 0 and all(r.returncode == 0 for r in self.c_host)
                and self.max_difference == 0.0)

    def lines(self) -> list[str]:
        codes = [r.returncode for r in self.c_host]
        return [f"{self.fmu.name}: C host exit codes {codes} ({codes.count(0)}/{len(codes)} ok), "
                f"FMPy exit code {self.fmpy.returncode}, largest output difference C host vs FMPy "
                f"{self.max_difference:.3g}",
                "verdict: " + ("OK" if self.ok else "PROBLEM")]


def check_fmu(fmu: Path, inputs: Inputs | None = None, outputs: list[str] | None = None, step: float = 1e-3,
              n_steps: int = 1000, every: int = 100, runs: int = 1, host: Path | None = None) -> Report:
    """Run ``fmu`` ``runs`` times in the C host (with a state save/restore check) and once in FMPy. Without
    ``host``, the C host is built into a temporary folder, removed afterwards."""
    fmu = Path(fmu)
    if host is None:
        with tempfile.TemporaryDirectory(prefix="fmu_vehicle_host_") as work:
            return check_fmu(fmu, inputs, outputs, step, n_steps, every, runs, build_host(Path(work) / "fmi2_host"))
    inputs = inputs or Inputs()
    outputs = outputs or default_outputs(fmu)
    c_runs = [run_c_host(host, fmu, outputs, inputs, step, n_steps, every, state_check=True) for _ in range(runs)]
    py = run_fmpy(fmu, outputs, inputs, step, n_steps, every)
    diffs = [np.max(np.abs(r.rows - py.rows)) if r.rows.shape == py.rows.shape and r.rows.size else math.inf
             for r in c_runs]
    return Report(fmu, c_runs, py, max(diffs, default=math.inf))
