"""Example 2 (ACC stop-and-go, six FMUs, Gauss-Seidel at 1 ms) over its whole 30 s: the follower keeps the
time gap, never collides, stops behind the stopped lead and holds; the demo summary; a component that fails
mid-run (a test FMU of tests/cosim_fmus) stops the master with its name, the time and the reason, and the rows up
to that time are written."""
from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from fmu_vehicle.cosim import Component, Connection, CosimError, read_csv, read_ssp
from fmu_vehicle.scenarios.half_car import (ACC_DURATION_S, CONTROLLER, FRONT_BUMPER_FROM_COM_M, HALF_CAR_MASS_KG,
                                         STOP_GAP_BAND, STOP_SPEED_MAX, acc_stop_and_go, following_metrics,
                                         run_scenario, stop_check)
from fmu_vehicle.traffic import parse_speed_profile
from fmu_vehicle.traffic.lead_vehicle import SPEED_PROFILES

from cosim_fmus.fixtures import session_fmus

REPO = Path(__file__).resolve().parents[1]
TIME_GAP = 1.8          # s, acc.time_gap of the scenario
STANDSTILL = 5.0        # m, the Controller's default acc.standstill_distance


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", REPO / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def acc_run(scenario_fmus, tmp_path_factory):
    """examples/acc_stop_and_go.py main() at full length, recorded every 1 ms."""
    example = load_example("acc_stop_and_go")
    return example.main(out_dir=tmp_path_factory.mktemp("acc"), fmu_dir=Path(scenario_fmus["Tire"]).parent,
                        progress=False, output_interval=1e-3)


def test_follower_keeps_the_time_gap_and_never_collides(acc_run):
    r = acc_run.result
    assert r.time[-1] == pytest.approx(ACC_DURATION_S) == 30.0 and len(r) == 30001
    v_ego, v_lead = r["vehicle.chassis.vx"], r["lead.vx"]
    gap = r["lead.x"] - r["vehicle.chassis.x"] - FRONT_BUMPER_FROM_COM_M
    np.testing.assert_allclose(r["gap"], gap, rtol=0, atol=1e-12)
    assert gap.min() > 0.0                                               # never collides
    # the stopping law aims at the 5 m standstill distance; the car comes to rest within 1 m of it (the
    # brake and the converter's creep torque against the last centimetres per second), inside the 2-10 m band
    assert gap.min() > STANDSTILL - 1.0 and gap.min() > STOP_GAP_BAND[0]
    moving = v_ego > 1.0
    time_gap = gap[moving] / v_ego[moving]
    assert time_gap.min() >= TIME_GAP - 0.3                              # the acceptance criterion
    assert time_gap.min() < TIME_GAP + 0.5                               # ... while actually following
    # the lead drove its profile and the ego followed it: up to cruise speed, then to a stop behind it
    profile = parse_speed_profile(SPEED_PROFILES[acc_run.scenario.system.component("lead").parameters["speed_profile"]])
    np.testing.assert_allclose(v_lead, [profile.evaluate(t)[1] for t in r.time], atol=1e-9)
    assert v_ego.max() == pytest.approx(16.0, abs=0.5)
    assert not r["controller.aeb_active"].any()                          # the ACC stage alone (2.5 m/s2 lead)
    # the acceptance: at the end stopped (< 0.2 m/s) 2-10 m behind the stopped lead, no contact; the hold is
    # engaged from the stop on (the lead stands still from 20.4 s; the ego is at rest within 7 s of it)
    check = stop_check(r)
    assert check["stopped_behind"] and abs(check["final_speed_m_per_s"]) < STOP_SPEED_MAX
    assert STOP_GAP_BAND[0] <= check["final_gap_m"] <= STOP_GAP_BAND[1] and not check["contact"]
    held = r["controller.held"] > 0.5
    assert held[-1] and held[r.time > 27.5].all() and not held[(r.time > 1.0) & (r.time < 20.4)].any()
    assert np.abs(v_ego[r.time > 27.5]).max() < STOP_SPEED_MAX
    # the powertrain shifted up and down through the gears; the car crossed the five bumps (tire lift-off)
    gears = r["powertrain.transmission.gear"]
    assert gears.max() >= 5 and gears[-1] <= 2
    bumps = (r["vehicle.chassis.x"] > 20.0) & (r["vehicle.chassis.x"] < 85.0)
    assert r["tire_front.fz"][bumps].min() < 100.0 < 12000.0 < r["tire_front.fz"][bumps].max()
    # the vehicle applied the tire's load of the same step (Gauss-Seidel, tire first); it reports the global
    # z force, which equals the normal load where the road is level
    level = (r["vehicle.wheel_front.x"] < 19.9) | (r["vehicle.wheel_front.x"] > 81.0)
    np.testing.assert_array_equal(r["vehicle.wheel_front.tire_fz"][level], r["tire_front.fz"][level])


