"""The Road interface: height h [m], slopes dh/dx and dh/dy [-], unit normal and friction mu [-] at (x, y) [m].

Axes ISO 8855: x forward, y left, z up. Every method takes positions x and optionally y (broadcast
together); without y a road is read along its reference track y = 0. Roads whose surface does not depend
on y (flat, slope, speed bumps across the whole width, CSV and 1-D ISO 8608 profiles) ignore y and have
dh/dy = 0. The normal follows from the slopes, n = (-dh/dx, -dh/dy, 1) / sqrt(1 + (dh/dx)^2 + (dh/dy)^2).
Each road also compiles to ``RoadArrays`` for the njit kernels ``kernel.road_eval_xy`` / ``kernel.road_eval``
(``to_arrays``, the single way to compile a road) and can export its reference-track profile as CSV
(``to_csv``).

See docs/road.md §1.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..util import atomic_write
from .arrays import RoadArrays, grid_arrays, grid_lookup, table_arrays, table_lookup


def as_scalar_or_array(values: np.ndarray):
    """A NumPy scalar for 0-d results, the array itself otherwise."""
    return values[()]


def along_x(x, y=None) -> np.ndarray:
    """Positions x [m] as float64, broadcast against y when y is given (for roads that ignore y)."""
    x = np.asarray(x, dtype=np.float64)
    if y is None:
        return x
    return np.array(np.broadcast_arrays(x, np.asarray(y, dtype=np.float64))[0])


def xy_arrays(x, y=None) -> tuple[np.ndarray, np.ndarray]:
    """Positions (x, y) [m] as broadcast float64 arrays; y = 0 (the reference track) when not given."""
    x = np.asarray(x, dtype=np.float64)
    y = np.zeros(x.shape) if y is None else np.asarray(y, dtype=np.float64)
    x, y = np.broadcast_arrays(x, y)
    return np.array(x), np.array(y)


def _number(value) -> float:
    """float(value), refusing booleans (a JSON true is not a number)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("boolean")
    return float(value)


def check_mu(mu, owner: str) -> float:
    """Friction coefficient mu [-]: finite and >= 0, else ModelError naming ``owner``."""
    try:
        value = _number(mu)
    except (TypeError, ValueError):
        raise ModelError(f"{owner}: mu must be a number, got {mu!r}") from None
    if not np.isfinite(value) or value < 0.0:
        raise ModelError(f"{owner}: mu must be finite and >= 0, got {mu!r}")
    return value


def check_positive(value, field: str, owner: str) -> float:
    """A finite value > 0, else ModelError naming ``owner`` and ``field``."""
    try:
        number = _number(value)
    except (TypeError, ValueError):
        raise ModelError(f"{owner}: {field} must be a number, got {value!r}") from None
    if not np.isfinite(number) or number <= 0.0:
        raise ModelError(f"{owner}: {field} must be finite and > 0, got {value!r}")
    return number


def check_finite(value, field: str, owner: str) -> float:
    """A finite number, else ModelError naming ``owner`` and ``field``."""
    try:
        number = _number(value)
    except (TypeError, ValueError):
        raise ModelError(f"{owner}: {field} must be a number, got {value!r}") from None
    if not np.isfinite(number):
        raise ModelError(f"{owner}: {field} must be finite, got {value!r}")
    return number


