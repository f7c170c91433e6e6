"""Co-simulation systems of the scenario catalogue, built from the example systems' pieces
(``fmu_vehicle.cosim.scenarios``): each builder takes the FMU paths and the run's parameters (SI or the
unit in the parameter's name) and returns a :class:`~fmu_vehicle.cosim.scenarios.Scenario` plus an optional
``on_step`` early-stop rule.

    ccr            Euro NCAP AEB car-to-car rear (CCRs, CCRm, CCRb): LeadVehicle target, Controller in mode
                   "aeb" (the driver holds the speed, only the AEB acts), VehicleLV with internal tires on the
                   flat road starting at the test speed.  The driver's constant drive torque makes up for the
                   half car's coast-down (0.085 m/s^2 on the flat road at 10-50 km/h, rolling resistance), so
                   the speed stays within Euro NCAP's 1 km/h tolerance over the approach.
    acc            ISO 15622 ACC cases: LeadVehicle, Controller (acc_aeb), Powertrain, VehicleLV (internal
                   tires), both cars from rest (the powertrain must start in first gear, see cosim.scenarios).
    platoon        n vehicles behind a lead (``cosim.scenarios.platoon``) with the controllers' time gap set.
    ride           VehicleLV alone at constant speed on an ISO 8608 random road of class A-D.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Callable

from fmu_vehicle.cosim.scenarios import (CONTROLLER, FRONT_OVERHANG_M, LEAD_START_X_M, Scenario, _fmu, _vehicle,
                                         follow_connections, platoon, powertrain_connections)
from fmu_vehicle.cosim.system import Component, Connection, System
from fmu_vehicle.errors import ModelError
from fmu_vehicle.util import atomic_write

KMH = 1.0 / 3.6
"""m/s per km/h."""
CCR_DRIVE_TORQUE_NM = 50.0
"""Default driver drive torque on the front wheel [N m] in the CCR tests: the half car's coast-down of
0.085 m/s^2 (measured on the flat road from 10 and 50 km/h) times its mass 1243 kg and wheel radius 0.4672 m."""


def _profile(points) -> str:
    return ",".join(f"{t:.6g}:{v:.9g}" for t, v in points)


def ccr(fmus: dict, *, v_vut_kmh: float, v_target_kmh: float = 0.0, target_decel_m_per_s2: float = 0.0,
        headway_m: float | None = None, ttc0_s: float = 4.0, target_brake_at_s: float = 1.0,
        drive_torque_nm: float = CCR_DRIVE_TORQUE_NM, duration_s: float | None = None,
        ttc_on_s: float | None = None, **_ignored) -> tuple[Scenario, Callable]:
    """Euro NCAP car-to-car rear at 100 % overlap.

    Start gap: ``headway_m`` if given (CCRb), else the gap at time-to-collision ``ttc0_s`` for the speed
    difference (CCRs/CCRm).  A braking target (``target_decel_m_per_s2`` > 0) keeps its speed until
    ``target_brake_at_s`` and then brakes to a stop.  The run ends when the ego's speed falls to the target's
    (the protocol's end of test) after 0.5 s, on contact, or at ``duration_s`` (default: long enough for a
    stop at 4 m/s^2 after the approach).
    """
    v, vt = float(v_vut_kmh) * KMH, float(v_target_kmh) * KMH
    if not v > 0:
        raise ModelError(f"ccr: v_vut_kmh must be > 0, got {v_vut_kmh!r}")
    if headway_m is None:
        if not v > vt:
            raise ModelError(f"ccr: v_vut_kmh ({v_vut_kmh}) must exceed v_target_kmh ({v_target_kmh}) "
                             f"without headway_m")
        gap0 = (v - vt) * float(ttc0_s)
    else:
        gap0 = float(headway_m)
    if target_decel_m_per_s2 > 0:
        t_stop = target_brake_at_s + vt / target_decel_m_per_s2
        profile = _profile([(0.0, vt), (target_brake_at_s, vt), (t_stop, 0.0), (t_stop + 100.0, 0.0)])
        approach = t_stop
    else:
        profile = _profile([(0.0, vt), (1000.0, vt)])
        approach = gap0 / max(v - vt, 0.1)
    if duration_s is None:
        duration_s = math.ceil(approach + v / 4.0 + 1.0)
    ego_x0 = 0.0
    lead_x0 = ego_x0 + FRONT_OVERHANG_M + gap0
    ctl = {**CONTROLLER, "mode": "aeb"}
    if ttc_on_s is not None:
        ctl["aeb.ttc_on"] = float(ttc_on_s)
    comps = [Component("lead", _fmu(fmus, "LeadVehicle"), {"speed_profile": profile, "x0": lead_x0}),
             Component("controller", _fmu(fmus, "Controller"), ctl, step_size=0.01),
             _vehicle("vehicle", fmus, road="flat", v0=v, x0=ego_x0,
                      **{"wheel_front.torque_drive": float(drive_torque_nm)})]
    cons = follow_connections("lead", "controller", leader_is_vehicle=False)
    cons += [Connection("controller", "brake_torque_front", "vehicle", "wheel_front.torque_brake"),
             Connection("controller", "brake_torque_rear", "vehicle", "wheel_rear.torque_brake"),
             Connection("vehicle", "chassis.x", "controller", "ego.x"),
             Connection("vehicle", "chassis.vx", "controller", "ego.vx"),
             Connection("vehicle", "chassis.ax", "controller", "ego.ax")]
    system = System("ccr", comps, cons, stop_time=float(duration_s), step_size=1e-3)
    outputs = ("lead.x", "lead.vx", "vehicle.chassis.x", "vehicle.chassis.vx", "vehicle.chassis.ax",
               "controller.brake", "controller.aeb_active", "controller.ttc")

    def on_step(t, row):
        gap = row["lead.x"] - row["vehicle.chassis.x"] - FRONT_OVERHANG_M
        return not (gap <= 0.0 or (t > 0.5 and row["vehicle.chassis.vx"] <= row["lead.vx"] + 1e-3))

    title = f"CCR: ego {v_vut_kmh:g} km/h, target {v_target_kmh:g} km/h"
    return Scenario(system, title, order=("lead", "controller", "vehicle"), outputs=outputs,
                    output_interval=0.01), on_step


def acc(fmus: dict, *, lead_profile: str, time_gap_s: float = 1.8, duration_s: float = 25.0, road: str = "flat",
        set_speed_m_per_s: float = 25.0, **_ignored) -> tuple[Scenario, None]:
    """ISO 15622 ACC case: the ego (ACC + AEB, powertrain, internal tires) behind a lead driving
    ``lead_profile`` ('t:v,...' [s:m/s]), both from rest, the lead 50 m ahead."""
    comps = [Component("lead", _fmu(fmus, "LeadVehicle"), {"speed_profile": str(lead_profile), "x0": LEAD_START_X_M}),
             Component("controller", _fmu(fmus, "Controller"),
                       {**CONTROLLER, "acc.time_gap": float(time_gap_s), "acc.set_speed": float(set_speed_m_per_s),
                        "mode": "acc_aeb"}, step_size=0.01),
             Component("powertrain", _fmu(fmus, "Powertrain"), {}),
             _vehicle("vehicle", fmus, road=road, v0=0.0)]
    cons = follow_connections("lead", "controller", leader_is_vehicle=False)
    cons += powertrain_connections("vehicle", "powertrain", "controller")
    system = System("acc", comps, cons, stop_time=float(duration_s), step_size=1e-3)
    outputs = ("lead.x", "lead.vx", "vehicle.chassis.x", "vehicle.chassis.vx", "vehicle.chassis.ax",
               "controller.accel_command", "controller.brake", "controller.throttle", "controller.aeb_active",
               "controller.held")
    return Scenario(system, f"ACC behind '{lead_profile}', time gap {time_gap_s:g} s",
                    order=("lead", "controller", "powertrain", "vehicle"), outputs=outputs,
                    output_interval=0.01), None


def platoon_system(fmus: dict, *, n: int = 3, lead_profile: str, time_gap_s: float = 1.8,
                   duration_s: float = 20.0, road: str = "flat", **_ignored) -> tuple[Scenario, None]:
    """Platoon of ``n`` ACC vehicles behind a lead (see ``cosim.scenarios.platoon``), time gap set on all."""
    scenario = platoon(fmus, n=int(n), duration=float(duration_s), lead_profile=str(lead_profile), road=road)
    for comp in scenario.system.components:
        if comp.name.startswith("controller_"):
            comp.parameters["acc.time_gap"] = float(time_gap_s)
    return scenario, None


def road_file(road_class: str, seed: int, folder: Path) -> Path:
    """An ISO 8608 road file (1 km, 5 cm grid) of the class in ``folder`` (written once, same content per
    class and seed); absolute (the vehicle component then needs ``allow_external_files``)."""
    cls = str(road_class).upper()
    if cls not in "ABCDEFGH" or len(cls) != 1:
        raise ModelError(f"ride: road_class must be one of A-H, got {road_class!r}")
    path = Path(folder) / f"iso8608_{cls.lower()}_seed{int(seed)}.json"
    if not path.exists():
        spec = {"type": "iso8608", "description": f"ISO 8608 class {cls} random road, 1 km, seed {int(seed)}",
                "road_class": cls, "seed": int(seed), "length_m": 1000.0, "dx_m": 0.05,
                "waveband_cycles_per_m": [0.011, 2.83], "mu": 1.0}
        atomic_write(path, lambda stream: stream.write(json.dumps(spec, indent=2)))
    return path.resolve()


def ride(fmus: dict, *, road_class: str, speed_kmh: float, duration_s: float = 8.0, seed: int = 1,
         drive_torque_nm: float = CCR_DRIVE_TORQUE_NM, work_dir: Path, **_ignored) -> tuple[Scenario, None]:
    """VehicleLV (internal tires) at ``speed_kmh`` on an ISO 8608 road of ``road_class``, recorded at 1 kHz."""
    road = road_file(road_class, seed, work_dir)
    comp = _vehicle("vehicle", fmus, road=str(road), allow_external_files=True, v0=float(speed_kmh) * KMH,
                    **{"wheel_front.torque_drive": float(drive_torque_nm)})   # the generated road is outside the FMU
    system = System("ride", [comp], [], stop_time=float(duration_s), step_size=1e-3)
    outputs = ("vehicle.chassis.x", "vehicle.chassis.vx", "vehicle.chassis.ax", "vehicle.chassis.az",
               "vehicle.chassis.pitch")
    return Scenario(system, f"ride: ISO 8608 class {road_class} at {speed_kmh:g} km/h", order=("vehicle",),
                    outputs=outputs, output_interval=1e-3), None


BUILDERS = {"ccr": ccr, "acc": acc, "platoon": platoon_system, "ride": ride}
"""Catalogue ``system`` name -> builder(fmus, **parameters) -> (Scenario, on_step or None)."""
