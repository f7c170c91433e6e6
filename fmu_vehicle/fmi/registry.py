"""Registry of the FMUs this package builds: FMU name -> slave script in ``fmi/slaves/``.

Adding an FMU is one line here plus the script (``fmu_vehicle_<name>.py``, one concrete
``VehicleSlaveBase`` subclass whose ``MODEL_NAME`` equals the key).

The registered FMUs are documented in docs/fmus.md.
"""
from __future__ import annotations

from pathlib import Path

from fmu_vehicle.errors import FmuVehicleError

SLAVES_DIR = Path(__file__).resolve().parent / "slaves"

FMUS: dict[str, str] = {
    "Powertrain": "fmu_vehicle_powertrain.py",
    "Controller": "fmu_vehicle_controller.py",
    "LeadVehicle": "fmu_vehicle_lead_vehicle.py",
    "VehicleLV": "fmu_vehicle_vehicle_lv.py",
    "Vehicle": "fmu_vehicle_vehicle.py",
    "VehicleCombination": "fmu_vehicle_vehicle_combination.py",
    "TractorSemitrailer": "fmu_vehicle_tractor_semitrailer.py",
    "Tire": "fmu_vehicle_tire.py",
    "Driver": "fmu_vehicle_driver.py",
    "ChassisControl": "fmu_vehicle_chassis_control.py",
    "Robot": "fmu_vehicle_robot.py",
}


def slave_script(name: str) -> Path:
    """Path of the slave script registered under ``name``."""
    if name not in FMUS:
        raise FmuVehicleError(f"unknown FMU '{name}' (registered: {', '.join(FMUS)})")
    return SLAVES_DIR / FMUS[name]
