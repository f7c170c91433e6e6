"""ChassisControl.fmu: the hydraulic brake system with its control unit (ABS, TCS, ESC), as an FMI 2.0 CS slave.

A thin variable table over the script API (``fmu_vehicle.chassis_control``; the same steps as
``closed_loop.run``, nothing restated here)::

    brakes     = BrakeSystem(<brakes.*>)                 (fmi.chassis_parameters.brake_system)
    controller = ChassisController(ControlledVehicle(<vehicle.*>), <tuning: default file + <function>.*>,
                                   enabled=<function>.enabled, sample_period_s=sample_period)
    doStep(t, h):  at a sample instant: commands = controller.sample(sensors = the inputs at t)
                   advance_pressures(brakes, p, p_mc(driver.pedal_force), commands, h, valves)
                   wheel_<w>.torque_brake = K_w p_w,  wheel_<w>.torque_drive = factor x driver.drive_torque / n_driven

Semantics (SI units, ISO 8855 axes):

* Sample and hold: the unit samples at exitInitializationMode (the initial inputs at the start time t0) and at
  the start t of the first doStep(t, h) with t >= t0 + k sample_period, k >= 1; its commands (pressure limits,
  active pressures, drive-torque factor) are held in between. With sample_period a multiple of the
  communication step the unit samples exactly every sample_period.
* The pressures move in doStep only: the outputs after doStep(t, h) are those at t + h. Connected in the
  Gauss-Seidel order robot (or driver), ChassisControl, Vehicle with one communication step, a system gives
  ``closed_loop.run``'s numbers.
* Inputs: the vehicle's outputs of the same names (wheel spins, yaw rate, lateral acceleration, speed), the
  steering-wheel angle and the driver's pedal force and drive torque.
* FMU state = the wheel pressures, the controller's state (``ChassisController.get_state``) and the index of
  the next sample instant: rollback continues bit-identically.

Described in docs/chassis_control.md and docs/fmus.md.
"""
import math
from pathlib import Path

import numpy as np

from fmu_vehicle.control.ecu import FUNCTIONS, ChassisController, Sensors, function_class, function_outputs
from fmu_vehicle.control.hydraulics import HOLD, advance_pressures
from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.chassis_parameters import (BRAKE_FIELDS, RADII, TORQUE_GAIN_RANGE, VEHICLE_FIELDS, WHEELS,
                                                appended, brake_system, controlled_vehicle, start_values,
                                                tuning_parameters)
from fmu_vehicle.fmi.slave_base import SlaveBase
from fmu_vehicle.fmi.variables import Structure, Var

# Start values from this FMU's resources folder (where this script sits), read once per process.
TUNING_FILE, START = start_values(str(Path(__file__).resolve().parent))
TUNING = tuning_parameters(TUNING_FILE)

SAMPLE_TOLERANCE = 1e-9
"""A doStep starting within this fraction of a sample period before a sample instant samples there."""

SENSORS = (
    *(Var(f"wheel_{w}.omega", "input", "continuous", "rad/s", f"spin of wheel {w} about its axle (+ rolling "
          "forward): the vehicle's output", 0.0, min=-1e4, max=1e4) for w in WHEELS),
    Var("chassis.yaw_rate", "input", "continuous", "rad/s", "yaw rate (+ turning left)", 0.0, min=-100.0, max=100.0),
    Var("chassis.ay", "input", "continuous", "m/s2", "lateral acceleration of the centre of mass (+ left)", 0.0,
        min=-1000.0, max=1000.0),
    Var("chassis.vx", "input", "continuous", "m/s", "speed of the centre of mass along the chassis x axis", 0.0,
        min=-100.0, max=100.0, display_unit="km/h"),
    Var("steering_wheel_angle", "input", "continuous", "rad", "steering-wheel angle (+ left)", 0.0,
        min=-20.0, max=20.0, display_unit="deg"),
    Var("driver.pedal_force", "input", "continuous", "N", "the driver's brake pedal force (>= 0)", 0.0,
        min=0.0, max=5000.0),
    Var("driver.drive_torque", "input", "continuous", "N.m", "the driver's drive-torque demand, total over the "
        "driven wheels", 0.0, min=-1e5, max=1e5),
)


