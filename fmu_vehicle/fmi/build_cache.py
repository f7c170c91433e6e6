"""The package's FMUs, built on demand: ``ensure_fmus(names, out)`` rebuilds only what is missing or stale.

An FMU in ``out`` is current when it was built from the sources the build would read now: the source digest
recorded in its ``build_info.json`` (``fmu_vehicle.fmi.build.source_digest``: every code and data file of the
package, and the version) equals the digest of the package as it is, it runs the expected slave script, and it
ships the FMU binary a build would choose now (``fmu_vehicle.fmi.build.default_binary``).

How the FMUs are built: docs/fmus.md §1.
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Callable, Iterable

from fmu_vehicle.errors import FmuVehicleError
from fmu_vehicle.paths import dist_dir


def default_fmu_dir() -> Path:
    """Where ``build_scripts/build_fmus.py`` puts the FMUs: ``dist/fmus`` (see ``fmu_vehicle.paths.dist_dir``)."""
    return dist_dir() / "fmus"


def fmu_is_current(fmu: Path, script: Path) -> bool:
    """True if ``fmu`` was built from the current sources and runs ``script`` (module docstring)."""
    from fmu_vehicle.fmi.build import default_binary, fmu_build_info, source_digest

    try:
        info = fmu_build_info(fmu)
    except (OSError, zipfile.BadZipFile, KeyError, ValueError):
        return False
    return (info.get("sources") == source_digest() and info["slave_module"].startswith(script.stem + "_")
            and info.get("binary", "pythonfmu") == default_binary())


def ensure_fmus(names: Iterable[str], out: str | os.PathLike | None = None,
                log: Callable[[str], None] | None = None) -> dict[str, Path]:
    """Path of every FMU in ``names`` (registry names) in ``out`` (default dist/fmus), built if missing or stale.

    ``log`` receives one line per FMU built.  Raises FmuVehicleError (BuildError) if a build fails.
    """
    from fmu_vehicle.fmi.build import build_fmu
    from fmu_vehicle.fmi.registry import slave_script

    out = Path(out) if out is not None else default_fmu_dir()
    paths = {}
    for name in names:
        script = slave_script(name)
        path = out / f"{name}.fmu"
        if not fmu_is_current(path, script):
            if log is not None:
                log(f"building {path} ({'stale' if path.exists() else 'missing'})")
            path = build_fmu(script, out)
            if not fmu_is_current(path, script):
                raise FmuVehicleError(f"{path}: freshly built FMU does not match the sources "
                                      f"(were they edited during the build?)")
        paths[name] = path
    return paths
