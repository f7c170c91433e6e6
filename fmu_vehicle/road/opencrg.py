"""OpenCRG road surfaces, read by the OpenCRG C library (through the optional package ``pycrg``) and resampled
onto a uniform (x, y) grid.

An OpenCRG file holds an elevation grid z(u, v) along a reference line (u along it, v to its left), the
line's plan position, heading, slope and banking, and modifiers that move or scale it. The library
applies the modifiers as the file asks (a file without a ``$ROAD_CRG_MODS`` section gets OpenCRG's
defaults, which move the start of the reference line to x = y = z = 0 with heading 0; an empty section keeps
the data where it is) and evaluates the elevation at a global (x, y) by mapping it to (u, v) and
interpolating the grid bilinearly. ``OpenCrgRoad`` asks it for the elevation at every node of a uniform
grid in the global (x, y) frame (ISO 8855 and OpenCRG agree: x forward, y and v to the left, z up):

    nodes   x0 + i dx, y0 + j dy over the road's bounding box (or x_range_m, y_range_m), dx, dy default to
            the file's increments du, dv, so a straight reference line along +x gets the file's own nodes
    h       the library's elevation at each node (including the reference line's slope and banking)
    dh/dx, dh/dy   central differences of the node heights (one-sided at the grid edges)

For a straight reference line along +x the grid nodes are the file's nodes and the kernel's bilinear
interpolation is the library's: heights agree to rounding. For any other line (rotated or curved) the
library maps each node through its own xy -> uv transformation; the resampled surface then differs from
the file between nodes by the interpolation error. Positions outside the file's data are evaluated with
the library's default border mode (the edge values are held). A node the library cannot evaluate
refuses the file with an error that names the node count and the keys to narrow the grid.

See docs/road.md §10.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import ModelError
from .arrays import MAX_TABLE_POINTS, uniform_nodes
from .base import GridRoad, check_finite, check_mu, check_positive


def _pycrg():
    """The ``pycrg`` module, or ModelError with the command that installs it."""
    try:
        import pycrg
    except ImportError:
        raise ModelError("OpenCrgRoad: reading OpenCRG files needs the optional package pycrg "
                         "(pip install 'fmu_vehicle[crg]')") from None
    return pycrg


def _range(value, field: str, owner: str) -> tuple[float, float] | None:
    if value is None:
        return None
    try:
        start, end = value
    except (TypeError, ValueError):
        raise ModelError(f"{owner}: {field} must be two numbers (start, end) in m, got {value!r}") from None
    start, end = check_finite(start, field, owner), check_finite(end, field, owner)
    if end <= start:
        raise ModelError(f"{owner}: {field} must increase, got {value!r}")
    return start, end


class OpenCrgRoad(GridRoad):
    """Road surface of an OpenCRG file ``path``, resampled onto a uniform (x, y) grid (module docstring).

    Parameters:
        path        the .crg file (any OpenCRG data format)
        mu          friction coefficient [-]
        dx_m, dy_m  grid spacing [m]; default the file's increments du, dv (the smallest v step if the long
                    sections are not evenly spaced)
        x_range_m, y_range_m   (start, end) [m] of the grid; default the bounding box of the road's data
    """

    def __init__(self, path, mu: float = 1.0, dx_m: float | None = None, dy_m: float | None = None,
                 x_range_m=None, y_range_m=None):
        self.path = Path(path)
        owner = f"OpenCrgRoad {self.path}"
        mu = check_mu(mu, owner)
        dx_max = None if dx_m is None else check_positive(dx_m, "dx_m", owner)
        dy_max = None if dy_m is None else check_positive(dy_m, "dy_m", owner)
        x_range = _range(x_range_m, "x_range_m", owner)
        y_range = _range(y_range_m, "y_range_m", owner)
        pycrg = _pycrg()
        if not self.path.is_file():
            raise ModelError(f"{owner}: file not found")
        try:
            with pycrg.RoadSurface.open(str(self.path)) as surface:
                grid = surface.grid()
                du, dv = surface.increments()
                if dv <= 0.0:
                    dv = float(np.min(np.diff(grid.v)))
                self.u_range_m = surface.u_range()
                self.v_range_m = surface.v_range()
                # the road's plan outline: both borders of every cross section
                sin, cos = np.sin(grid.phi), np.cos(grid.phi)
                xs = np.concatenate([grid.x - sin * v for v in self.v_range_m])
                ys = np.concatenate([grid.y + cos * v for v in self.v_range_m])
                self.straight = bool(np.ptp(grid.phi) == 0.0)
                self.heading_rad = float(grid.phi[0])
                x_range = x_range or (float(xs.min()), float(xs.max()))
                y_range = y_range or (float(ys.min()), float(ys.max()))
                dx_max = dx_max or float(du)
                dy_max = dy_max or float(dv)
                nx = (x_range[1] - x_range[0]) / dx_max + 1
                ny = (y_range[1] - y_range[0]) / dy_max + 1
                if nx * ny > MAX_TABLE_POINTS:
                    raise ModelError(f"{owner}: a grid over x {x_range[0]:g} to {x_range[1]:g} m, y {y_range[0]:g} to "
                                     f"{y_range[1]:g} m needs more than {MAX_TABLE_POINTS} nodes at dx_m = {dx_max:g} m, "
                                     f"dy_m = {dy_max:g} m; use a larger dx_m/dy_m or a smaller x_range_m/y_range_m")
                x_nodes, dx = uniform_nodes(*x_range, dx_max)
                y_nodes, dy = uniform_nodes(*y_range, dy_max)
                if x_nodes.size < 2 or y_nodes.size < 2:
                    raise ModelError(f"{owner}: the grid needs at least two nodes along x and y")
                heights = surface.xy_to_z_many(x_nodes[:, None], y_nodes[None, :])
        except pycrg.OpenCRGError as err:
            raise ModelError(f"{owner}: OpenCRG cannot read the file: {err}") from None
        bad = int(np.count_nonzero(~np.isfinite(heights)))
        if bad:
            raise ModelError(f"{owner}: OpenCRG cannot evaluate {bad} of {heights.size} grid nodes (far from the "
                             "reference line?); narrow the grid with x_range_m/y_range_m")
        slope_x, slope_y = np.gradient(heights, dx, dy)
        self.du_m, self.dv_m = float(du), float(dv)
        super().__init__(mu, x_nodes[0], dx, y_nodes[0], dy, heights, slope_x, slope_y)

    def describe(self) -> str:
        nx, ny = self.shape
        line = "straight" if self.straight else "curved"
        return (f"OpenCRG road {self.path.name}: u {self.u_range_m[0]:g} to {self.u_range_m[1]:g} m, v "
                f"{self.v_range_m[0]:g} to {self.v_range_m[1]:g} m ({line} reference line, du {self.du_m:g} m, "
                f"dv {self.dv_m:g} m), grid x {self.x0:g} m + {nx - 1} x {self.dx:.4g} m, y {self.y0:g} m + "
                f"{ny - 1} x {self.dy:.4g} m, mu {self.mu:g}")
