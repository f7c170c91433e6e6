"""Split friction: any road with one friction coefficient left and another right of a boundary y.

    mu(x, y) = mu_left    for y >= mu_split_y_m
               mu_right   for y <  mu_split_y_m

(ISO 8855: y > 0 is left). The surface (height and slopes) is that of the wrapped road. The compiled road
carries the two values as friction cells (``arrays.with_friction_cells``: one cell along x, two along y
with the boundary at mu_split_y_m), so the vehicle's kernel reads a sharp step at the boundary, as the NumPy
method does.

See docs/road.md §9.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from .arrays import RoadArrays, friction_lookup, with_friction_cells
from .base import Road, as_scalar_or_array, check_finite, check_mu, xy_arrays


class SplitFrictionRoad(Road):
    """``road`` with friction mu_left [-] for y >= mu_split_y_m [m] and mu_right [-] for y < mu_split_y_m.

    Either coefficient defaults to the wrapped road's mu; ``mu`` (the friction on the reference track
    y = 0) follows from the split.
    """

    def __init__(self, road: Road, mu_left: float | None = None, mu_right: float | None = None,
                 mu_split_y_m: float = 0.0):
        if not isinstance(road, Road):
            raise ModelError(f"SplitFrictionRoad: road must be a Road, got {type(road).__name__}")
        if isinstance(road, SplitFrictionRoad):
            raise ModelError("SplitFrictionRoad: the road already has split friction")
        if road.to_arrays().mu_grid.shape[0] != 0:
            raise ModelError("SplitFrictionRoad: the road already has friction cells")
        self.road = road
        self.mu_left = road.mu if mu_left is None else check_mu(mu_left, "SplitFrictionRoad: mu_left")
        self.mu_right = road.mu if mu_right is None else check_mu(mu_right, "SplitFrictionRoad: mu_right")
        self.mu_split_y_m = check_finite(mu_split_y_m, "mu_split_y_m", "SplitFrictionRoad")
        self.mu = self.mu_left if self.mu_split_y_m <= 0.0 else self.mu_right
        # cells along y: [split - 1, split) (right) and [split, split + 1) (left), both extended to infinity
        self._arrays = with_friction_cells(road.to_arrays(), 0.0, 1.0, self.mu_split_y_m - 1.0, 1.0,
                                           np.array([[self.mu_right, self.mu_left]]))

    def height(self, x, y=None):
        return self.road.height(x, y)

    def slope(self, x, y=None):
        return self.road.slope(x, y)

    def slope_y(self, x, y=None):
        return self.road.slope_y(x, y)

    def friction(self, x, y=None):
        return as_scalar_or_array(friction_lookup(self._arrays, *xy_arrays(x, y)))

    def to_arrays(self) -> RoadArrays:
        return self._arrays

    def describe(self) -> str:
        return (f"{self.road.describe()}; split friction: mu {self.mu_left:g} left and {self.mu_right:g} right of "
                f"y = {self.mu_split_y_m:g} m")
