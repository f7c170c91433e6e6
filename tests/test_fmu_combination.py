"""VehicleCombination.fmu (the full car towing its caravan, ``sedan_caravan``) built for real, run through FMPy
and through the project's C host: its interface (every wheel's inputs and outputs, Project Chrono's wheel
interface for all six wheels, the caravan's outputs, the parameters of every corner and the caravan's chassis
mass), its ModelStructure, its physics against the Python API (a steady left turn at 15 m/s: the articulation
angle equal to ``VehicleSimulator``'s, negative as docs/articulated.md §6 says; the tire loads at rest carry the
whole weight), its state, refused parameters, and the shipped scenario system ``caravan.ssd`` (ISO 3888-1 double
lane change with Driver.fmu) in the project's master.

The FMU is built once per module; one child process runs every FMPy case, in parallel with a child running the
same turn through ``VehicleSimulator``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.validation import validate_fmu

from fmu_vehicle.fmi.vehicle_parameters import KINDS
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.signals import FULL_VEHICLE

from fmu_cases import assert_refused, assert_state_bit_identical
from fmu_combination_cases import c_host_turn, native_turn, run_combination, run_system_file
from fmu_combination_cases import column as _column, dependencies as _dependencies, gravity as _gravity

FMU = "VehicleCombination"
MODEL = KINDS[FMU].models[0]            # sedan_caravan
H = 1e-3
STEPS = 6000                            # 6 s of a steady turn
EVERY = 500                             # rows compared every 0.5 s
V0 = 15.0                               # m/s
SWA = 0.5                               # rad, + left: a steady left turn (about 1.5 m/s^2 at 15 m/s)
CARAVAN_MASS = 1500.0                   # kg, the caravan's chassis instead of its 1186 kg

NAN = float("nan")
BAD = [("caravan_mass_above_max", {"caravan.chassis_mass": 5000.0}, [("step", 0.0, H)]),
       ("caravan_spring_below_min", {"suspension_TR.spring_stiffness": 500.0}, [("step", 0.0, H)]),
       ("caravan_tire_radius", {"tire_TL.unloaded_radius": 0.9}, [("step", 0.0, H)]),
       ("nan_caravan_point", {"tire_source": "external"}, [("set", "Real", "wheel_TL.point.z", NAN), ("step", 0.0, H)]),
       ("unknown_model", {"model": "fullcar14"}, [("step", 0.0, H)])]
"""Refused cases: (label, start values, actions) (``fmu_cases.BAD_INPUT_HARNESS``)."""


@pytest.fixture(scope="module")
def fmu(registered_fmus) -> Path:
    return registered_fmus[FMU]


@pytest.fixture(scope="module")
def car() -> Vehicle:
    return Vehicle.load(MODEL)


@pytest.fixture(scope="module")
def runs(fmu, tmp_path_factory) -> dict:
    return run_combination(fmu, tmp_path_factory, model=MODEL, h=H, v0=V0, swa=SWA, steps=STEPS, every=EVERY,
                           mass_parameter="caravan.chassis_mass", heavy=CARAVAN_MASS, bad=BAD)


# ------------------------------------------------------------------------------------------ interface

def test_fmpy_validation_is_clean(fmu):
    assert validate_fmu(str(fmu)) == []


def test_every_wheel_and_the_caravan_have_their_variables(fmu, car):
    """Each of the six wheels has the full vehicle's per-wheel inputs and outputs (Project Chrono's wheel
    interface: pos/rot/lin_vel/ang_vel out, point/force/moment in), the caravan its ``unit`` outputs, every
    corner its parameters and the caravan its chassis mass; the outputs are the Python API's, in its order."""
    md = read_model_description(str(fmu))
    by = {v.name: v for v in md.modelVariables}
    assert car.wheel_names == ("FL", "FR", "RL", "RR", "TL", "TR") and car.unit_names == ("caravan",)
    for w in car.wheel_names:
        for r in FULL_VEHICLE.inputs:
            assert by[f"wheel_{w}.{r.name}"].causality == "input", (w, r.name)
        for q in ("pos.x", "rot.e0", "lin_vel.y", "ang_vel.z", "tire_fz", "slip_angle"):
            assert by[f"wheel_{w}.{q}"].causality == "output", (w, q)
        for p in ("suspension_{w}.spring_stiffness", "suspension_{w}.spring_preload", "suspension_{w}.damping",
                  "wheel_{w}.mass", "wheel_{w}.inertia_yy", "tire_{w}.unloaded_radius"):
            assert by[p.format(w=w)].causality == "parameter", p
    for r in FULL_VEHICLE.unit_outputs:
        v = by[f"caravan.{r.name}"]
        assert (v.causality, v.unit) == ("output", r.unit)
    mass = by["caravan.chassis_mass"]
    assert (mass.causality, float(mass.start), mass.unit) == ("parameter", 1186.0, "kg")
    assert [v.name for v in md.modelVariables if v.causality == "output"] == list(car.output_names)
    assert [i.name for i in by["model"].declaredType.items] == list(KINDS[FMU].models)


