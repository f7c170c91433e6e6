"""Small factorizations for the inner loop (matrices of order < 50, no allocation).

LAPACK through ``np.linalg`` allocates on every call inside numba; these in-place kernels keep the
derivative evaluation allocation-free. They are the textbook algorithms (Golub & Van Loan 3.4.1
partial-pivoting LU, 4.2.1 Cholesky; the envelope Cholesky of George & Liu 1981). Their use:
docs/formulation.md §8-§9.
"""
from __future__ import annotations

import math

from .jit import njit


@njit(inline="always")
def max_abs(err, a):
    """max(err, |a|) that keeps a NaN: a running maximum of residuals that a NaN entry makes NaN for good
    (Python's and numba's ``max(0.0, nan)`` return 0.0, so a blown-up state would look converged)."""
    a = abs(a)
    return a if a > err or a != a else err


@njit(cache=True)
def lu_factor(a, piv, beg, end):
    """In-place LU with partial pivoting of the block-diagonal square matrix ``a``: P a = L U (unit L below
    the diagonal, U on and above); piv[k] is the row swapped with row k at elimination step k.

    Row/column k lies in the diagonal block [beg[k], end[k]) (``beg``, ``end`` None: one dense block [0, n)).
    Pivots are searched within the block, so each block is factored on its own (a loop group of Phi_z^d,
    docs/formulation.md §8); entries outside the blocks are neither read nor written.
    Returns the ratio max|u_ii| / min|u_ii| (a cheap conditioning indicator), ``inf`` if singular.
    """
    n = a.shape[0]
    umax, umin = 0.0, math.inf
    for k in range(n):
        if beg is None:
            lo, hi = 0, n
        else:
            lo, hi = beg[k], end[k]
        p, big = k, abs(a[k, k])
        for i in range(k + 1, hi):
            if abs(a[i, k]) > big:
                p, big = i, abs(a[i, k])
        piv[k] = p
        if big == 0.0:
            return math.inf
        if p != k:
            for j in range(lo, hi):
                a[k, j], a[p, j] = a[p, j], a[k, j]
        inv = 1.0 / a[k, k]
        for i in range(k + 1, hi):
            a[i, k] *= inv
            lik = a[i, k]
            if lik != 0.0:
                for j in range(k + 1, hi):
                    a[i, j] -= lik * a[k, j]
        umax = max(umax, big)
        umin = min(umin, big)
    return umax / umin if n > 0 else 1.0


@njit(cache=True)
def lu_solve(lu, piv, beg, end, x, lo, hi):
    """Solve ``A x = b`` in place (``x`` holds b on entry) from :func:`lu_factor` output, for the rows
    lo..hi-1 (whole blocks; 0..n for the full system, beg[k]..end[k] for the block of k; ``beg``, ``end``
    None for a dense matrix, as factored)."""
    for k in range(lo, hi):
        p = piv[k]
        if p != k:
            x[k], x[p] = x[p], x[k]
    for i in range(lo, hi):
        s = x[i]
        for j in range(0 if beg is None else beg[i], i):
            s -= lu[i, j] * x[j]
        x[i] = s
    for i in range(hi - 1, lo - 1, -1):
        s = x[i]
        for j in range(i + 1, hi if end is None else end[i]):
            s -= lu[i, j] * x[j]
        x[i] = s / lu[i, i]


@njit(cache=True)
def envelope_cholesky_solve(a, first, x):
    """Solve ``A x = b`` for symmetric positive definite ``A`` in place, reading only the lower envelope
    of ``A``: row i from column first[i] (its first possibly non-zero entry) to the diagonal (``a`` is
    overwritten there by L; entries left of first[i] are never read).

    Cholesky keeps every row's fill-in inside its envelope (George & Liu 1981, "Computer Solution of Large
    Sparse Positive Definite Systems", §4.1), so each sum runs over k >= max(first[i], first[j]) only: the
    skipped products are exact zeros and the result equals the dense Cholesky's (first = 0) on the same matrix.
    An arrow-shaped matrix (blocks along the diagonal, dense last rows) factors without any fill-in.
    Returns False if ``A`` is not positive definite.
    """
    n = a.shape[0]
    for j in range(n):
        fj = first[j]
        s = a[j, j]
        for k in range(fj, j):
            s -= a[j, k] * a[j, k]
        if s <= 0.0:
            return False
        d = math.sqrt(s)
        a[j, j] = d
        for i in range(j + 1, n):
            fi = first[i]
            if fi > j:
                continue
            t = a[i, j]
            for k in range(max(fi, fj), j):
                t -= a[i, k] * a[j, k]
            a[i, j] = t / d
    for i in range(n):
        s = x[i]
        for k in range(first[i], i):
            s -= a[i, k] * x[k]
        x[i] = s / a[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, n):
            if first[k] <= i:
                s -= a[k, i] * x[k]
        x[i] = s / a[i, i]
    return True
