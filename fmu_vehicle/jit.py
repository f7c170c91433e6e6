"""The package's numba entry point: ``njit`` with an on-disk cache that survives copies of the package.

numba keys its cache on a function's absolute source path and modification time, so a copy of the
package (an FMU extracted into a fresh temporary folder) would recompile everything (about a minute).
:class:`PackageCacheLocator` files the cache of every kernel of this package under
``fmu_vehicle.CACHE_DIR/<path inside the package>`` stamped by the file's content, so any copy of the same
sources reuses it. ``fmu_vehicle/__init__.py`` sets ``CACHE_DIR`` to a folder keyed by a hash of all package
sources (each copy of the package, e.g. one inside an FMU, has its own). Import ``njit`` from here in every hot module.

Engine functions that take the ``(model, data)`` namedtuples are ``njit(inline="always")``: numba passes
a tuple argument flattened into its members' fields (about 690 machine words for model + data), so each
non-inlined call pushed all of them on the stack. Inlined into their caller they cost nothing.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba
from numba.core import caching

_PKG = Path(__file__).resolve().parent


class PackageCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Cache location/stamp independent of where this copy of the package lives."""

    def __init__(self, py_func, py_file, rel: Path, root: str):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(root, *rel.parent.parts)

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return hashlib.sha1(Path(self._py_file).read_bytes()).hexdigest()

    @classmethod
    def from_function(cls, py_func, py_file):
        from . import CACHE_DIR as root
        if not root:
            return None
        try:
            rel = Path(py_file).resolve().relative_to(_PKG)
        except ValueError:
            return None
        self = cls(py_func, py_file, rel, root)
        try:
            self.ensure_cache_path()
        except OSError:
            return None
        return self


if PackageCacheLocator not in caching.CacheImpl._locator_classes:
    caching.CacheImpl._locator_classes.insert(0, PackageCacheLocator)


PORTABLE_CPU = "generic"
"""LLVM CPU name of the code an FMU ships (baseline x86-64: runs on any x86-64 machine)."""


def use_portable_target() -> str | None:
    """Inside an FMU with usable shipped kernels (``fmu_vehicle.shipped_cache_usable``), compile for and load
    the portable CPU target, so the kernels compiled at build time are found in the cache; returns a
    message to log when the code will be compiled here instead (None when the shipped code is used).

    numba fixes its CPU target when it first compiles or loads code in a process; a host that already did
    so (natively) gets native code, compiled now and cached per user. ``FMU_VEHICLE_NATIVE=1`` asks for
    native code (faster once compiled; the first instance compiles for about a minute).
    """
    from numba.core import config, registry

    from . import shipped_cache_usable
    if not shipped_cache_usable(_PKG):
        return None if not (_PKG.parent / "numba_cache").is_dir() else (
            "the compiled code shipped in this FMU is for another Python or numba version: compiling the "
            "model for this machine (about a minute, cached for later instances)")
    if os.environ.get("FMU_VEHICLE_NATIVE") == "1":
        return "FMU_VEHICLE_NATIVE=1: compiling the model for this CPU (about a minute once, then cached)"
    if "_toplevel_target_context" not in registry.cpu_target.__dict__:
        config.CPU_NAME, config.CPU_FEATURES = PORTABLE_CPU, ""
    if config.CPU_NAME != PORTABLE_CPU:
        return ("numba in this process already compiles for the native CPU: compiling the model for it "
                "(about a minute once, then cached)")
    return None


def njit(*args, allocates: bool = False, **kwargs):
    """``numba.njit`` with ``cache=True`` and without numba's runtime (NRT) reference counting by default.

    Hot kernels allocate nothing, so they are compiled with ``_nrt=False``: with NRT every array reaching
    a compiled function (each member of the ``model``/``data`` namedtuples, about 90 arrays, on every
    call, and every view such as ``data.tmp[k]``) costs an atomic increment and decrement of its
    reference count, which took about 95 % of a vehicle derivative evaluation when measured. A kernel that
    creates arrays declares ``allocates=True`` (numba refuses to compile an allocation without NRT).
    Runs uncompiled with NUMBA_DISABLE_JIT=1.
    """
    kwargs.setdefault("cache", True)
    kwargs.setdefault("_nrt", bool(allocates))
    return numba.njit(*args, **kwargs)


def entry_point(dispatcher, *args):
    """The compiled entry point of ``dispatcher`` for the types of ``args`` (loaded from the cache or
    compiled now), or the plain function when numba is disabled.

    Calling it skips the dispatcher's per-call type resolution, which for the nested namedtuples of a
    vehicle costs about 7 us against 0.7 us for unboxing them (and a stepping FMU calls once per
    communication step). Every later call must pass arguments of exactly these types.
    """
    if not isinstance(dispatcher, numba.core.dispatcher.Dispatcher):
        return dispatcher
    return dispatcher.compile(tuple(dispatcher.typeof_pyval(a) for a in args))


COMPILE_NOTICE: str | None = use_portable_target()
"""Why the model will be compiled in this process although it runs from an FMU that ships compiled code
(None: the shipped code is used, or this is not an FMU). Logged by the FMU at initialization."""
