"""A component that fails mid-run: the master stops with CosimError, keeps and writes the partial result,
tears everything down safely (no fmi2Terminate after Error/Fatal) and the process carries on."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from cosim_fmus.fixtures import plant_ctrl_system, session_fmus
from fmu_vehicle.cosim import Component, Connection, CosimError, Experiment, read_csv, run_system
from timeouts import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def fmus(tmp_path_factory):
    return session_fmus(tmp_path_factory)


def faulty_system(fmus, fail_time, mode=0, message="brake actuator jammed"):
    """plant + ctrl + a gain block on plant.x that fails at ``fail_time``."""
    faulty = Component("faulty", fmus["faulty"], {"fail_time": fail_time, "fail_mode": mode, "fail_message": message})
    return plant_ctrl_system(fmus, extra=[faulty, Connection("plant", "x", "faulty", "u")])


@pytest.mark.parametrize("scheme", ["jacobi", "gauss-seidel"])
def test_failing_component_stops_the_run_with_its_message(fmus, tmp_path, monkeypatch, scheme):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))    # where FMPy extracts the FMUs
    (tmp_path / "tmp").mkdir()
    csv_path = tmp_path / "partial.csv"
    with pytest.raises(CosimError) as info:
        run_system(faulty_system(fmus, 0.5), Experiment(stop_time=1.0, step_size=1e-3, scheme=scheme),
                   progress=False, output_path=csv_path)
    err = info.value
    assert err.component == "faulty"
    assert err.time == pytest.approx(0.5, abs=1e-12)
    assert "brake actuator jammed (t=0.5 s)" in err.reason
    message = str(err)
    assert "t=0.5 s" in message and "'faulty'" in message and "brake actuator jammed" in message
    assert "Discard" in message and "terminated" in message
    # partial result: rows 0 .. 0.5 s, identical to a healthy run up to there
    result = err.result
    assert result.time[-1] == pytest.approx(0.5, abs=1e-12) and len(result) == 501
    healthy = run_system(faulty_system(fmus, -1.0), Experiment(stop_time=0.5, step_size=1e-3, scheme=scheme),
                         progress=False)
    np.testing.assert_array_equal(result["plant.x"], healthy["plant.x"])
    np.testing.assert_array_equal(result["faulty.y"][:-1], healthy["faulty.y"][:-1])
    assert any("[faulty] Error" in line and "brake actuator jammed" in line for line in result.messages)
    # written to CSV, exactly
    written = read_csv(csv_path)
    assert written.names == result.names
    np.testing.assert_array_equal(written["plant.x"], result["plant.x"])
    assert written.time[-1] == 0.5
    # extraction directories removed, no temporary CSV left behind
    assert list((tmp_path / "tmp").iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["partial.csv", "tmp"]


def test_process_survives_and_runs_again(fmus):
    with pytest.raises(CosimError):
        run_system(faulty_system(fmus, 0.01), Experiment(stop_time=0.1), progress=False)
    result = run_system(faulty_system(fmus, -1.0), Experiment(stop_time=0.1), progress=False)
    assert result.time[-1] == pytest.approx(0.1)
    np.testing.assert_allclose(result["faulty.y"][1:], result["plant.x"][:-1], rtol=0, atol=0)  # y = u of last step


def test_fatal_exception_in_do_step_is_reported_and_the_host_survives(fmus, tmp_path):
    """fail_mode=1 raises inside do_step -> fmi2Fatal; no FMI call may follow on that instance (a terminate
    would be a use-after-free in pythonfmu). Run in a subprocess so a crash would show as a return code."""
    script = f"""
import json, logging, sys
logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
sys.path.insert(0, {str(REPO)!r})
sys.path.insert(0, {str(REPO / 'tests')!r})
from pathlib import Path
from cosim_fmus.fixtures import SCRIPTS
from fmu_vehicle.cosim import Component, Connection, CosimError, Experiment, System, run_system
fmus = {{k: Path({str(fmus['plant'].parent)!r}) / f for k, (_, f) in SCRIPTS.items()}}
system = System("s", [Component("plant", fmus["plant"]),
                      Component("faulty", fmus["faulty"], {{"fail_time": 0.02, "fail_mode": 1,
                                                            "fail_message": "numerical blow-up"}})],
                [Connection("plant", "x", "faulty", "u")])
try:
    run_system(system, Experiment(stop_time=0.1), progress=False)
except CosimError as err:
    print(json.dumps({{"component": err.component, "time": err.time, "message": str(err), "rows": len(err.result)}}))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_GUARD_S,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["component"] == "faulty" and report["time"] == pytest.approx(0.02)
    assert "Fatal" in report["message"] and "RuntimeError('numerical blow-up')" in report["message"]
    assert report["rows"] == 21
    # the faulty instance got no further FMI call (no terminate/free); the plant was torn down normally
    assert "[faulty] left allocated: its FMU returned Fatal" in proc.stderr
    assert "[plant]" not in proc.stderr