def _function_outputs(later: bool):
    """The functions' diagnostic signals as discrete Real outputs ``<function>.<signal>``: those of the first
    variable table (``later`` False) or those added since (True; ``chassis_parameters.FIRST_TABLE``)."""
    return tuple(Var(f"{name}.{n}", "output", "discrete", u, d, 0.0) for name in FUNCTIONS
                 for n, u, d in function_outputs([e for i, e in enumerate(function_class(name).OUTPUTS)
                                                  if appended(name, i, 1) == later], WHEELS))


def _tuning(later: bool):
    """The tuning parameters ``<function>.<key>`` of the first variable table (``later`` False) or added since."""
    out = []
    for name in FUNCTIONS:
        for i, key in enumerate(function_class(name).TUNING):
            if appended(name, i, 0) == later:
                unit, desc, lo, hi, start = TUNING[f"{name}.{key}"]
                out.append(Var(f"{name}.{key}", "parameter", "fixed", unit, desc, start, min=lo, max=hi))
    return tuple(out)


class ChassisControl(SlaveBase):
    MODEL_NAME = "ChassisControl"
    INTERNAL_STEP = None
    RESOURCES = ("chassis_control", "brakes")
    DESCRIPTION = ("Hydraulic brake system (master cylinder, per-wheel pressure with lag and rate limits, "
                   "modulator valves) with its control unit sampled at its own period: anti-lock braking, "
                   "traction control and yaw-stability control, each switchable")
    VARIABLES = (
        Var("sample_period", "parameter", "fixed", "s", "control unit sample period", 0.01, min=1e-3, max=0.1,
            display_unit="ms"),
        *(Var(f"{f}.enabled", "parameter", "fixed", None, f"the {f.upper()} function runs", True, type="Boolean")
          for f in FUNCTIONS),
        *(Var(n, "parameter", "fixed", unit, desc, START[n], min=lo, max=hi)
          for n, (_f, unit, desc, lo, hi) in BRAKE_FIELDS.items()),
        *(Var(f"brakes.torque_gain_{w}", "parameter", "fixed", "N.m/Pa", f"brake torque per pressure at wheel {w}",
              START[f"brakes.torque_gain_{w}"], min=TORQUE_GAIN_RANGE[0], max=TORQUE_GAIN_RANGE[1]) for w in WHEELS),
        *(Var(n, "parameter", "fixed", unit, desc, START[n], min=lo, max=hi)
          for n, (_f, unit, desc, lo, hi) in VEHICLE_FIELDS.items()),
        *(Var(n, "parameter", "fixed", "m", desc, START[n], min=lo, max=hi) for n, (_k, _a, desc, lo, hi) in RADII.items()),
        *(Var(f"vehicle.driven_{w}", "parameter", "fixed", None, f"wheel {w} gets drive torque", START[
            f"vehicle.driven_{w}"], type="Boolean") for w in WHEELS),
        *_tuning(False),
        *SENSORS,
        *(Var(f"wheel_{w}.torque_brake", "output", "continuous", "N.m", f"brake torque capacity at wheel {w}: "
              "the vehicle's input", 0.0) for w in WHEELS),
        *(Var(f"wheel_{w}.torque_drive", "output", "discrete", "N.m", f"drive torque on wheel {w}: the vehicle's "
              "input", 0.0) for w in WHEELS),
        Var("brakes.master_cylinder_pressure", "output", "discrete", "Pa", "master-cylinder pressure from the pedal "
            "force", 0.0, display_unit="bar"),
        *(Var(f"brakes.pressure_{w}", "output", "continuous", "Pa", f"brake pressure at wheel {w}", 0.0,
              display_unit="bar") for w in WHEELS),
        *(Var(f"ecu.mode_{w}", "output", "discrete", None, f"valve state of wheel {w} over the last step: 0 build "
              "(inlet open), 1 hold (both shut), 2 dump (outlet open)", 0, type="Integer") for w in WHEELS),
        *(Var(f"ecu.active_pressure_{w}", "output", "discrete", "Pa", f"pressure the pump builds at wheel {w}",
              0.0, display_unit="bar") for w in WHEELS),
        Var("ecu.drive_torque_factor", "output", "discrete", "1", "factor on the driver's drive torque", 1.0),
        *_function_outputs(False),
        *_tuning(True),
        *_function_outputs(True),
    )
    #: Initialization: the first sample runs at the start time on the initial inputs, so the commands and the
    #: functions' diagnostics follow every sensor input (but ABS's wheel accelerations, differences of two
    #: samples: 0 at the first); the drive torques follow the drive-torque demand and the master-cylinder
    #: pressure the pedal force. Pressures and brake torques start at 0, the valve states (the last step's) at
    #: hold. ABS's friction estimate and slip set-point move only once a wheel is under control, and a wheel's
    #: pressure limit starts at its pressure (0), so the three start at their initial values. Stepping: every
    #: output moves in doStep.
    STRUCTURE = Structure(initial={
        **{f"wheel_{w}.torque_drive": tuple(v.name for v in SENSORS) for w in WHEELS},
        "brakes.master_cylinder_pressure": ("driver.pedal_force",),
        **{f"ecu.active_pressure_{w}": tuple(v.name for v in SENSORS) for w in WHEELS},
        "ecu.drive_torque_factor": tuple(v.name for v in SENSORS),
        **{v.name: tuple(s.name for s in SENSORS) for v in _function_outputs(False) + _function_outputs(True)
           if not any(k in v.name for k in (".wheel_acc_", "abs.friction_estimate", "abs.slip_target",
                                            "abs.pressure_limit_"))},
    })

    def _setup(self):
        v = self.values
        self.brakes = brake_system(v)
        tuning = {f: {n.split(".", 1)[1]: v[n] for n in TUNING if n.startswith(f + ".")} for f in FUNCTIONS}
        self.controller = ChassisController(controlled_vehicle(v), tuning, enabled={f: v[f"{f}.enabled"]
                                                                                   for f in FUNCTIONS},
                                            sample_period_s=v["sample_period"])
        self.driven = np.array([v[f"vehicle.driven_{w}"] for w in WHEELS])
        self.p = np.zeros(len(WHEELS))
        self.valves = np.full(len(WHEELS), HOLD)
        self._sample(self.start_time)
        self._write_outputs()

    def _sensors(self, t: float) -> Sensors:
        v = self.values
        return Sensors(t, np.array([v[f"wheel_{w}.omega"] for w in WHEELS]), v["chassis.yaw_rate"], v["chassis.ay"],
                       v["steering_wheel_angle"], v["chassis.vx"],
                       self.brakes.master_cylinder_pressure(v["driver.pedal_force"]), v["driver.drive_torque"],
                       self.p.copy())

    def _sample(self, t: float) -> None:
        self.controller.sample(self._sensors(t))
        period = self.values["sample_period"]
        self._k = math.floor((t - self.start_time) / period + SAMPLE_TOLERANCE) + 1

    def _advance(self, t, h):
        if t >= self.start_time + (self._k - SAMPLE_TOLERANCE) * self.values["sample_period"]:
            self._sample(t)
        c = self.controller.commands
        p_mc = self.brakes.master_cylinder_pressure(self.values["driver.pedal_force"])
        advance_pressures(self.brakes, self.p, p_mc, c.pressure_limit, c.active_pressure, h, self.valves)
        self._write_outputs()

    def _write_outputs(self):
        v, c = self.values, self.controller.commands
        torque = self.brakes.torques(self.p)
        drive = v["driver.drive_torque"] * c.drive_torque_factor / max(int(self.driven.sum()), 1)
        out = {"brakes.master_cylinder_pressure": self.brakes.master_cylinder_pressure(v["driver.pedal_force"]),
               "ecu.drive_torque_factor": c.drive_torque_factor}
        for i, w in enumerate(WHEELS):
            out[f"wheel_{w}.torque_brake"] = float(torque[i])
            out[f"wheel_{w}.torque_drive"] = drive if self.driven[i] else 0.0
            out[f"brakes.pressure_{w}"] = float(self.p[i])
            out[f"ecu.mode_{w}"] = int(self.valves[i])
            out[f"ecu.active_pressure_{w}"] = float(c.active_pressure[i])
        for (name, _u, _d), value in zip(self.controller.output_table(), self.controller.output_values()):
            out[name] = float(value)
        v.update(out)

    def _state(self):
        return {"pressures": self.p.copy(), "valves": self.valves.copy(), "controller": self.controller.get_state(),
                "next_sample": self._k}

    def _restore(self, state):
        k = state["next_sample"]
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ModelError(f"the state's next sample index {k!r} is not a positive integer")
        p = np.asarray(state["pressures"], dtype=float)
        if p.shape != (len(WHEELS),) or not np.all(np.isfinite(p)):
            raise ModelError(f"the state's pressures must be {len(WHEELS)} finite numbers, got {state['pressures']!r}")
        self.controller.set_state(state["controller"])
        self.p = p.copy()
        self.valves = np.array(state["valves"], dtype=np.int64)
        self._k = k
        self._write_outputs()
