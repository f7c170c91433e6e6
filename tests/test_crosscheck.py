"""Each FMU run alone with its defaults, and ``fmu-vehicle crosscheck`` (FMI Cross-Check folders, docs/fmu_hosts.md).

* Defaults: every FMU of ``CROSSCHECK_FMUS`` through ``fmpy.simulate_fmu`` with no inputs and no start values shows its
  model at work: the Tire on the road at its loaded radius under its nominal load, rolling; the Driver steering
  along its default path with no path error; the Powertrain launching at its default throttle (more torque than
  at idle); the Controller cruising at its set speed; the lead vehicle and the vehicles driving.
* Cross-check: the command writes the rules' folder for all nine FMUs; every CSV keeps the rules (quoted
  header, time first and non-decreasing, C number literals, at most 1 MB, names of the modelDescription, every
  input in ``_in.csv``, at most 10 reference variables); FMPy's own validator of vendor repositories finds
  nothing; and an FMPy run from ``_in.csv`` and ``_ref.opt`` alone reproduces ``_ref.csv`` to 1e-9 relative.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy.cross_check.validate_vendor_repo import validate_test_fmu
from fmpy.util import read_csv, read_ref_opt_file

from fmu_vehicle.cli import main
from fmu_vehicle.fmi.crosscheck import CASES, LAYOUT, write_crosscheck
from fmu_vehicle.fmi.start_values import tire_rolling_start
from fmu_vehicle.fmi.version import package_version

from fmu_lists import CROSSCHECK_FMUS

C_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def _alone(fmu: Path, stop: float = 1.0, step: float = 0.01, **start):
    md = fmpy.read_model_description(str(fmu))
    outputs = [v.name for v in md.modelVariables if v.causality == "output"]
    return fmpy.simulate_fmu(str(fmu), stop_time=stop, step_size=step, output_interval=step, output=outputs,
                             start_values=start)


def test_every_fmu_alone_with_its_defaults_does_something_recognizable(all_fmus):
    # Tire: on the road at the loaded radius, under the nominal load, rolling freely (old default: airborne)
    tire = _alone(all_fmus["Tire"])
    start = tire_rolling_start()
    assert start.fz == 6000.0                                       # FNOMIN of the default .tir, LFZO = 1
    assert np.allclose(tire["fz"], start.fz, rtol=1e-6)
    assert np.allclose(tire["loaded_radius"], start.z, rtol=1e-9) and 0.40 < start.z < 0.4672
    assert np.allclose(tire["deflection"], 0.4672 - start.z, rtol=1e-6)
    assert np.all(np.abs(tire["slip_velocity"]) < 1e-9) and np.all(np.abs(tire["slip"]) < 1e-9)   # free rolling
    assert np.all(tire["my"] < -10.0)                               # rolling resistance: the wheel spins forward
    assert np.allclose(tire["rolling_radius"] * start.omega, start.vx, rtol=1e-9)

    # Driver: on the default path at its sharpest bend: it steers, with no path error
    drv = _alone(all_fmus["Driver"])
    assert np.all(np.abs(drv["steering_wheel_angle"]) > 0.02)
    assert np.all(np.abs(drv["lateral_error"]) < 1e-3) and np.all(np.abs(drv["heading_error"]) < 1e-3)
    assert np.all(drv["path_s"] > 100.0) and np.all(drv["brake"] == 0.0)

    # Powertrain: the default throttle launches: more engine speed and drive torque than at idle, first gear
    pt = _alone(all_fmus["Powertrain"])
    idle = _alone(all_fmus["Powertrain"], throttle=0.0)
    assert np.all(pt["engine.speed"] > 1.5 * idle["engine.speed"])
    assert np.all(pt["wheel_left.torque_drive"] > 1.5 * idle["wheel_left.torque_drive"])
    assert np.all(pt["engine.torque"] > idle["engine.torque"]) and np.all(pt["transmission.gear"] == 1)

    # Controller: cruising at its set speed with no lead in range: no command, no brake, nothing detected
    ctl = _alone(all_fmus["Controller"])
    assert np.all(ctl["accel_command"] == 0.0) and np.all(ctl["brake"] == 0.0) and np.all(ctl["throttle"] == 0.0)
    assert not np.any(ctl["lead_detected"]) and not np.any(ctl["held"]) and np.all(ctl["ttc"] == 1000.0)

    # the lead vehicle and both vehicles drive at 20 m/s from the start
    lead = _alone(all_fmus["LeadVehicle"])
    assert lead["x"][-1] - lead["x"][0] == pytest.approx(20.0, rel=1e-9)
    for name in ("VehicleLV", "Vehicle"):
        car = _alone(all_fmus[name], stop=0.5)
        assert car["chassis.vx"][0] == pytest.approx(20.0, rel=1e-3)       # the centre of mass, not the wheels
        assert car["chassis.x"][-1] - car["chassis.x"][0] == pytest.approx(10.0, rel=0.02)


def _check_csv(path: Path, allowed: set[str], opts: dict) -> list[str]:
    """The rules' CSV format (Appendix B); returns the variable names."""
    assert path.stat().st_size <= 1_000_000
    lines = path.read_text().split("\n")
    assert lines[-1] == "" and all(lines[:-1]), f"{path.name}: empty line"
    header = lines[0].split(",")
    assert all(len(h) > 2 and h[0] == h[-1] == '"' for h in header), f"{path.name}: unquoted name"
    names = [h[1:-1] for h in header]
    assert names[0] == "time" and len(set(names)) == len(names)
    assert set(names[1:]) <= allowed, f"{path.name}: {set(names[1:]) - allowed}"
    rows = [line.split(",") for line in lines[1:-1]]
    assert all(len(row) == len(names) for row in rows)
    assert all(C_NUMBER.match(cell) for row in rows for cell in row), f"{path.name}: a cell is not a C number"
    t = np.array([float(row[0]) for row in rows])
    assert np.all(np.diff(t) >= 0.0)
    assert t[0] == opts["StartTime"] and t[-1] == pytest.approx(opts["StopTime"], abs=1e-9)
    return names


