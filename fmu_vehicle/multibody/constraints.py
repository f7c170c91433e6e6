"""Loop closure, coordinate partitioning and the position/velocity problems (docs/formulation.md §5 and
§8-§10; eqs. 7-10 of Dai, Pan et al. (2022), "Real-Time Modeling of Vehicle's Longitudinal-Vertical
Dynamics in ADAS Applications").

Closure equations (rows of Phi):
    cut spherical joint (3 rows):  Phi = r_a - r_b,  Phi_z = G_a - G_b,  gam = a0_a - a0_b
    rod / distance (1 row), d = r_a - r_b:
        Phi = d.d - l^2,  Phi_z = 2 d^T (G_a - G_b),  gam = 2 |dd/dt|^2 + 2 d.(a0_a - a0_b)
where G = dr/dz is the point Jacobian, a0 the velocity-only point acceleration and gam = dPhi_z/dt zd.

Coordinate partitioning: z = (z^d, z^i) with Phi_z^d square and regular. Second velocity
transformation  zd = R_z zd^i,  R_z|_d = -(Phi_z^d)^-1 Phi_z^i,  R_z|_i = I  (eq. 8), and
zdd = R_z zdd^i + S  with  S|_i = 0,  Phi_z^d S|_d = -gam  (eq. 9; dR_z/dt is never formed).

Driven (prescribed) coordinates z_drv = s(t) (docs/formulation.md §13) are neither dependent nor
independent: zd = R_z zd^i + R_drv zd_drv with R_drv|_drv = I, R_drv|_d = -(Phi_z^d)^-1 Phi_z^drv, and
S|_drv = zdd_drv,  Phi_z^d S|_d = -(gam + Phi_z^drv zdd_drv).

Position problem: Newton-Raphson on z^d,  Phi_z^d dz^d = -Phi,  z^i and z_drv fixed, warm-started from the
previous solution. Velocity problem: the exact projection zd^d = R_z|_d zd^i + R_drv|_d zd_drv (no drift,
no Baumgarte).
"""
from __future__ import annotations

import math


from ..numerics.jit import njit

from .kinematics import end_points, forward_positions, point_accel0, point_jacobian_cols, point_position
from ..numerics.linalg import lu_factor, lu_solve, max_abs
from .model import COORD_ALL_GROUPS


@njit(inline="always")
def eval_constraints(model, data, with_bias):
    """Phi and Phi_z at the current positions; with ``with_bias`` also gam (needs velocities).

    Only the columns on the path of exactly one of a loop's two bodies (model.loop_cols) are written;
    the other entries of Phi_z are zero (make_data zeroes them and nothing else writes them). A common
    ancestor k of the two bodies moves the whole loop rigidly: its column is C(r_a) b_k - C(r_b) b_k =
    w_k x (r_b - r_a), zero at closure for a cut spherical joint (O(|Phi|) <= the position tolerance
    before), and 2 d . (w_k x (-d)) = 0 identically for a rod (rounding noise before).
    """
    Ga, Gb = data.Ga, data.Gb
    ra, rb = data.tmp[0], data.tmp[1]
    for s in range(model.nsph):
        A, B = model.sph_a[s], model.sph_b[s]
        cols, nc = model.loop_cols[s], model.loop_ncols[s]
        point_position(data, A, model.sph_pa[s], ra)
        point_position(data, B, model.sph_pb[s], rb)
        point_jacobian_cols(model, data, A, ra, Ga, cols, nc)
        point_jacobian_cols(model, data, B, rb, Gb, cols, nc)
        for k in range(3):
            row = 3 * s + k
            data.phi[row] = ra[k] - rb[k]
            for c in range(nc):
                j = cols[c]
                data.phiz[row, j] = Ga[k, j] - Gb[k, j]
    base = 3 * model.nsph
    for q in range(model.nrod):
        A, B = model.rod_a[q], model.rod_b[q]
        cols, nc = model.loop_cols[model.nsph + q], model.loop_ncols[model.nsph + q]
        point_position(data, A, model.rod_pa[q], ra)
        point_position(data, B, model.rod_pb[q], rb)
        point_jacobian_cols(model, data, A, ra, Ga, cols, nc)
        point_jacobian_cols(model, data, B, rb, Gb, cols, nc)
        d0, d1, d2 = ra[0] - rb[0], ra[1] - rb[1], ra[2] - rb[2]
        row = base + q
        L = model.rod_len[q]
        data.phi[row] = d0 * d0 + d1 * d1 + d2 * d2 - L * L
        for c in range(nc):
            j = cols[c]
            data.phiz[row, j] = 2.0 * (d0 * (Ga[0, j] - Gb[0, j]) + d1 * (Ga[1, j] - Gb[1, j])
                                       + d2 * (Ga[2, j] - Gb[2, j]))
    if with_bias:
        eval_bias(model, data)


