"""Driven (prescribed, rheonomic) coordinates z_k = s(t) (docs/formulation.md §13).

* The engine against the independent Cartesian reference (tests/reference/cartesian.py), which prescribes
  the coordinate by one more constraint row (the joint's relative coordinate differentiated twice, = s''):
  accelerations of every coordinate and body and the driving force (the row's multiplier) agree to 1e-9
  relative at random states and times, on a four-bar and a slider-crank with a driven crank, on an open
  tree with two driven joints (no loops) and on a MacPherson corner whose tie rod ends on a steering rack
  with a driven travel.
* The driven velocity and acceleration terms matter: at a nonzero s' the loops close at velocity level
  only with the term -(Phi_z^d)^-1 Phi_z^drv s', and a wrong s'' is seen by the reference.
* An integrated run of the rack corner with s = A sin(w t): loop closure to 1e-10 and the power balance
  dE/dt = drv_force s' + (damper and load power).
* Bad data: one ModelError naming the field.
"""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.integrators import integrate
from fmu_vehicle.multibody import Mechanism, MechanismSystem
from fmu_vehicle.multibody.mechanism import drive_motion, mechanism_rhs
from fmu_vehicle.multibody.model import make_data
from reference import cartesian
from reference.states import coordinates, load, mechanism_dict, random_state
from timeouts import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[1]
RTOL = 1e-9


def driven_crank(name: str) -> Mechanism:
    """The four-bar or slider-crank with its crank prescribed (the other listed coordinate stays free)."""
    d = mechanism_dict(name)
    spin = {"rssr_fourbar": "coupler.spin", "slider_crank": "conrod.spin"}[name]
    d["coordinates"] = {"independent": [spin], "driven": ["crank"]}
    return Mechanism.from_dict(d, f"{name} (driven crank)")


def driven_open_tree() -> Mechanism:
    """The open tree (no loops) with its shoulder revolute and its prismatic extension prescribed."""
    d = mechanism_dict("open_tree")
    d["coordinates"]["driven"] = ["extension", "shoulder"]
    return Mechanism.from_dict(d, "open_tree (driven shoulder and extension)")


# name: (mechanism factory, driven motion, random ranges of the independent coordinates: angle [rad], rate
# [rad/s], travel [m], speed [m/s])
CASES = {
    "rssr_fourbar": (lambda: driven_crank("rssr_fourbar"),
                     {"crank": {"polynomial": [0.4, 2.0, 0.3], "sine": [[0.5, 3.0, 0.2]]}}, (3.0, 8.0, 0.0, 0.0)),
    "slider_crank": (lambda: driven_crank("slider_crank"),
                     {"crank": {"polynomial": [-0.3, 6.0], "sine": [[0.8, 4.0, 1.0], [0.1, 17.0, 0.0]]}},
                     (3.0, 15.0, 0.0, 0.0)),
    "open_tree": (driven_open_tree, {"shoulder": {"polynomial": [0.3, -1.0, 0.8], "sine": [[0.4, 5.0, 0.0]]},
                                     "extension": {"polynomial": [0.02], "sine": [[0.05, 7.0, 0.5]]}},
                  (1.2, 3.0, 0.1, 0.5)),
    "macpherson_rack": (lambda: load("macpherson_rack"),
                        {"rack.travel": {"polynomial": [0.002, 0.01], "sine": [[0.02, 5.0, 0.3], [0.006, 23.0, 1.0]]}},
                        (0.05, 1.0, 0.06, 1.0)),
}


def motion_values(motion: dict, t: float) -> tuple[float, float, float]:
    """s(t), s'(t), s''(t) of a motion, evaluated here in plain Python."""
    c = motion.get("polynomial", [])
    s = sum(ck * t**k for k, ck in enumerate(c))
    sd = sum(k * ck * t**(k - 1) for k, ck in enumerate(c) if k >= 1)
    sdd = sum(k * (k - 1) * ck * t**(k - 2) for k, ck in enumerate(c) if k >= 2)
    for A, w, ph in motion.get("sine", []):
        s += A * math.sin(w * t + ph)
        sd += A * w * math.cos(w * t + ph)
        sdd -= A * w * w * math.sin(w * t + ph)
    return s, sd, sdd


