"""Rod removal and fork-arm removal against the same links modelled as bodies (docs/formulation.md §6-§7).

* RSSR four-bar: coupler as a body (its absolute spin started at zero) vs the coupler removed as a
  rod: crank and rocker accelerations equal to 1e-9, for two axial inertias of the coupler.
* MacPherson corner: A-arm as a body on a chassis revolute + cut ball joint vs the fork arm removed:
  the B state is mapped to A through the ball-joint position (arm angle about the pivot axis k-l);
  all shared coordinate accelerations equal to 1e-9.
"""
import numpy as np
import pytest

from fmu_vehicle.multibody import Mechanism, MechanismSystem
from fmu_vehicle.integrators import integrate
from reference.states import load, mechanism_dict

RTOL = 1e-9


def thin_bar(m, a, b):
    """CoM and CoM inertia of a uniform thin bar from a to b."""
    e = (b - a) / np.linalg.norm(b - a)
    return (a + b) / 2, m * np.linalg.norm(b - a) ** 2 / 12 * (np.eye(3) - np.outer(e, e))


def inertia_matrix(d):
    return np.array([[d["xx"], d.get("xy", 0), d.get("xz", 0)], [d.get("xy", 0), d["yy"], d.get("yz", 0)],
                     [d.get("xz", 0), d.get("yz", 0), d["zz"]]])


def fourbar_with_axial_inertia(axial):
    d = mechanism_dict("rssr_fourbar")
    rod = mechanism_dict("rssr_fourbar_rod")["rods"][0]
    a, b = np.array(rod["point_a_m"]), np.array(rod["point_b_m"])
    g, J = thin_bar(rod["mass_kg"], a, b)
    e = (b - a) / np.linalg.norm(b - a)
    coupler = next(x for x in d["bodies"] if x["name"] == "coupler")
    assert coupler["mass_kg"] == rod["mass_kg"]
    assert np.allclose(coupler["com_m"], g, rtol=0, atol=1e-12)
    # the shipped coupler: uniform-rod transverse inertia + axial 2e-4 kg m^2
    assert np.allclose(inertia_matrix(coupler["inertia_kg_m2"]), J + 2e-4 * np.outer(e, e), rtol=0, atol=1e-15)
    Jn = J + axial * np.outer(e, e)
    coupler["inertia_kg_m2"] = {"xx": Jn[0, 0], "yy": Jn[1, 1], "zz": Jn[2, 2],
                                "xy": Jn[0, 1], "xz": Jn[0, 2], "yz": Jn[1, 2]}
    return Mechanism.from_dict(d), e


def coupler_spin(body, e0):
    """Absolute spin w.e [rad/s] of the coupler (e0: its long axis in design coordinates)."""
    cb = body.body("coupler")
    return body.data.Z[cb, 3:] @ (body.data.A[cb] @ e0)


def zero_spin_state(body, e0, crank, rate):
    """Assemble the body model at crank angle/rate with the coupler's absolute spin w.e = 0."""
    def spin(s):
        body.assemble({"crank": crank}, {"crank": rate, "coupler.spin": s})
        return coupler_spin(body, e0)

    a0 = spin(0.0)
    s = -a0 / (spin(1.0) - a0)           # w.e is affine in the spin rate
    y = body.assemble({"crank": crank}, {"crank": rate, "coupler.spin": s})
    assert abs(coupler_spin(body, e0)) < 1e-12 * max(1.0, abs(rate))
    assert body.data.zd[body.coordinate("crank")] == rate
    return y


@pytest.mark.parametrize("axial", [2e-4, 1e-2])
def test_rod_as_body_equals_removed_rod(axial):
    body, e0 = fourbar_with_axial_inertia(axial)
    rod = load("rssr_fourbar_rod")
    rng = np.random.default_rng(int(axial * 1e4))
    for _ in range(5):
        crank, rate = rng.uniform(-np.pi, np.pi), rng.uniform(-10, 10)
        y_body = zero_spin_state(body, e0, crank, rate)
        body.derivatives(y_body)
        y_rod = rod.assemble({"crank": crank}, {"crank": rate})
        rod.derivatives(y_rod)
        for c in ("crank", "rocker"):
            # both position problems stop at |Phi| <= 1e-12 m
            assert abs(body.data.z[body.coordinate(c)] - rod.data.z[rod.coordinate(c)]) < 1e-10
            assert abs(body.data.zd[body.coordinate(c)] - rod.data.zd[rod.coordinate(c)]) < 1e-10 * abs(rate)
        scale = np.abs(rod.data.zdd).max()
        for c in ("crank", "rocker"):
            assert abs(body.data.zdd[body.coordinate(c)] - rod.data.zdd[rod.coordinate(c)]) < RTOL * scale
        # the coupler's spin acceleration dw/dt . e vanishes (w.e stays zero)
        cb = body.body("coupler")
        assert abs(body.data.Zd[cb, 3:] @ (body.data.A[cb] @ e0)) < RTOL * np.abs(body.data.Zd[cb, 3:]).max()


