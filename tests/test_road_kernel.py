"""The njit road kernel against the NumPy methods, and compiled against NUMBA_DISABLE_JIT=1."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from fmu_vehicle.road import (KIND_TABLE, CsvRoad, FlatRoad, Iso8608Road, SlopeRoad, SpeedBumpRoad, road_eval,
                              road_eval_points, road_normal)
from fmu_vehicle.paths import resources_dir
from fmu_vehicle.road.arrays import table_lookup
from timeouts import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_CSV = resources_dir() / "roads" / "example_profile.csv"

ROADS = {
    "flat": lambda: FlatRoad(mu=0.7, height_m=-0.2),
    "slope": lambda: SlopeRoad(16.5, mu=0.9),
    "slope_flat_before": lambda: SlopeRoad(-5.0, start_x_m=3.0, flat_before_start=True),
    "bumps": lambda: SpeedBumpRoad.paper_default(),
    "csv": lambda: CsvRoad(EXAMPLE_CSV, mu=0.6),
    "iso": lambda: Iso8608Road("D", seed=5, length_m=200.0),
}


def points(seed=0):
    """Random positions covering every road's table, its ends and beyond, plus a few exact nodes."""
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.uniform(-20.0, 220.0, 3000), [0.0, 20.0, 40.0, 80.5, 200.0, -1e3, 1e4]])


def kernel_values(road, xs):
    out = np.zeros((len(xs), 3))
    road_eval_points(road.to_arrays(), xs, out)
    return out


@pytest.mark.parametrize("name", [n for n in ROADS if n != "bumps"])
def test_kernel_equals_numpy_methods(name):
    road = ROADS[name]()
    xs = points()
    out = kernel_values(road, xs)
    np.testing.assert_allclose(out[:, 0], road.height(xs), rtol=1e-15, atol=1e-17)
    np.testing.assert_allclose(out[:, 1], road.slope(xs), rtol=1e-15, atol=1e-17)
    np.testing.assert_array_equal(out[:, 2], road.friction(xs))


def test_kernel_bumps_equal_table_twin_and_analytic_within_bound():
    road = ROADS["bumps"]()
    arrays = road.to_arrays()
    assert arrays.kind == KIND_TABLE
    xs = points()
    out = kernel_values(road, xs)
    h, s = table_lookup(arrays.h_table, arrays.s_table, arrays.x0, arrays.dx, xs)
    np.testing.assert_allclose(out[:, 0], h, rtol=1e-15, atol=1e-17)
    np.testing.assert_allclose(out[:, 1], s, rtol=1e-15, atol=1e-17)
    # against the closed form: interpolation bound dx^2/8 R^2/(R-H)^3 (see test_road_profiles)
    b0 = road.bumps[0]
    bound = arrays.dx ** 2 / 8 * b0.radius_m ** 2 / (b0.radius_m - b0.height_m) ** 3
    assert np.max(np.abs(out[:, 0] - road.height(xs))) <= bound * 1.0001


def test_single_call_nan_and_unknown_kind():
    road = ROADS["iso"]()
    arrays = road.to_arrays()
    out = np.zeros(3)
    road_eval(arrays, 12.345, out)
    assert out[0] == road.height(12.345) and out[1] == road.slope(12.345) and out[2] == 1.0
    road_eval(arrays, np.nan, out)
    assert np.isnan(out[0]) and np.isnan(out[1])
    assert np.isnan(road.height(np.nan)) and np.isnan(road.slope(np.nan))
    with pytest.raises(ValueError, match="unknown road kind"):
        road_eval(arrays._replace(kind=7), 1.0, out)


def test_kernel_normal_matches_numpy_normal():
    road = ROADS["csv"]()
    xs = points()[:200]
    out = np.zeros(3)
    normals = road.normal(xs)
    for x, expected in zip(xs, normals):
        road_normal(road.slope(x), out)
        np.testing.assert_allclose(out, expected, rtol=0, atol=1e-16)
    np.testing.assert_allclose(np.linalg.norm(normals, axis=-1), 1.0, atol=1e-15)


_SCRIPT = """
import json, sys
import numpy as np
import numba
sys.path.insert(0, {repo!r})
sys.path.insert(0, {repo!r} + '/tests')   # the test module's own imports (timeouts)
import tests.test_road_kernel as t
result = {{"jit_disabled": bool(numba.config.DISABLE_JIT)}}
for name, make in t.ROADS.items():
    result[name] = t.kernel_values(make(), t.points(1)).tolist()
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
        assert isinstance(road_eval, numba.core.registry.CPUDispatcher)
    for name, make in ROADS.items():
        np.testing.assert_allclose(np.array(result[name]), kernel_values(make(), points(1)), rtol=1e-14, atol=1e-17,
                                   err_msg=name)
