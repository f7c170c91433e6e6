"""ISO 3888-1 double lane change: the cone track for a vehicle width, its centre line for a path-following
driver, and the run's KPIs (gates passed, cones hit, path error, peak lateral acceleration and yaw rate).

Track (ISO 3888-1:2018, Table 1; w = vehicle width [m], lengths along x from the entry of section 1)

    section   length   lane width        lane position
    1         15 m     1.1 w + 0.25 m    centred on y = 0 (the entry lane)
    2         30 m     -                 free (change to the left)
    3         25 m     1.2 w + 0.25 m    its right-hand line lane_offset_m = 3.5 m left of that of section 1
    4         25 m     -                 free (change back)
    5         15 m     1.3 w + 0.25 m    its right-hand line in line with that of section 1
    6         15 m     1.3 w + 0.25 m    as section 5

The 3.5 m offset is applied between the right-hand cone lines (see docs/handling.md §5 for this reading and
the alternative one). The centre line (:func:`centre_line`) joins the lane centres across sections 2 and 4
with the quintic smoothstep y = y0 + (y1 - y0) (10 u^3 - 15 u^4 + 6 u^5), u = (x - x0) / (x1 - x0), whose
slope and curvature vanish at both ends (continuous curvature for the driver's feed-forward).

KPIs (:func:`lane_change_kpis`): the vehicle body is a rectangle of the vehicle width reaching ``front_m``
ahead of and ``rear_m`` behind the reference point (x, y) along the heading; a gated section is passed when
no body corner inside its x range crosses its lines; a cone (at both ends and the middle of every line of a
gated section, its base circle of ``cone_radius_m`` tangent to the line from outside) is hit when a body
corner crosses the line within the cone's base. The run is first resampled so that the reference point
moves at most 2 cm between samples. Described in docs/handling.md §5.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fmu_vehicle.driver.path import DEFAULT_DS_M, Path
from fmu_vehicle.errors import ModelError

SECTION_LENGTHS_M = (15.0, 30.0, 25.0, 25.0, 15.0, 15.0)
"""Lengths of sections 1 to 6 [m] (ISO 3888-1:2018, Table 1)."""
LANE_OFFSET_M = 3.5
"""Lateral offset of the lane of section 3 [m] (ISO 3888-1:2018, Table 1), between right-hand lines."""
TEST_SPEED_KMH = 80.0
"""Entry speed of the standard's test [km/h] (ISO 3888-1: 80 +- 3 km/h)."""


@dataclass(frozen=True)
class Gate:
    """A gated section: x range [m] and its right and left cone lines y [m]."""

    name: str
    x_start: float
    x_end: float
    y_right: float
    y_left: float

    @property
    def centre(self) -> float:
        return 0.5 * (self.y_right + self.y_left)

    @property
    def width(self) -> float:
        return self.y_left - self.y_right

    def cones(self) -> list[tuple[float, float, str]]:
        """(x, y, side) of the cones of this gate: ends and middle of each line."""
        xs = (self.x_start, 0.5 * (self.x_start + self.x_end), self.x_end)
        return [(x, self.y_right, "right") for x in xs] + [(x, self.y_left, "left") for x in xs]


@dataclass(frozen=True)
class DoubleLaneChange:
    """The ISO 3888-1 track for one vehicle width: its gated sections and the free sections between."""

    vehicle_width_m: float
    gates: tuple[Gate, ...]
    transitions: tuple[tuple[float, float], ...]   # (x_start, x_end) of sections 2 and 4

    @property
    def end_x(self) -> float:
        return self.gates[-1].x_end

    def cones(self) -> list[tuple[float, float, str]]:
        return [c for g in self.gates for c in g.cones()]


