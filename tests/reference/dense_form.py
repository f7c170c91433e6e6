"""The dense path-matrix form of the semi-recursive equations (docs/formulation.md §4), built from the engine's
workspace: the reference the recursive assembly is compared with (test_multibody_identities.py,
test_multibody_sparsity.py).

    M = R_d^T T^T Mbar T R_d,    f = R_d^T T^T (Qbar - w - Mbar T D)

with T the 6n x 6n path matrix (identity blocks from each body to its ancestors), R_d the 6n x n screws b_i,
Mbar the block diagonal of the bodies' 6x6 inertias, Qbar the applied forces, w the velocity terms and D the
recursion terms d_i = crm(Z_p) b_i zd_i.
"""
import numpy as np

from reference import cartesian


def mbar(I):
    """The 6x6 Mbar of a spatial inertia (m, h, J_O) as stored by the engine (dynamics.I_*)."""
    m, h = I[0], I[1:4]
    xx, yy, zz, xy, xz, yz = I[4:]
    H = cartesian.skew(h)
    return np.block([[m * np.eye(3), -H], [H, np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])]])


def path_matrices(mech):
    """Dense T (6n x 6n), R_d (6n x n), blockdiag Mbar and stacked Qbar, w, D from the workspace."""
    model, d = mech.model, mech.data
    n = model.n
    T = np.zeros((6 * n, 6 * n))
    for i in range(n):
        k = i
        while k >= 0:
            T[6 * i:6 * i + 6, 6 * k:6 * k + 6] = np.eye(6)
            k = model.parent[k]
    Rd = np.zeros((6 * n, n))
    Mbar = np.zeros((6 * n, 6 * n))
    Q, w, D = np.zeros(6 * n), np.zeros(6 * n), np.zeros(6 * n)
    for i in range(n):
        Rd[6 * i:6 * i + 6, i] = d.b[i]
        Mbar[6 * i:6 * i + 6, 6 * i:6 * i + 6] = mbar(d.Ibar[i])
        Q[6 * i:6 * i + 6] = d.Qbar[i]
        # velocity terms of body i (docs/formulation.md §4) with the CoM inertia from the spec
        A, m, g, gd, om = d.A[i], model.mass[i], d.g[i], d.gd[i], d.Z[i, 3:]
        J = A @ model.inertia0[i] @ A.T
        wg = np.cross(om, gd)
        w[6 * i:6 * i + 6] = np.r_[m * wg, m * np.cross(g, wg) + np.cross(om, J @ om)]
        # d_i = crm(Z_p) b_i zd_i
        p = model.parent[i]
        Zp = d.Z[p] if p >= 0 else np.zeros(6)
        crm = np.block([[cartesian.skew(Zp[3:]), cartesian.skew(Zp[:3])], [np.zeros((3, 3)), cartesian.skew(Zp[3:])]])
        D[6 * i:6 * i + 6] = crm @ d.b[i] * d.zd[i]
    return T, Rd, Mbar, Q, w, D
