"""The Driver FMU's parameter table: the path follower's tuning fields exposed as FMI parameters, with start
values read from the default driver file, and the vehicle fields with the numbers of the shipped full car.

``tuning_table(data_dir)`` reads the start values from ``data_dir`` (the FMU's resources folder) once per
process and returns the same table on every later call: pythonfmu re-executes the slave script at each
instantiation, possibly after the first FMU's folder has been deleted (docs/fmu_hosts.md).

The vehicle fields' start values are those of ``fullcar14`` as ``manoeuvres.runs`` computes them
(``driver_for``: wheelbase, steering ratio and mass of ``single_track_of(car)``, the mean free tire radius;
``vehicle_width``). ``single_track_of`` solves the car's static equilibrium, far too slow for every
instantiation, so the numbers are stored here (``FULLCAR14``); tests/test_driver_fmu.py recomputes them.
Described in docs/handling.md §13.
"""
from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import NamedTuple

from fmu_vehicle.driver.path_follower import load_driver_params
from fmu_vehicle.paths import resource_path

DEFAULT_DRIVER_FILE = "drivers/preview_driver.json"
"""The driver file of the FMU (relative to its resources) whose values are the tuning start values."""

LANE_CHANGE = "iso3888_1_double_lane_change"
"""The built-in path: the ISO 3888-1 centre line for the FMU's ``vehicle.width`` (``lane_change_path``)."""

SHIPPED_PATHS = (LANE_CHANGE, "lane_shift", "truck_lane_change")
"""The options of Driver.fmu's ``path`` enumeration, in this order (item values 1, 2, ...): the built-in ISO
3888-1 path, then the CSV files shipped in ``resources/paths`` by file stem (``<name>.csv``), in name order;
a path added later is appended, so that a system file's item values stay valid. A user's own CSV file is the
String parameter ``path_file``."""


def driver_path_parameters(path: str) -> dict[str, str]:
    """The Driver.fmu parameters that give it ``path``: ``{"path": name}`` for a shipped path, named by its option
    or by its file name in resources/paths (``truck_lane_change`` or ``truck_lane_change.csv``; the enumeration,
    which every host sets), else ``{"path_file": path}`` (a user's CSV file)."""
    text = str(path)
    if text in SHIPPED_PATHS:
        return {"path": text}
    if text.endswith(".csv") and text[:-len(".csv")] in SHIPPED_PATHS[1:]:
        return {"path": text[:-len(".csv")]}
    return {"path_file": text}

FULLCAR14 = {"wheelbase_m": 4.161420113767935, "steering_ratio": 15.954717164203268, "mass_kg": 2486.0,
             "wheel_radius_m": 0.4672, "width_m": 2.7084}
"""fullcar14: wheelbase [m], steering ratio [1], total mass [kg], mean free tire radius [m] and overall
width [m] (track + tire width), as ``manoeuvres.runs.driver_for`` and ``vehicle_width`` compute them."""

_DEG = math.pi / 180.0

#: FMI parameter -> (DriverParams field, unit, description, min, max, factor), FMI value = factor x field value
TUNING_FIELDS = {
    "preview_time": ("preview_time_s", "s", "preview time: preview distance l_p = max(preview_distance_min, "
                     "preview_time v)", 0.01, 10.0, 1.0),
    "preview_distance_min": ("preview_distance_min_m", "m", "shortest preview distance (at low speed)",
                             0.1, 200.0, 1.0),
    "feedforward_preview_time": ("feedforward_preview_time_s", "s", "the path curvature is fed forward from "
                                 "this time ahead of the foot point", 0.0, 5.0, 1.0),
    "yaw_rate_gain": ("yaw_rate_gain_s", "s", "road-wheel angle per yaw-rate error (v k - r) [rad per rad/s]",
                      0.0, 10.0, 1.0),
    "steering_wheel_angle_max": ("steering_wheel_angle_max_deg", "rad", "steering-wheel angle limit (keep it "
                                 "within the driven vehicle's steering_wheel_angle range: the full vehicle "
                                 "refuses angles beyond its rack's end stops)", 1e-3, 20.0, _DEG),
    "steering_wheel_rate_max": ("steering_wheel_rate_max_deg_s", "rad/s", "steering-wheel rate limit",
                                1e-3, 1000.0, _DEG),
    "speed_kp": ("speed_kp_1_per_s", "1/s", "speed controller: acceleration per speed error", 0.0, 100.0, 1.0),
    "speed_ki": ("speed_ki_1_per_s2", "1/s2", "speed controller: acceleration per integral of the speed "
                 "error", 0.0, 100.0, 1.0),
    "acceleration_max": ("acceleration_max_m_s2", "m/s2", "largest acceleration demand", 0.0, 100.0, 1.0),
    "deceleration_max": ("deceleration_max_m_s2", "m/s2", "largest deceleration demand (positive)",
                         0.0, 100.0, 1.0),
}

#: FMI parameter -> (key of FULLCAR14 = DriverParams field, or width_m; unit, description, min, max)
VEHICLE = {
    "vehicle.wheelbase": ("wheelbase_m", "m", "wheelbase L of the vehicle driven (kinematic steering law "
                          "atan(L k))", 0.5, 20.0),
    "vehicle.steering_ratio": ("steering_ratio", "1", "steering ratio: steering-wheel angle per road-wheel "
                               "angle", 1.0, 100.0),
    "vehicle.mass": ("mass_kg", "kg", "mass of the vehicle driven (wheel torque = mass wheel_radius a)",
                     1.0, 1e5),
    "vehicle.wheel_radius": ("wheel_radius_m", "m", "wheel radius (wheel torque = mass wheel_radius a)",
                             0.05, 3.0),
    "vehicle.width": ("width_m", "m", "overall vehicle width: the lane widths of the built-in ISO 3888-1 "
                      "path", 0.5, 3.0),
}


class TuningRow(NamedTuple):
    field: str          # DriverParams field
    unit: str
    description: str
    start: float        # FMI start value (the default driver file's value x factor)
    min: float
    max: float
    factor: float       # FMI value = factor x field value


@functools.cache
def tuning_table(data_dir: str | None) -> dict[str, TuningRow]:
    """FMI parameter -> TuningRow, start values read from ``DEFAULT_DRIVER_FILE`` in ``data_dir`` (None or a
    folder without ``drivers/``: the package's resources); computed once per process."""
    base = data_dir if data_dir is not None and (Path(data_dir) / "drivers").is_dir() else None
    params = load_driver_params(resource_path(*DEFAULT_DRIVER_FILE.split("/"), base=base), **vehicle_overrides())
    return {name: TuningRow(field, unit, desc, getattr(params, field) * factor, lo, hi, factor)
            for name, (field, unit, desc, lo, hi, factor) in TUNING_FIELDS.items()}


def vehicle_overrides(values: dict | None = None) -> dict[str, float]:
    """The DriverParams vehicle fields from the FMI values ``values`` (None: the fullcar14 start values)."""
    return {key: (FULLCAR14[key] if values is None else values[name])
            for name, (key, *_rest) in VEHICLE.items() if key != "width_m"}
