"""Road parameters of FMUs that carry a road (VehicleLV, Tire); kept out of slave_base so that FMUs
without a road (whose requirements are found by a static import scan) do not depend on numpy."""
from __future__ import annotations

from pathlib import Path

from ..errors import ModelError
from ..road import load_road


def road_parameter(value: str, resources: Path):
    """The road named by an FMU's String parameter ``road``: a shipped road name, a file in the FMU
    resources (or their ``roads/`` folder), or an absolute path. Errors name the parameter."""
    path = Path(value)
    spec = value
    if path.is_absolute():
        spec = path
    elif path.suffix:
        found = [p for p in (resources / path, resources / "roads" / path) if p.is_file()]
        if not found:
            raise ModelError(f"parameter 'road' = {value!r}: no such file in the FMU resources "
                             f"({resources} or {resources / 'roads'})")
        spec = found[0]
    try:
        return load_road(spec, base=resources)
    except ModelError as exc:
        raise ModelError(f"parameter 'road' = {value!r}: {exc}") from None
