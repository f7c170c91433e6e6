"""Roads at (x, y): road_eval_xy against closed forms (two-track, split friction), finite-difference slopes,
one record type for every road, the reference track, normals, NUMBA_DISABLE_JIT and bad specs."""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.road import (CsvRoad, FlatRoad, Iso8608Road, Iso8608TwoTrackRoad, ProfileRoad, SlopeRoad,
                              SpeedBumpRoad, SplitFrictionRoad, TwoTrackRoad, load_road, road_eval, road_eval_points,
                              road_eval_xy, road_eval_xy_points, road_normal_xy)
from fmu_vehicle.road.arrays import grid_lookup
from timeouts import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[1]
Y_L, Y_R = 1.1967, -1.1967


def kernel_xy(arrays, xs, ys):
    out = np.zeros((len(xs), 4))
    road_eval_xy_points(arrays, np.asarray(xs, dtype=float), np.asarray(ys, dtype=float), out)
    return out


def right_profile():
    """A polyline every 2.5 m, resampled at 0.05 m (grid nodes on its points)."""
    d = np.arange(0.0, 40.01, 2.5)
    h = 0.02 * np.sin(0.7 * d) + 0.001 * d
    return ProfileRoad(d, h, dx_m=0.05)


def two_track():
    return TwoTrackRoad(SlopeRoad(2.0), right_profile())


def random_points(seed, x=(-5.0, 45.0), y=(-2.5, 2.5), n=4000):
    rng = np.random.default_rng(seed)
    return rng.uniform(*x, n), rng.uniform(*y, n)


# ------------------------------------------------------------------------------------------ two-track

def test_two_track_equals_closed_form_at_random_points():
    road = two_track()
    left, right = road.left, road.right
    xs, ys = random_points(1)
    out = kernel_xy(road.to_arrays(), xs, ys)
    # closed form on the grid's x range (beyond it the edge is held)
    xc = np.clip(xs, 0.0, 40.0)
    w = np.clip((ys - Y_R) / (Y_L - Y_R), 0.0, 1.0)
    h_l, h_r = left.height(xc), right.height(xc)
    s_l, s_r = left.slope(xc), right.slope(xc)
    inside_x = (xs >= 0.0) & (xs <= 40.0)
    inside_y = (ys >= Y_R) & (ys <= Y_L)
    np.testing.assert_allclose(out[:, 0], h_r + w * (h_l - h_r), rtol=0, atol=1e-13)
    np.testing.assert_allclose(out[:, 1], np.where(inside_x, s_r + w * (s_l - s_r), 0.0), rtol=0, atol=1e-13)
    np.testing.assert_allclose(out[:, 3], np.where(inside_y, (h_l - h_r) / (Y_L - Y_R), 0.0), rtol=0, atol=1e-13)
    assert np.all(out[:, 2] == 1.0)
    # the NumPy methods evaluate the same table with the same arithmetic
    np.testing.assert_allclose(road.height(xs, ys), out[:, 0], rtol=1e-15, atol=1e-17)
    np.testing.assert_allclose(road.slope(xs, ys), out[:, 1], rtol=1e-15, atol=1e-17)
    np.testing.assert_allclose(road.slope_y(xs, ys), out[:, 3], rtol=1e-15, atol=1e-17)


def test_each_wheel_runs_on_its_own_track():
    road = TwoTrackRoad(Iso8608Road("C", seed=3, length_m=100.0), Iso8608Road("C", seed=4, length_m=100.0))
    assert (road.y_left_m, road.y_right_m) == (1.1967, -1.1967)       # the full car's wheel centres
    xs = np.random.default_rng(2).uniform(0.0, 100.0, 500)
    for track, y in ((road.left, Y_L), (road.right, Y_R)):
        out = kernel_xy(road.to_arrays(), xs, np.full(xs.size, y))
        one = np.zeros((xs.size, 3))
        road_eval_points(track.to_arrays(), xs, one)
        np.testing.assert_allclose(out[:, 0], one[:, 0], rtol=0, atol=1e-15)
        np.testing.assert_allclose(out[:, 1], one[:, 1], rtol=0, atol=1e-14)
    # road_eval is the reference track y = 0: the mean of the tracks here
    one = np.zeros((xs.size, 3))
    road_eval_points(road.to_arrays(), xs, one)
    np.testing.assert_allclose(one[:, 0], 0.5 * (road.left.height(xs) + road.right.height(xs)), rtol=0, atol=1e-15)