def test_model_structure_of_the_caravan_outputs(fmu, car):
    """While stepping no output depends on an input; in Initialization Mode the caravan's lateral acceleration
    follows every input of all six wheels, as chassis.ay does, and its states (articulation angle and rate,
    position, velocities, yaw, roll) follow none."""
    md = read_model_description(str(fmu))
    inputs = {v.name for v in md.modelVariables if v.causality == "input"}
    wheel_inputs = {n for n in inputs if n.startswith("wheel_")}
    assert len(wheel_inputs) == 6 * len(FULL_VEHICLE.inputs)
    assert all(deps == [] for deps in _dependencies(fmu, "Outputs").values())
    initial = _dependencies(fmu, "InitialUnknowns")
    assert set(initial["caravan.ay"]) & inputs == wheel_inputs == set(initial["chassis.ay"]) & inputs
    for name in ("articulation", "articulation_rate", "x", "y", "vx", "vy", "yaw_rate", "yaw", "roll"):
        assert not set(initial[f"caravan.{name}"]) & inputs, name
    assert set(initial["wheel_TL.tire_fz"]) & inputs == {f"wheel_TL.{r.name}" for r in FULL_VEHICLE.inputs
                                                           if r.name not in ("torque_drive", "torque_brake")}


def test_declared_dependencies_are_what_the_fmu_does(fmu, car, tmp_path):
    """tests/test_fmu_model_structure.py's probe on this FMU: every input moved in both modes, under each input
    source (internal, road inputs, external tire loads on all six wheels with the rack driven directly); no output
    moves with an input it does not declare, and every declared dependence is seen."""
    from model_structure_probe import check, declared, observe
    loads = {f"wheel_{w}.{n}": v for w in car.wheel_names
             for n, v in (("force.x", 300.0), ("force.y", 200.0), ("force.z", 5000.0), ("point.x", 1.0),
                          ("point.y", 0.5), ("point.z", 0.1))}
    probes = [{}, {"parameters": {"road_source": "inputs"}},
              {"parameters": {"tire_source": "external", "steering_input": "rack_travel"}, "inputs": loads}]
    structure = declared(fmu)
    check(structure, observe(fmu, probes, tmp_path))
    assert not any(structure["stepping"].values())


# ------------------------------------------------------------------------------------------ physics

def test_steady_left_turn_equals_the_python_api(runs):
    """A constant steering-wheel angle of 0.5 rad at 15 m/s for 6 s: every output of the FMU equals the Python
    API's at every 0.5 s (the same kernels), the articulation angle to 1e-12 rad."""
    ref, got = runs["reference"], runs["fmu"]
    assert list(got["names"]) == list(ref["names"])
    np.testing.assert_allclose(got["rows"], ref["rows"], rtol=0.0, atol=1e-9)
    np.testing.assert_allclose(_column(got, "caravan.articulation"), _column(ref, "caravan.articulation"),
                               rtol=0.0, atol=1e-12)