def assemble_at(mech, rng, motion, t, ranges):
    """Random independent positions/velocities, the driven coordinates at s(t), s'(t); returns y."""
    prescribed = {name: motion_values(mo, t)[:2] for name, mo in motion.items()}
    return random_state(mech, rng, *ranges, prescribed=prescribed)


def reference_coordinate_accelerations(mech, sol) -> np.ndarray:
    """zdd of every tree coordinate from the reference's body accelerations.

    Across a tree joint from body p to body c, dZ_c - dZ_p = sum_k b_k zdd_k + (Zd0_c - Zd0_p) over the
    joint's elementary coordinates k (docs/formulation.md §3); dZ = {a_O; dw/dt} of a body from the
    reference's CoM acceleration, a_O = a_g - dw/dt x g - w x dg/dt. The screws b_k and the velocity-only
    terms Zd0 are the engine's position- and velocity-level quantities (checked against the reference's own
    joint chain by the pose/velocity comparisons); the accelerations are the reference's.
    """
    d, info = mech.data, mech.info

    def dZ(name):
        if name == cartesian.GROUND:
            return np.zeros(6)
        b = sol.bodies[name]
        ag, dw = sol.acc[name]
        return np.r_[ag - np.cross(dw, b.g) - np.cross(b.w, b.gd), dw]

    zdd = np.full(mech.model.n, np.nan)
    for j in mech.spec.joints:
        if j.name in info.cut_joints:
            continue
        cols = [info.coordinate_index[c] for c in j.coordinate_names]
        c, p = info.body_index[j.child], info.body_index.get(j.parent, -1)
        rhs = dZ(j.child) - dZ(j.parent) - (d.Zd0[c] - (d.Zd0[p] if p >= 0 else 0.0))
        B = d.b[cols].T
        x = np.linalg.lstsq(B, rhs, rcond=None)[0]
        assert np.abs(B @ x - rhs).max() < 1e-9 * max(1.0, np.abs(rhs).max())
        zdd[cols] = x
    assert not np.isnan(zdd).any()
    return zdd


def loop_velocity_residual(mech) -> float:
    """Velocity-level closure in the reference's own joint chain at the engine's z, zd: max over the cut joints
    of |v_p(r) - v_c(r)| [m/s] and over the rods of |(r_a - r_b) . (v_a - v_b)| / l [m/s]."""
    z, zd = coordinates(mech)
    tree = [j for j in mech.spec.joints if j.name not in mech.info.cut_joints]
    bodies, _ = cartesian.body_states(mech.spec, z, zd, tree)
    err = 0.0
    for j in mech.spec.joints:
        if j.cut:
            p, c = bodies[j.parent], bodies[j.child]
            r = p.point(j.point_m)
            err = max(err, np.linalg.norm(p.velocity(r) - c.velocity(r)))
    for rod in mech.spec.rods:
        a, b = bodies[rod.body_a], bodies[rod.body_b]
        ra, rb = a.point(rod.point_a_m), b.point(rod.point_b_m)
        err = max(err, abs((ra - rb) @ (a.velocity(ra) - b.velocity(rb))) / np.linalg.norm(ra - rb))
    return err


def compare(mech, sdd: dict):
    """(relative error of zdd over all coordinates, of the body accelerations, of the driving forces)
    engine vs reference at the state in mech.data."""
    sol = cartesian.solve_mechanism(mech, driven=sdd)
    assert sol.constraint_rank == sol.n_rows
    d = mech.data
    zref = reference_coordinate_accelerations(mech, sol)
    err_zdd = np.abs(d.zdd - zref).max() / np.abs(zref).max()
    eng = cartesian.engine_accelerations(mech)
    scale = max(np.linalg.norm(np.r_[sol.acc[n][0], sol.acc[n][1]]) for n in eng)
    err_body = max(np.linalg.norm(np.r_[sol.acc[n][0] - eng[n][0], sol.acc[n][1] - eng[n][1]]) for n in eng) / scale
    ref_f = np.array([sol.driven_forces[c] for c in mech.driven_names])
    err_force = (np.abs(d.drv_force - ref_f) / np.abs(ref_f)).max()
    return err_zdd, err_body, err_force, ref_f