def test_finite_difference_slopes_agree():
    """Heights differentiated numerically agree with the kernel's slopes: dh/dy exactly (it is the
    interpolant's derivative), dh/dx within the difference between tabulated and interpolated slopes."""
    x = np.linspace(0.0, 30.0, 3001)
    smooth = ProfileRoad(x, 0.03 * np.sin(0.8 * x), dx_m=0.01)
    road = TwoTrackRoad(smooth, ProfileRoad(x, 0.02 * np.cos(0.5 * x), dx_m=0.01))
    xs, ys = random_points(4, x=(1.0, 29.0), y=(-1.1, 1.1), n=500)
    a, d = road.to_arrays(), 1e-6
    out = kernel_xy(a, xs, ys)
    dhdx = (kernel_xy(a, xs + d, ys)[:, 0] - kernel_xy(a, xs - d, ys)[:, 0]) / (2 * d)
    dhdy = (kernel_xy(a, xs, ys + d)[:, 0] - kernel_xy(a, xs, ys - d)[:, 0]) / (2 * d)
    np.testing.assert_allclose(dhdy, out[:, 3], rtol=0, atol=1e-8)
    # within a cell the interpolated height has the cell's chord slope; the tabulated slopes differ by
    # at most about dx * max|h''| = 0.01 * 0.03 * 0.64
    assert np.max(np.abs(dhdx - out[:, 1])) < 0.01 * 0.03 * 0.64
    assert np.max(np.abs(dhdx - out[:, 1])) > 1e-7          # (they are not the same numbers)


def test_two_track_from_spec_and_errors(tmp_path):
    spec = {"type": "two_track", "left": {"type": "speed_bumps", "bumps": [[10.0, 0.5, 0.05]]},
            "right": {"type": "flat"}, "mu": 0.8}
    road = load_road(spec)
    assert isinstance(road, TwoTrackRoad) and road.mu == 0.8
    assert road.height(10.25, Y_L) == pytest.approx(0.05, abs=1e-12) and road.height(10.25, Y_R) == 0.0
    assert road.height(10.25, 0.0) == pytest.approx(0.025, abs=1e-12)
    # a track given as a file name next to the JSON file
    (tmp_path / "p.csv").write_text("0,0\n10,0.1\n20,0\n")
    (tmp_path / "tt.json").write_text(json.dumps({"type": "two_track", "left": "p.csv", "right": {"type": "flat"},
                                                  "y_left_m": 0.8, "y_right_m": -0.8}))
    road = load_road(tmp_path / "tt.json")
    assert road.height(10.0, 0.8) == pytest.approx(0.1) and road.height(10.0, 0.0) == pytest.approx(0.05)
    with pytest.raises(ModelError, match="y_left_m .* must be greater than y_right_m"):
        TwoTrackRoad(FlatRoad(), FlatRoad(), y_left_m=-1.0, y_right_m=1.0, x_range_m=(0, 1), dx_m=0.1)
    with pytest.raises(ModelError, match="x_range_m is needed"):
        TwoTrackRoad(FlatRoad(), SlopeRoad(1.0))
    with pytest.raises(ModelError, match="left must be a 1-D road"):
        TwoTrackRoad(two_track(), FlatRoad())


# ------------------------------------------------------------------------------------------ split friction

@pytest.mark.parametrize("make", [lambda: FlatRoad(mu=0.9), lambda: SpeedBumpRoad.paper_default(),
                                  lambda: Iso8608Road("B", seed=2, length_m=120.0), two_track])
def test_split_friction_closed_form_for_any_road(make):
    inner = make()
    road = SplitFrictionRoad(inner, mu_left=0.2, mu_right=0.95, mu_split_y_m=0.3)
    xs, ys = random_points(7, x=(-5.0, 130.0))
    out = kernel_xy(road.to_arrays(), xs, ys)
    np.testing.assert_array_equal(out[:, 2], np.where(ys >= 0.3, 0.2, 0.95))
    np.testing.assert_array_equal(road.friction(xs, ys), out[:, 2])
    plain = kernel_xy(inner.to_arrays(), xs, ys)                     # the surface is the wrapped road's
    np.testing.assert_array_equal(out[:, [0, 1, 3]], plain[:, [0, 1, 3]])
    # the reference track y = 0 lies right of the boundary here
    one = np.zeros(3)
    road_eval(road.to_arrays(), 5.0, one)
    assert one[2] == 0.95 and road.mu == 0.95


def test_split_friction_keys_on_every_type():
    road = load_road({"type": "slope", "angle_deg": 3.0, "mu": 0.7, "mu_left": 0.1})
    assert isinstance(road, SplitFrictionRoad)
    assert road.friction(1.0, 0.5) == 0.1 and road.friction(1.0, -0.5) == 0.7 and road.friction(1.0, 0.0) == 0.1
    road = load_road({"type": "flat", "mu_right": 0.3, "mu_split_y_m": -1.0})
    assert road.friction(0.0, -1.5) == 0.3 and road.friction(0.0, -0.5) == 1.0


