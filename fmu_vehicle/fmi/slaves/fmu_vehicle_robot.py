"""Robot.fmu: a steering and pedal robot playing back tables of time, as in the regulations' open-loop tests.

A thin variable table over ``driver.open_loop.OpenLoopDriver``::

    robot = OpenLoopDriver(SteeringProfile(steering_profile), pedal_force_profile, drive_torque_profile)
    outputs at the FMU's time t: steering_wheel_angle, pedal_force, drive_torque = robot.at(t)

Each table is ``"t0:v0,t1:v1,..."`` (time [s]: value; the steering angle in degrees, + left; the pedal force
in N; the drive torque in N m), linear between breakpoints and held outside them. The outputs after doStep(t, h)
are the tables' values at t + h: first in a Gauss-Seidel order, the robot gives the other FMUs its commands
for the end of the step (the steering wheel reaches its angle at t + h through the Vehicle FMU's ramp).

Described in docs/chassis_control.md and docs/fmus.md.
"""
from fmu_vehicle.driver.open_loop import OpenLoopDriver
from fmu_vehicle.driver.profile import SteeringProfile, parse_pairs
from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.slave_base import SlaveBase
from fmu_vehicle.fmi.variables import Structure, Var

TABLES = {"steering_profile": ("angle_deg", "steering-wheel angle table 'time_s:angle_deg,...' (+ left)"),
          "pedal_force_profile": ("force_N", "brake pedal force table 'time_s:force_N,...' (>= 0)"),
          "drive_torque_profile": ("torque_Nm", "drive-torque demand table 'time_s:torque_Nm,...'")}


def _table(text: str, name: str, label: str):
    times, values = parse_pairs(text, f"parameter '{name}'", label)
    if any(b <= a for a, b in zip(times, times[1:])):
        raise ModelError(f"parameter '{name}' = {text[:80]!r}: times must increase strictly")
    return list(zip(times, values))


class Robot(SlaveBase):
    MODEL_NAME = "Robot"
    DESCRIPTION = ("Steering and pedal robot: steering-wheel angle, brake pedal force and drive-torque demand "
                   "from piecewise-linear tables of time")
    VARIABLES = (
        *(Var(name, "parameter", "fixed", None, desc + ", linear in between, held outside", "0:0", type="String")
          for name, (_label, desc) in TABLES.items()),
        Var("steering_wheel_angle", "output", "continuous", "rad", "steering-wheel angle (+ left)", 0.0,
            display_unit="deg"),
        Var("pedal_force", "output", "continuous", "N", "brake pedal force", 0.0),
        Var("drive_torque", "output", "continuous", "N.m", "drive-torque demand", 0.0),
    )
    STRUCTURE = Structure()     # no inputs: the outputs follow the parameters and time only

    def _setup(self):
        v = self.values
        pedal = _table(v["pedal_force_profile"], "pedal_force_profile", "force_N")
        if any(f < 0.0 for _t, f in pedal):
            raise ModelError("parameter 'pedal_force_profile': a pedal force must be >= 0 N")
        self.robot = OpenLoopDriver(SteeringProfile.parse(v["steering_profile"], name="parameter 'steering_profile'"),
                                    pedal, _table(v["drive_torque_profile"], "drive_torque_profile", "torque_Nm"))
        self.t = self.start_time
        self._write_outputs()

    def _advance(self, t, h):
        self.t = t + h
        self._write_outputs()

    def _write_outputs(self):
        swa, pedal, drive = self.robot.at(self.t)
        self.values.update({"steering_wheel_angle": swa, "pedal_force": pedal, "drive_torque": drive})

    def _state(self):
        return self.t

    def _restore(self, state):
        self.t = float(state)
        self._write_outputs()
