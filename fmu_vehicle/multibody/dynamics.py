"""Semi-recursive dynamics: accumulated inertias and the independent-coordinate ODE
(docs/formulation.md §4, §6 and §9; eqs. 6, 10 and 21 of Dai, Pan et al. (2022), "Real-Time Modeling
of Vehicle's Longitudinal-Vertical Dynamics in ADAS Applications").

Per body, about the global origin (g = CoM, J = A J0 A^T, w = angular velocity):
    Mbar = [[m I, -m g~], [m g~, J - m g~ g~]], stored as the 10 numbers of a spatial inertia
    (m, h = m g, J_O = J - m g~ g~ symmetric; INERTIA_* below); sums of such matrices keep the form
    Qbar = {m grav; g x m grav} + external wrenches + force elements
    Pbar = Mbar Zd0 + {m w x gd; m g x (w x gd) + w x J w}
Backward accumulation (no reference-point shift: all bodies refer to the origin):
    M^S_p += M^S_i,  Q^S_p += Q^S_i,  P^S_p += P^S_i
Open-loop matrix and forces (eq. 6):  M_ij = b_i^T M^S_max(i,j) b_j on one path,  f_i = b_i^T (Q^S_i - P^S_i)
Removed rods (eq. 21, §5.2):  M += G^T M_rod G,  f += G^T (w_rod - M_rod a0); with G_a = C(r_a) T R_d the
    terms a G_a^T G_a, c G_b^T G_b and the end forces are point masses/forces seeded into M^S, Q^S before
    the backward pass, only the coupling b (G_a^T G_b + G_b^T G_a) is added to M afterwards
Closed loop (eq. 10):  (R_z^T M R_z) zdd^i = R_z^T (f - M S),  zdd = R_z zdd^i + S
Driven coordinates (docs/formulation.md §13): S carries zdd_drv; the force that enforces the prescription,
    lambda_drv = R_drv^T (M zdd - f) = [M zdd - f]_drv - (Phi_z^drv)^T (Phi_z^d)^-T [M zdd - f]_d
"""
from __future__ import annotations

from ..numerics.jit import njit

from .constraints import acceleration_bias, driven_column
from .force_elements import add_point_force, rotational_spring_dampers, spring_dampers
from ..numerics.linalg import envelope_cholesky_solve


# spatial inertia about the origin, data.Ibar[i] / data.IS[i]: mass, first moment h = m g, J_O (symmetric)
I_M, I_HX, I_HY, I_HZ, I_XX, I_YY, I_ZZ, I_XY, I_XZ, I_YZ = range(10)


@njit(inline="always")
def inertia_times(I, x, out):
    """out = Mbar x for the spatial inertia I (10 numbers) and a 6-vector x = {t; r}:
    out = {m t - h x r; h x t + J_O r}."""
    m, hx, hy, hz = I[I_M], I[I_HX], I[I_HY], I[I_HZ]
    t0, t1, t2, r0, r1, r2 = x[0], x[1], x[2], x[3], x[4], x[5]
    out[0] = m * t0 - (hy * r2 - hz * r1)
    out[1] = m * t1 - (hz * r0 - hx * r2)
    out[2] = m * t2 - (hx * r1 - hy * r0)
    out[3] = (hy * t2 - hz * t1) + I[I_XX] * r0 + I[I_XY] * r1 + I[I_XZ] * r2
    out[4] = (hz * t0 - hx * t2) + I[I_XY] * r0 + I[I_YY] * r1 + I[I_YZ] * r2
    out[5] = (hx * t1 - hy * t0) + I[I_XZ] * r0 + I[I_YZ] * r1 + I[I_ZZ] * r2