def test_a_left_turn_swings_the_caravan_to_negative_articulation(runs):
    """docs/articulated.md §6: articulation = caravan heading - car heading, + counter-clockwise. Turning left
    (yaw rate > 0) the caravan lags inside the turn, so its heading is behind the car's: articulation < 0, settled
    (rate ~ 0) at about -0.34 s times the yaw rate (the steady turn of docs/articulated.md §6), and the caravan
    turns at the car's yaw rate with the car's lateral acceleration."""
    got = runs["fmu"]
    theta, rate = _column(got, "caravan.articulation")[-1], _column(got, "caravan.articulation_rate")[-1]
    yaw_rate = _column(got, "chassis.yaw_rate")[-1]
    assert 0.08 < yaw_rate < 0.15
    assert theta < -0.02 and abs(rate) < 1e-3
    assert theta / yaw_rate == pytest.approx(-0.34, rel=0.1)
    assert _column(got, "caravan.yaw_rate")[-1] == pytest.approx(yaw_rate, rel=0.01)
    assert _column(got, "caravan.ay")[-1] == pytest.approx(_column(got, "chassis.ay")[-1], rel=0.05)
    yaw = _column(got, "chassis.yaw")[-1]
    assert _column(got, "caravan.yaw")[-1] - yaw == pytest.approx(theta, abs=0.01)   # zero pitch and roll
    assert _column(got, "caravan.articulation")[0] == 0.0                           # straight at the start


def test_tire_loads_at_rest_carry_the_whole_combination(runs, car):
    """Standing on the flat road, the six tire loads sum to the combination's weight (1e-6 relative), the
    caravan's two to its weight less the nose load on the hitch (about 6 %: docs/articulated.md §6); a 314 kg
    heavier caravan chassis (parameter ``caravan.chassis_mass``) adds exactly its weight to the sum and most
    of it to the caravan's wheels."""
    g = _gravity(car)
    for label, extra in (("rest", 0.0), ("rest_heavy", CARAVAN_MASS - 1186.0)):
        out = runs["fmu"][label]
        total = sum(out[f"wheel_{w}.tire_fz"] for w in car.wheel_names)
        assert total == pytest.approx((car.total_mass_kg + extra) * g, rel=1e-6), label
    rest, heavy = runs["fmu"]["rest"], runs["fmu"]["rest_heavy"]
    caravan = sum(rest[f"wheel_{w}.tire_fz"] for w in ("TL", "TR"))
    parts = (*car.spec.mechanism.bodies, *car.spec.mechanism.rods)
    caravan_weight = sum(p.mass_kg for p in parts if p.name.split(".")[0] in ("caravan", "TL", "TR")) * g
    assert 0.03 < 1.0 - caravan / caravan_weight < 0.1
    gained = sum(heavy[f"wheel_{w}.tire_fz"] - rest[f"wheel_{w}.tire_fz"] for w in ("TL", "TR"))
    assert 0.85 * (CARAVAN_MASS - 1186.0) * g < gained < (CARAVAN_MASS - 1186.0) * g
    assert rest["caravan.articulation"] == 0.0 and rest["chassis.vx"] == 0.0


def test_rollback_serialize_reset_and_interleaved_instances_are_bit_identical(runs):
    assert_state_bit_identical(runs["fmu"]["state"], other_differs=True)


@pytest.mark.parametrize("case, statuses, words", [
    ("caravan_mass_above_max", [2], ["parameter 'caravan.chassis_mass'", "above max 3000"]),
    ("caravan_spring_below_min", [2], ["parameter 'suspension_TR.spring_stiffness'", "below min"]),
    ("caravan_tire_radius", [2], ["parameter 'tire_TL.unloaded_radius'", "above max"]),
    ("nan_caravan_point", [2], ["wheel_TL.point.z", "nan"]),
    ("unknown_model", [2], ["model", "fullcar14"]),
])
def test_bad_parameters_and_inputs_are_refused_naming_the_variable(runs, case, statuses, words):
    assert_refused(runs["fmu"]["bad"][case], statuses, words)


# ------------------------------------------------------------------------------------------ C host

def test_c_host_runs_the_turn_as_fmpy_and_the_python_api(fmu, c_host, runs):
    """The same turn in the C host (the way non-Python tools load the FMU; two runs, each with a state
    save/restore check) and in FMPy: exit code 0, the same bits; the C host's articulation angle and wheel
    loads at 6 s are the Python API's to 1e-12."""
    c_host_turn(fmu, c_host, runs["reference"], ["caravan.articulation", "caravan.yaw_rate", "chassis.yaw_rate",
                                                 "wheel_TL.tire_fz", "wheel_TR.pos.y"],
                swa=SWA, v0=V0, h=H, steps=STEPS)


# ------------------------------------------------------------------------------------------ SSP example

