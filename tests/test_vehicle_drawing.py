"""The vehicle picture (fmu_vehicle/vehicle/drawing.py): the dimensions it annotates come from the vehicle's
files, read independently with json and a regex (vehicle_files.py); a changed vehicle file gives a changed
picture; the README's picture and numbers are those of the shipped full car."""
from __future__ import annotations

import json

import pytest

from fmu_vehicle.paths import REPO_DIR, resource_path
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.drawing import draw_vehicle
from vehicle_files import PNG_MAGIC, file_dimensions


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