@njit(inline="always")
def body_terms(model, data):
    """Ibar_i (Mbar_i as a spatial inertia), Qbar_i (gravity + data.Qext) and Pbar_i for every tree body.

    A massless body without inertia (the auxiliary bodies of compound joints, docs/formulation.md §2)
    has Ibar = 0, Qbar = Qext, Pbar = 0.
    """
    grav = model.gravity
    for i in range(model.n):
        m = model.mass[i]
        A, J0 = data.A[i], model.inertia0[i]
        Ib = data.Ibar[i]
        if m == 0.0 and J0[0, 0] == 0.0 and J0[1, 1] == 0.0 and J0[2, 2] == 0.0:     # J0 is PSD: J0 = 0
            for k in range(10):
                Ib[k] = 0.0
            for k in range(6):
                data.Qbar[i, k] = data.Qext[i, k]
                data.Pbar[i, k] = 0.0
            continue
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
        # J_O = J - m g~ g~ = J + m (|g|^2 I - g g^T)
        gg = gx * gx + gy * gy + gz * gz
        Ib[I_M] = m
        Ib[I_HX], Ib[I_HY], Ib[I_HZ] = m * gx, m * gy, m * gz
        Ib[I_XX] = J00 + m * (gg - gx * gx)
        Ib[I_YY] = J11 + m * (gg - gy * gy)
        Ib[I_ZZ] = J22 + m * (gg - gz * gz)
        Ib[I_XY] = J01 - m * gx * gy
        Ib[I_XZ] = J02 - m * gx * gz
        Ib[I_YZ] = J12 - m * gy * gz
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
        inertia_times(Ib, data.Zd0[i], P)
        P[0] += m * c0
        P[1] += m * c1
        P[2] += m * c2
        P[3] += m * (gy * c2 - gz * c1) + (w1 * Jw2 - w2 * Jw1)
        P[4] += m * (gz * c0 - gx * c2) + (w2 * Jw0 - w0 * Jw2)
        P[5] += m * (gx * c1 - gy * c0) + (w0 * Jw1 - w1 * Jw0)


@njit(inline="always")
def _add_point_mass(IS, c, r):
    """IS += the spatial inertia of a point mass c [kg] at r: (c, c r, c (|r|^2 I - r r^T))."""
    x, y, z = r[0], r[1], r[2]
    IS[I_M] += c
    IS[I_HX] += c * x
    IS[I_HY] += c * y
    IS[I_HZ] += c * z
    IS[I_XX] += c * (y * y + z * z)
    IS[I_YY] += c * (x * x + z * z)
    IS[I_ZZ] += c * (x * x + y * y)
    IS[I_XY] -= c * x * y
    IS[I_XZ] -= c * x * z
    IS[I_YZ] -= c * y * z


@njit(inline="always")
def _add_rod_coupling(IS, c, ra, rb):
    """IS += c (C(r_a)^T C(r_b) + C(r_b)^T C(r_a)) as a spatial inertia: mass 2c, first moment c (r_a + r_b),
    J_O = c (2 (r_a . r_b) I - r_a r_b^T - r_b r_a^T) [kg, kg m, kg m^2]."""
    ax, ay, az = ra[0], ra[1], ra[2]
    bx, by, bz = rb[0], rb[1], rb[2]
    d2 = 2.0 * (ax * bx + ay * by + az * bz)
    IS[I_M] += 2.0 * c
    IS[I_HX] += c * (ax + bx)
    IS[I_HY] += c * (ay + by)
    IS[I_HZ] += c * (az + bz)
    IS[I_XX] += c * (d2 - 2.0 * ax * bx)
    IS[I_YY] += c * (d2 - 2.0 * ay * by)
    IS[I_ZZ] += c * (d2 - 2.0 * az * bz)
    IS[I_XY] -= c * (ax * by + bx * ay)
    IS[I_XZ] -= c * (ax * bz + bx * az)
    IS[I_YZ] -= c * (ay * bz + by * az)


@njit(inline="always")
def rod_body_terms(model, data):
    """Seed M^S (data.IS), Q^S with the rods' end-point terms (docs/formulation.md §6), before accumulation.

    G_a^T M_rod G_a splits into a point mass a at r_a on body A and c at r_b on body B (their
    C(r)^T C(r) blocks, since G = C(r) T R_d on the body's path); the forces G^T (w_rod - M_rod a0)
    are point forces at the ends. Of the coupling b (G_a^T G_b + G_b^T G_a), the entries of the coordinates
    on both paths (i, j on the path of the lowest common ancestor L of A and B) are
    b_i^T b (C(r_a)^T C(r_b) + C(r_b)^T C(r_a)) b_j, an inertia of the spatial form seeded into M^S_L, so
    that the assembly's M_ij = b_i^T M^S_max(i,j) b_j includes them; :func:`add_rods` adds the others.
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
            _add_point_mass(data.IS[A], ca, kin[0])
            add_point_force(data.QS[A], kin[0], fa)
        if B >= 0:
            _add_point_mass(data.IS[B], cc, kin[1])
            add_point_force(data.QS[B], kin[1], fb)
        p = model.rod_pair[q]
        if p >= 0 and model.pair_lca[p] >= 0:
            _add_rod_coupling(data.IS[model.pair_lca[p]], cb, kin[0], kin[1])


@njit(inline="always")
def accumulate(model, data):
    """Backward pass: M^S (data.IS), Q^S, P^S (subtree sums, docs/formulation.md §4), rods' end terms included."""
    n = model.n
    for i in range(n):
        for k in range(6):
            data.QS[i, k] = data.Qbar[i, k]
            data.PS[i, k] = data.Pbar[i, k]
        for k in range(10):
            data.IS[i, k] = data.Ibar[i, k]
    rod_body_terms(model, data)
    for i in range(n - 1, -1, -1):
        p = model.parent[i]
        if p >= 0:
            for k in range(6):
                data.QS[p, k] += data.QS[i, k]
                data.PS[p, k] += data.PS[i, k]
            for k in range(10):
                data.IS[p, k] += data.IS[i, k]


