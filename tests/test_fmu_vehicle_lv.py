"""VehicleLV.fmu driven through FMPy: validation, the bumpy-road run vs the direct Python run, road via
inputs, external tire loads, FMU state (rollback, serialize, reset, interleaved instances), bad input at
the FMI boundary, and running where ``fmu_vehicle`` is not importable.

The FMU is built once per module.  Two fresh processes run in parallel:

* the *reference* child runs the script API (``Vehicle.simulate`` / ``VehicleSimulator``) from the
  repository;
* the *FMU* child runs every FMU case from a temp directory with the editable ``fmu_vehicle`` install
  hidden (its finder removed from ``sys.meta_path``/``sys.path_hooks``), so the FMU can only use the
  package copy it ships.  Grouping all FMU cases in one process pays the numba load once.

The internal-vs-inputs road comparison feeds the road height and slope under each wheel from the wheel
x(t) of the FMU's internal-road run (equal to the direct Python run to 1e-9, tested below).  FMPy sets
an input at t_k and the FMU holds it over [t_k, t_k + h], so the table holds the road at the wheel's
mid-step position; sampling at x(t_k) instead (a half-step lag of 1 cm at 20 m/s) gave 8.9 mm in x
after 5 s, the mid-step table 5.1 mm.
"""
from __future__ import annotations

import json
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy.validation import validate_fmu
from lxml import etree

from fmu_vehicle.fmi.build import DIGEST_CHARS, PACKAGE_PREFIX, shipped_package_file, source_digest
from fmu_vehicle.fmi.version import fmu_guid, package_version
from fmu_vehicle.paths import resources_dir
from fmu_vehicle.road import load_road
from fmu_vehicle.vehicle import output_table

from fmu_cases import (BAD_INPUT_HARNESS, DISCARD, HIDE_PACKAGE, STATE_HARNESS, assert_refused,
                       assert_state_bit_identical)
from fmi_support import CHILD_PRELUDE, collect_children, spawn_child

REPO = Path(__file__).resolve().parents[1]
SLAVE = REPO / "fmu_vehicle" / "fmi" / "slaves" / "fmu_vehicle_vehicle_lv.py"
ALIAS = PACKAGE_PREFIX + source_digest()[:DIGEST_CHARS]     # name of the package copy the FMU ships
DURATION = 5.0          # bumpy-road case, s (full paper duration)
H = 1e-3                # communication step, s

REFERENCE_CHILD = '''
import pickle, time
import numpy as np
INPUTS = pickle.load(open("inputs.pkl", "rb"))
from fmu_vehicle.road import load_road
from fmu_vehicle.tire.tir import P_R0
from fmu_vehicle.vehicle import Vehicle
RESULT = {}
car = Vehicle.load("halfcar7")
res = car.simulate(load_road("bumpy"), INPUTS["duration"], v0=20.0, drive_torque={"front": 300.0})
RESULT["bumpy"] = {"time": res.t, **res.values}
RESULT["total_mass"] = car.total_mass_kg
p = INPUTS["param_case"]
car = Vehicle.load(p["model"], overrides=p["overrides"])
car.tire_p[car.wheel_index("front"), P_R0] = p["front_radius"]
sim = car.simulator(load_road("bumpy"), v0=p["v0"], x0=p["x0"], dt=p["dt"])
for w, kw in p["inputs"].items():
    sim.set_input(w, **kw)
for _ in range(p["steps"]):
    sim.advance(p["h"])
RESULT["params"] = sim.outputs()
pickle.dump(RESULT, open("result.pkl", "wb"))
'''

