"""util.read_json, the one reader of the package's JSON data files: nesting is bounded. A road file nested
100,000 deep made json raise a bare RecursionError ("maximum recursion depth exceeded while decoding a JSON
array") naming neither the file nor the parameter; it is now a ModelError naming the file and how deep it is
nested, and so is a file that parses but nests deeper than MAX_JSON_DEPTH (the shipped files nest at most 6
deep), so that no reader recursing over the document can run out of stack either."""
from __future__ import annotations

import json

import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.road.loader import load_road
from fmu_vehicle.util import MAX_JSON_DEPTH, json_depth, read_json


def test_a_road_nested_100000_deep_is_refused_naming_the_file_and_the_nesting(tmp_path):
    road = tmp_path / "deep_road.json"
    road.write_text('{"type": "flat", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ModelError) as err:
        load_road(str(road))
    message = str(err.value)
    assert str(road) in message and "nested 100001 deep" in message and f"at most {MAX_JSON_DEPTH}" in message
    assert "RecursionError" not in message
    with pytest.raises(ModelError, match=r"deep_road\.json: road file nested 100001 deep"):
        read_json(road, "road")


def test_nesting_is_bounded_even_where_json_parses(tmp_path):
    path = tmp_path / "x.json"
    for depth, ok in ((MAX_JSON_DEPTH, True), (MAX_JSON_DEPTH + 1, False), (900, False)):
        path.write_text("[" * depth + "1" + "]" * depth)
        if ok:
            assert json_depth(read_json(path, "test")) == depth
        else:
            with pytest.raises(ModelError, match=rf"x\.json: test file nested {depth} deep \(at most {MAX_JSON_DEPTH}"):
                read_json(path, "test")


def test_depth_counts_arrays_and_objects_not_strings(tmp_path):
    assert json_depth(json.loads('{"a": [1, {"b": "[[[[["}], "c": {}}')) == 3
    assert json_depth(5) == 0 and json_depth([]) == 1
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"text": "[" * 10_000}))             # brackets inside a string do not nest
    assert read_json(path, "test") == {"text": "[" * 10_000}
