"""Semi-recursive dynamics: accumulated inertias and the independent-coordinate ODE
(semirecursive.md §1.2, §3, §4.4, §5.2; seed 001 eqs. 6, 10, 21).

Per body, about the global origin (g = CoM, J = A J0 A^T, w = angular velocity):
    Mbar = [[m I, -m g~], [m g~, J - m g~ g~]]
    Qbar = {m grav; g x m grav} + external wrenches + force elements
    Pbar = Mbar Zd0 + {m w x gd; m g x (w x gd) + w x J w}
Backward accumulation (no reference-point shift: all bodies refer to the origin):
    M^S_p += M^S_i,  Q^S_p += Q^S_i,  P^S_p += P^S_i
Open-loop matrix and forces (eq. 6):  M_ij = b_i^T M^S_max(i,j) b_j on one path,  f_i = b_i^T (Q^S_i - P^S_i)
Removed rods (eq. 21, §5.2):  M += G^T M_rod G,  f += G^T (w_rod - M_rod a0)
Closed loop (eq. 10):  (R_z^T M R_z) zdd^i = R_z^T (f - M S),  zdd = R_z zdd^i + S
"""
from __future__ import annotations

from ..jit import njit

from .constraints import acceleration_bias
from .force_elements import rotational_spring_dampers, spring_dampers
from .kinematics import point_accel0, point_jacobian, point_position, point_velocity
from .linalg import cholesky_solve


@njit(inline="always")
def body_terms(model, data):
    """Mbar_i, Qbar_i (gravity + data.Qext) and Pbar_i for every tree body."""
    grav = model.gravity
    for i in range(model.n):
        m = model.mass[i]
        A, J0 = data.A[i], model.inertia0[i]
        Mb = data.Mbar[i]
        # J = A J0 A^T (global axes, about the CoM)
        J00 = J01 = J02 = J11 = J12 = J22 = 0.0
        for k in range(3):
            for l in range(3):
                if J0[k, l] != 0.0:
                    J00 += A[0, k] * J0[k, l] * A[0, l]
                    J01 += A[0, k] * J0[k, l] * A[1, l]
                    J02 += A[0, k] * J0[k, l] * A[2, l]
                    J11 += A[1, k] * J0[k, l] * A[1, l]
                    J12 += A[1, k] * J0[k, l] * A[2, l]
                    J22 += A[2, k] * J0[k, l] * A[2, l]
        gx, gy, gz = data.g[i, 0], data.g[i, 1], data.g[i, 2]
        # m g~ = m [[0, -gz, gy], [gz, 0, -gx], [-gy, gx, 0]];  -m g~ g~ = m (|g|^2 I - g g^T)
        gg = gx * gx + gy * gy + gz * gz
        for k in range(6):
            for l in range(6):
                Mb[k, l] = 0.0
        Mb[0, 0] = Mb[1, 1] = Mb[2, 2] = m
        Mb[0, 4], Mb[0, 5] = m * gz, -m * gy
        Mb[1, 3], Mb[1, 5] = -m * gz, m * gx
        Mb[2, 3], Mb[2, 4] = m * gy, -m * gx
        Mb[4, 0], Mb[5, 0] = m * gz, -m * gy
        Mb[3, 1], Mb[5, 1] = -m * gz, m * gx
        Mb[3, 2], Mb[4, 2] = m * gy, -m * gx
        Mb[3, 3] = J00 + m * (gg - gx * gx)
        Mb[4, 4] = J11 + m * (gg - gy * gy)
        Mb[5, 5] = J22 + m * (gg - gz * gz)
        Mb[3, 4] = Mb[4, 3] = J01 - m * gx * gy
        Mb[3, 5] = Mb[5, 3] = J02 - m * gx * gz
        Mb[4, 5] = Mb[5, 4] = J12 - m * gy * gz
        # Qbar: gravity + external wrenches set by the caller
        Fx, Fy, Fz = m * grav[0], m * grav[1], m * grav[2]
        Q = data.Qbar[i]
        Qe = data.Qext[i]
        Q[0] = Fx + Qe[0]
        Q[1] = Fy + Qe[1]
        Q[2] = Fz + Qe[2]
        Q[3] = gy * Fz - gz * Fy + Qe[3]
        Q[4] = gz * Fx - gx * Fz + Qe[4]
        Q[5] = gx * Fy - gy * Fx + Qe[5]
        # Pbar = Mbar Zd0 + w_i
        w0, w1, w2 = data.Z[i, 3], data.Z[i, 4], data.Z[i, 5]
        gd = data.gd[i]
        c0 = w1 * gd[2] - w2 * gd[1]
        c1 = w2 * gd[0] - w0 * gd[2]
        c2 = w0 * gd[1] - w1 * gd[0]
        Jw0 = J00 * w0 + J01 * w1 + J02 * w2
        Jw1 = J01 * w0 + J11 * w1 + J12 * w2
        Jw2 = J02 * w0 + J12 * w1 + J22 * w2
        P = data.Pbar[i]
        Zd0 = data.Zd0[i]
        for k in range(6):
            s = 0.0
            for l in range(6):
                s += Mb[k, l] * Zd0[l]
            P[k] = s
        P[0] += m * c0
        P[1] += m * c1
        P[2] += m * c2
        P[3] += m * (gy * c2 - gz * c1) + (w1 * Jw2 - w2 * Jw1)
        P[4] += m * (gz * c0 - gx * c2) + (w2 * Jw0 - w0 * Jw2)
        P[5] += m * (gx * c1 - gy * c0) + (w0 * Jw1 - w1 * Jw0)