@njit(inline="always")
def eval_bias(model, data):
    """gam = dPhi_z/dt zd at the current positions and velocities (no Jacobians).

    Also stores the rod end points' positions, velocities and velocity-only accelerations in
    data.rod_kin for :func:`dynamics.add_rods`.
    """
    ra, rb, va, vb, aa, ab = data.tmp[0], data.tmp[1], data.tmp[2], data.tmp[3], data.tmp[4], data.tmp[5]
    for s in range(model.nsph):
        A, B = model.sph_a[s], model.sph_b[s]
        end_points(data, A, model.sph_pa[s], B, model.sph_pb[s], ra, rb, va, vb)
        point_accel0(data, A, ra, va, aa)
        point_accel0(data, B, rb, vb, ab)
        for k in range(3):
            data.gam[3 * s + k] = aa[k] - ab[k]
    base = 3 * model.nsph
    for q in range(model.nrod):
        A, B = model.rod_a[q], model.rod_b[q]
        kin = data.rod_kin[q]
        ra, rb, va, vb, aa, ab = kin[0], kin[1], kin[2], kin[3], kin[4], kin[5]
        end_points(data, A, model.rod_pa[q], B, model.rod_pb[q], ra, rb, va, vb)
        point_accel0(data, A, ra, va, aa)
        point_accel0(data, B, rb, vb, ab)
        d0, d1, d2 = ra[0] - rb[0], ra[1] - rb[1], ra[2] - rb[2]
        w0, w1, w2 = va[0] - vb[0], va[1] - vb[1], va[2] - vb[2]
        data.gam[base + q] = 2.0 * (w0 * w0 + w1 * w1 + w2 * w2) + 2.0 * (
            d0 * (aa[0] - ab[0]) + d1 * (aa[1] - ab[1]) + d2 * (aa[2] - ab[2]))


@njit(inline="always")
def factor_dependent(model, data):
    """LU-factor Phi_z^d into data.lu/piv block by block; returns the pivot ratio (inf if singular).

    Loop group g (:func:`topology._loop_groups`) has the LU rows model.group_beg[g]..group_beg[g+1]-1;
    its dependent coordinates (those among its columns, in increasing order) become the same LU columns
    (data.lu_dep). A dependent coordinate in no group, or more of them in a group than it has rows,
    makes Phi_z^d singular.
    """
    m = model.m
    fill = data.group_fill
    for g in range(model.ngroup):
        fill[g] = model.group_beg[g]
    for c in range(m):
        d = data.dep[c]
        g = model.coord_group[d]
        if g < 0 or fill[g] == model.group_beg[g + 1]:
            data.stats[2] = math.inf
            return math.inf
        data.lu_dep[fill[g]] = d
        fill[g] += 1
    for k in range(m):
        r = model.lu_row[k]
        for c in range(model.lu_beg[k], model.lu_end[k]):
            data.lu[k, c] = data.phiz[r, data.lu_dep[c]]
    ratio = lu_factor(data.lu, data.piv, model.lu_beg, model.lu_end)
    data.stats[2] = ratio
    return ratio


#: Floor of the position tolerance in units of the rounding of the body positions: a cut-joint residual
#: r_a - r_b cannot be resolved finer than about one ulp of |r| (1.2e-10 m at 1000 km).
POSITION_ULPS = 64.0
EPS = 2.220446049250313e-16


@njit(inline="always")
def position_scale(model, data):
    """max |o_i| over the body origins [m]: the magnitude the closure residuals are rounded at."""
    s = 0.0
    for i in range(model.n):
        for k in range(3):
            s = max(s, abs(data.o[i, k]))
    return s


