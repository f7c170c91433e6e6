"""Powertrain data: read and validate ``resources/powertrain/*.json`` into SI arrays.

Engine speeds and shift speeds are stored in rpm in the file (key suffix ``_rpm``, the way engine maps
are published) and converted to rad/s here; everything downstream is SI.  The torque-converter
capacity factor K = n_pump / sqrt(T_pump) [rpm/sqrt(N m)] becomes the pump torque coefficient
C = 1/K_SI^2 [N m s^2/rad^2]; C falls linearly to 0 between the last tabulated speed ratio and 1
(no torque at equal speeds, K -> infinity).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fmu_vehicle.errors import ModelError
from fmu_vehicle.util import read_json

RPM = math.pi / 30.0  # rad/s per rpm


@dataclass(frozen=True)
class PowertrainData:
    """Engine + torque converter + automatic gearbox + final drive, SI units.

    engine_speed             [rad/s]  breakpoints of the engine maps (ascending, from 0)
    full_load_torque         [N m]    full-throttle torque at engine_speed
    motoring_torque          [N m]    zero-throttle (engine braking) torque, <= 0
    idle_speed               [rad/s]  idle governor set point
    idle_droop               [rad/s]  governor: full fuel at idle_speed - idle_droop
    max_speed                [rad/s]  fuel cut-off starts here ...
    cutoff_band              [rad/s]  ... and is complete at max_speed + cutoff_band
    engine_inertia           [kg m^2] engine + pump inertia
    tc_speed_ratio           [1]      turbine/pump speed ratio breakpoints, last = 1
    tc_torque_ratio          [1]      turbine/pump torque ratio
    tc_coefficient           [N m s^2/rad^2] pump torque = C(SR) * omega_pump^2
    gear_ratios              [1]      gearbox ratios, gear 1 first
    gearbox_efficiency       [1]      torque efficiency of the gearbox
    final_drive_ratio        [1]
    final_drive_efficiency   [1]
    shift_time               [s]      duration of the ratio change
    min_time_between_shifts  [s]      from the start of one shift to the next
    shift_throttle           [1]      throttle breakpoints of the shift schedule
    upshift_speed            [rad/s]  (n_gears-1, n_throttle): output-shaft speed of the g -> g+1 upshift
    downshift_speed          [rad/s]  (n_gears-1, n_throttle): output-shaft speed of the g+1 -> g downshift
    """

    name: str
    engine_speed: np.ndarray
    full_load_torque: np.ndarray
    motoring_torque: np.ndarray
    idle_speed: float
    idle_droop: float
    max_speed: float
    cutoff_band: float
    engine_inertia: float
    tc_speed_ratio: np.ndarray
    tc_torque_ratio: np.ndarray
    tc_coefficient: np.ndarray
    gear_ratios: tuple[float, ...]
    gearbox_efficiency: float
    final_drive_ratio: float
    final_drive_efficiency: float
    shift_time: float
    min_time_between_shifts: float
    shift_throttle: np.ndarray
    upshift_speed: np.ndarray
    downshift_speed: np.ndarray

    @property
    def n_gears(self) -> int:
        return len(self.gear_ratios)


class _Reader:
    """Field access with errors naming the file and the key path."""

    def __init__(self, path: Path, doc: dict):
        self.path, self.doc = path, doc

    def get(self, key: str):
        node = self.doc
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                raise ModelError(f"{self.path}: missing field '{key}'")
            node = node[part]
        return node

    def fail(self, key: str, reason: str):
        raise ModelError(f"{self.path}: field '{key}': {reason}")

    def number(self, key: str, low: float | None = None, high: float | None = None, strict_low=True) -> float:
        value = self.get(key)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            self.fail(key, f"{value!r} is not a finite number")
        if low is not None and (value <= low if strict_low else value < low):
            self.fail(key, f"{value} must be {'>' if strict_low else '>='} {low}")
        if high is not None and value > high:
            self.fail(key, f"{value} must be <= {high}")
        return float(value)

    def array(self, key: str, ndim: int = 1) -> np.ndarray:
        value = self.get(key)
        try:
            arr = np.array(value, dtype=float)
        except (TypeError, ValueError):
            self.fail(key, "must be a list of numbers" if ndim == 1 else "must be a list of lists of numbers")
        if arr.ndim != ndim or arr.size == 0:
            self.fail(key, f"must be a non-empty {ndim}-d list of numbers")
        if not np.all(np.isfinite(arr)):
            self.fail(key, "contains a non-finite value")
        return arr

    def increasing(self, key: str) -> np.ndarray:
        arr = self.array(key)
        if arr.size < 2 or np.any(np.diff(arr) <= 0):
            self.fail(key, "must have >= 2 strictly increasing values")
        return arr


def load_powertrain(path: str | Path) -> PowertrainData:
    """Read and validate a powertrain JSON file (see resources/powertrain/README.md)."""
    path = Path(path)
    doc = read_json(path, "powertrain")
    r = _Reader(path, doc)
    if r.get("type") != "Powertrain":
        r.fail("type", f"expected 'Powertrain', got {r.get('type')!r}")

    speed = r.increasing("engine.speed_rpm")
    if speed[0] != 0.0:
        r.fail("engine.speed_rpm", "must start at 0 rpm")
    full = r.array("engine.full_load_torque_Nm")
    motoring = r.array("engine.motoring_torque_Nm")
    for key, arr in (("engine.full_load_torque_Nm", full), ("engine.motoring_torque_Nm", motoring)):
        if arr.shape != speed.shape:
            r.fail(key, f"has {arr.size} values, engine.speed_rpm has {speed.size}")
    if np.any(full <= 0):
        r.fail("engine.full_load_torque_Nm", "must be > 0")
    if np.any(motoring > 0):
        r.fail("engine.motoring_torque_Nm", "must be <= 0 (engine braking)")
    idle = r.number("engine.idle_speed_rpm", 0.0)
    max_speed = r.number("engine.max_speed_rpm", idle)
    band = r.number("engine.cutoff_band_rpm", 0.0)
    if max_speed + band > speed[-1]:
        r.fail("engine.max_speed_rpm", f"max_speed + cutoff_band = {max_speed + band} rpm exceeds the map "
                                       f"(last speed {speed[-1]} rpm)")

    sr = r.increasing("torque_converter.speed_ratio")
    tr = r.array("torque_converter.torque_ratio")
    k = r.array("torque_converter.capacity_factor_rpm_per_sqrt_Nm")
    for key, arr in (("torque_converter.torque_ratio", tr), ("torque_converter.capacity_factor_rpm_per_sqrt_Nm", k)):
        if arr.shape != sr.shape:
            r.fail(key, f"has {arr.size} values, torque_converter.speed_ratio has {sr.size}")
    if sr[0] != 0.0 or sr[-1] >= 1.0:
        r.fail("torque_converter.speed_ratio", "must start at 0 and end below 1")
    if np.any(tr < 1.0):
        r.fail("torque_converter.torque_ratio", "must be >= 1")
    if np.any(k <= 0):
        r.fail("torque_converter.capacity_factor_rpm_per_sqrt_Nm", "must be > 0")

    ratios = r.array("transmission.gear_ratios")
    if np.any(ratios <= 0) or np.any(np.diff(ratios) >= 0):
        r.fail("transmission.gear_ratios", "must be > 0 and strictly decreasing (gear 1 first)")
    n = ratios.size
    throttle = r.increasing("transmission.shift_schedule.throttle")
    if throttle[0] != 0.0 or throttle[-1] != 1.0:
        r.fail("transmission.shift_schedule.throttle", "must run from 0 to 1")
    up = r.array("transmission.shift_schedule.upshift_output_speed_rpm", ndim=2)
    down = r.array("transmission.shift_schedule.downshift_output_speed_rpm", ndim=2)
    for key, arr in (("transmission.shift_schedule.upshift_output_speed_rpm", up),
                     ("transmission.shift_schedule.downshift_output_speed_rpm", down)):
        if arr.shape != (n - 1, throttle.size):
            r.fail(key, f"must have {n - 1} rows (one per gear change) of {throttle.size} values")
        if np.any(arr <= 0):
            r.fail(key, "must be > 0")
    if np.any(down >= up):
        r.fail("transmission.shift_schedule.downshift_output_speed_rpm",
               "each downshift speed must be below the upshift speed of the same gear pair (hysteresis)")
    if np.any(np.diff(up, axis=0) <= 0):
        r.fail("transmission.shift_schedule.upshift_output_speed_rpm", "must increase from gear to gear")

    shift_time = r.number("transmission.shift_time_s", 0.0)
    min_between = r.number("transmission.min_time_between_shifts_s", 0.0)
    if min_between < shift_time:
        r.fail("transmission.min_time_between_shifts_s", f"{min_between} s must be >= shift_time_s {shift_time} s")
    k_si = k * RPM
    return PowertrainData(
        name=str(doc.get("name", path.stem)),
        engine_speed=speed * RPM, full_load_torque=full, motoring_torque=motoring,
        idle_speed=idle * RPM, idle_droop=r.number("engine.idle_governor_droop_rpm", 0.0) * RPM,
        max_speed=max_speed * RPM, cutoff_band=band * RPM,
        engine_inertia=r.number("engine.inertia_kg_m2", 0.0),
        tc_speed_ratio=np.append(sr, 1.0), tc_torque_ratio=np.append(tr, 1.0),
        tc_coefficient=np.append(1.0 / k_si ** 2, 0.0),
        gear_ratios=tuple(float(x) for x in ratios),
        gearbox_efficiency=r.number("transmission.efficiency", 0.0, 1.0),
        final_drive_ratio=r.number("final_drive.ratio", 0.0),
        final_drive_efficiency=r.number("final_drive.efficiency", 0.0, 1.0),
        shift_time=shift_time, min_time_between_shifts=min_between,
        shift_throttle=throttle, upshift_speed=up * RPM, downshift_speed=down * RPM,
    )
