"""Shared FMU test cases: the unit of every FMU variable (written by hand), and one harness for the
bad-input and the state tests of every FMU, run in child processes (fmi_support.run_child).

This module holds no tests. The child-side harnesses are code strings appended to the child prelude
(fmi_support.CHILD_PRELUDE, which defines ``Fmu``, ``do_step`` and ``MESSAGES``).
"""
from __future__ import annotations

# ------------------------------------------------------------------------------------------------
# The expected unit of every variable (inputs, outputs, parameters), from its physical meaning; None for
# String, Integer and Boolean variables (FMI gives units to Reals only). Written here, not generated from
# the slaves' tables, so a wrong unit in a slave is caught.
_N, _NM, _MS = "N", "N.m", "m/s"
_CORNERS = ("FL", "FR", "RL", "RR")


def _full_vehicle(wheels: tuple[str, ...], axles: tuple[str, ...]) -> dict[str, str | None]:
    """The units of a full vehicle FMU (Vehicle.fmu's interface) with these wheels (``wheel_<w>``) and axles
    (``axle_<a>``)."""
    return {
        "model": None, "chassis.mass": "kg",
        **{f"suspension_{w}.{k}": u for w in wheels
           for k, u in (("spring_stiffness", "N/m"), ("spring_preload", _N), ("damping", "N.s/m"))},
        **{f"wheel_{w}.{k}": u for w in wheels for k, u in (("mass", "kg"), ("inertia_yy", "kg.m2"))},
        **{f"tire_{w}.unloaded_radius": "m" for w in wheels},
        "v0": _MS, "x0": "m", "integrator": None, "dt": "s", "road_source": None, "road": None, "road_file": None,
        "allow_external_files": None, "tire_source": None, "steering_input": None,
        **{f"wheel_{w}.{k}": u for w in wheels for k, u in (
            ("torque_drive", _NM), ("torque_brake", _NM), ("road_height", "m"), ("road_slope", "1"),
            ("road_slope_y", "1"), ("road_mu", "1"),
            *((f"point.{a}", "m") for a in "xyz"), *((f"force.{a}", _N) for a in "xyz"),
            *((f"moment.{a}", _NM) for a in "xyz"))},
        "steering_wheel_angle": "rad", "rack_travel_command": "m",
        **{f"chassis.{k}": "m" for k in ("x", "y", "z")},
        **{f"chassis.{k}": "rad" for k in ("roll", "pitch", "yaw", "sideslip")},
        **{f"chassis.{k}": _MS for k in ("vx", "vy", "vz")},
        **{f"chassis.{k}_rate": "rad/s" for k in ("roll", "pitch", "yaw")},
        **{f"chassis.{k}": "m/s2" for k in ("ax", "ay", "az")},
        **{f"chassis.{k}_acc": "rad/s2" for k in ("roll", "pitch", "yaw")},
        **{f"wheel_{w}.{k}": u for w in wheels for k, u in (
            ("omega", "rad/s"), ("omega_rel", "rad/s"), *((f"pos.{a}", "m") for a in "xyz"),
            *((f"rot.e{i}", "1") for i in range(4)),            # unit quaternion
            *((f"lin_vel.{a}", _MS) for a in "xyz"), *((f"ang_vel.{a}", "rad/s") for a in "xyz"),
            ("steer_angle", "rad"), ("camber", "rad"), ("travel", "m"), ("suspension_force", _N),
            ("tire_fz", _N), ("tire_fx", _N), ("tire_fy", _N), ("tire_mz", _NM), ("slip", "1"),
            ("slip_angle", "rad"), ("torque_drive_applied", _NM), ("torque_brake_applied", _NM))},
        "steering_wheel_angle_applied": "rad", "rack_travel": "m", "rack_force": _N,
        "constraint_residual": "1",
        **{f"axle_{a}.{k}": u for a in axles for k, u in (
            ("load", _N), ("fx", _N), ("fy", _N), ("load_transfer", "1"), ("heave", "m"), ("roll", "rad"))},
    }