def iso3888_1_layout(vehicle_width_m: float, *, lane_offset_m: float = LANE_OFFSET_M,
                     left: bool = True) -> DoubleLaneChange:
    """The cone track of ISO 3888-1 for a vehicle of width ``vehicle_width_m`` [m] (module docstring);
    ``left``: change to the left first (the standard's layout), else mirrored to the right."""
    if not (isinstance(vehicle_width_m, (int, float)) and math.isfinite(vehicle_width_m)
            and 0.5 <= vehicle_width_m <= 3.0):
        raise ModelError(f"double lane change: vehicle_width_m must be a number in 0.5 .. 3.0 m, got {vehicle_width_m!r}")
    if not (math.isfinite(lane_offset_m) and lane_offset_m > 0.0):
        raise ModelError(f"double lane change: lane_offset_m must be positive, got {lane_offset_m!r}")
    w = float(vehicle_width_m)
    x = np.concatenate(([0.0], np.cumsum(SECTION_LENGTHS_M)))
    w1, w3, w5 = 1.1 * w + 0.25, 1.2 * w + 0.25, 1.3 * w + 0.25
    r1 = -0.5 * w1
    r3 = r1 + lane_offset_m
    lanes = [("section 1", x[0], x[1], r1, r1 + w1), ("section 3", x[2], x[3], r3, r3 + w3),
             ("section 5", x[4], x[5], r1, r1 + w5), ("section 6", x[5], x[6], r1, r1 + w5)]
    if not left:
        lanes = [(n, a, b, -yl, -yr) for n, a, b, yr, yl in lanes]
    gates = tuple(Gate(n, float(a), float(b), float(yr), float(yl)) for n, a, b, yr, yl in lanes)
    return DoubleLaneChange(w, gates, ((float(x[1]), float(x[2])), (float(x[3]), float(x[4]))))


