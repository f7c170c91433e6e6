"""The ISO 9815 steering-impulse catalogue of the car with caravan (resources/scenarios/iso9815-caravan-impulse.json):
Robot.fmu steers VehicleCombination.fmu (system ``combination.ssd``), a sweep on dask over speed scores the
damping of the articulation angle; the FMU runs give the Python API's numbers
(``manoeuvres.combination.impulse_run``), and the damping falls with speed."""
import json
from pathlib import Path

import pytest

from fmu_vehicle.adas import sweep as S
from fmu_vehicle.adas.catalogue import load_catalogue
from fmu_vehicle.adas.protocols import PROTOCOLS
from fmu_vehicle.cosim.ssp import read_ssp
from fmu_vehicle.paths import resource_path
from fmu_vehicle.vehicle import Vehicle

NAMES = ("Robot", "VehicleCombination")


@pytest.fixture(scope="module")
def fmu_dir(registered_fmus):  # noqa: F811
    folders = {Path(registered_fmus[n]).parent for n in NAMES}
    assert len(folders) == 1
    return folders.pop()


def test_the_catalogue_and_its_protocol(fmu_dir):
    """6 speeds; the protocol puts the 20 deg, 0.25 s pulse into the robot's table (0.5 s to
    0.75 s, its peak at 0.625 s), the speed into the vehicle and the rolling-resistance torque of the whole
    combination (0.8 % of its weight times the tire radius, shared by the two front wheels) into the drive
    table."""
    cat = load_catalogue("iso9815-caravan-impulse")
    assert len(cat.runs()) == 6 and cat.protocol == "steering_impulse"
    system = read_ssp(resource_path("scenarios", "combination.ssd"), fmu_dir=fmu_dir)
    assert [c.name for c in system.components] == ["robot", "vehicle"]
    scenario, on_step = PROTOCOLS["steering_impulse"](system, speed_kmh=90.0)
    robot = system.component("robot").parameters
    assert robot["steering_profile"] == "0:0,0.5:0,0.625:20,0.75:0"
    car = Vehicle.load("sedan_caravan")
    torque = 0.008 * car.total_mass_kg * 9.81 * 0.4672 / 2
    assert float(robot["drive_torque_profile"].split(":")[1]) == pytest.approx(torque, rel=1e-6)
    assert system.component("vehicle").parameters["v0"] == pytest.approx(25.0)
    assert system.stop_time == pytest.approx(6.75) and on_step is None


def test_the_sweep_scores_the_damping_as_the_python_runs_do(fmu_dir, tmp_path):
    """80 and 140 km/h on a dask cluster of one worker: the FMU runs give the damping ratios of ``impulse_run``
    on the same vehicle to 1 % (measured 0.2599 and 0.1467, the Python runs' 0.260 and 0.147: the same model, the
    pulse played from the robot's table), and the damping falls with speed, the speed held within 1 km/h."""
    from fmu_vehicle.manoeuvres.combination import impulse_run
    src = json.loads(resource_path("scenarios", "iso9815-caravan-impulse.json").read_text())
    src["system"] = str(resource_path("scenarios", src["system"]))
    src["grid"]["speed_kmh"] = [80.0, 140.0]
    path = tmp_path / "impulse.json"
    path.write_text(json.dumps(src))
    res = S.sweep(load_catalogue(str(path)), tmp_path / "impulse.csv", workers=1, fmu_dir=fmu_dir, progress=False,
                  log=lambda m: None)
    rows = {r["speed_kmh"]: r for r in res.rows}
    assert all(r["status"] == "ok" for r in rows.values()), [r["error"] for r in rows.values()]
    print({k: (round(r["damping_ratio"], 4), round(r["frequency_hz"], 3), round(r["mean_speed_kmh"], 2))
           for k, r in rows.items()})
    car = Vehicle.load("sedan_caravan")
    for v in (80.0, 140.0):
        assert rows[v]["damping_ratio"] == pytest.approx(impulse_run(car, v / 3.6)[1]["damping_ratio"], rel=0.01), v
        assert abs(rows[v]["mean_speed_kmh"] - v) < 1.0 and rows[v]["n_extrema"] >= 3
    assert rows[140.0]["damping_ratio"] < rows[80.0]["damping_ratio"] - 0.05
