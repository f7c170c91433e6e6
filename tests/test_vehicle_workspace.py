"""Each simulation owns its workspace: two simulators of one Vehicle and a simulate() between their steps give
the results of separate runs bit for bit, no run writes the Vehicle's static arrays or its mechanism's own
workspace, and a simulator's saved state (external tire loads at a point included) continues bit-identically
after one step."""
from __future__ import annotations

import numpy as np
import pytest

from fmu_vehicle.vehicle import Vehicle

ROAD = "bumpy"
STEPS = 40
H = 5e-3


def _drive(sim, k: int):
    """Inputs of step k: a steering ramp and front drive torque that change every step."""
    sim.set_steering(0.002 * k)
    sim.set_input("FL", torque_drive=150.0 + 2.0 * k)
    sim.set_input("FR", torque_drive=150.0 - 1.0 * k)


def _simulate(car):
    return car.simulate(ROAD, 0.05, v0=12.0, x0=3.0, drive_torque={"FL": 100.0}).data.copy()


def _arrays(obj, prefix=""):
    """name -> bytes of every numpy array in a namedtuple (recursively) or of an array."""
    if isinstance(obj, np.ndarray):
        return {prefix: obj.tobytes()}
    out = {}
    if hasattr(obj, "_fields"):
        for f in obj._fields:
            out.update(_arrays(getattr(obj, f), f"{prefix}.{f}"))
    return out


def _static_bytes(car):
    """The Vehicle's static arrays (tire parameters, wheel data, the compiled mechanism) and its mechanism's
    own workspace, as bytes."""
    out = {f"car.{k}": getattr(car, k).tobytes() for k in ("tire_p", "w_center0", "w_axis0", "w_inertia",
                                                           "w_side", "chassis_com0")}
    out.update(_arrays(car.mech.model, "mech.model"))
    out.update(_arrays(car.mech.data, "mech.data"))
    return out


def test_interleaved_simulators_and_a_simulate_give_the_results_of_separate_runs():
    """Simulators a (20 m/s) and b (10 m/s, 2 m further) of one fullcar14 stepped in turn, with a simulate()
    of the same car after half the steps, against each run alone on its own Vehicle: every output row equal
    bit for bit; the Vehicle's static arrays and its mechanism's own workspace are unchanged bytes."""
    alone = {}
    for key, v0, x0 in (("a", 20.0, 0.0), ("b", 10.0, 2.0)):
        sim = Vehicle.load("fullcar14").simulator(ROAD, v0=v0, x0=x0)
        rows = [sim.row.copy()]
        for k in range(STEPS):
            _drive(sim, k)
            sim.advance(H)
            rows.append(sim.row.copy())
        alone[key] = np.array(rows)
    sim_alone = _simulate(Vehicle.load("fullcar14"))

    car = Vehicle.load("fullcar14")
    before = _static_bytes(car)
    a = car.simulator(ROAD, v0=20.0, x0=0.0)
    b = car.simulator(ROAD, v0=10.0, x0=2.0)
    rows = {"a": [a.row.copy()], "b": [b.row.copy()]}
    mid = None
    for k in range(STEPS):
        for key, sim in (("a", a), ("b", b)):
            _drive(sim, k)
            sim.advance(H)
            rows[key].append(sim.row.copy())
        if k == STEPS // 2:
            mid = _simulate(car)
    for key in ("a", "b"):
        np.testing.assert_array_equal(np.array(rows[key]), alone[key], err_msg=key)
    np.testing.assert_array_equal(mid, sim_alone)
    assert not np.array_equal(alone["a"][-1], alone["b"][-1])
    after = _static_bytes(car)
    changed = [k for k in before if before[k] != after[k]]
    assert not changed, changed


def test_a_simulators_partition_is_its_own():
    """A simulate() of the same Vehicle does not touch a stepping run's coordinate partition or warm start."""
    car = Vehicle.load("halfcar7")
    sim = car.simulator(ROAD, v0=20.0)
    sim.advance(0.01)
    d = sim.system.data.mech
    snapshot = [a.copy() for a in (d.z, d.zd, d.indep, d.dep)]
    d.indep[[0, -1]] = d.indep[[-1, 0]]             # an unusual order the design partition does not have
    snapshot[2] = d.indep.copy()
    car.simulate("flat", 0.01, v0=5.0)
    car.initial_state(car.system("flat"), 0.0)
    for old, new in zip(snapshot, (d.z, d.zd, d.indep, d.dep)):
        np.testing.assert_array_equal(old, new)


def _point_loads(sim, car):
    """External tire loads given at a point 0.45 m below each wheel centre (it moves with the wheel): a
    vertical force near the static load, a longitudinal force and a moment."""
    out = sim.outputs()
    w_load = car.total_mass_kg * 9.81 / car.n_wheels
    for w in car.wheel_names:
        p = [out[f"wheel_{w}.pos.{a}"] for a in "xyz"]
        sim.set_input(w, **{"point.x": p[0] + 0.01, "point.y": p[1], "point.z": p[2] - 0.45,
                            "force.x": -150.0, "force.y": 30.0, "force.z": w_load + 200.0 * np.sin(40.0 * sim.t),
                            "moment.z": 5.0})


@pytest.mark.parametrize("integrator", ["rk4", "abm4"])
def test_rollback_after_one_step_with_external_point_loads_is_bit_identical(integrator):
    """get_state, one step, set_state, the same step: the same output row and state bit for bit, with an
    external tire whose load point moves every step (its lever about the wheel centre is part of the state)."""
    car = Vehicle.load("fullcar14")
    sim = car.simulator(ROAD, v0=15.0, tire_source="external", integrator=integrator)
    for _ in range(5):
        _point_loads(sim, car)
        sim.advance(2e-3)
    for _ in range(3):
        _point_loads(sim, car)
        state = sim.get_state()
        sim.advance(2e-3)
        first, y1 = sim.row.copy(), sim.y.copy()
        sim.set_state(state)
        sim.advance(2e-3)
        np.testing.assert_array_equal(sim.row, first)
        np.testing.assert_array_equal(sim.y, y1)