class Road:
    """Base class. Subclasses implement ``height``, ``slope``, ``to_arrays`` and ``describe`` (and ``slope_y``
    and ``friction`` when they depend on y); ``mu`` is an attribute: the friction on the reference track."""

    mu: float

    def height(self, x, y=None):
        """Road height h [m] at positions x [m] and y [m] (any shapes that broadcast; y = 0 if not given)."""
        raise NotImplementedError

    def slope(self, x, y=None):
        """Road slope dh/dx [-] at positions x, y [m]."""
        raise NotImplementedError

    def slope_y(self, x, y=None):
        """Road slope dh/dy [-] at positions x, y [m]; 0 for roads that do not depend on y."""
        return as_scalar_or_array(np.zeros(along_x(x, y).shape))

    def friction(self, x, y=None):
        """Friction coefficient mu [-] at positions x, y [m]."""
        return as_scalar_or_array(np.full(along_x(x, y).shape, self.mu))

    def normal(self, x, y=None):
        """Unit normal (-sx, -sy, 1)/sqrt(1+sx^2+sy^2) [-] with sx = dh/dx, sy = dh/dy at positions x, y [m];
        shape broadcast(x, y).shape + (3,)."""
        sx = np.asarray(self.slope(x, y), dtype=np.float64)
        sy = np.asarray(self.slope_y(x, y), dtype=np.float64)
        inv = 1.0 / np.sqrt(1.0 + sx * sx + sy * sy)
        return np.stack([-sx * inv, np.where(sy == 0.0, 0.0, -sy * inv), inv], axis=-1)

    def to_arrays(self) -> RoadArrays:
        """The road compiled for ``kernel.road_eval``."""
        raise NotImplementedError

    def describe(self) -> str:
        """One line with the road's parameters and units."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.describe()

    def to_csv(self, path, x_start: float, x_end: float, dx: float) -> Path:
        """Write columns distance_m, height_m, slope at x_start, x_start+dx, ... <= x_end [m] (atomically), along
        the reference track y = 0.

        Parameters:
            path            output file
            x_start, x_end  first and last distance [m], x_end > x_start
            dx              spacing [m], > 0

        Returns:
            the path written. ``CsvRoad`` reads the file back (it uses the first two columns).
        """
        x_start = check_finite(x_start, "x_start", "to_csv")
        x_end = check_finite(x_end, "x_end", "to_csv")
        dx = check_positive(dx, "dx", "to_csv")
        if x_end <= x_start:
            raise ModelError(f"to_csv {path}: x_end ({x_end} m) must be greater than x_start ({x_start} m)")
        n = int(np.floor((x_end - x_start) / dx + 1e-9)) + 1
        x = x_start + dx * np.arange(n, dtype=np.float64)
        data = np.column_stack([x, np.atleast_1d(self.height(x)), np.atleast_1d(self.slope(x))])
        return atomic_write(path, lambda stream: np.savetxt(stream, data, fmt="%.17g", delimiter=",",
                                                            header="distance_m,height_m,slope", comments=""))


class TabulatedRoad(Road):
    """A road h(x) defined by its uniform-grid table: NumPy methods and the kernel evaluate the same table."""

    def __init__(self, mu: float, x0: float, dx: float, h_table: np.ndarray, s_table: np.ndarray):
        self.mu = mu
        self.x0 = float(x0)
        self.dx = float(dx)
        self.h_table = np.ascontiguousarray(h_table, dtype=np.float64)
        self.s_table = np.ascontiguousarray(s_table, dtype=np.float64)

    @property
    def x_end(self) -> float:
        """Last table node [m]; beyond it the end height is held with zero slope."""
        return self.x0 + (self.h_table.shape[0] - 1) * self.dx

    def height(self, x, y=None):
        return as_scalar_or_array(table_lookup(self.h_table, self.s_table, self.x0, self.dx, along_x(x, y))[0])

    def slope(self, x, y=None):
        return as_scalar_or_array(table_lookup(self.h_table, self.s_table, self.x0, self.dx, along_x(x, y))[1])

    def to_arrays(self) -> RoadArrays:
        return table_arrays(self.mu, self.x0, self.dx, self.h_table, self.s_table)


class GridRoad(Road):
    """A surface h(x, y) defined by its uniform (x, y) grid: heights and both slopes at the nodes, shape (nx, ny).

    The NumPy methods and the kernel evaluate the same table with the same arithmetic
    (``arrays.grid_lookup``): bilinear interpolation of h, dh/dx and dh/dy separately; outside the grid the
    edge is held (the coordinate outside is clamped, the slope along it is zero). Subclasses set the
    tables through ``GridRoad.__init__`` and implement ``describe``.
    """

    def __init__(self, mu: float, x0: float, dx: float, y0: float, dy: float, h_grid, s_grid, t_grid):
        self.mu = mu
        self._arrays = grid_arrays(mu, x0, dx, y0, dy, h_grid, s_grid, t_grid)

    @property
    def x0(self) -> float:
        """First x node [m]."""
        return self._arrays.x0

    @property
    def dx(self) -> float:
        """x spacing [m]."""
        return self._arrays.dx

    @property
    def y0(self) -> float:
        """First y node [m]."""
        return self._arrays.y0

    @property
    def dy(self) -> float:
        """y spacing [m]."""
        return self._arrays.dy

    @property
    def shape(self) -> tuple[int, int]:
        """(nx, ny) nodes."""
        return self._arrays.h_table.shape[0] // self._arrays.ny, self._arrays.ny

    def _lookup(self, x, y, index):
        x, y = xy_arrays(x, y)
        return as_scalar_or_array(grid_lookup(self._arrays, x, y)[index])

    def height(self, x, y=None):
        return self._lookup(x, y, 0)

    def slope(self, x, y=None):
        return self._lookup(x, y, 1)

    def slope_y(self, x, y=None):
        return self._lookup(x, y, 2)

    def to_arrays(self) -> RoadArrays:
        return self._arrays