def _towed(unit: str) -> dict[str, str]:
    """The units of a towed unit's outputs and parameters in a combination FMU (``<unit>.*``)."""
    return {f"{unit}.chassis_mass": "kg", f"{unit}.articulation": "rad", f"{unit}.articulation_rate": "rad/s",
            f"{unit}.x": "m", f"{unit}.y": "m", f"{unit}.vx": _MS, f"{unit}.vy": _MS, f"{unit}.yaw": "rad",
            f"{unit}.yaw_rate": "rad/s", f"{unit}.roll": "rad", f"{unit}.ay": "m/s2",
            **{f"{unit}.coupling_f{a}": _N for a in "xyz"}}        # the coupling's force on the towed unit


_TRUCK_WHEELS = ("FL", "FR", "RL1", "RL2", "RR1", "RR2", "TL1", "TL2", "TL3", "TR1", "TR2", "TR3")

UNITS: dict[str, dict[str, str | None]] = {
    "Powertrain": {
        "powertrain_file": None, "allow_external_files": None, "step_size": "s",
        "throttle": "1",                                          # pedal position, 0..1
        "wheel_left.omega": "rad/s", "wheel_right.omega": "rad/s",
        "wheel_left.torque_drive": _NM, "wheel_right.torque_drive": _NM,
        "engine.speed": "rad/s", "engine.torque": _NM,
        "torque_converter.speed_ratio": "1",                      # turbine / pump speed
        "transmission.gear": None,                                # Integer
    },
    "Controller": {
        "sample_period": "s", "acc.set_speed": _MS, "acc.time_gap": "s", "acc.standstill_distance": "m",
        "acc.gap_offset": "m", "acc.sensor_range": "m", "acc.accel_max": "m/s2", "acc.decel_max": "m/s2",
        "acc.jerk_max": "m/s3", "acc.jerk_max_high_speed": "m/s3",
        "acc.k_cruise": "1/s",          # speed error [m/s] -> acceleration [m/s2]
        "acc.k_gap": "1/s2",            # gap error [m] -> acceleration [m/s2]
        "acc.k_speed": "1/s",           # relative speed [m/s] -> acceleration
        "acc.k_lead_accel": "1",        # lead acceleration -> acceleration
        "acc.lead_accel_filter": "s",
        "acc.k_i": "1/s",               # integral of an acceleration error [m/s] -> acceleration
        "acc.stop_speed": _MS, "acc.lead_stopped_speed": _MS, "acc.stop_decel": "m/s2", "acc.restart_accel": "m/s2",
        "aeb.ttc_on": "s", "aeb.ttc_off": "s",
        "vehicle.mass": "kg", "vehicle.wheel_radius": "m", "vehicle.drive_force_max": _N,
        "brake.torque_max": _NM, "brake.front_bias": "1", "brake.hold": "1",
        "mode": None, "use_accel_input": None,
        "ego.x": "m", "ego.vx": _MS, "ego.ax": "m/s2", "lead.x": "m", "lead.vx": _MS,
        "throttle": "1", "brake": "1", "brake_torque_front": _NM, "brake_torque_rear": _NM,
        "accel_command": "m/s2", "gap": "m", "ttc": "s", "aeb_active": None, "held": None, "lead_detected": None,
    },
    "LeadVehicle": {"speed_profile": None, "speed_profile_points": None, "x0": "m", "x": "m", "vx": _MS, "ax": "m/s2"},
    "Tire": {
        "tire_file": None, "allow_external_files": None, "road_source": None, "road": None, "road_file": None, "dt": "s",
        "output_time": None,
        "input_extrapolation": None, "slip0": "1",
        "wheel.x": "m", "wheel.z": "m", "wheel.vx": _MS, "wheel.vz": _MS, "wheel.omega": "rad/s",
        "road.height": "m", "road.slope": "1", "road.mu": "1",
        "fx": _N, "fz": _N, "my": _NM, "wheel_load.force_x": _N, "wheel_load.force_z": _N,
        "wheel_load.moment_y": _NM, "slip": "1", "slip_kinematic": "1", "slip_velocity": _MS,
        "deflection": "m", "deflection_rate": _MS, "loaded_radius": "m", "rolling_radius": "m",
        "relaxation_length": "m", "contact.x": "m", "contact.z": "m", "road.height_used": "m",
        "road.slope_used": "1",
        # the chrono interface (Project Chrono's force-element tire: spatial wheel state and terrain in)
        "wheel_interface": None, "side": None,
        **{f"wheel_state.pos.{a}": "m" for a in "xyz"},
        **{f"wheel_state.rot.e{i}": "1" for i in range(4)},          # quaternion components
        **{f"wheel_state.lin_vel.{a}": _MS for a in "xyz"},
        **{f"wheel_state.ang_vel.{a}": "rad/s" for a in "xyz"},
        "terrain_height": "m", **{f"terrain_normal.{a}": "1" for a in "xyz"}, "terrain_mu": "1",
        **{f"wheel_load.point.{a}": "m" for a in "xyz"}, **{f"wheel_load.force.{a}": _N for a in "xyz"},
        **{f"wheel_load.moment.{a}": _NM for a in "xyz"}, **{f"query_point.{a}": "m" for a in "xyz"},
        "fy": _N, "mz": _NM, "slip_angle": "rad", "slip_angle_kinematic": "rad",
        "lateral_slip": "1",                                           # q = tan(alpha')
        "inclination": "rad", "camber": "rad", "relaxation_length_lateral": "m", "contact.y": "m",
        "road.slope_y_used": "1", "road.mu_used": "1",
    },
    "Driver": {
        "driver_file": None, "path": None, "allow_external_files": None, "path_file": None,
        "preview_time": "s", "preview_distance_min": "m", "feedforward_preview_time": "s",
        "yaw_rate_gain": "s",           # road-wheel angle [rad] per yaw-rate error [rad/s]
        "steering_wheel_angle_max": "rad", "steering_wheel_rate_max": "rad/s",
        "speed_kp": "1/s",              # speed error [m/s] -> acceleration [m/s2]
        "speed_ki": "1/s2",             # integral of the speed error [m] -> acceleration [m/s2]
        "acceleration_max": "m/s2", "deceleration_max": "m/s2",
        "vehicle.wheelbase": "m", "vehicle.steering_ratio": "1", "vehicle.mass": "kg", "vehicle.wheel_radius": "m",
        "vehicle.width": "m", "path.x_offset": "m", "path.y_offset": "m", "sample_period": "s",
        "drive_torque_max": _NM, "brake_torque_max": _NM,
        "chassis.x": "m", "chassis.y": "m", "chassis.yaw": "rad", "chassis.vx": _MS, "target_speed": _MS,
        "steering_wheel_angle": "rad", "wheel_torque": _NM, "throttle": "1", "brake": "1",
        "lateral_error": "m", "heading_error": "rad", "path_s": "m",
    },
    "VehicleLV": {
        "model": None, "chassis.mass": "kg", "chassis.inertia_yy": "kg.m2",
        **{f"suspension_{w}.{k}": u for w in ("front", "rear")
           for k, u in (("spring_stiffness", "N/m"), ("spring_preload", _N), ("damping", "N.s/m"))},
        **{f"wheel_{w}.{k}": u for w in ("front", "rear") for k, u in (("mass", "kg"), ("inertia_yy", "kg.m2"))},
        "tire_front.unloaded_radius": "m", "tire_rear.unloaded_radius": "m",
        "v0": _MS, "x0": "m", "integrator": None, "dt": "s", "road_source": None, "road": None, "road_file": None,
        "allow_external_files": None,
        "tire_source": None,
        **{f"wheel_{w}.{k}": u for w in ("front", "rear") for k, u in (
            ("torque_drive", _NM), ("torque_brake", _NM), ("road_height", "m"), ("road_slope", "1"),
            ("road_mu", "1"), ("tire_force_x", _N), ("tire_force_z", _N), ("tire_moment_y", _NM))},
        "chassis.x": "m", "chassis.z": "m", "chassis.pitch": "rad", "chassis.vx": _MS, "chassis.vz": _MS,
        "chassis.pitch_rate": "rad/s", "chassis.ax": "m/s2", "chassis.az": "m/s2", "chassis.pitch_acc": "rad/s2",
        **{f"wheel_{w}.{k}": u for w in ("front", "rear") for k, u in (
            ("omega", "rad/s"), ("omega_rel", "rad/s"), ("x", "m"), ("z", "m"), ("vx", _MS), ("vz", _MS),
            ("travel", "m"), ("suspension_force", _N), ("tire_fz", _N), ("tire_fx", _N), ("slip", "1"),
            ("torque_drive_applied", _NM), ("torque_brake_applied", _NM))},
        # max |Phi| over cut-joint equations [m] and rod equations [m2]: no single unit, given as "1"
        "constraint_residual": "1",
    },
    "Vehicle": _full_vehicle(_CORNERS, ("front", "rear")),
    "VehicleCombination": {**_full_vehicle((*_CORNERS, "TL", "TR"), ("front", "rear", "caravan")),
                           **_towed("caravan")},
    "TractorSemitrailer": {**_full_vehicle(_TRUCK_WHEELS, ("front", "drive1", "drive2", "trailer1", "trailer2",
                                                           "trailer3")),
                           **_towed("semitrailer")},
    "ChassisControl": {
        "sample_period": "s", "abs.enabled": None, "tcs.enabled": None, "esc.enabled": None,
        "brakes.pedal_ratio": "1", "brakes.booster_gain": "1", "brakes.master_cylinder_area": "m2",
        "brakes.max_pressure": "Pa", "brakes.time_constant": "s", "brakes.build_rate": "Pa/s",
        "brakes.release_rate": "Pa/s", "brakes.active_build_rate": "Pa/s",
        **{f"brakes.torque_gain_{w}": "N.m/Pa" for w in _CORNERS},       # torque per pressure
        "vehicle.mass": "kg", "vehicle.yaw_inertia": "kg.m2", "vehicle.a": "m", "vehicle.b": "m",
        "vehicle.cf": "N/rad", "vehicle.cr": "N/rad",                       # axle cornering stiffness
        "vehicle.steering_ratio": "1", "vehicle.track": "m", "vehicle.wheel_radius_front": "m",
        "vehicle.wheel_radius_rear": "m", **{f"vehicle.driven_{w}": None for w in _CORNERS},
        # tunings: speeds, slips (1), pressures, wheel accelerations, times, gains
        "abs.speed_min_m_s": _MS, "abs.slip_speed_min_m_s": _MS, "abs.pressure_min_Pa": "Pa",
        "abs.wheel_decel_hold_m_s2": "m/s2", "abs.slip_hold": "1", "abs.slip_release": "1",
        "abs.wheel_acc_release_end_m_s2": "m/s2", "abs.slip_deep": "1", "abs.slip_reapply": "1",
        "abs.reapply_fast_time_s": "s", "abs.reapply_apply_samples": "1", "abs.reapply_hold_samples": "1",
        "abs.rear_select_low": "1", "abs.yaw_moment_limit_time_s": "s", "abs.yaw_moment_limit_apply_every_samples": "1",
        "tcs.slip_speed_min_m_s": _MS, "tcs.slip_target_brake": "1",
        "tcs.brake_kp_Pa": "Pa",                   # pressure per unit slip
        "tcs.brake_ki_Pa_per_s": "Pa/s",           # pressure rate per unit slip
        "tcs.brake_pressure_max_Pa": "Pa", "tcs.driver_brake_pressure_max_Pa": "Pa", "tcs.slip_target_engine": "1",
        "tcs.engine_kp": "1", "tcs.engine_ki_per_s": "1/s", "tcs.torque_factor_min": "1",
        "esc.min_speed_m_s": _MS, "esc.friction_coefficient": "1", "esc.reference_time_constant_s": "s",
        "esc.sideslip_leak_time_s": "s", "esc.sideslip_limit_rad": "rad",
        "esc.sideslip_gain_rad_s_per_rad": "1/s",  # yaw rate [rad/s] per sideslip [rad]
        "esc.derivative_time_s": "s", "esc.deadband_oversteer_rad_s": "rad/s", "esc.deadband_understeer_rad_s": "rad/s",
        "esc.full_pressure_error_rad_s": "rad/s", "esc.max_pressure_front_Pa": "Pa", "esc.max_pressure_rear_Pa": "Pa",
        "esc.drive_torque_factor_active": "1", "esc.tcs_yaw_moment_share": "1",
        **{f"wheel_{w}.omega": "rad/s" for w in _CORNERS}, "chassis.yaw_rate": "rad/s", "chassis.ay": "m/s2",
        "chassis.vx": _MS, "steering_wheel_angle": "rad", "driver.pedal_force": _N, "driver.drive_torque": _NM,
        **{f"wheel_{w}.torque_{k}": _NM for w in _CORNERS for k in ("brake", "drive")},
        "brakes.master_cylinder_pressure": "Pa", **{f"brakes.pressure_{w}": "Pa" for w in _CORNERS},
        **{f"ecu.mode_{w}": None for w in _CORNERS},                      # Integer
        **{f"ecu.active_pressure_{w}": "Pa" for w in _CORNERS}, "ecu.drive_torque_factor": "1",
        "esc.yaw_rate_ref": "rad/s", "esc.yaw_rate_error": "rad/s", "esc.control_signal": "rad/s",
        "esc.sideslip_estimate": "rad", "esc.active": "1", "esc.wheel": "1", "esc.pressure_request": "Pa",
        "abs.active": "1", **{f"abs.{k}_{w}": u for w in _CORNERS for k, u in (("phase", "1"), ("slip", "1"),
                                                                               ("wheel_acc", "m/s2"))},
        "tcs.active": "1", **{f"tcs.{k}_{w}": u for w in _CORNERS for k, u in (("slip", "1"), ("pressure", "Pa"))},
        "tcs.torque_factor": "1",
        # the slip controller's tuning and outputs (appended after the first table)
        "abs.peak_slip_per_friction": "1", "abs.slip_target_fraction": "1", "abs.friction_min": "1",
        "abs.friction_max": "1", "abs.friction_filter_time_s": "s",
        "abs.slip_gain_Pa": "Pa",                         # pressure per unit slip error
        "abs.slip_integral_gain_Pa_per_s": "Pa/s",        # pressure rate per unit slip error
        "abs.pressure_margin_Pa": "Pa", "abs.yaw_moment_limit_rate_Pa_per_s": "Pa/s",
        "esc.braking_slip_reduction": "1", "esc.slip_target_factor": "1", "esc.relieved_wheel": "1",
        "abs.friction_estimate": "1", "abs.slip_target": "1", **{f"abs.pressure_limit_{w}": "Pa" for w in _CORNERS},
    },
    "Robot": {"steering_profile": None, "pedal_force_profile": None, "drive_torque_profile": None,
              "steering_wheel_angle": "rad", "pedal_force": _N, "drive_torque": _NM},
}