@njit(inline="always")
def accumulate(model, data):
    """Backward pass: M^S, Q^S, P^S (subtree sums, semirecursive.md §3.3)."""
    n = model.n
    for i in range(n):
        for k in range(6):
            data.QS[i, k] = data.Qbar[i, k]
            data.PS[i, k] = data.Pbar[i, k]
            for l in range(6):
                data.MS[i, k, l] = data.Mbar[i, k, l]
    for i in range(n - 1, -1, -1):
        p = model.parent[i]
        if p >= 0:
            for k in range(6):
                data.QS[p, k] += data.QS[i, k]
                data.PS[p, k] += data.PS[i, k]
                for l in range(6):
                    data.MS[p, k, l] += data.MS[i, k, l]


@njit(inline="always")
def assemble(model, data):
    """Open-loop M (n x n) and f (semirecursive.md §3.4) plus joint forces and rotational elements."""
    n = model.n
    M, b = data.M, data.b
    v = data.tmp[6]
    v2 = data.tmp[7]
    for j in range(n):
        MSj = data.MS[j]
        bj = b[j]
        # v = M^S_j b_j (6-vector stored in two 3-vectors)
        for k in range(3):
            s = 0.0
            t = 0.0
            for l in range(6):
                s += MSj[k, l] * bj[l]
                t += MSj[3 + k, l] * bj[l]
            v[k] = s
            v2[k] = t
        for i in range(j + 1):
            if model.on_path[j, i]:
                bi = b[i]
                val = bi[0] * v[0] + bi[1] * v[1] + bi[2] * v[2] + bi[3] * v2[0] + bi[4] * v2[1] + bi[5] * v2[2]
                M[i, j] = val
                M[j, i] = val
            else:
                M[i, j] = 0.0
                M[j, i] = 0.0
        s = 0.0
        for l in range(6):
            s += bj[l] * (data.QS[j, l] - data.PS[j, l])
        data.f[j] = s + data.jforce[j]
    rotational_spring_dampers(model, data)


