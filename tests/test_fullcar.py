"""The 14-DOF full car (Dai, Pan et al. 2022, Fig. 1): topology, and equality with the 7-DOF half car when symmetric."""
import numpy as np
import pytest

from fmu_vehicle.tools.paper import MANEUVERS, paper_final_state, run_maneuver
from fmu_vehicle.vehicle import Vehicle

from paper_bands import outside_bands


@pytest.mark.parametrize("name,n,m,cuts,rods", [("fullcar14", 32, 18, 2, 12), ("fullcar14_forkarm", 30, 16, 0, 16)])
def test_topology_matches_the_paper(name, n, m, cuts, rods):
    """14 DOF; two cut spherical joints and twelve removed rods (Dai, Pan et al. 2022, §2), or fork arms
    instead; the steering rack is one driven coordinate on top of the paper's relative coordinates."""
    car = Vehicle.load(name)
    mech = car.mech
    assert (mech.model.n - mech.model.ndrv, mech.model.m, mech.n_dof, mech.model.ndrv) == (n, m, 14, 1)
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
    # the wheels on both sides carry the same loads, each equal to the half car's wheel (left and right to 1e-8:
    # each side's closure holds to POSITION_TOL = 1e-12 m, and a Newton start already within it is not iterated
    # further, so the two sides' dependent coordinates can differ by that much; seen 2.4e-9 of the load while a
    # wheel unloads steeply at a bump, 1e-13 elsewhere)
    np.testing.assert_allclose(rf["wheel_FL.tire_fz"], rf["wheel_FR.tire_fz"], rtol=1e-8, atol=1e-6)
    np.testing.assert_allclose(rf["wheel_FL.tire_fz"], rh["wheel_front.tire_fz"], rtol=1e-9, atol=1e-6)
    # y, yaw and roll stay zero up to the sides' closure tolerance: a yaw of 1e-11 rad over 400 m is 1 nm
    # (seen after 20 s: 8.4e-10 m, 9.7e-12 rad, 2.5e-14 rad; below 1e-12 each with a Newton iteration in every
    # evaluation)
    for c, bound in (("chassis.y", 1e-8), ("chassis.yaw", 1e-10), ("chassis.roll", 1e-11)):
        assert abs(rf.final(c)) < bound, c
    # and it reproduces the paper's 14-DOF row of Table 2
    assert not outside_bands(af, paper_final_state("bumpy_road", "14dof"), "bumpy_road", man.v0)


def test_loop_groups_are_the_corners_and_the_blockwise_closure_solves_are_exact():
    """Phi_z^d is factored per loop group (one per corner, docs/formulation.md §5): the groups, the closure
    identities Phi_z R_z = 0, Phi_z S = -gam, Phi_z zd = 0 at a moving state, and a partition that puts
    more dependent coordinates in a corner than it has closure equations is singular."""
    from fmu_vehicle.multibody.constraints import factor_dependent
    from fmu_vehicle.vehicle.dynamics import vehicle_rhs
    car = Vehicle.load("fullcar14")
    mech, model = car.mech, car.mech.model
    names = mech.coordinate_names
    assert model.ngroup == 4 and sorted(np.diff(model.group_beg)) == [4, 4, 5, 5]
    corner = {model.coord_group[k]: names[k].split(".")[0] for k in range(model.n) if model.coord_group[k] >= 0}
    assert sorted(corner.values()) == ["FL", "FR", "RL", "RR"]
    for k, name in enumerate(names):
        g = model.coord_group[k]
        assert (g < 0) == (name.startswith("chassis.") or name.endswith(".spin") or name.startswith("steering.")), name
        # the driven rack moves both front loops without joining them (never dependent): every block solves it
        assert (g == -2) == name.startswith("steering."), name
        assert g < 0 or name.startswith(corner[g]), name
    system = car.system("bumpy")
    y = car.initial_state(system, 20.0)
    ni = mech.n_dof
    y[ni:2 * ni] += np.random.default_rng(3).normal(0.0, 0.3, ni)     # suspension, body and spin rates
    ydot = np.zeros_like(y)
    assert vehicle_rhs(0.0, y, system.model, system.data, ydot) == 0
    d = system.data.mech
    scale = np.abs(d.phiz).max() * max(1.0, np.abs(d.Rz).max())
    assert np.abs(d.phiz @ d.Rz).max() < 1e-13 * scale
    np.testing.assert_array_equal(d.Rz[d.indep], np.eye(ni))
    assert np.abs(d.phiz @ d.S + d.gam).max() < 1e-12 * max(1.0, np.abs(d.gam).max())
    assert np.abs(d.phiz @ d.zd).max() < 1e-13 * max(1.0, np.abs(d.zd).max())
    assert np.abs(d.zd).max() > 0.1
    # the dense solve agrees with the blockwise one
    Rd = -np.linalg.solve(d.phiz[:, d.dep], d.phiz[:, d.indep])
    np.testing.assert_allclose(d.Rz[d.dep], Rd, rtol=0, atol=1e-12 * max(1.0, np.abs(Rd).max()))
    # FL travel dependent instead of an RL coordinate: 5 dependent coordinates in a 4-row group
    dep, indep = d.dep.copy(), d.indep.copy()
    fl = mech.coordinate("FL.travel")
    rl = next(k for k in dep if names[k].startswith("RL."))
    d.dep[:] = np.sort(np.where(dep == rl, fl, dep))
    d.indep[:] = np.where(indep == fl, rl, indep)
    assert np.isinf(factor_dependent(model, d))
    d.dep[:], d.indep[:] = dep, indep
    assert np.isfinite(factor_dependent(model, d))
