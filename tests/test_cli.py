"""Command line: bad input of every option of every subcommand gives one line ``fmu-vehicle: error: ...``,
exit code 2 and no file; outputs are all-or-nothing; ``simulate`` writes what the Python API computes,
with the physics of a driven car; ``info``, ``reproduce-paper`` (and its failing exit code) and the
progress bar."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from fmu_vehicle.cli import main
from fmu_vehicle.paths import resource_path
from timeouts import HANG_GUARD_S

try:
    from test_vehicle_closed_form import closed_form_acceleration
except ImportError:
    from .test_vehicle_closed_form import closed_form_acceleration


def run(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.err.strip(), captured.out


def listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _assert_error(code, err, *words):
    assert code == 2
    assert len(err.splitlines()) == 1, err
    assert err.startswith("fmu-vehicle: error: "), err
    for w in words:
        assert w in err, (w, err)


def _bad_tire_vehicle(tmp_path):
    tir = resource_path("tires", "dai2022_sedan.tir").read_text()
    lines = [line for line in tir.splitlines() if not line.strip().upper().startswith("PDX1")]
    bad = tmp_path / "inputs" / "bad.tir"
    bad.write_text("\n".join(lines) + "\n")
    veh = tmp_path / "inputs" / "car.json"
    veh.write_text(resource_path("vehicles", "halfcar7.json").read_text()
                   .replace('"dai2022_sedan.tir"', f'"{bad}"')
                   .replace('"macpherson_front.json"', f'"{resource_path("vehicles", "suspensions", "macpherson_front.json")}"')
                   .replace('"five_link_rear.json"', f'"{resource_path("vehicles", "suspensions", "five_link_rear.json")}"'))
    return str(veh)


# every option of every subcommand with a bad value: (arguments, words the one line must contain).
# ``{dir}`` is an existing folder, ``{file}`` an existing file, ``{nan_road}``/``{order_road}`` bad CSV roads
BAD = [
    ([], ["required", "command"]),
    (["fly"], ["invalid choice", "fly"]),
    (["simulate", "--vehicle", "nocar"], ["nocar", "halfcar7"]),
    (["simulate", "--vehicle", "{bad_tire_car}"], ["PDX1", "bad.tir"]),
    (["simulate", "--road", "moon"], ["moon"]),
    (["simulate", "--road", "{nan_road}"], ["road.csv", "line 3", "nan"]),
    (["simulate", "--road", "{order_road}"], ["order.csv", "line 4", "must increase"]),
    (["simulate", "--drive-torque", "front:300"], ["--drive-torque", "front:300"]),
    (["simulate", "--drive-torque", "middle=300"], ["middle"]),
    (["simulate", "--drive-torque", "front=inf"], ["--drive-torque"]),
    (["simulate", "--brake-torque", "rear=x"], ["--brake-torque"]),
    (["simulate", "--brake-torque", "rear=-5"], ["--brake-torque", ">= 0"]),
    (["simulate", "--v0", "nan"], ["--v0", "nan"]),
    (["simulate", "--v0", "fast"], ["--v0", "fast"]),
    (["simulate", "--duration", "0"], ["--duration", "positive"]),
    (["simulate", "--dt", "-0.001"], ["--dt", "positive", "-0.001"]),
    (["simulate", "--integrator", "euler"], ["--integrator", "euler"]),
    (["simulate", "--record-every", "0"], ["--record-every", "at least 1"]),
    (["simulate", "--record-every", "2.5"], ["--record-every", "2.5"]),
    (["simulate", "--output", "{dir}"], ["--output", "is a directory"]),
    (["simulate", "--output", "{file}/run.csv"], ["--output", "not a directory"]),
    (["simulate", "--plot", "{dir}"], ["--plot", "is a directory"]),
    (["simulate", "--plot", "run.xyz"], ["--plot", "run.xyz", ".png"]),
    (["simulate", "-o", "run.png", "--plot", "run.png"], ["--plot", "also the --output"]),
    (["simulate", "--quiet=yes"], ["--quiet", "ignored explicit argument"]),
    (["simulate", "--frobnicate"], ["unrecognized arguments", "--frobnicate"]),
    (["reproduce-paper", "--variants", "nocar"], ["--variants", "nocar"]),
    (["reproduce-paper", "--out", "{file}"], ["--out", "not a directory"]),
    (["reproduce-paper", "--quiet=1"], ["--quiet"]),
    (["demo", "--out", "{file}"], ["--out", "not a directory"]),
    (["demo", "--quiet=1"], ["--quiet"]),
    (["bench", "--vehicles", "nocar"], ["--vehicles", "nocar", "halfcar7"]),
    (["bench", "--out", "{dir}"], ["--out", "is a directory"]),
    (["bench", "--integrators", "euler"], ["--integrators", "euler"]),
    (["bench", "--repeats", "0"], ["--repeats", "at least 1"]),
    (["bench", "--duration", "0.0005"], ["--duration", "multiple of the 1 ms step"]),
    (["bench", "--duration", "-1"], ["--duration", "positive"]),
    (["bench", "--no-uncompiled=1"], ["--no-uncompiled"]),
    (["bench", "--fmu", "missing.fmu"], ["--fmu", "missing.fmu"]),
    (["info", "extra"], ["unrecognized arguments", "extra"]),
]


@pytest.mark.parametrize("args, words", BAD, ids=[" ".join(a) or "no-command" for a, _ in BAD])
def test_bad_input_is_one_line_exit_2_and_no_file(capsys, tmp_path, monkeypatch, args, words):
    work = tmp_path / "work"
    (work / "folder").mkdir(parents=True)
    (work / "afile").write_text("x")
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "road.csv").write_text("distance_m,height_m\n0,0\n1,nan\n2,0\n")
    (tmp_path / "inputs" / "order.csv").write_text("distance_m,height_m\n0,0\n2,0.01\n1,0\n")
    subst = {"{dir}": str(work / "folder"), "{file}": str(work / "afile"),
             "{nan_road}": str(tmp_path / "inputs" / "road.csv"),
             "{order_road}": str(tmp_path / "inputs" / "order.csv")}
    if "{bad_tire_car}" in args:
        subst["{bad_tire_car}"] = _bad_tire_vehicle(tmp_path)
    args = [subst.get(a, a) for a in args]
    args = [a.replace("{file}", subst["{file}"]) for a in args]
    monkeypatch.chdir(work)
    before = listing(work)
    code, err, _ = run(capsys, *args)
    _assert_error(code, err, *words)
    assert listing(work) == before                 # no output file, no temporary file, no folder


def test_the_console_command_exits_2_with_one_line():
    """The installed entry point (``python -m fmu_vehicle``), in a fresh process: argparse's usage block
    is not printed, the exit status is 2."""
    proc = subprocess.run([sys.executable, "-m", "fmu_vehicle", "simulate", "--dt", "-0.001"], capture_output=True,
                          text=True, timeout=HANG_GUARD_S)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == ["fmu-vehicle: error: simulate: argument --dt: must be a positive number, "
                                        "got -0.001"]


def test_help_still_exits_0(capsys):
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--help"])
    assert e.value.code == 0 and "--drive-torque" in capsys.readouterr().out


def test_a_failing_write_leaves_no_file_and_keeps_the_old_one(capsys, tmp_path, monkeypatch):
    """The plot cannot be written (disk full while saving): exit 2, one line, neither the new CSV nor a
    temporary file is left, and a CSV of an earlier run at the same path is untouched (all-or-nothing)."""
    from fmu_vehicle.vehicle.vehicle import SimResult

    def full_disk(self, path, title=""):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(SimResult, "plot", full_disk)
    out = tmp_path / "run.csv"
    out.write_text("earlier run\n")
    code, err, _ = run(capsys, "simulate", "--duration", "0.01", "-o", str(out), "--plot", str(tmp_path / "run.png"))
    _assert_error(code, err, "No space left on device")
    assert out.read_text() == "earlier run\n"
    assert listing(tmp_path) == ["run.csv"]


def test_simulate_writes_the_api_run_and_its_physics(capsys, tmp_path):
    """500 N m on the front wheel of the half car at 10 m/s on the flat road for 4 s: the CSV equals
    Vehicle.simulate with the same arguments (every value is written exactly), and its steady
    acceleration (2.5-4 s) equals the closed form from torque, loaded radius, rolling resistance and wheel
    inertia to 1e-3 (test_vehicle_closed_form.py), which a 1 % torque error fails (1.1e-2)."""
    from fmu_vehicle.vehicle import Vehicle
    out, png = tmp_path / "run.csv", tmp_path / "run.png"
    assert main(["simulate", "--road", "flat", "--v0", "10", "--duration", "4", "--drive-torque", "front=500",
                 "--record-every", "10", "-o", str(out), "--plot", str(png), "-q"]) == 0
    header, *rows = out.read_text().splitlines()
    names = [h.split(" [")[0] for h in header.split(",")]
    assert names[:3] == ["time", "chassis.x", "chassis.z"] and len(rows) == 401
    table = np.array([[float(v) for v in row.split(",")] for row in rows])
    col = {n: table[:, k] for k, n in enumerate(names)}
    car = Vehicle.load("halfcar7")
    api = car.simulate("flat", 4.0, v0=10.0, drive_torque={"front": 500.0}, record_every=10)
    for n in names[1:]:
        np.testing.assert_allclose(col[n], api[n], rtol=1e-9, atol=1e-9, err_msg=n)
    a_csv, a_pred = closed_form_acceleration(car, col["time"], col.get, {"front": 500.0}, "flat", 0.0, (2.5, 4.0))
    assert abs(a_csv - a_pred) < 1e-3 * abs(a_pred), (a_csv, a_pred)
    assert png.stat().st_size > 10000 and sorted(p.name for p in tmp_path.iterdir()) == ["run.csv", "run.png"]
    assert "run.csv" in capsys.readouterr().out


def test_progress_bar_shown_for_long_runs_unless_quiet(capsys, tmp_path):
    """More than 3000 steps: a tqdm bar ('simulating', steps) on stderr; --quiet or a short run: none."""
    out = str(tmp_path / "o.csv")
    assert main(["simulate", "--duration", "3.5", "-o", out]) == 0
    err = capsys.readouterr().err
    assert "simulating" in err and "step" in err
    assert main(["simulate", "--duration", "3.5", "-o", out, "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["simulate", "--duration", "2.9", "-o", out]) == 0
    assert capsys.readouterr().err == ""


def test_info_lists_every_vehicle_with_the_papers_counts(capsys):
    """Coordinates, closure equations and DOF of the paper's models (Dai, Pan et al. 2022, section 2-3):
    7-DOF: 16 relative coordinates, 3 (cut ball joint) + 6 (tie rod, five links) = 9 equations; the fork-arm
    removal replaces the arm's pivot and its 3 ball-joint equations by 2 distance equations (15, 8); the
    14-DOF car doubles the corners on a 6-DOF chassis (32 - 18 = 14, fork arms 30 - 16). Mass: the
    paper's 1127 kg sprung + 116 kg unsprung per side."""
    assert main(["info"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {line.split(":")[0]: line for line in out}
    expected = {"halfcar7": (16, 9, 7, 1243.0), "halfcar7_forkarm": (15, 8, 7, 1243.0),
                "fullcar14": (32, 18, 14, 2486.0), "fullcar14_forkarm": (30, 16, 14, 2486.0)}
    for name, (n, m, dof, mass) in expected.items():
        rack = " + 1 driven (steering rack)" if name.startswith("fullcar") else ""
        assert f"{n} relative coordinates{rack}, {m} closure equations, {dof} DOF" in rows[name], rows[name]
        assert f"mass {mass:.1f} kg" in rows[name]
    roads = rows["roads"]
    for road in ("flat", "bumpy", "slope16_5"):
        assert road in roads


def test_reproduce_paper_writes_its_plots_and_fails_with_exit_1_outside_the_bands(capsys, tmp_path, monkeypatch):
    assert main(["reproduce-paper", "--variants", "halfcar7", "--out", str(tmp_path / "ok"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "all final states within the acceptance bands" in out
    assert sorted(p.name for p in (tmp_path / "ok").iterdir()) == ["paper_bumpy_road.png", "paper_sloping_road.png"]
    # a paper table 3 % further along: x (ours 1 % over and 0.3 % under the paper) is out of its 1.5 %
    # band in both manoeuvres -> exit code 1
    import fmu_vehicle.paper as paper
    original = paper.paper_final_state
    monkeypatch.setattr(paper, "paper_final_state", lambda m, k: {**original(m, k), "x_m": 1.03 * original(m, k)["x_m"]})
    assert main(["reproduce-paper", "--variants", "halfcar7", "--out", str(tmp_path / "bad"), "-q"]) == 1
    out = capsys.readouterr().out
    assert "2 final state(s) outside the acceptance bands" in out and out.count("OUT") == 2


@pytest.mark.parametrize("name", ["kinematics", "step-steer", "constant-radius"])
def test_manoeuvre_writes_its_csv_plot_and_summary(tmp_path, name):
    """fmu-vehicle manoeuvre NAME on the full car exits 0 and writes a plot, a CSV and summary.json whose
    numbers are those of the run (constant radius on a 30 m circle up to 4 m/s^2 to keep it short)."""
    out = tmp_path / name
    extra = ["--radius", "30", "--ay", "4"] if name == "constant-radius" else []
    assert main(["manoeuvre", name, "--out", str(out), *extra]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["vehicle"] == "fullcar14" and summary["manoeuvre"] == name
    assert any(p.suffix == ".png" and p.stat().st_size > 10_000 for p in out.iterdir())
    assert any(p.suffix == ".csv" for p in out.iterdir())
    if name == "step-steer":
        m = summary["metrics"]["yaw_rate"]
        assert 0.1 < m["response_time_s"] < 0.6 and m["steady_state"] > 0.1
    if name == "constant-radius":
        ug = summary["understeer_gradient"]
        assert ug["n_points"] > 10 and abs(ug["understeer_gradient_deg_per_g"]) < 5.0
    if name == "kinematics":
        assert set(summary["gradients_deg_per_m"]) >= {"bump_steer", "camber_change", "toe_per_rack"}


def test_manoeuvre_refuses_a_vehicle_without_steering(tmp_path, capsys):
    assert main(["manoeuvre", "step-steer", "--vehicle", "halfcar7", "--out", str(tmp_path / "x")]) == 2
    assert "no steering" in capsys.readouterr().err
    assert not (tmp_path / "x" / "summary.json").exists()
