"""The coordinate partition: which coordinates are independent, compiled (docs/formulation.md §8).

The m dependent coordinates are those whose columns of the constraint Jacobian Phi_z (m x n) make the best
conditioned square block Phi_z^d. Two numerical tools, both written here without LAPACK so that a native
FMU (docs/native.md) makes the same choice as the Python simulator:

* a column-pivoted Householder QR factorization (Businger and Golub, 1965, "Linear least squares solutions
  by Householder transformations"): at step k the column of largest Euclidean norm over rows k..m-1 is
  moved to position k (the first on a tie) and reduced by a reflection; the first m pivot columns are the
  dependent coordinates;
* singular values by one-sided Jacobi rotations (Hestenes, 1958, "Inversion of matrices by
  biorthogonalization and related results"): pairs of columns are rotated until every pair is orthogonal to
  rounding; the column norms are then the singular values. They give the rank of Phi_z (redundant closure
  equations) and the 2-norm condition number kappa = sigma_max / sigma_min of a block Phi_z^d.

Each coordinate has a role (``model.coord_role``): free, preferred independent (the mechanism file's
``coordinates.independent``) or driven (neither dependent nor independent, docs/formulation.md §13). The
preferred coordinates stay independent while the block of the other columns chosen by the QR has
kappa <= ``PREFERRED_COND_FACTOR`` times the kappa of the QR choice among all columns; near a singular position
of the preferred partition (a rocker at its extreme) they are given up.

:func:`repartition` is the step a run takes when ``state.set_state`` reports ``STATUS_REPARTITION``: the
Python simulator (``Mechanism.repartition``, ``VehicleSystem.reparameterize``) and the native FMU's step call
this same kernel.
"""
from __future__ import annotations

import math

from ..numerics.jit import njit
from .constraints import clear_transform, factor_dependent
from .model import ROLE_DRIVEN, ROLE_PREFERRED
from .state import STATUS_SINGULAR, set_state

PREFERRED_COND_FACTOR = 10.0
"""Keep the preferred independent coordinates while kappa(Phi_z^d) <= this x the QR choice's."""

RANK_TOL = 1e-9
"""A singular value below this x the largest one counts as zero (redundant closure equations)."""

JACOBI_SWEEPS = 60
"""Sweeps of column-pair rotations at most (quadratic convergence: some 6-10 are used)."""

PARTITION_OK = 0
PARTITION_REDUNDANT = 1     # the closure equations are redundant: rank(Phi_z) < m
PARTITION_LOCKED = 2        # the driven coordinates lock the loops: rank(Phi_z) = m, but not without them


@njit(cache=True)
def singular_values(B, rows, cols, sv):
    """sv[:cols] = the singular values of B[:rows, :cols] (B is overwritten), by one-sided Jacobi rotations:
    for each column pair (p, q) with a = |b_p|^2, b = |b_q|^2, g = b_p . b_q, the rotation by the angle with
    zeta = (b - a) / (2 g), t = sign(zeta) / (|zeta| + sqrt(1 + zeta^2)), c = 1 / sqrt(1 + t^2), s = c t makes
    the pair orthogonal; sweeps repeat until no pair has |g| > 1e-15 sqrt(a b). Unsorted."""
    for _ in range(JACOBI_SWEEPS):
        rotated = False
        for p in range(cols - 1):
            for q in range(p + 1, cols):
                a = 0.0
                b = 0.0
                g = 0.0
                for i in range(rows):
                    a += B[i, p] * B[i, p]
                    b += B[i, q] * B[i, q]
                    g += B[i, p] * B[i, q]
                if not abs(g) > 1e-15 * math.sqrt(a * b):
                    continue
                rotated = True
                zeta = (b - a) / (2.0 * g)
                if abs(zeta) > 1e150:
                    t = 0.5 / zeta
                else:
                    t = math.copysign(1.0, zeta) / (abs(zeta) + math.sqrt(1.0 + zeta * zeta))
                c = 1.0 / math.sqrt(1.0 + t * t)
                s = c * t
                for i in range(rows):
                    x = B[i, p]
                    y = B[i, q]
                    B[i, p] = c * x - s * y
                    B[i, q] = s * x + c * y
        if not rotated:
            break
    for j in range(cols):
        a = 0.0
        for i in range(rows):
            a += B[i, j] * B[i, j]
        sv[j] = math.sqrt(a)


@njit(cache=True)
def _rank(phiz, roles, with_driven, B, sv):
    """Numerical rank of Phi_z's columns (the driven ones only if ``with_driven``): singular values of the
    transposed columns (rows of B) above RANK_TOL x the largest."""
    m, n = phiz.shape
    rows = 0
    for j in range(n):
        if roles[j] == ROLE_DRIVEN and not with_driven:
            continue
        for i in range(m):
            B[rows, i] = phiz[i, j]
        rows += 1
    singular_values(B, rows, m, sv)
    top = 0.0
    for i in range(m):
        top = max(top, sv[i])
    rank = 0
    for i in range(m):
        if sv[i] > RANK_TOL * max(top, 1e-300):
            rank += 1
    return rank


