"""Bad mechanism data: one ModelError whose message names the file, the entry and the reason; the
caller's data is left untouched and no mechanism object comes back."""
import copy
import json

import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.multibody import Mechanism
from reference.states import mechanism_dict


def fourbar():
    return mechanism_dict("rssr_fourbar")


def body(d, name):
    return next(b for b in d["bodies"] if b["name"] == name)


def joint(d, name):
    return next(j for j in d["joints"] if j["name"] == name)


def missing_mass(d):
    del body(d, "coupler")["mass_kg"]


def negative_mass(d):
    body(d, "rocker")["mass_kg"] = -0.6


def negative_inertia(d):
    body(d, "crank")["inertia_kg_m2"]["yy"] = -1e-3


def impossible_inertia(d):
    body(d, "crank")["inertia_kg_m2"].update(xx=1e-4, yy=1e-4, zz=5e-3, xy=0.0, yz=0.0)


def unknown_body(d):
    joint(d, "rocker")["parent"] = "grund"


def unconnected_body(d):
    d["bodies"].append({"name": "loose_weight", "mass_kg": 1.0, "com_m": [0, 0, 1],
                        "inertia_kg_m2": {"xx": 1e-3, "yy": 1e-3, "zz": 1e-3}})


def named_cut_leaves_a_loop(d):
    """A second link closes another loop; only the first loop's joint is marked cut."""
    d["bodies"].append({"name": "link2", "mass_kg": 0.3, "com_m": [0.1, 0.1, 0.07],
                        "inertia_kg_m2": {"xx": 1e-4, "yy": 1e-4, "zz": 1e-4}})
    d["joints"] += [
        {"name": "link2_base", "type": "revolute", "parent": "ground", "child": "link2",
         "point_m": [0.2, 0.0, 0.0], "axis": [0, 0, 1]},
        {"name": "link2_tip", "type": "spherical", "parent": "coupler", "child": "link2",
         "point_m": [0.06, 0.14, 0.07]}]


def revolute_loop(d):
    """A planar four-bar of revolute joints only: no joint can be cut."""
    d.clear()
    d.update({"name": "planar_fourbar", "bodies": [
        {"name": n, "mass_kg": 1.0, "com_m": c, "inertia_kg_m2": {"xx": 1e-3, "yy": 1e-3, "zz": 1e-3}}
        for n, c in (("crank", [0.05, 0, 0]), ("coupler", [0.2, 0.1, 0]), ("rocker", [0.35, 0.05, 0]))],
        "joints": [
            {"name": "A", "type": "revolute", "parent": "ground", "child": "crank", "point_m": [0, 0, 0], "axis": [0, 0, 1]},
            {"name": "B", "type": "revolute", "parent": "crank", "child": "coupler", "point_m": [0.1, 0, 0], "axis": [0, 0, 1]},
            {"name": "C", "type": "revolute", "parent": "coupler", "child": "rocker", "point_m": [0.3, 0.2, 0], "axis": [0, 0, 1]},
            {"name": "D", "type": "revolute", "parent": "ground", "child": "rocker", "point_m": [0.4, 0, 0], "axis": [0, 0, 1]}]})


def missing_joints(d):
    del d["joints"]


def unknown_joint_type(d):
    joint(d, "rocker")["type"] = "hinge"


def rod_to_unknown_body(d):
    d["rods"] = [{"name": "strut", "body_a": "crank", "point_a_m": [0.05, 0, 0], "body_b": "rockr",
                  "point_b_m": [0.04, 0.28, 0.1], "mass_kg": 0.1}]


CASES = [   # (mutation, words the message must contain)
    (missing_mass, ["bodies[1] 'coupler'", "missing field 'mass_kg'"]),
    (negative_mass, ["bodies[2] 'rocker'", "negative mass"]),
    (negative_inertia, ["bodies[0] 'crank'", "inertia_kg_m2", "not positive semi-definite"]),
    (impossible_inertia, ["bodies[0] 'crank'", "inertia_kg_m2", "I1 + I2 >= I3"]),
    (unknown_body, ["joints[2] 'rocker'", "unknown body 'grund'"]),
    (unconnected_body, ["body 'loose_weight'", "not connected"]),
    (named_cut_leaves_a_loop, ["loop with no closure", "'link2_tip'"]),
    (revolute_loop, ["loop with no closure", "joint 'D' (revolute)"]),
    (missing_joints, ["top level", "missing field 'joints'"]),
    (unknown_joint_type, ["joints[2] 'rocker'", "unknown joint type 'hinge'"]),
    (rod_to_unknown_body, ["rod 'strut'", "unknown body 'rockr'"]),
]


@pytest.mark.parametrize("mutate, words", CASES, ids=[c[0].__name__ for c in CASES])
def test_bad_data_raises_one_clear_error(mutate, words, tmp_path):
    d = fourbar()
    mutate(d)
    before = copy.deepcopy(d)
    result = None
    with pytest.raises(ModelError) as err:
        result = Mechanism.from_dict(d, source="bad.json")
    msg = str(err.value)
    assert msg.startswith("bad.json: ") and "\n" not in msg
    for w in words:
        assert w in msg, msg
    assert result is None and d == before          # nothing built, caller's data untouched
    # the same from a file names the file
    path = tmp_path / "bad_mechanism.json"
    path.write_text(json.dumps(d))
    with pytest.raises(ModelError, match=str(path).replace("\\", "\\\\")):
        Mechanism.from_file(path)


def test_invalid_json_names_file_and_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "name": "x",\n  "bodies": [,]\n}\n')
    with pytest.raises(ModelError, match=r"broken\.json: invalid JSON at line 3"):
        Mechanism.from_file(path)


def test_missing_file_is_a_model_error(tmp_path):
    with pytest.raises(ModelError, match="cannot read mechanism file"):
        Mechanism.from_file(tmp_path / "nope.json")


def test_valid_file_still_loads():
    """The mutations above start from a valid mechanism."""
    assert Mechanism.from_dict(fourbar()).n_dof == 2
