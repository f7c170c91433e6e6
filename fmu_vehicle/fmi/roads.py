"""Road parameters of FMUs that carry a road (VehicleLV, Tire); kept out of slave_base so that FMUs
without a road (whose requirements are found by a static import scan) do not depend on numpy.

See docs/road.md §7.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import ModelError
from ..road import load_road
from .messages import short
from .resource_files import load_file

SHIPPED_ROADS = ("bumpy", "csv_example", "flat", "iso8608_c", "iso8608_c_two_track", "one_sided_bumps", "slope16_5",
                 "split_mu", "two_track_example", "low_mu")
"""The road files shipped in ``resources/roads`` (``road.loader.shipped_roads``): the options of the ``road``
enumeration of the FMUs that carry a road, in this order (item values 1, 2, ...): the first nine in name order,
later ones appended, so that a system file's item values stay valid."""


def road_parameters(road) -> dict[str, str]:
    """The parameters of an FMU with a road that give it ``road``: ``{"road": name}`` for a shipped road name
    (the enumeration, which every host sets), else ``{"road_file": path}`` (a user's file)."""
    text = str(road)
    return {"road": text} if text in SHIPPED_ROADS else {"road_file": text}


def road_parameter(road: str, road_file: str, resources: Path, allow_external: bool = False):
    """The road of an FMU's parameters: ``road_file`` when it is not empty (a user's .json/.csv file inside the
    FMU resources or their ``roads/`` folder; files elsewhere only with ``allow_external``, ``resource_files``
    rules), else the shipped road named by the enumeration ``road`` (one of ``SHIPPED_ROADS``). Errors name the
    parameter, never the file content."""
    resources = Path(resources)
    if road_file.strip():
        return load_file(road_file, "road_file", resources, lambda path: load_road(path, base=resources),
                         search=("roads",), allow_external=allow_external)
    try:
        return load_road(road, base=resources)
    except ModelError as exc:
        raise ModelError(f"parameter 'road' = {short(road)}: {exc}") from None
