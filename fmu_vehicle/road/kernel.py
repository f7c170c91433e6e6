"""njit road kernels: height, slopes and friction of any compiled road at one position (hot path).

The vehicle's derivative evaluation calls ``road_eval_xy`` (or, for a model that only knows the position
along the road, ``road_eval``) once per wheel and step with the road as one record, a ``RoadArrays`` (see
``arrays.py`` for the kind codes and the layout of the fields). Flat and slope roads are evaluated in
closed form; tabulated roads by an O(1) lookup on their uniform grid: 1-D tables (ny == 1) interpolate h
and dh/dx linearly and separately, 2-D tables (ny >= 2) interpolate h, dh/dx and dh/dy bilinearly and
separately; outside the grid the edge is held (zero slope along the coordinate that lies outside).
Friction comes from the road's params, or from its friction cells where it has them (split friction).
The same code runs uncompiled with NUMBA_DISABLE_JIT=1.

    road_eval_xy(road, x, y, out)   out[0] = h [m], out[1] = dh/dx, out[2] = mu, out[3] = dh/dy
    road_eval(road, x, out)         out[0:3] of road_eval_xy at y = 0 (the reference track); out[3] untouched

See docs/road.md §1.
"""
from __future__ import annotations

import math

from ..numerics.jit import njit

from .arrays import KIND_FLAT, KIND_SLOPE, KIND_TABLE


@njit
def _axis(u, n):
    """(i0, i1, f, outside) of grid coordinate u on nodes 0..n-1 (n >= 2, u not NaN): the value is
    v[i0] + f (v[i1] - v[i0]); outside [0, n-1] both indices are the edge node, f = 0 and outside = True."""
    if u < 0.0:
        return 0, 0, 0.0, True
    if u > n - 1:
        return n - 1, n - 1, 0.0, True
    i = int(u)
    if i > n - 2:
        i = n - 2
    return i, i + 1, u - i, False


@njit
def _bilinear(table, ny, i0, i1, fx, j0, j1, fy):
    """Bilinear interpolation of table (row-major, node (i, j) at i*ny + j): first along y, then along x."""
    a0 = table[i0 * ny + j0]
    a1 = table[i1 * ny + j0]
    v0 = a0 + fy * (table[i0 * ny + j1] - a0)
    v1 = a1 + fy * (table[i1 * ny + j1] - a1)
    return v0 + fx * (v1 - v0)


