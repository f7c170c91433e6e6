"""Closed-form roads: flat, constant grade, and arc-section (circular segment) speed bumps, across the whole
width or across a y range only (one-sided bumps, with smooth lateral ends).

See docs/road.md §2 (flat), §3 (slope) and §4 (speed bumps).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..errors import ModelError
from .arrays import (KIND_FLAT, KIND_SLOPE, MAX_TABLE_POINTS, RoadArrays, analytic_arrays, grid_arrays, table_arrays,
                     uniform_nodes)
from .base import Road, along_x, as_scalar_or_array, check_finite, check_mu, check_positive, xy_arrays


EDGE_TOL_M = 1e-9
"""Points within this distance [m] outside a bump chord count as on its edge (absorbs grid rounding)."""


class FlatRoad(Road):
    """Level road h(x) = height_m [m], slope 0, friction mu [-]."""

    def __init__(self, mu: float = 1.0, height_m: float = 0.0):
        self.mu = check_mu(mu, "FlatRoad")
        self.height_m = check_finite(height_m, "height_m", "FlatRoad")

    def height(self, x, y=None):
        x = along_x(x, y)
        return as_scalar_or_array(np.full(x.shape, self.height_m))

    def slope(self, x, y=None):
        x = along_x(x, y)
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

    def height(self, x, y=None):
        u = along_x(x, y) - self.start_x_m
        h = u * self.tan_angle
        if self.flat_before_start:
            h = np.where(u < 0.0, 0.0, h)
        return as_scalar_or_array(h)

    def slope(self, x, y=None):
        u = along_x(x, y) - self.start_x_m
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


BUMP_KEYS = ("start_x_m", "width_m", "height_m")
"""Keys every bump dict needs."""

BUMP_OPTIONAL_KEYS = ("y_min_m", "y_max_m", "side")
"""Keys a bump dict may add to limit it across y (one-sided bumps)."""

SIDES = {"both": (-math.inf, math.inf), "left": (0.0, math.inf), "right": (-math.inf, 0.0)}
"""``side`` of a bump -> its y span [m] (ISO 8855: y > 0 is left of the reference track)."""


class Span(NamedTuple):
    """Lateral extent of a bump: y_min_m <= y <= y_max_m [m]; +-inf for a side without an end."""

    y_min_m: float
    y_max_m: float

    @property
    def full_width(self) -> bool:
        """True when the bump spans every y."""
        return math.isinf(self.y_min_m) and math.isinf(self.y_max_m)


def _optional_y(value, field: str, owner: str, default: float) -> float:
    if value is None:
        return default
    return check_finite(value, field, owner)


def _parse_bump(entry, index: int) -> tuple[Bump, Span]:
    """A bump and its y span from (start_x_m, width_m, height_m) or {"start_x_m":, "width_m":, "height_m":} plus
    optional "y_min_m", "y_max_m" or "side" ("left", "right", "both")."""
    owner = f"SpeedBumpRoad: bumps[{index}]"
    span = (-math.inf, math.inf)
    if isinstance(entry, dict):
        unknown = sorted(set(entry) - set(BUMP_KEYS) - set(BUMP_OPTIONAL_KEYS))
        missing = [k for k in BUMP_KEYS if k not in entry]
        if unknown or missing:
            raise ModelError(f"{owner}: needs the keys {', '.join(BUMP_KEYS)} (optional: {', '.join(BUMP_OPTIONAL_KEYS)})"
                             + (f"; missing {', '.join(missing)}" if missing else "")
                             + (f"; unknown {', '.join(unknown)}" if unknown else ""))
        values = [entry[k] for k in BUMP_KEYS]
        if "side" in entry:
            if "y_min_m" in entry or "y_max_m" in entry:
                raise ModelError(f"{owner}: give either side or y_min_m/y_max_m, not both")
            if entry["side"] not in SIDES:
                raise ModelError(f"{owner}: side must be one of {', '.join(SIDES)}, got {entry['side']!r}")
            span = SIDES[entry["side"]]
        else:
            span = (_optional_y(entry.get("y_min_m"), "y_min_m", owner, -math.inf),
                    _optional_y(entry.get("y_max_m"), "y_max_m", owner, math.inf))
            if span[0] >= span[1]:
                raise ModelError(f"{owner}: y_min_m ({span[0]:g} m) must be less than y_max_m ({span[1]:g} m)")
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
    return Bump(start, width, height), Span(*span)


def smoothstep(t):
    """S(t) = t^2 (3 - 2 t) for t clipped to [0, 1], and dS/dt = 6 t (1 - t): 0 -> 1 with zero slope at both ends."""
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t), 6.0 * t * (1.0 - t)


def lateral_profile(y, span: Span, edge_m: float):
    """Lateral factor g(y) [-] of a bump with y span [a, b] and edge width e [m], and dg/dy [1/m]:

        g(y) = S((y - a)/e) S((b - y)/e)      (a factor is 1 where its end is infinite)

    so g = 0 outside [a, b], g = 1 on [a + e, b - e], and g rises smoothly (C1) over the edge width inside
    each finite end.
    """
    y = np.asarray(y, dtype=np.float64)
    g = np.ones(y.shape)
    dg = np.zeros(y.shape)
    if not math.isinf(span.y_min_m):
        up, d_up = smoothstep((y - span.y_min_m) / edge_m)
        g, dg = up, d_up / edge_m
    if not math.isinf(span.y_max_m):
        down, d_down = smoothstep((span.y_max_m - y) / edge_m)
        g, dg = g * down, dg * down - g * d_down / edge_m
    nan = np.isnan(y)
    return np.where(nan, np.nan, g), np.where(nan, np.nan, dg)


class SpeedBumpRoad(Road):
    """Level road (h = 0) with arc-section speed bumps (Dai et al. 2022 §4.1, Fig. 8), each across the whole
    width or across a y range only.

    Each bump is a circular segment with chord W = width_m and rise H = height_m, circle radius
    R = (W^2/4 + H^2)/(2H), centre x_c = start + W/2:

        h_b(x) = sqrt(R^2 - (x - x_c)^2) - (R - H)     for |x - x_c| <= W/2, else 0
        dh_b/dx = -(x - x_c) / sqrt(R^2 - (x - x_c)^2)

    A bump limited across y (``y_min_m``/``y_max_m`` or ``side``) is h_b(x) g_b(y) with the lateral factor of
    ``lateral_profile``: zero outside [y_min, y_max] and rising smoothly (C1) to 1 over ``edge_width_m``
    inside each finite end, so dh/dy = h_b(x) g_b'(y) stays finite (at most 1.5 H / edge_width_m). The road
    is h = sum_b h_b(x) g_b(y); bumps may overlap in x only where their y spans are disjoint.

    The NumPy methods evaluate this in closed form (bump chords are closed intervals). The kernel uses a
    table from the first bump start to the last bump end with spacing <= dx_m (default 2 mm) holding the
    exact h and dh/dx at the nodes; outside it the road is level. Linear interpolation errs by at most
    dx^2/8 * max|h''| = dx^2/8 * R^2/(R-H)^3 in height and dx^2/8 * 3 R^2 (W/2)/(R-H)^5 in slope inside a
    bump; the slope jump at each bump edge is spread over the one grid cell next to the edge, and an edge
    that falls between nodes adds a height error below edge_slope * dx in its cell. With only full-width
    bumps the table is 1-D (y ignored); with y-limited bumps it is 2-D, with y nodes every <= dy_m (default
    edge_width_m / 10) across the lateral edges (outside them every g_b is constant, and the grid holds its
    edge), holding exact h, dh/dx and dh/dy; the lateral interpolation adds at most dy^2/8 * 6 H / e^2 in
    height. H < W/2.
    """

    def __init__(self, bumps, mu: float = 1.0, dx_m: float = 0.002, edge_width_m: float = 0.1,
                 dy_m: float | None = None):
        try:
            entries = list(bumps)
        except TypeError:
            raise ModelError(f"SpeedBumpRoad: bumps must be a list of bumps, got {bumps!r}") from None
        if not entries:
            raise ModelError("SpeedBumpRoad: bumps is empty; use FlatRoad for a road without bumps")
        self.edge_width_m = check_positive(edge_width_m, "edge_width_m", "SpeedBumpRoad")
        parsed = [(*_parse_bump(entry, i), i) for i, entry in enumerate(entries)]
        parsed.sort(key=lambda item: item[0].start_x_m)
        for k, (bump, span, i) in enumerate(parsed):
            width = span.y_max_m - span.y_min_m
            if width < 2.0 * self.edge_width_m:
                raise ModelError(f"SpeedBumpRoad: bumps[{i}] spans y {span.y_min_m:g} to {span.y_max_m:g} m, less than "
                                 f"twice edge_width_m ({self.edge_width_m:g} m)")
            for other, other_span, j in parsed[k + 1:]:
                if other.start_x_m >= bump.end_x_m - 1e-12:
                    break
                if other_span.y_min_m < span.y_max_m and span.y_min_m < other_span.y_max_m:
                    raise ModelError(f"SpeedBumpRoad: bumps[{j}] (from x = {other.start_x_m:g} m) overlaps bumps[{i}] "
                                     f"({bump.start_x_m:g} m to {bump.end_x_m:g} m)"
                                     + ("" if span.full_width and other_span.full_width else
                                        " where their y spans overlap"))
        self.bumps = [bump for bump, _, _ in parsed]
        self.spans = [span for _, span, _ in parsed]
        self.mu = check_mu(mu, "SpeedBumpRoad")
        self.dx_m = check_positive(dx_m, "dx_m", "SpeedBumpRoad")
        self.one_dimensional = all(span.full_width for span in self.spans)
        self.dy_m = (0.1 * self.edge_width_m if dy_m is None else check_positive(dy_m, "dy_m", "SpeedBumpRoad"))
        self.x_start_m = self.bumps[0].start_x_m
        self.x_end_m = max(bump.end_x_m for bump in self.bumps)
        span_x = self.x_end_m - self.x_start_m
        nx = span_x / self.dx_m + 1
        if nx > MAX_TABLE_POINTS:
            raise ModelError(f"SpeedBumpRoad: bumps span {span_x:g} m, which needs more than {MAX_TABLE_POINTS} nodes "
                             f"at dx_m = {self.dx_m:g} m; use a larger dx_m")
        if not self.one_dimensional:
            lo, hi = self._lateral_range()
            ny = (hi - lo) / self.dy_m + 1
            if nx * ny > MAX_TABLE_POINTS:
                raise ModelError(f"SpeedBumpRoad: a table over x {self.x_start_m:g} to {self.x_end_m:g} m and y {lo:g} "
                                 f"to {hi:g} m needs more than {MAX_TABLE_POINTS} nodes at dx_m = {self.dx_m:g} m, "
                                 f"dy_m = {self.dy_m:g} m; use a larger dx_m or dy_m")
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

    def _lateral_range(self) -> tuple[float, float]:
        """y range [m] covering every lateral edge (outside it every bump's lateral factor is constant)."""
        ends = []
        for span in self.spans:
            if not math.isinf(span.y_min_m):
                ends += [span.y_min_m, span.y_min_m + self.edge_width_m]
            if not math.isinf(span.y_max_m):
                ends += [span.y_max_m - self.edge_width_m, span.y_max_m]
        return min(ends), max(ends)

    @staticmethod
    def _bump(bump: Bump, x: np.ndarray):
        """(on, rise h_b [m], slope dh_b/dx [-]) of one bump at x [m] (closed form, see the class docstring)."""
        half = 0.5 * bump.width_m
        radius = bump.radius_m
        u = x - bump.center_x_m
        on = np.abs(u) <= half + EDGE_TOL_M
        uc = np.clip(u, -half, half)
        root = np.sqrt(radius * radius - uc * uc)
        # sqrt(R^2 - u^2) - (R - H) without cancellation, since R^2 - (R - H)^2 = W^2/4: exactly 0 at the edges
        rise = (half - uc) * (half + uc) / (root + (radius - bump.height_m))
        return on, rise, -uc / root

    def _profile(self, x):
        """(h, dh/dx) of full-width bumps along x."""
        x = np.asarray(x, dtype=np.float64)
        h = np.zeros(x.shape)
        s = np.zeros(x.shape)
        for bump in self.bumps:
            on, rise, slope = self._bump(bump, x)
            h = np.where(on, rise, h)
            s = np.where(on, slope, s)
        nan = np.isnan(x)
        return np.where(nan, np.nan, h), np.where(nan, np.nan, s)

    def _surface(self, x, y):
        """(h, dh/dx, dh/dy) at (x, y) [m], broadcast: sum over the bumps of h_b(x) g_b(y)."""
        x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
        h = np.zeros(x.shape)
        sx = np.zeros(x.shape)
        sy = np.zeros(x.shape)
        for bump, span in zip(self.bumps, self.spans):
            on, rise, slope = self._bump(bump, x)
            g, dg = lateral_profile(y, span, self.edge_width_m)
            h = h + np.where(on, rise * g, 0.0)
            sx = sx + np.where(on, slope * g, 0.0)
            sy = sy + np.where(on, rise * dg, 0.0)
        nan = np.isnan(x) | np.isnan(y)
        return np.where(nan, np.nan, h), np.where(nan, np.nan, sx), np.where(nan, np.nan, sy)

    def height(self, x, y=None):
        if self.one_dimensional:
            return as_scalar_or_array(self._profile(along_x(x, y))[0])
        return as_scalar_or_array(self._surface(*xy_arrays(x, y))[0])

    def slope(self, x, y=None):
        if self.one_dimensional:
            return as_scalar_or_array(self._profile(along_x(x, y))[1])
        return as_scalar_or_array(self._surface(*xy_arrays(x, y))[1])

    def slope_y(self, x, y=None):
        if self.one_dimensional:
            return super().slope_y(x, y)
        return as_scalar_or_array(self._surface(*xy_arrays(x, y))[2])

    def to_arrays(self) -> RoadArrays:
        if self._arrays is None:
            nodes, dx = uniform_nodes(self.bumps[0].start_x_m, self.bumps[-1].end_x_m if self.one_dimensional
                                      else self.x_end_m, self.dx_m)
            if self.one_dimensional:
                h, s = self._profile(nodes)
                self._arrays = table_arrays(self.mu, nodes[0], dx, h, s)
            else:
                y_nodes, dy = uniform_nodes(*self._lateral_range(), self.dy_m)
                h, sx, sy = self._surface(nodes[:, None], y_nodes[None, :])
                self._arrays = grid_arrays(self.mu, nodes[0], dx, y_nodes[0], dy, h, sx, sy)
        return self._arrays

    def describe(self) -> str:
        def where(span: Span) -> str:
            if span.full_width:
                return ""
            return f" y {span.y_min_m:g} to {span.y_max_m:g} m"
        items = ", ".join(f"x={b.start_x_m:g} m W={b.width_m:g} m H={b.height_m:g} m{where(sp)}"
                          for b, sp in zip(self.bumps, self.spans))
        lateral = "" if self.one_dimensional else f", edge width {self.edge_width_m:g} m, table dy {self.dy_m:g} m"
        return (f"speed-bump road: {len(self.bumps)} arc bumps ({items}), table dx {self.dx_m:g} m{lateral}, "
                f"mu {self.mu:g}")
