"""Automatic-transmission powertrain (engine map, torque converter, shift schedule, open differential)."""
from fmu_vehicle.powertrain.data import PowertrainData, load_powertrain
from fmu_vehicle.powertrain.model import Powertrain

__all__ = ["Powertrain", "PowertrainData", "load_powertrain"]
