"""The ChassisControl and Robot FMUs and the regulation catalogues that run them.

* The ChassisControl FMU's start values are the shipped full car's: the controller constants recomputed from
  the vehicle (``closed_loop.controlled_vehicle``), the brake data from its brake file, the tunings from the
  default tuning file.
* The system ``chassis.ssd`` (Robot -> ChassisControl -> Vehicle, Gauss-Seidel, 1 ms) run by our master gives
  the numbers of the Python closed loop (``closed_loop.run``) for a sine with dwell with ESC and a stop with
  ABS: the same sample instants, pressures and vehicle states.
* Sweeps of the shipped catalogues' variants on dask: the sine with dwell at 6.5 A fails without ESC and
  passes with it, naming the criterion; the dry ABS stop is within 110 % of the ideal distance only with ABS.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from fmu_vehicle.adas import sweep as S
from fmu_vehicle.adas.catalogue import load_catalogue
from fmu_vehicle.adas.protocols import PROTOCOLS, chassis_control_parameters
from fmu_vehicle.control.closed_loop import OpenLoopDriver, controlled_vehicle, run
from fmu_vehicle.control.ecu import ChassisController, load_tuning
from fmu_vehicle.control.hydraulics import load_brake_system
from fmu_vehicle.cosim.master import run_system
from fmu_vehicle.cosim.ssp import read_ssp
from fmu_vehicle.driver.profile import SteeringProfile
from fmu_vehicle.fmi import chassis_parameters as CP
from fmu_vehicle.manoeuvres import sine_with_dwell as swd
from fmu_vehicle.paths import resource_path
from fmu_vehicle.vehicle.vehicle import Vehicle


NAMES = ("Robot", "ChassisControl", "Vehicle")


@pytest.fixture(scope="module")
def car():
    return Vehicle.load("fullcar14")


@pytest.fixture(scope="module")
def brakes(car):
    return load_brake_system("fullcar14", car.wheel_names)


@pytest.fixture(scope="module")
def fmu_dir(registered_fmus):
    folders = {Path(registered_fmus[n]).parent for n in NAMES}
    assert len(folders) == 1
    return folders.pop()


def test_the_fmu_start_values_are_the_shipped_cars(car, brakes):
    """FULLCAR14 is controlled_vehicle(fullcar14) (single-track constants, track, effective rolling radii,
    driven wheels); the brake and tuning start values are the files'."""
    cv = controlled_vehicle(car, brakes)
    for f in ("mass_kg", "yaw_inertia_kg_m2", "a_m", "b_m", "cf_N_per_rad", "cr_N_per_rad", "steering_ratio",
              "track_m"):
        assert CP.FULLCAR14[f] == pytest.approx(getattr(cv, f), rel=1e-12), f
    assert CP.FULLCAR14["wheel_radius_front_m"] == pytest.approx(cv.radius_m[0], rel=1e-12)
    assert CP.FULLCAR14["wheel_radius_rear_m"] == pytest.approx(cv.radius_m[2], rel=1e-12)
    assert CP.FULLCAR14["driven"] == tuple(bool(d) for d in cv.driven)
    _, starts = CP.start_values(None)
    params = CP.fmu_parameters(cv, brakes)
    for name, value in params.items():
        assert starts[name] == pytest.approx(value, rel=1e-12), name
    tuning = load_tuning()
    assert {n: v for n, v in starts.items() if n.split(".")[0] in ("abs", "tcs", "esc")} == {
        f"{f}.{k}": float(v) for f in ("tcs", "esc", "abs") for k, v in tuning[f].items()}


@pytest.fixture(scope="module")
def fmu_runs(fmu_dir):
    """Our master's runs of chassis.ssd (this process runs numba for the generic CPU, tests/conftest.py, so the
    FMUs load the kernels they ship): a sine with dwell at 6.5 A and a dry stop from 100 km/h."""
    out = {}
    for tag, protocol, params in (("swd", "sine_with_dwell", {"amplitude_A": 6.5, "direction": 1, "A_deg": 30.1}),
                                  ("stop", "braking", {"road": "flat"})):
        system = read_ssp(resource_path("scenarios", "chassis.ssd"), fmu_dir=fmu_dir)
        scenario, on_step = PROTOCOLS[protocol](system, **params)
        r = run_system(scenario.system, scenario.experiment(), progress=False, on_step=on_step)
        out[tag + ".time"] = r.time
        out[tag + ".steering_profile"] = system.component("robot").parameters["steering_profile"]
        out.update({f"{tag}.{n}": r[n] for n in scenario.outputs})
    return out


