"""The Road interface: height h(x) [m], slope dh/dx [-], unit normal and friction mu [-] along x [m].

Roads are straight profiles along the global x axis (ISO 8855, z up); y is ignored. The normal follows
from the slope, n = (-dh/dx, 0, 1) / sqrt(1 + (dh/dx)^2). Each road also compiles to ``RoadArrays`` for the
njit kernel ``kernel.road_eval`` and can export its profile as CSV (``to_csv``).

See docs/road.md §1.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..util import atomic_write
from .arrays import RoadArrays, table_arrays, table_lookup


def as_scalar_or_array(values: np.ndarray):
    """A NumPy scalar for 0-d results, the array itself otherwise."""
    return values[()]


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
    """Base class. Subclasses implement ``height``, ``slope``, ``to_arrays`` and ``describe``; ``mu`` is an attribute."""

    mu: float

    def height(self, x):
        """Road height h [m] at positions x [m] (any shape)."""
        raise NotImplementedError

    def slope(self, x):
        """Road slope dh/dx [-] at positions x [m] (any shape)."""
        raise NotImplementedError

    def friction(self, x):
        """Friction coefficient mu [-] at positions x [m] (any shape)."""
        x = np.asarray(x, dtype=np.float64)
        return as_scalar_or_array(np.full(x.shape, self.mu))

    def normal(self, x):
        """Unit normal (-s, 0, 1)/sqrt(1+s^2) [-] at positions x [m]; shape x.shape + (3,)."""
        s = np.asarray(self.slope(x), dtype=np.float64)
        inv = 1.0 / np.sqrt(1.0 + s * s)
        return np.stack([-s * inv, np.zeros_like(s), inv], axis=-1)

    def to_arrays(self) -> RoadArrays:
        """The road compiled for ``kernel.road_eval``."""
        raise NotImplementedError

    def describe(self) -> str:
        """One line with the road's parameters and units."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.describe()

    def to_csv(self, path, x_start: float, x_end: float, dx: float) -> Path:
        """Write columns distance_m, height_m, slope at x_start, x_start+dx, ... <= x_end [m] (atomically).

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
    """A road defined by its uniform-grid table: NumPy methods and the kernel evaluate the same table."""

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

    def height(self, x):
        return as_scalar_or_array(table_lookup(self.h_table, self.s_table, self.x0, self.dx, x)[0])

    def slope(self, x):
        return as_scalar_or_array(table_lookup(self.h_table, self.s_table, self.x0, self.dx, x)[1])

    def to_arrays(self) -> RoadArrays:
        return table_arrays(self.mu, self.x0, self.dx, self.h_table, self.s_table)