# ------------------------------------------------------------------------------------------ all roads

def all_roads():
    return {
        "flat": FlatRoad(mu=0.7, height_m=-0.2),
        "slope": SlopeRoad(16.5, mu=0.9),
        "bumps": SpeedBumpRoad.paper_default(),
        "bumps_left": SpeedBumpRoad([{"start_x_m": 20.0, "width_m": 0.5, "height_m": 0.06, "side": "left"}],
                                    dx_m=0.005),
        "csv": load_road("csv_example"),
        "iso": Iso8608Road("D", seed=5, length_m=200.0),
        "two_track": two_track(),
        "iso_tracks": Iso8608TwoTrackRoad("C", seed=5, length_m=200.0),
        "split": SplitFrictionRoad(two_track(), mu_left=0.3),
    }


def test_one_record_type_for_every_road():
    types = {name: numba.typeof(road.to_arrays()) for name, road in all_roads().items()}
    assert len(set(types.values())) == 1, types


#: Closed-form bumps against their tables: interpolation bounds (test_road_profiles, test_road_bumps_xy)
TABLE_ERROR_M = {"bumps": 2e-6, "bumps_left": 5e-4}


def test_reference_track_and_xy_kernel_agree_with_numpy_methods():
    xs, ys = random_points(9, x=(-10.0, 210.0))
    for name, road in all_roads().items():
        a = road.to_arrays()
        out = kernel_xy(a, xs, ys)
        np.testing.assert_allclose(out[:, 0], road.height(xs, ys), rtol=1e-15, atol=TABLE_ERROR_M.get(name, 1e-17),
                                   err_msg=name)
        one = np.zeros((xs.size, 3))
        road_eval_points(a, xs, one)
        np.testing.assert_array_equal(one, kernel_xy(a, xs, np.zeros(xs.size))[:, :3], err_msg=name)
        if a.ny > 1:
            h, sx, sy = grid_lookup(a, xs, ys)
            np.testing.assert_array_equal(out[:, 0], h, err_msg=name)
            np.testing.assert_array_equal(out[:, 1], sx, err_msg=name)
            np.testing.assert_array_equal(out[:, 3], sy, err_msg=name)
        else:
            assert np.all(out[:, 3] == 0.0), name


def test_outside_the_grid_the_edge_is_held():
    road = two_track()
    a = road.to_arrays()
    for x, y, x_edge, y_edge, zero_x, zero_y in [(-3.0, 0.2, 0.0, 0.2, True, False), (50.0, 5.0, 40.0, Y_L, True, True),
                                                 (12.3, -7.0, 12.3, Y_R, False, True)]:
        out = kernel_xy(a, [x], [y])[0]
        edge = kernel_xy(a, [x_edge], [y_edge])[0]
        assert out[0] == edge[0]
        assert (out[1] == 0.0) if zero_x else (out[1] == edge[1])
        assert (out[3] == 0.0) if zero_y else (out[3] == edge[3])
    out = kernel_xy(a, [np.nan, 1.0], [0.0, np.nan])
    assert np.all(np.isnan(out[:, [0, 1, 3]]))


def test_normal_from_both_slopes():
    road = SpeedBumpRoad([{"start_x_m": 0.0, "width_m": 0.5, "height_m": 0.05, "y_min_m": 0.0, "y_max_m": 1.0}])
    xs, ys = random_points(3, x=(0.0, 0.5), y=(-0.1, 1.1), n=200)
    normals = road.normal(xs, ys)
    sx, sy = road.slope(xs, ys), road.slope_y(xs, ys)
    out = np.zeros(3)
    for k in range(xs.size):
        road_normal_xy(sx[k], sy[k], out)
        np.testing.assert_allclose(out, normals[k], rtol=0, atol=1e-16)
        # perpendicular to both surface tangents (1, 0, dh/dx) and (0, 1, dh/dy)
        assert abs(out @ [1.0, 0.0, sx[k]]) < 1e-15 and abs(out @ [0.0, 1.0, sy[k]]) < 1e-15
    np.testing.assert_allclose(np.linalg.norm(normals, axis=-1), 1.0, atol=1e-15)
    assert np.any(np.abs(normals[:, 1]) > 0.1)


_SCRIPT = """
import json, sys
import numpy as np
import numba
sys.path.insert(0, {repo!r})
sys.path.insert(0, {repo!r} + '/tests')   # the test module's own imports (timeouts)
import tests.test_road_xy as t
result = {{"jit_disabled": bool(numba.config.DISABLE_JIT)}}
xs, ys = t.random_points(11, x=(-10.0, 210.0))
for name, road in t.all_roads().items():
    result[name] = t.kernel_xy(road.to_arrays(), xs, ys).tolist()
print(json.dumps(result))
"""