def _python(car, brakes, steer, pedal, duration, v0, stop=None):
    controller = ChassisController(controlled_vehicle(car, brakes))
    return run(car, "flat", duration, OpenLoopDriver(steer, pedal, 0.0), brakes, controller, v0=v0, stop=stop)


def test_the_fmu_system_gives_the_python_closed_loop(car, brakes, fmu_runs):
    """The sine with dwell at 6.5 A (ESC brakes) and the dry stop from 100 km/h (ABS controls the slip) through the
    FMUs equal the Python closed loop to 1e-9 (yaw rate [rad/s], y and x [m], pressures [Pa] relative to 180 bar);
    the front wheel's spin to 1e-6 rad/s: ABS's pressure limit is a continuous function of the wheel speeds, so
    the last-digit differences of the FMU's kernels (compiled for the generic CPU) reach the spin of the last
    metres, where the wheels lock (7e-8 rad/s at 0.3 rad/s)."""
    f = fmu_runs
    steer = SteeringProfile.parse(f["swd.steering_profile"])      # the robot's table (degrees, 12 digits)
    exact = swd.sine_with_dwell_profile(6.5 * math.radians(30.1), direction=1)
    np.testing.assert_allclose(steer.angles, exact.angles, rtol=0.0, atol=1e-11)
    t = f["swd.time"]
    py = _python(car, brakes, steer, 0.0, round(float(t[-1]), 3), 80.0 / 3.6)
    assert np.max(f["swd.chassis_control.esc.active"]) == 1.0
    for name, p, scale in (("vehicle.chassis.yaw_rate", "chassis.yaw_rate", 1.0), ("vehicle.chassis.y", "chassis.y", 1.0),
                           ("chassis_control.brakes.pressure_FR", "brakes.pressure_FR", 1.8e7),
                           ("robot.steering_wheel_angle", "driver.steering_wheel_angle", 1.0)):
        np.testing.assert_allclose(f[f"swd.{name}"] / scale, np.interp(t, py.time, py[p]) / scale, atol=1e-9,
                                   err_msg=name)

    t = f["stop.time"]
    pedal = [(0.0, 0.0), (0.2, 0.0), (0.25, 600.0)]
    py = _python(car, brakes, SteeringProfile([0.0], [0.0]), pedal, round(float(t[-1]), 3), 100.0 / 3.6)
    assert np.max(f["stop.chassis_control.abs.active"]) == 1.0
    for name, p, scale, tol in (("vehicle.chassis.x", "chassis.x", 1.0, 1e-9),
                                ("vehicle.wheel_FL.omega", "wheel_FL.omega", 1.0, 1e-6),
                                ("chassis_control.brakes.pressure_FL", "brakes.pressure_FL", 1.8e7, 1e-9),
                                ("chassis_control.abs.phase_RL", "abs.phase_RL", 1.0, 1e-9)):
        np.testing.assert_allclose(f[f"stop.{name}"] / scale, np.interp(t, py.time, py[p]) / scale, atol=tol,
                                   rtol=0.0, err_msg=name)


def _variants(tmp_path, name, keep) -> object:
    """The shipped catalogue ``name`` cut to the runs whose parameters match ``keep`` (a catalogue file in
    tmp_path naming the shipped system file)."""
    src = json.loads(resource_path("scenarios", f"{name}.json").read_text())
    src["system"] = str(resource_path("scenarios", src["system"]))
    for key, values in keep.items():
        if key in src.get("grid", {}):
            src["grid"][key] = values
        else:
            src["cases"] = [c for c in src["cases"] if c["case"] in values]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(src))
    return load_catalogue(str(path))


def test_the_regulation_catalogues_score_the_controller_on_and_off(fmu_dir, tmp_path):
    """Sine with dwell at 6.5 A counter-clockwise: ESC off fails the yaw-rate criteria, ESC on passes all three
    (displacement >= 1.83 m). Dry stop from 100 km/h: without ABS the wheels lock and the distance is about 131 %
    of v^2/(2 g); with ABS at most 110 %."""
    cat = _variants(tmp_path, "un-r140-sine-with-dwell", {"amplitude_A": [6.5], "direction": [1]})
    res = S.sweep(cat, tmp_path / "swd.csv", workers=1, fmu_dir=fmu_dir, progress=False, log=lambda m: None)
    off, on = res.rows
    assert (off["chassis_control.esc.enabled"], on["chassis_control.esc.enabled"]) == (False, True)
    assert off["status"] == on["status"] == "ok", (off["error"], on["error"])
    assert not off["passed"] and "yaw_rate_1s" in off["failed"] and off["yaw_rate_ratio_1s_pct"] > 35.0
    assert not off["esc_activated"] and on["esc_activated"]
    assert on["passed"] and on["failed"] == "" and on["lateral_displacement_m"] > 1.83
    assert on["amplitude_deg"] == pytest.approx(6.5 * 30.1, rel=1e-9)
    assert res.plot.stat().st_size > 10_000

    cat = _variants(tmp_path, "abs-braking", {"case": ["dry"]})
    res = S.sweep(cat, tmp_path / "abs.csv", workers=1, fmu_dir=fmu_dir, progress=False, log=lambda m: None)
    off, on = res.rows
    assert off["status"] == on["status"] == "ok", (off["error"], on["error"])
    assert off["ratio"] == pytest.approx(1.31, abs=0.03) and not off["distance_ok"] and not off["abs_activated"]
    assert on["ratio"] <= 1.10 and on["distance_ok"] and on["abs_activated"]
    assert on["slip_band_fraction"] >= 0.98