FMU_CHILD = '''
import os, time
RESULT = {"hidden": HIDDEN, "cwd": os.getcwd()}
FMU_PATH, H, N = INPUTS["fmu"], INPUTS["h"], INPUTS["duration_steps"]
TORQUE = {"wheel_front.torque_drive": 300.0}
# the enumerations' item values (FMPy's simulate_fmu sets an Enumeration by its item value)
ITEMS = {v.name: {i.name: int(i.value) for i in v.declaredType.items}
         for v in read_model_description(FMU_PATH).modelVariables if v.type == "Enumeration"}

# ---- 1. bumpy road through simulate_fmu (the .fmu file: FMPy extracts and deletes it) --------------
t0 = time.time()
r1 = simulate_fmu(FMU_PATH, stop_time=N * H, output_interval=H, start_values=TORQUE)
RESULT["time_first_simulate_s"] = time.time() - t0
RESULT["bumpy"] = r1
RESULT["package_file"] = [m.__file__ for n, m in sys.modules.items() if n.startswith("_fmu_vehicle_") and "." not in n]

# ---- 2. the same road as inputs (internal road 'flat'), from the wheel x(t) of run 1 -----------------
xg, hg, sg = INPUTS["road_grid"]
names = [f"wheel_{w}.{q}" for w in ("front", "rear") for q in ("road_height", "road_slope")]
table = np.zeros(len(r1), dtype=[("time", np.float64)] + [(n, np.float64) for n in names])
table["time"] = r1["time"]
for w in ("front", "rear"):
    x = r1[f"wheel_{w}.x"]
    x_mid = np.append(0.5 * (x[:-1] + x[1:]), x[-1])      # the input is held over [t, t+h]
    table[f"wheel_{w}.road_height"] = np.interp(x_mid, xg, hg)
    table[f"wheel_{w}.road_slope"] = np.interp(x_mid, xg, sg)
t0 = time.time()
RESULT["road_inputs"] = simulate_fmu(FMU_PATH, stop_time=N * H, output_interval=H, input=table,
                                     start_values={**TORQUE, "road_source": ITEMS["road_source"]["inputs"],
                                                   "road": ITEMS["road"]["flat"]})     # FMPy: item values
RESULT["time_second_simulate_s"] = time.time() - t0

# ---- 3. FMU state, reset, interleaved instances (low-level API, shared harness) -------------------
fmu = Fmu(FMU_PATH)
outs = [v.name for v in fmu.md.modelVariables if v.causality == "output"]
ovr = [fmu.vr[n] for n in outs]
RESULT["outputs"] = outs
NS, K = INPUTS["state_steps"], INPUTS["state_split"]

def run(f, k0, k1):
    rows = []
    for k in range(k0, k1):
        f.doStep(k * H, H)
        rows.append(f.getReal(ovr))
    return np.array(rows)

t0 = time.time()
a = fmu.new("clean", start=TORQUE)
RESULT["time_instance_s"] = time.time() - t0
a.terminate(); a.freeInstance()
# the torque is set at step 0 only: an instance restored from a saved state gets it from the state
drive = lambda k: TORQUE if k == 0 else {}
RESULT["state"] = check_state(fmu, drive, NS, K, h=H, other_start={"model": "halfcar7_forkarm", "chassis.mass": 1300.0,
                                                                  "wheel_front.torque_brake": 200.0})

# ---- 4. parameters -> vehicle overrides, internal sub-steps ----------------------------------------
pc = INPUTS["param_case"]
f = fmu.new("params", start=pc["start"])
for k in range(pc["steps"]):
    f.doStep(k * pc["h"], pc["h"])
RESULT["params"] = dict(zip(outs, f.getReal(ovr)))
f.terminate(); f.freeInstance()

# ---- 5. external tire loads -------------------------------------------------------------------------
REST = {"v0": 0.0, "road": "flat"}
g = fmu.new("internal_rest", start=REST)
fz = g.getReal([fmu.vr["wheel_front.tire_fz"], fmu.vr["wheel_rear.tire_fz"]])
z0 = g.getReal([fmu.vr["chassis.z"]])[0]
g.terminate(); g.freeInstance()
ext = {}
for label, extra in (("held", {}), ("pushed", {"wheel_front.tire_force_x": 1000.0, "wheel_front.tire_moment_y": 23.0})):
    e = fmu.new(label, start={**REST, "tire_source": "external", "wheel_front.tire_force_z": fz[0],
                              "wheel_rear.tire_force_z": fz[1], **extra})
    rows = run(e, 0, 100)
    ext[label] = {n: rows[:, i] for i, n in enumerate(outs)}
    e.terminate(); e.freeInstance()
RESULT["external"] = dict(fz=fz, z0=z0, **ext)

# ---- 6. bad input at the FMI boundary (shared harness) ---------------------------------------------
nan, inf = float("nan"), float("inf")
case(fmu, "nan_input", actions=[("step", 0.0, H), ("set", "Real", "wheel_front.torque_drive", nan), ("step", H, H),
                           ("set", "Real", "wheel_front.torque_drive", 100.0), ("step", H, H)])
case(fmu, "inf_input", actions=[("set", "Real", "wheel_rear.road_height", -inf), ("step", 0.0, H)])
case(fmu, "negative_brake", actions=[("set", "Real", "wheel_front.torque_brake", -5.0), ("step", 0.0, H)])
case(fmu, "nan_parameter", start={"chassis.mass": nan}, actions=[("step", 0.0, H), ("step", H, H)])
case(fmu, "inf_parameter", start={"v0": inf}, actions=[("step", 0.0, H)])
case(fmu, "parameter_range", start={"suspension_front.spring_stiffness": -40000.0}, actions=[("step", 0.0, H)])
case(fmu, "dt_range", start={"dt": 0.5}, actions=[("step", 0.0, H)])
case(fmu, "unknown_model", start={"model": "fullcar99"}, actions=[("step", 0.0, H)])
case(fmu, "unknown_road", start={"road": "moon_surface"}, actions=[("step", 0.0, H)])
case(fmu, "unknown_source", start={"tire_source": "magic"}, actions=[("step", 0.0, H)])
case(fmu, "bad_step", actions=[("step", 0.0, 0.0), ("step", 0.0, -H), ("step", 0.0, nan), ("step", 0.0, H)])
case(fmu, "after_terminate", actions=[("step", 0.0, H), ("terminate",), ("step", H, H)])
case(fmu, "fixed_after_init", actions=[("set", "Real", "chassis.mass", 1500.0), ("step", 0.0, H)])
case(fmu, "set_output", actions=[("set", "Real", "chassis.x", 3.0), ("step", 0.0, H)])
RESULT["bad"] = BAD
RESULT["survived"] = True
shutil.rmtree(fmu.dir, ignore_errors=True)
'''