@njit(inline="always")
def add_rods(model, data):
    """Removed rods: M += G^T M_rod G and f += G^T (w_rod - M_rod a0) (semirecursive.md §5.2)."""
    n = model.n
    Ga, Gb = data.Ga, data.Gb
    ra, rb, va, vb, aa, ab = data.tmp[0], data.tmp[1], data.tmp[2], data.tmp[3], data.tmp[4], data.tmp[5]
    fa, fb = data.tmp[6], data.tmp[7]
    grav = model.gravity
    for q in range(model.nrod):
        if model.rod_mass[q] == 0.0:
            continue
        A, B = model.rod_a[q], model.rod_b[q]
        ca, cb, cc = model.rod_M[q, 0], model.rod_M[q, 1], model.rod_M[q, 2]
        point_position(data, A, model.rod_pa[q], ra)
        point_position(data, B, model.rod_pb[q], rb)
        point_jacobian(model, data, A, ra, Ga)
        point_jacobian(model, data, B, rb, Gb)
        point_velocity(data, A, ra, va)
        point_velocity(data, B, rb, vb)
        point_accel0(data, A, ra, va, aa)
        point_accel0(data, B, rb, vb, ab)
        for k in range(3):
            fa[k] = model.rod_w[q, 0] * grav[k] - (ca * aa[k] + cb * ab[k])
            fb[k] = model.rod_w[q, 1] * grav[k] - (cb * aa[k] + cc * ab[k])
        for i in range(n):
            ai0, ai1, ai2 = Ga[0, i], Ga[1, i], Ga[2, i]
            bi0, bi1, bi2 = Gb[0, i], Gb[1, i], Gb[2, i]
            if ai0 == 0.0 and ai1 == 0.0 and ai2 == 0.0 and bi0 == 0.0 and bi1 == 0.0 and bi2 == 0.0:
                continue
            data.f[i] += ai0 * fa[0] + ai1 * fa[1] + ai2 * fa[2] + bi0 * fb[0] + bi1 * fb[1] + bi2 * fb[2]
            for j in range(n):
                aj0, aj1, aj2 = Ga[0, j], Ga[1, j], Ga[2, j]
                bj0, bj1, bj2 = Gb[0, j], Gb[1, j], Gb[2, j]
                data.M[i, j] += (ca * (ai0 * aj0 + ai1 * aj1 + ai2 * aj2)
                                 + cb * (ai0 * bj0 + ai1 * bj1 + ai2 * bj2 + bi0 * aj0 + bi1 * aj1 + bi2 * aj2)
                                 + cc * (bi0 * bj0 + bi1 * bj1 + bi2 * bj2))


@njit(inline="always")
def solve_accelerations(model, data):
    """Reduced equations (eq. 10) -> zdd^i, zdd and the body accelerations dZ/dt. False if singular."""
    n, m = model.n, model.m
    ni = n - m
    acceleration_bias(model, data)
    Rz, M, S = data.Rz, data.M, data.S
    # w = f - M S  (stored in zdd as scratch)
    w = data.zdd
    for i in range(n):
        s = data.f[i]
        for j in range(n):
            s -= M[i, j] * S[j]
        w[i] = s
    for a in range(ni):
        s = 0.0
        for i in range(n):
            s += Rz[i, a] * w[i]
        data.fr[a] = s
    # Mr = Rz^T M Rz ; M Rz column by column into zdd scratch is not enough (n x ni) -> loop
    for bcol in range(ni):
        for i in range(n):
            s = 0.0
            for j in range(n):
                s += M[i, j] * Rz[j, bcol]
            w[i] = s
        for a in range(bcol, ni):
            s = 0.0
            for i in range(n):
                s += Rz[i, a] * w[i]
            data.Mr[a, bcol] = s
            data.Mr[bcol, a] = s
    for a in range(ni):
        data.zddi[a] = data.fr[a]
    if not cholesky_solve(data.Mr, data.zddi):
        return False
    for i in range(n):
        s = S[i]
        for a in range(ni):
            s += Rz[i, a] * data.zddi[a]
        data.zdd[i] = s
    for i in range(n):
        p = model.parent[i]
        for k in range(6):
            base = data.Zd[p, k] - data.Zd0[p, k] if p >= 0 else 0.0
            data.Zd[i, k] = data.Zd0[i, k] + base + data.b[i, k] * data.zdd[i]
    return True


@njit(inline="always")
def forward_dynamics(model, data):
    """Forces, accumulation, assembly, rods and the closed-loop solve at the current state.

    Requires positions, velocities (kinematics + R_z) current and the caller's loads in
    data.Qext / data.jforce. Result in data.zdd, data.zddi and data.Zd. Returns False if the
    reduced mass matrix is not positive definite.
    """
    body_terms(model, data)
    spring_dampers(model, data)
    accumulate(model, data)
    assemble(model, data)
    add_rods(model, data)
    return solve_accelerations(model, data)
