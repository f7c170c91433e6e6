"""Where the package finds its data files (``resources/``) and writes its build products."""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent


def resources_dir() -> Path:
    """The data directory: ``$FMU_VEHICLE_RESOURCES`` if set, else ``<repo>/resources``.

    Inside an FMU the slave passes its own resources folder explicitly instead.
    """
    env = os.environ.get("FMU_VEHICLE_RESOURCES")
    return Path(env) if env else REPO_DIR / "resources"


def resource_path(*parts: str, base: str | os.PathLike | None = None) -> Path:
    """Path of a file below the resources directory (or below ``base`` when given)."""
    root = Path(base) if base is not None else resources_dir()
    return root.joinpath(*parts)


def dist_dir() -> Path:
    """Output directory for built FMUs and reports (``<repo>/dist``)."""
    return REPO_DIR / "dist"
