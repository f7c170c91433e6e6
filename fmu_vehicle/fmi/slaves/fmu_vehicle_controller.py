"""Controller.fmu: adaptive cruise control + emergency braking, sampled at its own period.

Interface and semantics: docs/fmus.md §6. A block FMU (``fmi.block``): the kernels of ``control.acc`` over its
arrays, also built natively (docs/native.md §10).
"""
from fmu_vehicle.control.acc import FIELDS, MODES, STATE, AccParameters, acc_init, acc_parameters, acc_step
from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.block import Block, BlockSlave
from fmu_vehicle.fmi.variables import Structure, Var

_D = AccParameters()

#: FMI parameter name -> (AccParameters field, unit, description, min, max, variability)
PARAMETERS = {
    "sample_period": ("sample_period", "s", "controller sample period", 1e-4, 1.0, "fixed"),
    "acc.set_speed": ("set_speed", "m/s", "cruise set speed", 0.0, 70.0, "tunable"),
    "acc.time_gap": ("time_gap", "s", "desired time gap to the lead vehicle", 0.5, 5.0, "tunable"),
    "acc.standstill_distance": ("standstill_distance", "m", "desired gap at standstill", 0.0, 50.0, "fixed"),
    "acc.gap_offset": ("gap_offset", "m", "subtracted from lead.x - ego.x to get the bumper gap", -50.0, 50.0, "fixed"),
    "acc.sensor_range": ("sensor_range", "m", "lead detection range (gap)", 1.0, 1000.0, "fixed"),
    "acc.accel_max": ("accel_max", "m/s2", "maximum commanded acceleration", 0.1, 10.0, "fixed"),
    "acc.decel_max": ("decel_max", "m/s2", "maximum commanded ACC-stage deceleration (positive; ISO 15622: 3.5)",
                      0.1, 15.0, "fixed"),
    "acc.jerk_max": ("jerk_max", "m/s3", "ACC-stage jerk limit at and below 5 m/s (ISO 15622: 5)", 0.1, 100.0,
                     "fixed"),
    "acc.jerk_max_high_speed": ("jerk_max_high_speed", "m/s3", "ACC-stage jerk limit at and above 20 m/s, linear "
                                "in speed from 5 m/s (ISO 15622: 2.5)", 0.1, 100.0, "fixed"),
    "acc.k_cruise": ("k_cruise", "1/s", "speed error gain in cruise", 1e-3, 10.0, "fixed"),
    "acc.k_gap": ("k_gap", "1/s2", "gap error gain", 1e-3, 10.0, "fixed"),
    "acc.k_speed": ("k_speed", "1/s", "relative speed gain", 0.0, 10.0, "fixed"),
    "acc.k_lead_accel": ("k_lead_accel", "1", "feed-forward gain of the estimated lead acceleration", 0.0, 2.0, "fixed"),
    "acc.lead_accel_filter": ("lead_accel_filter", "s", "time constant of the lead acceleration estimate", 0.0, 10.0, "fixed"),
    "acc.k_i": ("k_i", "1/s", "integral gain of the acceleration loop", 0.0, 10.0, "fixed"),
    "acc.stop_speed": ("stop_speed", "m/s", "below this speed a non-positive command holds the brake", 0.0, 2.0, "fixed"),
    "acc.lead_stopped_speed": ("lead_stopped_speed", "m/s", "a lead slower than this counts as stopped (stop at "
                               "the standstill distance, no restart)", 0.0, 5.0, "fixed"),
    "acc.stop_decel": ("stop_decel", "m/s2", "deceleration of the reference stop behind a stopped lead", 0.1, 5.0,
                       "fixed"),
    "acc.restart_accel": ("restart_accel", "m/s2", "desired acceleration that releases the standstill hold", 0.0,
                          5.0, "fixed"),
    "aeb.ttc_on": ("ttc_on", "s", "full braking when time-to-collision falls below (must be less than "
                   "aeb.ttc_off)", 0.1, 10.0, "fixed"),
    "aeb.ttc_off": ("ttc_off", "s", "release when time-to-collision exceeds (hysteresis; must exceed aeb.ttc_on)",
                    0.2, 20.0, "fixed"),
    "vehicle.mass": ("mass", "kg", "vehicle mass used by the force command", 100.0, 50000.0, "fixed"),
    "vehicle.wheel_radius": ("wheel_radius", "m", "rolling radius used by the brake command", 0.1, 2.0, "fixed"),
    "vehicle.drive_force_max": ("drive_force_max", "N", "tractive force at full throttle", 100.0, 1e5, "fixed"),
    "brake.torque_max": ("brake_torque_max", "N.m", "sum of the four wheel brake torques at brake = 1", 100.0, 1e5, "fixed"),
    "brake.front_bias": ("brake_front_bias", "1", "front axle share of the brake torque", 0.0, 1.0, "fixed"),
    "brake.hold": ("brake_hold", "1", "brake command that holds the vehicle at rest", 0.0, 1.0, "fixed"),
}


