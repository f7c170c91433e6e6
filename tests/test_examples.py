"""The examples run (shortened; example 2 runs at full length in test_scenario_acc.py), write their SSP, CSV and
plot, and start where the physics says; ensure_fmus rebuilds exactly the missing or stale FMUs."""
from __future__ import annotations

import importlib.util
import io
import json
import math
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fmu_vehicle.cosim import read_csv, read_ssp
from fmu_vehicle.fmi.build_cache import ensure_fmus, fmu_is_current
from fmu_vehicle.scenarios.half_car import COM_X_M, FRONT_OVERHANG_M, LEAD_START_X_M, REAR_OVERHANG_M, WHEELBASE_M
from fmu_vehicle.fmi.registry import slave_script

from reference.closed_form import steady_acceleration

REPO = Path(__file__).resolve().parents[1]


def run_example(name: str, fmus: dict, out: Path, **kwargs):
    spec = importlib.util.spec_from_file_location(f"example_{name}", REPO / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    run = module.main(out_dir=out, fmu_dir=Path(fmus["Tire"]).parent, progress=False, **kwargs)
    for path in (run.ssp, run.csv, run.plot):
        assert path.is_file() and path.parent == out
    assert read_csv(run.csv).names == run.result.names
    assert [c.name for c in read_ssp(run.ssp).components] == [c.name for c in run.scenario.system.components]
    return run


def test_example_1_vehicle_alone_on_the_bumpy_road(scenario_fmus, tmp_path):
    r = run_example("bumpy_road", scenario_fmus, tmp_path, duration=0.5).result
    assert r.time[-1] == 0.5 and len(r) == 501
    # 0.5 s before the first bump: a constant 300 N m drive on the half car accelerates it at the closed-form
    # a = (T/d + rolling resistance) / (M + rotating inertia) of test_vehicle_closed_form.py (0.461 m/s2);
    # the tire's slip builds up over sigma/V = 0.25 m / 20 m/s = 12 ms (2.4 % of the 0.5 s), the rest is
    # steady: speed gain within 1.5 % of a t (a 5 % torque error moves it by 5.5 %), distance within
    # 1.5 mm of v0 t + a t^2 / 2 (the acceleration's share is 58 mm, 5 % of it 2.9 mm)
    from fmu_vehicle.vehicle import Vehicle
    _, a = steady_acceleration(Vehicle.load("halfcar7"), "flat", 20.0, 300.0, 0.0)
    # chassis.x is the centre of mass (x0 = 0 puts the file's design frame at the road's x = 0); the speed
    # along the road is the chassis-axes velocity rotated by the pitch: cos(p) vx + sin(p) vz
    p = r["vehicle.chassis.pitch"]
    x, vx = r["vehicle.chassis.x"], np.cos(p) * r["vehicle.chassis.vx"] + np.sin(p) * r["vehicle.chassis.vz"]
    assert x[0] == COM_X_M and vx[0] == pytest.approx(20.0, abs=1e-9)
    x = x - x[0]
    assert vx[-1] - vx[0] == pytest.approx(a * 0.5, rel=0.015)
    assert x[-1] == pytest.approx(20.0 * 0.5 + 0.5 * a * 0.25, abs=1.5e-3)


def test_example_3_hill_start_on_the_slope(scenario_fmus, tmp_path):
    r = run_example("slope_cruise", scenario_fmus, tmp_path, duration=1.5).result
    pitch0 = r["vehicle.chassis.pitch"][0]
    assert pitch0 == pytest.approx(-math.radians(16.5) - 0.025, abs=3e-3)       # grade plus rest attitude
    vx = r["vehicle.chassis.vx"]
    assert vx[0] == 0.0 and r["vehicle.chassis.ax"][0] < -2.0                     # released on a 29 % grade
    assert vx.min() < -0.05 and vx[-1] > vx.min() + 0.1                           # rolls back, then the converter pulls
    assert r["powertrain.transmission.gear"][-1] == 1 and r["controller.throttle"].max() > 0.2


def test_example_4_platoon_starts_at_standstill_gaps(scenario_fmus, tmp_path):
    run = run_example("platoon", scenario_fmus, tmp_path, duration=1.2)
    r = run.result
    spacing = WHEELBASE_M + REAR_OVERHANG_M + FRONT_OVERHANG_M + 5.0
    assert r["vehicle_1.gap"][0] == pytest.approx(LEAD_START_X_M - FRONT_OVERHANG_M, abs=1e-9)
    for k in (2, 3):
        assert r[f"vehicle_{k}.chassis.x"][0] == pytest.approx(-(k - 1) * spacing + COM_X_M, abs=1e-9)
        assert r[f"vehicle_{k}.gap"][0] == pytest.approx(5.0, abs=1e-9)
    assert r["controller_2.brake"][0] > 0.0 and r["controller_3.brake"][0] > 0.0  # held at first, then each
    speeds = [r[f"vehicle_{k}.chassis.vx"][-1] for k in (1, 2, 3)]               # sets off after the one ahead
    assert speeds[0] > speeds[1] > speeds[2] > 0.0
    assert r.time[-1] == pytest.approx(1.2) and run.scenario.system.step_size == 2e-3
    assert len(run.scenario.system.components) == 1 + 3 * 3


def _with_sources(archive: bytes, digest: str) -> bytes:
    """A package archive (bytes) whose fmi/build_info.json records the source digest ``digest``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive)) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename.endswith("/fmi/build_info.json"):
                data = json.dumps(dict(json.loads(data), sources=digest)).encode()
            dst.writestr(item, data)
    return out.getvalue()


def test_ensure_fmus_rebuilds_only_missing_or_stale(scenario_fmus, tmp_path):
    tire = Path(scenario_fmus["Tire"])
    assert fmu_is_current(tire, slave_script("Tire"))
    shutil.copy(tire, tmp_path / "Tire.fmu")
    lines = []
    assert ensure_fmus(["Tire"], tmp_path, log=lines.append) == {"Tire": tmp_path / "Tire.fmu"} and lines == []
    # an FMU built from other sources (its recorded source digest differs from the package's) -> stale
    stale = tmp_path / "stale" / "Tire.fmu"
    stale.parent.mkdir()
    with zipfile.ZipFile(tire) as src, zipfile.ZipFile(stale, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename.startswith("resources/_fmu_vehicle_") and item.filename.endswith(".zip"):
                data = _with_sources(data, "0" * 40)          # the package archive's build_info.json
            dst.writestr(item, data)
    assert not fmu_is_current(stale, slave_script("Tire"))
    assert not fmu_is_current(tmp_path / "missing" / "Tire.fmu", slave_script("Tire"))
    assert not fmu_is_current(tire, slave_script("VehicleLV"))                 # another slave script
    ensure_fmus(["Tire"], stale.parent, log=lines.append)
    assert lines == [f"building {stale} (stale)"] and fmu_is_current(stale, slave_script("Tire"))
