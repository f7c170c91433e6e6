"""Road parameters of FMUs that carry a road (VehicleLV, Tire); kept out of slave_base so that FMUs
without a road (whose requirements are found by a static import scan) do not depend on numpy.

See docs/road.md §7.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import ModelError
from ..road import load_road
from ..road.loader import shipped_roads
from .messages import short
from .resource_files import load_file

#: A shipped road name: one file name stem in ``resources/roads`` (no separators, no dots).
ROAD_NAME = re.compile(r"^[A-Za-z0-9_\-]+$")


def road_parameter(value: str, resources: Path, allow_external: bool = False):
    """The road named by an FMU's String parameter ``road``: a shipped road name (``bumpy``), or a
    .json/.csv file inside the FMU resources (or their ``roads/`` folder); files elsewhere only with
    ``allow_external`` (``resource_files`` rules). Errors name the parameter, never the file content."""
    resources = Path(resources)
    if ROAD_NAME.match(value):
        try:
            return load_road(value, base=resources)
        except ModelError:
            raise ModelError(f"parameter 'road' = {short(value)}: no such road; shipped roads: "
                             f"{', '.join(shipped_roads(resources))}; or a .json/.csv file in the FMU "
                             f"resources") from None
    return load_file(value, "road", resources, lambda path: load_road(path, base=resources),
                     search=("roads",), allow_external=allow_external)
