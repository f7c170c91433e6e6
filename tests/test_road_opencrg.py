"""OpenCRG roads: the shipped test file, heights and slopes against the OpenCRG library's own evaluation
(straight, rotated and curved reference lines), the loader and the errors."""
import math
import sys

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import resource_path
from fmu_vehicle.road import load_road, road_eval_xy_points
from fmu_vehicle.road.opencrg import OpenCrgRoad

pycrg = pytest.importorskip("pycrg", reason="OpenCRG roads need the optional package pycrg: pip install -e .[crg]")

EXAMPLE = resource_path("roads", "crg_example.crg")


def example_surface():
    """The shipped crg_example.crg: 12 m x 3 m (du 0.1 m, dv 0.25 m), a 40 mm bump on the left half at
    u = 4..4.6 m and a 10 mm twist; z(u, v) as in the file's comment."""
    u = np.round(np.arange(121) * 0.1, 10)
    v = np.round(np.linspace(-1.5, 1.5, 13), 10)
    uu, vv = np.meshgrid(u, v, indexing="ij")
    bump = np.where((uu >= 4.0) & (uu <= 4.6), np.sin(np.pi * (uu - 4.0) / 0.6) ** 2, 0.0)
    return u, v, 0.04 * bump * np.clip(vv / 0.5, 0.0, 1.0) + 0.01 * np.sin(2 * np.pi * uu / 4.0) * vv / 1.5


COMMENT = ["fmu_vehicle test road: 12 m x 3 m, du 0.1 m, dv 0.25 m",
           "z = 0.04 sin^2(pi (u - 4) / 0.6) clip(v / 0.5, 0, 1) for 4 <= u <= 4.6",
           "    (a bump on the left half)",
           "  + 0.01 sin(2 pi u / 4) v / 1.5 (a twist)"]


def write_example(path, phi=0.0, **kwargs):
    """Write the example surface with pycrg's writer (text format LDFI, modifiers kept empty so the data stays
    where it is); phi: heading of the reference line [rad], a number or one per segment."""
    _, v, z = example_surface()
    pycrg.write(str(path), z, 0.1, v, phi, fmt="LDFI", mods={}, comment=COMMENT, **kwargs)
    return path


def kernel_xy(road, xs, ys):
    out = np.zeros((len(xs), 4))
    road_eval_xy_points(road.to_arrays(), np.asarray(xs, float), np.asarray(ys, float), out)
    return out


def reader_z(path, xs, ys):
    with pycrg.RoadSurface.open(str(path)) as surface:
        return surface.xy_to_z_many(np.asarray(xs, float), np.asarray(ys, float))


def test_shipped_file_is_the_example_written_by_pycrg(tmp_path):
    with pycrg.DataSet.open(str(EXAMPLE)) as shipped, pycrg.DataSet.open(str(write_example(tmp_path / "e.crg"))) as new:
        assert np.array_equal(shipped.grid().z, new.grid().z)
        assert shipped.u_range() == (0.0, 12.0) and shipped.v_range() == (-1.5, 1.5)
    _, _, z = example_surface()
    with pycrg.DataSet.open(str(EXAMPLE)) as shipped:
        np.testing.assert_allclose(shipped.grid().z, z, rtol=0, atol=1e-8)        # single precision in OpenCRG


def test_straight_road_heights_equal_the_reader():
    road = load_road({"type": "opencrg", "path": "crg_example.crg", "mu": 0.8})   # found in resources/roads/
    assert isinstance(road, OpenCrgRoad) and road.straight and road.shape == (121, 13)
    assert (road.x0, road.dx, road.y0, road.dy) == (0.0, 0.1, -1.5, 0.25)
    rng = np.random.default_rng(1)
    xs, ys = rng.uniform(-1.0, 13.0, 5000), rng.uniform(-2.0, 2.0, 5000)
    out = kernel_xy(road, xs, ys)
    np.testing.assert_allclose(out[:, 0], reader_z(EXAMPLE, xs, ys), rtol=0, atol=1e-15)   # beyond: held by both
    assert np.all(out[:, 2] == 0.8)
    # the bump is on the left half only
    assert road.height(4.3, 1.2) == pytest.approx(0.04 + 0.01 * math.sin(2 * math.pi * 4.3 / 4) * 1.2 / 1.5, abs=1e-6)
    assert road.height(4.3, -1.2) == pytest.approx(0.01 * math.sin(2 * math.pi * 4.3 / 4) * -1.2 / 1.5, abs=1e-6)