def _parameters(values) -> AccParameters:
    """The ACC parameters of the FMU's ``values``; an error names the FMU's parameters (``aeb.ttc_on``, not the
    field ``ttc_on``), both of a pair that constrain each other."""
    kwargs = {field: values[name] for name, (field, *_rest) in PARAMETERS.items()}
    try:
        return AccParameters(**kwargs, mode=values["mode"], use_accel_input=values["use_accel_input"])
    except ModelError as exc:
        text = str(exc).replace("ACC parameter", "parameter")
        for name, (field, *_rest) in PARAMETERS.items():
            text = text.replace(f"'{field}'", f"'{name}'")
        raise ModelError(text) from None


class Controller(BlockSlave):
    MODEL_NAME = "Controller"
    INTERNAL_STEP = "sample_period"
    DESCRIPTION = ("Full-speed-range adaptive cruise control (constant time gap, ISO 15622 deceleration and "
                   "speed-dependent jerk limits, stop, hold and restart) with a time-to-collision emergency "
                   "braking stage; discrete-time, outputs change only at sample instants")
    VARIABLES = (
        *(Var(name, "parameter", var, unit, desc, getattr(_D, field), min=lo, max=hi,
              display_unit="km/h" if unit == "m/s" else None)
          for name, (field, unit, desc, lo, hi, var) in PARAMETERS.items()),
        Var("mode", "parameter", "fixed", None, "acc_aeb | acc (no AEB) | cruise (lead ignored) | aeb (AEB only)",
            _D.mode,
            type="Enumeration", choices=MODES),
        Var("use_accel_input", "parameter", "fixed", None,
            "use input ego.ax as measured acceleration (else differentiate ego.vx)", False, type="Boolean"),
        Var("ego.x", "input", "continuous", "m", "own position along x", 0.0, min=-10000000.0, max=10000000.0),
        Var("ego.vx", "input", "continuous", "m/s", "own speed along x (start: acc.set_speed, cruising)",
            _D.set_speed, display_unit="km/h", min=-100.0, max=100.0),
        Var("ego.ax", "input", "continuous", "m/s2", "own measured longitudinal acceleration (optional)", 0.0, min=-100.0, max=100.0),
        Var("lead.x", "input", "continuous", "m", "lead vehicle position along x", 1000.0, min=-10000000.0, max=10000000.0),
        Var("lead.vx", "input", "continuous", "m/s", "lead vehicle speed along x", 0.0, display_unit="km/h", min=-100.0, max=100.0),
        Var("throttle", "output", "discrete", "1", "accelerator command", 0.0, display_unit="%"),
        Var("brake", "output", "discrete", "1", "brake command", 0.0, display_unit="%"),
        Var("brake_torque_front", "output", "discrete", "N.m", "brake torque on each front wheel (>= 0)", 0.0),
        Var("brake_torque_rear", "output", "discrete", "N.m", "brake torque on each rear wheel (>= 0)", 0.0),
        Var("accel_command", "output", "discrete", "m/s2", "jerk-limited acceleration command", 0.0),
        Var("gap", "output", "discrete", "m", "bumper gap to the lead vehicle", 0.0),
        Var("ttc", "output", "discrete", "s", "time to collision (1000 s when not closing)", 1000.0),
        Var("aeb_active", "output", "discrete", None, "emergency braking engaged", False, type="Boolean"),
        Var("held", "output", "discrete", None, "standstill hold engaged", False, type="Boolean"),
        Var("lead_detected", "output", "discrete", None, "lead vehicle within sensor range", False, type="Boolean"),
    )
    #: Initialization: the first sample runs at the start time on the initial inputs (``AccController``): the gap
    #: and detection come from the positions, the time-to-collision, the AEB state and the command from the
    #: positions and speeds; the measured acceleration enters only the command held under AEB
    #: (``use_accel_input``). Stepping: the outputs change only at sample instants, in doStep.
    STRUCTURE = Structure(initial={
        **{name: ("ego.x", "lead.x") for name in ("gap", "lead_detected")},
        **{name: ("ego.x", "ego.vx", "lead.x", "lead.vx") for name in ("ttc", "aeb_active", "held", "throttle", "brake",
                                                                      "brake_torque_front", "brake_torque_rear")},
        "accel_command": ("ego.x", "ego.vx", "ego.ax", "lead.x", "lead.vx"),
    })
    BLOCK = Block(acc_init, acc_step, {name: FIELDS.index(field) for name, (field, *_rest) in PARAMETERS.items()},
                  len(STATE), lambda values, resources: acc_parameters(_parameters(values)))