def centre_line(track: DoubleLaneChange, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """y(x) [m], dy/dx and d2y/dx2 [1/m] of the centre line through the lane centres of ``track``
    (quintic smoothstep across sections 2 and 4, straight before section 1 and after section 6)."""
    x = np.asarray(x, dtype=float)
    g1, g3, g5 = track.gates[0], track.gates[1], track.gates[2]
    y = np.full(x.shape, g1.centre)
    dy = np.zeros(x.shape)
    ddy = np.zeros(x.shape)
    for (x0, x1), y0, y1 in zip(track.transitions, (g1.centre, g3.centre), (g3.centre, g5.centre)):
        d = x1 - x0
        u = np.clip((x - x0) / d, 0.0, 1.0)
        inside = (x > x0) & (x < x1)
        after = x >= x1
        h = y1 - y0
        y = np.where(after, y1, np.where(inside, y0 + h * u ** 3 * (10.0 - 15.0 * u + 6.0 * u * u), y))
        dy = np.where(inside, h * 30.0 * u * u * (1.0 - u) ** 2 / d, dy)
        ddy = np.where(inside, h * 60.0 * u * (1.0 - u) * (1.0 - 2.0 * u) / (d * d), ddy)
    return y, dy, ddy


# ------------------------------------------------------------------------------------------ KPIs

def _densify(t, cols, x, y, max_step_m: float):
    """Resample the run linearly so that (x, y) moves at most ``max_step_m`` between samples."""
    step = np.hypot(np.diff(x), np.diff(y))
    sub = np.maximum(1, np.ceil(step / max_step_m).astype(int))
    if np.all(sub == 1):
        return t, cols
    frac = np.concatenate([np.arange(k) / k for k in sub] + [np.zeros(1)])
    idx = np.concatenate([np.full(k, i) for i, k in enumerate(sub)] + [np.array([t.size - 1])])
    nxt = np.minimum(idx + 1, t.size - 1)
    lerp = lambda a: a[idx] + frac * (a[nxt] - a[idx])  # noqa: E731
    return lerp(t), [lerp(c) for c in cols]


def body_corners(x, y, yaw, width_m: float, front_m: float = 0.0, rear_m: float = 0.0):
    """Corners (x, y) [m] of the body rectangle at every sample: arrays of shape (corners, samples); two
    corners (left, right at the reference point) when ``front_m`` = ``rear_m`` = 0."""
    c, s = np.cos(yaw), np.sin(yaw)
    longs = (front_m, -rear_m) if (front_m or rear_m) else (0.0,)
    cx, cy = [], []
    for lx in longs:
        for ly in (0.5 * width_m, -0.5 * width_m):
            cx.append(x + lx * c - ly * s)
            cy.append(y + lx * s + ly * c)
    return np.array(cx), np.array(cy)


def lane_change_kpis(t, x, y, yaw, ay, vehicle_width, *, track: DoubleLaneChange | None = None, path=None,
                     yaw_rate=None, front_m: float = 0.0, rear_m: float = 0.0,
                     cone_radius_m: float = 0.15) -> dict:
    """KPIs of a double-lane-change run (time series of the reference point, module docstring).

    t [s], x, y [m], yaw [rad], ay [m/s^2]; vehicle_width [m]; track: the cone track (default the ISO
    3888-1 layout for ``vehicle_width``); path: the centre line for the path error (default
    ``Path.double_lane_change`` of the track's width); yaw_rate [rad/s] (default d yaw/dt).

    Returns gates_passed, gates_total, cones_hit, violations [(gate, x of the first violation)],
    max_path_error_m (largest |lateral distance| from the centre line between the entry of section 1 and
    the end of the track), peak_ay_m_s2 and peak_yaw_rate_rad_s (largest magnitudes over the same range),
    completed (the reference point got past the track end)."""
    t, x, y, yaw, ay = (np.asarray(a, dtype=float).ravel() for a in (t, x, y, yaw, ay))
    n = t.size
    for name, a in (("x", x), ("y", y), ("yaw", yaw), ("ay", ay)):
        if a.size != n:
            raise ModelError(f"lane_change_kpis: {name} has {a.size} samples, t has {n}")
    if n < 2:
        raise ModelError("lane_change_kpis: a run needs at least 2 samples")
    yaw = np.unwrap(yaw)
    r = np.gradient(yaw, t) if yaw_rate is None else np.asarray(yaw_rate, dtype=float).ravel()
    track = track or iso3888_1_layout(vehicle_width)
    if path is None:
        path = lane_change_path(track.vehicle_width_m)
    td, (xd, yd, yawd) = _densify(t, [x, y, yaw], x, y, 0.02)
    cx, cy = body_corners(xd, yd, yawd, float(vehicle_width), front_m, rear_m)

    violations = []
    for gate in track.gates:
        inside = (cx >= gate.x_start) & (cx <= gate.x_end)
        bad = inside & ((cy > gate.y_left) | (cy < gate.y_right))
        if bad.any():
            violations.append((gate.name, float(cx[bad].min())))
    reached = bool(np.max(x) >= track.end_x)
    gates_passed = sum(1 for g in track.gates if g.name not in {v[0] for v in violations}
                       and (np.max(x) >= g.x_end))

    cones_hit = 0
    for gate in track.gates:
        for xc, yc, side in gate.cones():
            near = (cx >= xc - cone_radius_m) & (cx <= xc + cone_radius_m)
            if side == "left":
                hit = near & (cy > yc)
            else:
                hit = near & (cy < yc)
            cones_hit += bool(hit.any())

    on_track = (x >= 0.0) & (x <= track.end_x)
    if not on_track.any():
        raise ModelError("lane_change_kpis: the run never enters the track (x from 0 to "
                         f"{track.end_x:g} m)")
    _, e = path.project(x[on_track], y[on_track])
    return {
        "gates_passed": int(gates_passed),
        "gates_total": len(track.gates),
        "cones_hit": int(cones_hit),
        "violations": violations,
        "completed": reached,
        "max_path_error_m": float(np.max(np.abs(e))),
        "peak_ay_m_s2": float(np.max(np.abs(ay[on_track]))),
        "peak_yaw_rate_rad_s": float(np.max(np.abs(r[on_track]))),
    }


def lane_change_path(vehicle_width_m: float, *, run_in_m: float = 60.0, run_out_m: float = 60.0,
                     ds: float = DEFAULT_DS_M, **layout):
    """The centre line of the ISO 3888-1 double lane change for a vehicle of ``vehicle_width_m`` as a
    driver ``Path`` (gate geometry and transitions: :func:`centre_line`), with a straight run-in before the
    first gate (x < 0) and a run-out after the last."""
    track = iso3888_1_layout(vehicle_width_m, **layout)
    x = np.arange(-run_in_m, track.end_x + run_out_m + 0.5 * ds, ds)
    y, dy, ddy = centre_line(track, x)
    heading = np.arctan(dy)
    curvature = ddy / (1.0 + dy * dy) ** 1.5
    return Path(x, y, heading, curvature, name=f"ISO 3888-1 double lane change (width {vehicle_width_m:g} m)")
