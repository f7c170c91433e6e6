"""TractorSemitrailer.fmu (the 6x4 tractor with its tri-axle semitrailer, ``tractor_semitrailer``) built for
real, run through FMPy and the project's C host: its interface (the twelve wheels' inputs and outputs with
Project Chrono's wheel interface, the semitrailer's outputs taken from the signal table, the heavy truck's
parameter ranges), its physics against the Python API (a steady left turn at 15 m/s: every output equal, the
articulation angle to 1e-12 rad; the twelve tire loads at rest carry the whole weight, a heavier semitrailer
adds its own), its state, refused parameters, the shipped scenario system ``tractor_semitrailer.ssd`` (a lane
change at 70 km/h with Driver.fmu) in the project's master, and the native build against the Python FMU.

The FMU is built once per module; one child process runs every FMPy case, in parallel with a child running the
same turn through ``VehicleSimulator`` (``fmu_combination_cases``, shared with the VehicleCombination
module).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.validation import validate_fmu

from fmu_vehicle.fmi.vehicle_parameters import HEAVY_TRUCK_CORNERS, KINDS
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.signals import FULL_VEHICLE

from fmu_cases import assert_refused, assert_state_bit_identical
from fmu_combination_cases import (c_host_turn, column, dependencies, gravity, native_turn, run_combination,
                                   run_system_file)

FMU = "TractorSemitrailer"
MODEL = KINDS[FMU].models[0]            # tractor_semitrailer
UNIT = "semitrailer"
H = 1e-3
STEPS = 4000                            # 4 s of a steady turn
EVERY = 500                             # rows compared every 0.5 s
V0 = 15.0                               # m/s
SWA = 1.0                               # rad, + left: 0.05 rad at the road wheels, about 2 m/s^2 at 15 m/s
TRAILER_MASS = 20000.0                  # kg, the semitrailer chassis's mass in the vehicle file
HEAVY_TRAILER = 26000.0                 # kg, a heavier load
TOTAL_MASS = 35757.4                    # kg, the whole combination (resources/vehicles/README.md)
AXLES = ("front", "drive1", "drive2", "trailer1", "trailer2", "trailer3")

NAN = float("nan")
BAD = [("trailer_mass_above_max", {f"{UNIT}.chassis_mass": 40000.0}, [("step", 0.0, H)]),
       ("car_spring_on_a_truck", {"suspension_TL2.spring_stiffness": 50000.0}, [("step", 0.0, H)]),
       ("dual_wheel_inertia", {"wheel_RR2.inertia_yy": 70.0}, [("step", 0.0, H)]),
       ("dt_above_max", {"dt": 0.008}, [("step", 0.0, H)]),
       ("nan_trailer_point", {"tire_source": "external"}, [("set", "Real", "wheel_TR3.point.z", NAN), ("step", 0.0, H)]),
       ("caravan_model", {"model": "sedan_caravan"}, [("step", 0.0, H)])]
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
                           mass_parameter=f"{UNIT}.chassis_mass", heavy=HEAVY_TRAILER, bad=BAD)


# ------------------------------------------------------------------------------------------ interface

def test_fmpy_validation_is_clean(fmu):
    assert validate_fmu(str(fmu)) == []


def test_every_wheel_and_the_semitrailer_have_their_variables(fmu, car):
    """Each of the twelve wheels has the full vehicle's per-wheel inputs and outputs (Project Chrono's wheel
    interface: pos/rot/lin_vel/ang_vel out, point/force/moment in) and its corner parameters; the semitrailer has
    every ``unit`` output of the signal table and its chassis mass (20 t, 5-30 t), each of the six axles every
    ``axle`` output; the outputs are the Python API's, in its order."""
    md = read_model_description(str(fmu))
    by = {v.name: v for v in md.modelVariables}
    assert car.wheel_names == ("FL", "FR", "RL1", "RR1", "RL2", "RR2", "TL1", "TR1", "TL2", "TR2", "TL3", "TR3")
    assert car.unit_names == (UNIT,)
    for w in car.wheel_names:
        for r in FULL_VEHICLE.inputs:
            assert by[f"wheel_{w}.{r.name}"].causality == "input", (w, r.name)
        for q in ("pos.x", "rot.e0", "lin_vel.y", "ang_vel.z", "tire_fz", "slip_angle"):
            assert by[f"wheel_{w}.{q}"].causality == "output", (w, q)
        for row in HEAVY_TRUCK_CORNERS:
            assert by[row[0].format(w=w)].causality == "parameter", row[0]
        assert by[f"tire_{w}.unloaded_radius"].causality == "parameter"
    for r in FULL_VEHICLE.unit_outputs:
        v = by[f"{UNIT}.{r.name}"]
        assert (v.causality, v.unit) == ("output", r.unit)
    for axle in AXLES:
        for r in FULL_VEHICLE.axle_outputs:
            v = by[f"axle_{axle}.{r.name}"]
            assert (v.causality, v.unit) == ("output", r.unit)
    mass = by[f"{UNIT}.chassis_mass"]
    assert (mass.causality, float(mass.start), mass.unit, float(mass.min), float(mass.max)) == \
        ("parameter", TRAILER_MASS, "kg", 5000.0, 30000.0)
    assert [v.name for v in md.modelVariables if v.causality == "output"] == list(car.output_names)
    assert [i.name for i in by["model"].declaredType.items] == [MODEL]