# ------------------------------------------------------------------------------------------ reference
@pytest.mark.parametrize("name", list(CASES))
def test_driven_accelerations_and_force_match_reference(name):
    make, motion, ranges = CASES[name]
    mech = make()
    ndrv = len(motion)
    assert mech.model.ndrv == ndrv and mech.n_dof == mech.model.n - mech.model.m - ndrv
    loaded = mech.loaded(driven=motion)
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(4):
        t = rng.uniform(0.0, 1.5)
        y = assemble_at(mech, rng, motion, t, ranges)
        ydot = np.zeros_like(y)
        assert mechanism_rhs(t, y, loaded, mech.data, ydot) >= 0
        prescribed = {}
        for k, name in zip(mech.model.drv, mech.driven_names):
            s, sd, sdd = motion_values(motion[name], t)
            assert mech.data.z[k] == pytest.approx(s, abs=1e-14) and mech.data.zd[k] == pytest.approx(sd, abs=1e-13)
            assert mech.data.zdd[k] == pytest.approx(sdd, rel=1e-14, abs=1e-14)
            prescribed[name] = sdd
        assert loop_velocity_residual(mech) < 1e-12 * max(1.0, np.abs(mech.data.zd).max())
        err_zdd, err_body, err_force, ref_f = compare(mech, prescribed)
        assert err_zdd < RTOL and err_body < RTOL and err_force < RTOL, (err_zdd, err_body, err_force)
        assert np.abs(ref_f).min() > 1e-3        # every prescription carries a real force


def test_driving_force_of_a_static_rack_is_the_tie_rod_force_along_y():
    """At rest (s' = s'' = 0) with no other load path along y, the rack force balances the tie rod: the
    force along the rack axis equals minus the y component of the tie rod's pull on the rack (reference)."""
    mech = load("macpherson_rack")
    y = mech.assemble({"rack.travel": 0.01, "strut": 0.02}, {})
    mech.data.drv_zdd[:] = 0.0
    mech.derivatives(y)
    sol = cartesian.solve_mechanism(mech, driven={"rack.travel": 0.0})
    # rack: m a_y = F_drive + F_tierod,y (gravity has no y component); the reference's multiplier is F_drive
    rack = sol.acc["rack"][0]
    assert mech.data.drv_force[0] == pytest.approx(sol.driven_forces["rack.travel"], rel=1e-9)
    assert abs(mech.data.drv_force[0]) > 1.0
    assert abs(3.0 * rack[1]) < 1e-6 * abs(mech.data.drv_force[0])   # the rack stays: zdd = 0


def test_driven_velocity_term_closes_the_loops():
    """At s' != 0 the dependent velocities carry -(Phi_z^d)^-1 Phi_z^drv s': the tie rod length and the cut
    ball joint stay closed at velocity level in the reference's own joint chain, the steer rate follows
    the rack, and the accelerations still match the reference. Without the term the tie rod would
    stretch at about (dL/ds) s'."""
    mech = load("macpherson_rack")
    steer = mech.coordinate("top_mount.steer")
    k = mech.model.drv[0]
    rates = []
    for sd in (0.0, 0.4):
        y = mech.assemble({"rack.travel": 0.015, "heave": 0.01, "strut": -0.02}, {"rack.travel": sd, "heave": 0.0,
                                                                                  "pitch": 0.0, "strut": 0.0})
        mech.data.drv_zdd[:] = 0.0
        mech.derivatives(y)
        assert mech.data.zd[k] == sd
        rates.append(mech.data.zd[steer])
        assert loop_velocity_residual(mech) < 1e-12          # tie rod length rate, ball joint velocities
        assert np.abs(mech.data.phiz @ mech.data.zd).max() < 1e-12
        err_zdd, err_body, err_force, _ = compare(mech, {"rack.travel": 0.0})
        assert err_zdd < RTOL and err_body < RTOL and err_force < RTOL
    assert abs(rates[0]) < 1e-12 and abs(rates[1]) > 0.1      # the wheel steers with the rack [rad/s]


