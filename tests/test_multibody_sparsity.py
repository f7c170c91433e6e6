"""The structure the engine exploits in a vehicle's evaluation, checked against dense forms on the full car:

* the removed rods' coupling: M equals the tree part plus sum_rods G^T M_rod G (G_a column k = C(r_a) b_k on
  the path of A), although the coupling between coordinates on both paths is accumulated as an inertia of the
  lowest common ancestor (docs/formulation.md §6), on the vehicles and on a mechanism whose rod pairs have
  common prefixes of different lengths;
* the reduced system: entries of R_z^T M R_z that model.mr_coupled declares zero are zero, the independent
  accelerations solve the dense (R_z^T M R_z) zdd^i = R_z^T (f - M S), and the elimination order puts the
  coordinates every path shares last (docs/formulation.md §9);
* the envelope Cholesky against a dense solve, never reading outside the envelope;
* the constant unit screws assemble uses (the chassis translations).
"""
import numpy as np
import pytest

from fmu_vehicle.multibody import Mechanism
from fmu_vehicle.numerics.linalg import envelope_cholesky_solve
from fmu_vehicle.multibody.model import JOINT_PRISMATIC
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.dynamics import vehicle_rhs
from reference.cartesian import skew
from reference.dense_form import path_matrices
from reference.states import random_state


@pytest.fixture(scope="module", params=["fullcar14", "halfcar7"])
def evaluated_car(request):
    """A vehicle evaluated at its equilibrium on the bumpy road, rolling at 20 m/s, with velocities of every
    independent coordinate (pitch, heave, roll, yaw, wheel travels) so that no term vanishes by symmetry."""
    car = Vehicle.load(request.param)
    system = car.system("bumpy")
    y = car.initial_state(system, 20.0)
    ni = car.mech.n_dof
    rng = np.random.default_rng(5)
    y[ni:2 * ni] += rng.uniform(-0.3, 0.3, ni)
    ydot = np.zeros_like(y)
    assert vehicle_rhs(0.0, y, system.model, system.data, ydot) >= 0
    return car, system


def dense_mass_matrix(mech):
    """R_d^T T^T Mbar T R_d + sum over massive rods of G^T M_rod G (G_a column k = C(r_a) b_k on the path of
    A), from the workspace's screws, body inertias and rod end points."""
    model, d = mech.model, mech.data
    T, Rd, Mbar, Q, w, D = path_matrices(mech)
    M = Rd.T @ T.T @ Mbar @ T @ Rd
    for q in range(model.nrod):
        if model.rod_mass[q] == 0.0:
            continue
        G = np.zeros((6, model.n))
        for e, (body, end) in enumerate(((model.rod_a[q], 0), (model.rod_b[q], 1))):
            r = d.rod_kin[q, end]
            C = np.hstack([np.eye(3), -skew(r)])          # velocity of the point r: v + w x r
            for k in range(model.n):
                if body >= 0 and model.on_path[body, k]:
                    G[3 * e:3 * e + 3, k] = C @ d.b[k]
        a, b, c = model.rod_M[q]
        Mrod = np.block([[a * np.eye(3), b * np.eye(3)], [b * np.eye(3), c * np.eye(3)]])
        M += G.T @ Mrod @ G
    return M


def test_mass_matrix_equals_tree_part_plus_rod_end_masses(evaluated_car):
    car, system = evaluated_car
    mech = car.mech.with_data(system.data.mech)          # the run's own engine workspace
    model, d = mech.model, mech.data
    assert model.npair > 0 and (model.pair_lca >= 0).all()      # the suspension rods' pairs share the chassis
    M = dense_mass_matrix(mech)
    assert np.abs(d.M - M).max() < 1e-12 * np.abs(M).max()


def _inertia(m):
    return {"xx": 0.01 * m, "yy": 0.012 * m, "zz": 0.008 * m, "xy": 0.001 * m, "xz": 0.0, "yz": 0.0005 * m}