def test_the_ranges_are_a_heavy_trucks(fmu):
    """The corners take the heavy truck's ranges (``HEAVY_TRUCK_CORNERS``), not the cars': a dual pair's spin
    inertia up to 62 kg m^2 (its start 43.3), a single wheel's up to 24 (start 21.6), springs from 0.1 to
    10 MN/m, preloads to 60 kN, dampers to 5e5 N s/m; the internal step at most 5 ms."""
    by = {v.name: v for v in read_model_description(str(fmu)).modelVariables}
    span = lambda name: (float(by[name].min), float(by[name].max))          # noqa: E731
    assert span("wheel_RL1.inertia_yy") == (2.0, 62.0) and float(by["wheel_RL1.inertia_yy"].start) == 43.3
    assert span("wheel_FL.inertia_yy") == span("wheel_TR3.inertia_yy") == (1.0, 24.0)
    assert span("wheel_RR2.mass") == (60.0, 600.0) and span("wheel_TL1.mass") == (30.0, 300.0)
    assert span("suspension_TL2.spring_stiffness") == (1e5, 1e7)
    assert span("suspension_FR.spring_preload") == (0.0, 6e4)
    assert span("suspension_RL2.damping") == (0.0, 5e5)
    assert span("tire_TR1.unloaded_radius") == (0.4, 0.6)
    assert span("dt") == (1e-6, 0.005)
    for name, v in by.items():
        if v.causality == "parameter" and v.type == "Real" and v.min is not None:
            assert float(v.min) <= float(v.start) <= float(v.max), name


def test_model_structure_of_the_semitrailer_outputs(fmu, car):
    """While stepping no output depends on an input; in Initialization Mode the semitrailer's lateral
    acceleration follows every input of all twelve wheels, as chassis.ay does, and its states (every unit output
    of the signal table in m, m/s, rad or rad/s) follow none; an axle's load follows its two wheels' road and
    tire-load inputs, its heave and roll none."""
    md = read_model_description(str(fmu))
    inputs = {v.name for v in md.modelVariables if v.causality == "input"}
    wheel_inputs = {n for n in inputs if n.startswith("wheel_")}
    assert len(wheel_inputs) == 12 * len(FULL_VEHICLE.inputs)
    assert all(deps == [] for deps in dependencies(fmu, "Outputs").values())
    initial = dependencies(fmu, "InitialUnknowns")
    assert set(initial[f"{UNIT}.ay"]) & inputs == wheel_inputs == set(initial["chassis.ay"]) & inputs
    for r in FULL_VEHICLE.unit_outputs:
        if r.unit in ("m", "m/s", "rad", "rad/s"):         # positions, velocities, angles, rates: states
            assert not set(initial[f"{UNIT}.{r.name}"]) & inputs, r.name
    # an axle's tire forces follow its two wheels' road and tire-load inputs; its heave and roll are states
    assert set(initial["axle_drive2.load"]) & inputs == {
        f"wheel_{w}.{n}" for w in ("RL2", "RR2") for n in (r.name for r in FULL_VEHICLE.inputs)
        if not n.startswith("torque_")}
    assert not set(initial["axle_trailer3.roll"]) & inputs and not set(initial["axle_front.heave"]) & inputs


