"""VehicleCombination.fmu: a full car towing other units (a car with a caravan on a ball hitch; a
tractor-semitrailer to come) as an FMI 2.0 CS slave.

The common vehicle slave (``fmu_vehicle.fmi.vehicle_slave``: semantics, state, initialization) with the
combinations' vehicle files, the full vehicle's signal table and parameters
(``fmi.vehicle_parameters.KINDS["VehicleCombination"]``): the inputs and outputs of ``Vehicle.fmu`` for every
wheel of every unit (Project Chrono's wheel interface included), the towed units' outputs (``<unit>.articulation``,
``.articulation_rate``, ``.x``, ``.y``, ``.vx``, ``.vy``, ``.yaw_rate``, ``.yaw``, ``.roll``, ``.ay``) and the
towed units' chassis masses as parameters besides the corners'. See docs/fmus.md and docs/articulated.md §6.
"""
from pathlib import Path

from fmu_vehicle.fmi.vehicle_parameters import parameter_table
from fmu_vehicle.fmi.vehicle_slave import VehicleFmu, vehicle_structure, vehicle_variables

# read once per process (see fmu_vehicle_vehicle_lv.py)
TABLE = parameter_table("VehicleCombination", str(Path(__file__).resolve().parent))


class VehicleCombination(VehicleFmu):
    MODEL_NAME = "VehicleCombination"
    DESCRIPTION = ("Vehicle combination: the full car (14 DOF semi-recursive multibody model of Dai, Pan et al. "
                   "2022, steering rack, combined-slip Magic Formula tires) towing a caravan on a ball hitch; "
                   "steering, wheel torques, road and tire loads (Project Chrono's wheel interface) of every wheel as "
                   "inputs; articulation angle and the towed unit's motion as outputs; ISO 8855 axes, SI units")
    TABLE = TABLE
    VARIABLES = vehicle_variables("VehicleCombination", TABLE)
    STRUCTURE = vehicle_structure("VehicleCombination", TABLE)
