"""Driver.fmu: the closed-loop preview driver (``fmu_vehicle.driver.path_follower.PathFollower``) on a path, as an
FMI 2.0 CS slave sampled at its own period.

A thin variable table over the script API (the control law is PathFollower's, nothing is restated here)::

    params   = load_driver_params(<driver_file>, <vehicle.*>, <tuning parameters changed from their start>)
    path     = Path.from_csv(<path_file>) if path_file is set, else the shipped path chosen by the enumeration
               path (lane_change_path(vehicle.width) or Path.from_csv(paths/<path>.csv)),
               shifted by (path.x_offset, path.y_offset)
    follower = PathFollower(path, params)
    at each sample instant t:  follower.speed = target_speed
                               steering_wheel_angle, wheel_torque = follower.command(t, chassis.x, chassis.y,
                                                                                     chassis.yaw, chassis.vx)

Semantics (SI units, ISO 8855 axes: x forward, y left, yaw from +x towards +y, + steering steers left):

* Sample and hold: the command is computed at exitInitializationMode for the initial inputs at the start time
  t0 and then at the start t of the first doStep(t, h) with t >= t0 + k sample_period for each k >= 1 (inputs
  of that communication point; the instants t0 + k sample_period between step starts are not sampled
  separately), and held in between. With sample_period a multiple of the communication step the driver
  samples exactly every sample_period, like ``manoeuvres.runs.closed_loop``.
* Outputs: ``steering_wheel_angle`` (the full vehicle's input of that name), ``wheel_torque`` (total wheel
  torque demand, + drive, - brake), ``throttle`` = clip(wheel_torque / drive_torque_max, 0, 1), ``brake`` =
  clip(-wheel_torque / brake_torque_max, 0, 1), and from ``PathFollower.last`` the lateral error (+ car left
  of the path), heading error (yaw - path heading) and arc length of the foot point.
* The target speed is an input, read at each sample: its time derivative is not known, so the speed
  controller has no acceleration feed-forward (a_t = 0 in the law); its PI part follows speed ramps.
* Parameters: ``driver_file`` (a driver JSON relative to the FMU resources or in its ``drivers/``), the
  tuning parameters (``fmi.driver_parameters.TUNING_FIELDS``, start values read from the default driver file:
  one set to a value other than its start value overrides the driver file, one left at it keeps the file's
  value), the vehicle fields (start values: the shipped full car fullcar14), ``path`` (an Enumeration of the
  shipped paths, ``fmi.driver_parameters.SHIPPED_PATHS``: ``iso3888_1_double_lane_change``, the ISO 3888-1
  centre line for a vehicle of width ``vehicle.width``, ``lane_change_path``, or a CSV file of
  ``resources/paths`` by its stem), ``path_file`` (a user's CSV file of columns x_m, y_m relative to the FMU
  resources or in its ``paths/``; when not empty it replaces ``path``) and ``path.x_offset``/``path.y_offset``
  added to the path's coordinates (heading and curvature unchanged; the built-in path starts at x = -60 m:
  ``path.x_offset`` = 60 m puts its first point at the origin).
* FMU state = ``PathFollower.get_state()`` and the index of the next sample instant: rollback continues
  bit-identically.

Described in docs/handling.md §13.
"""
import math
from pathlib import Path

from fmu_vehicle.driver.path import Path as DriverPath
from fmu_vehicle.driver.path_follower import PathFollower, load_driver_params
from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.driver_parameters import (DEFAULT_DRIVER_FILE, FULLCAR14, LANE_CHANGE, SHIPPED_PATHS, VEHICLE,
                                               tuning_table, vehicle_overrides)
from fmu_vehicle.fmi.messages import short
from fmu_vehicle.fmi.resource_files import ALLOW_PARAMETER, load_file
from fmu_vehicle.fmi.slave_base import SlaveBase
from fmu_vehicle.fmi.start_values import driver_path_start
from fmu_vehicle.fmi.variables import Structure, Var
from fmu_vehicle.manoeuvres.lane_change import lane_change_path

# Start values from the driver file in this FMU's resources folder (where this script sits), read once per
# process: pythonfmu re-executes this module-level code at every instantiation, with the globals of its first
# import, whose folder may be gone by then (docs/fmu_hosts.md).
TUNING = tuning_table(str(Path(__file__).resolve().parent))

SAMPLE_TOLERANCE = 1e-6
"""A step start within this fraction of sample_period before a sample instant samples it."""

_DISPLAY = {"m/s": "km/h", "rad": "deg", "rad/s": "deg/s"}

