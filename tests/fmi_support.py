"""Shared helpers for the FMU tests: the session's one FMU folder, FMU code run in fresh processes.

``session_fmus`` builds FMUs of the registry into the session's one folder (shared by the xdist workers);
``RegisteredFmus`` is the mapping the session fixtures of ``plugins/fmus.py`` hand out. FMUs are simulated in
subprocesses that cannot import the repository's ``fmu_vehicle`` (cwd is a temp dir, PYTHONPATH is dropped), so
each FMU runs the package copy it ships (docs/fmu_hosts.md, "Each FMU brings its own code") and a crash in the
FMU cannot take pytest down.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

from timeouts import HANG_GUARD_S

#: Prepended to every child script: FMPy imports plus a low-level instance factory with a logger.
CHILD_PRELUDE = '''
import math, pickle, shutil, sys
from ctypes import byref
import numpy as np
from fmpy import read_model_description, extract, simulate_fmu
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (FMU2Slave, fmi2Terminated, fmi2CallbackFunctions, fmi2CallbackLoggerTYPE,
                       fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE, calloc, free)
from fmpy.logging import addLoggerProxy

MESSAGES = []

def _logger(env, name, status, category, message):
    MESSAGES.append((int(status), message.decode()))

CALLBACKS = fmi2CallbackFunctions()
CALLBACKS.logger = fmi2CallbackLoggerTYPE(_logger)
CALLBACKS.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
CALLBACKS.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
addLoggerProxy(byref(CALLBACKS))

class Fmu:
    """An extracted FMU; new() gives a logged FMU2Slave instance; vr maps names to value references."""
    def __init__(self, path):
        self.md = read_model_description(path)
        self.dir = extract(path)
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        # an Enumeration set by an option name: its item value (the name stays what the tests write)
        self.items = {v.name: {i.name: int(i.value) for i in v.declaredType.items}
                      for v in self.md.modelVariables if v.type == 'Enumeration'}
    def new(self, name="inst", init=True, start=None):
        f = FMU2Slave(guid=self.md.guid, unzipDirectory=self.dir,
                      modelIdentifier=self.md.coSimulation.modelIdentifier, instanceName=name)
        f.instantiate(loggingOn=True, callbacks=CALLBACKS)
        f.setupExperiment(startTime=0.0)
        for k, v in (start or {}).items():
            if k in self.items and isinstance(v, str):      # an unknown name stays a String (refused)
                v = self.items[k].get(v, v)
            setter = {float: f.setReal, int: f.setInteger, bool: f.setBoolean, str: f.setString}[type(v)]
            setter([self.vr[k]], [v])
        if init:
            f.enterInitializationMode()
            f.exitInitializationMode()
        return f

def do_step(f, t, h):
    """0 (OK) or the FMI status of a failed doStep."""
    try:
        f.doStep(t, h)
        return 0
    except FMICallException as exc:
        return exc.status
'''


def run_child(code: str, workdir: Path, **inputs) -> object:
    """Run CHILD_PRELUDE + ``code`` in a fresh interpreter; ``inputs`` are visible as INPUTS; the
    child sets ``RESULT`` (pickled back).  Raises with the child's stderr if it crashes."""
    workdir.mkdir(parents=True, exist_ok=True)
    script = workdir / "child.py"
    (workdir / "inputs.pkl").write_bytes(pickle.dumps(inputs))
    script.write_text(CHILD_PRELUDE + "\nINPUTS = pickle.load(open('inputs.pkl', 'rb'))\nRESULT = None\n"
                      + textwrap.dedent(code) + "\npickle.dump(RESULT, open('result.pkl', 'wb'))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, str(script)], cwd=workdir, env=env, capture_output=True, text=True,
                          timeout=HANG_GUARD_S)
    if proc.returncode != 0:
        raise AssertionError(f"child process failed (rc={proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return pickle.loads((workdir / "result.pkl").read_bytes())


def spawn_child(script: str, workdir: Path, inputs: dict) -> subprocess.Popen:
    """Start ``script`` (complete child code; it reads ``inputs.pkl`` and writes ``result.pkl``) in a fresh
    interpreter in ``workdir`` without waiting: children of one test module run in parallel."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "inputs.pkl").write_bytes(pickle.dumps(inputs))
    (workdir / "child.py").write_text(script)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.Popen([sys.executable, "child.py"], cwd=workdir, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def collect_child(proc: subprocess.Popen, workdir: Path, timeout: float = HANG_GUARD_S) -> dict:
    """Wait for a child of :func:`spawn_child`; its ``result.pkl`` (raises with its output if it failed)."""
    out, err = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"child in {workdir} failed (rc={proc.returncode}):\n{out}\n{err[-6000:]}")
    return pickle.loads((workdir / "result.pkl").read_bytes())


def collect_children(children: dict) -> dict:
    """{name: (process, workdir)} of children of :func:`spawn_child` -> {name: result} (:func:`collect_child`, in
    order); whatever happens, no child is left running."""
    try:
        return {name: collect_child(proc, workdir) for name, (proc, workdir) in children.items()}
    finally:
        for proc, _workdir in children.values():
            if proc.poll() is None:
                proc.kill()


def session_fmu_folder(basetemp: Path) -> Path:
    """The one folder where this test session builds its FMUs: below the session's base folder, which the
    xdist workers' own base folders (``popen-gw<N>``) sit in, so that both workers share one build of each FMU."""
    base = Path(basetemp)
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "fmus"


def session_fmus(names, basetemp: Path) -> dict[str, Path]:
    """Registry name -> path of each FMU of ``names`` in :func:`session_fmu_folder`, built there from the
    current sources if missing or stale (``ensure_fmus``); one process at a time (a lock file in the
    folder), so that the second worker finds what the first built."""
    from filelock import FileLock

    from fmu_vehicle.fmi.build_cache import ensure_fmus
    folder = session_fmu_folder(basetemp)
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(folder / ".build.lock"):
        return ensure_fmus(list(names), folder)


class RegisteredFmus(Mapping):
    """Registry name -> path of its FMU in the session's one FMU folder (:func:`session_fmus`: built there on
    first use, or reused when built from the current sources); each path is looked up once per instance, and
    the session fixture ``registered_fmus`` holds one instance per test process."""

    def __init__(self, basetemp: Path):
        self.basetemp = Path(basetemp)
        self.folder = session_fmu_folder(self.basetemp)
        self._paths: dict[str, Path] = {}

    def __getitem__(self, name: str) -> Path:
        if name not in self._paths:
            self._paths[name] = session_fmus([name], self.basetemp)[name]
        return self._paths[name]

    def __iter__(self):
        from fmu_vehicle.fmi.registry import FMUS
        return iter(FMUS)

    def __len__(self) -> int:
        from fmu_vehicle.fmi.registry import FMUS
        return len(FMUS)

    def subset(self, names) -> dict[str, Path]:
        """name -> path of each FMU of ``names``, in that order."""
        return {name: self[name] for name in names}


def simulate_in_child(fmu: Path, workdir: Path, stop_time: float, output_interval: float = 1e-3,
                      start_values: dict | None = None, input_signals=None, outputs=None):
    """``fmpy.simulate_fmu`` in a fresh process; returns the structured result array."""
    return run_child("""
        RESULT = simulate_fmu(INPUTS['fmu'], stop_time=INPUTS['stop'], output_interval=INPUTS['dt'],
                              start_values=INPUTS['start'], input=INPUTS['input'], output=INPUTS['outputs'],
                              debug_logging=False)
        """, workdir, fmu=str(fmu), stop=stop_time, dt=output_interval, start=start_values or {},
        input=input_signals, outputs=outputs)
