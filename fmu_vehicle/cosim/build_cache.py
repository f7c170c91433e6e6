"""The package's FMUs, built on demand: ``ensure_fmus(names, out)`` rebuilds only what is missing or stale.

An FMU in ``out`` is current when the files it ships equal the files the build would ship now
(``fmi/build.py``): the slave script, every file of the staged ``fmu_vehicle`` package (same ignore rules) and
every data file below the resource folders it carries.  ``fmi/build_info.json`` and ``requirements.txt`` are
derived at build time and not compared.  The GUID cannot serve as the test: it depends on the package
version only, not on the code.
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Callable, Iterable

from fmu_vehicle.errors import FmuVehicleError
from fmu_vehicle.paths import dist_dir, resources_dir

#: Files the build writes itself (not copies of repository files), relative to the FMU's resources/.
_DERIVED = {"requirements.txt", "slavemodule.txt", "fmu_vehicle/fmi/build_info.json"}
_NOT_DATA = ("fmu_vehicle", "pythonfmu")


def default_fmu_dir() -> Path:
    """Where ``build_scripts/build_fmus.py`` puts the FMUs: ``<repo>/dist/fmus``."""
    return dist_dir() / "fmus"


def _package_files() -> dict[str, Path]:
    """'fmu_vehicle/<rel>' -> source file, exactly the files ``build.py`` stages (STAGE_IGNORE applied)."""
    from fmu_vehicle.fmi.build import PACKAGE_DIR, STAGE_IGNORE

    files = {}
    for folder, dirs, names in os.walk(PACKAGE_DIR):
        ignored = STAGE_IGNORE(folder, dirs + names)
        dirs[:] = sorted(d for d in dirs if d not in ignored)
        for name in names:
            if name not in ignored:
                path = Path(folder) / name
                files[f"fmu_vehicle/{path.relative_to(PACKAGE_DIR).as_posix()}"] = path
    return files


def _data_files(folder: str) -> dict[str, Path]:
    """'<folder>/<rel>' -> file for every data file below ``resources/<folder>`` (STAGE_IGNORE applied)."""
    from fmu_vehicle.fmi.build import STAGE_IGNORE

    root = resources_dir() / folder
    files = {}
    if root.is_file():
        return {folder: root}
    for sub, dirs, names in os.walk(root):
        ignored = STAGE_IGNORE(sub, dirs + names)
        dirs[:] = sorted(d for d in dirs if d not in ignored)
        for name in names:
            if name not in ignored:
                path = Path(sub) / name
                files[(Path(folder) / path.relative_to(root)).as_posix()] = path
    return files


def fmu_is_current(fmu: Path, script: Path) -> bool:
    """True if ``fmu`` ships exactly the current ``script``, package and data files (module docstring)."""
    try:
        with zipfile.ZipFile(fmu) as archive:
            shipped = {n[len("resources/"):]: n for n in archive.namelist()
                       if n.startswith("resources/") and not n.endswith("/")}
            expected = {script.name: script, **_package_files()}
            for folder in sorted({rel.split("/")[0] for rel in shipped} - set(_NOT_DATA) - _DERIVED - {script.name}):
                if not (resources_dir() / folder).exists():
                    return False
                expected.update(_data_files(folder))
            compared = {rel for rel in shipped if rel not in _DERIVED and not rel.startswith("pythonfmu/")}
            if compared != set(expected):
                return False
            return all(archive.read(shipped[rel]) == expected[rel].read_bytes() for rel in sorted(compared))
    except (OSError, zipfile.BadZipFile, KeyError):
        return False


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