#: Start values of the chassis inputs and the target speed: on the default path (the ISO 3888-1 centre line
#: for the default width) at its sharpest bend, heading along it, at the standard's entry speed 80 km/h, so
#: that the FMU run alone with its defaults steers to follow the path (``start_values.driver_path_start``).
START = driver_path_start(FULLCAR14["width_m"])

#: Output name -> (unit, description), in modelDescription order.
OUTPUTS = {
    "steering_wheel_angle": ("rad", "steering-wheel angle command (+ steers left): the full vehicle's input"),
    "wheel_torque": ("N.m", "total wheel torque demand over all wheels (+ drive, - brake)"),
    "throttle": ("1", "clip(wheel_torque / drive_torque_max, 0, 1)"),
    "brake": ("1", "clip(-wheel_torque / brake_torque_max, 0, 1)"),
    "lateral_error": ("m", "signed distance of the centre of mass from the path at the last sample (+ left "
                      "of the path)"),
    "heading_error": ("rad", "yaw minus the path heading at the foot point, in [-pi, pi], at the last sample"),
    "path_s": ("m", "arc length of the foot point on the path at the last sample (0 at its first point)"),
}


class Driver(SlaveBase):
    MODEL_NAME = "Driver"
    DESCRIPTION = ("Closed-loop preview driver on a path (ISO 3888-1 double lane change or a CSV path): "
                   "pure-pursuit preview steering with curvature feed-forward and yaw-rate feedback, PI speed "
                   "control to a target speed as a total wheel torque; reads the chassis position, yaw and "
                   "speed, sampled and held at sample_period; ISO 8855 axes, SI units")
    RESOURCES = ("drivers", "paths")
    INTERNAL_STEP = "sample_period"
    VARIABLES = (
        Var("driver_file", "parameter", "fixed", None, "driver parameter JSON (type PathFollower), relative to "
            "the FMU resources or its drivers/ folder (other files need allow_external_files)",
            DEFAULT_DRIVER_FILE, type="String"),
        *(Var(name, "parameter", "fixed", row.unit, f"{row.description} (start: the default driver file; a "
              f"value other than the start overrides driver_file)", row.start, min=row.min, max=row.max,
              display_unit=_DISPLAY.get(row.unit))
          for name, row in TUNING.items()),
        *(Var(name, "parameter", "fixed", unit, f"{desc} (start: fullcar14)", FULLCAR14[key], min=lo, max=hi)
          for name, (key, unit, desc, lo, hi) in VEHICLE.items()),
        Var("path", "parameter", "fixed", None, f"a shipped path: {LANE_CHANGE} (the ISO 3888-1 centre line for "
            "vehicle.width, 60 m straight run-in from x = -60 m and run-out) or a CSV file of resources/paths "
            "(path_file, when set, replaces it)", LANE_CHANGE, type="Enumeration", choices=SHIPPED_PATHS),
        Var("path.x_offset", "parameter", "fixed", "m", "added to the path's x coordinates", 0.0,
            min=-1e7, max=1e7),
        Var("path.y_offset", "parameter", "fixed", "m", "added to the path's y coordinates", 0.0,
            min=-1e7, max=1e7),
        Var("sample_period", "parameter", "fixed", "s", "driver sample period: the command is recomputed at the "
            "first step start at or after each multiple of it and held in between", 0.01, min=1e-4, max=1.0,
            display_unit="ms"),
        Var("drive_torque_max", "parameter", "fixed", "N.m", "wheel torque at throttle = 1 (start: the "
            "Controller FMU's drive force 9 kN at 0.4672 m)", 9000.0 * 0.4672, min=1.0, max=1e6),
        Var("brake_torque_max", "parameter", "fixed", "N.m", "total brake torque at brake = 1 (start: the "
            "Controller FMU's)", 14000.0, min=1.0, max=1e6),
        Var("chassis.x", "input", "continuous", "m", "chassis centre of mass x, global (the full vehicle's "
            "output; start: at the sharpest bend of the default path)", START.x, min=-1e7, max=1e7),
        Var("chassis.y", "input", "continuous", "m", "chassis centre of mass y, global", START.y, min=-1e7, max=1e7),
        Var("chassis.yaw", "input", "continuous", "rad", "yaw angle about global z (+ left)", START.yaw,
            min=-1e6, max=1e6, display_unit="deg"),
        Var("chassis.vx", "input", "continuous", "m/s", "velocity of the centre of mass along the chassis x "
            "axis", START.vx, min=-100.0, max=100.0, display_unit="km/h"),
        Var("target_speed", "input", "continuous", "m/s", "speed the driver holds", START.vx, min=0.0, max=100.0,
            display_unit="km/h"),
        *(Var(name, "output", "discrete", unit, desc, 0.0, display_unit=_DISPLAY.get(unit) if name != "path_s"
              else None) for name, (unit, desc) in OUTPUTS.items()),
        Var(ALLOW_PARAMETER, "parameter", "fixed", None, "allow driver_file and path_file outside the FMU "
            "resources (absolute paths, ..)", False, type="Boolean"),
        # last: the value references of the variables above are those of the FMUs without it
        Var("path_file", "parameter", "fixed", None, "a user's path: a CSV file of columns x_m, y_m relative to the "
            "FMU resources or its paths/ folder, or an absolute path (allow_external_files); empty: the shipped "
            "path", "", type="String"),
    )
    #: Initialization: the first sample at the start time (``PathFollower.command``): the foot point on the path
    #: from the position, the steering from the foot point, the heading and the speed (preview distance), the
    #: wheel torque from the speed and the target speed. Stepping: outputs change only at samples, in doStep.
    STRUCTURE = Structure(initial={
        "steering_wheel_angle": ("chassis.x", "chassis.y", "chassis.yaw", "chassis.vx"),
        **{name: ("chassis.vx", "target_speed") for name in ("wheel_torque", "throttle", "brake")},
        **{name: ("chassis.x", "chassis.y") for name in ("lateral_error", "path_s")},
        "heading_error": ("chassis.x", "chassis.y", "chassis.yaw"),
    })

    def _setup(self):
        v = self.values
        res = Path(self.resources)
        self.follower = PathFollower(self._path(res), self._params(res), v["target_speed"])
        self._sample(self.start_time)

    def _params(self, res: Path):
        v = self.values
        name = v["driver_file"]
        if not name.endswith(".json"):
            raise ModelError(f"parameter 'driver_file' = {short(name)}: a driver file is a .json file")
        vehicle = vehicle_overrides(v)
        params = load_file(name, "driver_file", res, lambda p: load_driver_params(p, **vehicle),
                           search=("drivers",), allow_external=v[ALLOW_PARAMETER])
        changed = {row.field: v[n] / row.factor for n, row in TUNING.items() if v[n] != row.start}
        try:
            return params.with_overrides(**changed)
        except ModelError as exc:
            names = ", ".join(n for n, row in TUNING.items() if row.field in changed)
            raise ModelError(f"parameters {names}: {exc}") from None

    def _path(self, res: Path) -> DriverPath:
        v = self.values
        if v["path_file"].strip():
            path = load_file(v["path_file"], "path_file", res, DriverPath.from_csv, search=("paths",),
                             allow_external=v[ALLOW_PARAMETER])
        elif v["path"] == LANE_CHANGE:
            path = lane_change_path(v["vehicle.width"])
        else:
            path = load_file(f"{v['path']}.csv", "path", res, DriverPath.from_csv, search=("paths",))
        dx, dy = v["path.x_offset"], v["path.y_offset"]
        if dx == 0.0 and dy == 0.0:
            return path
        return DriverPath(path.x + dx, path.y + dy, path.heading, path.curvature, closed=path.closed,
                          name=path.name)

    def _sample(self, t: float) -> None:
        """One driver update at time t from the current inputs; the next sample is the first multiple of
        sample_period after t."""
        v, f = self.values, self.follower
        f.speed = v["target_speed"]
        swa, torque = f.command(t, v["chassis.x"], v["chassis.y"], v["chassis.yaw"], v["chassis.vx"])
        period = v["sample_period"]
        self._k = math.floor((t - self.start_time) / period + SAMPLE_TOLERANCE) + 1
        last = f.last
        self.values.update({
            "steering_wheel_angle": swa, "wheel_torque": torque,
            "throttle": min(max(torque / v["drive_torque_max"], 0.0), 1.0),
            "brake": min(max(-torque / v["brake_torque_max"], 0.0), 1.0),
            "lateral_error": last["lateral_error_m"], "heading_error": last["heading_error_rad"],
            "path_s": last["s_m"],
        })

    def _advance(self, t, h):
        period = self.values["sample_period"]
        if t >= self.start_time + (self._k - SAMPLE_TOLERANCE) * period:
            self._sample(t)

    def _state(self):
        return {"follower": self.follower.get_state(), "next_sample": self._k}

    def _restore(self, state):
        k = state["next_sample"]
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ModelError(f"the state's next sample index {k!r} is not a positive integer")
        self.follower.set_state(state["follower"])
        self._k = k
