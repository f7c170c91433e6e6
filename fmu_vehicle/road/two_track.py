"""Two-track roads: a left and a right profile h_L(x), h_R(x) at the track positions y_L > y_R [m].

Between the tracks the height is linear in y, outside them it holds the nearer track:

    w = clip((y - y_R) / (y_L - y_R), 0, 1)
    h(x, y)  = h_R(x) + w (h_L(x) - h_R(x))
    dh/dx    = s_R(x) + w (s_L(x) - s_R(x))                       (s = dh/dx of a track)
    dh/dy    = (h_L(x) - h_R(x)) / (y_L - y_R)  for y_R <= y <= y_L, else 0

The road is tabulated on a grid with two y nodes, y_R and y_L, and the x nodes of the tracks' tables (the
union of their ranges at the finer spacing), holding each track's height and slope and the dh/dy above
at every x node; the kernel's bilinear interpolation reproduces these equations with h_L, h_R, s_L, s_R
interpolated linearly in x (exactly the tracks' own interpolation where the tracks share the grid).
Beyond the x range the edge is held, as for every table. The default track positions are the full car's
wheel centres, y = +-1.1967 m (half its 2.3934 m tread), so each wheel runs on its own profile.

See docs/road.md §8.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from .arrays import KIND_TABLE, MAX_TABLE_POINTS, uniform_nodes
from .base import GridRoad, Road, check_finite, check_mu, check_positive

HALF_TREAD_M = 1.1967
"""Lateral position [m] of the full car's wheel centres (fullcar14: y = +-1.1967 m): default track positions."""


def track_range(road: Road) -> tuple[float, float, float] | None:
    """(x_start, x_end, dx) [m] of a 1-D road's table, or None for a closed-form road without one."""
    arrays = road.to_arrays()
    if arrays.kind != KIND_TABLE:
        return None
    n = arrays.h_table.shape[0]
    return arrays.x0, arrays.x0 + (n - 1) * arrays.dx, arrays.dx


def on_nodes(track: Road, nodes: np.ndarray, dx: float) -> tuple[np.ndarray, np.ndarray]:
    """Height [m] and slope [-] of a 1-D road at the grid nodes: its own table where the grid is its grid
    (no resampling rounding), else its NumPy methods."""
    arrays = track.to_arrays()
    if (arrays.kind == KIND_TABLE and arrays.h_table.shape[0] == nodes.shape[0] and arrays.x0 == nodes[0]
            and arrays.dx == dx):
        return arrays.h_table.copy(), arrays.s_table.copy()
    return np.asarray(track.height(nodes), dtype=np.float64), np.asarray(track.slope(nodes), dtype=np.float64)


class TwoTrackRoad(GridRoad):
    """Road with a left profile ``left`` at y_left_m and a right profile ``right`` at y_right_m [m] (module
    docstring for the equations).

    Parameters:
        left, right          1-D roads (any Road whose surface does not depend on y: flat, slope, speed
                             bumps across the whole width, CSV, 1-D ISO 8608)
        y_left_m, y_right_m  track positions [m], y_left_m > y_right_m (default +-1.1967 m)
        mu                   friction coefficient [-] (the tracks' own mu are not used)
        dx_m                 grid spacing [m]; default the finer of the tracks' table spacings
        x_range_m            (x_start, x_end) [m] of the grid; default the union of the tracks' tables
                             (required when neither track has a table, e.g. two slopes)
    """

    def __init__(self, left: Road, right: Road, y_left_m: float = HALF_TREAD_M, y_right_m: float = -HALF_TREAD_M,
                 mu: float = 1.0, dx_m: float | None = None, x_range_m=None):
        owner = "TwoTrackRoad"
        for name, track in (("left", left), ("right", right)):
            if not isinstance(track, Road):
                raise ModelError(f"{owner}: {name} must be a Road, got {type(track).__name__}")
            arrays = track.to_arrays()
            if arrays.ny != 1 or arrays.mu_grid.shape[0] != 0:
                raise ModelError(f"{owner}: {name} must be a 1-D road (height independent of y, one mu), got "
                                 f"{track.describe()}")
        self.left, self.right = left, right
        self.y_left_m = check_finite(y_left_m, "y_left_m", owner)
        self.y_right_m = check_finite(y_right_m, "y_right_m", owner)
        if self.y_left_m <= self.y_right_m:
            raise ModelError(f"{owner}: y_left_m ({self.y_left_m:g} m) must be greater than y_right_m "
                             f"({self.y_right_m:g} m); y points left (ISO 8855)")
        ranges = [r for r in (track_range(left), track_range(right)) if r is not None]
        if x_range_m is None:
            if not ranges:
                raise ModelError(f"{owner}: x_range_m is needed when neither track is tabulated (both closed-form)")
            x_start, x_end = min(r[0] for r in ranges), max(r[1] for r in ranges)
        else:
            try:
                x_start, x_end = (check_finite(v, "x_range_m", owner) for v in x_range_m)
            except (TypeError, ValueError):
                raise ModelError(f"{owner}: x_range_m must be two numbers (x_start, x_end) in m, got "
                                 f"{x_range_m!r}") from None
            if x_end <= x_start:
                raise ModelError(f"{owner}: x_range_m must increase, got {x_range_m!r}")
        if dx_m is None:
            if not ranges:
                raise ModelError(f"{owner}: dx_m is needed when neither track is tabulated (both closed-form)")
            dx_max = min(r[2] for r in ranges)
        else:
            dx_max = check_positive(dx_m, "dx_m", owner)
        if (x_end - x_start) / dx_max + 1 > MAX_TABLE_POINTS / 2:
            raise ModelError(f"{owner}: x {x_start:g} to {x_end:g} m at dx {dx_max:g} m needs more than "
                             f"{MAX_TABLE_POINTS // 2} nodes per track; pass a larger dx_m or a shorter x_range_m")
        nodes, dx = uniform_nodes(x_start, x_end, dx_max)
        (h_r, s_r), (h_l, s_l) = (on_nodes(track, nodes, dx) for track in (right, left))
        h = np.column_stack([h_r, h_l])
        s = np.column_stack([s_r, s_l])
        width = self.y_left_m - self.y_right_m
        cross = (h[:, 1] - h[:, 0]) / width
        super().__init__(check_mu(mu, owner), nodes[0], dx, self.y_right_m, width, h, s,
                         np.column_stack([cross, cross]))

    def describe(self) -> str:
        nx, _ = self.shape
        return (f"two-track road: left (y = {self.y_left_m:g} m) {self.left.describe()}; right (y = {self.y_right_m:g} m) "
                f"{self.right.describe()}; grid x {self.x0:g} to {self.x0 + (nx - 1) * self.dx:g} m, dx {self.dx:.4g} m, "
                f"mu {self.mu:g}")