PARAM_CASE = {
    "model": "halfcar7_forkarm", "v0": 15.0, "x0": 17.0, "dt": 5e-4, "h": 1e-3, "steps": 500,
    "front_radius": 0.48,
    "overrides": {"chassis.mass_kg": 1300.0, "chassis.inertia_kg_m2.yy": 4300.0,
                  "corners.front.suspension_overrides.spring.stiffness_N_per_m": 45000.0,
                  "corners.rear.suspension_overrides.damper.damping_N_s_per_m": 2500.0,
                  "corners.rear.suspension_overrides.spring.preload_N": 3000.0,
                  "corners.front.suspension_overrides.masses_kg.wheel": 40.0},
    "inputs": {"front": {"torque_drive": 300.0}, "rear": {"torque_brake": 50.0}},
    "start": {"model": "halfcar7_forkarm", "v0": 15.0, "x0": 17.0, "dt": 5e-4, "tire_front.unloaded_radius": 0.48,
              "chassis.mass": 1300.0, "chassis.inertia_yy": 4300.0, "suspension_front.spring_stiffness": 45000.0,
              "suspension_rear.damping": 2500.0, "suspension_rear.spring_preload": 3000.0,
              "wheel_front.mass": 40.0, "wheel_front.torque_drive": 300.0, "wheel_rear.torque_brake": 50.0},
}


@pytest.fixture(scope="module")
def fmu(registered_fmus) -> Path:
    return registered_fmus["VehicleLV"]


@pytest.fixture(scope="module")
def runs(fmu, tmp_path_factory) -> dict:
    """{'reference': direct Python results, 'fmu': FMU child results} (the two children run in parallel)."""
    road = load_road("bumpy")
    xg = np.arange(-20.0, 200.0, 1e-3)
    grid = (xg, np.asarray(road.height(xg), float), np.asarray(road.slope(xg), float))
    ref_dir, fmu_dir = tmp_path_factory.mktemp("vehicle_lv_ref"), tmp_path_factory.mktemp("vehicle_lv_run")
    ref = spawn_child(REFERENCE_CHILD, ref_dir, {"duration": DURATION, "param_case": PARAM_CASE})
    prelude = (f"import pickle\nINPUTS_REPO = {str(REPO)!r}\n" + HIDE_PACKAGE + CHILD_PRELUDE
               + "\nINPUTS = pickle.load(open('inputs.pkl', 'rb'))\n" + BAD_INPUT_HARNESS + STATE_HARNESS)
    run = spawn_child(prelude + textwrap.dedent(FMU_CHILD) + "\npickle.dump(RESULT, open('result.pkl', 'wb'))\n", fmu_dir,
                 {"fmu": str(fmu), "h": H, "duration_steps": int(round(DURATION / H)), "road_grid": grid,
                  "state_steps": 1500, "state_split": 900, "param_case": PARAM_CASE})
    return collect_children({"reference": (ref, ref_dir), "fmu": (run, fmu_dir)})


