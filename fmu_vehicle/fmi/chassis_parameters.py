"""The ChassisControl FMU's parameter table: the brake system, the vehicle constants the controller knows and
the functions' tunings, each an FMI parameter, with the numbers of the shipped full car as start values.

Names (SI units):

    brakes.<field>               the brake system (``control.hydraulics.BrakeSystem``): BRAKE_FIELDS
    brakes.torque_gain_<wheel>   K_w [N m/Pa] of each wheel
    vehicle.<field>              the controller's vehicle constants (``ecu.ControlledVehicle``): VEHICLE_FIELDS
    vehicle.driven_<wheel>       Boolean: the wheel gets the drive torque
    <function>.enabled           Boolean: the function runs (abs, tcs, esc)
    <function>.<key>             the function's tuning (its class's ``TUNING`` table; start values from
                                 ``resources/chassis_control/default.json``)

The vehicle constants of ``fullcar14`` come from ``closed_loop.controlled_vehicle`` (``single_track_of`` solves the car's
static equilibrium: far too slow for every instantiation), so they are stored here (``FULLCAR14``) and
tests/test_chassis_control_fmu.py recomputes them. Described in docs/fmus.md §10 and docs/chassis_control.md. :func:`fmu_parameters` gives the parameter values of any
vehicle and brake system (what a system file sets for another car; ``adas.protocols.chassis_control_parameters``
gives them for a shipped vehicle file and its brake file). This module is part of the ChassisControl FMU, which
needs only NumPy: it imports nothing of the vehicle model.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from fmu_vehicle.control.ecu import FUNCTIONS, ControlledVehicle, function_class, load_tuning
from fmu_vehicle.control.hydraulics import BrakeSystem, load_brake_system
from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import resource_path

WHEELS = ("FL", "FR", "RL", "RR")
"""The wheels of the FMU, in the vehicle's order: left/right, front/rear by their names."""

FULLCAR14 = {"mass_kg": 2486.0, "yaw_inertia_kg_m2": 10504.77621568582, "a_m": 2.005917381524654,
             "b_m": 2.155502732243556, "cf_N_per_rad": 142515.29328298953, "cr_N_per_rad": 136207.44528423424,
             "steering_ratio": 15.954717164222844, "track_m": 2.3934,
             "wheel_radius_front_m": 0.4566732219294059, "wheel_radius_rear_m": 0.45740374839363995,
             "driven": (True, True, False, False)}
"""``closed_loop.controlled_vehicle(Vehicle.load("fullcar14"))``: its scalar fields, the rolling radii of the front and the
rear wheels and the driven wheels."""

#: FMI name -> (ControlledVehicle field, unit, description, min, max)
VEHICLE_FIELDS = {
    "vehicle.mass": ("mass_kg", "kg", "vehicle mass", 100.0, 50000.0),
    "vehicle.yaw_inertia": ("yaw_inertia_kg_m2", "kg.m2", "yaw moment of inertia about the centre of mass",
                            10.0, 1e6),
    "vehicle.a": ("a_m", "m", "centre of mass to front axle", 0.1, 10.0),
    "vehicle.b": ("b_m", "m", "centre of mass to rear axle", 0.1, 10.0),
    "vehicle.cf": ("cf_N_per_rad", "N/rad", "front axle cornering stiffness (both tires)", 1e3, 1e7),
    "vehicle.cr": ("cr_N_per_rad", "N/rad", "rear axle cornering stiffness (both tires)", 1e3, 1e7),
    "vehicle.steering_ratio": ("steering_ratio", "1", "steering-wheel angle per road-wheel angle", 1.0, 100.0),
    "vehicle.track": ("track_m", "m", "track width", 0.5, 5.0),
}

#: FMI name -> (FULLCAR14 key, axle, description, min, max) of the rolling radii [m]
RADII = {
    "vehicle.wheel_radius_front": ("wheel_radius_front_m", True, "rolling radius of the front wheels: wheel speed "
                                   "= spin x radius", 0.1, 2.0),
    "vehicle.wheel_radius_rear": ("wheel_radius_rear_m", False, "rolling radius of the rear wheels", 0.1, 2.0),
}

#: FMI name -> (BrakeSystem field, unit, description, min, max)
BRAKE_FIELDS = {
    "brakes.pedal_ratio": ("pedal_ratio", "1", "brake pedal lever ratio", 0.5, 20.0),
    "brakes.booster_gain": ("booster_gain", "1", "vacuum booster force gain", 0.5, 30.0),
    "brakes.master_cylinder_area": ("master_cylinder_area_m2", "m2", "master-cylinder bore area", 1e-5, 1e-2),
    "brakes.max_pressure": ("max_pressure_Pa", "Pa", "booster run-out and pump limit pressure", 1e5, 5e7),
    "brakes.time_constant": ("time_constant_s", "s", "first-order lag of a wheel's pressure", 1e-3, 1.0),
    "brakes.build_rate": ("build_rate_Pa_per_s", "Pa/s", "fastest pressure rise from the master cylinder",
                          1e5, 1e10),
    "brakes.release_rate": ("release_rate_Pa_per_s", "Pa/s", "fastest pressure fall through an open outlet "
                            "valve", 1e5, 1e10),
    "brakes.active_build_rate": ("active_build_rate_Pa_per_s", "Pa/s", "fastest pressure rise the pump "
                                 "builds without the driver", 1e5, 1e10),
}

