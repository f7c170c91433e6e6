"""load_road: shipped files, dict specs, explicit resources base, and errors that list the choices."""
import json
import math
import shutil

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import resource_path
from fmu_vehicle.road import CsvRoad, FlatRoad, Iso8608Road, SlopeRoad, SpeedBumpRoad, load_road
from fmu_vehicle.road.loader import shipped_roads

ROADS_DIR = resource_path("roads")


def test_shipped_roads_load():
    assert {"flat", "bumpy", "slope16_5", "iso8608_c", "csv_example"} <= set(shipped_roads())
    assert isinstance(load_road("flat"), FlatRoad)
    slope = load_road("slope16_5.json")
    assert isinstance(slope, SlopeRoad) and slope.slope(10.0) == math.tan(math.radians(16.5)) and slope.height(0.0) == 0.0
    iso = load_road("iso8608_c")
    assert isinstance(iso, Iso8608Road) and iso.road_class == "C" and iso.length_m == 1000.0
    csv_road = load_road("csv_example")
    assert isinstance(csv_road, CsvRoad) and csv_road.mu == 0.9 and csv_road.height(16.5) == pytest.approx(0.08)


def test_bumpy_file_equals_paper_default():
    bumpy = load_road("bumpy")
    assert isinstance(bumpy, SpeedBumpRoad)
    assert bumpy.bumps == SpeedBumpRoad.paper_default().bumps
    x = np.linspace(0.0, 100.0, 5001)
    np.testing.assert_array_equal(bumpy.height(x), SpeedBumpRoad.paper_default().height(x))


def test_dict_specs():
    road = load_road({"type": "speed_bumps", "bumps": [[10.0, 0.4, 0.04]], "mu": 0.5})
    assert road.height(10.2) == pytest.approx(0.04) and road.mu == 0.5
    assert load_road({"type": "slope", "angle_deg": 16.5}).height(1.0) == pytest.approx(math.tan(math.radians(16.5)))
    assert load_road({"type": "flat"}).height(3.0) == 0.0
    assert load_road({"type": "iso8608", "road_class": "A", "seed": 2, "length_m": 100.0}).road_class == "A"
    road = load_road({"type": "csv", "path": "example_profile.csv"})        # falls back to resources/roads/
    assert road.height(16.5) == pytest.approx(0.08)
    same = FlatRoad()
    assert load_road(same) is same


def test_explicit_base_and_paths(tmp_path):
    (tmp_path / "roads").mkdir()
    (tmp_path / "roads" / "mine.json").write_text(json.dumps({"type": "flat", "mu": 0.3}))
    assert load_road("mine", base=tmp_path).mu == 0.3
    with pytest.raises(ModelError, match="shipped roads: mine;"):
        load_road("bumpy", base=tmp_path)
    # a JSON file anywhere, with its CSV beside it
    shutil.copy(ROADS_DIR / "example_profile.csv", tmp_path / "p.csv")
    spec_file = tmp_path / "elsewhere.json"
    spec_file.write_text(json.dumps({"type": "csv", "path": "p.csv"}))
    assert load_road(str(spec_file)).height(16.5) == pytest.approx(0.08)
    assert isinstance(load_road(tmp_path / "p.csv"), CsvRoad)


def test_unknown_name_type_and_key_list_choices(tmp_path):
    with pytest.raises(ModelError) as err:
        load_road("cobblestones")
    assert "bumpy" in str(err.value) and "slope16_5" in str(err.value) and "iso8608" in str(err.value)
    with pytest.raises(ModelError, match="valid types: flat, slope, speed_bumps, csv, iso8608"):
        load_road({"type": "gravel"})
    with pytest.raises(ModelError, match="unknown key.*angle.*valid keys: angle_deg"):
        load_road({"type": "slope", "angle": 16.5, "angle_deg": 1.0})
    with pytest.raises(ModelError, match="needs key.*angle_deg"):
        load_road({"type": "slope"})
    with pytest.raises(ModelError, match="must be a dict"):
        load_road(42)


def test_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "slope", "angle_deg": 95}')
    with pytest.raises(ModelError, match=r"bad\.json: SlopeRoad: angle_deg"):
        load_road(str(bad))
    broken = tmp_path / "broken.json"
    broken.write_text('{"type": "flat",\n "mu": }')
    with pytest.raises(ModelError, match=r"broken\.json: invalid JSON at line 2"):
        load_road(broken)
    nan_csv = tmp_path / "nan.csv"
    nan_csv.write_text("0,0\n1,0\n2,nan\n")
    spec = tmp_path / "uses_nan.json"
    spec.write_text(json.dumps({"type": "csv", "path": "nan.csv"}))
    with pytest.raises(ModelError, match=r"uses_nan\.json: road CSV .*nan\.csv, line 3: height is nan"):
        load_road(spec)
    with pytest.raises(ModelError, match=r"bumps\[1\]"):
        load_road({"type": "speed_bumps", "bumps": [[0, 0.5, 0.05], [0.2, 0.5, 0.05]]})


def test_a_road_file_that_refers_to_itself_is_refused_with_the_chain_of_files(tmp_path):
    """A two_track road whose track is its own file (or a file that names it back) would recurse without end
    (a RecursionError naming no file); it is refused with the chain of files, and a track file used twice
    in one road (not a cycle) still loads."""
    (tmp_path / "self.json").write_text(json.dumps({"type": "two_track", "left": "self.json", "right": "flat"}))
    (tmp_path / "a.json").write_text(json.dumps({"type": "two_track", "left": "b.json", "right": "flat"}))
    (tmp_path / "b.json").write_text(json.dumps({"type": "two_track", "left": "a.json", "right": "flat"}))
    with pytest.raises(ModelError, match=r"refers to itself \(.*self.json -> .*self.json\)"):
        load_road(str(tmp_path / "self.json"))
    with pytest.raises(ModelError) as err:
        load_road(str(tmp_path / "a.json"))
    assert f"{tmp_path / 'a.json'} -> {tmp_path / 'b.json'} -> {tmp_path / 'a.json'}" in str(err.value)
    (tmp_path / "track.json").write_text(json.dumps({"type": "flat", "height_m": 0.25}))
    (tmp_path / "both.json").write_text(json.dumps({"type": "two_track", "left": "track.json",
                                                    "right": "track.json", "x_range_m": [0.0, 10.0], "dx_m": 0.5}))
    assert load_road(str(tmp_path / "both.json")).height(3.0) == 0.25


def test_describe_has_units():
    for name in shipped_roads():
        text = load_road(name).describe()
        assert " m" in text and "mu" in text, text