# ------------------------------------------------------------------------------------------ physics

def test_steady_left_turn_equals_the_python_api(runs):
    """A constant steering-wheel angle of 1 rad at 15 m/s for 4 s: every output of the FMU equals the Python
    API's at every 0.5 s to 1e-9 (the same kernels; tire forces of 1e5 N included), the articulation angle to
    1e-12 rad."""
    ref, got = runs["reference"], runs["fmu"]
    assert list(got["names"]) == list(ref["names"])
    np.testing.assert_allclose(got["rows"], ref["rows"], rtol=0.0, atol=1e-9)
    np.testing.assert_allclose(column(got, f"{UNIT}.articulation"), column(ref, f"{UNIT}.articulation"),
                               rtol=0.0, atol=1e-12)


def test_a_left_turn_swings_the_semitrailer_to_negative_articulation(runs):
    """Turning left (yaw rate > 0) the semitrailer lags inside the turn: its heading is behind the tractor's,
    so the articulation angle is negative, and after 4 s it turns at the tractor's yaw rate."""
    got = runs["fmu"]
    yaw_rate = column(got, "chassis.yaw_rate")[-1]
    theta = column(got, f"{UNIT}.articulation")[-1]
    assert 0.05 < yaw_rate < 0.3
    assert theta < -0.05
    assert column(got, f"{UNIT}.yaw_rate")[-1] == pytest.approx(yaw_rate, rel=0.05)
    assert column(got, f"{UNIT}.articulation")[0] == 0.0


def test_tire_loads_at_rest_carry_the_whole_combination(runs, car):
    """Standing on the flat road the twelve tire loads sum to the combination's weight, 35 757.4 kg x g, to 1e-6
    relative; 6 t more in the semitrailer (``semitrailer.chassis_mass``) add exactly their weight, most of it on
    the semitrailer's axles, the rest through the kingpin on the tractor's tandem."""
    g = gravity(car)
    assert car.total_mass_kg == pytest.approx(TOTAL_MASS, abs=1e-9)
    extra = HEAVY_TRAILER - TRAILER_MASS
    for label, added in (("rest", 0.0), ("rest_heavy", extra)):
        out = runs["fmu"][label]
        total = sum(out[f"wheel_{w}.tire_fz"] for w in car.wheel_names)
        assert total == pytest.approx((TOTAL_MASS + added) * g, rel=1e-6), label
    rest, heavy = runs["fmu"]["rest"], runs["fmu"]["rest_heavy"]
    gained = {w: heavy[f"wheel_{w}.tire_fz"] - rest[f"wheel_{w}.tire_fz"] for w in car.wheel_names}
    trailer = sum(v for w, v in gained.items() if w.startswith("T"))
    assert 0.7 * extra * g < trailer < extra * g
    assert sum(gained[w] for w in ("RL1", "RR1", "RL2", "RR2")) > 0.1 * extra * g
    assert rest[f"{UNIT}.articulation"] == 0.0 and rest["chassis.vx"] == 0.0


def test_rollback_serialize_reset_and_interleaved_instances_are_bit_identical(runs):
    assert_state_bit_identical(runs["fmu"]["state"], other_differs=True)