NESTED_RODS = {
    "name": "nested_rods",
    "description": "A chain arm -> link -> ball (spherical) with a side arm on the arm; two massive rods from the "
                   "ball, one to the link and one to the side arm, whose common prefixes with the ball's path "
                   "are 2 and 1 coordinates long.",
    "gravity_m_per_s2": [0.0, 0.0, -9.81],
    "bodies": [{"name": b, "mass_kg": m, "com_m": c, "inertia_kg_m2": _inertia(m)}
               for b, m, c in (("arm", 2.0, [0.15, 0.02, 0.0]), ("link", 1.5, [0.45, 0.0, 0.03]),
                               ("ball", 1.0, [0.7, 0.02, -0.01]), ("side", 0.8, [0.05, 0.25, 0.05]))],
    "joints": [
        {"name": "arm", "type": "revolute", "parent": "ground", "child": "arm", "point_m": [0, 0, 0], "axis": [0, 0, 1]},
        {"name": "link", "type": "revolute", "parent": "arm", "child": "link", "point_m": [0.3, 0, 0],
         "axis": [0, 1, 0]},
        {"name": "ball", "type": "spherical", "parent": "link", "child": "ball", "point_m": [0.6, 0, 0]},
        {"name": "side", "type": "revolute", "parent": "arm", "child": "side", "point_m": [0, 0.2, 0],
         "axis": [1, 0, 0]},
    ],
    "rods": [
        {"name": "to_link", "body_a": "ball", "point_a_m": [0.8, 0.05, 0.0], "body_b": "link",
         "point_b_m": [0.45, 0.1, 0.05], "mass_kg": 0.3},
        {"name": "to_side", "body_a": "ball", "point_a_m": [0.75, -0.05, 0.02], "body_b": "side",
         "point_b_m": [0.1, 0.3, 0.1], "mass_kg": 0.4},
    ],
}


def test_rod_coupling_with_nested_common_prefixes():
    """Two rod pairs from one body whose common prefixes differ (2 and 1 coordinates: the arm's and the
    link's coordinates are common to the first, only the arm's to the second): each pair's inertia of its
    lowest common ancestor covers only its own prefix and add_rods the rest, so M equals the dense form; it
    would not if add_rods took one pair's prefix length for the other's, which the vehicles' tests (every
    pair's prefix the six chassis coordinates) cannot tell."""
    mech = Mechanism.from_dict(NESTED_RODS)
    model = mech.model
    assert sorted(model.pair_ncommon) == [1, 2]
    assert sorted(model.pair_lca) == sorted([mech.body("arm"), mech.body("link")])
    mech.derivatives(random_state(mech, np.random.default_rng(7), angle=0.3, rate=2.0))
    M = dense_mass_matrix(mech)
    assert np.abs(mech.data.M - M).max() < 1e-12 * np.abs(M).max()


def test_constant_unit_screws_are_the_chassis_translations(evaluated_car):
    """assemble reads M_ij = (M^S_j b_j)_k where b_i = {e_k; 0} (model.unit_axis): exactly the chassis
    translations, whose screws stay those unit vectors in the evaluated (pitched, rolled) state; a
    prismatic joint under a rotation (the full car's rack) is not one."""
    car, system = evaluated_car
    mech = car.mech.with_data(system.data.mech)
    model, d, names = mech.model, mech.data, mech.coordinate_names
    unit = {names[i]: int(k) for i, k in enumerate(model.unit_axis) if k >= 0}
    assert unit == {"chassis.x": 0, "chassis.z": 2} | ({"chassis.y": 1} if "chassis.y" in names else {})
    for i, k in enumerate(model.unit_axis):
        if k >= 0:
            np.testing.assert_array_equal(d.b[i], np.eye(6)[k])
    for j in range(model.n):
        path = model.path[j, :model.depth[j]]
        assert model.unit_depth[j] == min(len(unit), len(path))
        assert (model.unit_axis[path[:model.unit_depth[j]]] >= 0).all()
    if "steering.rack_travel" in names:
        rack = names.index("steering.rack_travel")
        assert model.jtype[rack] == JOINT_PRISMATIC and model.unit_axis[rack] == -1


def test_reduced_system_pattern_order_and_solution(evaluated_car):
    car, system = evaluated_car
    mech = car.mech.with_data(system.data.mech)          # the run's own engine workspace
    model, d = mech.model, mech.data
    ni = model.ni
    Mr = d.Rz.T @ d.M @ d.Rz
    fr = d.Rz.T @ (d.f - d.M @ d.S)
    coupled = model.mr_coupled[np.ix_(d.indep, d.indep)]
    assert not coupled.all()                                  # corners do not couple with each other
    np.testing.assert_array_equal(Mr[~coupled], 0.0)
    zddi = np.linalg.solve(Mr, fr)
    assert np.abs(d.zddi - zddi).max() < 1e-12 * np.abs(zddi).max()
    np.testing.assert_allclose(d.fr, fr, rtol=0, atol=1e-12 * np.abs(fr).max())
    # elimination order: the chassis coordinates (on every body's path) last, each corner contiguous
    order = d.indep[d.mr_order]
    names = [mech.coordinate_names[k] for k in order]
    n_chassis = sum(name.startswith("chassis.") for name in names)
    assert n_chassis in (3, 6) and all(name.startswith("chassis.") for name in names[ni - n_chassis:])
    assert (model.mcol_nrows[order[ni - n_chassis:]] == model.n).all()    # their columns of M are full
    corners = [name.split(".")[0] for name in names[:ni - n_chassis]]
    assert all(corners[k] == corners[k + 1] for k in range(0, len(corners), 2))
    # the envelope: a corner's rows start at the corner, the chassis rows at column 0, and nothing is
    # coupled left of a row's first column
    first = d.mr_first
    for p in range(ni):
        assert coupled[d.mr_order[p], d.mr_order[first[p]]]
        assert not coupled[d.mr_order[p], d.mr_order[:first[p]]].any()
    assert (first[ni - n_chassis:] == 0).all() and (first[:ni - n_chassis] >= np.arange(ni - n_chassis) - 1).all()


