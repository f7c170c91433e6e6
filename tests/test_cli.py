"""Command line: one-line errors naming the problem, exit code 2, no partial output file."""
import pytest

from fmu_vehicle.cli import main
from fmu_vehicle.paths import resource_path


def run(capsys, *args):
    code = main(list(args))
    err = capsys.readouterr().err.strip()
    return code, err


def _assert_error(code, err, *words):
    assert code == 2
    assert len(err.splitlines()) == 1, err
    for w in words:
        assert w in err, (w, err)


def test_unknown_vehicle(capsys, tmp_path):
    out = tmp_path / "o.csv"
    _assert_error(*run(capsys, "simulate", "--vehicle", "nocar", "-o", str(out)), "nocar", "halfcar7")
    assert not out.exists()


def test_unknown_road(capsys, tmp_path):
    out = tmp_path / "o.csv"
    _assert_error(*run(capsys, "simulate", "--road", "moon", "-o", str(out)), "moon")
    assert not out.exists()


def test_negative_dt(capsys, tmp_path):
    out = tmp_path / "o.csv"
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--dt", "-0.001", "-o", str(out)])
    assert e.value.code == 2
    assert "--dt" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("rows,words", [
    ("distance_m,height_m\n0,0\n1,nan\n2,0\n", ["line 3", "NaN"]),
    ("distance_m,height_m\n0,0\n2,0.01\n1,0\n", ["line 4", "increasing"]),
])
def test_bad_csv_road(capsys, tmp_path, rows, words):
    road = tmp_path / "road.csv"
    road.write_text(rows)
    out = tmp_path / "o.csv"
    code, err = run(capsys, "simulate", "--road", str(road), "-o", str(out))
    _assert_error(code, err, "road.csv")
    assert any(w.lower() in err.lower() for w in words), err
    assert not out.exists()


def test_tire_file_missing_coefficient(capsys, tmp_path):
    tir = resource_path("tires", "dai2022_sedan.tir").read_text()
    lines = [l for l in tir.splitlines() if not l.strip().upper().startswith("PDX1")]
    bad = tmp_path / "bad.tir"
    bad.write_text("\n".join(lines) + "\n")
    veh = tmp_path / "car.json"
    veh.write_text(resource_path("vehicles", "halfcar7.json").read_text()
                   .replace('"dai2022_sedan.tir"', f'"{bad}"')
                   .replace('"macpherson_front.json"', f'"{resource_path("vehicles", "suspensions", "macpherson_front.json")}"')
                   .replace('"five_link_rear.json"', f'"{resource_path("vehicles", "suspensions", "five_link_rear.json")}"'))
    out = tmp_path / "o.csv"
    _assert_error(*run(capsys, "simulate", "--vehicle", str(veh), "-o", str(out)), "PDX1", "bad.tir")
    assert not out.exists()


def test_bad_torque_argument(capsys, tmp_path):
    out = tmp_path / "o.csv"
    _assert_error(*run(capsys, "simulate", "--drive-torque", "front:300", "-o", str(out)), "--drive-torque")
    _assert_error(*run(capsys, "simulate", "--drive-torque", "middle=300", "-o", str(out)), "middle")
    assert not out.exists()


def test_simulate_writes_csv_and_plot(capsys, tmp_path):
    out, png = tmp_path / "run.csv", tmp_path / "run.png"
    assert main(["simulate", "--road", "flat", "--v0", "10", "--duration", "0.2", "--drive-torque", "front=500",
                 "-o", str(out), "--plot", str(png), "-q"]) == 0
    header, *rows = out.read_text().splitlines()
    assert header.startswith("time [s],chassis.x [m]")
    assert len(rows) == 201
    last = dict(zip([h.split(" [")[0] for h in header.split(",")], map(float, rows[-1].split(","))))
    assert last["time"] == pytest.approx(0.2)
    # the car moved at ~10 m/s and the drive torque accelerated it
    assert last["chassis.x"] == pytest.approx(2.0, rel=0.05)
    assert last["chassis.vx"] > 10.0
    assert png.stat().st_size > 10000