@pytest.fixture(scope="module")
def lane_change(fmu, registered_fmus, tmp_path_factory) -> dict:
    """The shipped ``caravan.ssd`` run by the project's master (read_ssp + run_system, Gauss-Seidel: driver then
    vehicle, 1 ms) to its stop time, with the session's FMUs."""
    fmus = {"Driver": registered_fmus["Driver"], FMU: fmu}
    outputs = ("vehicle.chassis.x", "vehicle.chassis.y", "vehicle.chassis.yaw", "vehicle.chassis.ay",
               "vehicle.chassis.yaw_rate", "vehicle.chassis.vx", "vehicle.caravan.articulation",
               "vehicle.caravan.y", "vehicle.caravan.ay", "driver.lateral_error")
    system, result = run_system_file("caravan", Path(fmu).parent, outputs)
    return {"system": system, "result": result, "fmus": fmus, "tmp": tmp_path_factory.mktemp("caravan_ssd")}


def test_shipped_caravan_system_is_what_the_builder_writes(lane_change):
    """resources/scenarios/caravan.ssd is ``adas.systems.caravan_system`` written from the built FMUs
    (``python -m fmu_vehicle.adas.systems`` rewrites it): Driver then VehicleCombination, valid SSP 1.0."""
    from fmu_vehicle.adas.systems import caravan_system, system_file
    from fmu_vehicle.cosim.ssp import write_ssd
    from fmu_vehicle.cosim.ssp_schema import check_ssd

    path = write_ssd(caravan_system(lane_change["fmus"]), lane_change["tmp"] / "caravan.ssd")
    assert path.read_bytes() == system_file("caravan").read_bytes()
    check_ssd(system_file("caravan"))
    assert [c.name for c in lane_change["system"].components] == ["driver", "vehicle"]


def test_driver_takes_the_caravan_through_the_double_lane_change(lane_change):
    """The path follower steers the car towing its caravan through the ISO 3888-1 double lane change at
    60 km/h: the car passes the four gates without touching a cone (``scenarios.full_car.lane_change_metrics``)
    within 0.5 m of the centre line and holds the speed within 1 m/s; the caravan swings out to both sides by
    more than 0.2 rad, with a larger peak lateral acceleration than the car's (rearward amplification above 1),
    and settles on the run-out."""
    from fmu_vehicle.scenarios.full_car import lane_change_metrics

    r = lane_change["result"]
    t = np.asarray(r.t)
    kpis = lane_change_metrics(r)
    assert kpis["completed"] and kpis["gates_passed"] == kpis["gates_total"] == 4 and kpis["cones_hit"] == 0
    assert kpis["max_path_error_m"] < 0.5
    vx = np.asarray(r["vehicle.chassis.vx"])
    assert np.all(np.abs(vx - 60 / 3.6) < 1.0)
    theta = np.asarray(r["vehicle.caravan.articulation"])
    assert theta.max() > 0.2 and theta.min() < -0.2
    assert np.max(np.abs(theta[t > t[-1] - 0.5])) < 0.05
    assert np.max(np.abs(r["vehicle.caravan.ay"])) > np.max(np.abs(r["vehicle.chassis.ay"]))


# ------------------------------------------------------------------------------------------ native build

@pytest.mark.slow
def test_native_build_equals_the_python_fmu_in_a_steady_turn(fmu, tmp_path):
    """``fmu-vehicle export --native VehicleCombination`` (v0 = 15 m/s, flat road fixed at export) with the
    caravan's mass, a caravan spring and tire radius set at run time: 4 s of a steady left turn through FMPy
    equal the Python FMU's outputs (set the same way) bit for bit, the caravan's included."""
    outputs = ["chassis.x", "chassis.yaw_rate", "chassis.ay", "caravan.articulation", "caravan.ay",
               "caravan.yaw_rate", "wheel_TL.tire_fz", "wheel_TR.pos.y", "wheel_TR.tire_fy"]
    ours, python = native_turn(FMU, fmu, tmp_path, outputs, {"caravan.chassis_mass": 1500.0,
                               "suspension_TL.spring_stiffness": 50000.0, "tire_TR.unloaded_radius": 0.45})
    assert ours.shape == python.shape == (4001, 1 + len(outputs))
    assert python[-1, 4] < -0.02 < 0.05 < python[-1, 2]           # turning left, the caravan at negative angle
    assert np.array_equal(ours, python)
