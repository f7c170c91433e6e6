"""Compiled form of a road (``RoadArrays``), its kind codes and the vectorised NumPy table lookup.

Every road compiles to one record, the ``RoadArrays`` the njit kernel ``kernel.road_eval`` takes:

    kind     int          KIND_FLAT, KIND_SLOPE or KIND_TABLE
    params   float64[:]   per-kind constants (see below)
    x0       float [m]    first table node (tabulated roads; 0.0 otherwise)
    dx       float [m]    uniform node spacing (tabulated roads; 1.0 otherwise)
    h_table  float64[:]   height at the nodes x0 + i*dx [m] (empty for analytic roads)
    s_table  float64[:]   slope dh/dx at the nodes [-] (empty for analytic roads)

params by kind:

    KIND_FLAT   [height_m, mu]
    KIND_SLOPE  [tan(angle), start_x_m, mu, flat_before_start (1.0/0.0), height_at_start_m]
                h = height_at_start_m + (x - start_x_m) tan(angle); before start_x_m with flat_before_start
                the road is level at height_at_start_m
    KIND_TABLE  [mu]

Tabulated roads interpolate h and s linearly and separately inside [x0, x0 + (n-1)*dx]; outside that
range they hold the end height with zero slope.

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

MAX_TABLE_POINTS = 5_000_000
"""Largest table a road may build (two float64 arrays of this length are 80 MB)."""


class RoadArrays(NamedTuple):
    """A road as one record of plain arrays for ``road_eval(road, x, out)``; fields as in the module docstring."""

    kind: int
    params: np.ndarray
    x0: float
    dx: float
    h_table: np.ndarray
    s_table: np.ndarray


def analytic_arrays(kind: int, params) -> RoadArrays:
    """RoadArrays of an analytic road: empty tables, x0 = 0 m, dx = 1 m (unused).

    Raises ValueError when params does not have its kind's length (see the module docstring).
    """
    values = np.array(params, dtype=np.float64)
    expected = ANALYTIC_PARAMS.get(int(kind))
    if expected is not None and values.shape != (expected,):
        raise ValueError(f"analytic_arrays: kind {int(kind)} takes {expected} params, got shape {values.shape}")
    empty = np.zeros(0, dtype=np.float64)
    return RoadArrays(int(kind), values, 0.0, 1.0, empty, empty.copy())


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
    """RoadArrays of a tabulated road (contiguous float64 copies of the tables)."""
    h = np.ascontiguousarray(h_table, dtype=np.float64).copy()
    s = np.ascontiguousarray(s_table, dtype=np.float64).copy()
    return RoadArrays(KIND_TABLE, np.array([mu], dtype=np.float64), float(x0), float(dx), h, s)


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