@pytest.mark.parametrize("case, statuses, words", [
    ("trailer_mass_above_max", [2], [f"parameter '{UNIT}.chassis_mass'", "above max 30000"]),
    ("car_spring_on_a_truck", [2], ["parameter 'suspension_TL2.spring_stiffness'", "below min"]),
    ("dual_wheel_inertia", [2], ["parameter 'wheel_RR2.inertia_yy'", "above max 62"]),
    ("dt_above_max", [2], ["parameter 'dt'", "above max"]),
    ("nan_trailer_point", [2], ["wheel_TR3.point.z", "nan"]),
    ("caravan_model", [2], ["model", "sedan_caravan"]),
])
def test_bad_parameters_and_inputs_are_refused_naming_the_variable(runs, case, statuses, words):
    assert_refused(runs["fmu"]["bad"][case], statuses, words)


# ------------------------------------------------------------------------------------------ C host

def test_c_host_runs_the_turn_as_fmpy_and_the_python_api(fmu, c_host, runs):
    """The same turn in the C host (two runs, each with a state save/restore check) and in FMPy: exit code 0,
    the same bits; the C host's articulation angle, yaw rates and wheel loads at 4 s are the Python API's to
    1e-12."""
    c_host_turn(fmu, c_host, runs["reference"], [f"{UNIT}.articulation", f"{UNIT}.yaw_rate", "chassis.yaw_rate",
                                                 "wheel_TL3.tire_fz", "wheel_RR2.tire_fz", "wheel_TR1.pos.y"],
                swa=SWA, v0=V0, h=H, steps=STEPS)


# ------------------------------------------------------------------------------------------ SSP example

def test_the_drivers_vehicle_fields_are_the_trucks():
    """``adas.systems.TRUCK_DRIVER``: the tractor's single-track wheelbase and steering ratio (rounded), the
    combination's mass and the tires' free radius."""
    from fmu_vehicle.adas.systems import TRUCK_DRIVER
    from fmu_vehicle.manoeuvres.vehicle_model import single_track_of, towing_vehicle
    from fmu_vehicle.tire.models import host, unloaded_radius

    truck = Vehicle.load(MODEL)
    st = single_track_of(towing_vehicle(truck))
    assert TRUCK_DRIVER["vehicle.wheelbase"] == pytest.approx(st.wheelbase_m, abs=0.01)
    assert TRUCK_DRIVER["vehicle.steering_ratio"] == pytest.approx(st.steering_ratio, abs=0.05)
    assert TRUCK_DRIVER["vehicle.mass"] == pytest.approx(truck.total_mass_kg, abs=1e-6)
    assert TRUCK_DRIVER["vehicle.wheel_radius"] == pytest.approx(np.mean([host(unloaded_radius)(p)
                                                                           for p in truck.tire_p]), abs=1e-12)


@pytest.fixture(scope="module")
def lane_change(fmu, registered_fmus, tmp_path_factory) -> dict:
    """The shipped ``tractor_semitrailer.ssd`` run by the project's master (read_ssp + run_system, Gauss-Seidel:
    driver then vehicle, 1 ms) to its stop time, with the session's FMUs."""
    fmus = {"Driver": registered_fmus["Driver"], FMU: fmu}
    outputs = ("vehicle.chassis.x", "vehicle.chassis.y", "vehicle.chassis.ay", "vehicle.chassis.vx",
               f"vehicle.{UNIT}.y", f"vehicle.{UNIT}.ay", f"vehicle.{UNIT}.articulation", "driver.lateral_error")
    system, result = run_system_file("tractor_semitrailer", Path(fmu).parent, outputs)
    return {"system": system, "result": result, "fmus": fmus, "tmp": tmp_path_factory.mktemp("truck_ssd")}