def test_rod_as_body_trajectory_equals_removed_rod():
    """0.5 s of RK4 at 1 ms: crank and rocker histories of the two models agree."""
    body, e0 = fourbar_with_axial_inertia(2e-4)
    rod = load("rssr_fourbar_rod")
    y_body = zero_spin_state(body, e0, 0.4, 6.0)
    y_rod = rod.assemble({"crank": 0.4}, {"crank": 6.0})
    sb, sr = MechanismSystem(body), MechanismSystem(rod)
    _, ob, _ = integrate(sb, y_body, 0.5, 1e-3, record_every=10)
    _, orr, _ = integrate(sr, y_rod, 0.5, 1e-3, record_every=10)
    for c in ("z.crank", "z.rocker", "zd.crank", "zd.rocker"):
        a, b = ob[:, sb.output_names.index(c)], orr[:, sr.output_names.index(c)]
        assert np.abs(a - b).max() < 1e-10 * max(1.0, np.abs(b).max())
    assert np.ptp(ob[:, sb.output_names.index("z.crank")]) > 2.0     # it did move


# ---------------------------------------------------------------------------------------------- MacPherson
def test_arm_body_is_the_two_bars_of_the_fork_arm():
    a, b = mechanism_dict("macpherson_arm_body"), mechanism_dict("macpherson_fork_arm")
    fork = b["fork_arms"][0]
    j, k, l = (np.array(fork[key]) for key in ("point_j_m", "point_k_m", "point_l_m"))
    gk, Jk = thin_bar(fork["mass_jk_kg"], j, k)
    gl, Jl = thin_bar(fork["mass_jl_kg"], j, l)
    m = fork["mass_jk_kg"] + fork["mass_jl_kg"]
    g = (fork["mass_jk_kg"] * gk + fork["mass_jl_kg"] * gl) / m
    J = sum(Jx + mx * ((gx - g) @ (gx - g) * np.eye(3) - np.outer(gx - g, gx - g))
            for Jx, mx, gx in ((Jk, fork["mass_jk_kg"], gk), (Jl, fork["mass_jl_kg"], gl)))
    arm = next(x for x in a["bodies"] if x["name"] == "lower_arm")
    assert arm["mass_kg"] == pytest.approx(m, rel=1e-15)
    assert np.allclose(arm["com_m"], g, rtol=0, atol=1e-12)
    assert np.allclose(inertia_matrix(arm["inertia_kg_m2"]), J, rtol=0, atol=1e-15)
    pivot = next(x for x in a["joints"] if x["name"] == "arm_pivot")
    ball = next(x for x in a["joints"] if x["name"] == "ball_joint")
    assert np.allclose(pivot["point_m"], k) and np.allclose(ball["point_m"], j)
    assert np.allclose(np.cross(pivot["axis"], l - k), 0.0, atol=1e-12)


def arm_angle(chassis_A, chassis_o, j_now, j0, k, u):
    """Rotation of the arm about the pivot axis u through k (chassis frame) that moves j0 to j_now."""
    X = chassis_A.T @ (j_now - chassis_o)           # ball joint in chassis design coordinates
    a, b = j0 - k, X - k
    a, b = a - (a @ u) * u, b - (b @ u) * u
    return np.arctan2(u @ np.cross(a, b), a @ b)


def test_arm_body_equals_fork_arm_removal():
    A, B = load("macpherson_arm_body"), load("macpherson_fork_arm")
    assert A.independent_names == B.independent_names == ("heave", "pitch", "strut")
    j0 = next(j.point_m for j in A.spec.joints if j.name == "ball_joint")
    pivot = next(j for j in A.spec.joints if j.name == "arm_pivot")
    k, u = pivot.point_m, pivot.axes[0]
    shared = B.coordinate_names
    rng = np.random.default_rng(2022)
    for _ in range(5):
        pos = {"heave": rng.uniform(-0.05, 0.05), "pitch": rng.uniform(-0.05, 0.05), "strut": rng.uniform(-0.06, 0.04)}
        vel = {"heave": rng.uniform(-1, 1), "pitch": rng.uniform(-1, 1), "strut": rng.uniform(-1, 1)}
        yB = B.assemble(pos, vel)
        B.derivatives(yB)
        ch, kn = B.body("chassis"), B.body("knuckle")
        j_now = B.data.o[kn] + B.data.A[kn] @ j0
        zA = np.zeros(A.model.n)
        for c in shared:
            zA[A.coordinate(c)] = B.data.z[B.coordinate(c)]
        zA[A.coordinate("arm_pivot")] = arm_angle(B.data.A[ch], B.data.o[ch], j_now, j0, k, u)
        A.data.z[:] = zA                               # the exact solution as Newton's start
        yA = np.r_[zA[A.data.indep], yB[3:]]
        A.derivatives(yA)
        assert A.data.stats[0] == 0                    # mapped positions already close the loops
        scale_v = np.abs(B.data.zd).max()
        scale_a = np.abs(B.data.zdd).max()
        for c in shared:
            ia, ib = A.coordinate(c), B.coordinate(c)
            assert abs(A.data.zd[ia] - B.data.zd[ib]) < 1e-12 * scale_v
            assert abs(A.data.zdd[ia] - B.data.zdd[ib]) < RTOL * scale_a, c
        assert np.abs(A.data.zddi - B.data.zddi).max() < RTOL * np.abs(B.data.zddi).max()