@njit(inline="always")
def assemble(model, data):
    """Open-loop M (n x n) and f (docs/formulation.md §4) plus joint forces and rotational elements.

    Only the entries of bodies on one path (i an ancestor of j or j itself) are written; the others
    are zero (make_data) except those of the rods' coupling, which :func:`add_rods` resets and adds.
    M_ij = b_i^T M^S_j b_j is component k of M^S_j b_j where b_i = {e_k; 0} (model.unit_axis: the leading
    coordinates of the path, a vehicle's chassis translations).
    """
    n = model.n
    M, b = data.M, data.b
    v = data.tmp6[0]
    for j in range(n):
        bj = b[j]
        inertia_times(data.IS[j], bj, v)          # v = M^S_j b_j
        pj = model.path[j]
        nu = model.unit_depth[j]
        for c in range(nu):
            i = pj[c]
            val = v[model.unit_axis[i]]
            M[i, j] = val
            M[j, i] = val
        for c in range(nu, model.depth[j]):
            i = pj[c]
            bi = b[i]
            val = bi[0] * v[0] + bi[1] * v[1] + bi[2] * v[2] + bi[3] * v[3] + bi[4] * v[4] + bi[5] * v[5]
            M[i, j] = val
            M[j, i] = val
        s = 0.0
        for l in range(6):
            s += bj[l] * (data.QS[j, l] - data.PS[j, l])
        data.f[j] = s + data.jforce[j]
    rotational_spring_dampers(model, data)