@njit
def road_surface(road, x, y, out):
    """Height and slopes of ``road`` at (x, y) [m]: out[0] = h [m], out[1] = dh/dx [-]; returns dh/dy [-].

    Roads with ny == 1 ignore y (dh/dy = 0). A NaN x (or, for ny >= 2, a NaN y) gives NaN height and slopes.
    An unknown kind raises ValueError.
    """
    kind, params = road.kind, road.params
    if kind == KIND_FLAT:
        out[0] = params[0]
        out[1] = 0.0
        return 0.0
    if kind == KIND_SLOPE:
        u = x - params[1]
        if u < 0.0 and params[3] != 0.0:
            out[0] = params[4]
            out[1] = 0.0
        else:
            out[0] = params[4] + u * params[0]
            out[1] = params[0]
        return 0.0
    if kind != KIND_TABLE:
        raise ValueError("road_eval: unknown road kind")
    h_table, s_table = road.h_table, road.s_table
    ny = road.ny
    if ny == 1:
        n = h_table.shape[0]
        u = (x - road.x0) / road.dx
        if u != u:
            out[0] = math.nan
            out[1] = math.nan
        elif u < 0.0:
            out[0] = h_table[0]
            out[1] = 0.0
        elif u > n - 1:
            out[0] = h_table[n - 1]
            out[1] = 0.0
        else:
            i = int(u)
            if i > n - 2:
                i = n - 2
            f = u - i
            out[0] = h_table[i] + f * (h_table[i + 1] - h_table[i])
            out[1] = s_table[i] + f * (s_table[i + 1] - s_table[i])
        return 0.0
    u = (x - road.x0) / road.dx
    w = (y - road.y0) / road.dy
    if u != u or w != w:
        out[0] = math.nan
        out[1] = math.nan
        return math.nan
    i0, i1, fx, out_x = _axis(u, h_table.shape[0] // ny)
    j0, j1, fy, out_y = _axis(w, ny)
    out[0] = _bilinear(h_table, ny, i0, i1, fx, j0, j1, fy)
    out[1] = 0.0 if out_x else _bilinear(s_table, ny, i0, i1, fx, j0, j1, fy)
    return 0.0 if out_y else _bilinear(road.t_table, ny, i0, i1, fx, j0, j1, fy)


@njit
def _cell(u, n):
    """Cell index floor(u) clamped to 0..n-1 (u not NaN)."""
    if u < 0.0:
        return 0
    if u >= n - 1:
        return n - 1
    return int(u)


@njit
def road_friction(road, x, y):
    """Friction coefficient mu [-] of ``road`` at (x, y) [m]: from its friction cells if it has any (NaN for
    a NaN x or y there), else the constant of its params."""
    grid = road.mu_grid
    if grid.shape[0] == 0:
        kind = road.kind
        if kind == KIND_FLAT:
            return road.params[1]
        if kind == KIND_SLOPE:
            return road.params[2]
        return road.params[0]
    u = (x - grid[0]) / grid[1]
    w = (y - grid[3]) / grid[4]
    if u != u or w != w:
        return math.nan
    ny = int(grid[5])
    return road.mu_table[_cell(u, int(grid[2])) * ny + _cell(w, ny)]


@njit
def road_eval_xy(road, x, y, out):
    """Road state at the global position (x, y) [m] (ISO 8855: x forward, y left), written into ``out``.

    Parameters:
        road   a RoadArrays (the compiled road record)
        x, y   global position [m]
        out    float64[>=4], overwritten: out[0] = h [m], out[1] = dh/dx [-], out[2] = mu [-], out[3] = dh/dy [-]

    The unit normal is n = (-dh/dx, -dh/dy, 1) / sqrt(1 + (dh/dx)^2 + (dh/dy)^2) (``road_normal_xy``).
    A NaN position gives NaN height and slopes. An unknown kind raises ValueError.
    """
    out[3] = road_surface(road, x, y, out)
    out[2] = road_friction(road, x, y)


@njit
def road_eval(road, x, out):
    """Road state along the reference track: ``road_eval_xy`` at (x, 0) [m] without dh/dy.

    Parameters:
        road   a RoadArrays (the compiled road record)
        x      position along the road [m]
        out    float64[>=3], overwritten: out[0] = h [m], out[1] = dh/dx [-], out[2] = mu [-]

    For roads that do not depend on y (ny == 1 and no friction cells) this is the road itself. A NaN x gives
    NaN height and slope. An unknown kind raises ValueError.
    """
    road_surface(road, x, 0.0, out)
    out[2] = road_friction(road, x, 0.0)


@njit
def road_eval_points(road, xs, out):
    """``road_eval`` at every xs[k] [m]; out[k, 0:3] = (h [m], dh/dx [-], mu [-]), out shape (len(xs), >=3)."""
    for k in range(xs.shape[0]):
        road_eval(road, xs[k], out[k])


@njit
def road_eval_xy_points(road, xs, ys, out):
    """``road_eval_xy`` at every (xs[k], ys[k]) [m]; out[k, 0:4] = (h [m], dh/dx, mu, dh/dy), out shape (len(xs), >=4)."""
    for k in range(xs.shape[0]):
        road_eval_xy(road, xs[k], ys[k], out[k])


@njit
def road_normal(slope, out):
    """Unit road normal for slope dh/dx [-]: out[0:3] = (-s, 0, 1) / sqrt(1 + s^2) (global frame, z up)."""
    inv = 1.0 / math.sqrt(1.0 + slope * slope)
    out[0] = -slope * inv
    out[1] = 0.0
    out[2] = inv


@njit
def road_normal_xy(slope_x, slope_y, out):
    """Unit road normal for slopes dh/dx, dh/dy [-]: out[0:3] = (-sx, -sy, 1) / sqrt(1 + sx^2 + sy^2)."""
    inv = 1.0 / math.sqrt(1.0 + slope_x * slope_x + slope_y * slope_y)
    out[0] = -slope_x * inv
    out[1] = -slope_y * inv
    out[2] = inv


@njit
def break_switch(breaks, x, family, families):
    """Switching function at x [m] of one family of the slope breaks b_0 < ... < b_m-1 [m]
    (``road.arrays.slope_breaks``): the breaks b_i with i mod ``families`` == ``family``. With k the number of
    them <= x (binary search) and p, q the last of them <= x and the first > x,

        g(x) = (-1)^k min(x - p, q - x)      (a missing p or q is left out; 1.0 without any)

    g is continuous, changes sign at every break of the family and nowhere else, and is the signed
    distance [m] to the family's nearest break (a secant on it is exact while x moves linearly). Two breaks
    of one family passed within one step leave its sign unchanged; the families interleave so that
    the two ends of a jump cell (consecutive breaks) fall in different families."""
    m = breaks.shape[0]
    lo, hi = 0, m                     # lo = #{b_i <= x}
    while lo < hi:
        mid = (lo + hi) // 2
        if breaks[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    k = (lo - family + families - 1) // families if lo > family else 0
    prev = family + (k - 1) * families
    nxt = family + k * families
    if k == 0 and nxt >= m:
        return 1.0
    if k == 0:
        d = breaks[nxt] - x
    elif nxt >= m:
        d = x - breaks[prev]
    else:
        d = min(x - breaks[prev], breaks[nxt] - x)
    return d if k % 2 == 0 else -d