@njit(inline="always")
def solve_positions(model, data, tol, maxit):
    """Newton-Raphson on the dependent coordinates until max|Phi| <= max(tol, POSITION_ULPS eps |o|max).

    The floor keeps the tolerance above floating-point resolution at any distance from the origin
    (an absolute 1e-12 m is finer than the spacing of doubles beyond about 2 km). Leaves positions,
    screws and Phi_z current. Returns the number of iterations, -1 on failure (no convergence or
    singular Phi_z^d).
    """
    m = model.m
    x = data.wm
    for it in range(maxit + 1):
        forward_positions(model, data)
        if m == 0:
            data.stats[0], data.stats[1] = 0.0, 0.0
            return 0
        eval_constraints(model, data, False)
        err = 0.0
        for r in range(m):
            err = max_abs(err, data.phi[r])
        data.stats[0], data.stats[1] = it, err
        if err <= tol or err <= POSITION_ULPS * EPS * position_scale(model, data):
            return it
        if it == maxit or err != err:
            break
        if math.isinf(factor_dependent(model, data)):
            return -1
        for k in range(m):
            x[k] = -data.phi[model.lu_row[k]]
        lu_solve(data.lu, data.piv, model.lu_beg, model.lu_end, x, 0, m)
        for c in range(m):
            data.z[data.lu_dep[c]] += x[c]
    return -1


@njit(inline="always")
def _transform_column(model, data, R, j, col, rows):
    """Column ``col`` of a velocity transformation for the coordinate j (independent or driven):
    R[j, col] = 1, R|_d = -(Phi_z^d)^-1 Phi_z[:, j] (block of j's loop group only), other rows left as
    they are; adds R|_d zd_j to the dependent velocities. Lists the non-zero rows in ``rows``
    (j first, then the dependent rows in LU order) and returns their count. The caller has zeroed the
    rows this column listed before (the column's only non-zero entries, whatever the partition)."""
    x = data.wm
    R[j, col] = 1.0
    rows[0] = j
    cnt = 1
    g = model.coord_group[j]
    if g == COORD_ALL_GROUPS:                    # a driven coordinate: every group's block
        g0, g1 = 0, model.ngroup
    elif g >= 0:
        g0, g1 = g, g + 1
    else:
        g0, g1 = 0, 0
    for gg in range(g0, g1):
        lo, hi = model.group_beg[gg], model.group_beg[gg + 1]
        nonzero = False
        for k in range(lo, hi):
            x[k] = -data.phiz[model.lu_row[k], j]
            nonzero = nonzero or x[k] != 0.0
        if not nonzero:                          # a group the coordinate does not move (a driven coordinate's
            continue                             # column spans every group): its block of R is zero
        lu_solve(data.lu, data.piv, model.lu_beg, model.lu_end, x, lo, hi)
        zdj = data.zd[j]
        for c in range(lo, hi):
            if x[c] != 0.0:
                d = data.lu_dep[c]
                R[d, col] = x[c]
                data.zd[d] += x[c] * zdj
                rows[cnt] = d
                cnt += 1
    return cnt


@njit(inline="always")
def _clear_column(R, col, rows, nrows):
    """Zero the entries rows[:nrows] of column ``col`` of R: the rows the last :func:`_transform_column` of
    this column listed, its only non-zero entries (R starts zero). Clearing these instead of every
    independent and dependent row keeps R whole under a new partition at a fraction of the stores."""
    for t in range(nrows):
        R[rows[t], col] = 0.0


@njit(inline="always")
def driven_column(model, data, k):
    """Column k of R_drv (data.Rdrv, rdrv_rows, rdrv_nrows) from the Phi_z and LU factors the workspace holds,
    R_drv|_d zd_drv added to the dependent velocities; marks it current (data.rdrv_stale[k] = 0)."""
    _clear_column(data.Rdrv, k, data.rdrv_rows[k], data.rdrv_nrows[k])
    data.rdrv_nrows[k] = _transform_column(model, data, data.Rdrv, model.drv[k], k, data.rdrv_rows[k])
    data.rdrv_stale[k] = 0


