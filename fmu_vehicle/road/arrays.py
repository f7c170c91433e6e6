"""Compiled form of a road (``RoadArrays``), its kind codes and the vectorised NumPy table lookups.

Every road compiles to one record type, the ``RoadArrays`` the njit kernels ``kernel.road_eval`` and
``kernel.road_eval_xy`` take (one record type for every road, so compiled callers never depend on which
road is loaded):

    kind      int          KIND_FLAT, KIND_SLOPE or KIND_TABLE
    params    float64[:]   per-kind constants (see below)
    x0        float [m]    first table node along x (tabulated roads; 0.0 otherwise)
    dx        float [m]    uniform node spacing along x (tabulated roads; 1.0 otherwise)
    h_table   float64[:]   height at the nodes [m] (empty for analytic roads), row-major: node
                           (x0 + i*dx, y0 + j*dy) at index i*ny + j
    s_table   float64[:]   slope dh/dx at the nodes [-] (same layout)
    y0        float [m]    first table node along y (0.0 for 1-D roads)
    dy        float [m]    uniform node spacing along y (1.0 for 1-D roads)
    ny        int          nodes along y: 1 for roads that do not depend on y (every analytic road and
                           the 1-D tables), >= 2 for surfaces h(x, y)
    t_table   float64[:]   slope dh/dy at the nodes [-] (same layout; empty when ny == 1)
    mu_grid   float64[:]   friction cells [mu_x0, mu_dx, mu_nx, mu_y0, mu_dy, mu_ny] (empty: the road has
                           the one friction coefficient of its params)
    mu_table  float64[:]   friction mu [-] of cell (i, j) at index i*mu_ny + j (empty without cells)

params by kind:

    KIND_FLAT   [height_m, mu]
    KIND_SLOPE  [tan(angle), start_x_m, mu, flat_before_start (1.0/0.0), height_at_start_m]
                h = height_at_start_m + (x - start_x_m) tan(angle); before start_x_m with flat_before_start
                the road is level at height_at_start_m
    KIND_TABLE  [mu]

1-D tables (ny == 1) interpolate h and s linearly and separately inside [x0, x0 + (nx-1)*dx]; outside that
range they hold the end height with zero slope. 2-D tables (ny >= 2) interpolate h, s = dh/dx and
t = dh/dy bilinearly and separately between the four nodes around (x, y) (node slopes are tabulated, not
differentiated from the interpolated heights); outside the grid they hold the edge: the coordinate that
lies outside is clamped to the grid, and the slope along it is zero.

Friction cells are piecewise constant: cell i covers [mu_x0 + i*mu_dx, mu_x0 + (i+1)*mu_dx) (the first and
last cells extend to -inf and +inf), likewise along y; a split-friction road has one cell along x and two
along y with the boundary at mu_y0 + mu_dy.

Slope breaks. A table resolves a jump of the slope to one cell: its slope, interpolated linearly between
the nodes, changes by the whole jump across that cell (the edge of a speed bump in its 2 mm table), and
the interpolated height kinks at a node next to it. The derivative of a vehicle on the road is smooth
between nodes, so the breaks are nodes: those where the tabulated slope changes by more than the
threshold across a neighbouring cell (both ends of a jump cell), or where the slope of the interpolated
height changes by more than it, and a table's end nodes where either jumps to the zero slope held
outside; and the start of a slope road that is level before it. For a 2-D table a node counts when any of
its y rows does (the positions are along x only).

See docs/road.md §1.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

KIND_FLAT = 0
KIND_SLOPE = 1
KIND_TABLE = 2

ANALYTIC_PARAMS = {KIND_FLAT: 2, KIND_SLOPE: 5}
"""Length of params of each analytic kind."""

SLOPE_BREAK_MIN = 0.1
"""Slope change [-] above which ``slope_breaks`` reports a break: a bump edge of the paper's road jumps by
0.51, while its arc changes the slope by at most 0.005 per 2 mm cell."""

MAX_TABLE_POINTS = 5_000_000
"""Largest table a road may build (two float64 arrays of this length are 80 MB)."""


class RoadArrays(NamedTuple):
    """A road as one record of plain arrays for ``road_eval(road, x, out)`` and ``road_eval_xy(road, x, y, out)``;
    fields as in the module docstring. Build it with the functions of this module (every field always has
    the same type: Python int/float scalars, writable C-contiguous float64 vectors)."""

    kind: int
    params: np.ndarray
    x0: float
    dx: float
    h_table: np.ndarray
    s_table: np.ndarray
    y0: float
    dy: float
    ny: int
    t_table: np.ndarray
    mu_grid: np.ndarray
    mu_table: np.ndarray


def _empty() -> np.ndarray:
    return np.zeros(0, dtype=np.float64)


def _vector(values) -> np.ndarray:
    """A writable, C-contiguous float64 copy of ``values`` flattened row-major."""
    return np.array(values, dtype=np.float64, order="C").reshape(-1)


def analytic_arrays(kind: int, params) -> RoadArrays:
    """RoadArrays of an analytic road: empty tables, x0 = 0 m, dx = 1 m (unused), ny = 1.

    Raises ValueError when params does not have its kind's length (see the module docstring).
    """
    values = np.array(params, dtype=np.float64)
    expected = ANALYTIC_PARAMS.get(int(kind))
    if expected is not None and values.shape != (expected,):
        raise ValueError(f"analytic_arrays: kind {int(kind)} takes {expected} params, got shape {values.shape}")
    return RoadArrays(int(kind), values, 0.0, 1.0, _empty(), _empty(), 0.0, 1.0, 1, _empty(), _empty(), _empty())


def plane_arrays(x_m: float = 0.0, height_m: float = 0.0, slope: float = 0.0, mu: float = 1.0) -> RoadArrays:
    """RoadArrays of the plane through (x_m, height_m) [m] with grade slope = dh/dx [-] and friction mu [-]:
    h(x) = height_m + slope (x - x_m) for every x (a KIND_SLOPE road without a level part)."""
    return analytic_arrays(KIND_SLOPE, [slope, x_m, mu, 0.0, height_m])


def set_plane(road: RoadArrays, x_m: float, height_m: float, slope: float, mu: float) -> None:
    """Move a ``plane_arrays`` road in place (its params array; no allocation): same meaning as plane_arrays."""
    params = road.params
    params[0] = slope
    params[1] = x_m
    params[2] = mu
    params[4] = height_m


def table_arrays(mu: float, x0: float, dx: float, h_table, s_table) -> RoadArrays:
    """RoadArrays of a 1-D tabulated road h(x) (contiguous float64 copies of the tables), ny = 1."""
    h = np.ascontiguousarray(h_table, dtype=np.float64).copy()
    s = np.ascontiguousarray(s_table, dtype=np.float64).copy()
    return RoadArrays(KIND_TABLE, np.array([mu], dtype=np.float64), float(x0), float(dx), h, s,
                      0.0, 1.0, 1, _empty(), _empty(), _empty())


def grid_arrays(mu: float, x0: float, dx: float, y0: float, dy: float, h_grid, s_grid, t_grid) -> RoadArrays:
    """RoadArrays of a surface h(x, y) tabulated on a uniform grid.

    Parameters:
        mu              friction coefficient [-]
        x0, dx          first x node and spacing [m]
        y0, dy          first y node and spacing [m]
        h_grid          heights [m], shape (nx, ny) with nx >= 2, ny >= 2: node (x0 + i*dx, y0 + j*dy) at [i, j]
        s_grid, t_grid  slopes dh/dx and dh/dy [-] at the nodes, same shape

    Raises ValueError for shapes that do not fit.
    """
    h = np.asarray(h_grid, dtype=np.float64)
    if h.ndim != 2 or h.shape[0] < 2 or h.shape[1] < 2:
        raise ValueError(f"grid_arrays: h_grid must have shape (nx >= 2, ny >= 2), got {h.shape}")
    for name, table in (("s_grid", s_grid), ("t_grid", t_grid)):
        if np.shape(table) != h.shape:
            raise ValueError(f"grid_arrays: {name} has shape {np.shape(table)}, h_grid {h.shape}")
    return RoadArrays(KIND_TABLE, np.array([mu], dtype=np.float64), float(x0), float(dx), _vector(h),
                      _vector(s_grid), float(y0), float(dy), int(h.shape[1]), _vector(t_grid), _empty(), _empty())


def table_breaks(s_table, ny: int, x0: float, dx: float, threshold: float = SLOPE_BREAK_MIN,
                 h_table=None) -> np.ndarray:
    """Sorted x [m] of the slope breaks of a table (module docstring): the nodes x0 + i dx at which the
    tabulated slope s or the slope of the interpolated height, (h[i+1] - h[i]) / dx, changes by more than
    ``threshold`` from one cell to the next in some row j (outside the table both slopes are 0).

    Parameters:
        s_table    slopes dh/dx [-] at the nodes, row-major (node (i, j) at i*ny + j)
        ny         nodes along y (1 for a 1-D table)
        x0, dx     first node and spacing [m]
        threshold  slope change [-] (> 0)
        h_table    heights [m] at the nodes (same layout), or None to look at s only
    """
    s = np.asarray(s_table, dtype=np.float64).reshape(-1, int(ny))
    nx = s.shape[0]
    if nx == 0:
        return _empty()
    zero = np.zeros((1, s.shape[1]))
    # the tabulated slope changes by the most across the cells next to a node
    ds = np.abs(np.diff(np.vstack([zero, s, zero]), axis=0))          # (nx + 1) cells, outside included
    at_node = np.maximum(ds[:-1], ds[1:]) > threshold                  # node i ends cell i - 1, starts cell i
    if h_table is not None and nx >= 2:
        h = np.asarray(h_table, dtype=np.float64).reshape(nx, -1)
        q = np.vstack([zero, np.diff(h, axis=0) / float(dx), zero])    # slope of each cell, 0 outside
        at_node |= np.abs(np.diff(q, axis=0)) > threshold
    nodes = np.flatnonzero(np.any(at_node, axis=1))
    return np.ascontiguousarray(float(x0) + nodes * float(dx), dtype=np.float64)


def slope_breaks(road: RoadArrays, threshold: float = SLOPE_BREAK_MIN) -> np.ndarray:
    """Sorted x [m] where the slope dh/dx of ``road`` jumps by more than ``threshold`` [-] (module docstring):
    a table's breaks (``table_breaks``), the start of a slope road that is level before it, none otherwise.

    They are not a field of ``RoadArrays``: every kernel that takes the road (the vehicle's derivative among
    them) is compiled for its type, and one more array in it made the compiled RK4 loop of the vehicle 40 %
    slower (measured: 0.10 -> 0.15 s for 5 s of halfcar7; the same with the array in ``VehicleModel``), while
    only the switching pass needs them: a vehicle system hands them over as its ``switch_params``."""
    if not threshold > 0.0:
        raise ValueError(f"slope_breaks: threshold must be > 0, got {threshold!r}")
    if road.kind == KIND_TABLE:
        return table_breaks(road.s_table, road.ny, road.x0, road.dx, threshold, road.h_table)
    if road.kind == KIND_SLOPE and road.params[3] != 0.0 and abs(road.params[0]) > threshold:
        return np.array([road.params[1]])
    return _empty()


def with_friction_cells(road: RoadArrays, x0: float, dx: float, y0: float, dy: float, mu_cells) -> RoadArrays:
    """``road`` with piecewise-constant friction: mu_cells[i, j] [-] on the cell x in [x0 + i*dx, x0 + (i+1)*dx),
    y in [y0 + j*dy, y0 + (j+1)*dy) [m]; the outermost cells extend to infinity (module docstring)."""
    cells = np.asarray(mu_cells, dtype=np.float64)
    if cells.ndim != 2 or cells.size == 0:
        raise ValueError(f"with_friction_cells: mu_cells must be a non-empty 2-D array, got shape {cells.shape}")
    grid = np.array([x0, dx, cells.shape[0], y0, dy, cells.shape[1]], dtype=np.float64)
    return road._replace(mu_grid=grid, mu_table=_vector(cells))


def uniform_nodes(x_start: float, x_end: float, dx_max: float) -> tuple[np.ndarray, float]:
    """Nodes from x_start to x_end [m] (both included) with the largest spacing <= dx_max [m].

    Returns:
        nodes   x_start + i*dx, i = 0..n-1, with x_start + (n-1)*dx == x_end up to rounding
        dx      the spacing used [m]
    """
    span = float(x_end) - float(x_start)
    n_cells = max(1, int(np.ceil(span / dx_max * (1.0 - 1e-9))))
    dx = span / n_cells
    return float(x_start) + dx * np.arange(n_cells + 1, dtype=np.float64), dx


def table_lookup(h_table: np.ndarray, s_table: np.ndarray, x0: float, dx: float, x):
    """Vectorised twin of the KIND_TABLE branch of ``kernel.road_eval`` (same arithmetic).

    Parameters:
        h_table, s_table  node heights [m] and slopes [-]
        x0, dx            first node and spacing [m]
        x                 positions [m], any shape

    Returns:
        (h, s)            arrays of x's shape; NaN where x is NaN
    """
    x = np.asarray(x, dtype=np.float64)
    n = h_table.shape[0]
    u = (x - x0) / dx
    nan = np.isnan(u)
    below = u < 0.0
    above = u > n - 1
    i = np.floor(np.where(nan | below | above, 0.0, u)).astype(np.int64)
    i = np.minimum(i, n - 2)
    f = u - i
    h = h_table[i] + f * (h_table[i + 1] - h_table[i])
    s = s_table[i] + f * (s_table[i + 1] - s_table[i])
    h = np.where(below, h_table[0], np.where(above, h_table[n - 1], h))
    s = np.where(below | above, 0.0, s)
    h = np.where(nan, np.nan, h)
    s = np.where(nan, np.nan, s)
    return h, s


def _axis(u: np.ndarray, n: int):
    """Lower node index, upper node index, fraction and 'outside' mask of grid coordinates u (nodes 0..n-1),
    the vectorised twin of ``kernel._axis``: outside the grid both indices are the edge node and f = 0."""
    below = u < 0.0
    above = u > n - 1
    inside = ~(below | above | np.isnan(u))
    i0 = np.floor(np.where(inside, u, 0.0)).astype(np.int64)
    i0 = np.minimum(i0, n - 2)
    f = np.where(inside, u - i0, 0.0)
    i0 = np.where(above, n - 1, i0)
    i1 = np.where(inside, i0 + 1, i0)
    return i0, i1, f, ~inside


def grid_lookup(road: RoadArrays, x, y):
    """Vectorised twin of the 2-D (ny >= 2) KIND_TABLE branch of ``kernel.road_eval_xy`` (same arithmetic).

    Parameters:
        road   RoadArrays with ny >= 2
        x, y   positions [m], broadcast together

    Returns:
        (h, dh/dx, dh/dy)  arrays of the broadcast shape; NaN where x or y is NaN
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    ny = road.ny
    nx = road.h_table.shape[0] // ny
    i0, i1, fx, out_x = _axis((x - road.x0) / road.dx, nx)
    j0, j1, fy, out_y = _axis((y - road.y0) / road.dy, ny)
    values = []
    for table, zero_outside in ((road.h_table, None), (road.s_table, out_x), (road.t_table, out_y)):
        a0 = table[i0 * ny + j0]
        a1 = table[i1 * ny + j0]
        v0 = a0 + fy * (table[i0 * ny + j1] - a0)
        v1 = a1 + fy * (table[i1 * ny + j1] - a1)
        v = v0 + fx * (v1 - v0)
        if zero_outside is not None:
            v = np.where(zero_outside, 0.0, v)
        values.append(v)
    nan = np.isnan(x) | np.isnan(y)
    return tuple(np.where(nan, np.nan, v) for v in values)


def friction_lookup(road: RoadArrays, x, y):
    """Friction mu [-] of ``road``'s friction cells at positions x, y [m] (broadcast); twin of
    ``kernel.road_friction`` for a road with cells (NaN where x or y is NaN)."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    x0, dx, nx, y0, dy, ny = road.mu_grid
    nx, ny = int(nx), int(ny)

    def cell(u, n):
        u = np.where(np.isnan(u), 0.0, u)
        return np.where(u < 0.0, 0, np.where(u >= n - 1, n - 1, np.floor(np.clip(u, 0.0, n - 1)))).astype(np.int64)

    mu = road.mu_table[cell((x - x0) / dx, nx) * ny + cell((y - y0) / dy, ny)]
    return np.where(np.isnan(x) | np.isnan(y), np.nan, mu)
