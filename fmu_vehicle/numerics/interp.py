"""Piecewise-linear 1-D table lookup of the compiled kernels: one bracketing search, two end behaviours.

A table is a non-decreasing array of abscissae x_0 <= ... <= x_{m-1} with values y_0 .. y_{m-1}.

* :func:`bracket` finds the segment: the binary search for lo with x_lo <= x < x_hi, hi = lo + 1 at the end
  (at repeated abscissae the search ends past them: the last entry of a repeated x counts).
* :func:`interp_held` (np.interp semantics): the end values are held outside the table,
      y(x) = y_0 for x < x_0,  y_{m-1} for x >= x_{m-1},  else  ((y_hi - y_lo) / (x_hi - x_lo)) (x - x_lo) + y_lo
  (the drive and brake torque tables of the single-wheel stepper, ``tire.stepper``).
* :func:`interp_extrapolated`: a sub-table (offset, count >= 2) of stacked tables, linear beyond its ends with
  the end segments' slopes,
      y(x) = y_j + ((x - x_j) / (x_{j+1} - x_j)) (y_{j+1} - y_j),
      j = first segment for x <= x_0, last segment for x >= x_{m-1}, else the bracketing one
  (the spring and damper characteristics of the multibody force elements, ``multibody.force_elements``).

The two evaluate the segment with different operations (slope times offset plus y_lo, against y_lo plus the
fraction times the rise): each keeps its own, so that each caller's results keep their bits. Inside the table
neither divides by zero (x_lo < x_hi); at the ends :func:`interp_extrapolated` uses the end segment as it is.

Only ``numerics.jit`` of the package is imported.
"""
from __future__ import annotations

from .jit import njit


@njit(inline="always")
def bracket(xs, lo, hi, x):
    """The index j in [lo, hi) with xs[j] <= x < xs[j + 1], given xs[lo] <= x < xs[hi] (binary search)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid
    return lo


@njit(inline="always")
def interp_held(xs, ys, x):
    """Table (xs non-decreasing, ys of the same length >= 1) at x, end values held (np.interp semantics:
    at repeated abscissae, the last entry)."""
    n = xs.shape[0]
    if x < xs[0]:
        return ys[0]
    if x >= xs[n - 1]:
        return ys[n - 1]
    lo = bracket(xs, 0, n - 1, x)
    hi = lo + 1
    slope = (ys[hi] - ys[lo]) / (xs[hi] - xs[lo])
    return slope * (x - xs[lo]) + ys[lo]


@njit(inline="always")
def interp_extrapolated(xs, ys, off, cnt, x):
    """The sub-table xs[off:off+cnt], ys[off:off+cnt] (cnt >= 2, xs non-decreasing) at x, extrapolated
    linearly with the end segments' slopes."""
    if x <= xs[off]:
        j = off
    elif x >= xs[off + cnt - 1]:
        j = off + cnt - 2
    else:
        j = bracket(xs, off, off + cnt - 1, x)
    t = (x - xs[j]) / (xs[j + 1] - xs[j])
    return ys[j] + t * (ys[j + 1] - ys[j])
