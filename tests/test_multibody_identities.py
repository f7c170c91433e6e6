"""Identities of the semi-recursive formulation, checked on the engine's own workspace.

* Phi_z R_z = 0 and Phi_z S = -gam with S^i = 0 (docs/formulation.md §9);
* the accumulated M and f equal the dense R_d^T T^T Mbar T R_d and R_d^T T^T (Qbar - w - Mbar T D)
  built here from the per-body Mbar_i, screws b_i and the recursion terms d_i (docs/formulation.md §4);
* Z, dZ/dt against central differences of body positions along z(t) = z + zd t + zdd t^2 / 2;
* Phi_z and gam = dPhi_z/dt zd against differences of Phi and of Phi_z zd;
* the partitioned zdd equals the Lagrange-multiplier solution of (M, f, Phi_z);
* the energy function against 1/2 m |dg/dt|^2 + 1/2 w.J w and the potentials.
"""
import numpy as np
import pytest

from fmu_vehicle.multibody.constraints import eval_constraints
from fmu_vehicle.multibody.kinematics import forward_positions, forward_velocities
from fmu_vehicle.multibody.model import make_data
from reference import cartesian
from reference.dense_form import mbar, path_matrices
from reference.states import coordinates, load, random_state

CLOSED = ["rssr_fourbar", "rssr_fourbar_rod", "slider_crank", "macpherson_arm_body", "macpherson_fork_arm"]
RANGES = {"macpherson_arm_body": dict(angle=0.05, rate=1.0, travel=0.05, speed=1.0),
          "macpherson_fork_arm": dict(angle=0.05, rate=1.0, travel=0.05, speed=1.0)}


def evaluated(name, seed):
    mech = load(name)
    y = random_state(mech, np.random.default_rng(seed), **RANGES.get(name, {}))
    mech.derivatives(y)
    return mech


def scratch(mech):
    """A second workspace for kinematic probes (the mechanism's own stays untouched)."""
    d = make_data(mech.model, mech.data.indep)
    d.z[:] = mech.data.z
    d.zd[:] = mech.data.zd
    return d


def diff(f, h):
    """Fourth-order central difference of f at 0."""
    return (8.0 * (f(h) - f(-h)) - (f(2 * h) - f(-2 * h))) / (12.0 * h)


@pytest.mark.parametrize("name", CLOSED)
def test_null_space_and_acceleration_bias(name):
    mech = evaluated(name, 1)
    d = mech.data
    scale = np.abs(d.phiz).max() * max(1.0, np.abs(d.Rz).max())
    assert np.abs(d.phiz @ d.Rz).max() < 1e-13 * scale
    np.testing.assert_array_equal(d.Rz[d.indep], np.eye(mech.n_dof))
    np.testing.assert_array_equal(d.S[d.indep], 0.0)
    assert np.abs(d.phiz @ d.S + d.gam).max() < 1e-12 * max(1.0, np.abs(d.gam).max())
    assert np.abs(d.phiz @ d.zd).max() < 1e-13 * max(1.0, np.abs(d.zd).max())


@pytest.mark.parametrize("name", ["open_tree", "floating_pendulum", "rssr_fourbar", "slider_crank"])
def test_recursive_assembly_equals_dense_path_matrix_form(name):
    mech = evaluated(name, 2)
    model, d = mech.model, mech.data
    T, Rd, Mbar, Q, w, D = path_matrices(mech)
    # Mbar_i from m, g, J (docs/formulation.md §4)
    for i in range(model.n):
        m, G = model.mass[i], cartesian.skew(d.g[i])
        J = d.A[i] @ model.inertia0[i] @ d.A[i].T
        ref = np.block([[m * np.eye(3), -m * G], [m * G, J - m * G @ G]])
        assert np.abs(mbar(d.Ibar[i]) - ref).max() < 1e-14 * max(1.0, np.abs(ref).max())
    M = Rd.T @ T.T @ Mbar @ T @ Rd
    assert np.abs(d.M - M).max() < 1e-13 * np.abs(M).max()
    f = Rd.T @ T.T @ (Q - (w + Mbar @ T @ D))
    for e in range(model.nrsd):
        c = model.rsd_coord[e]
        f[c] += -model.rsd_k[e] * (d.z[c] - model.rsd_z0[e]) - model.rsd_c[e] * d.zd[c]
    assert np.abs(d.f - f).max() < 1e-12 * np.abs(f).max()
    # body accelerations: dZ/dt = T (R_d zdd + D)
    Zd = T @ (Rd @ d.zdd + D)
    assert np.abs(d.Zd.ravel() - Zd).max() < 1e-12 * np.abs(Zd).max()


def test_rod_terms_equal_endpoint_mass_matrix_form():
    """Removed rod: M = tree part + G^T M_rod G with G from differences of the end points (§5.2)."""
    mech = evaluated("rssr_fourbar_rod", 3)
    model, d = mech.model, mech.data
    T, Rd, Mbar, Q, w, D = path_matrices(mech)
    rod = mech.spec.rods[0]
    s = scratch(mech)

    def ends(dz):
        s.z[:] = d.z + dz
        forward_positions(model, s)
        a, b = mech.body(rod.body_a), mech.body(rod.body_b)
        return np.r_[s.o[a] + s.A[a] @ rod.point_a_m, s.o[b] + s.A[b] @ rod.point_b_m]

    G = np.column_stack([diff(lambda h: ends(h * np.eye(model.n)[k]), 1e-3) for k in range(model.n)])
    m = rod.mass_kg
    Mrod = m * np.block([[np.eye(3) / 3, np.eye(3) / 6], [np.eye(3) / 6, np.eye(3) / 3]])
    M = Rd.T @ T.T @ Mbar @ T @ Rd + G.T @ Mrod @ G
    assert np.abs(d.M - M).max() < 1e-9 * np.abs(M).max()


