"""Vehicle.fmu: the full car (14 DOF, Dai/Pan et al. 2022, with a steering rack) as an FMI 2.0 CS slave.

The common vehicle slave (``fmu_vehicle.fmi.vehicle_slave``: semantics, state, initialization) with the
full car's vehicle files, signal table and parameters (``fmi.vehicle_parameters.KINDS["Vehicle"]``):
steering-wheel angle or rack travel in (``steering_input``), per-wheel torques, road and, with
``tire_source = external``, the tire loads of Project Chrono's wheel interface (``wheel_<w>.point/force/
moment``, global; a Chrono tire FMU, or our Tire.fmu with ``wheel_interface = chrono``, can be wired in
unchanged) and the wheel states it needs out (``wheel_<w>.pos/rot/lin_vel/ang_vel``). See docs/fmus.md.
"""
from pathlib import Path

from fmu_vehicle.fmi.vehicle_parameters import parameter_table
from fmu_vehicle.fmi.vehicle_slave import VehicleFmu, vehicle_structure, vehicle_variables

# read once per process (see fmu_vehicle_vehicle_lv.py)
TABLE = parameter_table("Vehicle", str(Path(__file__).resolve().parent))


class Vehicle(VehicleFmu):
    MODEL_NAME = "Vehicle"
    DESCRIPTION = ("Full car (14 DOF semi-recursive multibody model of Dai, Pan et al. 2022: 6-DOF chassis, "
                   "MacPherson front and five-link rear suspensions, steering rack, combined-slip Magic Formula "
                   "tires); steering, wheel torques, road and tire loads (Project Chrono's wheel interface) as "
                   "inputs; ISO 8855 axes, SI units")
    TABLE = TABLE
    VARIABLES = vehicle_variables("Vehicle", TABLE)
    STRUCTURE = vehicle_structure("Vehicle", TABLE)