def test_crosscheck_writes_complete_valid_folders_that_fmpy_reproduces(all_fmus, tmp_path, capsys):
    fmu_dir = tmp_path / "fmus"
    fmu_dir.mkdir()
    for name in CROSSCHECK_FMUS:
        shutil.copyfile(all_fmus[name], fmu_dir / f"{name}.fmu")    # current builds: reused, not rebuilt
    out = tmp_path / "xc"
    assert main(["crosscheck", "--out", str(out), "--fmu-dir", str(fmu_dir)]) == 0
    printed = capsys.readouterr().out
    assert f"[{len(CROSSCHECK_FMUS)}/{len(CROSSCHECK_FMUS)}]" in printed and "building" not in printed
    root = out.joinpath(*LAYOUT, package_version())
    assert sorted(p.name for p in root.iterdir()) == sorted(CROSSCHECK_FMUS) == sorted(CASES)
    assert not list(out.rglob(".crosscheck-*"))
    for name in CROSSCHECK_FMUS:
        folder = root / name
        md = fmpy.read_model_description(str(folder / f"{name}.fmu"))
        inputs = [v.name for v in md.modelVariables if v.causality == "input"]
        outputs = {v.name for v in md.modelVariables if v.causality == "output"}
        expected = {f"{name}.fmu", f"{name}_ref.csv", f"{name}_ref.opt", "ReadMe.md"} | (
            {f"{name}_in.csv"} if inputs else set())
        assert {p.name for p in folder.iterdir()} == expected, name
        assert (folder / f"{name}.fmu").read_bytes() == all_fmus[name].read_bytes()
        assert "## What the run shows" in (folder / "ReadMe.md").read_text()
        assert validate_test_fmu(str(folder)) == [], name
        opts = read_ref_opt_file(str(folder / f"{name}_ref.opt"))
        assert opts["StartTime"] == 0.0 and opts["StepSize"] == CASES[name].step_size
        ref_names = _check_csv(folder / f"{name}_ref.csv", outputs, opts)
        assert 1 <= len(ref_names) - 1 <= 10
        signals = None
        if inputs:
            assert _check_csv(folder / f"{name}_in.csv", set(inputs), opts)[1:] == inputs
            signals = read_csv(str(folder / f"{name}_in.csv"))
        # what an importing tool does: run from the files alone, compare with the reference
        ref = read_csv(str(folder / f"{name}_ref.csv"))
        again = fmpy.simulate_fmu(str(folder / f"{name}.fmu"), start_time=opts["StartTime"],
                                  stop_time=opts["StopTime"], step_size=opts["StepSize"],
                                  output_interval=opts["StepSize"], input=signals, output=ref_names[1:])
        assert again.size == ref.size
        for column in ref_names:
            np.testing.assert_allclose(np.asarray(again[column], float), ref[column], rtol=1e-9, atol=0.0,
                                       err_msg=f"{name}.{column}")
        refs = {n: ref[n] for n in ref_names}
        if name == "Powertrain":      # the launch shifts up and the engine runs up
            assert refs["transmission.gear"][-1] >= 3 and refs["engine.speed"][-1] > refs["engine.speed"][0]
        elif name == "Controller":    # ACC braking, then the AEB
            assert refs["lead_detected"][0] == 1 and refs["aeb_active"][-1] == 1 and refs["brake"][-1] == 1.0
        elif name == "Tire":          # nominal load while rolling, the bump at 20 m, drive slip
            assert refs["fz"][0] == pytest.approx(6000.0, rel=1e-6) and refs["fz"].max() > 1.5 * 6000.0
            assert refs["fx"][int(1.5 / 0.002)] > 1000.0
        elif name == "Driver":        # steers through the lane change, close to the path
            assert np.ptp(refs["steering_wheel_angle"]) > 0.1 and np.abs(refs["lateral_error"]).max() < 0.05
        elif name == "ChassisControl":   # the pedal builds pressure; ABS releases the overbraked wheel
            assert refs["brakes.master_cylinder_pressure"][-1] > 1e7 and refs["abs.active"].max() == 1.0
            assert (refs["brakes.pressure_FR"] - refs["brakes.pressure_FL"]).max() > 2e6
        elif name == "Vehicle":       # the step steer turns the car left
            assert refs["chassis.yaw_rate"][-1] > 0.1 and refs["chassis.ay"][-1] > 2.0


def test_crosscheck_errors_are_one_line_and_leave_nothing_half_written(all_fmus, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["crosscheck", "--out", str(blocker), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fmu-vehicle: error: --out:") and "not a directory" in err[0]

    # a failure in the second FMU: the first one's finished folder is not written, nothing staged is left,
    # and an earlier result stays as it was
    out = tmp_path / "xc"
    version_dir = out.joinpath(*LAYOUT, "9.9")
    (version_dir / "LeadVehicle").mkdir(parents=True)
    (version_dir / "LeadVehicle" / "marker").write_text("previous run")
    broken = tmp_path / "Controller.fmu"
    broken.write_text("not an FMU")
    with pytest.raises(Exception):
        write_crosscheck(out, {"LeadVehicle": all_fmus["LeadVehicle"], "Controller": broken}, log=lambda m: None,
                         version="9.9")
    assert sorted(p.name for p in version_dir.iterdir()) == ["LeadVehicle"]
    assert [p.name for p in (version_dir / "LeadVehicle").iterdir()] == ["marker"]
    assert not [p for p in version_dir.parent.iterdir() if p.name.startswith(".")]
