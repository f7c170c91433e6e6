"""Package version and deterministic FMU GUIDs.

Inside a built FMU the package metadata and ``pyproject.toml`` are absent, so the build writes the
version into ``fmu_vehicle/fmi/build_info.json`` of the shipped copy; the same version then gives the
same GUID at build time and at run time.
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


def package_version() -> str:
    """Version of ``fmu_vehicle``: shipped build_info.json, installed metadata, or pyproject.toml."""
    if BUILD_INFO.is_file():
        return json.loads(BUILD_INFO.read_text())["version"]
    try:
        return metadata.version("fmu_vehicle")
    except metadata.PackageNotFoundError:
        pass
    if PYPROJECT.is_file():
        return tomllib.loads(PYPROJECT.read_text())["project"]["version"]
    return "0+unknown"


def fmu_guid(model_name: str, version: str, variant: str = "") -> str:
    """Deterministic GUID: uuid5 of model name, package version and variant (fmi_notes.md §1.3)."""
    return str(uuid.uuid5(GUID_NAMESPACE, f"{model_name}/{version}/{variant}"))
