"""Semi-recursive dynamics: accumulated inertias and the independent-coordinate ODE
(semirecursive.md §1.2, §3, §4.4, §5.2; seed 001 eqs. 6, 10, 21).

Per body, about the global origin (g = CoM, J = A J0 A^T, w = angular velocity):
    Mbar = [[m I, -m g~], [m g~, J - m g~ g~]]
    Qbar = {m grav; g x m grav} + external wrenches + force elements
    Pbar = Mbar Zd0 + {m w x gd; m g x (w x gd) + w x J w}
Backward accumulation (no reference-point shift: all bodies refer to the origin):
    M^S_p += M^S_i,  Q^S_p += Q^S_i,  P^S_p += P^S_i
Open-loop matrix and forces (eq. 6):  M_ij = b_i^T M^S_max(i,j) b_j on one path,  f_i = b_i^T (Q^S_i - P^S_i)
Removed rods (eq. 21, §5.2):  M += G^T M_rod G,  f += G^T (w_rod - M_rod a0); with G_a = C(r_a) T R_d the
    terms a G_a^T G_a, c G_b^T G_b and the end forces are point masses/forces seeded into M^S, Q^S before
    the backward pass, only the coupling b (G_a^T G_b + G_b^T G_a) is added to M afterwards
Closed loop (eq. 10):  (R_z^T M R_z) zdd^i = R_z^T (f - M S),  zdd = R_z zdd^i + S
"""
from __future__ import annotations

from ..jit import njit

from .constraints import acceleration_bias
from .force_elements import add_point_force, rotational_spring_dampers, spring_dampers
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
def _add_point_mass(MS, c, r):
    """MS += c C(r)^T C(r): the 6x6 mass matrix of a point mass c [kg] at r (body_terms with J = 0)."""
    x, y, z = r[0], r[1], r[2]
    MS[0, 0] += c
    MS[1, 1] += c
    MS[2, 2] += c
    MS[0, 4] += c * z
    MS[4, 0] += c * z
    MS[0, 5] -= c * y
    MS[5, 0] -= c * y
    MS[1, 3] -= c * z
    MS[3, 1] -= c * z
    MS[1, 5] += c * x
    MS[5, 1] += c * x
    MS[2, 3] += c * y
    MS[3, 2] += c * y
    MS[2, 4] -= c * x
    MS[4, 2] -= c * x
    MS[3, 3] += c * (y * y + z * z)
    MS[4, 4] += c * (x * x + z * z)
    MS[5, 5] += c * (x * x + y * y)
    MS[3, 4] -= c * x * y
    MS[4, 3] -= c * x * y
    MS[3, 5] -= c * x * z
    MS[5, 3] -= c * x * z
    MS[4, 5] -= c * y * z
    MS[5, 4] -= c * y * z


@njit(inline="always")
def rod_body_terms(model, data):
    """Seed M^S, Q^S with the rods' end-point terms (semirecursive.md §5.2), before accumulation.

    G_a^T M_rod G_a splits into a point mass a at r_a on body A and c at r_b on body B (their
    C(r)^T C(r) blocks, since G = C(r) T R_d on the body's path); the forces G^T (w_rod - M_rod a0)
    are point forces at the ends. The coupling b (G_a^T G_b + G_b^T G_a) is added by :func:`add_rods`.
    Needs data.rod_kin (:func:`constraints.acceleration_bias`).
    """
    fa, fb = data.tmp[6], data.tmp[7]
    grav = model.gravity
    for q in range(model.nrod):
        if model.rod_mass[q] == 0.0:
            continue
        A, B = model.rod_a[q], model.rod_b[q]
        ca, cb, cc = model.rod_M[q, 0], model.rod_M[q, 1], model.rod_M[q, 2]
        kin = data.rod_kin[q]
        for k in range(3):
            fa[k] = model.rod_w[q, 0] * grav[k] - (ca * kin[4, k] + cb * kin[5, k])
            fb[k] = model.rod_w[q, 1] * grav[k] - (cb * kin[4, k] + cc * kin[5, k])
        if A >= 0:
            _add_point_mass(data.MS[A], ca, kin[0])
            add_point_force(data.QS[A], kin[0], fa)
        if B >= 0:
            _add_point_mass(data.MS[B], cc, kin[1])
            add_point_force(data.QS[B], kin[1], fb)