# ------------------------------------------------------------------------------------------------
#: Child code, run before fmpy is imported: hide the editable install of fmu_vehicle (and the repository,
#: ``INPUTS_REPO``), so an FMU can only use the package copy it ships. Sets HIDDEN.
HIDE_PACKAGE = '''
import importlib, importlib.util, sys
def _editable(obj):
    return "__editable__" in (getattr(obj, "__module__", "") or "") + repr(obj)
sys.meta_path[:] = [f for f in sys.meta_path if not _editable(f)]
sys.path_hooks[:] = [h for h in sys.path_hooks if not _editable(h)]
sys.path[:] = [p for p in sys.path if "__editable__" not in p and not p.startswith(INPUTS_REPO)]
sys.path_importer_cache.clear()
importlib.invalidate_caches()
HIDDEN = importlib.util.find_spec("fmu_vehicle") is None
'''

#: Child code: ``case(fmu, name, start, actions)`` runs one bad-input scenario on a fresh instance and
#: records it in ``BAD[name]``, with the status of fmi2ExitInitializationMode and the errors logged up to it.
#: Actions: ('set', 'Real'|'String'|..., name, value), ('step', t, h), ('terminate',). terminate and
#: freeInstance always run afterwards (no crash allowed).
BAD_INPUT_HARNESS = '''
BAD = {}
ASK_TERMINATED = True       # query fmi2GetBooleanStatus(fmi2Terminated) after a discard


def case(fmu, name, start=None, actions=()):
    MESSAGES.clear()
    f = fmu.new(name, start=start, init=False)
    f.enterInitializationMode()
    try:
        f.exitInitializationMode()
        exit_status = 0
    except FMICallException as exc:
        exit_status = exc.status
    init_errors = [m for s, m in MESSAGES if s >= 3]
    statuses, terminated = [], []
    for act in actions:
        if act[0] == "set":
            getattr(f, "set" + act[1])([fmu.vr[act[2]]], [act[3]])
        elif act[0] == "step":
            st = do_step(f, act[1], act[2])
            statuses.append(st)
            terminated.append(bool(f.getBooleanStatus(fmi2Terminated)) if st == 2 and ASK_TERMINATED else None)
        elif act[0] == "terminate":
            f.terminate()
    if not any(a[0] == "terminate" for a in actions):
        f.terminate()
    f.freeInstance()
    errors = [m for s, m in MESSAGES if s >= 3]
    BAD[name] = dict(exit=exit_status, init_errors=init_errors, statuses=statuses, terminated=terminated,
                     message=errors[-1] if errors else None,
                     messages=[m for _, m in MESSAGES], statuses_logged=sorted({s for s, _ in MESSAGES}))
'''

