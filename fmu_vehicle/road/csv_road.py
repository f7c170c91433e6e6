"""Road profiles through points: ``ProfileRoad`` from arrays of distance [m] and height [m], ``CsvRoad`` from a
CSV file of them.

See docs/road.md §5.
"""
from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from ..errors import ModelError
from .arrays import MAX_TABLE_POINTS, uniform_nodes
from .base import TabulatedRoad, check_mu, check_positive


def read_profile_csv(path) -> tuple[np.ndarray, np.ndarray]:
    """Distances [m] and heights [m] from the first two columns of a CSV file.

    Blank lines and lines starting with '#' are skipped; the first remaining line may be a header
    (e.g. ``distance_m,height_m``). Further columns (such as the ``slope`` written by ``Road.to_csv``)
    are ignored. Errors name the file and the line (1-based, as an editor counts) and the reason:
    a missing or unreadable file, a non-numeric/NaN/inf value, fewer than two columns, a distance not
    greater than the previous one, fewer than two data rows.
    """
    path = Path(path)
    label = f"road CSV {path}"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ModelError(f"{label}: file not found") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ModelError(f"{label}: cannot read the file ({err})") from None
    distances, heights = [], []
    previous_line = 0
    header_allowed = True
    for line_no, row in enumerate(csv.reader(text.splitlines()), start=1):
        cells = [cell.strip() for cell in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if len(cells) < 2:
            raise ModelError(f"{label}, line {line_no}: expected two columns distance_m,height_m, got {len(cells)}")
        try:
            d, h = float(cells[0]), float(cells[1])
        except ValueError:
            if header_allowed:
                header_allowed = False
                continue
            raise ModelError(f"{label}, line {line_no}: distance and height must be numbers, got "
                             f"{cells[0]!r}, {cells[1]!r}") from None
        header_allowed = False
        for name, value in (("distance", d), ("height", h)):
            if not math.isfinite(value):
                raise ModelError(f"{label}, line {line_no}: {name} is {cells[0] if name == 'distance' else cells[1]}, "
                                 "must be a finite number")
        if distances and d <= distances[-1]:
            raise ModelError(f"{label}, line {line_no}: distance {d:g} m is not greater than {distances[-1]:g} m "
                             f"on line {previous_line}; distances must increase")
        distances.append(d)
        heights.append(h)
        previous_line = line_no
    if len(distances) < 2:
        raise ModelError(f"{label}: has {len(distances)} data row(s), needs at least 2")
    return np.array(distances), np.array(heights)


class ProfileRoad(TabulatedRoad):
    """Road through the points (distances_m[i], heights_m[i]) [m], linearly interpolated between them.

    The polyline is resampled once onto a uniform grid from the first to the last distance, with spacing
    dx_m (default: the smallest distance step, shrunk slightly so the grid ends on the last distance).
    For evenly spaced points the grid nodes are the points, so the road passes exactly through them; a
    point that falls between grid nodes is cut by at most |jump in slope| * dx / 4. Slope at the nodes is
    the central difference of the resampled heights (one-sided at the ends): inside a straight segment it
    equals the segment's slope, and the slope jump at each point is spread linearly over the neighbouring
    grid cells (a smaller dx_m confines it). Before the first and after the last distance the end height
    is held with zero slope. NumPy methods and the kernel evaluate the same table.
    """

    def __init__(self, distances_m, heights_m, mu: float = 1.0, dx_m: float | None = None,
                 label: str = "ProfileRoad"):
        distances = np.asarray(distances_m, dtype=np.float64)
        heights = np.asarray(heights_m, dtype=np.float64)
        if distances.ndim != 1 or distances.shape != heights.shape or distances.size < 2:
            raise ModelError(f"{label}: distances_m and heights_m must be 1-D arrays of equal length >= 2, got "
                             f"shapes {distances.shape} and {heights.shape}")
        if not (np.all(np.isfinite(distances)) and np.all(np.isfinite(heights))):
            raise ModelError(f"{label}: distances_m and heights_m must be finite")
        if np.any(np.diff(distances) <= 0.0):
            raise ModelError(f"{label}: distances_m must increase")
        if dx_m is None:
            dx_max = float(np.min(np.diff(distances)))
        else:
            dx_max = check_positive(dx_m, "dx_m", label)
        span = distances[-1] - distances[0]
        if span / dx_max + 1 > MAX_TABLE_POINTS:
            raise ModelError(f"{label}: resampling {span:g} m at dx {dx_max:g} m needs more than {MAX_TABLE_POINTS} "
                             "nodes; pass a larger dx_m")
        nodes, dx = uniform_nodes(distances[0], distances[-1], dx_max)
        h_table = np.interp(nodes, distances, heights)
        s_table = np.gradient(h_table, dx)
        super().__init__(check_mu(mu, label), nodes[0], dx, h_table, s_table)
        self.rows = len(distances)
        self.label = label

    def past_end_warning(self, x_max_m: float) -> str | None:
        """The warning for a run that reached ``x_max_m`` [m] (the largest x of its wheels) beyond the last
        distance of the profile, where the end height is held flat: it names the road (its file) and both
        distances. None when the run stayed on the profile."""
        if not x_max_m > self.x_end:
            return None
        return (f"{self.label}: the profile ends at x = {self.x_end:g} m and the vehicle drove on to x = "
                f"{x_max_m:.3f} m, where the road is the end height held flat")

    def describe(self) -> str:
        return (f"profile road: {self.rows} points, x {self.x0:g} to {self.x_end:g} m, grid dx {self.dx:.4g} m, "
                f"mu {self.mu:g}")


class CsvRoad(ProfileRoad):
    """Road whose height profile comes from a CSV file (distance_m, height_m), linearly interpolated.

    The file's rows are the points of a ``ProfileRoad`` (same resampling, slopes and ends); dx_m defaults
    to the smallest distance step in the file.
    """

    def __init__(self, path, mu: float = 1.0, dx_m: float | None = None):
        self.path = Path(path)
        distances, heights = read_profile_csv(self.path)
        super().__init__(distances, heights, mu, dx_m, label=f"road CSV {self.path}")

    def describe(self) -> str:
        return (f"CSV road {self.path.name}: {self.rows} rows, x {self.x0:g} to {self.x_end:g} m, "
                f"grid dx {self.dx:.4g} m, mu {self.mu:g}")
