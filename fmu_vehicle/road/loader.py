"""``load_road``: a road from a spec dict, a JSON file, a CSV file or the name of a file in ``resources/roads/``.

See docs/road.md §7.
"""
from __future__ import annotations

import contextvars
import os
from pathlib import Path

from ..errors import ModelError
from ..util import read_json
from ..paths import resource_path
from .base import Road
from .csv_road import CsvRoad
from .friction import SplitFrictionRoad
from .iso8608 import COHERENCE_MODELS, Iso8608Road, Iso8608TwoTrackRoad
from .profiles import FlatRoad, SlopeRoad, SpeedBumpRoad
from .two_track import TwoTrackRoad

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
    return SpeedBumpRoad(**_kwargs(spec, ("bumps", "mu", "dx_m", "edge_width_m", "dy_m")))


def _csv(spec, where, base):
    return CsvRoad(_resolve_file(spec["path"], where, base, "csv"), **_kwargs(spec, ("mu", "dx_m")))


def _iso8608(spec, where, base):
    keys = ("road_class", "seed", "length_m", "dx_m", "waveband_cycles_per_m", "mu")
    kwargs = _kwargs(spec, keys, {"waveband_cycles_per_m": "waveband"})
    if "coherence" in spec:
        return Iso8608TwoTrackRoad(**kwargs, **_kwargs(spec, ("y_left_m", "y_right_m", "coherence")))
    given = [key for key in ("y_left_m", "y_right_m") if key in spec]
    if given:
        raise ModelError(f"iso8608: {', '.join(given)} need(s) the key coherence (one of "
                         f"{', '.join(COHERENCE_MODELS)}) for a road with left and right tracks")
    return Iso8608Road(**kwargs)


def _track(spec, key, where, base) -> Road:
    """The left or right track of a two_track spec: a spec dict, or a road name / file path (relative to the
    JSON file's folder)."""
    value = spec[key]
    context = f"two_track: {key}"
    if isinstance(value, (str, os.PathLike)):
        path = Path(value)
        if where is not None and not path.is_absolute() and (where.parent / path).is_file():
            path = where.parent / path
        try:
            return load_road(str(path), base=base)
        except ModelError as err:
            raise ModelError(f"{context}: {err}") from None
    if not isinstance(value, dict):
        raise ModelError(f"{context}: expected a road spec (a JSON object with a \"type\") or a road name, got "
                         f"{type(value).__name__}")
    for field in ("mu", *SPLIT_KEYS):
        if field in value:
            raise ModelError(f"{context}: {key}.{field} is not allowed: the friction of a two_track road is set by its "
                             "own mu (or mu_left/mu_right)")
    return _build(value, where, base, context, context)


def _two_track(spec, where, base):
    left = _track(spec, "left", where, base)
    right = _track(spec, "right", where, base)
    return TwoTrackRoad(left, right, **_kwargs(spec, ("y_left_m", "y_right_m", "mu", "dx_m", "x_range_m")))


def _opencrg(spec, where, base):
    from .opencrg import OpenCrgRoad          # the reader is an optional package: imported only for CRG roads
    return OpenCrgRoad(_resolve_file(spec["path"], where, base, "opencrg"),
                       **_kwargs(spec, ("mu", "dx_m", "dy_m", "x_range_m", "y_range_m")))


ROAD_TYPES = {
    "flat": (_flat, (), ("mu", "height_m")),
    "slope": (_slope, ("angle_deg",), ("mu", "start_x_m", "flat_before_start")),
    "speed_bumps": (_speed_bumps, ("bumps",), ("mu", "dx_m", "edge_width_m", "dy_m")),
    "csv": (_csv, ("path",), ("mu", "dx_m")),
    "iso8608": (_iso8608, (), ("road_class", "seed", "length_m", "dx_m", "waveband_cycles_per_m", "mu",
                               "coherence", "y_left_m", "y_right_m")),
    "two_track": (_two_track, ("left", "right"), ("y_left_m", "y_right_m", "mu", "dx_m", "x_range_m")),
    "opencrg": (_opencrg, ("path",), ("mu", "dx_m", "dy_m", "x_range_m", "y_range_m")),
}
"""type -> (builder, required keys, optional keys); every spec may also carry "type", "description" and the
split-friction keys ``SPLIT_KEYS``."""