@njit(inline="always")
def _drop_column(data, k):
    """Zero column k of R_drv and its row list (as a new workspace has it) and mark it current."""
    _clear_column(data.Rdrv, k, data.rdrv_rows[k], data.rdrv_nrows[k])
    data.rdrv_nrows[k] = 0
    data.rdrv_stale[k] = 0


@njit(inline="always")
def velocity_transform(model, data):
    """R_z (eq. 8) from the current Phi_z and the dependent velocities
    zd^d = R_z|_d zd^i + R_drv|_d zd_drv (docs/formulation.md §13; data.zd of the independent and driven
    coordinates must be set).

    Returns False if Phi_z^d is singular. Column j of R_z|_d solves the block of the loop group of
    the independent coordinate j only (its column of Phi_z vanishes outside the group's rows); a
    coordinate in no group (e.g. of the chassis) moves no loop: zero column of Phi_z and of R_z|_d.
    Also lists the rows of the non-zero entries of every column of R_z (data.rz_rows/rz_nrows: the
    independent row first, then the dependent rows in LU order).

    The driven coordinates' columns R_drv are built the same way (:func:`driven_column`), but only for a
    driven coordinate that moves (zd_drv != 0): one at rest adds nothing to the velocities, and its column is
    otherwise read only by the next Newton start if the coordinate then moves (``state.predict_dependent``
    builds it first, at the configuration this call saw) and by ``dynamics.drive_forces`` (which builds it
    from the factors this call leaves). Until then it is marked stale (data.rdrv_stale). A vehicle driving
    straight (the steering rack held) so skips the rack's column: one block solve per steered corner.
    """
    m, ni = model.m, model.ni
    Rz, indep, dep = data.Rz, data.indep, data.dep
    if m > 0 and math.isinf(factor_dependent(model, data)):
        for k in range(model.ndrv):              # (the configuration a stale column belonged to is gone)
            if data.rdrv_stale[k]:
                _drop_column(data, k)
        return False
    for c in range(m):
        data.zd[dep[c]] = 0.0
    for j in range(ni):
        _clear_column(Rz, j, data.rz_rows[j], data.rz_nrows[j])
        data.rz_nrows[j] = _transform_column(model, data, Rz, indep[j], j, data.rz_rows[j])
    for k in range(model.ndrv):
        if data.zd[model.drv[k]] == 0.0:
            data.rdrv_stale[k] = 1
        else:
            driven_column(model, data, k)
    return True


@njit(inline="always")
def clear_transform(model, data):
    """Zero R_z, R_drv, their row lists and S, as a new workspace has them: for a workspace whose coordinates
    or partition were set from outside an evaluation, so that the next Newton start
    (``state.predict_dependent``) does not extrapolate with a transformation of another configuration."""
    for j in range(model.ni):
        _clear_column(data.Rz, j, data.rz_rows[j], data.rz_nrows[j])
        data.rz_nrows[j] = 0
    for k in range(model.ndrv):
        _drop_column(data, k)
    for i in range(model.n):
        data.S[i] = 0.0


@njit(inline="always")
def acceleration_bias(model, data):
    """S from Phi_z^d S^d = -(gam + Phi_z^drv zdd_drv), S^i = 0, S^drv = zdd_drv (uses the LU from
    velocity_transform): zdd = R_z zdd^i + S. Without driven coordinates S = dR_z/dt zd^i.

    Phi_z is current from the position problem, so only gam is evaluated (:func:`eval_bias`); the
    prescribed accelerations are data.drv_zdd.
    """
    m = model.m
    for i in range(model.n):
        data.S[i] = 0.0
    for k in range(model.ndrv):
        data.S[model.drv[k]] = data.drv_zdd[k]
    if m == 0:
        return
    eval_bias(model, data)
    x = data.wm
    for k in range(m):
        r = model.lu_row[k]
        s = -data.gam[r]
        for c in range(model.ndrv):
            s -= data.phiz[r, model.drv[c]] * data.drv_zdd[c]
        x[k] = s
    lu_solve(data.lu, data.piv, model.lu_beg, model.lu_end, x, 0, m)
    for c in range(m):
        data.S[data.lu_dep[c]] = x[c]