def _md(path):
    with zipfile.ZipFile(path) as z:
        return etree.fromstring(z.read("modelDescription.xml"))


# ------------------------------------------------------------------ model description (no simulation)
def test_fmpy_validation_is_clean(fmu):
    assert validate_fmu(str(fmu)) == []


def test_interface_names_units_and_structure(fmu):
    root = _md(fmu)
    assert root.get("guid") == fmu_guid("VehicleLV", package_version(), sources=source_digest())
    cs = root.find("CoSimulation")
    assert (cs.get("canGetAndSetFMUstate"), cs.get("canSerializeFMUstate"), cs.get("canInterpolateInputs")) == \
        ("true", "true", "false")
    assert cs.get("canBeInstantiatedOnlyOncePerProcess") == "false"
    svs = list(root.find("ModelVariables"))
    by = {sv.get("name"): sv for sv in svs}
    for sv in svs:
        assert sv.get("description"), sv.get("name")
        assert "[" not in sv.get("name")
        if sv[0].tag == "Real":
            assert sv[0].get("unit"), sv.get("name")
    inputs = [sv.get("name") for sv in svs if sv.get("causality") == "input"]
    assert inputs == [f"wheel_{w}.{q}" for w in ("front", "rear") for q in
                      ("torque_drive", "torque_brake", "road_height", "road_slope", "road_mu", "tire_force_x",
                       "tire_force_z", "tire_moment_y")]
    expected = [n for n, _, _ in output_table(("front", "rear"))]     # units: test_fmi_units.py
    outputs = [sv.get("name") for sv in svs if sv.get("causality") == "output"]
    assert outputs == expected
    out_idx = [i for i, sv in enumerate(svs, 1) if sv.get("causality") == "output"]
    ms = root.find("ModelStructure")
    assert [int(u.get("index")) for u in ms.find("Outputs")] == out_idx
    assert [int(u.get("index")) for u in ms.find("InitialUnknowns")] == out_idx
    params = {sv.get("name"): sv for sv in svs if sv.get("causality") == "parameter"}
    assert {"model", "v0", "integrator", "dt", "road_source", "road", "tire_source"} <= set(params)
    assert all(p.get("variability") == "fixed" for p in params.values())
    assert (by["chassis.mass"][0].get("unit"), by["chassis.mass"][0].get("min")) == ("kg", "50.0")
    assert by["wheel_front.torque_brake"][0].get("min") == "0.0"
    assert by["chassis.vx"][0].get("displayUnit") == "km/h"
    assert (by["model"][0].tag, by["model"][0].get("declaredType"), by["model"][0].get("start")) == \
        ("Enumeration", "Model", "1") and "halfcar7_forkarm" in by["model"].get("description")
    items = root.find("TypeDefinitions/SimpleType[@name='Model']/Enumeration")
    assert [(i.get("name"), i.get("value")) for i in items] == [("halfcar7", "1"), ("halfcar7_forkarm", "2")]


def test_parameter_defaults_are_the_shipped_vehicle(fmu):
    """Start value of every vehicle parameter == the value in resources/vehicles (+ suspension, tire files)."""
    root = _md(fmu)
    start = {sv.get("name"): sv[0].get("start") for sv in root.find("ModelVariables")}
    res = resources_dir()
    car = json.loads((res / "vehicles" / "halfcar7.json").read_text())
    corners = {c["name"]: c for c in car["corners"]}
    susp = {w: json.loads((res / "vehicles" / "suspensions" / corners[w]["suspension"]).read_text())
            for w in ("front", "rear")}
    slave = _slave_module()
    assert len(slave.TABLE.overrides) == 12
    for name, (path, *_rest) in slave.TABLE.overrides.items():
        keys = path.split(".")
        if keys[0] == "chassis":
            node = car
        else:
            node, keys = susp[keys[1]], keys[3:]
        for k in keys:
            node = node[k]
        assert float(start[name]) == node, name
    from fmu_vehicle.tire.tir import P_R0, read_tir
    for w in ("front", "rear"):
        tire = read_tir(res / "tires" / corners[w]["tire"])
        assert float(start[f"tire_{w}.unloaded_radius"]) == tire.to_array()[P_R0]