def test_a_column_put_off_at_rest_is_built_to_the_same_bits():
    """At s' = 0 velocity_transform leaves the rack's R_drv column stale (data.rdrv_stale) instead of solving
    it. drive_forces then builds it from the evaluation's own factors, to the bits the column has when a rack
    moving at the same configuration has it built at once. When the rack starts moving, the Newton start
    builds a stale column at the configuration the last evaluation solved, even after the workspace's Phi_z
    and LU factors were overwritten (as a failed Newton iteration or a restored state leaves them): the next
    evaluation gives the bits of one from a workspace whose column was built."""
    from fmu_vehicle.multibody.model import MultibodyData
    mech = load("macpherson_rack")
    model, a = mech.model, mech.data
    y = mech.assemble({"rack.travel": 0.01, "strut": 0.02}, {})
    assert a.rdrv_stale[0] == 1                      # (assemble's velocity transformation, the rack at rest)
    mech.derivatives(y, driven={"rack.travel": 0.01})
    assert a.rdrv_stale[0] == 0                      # drive_forces built it
    nrows = a.rdrv_nrows[0]
    lazy_rows, lazy = a.rdrv_rows[0, :nrows].copy(), a.Rdrv[:, 0].copy()
    assert nrows > 1 and np.count_nonzero(lazy) == nrows          # the rack and the loop's dependent rows
    mech.derivatives(y, driven={"rack.travel": {"polynomial": [0.01, 0.3]}})
    assert a.zd[model.drv[0]] == 0.3 and a.rdrv_stale[0] == 0
    assert np.array_equal(a.rdrv_rows[0, :a.rdrv_nrows[0]], lazy_rows) and np.array_equal(a.Rdrv[:, 0], lazy)

    rest, moving = mech.loaded(driven={"rack.travel": 0.01}), mech.loaded(driven={"rack.travel": {
        "polynomial": [0.01, 0.3]}})
    ydot = np.zeros_like(y)
    assert mechanism_rhs(0.0, y, rest, a, ydot) == 0                # the column built (drive_forces)
    b = MultibodyData(*(f.copy() for f in a))
    b.rdrv_stale[0] = 1
    b.Rdrv[b.rdrv_rows[0, :b.rdrv_nrows[0]], 0] = 5.0
    b.lu[:] = 7.0
    b.phiz[b.phiz != 0.0] = 3.0                      # (the entries eval_constraints writes; the rest stay 0)
    y_next = y.copy()
    y_next[0] += 1e-3                                # an independent coordinate moves as well
    results = []
    for d in (a, b):
        assert mechanism_rhs(0.01, y_next, moving, d, ydot) == 0   # s: 3 mm on, s' = 0.3 m/s
        results.append((d.z.copy(), d.zd.copy(), d.zdd.copy(), d.drv_force.copy(), d.stats[:2].copy()))
    for u, v in zip(*results):
        assert np.array_equal(u, v)


def test_prescribed_acceleration_enters_and_is_checked():
    """A driven acceleration s'' moves the dependent accelerations through -(Phi_z^d)^-1 Phi_z^drv s'', and
    the reference given another s'' disagrees far beyond the tolerance (the comparison is sensitive)."""
    mech = load("macpherson_rack")
    y = mech.assemble({"rack.travel": -0.01, "strut": 0.01}, {"rack.travel": 0.2, "heave": 0.3})
    mech.data.drv_zdd[:] = 5.0
    mech.derivatives(y)
    err_zdd, err_body, err_force, _ = compare(mech, {"rack.travel": 5.0})
    assert err_zdd < RTOL and err_body < RTOL and err_force < RTOL
    err_zdd, err_body, err_force, _ = compare(mech, {"rack.travel": 4.9})
    assert err_zdd > 1e-4 and err_force > 1e-4