def test_shipped_system_is_what_the_builder_writes(lane_change):
    """resources/scenarios/tractor_semitrailer.ssd is ``adas.systems.tractor_semitrailer_system`` written from
    the built FMUs: Driver then TractorSemitrailer, valid SSP 1.0, the drive torque shared by the four driven
    dual wheels."""
    from fmu_vehicle.adas.systems import system_file, tractor_semitrailer_system
    from fmu_vehicle.cosim.ssp import write_ssd
    from fmu_vehicle.cosim.ssp_schema import check_ssd

    path = write_ssd(tractor_semitrailer_system(lane_change["fmus"]), lane_change["tmp"] / "truck.ssd")
    assert path.read_bytes() == system_file("tractor_semitrailer").read_bytes()
    check_ssd(system_file("tractor_semitrailer"))
    system = lane_change["system"]
    assert [c.name for c in system.components] == ["driver", "vehicle"]
    torque = [c for c in system.connections if c.start_connector == "wheel_torque"]
    assert sorted(c.end_connector for c in torque) == [f"wheel_{w}.torque_drive" for w in ("RL1", "RL2", "RR1", "RR2")]
    assert all(c.factor == 0.25 for c in torque)


def test_driver_takes_the_truck_through_the_lane_change(lane_change):
    """The path follower steers the tractor-semitrailer through the 3.5 m lane change at 70 km/h (measured: path
    error 0.12 m, peak lateral acceleration 1.35 m/s^2 at the tractor and 1.43 at the semitrailer, articulation
    at most 0.035 rad): the tractor stays within 0.2 m of the path and holds the speed within 0.5 km/h, both
    units end in the new lane (3.5 m to the left, within 0.05 m), the semitrailer swings by about 2 degrees
    and its peak lateral acceleration exceeds the tractor's by a few percent (rearward amplification, ISO
    14791's measure, 1.06)."""
    from fmu_vehicle.adas.systems import TRUCK_PATH
    from fmu_vehicle.scenarios.full_car import path_lane_change_metrics

    r = lane_change["result"]
    kpis = path_lane_change_metrics(r, TRUCK_PATH, (UNIT,))
    assert kpis["max_path_error_m"] < 0.2
    assert kpis["final_y_m"] == pytest.approx(3.5, abs=0.05)
    assert kpis[f"{UNIT}.final_y_m"] == pytest.approx(3.5, abs=0.05)
    assert 1.2 < kpis["peak_ay_m_s2"] < 1.5
    assert 1.0 < kpis[f"{UNIT}.rearward_amplification"] < 1.15
    assert 0.02 < kpis[f"{UNIT}.peak_articulation_rad"] < 0.05
    assert np.all(np.abs(np.asarray(r["vehicle.chassis.vx"]) - 70 / 3.6) < 0.5 / 3.6)
    assert r.final("vehicle.chassis.x") > 215.0


# ------------------------------------------------------------------------------------------ native build

@pytest.mark.slow
def test_native_build_equals_the_python_fmu_in_a_steady_turn(fmu, tmp_path):
    """``fmu-vehicle export --native TractorSemitrailer`` (v0 = 15 m/s, flat road fixed at export) with the
    semitrailer's mass, an axle's damper and a tire radius set at run time: 4 s of a steady left turn (0.5 rad of
    steering-wheel angle from 0.65 s) through FMPy equal the Python FMU's outputs (set the same way) bit for
    bit, the semitrailer's included."""
    outputs = ["chassis.x", "chassis.yaw_rate", "chassis.ay", f"{UNIT}.articulation", f"{UNIT}.ay",
               f"{UNIT}.yaw_rate", "wheel_TL3.tire_fz", "wheel_RR2.pos.y", "wheel_TR1.tire_fy"]
    ours, python = native_turn(FMU, fmu, tmp_path, outputs, {"semitrailer.chassis_mass": 25000.0,
                               "suspension_TL3.damping": 150000.0, "tire_TR1.unloaded_radius": 0.52})
    assert ours.shape == python.shape == (4001, 1 + len(outputs))
    assert python[-1, 4] < -0.01 < 0.05 < python[-1, 2]           # turning left, the semitrailer at negative angle
    assert np.array_equal(ours, python)
