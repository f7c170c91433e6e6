"""``load_road``: a road from a spec dict, a JSON file, a CSV file or the name of a file in ``resources/roads/``.

See docs/road.md §7.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import ModelError
from ..paths import resource_path
from .base import Road
from .csv_road import CsvRoad
from .iso8608 import Iso8608Road
from .profiles import FlatRoad, SlopeRoad, SpeedBumpRoad

ROADS_DIR = "roads"
"""Folder below the resources directory that holds the shipped road files."""


def _kwargs(spec: dict, keys, rename=None) -> dict:
    """The spec's values for ``keys`` that are present, as keyword arguments (class defaults apply otherwise)."""
    rename = rename or {}
    return {rename.get(key, key): spec[key] for key in keys if key in spec}


def _flat(spec, where, base):
    return FlatRoad(**_kwargs(spec, ("mu", "height_m")))


def _slope(spec, where, base):
    return SlopeRoad(**_kwargs(spec, ("angle_deg", "mu", "start_x_m", "flat_before_start")))


def _speed_bumps(spec, where, base):
    return SpeedBumpRoad(**_kwargs(spec, ("bumps", "mu", "dx_m")))


def _csv(spec, where, base):
    return CsvRoad(_resolve_csv(spec["path"], where, base), **_kwargs(spec, ("mu", "dx_m")))


def _iso8608(spec, where, base):
    keys = ("road_class", "seed", "length_m", "dx_m", "waveband_cycles_per_m", "mu")
    return Iso8608Road(**_kwargs(spec, keys, {"waveband_cycles_per_m": "waveband"}))


ROAD_TYPES = {
    "flat": (_flat, (), ("mu", "height_m")),
    "slope": (_slope, ("angle_deg",), ("mu", "start_x_m", "flat_before_start")),
    "speed_bumps": (_speed_bumps, ("bumps",), ("mu", "dx_m")),
    "csv": (_csv, ("path",), ("mu", "dx_m")),
    "iso8608": (_iso8608, (), ("road_class", "seed", "length_m", "dx_m", "waveband_cycles_per_m", "mu")),
}
"""type -> (builder, required keys, optional keys); every spec may also carry "type" and "description"."""


def shipped_roads(base: str | os.PathLike | None = None) -> list[str]:
    """Names (without .json) of the road files in ``<resources>/roads/`` (or ``<base>/roads/``)."""
    folder = resource_path(ROADS_DIR, base=base)
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def _resolve_csv(path, where: Path | None, base) -> Path:
    """A CSV path: absolute as given; relative to the JSON file's folder; for a dict spec relative to the
    working directory, else to <resources>/roads/ when the file is there."""
    if not isinstance(path, (str, os.PathLike)):
        raise ModelError(f"road csv spec: path must be a string, got {path!r}")
    path = Path(path)
    if path.is_absolute():
        return path
    if where is not None:
        return where.parent / path
    shipped = resource_path(ROADS_DIR, str(path), base=base)
    return shipped if not path.is_file() and shipped.is_file() else path


def road_from_spec(spec: dict, where: Path | None = None, base: str | os.PathLike | None = None) -> Road:
    """Build a road from a spec dict; ``where`` is the JSON file it came from (for messages and relative paths),
    ``base`` the resources directory (see ``load_road``)."""
    source = f"road file {where}" if where is not None else "road spec"
    if not isinstance(spec, dict):
        raise ModelError(f"{source}: expected a JSON object with a \"type\", got {type(spec).__name__}")
    kind = spec.get("type")
    if kind not in ROAD_TYPES:
        raise ModelError(f"{source}: \"type\" is {kind!r}; valid types: {', '.join(ROAD_TYPES)}")
    builder, required, optional = ROAD_TYPES[kind]
    missing = [key for key in required if key not in spec]
    if missing:
        raise ModelError(f"{source}: type {kind!r} needs key(s) {', '.join(missing)}")
    allowed = {"type", "description", *required, *optional}
    unknown = sorted(set(spec) - allowed)
    if unknown:
        raise ModelError(f"{source}: unknown key(s) {', '.join(unknown)} for type {kind!r}; "
                         f"valid keys: {', '.join(sorted(allowed))}")
    try:
        return builder(spec, where, base)
    except ModelError as err:
        if where is None:
            raise
        raise ModelError(f"{source}: {err}") from None


def _load_json(path: Path, base=None) -> Road:
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ModelError(f"road file {path}: cannot read ({err})") from None
    except json.JSONDecodeError as err:
        raise ModelError(f"road file {path}: invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}") from None
    return road_from_spec(spec, path, base)


def load_road(spec, base: str | os.PathLike | None = None) -> Road:
    """A road from a spec, a file or a shipped name.

    Parameters:
        spec   a Road (returned as is); a dict such as {"type": "slope", "angle_deg": 16.5} (types: flat,
               slope, speed_bumps, csv, iso8608; keys as in resources/roads/README.md); a path to a .json
               road file or a .csv profile; or the name of a road file in <resources>/roads/ ("bumpy",
               "bumpy.json", "slope16_5", ...)
        base   resources directory to look names up in (an FMU passes its own resources folder);
               default: fmu_vehicle.paths.resources_dir()

    Returns:
        the Road. Unknown types, names or keys raise ModelError listing the valid choices.
    """
    if isinstance(spec, Road):
        return spec
    if isinstance(spec, dict):
        return road_from_spec(spec, base=base)
    if not isinstance(spec, (str, os.PathLike)):
        raise ModelError(f"road spec must be a dict, a file path or a road name, got {type(spec).__name__}")
    path = Path(spec)
    if path.suffix.lower() == ".csv" and path.is_file():
        return CsvRoad(path)
    if path.suffix.lower() == ".json" and path.is_file():
        return _load_json(path, base)
    name = path.name if path.suffix.lower() == ".json" else path.name + ".json"
    candidate = resource_path(ROADS_DIR, name, base=base)
    if str(path.parent) in ("", ".") and candidate.is_file():
        return _load_json(candidate, base)
    choices = ", ".join(shipped_roads(base)) or "(none found)"
    raise ModelError(f"road {str(spec)!r}: no such file, and no road named so in {resource_path(ROADS_DIR, base=base)}; "
                     f"shipped roads: {choices}; or pass a .json/.csv path or a dict with \"type\" one of "
                     f"{', '.join(ROAD_TYPES)}")