# ------------------------------------------------------------------------------------------ integration
def simpson(p, h):
    """int_0^t p dt at every second sample (Simpson's rule over pairs of steps h)."""
    return np.concatenate([[0.0], np.cumsum(h / 3.0 * (p[:-2:2] + 4.0 * p[1:-1:2] + p[2::2]))])


def rack_run(damped: bool, h=5e-4, t_end=2.0):
    """RK4 run of the rack corner with s = A sin(w t) (A = 30 mm, 1.5 Hz), from the design position: the
    chassis drops and bounces on its support spring while the rack steers the wheel. Without dampers
    the only non-conservative power is the rack's."""
    d = mechanism_dict("macpherson_rack")
    if not damped:
        for fe in d["force_elements"]:
            fe["damping_N_s_per_m"] = 0.0
    mech = Mechanism.from_dict(d)
    A, w = 0.03, 2.0 * math.pi * 1.5
    system = MechanismSystem(mech, driven={"rack.travel": {"sine": [[A, w, 0.0]]}})
    t, out, _ = integrate(system, mech.assemble({"rack.travel": 0.0}, {"rack.travel": A * w}), t_end, h)
    col = {n: out[:, i] for i, n in enumerate(system.output_names)}
    col["t"], col["s_dot"] = t, A * w * np.cos(w * t)
    np.testing.assert_allclose(col["z.rack.travel"], A * np.sin(w * t), rtol=0, atol=1e-15)
    return col


def test_undamped_rack_corner_closes_loops_and_balances_power():
    """2 s of RK4 at 0.5 ms without dampers: max|Phi| (tie rod length, ball joint) and max|Phi_z zd| < 1e-10 at
    every step; dE/dt = drv_force s' pointwise (fourth-order differences of the recorded energy, to 1e-5
    of the peak power) and E(t) - E(0) = int drv_force s' dt (Simpson) to 1e-6 of the rack's work."""
    h = 5e-4
    col = rack_run(False, h)
    assert col["residual.position"].max() < 1e-10
    assert col["residual.velocity"].max() < 1e-10
    assert np.all(col["power.nonconservative"] == 0.0)
    p = col["power.drive"]
    np.testing.assert_allclose(p, col["drive_force.rack.travel"] * col["s_dot"], rtol=1e-12, atol=1e-9)
    E = col["energy.kinetic"] + col["energy.potential"]
    dEdt = (-E[4:] + 8.0 * E[3:-1] - 8.0 * E[1:-3] + E[:-4]) / (12.0 * h)
    assert np.abs(dEdt - p[2:-2]).max() < 1e-5 * np.abs(p).max()
    work = simpson(p, h)
    scale = simpson(np.abs(p), h)[-1]
    assert scale > 10.0                                             # J: the rack does real work
    assert np.abs(E[::2] - E[0] - work).max() < 1e-6 * scale
    assert np.ptp(E) > 1e-2 * scale                                 # without the rack's work E would be constant
    assert np.ptp(col["z.top_mount.steer"]) > 0.05                  # rad: the wheel steers with the rack


def test_damped_rack_corner_balances_power():
    """With the strut and support dampers: E(t) - E(0) = int (drv_force s' + P_nc) dt to 1e-6 of the work
    done, and the rack's share is needed (the dampers alone miss it by far)."""
    h = 5e-4
    col = rack_run(True, h)
    assert col["residual.position"].max() < 1e-10
    E = col["energy.kinetic"] + col["energy.potential"]
    p_drive, p_nc = col["power.drive"], col["power.nonconservative"]
    scale = simpson(np.abs(p_drive) + np.abs(p_nc), h)[-1]
    assert np.abs(E[::2] - E[0] - simpson(p_drive + p_nc, h)).max() < 1e-6 * scale
    assert np.abs(E[::2] - E[0] - simpson(p_nc, h)).max() > 1e-3 * scale
    assert np.all(p_nc <= 1e-9)                                    # dampers only dissipate


