"""The 14-DOF full car (seed 001 Fig. 1): topology, and equality with the 7-DOF half car when symmetric."""
import numpy as np
import pytest

from fmu_vehicle.paper import MANEUVERS, compare, paper_final_state, run_maneuver
from fmu_vehicle.vehicle import Vehicle


@pytest.mark.parametrize("name,n,m,cuts,rods", [("fullcar14", 32, 18, 2, 12), ("fullcar14_forkarm", 30, 16, 0, 16)])
def test_topology_matches_the_paper(name, n, m, cuts, rods):
    """14 DOF; two cut spherical joints and twelve removed rods (seed 001 §2), or fork arms instead."""
    car = Vehicle.load(name)
    mech = car.mech
    assert (mech.model.n, mech.model.m, mech.n_dof) == (n, m, 14)
    assert len(mech.info.cut_joints) == cuts
    assert len(mech.info.rod_names) == rods
    assert car.total_mass_kg == pytest.approx(2 * Vehicle.load("halfcar7").total_mass_kg)


def test_symmetric_full_car_equals_half_car():
    """Straight bumpy road, 300 N m on each front wheel: the 14-DOF car (both sides, double chassis
    mass and inertia) moves exactly like the 7-DOF half car, and y, roll, yaw stay zero."""
    man = MANEUVERS["bumpy_road"]
    half, full = Vehicle.load("halfcar7"), Vehicle.load("fullcar14")
    rh, ah = run_maneuver(half, man)
    rf, af = run_maneuver(full, man)
    for k in ah:
        scale = max(1.0, float(np.abs(ah[k]).max()))
        assert np.abs(ah[k] - af[k]).max() < 1e-9 * scale, k
    # the wheels on both sides carry the same loads, each equal to the half car's wheel
    np.testing.assert_allclose(rf["wheel_front_left.tire_fz"], rf["wheel_front_right.tire_fz"], rtol=1e-9, atol=1e-6)
    np.testing.assert_allclose(rf["wheel_front_left.tire_fz"], rh["wheel_front.tire_fz"], rtol=1e-9, atol=1e-6)
    mech = full.mech
    for c in ("chassis.y", "chassis.yaw", "chassis.roll"):
        assert abs(mech.data.z[mech.coordinate(c)]) < 1e-12, c
    # and it reproduces the paper's 14-DOF row of Table 2
    assert all(r[5] is not False for r in compare(af, paper_final_state("bumpy_road", "14dof")))
