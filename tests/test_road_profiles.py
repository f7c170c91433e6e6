"""Flat, slope and arc-bump roads against closed-form geometry."""
import math

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.road import FlatRoad, SlopeRoad, SpeedBumpRoad, road_eval


def kernel(road, xs):
    arrays = road.to_arrays()
    out = np.zeros((len(xs), 3))
    for k, x in enumerate(xs):
        road_eval(arrays, x, out[k])
    return out


def test_flat_road():
    road = FlatRoad(mu=0.8, height_m=0.3)
    x = np.linspace(-50, 50, 11)
    assert np.all(road.height(x) == 0.3) and np.all(road.slope(x) == 0.0)
    assert np.all(road.friction(x) == 0.8)
    assert np.array_equal(road.normal(x), np.tile([0.0, 0.0, 1.0], (11, 1)))
    assert "0.3 m" in road.describe()


@pytest.mark.parametrize("angle", [16.5, -7.0, 45.0])
def test_slope_height_and_grade_exact(angle):
    road = SlopeRoad(angle)
    tan = math.tan(math.radians(angle))
    x = np.array([-10.0, 0.0, 3.0, 74.89])
    assert np.array_equal(road.height(x), x * tan)
    assert np.all(road.slope(x) == tan)
    assert road.height(0.0) == 0.0


def test_slope_normal_is_unit_and_rotated_by_angle():
    theta = math.radians(16.5)
    n = SlopeRoad(16.5).normal(np.array([0.0, 12.0]))
    assert n.shape == (2, 3)
    np.testing.assert_allclose(np.linalg.norm(n, axis=-1), 1.0, rtol=0, atol=1e-15)
    # the z axis rotated by theta about +y, tilted backwards for an uphill road
    np.testing.assert_allclose(n[0], [-math.sin(theta), 0.0, math.cos(theta)], rtol=0, atol=1e-15)
    assert math.isclose(math.degrees(math.acos(n[1, 2])), 16.5, rel_tol=1e-12)


def test_slope_flat_before_start():
    road = SlopeRoad(10.0, start_x_m=5.0, flat_before_start=True)
    tan = math.tan(math.radians(10.0))
    assert road.height(4.0) == 0.0 and road.slope(4.0) == 0.0
    assert road.height(7.0) == pytest.approx(2.0 * tan, rel=1e-15) and road.slope(7.0) == tan
    out = kernel(road, [4.0, 7.0])
    np.testing.assert_array_equal(out[:, :2], [[0.0, 0.0], [2.0 * tan, tan]])


@pytest.mark.parametrize("bad", [90.0, -95.0, float("nan"), "steep"])
def test_slope_rejects_bad_angle(bad):
    with pytest.raises(ModelError, match="angle_deg"):
        SlopeRoad(bad)


W, H, START = 0.5, 0.05, 20.0
R = (W ** 2 / 4 + H ** 2) / (2 * H)


def test_arc_bump_geometry():
    road = SpeedBumpRoad([(START, W, H)])
    assert road.bumps[0].radius_m == pytest.approx(0.65, rel=1e-15)
    assert road.height(START + W / 2) == pytest.approx(H, abs=1e-15)      # peak at the centre
    assert road.slope(START + W / 2) == 0.0
    assert road.height(START) == 0.0 and road.height(START + W) == 0.0     # zero at both chord ends
    inside = np.linspace(START + 1e-6, START + W - 1e-6, 101)
    assert np.all(road.height(inside) > 0.0)                               # chord width is exactly W
    outside = np.array([START - 1e-6, START + W + 1e-6, 0.0, 100.0])
    assert np.all(road.height(outside) == 0.0) and np.all(road.slope(outside) == 0.0)
    # edge slope = tangent of the circle: tan(2 atan(2H/W)) by the inscribed-angle theorem
    edge = math.tan(2 * math.atan(2 * H / W))
    assert road.slope(START) == pytest.approx(edge, rel=1e-13)
    assert road.slope(START + W) == pytest.approx(-edge, rel=1e-13)
    # points lie on the circle of radius R centred at (x_c, H - R)
    x = np.linspace(START, START + W, 57)
    np.testing.assert_allclose(np.hypot(x - (START + W / 2), road.height(x) - (H - R)), R, rtol=1e-14)
    # slope is the derivative of the height (central difference, error ~ d^2 h''' / 6)
    d = 1e-6
    xm = np.linspace(START + 0.01, START + W - 0.01, 31)
    np.testing.assert_allclose(road.slope(xm), (road.height(xm + d) - road.height(xm - d)) / (2 * d), atol=1e-8)