@njit(inline="always")
def add_rods(model, data):
    """Removed rods' coupling terms: M_ij += b (G_a,i . G_b,j) + b (G_a,j . G_b,i) (docs/formulation.md §6).

    With G = C(r) T R_d: b G_a,i . G_b,j = b_i^T K b_j, K = b C(r_a)^T C(r_b), summed per pair of bodies
    (i on the path of A, j on the path of B), except for i and j both on the common prefix of the two paths
    (model.pair_ncommon): those went into the accumulation as an inertia of the lowest common ancestor, as
    did the rest of G^T M_rod G and the rod forces (:func:`rod_body_terms`). For a vehicle's suspension
    rods the common prefix is the chassis coordinates, so each rod pair writes only its corner's rows.
    Since C(r_a)^T C(r_b) = [[I, -r_b~], [r_a~, (r_a . r_b) I - r_b r_a^T]], K is kept as the sums
    C = sum b, s_a = sum b r_a, s_b = sum b r_b and W = sum b ((r_a . r_b) I - r_b r_a^T) (data.Kp).
    """
    Kp = data.Kp
    for p in range(model.npair):
        for k in range(16):
            Kp[p, k] = 0.0
    for q in range(model.nrod):
        p = model.rod_pair[q]
        if p < 0:
            continue
        kin = data.rod_kin[q]
        c = model.rod_M[q, 1]           # the docstring's b (the end-mass coupling coefficient)
        ax, ay, az = kin[0, 0], kin[0, 1], kin[0, 2]
        bx, by, bz = kin[1, 0], kin[1, 1], kin[1, 2]
        K = Kp[p]
        K[0] += c                       # C = sum c
        K[1] += c * ax                  # s_a = sum c r_a
        K[2] += c * ay
        K[3] += c * az
        K[4] += c * bx                  # s_b = sum c r_b
        K[5] += c * by
        K[6] += c * bz
        d = ax * bx + ay * by + az * bz     # W = sum c ((r_a . r_b) I - r_b r_a^T), row by row
        K[7] += c * (d - bx * ax)
        K[8] -= c * bx * ay
        K[9] -= c * bx * az
        K[10] -= c * by * ax
        K[11] += c * (d - by * ay)
        K[12] -= c * by * az
        K[13] -= c * bz * ax
        K[14] -= c * bz * ay
        K[15] += c * (d - bz * az)
    for e in range(model.nrod_reset):   # entries off one path were written by the last call only: reset them
        i, j = model.rod_reset[e, 0], model.rod_reset[e, 1]
        data.M[i, j] = 0.0
        data.M[j, i] = 0.0
    for p in range(model.npair):
        A, B = model.pair_a[p], model.pair_b[p]
        K = Kp[p]
        C, sa0, sa1, sa2, sb0, sb1, sb2 = K[0], K[1], K[2], K[3], K[4], K[5], K[6]
        pa, na = model.path[A], model.depth[A]
        pb, nb = model.path[B], model.depth[B]
        nc = model.pair_ncommon[p]
        for cj in range(nb):
            j = pb[cj]
            bj = data.b[j]
            b0, b1, b2, b3, b4, b5 = bj[0], bj[1], bj[2], bj[3], bj[4], bj[5]
            # K b_j = [C v + w x s_b ; s_a x v + W w] for b_j = [v; w]: the products of K's non-zero
            # entries, in the order of the dense row (its zero products added nothing)
            v0 = C * b0 + sb2 * b4 - sb1 * b5
            v1 = C * b1 - sb2 * b3 + sb0 * b5
            v2 = C * b2 + sb1 * b3 - sb0 * b4
            u0 = -sa2 * b1 + sa1 * b2 + K[7] * b3 + K[8] * b4 + K[9] * b5
            u1 = sa2 * b0 - sa0 * b2 + K[10] * b3 + K[11] * b4 + K[12] * b5
            u2 = -sa1 * b0 + sa0 * b1 + K[13] * b3 + K[14] * b4 + K[15] * b5
            for ci in range(nc if cj < nc else 0, na):     # (i, j) not both on the common prefix
                i = pa[ci]
                bi = data.b[i]
                val = bi[0] * v0 + bi[1] * v1 + bi[2] * v2 + bi[3] * u0 + bi[4] * u1 + bi[5] * u2
                data.M[i, j] += val
                data.M[j, i] += val


@njit(inline="always")
def reduced_order(model, data):
    """The elimination order of the reduced system for the current partition: data.mr_order lists the
    independent coordinates (positions in data.indep) by model.elim_rank (tree postorder: the coordinates
    every path shares last), data.mr_pos is its inverse, data.mr_first[p] the first column q <= p of row p
    whose entry model.mr_coupled allows to be non-zero. Rebuilt only when data.indep differs from the
    partition it was built for (data.mr_indep), whoever changed it."""
    ni = model.ni
    same = True
    for a in range(ni):
        if data.mr_indep[a] != data.indep[a]:
            same = False
    if same:
        return
    order, rank, indep = data.mr_order, model.elim_rank, data.indep
    for a in range(ni):                 # insertion sort by rank
        p = a
        while p > 0 and rank[indep[order[p - 1]]] > rank[indep[a]]:
            order[p] = order[p - 1]
            p -= 1
        order[p] = a
    for p in range(ni):
        data.mr_pos[order[p]] = p
        k = indep[order[p]]
        q = 0
        while not model.mr_coupled[k, indep[order[q]]]:
            q += 1
        data.mr_first[p] = q
    for a in range(ni):
        data.mr_indep[a] = indep[a]