#: Child code: ``check_state(fmu, drive, n, k_save, ...)`` steps instances n steps of H with inputs
#: ``drive(k)`` (a dict set before step k) and records every output row after each step: a clean run;
#: get/set FMU state (twice from one state object; once after a single step), serialization into an
#: initialized and into a merely instantiated instance, reset, and two instances stepped interleaved; with
#: ``tunable = (name, value)``
#: also the continuation from the saved state with the tunable parameter changed (before the rollbacks,
#: which must then restore it).
STATE_HARNESS = '''
def output_reader(fmu):
    md = fmu.md
    by = lambda t: [v.valueReference for v in md.modelVariables if v.causality == "output" and v.type == t]
    reals, ints, bools = by("Real"), by("Integer"), by("Boolean")
    return lambda f: tuple(f.getReal(reals)) + tuple(f.getInteger(ints)) + tuple(f.getBoolean(bools))

def run_steps(f, fmu, drive, k0, k1, h):
    read = output_reader(fmu)
    rows = []
    for k in range(k0, k1):
        for name, value in drive(k).items():
            f.setReal([fmu.vr[name]], [value])
        assert do_step(f, k * h, h) == 0, MESSAGES[-3:]
        rows.append(read(f))
    return rows

def check_state(fmu, drive, n, k_save, h=1e-3, start=None, other_drive=None, other_start=None, tunable=None,
                restore_start=None):
    out = {}
    other_drive = other_drive or drive
    def close(f):
        f.terminate()
        f.freeInstance()

    r = fmu.new("ref", start=start)
    full = run_steps(r, fmu, drive, 0, n, h)
    close(r)
    a = fmu.new("A", start=start)
    first = run_steps(a, fmu, drive, 0, k_save, h)
    state = a.getFMUstate()
    ref = run_steps(a, fmu, drive, k_save, n, h)
    if tunable:                              # the same continuation with the tunable changed
        a.setFMUstate(state)
        a.setReal([fmu.vr[tunable[0]]], [tunable[1]])
        out["changed"] = run_steps(a, fmu, drive, k_save, n, h)
    a.setFMUstate(state)
    again = run_steps(a, fmu, drive, k_save, n, h)
    a.setFMUstate(state)                     # the same state object twice
    again2 = run_steps(a, fmu, drive, k_save, n, h)
    a.setFMUstate(state)                     # one step, then back to the state (a master retrying a step)
    run_steps(a, fmu, drive, k_save, k_save + 1, h)
    a.setFMUstate(state)
    after_one = run_steps(a, fmu, drive, k_save, n, h)
    blob = bytes(a.serializeFMUstate(state))
    a.freeFMUstate(state)
    # the serialized state into an initialized instance (start values restore_start, default: the defaults)
    # and into one only instantiated
    for label, init in (("b", True), ("c", False)):
        other = fmu.new(label.upper(), init=init, start=restore_start)
        s = other.deSerializeFMUstate(blob)
        other.setFMUstate(s)
        other.freeFMUstate(s)
        out[f"{label}_restored"] = output_reader(fmu)(other)
        out[f"from_{label}"] = run_steps(other, fmu, drive, k_save, n, h)
        close(other)
    a.reset()
    a.setupExperiment(startTime=0.0)
    for name, value in (start or {}).items():
        if isinstance(value, str) and name in fmu.items:       # an Enumeration by its option's item value
            value = fmu.items[name].get(value, value)
        {float: a.setReal, int: a.setInteger, bool: a.setBoolean, str: a.setString}[type(value)]([fmu.vr[name]], [value])
    a.enterInitializationMode()
    a.exitInitializationMode()
    after_reset = run_steps(a, fmu, drive, 0, n, h)
    close(a)
    d, e = fmu.new("D", start=start), fmu.new("E", start=other_start)
    solo = fmu.new("solo", start=other_start)
    solo_e = run_steps(solo, fmu, other_drive, 0, n, h)
    close(solo)
    inter_d, inter_e = [], []
    for k in range(n):
        inter_d += run_steps(d, fmu, drive, k, k + 1, h)
        inter_e += run_steps(e, fmu, other_drive, k, k + 1, h)
    close(d)                                 # every instance is freed as soon as it is done
    close(e)
    md = fmu.md
    out["outputs"] = [v.name for t in ("Real", "Integer", "Boolean") for v in md.modelVariables
                      if v.causality == "output" and v.type == t]       # the order of the rows
    out.update(full=full, at_save=first[-1], split=first + ref, ref=ref, again=again, again2=again2,
               after_one=after_one,
               after_reset=after_reset, inter_d=inter_d, inter_e=inter_e,
               solo_e=solo_e, blob_size=len(blob))
    return out
'''

