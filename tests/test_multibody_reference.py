"""Semi-recursive engine against the independent Cartesian reference (tests/reference/cartesian.py).

At random consistent states (random independent positions and velocities) the engine's body
accelerations (from dZ/dt, docs/formulation.md §1) must equal the Newton-Euler + Lagrange-multiplier
solution to 1e-9 relative; its poses and velocities must equal those of the reference's own joint chain.
"""
from dataclasses import replace

import numpy as np
import pytest

from fmu_vehicle.multibody import MechanismSystem
from fmu_vehicle.multibody.mechanism import mechanism_rhs
from reference import cartesian
from reference.states import coordinates, load, random_state

RTOL = 1e-9
CASES = {   # name: random-state ranges (angle [rad], rate [rad/s], travel [m], speed [m/s])
    "open_tree": dict(angle=1.2, rate=3.0, travel=0.1, speed=0.5),
    "floating_pendulum": dict(angle=1.0, rate=3.0, travel=0.5, speed=2.0),
    "rssr_fourbar": dict(angle=3.0, rate=8.0),
    "slider_crank": dict(angle=3.0, rate=15.0),
    "rssr_fourbar_rod": dict(angle=3.0, rate=8.0),
    "macpherson_arm_body": dict(angle=0.05, rate=1.0, travel=0.06, speed=1.0),
    "macpherson_fork_arm": dict(angle=0.05, rate=1.0, travel=0.06, speed=1.0),
}


def compare(mech, joint_forces=None):
    """Max relative differences (pose, velocity, linear acc., angular acc.) engine vs reference."""
    sol = cartesian.solve_mechanism(mech, joint_forces)
    eng = cartesian.engine_accelerations(mech)
    d = mech.data
    pose = vel = 0.0
    for name, i in mech.info.body_index.items():
        b = sol.bodies[name]
        pose = max(pose, np.abs(b.A - d.A[i]).max(), np.abs(b.g - d.g[i]).max())
        vel = max(vel, np.abs(b.w - d.Z[i, 3:]).max(), np.abs(b.gd - d.gd[i]).max())
    lin = max(np.linalg.norm(sol.acc[n][0]) for n in eng)
    ang = max(np.linalg.norm(sol.acc[n][1]) for n in eng)
    err_lin = max(np.linalg.norm(sol.acc[n][0] - eng[n][0]) for n in eng) / lin
    err_ang = max(np.linalg.norm(sol.acc[n][1] - eng[n][1]) for n in eng) / ang
    return sol, pose, vel, err_lin, err_ang


@pytest.mark.parametrize("name", list(CASES))
def test_accelerations_match_cartesian_reference(name):
    mech = load(name)
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(4):
        y = random_state(mech, rng, **CASES[name])
        ydot = mech.derivatives(y)
        ni = mech.n_dof
        np.testing.assert_array_equal(ydot[:ni], y[ni:])
        np.testing.assert_array_equal(ydot[ni:], mech.data.zdd[mech.data.indep])
        sol, pose, vel, err_lin, err_ang = compare(mech)
        assert pose < 1e-12 and vel < 1e-12 * max(1.0, np.abs(mech.data.zd).max())
        assert err_lin < RTOL and err_ang < RTOL, (err_lin, err_ang)
        assert sol.constraint_rank == sol.n_rows      # the reference itself is well posed


@pytest.mark.parametrize("name", ["rssr_fourbar", "slider_crank", "macpherson_arm_body"])
def test_cut_joints_close_in_the_reference_chain(name):
    """The position problem's solution closes the cut joints also in the reference's own kinematics."""
    mech = load(name)
    rng = np.random.default_rng(7)
    for _ in range(3):
        random_state(mech, rng, **CASES[name])
        z, zd = coordinates(mech)
        bodies, _ = cartesian.body_states(mech.spec, z, zd,
                                          [j for j in mech.spec.joints if j.name not in mech.info.cut_joints])
        for j in mech.spec.joints:
            if j.cut:
                p, c = bodies[j.parent], bodies[j.child]
                r = p.point(j.point_m)
                assert np.linalg.norm(r - c.point(j.point_m)) < 1e-11
                assert np.linalg.norm(p.velocity(r) - c.velocity(r)) < 1e-11


@pytest.mark.parametrize("name, forces", [
    ("open_tree", {"shoulder": 3.0, "elbow.r1": -1.5, "elbow.r3": 0.7, "extension": 25.0, "branch_hinge": -2.0}),
    ("floating_pendulum", {"hinge": 4.0}),
    ("slider_crank", {"crank": 12.0, "slide": -40.0, "conrod.r2": 0.5}),
])
def test_joint_forces_match_reference(name, forces):
    """Generalized joint forces/torques (data.jforce) act like the dual wrench pair in the reference."""
    mech = load(name)
    system = MechanismSystem(mech, forces)
    rng = np.random.default_rng(3)
    for _ in range(3):
        y = random_state(mech, rng, **CASES[name])
        ydot = np.zeros_like(y)
        assert mechanism_rhs(0.0, y, system.model, system.data, ydot) >= 0
        _, _, _, err_lin, err_ang = compare(mech, forces)
        assert err_lin < RTOL and err_ang < RTOL, (err_lin, err_ang)
        # and the forces do matter
        free = cartesian.solve_mechanism(mech)
        eng = cartesian.engine_accelerations(mech)
        assert max(np.linalg.norm(free.acc[n][1] - eng[n][1]) for n in eng) > 1e-3


def test_reference_detects_a_wrong_model():
    """The comparison is sensitive: a 1 % heavier coupler in the reference is seen far above 1e-9."""
    mech = load("rssr_fourbar")
    random_state(mech, np.random.default_rng(11), **CASES["rssr_fourbar"])
    mech.derivatives(mech.state())
    z, zd = coordinates(mech)
    bodies = tuple(b if b.name != "coupler" else replace(b, mass_kg=1.01 * b.mass_kg) for b in mech.spec.bodies)
    wrong = cartesian.solve(replace(mech.spec, bodies=bodies), z, zd, mech.info.cut_joints)
    eng = cartesian.engine_accelerations(mech)
    scale = max(np.linalg.norm(wrong.acc[n][1]) for n in eng)
    assert max(np.linalg.norm(wrong.acc[n][1] - eng[n][1]) for n in eng) / scale > 1e-4
