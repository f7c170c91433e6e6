"""The vehicle picture (fmu_vehicle/vehicle/drawing.py): the dimensions it annotates come from the vehicle's
files, read here independently with json and a regex; a changed vehicle file gives a changed picture; the
README's picture and numbers are those of the shipped full car."""
from __future__ import annotations

import json
import re

import pytest

from fmu_vehicle.paths import REPO_DIR, resource_path
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.drawing import draw_vehicle

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


@pytest.mark.parametrize("name", ["fullcar14", "halfcar7"])
def test_annotated_dimensions_are_the_vehicle_files(name, tmp_path):
    path = tmp_path / f"{name}.png"
    dims = draw_vehicle(Vehicle.load(name), path)
    expected = file_dimensions(resource_path("vehicles", f"{name}.json"))
    for key, value in expected.items():
        assert dims[key] == pytest.approx(value, abs=1e-12), key
    assert dims["wheelbase_m"] == pytest.approx(4.1584, abs=1e-12) and dims["track_m"] == pytest.approx(2.3934)
    assert path.read_bytes()[:8] == PNG_MAGIC and path.stat().st_size > 20_000


def test_a_changed_vehicle_file_changes_the_picture(tmp_path):
    """A copy of fullcar14.json with a 3.0 m wheelbase, a 0.60 m high centre of mass and 2000 kg of chassis,
    loaded by path: the picture says so."""
    data = json.loads(resource_path("vehicles", "fullcar14.json").read_text())
    data["name"] = "mycar"
    data["chassis"]["mass_kg"] = 2000.0
    data["chassis"]["com_m"][2] = 0.60
    for corner in data["corners"]:
        if corner["name"] in ("RL", "RR"):
            corner["wheel_center_m"][0] = -3.0
    own = tmp_path / "mycar.json"
    own.write_text(json.dumps(data))
    dims = draw_vehicle(Vehicle.load(own), tmp_path / "mycar.png")
    assert dims["wheelbase_m"] == pytest.approx(3.0, abs=1e-12)
    assert dims["com_height_m"] == pytest.approx(0.60, abs=1e-12)
    assert dims["mass_kg"] == pytest.approx(2000.0 + 2486.0 - 2254.0, abs=1e-9)
    assert dims == pytest.approx(file_dimensions(own) | {"mass_kg": dims["mass_kg"]})


def test_the_readme_shows_the_full_car_picture_with_its_numbers(tmp_path):
    dims = draw_vehicle(Vehicle.load("fullcar14"), tmp_path / "fullcar14.png")
    committed = REPO_DIR / "docs" / "img" / "fullcar14.png"
    assert committed.read_bytes()[:8] == PNG_MAGIC
    readme = " ".join((REPO_DIR / "README.md").read_text(encoding="utf-8").split())
    assert "](docs/img/fullcar14.png)" in readme
    for text in (f"wheelbase {dims['wheelbase_m']} m", f"track {dims['track_m']} m",
                 f"radius {dims['tire_radius_m']} m", f"centre of mass {dims['com_height_m']} m high",
                 f"{dims['com_behind_front_axle_m']} m behind the front axle", f"{dims['mass_kg']:.0f} kg"):
        assert text in readme, text