def test_repartition_keeps_driven_coordinates_out_of_the_partition():
    mech = load("macpherson_rack")
    y = mech.assemble({"rack.travel": 0.02, "strut": 0.03})
    k = int(mech.model.drv[0])
    for _ in range(2):
        indep, dep = set(mech.data.indep.tolist()), set(mech.data.dep.tolist())
        assert k not in indep and k not in dep
        assert indep | dep | {k} == set(range(mech.model.n)) and len(indep) == mech.n_dof == 3
        y = mech.repartition(y)
    with pytest.raises(ValueError, match="driven"):
        make_data(mech.model, [0, 1, k])


def test_drive_motion_is_exact():
    """The compiled motion gives s, s', s'' of polynomial + sines exactly (Horner, closed-form sines)."""
    mech = load("macpherson_rack")
    motion = {"rack.travel": {"polynomial": [0.1, -0.2, 0.3, 0.05], "sine": [[0.02, 7.0, 0.4], [-0.01, 2.0, 0.0]]}}
    loaded = mech.loaded(driven=motion)
    for t in (0.0, 0.37, 2.5):
        drive_motion(loaded, t, mech.data)
        exp = motion_values(motion["rack.travel"], t)
        np.testing.assert_allclose([mech.data.drv_z[0], mech.data.drv_zd[0], mech.data.drv_zdd[0]], exp,
                                   rtol=1e-14, atol=1e-15)
    loaded = mech.loaded(driven={"rack.travel": 0.004})
    drive_motion(loaded, 1.3, mech.data)
    assert (mech.data.drv_z[0], mech.data.drv_zd[0], mech.data.drv_zdd[0]) == (0.004, 0.0, 0.0)


# ------------------------------------------------------------------------------------------ NUMBA_DISABLE_JIT
CHILD = r"""
import json, sys
import numpy as np
import numba
assert numba.config.DISABLE_JIT
sys.path.insert(0, "tests")
from fmu_vehicle.integrators import integrate
from fmu_vehicle.multibody import MechanismSystem
from reference.states import load
case = json.load(sys.stdin)
mech = load("macpherson_rack")
res = []
for z, drv, y in case["states"]:
    mech.data.z[:] = z
    mech.data.drv_z[:], mech.data.drv_zd[:], mech.data.drv_zdd[:] = drv
    ydot = mech.derivatives(np.array(y))
    res.append({"ydot": ydot.tolist(), "zdd": mech.data.zdd.tolist(), "drv_force": mech.data.drv_force.tolist()})
mech.data.z[:] = case["rk4"]["z"]
system = MechanismSystem(mech, driven=case["motion"])
_, rows, y = integrate(system, np.array(case["rk4"]["y"]), 0.02, 1e-3)
print(json.dumps({"states": res, "rows": rows.tolist(), "y": y.tolist()}))
"""


def test_uncompiled_driven_engine_gives_the_compiled_results():
    mech = load("macpherson_rack")
    rng = np.random.default_rng(4)
    motion = {"rack.travel": {"sine": [[0.02, 6.0, 0.1]]}}
    states, expected = [], []
    for _ in range(2):
        drv = [[rng.uniform(-0.02, 0.02)], [rng.uniform(-0.3, 0.3)], [rng.uniform(-5.0, 5.0)]]
        y = mech.assemble({"rack.travel": drv[0][0], "strut": rng.uniform(-0.03, 0.03)},
                          {"rack.travel": drv[1][0], "heave": rng.uniform(-0.5, 0.5)})
        states.append((mech.data.z.tolist(), drv, y.tolist()))
        mech.data.drv_zdd[:] = drv[2]
        ydot = mech.derivatives(y)
        expected.append({"ydot": ydot, "zdd": mech.data.zdd.copy(), "drv_force": mech.data.drv_force.copy()})
    y0 = mech.assemble({"rack.travel": 0.02 * math.sin(0.1)}, {"rack.travel": 0.12 * math.cos(0.1)})
    z0 = mech.data.z.tolist()
    _, rows, y_end = integrate(MechanismSystem(mech, driven=motion), y0, 0.02, 1e-3)
    case = {"states": states, "rk4": {"z": z0, "y": y0.tolist()}, "motion": motion}
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(case), capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout)
    for exp, res in zip(expected, got["states"]):
        for key in exp:
            b, a = np.asarray(exp[key]), np.asarray(res[key])
            assert np.all(np.abs(a - b) <= 1e-12 * max(1.0, np.abs(b).max())), key
    for b, a in ((rows, got["rows"]), (y_end, got["y"])):
        b, a = np.asarray(b), np.asarray(a)
        assert np.all(np.abs(a - b) <= 1e-12 * max(1.0, np.abs(b).max()))