SPLIT_KEYS = ("mu_left", "mu_right", "mu_split_y_m")
"""Keys of every road type that give it split friction (``friction.SplitFrictionRoad``): mu_left [-] for
y >= mu_split_y_m [m] (default 0), mu_right [-] below; a missing side keeps the road's mu."""


def shipped_roads(base: str | os.PathLike | None = None) -> list[str]:
    """Names (without .json) of the road files in ``<resources>/roads/`` (or ``<base>/roads/``)."""
    folder = resource_path(ROADS_DIR, base=base)
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def _resolve_file(path, where: Path | None, base, kind: str = "csv") -> Path:
    """A data file's path: absolute as given; relative to the JSON file's folder; for a dict spec relative to
    the working directory, else to <resources>/roads/ when the file is there."""
    if not isinstance(path, (str, os.PathLike)):
        raise ModelError(f"road {kind} spec: path must be a string, got {path!r}")
    path = Path(path)
    if path.is_absolute():
        return path
    if where is not None:
        return where.parent / path
    shipped = resource_path(ROADS_DIR, str(path), base=base)
    return shipped if not path.is_file() and shipped.is_file() else path


def _build(spec: dict, where: Path | None, base, source: str, context: str | None) -> Road:
    """Check a spec dict's type and keys (errors start with ``source``) and build its road (builder errors
    prefixed with ``context`` when given)."""
    if not isinstance(spec, dict):
        raise ModelError(f"{source}: expected a JSON object with a \"type\", got {type(spec).__name__}")
    kind = spec.get("type")
    if kind not in ROAD_TYPES:
        raise ModelError(f"{source}: \"type\" is {kind!r}; valid types: {', '.join(ROAD_TYPES)}")
    builder, required, optional = ROAD_TYPES[kind]
    missing = [key for key in required if key not in spec]
    if missing:
        raise ModelError(f"{source}: type {kind!r} needs key(s) {', '.join(missing)}")
    allowed = {"type", "description", *required, *optional, *SPLIT_KEYS}
    unknown = sorted(set(spec) - allowed)
    if unknown:
        raise ModelError(f"{source}: unknown key(s) {', '.join(unknown)} for type {kind!r}; "
                         f"valid keys: {', '.join(sorted(allowed))}")
    split = {key: spec[key] for key in SPLIT_KEYS if key in spec}
    if split and "mu_left" not in split and "mu_right" not in split:
        raise ModelError(f"{source}: mu_split_y_m needs mu_left and/or mu_right")
    try:
        road = builder({key: value for key, value in spec.items() if key not in SPLIT_KEYS}, where, base)
        if split:
            road = SplitFrictionRoad(road, split.get("mu_left"), split.get("mu_right"), split.get("mu_split_y_m", 0.0))
        return road
    except ModelError as err:
        if context is None:
            raise
        raise ModelError(f"{context}: {err}") from None


def road_from_spec(spec: dict, where: Path | None = None, base: str | os.PathLike | None = None) -> Road:
    """Build a road from a spec dict; ``where`` is the JSON file it came from (for messages and relative paths),
    ``base`` the resources directory (see ``load_road``)."""
    source = f"road file {where}" if where is not None else "road spec"
    return _build(spec, where, base, source, source if where is not None else None)


_LOADING: contextvars.ContextVar[tuple[Path, ...]] = contextvars.ContextVar("road_files_loading", default=())
"""The road files being loaded, outermost first (a two_track road loads its tracks' files inside its own)."""


def _load_json(path: Path, base=None) -> Road:
    """The road of JSON file ``path``; a file that refers to itself, directly or through its tracks' files,
    is refused with the chain of files (instead of recursing without end)."""
    chain = _LOADING.get()
    try:
        key = path.resolve()
    except OSError:
        key = path
    if key in chain:
        files = " -> ".join(str(p) for p in (*chain[chain.index(key):], key))
        raise ModelError(f"road file {path}: refers to itself ({files})")
    spec = read_json(path, "road")
    token = _LOADING.set((*chain, key))
    try:
        return road_from_spec(spec, path, base)
    finally:
        _LOADING.reset(token)


def load_road(spec, base: str | os.PathLike | None = None) -> Road:
    """A road from a spec, a file or a shipped name.

    Parameters:
        spec   a Road (returned as is); a dict such as {"type": "slope", "angle_deg": 16.5} (types: flat,
               slope, speed_bumps, csv, iso8608, two_track, opencrg; keys as in resources/roads/README.md;
               every type also takes mu_left/mu_right/mu_split_y_m for split friction); a path to a .json
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