def _slave_module():
    sys.path.insert(0, str(SLAVE.parent))
    try:
        import fmu_vehicle_vehicle_lv as slave
    finally:
        sys.path.remove(str(SLAVE.parent))
    return slave


@pytest.mark.parametrize("name, kind", [
    ("bumpy", "SpeedBumpRoad"), ("bumpy.json", "SpeedBumpRoad"), ("roads/flat.json", "FlatRoad"),
    ("csv_example.json", "CsvRoad"), ("example_profile.csv", "CsvRoad"), ("ABS/roads/slope16_5.json", "SlopeRoad"),
    ("nope.json", "no such file in the FMU resources"), ("moon", "shipped roads: bumpy"),
])
def test_road_parameter_names_a_shipped_road_or_a_resource_file(name, kind):
    """The ``road`` enumeration names a shipped road, ``road_file`` (when not empty) a file resolved against the
    resources folder the instance was given (in-process)."""
    from fmu_vehicle.errors import ModelError
    from fmu_vehicle.fmi.vehicle_slave import load_vehicle
    res = resources_dir()
    slave = _slave_module().VehicleLV(instance_name="roads", resources=str(res))
    parameter = "road" if "." not in name and "/" not in name else "road_file"
    slave.values[parameter] = name.replace("ABS", str(res))
    if kind.endswith("Road"):       # (vehicle, road) as the slave builds them at initialization
        assert type(load_vehicle(slave.TABLE, slave.values, res)[1]).__name__ == kind
    else:
        with pytest.raises(ModelError, match=f"parameter '{parameter}' = '{name}'.*{kind}"):
            load_vehicle(slave.TABLE, slave.values, res)


def test_archive_ships_code_data_and_requirements(fmu):
    with zipfile.ZipFile(fmu) as z:
        names = set(z.namelist())
        req = z.read("resources/requirements.txt").decode().splitlines()
    for f in ("resources/vehicles/halfcar7.json", "resources/vehicles/halfcar7_forkarm.json",
              "resources/vehicles/suspensions/macpherson_front.json", "resources/tires/dai2022_sedan.tir",
              "resources/roads/bumpy.json", f"resources/{ALIAS}.zip",
              f"resources/fmu_vehicle_vehicle_lv_{ALIAS[len(PACKAGE_PREFIX):]}.py", "binaries/linux64/VehicleLV.so"):
        assert f in names, f
    assert b"def rk4_advance_packed" in shipped_package_file(fmu, "integrators/rk4.py")
    assert {r.split(">")[0] for r in req} >= {"numpy", "numba", "scipy"}
    assert not [r for r in req if r.startswith(("matplotlib", "tqdm"))]     # plots and progress bars only


# ------------------------------------------------------------------ runs
def test_fmu_runs_without_an_importable_fmu_vehicle(runs, tmp_path_factory):
    r = runs["fmu"]
    assert r["hidden"] is True                               # find_spec('fmu_vehicle') was None before instantiating
    assert len(r["package_file"]) == 1                       # ... and the FMU used the copy it ships
    assert f"/fmu_vehicle/packages/{ALIAS}-" in r["package_file"][0]      # unpacked from its archive
    assert not r["package_file"][0].startswith(str(REPO))
    assert r["survived"]


