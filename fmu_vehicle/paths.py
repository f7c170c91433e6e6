"""Where the package finds its data files (``fmu_vehicle/resources/``) and writes its build products."""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent
"""The source checkout (when the package runs from one) or the folder the package is installed in."""


def resources_dir() -> Path:
    """The data directory: ``$FMU_VEHICLE_RESOURCES`` if set, else the package's own ``resources/``
    (vehicles, tires, roads, powertrains, mechanisms: installed with the package).

    Inside an FMU the slave passes its own resources folder explicitly instead (the package copy an FMU
    ships has no data of its own, and FMUs of one build share one copy in a process).
    """
    env = os.environ.get("FMU_VEHICLE_RESOURCES")
    return Path(env) if env else PACKAGE_DIR / "resources"


def resource_path(*parts: str, base: str | os.PathLike | None = None) -> Path:
    """Path of a file below the resources directory (or below ``base`` when given)."""
    root = Path(base) if base is not None else resources_dir()
    return root.joinpath(*parts)


def in_source_checkout() -> bool:
    """True when the package runs from a source checkout (``pyproject.toml`` next to it)."""
    return (REPO_DIR / "pyproject.toml").is_file()


def dist_dir() -> Path:
    """Output directory for built FMUs and reports: ``<checkout>/dist`` in a source checkout, else
    ``./dist`` in the working directory (never inside an installed package)."""
    return REPO_DIR / "dist" if in_source_checkout() else Path.cwd() / "dist"
