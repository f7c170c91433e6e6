"""VehicleLV.fmu: the longitudinal-vertical half car (7 DOF, Dai/Pan et al. 2022) as an FMI 2.0 CS slave.

The common vehicle slave (``fmu_vehicle.fmi.vehicle_slave``: semantics, state, initialization) with the
half car's vehicle files, signal table and parameters (``fmi.vehicle_parameters.KINDS["VehicleLV"]``).
See docs/fmus.md.
"""
from pathlib import Path

from fmu_vehicle.fmi.vehicle_parameters import parameter_table
from fmu_vehicle.fmi.vehicle_slave import VehicleFmu, vehicle_structure, vehicle_variables

# Start values from the vehicle files in this FMU's resources folder (where this script sits), read once per
# process: pythonfmu re-executes this module-level code at every instantiation, with the globals of its first
# import, whose folder may be gone by then (docs/fmu_hosts.md).
TABLE = parameter_table("VehicleLV", str(Path(__file__).resolve().parent))


class VehicleLV(VehicleFmu):
    MODEL_NAME = "VehicleLV"
    DESCRIPTION = ("Longitudinal-vertical half car (7 DOF semi-recursive multibody model of Dai, Pan et al. 2022: "
                   "chassis x/z/pitch, MacPherson front and five-link rear suspension, Magic Formula tires, road "
                   "profile); wheel torques, road and tire loads as inputs; ISO 8855 axes, SI units")
    TABLE = TABLE
    VARIABLES = vehicle_variables("VehicleLV", TABLE)
    STRUCTURE = vehicle_structure("VehicleLV", TABLE)
