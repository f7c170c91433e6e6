"""RK4 with event location (``rk4e``): the road's slope breaks, the vehicle's switching functions, accuracy
through the first bump of the paper's road against the adaptive reference, bit-identity with RK4 where
nothing switches, the stepping interface, and the uncompiled path."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from fmu_vehicle.integrators import INTEGRATORS, STEPPING_INTEGRATORS, get_integrator
from fmu_vehicle.tools.paper import MANEUVERS
from fmu_vehicle.road import load_road
from fmu_vehicle.road.arrays import slope_breaks
from fmu_vehicle.road.kernel import break_switch
from fmu_vehicle.vehicle import Vehicle

BUMPY = MANEUVERS["bumpy_road"]
STATE = ("chassis.x", "chassis.z", "chassis.pitch")


def test_bumpy_road_breaks_are_the_nodes_around_each_bump_edge():
    road = load_road("bumpy").to_arrays()
    edges = []
    for s in (20.0, 35.0, 50.0, 65.0, 80.0):       # table from 20 m: the first rise jumps at its first node
        edges += [s - 0.002, s, s + 0.5, s + 0.502]
    expected = np.array(edges[1:-1])                # beyond the last node (80.5 m) the level road is held
    np.testing.assert_allclose(slope_breaks(road), expected, atol=1e-9)
    assert slope_breaks(road, threshold=1.0).size == 0                 # the edges jump by 0.51
    assert slope_breaks(load_road({"type": "flat"}).to_arrays()).size == 0
    car = Vehicle.load("halfcar7")
    np.testing.assert_array_equal(car.system("bumpy").switch_params, slope_breaks(road))   # the switching pass's


def test_break_switch_changes_sign_at_each_break_of_its_family():
    breaks = np.array([1.0, 1.002, 2.0, 2.002])
    xs = np.linspace(0.0, 3.0, 30001)
    for family in (0, 1):
        g = np.array([break_switch(breaks, x, family, 2) for x in xs])
        flips = xs[1:][(g[1:] > 0) != (g[:-1] > 0)]
        np.testing.assert_allclose(flips, breaks[family::2], atol=1e-4)
        np.testing.assert_allclose(np.abs(g), np.min(np.abs(xs[:, None] - breaks[family::2]), axis=1), atol=1e-12)
    assert break_switch(np.zeros(0), 5.0, 0, 2) == 1.0


def test_rk4e_is_registered_and_steps():
    assert INTEGRATORS["rk4e"] is type(get_integrator("rk4e"))
    assert "rk4e" in STEPPING_INTEGRATORS
    with pytest.raises(ValueError, match="tol"):
        get_integrator("rk4e", tol=0.0)


@pytest.fixture(scope="module")
def halfcar():
    return Vehicle.load("halfcar7")


def bumpy_final(car, integrator, dt, duration=1.2):
    res = car.simulate(BUMPY.road, duration, dt=dt, v0=BUMPY.v0, drive_torque={"front": BUMPY.drive_torque},
                       integrator=integrator)
    return np.array([res[k][-1] for k in STATE])


def test_rk4e_through_the_first_bump_is_far_closer_to_the_reference(halfcar):
    """At 1.2 s both axles have passed the first bump (edges located, the front wheel lifts off and lands).
    x error against DOP853: RK4 2.2e-4 m (1 ms), 5.0e-4 m (2 ms); RK4 with event location 6.7e-8 m, 1.3e-5 m."""
    ref = bumpy_final(halfcar, "reference", 0.1)
    err = {(m, dt): np.abs(bumpy_final(halfcar, m, dt) - ref) for m in ("rk4", "rk4e") for dt in (1e-3, 2e-3)}
    assert err["rk4", 1e-3][0] > 1e-4 and err["rk4", 2e-3][0] > 2e-4
    assert err["rk4e", 1e-3][0] < 1e-6
    assert err["rk4e", 2e-3][0] < 5e-5
    for dt in (1e-3, 2e-3):         # x, z, pitch: at least ten times closer
        assert np.all(err["rk4e", dt] < 0.1 * err["rk4", dt])


def test_rk4e_equals_rk4_bit_for_bit_where_nothing_switches(halfcar):
    """Flat road (no breaks), the wheels never leave it: no event, the same evaluations as RK4."""
    runs = {}
    for name in ("rk4", "rk4e"):
        method = get_integrator(name)
        res = halfcar.simulate({"type": "flat"}, 1.0, dt=2e-3, v0=15.0, drive_torque={"front": 300.0},
                               integrator=method)
        runs[name] = np.column_stack([res[k] for k in halfcar.output_names])
        if name == "rk4e":
            assert method.stats["events"] == 0
    np.testing.assert_array_equal(runs["rk4"], runs["rk4e"])


def test_rk4e_stepper_gives_the_run(halfcar):
    """The stepping interface (an FMU's path) over the first bump: the run's final state."""
    sim = halfcar.simulator(BUMPY.road, v0=BUMPY.v0, dt=2e-3, integrator="rk4e")
    sim.set_input("front", torque_drive=BUMPY.drive_torque)
    for _ in range(120):
        sim.advance(0.01)
    out = sim.outputs()
    ref = bumpy_final(halfcar, "rk4e", 2e-3)
    np.testing.assert_allclose([out[k] for k in STATE], ref, rtol=0, atol=1e-9)


NOJIT = """
import json, sys
import numpy as np
from fmu_vehicle.integrators import get_integrator
from fmu_vehicle.vehicle import Vehicle
car = Vehicle.load("halfcar7")
m = get_integrator("rk4e")
res = car.simulate("bumpy", 0.2, dt=2e-3, v0=20.0, x0=18.0, drive_torque={"front": 300.0}, integrator=m)
print(json.dumps({"final": [float(res[k][-1]) for k in ("chassis.x", "chassis.z", "chassis.pitch", "chassis.vx")],
                  "events": m.stats["events"]}))
"""


def test_rk4e_uncompiled_gives_the_compiled_result():
    """From x0 = 18 m the front wheel meets the first bump's rise within 0.2 s: located events."""
    runs = {}
    for jit in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=jit)
        out = subprocess.run([sys.executable, "-c", NOJIT], env=env, capture_output=True, text=True, check=True)
        runs[jit] = json.loads(out.stdout.strip().splitlines()[-1])
    assert runs["0"]["events"] == runs["1"]["events"] >= 2
    np.testing.assert_allclose(runs["1"]["final"], runs["0"]["final"], rtol=1e-10, atol=1e-12)