# ------------------------------------------------------------------------------------------ bad data
def rack(edit):
    d = mechanism_dict("macpherson_rack")
    edit(d)
    return d


def _set_driven(names):
    return lambda d: d["coordinates"].__setitem__("driven", names)


@pytest.mark.parametrize("edit, match", [
    (_set_driven(["steering"]), r"coordinates: driven: unknown coordinate 'steering'"),
    (_set_driven("rack.travel"), r"coordinates: field 'driven' must be a list"),
    (_set_driven(["rack.travel", "rack.travel"]), r"coordinates: driven: a coordinate is listed twice"),
    (lambda d: d["coordinates"].update(independent=["heave", "pitch", "rack.travel"]),
     r"coordinates: driven: coordinate 'rack.travel' is also listed as independent"),
    (_set_driven(["rack.travel", "ball_joint.r1"]), r"coordinates: driven: 'ball_joint.r1' is a coordinate of the "
                                                     r"cut joint 'ball_joint'"),
    (lambda d: d["coordinates"].update(independent=["heave", "pitch"], driven=["rack.travel", "strut"]), None),
    (lambda d: d["coordinates"].update(independent=["heave", "pitch", "strut"], driven=["rack.travel", "top_mount.r1"]),
     r"coordinates: independent: 3 coordinates named, the mechanism has 2 degrees of freedom \(8 coordinates - "
     r"4 closure equations - 2 driven\)"),
])
def test_bad_driven_data_names_the_field(edit, match):
    d = rack(edit)
    if match is None:           # a valid variant: rack travel and strut both prescribed
        mech = Mechanism.from_dict(d)
        assert mech.n_dof == 2 and mech.driven_names == ("rack.travel", "strut")
        return
    with pytest.raises(ModelError, match=match):
        Mechanism.from_dict(d, "rack.json")


def test_driven_coordinates_that_lock_a_loop_are_refused():
    """Prescribing the top mount and the strut leaves the 4 closure equations of the corner to the arm pivot and
    the rack (the chassis coordinates move the loops rigidly): they cannot be solved."""
    d = mechanism_dict("macpherson_rack")
    d["coordinates"] = {"independent": [], "driven": ["top_mount.r1", "top_mount.r2", "top_mount.steer", "strut"]}
    with pytest.raises(ModelError, match="rack.json: coordinates: driven: the driven coordinates lock the loops"):
        Mechanism.from_dict(d, "rack.json")


def test_motion_errors_name_the_coordinate():
    mech = load("macpherson_rack")
    with pytest.raises(ModelError, match=r"driven coordinates \['rack.travel'\]: give their motion"):
        MechanismSystem(mech)
    with pytest.raises(ModelError, match="'strut' is not a driven coordinate"):
        mech.loaded(driven={"rack.travel": 0.0, "strut": 0.1})
    with pytest.raises(ModelError, match="no motion given"):
        mech.loaded(driven={})
    with pytest.raises(ModelError, match="'rack.travel': 'polynomial' must list numbers"):
        mech.loaded(driven={"rack.travel": {"sine": [[1.0, 2.0]]}})