def test_bump_kernel_table_matches_analytic_within_interpolation_bound():
    road = SpeedBumpRoad.paper_default()
    arrays = road.to_arrays()
    dx = arrays.dx
    assert dx == pytest.approx(0.002, rel=1e-9)
    # linear interpolation: |err| <= dx^2/8 max|f''|; h'' and h''' peak at the chord ends
    b0 = road.bumps[0]
    Rb, Hb, Wb = b0.radius_m, b0.height_m, b0.width_m
    bound_h = dx ** 2 / 8 * Rb ** 2 / (Rb - Hb) ** 3                   # 1.3e-6 m for W 0.5, H 0.06
    bound_s = dx ** 2 / 8 * 3 * Rb ** 2 * (Wb / 2) / (Rb - Hb) ** 5    # 4.0e-6
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(15.0, 85.0, 4000),
                        np.concatenate([rng.uniform(b.start_x_m, b.end_x_m, 400) for b in road.bumps])])
    out = kernel(road, x)
    h, s = road.height(x), road.slope(x)
    assert np.max(np.abs(out[:, 0] - h)) <= bound_h * 1.0001
    edges = np.array([e for b in road.bumps for e in (b.start_x_m, b.end_x_m)])
    near_edge = np.min(np.abs(x[:, None] - edges[None, :]), axis=1) < dx * 1.0001
    assert np.max(np.abs(out[~near_edge, 1] - s[~near_edge])) <= bound_s * 1.0001
    # the slope jump at an edge is smeared over one cell: error at most the edge slope
    assert np.max(np.abs(out[near_edge, 1] - s[near_edge])) <= road.bumps[0].edge_slope * (1 + 1e-9)
    assert np.all(out[:, 2] == 1.0)
    # the bound is not loose: random points come within a factor 4 of the worst case
    assert np.max(np.abs(out[:, 0] - h)) > bound_h / 4


def test_bump_edges_off_grid_height_error_bounded_by_edge_slope_times_dx():
    road = SpeedBumpRoad([(10.0, 0.4003, 0.04), (11.0007, 0.3, 0.03)], dx_m=0.002)
    x = np.random.default_rng(5).uniform(9.9, 11.4, 20000)
    err = np.abs(kernel(road, x)[:, 0] - road.height(x))
    assert err.max() <= max(b.edge_slope for b in road.bumps) * road.to_arrays().dx


def test_paper_default_is_adjustable_and_documented():
    road = SpeedBumpRoad.paper_default()
    assert [b.start_x_m for b in road.bumps] == [20.0, 35.0, 50.0, 65.0, 80.0]
    assert all(0.3 <= b.width_m <= 0.6 and 0.03 <= b.height_m <= 0.06 for b in road.bumps)
    other = SpeedBumpRoad.paper_default(first_x_m=10.0, spacing_m=5.0, width_m=0.3, height_m=0.06, count=3)
    assert [tuple(b) for b in other.bumps] == [(10.0, 0.3, 0.06), (15.0, 0.3, 0.06), (20.0, 0.3, 0.06)]
    assert other.height(10.15) == pytest.approx(0.06, abs=1e-15)


def test_bumps_may_touch_but_not_overlap():
    SpeedBumpRoad([(0.0, 0.5, 0.05), (0.5, 0.5, 0.05)])
    with pytest.raises(ModelError, match=r"bumps\[1\].*overlaps bumps\[0\]"):
        SpeedBumpRoad([(0.0, 0.5, 0.05), (0.4, 0.5, 0.05)])
    with pytest.raises(ModelError, match=r"bumps\[0\].*overlaps bumps\[1\]"):
        SpeedBumpRoad([(5.3, 0.5, 0.05), (5.0, 0.5, 0.05)])


@pytest.mark.parametrize("bump, field", [((0.0, -0.5, 0.05), "width_m"), ((0.0, 0.5, 0.0), "height_m"),
                                         ((float("nan"), 0.5, 0.05), "start_x_m"), ((0.0, 0.5, 0.3), "half of width_m"),
                                         ({"start_x_m": 0.0, "width_m": 0.5}, "missing height_m")])
def test_bad_bumps_rejected(bump, field):
    with pytest.raises(ModelError, match=rf"bumps\[0\].*{field}"):
        SpeedBumpRoad([bump])
