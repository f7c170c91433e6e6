"""The disk cache of the compiled kernels: where this copy of the package keeps them, the kernels an FMU ships
adopted into it, and the pruning of folders no copy uses any more.

Nothing happens at import: the folder is chosen, created and pruned at the first :func:`cache_dir` call (the
first kernel module's decoration asks for it, ``numerics.jit._cache_folder``).
"""
from __future__ import annotations

import os
from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent
"""This copy's package folder (``fmu_vehicle``, or an FMU's renamed copy ``_fmu_vehicle_<digest>``)."""
_UNSET = object()
_CACHE_DIR = _UNSET


def cache_dir() -> str | None:
    """Folder of this copy's compiled kernels (``numerics.jit._cache_folder``); None: no disk cache.
    Chosen at the first call (:func:`_numba_cache_dir`), the same for the rest of the process."""
    global _CACHE_DIR
    if _CACHE_DIR is _UNSET:
        _CACHE_DIR = _numba_cache_dir()
    return _CACHE_DIR


def _numba_cache_dir() -> str | None:
    """The folder of this copy's compiled kernels: ``$FMU_VEHICLE_CACHE_DIR`` if set (used as is), else a
    per-user folder keyed by this copy's package name and the Python and numba versions.

    The sources are not part of the folder's key: each kernel's cache entry is stamped by the sources it
    depends on (``fmu_vehicle.numerics.jit.source_key``), so an edit recompiles only the kernels it reaches and the
    folder outlives edits. A stable per-user folder also serves FMUs extracted into fresh temporary
    directories. The folder belongs to this copy of the package: an FMU's copy (renamed
    ``_fmu_vehicle_<digest>``, other sources) in the same process has its own, so the two never write each
    other's index files. numba's own ``NUMBA_CACHE_DIR`` is left to functions outside the package.
    """
    import hashlib
    import platform
    from importlib import metadata

    pkg = _PKG
    explicit = os.environ.get("FMU_VEHICLE_CACHE_DIR")
    if explicit:
        return explicit
    try:
        numba_version = metadata.version("numba")
    except metadata.PackageNotFoundError:
        numba_version = "none"
    key = f"{_PKG.name}\0{platform.python_version()}\0{numba_version}"
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "fmu_vehicle"
    folder = root / f"numba-{hashlib.sha1(key.encode()).hexdigest()[:16]}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)                   # last use, for _prune_caches
    except OSError:
        return None
    _prune_caches(root, folder)
    if pkg.parent.parent == root / PACKAGES:       # unpacked from an FMU's package archive: mark it used
        try:
            os.utime(pkg.parent)
        except OSError:
            pass
    _prune_caches(root / PACKAGES, pkg.parent, "*")
    if shipped_cache_usable(pkg):
        _ADOPTED.add((pkg.parent / SHIPPED_CACHE).resolve())     # adopt_fmu_cache need not do it again
        _adopt_shipped_cache(pkg.parent / SHIPPED_CACHE, folder)
    return str(folder)


PACKAGES = "packages"
"""Folder below the per-user cache root where an FMU's slave script unpacks the package archive the FMU ships,
once per machine (``fmu_vehicle.fmi.build.PROLOGUE``), one folder per archive."""

SHIPPED_CACHE = "numba_cache"
"""Folder next to the package copy inside an FMU that holds the kernels compiled at build time for a portable
CPU target (``fmu_vehicle.fmi.build``): the files of a cache folder in one archive, SHIPPED_KERNELS."""

SHIPPED_KERNELS = "kernels.zip"
"""The archive in SHIPPED_CACHE (one file: a host extracts the whole FMU at every run)."""


def shipped_cache_usable(pkg) -> bool:
    """True inside an FMU whose shipped compiled code matches this interpreter (same Python and numba
    versions as at build time; numba refuses its cache files otherwise)."""
    return (pkg.parent / SHIPPED_CACHE / SHIPPED_KERNELS).is_file() and built_for_this_interpreter(pkg)


def built_for_this_interpreter(pkg) -> bool:
    """True for a package copy inside an FMU built with this interpreter's Python and numba versions (its
    FMUs' shipped compiled code, if any, is usable here)."""
    import json
    import platform
    from importlib import metadata

    info = pkg / "fmi" / "build_info.json"
    if not info.is_file():
        return False
    try:
        built = json.loads(info.read_text())
        return (built.get("python") == platform.python_version() and
                built.get("numba") == metadata.version("numba"))
    except (OSError, ValueError, metadata.PackageNotFoundError):
        return False


def adopt_fmu_cache(resources) -> None:
    """Copy the compiled kernels shipped in the FMU whose resources folder is ``resources`` into this
    package copy's cache folder, once per folder and process.

    The FMUs of one build share one package copy per process, imported from the folder of the first one
    instantiated: when that FMU ships no kernels (e.g. the Controller), the package found none to adopt at
    import, and a vehicle or tire FMU instantiated later brings its own here."""
    from pathlib import Path

    shipped = (Path(resources) / SHIPPED_CACHE).resolve() if resources else None
    if (shipped is None or cache_dir() is None or shipped in _ADOPTED or not (shipped / SHIPPED_KERNELS).is_file()
            or not built_for_this_interpreter(_PKG)):
        return
    _ADOPTED.add(shipped)
    _adopt_shipped_cache(shipped, Path(cache_dir()))


_ADOPTED: set = set()


def _adopt_shipped_cache(shipped, folder) -> None:
    """Copy the FMU's precompiled kernels (the archive SHIPPED_KERNELS in the folder ``shipped``) into the
    per-user cache folder (files already there are kept)."""
    import zipfile
    from pathlib import PurePosixPath

    from ..util import atomic_write

    try:
        with zipfile.ZipFile(shipped / SHIPPED_KERNELS) as archive:
            for name in archive.namelist():
                rel = PurePosixPath(name)
                if name.endswith("/") or rel.is_absolute() or ".." in rel.parts:
                    continue
                dst = folder.joinpath(*rel.parts)
                if not dst.exists():
                    # atomically: another process may be adopting the same files
                    atomic_write(dst, lambda stream, name=name: stream.write(archive.read(name)), mode="wb")
    except (OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError):
        # an unreadable archive, or one whose compression this Python cannot read (built without lzma):
        # the kernels are then compiled at their first use, as for an FMU that ships none
        pass


KEEP_OTHER_CACHES = 2
"""Cache folders of other package copies or versions kept regardless of age (the most recently used ones)."""
MAX_IDLE_S = 86400.0
"""Other cache folders unused for longer than this [s] are deleted (each holds 20-30 MB of machine code)."""


def _prune_caches(root, current, pattern: str = "numba-*", accept=lambda folder: True) -> None:
    """Delete the folders in ``root`` matching ``pattern`` (and ``accept``) other than ``current`` that are unused
    for MAX_IDLE_S, except the KEEP_OTHER_CACHES most recently used: the numba cache folders of other package
    copies (FMUs of other sources, other Python or numba versions), with ``pattern="*"`` in PACKAGES the unpacked
    package copies of other FMU builds, and the folders of a module's other source keys (``jit._use_and_prune``).
    Errors are ignored: the cache is an optimization, and another process may be pruning too."""
    import shutil
    import time

    try:
        stamped = []
        for d in root.glob(pattern):
            if d != current and accept(d) and d.is_dir():
                stamped.append((d.stat().st_mtime, d))
    except OSError:
        return
    stamped.sort(reverse=True)
    now = time.time()
    for mtime, d in stamped[KEEP_OTHER_CACHES:]:
        if now - mtime > MAX_IDLE_S:
            shutil.rmtree(d, ignore_errors=True)