@njit(cache=True)
def pivoted_qr_columns(phiz, roles, skip_preferred, A, cols):
    """Column-pivoted Householder QR of Phi_z's candidate columns (not driven; not preferred if
    ``skip_preferred``) copied into A: cols[:k] receives their coordinate indices in pivot order, whose first
    m are the QR's dependent coordinates. Returns k, the number of candidates."""
    m, n = phiz.shape
    k = 0
    for j in range(n):
        if roles[j] == ROLE_DRIVEN or (skip_preferred and roles[j] == ROLE_PREFERRED):
            continue
        cols[k] = j
        for i in range(m):
            A[i, k] = phiz[i, j]
        k += 1
    for r in range(min(m, k)):
        best = -1.0
        p = r
        for j in range(r, k):                   # the largest remaining column norm (squared), first on a tie
            s = 0.0
            for i in range(r, m):
                s += A[i, j] * A[i, j]
            if s > best:
                best = s
                p = j
        if p != r:
            cols[r], cols[p] = cols[p], cols[r]
            for i in range(m):
                A[i, r], A[i, p] = A[i, p], A[i, r]
        sigma = 0.0
        for i in range(r + 1, m):
            sigma += A[i, r] * A[i, r]
        if sigma == 0.0:
            continue
        alpha = A[r, r]
        beta = -math.copysign(math.sqrt(alpha * alpha + sigma), alpha)
        v0 = alpha - beta                       # reflection H = I - tau v v^T, v = [1, A[r+1:, r] / v0]
        tau = (beta - alpha) / beta
        for i in range(r + 1, m):
            A[i, r] /= v0
        A[r, r] = beta
        for j in range(r + 1, k):
            w = A[r, j]
            for i in range(r + 1, m):
                w += A[i, r] * A[i, j]
            w *= tau
            A[r, j] -= w
            for i in range(r + 1, m):
                A[i, j] -= w * A[i, r]
    return k


@njit(cache=True)
def _block_cond(phiz, cols, B, sv):
    """kappa_2 of the square block of Phi_z with the columns cols[:m] (inf if singular)."""
    m = phiz.shape[0]
    for c in range(m):
        for i in range(m):
            B[i, c] = phiz[i, cols[c]]
    singular_values(B, m, m, sv)
    top = 0.0
    low = math.inf
    for i in range(m):
        top = max(top, sv[i])
        low = min(low, sv[i])
    return math.inf if low == 0.0 else top / low


@njit(cache=True)
def choose_dependent(phiz, roles, A, B, sv, cols, indep, dep):
    """The partition of the module docstring for Phi_z (m x n) and the coordinate roles: writes the independent
    (``indep``, ni) and dependent (``dep``, m) coordinates, each increasing. Scratch: A (m, n), B (n, m),
    sv (m,), cols (2, n) int64. Returns (status, rank): PARTITION_OK, or PARTITION_REDUNDANT /
    PARTITION_LOCKED with the rank of the non-driven columns (nothing written)."""
    m, n = phiz.shape
    use = 0
    driven = False
    preferred = False
    for j in range(n):
        driven = driven or roles[j] == ROLE_DRIVEN
        preferred = preferred or roles[j] == ROLE_PREFERRED
    if m > 0:
        rank = _rank(phiz, roles, False, B, sv)
        if rank < m:
            if driven and _rank(phiz, roles, True, B, sv) == m:
                return PARTITION_LOCKED, rank
            return PARTITION_REDUNDANT, rank
        pivoted_qr_columns(phiz, roles, False, A, cols[0])
        if preferred and pivoted_qr_columns(phiz, roles, True, A, cols[1]) >= m:
            if _block_cond(phiz, cols[1], B, sv) <= PREFERRED_COND_FACTOR * _block_cond(phiz, cols[0], B, sv):
                use = 1
    ki = 0
    kd = 0
    for j in range(n):                          # indep and dep in increasing order
        if roles[j] == ROLE_DRIVEN:
            continue
        dependent = False
        for c in range(m):
            dependent = dependent or cols[use, c] == j
        if dependent:
            dep[kd] = j
            kd += 1
        else:
            indep[ki] = j
            ki += 1
    return PARTITION_OK, m


@njit(cache=True)
def repartition(model, data, y, tol, maxit):
    """Choose new independent coordinates at the state y = [z^i, zd^i, ...] (the engine's slots first; any
    further slots are not touched): impose y (``state.set_state``), choose the partition at its Phi_z
    (:func:`choose_dependent`, data's scratch), factor the new Phi_z^d (its pivot ratio into data.stats[3],
    the reference of the next re-partition) and write y[:2 ni] = [z^i, zd^i] in the new coordinates.
    Returns 0, the position problem's failure status, or STATUS_SINGULAR if Phi_z lost rank."""
    st = set_state(model, data, y, tol, maxit)
    if st < 0:
        return st
    status, _ = choose_dependent(data.phiz, model.coord_role, data.part_a, data.part_b, data.part_sv,
                                 data.part_cols, data.indep, data.dep)
    if status != PARTITION_OK:
        return STATUS_SINGULAR
    if model.m > 0:
        data.stats[3] = factor_dependent(model, data)
    clear_transform(model, data)          # (R_z's columns belonged to the old independent coordinates)
    ni = model.ni
    for k in range(ni):
        y[k] = data.z[data.indep[k]]
        y[ni + k] = data.zd[data.indep[k]]
    return 0