def test_bumpy_road_fmu_reproduces_the_direct_python_run(runs):
    """simulate_fmu at a 1 ms communication step vs Vehicle.simulate (RK4 1 ms), halfcar7, 20 m/s,
    300 N m front drive torque, 5 s over the five bumps: every output to 1e-9 of its range (at least
    1e-9 absolute); the chassis states to 1e-9 absolute."""
    ref, got = runs["reference"]["bumpy"], runs["fmu"]["bumpy"]
    assert len(got) == len(ref["time"]) == int(round(DURATION / H)) + 1
    np.testing.assert_allclose(got["time"], ref["time"], rtol=0, atol=1e-12)
    for name in got.dtype.names[1:]:
        r = ref[name]
        tol = 1e-9 * max(1.0, float(np.max(np.abs(r))))
        assert np.max(np.abs(got[name] - r)) <= tol, name
    for name in ("chassis.x", "chassis.z", "chassis.pitch", "chassis.vx", "chassis.vz", "chassis.pitch_rate"):
        assert np.max(np.abs(got[name] - ref[name])) <= 1e-9, name
    # the run crossed all five bumps: the front wheel was lifted by each
    travel = ref["wheel_front.travel"]
    assert ref["wheel_front.x"][-1] > 81.0 and np.max(travel) - travel[0] > 0.03


def test_road_as_inputs_matches_the_internal_road(runs):
    internal, inputs = runs["fmu"]["bumpy"], runs["fmu"]["road_inputs"]
    assert abs(inputs["chassis.x"][-1] - internal["chassis.x"][-1]) < 0.01
    assert abs(inputs["chassis.pitch"][-1] - internal["chassis.pitch"][-1]) < 1e-3
    # the bumps came through the inputs (internal road was 'flat'): same peak suspension travel to 5 mm
    assert abs(np.max(inputs["wheel_front.travel"]) - np.max(internal["wheel_front.travel"])) < 5e-3
    assert np.max(inputs["wheel_front.travel"]) - inputs["wheel_front.travel"][0] > 0.03


def test_parameters_map_to_vehicle_overrides_and_dt_substeps(runs):
    ref, got = runs["reference"]["params"], runs["fmu"]["params"]
    for name, value in ref.items():
        head, _, tail = name.rpartition(".")
        fmi = f"{head}.{tail}_applied" if tail in ("torque_drive", "torque_brake") else name
        assert abs(got[fmi] - value) <= 1e-9 * max(1.0, abs(value)), name
    default = runs["fmu"]["bumpy"]
    assert abs(got["chassis.x"] - default["chassis.x"][500]) > 1.0      # the parameters did change the run


def test_rollback_serialize_reset_and_interleaved_instances_are_bit_identical(runs):
    s = runs["fmu"]["state"]
    assert_state_bit_identical(s, other_differs=True)
    travel = np.array(s["full"])[:, runs["fmu"]["outputs"].index("wheel_front.travel")]
    assert np.max(travel) - travel[0] > 0.03                             # across a bump
    x = np.array(s["full"])[:, runs["fmu"]["outputs"].index("chassis.x")]
    assert x[-1] > 20.0                                                  # with the torque from the state


def test_external_tire_loads(runs):
    """At rest on a flat road the internal tire's normal loads, given as external forces, hold the car
    (chassis.z constant); an extra 1000 N at the front wheel centre accelerates the car by F/m and
    23 N m about y spins the front wheel up at M/I_yy = 10 rad/s2."""
    e, m = runs["fmu"]["external"], runs["reference"]["total_mass"]
    held, pushed = e["held"], e["pushed"]
    assert min(e["fz"]) > 1000.0
    assert np.max(np.abs(held["chassis.z"] - e["z0"])) < 1e-6
    assert np.max(np.abs(held["chassis.vx"])) < 1e-6
    assert held["wheel_front.tire_fz"][-1] == e["fz"][0]                 # outputs echo the external load
    t = 0.1
    assert pushed["chassis.vx"][-1] == pytest.approx(1000.0 / m * t, rel=0.03)
    assert pushed["wheel_front.omega"][-1] == pytest.approx(23.0 / 2.3 * t, rel=0.03)


