"""TractorSemitrailer.fmu: a 6x4 tractor with a tri-axle semitrailer on a fifth wheel (``tractor_semitrailer``)
as an FMI 2.0 CS slave.

The combination slave of ``VehicleCombination.fmu`` (``fmu_vehicle.fmi.vehicle_slave``: semantics, state,
initialization) with the tractor-semitrailer's vehicle file and its own kind
(``fmi.vehicle_parameters.KINDS["TractorSemitrailer"]``): the full vehicle's inputs and outputs for each of
the twelve wheels (Project Chrono's wheel interface included), the semitrailer's outputs (``semitrailer.*``:
signal scope ``unit``), and the heavy truck's parameter ranges (``HEAVY_TRUCK_CORNERS``), the semitrailer's
chassis mass among them. See docs/fmus.md §13 and docs/articulated.md §6.
"""
from pathlib import Path

from fmu_vehicle.fmi.vehicle_parameters import parameter_table
from fmu_vehicle.fmi.vehicle_slave import VehicleFmu, vehicle_structure, vehicle_variables

# read once per process (see fmu_vehicle_vehicle_lv.py)
TABLE = parameter_table("TractorSemitrailer", str(Path(__file__).resolve().parent))


class TractorSemitrailer(VehicleFmu):
    MODEL_NAME = "TractorSemitrailer"
    DESCRIPTION = ("Tractor-semitrailer: a 6x4 tractor (steered front beam axle, driven tandem with dual tires, "
                   "leaf springs) and a tri-axle semitrailer on a fifth wheel as one semi-recursive multibody model "
                   "(combined-slip Magic Formula truck tires); steering, wheel torques, road and tire loads (Project "
                   "Chrono's wheel interface) of all twelve wheels as inputs; articulation angle and the "
                   "semitrailer's motion as outputs; ISO 8855 axes, SI units")
    TABLE = TABLE
    VARIABLES = vehicle_variables("TractorSemitrailer", TABLE)
    STRUCTURE = vehicle_structure("TractorSemitrailer", TABLE)
