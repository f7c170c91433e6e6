"""Powertrain.fmu: engine map + torque converter + 6-speed automatic + final drive + open differential.

Interface and semantics: docs/fmus.md §5. A block FMU (``fmi.block``): the kernels of ``powertrain.model`` over
its arrays, also built natively (docs/native.md §10).
"""
from pathlib import Path

from fmu_vehicle.fmi.block import Block, BlockSlave
from fmu_vehicle.fmi.resource_files import ALLOW_PARAMETER, load_file
from fmu_vehicle.fmi.variables import Structure, Var
from fmu_vehicle.powertrain.data import load_powertrain
from fmu_vehicle.powertrain.model import N_STATE, P_STEP, powertrain_init, powertrain_parameters, powertrain_step


def _parameters(values, resources):
    """The kernels' parameter array: the data of ``powertrain_file`` and ``step_size``."""
    data = load_file(values["powertrain_file"], "powertrain_file", Path(resources), load_powertrain,
                     allow_external=values[ALLOW_PARAMETER])
    return powertrain_parameters(data, values["step_size"])


class Powertrain(BlockSlave):
    MODEL_NAME = "Powertrain"
    DESCRIPTION = ("Automatic-transmission powertrain: engine torque map with idle governor and engine braking, "
                   "torque converter, shift schedule, final drive, open differential to two driven wheels")
    RESOURCES = ("powertrain",)
    INTERNAL_STEP = "step_size"
    VARIABLES = (
        Var("powertrain_file", "parameter", "fixed", None,
            "powertrain JSON, relative to the FMU resources folder (other files need allow_external_files)", "powertrain/suv_diesel_6at.json",
            type="String"),
        Var("step_size", "parameter", "fixed", "s", "maximum internal integration step", 1e-3, min=1e-5, max=0.01),
        Var("throttle", "input", "continuous", "1", "accelerator pedal position (start: half throttle, a launch "
            "from rest)", 0.5, min=0.0, max=1.0,
            display_unit="%"),
        Var("wheel_left.omega", "input", "continuous", "rad/s",
            "spin speed of the left driven wheel (positive = forward)", 0.0, display_unit="rpm", min=-1e4, max=1e4),
        Var("wheel_right.omega", "input", "continuous", "rad/s",
            "spin speed of the right driven wheel (positive = forward)", 0.0, display_unit="rpm", min=-1e4, max=1e4),
        Var("wheel_left.torque_drive", "output", "continuous", "N.m",
            "drive torque on the left driven wheel about its spin axis (positive = forward)", 0.0),
        Var("wheel_right.torque_drive", "output", "continuous", "N.m",
            "drive torque on the right driven wheel about its spin axis (positive = forward)", 0.0),
        Var("engine.speed", "output", "continuous", "rad/s", "engine crankshaft speed", 0.0, display_unit="rpm"),
        Var("engine.torque", "output", "continuous", "N.m", "engine brake torque (negative = engine braking)", 0.0),
        Var("torque_converter.speed_ratio", "output", "continuous", "1", "turbine speed / pump speed", 0.0),
        Var("transmission.gear", "output", "discrete", None, "engaged (target) gear, 1 = first", 1, type="Integer"),
        Var(ALLOW_PARAMETER, "parameter", "fixed", None, "allow powertrain_file outside the FMU resources "
            "(absolute paths, ..)", False, type="Boolean"),
    )
    #: Initialization: the model starts in the gear the shift schedule picks for the inputs' output-shaft
    #: speed and throttle, with the engine at its steady speed for them, so every output follows every input.
    #: Stepping: the inputs act in doStep only.
    STRUCTURE = Structure(initial={v.name: ("throttle", "wheel_left.omega", "wheel_right.omega")
                                   for v in VARIABLES if v.causality == "output"})
    BLOCK = Block(powertrain_init, powertrain_step, {"step_size": P_STEP}, N_STATE, _parameters)