def test_elimination_order_follows_a_new_partition(evaluated_car):
    """data.indep written directly (as a restored state does), here the front-left/front wheel travel made
    dependent and its lower arm pivot independent: the next evaluation rebuilds the order, and the solution
    still equals the dense one."""
    car, system = evaluated_car
    mech = car.mech.with_data(system.data.mech)          # the run's own engine workspace
    d = mech.data
    names = mech.coordinate_names
    travel = next(k for k in d.indep if names[k].endswith(".travel") and names[k][0] in "Ff")
    pivot = mech.coordinate(names[travel].replace(".travel", ".lower_arm_pivot"))
    saved = (d.indep.copy(), d.dep.copy())
    try:
        d.indep[:] = np.where(saved[0] == travel, pivot, saved[0])
        d.dep[:] = np.sort(np.where(saved[1] == pivot, travel, saved[1]))
        y = np.concatenate([d.z[d.indep], d.zd[d.indep], np.zeros(car.n_states - 2 * mech.n_dof)])
        ydot = np.zeros_like(y)
        assert vehicle_rhs(0.0, y, system.model, system.data, ydot) >= 0
        np.testing.assert_array_equal(d.mr_indep, d.indep)
        np.testing.assert_array_equal(d.mr_pos[d.mr_order], np.arange(mech.n_dof))
        order = [names[k] for k in d.indep[d.mr_order]]
        assert order.index(names[pivot]) < order.index(names[travel].replace(".travel", ".spin")) + 2
        Mr = d.Rz.T @ d.M @ d.Rz
        zddi = np.linalg.solve(Mr, d.Rz.T @ (d.f - d.M @ d.S))
        assert np.abs(d.zddi - zddi).max() < 1e-12 * np.abs(zddi).max()
    finally:
        d.indep[:], d.dep[:] = saved


@pytest.mark.parametrize("blocks,shared", [([2, 2, 2, 2], 6), ([3, 1, 4], 3), ([], 5), ([1] * 6, 0)])
def test_envelope_cholesky_equals_dense_solve_and_reads_only_the_envelope(blocks, shared):
    rng = np.random.default_rng(len(blocks) * 10 + shared)
    n = sum(blocks) + shared
    first = np.zeros(n, dtype=np.int64)
    pattern = np.zeros((n, n), dtype=bool)
    start = 0
    for size in blocks:
        first[start:start + size] = start
        pattern[start:start + size, start:start + size] = True
        start += size
    pattern[start:, :] = True
    pattern[:, start:] = True
    L = np.tril(rng.normal(size=(n, n)) * pattern, -1) + np.diag(rng.uniform(0.5, 2.0, n))
    A = L @ L.T                                      # SPD with exactly the arrow pattern
    np.testing.assert_array_equal(A[~pattern], 0.0)
    b = rng.normal(size=n)
    x = np.linalg.solve(A, b)
    work = A.copy()
    work[np.triu_indices(n, 1)] = np.nan             # the upper triangle is never read ...
    for i in range(n):
        work[i, :first[i]] = np.nan                  # ... nor anything left of a row's envelope
    xs = b.copy()
    assert envelope_cholesky_solve(work, first, xs)
    assert np.abs(xs - x).max() < 1e-14 * np.linalg.cond(A) * np.abs(x).max()
    dense, xd = A.copy(), b.copy()
    assert envelope_cholesky_solve(dense, np.zeros(n, dtype=np.int64), xd)     # the dense Cholesky: every row whole
    np.testing.assert_array_equal(xs, xd)            # the skipped products are exact zeros
    Lc = np.tril(np.nan_to_num(work, nan=0.0))
    assert np.abs(Lc @ Lc.T - A).max() < 1e-12 * np.abs(A).max()
    bad = -np.eye(n) + 0.0
    assert not envelope_cholesky_solve(bad, np.arange(n, dtype=np.int64), b.copy())
