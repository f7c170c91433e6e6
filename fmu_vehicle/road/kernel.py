"""njit road kernels: height, slope and friction of any compiled road at one position (hot path).

The vehicle's derivative evaluation calls ``road_eval`` once per wheel and step with the road as one
record, a ``RoadArrays`` (see ``arrays.py`` for the kind codes and the layout of ``params``). Flat and slope roads
are evaluated in closed form; tabulated roads by an O(1) lookup on their uniform grid with linear
interpolation of h and of s separately. The same code runs uncompiled with NUMBA_DISABLE_JIT=1.

See docs/road.md §1.
"""
from __future__ import annotations

import math

from ..jit import njit

from .arrays import KIND_FLAT, KIND_SLOPE, KIND_TABLE


@njit
def road_eval(road, x, out):
    """Road state at the global longitudinal position x [m], written into ``out``.

    Parameters:
        road   a RoadArrays (the compiled road record)
        x      position along the road [m]
        out    float64[>=3], overwritten: out[0] = h [m], out[1] = dh/dx [-], out[2] = mu [-]

    A NaN x gives NaN height and slope. An unknown kind raises ValueError.
    """
    kind, params = road.kind, road.params
    if kind == KIND_FLAT:
        out[0] = params[0]
        out[1] = 0.0
        out[2] = params[1]
    elif kind == KIND_SLOPE:
        u = x - params[1]
        if u < 0.0 and params[3] != 0.0:
            out[0] = params[4]
            out[1] = 0.0
        else:
            out[0] = params[4] + u * params[0]
            out[1] = params[0]
        out[2] = params[2]
    elif kind == KIND_TABLE:
        h_table, s_table = road.h_table, road.s_table
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
        out[2] = params[0]
    else:
        raise ValueError("road_eval: unknown road kind")


@njit
def road_eval_points(road, xs, out):
    """``road_eval`` at every xs[k] [m]; out[k, 0:3] = (h [m], dh/dx [-], mu [-]), out shape (len(xs), >=3)."""
    for k in range(xs.shape[0]):
        road_eval(road, xs[k], out[k])


@njit
def road_normal(slope, out):
    """Unit road normal for slope dh/dx [-]: out[0:3] = (-s, 0, 1) / sqrt(1 + s^2) (global frame, z up)."""
    inv = 1.0 / math.sqrt(1.0 + slope * slope)
    out[0] = -slope * inv
    out[1] = 0.0
    out[2] = inv
