"""Command line: bad input of every option of every subcommand gives one line ``fmu-vehicle: error: ...``,
exit code 2 and no file; outputs are all-or-nothing; ``simulate`` writes what the Python API computes,
with the physics of a driven car; ``info``, ``reproduce-paper`` (and its failing exit code) and the
progress bar."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from fmu_vehicle.cli import main
from fmu_vehicle.paths import resource_path
from reference.closed_form import closed_form_acceleration
from timeouts import HANG_GUARD_S


def run(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.err.strip(), captured.out


def listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _without_compile_progress(err: str) -> str:
    """``err`` without what ``cli.progress.compile_progress`` prints when this process compiles kernels (a cold
    cache: its notice and its bar), which is not part of the error report."""
    return "".join(line for line in err.splitlines(keepends=True)
                   if line.strip() and not line.lstrip().startswith(("fmu-vehicle: compiling the model's kernels",
                                                                     "compiled: ")))


def _assert_error(code, err, *words):
    err = _without_compile_progress(err)
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
    (["simulate", "--duration", "0.0105"], ["--duration", "0.0105", "--dt", "0.001", "--duration 0.01"]),
    (["simulate", "--duration", "1", "--dt", "0.3", "--integrator", "abm4"], ["--duration", "abm4"]),
    (["simulate", "--steer", "0:0,1:10"], ["--steer", "halfcar7", "no steering"]),
    (["doctor", "{file}"], ["FMU", "afile", "not an FMU"]),
    (["doctor", "{zip}"], ["FMU", "plain.zip", "modelDescription.xml"]),
    (["doctor", "--runs", "0", "{file}"], ["--runs", "at least 1"]),
    (["doctor", "--steps", "-5", "{file}"], ["--steps", "at least 1"]),
    (["doctor", "missing.fmu"], ["FMU", "missing.fmu"]),
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
    (["bench", "--native-export", "Tire"], ["--native-export", "'Tire'", "VehicleLV"]),
    (["bench", "--baseline", "HEAD", "--native-export", "VehicleLV"], ["--baseline", "--native-export"]),
    (["bench", "--baseline", "no-such-commit"], ["--baseline", "no-such-commit", "not a commit"]),
    (["bench", "--baseline", "HEAD", "--integrators", "reference"], ["--baseline", "fixed-step"]),
    (["bench", "--baseline", "HEAD", "--fmu", "{file}"], ["--fmu", "afile", "unknown FMU", "VehicleLV"]),
    (["crosscheck", "--out", "{file}"], ["--out", "not a directory"]),
    (["crosscheck", "--fmu-dir", "{file}"], ["--fmu-dir", "not a directory"]),
    (["crosscheck", "--quiet=1"], ["--quiet"]),
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
    with zipfile.ZipFile(tmp_path / "inputs" / "plain.zip", "w") as archive:
        archive.writestr("readme.txt", "not an FMU")
    subst = {"{dir}": str(work / "folder"), "{file}": str(work / "afile"), "{zip}": str(tmp_path / "inputs" / "plain.zip"),
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


@pytest.mark.parametrize("args, words", [
    (["--vehicle", "fullcar14", "--steer", "abc"], ["--steer", "abc"]),
    (["--vehicle", "halfcar7", "--steer", "0:0,1:10"], ["--steer", "halfcar7", "no steering"]),
    (["--vehicle", "fullcar14", "--drive-torque", "rear=100"], ["unknown wheel", "rear", "FL, FR, RL, RR"]),
], ids=["steer-text", "steer-no-rack", "wheel-name"])
def test_bad_simulate_input_is_refused_before_the_vehicle_is_compiled(capsys, tmp_path, monkeypatch, args, words):
    """Loading a vehicle compiles its kernels on a first run (minutes): every argument is checked before."""
    from fmu_vehicle.vehicle import Vehicle

    def no_load(*a, **k):
        raise AssertionError("the vehicle was loaded (and compiled) before its arguments were checked")

    monkeypatch.setattr(Vehicle, "load", no_load)
    monkeypatch.chdir(tmp_path)
    code, err, _ = run(capsys, "simulate", *args)
    _assert_error(code, err, *words)
    assert list(tmp_path.iterdir()) == []


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

    def full_disk(self, path, title="", **options):
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
    import fmu_vehicle.tools.paper as paper
    original = paper.paper_final_state
    monkeypatch.setattr(paper, "paper_final_state", lambda m, k: {**original(m, k), "x_m": 1.03 * original(m, k)["x_m"]})
    assert main(["reproduce-paper", "--variants", "halfcar7", "--out", str(tmp_path / "bad"), "-q"]) == 1
    out = capsys.readouterr().out
    assert "2 final state(s) outside the acceptance bands" in out and out.count("OUT") == 2


MANOEUVRES = ["kinematics", "step-steer", "constant-radius"]


@pytest.fixture(scope="module")
def manoeuvres_out(tmp_path_factory):
    """The three manoeuvres run one after the other into one folder (constant radius on a 30 m circle up to
    4 m/s^2 to keep it short); name -> (exit code, stderr)."""
    out = tmp_path_factory.mktemp("manoeuvres")
    codes = {}
    for name in MANOEUVRES:
        extra = ["--radius", "30", "--ay", "4"] if name == "constant-radius" else []
        proc = subprocess.run([sys.executable, "-m", "fmu_vehicle", "manoeuvre", name, "--out", str(out), *extra],
                              capture_output=True, text=True)
        codes[name] = (proc.returncode, proc.stderr)
    return out, codes


@pytest.mark.parametrize("name", MANOEUVRES)
def test_manoeuvre_writes_its_csv_plot_and_summary(manoeuvres_out, name):
    """fmu-vehicle manoeuvre NAME on the full car exits 0 and writes a plot, a CSV and <name>_summary.json
    whose numbers are those of the run; manoeuvres run into one folder keep every summary (one file each).
    The step steer reaches its 4 m/s^2 steady-state target within 0.5 % (the single-track amplitude alone
    gave 3.47 m/s^2, -13 %)."""
    out, codes = manoeuvres_out
    assert codes[name][0] == 0, codes[name][1]
    stem = name.replace("-", "_")
    text = (out / f"{stem}_summary.json").read_text()
    summary = json.loads(text)
    assert summary["vehicle"] == "fullcar14" and summary["manoeuvre"] == name
    assert "-0.0," not in text and "-0.0\n" not in text                  # no negative zeros
    assert (out / f"{stem}.png").stat().st_size > 10_000 and (out / f"{stem}.csv").is_file()
    assert not (out / "summary.json").exists()
    if name == "step-steer":
        m = summary["metrics"]
        assert 0.1 < m["yaw_rate"]["response_time_s"] < 0.6 and m["yaw_rate"]["steady_state"] > 0.1
        assert m["ay_target_m_s2"] == 4.0 and abs(m["ay"]["steady_state"] - 4.0) <= 0.005 * 4.0
        assert m["ay_miss_pct"] == pytest.approx((m["ay"]["steady_state"] - 4.0) / 4.0 * 100.0)
        assert 2 <= m["runs"] <= 5 and "misses" not in codes[name][1]
    if name == "constant-radius":
        ug = summary["understeer_gradient"]
        assert ug["n_points"] > 10 and abs(ug["understeer_gradient_deg_per_g"]) < 5.0
    if name == "kinematics":
        assert set(summary["gradients_deg_per_m"]) >= {"bump_steer", "camber_change", "toe_per_rack"}


def test_manoeuvre_refuses_a_vehicle_without_steering(tmp_path, capsys):
    assert main(["manoeuvre", "step-steer", "--vehicle", "halfcar7", "--out", str(tmp_path / "x")]) == 2
    assert "no steering" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def _one_error_line(proc, *words):
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fmu-vehicle: error: "), proc.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])


def test_integrator_errors_are_one_line_in_a_fresh_process(tmp_path):
    """A duration that is not a whole number of steps (0.0105 s at 1 ms) was a ValueError traceback of the
    integrator with exit 1; now one line with exit 2, before anything is built, and no file."""
    proc = subprocess.run([sys.executable, "-m", "fmu_vehicle", "simulate", "--duration", "0.0105"],
                          capture_output=True, text=True, cwd=tmp_path)
    _one_error_line(proc, "--duration", "0.0105", "10.5 steps")
    assert list(tmp_path.iterdir()) == []
    # the adaptive reference method takes any duration (dt is its output spacing)
    assert main(["simulate", "--duration", "0.0105", "--integrator", "reference", "-q",
                 "-o", str(tmp_path / "ref.csv")]) == 0
    assert (tmp_path / "ref.csv").read_text().splitlines()[-1].startswith("0.0105,")


def test_doctor_refuses_a_file_that_is_not_an_fmu_in_a_fresh_process(tmp_path):
    (tmp_path / "notes.fmu").write_text("plain text")
    proc = subprocess.run([sys.executable, "-m", "fmu_vehicle", "doctor", "notes.fmu"], capture_output=True,
                          text=True, cwd=tmp_path)
    _one_error_line(proc, "notes.fmu", "not an FMU")


@pytest.mark.slow
def test_doctor_leaves_no_temporary_folder(scenario_fmus, tmp_path):
    """doctor builds its C host and FMPy extracts the FMU into temporary folders: all removed (TMPDIR of the
    run is empty afterwards)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.run([sys.executable, "-m", "fmu_vehicle", "doctor", str(scenario_fmus["LeadVehicle"]),
                           "--runs", "1", "--steps", "20"], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "TMPDIR": str(tmp)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verdict: OK" in proc.stdout
    assert list(tmp.iterdir()) == []


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_honour_the_umask(tmp_path, umask, mode):
    """Every file written through atomic_write_all gets 0666 minus the umask, as open() gives (it was always
    0600: mkstemp's mode); the CLI's CSV and plot included."""
    from fmu_vehicle.util import atomic_write_all
    old = os.umask(umask)
    try:
        atomic_write_all([(tmp_path / "a.txt", lambda f: f.write("a")), (tmp_path / "b.txt", lambda f: f.write("b"))])
        assert main(["simulate", "--duration", "0.01", "-q", "-o", str(tmp_path / "run.csv"),
                     "--plot", str(tmp_path / "run.png")]) == 0
    finally:
        os.umask(old)
    for name in ("a.txt", "b.txt", "run.csv", "run.png"):
        assert (tmp_path / name).stat().st_mode & 0o777 == mode, name


def test_summaries_have_no_negative_zero():
    from fmu_vehicle.cli.manoeuvre import plain as _plain
    from fmu_vehicle.scenarios.half_car import format_stop
    from fmu_vehicle.util import fixed
    text = json.dumps(_plain({"a": -0.0, "b": np.float64(-0.0), "c": [np.array([-0.0, -1.5])], "d": np.int64(3),
                              "e": None, "f": True}))
    assert text == '{"a": 0.0, "b": 0.0, "c": [[0.0, -1.5]], "d": 3, "e": null, "f": true}'
    assert [fixed(v, 3) for v in (-0.0, -0.0004, -0.0006, 0.0004, 2.5)] == ["0.000", "0.000", "-0.001", "0.000",
                                                                              "2.500"]
    # the demo's last line (it printed "ego -0.000 m/s" for an ego stopped at -2e-5 m/s)
    line = format_stop({"stopped_behind": True, "final_speed_m_per_s": -2e-5, "final_gap_m": 4.9,
                        "final_lead_speed_m_per_s": -0.0, "contact": False})
    assert "-0.0" not in line and "ego 0.000 m/s, 4.90 m behind the lead (0.000 m/s)" in line


def _svg_texts(path) -> list[str]:
    import re
    return re.findall(r"<!-- (.*?) -->", path.read_text(), flags=re.S)


def test_plot_of_a_steered_full_car_shows_its_lateral_quantities(tmp_path):
    """simulate --plot of fullcar14 with --steer: the panels are y, yaw, yaw rate, ay, the steering-wheel
    angle (and x, vx, vy, roll, pitch), units from the signal table in the plot spelling (m/s^2, not m/s2);
    the half car keeps its longitudinal-vertical panels. The long title is broken into lines that fit."""
    svg = tmp_path / "full.svg"
    assert main(["simulate", "--vehicle", "fullcar14", "--steer", "0:0,0.1:0,0.3:30", "--v0", "10",
                 "--duration", "0.5", "-q", "-o", str(tmp_path / "full.csv"), "--plot", str(svg)]) == 0
    texts = _svg_texts(svg)
    for label in ("y [m]", "yaw [rad]", "yaw rate [rad/s]", "ay [m/s^2]", "steering wheel angle [rad]",
                  "x [m]", "vx [m/s]", "vy [m/s]", "roll [rad]", "pitch [rad]", "time [s]"):
        assert label in texts, (label, texts)
    assert not any("m/s2" in t or "[-]" in t for t in texts)
    half = tmp_path / "half.svg"
    assert main(["simulate", "--duration", "0.05", "-q", "-o", str(tmp_path / "half.csv"), "--plot", str(half)]) == 0
    assert {"z [m]", "pitch rate [rad/s]"} <= set(_svg_texts(half)) and "y [m]" not in _svg_texts(half)


def test_long_titles_fit_the_figure():
    """A title longer than the figure is wide is broken into lines, and the drawn title lies inside the
    figure (it was cut at both ends)."""
    from fmu_vehicle.plotting import fit_title, new_figure
    title = "fullcar14 on " + ", ".join(f"CSV road profile_{k}.csv: 1200 rows, x 0 to 600 m" for k in range(3))
    for width in (6.0, 8.0, 12.0):
        fig = new_figure(width, 3.0)
        fig.subplots()
        text = fig.suptitle(fit_title(title, width, 10), fontsize=10)
        fig.canvas.draw()
        box = text.get_window_extent()
        assert 0.0 <= box.x0 and box.x1 <= fig.bbox.x1, (width, box)
        assert fit_title(title, width, 10).replace("\n", " ") == title


def test_a_first_compile_says_so_and_counts_the_functions_and_a_cached_one_is_quiet():
    """compile_progress around real numba compiles of two fresh functions: one notice line and a bar on the
    stream, counting both; the same calls again (compiled) print nothing."""
    import io

    import numba

    from fmu_vehicle.cli.progress import compile_progress

    @numba.njit(cache=False)
    def inner(x):
        return x * 2.0 + 1.0

    @numba.njit(cache=False)
    def outer(x):
        return inner(x) - 1.0

    stream = io.StringIO()
    with compile_progress(stream=stream):
        assert outer(2.0) == 4.0
    text = stream.getvalue()
    assert text.startswith("fmu-vehicle: compiling the model's kernels") and text.count("fmu-vehicle:") == 1
    assert "compiled: 2 functions" in text
    stream = io.StringIO()
    with compile_progress(stream=stream):
        assert outer(3.0) == 6.0
    assert stream.getvalue() == ""


def test_driving_past_the_end_of_a_csv_road_warns_once(tmp_path, capsys):
    """A 30 m CSV profile, 3 s at 15 m/s: one warning line naming the file and the distance reached (the
    front wheel's x); a run that stays on it gets none."""
    road = tmp_path / "short.csv"
    road.write_text("distance_m,height_m\n" + "".join(f"{x},{0.01 if 10 <= x <= 11 else 0.0}\n" for x in range(31)))
    out = str(tmp_path / "o.csv")
    assert main(["simulate", "--road", str(road), "--v0", "15", "--duration", "3", "-q", "-o", out]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("fmu-vehicle: warning: road CSV ") and "short.csv" in err[0], err
    from fmu_vehicle.results import read_csv
    x_front = read_csv(out)["wheel_front.x"].max()
    assert x_front > 40.0 and "ends at x = 30 m" in err[0] and f"x = {x_front:.3f} m" in err[0]
    assert main(["simulate", "--road", str(road), "--v0", "5", "--duration", "1", "-q", "-o", out]) == 0
    assert capsys.readouterr().err == ""


def test_the_build_notice_names_a_compile_only_for_fmus_that_compile_one():
    """demo's line for an FMU it builds says "compiles the vehicle model once" (and how long that took where it
    was measured) only for the vehicle FMUs (it was on every FMU, also those that compile nothing)."""
    from fmu_vehicle.cli.progress import build_notice as _build_notice
    from fmu_vehicle.fmi.registry import FMUS
    notices = {name: _build_notice(name) for name in FMUS}
    assert notices == {"Powertrain": "", "Controller": "", "LeadVehicle": "", "Driver": "", "ChassisControl": "",
                       "Robot": "",
                       "VehicleLV": " (compiles the vehicle model once: about 2 minutes on an idle 2-core machine)",
                       "Vehicle": " (compiles the vehicle model once: about 2 minutes on an idle 2-core machine)",
                       "VehicleCombination": " (compiles the vehicle model once: about 2 minutes on an idle 2-core machine)",
                       "TractorSemitrailer": " (compiles the vehicle model once: about 2 minutes on an idle 2-core machine)",
                       "Tire": " (compiles the tire model once)"}


def test_ctrl_c_while_the_parser_imports_the_package_is_one_line_and_exit_130(capsys, monkeypatch):
    """The parser imports the integrators (numba, scipy: seconds on a first run); an interrupt there ends like
    one during the command: one line, exit 130, no traceback."""
    import fmu_vehicle.cli as cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    code, err, out = run(capsys, "simulate", "--duration", "1")
    assert (code, err, out) == (130, "fmu-vehicle: interrupted", "")


def test_ctrl_c_during_a_simulation_leaves_no_output_and_no_traceback(tmp_path):
    """SIGINT to the process group (what a terminal's Ctrl-C sends) once the run has started: exit 130, no
    traceback, and a last line that says how many rows the CSV keeps: exactly those, each whole."""
    import signal
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    proc = subprocess.Popen([sys.executable, "-m", "fmu_vehicle.cli", "simulate", "--vehicle", "halfcar7",
                             "--road", "bumpy", "--duration", "600", "--output", "run.csv"], cwd=tmp_path, env=env,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        first = proc.stderr.read(1)             # the run's first output (its progress bar or compile notice)
        os.killpg(proc.pid, signal.SIGINT)
        rest = proc.stderr.read()
        code = proc.wait(timeout=HANG_GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = first + rest
    assert code == 130, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    last = err.rstrip().splitlines()[-1]
    kept = re.fullmatch(r"fmu-vehicle: interrupted at t = [0-9.]+ s; (\d+) rows written to run.csv", last)
    if kept is None:                        # interrupted before the first row: nothing written
        assert last == "fmu-vehicle: interrupted" and list(tmp_path.iterdir()) == []
    else:
        rows = (tmp_path / "run.csv").read_text().splitlines()
        assert len(rows) == 1 + int(kept.group(1))
        assert len({row.count(",") for row in rows}) == 1              # no row cut short
