"""Vehicles as data: subsystem templates, the vehicle loader and the vehicle API.

See docs/vehicle.md.
"""
from .loader import VehicleSpec, load_vehicle_spec, vehicle_names
from .vehicle import SimResult, Vehicle, VehicleSimulator, output_table

__all__ = ["Vehicle", "VehicleSimulator", "VehicleSpec", "SimResult", "load_vehicle_spec", "vehicle_names",
           "output_table"]