DISCARD = 2


def assert_refused(r: dict, statuses: list, words: list):
    """A bad-input case from BAD_INPUT_HARNESS: the doStep statuses (FMPy raised FMICallException(status=2)
    on a discard), the FMU reports itself terminated after a discard (when asked), the last logged
    error names the problem (logged as fmi2Error), and fmi2ExitInitializationMode returned fmi2Error exactly
    when a problem was found by then (a refused parameter or start value)."""
    assert r["exit"] == (3 if r["init_errors"] else 0), r["messages"]
    assert r["statuses"] == statuses, r["messages"]
    assert all(r["terminated"][i] in (True, None) for i, s in enumerate(statuses) if s == DISCARD)
    assert r["message"] is not None and 3 in r["statuses_logged"], r["messages"]
    for word in words:
        assert word in r["message"], r["messages"]


def assert_state_bit_identical(r: dict, *, other_differs: bool = False):
    """A result of check_state: every continuation equals the clean run bit for bit."""
    assert r["split"] == r["full"]                      # getFMUstate does not disturb the run
    assert r["again"] == r["ref"]                       # rollback
    assert r["again2"] == r["ref"]                      # restoring the same state object twice
    assert r["after_one"] == r["ref"]                   # rollback after a single step
    assert r["from_b"] == r["ref"]                      # serialized into an initialized instance
    assert r["from_c"] == r["ref"]                      # ... and into a merely instantiated one
    assert r["b_restored"] == r["c_restored"] == r["at_save"]   # outputs right after setFMUstate
    assert r["after_reset"] == r["full"]                # fmi2Reset reruns identically
    assert r["inter_e"] == r["solo_e"]                  # instances do not share state
    assert r["inter_d"] == r["full"]
    if other_differs:
        assert r["inter_e"] != r["full"]                # ... and the other instance really differed
    assert len(set(r["full"])) > 100                    # the outputs actually evolve
    assert r["blob_size"] > 100