def test_summary_and_files(acc_run):
    """The demo's summary, recomputed here from the recorded signals by its definitions (gap from the
    positions and the overhang, time gap gap / v for v > 1 m/s, TTC gap / closing speed while closing, RMS of
    the chassis vertical acceleration, pitch at rest and at its largest magnitude) to 1e-9, and each
    against what the controller and the vehicle must give: no AEB means TTC never fell below aeb.ttc_on
    (1.5 s); the gap never below 2 m (the stop band's lower end); the rest pitch is the half car's static
    equilibrium on this road (Python API); the peak pitch is nose-up during the launch."""
    from fmu_vehicle.vehicle import Vehicle
    m, r = acc_run.metrics, acc_run.result
    assert m == following_metrics(r)
    v_ego, v_lead = r["vehicle.chassis.vx"], r["lead.vx"]
    gap = r["lead.x"] - r["vehicle.chassis.x"] - FRONT_BUMPER_FROM_COM_M
    closing = v_ego - v_lead
    moving = v_ego > 1.0
    ttc = np.where(closing > 0.0, gap / np.where(closing > 0.0, closing, 1.0), np.inf)
    pitch, az = r["vehicle.chassis.pitch"], r["vehicle.chassis.az"]
    assert m["min_gap_m"] == pytest.approx(gap.min(), rel=1e-9)
    assert m["min_time_gap_s"] == pytest.approx((gap[moving] / v_ego[moving]).min(), rel=1e-9)
    assert m["min_ttc_s"] == pytest.approx(ttc.min(), rel=1e-9)
    assert m["rms_az_m_per_s2"] == pytest.approx(np.sqrt(np.mean(az ** 2)), rel=1e-9)
    assert (m["rest_pitch_rad"], m["peak_pitch_rad"]) == (pitch[0], pitch[np.argmax(np.abs(pitch))])
    assert m["min_ttc_s"] > 1.5 and m["min_gap_m"] > STOP_GAP_BAND[0] and m["min_time_gap_s"] >= TIME_GAP - 0.3
    car = Vehicle.load("halfcar7")
    system = car.system("bumpy")
    car.initial_state(system, v0=0.0)
    rest = system.data.mech.z[car.mech.coordinate("chassis.pitch")]
    assert m["rest_pitch_rad"] == pytest.approx(rest, abs=1e-6)
    k = int(np.argmax(np.abs(pitch)))
    assert r.time[k] < 1.0 and pitch[k] < rest and r["vehicle.chassis.ax"][k] > 2.0     # launch, nose up
    written = read_csv(acc_run.csv)
    assert written.names == acc_run.result.names and written.time[-1] == ACC_DURATION_S
    assert acc_run.plot.stat().st_size > 20_000
    system = read_ssp(acc_run.ssp)
    assert [c.name for c in system.components] == ["lead", "controller", "powertrain", "tire_front", "tire_rear",
                                                   "vehicle"]
    assert system.component("controller").step_size == pytest.approx(0.01)
    assert system.component("controller").parameters["vehicle.mass"] == CONTROLLER["vehicle.mass"]
    assert len(system.connections) == len(acc_run.scenario.system.connections) == 2 + 9 + 2 * 8   # lead, car, tires


def test_controller_mass_is_the_whole_car():
    from fmu_vehicle.vehicle import Vehicle
    assert HALF_CAR_MASS_KG == pytest.approx(Vehicle.load("halfcar7").total_mass_kg, abs=0.5)


@pytest.fixture(scope="module")
def failed_run(scenario_fmus, tmp_path_factory):
    """The ACC system for 1 s with a component that fails at t = 0.3 s (the gain block of tests/cosim_fmus,
    fail_time = 0.3 s, fed the front tire's load, stepped right after the front tire): (CosimError, output dir)."""
    out = tmp_path_factory.mktemp("failing")
    faulty = session_fmus(tmp_path_factory)["faulty"]
    base = acc_stop_and_go(scenario_fmus, duration=1.0)
    failing = Component("failing", faulty, {"fail_time": 0.3, "fail_message": "forced failure"})
    system = replace(base.system, components=[*base.system.components, failing],
                     connections=[*base.system.connections, Connection("tire_front", "fz", "failing", "u")])
    order = list(base.order)
    order.insert(order.index("tire_front") + 1, "failing")
    with pytest.raises(CosimError) as info:
        run_scenario(replace(base, system=system, order=tuple(order)), out, progress=False)
    return info.value, out


def test_failing_component_stops_the_master_and_the_rows_up_to_then_are_written(scenario_fmus, failed_run, tmp_path):
    err, out = failed_run
    assert err.component == "failing" and err.time == pytest.approx(0.3, abs=1e-12)
    message = str(err)
    assert "'failing'" in message and "t=0.3 s" in message and "Discard" in message
    assert "fmi2DoStep(t=0.3, h=0.001)" in message
    # the FMU's reason reaches the run's log, as an error of that component (see the next test for whose log)
    reasons = [line for line in err.result.messages if "forced failure" in line]
    assert reasons and all(line.startswith("[failing] Error") for line in reasons)
    assert "forced failure (t=0.3 s)" in reasons[0]
    # rows 0 .. 0.3 s are in the error and in the CSV, equal to a healthy run's
    partial = read_csv(out / "acc_stop_and_go.csv")
    assert partial.time[-1] == pytest.approx(0.3) and len(partial) == 31 == len(err.result)
    healthy = run_scenario(acc_stop_and_go(scenario_fmus, duration=0.3), tmp_path, progress=False)
    for name in ("vehicle.chassis.x", "vehicle.chassis.z", "tire_front.fz", "controller.throttle"):
        np.testing.assert_array_equal(partial[name][:-1], healthy.result[name][:-1])


def test_failure_reason_is_attributed_to_the_failing_component(failed_run):
    """FMPy's logger proxy calls one global logger; the master routes each message by instance name."""
    err, _ = failed_run
    assert "forced failure (t=0.3 s)" in err.reason
