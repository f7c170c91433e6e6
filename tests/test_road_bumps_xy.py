"""One-sided speed bumps: closed form h_b(x) g_b(y), smooth lateral edges, kernel table within its bounds."""
import math

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.road import SpeedBumpRoad, load_road, road_eval_xy_points
from fmu_vehicle.road.arrays import grid_lookup

W, H, START, E = 0.5, 0.06, 20.0, 0.1


def arc(x, start=START, width=W, height=H):
    """Independent transcription of the arc bump: circle of radius R through the chord ends and the peak."""
    radius = (width ** 2 / 4 + height ** 2) / (2 * height)
    u = x - (start + width / 2)
    on = np.abs(u) <= width / 2
    root = np.sqrt(np.maximum(radius ** 2 - u ** 2, 0.0))
    return np.where(on, root - (radius - height), 0.0), np.where(on, -u / root, 0.0)


def lateral(y, y_min, y_max, e=E):
    """g(y) = S((y - y_min)/e) S((y_max - y)/e), S(t) = 3t^2 - 2t^3 on [0, 1]; and dg/dy."""
    def s(t):
        t = np.clip(t, 0.0, 1.0)
        return 3 * t ** 2 - 2 * t ** 3, 6 * t - 6 * t ** 2
    a, da = s((y - y_min) / e) if np.isfinite(y_min) else (np.ones_like(y), np.zeros_like(y))
    b, db = s((y_max - y) / e) if np.isfinite(y_max) else (np.ones_like(y), np.zeros_like(y))
    return a * b, (da * b - a * db) / e


def kernel_xy(road, xs, ys):
    out = np.zeros((len(xs), 4))
    road_eval_xy_points(road.to_arrays(), np.asarray(xs, float), np.asarray(ys, float), out)
    return out


@pytest.mark.parametrize("span, y_min, y_max", [({"side": "left"}, 0.0, math.inf), ({"side": "right"}, -math.inf, 0.0),
                                                ({"y_min_m": -1.6, "y_max_m": -0.4}, -1.6, -0.4)])
def test_closed_form_and_kernel_within_bounds(span, y_min, y_max):
    road = SpeedBumpRoad([{"start_x_m": START, "width_m": W, "height_m": H, **span}], edge_width_m=E)
    rng = np.random.default_rng(5)
    xs = np.concatenate([rng.uniform(START - 0.2, START + W + 0.2, 6000), np.full(200, START + W / 2)])
    ys = np.concatenate([rng.uniform(-2.5, 2.5, 6000), rng.uniform(-2.5, 2.5, 200)])
    rise, slope = arc(xs)
    g, dg = lateral(ys, y_min, y_max)
    np.testing.assert_allclose(road.height(xs, ys), rise * g, rtol=0, atol=1e-15)
    np.testing.assert_allclose(road.slope(xs, ys), slope * g, rtol=0, atol=1e-12)
    np.testing.assert_allclose(road.slope_y(xs, ys), rise * dg, rtol=0, atol=1e-13)
    # the bump spans exactly [y_min, y_max]: zero outside, full height at least one edge width inside
    assert np.all(road.height(xs[(ys < y_min) | (ys > y_max)], ys[(ys < y_min) | (ys > y_max)]) == 0.0)
    full = (ys >= y_min + E) & (ys <= y_max - E)
    np.testing.assert_allclose(road.height(xs[full], ys[full]), rise[full], rtol=0, atol=1e-15)
    # smooth edges: dh/dy finite, at most 1.5 H / e (the steepest point of S at t = 1/2, on the bump's peak)
    assert np.max(np.abs(road.slope_y(xs, ys))) <= 1.5 * H / E * (1 + 1e-12)
    assert np.max(np.abs(road.slope_y(xs, ys))) > 1.2 * H / E
    # kernel: a 2-D table; h within the x bound plus the y bound, slopes close, and equal to the NumPy twin
    arrays = road.to_arrays()
    assert arrays.ny > 1
    out = kernel_xy(road, xs, ys)
    radius = (W ** 2 / 4 + H ** 2) / (2 * H)
    bound_x = arrays.dx ** 2 / 8 * radius ** 2 / (radius - H) ** 3
    bound_y = arrays.dy ** 2 / 8 * 6 * H / E ** 2
    assert np.max(np.abs(out[:, 0] - rise * g)) <= bound_x + bound_y
    h, sx, sy = grid_lookup(arrays, xs, ys)
    np.testing.assert_array_equal(out[:, 0], h)
    np.testing.assert_array_equal(out[:, 3], sy)
    # away from the bump's x edges (slope jump) and the lateral ramp corners, slopes follow the closed form
    smooth = (np.abs(xs - START) > 0.01) & (np.abs(xs - START - W) > 0.01)
    assert np.max(np.abs(out[smooth, 3] - (rise * dg)[smooth])) < 0.02
    assert np.max(np.abs(out[smooth, 1] - (slope * g)[smooth])) < 0.02


