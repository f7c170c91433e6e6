"""Result CSV (exact round trip, units line, atomic) and plot output."""
import numpy as np
import pytest

from fmu_vehicle.cosim import Result, read_csv


def make_result():
    data = np.zeros(4, dtype=[("time", "f8"), ("plant.x", "f8"), ("ctrl.n", "i4"), ("ctrl.on", "?")])
    data["time"] = [0.0, 0.1, 0.2, 0.30000000000000004]
    data["plant.x"] = [1.0, 1.0 / 3.0, -2.5e-17, np.pi]
    data["ctrl.n"] = [0, 1, 2, 3]
    data["ctrl.on"] = [False, True, True, False]
    return Result(data=data, units={"time": "s", "plant.x": "m"})


def test_csv_round_trip_is_exact(tmp_path):
    result = make_result()
    path = result.to_csv(tmp_path / "out" / "r.csv")
    lines = path.read_text().splitlines()
    assert lines[:2] == ["time,plant.x,ctrl.n,ctrl.on", "# units: s,m,,"]
    assert lines[3] == "0.1,0.3333333333333333,1,1"
    back = read_csv(path)
    assert back.names == result.names and back.units == {"time": "s", "plant.x": "m", "ctrl.n": "", "ctrl.on": ""}
    for name in result.names:
        np.testing.assert_array_equal(back[name], result[name].astype(float))
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["r.csv"]      # no temporary file left
    assert np.genfromtxt(path, delimiter=",", names=True)["plantx"][2] == -2.5e-17   # plain numpy can read it


def test_plot_writes_an_image(tmp_path):
    result = make_result()
    path = result.plot(tmp_path / "r.png", ["plant.x", "ctrl.n"])
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert result.plot(tmp_path / "r.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(KeyError, match="no recorded variable 'plant.y'"):
        result.plot(tmp_path / "bad.png", ["plant.y"])
    assert not (tmp_path / "bad.png").exists()
