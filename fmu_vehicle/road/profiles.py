"""Closed-form roads: flat, constant grade, and arc-section (circular segment) speed bumps.

See docs/road.md §2 (flat), §3 (slope) and §4 (speed bumps).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..errors import ModelError
from .arrays import KIND_FLAT, KIND_SLOPE, MAX_TABLE_POINTS, RoadArrays, analytic_arrays, table_arrays, uniform_nodes
from .base import Road, as_scalar_or_array, check_finite, check_mu, check_positive


EDGE_TOL_M = 1e-9
"""Points within this distance [m] outside a bump chord count as on its edge (absorbs grid rounding)."""


class FlatRoad(Road):
    """Level road h(x) = height_m [m], slope 0, friction mu [-]."""

    def __init__(self, mu: float = 1.0, height_m: float = 0.0):
        self.mu = check_mu(mu, "FlatRoad")
        self.height_m = check_finite(height_m, "height_m", "FlatRoad")

    def height(self, x):
        x = np.asarray(x, dtype=np.float64)
        return as_scalar_or_array(np.full(x.shape, self.height_m))

    def slope(self, x):
        x = np.asarray(x, dtype=np.float64)
        return as_scalar_or_array(np.zeros(x.shape))

    def to_arrays(self) -> RoadArrays:
        return analytic_arrays(KIND_FLAT, [self.height_m, self.mu])

    def describe(self) -> str:
        return f"flat road: height {self.height_m:g} m, mu {self.mu:g}"


class SlopeRoad(Road):
    """Straight road of constant grade: h(x) = (x - start_x_m) tan(angle), dh/dx = tan(angle).

    By default the grade holds for every x (h(start_x_m) = 0, negative height before it), which is the
    paper's 16.5 deg sloping road (Dai et al. 2022 §4.2) with start_x_m = 0. With
    ``flat_before_start=True`` the road is level at h = 0 for x < start_x_m and climbs from there (a kink
    at start_x_m). Positive angles climb in +x. |angle_deg| < 90.
    """

    def __init__(self, angle_deg: float, mu: float = 1.0, start_x_m: float = 0.0, flat_before_start: bool = False):
        angle = check_finite(angle_deg, "angle_deg", "SlopeRoad")
        if abs(angle) >= 90.0:
            raise ModelError(f"SlopeRoad: angle_deg must lie strictly between -90 and 90 deg, got {angle_deg!r}")
        if not isinstance(flat_before_start, (bool, np.bool_)):
            raise ModelError(f"SlopeRoad: flat_before_start must be true or false, got {flat_before_start!r}")
        self.angle_deg = angle
        self.mu = check_mu(mu, "SlopeRoad")
        self.start_x_m = check_finite(start_x_m, "start_x_m", "SlopeRoad")
        self.flat_before_start = bool(flat_before_start)
        self.tan_angle = math.tan(math.radians(angle))

    def height(self, x):
        u = np.asarray(x, dtype=np.float64) - self.start_x_m
        h = u * self.tan_angle
        if self.flat_before_start:
            h = np.where(u < 0.0, 0.0, h)
        return as_scalar_or_array(h)

    def slope(self, x):
        u = np.asarray(x, dtype=np.float64) - self.start_x_m
        s = np.full(u.shape, self.tan_angle)
        if self.flat_before_start:
            s = np.where(u < 0.0, 0.0, s)
        s = np.where(np.isnan(u), np.nan, s)
        return as_scalar_or_array(s)

    def to_arrays(self) -> RoadArrays:
        return analytic_arrays(KIND_SLOPE, [self.tan_angle, self.start_x_m, self.mu, float(self.flat_before_start),
                                           0.0])

    def describe(self) -> str:
        where = "level before it" if self.flat_before_start else "grade everywhere"
        return (f"slope road: {self.angle_deg:g} deg (grade {self.tan_angle:.4f}) from x = {self.start_x_m:g} m, "
                f"{where}, mu {self.mu:g}")


class Bump(NamedTuple):
    """One arc-section bump: chord [start_x_m, start_x_m + width_m] [m], rise height_m [m]."""

    start_x_m: float
    width_m: float
    height_m: float

    @property
    def radius_m(self) -> float:
        """Circle radius R = (W^2/4 + H^2) / (2 H) [m]."""
        return (self.width_m ** 2 / 4.0 + self.height_m ** 2) / (2.0 * self.height_m)

    @property
    def center_x_m(self) -> float:
        """Chord midpoint x_c [m]."""
        return self.start_x_m + 0.5 * self.width_m

    @property
    def end_x_m(self) -> float:
        """Chord end [m]."""
        return self.start_x_m + self.width_m

    @property
    def edge_slope(self) -> float:
        """Slope at the leading edge, (W/2) / (R - H) = tan(2 atan(2H/W)) [-] (minus that at the trailing edge)."""
        return 0.5 * self.width_m / (self.radius_m - self.height_m)


def _parse_bump(entry, index: int) -> Bump:
    """A bump from (start_x_m, width_m, height_m) or {"start_x_m":, "width_m":, "height_m":}."""
    owner = f"SpeedBumpRoad: bumps[{index}]"
    if isinstance(entry, dict):
        keys = ("start_x_m", "width_m", "height_m")
        unknown = sorted(set(entry) - set(keys))
        missing = [k for k in keys if k not in entry]
        if unknown or missing:
            raise ModelError(f"{owner}: needs exactly the keys {', '.join(keys)}"
                             + (f"; missing {', '.join(missing)}" if missing else "")
                             + (f"; unknown {', '.join(unknown)}" if unknown else ""))
        values = [entry[k] for k in keys]
    else:
        try:
            values = list(entry)
        except TypeError:
            raise ModelError(f"{owner}: expected (start_x_m, width_m, height_m), got {entry!r}") from None
        if len(values) != 3:
            raise ModelError(f"{owner}: expected 3 values (start_x_m, width_m, height_m), got {len(values)}")
    start = check_finite(values[0], "start_x_m", owner)
    width = check_positive(values[1], "width_m", owner)
    height = check_positive(values[2], "height_m", owner)
    if height >= 0.5 * width:
        raise ModelError(f"{owner}: height_m ({height:g} m) must be less than half of width_m ({width:g} m), "
                         "else the circular segment is not a function of x")
    return Bump(start, width, height)


class SpeedBumpRoad(Road):
    """Level road (h = 0) with arc-section speed bumps (Dai et al. 2022 §4.1, Fig. 8).

    Each bump is a circular segment with chord W = width_m and rise H = height_m, circle radius
    R = (W^2/4 + H^2)/(2H), centre x_c = start + W/2:

        h(x) = sqrt(R^2 - (x - x_c)^2) - (R - H)     for |x - x_c| <= W/2, else 0
        dh/dx = -(x - x_c) / sqrt(R^2 - (x - x_c)^2)

    The NumPy methods evaluate this in closed form (bump chords are closed intervals). The kernel uses a
    table from the first bump start to the last bump end with spacing <= dx_m (default 2 mm) holding the
    exact h and dh/dx at the nodes; outside it the road is level. Linear interpolation errs by at most
    dx^2/8 * max|h''| = dx^2/8 * R^2/(R-H)^3 in height and dx^2/8 * 3 R^2 (W/2)/(R-H)^5 in slope inside a
    bump; the slope jump at each bump edge is spread over the one grid cell next to the edge, and an edge
    that falls between nodes adds a height error below edge_slope * dx in its cell. Bumps may touch but
    not overlap; H < W/2.
    """

    def __init__(self, bumps, mu: float = 1.0, dx_m: float = 0.002):
        try:
            entries = list(bumps)
        except TypeError:
            raise ModelError(f"SpeedBumpRoad: bumps must be a list of bumps, got {bumps!r}") from None
        if not entries:
            raise ModelError("SpeedBumpRoad: bumps is empty; use FlatRoad for a road without bumps")
        parsed = [(_parse_bump(entry, i), i) for i, entry in enumerate(entries)]
        parsed.sort(key=lambda item: item[0].start_x_m)
        for (prev, i_prev), (nxt, i_next) in zip(parsed, parsed[1:]):
            if nxt.start_x_m < prev.end_x_m - 1e-12:
                raise ModelError(f"SpeedBumpRoad: bumps[{i_next}] (from x = {nxt.start_x_m:g} m) overlaps bumps[{i_prev}] "
                                 f"({prev.start_x_m:g} m to {prev.end_x_m:g} m)")
        self.bumps = [bump for bump, _ in parsed]
        self.mu = check_mu(mu, "SpeedBumpRoad")
        self.dx_m = check_positive(dx_m, "dx_m", "SpeedBumpRoad")
        span = self.bumps[-1].end_x_m - self.bumps[0].start_x_m
        if span / self.dx_m + 1 > MAX_TABLE_POINTS:
            raise ModelError(f"SpeedBumpRoad: bumps span {span:g} m, which needs more than {MAX_TABLE_POINTS} nodes "
                             f"at dx_m = {self.dx_m:g} m; use a larger dx_m")
        self._arrays = None

    @classmethod
    def paper_default(cls, first_x_m: float = 20.0, spacing_m: float = 15.0, width_m: float = 0.5,
                      height_m: float = 0.06, count: int = 5, mu: float = 1.0, dx_m: float = 0.002) -> "SpeedBumpRoad":
        """The paper's five continuous arc bumps (§4.1: W 300-600 mm, H 30-60 mm): here W = 0.5 m, H = 0.05 m,
        starting at x = 20, 35, 50, 65, 80 m (all passed by both axles in the 5 s, 20 m/s run); all adjustable."""
        if int(count) != count or count < 1:
            raise ModelError(f"SpeedBumpRoad.paper_default: count must be a positive integer, got {count!r}")
        bumps = [(first_x_m + k * spacing_m, width_m, height_m) for k in range(int(count))]
        return cls(bumps, mu=mu, dx_m=dx_m)

    def _profile(self, x):
        x = np.asarray(x, dtype=np.float64)
        h = np.zeros(x.shape)
        s = np.zeros(x.shape)
        for bump in self.bumps:
            half = 0.5 * bump.width_m
            radius = bump.radius_m
            u = x - bump.center_x_m
            on = np.abs(u) <= half + EDGE_TOL_M
            uc = np.clip(u, -half, half)
            root = np.sqrt(radius * radius - uc * uc)
            # sqrt(R^2 - u^2) - (R - H) without cancellation, since R^2 - (R - H)^2 = W^2/4: exactly 0 at the edges
            rise = (half - uc) * (half + uc) / (root + (radius - bump.height_m))
            h = np.where(on, rise, h)
            s = np.where(on, -uc / root, s)
        nan = np.isnan(x)
        return np.where(nan, np.nan, h), np.where(nan, np.nan, s)

    def height(self, x):
        return as_scalar_or_array(self._profile(x)[0])

    def slope(self, x):
        return as_scalar_or_array(self._profile(x)[1])

    def to_arrays(self) -> RoadArrays:
        if self._arrays is None:
            nodes, dx = uniform_nodes(self.bumps[0].start_x_m, self.bumps[-1].end_x_m, self.dx_m)
            h, s = self._profile(nodes)
            self._arrays = table_arrays(self.mu, nodes[0], dx, h, s)
        return self._arrays

    def describe(self) -> str:
        items = ", ".join(f"x={b.start_x_m:g} m W={b.width_m:g} m H={b.height_m:g} m" for b in self.bumps)
        return f"speed-bump road: {len(self.bumps)} arc bumps ({items}), table dx {self.dx_m:g} m, mu {self.mu:g}"
