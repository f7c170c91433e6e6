"""Package version, build information and deterministic FMU GUIDs.

Inside a built FMU the package metadata and ``pyproject.toml`` are absent, so the build writes
``fmi/build_info.json`` into the shipped copy of the package: the version, the digest of the sources the
FMU was built from (``fmu_vehicle.fmi.build.source_digest``) and the Python/numba versions its compiled
code was made with. The same information gives the same GUID at build time and at run time; FMUs built
from different sources have different GUIDs even when the version string is the same.

See docs/fmus.md §1.
"""
from __future__ import annotations

import json
import tomllib
import uuid
from importlib import metadata
from pathlib import Path

BUILD_INFO = Path(__file__).resolve().parent / "build_info.json"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
GUID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://fmu-vehicle.invalid/fmu")


_BUILD_INFO: dict = json.loads(BUILD_INFO.read_text()) if BUILD_INFO.is_file() else {}
"""``build_info.json`` as it was when this module was imported: a host may delete an FMU's extraction folder
after a run while the imported package goes on serving the next instances of the same build (read now, a
later instance would have found no file and taken another version and GUID)."""


def build_info() -> dict:
    """The shipped ``build_info.json`` (inside an FMU), else {}."""
    return dict(_BUILD_INFO)


def package_version() -> str:
    """Version of ``fmu_vehicle``: shipped build_info.json, installed metadata, or pyproject.toml."""
    if _BUILD_INFO:
        return _BUILD_INFO["version"]
    try:
        return metadata.version("fmu_vehicle")
    except metadata.PackageNotFoundError:
        pass
    if PYPROJECT.is_file():
        return tomllib.loads(PYPROJECT.read_text())["project"]["version"]
    return "0+unknown"


def fmu_guid(model_name: str, version: str, variant: str = "", sources: str = "") -> str:
    """Deterministic GUID: uuid5 of model name, package version, variant and source digest."""
    return str(uuid.uuid5(GUID_NAMESPACE, f"{model_name}/{version}/{variant}/{sources}"))
