"""The one result type (vehicle runs and co-simulation alike), its two CSV layouts and reader, the one
atomic writer, and the data that now lives in files only (centres of mass, scenario vehicle constants)."""
import json

import numpy as np
import pytest

from fmu_vehicle.cosim import Result as CosimResult
from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import resource_path
from fmu_vehicle.results import Result, read_csv
from fmu_vehicle.util import atomic_write, atomic_write_all
from fmu_vehicle.vehicle import SimResult


def small():
    t = np.array([0.0, 0.5, 1.0])
    values = np.array([[1.0, 10.0], [1.0 / 3.0, 20.0], [np.pi, -2.5e-17]])
    return Result.from_columns(t, ["chassis.x", "wheel_front.slip"], ["m", "1"], values, {"vehicle": "toy"})


def test_one_type_for_the_vehicle_and_the_cosimulation():
    assert SimResult is Result and CosimResult is Result


def test_from_columns_access():
    r = small()
    assert r.names == ("time", "chassis.x", "wheel_front.slip")
    assert r.units == {"time": "s", "chassis.x": "m", "wheel_front.slip": "1"}
    np.testing.assert_array_equal(r.t, [0.0, 0.5, 1.0])
    assert r.t is not None and r.final("chassis.x") == np.pi and r["wheel_front.slip"][1] == 20.0
    assert list(r.values) == ["chassis.x", "wheel_front.slip"] and "chassis.x" in r and len(r) == 3
    with pytest.raises(KeyError, match="no recorded variable 'chassis.y'"):
        r["chassis.y"]


@pytest.mark.parametrize("kwargs, words", [
    ({"values": np.zeros((3, 3))}, ["values", "(3, 2)", "(3, 3)"]),
    ({"names": ["a", "a"]}, ["names", "'a'"]),
    ({"names": ["time", "a"]}, ["names", "'time'"]),
    ({"units": ["m"]}, ["units", "1 units for 2 names"]),
])
def test_from_columns_names_the_bad_argument(kwargs, words):
    args = {"times": [0.0, 1.0, 2.0], "names": ["a", "b"], "units": ["m", "s"], "values": np.zeros((3, 2))}
    args.update(kwargs)
    with pytest.raises(ModelError) as e:
        Result.from_columns(**args)
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize("layout", ["line", "header"])
def test_both_csv_layouts_read_back_exactly(tmp_path, layout):
    r = small()
    path = r.to_csv(tmp_path / f"{layout}.csv", units=layout)
    lines = path.read_text().splitlines()
    if layout == "header":
        assert lines[0] == "time [s],chassis.x [m],wheel_front.slip [1]" and len(lines) == 4
    else:
        assert lines[:2] == ["time,chassis.x,wheel_front.slip", "# units: s,m,1"] and len(lines) == 5
    back = read_csv(path)
    assert back.names == r.names and back.units == r.units
    for name in r.names:
        np.testing.assert_array_equal(back[name], r[name])
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{layout}.csv"]
    with pytest.raises(ModelError, match="units must be 'line' or 'header'"):
        r.to_csv(tmp_path / "x.csv", units="both")


def test_with_columns_keeps_meta_and_refuses_a_recorded_name():
    r = small().with_columns({"gap": (np.array([5.0, 4.0, 3.0]), "m")})
    assert r.names[-1] == "gap" and r.units["gap"] == "m" and r.meta == {"vehicle": "toy"}
    with pytest.raises(ModelError, match="'gap' is already recorded"):
        r.with_columns({"gap": (np.zeros(3), "m")})


def test_plot_uses_the_default_panels_and_overlays(tmp_path):
    from fmu_vehicle.plotting import Panel
    r = small()
    r.panels = (Panel("x [m]", (("x", "chassis.x"),)),)
    png = r.plot(tmp_path / "a.png", overlay=[("other", small())])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r.panels = (Panel("y [m]", (("y", "chassis.y"),)),)           # unknown column: nothing written
    with pytest.raises(KeyError, match="chassis.y"):
        r.plot(tmp_path / "b.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png"]


def test_atomic_write_all_is_all_or_nothing(tmp_path):
    keep = tmp_path / "a.txt"
    keep.write_text("old\n")

    def fail(tmp):
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        atomic_write_all([(keep, lambda tmp: open(tmp, "w").write("new\n")), (tmp_path / "b.png", fail)],
                         mode=None)
    assert keep.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    seen = []
    atomic_write(tmp_path / "sub" / "c.png", lambda tmp: seen.append(tmp), mode=None)
    assert seen[0].endswith(".png") and (tmp_path / "sub" / "c.png").exists()    # suffix kept for writers


def test_knuckle_and_carrier_centres_of_mass_come_from_the_suspension_files(tmp_path):
    """The vehicle's bodies put the knuckle and carrier CoM at the wheel centre plus the file's ``com_m``
    offset (y mirrored on the right); a suspension file without ``com_m`` is refused naming the field."""
    from fmu_vehicle.vehicle.loader import load_vehicle_spec
    spec = load_vehicle_spec("fullcar14")
    front = json.loads(resource_path("vehicles", "suspensions", "macpherson_front.json").read_text())
    rear = json.loads(resource_path("vehicles", "suspensions", "five_link_rear.json").read_text())
    bodies = {b.name: b for b in spec.mechanism.bodies}
    for w in spec.wheels:
        part, offset = ("knuckle", front["com_m"]["knuckle"]) if w.name.startswith("F") else \
            ("carrier", rear["com_m"]["carrier"])
        sign = -1.0 if w.center_m[1] < 0 else 1.0
        expected = np.add(w.center_m, [offset[0], sign * offset[1], offset[2]])
        np.testing.assert_allclose(bodies[f"{w.name}.{part}"].com_m, expected, atol=1e-15)
    with pytest.raises(ModelError, match="com_m"):
        load_vehicle_spec("halfcar7", overrides={"corners.rear.suspension_overrides.com_m": None})


def test_scenario_vehicle_constants_come_from_the_vehicle_file():
    from fmu_vehicle.scenarios import half_car as S
    from fmu_vehicle.tire.tir import read_tir
    car = json.loads(resource_path("vehicles", f"{S.VEHICLE}.json").read_text())
    corners = {c["name"]: c for c in car["corners"]}
    assert S.WHEELBASE_M == corners["front"]["wheel_center_m"][0] - corners["rear"]["wheel_center_m"][0]
    assert S.CONTROLLER["vehicle.wheel_radius"] == read_tir(resource_path("tires", corners["front"]["tire"])).UNLOADED_RADIUS
    assert S.CONTROLLER["vehicle.mass"] == 2.0 * S.HALF_CAR_MASS_KG


def test_paper_variants_are_the_vehicle_files_the_paper_reports():
    from fmu_vehicle.tools.paper import VARIANTS
    from fmu_vehicle.vehicle import vehicle_names
    models = {n: json.loads(resource_path("vehicles", f"{n}.json").read_text()).get("paper_model")
              for n in vehicle_names()}
    assert VARIANTS == {"halfcar7": "7dof", "halfcar7_forkarm": "7dof_fork_arm_removal", "fullcar14": "14dof"}
    assert all(models[n] == m for n, m in VARIANTS.items())