def test_the_shipped_chassis_catalogues(fmu_dir):
    """The sine with dwell runs 12 amplitudes x 2 directions x ESC off/on; ABS braking 4 cases x ABS off/on;
    the TCS launch 2 roads x TCS off/on. The last amplitude is max(6.5 A, 270 deg) = 270 deg (8.97 A)."""
    counts = {"un-r140-sine-with-dwell": 48, "un-r140-sine-with-dwell-midsize": 48, "abs-braking": 8, "tcs-launch": 4}
    for name, n in counts.items():
        assert len(load_catalogue(name).runs()) == n
    assert swd.amplitude_series(math.radians(30.1))[-1][1] == pytest.approx(math.radians(270.0))
    system = read_ssp(resource_path("scenarios", "chassis.ssd"), fmu_dir=fmu_dir)
    assert [c.name for c in system.components] == list(("robot", "chassis_control", "vehicle"))
    PROTOCOLS["sine_with_dwell"](system, amplitude_A="final", direction=-1, A_deg=30.1)
    table = system.component("robot").parameters["steering_profile"]
    angles = [float(item.split(":")[1]) for item in table.split(",")]
    assert min(angles) == pytest.approx(-270.0) and max(angles) == pytest.approx(270.0)


def test_the_midsize_catalogue_runs_the_mid_size_car_with_its_own_constants(fmu_dir, tmp_path):
    """un-r140-sine-with-dwell-midsize: Vehicle.fmu runs midsize14 and the ChassisControl FMU gets that car's
    constants and brake data computed from its files (``chassis_control_parameters``: 1547.6 kg with the wheels, its
    own brake gains); at 6.5 A (A = 25.3 deg with its anti-roll bars) counter-clockwise the car fails yaw_rate_1s without ESC and passes
    every criterion with it, as the Python runs of docs/chassis_control.md section 5 show."""
    midsize = Vehicle.load("midsize14")
    mbrakes = load_brake_system("midsize14", midsize.wheel_names)
    values = chassis_control_parameters("midsize14")
    assert values == CP.fmu_parameters(controlled_vehicle(midsize, mbrakes), mbrakes)
    assert values["vehicle.mass"] == pytest.approx(1547.6) and values["vehicle.track"] == pytest.approx(1.56)
    assert values["brakes.torque_gain_FL"] == float(mbrakes.torque_gain_Nm_per_Pa[0]) != CP.start_values(None)[1][
        "brakes.torque_gain_FL"]
    cat = _variants(tmp_path, "un-r140-sine-with-dwell-midsize", {"amplitude_A": [6.5], "direction": [1]})
    system = read_ssp(resource_path("scenarios", "chassis.ssd"), fmu_dir=fmu_dir)
    PROTOCOLS["sine_with_dwell"](system, amplitude_A=6.5, direction=1, A_deg=25.3, vehicle="midsize14")
    assert system.component("vehicle").parameters["model"] == "midsize14"
    assert system.component("chassis_control").parameters["vehicle.mass"] == values["vehicle.mass"]
    res = S.sweep(cat, tmp_path / "swd_mid.csv", workers=1, fmu_dir=fmu_dir, progress=False, log=lambda m: None)
    off, on = res.rows
    assert off["status"] == on["status"] == "ok", (off["error"], on["error"])
    assert on["amplitude_deg"] == pytest.approx(6.5 * 25.3, rel=1e-9)
    assert not off["passed"] and off["failed"] == "yaw_rate_1s" and off["yaw_rate_ratio_1s_pct"] > 35.0
    assert on["passed"] and on["esc_activated"] and on["lateral_displacement_m"] > 1.83