def test_slopes_are_central_differences_and_agree_with_finite_differences():
    road = OpenCrgRoad(EXAMPLE)
    a = road.to_arrays()
    h = a.h_table.reshape(121, 13)
    s = a.s_table.reshape(121, 13)
    t = a.t_table.reshape(121, 13)
    np.testing.assert_allclose(s[1:-1], (h[2:] - h[:-2]) / 0.2, rtol=0, atol=1e-13)
    np.testing.assert_allclose(t[:, 1:-1], (h[:, 2:] - h[:, :-2]) / 0.5, rtol=0, atol=1e-13)
    # away from the bump (whose edges turn sharply within a cell) the surface is smooth
    rng = np.random.default_rng(2)
    xs, ys, d = rng.uniform(0.5, 3.5, 400), rng.uniform(-1.2, 1.2, 400), 1e-6
    out = kernel_xy(road, xs, ys)
    fdx = (reader_z(EXAMPLE, xs + d, ys) - reader_z(EXAMPLE, xs - d, ys)) / (2 * d)
    fdy = (reader_z(EXAMPLE, xs, ys + d) - reader_z(EXAMPLE, xs, ys - d)) / (2 * d)
    assert np.max(np.abs(out[:, 1] - fdx)) < 2e-3 and np.max(np.abs(out[:, 3] - fdy)) < 1e-3


@pytest.mark.parametrize("phi", [0.3, np.linspace(0.0, 0.4, 120)])
def test_rotated_and_curved_reference_lines_through_the_readers_xy_to_uv(tmp_path, phi):
    path = write_example(tmp_path / "turn.crg", phi=phi, x0=5.0, y0=-2.0)
    # points on the road (not near its ends or borders), placed by the reader's uv -> xy
    rng = np.random.default_rng(3)
    u, v = rng.uniform(0.5, 3.5, 3000), rng.uniform(-1.3, 1.3, 3000)     # smooth part, before the bump
    with pycrg.RoadSurface.open(str(path)) as surface:
        xs, ys = surface.uv_to_xy_many(u, v)
    z = reader_z(path, xs, ys)
    errors = []
    for spacing in (0.05, 0.02):
        road = OpenCrgRoad(path, dx_m=spacing, dy_m=spacing)
        assert road.straight == (np.ndim(phi) == 0)
        errors.append(np.abs(kernel_xy(road, xs, ys)[:, 0] - z))
    # the file's surface is bilinear between its nodes (kinks along its grid lines, which a rotated grid
    # cuts): resampling errs by O(spacing) times the slope jumps, here ~2e-5 m at 5 cm, and converges
    assert errors[0].max() < 5e-5 and np.sqrt(np.mean(errors[0] ** 2)) < 1e-5
    assert errors[1].max() < 0.5 * errors[0].max()


def test_errors_name_the_file_and_field(tmp_path, monkeypatch):
    with pytest.raises(ModelError, match=r"nothere\.crg: file not found"):
        OpenCrgRoad(tmp_path / "nothere.crg")
    bad = tmp_path / "bad.crg"
    bad.write_text("$CT\nnot a crg file\n$\n")
    with pytest.raises(ModelError, match=r"bad\.crg: OpenCRG cannot read the file"):
        OpenCrgRoad(bad)
    with pytest.raises(ModelError, match="x_range_m must increase"):
        OpenCrgRoad(EXAMPLE, x_range_m=(5.0, 1.0))
    with pytest.raises(ModelError, match="more than .* nodes"):
        OpenCrgRoad(EXAMPLE, dx_m=1e-4, dy_m=1e-4)
    monkeypatch.setitem(sys.modules, "pycrg", None)            # as if the optional package were missing
    with pytest.raises(ModelError, match=r"optional package pycrg .*fmu_vehicle\[crg\]"):
        OpenCrgRoad(EXAMPLE)