@njit(inline="always")
def solve_accelerations(model, data):
    """Reduced equations (eq. 10) -> zdd^i, zdd and the body accelerations dZ/dt. False if singular.

    Needs S (:func:`constraints.acceleration_bias`). Exploits the structure of R_z, S and M: S is zero on
    the independent coordinates, R_z|_i = I and R_z|_d is sparse (data.rz_rows), and a column of M is
    zero off its possibly non-zero rows (model.mcol_rows), so only non-zero entries enter the products
    (each sum still takes its terms in the order of the dense loops). Entries of R_z^T M R_z that are
    zero for every partition (model.mr_coupled: coordinates of two different suspension corners) are
    not computed, and the matrix is stored and factored in the elimination order of :func:`reduced_order`
    by an envelope Cholesky: with the shared (chassis) coordinates last it is arrow-shaped and factors
    without fill-in, at a cost linear in the number of corners.
    """
    n, m, ni = model.n, model.m, model.ni
    Rz, M, S, dep = data.Rz, data.M, data.S, data.dep
    mrows, mnrows = model.mcol_rows, model.mcol_nrows
    reduced_order(model, data)
    pos, coupled, indep, Mr = data.mr_pos, model.mr_coupled, data.indep, data.Mr
    # w = f - M S  (stored in zdd as scratch); S^i = 0, S^drv = zdd_drv
    w = data.zdd
    for i in range(n):
        w[i] = data.f[i]
    for c in range(m + model.ndrv):
        j = dep[c] if c < m else model.drv[c - m]
        sj = S[j]
        cr = mrows[j]
        for t in range(mnrows[j]):
            i = cr[t]
            w[i] -= M[i, j] * sj
    rows, nrows = data.rz_rows, data.rz_nrows
    for a in range(ni):
        s = 0.0
        for t in range(nrows[a]):
            i = rows[a, t]
            s += Rz[i, a] * w[i]
        data.fr[a] = s
    # Mr = Rz^T M Rz entry by entry over the non-zero rows of both columns of R_z (a unit column, a
    # coordinate that moves no loop, reads one column of M)
    for bcol in range(ni):
        kb, pb = indep[bcol], pos[bcol]
        if nrows[bcol] == 1:
            j = rows[bcol, 0]
            for a in range(bcol, ni):
                s = 0.0
                if coupled[indep[a], kb]:
                    for t in range(nrows[a]):
                        i = rows[a, t]
                        s += Rz[i, a] * M[i, j]
                Mr[pos[a], pb] = s
                Mr[pb, pos[a]] = s
            continue
        for a in range(bcol, ni):
            s = 0.0
            if coupled[indep[a], kb]:
                for t in range(nrows[a]):
                    i = rows[a, t]
                    c = 0.0
                    for u in range(nrows[bcol]):
                        j = rows[bcol, u]
                        c += M[i, j] * Rz[j, bcol]
                    s += Rz[i, a] * c
            Mr[pos[a], pb] = s
            Mr[pb, pos[a]] = s
    xr = data.xr
    for a in range(ni):
        xr[pos[a]] = data.fr[a]
    if not envelope_cholesky_solve(Mr, data.mr_first, xr):
        return False
    for a in range(ni):
        data.zddi[a] = xr[pos[a]]
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
def drive_forces(model, data):
    """Generalized force lambda_k [N | N m] that the prescription of each driven coordinate applies along
    it (data.drv_force; docs/formulation.md §13), from the solved accelerations:

        M zdd - f = Phi_z^T mu + E_drv lambda   =>   lambda = R_drv^T (M zdd - f)

    (R_drv^T annihilates Phi_z^T mu because Phi_z R_drv = 0, and R_drv|_drv = I). Only the non-zero rows
    of R_drv (data.rdrv_rows) and the possibly non-zero entries of M's rows (model.mcol_rows) enter. A column
    the evaluation left stale (its coordinate at rest) is built first, from the evaluation's own factors.
    """
    for k in range(model.ndrv):
        if data.rdrv_stale[k]:
            driven_column(model, data, k)
        rows = data.rdrv_rows[k]
        lam = 0.0
        for t in range(data.rdrv_nrows[k]):
            i = rows[t]
            r = -data.f[i]
            cr = model.mcol_rows[i]
            for u in range(model.mcol_nrows[i]):
                j = cr[u]
                r += data.M[i, j] * data.zdd[j]
            lam += data.Rdrv[i, k] * r
        data.drv_force[k] = lam


@njit(inline="always")
def forward_dynamics(model, data):
    """Forces, accumulation, assembly, rods and the closed-loop solve at the current state.

    Requires positions, velocities (kinematics + R_z) current, the caller's loads in
    data.Qext / data.jforce and the prescribed accelerations data.drv_zdd. Result in data.zdd,
    data.zddi and data.Zd. Returns False if the reduced mass matrix is not positive definite.
    The driving forces are a pass of their own (:func:`drive_forces`, after this one), run by a caller
    that needs them: a vehicle only for an output row, not in every derivative evaluation.
    """
    body_terms(model, data)
    spring_dampers(model, data)
    acceleration_bias(model, data)
    accumulate(model, data)
    assemble(model, data)
    add_rods(model, data)
    return solve_accelerations(model, data)