@njit(inline="always")
def accumulate(model, data):
    """Backward pass: M^S, Q^S, P^S (subtree sums, semirecursive.md §3.3), rods' end terms included."""
    n = model.n
    for i in range(n):
        for k in range(6):
            data.QS[i, k] = data.Qbar[i, k]
            data.PS[i, k] = data.Pbar[i, k]
            for l in range(6):
                data.MS[i, k, l] = data.Mbar[i, k, l]
    rod_body_terms(model, data)
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
    """Removed rods' coupling terms: M_ij += b (G_a,i . G_b,j) + b (G_a,j . G_b,i) (semirecursive.md §5.2).

    With G = C(r) T R_d: b G_a,i . G_b,j = b_i^T K b_j, K = b C(r_a)^T C(r_b), summed per pair of bodies
    (i on the path of A, j on the path of B). The rest of G^T M_rod G and of the rod forces went into the
    accumulation (:func:`rod_body_terms`).
    """
    Kp = data.Kp
    for p in range(model.npair):
        for k in range(6):
            for l in range(6):
                Kp[p, k, l] = 0.0
    for q in range(model.nrod):
        p = model.rod_pair[q]
        if p < 0:
            continue
        kin = data.rod_kin[q]
        c = model.rod_M[q, 1]
        ax, ay, az = kin[0, 0], kin[0, 1], kin[0, 2]
        bx, by, bz = kin[1, 0], kin[1, 1], kin[1, 2]
        K = Kp[p]
        # C(ra)^T C(rb) = [[I, -rb~], [ra~, (ra.rb) I - rb ra^T]]
        K[0, 0] += c
        K[1, 1] += c
        K[2, 2] += c
        K[0, 4] += c * bz
        K[0, 5] -= c * by
        K[1, 3] -= c * bz
        K[1, 5] += c * bx
        K[2, 3] += c * by
        K[2, 4] -= c * bx
        K[4, 0] += c * az
        K[5, 0] -= c * ay
        K[3, 1] -= c * az
        K[5, 1] += c * ax
        K[3, 2] += c * ay
        K[4, 2] -= c * ax
        d = ax * bx + ay * by + az * bz
        K[3, 3] += c * (d - bx * ax)
        K[3, 4] -= c * bx * ay
        K[3, 5] -= c * bx * az
        K[4, 3] -= c * by * ax
        K[4, 4] += c * (d - by * ay)
        K[4, 5] -= c * by * az
        K[5, 3] -= c * bz * ax
        K[5, 4] -= c * bz * ay
        K[5, 5] += c * (d - bz * az)
    v = data.tmp[8]
    v2 = data.tmp[9]
    for p in range(model.npair):
        A, B = model.pair_a[p], model.pair_b[p]
        K = Kp[p]
        pa, na = model.path[A], model.depth[A]
        pb, nb = model.path[B], model.depth[B]
        for cj in range(nb):
            j = pb[cj]
            bj = data.b[j]
            for k in range(3):
                s = 0.0
                t = 0.0
                for l in range(6):
                    s += K[k, l] * bj[l]
                    t += K[3 + k, l] * bj[l]
                v[k] = s
                v2[k] = t
            for ci in range(na):
                i = pa[ci]
                bi = data.b[i]
                val = bi[0] * v[0] + bi[1] * v[1] + bi[2] * v[2] + bi[3] * v2[0] + bi[4] * v2[1] + bi[5] * v2[2]
                data.M[i, j] += val
                data.M[j, i] += val


@njit(inline="always")
def solve_accelerations(model, data):
    """Reduced equations (eq. 10) -> zdd^i, zdd and the body accelerations dZ/dt. False if singular.

    Needs S (:func:`constraints.acceleration_bias`). Exploits the structure of R_z and S: S is zero on
    the independent coordinates, R_z|_i = I and R_z|_d is sparse (data.rz_rows), so only non-zero
    entries enter the products (the sums keep their order: the result is the dense product's).
    """
    n, m = model.n, model.m
    ni = n - m
    Rz, M, S, dep = data.Rz, data.M, data.S, data.dep
    # w = f - M S  (stored in zdd as scratch); S^i = 0, dep is increasing
    w = data.zdd
    for i in range(n):
        s = data.f[i]
        for c in range(m):
            j = dep[c]
            s -= M[i, j] * S[j]
        w[i] = s
    rows, nrows = data.rz_rows, data.rz_nrows
    for a in range(ni):
        s = 0.0
        for t in range(nrows[a]):
            i = rows[a, t]
            s += Rz[i, a] * w[i]
        data.fr[a] = s
    # Mr = Rz^T M Rz column by column: w = M Rz[:, b] (axpy over the non-zero entries of Rz[:, b])
    for bcol in range(ni):
        for i in range(n):
            w[i] = 0.0
        for t in range(nrows[bcol]):
            j = rows[bcol, t]
            r = Rz[j, bcol]
            for i in range(n):
                w[i] += M[i, j] * r
        for a in range(bcol, ni):
            s = 0.0
            for t in range(nrows[a]):
                i = rows[a, t]
                s += Rz[i, a] * w[i]
            data.Mr[a, bcol] = s
            data.Mr[bcol, a] = s
    for a in range(ni):
        data.zddi[a] = data.fr[a]
    if not cholesky_solve(data.Mr, data.zddi):
        return False
    for i in range(n):
        data.zdd[i] = S[i]
    for a in range(ni):
        za = data.zddi[a]
        for t in range(nrows[a]):
            i = rows[a, t]
            data.zdd[i] += Rz[i, a] * za
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
    acceleration_bias(model, data)
    accumulate(model, data)
    assemble(model, data)
    add_rods(model, data)
    return solve_accelerations(model, data)
