"""README promises that take minutes to check (marked slow): ``fmu-vehicle demo`` end to end, and that an
FMU's own ``requirements.txt`` is enough to run it in a Python environment that has nothing else."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import urllib.request
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fmu_vehicle.cli import main
from timeouts import HANG_GUARD_S


@pytest.mark.slow
def test_demo_builds_the_fmus_runs_and_writes_its_summary_and_files(capsys, tmp_path, monkeypatch):
    """The five FMUs are in the repository's dist/fmus and current (built if missing or stale), the ACC
    stop-and-go co-simulation runs its 30 s, the summary names the five quantities and reports the ego
    stopped behind the stopped lead (exit 0), and the plot, CSV and SSP are written to --out (here in an
    empty folder)."""
    from fmu_vehicle.fmi.build_cache import default_fmu_dir, fmu_is_current
    from fmu_vehicle.fmi.registry import slave_script
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--out", "out", "-q"]) == 0
    out = capsys.readouterr().out
    for line in ("min gap", "min time gap", "min time-to-collision", "peak pitch", "RMS vertical acceleration",
                 "stopped behind the stopped lead", "no contact"):
        assert line in out, out
    for name in ("VehicleLV", "Tire", "Powertrain", "Controller", "LeadVehicle"):
        assert fmu_is_current(default_fmu_dir() / f"{name}.fmu", slave_script(name)), name
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "acc_stop_and_go.csv", "acc_stop_and_go.png", "acc_stop_and_go.ssp"]
    rows = (tmp_path / "out" / "acc_stop_and_go.csv").read_text().splitlines()
    assert float(rows[-1].split(",")[0]) == pytest.approx(30.0)


def _registry_reachable() -> bool:
    try:
        urllib.request.urlopen("https://pypi.org/simple/pip/", timeout=10).close()
        return True
    except OSError:
        return False


FRESH_CHILD = """
import importlib.util, json, sys
from fmpy import simulate_fmu
hidden = importlib.util.find_spec("fmu_vehicle") is None
r = simulate_fmu(sys.argv[1], stop_time=0.05, output_interval=1e-3, start_values={"wheel_front.torque_drive": 300.0},
                 output=["chassis.x", "chassis.vx"])
print(json.dumps({"hidden": hidden, "x": r["chassis.x"].tolist(), "vx": r["chassis.vx"].tolist()}))
"""


@pytest.mark.slow
def test_vehicle_fmu_runs_with_only_its_requirements_installed(scenario_fmus, tmp_path):
    """A virtual environment without the system's site packages gets the FMU's requirements.txt and FMPy
    (the importing tool) from the package registry, nothing else: VehicleLV.fmu runs 50 ms of its default
    bumpy-road manoeuvre there and equals the Python API run to 1e-9."""
    if not _registry_reachable():
        pytest.skip("the package registry (pypi.org) is not reachable: cannot install the FMU's requirements")
    fmu = Path(scenario_fmus["VehicleLV"])
    with zipfile.ZipFile(fmu) as z:
        (tmp_path / "requirements.txt").write_bytes(z.read("resources/requirements.txt"))
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True, timeout=HANG_GUARD_S)
    py = env / "bin" / "python"
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    pip = subprocess.run([str(py), "-m", "pip", "install", "-q", "-r", str(tmp_path / "requirements.txt"), "fmpy"],
                         capture_output=True, text=True, timeout=HANG_GUARD_S, env=clean)
    assert pip.returncode == 0, pip.stderr[-3000:]
    (tmp_path / "child.py").write_text(textwrap.dedent(FRESH_CHILD))
    run = subprocess.run([str(py), "child.py", str(fmu)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=HANG_GUARD_S, env=clean)
    assert run.returncode == 0, run.stderr[-3000:]
    import json
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["hidden"]
    from fmu_vehicle.vehicle import Vehicle
    ref = Vehicle.load("halfcar7").simulate("bumpy", 0.05, v0=20.0, drive_torque={"front": 300.0})
    np.testing.assert_allclose(got["x"], ref["chassis.x"], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got["vx"], ref["chassis.vx"], rtol=1e-9, atol=1e-9)
