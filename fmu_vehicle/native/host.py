"""Running a native step library outside Python: the reference host ``c/step_host.c`` and its input files.

:func:`write_run` writes the run file of ``step_host`` (the initial stepper state: y, work, saved, row, and
where the instance's key array is), :func:`compile_host` builds the program for a target, :func:`run_host`
runs it (under ``wine`` for win64, in a private ``WINEPREFIX``) and returns its rows and summary line.
The file formats are described in ``c/step_host.c`` and ``layout``.

See docs/native.md §4.
"""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .emit import C_DIR, TARGETS, NativeBuildError, Target

HOST_C = C_DIR / "step_host.c"
RUN_MAGIC = b"FVRUN001"


def write_run(path, n_steps: int, substeps: int, key_word: int, t0: float, h: float, y, work, saved, row) -> Path:
    """The run file of ``step_host``: ``n_steps`` communication steps of ``h`` [s] from ``t0`` [s], each in
    ``substeps`` RK4 steps, from the stepper state (y, work (5, n), saved, row); ``key_word`` is the image
    word holding the key array's data pointer (``layout.Image.field``: word + ``ARRAY_DATA``)."""
    parts = [RUN_MAGIC, struct.pack("<3q2d", n_steps, substeps, key_word, t0, h)]
    parts += [np.ascontiguousarray(a, dtype="<f8").tobytes() for a in (y, work, saved, row)]
    Path(path).write_bytes(b"".join(parts))
    return Path(path)


def compile_host(target: Target, out_dir) -> Path:
    """``c/step_host.c`` compiled for ``target`` (links libdl on Linux, nothing else)."""
    exe = Path(out_dir) / ("step_host.exe" if target.name == "win64" else "step_host")
    libs = [] if target.name == "win64" else ["-ldl"]
    cmd = [target.cc, "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", str(exe), str(HOST_C), *libs]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise NativeBuildError(f"{' '.join(cmd)} failed:\n{proc.stderr[-4000:]}")
    return exe


def wine() -> str | None:
    """The wine program that runs 64-bit Windows programs here, or None."""
    return shutil.which("wine64") or shutil.which("wine")


class HostRun(NamedTuple):
    """What ``step_host`` did: exit code, its summary line's fields, rows [n_steps x n_outputs], stderr."""
    returncode: int
    summary: dict
    rows: np.ndarray
    stderr: str


def run_host(exe, library, image_file, run_file, rows_file, n_outputs: int, target: Target = TARGETS["linux64"],
             wine_prefix=None) -> HostRun:
    """Run ``step_host`` (under wine for win64, with ``WINEPREFIX=wine_prefix``) and read its rows."""
    cmd = [str(exe), str(library), str(image_file), str(run_file), str(rows_file)]
    env = dict(os.environ)
    if target.name == "win64":
        w = wine()
        if w is None:
            raise NativeBuildError("running a win64 program needs wine (not found on PATH)")
        cmd = [w, *cmd]
        env.update(WINEPREFIX=str(wine_prefix), WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("status=")), "")
    summary = dict(kv.split("=", 1) for kv in line.split())
    raw = Path(rows_file).read_bytes() if Path(rows_file).is_file() else b""
    rows = np.frombuffer(raw, dtype="<f8").reshape(-1, n_outputs)
    return HostRun(proc.returncode, summary, rows, proc.stderr)