FIRST_TABLE = {"tcs": (10, 4), "esc": (14, 7), "abs": (15, 4)}
"""Per function: how many of its ``TUNING`` keys and ``OUTPUTS`` entries the FMU's first variable table had. The
FMU registers those in their first places and every key or output added since at the end of its table
(``appended``), so the value references of the existing variables stay: the table is append-only, and a
function's ``TUNING`` and ``OUTPUTS`` only grow at their ends."""

TORQUE_GAIN_RANGE = (0.0, 1e-2)
"""Bounds of ``brakes.torque_gain_<wheel>`` [N m/Pa]."""


def brake_system(values: dict) -> BrakeSystem:
    """The BrakeSystem of the FMU's parameter values."""
    return BrakeSystem("ChassisControl", WHEELS,
                       np.array([values[f"brakes.torque_gain_{w}"] for w in WHEELS]),
                       **{f: values[n] for n, (f, *_r) in BRAKE_FIELDS.items()})


def controlled_vehicle(values: dict) -> ControlledVehicle:
    """The ControlledVehicle of the FMU's parameter values (side and axle from the wheel names)."""
    scalars = {f: values[n] for n, (f, *_r) in VEHICLE_FIELDS.items()}
    front = np.array([w.startswith("F") for w in WHEELS])
    return ControlledVehicle(WHEELS, np.array([1.0 if w.endswith("L") else -1.0 for w in WHEELS]), front,
                             np.array([bool(values[f"vehicle.driven_{w}"]) for w in WHEELS]),
                             np.where(front, values["vehicle.wheel_radius_front"], values["vehicle.wheel_radius_rear"]),
                             **scalars,
                             brake_gain_Nm_per_Pa=np.array([values[f"brakes.torque_gain_{w}"] for w in WHEELS]))


def tuning_parameters(tuning: dict) -> dict:
    """FMI name -> (unit, description, min, max, start) of every function's tuning key: the class's ``TUNING``
    table (unit, description, min, max) and the start value from ``tuning`` (the default tuning file)."""
    out = {}
    for name in FUNCTIONS:
        for key, (unit, desc, lo, hi) in function_class(name).TUNING.items():
            out[f"{name}.{key}"] = (unit, desc, lo, hi, float(tuning[name][key]))
    return out


def appended(name: str, index: int, what: int) -> bool:
    """Whether entry ``index`` of function ``name``'s ``TUNING`` (``what`` 0) or ``OUTPUTS`` (``what`` 1) table came
    after the FMU's first variable table (``FIRST_TABLE``)."""
    return index >= FIRST_TABLE[name][what]


def fmu_parameters(vehicle: ControlledVehicle, brakes: BrakeSystem) -> dict:
    """The FMU's brake and vehicle parameter values for ``vehicle`` (four wheels named like ``WHEELS``; the
    radius of each axle is the mean of its two wheels') and its ``brakes``."""
    if tuple(vehicle.wheel_names) != WHEELS or tuple(brakes.wheel_names) != WHEELS:
        raise ModelError(f"the ChassisControl FMU has the wheels {WHEELS}; got {vehicle.wheel_names} "
                         f"and {brakes.wheel_names}")
    out = {n: float(getattr(vehicle, f)) for n, (f, *_r) in VEHICLE_FIELDS.items()}
    front = np.asarray(vehicle.front, dtype=bool)
    out.update({n: float(np.mean(vehicle.radius_m[front == axle])) for n, (_k, axle, *_r) in RADII.items()})
    out.update({f"vehicle.driven_{w}": bool(d) for w, d in zip(WHEELS, vehicle.driven)})
    out.update({n: float(getattr(brakes, f)) for n, (f, *_r) in BRAKE_FIELDS.items()})
    out.update({f"brakes.torque_gain_{w}": float(k) for w, k in zip(WHEELS, brakes.torque_gain_Nm_per_Pa)})
    return out


def fullcar14_vehicle_values() -> dict:
    """The ``vehicle.*`` start values: ``FULLCAR14``."""
    out = {n: float(FULLCAR14[f]) for n, (f, *_r) in VEHICLE_FIELDS.items()}
    out.update({n: FULLCAR14[k] for n, (k, *_r) in RADII.items()})
    out.update({f"vehicle.driven_{w}": d for w, d in zip(WHEELS, FULLCAR14["driven"])})
    return out



@functools.lru_cache(maxsize=1)
def start_values(data_dir: str | None) -> tuple[dict, dict]:
    """(tuning file, FMI parameter -> start value of the brake, vehicle and tuning parameters), read from
    ``data_dir`` (the FMU's resources folder; None or a folder without ``chassis_control/``: the package's
    resources) once per process: pythonfmu re-executes the slave script at each instantiation, possibly after
    the first FMU's folder has been deleted (docs/fmu_hosts.md)."""
    base = data_dir if data_dir is not None and (Path(data_dir) / "chassis_control").is_dir() else None
    tuning = load_tuning(resource_path("chassis_control", "default.json", base=base))
    brakes = load_brake_system(resource_path("brakes", "fullcar14.json", base=base), WHEELS)
    starts = {n: float(getattr(brakes, f)) for n, (f, *_r) in BRAKE_FIELDS.items()}
    starts.update({f"brakes.torque_gain_{w}": float(k) for w, k in zip(WHEELS, brakes.torque_gain_Nm_per_Pa)})
    starts.update(fullcar14_vehicle_values())
    starts.update({n: row[4] for n, row in tuning_parameters(tuning).items()})
    return tuning, starts
