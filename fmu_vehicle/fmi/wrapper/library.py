"""Compile the FMU binary of the Python FMUs (``fmi2_python.c``) for the running Python, cached per user.

``export_library()`` returns ``<cache>/fmi2python-<key>/fmi2_python.so``, compiled with the system's C compiler
(``$CC``, else ``cc``) against this interpreter's headers (``sysconfig``: ``INCLUDEPY``) and linked with its
shared libpython (``LIBDIR``, ``-lpython<LDVERSION>`` with that folder as run path), so that a host that does not
load Python itself (a C master) needs no ``LD_PRELOAD``. ``<key>`` is a hash of the source, the compiler command
and the Python build: equal keys give the same library, and a rebuild of the FMUs compiles nothing. The library
is written beside its final name and renamed, so concurrent builds never see half a file.

The library runs in the host's interpreter when there is one and starts this Python's otherwise (its
``sys.base_prefix`` is compiled in as the home used when ``PYTHONHOME`` is not set). How it forwards the fmi2
calls: ``fmi2_python.c`` and ``fmu_vehicle/fmi/wrapper/instance.py``.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from fmu_vehicle.errors import FmuVehicleError
from fmu_vehicle.util import atomic_write

SOURCE = Path(__file__).resolve().parent / "fmi2_python.c"
LIBRARY_NAME = "fmi2_python.so"
C_FLAGS = ("-O2", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter", "-fPIC", "-shared", "-fvisibility=hidden")


class WrapperBuildError(FmuVehicleError):
    """The FMU binary could not be compiled (no C compiler, no Python headers, a compiler error)."""


def compile_command(output: Path) -> list[str]:
    """The compiler command line that builds the library into ``output``."""
    name = os.environ.get("CC", "cc")
    cc = shutil.which(name)
    if cc is None:
        raise WrapperBuildError(f"no C compiler ({name}) on PATH: cannot build the FMU binary")
    include = sysconfig.get_config_var("INCLUDEPY")
    if not include or not (Path(include) / "Python.h").is_file():
        raise WrapperBuildError(f"no Python.h in {include!r} (install this Python's development headers)")
    libs = []
    libdir, version = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("LDVERSION")
    if sysconfig.get_config_var("Py_ENABLE_SHARED") and libdir:
        libs = [f"-L{libdir}", f"-lpython{version}", f"-Wl,-rpath,{libdir}"]
    home = sys.base_prefix.replace("\\", "\\\\").replace('"', '\\"')
    return [cc, *C_FLAGS, f"-I{include}", f'-DFV_PYTHON_HOME="{home}"', str(SOURCE), "-o", str(output),
            *libs, "-ldl", "-lpthread"]


def can_compile() -> bool:
    """Whether :func:`export_library` can build here: Linux, a C compiler and this Python's ``Python.h``."""
    try:
        compile_command(Path("out"))
    except WrapperBuildError:
        return False
    return sys.platform.startswith("linux")


def cache_root() -> Path:
    """The per-user cache folder of this package (``$XDG_CACHE_HOME/fmu_vehicle`` or ``~/.cache/fmu_vehicle``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fmu_vehicle"


def export_library() -> Path:
    """The compiled library for this Python (see the module docstring); compiled when not cached."""
    key_source = hashlib.sha1(SOURCE.read_bytes())
    key_source.update("\0".join(compile_command(Path("out"))).encode())
    key_source.update(sys.version.encode())
    target = cache_root() / f"fmi2python-{key_source.hexdigest()[:16]}" / LIBRARY_NAME
    if target.is_file():
        return target

    def compile_into(tmp):
        proc = subprocess.run(compile_command(Path(tmp)), capture_output=True, text=True)
        if proc.returncode != 0:
            raise WrapperBuildError(f"compiling {SOURCE.name} failed: {proc.stderr.strip()[-2000:]}")

    return atomic_write(target, compile_into, mode=None)