def test_finite_difference_slopes_of_the_closed_form_and_the_kernel():
    road = SpeedBumpRoad([{"start_x_m": 0.0, "width_m": W, "height_m": H, "y_min_m": -0.5, "y_max_m": 0.5}],
                         dx_m=0.001, dy_m=0.002)
    rng = np.random.default_rng(8)
    xs, ys = rng.uniform(0.02, W - 0.02, 400), rng.uniform(-0.6, 0.6, 400)
    d = 1e-6
    np.testing.assert_allclose((road.height(xs + d, ys) - road.height(xs - d, ys)) / (2 * d), road.slope(xs, ys),
                               rtol=0, atol=1e-7)
    np.testing.assert_allclose((road.height(xs, ys + d) - road.height(xs, ys - d)) / (2 * d), road.slope_y(xs, ys),
                               rtol=0, atol=1e-7)
    out = kernel_xy(road, xs, ys)
    fdx = (kernel_xy(road, xs + d, ys)[:, 0] - kernel_xy(road, xs - d, ys)[:, 0]) / (2 * d)
    fdy = (kernel_xy(road, xs, ys + d)[:, 0] - kernel_xy(road, xs, ys - d)[:, 0]) / (2 * d)
    # tabulated slopes vs the chord slopes of the interpolated heights: within dx (dy) times the curvature
    assert np.max(np.abs(fdx - out[:, 1])) < 0.001 * 2.5 + 1e-6
    assert np.max(np.abs(fdy - out[:, 3])) < 0.002 * 6 * H / E ** 2 + 1e-6


def test_staggered_bumps_may_overlap_in_x_on_disjoint_sides():
    road = load_road({"type": "speed_bumps", "bumps": [
        {"start_x_m": 10.0, "width_m": 0.5, "height_m": 0.05, "side": "left"},
        {"start_x_m": 10.2, "width_m": 0.5, "height_m": 0.05, "side": "right"}]})
    assert road.height(10.25, 1.2) == pytest.approx(0.05, abs=1e-15) and road.height(10.1, -1.2) == 0.0
    assert road.height(10.45, -1.2) == pytest.approx(0.05, abs=1e-15) and road.height(10.6, 1.2) == 0.0
    assert road.height(10.25, 0.0) == 0.0 and road.height(10.45, 0.0) == 0.0       # both end at y = 0
    with pytest.raises(ModelError, match=r"bumps\[1\].*overlaps bumps\[0\].*where their y spans overlap"):
        SpeedBumpRoad([{"start_x_m": 10.0, "width_m": 0.5, "height_m": 0.05, "side": "left"},
                       {"start_x_m": 10.2, "width_m": 0.5, "height_m": 0.05, "y_min_m": -1.0, "y_max_m": 0.5}])


def test_full_width_bumps_stay_one_dimensional():
    road = SpeedBumpRoad([{"start_x_m": 1.0, "width_m": 0.5, "height_m": 0.05, "side": "both"}])
    assert road.to_arrays().ny == 1 and road.one_dimensional
    assert road.height(1.25, 7.0) == road.height(1.25) and road.slope_y(1.25, 7.0) == 0.0


def test_table_size_is_checked():
    with pytest.raises(ModelError, match="use a larger dx_m or dy_m"):
        SpeedBumpRoad([(0.0, 0.5, 0.05), {"start_x_m": 100.0, "width_m": 0.5, "height_m": 0.05,
                                          "y_min_m": -5.0, "y_max_m": 5.0}], dy_m=0.001)