@pytest.mark.parametrize("name", ["open_tree", "floating_pendulum", "rssr_fourbar", "macpherson_fork_arm"])
def test_velocities_and_accelerations_vs_differences_of_positions(name):
    mech = evaluated(name, 4)
    model, d = mech.model, mech.data
    s = scratch(mech)
    z0, zd0, zdd0 = d.z.copy(), d.zd.copy(), d.zdd.copy()
    X_origin = [d.A[i].T @ (-d.o[i]) for i in range(model.n)]   # material point at the origin, design coords

    def state(t):
        s.z[:] = z0 + zd0 * t + 0.5 * zdd0 * t * t
        s.zd[:] = zd0 + zdd0 * t
        forward_positions(model, s)
        forward_velocities(model, s)

    def positions(t):
        state(t)
        return np.array([np.r_[s.o[i] + s.A[i] @ X_origin[i], s.g[i], s.A[i].ravel()] for i in range(model.n)])

    def velocities(t):
        state(t)
        return np.array([np.r_[s.Z[i], s.gd[i]] for i in range(model.n)])

    h = 1e-4
    dp = diff(positions, h)
    dv = diff(velocities, h)
    vscale = max(1.0, np.abs(d.Z).max())
    ascale = max(1.0, np.abs(d.Zd).max())
    for i in range(model.n):
        Adot = dp[i, 6:].reshape(3, 3)
        W = Adot @ d.A[i].T
        om = np.array([W[2, 1], W[0, 2], W[1, 0]])
        assert np.abs(W + W.T).max() < 1e-9 * vscale
        assert np.abs(dp[i, :3] - d.Z[i, :3]).max() < 1e-9 * vscale     # ds/dt of the origin point
        assert np.abs(om - d.Z[i, 3:]).max() < 1e-9 * vscale
        assert np.abs(dp[i, 3:6] - d.gd[i]).max() < 1e-9 * vscale
        assert np.abs(dv[i, :6] - d.Zd[i]).max() < 1e-9 * ascale        # dZ/dt
        # CoM acceleration from dZ/dt (§1.1): a_g = ds2 + dw x g + w x dg
        ag = d.Zd[i, :3] + np.cross(d.Zd[i, 3:], d.g[i]) + np.cross(d.Z[i, 3:], d.gd[i])
        assert np.abs(dv[i, 6:] - ag).max() < 1e-9 * ascale


@pytest.mark.parametrize("name", CLOSED)
def test_constraint_jacobian_and_bias_vs_differences(name):
    mech = evaluated(name, 5)
    model, d = mech.model, mech.data
    s = scratch(mech)
    z0, zd0 = d.z.copy(), d.zd.copy()

    def phi(dz):
        s.z[:] = z0 + dz
        forward_positions(model, s)
        eval_constraints(model, s, False)
        return s.phi.copy(), s.phiz.copy()

    n = model.n
    J = np.column_stack([diff(lambda h: phi(h * np.eye(n)[k])[0], 1e-4) for k in range(n)])
    assert np.abs(J - d.phiz).max() < 1e-9 * np.abs(d.phiz).max()
    gam = diff(lambda h: phi(h * zd0)[1] @ zd0, 1e-4)
    assert np.abs(gam - d.gam).max() < 1e-8 * max(np.abs(d.gam).max(), np.abs(d.phiz).max() * np.abs(zd0).max() ** 2)


@pytest.mark.parametrize("name", CLOSED)
def test_partitioned_accelerations_equal_lagrange_multipliers(name):
    mech = evaluated(name, 6)
    d = mech.data
    n, m = mech.model.n, mech.model.m
    K = np.block([[d.M, d.phiz.T], [d.phiz, np.zeros((m, m))]])
    zdd = np.linalg.solve(K, np.r_[d.f, -d.gam])[:n]
    assert np.abs(zdd - d.zdd).max() < 1e-10 * np.abs(zdd).max()


@pytest.mark.parametrize("name", ["open_tree", "rssr_fourbar", "rssr_fourbar_rod", "macpherson_fork_arm"])
def test_energy_function(name):
    mech = evaluated(name, 8)
    kin, pot = mech.energy()
    z, zd = coordinates(mech)
    sol = cartesian.solve(mech.spec, z, zd, mech.info.cut_joints)
    grav = np.asarray(mech.spec.gravity_m_per_s2)
    T = V = 0.0
    for name_, b in sol.bodies.items():
        if name_ != "ground":
            T += 0.5 * b.m * b.gd @ b.gd + 0.5 * b.w @ b.J @ b.w
            V -= b.m * grav @ b.g
    for sd in mech.spec.spring_dampers:
        a, b = sol.bodies[sd.body_a], sol.bodies[sd.body_b]
        x = np.linalg.norm(sd.point_b_m - sd.point_a_m) - np.linalg.norm(b.point(sd.point_b_m) - a.point(sd.point_a_m))
        V += sd.preload_N * x + 0.5 * sd.stiffness_N_per_m * x * x
    for r in mech.spec.rotational_spring_dampers:
        V += 0.5 * r.stiffness_N_m_per_rad * (z[r.coordinate] - r.free_angle_rad) ** 2
    assert abs(kin - T) < 1e-13 * max(T, 1.0)
    assert abs(pot - V) < 1e-12 * max(abs(V), 1.0)
