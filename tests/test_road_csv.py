"""CsvRoad: interpolation through the rows, slopes, end behaviour and file errors naming the line."""
import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.road import CsvRoad, SpeedBumpRoad


def write(tmp_path, text, name="profile.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_interpolation_exact_at_rows_and_linear_between(tmp_path):
    d = np.arange(0.0, 10.01, 0.5)
    h = 0.03 * np.sin(d) + 0.001 * d ** 2
    path = write(tmp_path, "distance_m,height_m\n" + "".join(f"{a:.17g},{b:.17g}\n" for a, b in zip(d, h)))
    road = CsvRoad(path)
    assert road.rows == len(d) and road.dx == pytest.approx(0.5, rel=1e-12)
    np.testing.assert_allclose(road.height(d), h, rtol=0, atol=1e-15)
    mid = 0.5 * (d[:-1] + d[1:])
    np.testing.assert_allclose(road.height(mid), 0.5 * (h[:-1] + h[1:]), rtol=0, atol=1e-15)
    # slope at a row: mean of the two segment slopes; mid-segment: the segment slope
    seg = np.diff(h) / np.diff(d)
    np.testing.assert_allclose(road.slope(d[1:-1]), 0.5 * (seg[:-1] + seg[1:]), rtol=0, atol=1e-13)
    np.testing.assert_allclose(road.slope(d[0]), seg[0], atol=1e-13)
    # beyond the ends: end height held, slope zero
    assert road.height(-3.0) == h[0] and road.slope(-3.0) == 0.0
    assert road.height(12.0) == h[-1] and road.slope(12.0) == 0.0


def test_uneven_rows_on_the_grid_and_straight_segment_slope(tmp_path):
    path = write(tmp_path, "0,0\n0.5,0.1\n1.0,0.1\n2.0,-0.1\n3.5,0.2\n")
    road = CsvRoad(path)
    d = np.array([0, 0.5, 1.0, 2.0, 3.5])
    np.testing.assert_allclose(road.height(d), [0, 0.1, 0.1, -0.1, 0.2], atol=1e-15)
    # inside a segment more than one grid cell away from its rows the slope is the segment's slope
    assert road.slope(1.5) == pytest.approx(-0.2, abs=1e-12)
    assert road.slope(2.75) == pytest.approx(0.2, abs=1e-12)


def test_header_comments_extra_columns_and_to_csv_round_trip(tmp_path):
    bumps = SpeedBumpRoad([(1.0, 0.5, 0.05)])
    path = bumps.to_csv(tmp_path / "bumps.csv", 0.0, 2.0, 0.01)
    lines = path.read_text().splitlines()
    assert lines[0] == "distance_m,height_m,slope" and len(lines) == 202
    road = CsvRoad(path)
    x = 0.01 * np.arange(201)                      # the exported distances: reproduced to rounding
    np.testing.assert_allclose(road.height(x), bumps.height(x), rtol=0, atol=1e-16)
    np.testing.assert_allclose(road.height(x), np.loadtxt(path, delimiter=",", skiprows=1)[:, 1], rtol=0, atol=1e-16)
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize("text, line, reason", [
    ("distance_m,height_m\n0,0\n1,nan\n2,0\n", 3, "height is nan"),
    ("0,0\n# note\n1,0\n2,inf\n", 4, "height is inf"),
    ("distance_m,height_m\n0,0\n1,0.1\n1,0.2\n", 4, "distance 1 m is not greater than 1 m on line 3"),
    ("0,0\n2,0.1\n\n1.5,0.2\n", 4, "distance 1.5 m is not greater than 2 m on line 2"),
    ("d,h\n0,0\n1,abc\n", 3, "must be numbers"),
    ("0,0\n1\n", 2, "expected two columns"),
])
def test_bad_rows_name_file_and_line(tmp_path, text, line, reason):
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as err:
        CsvRoad(path)
    message = str(err.value)
    assert str(path) in message and f"line {line}:" in message and reason in message


def test_missing_file_and_too_few_rows(tmp_path):
    with pytest.raises(ModelError, match=r"nothere\.csv: file not found"):
        CsvRoad(tmp_path / "nothere.csv")
    with pytest.raises(ModelError, match=r"one\.csv: has 1 data row\(s\), needs at least 2"):
        CsvRoad(write(tmp_path, "distance_m,height_m\n0,0\n", "one.csv"))
    with pytest.raises(ModelError, match=r"empty\.csv: has 0 data row"):
        CsvRoad(write(tmp_path, "distance_m,height_m\n", "empty.csv"))
