"""What the vehicle tests read from files by hand (no tests here): ``file_dimensions`` of a vehicle file and
``PNG_MAGIC``, the signature a drawn PNG starts with; used by test_vehicle_drawing.py and test_vehicle_midsize.py."""
from __future__ import annotations

import json
import re

from fmu_vehicle.paths import resource_path

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def file_dimensions(path) -> dict[str, float]:
    """The dimensions of a (non-variant) vehicle file by hand: wheel centres, chassis CoM, tire radius."""
    data = json.loads(path.read_text())
    centers = [c["wheel_center_m"] for c in data["corners"]]
    xs = [c[0] for c in centers]
    front_ys = [c[1] for c in centers if c[0] == max(xs)]
    track = max(front_ys) - min(front_ys) if len(front_ys) > 1 else 2.0 * abs(front_ys[0])
    radii = set()
    for corner in data["corners"]:
        tire = resource_path("tires", corner["tire"]).read_text()
        radii.add(float(re.search(r"^UNLOADED_RADIUS\s*=\s*([0-9.eE+-]+)", tire, re.M).group(1)))
    assert len(radii) == 1
    return {"wheelbase_m": max(xs) - min(xs), "track_m": track, "tire_radius_m": radii.pop(),
            "com_height_m": data["chassis"]["com_m"][2], "com_behind_front_axle_m": max(xs) - data["chassis"]["com_m"][0]}