@pytest.mark.parametrize("case, statuses, words", [
    ("nan_input", [0, DISCARD, 0], ["input 'wheel_front.torque_drive'", "nan"]),
    ("inf_input", [DISCARD], ["input 'wheel_rear.road_height'", "-inf"]),
    ("negative_brake", [DISCARD], ["input 'wheel_front.torque_brake'", "below min 0.0"]),
    ("nan_parameter", [DISCARD, DISCARD], ["parameter 'chassis.mass'", "nan is not finite"]),
    ("inf_parameter", [DISCARD], ["parameter 'v0'", "inf is not finite"]),
    ("parameter_range", [DISCARD], ["parameter 'suspension_front.spring_stiffness'", "below min"]),
    ("dt_range", [DISCARD], ["parameter 'dt'", "above max"]),
    ("unknown_model", [DISCARD], ["parameter 'model'", "fullcar99", "halfcar7_forkarm"]),
    ("unknown_road", [DISCARD], ["parameter 'road'", "moon_surface", "bumpy"]),
    ("unknown_source", [DISCARD], ["parameter 'tire_source'", "magic"]),
    ("bad_step", [DISCARD, DISCARD, DISCARD, 0], ["step size"]),
    ("after_terminate", [0, DISCARD], ["after terminate"]),
    ("fixed_after_init", [DISCARD], ["fixed parameter 'chassis.mass'"]),
    ("set_output", [DISCARD], ["'chassis.x' is an output"]),
])
def test_bad_input_is_refused_with_a_logged_message(runs, case, statuses, words):
    assert_refused(runs["fmu"]["bad"][case], statuses, words)


def test_warm_up_failure_is_one_build_error(tmp_path):
    from fmu_vehicle.fmi.build import BuildError, warm_up_fmu
    broken = tmp_path / "Broken.fmu"
    broken.write_bytes(b"not a zip")
    with pytest.raises(BuildError, match=r"Broken\.fmu: warm-up run failed: ") as info:
        warm_up_fmu(broken)
    assert "\n" not in str(info.value)


def test_bench_times_the_fmu(fmu, tmp_path):
    """``fmu-vehicle bench --fmu``: FMPy at 1 ms steps plus the start-up of an instance in a fresh process."""
    from fmu_vehicle.cli import main
    out = tmp_path / "bench.json"
    # --no-cold-compile: the package's cold compile (a fresh process compiling every kernel, over a minute)
    # is not what this test is about (tests/test_numba_cache_keys.py compiles cold)
    assert main(["bench", "--vehicles", "halfcar7", "--repeats", "1", "--duration", "0.02", "--no-uncompiled",
                 "--no-cold-compile", "--fmu", str(fmu), "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    f = report["fmu"]
    assert (f["fmu"], f["simulated_s"], f["communication_step_s"]) == ("VehicleLV.fmu", 0.02, 1e-3)
    assert f["wall_s"] > 0.0 and f["real_time_factor"] == pytest.approx(0.02 / f["wall_s"])
    assert 0.0 < f["startup_s"] < 300.0
    # the split per step: over the direct RK4 run of the FMU's vehicle (halfcar7) in the same bench, the fixed
    # cost of a run (a 1 ms run) spread over the 20 steps, the bare FMU's cost per step and the rest
    direct = next(r for r in report["results"] if r["vehicle"] == "halfcar7" and r["integrator"] == "rk4")
    assert (f["model"], f["steps"], f["direct_wall_s"]) == ("halfcar7", 20, direct["wall_s"])
    assert 0.0 < f["fixed_s"] and 0.0 < f["bare_wall_s"]        # (over 20 steps, fixed_s may exceed wall_s)
    assert f["over_direct_us_per_step"] == pytest.approx((f["wall_s"] - direct["wall_s"]) / 20 * 1e6)
    assert f["fixed_us_per_step"] == pytest.approx(f["fixed_s"] / 20 * 1e6)
    assert f["bare_us_per_step"] == pytest.approx(f["bare_wall_s"] / 20 * 1e6)
    assert f["ours_us_per_step"] == pytest.approx(f["over_direct_us_per_step"] - f["fixed_us_per_step"]
                                                  - f["bare_us_per_step"])


def test_bare_fmu_has_the_fmus_real_inputs_and_outputs(fmu, tmp_path):
    """The bench's baseline (``bench.build_bare_fmu``): a pythonfmu FMU with the Real inputs and outputs of the
    vehicle FMU, in its order (the bench test above runs it)."""
    from fmpy import read_model_description
    from fmu_vehicle.tools.bench import build_bare_fmu
    bare = build_bare_fmu(fmu, tmp_path)

    def reals(path, causality):
        return [v.name for v in read_model_description(str(path)).modelVariables
                if v.type == "Real" and v.causality == causality]

    assert bare.name == "BareVehicleLV.fmu"
    assert reals(bare, "input") == reals(fmu, "input") and len(reals(fmu, "input")) == 16
    assert reals(bare, "output") == reals(fmu, "output") and len(reals(fmu, "output")) == 36
