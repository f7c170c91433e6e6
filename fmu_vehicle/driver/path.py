"""A path in the road plane: (x, y) against arc length, with heading and curvature, and the
nearest-point query a driver makes at every step.

A :class:`Path` holds points sampled densely along the curve (``ds`` about 0.1 m) with their arc length
s [m], heading psi(s) [rad] (unwrapped, ISO 8855: from +x towards +y) and curvature kappa(s) = dpsi/ds
[1/m] (+ = turning left). Between samples the position is the chord (a polyline), heading and curvature
are linear in s. An open path continues straight along its end tangents (kappa = 0) so that a preview
point past either end is defined; a closed path (a circle) wraps s modulo its length.

The nearest-point query (:func:`nearest_segment`) walks from a hint segment to the neighbour that is
nearer until neither is: along a run the point moves a few samples per call, so a query costs O(1)
amortised; without a hint the first query scans every segment. The signed lateral error of a point P
from its foot F on the segment of heading psi is

    e = -sin(psi) (P_x - F_x) + cos(psi) (P_y - F_y)          (+ = P lies left of the path)

Constructors: :meth:`Path.straight`, :meth:`Path.circle`, :meth:`Path.double_lane_change` (the ISO 3888-1
centre line of ``fmu_vehicle.manoeuvres.lane_change``), :meth:`Path.from_points` (a cubic spline through
points, parameterised by chord length) and :meth:`Path.from_csv` (columns ``x_m,y_m``). Described in
docs/handling.md §3.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path as _FsPath

import numpy as np

from fmu_vehicle.numerics import elementary as em
from fmu_vehicle.errors import ModelError
from fmu_vehicle.numerics.jit import njit

DEFAULT_DS_M = 0.1
"""Sample spacing [m] of the constructed paths: the chord of an arc of radius R deviates from it by
ds^2 / (8 R), 0.03 mm at R = 40 m."""


# ------------------------------------------------------------------------------------------ kernels

@njit
def _segment_distance2(px, py, xs, ys, i):
    """(squared distance, u in [0, 1]) of point P from the segment from sample i to sample i + 1."""
    dx = xs[i + 1] - xs[i]
    dy = ys[i + 1] - ys[i]
    l2 = dx * dx + dy * dy
    u = 0.0
    if l2 > 0.0:
        u = ((px - xs[i]) * dx + (py - ys[i]) * dy) / l2
        u = min(1.0, max(0.0, u))
    fx = xs[i] + u * dx - px
    fy = ys[i] + u * dy - py
    return fx * fx + fy * fy, u


@njit
def nearest_segment(px, py, xs, ys, hint, closed):
    """Segment index i and parameter u in [0, 1] of the point of the polyline (xs, ys) nearest to P.

    hint >= 0: walk from segment ``hint`` towards the nearer neighbour until no neighbour is nearer
    (indices wrap on a closed polyline, whose last sample repeats the first); hint < 0: scan all."""
    nseg = xs.size - 1
    if hint < 0 or hint >= nseg:
        best = 0
        bd, bu = _segment_distance2(px, py, xs, ys, 0)
        for i in range(1, nseg):
            d, u = _segment_distance2(px, py, xs, ys, i)
            if d < bd:
                best, bd, bu = i, d, u
        return best, bu
    i = hint
    d, u = _segment_distance2(px, py, xs, ys, i)
    for direction in (1, -1):
        moved = False
        for _ in range(nseg):
            j = i + direction
            if closed:
                j = j % nseg
            elif j < 0 or j >= nseg:
                break
            dj, uj = _segment_distance2(px, py, xs, ys, j)
            if dj < d:
                i, d, u = j, dj, uj
                moved = True
            else:
                break
        if moved:
            break
    return i, u


@njit(allocates=True)
def project_run(px, py, xs, ys, ss, closed):
    """Arc length s [m], signed lateral error e [m] (+ = left) and segment index of each point of a run
    (arrays px, py), each query starting from the previous answer."""
    n = px.size
    s_out = np.empty(n)
    e_out = np.empty(n)
    i = -1
    for k in range(n):
        i, u = nearest_segment(px[k], py[k], xs, ys, i, closed)
        fx = xs[i] + u * (xs[i + 1] - xs[i])
        fy = ys[i] + u * (ys[i + 1] - ys[i])
        h = em.atan2(ys[i + 1] - ys[i], xs[i + 1] - xs[i])
        s_out[k] = ss[i] + u * (ss[i + 1] - ss[i])
        e_out[k] = -em.sin(h) * (px[k] - fx) + em.cos(h) * (py[k] - fy)
    return s_out, e_out


# ------------------------------------------------------------------------------------------ the path

@dataclass(frozen=True)
class Projection:
    """The foot of a point on a path: arc length s [m], signed lateral error e [m] (+ = point left of the
    path), path heading psi [rad] and curvature kappa [1/m] there, and the segment index (the next hint)."""

    s: float
    lateral_error: float
    heading: float
    curvature: float
    segment: int


class Path:
    """A plane curve sampled at arc lengths ``s`` (see the module docstring).

    x, y          sample positions [m] (for a closed path the last sample equals the first)
    heading       psi at the samples [rad], unwrapped; None: from the chords
    curvature     kappa at the samples [1/m]; None: d psi / d s of the chords
    """

    def __init__(self, x, y, heading=None, curvature=None, *, closed: bool = False, name: str = "path"):
        x = np.ascontiguousarray(x, dtype=float)
        y = np.ascontiguousarray(y, dtype=float)
        if x.ndim != 1 or x.shape != y.shape:
            raise ModelError(f"{name}: x and y must be 1-D arrays of one length, got {x.shape} and {y.shape}")
        if x.size < 2:
            raise ModelError(f"{name}: a path needs at least 2 points, got {x.size}")
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise ModelError(f"{name}: the coordinates contain a value that is not a finite number")
        chord = np.hypot(np.diff(x), np.diff(y))
        if np.any(chord <= 0.0):
            k = int(np.flatnonzero(chord <= 0.0)[0])
            raise ModelError(f"{name}: points {k + 1} and {k + 2} coincide ({x[k]:g}, {y[k]:g})")
        self.name = name
        self.closed = bool(closed)
        self.x, self.y = x, y
        self.s = np.concatenate(([0.0], np.cumsum(chord)))
        if heading is None:
            h = np.unwrap(np.arctan2(np.diff(y), np.diff(x)))
            heading = np.concatenate((h[:1], 0.5 * (h[:-1] + h[1:]), h[-1:])) if h.size > 1 else np.repeat(h, 2)
        self.heading = np.unwrap(np.ascontiguousarray(heading, dtype=float))
        if curvature is None:
            curvature = np.gradient(self.heading, self.s) if x.size > 2 else np.zeros(x.size)
        self.curvature = np.ascontiguousarray(curvature, dtype=float)
        if self.heading.shape != x.shape or self.curvature.shape != x.shape:
            raise ModelError(f"{name}: heading and curvature need one value per point")

    # ------------------------------------------------------------------ queries

    @property
    def length(self) -> float:
        """Arc length of the path [m] (one lap of a closed path)."""
        return float(self.s[-1])

    def at(self, s: float) -> tuple[float, float, float, float]:
        """(x [m], y [m], heading [rad], curvature [1/m]) at arc length ``s`` [m] (wrapped on a closed path,
        continued straight along the end tangent before the start and after the end of an open one)."""
        s = float(s)
        L = self.length
        turns = 0.0
        if self.closed:
            laps = math.floor(s / L)
            s -= laps * L
            turns = laps * (self.heading[-1] - self.heading[0])
        elif s <= 0.0 or s >= L:
            k = 0 if s <= 0.0 else -1
            extra = s if s <= 0.0 else s - L
            h = float(self.heading[k])
            return (float(self.x[k]) + extra * math.cos(h), float(self.y[k]) + extra * math.sin(h), h, 0.0)
        i = min(int(np.searchsorted(self.s, s, side="right")) - 1, self.s.size - 2)
        u = (s - self.s[i]) / (self.s[i + 1] - self.s[i])
        lerp = lambda a: float(a[i] + u * (a[i + 1] - a[i]))  # noqa: E731
        return lerp(self.x), lerp(self.y), lerp(self.heading) + turns, lerp(self.curvature)

    def nearest(self, x: float, y: float, hint: int | None = None) -> Projection:
        """The foot of (x, y) on the path; ``hint``: the segment of the previous answer (None: scan all)."""
        i, u = nearest_segment(float(x), float(y), self.x, self.y, -1 if hint is None else int(hint), self.closed)
        fx = self.x[i] + u * (self.x[i + 1] - self.x[i])
        fy = self.y[i] + u * (self.y[i + 1] - self.y[i])
        h = math.atan2(self.y[i + 1] - self.y[i], self.x[i + 1] - self.x[i])
        e = -math.sin(h) * (x - fx) + math.cos(h) * (y - fy)
        s = float(self.s[i] + u * (self.s[i + 1] - self.s[i]))
        psi = float(self.heading[i] + u * (self.heading[i + 1] - self.heading[i]))
        kappa = float(self.curvature[i] + u * (self.curvature[i + 1] - self.curvature[i]))
        return Projection(s, float(e), psi, kappa, int(i))

    def project(self, x, y) -> tuple[np.ndarray, np.ndarray]:
        """Arc length s [m] and signed lateral error e [m] (+ = left) of every point of a run (arrays)."""
        px = np.ascontiguousarray(x, dtype=float)
        py = np.ascontiguousarray(y, dtype=float)
        if px.shape != py.shape or px.ndim != 1:
            raise ModelError(f"{self.name}: x and y of a run must be 1-D arrays of one length")
        if px.size == 0:
            return np.zeros(0), np.zeros(0)
        return project_run(px, py, self.x, self.y, self.s, self.closed)

    def __repr__(self) -> str:
        return f"Path({self.name!r}, {self.x.size} points, length {self.length:.1f} m{', closed' if self.closed else ''})"

    # ------------------------------------------------------------------ constructors

    @classmethod
    def straight(cls, length_m: float, *, start=(0.0, 0.0), heading_rad: float = 0.0,
                 ds: float = DEFAULT_DS_M) -> "Path":
        """A straight line of ``length_m`` from ``start`` [m] along ``heading_rad``."""
        _positive("straight path", "length_m", length_m)
        n = max(2, int(math.ceil(length_m / ds)) + 1)
        s = np.linspace(0.0, length_m, n)
        return cls(start[0] + s * math.cos(heading_rad), start[1] + s * math.sin(heading_rad),
                   np.full(n, float(heading_rad)), np.zeros(n), name=f"straight {length_m:g} m")

    @classmethod
    def circle(cls, radius_m: float, *, start=(0.0, 0.0), heading_rad: float = 0.0, left: bool = True,
               ds: float = DEFAULT_DS_M) -> "Path":
        """A closed circle of ``radius_m`` through ``start`` with tangent ``heading_rad`` there, turning left
        (centre on the +y side of the start heading) or right."""
        _positive("circle path", "radius_m", radius_m)
        sign = 1.0 if left else -1.0
        n = max(16, int(math.ceil(2.0 * math.pi * radius_m / ds))) + 1
        phi = np.linspace(0.0, 2.0 * math.pi, n)
        cx = start[0] - sign * radius_m * math.sin(heading_rad)
        cy = start[1] + sign * radius_m * math.cos(heading_rad)
        h = heading_rad + sign * phi
        x = cx + sign * radius_m * np.sin(h)
        y = cy - sign * radius_m * np.cos(h)
        x[-1], y[-1] = x[0], y[0]
        return cls(x, y, h, np.full(n, sign / radius_m), closed=True,
                   name=f"circle R {radius_m:g} m {'left' if left else 'right'}")

    @classmethod
    def from_points(cls, x, y, *, closed: bool = False, ds: float = DEFAULT_DS_M, name: str = "path") -> "Path":
        """A cubic spline through the points (x, y) [m], parameterised by chord length and resampled every
        ``ds``; heading and curvature from its derivatives, kappa = (x' y'' - y' x'') / (x'^2 + y'^2)^(3/2).
        Two points give a straight line; ``closed`` joins the last point to the first periodically."""
        from scipy.interpolate import CubicSpline

        x = np.asarray(x, dtype=float).ravel()
        y = np.asarray(y, dtype=float).ravel()
        if x.size != y.size:
            raise ModelError(f"{name}: {x.size} x values but {y.size} y values")
        if x.size < 2:
            raise ModelError(f"{name}: a path needs at least 2 points, got {x.size}")
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise ModelError(f"{name}: the coordinates contain a value that is not a finite number")
        if closed and (x[0] != x[-1] or y[0] != y[-1]):
            x, y = np.append(x, x[0]), np.append(y, y[0])
        chord = np.hypot(np.diff(x), np.diff(y))
        if np.any(chord <= 0.0):
            k = int(np.flatnonzero(chord <= 0.0)[0])
            raise ModelError(f"{name}: points {k + 1} and {k + 2} coincide ({x[k]:g}, {y[k]:g})")
        if x.size == 2 and not closed:
            h = math.atan2(y[1] - y[0], x[1] - x[0])
            return cls.straight(float(chord[0]), start=(x[0], y[0]), heading_rad=h, ds=ds)
        u = np.concatenate(([0.0], np.cumsum(chord)))
        bc = "periodic" if closed else "not-a-knot" if x.size > 3 else "natural"
        sx, sy = CubicSpline(u, x, bc_type=bc), CubicSpline(u, y, bc_type=bc)
        uu = np.linspace(0.0, u[-1], max(int(math.ceil(u[-1] / ds)) + 1, 3))
        dx, dy, ddx, ddy = sx(uu, 1), sy(uu, 1), sx(uu, 2), sy(uu, 2)
        xs, ys = sx(uu), sy(uu)
        if closed:
            xs[-1], ys[-1] = xs[0], ys[0]
        heading = np.unwrap(np.arctan2(dy, dx))
        curvature = (dx * ddy - dy * ddx) / np.maximum(dx * dx + dy * dy, 1e-12) ** 1.5
        return cls(xs, ys, heading, curvature, closed=closed, name=name)

    @classmethod
    def from_csv(cls, path, *, closed: bool = False, ds: float = DEFAULT_DS_M) -> "Path":
        """A path from a CSV file with a header row naming the columns ``x_m`` and ``y_m`` (other columns
        are ignored; lines starting with ``#`` are comments), through :meth:`from_points`."""
        path = _FsPath(path)
        try:
            lines = [ln for ln in path.read_text(encoding="utf-8").splitlines()
                     if ln.strip() and not ln.lstrip().startswith("#")]
        except OSError as exc:
            raise ModelError(f"{path}: cannot read the path file ({exc.strerror or exc})") from None
        if not lines:
            raise ModelError(f"{path}: the path file is empty")
        reader = csv.reader(lines)
        header = [h.strip() for h in next(reader)]
        for column in ("x_m", "y_m"):
            if column not in header:
                raise ModelError(f"{path}: no column {column!r} in the header {','.join(header)!r}")
        ix, iy = header.index("x_m"), header.index("y_m")
        xs, ys = [], []
        for number, row in enumerate(reader, start=2):
            try:
                xs.append(float(row[ix]))
                ys.append(float(row[iy]))
            except (ValueError, IndexError):
                raise ModelError(f"{path}: data row {number - 1}: x_m, y_m must be numbers, got {row!r}") from None
        return cls.from_points(xs, ys, closed=closed, ds=ds, name=str(path))


def _positive(what: str, field: str, value) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0.0):
        raise ModelError(f"{what}: {field} must be a positive number, got {value!r}")
