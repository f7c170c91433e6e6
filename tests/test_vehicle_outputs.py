"""The chassis outputs mean what their names say, for every vehicle kind: chassis.x, .y, .z are the global
position of the chassis centre of mass, in the frame of the wheel centres and the road (the engine's origin
added back, also past a rebase); chassis.vx, .vy, .vz, .ax, .az are components along the chassis axes for
the half car and the full car alike; chassis.sideslip does not jump when the car rocks backward."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_vehicle.road import load_road
from fmu_vehicle.vehicle import Vehicle

BUMP_X_M = 167.0
ROAD_ONE_BUMP = {"type": "speed_bumps", "bumps": [{"start_x_m": BUMP_X_M, "width_m": 0.5, "height_m": 0.06}]}


@pytest.fixture(scope="module")
def cars():
    return {name: Vehicle.load(name) for name in ("halfcar7", "fullcar14")}


def _rotation(row: dict) -> np.ndarray:
    """Chassis orientation A = Rz(yaw) Ry(pitch) Rx(roll) from the outputs (the half car: pitch only)."""
    r, p, y = (row.get(f"chassis.{a}", 0.0) for a in ("roll", "pitch", "yaw"))
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    Rz = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]])
    Ry = np.array([[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]])
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, cr, -sr], [0.0, sr, cr]])
    return Rz @ Ry @ Rx


def _wheel_centre(car, row: dict, wheel: str) -> np.ndarray:
    if f"wheel_{wheel}.pos.x" in row:
        return np.array([row[f"wheel_{wheel}.pos.{a}"] for a in "xyz"])
    w = car.wheel_index(wheel)      # the half car: x, z outputs, the wheel plane at the file's y
    return np.array([row[f"wheel_{wheel}.x"], car.w_center0[w, 1], row[f"wheel_{wheel}.z"]])


def _check_geometry(car, row: dict):
    """Each wheel centre c seen from the chassis position g in chassis axes, A^T (c - g), is the vehicle
    file's wheel centre minus its chassis CoM: vertically up to the reported suspension travel (exact), along
    x and y up to the small kinematic motion of the wheel with its travel."""
    g = np.array([row.get(f"chassis.{a}", car.chassis_com0[1] if a == "y" else None) for a in "xyz"])
    A = _rotation(row)
    for w, name in enumerate(car.wheel_names):
        rel = A.T @ (_wheel_centre(car, row, name) - g)
        design = car.w_center0[w] - car.chassis_com0
        assert rel[2] == pytest.approx(design[2] + row[f"wheel_{name}.travel"], abs=1e-9), name
        assert abs(rel[0] - design[0]) < 5e-3 and abs(rel[1] - design[1]) < 5e-3, (name, rel, design)


@pytest.mark.parametrize("name", ["halfcar7", "fullcar14"])
def test_chassis_position_is_the_centre_of_mass_in_the_frame_of_the_wheels_and_the_road(cars, name):
    """At the start (x0 = 57.3 m: the engine origin at 57 m) and on a run past a rebase of the engine origin
    (the chassis > 100 m from it) and over a bump at road x = 167 m: the chassis position against the wheel
    centres and the file's geometry, and the front wheel's load rises when its centre's x reaches the bump's
    x (the road's x)."""
    car = cars[name]
    x0 = 57.3
    res = car.simulate(ROAD_ONE_BUMP, 4.8, v0=25.0, x0=x0, dt=1e-3)
    assert res.meta["x_origin"] > 150.0                          # the engine origin moved during the run
    rows = [dict(zip(res.names, (float(res[n][k]) for n in res.names))) for k in (0, 2000, 4450, 4800)]
    assert rows[0]["chassis.x"] == pytest.approx(x0 + car.chassis_com0[0], abs=2e-3)
    assert rows[0]["chassis.z"] == pytest.approx(car.chassis_com0[2], abs=0.15)   # the design height, sunk on its tires
    for row in rows:
        _check_geometry(car, row)
    front = car.wheel_names[0]
    fx = res[f"wheel_{front}.pos.x" if f"wheel_{front}.pos.x" in res.names else f"wheel_{front}.x"]
    fz = res[f"wheel_{front}.tire_fz"]
    hit = int(np.argmax(np.abs(fz - fz[0]) > 50.0))               # the first sample the bump loads the tire
    assert 0 < hit and fx[hit - 1] < BUMP_X_M <= fx[hit] + 1e-9, (fx[hit - 1], fx[hit])
    # the chassis CoM is at the bump's x when the front wheel is the design CoM-to-front distance past it
    k = int(np.argmax(res["chassis.x"] >= BUMP_X_M))
    offset = car.w_center0[0, 0] - car.chassis_com0[0]
    assert fx[k] == pytest.approx(BUMP_X_M + offset, abs=0.02)


def test_vehicle_kinds_share_the_meaning_of_chassis_velocities(cars):
    """On the 16.5 deg slope at 10 m/s: chassis.vx, .vz are along the chassis axes for both kinds, equal
    between the half car and the symmetric full car; rotated by the pitch to the global frame they give the
    road tangent's direction, and the finite-difference d(chassis.z)/dt (10 m/s x sin 16.5 deg, about
    2.8 m/s) is that global z rate, not vz."""
    out = {}
    grade = math.radians(16.5)
    for name, car in cars.items():
        sim = car.simulator("slope16_5", v0=10.0)
        a = sim.outputs()
        sim.advance(1e-3)
        b = sim.outputs()
        out[name] = a
        p, vx, vz = a["chassis.pitch"], a["chassis.vx"], a["chassis.vz"]
        gx, gz = math.cos(p) * vx + math.sin(p) * vz, -math.sin(p) * vx + math.cos(p) * vz
        assert math.hypot(gx, gz) == pytest.approx(10.0, rel=1e-9)
        assert abs(math.atan2(gz, gx)) == pytest.approx(grade, abs=1e-9)
        dz_dt = (b["chassis.z"] - a["chassis.z"]) / 1e-3
        assert dz_dt == pytest.approx(gz, rel=2e-3)
        assert abs(dz_dt - vz) > 2.0
    for q in ("x", "z", "vx", "vz", "ax", "az", "pitch", "pitch_rate"):
        h, f = out["halfcar7"][f"chassis.{q}"], out["fullcar14"][f"chassis.{q}"]
        assert f == pytest.approx(h, rel=1e-7, abs=1e-7), q


def test_sideslip_has_no_jump_when_the_car_rocks_backward_after_a_locked_wheel_stop(cars):
    """The full car brakes with locked wheels from 8 m/s and pitches back after it stops, so that its chassis
    moves backward (vx < -0.1 m/s) for a while: sideslip = atan2(vy, |vx|) stays near 0 (the old atan2(vy, vx)
    gave +-180 deg there) and never jumps between samples."""
    car = cars["fullcar14"]
    res = car.simulate("flat", 3.0, v0=8.0, brake_torque={w: 6000.0 for w in car.wheel_names})
    vx, vy, beta = res["chassis.vx"], res["chassis.vy"], res["chassis.sideslip"]
    back = vx < -0.1
    assert back.any(), "the car should rock backward after the stop"
    assert np.abs(beta[back]).max() < 0.05
    moving = np.hypot(vx, vy) > 0.1
    np.testing.assert_array_equal(beta[moving], np.arctan2(vy[moving], np.abs(vx[moving])))
    assert np.abs(np.diff(beta)).max() < 0.05