def test_disable_jit_subprocess_gives_same_numbers():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run([sys.executable, "-c", _SCRIPT.format(repo=str(REPO))], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["jit_disabled"] is True
    if not numba.config.DISABLE_JIT:
        assert isinstance(road_eval_xy, numba.core.registry.CPUDispatcher)
    xs, ys = random_points(11, x=(-10.0, 210.0))
    for name, road in all_roads().items():
        np.testing.assert_allclose(np.array(result[name]), kernel_xy(road.to_arrays(), xs, ys), rtol=1e-14, atol=1e-17,
                                   err_msg=name)


@pytest.mark.parametrize("spec, field", [
    ({"type": "two_track", "left": {"type": "flat"}}, "needs key.*right"),
    ({"type": "two_track", "left": {"type": "flat", "mu": 0.5}, "right": {"type": "flat"}, "x_range_m": [0, 1]},
     r"left\.mu is not allowed"),
    ({"type": "two_track", "left": {"type": "gravel"}, "right": {"type": "flat"}}, "two_track: left.*valid types"),
    ({"type": "two_track", "left": {"type": "slope", "angle_deg": 95}, "right": {"type": "flat"}, "x_range_m": [0, 1]},
     "two_track: left: SlopeRoad: angle_deg"),
    ({"type": "two_track", "left": {"type": "flat"}, "right": {"type": "flat"}, "x_range_m": [0, 1], "dx_m": 0.1,
      "y_left_m": "wide"}, "y_left_m must be a number"),
    ({"type": "two_track", "left": {"type": "flat"}, "right": {"type": "flat"}, "x_range_m": [3, 1], "dx_m": 0.1},
     "x_range_m must increase"),
    ({"type": "flat", "mu_left": -0.2}, "mu_left: mu must be finite and >= 0"),
    ({"type": "flat", "mu_left": 0.2, "mu_split_y_m": "middle"}, "mu_split_y_m must be a number"),
    ({"type": "flat", "mu_split_y_m": 0.5}, "mu_split_y_m needs mu_left and/or mu_right"),
    ({"type": "speed_bumps", "bumps": [{"start_x_m": 0, "width_m": 0.5, "height_m": 0.05, "side": "middle"}]},
     r"bumps\[0\]: side must be one of both, left, right"),
    ({"type": "speed_bumps", "bumps": [{"start_x_m": 0, "width_m": 0.5, "height_m": 0.05, "y_min_m": 1.0,
                                         "y_max_m": 0.5}]}, r"bumps\[0\]: y_min_m .* must be less than y_max_m"),
    ({"type": "speed_bumps", "bumps": [{"start_x_m": 0, "width_m": 0.5, "height_m": 0.05, "y_min_m": 0.0,
                                         "y_max_m": 0.15}]}, r"bumps\[0\] spans y .* twice edge_width_m"),
    ({"type": "speed_bumps", "bumps": [{"start_x_m": 0, "width_m": 0.5, "height_m": 0.05, "side": "left",
                                         "y_max_m": 2.0}]}, "either side or y_min_m/y_max_m"),
    ({"type": "speed_bumps", "bumps": [[0, 0.5, 0.05]], "edge_width_m": 0}, "edge_width_m must be finite and > 0"),
    ({"type": "iso8608", "coherence": "telepathic"}, "coherence must be one of isotropic, independent"),
    ({"type": "iso8608", "y_left_m": 0.9}, "y_left_m need.* the key coherence"),
    ({"type": "iso8608", "coherence": "isotropic", "y_left_m": -1.0, "y_right_m": 1.0}, "y_left_m .* greater than"),
    ({"type": "opencrg"}, "needs key.*path"),
    ({"type": "opencrg", "path": "crg_example.crg", "dx_m": -1.0}, "dx_m must be finite and > 0"),
])
def test_bad_specs_name_the_field(spec, field):
    with pytest.raises(ModelError, match=field):
        load_road(spec)


def test_csv_track_of_shipped_example():
    road = TwoTrackRoad(CsvRoad(REPO / "fmu_vehicle" / "resources" / "roads" / "example_profile.csv"), FlatRoad(),
                        y_left_m=0.8, y_right_m=-0.8)
    assert road.height(16.5, 0.8) == pytest.approx(0.08) and road.height(16.5, -2.0) == 0.0
    assert road.slope_y(16.5, 0.0) == pytest.approx(0.08 / 1.6) and math.isfinite(road.slope(16.5, 0.3))
