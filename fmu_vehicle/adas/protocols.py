"""Test protocols of the scenario catalogue: the rules that turn one run's test parameters (SI or the unit in
the parameter's name) into the parameter values of the catalogue's FMU system (an SSP file, see
``fmu_vehicle.adas.systems``), its stop time, the recorded signals and an optional early-stop rule.

Each protocol is ``protocol(system, **parameters) -> (Scenario, on_step or None)``; it edits ``system`` (a
fresh copy per run) and names the components it sets (a system without them is refused, naming the
component).  The Gauss-Seidel order is the system file's component order.  A parameter the protocol does
not take is ignored here (``component.variable`` parameters are set by the sweep, after the protocol).

    ccr       Euro NCAP AEB car-to-car rear (CCRs, CCRm, CCRb): start gap at TTC ``ttc0_s`` (or ``headway_m``),
              target speed profile, the car under test at its test speed; ends at contact or when the car
              under test is down to the target's speed
    acc       ISO 15622 ACC cases: the lead's speed profile, the time gap and set speed, the road
    platoon   the lead's profile, every controller's time gap, every vehicle's road
    ride      an ISO 8608 road file of the class (generated in the worker's folder), the speed
    sine_with_dwell   UN R140 / FMVSS 126: the robot's sine with dwell of ``amplitude_A`` x A in ``direction``,
              entered at 80 km/h coasting (system ``chassis``)
    braking   straight-line or split-mu braking by the robot's pedal from ``speed_kmh`` (system ``chassis``)
    launch    a launch from rest with the robot's drive-torque demand (system ``chassis``)
    steering_impulse  ISO 9815: a triangular steering-wheel pulse at ``speed_kmh``, the speed held against rolling
              resistance (system ``combination``: a car towing a trailer)
"""
from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Callable

from fmu_vehicle.scenarios.half_car import FRONT_OVERHANG_M, Scenario, dimension
from fmu_vehicle.cosim.system import System
from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.roads import road_parameters
from fmu_vehicle.traffic.lead_vehicle import lead_profile_parameters
from fmu_vehicle.util import atomic_write

KMH = 1.0 / 3.6
"""m/s per km/h."""


def _profile(points) -> str:
    return ",".join(f"{t:.6g}:{v:.9g}" for t, v in points)


def set_parameters(system: System, component: str, **values) -> None:
    """Set parameters of one component of ``system``; ModelError if the system has no such component."""
    try:
        comp = system.component(component)
    except ModelError:
        raise ModelError(f"system '{system.name}' has no component '{component}' (the protocol sets "
                         f"{', '.join(f'{component}.{k}' for k in values)})") from None
    comp.parameters.update(values)


def _set_lead_profile(system: System, profile: str) -> None:
    """Drive the lead with speed profile ``profile`` ('t:v,...' [s:m/s]): a shipped profile through the
    ``speed_profile`` enumeration, any other as ``speed_profile_points`` (``lead_profile_parameters``); the
    other of the two bindings is removed, so a profile set earlier does not stay in force."""
    chosen = lead_profile_parameters(profile)
    set_parameters(system, "lead", **chosen)
    system.component("lead").parameters.pop("speed_profile_points" if "speed_profile" in chosen else "speed_profile",
                                            None)


def _set_road(system: System, component: str, road) -> None:
    """Give ``component`` the road ``road``: a shipped road name through the ``road`` enumeration, a file as
    ``road_file`` (``fmi.roads.road_parameters``); the other of the two bindings is removed."""
    chosen = road_parameters(road)
    set_parameters(system, component, **chosen)
    system.component(component).parameters.pop("road_file" if "road" in chosen else "road", None)


def _order(system: System) -> tuple[str, ...]:
    return tuple(c.name for c in system.components)


def ccr(system: System, *, v_vut_kmh: float, v_target_kmh: float = 0.0, target_decel_m_per_s2: float = 0.0,
        headway_m: float | None = None, ttc0_s: float = 4.0, target_brake_at_s: float = 1.0,
        drive_torque_nm: float | None = None, duration_s: float | None = None,
        **_ignored) -> tuple[Scenario, Callable]:
    """Euro NCAP car-to-car rear at 100 % overlap.

    Start gap: ``headway_m`` if given (CCRb), else the gap at time-to-collision ``ttc0_s`` for the speed
    difference (CCRs/CCRm).  A braking target (``target_decel_m_per_s2`` > 0) keeps its speed until
    ``target_brake_at_s`` and then brakes to a stop.  The run ends when the ego's speed falls to the target's
    (the protocol's end of test) after 0.5 s, on contact, or at ``duration_s`` (default: long enough for a
    stop at 4 m/s^2 after the approach).  ``drive_torque_nm`` replaces the system's driver torque.
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
    system.stop_time = float(duration_s if duration_s is not None else math.ceil(approach + v / 4.0 + 1.0))
    ego_x0 = 0.0
    _set_lead_profile(system, profile)
    set_parameters(system, "lead", x0=ego_x0 + FRONT_OVERHANG_M + gap0)
    set_parameters(system, "vehicle", v0=v, x0=ego_x0)
    if drive_torque_nm is not None:
        set_parameters(system, "vehicle", **{"wheel_front.torque_drive": float(drive_torque_nm)})
    outputs = ("lead.x", "lead.vx", "vehicle.chassis.x", "vehicle.chassis.vx", "vehicle.chassis.ax",
               "controller.brake", "controller.aeb_active", "controller.ttc")

    def on_step(t, row):
        gap = row["lead.x"] - row["vehicle.chassis.x"] - dimension("FRONT_BUMPER_FROM_COM_M")
        return not (gap <= 0.0 or (t > 0.5 and row["vehicle.chassis.vx"] <= row["lead.vx"] + 1e-3))

    title = f"CCR: ego {v_vut_kmh:g} km/h, target {v_target_kmh:g} km/h"
    return Scenario(system, title, order=_order(system), outputs=outputs, output_interval=0.01), on_step


def acc(system: System, *, lead_profile: str, time_gap_s: float | None = None, duration_s: float | None = None,
        road: str | None = None, set_speed_m_per_s: float | None = None, **_ignored) -> tuple[Scenario, None]:
    """ISO 15622 ACC case: the ego behind a lead driving ``lead_profile`` ('t:v,...' [s:m/s]); the time gap
    [s], set speed [m/s], road and duration [s] replace the system's when given."""
    _set_lead_profile(system, lead_profile)
    if time_gap_s is not None:
        set_parameters(system, "controller", **{"acc.time_gap": float(time_gap_s)})
    if set_speed_m_per_s is not None:
        set_parameters(system, "controller", **{"acc.set_speed": float(set_speed_m_per_s)})
    if road is not None:
        _set_road(system, "vehicle", road)
    if duration_s is not None:
        system.stop_time = float(duration_s)
    outputs = ("lead.x", "lead.vx", "vehicle.chassis.x", "vehicle.chassis.vx", "vehicle.chassis.ax",
               "controller.accel_command", "controller.brake", "controller.throttle", "controller.aeb_active",
               "controller.held")
    title = f"ACC behind '{lead_profile}'" + (f", time gap {time_gap_s:g} s" if time_gap_s is not None else "")
    return Scenario(system, title, order=_order(system), outputs=outputs, output_interval=0.01), None


def platoon_cars(system: System) -> list[str]:
    """The platoon's vehicles front to back: components ``vehicle_1``, ``vehicle_2``, ... of ``system``."""
    names = {c.name for c in system.components}
    cars = []
    while f"vehicle_{len(cars) + 1}" in names:
        cars.append(f"vehicle_{len(cars) + 1}")
    if not cars:
        raise ModelError(f"system '{system.name}' has no component 'vehicle_1' (a platoon's vehicles are "
                         f"vehicle_1, vehicle_2, ...)")
    return cars


def platoon(system: System, *, lead_profile: str, time_gap_s: float | None = None, duration_s: float | None = None,
            road: str | None = None, **_ignored) -> tuple[Scenario, None]:
    """Vehicles ``vehicle_k`` with controllers ``controller_k`` behind ``lead``: the lead's profile, every
    controller's time gap [s] and every vehicle's road replace the system's when given."""
    cars = platoon_cars(system)
    _set_lead_profile(system, lead_profile)
    for k, car in enumerate(cars, 1):
        if time_gap_s is not None:
            set_parameters(system, f"controller_{k}", **{"acc.time_gap": float(time_gap_s)})
        if road is not None:
            _set_road(system, car, road)
    if duration_s is not None:
        system.stop_time = float(duration_s)
    outputs = ("lead.x", "lead.vx") + tuple(f"{car}.chassis.{q}" for car in cars for q in ("x", "vx"))
    return Scenario(system, f"platoon of {len(cars)} behind '{lead_profile}'", order=_order(system),
                    outputs=outputs, output_interval=0.01), None


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


def ride(system: System, *, road_class: str, speed_kmh: float, duration_s: float | None = None, seed: int = 1,
         drive_torque_nm: float | None = None, work_dir: Path, **_ignored) -> tuple[Scenario, None]:
    """The vehicle at ``speed_kmh`` on an ISO 8608 road of ``road_class`` (file in ``work_dir``), 1 kHz record."""
    _set_road(system, "vehicle", road_file(road_class, seed, work_dir))
    set_parameters(system, "vehicle", v0=float(speed_kmh) * KMH)
    if drive_torque_nm is not None:
        set_parameters(system, "vehicle", **{"wheel_front.torque_drive": float(drive_torque_nm)})
    if duration_s is not None:
        system.stop_time = float(duration_s)
    outputs = ("vehicle.chassis.x", "vehicle.chassis.vx", "vehicle.chassis.ax", "vehicle.chassis.az",
               "vehicle.chassis.pitch")
    return Scenario(system, f"ride: ISO 8608 class {road_class} at {speed_kmh:g} km/h", order=_order(system),
                    outputs=outputs, output_interval=1e-3), None


def _table(points, scale: float = 1.0) -> str:
    """A Robot table 'time:value,...' from (time [s], value) pairs, values times ``scale``."""
    return ",".join(f"{t:.9g}:{v * scale:.12g}" for t, v in points)


def _chassis_outputs(extra=()) -> tuple[str, ...]:
    wheels = ("FL", "FR", "RL", "RR")
    return (("robot.steering_wheel_angle", "robot.pedal_force", "robot.drive_torque")
            + tuple(f"vehicle.chassis.{q}" for q in ("x", "y", "yaw", "vx", "ay", "ax", "yaw_rate"))
            + tuple(f"vehicle.wheel_{w}.{q}" for w in wheels for q in ("omega", "slip"))
            + tuple(f"chassis_control.brakes.pressure_{w}" for w in wheels)
            + tuple(f"chassis_control.abs.phase_{w}" for w in wheels)
            + ("chassis_control.esc.active", "chassis_control.tcs.active", "chassis_control.abs.active") + tuple(extra))


@functools.lru_cache(maxsize=None)
def chassis_control_parameters(model: str) -> dict:
    """The ChassisControl FMU's brake and vehicle parameter values (``fmi.chassis_parameters.fmu_parameters``)
    of vehicle file ``model`` and its brake file ``resources/brakes/<model>.json``, computed from the data files
    (``closed_loop.controlled_vehicle``: a static equilibrium, so once per process): what a system sets on the
    ChassisControl FMU to run with that car. Here, not in the FMU's own modules: it needs the vehicle model."""
    from fmu_vehicle.control.closed_loop import controlled_vehicle
    from fmu_vehicle.control.hydraulics import load_brake_system
    from fmu_vehicle.fmi.chassis_parameters import fmu_parameters
    from fmu_vehicle.vehicle import Vehicle
    car = Vehicle.load(model)
    brakes = load_brake_system(model, car.wheel_names)
    return fmu_parameters(controlled_vehicle(car, brakes), brakes)


def _set_vehicle(system: System, vehicle: str | None) -> None:
    """Run the chassis system with vehicle file ``vehicle`` (None: the system's own car): the vehicle
    component's ``model`` and the chassis_control component's vehicle constants and brake data, computed from
    that car's files (:func:`chassis_control_parameters`)."""
    if vehicle is None:
        return
    set_parameters(system, "vehicle", model=str(vehicle))
    set_parameters(system, "chassis_control", **chassis_control_parameters(str(vehicle)))


def sine_with_dwell(system: System, *, amplitude_A, direction: int, A_deg: float, speed_kmh: float = 80.0,
                    vehicle: str | None = None, **_ignored) -> tuple[Scenario, None]:
    """UN R140 Annex 3 / FMVSS 126 sine with dwell (``manoeuvres.sine_with_dwell``): the robot steers the SWD of
    amplitude ``amplitude_A`` x ``A_deg`` [deg] (``"final"``: the series' last amplitude, max(6.5 A, 270 deg) up to
    300 deg) in ``direction`` (+1 counter-clockwise: left first; -1 clockwise), entered at ``speed_kmh``
    coasting; the run lasts until 2 s after the completion of steer. Recorded at 1 kHz. ``vehicle``: another
    vehicle file than the system's (``_set_vehicle``; A_deg must then be that car's)."""
    from fmu_vehicle.manoeuvres import sine_with_dwell as swd
    A = math.radians(float(A_deg))
    if not A > 0:
        raise ModelError(f"sine_with_dwell: A_deg must be > 0, got {A_deg!r}")
    amp = swd.amplitude_series(A)[-1][1] if amplitude_A == "final" else float(amplitude_A) * A
    profile = swd.sine_with_dwell_profile(amp, direction=int(direction))
    set_parameters(system, "robot", steering_profile=_table(zip(profile.breakpoints, profile.angles),
                                                            180.0 / math.pi),
                   pedal_force_profile="0:0", drive_torque_profile="0:0")
    set_parameters(system, "vehicle", v0=float(speed_kmh) * KMH)
    _set_vehicle(system, vehicle)
    system.stop_time = round(swd.STEER_START_S + swd.steer_duration_s() + swd.SETTLE_AFTER_S, 3)
    title = f"sine with dwell {math.degrees(amp):.1f} deg ({amp / A:.2f} A), {swd.DIRECTIONS[int(direction)]}"
    return Scenario(system, title, order=_order(system), outputs=_chassis_outputs(), output_interval=1e-3), None


def braking(system: System, *, speed_kmh: float = 100.0, road: str = "flat", pedal_force_N: float = 600.0,
            brake_at_s: float = 0.2, pedal_rise_s: float = 0.05, duration_s: float = 8.0,
            steering_profile: str = "0:0", vehicle: str | None = None, **_ignored) -> tuple[Scenario, Callable]:
    """Straight-line braking (ISO 14512 on ``road`` = ``split_mu``): the robot presses the pedal to
    ``pedal_force_N`` from ``brake_at_s`` over ``pedal_rise_s`` with the car at ``speed_kmh`` on ``road``
    (``steering_profile`` 'time_s:angle_deg,...': a steering input during the stop; ``vehicle``: another
    vehicle file, ``_set_vehicle``); ends at standstill."""
    t0, f = float(brake_at_s), float(pedal_force_N)
    set_parameters(system, "robot", steering_profile=str(steering_profile), drive_torque_profile="0:0",
                   pedal_force_profile=_table([(0.0, 0.0), (t0, 0.0), (t0 + float(pedal_rise_s), f)]))
    set_parameters(system, "vehicle", v0=float(speed_kmh) * KMH)
    _set_road(system, "vehicle", road)
    _set_vehicle(system, vehicle)
    system.stop_time = float(duration_s)

    def on_step(t, row):
        return not (t > t0 + 0.5 and row["vehicle.chassis.vx"] < 0.05)

    title = f"braking from {speed_kmh:g} km/h on {road}, pedal {f:g} N"
    return Scenario(system, title, order=_order(system), outputs=_chassis_outputs(), output_interval=1e-3), on_step


def launch(system: System, *, road: str = "split_mu", drive_torque_Nm: float = 3000.0, rise_s: float = 0.2,
           duration_s: float = 4.0, vehicle: str | None = None, **_ignored) -> tuple[Scenario, None]:
    """A launch from rest on ``road``: the robot's drive-torque demand (total over the driven wheels) rises to
    ``drive_torque_Nm`` over ``rise_s`` and is held, the steering wheel straight (``vehicle``: another vehicle
    file, ``_set_vehicle``)."""
    set_parameters(system, "robot", steering_profile="0:0", pedal_force_profile="0:0",
                   drive_torque_profile=_table([(0.0, 0.0), (float(rise_s), float(drive_torque_Nm))]))
    set_parameters(system, "vehicle", v0=0.0)
    _set_road(system, "vehicle", road)
    _set_vehicle(system, vehicle)
    system.stop_time = float(duration_s)
    title = f"launch on {road}, drive torque {drive_torque_Nm:g} N m"
    return Scenario(system, title, order=_order(system), outputs=_chassis_outputs(), output_interval=1e-3), None


def steering_impulse(system: System, *, speed_kmh: float = 100.0, amplitude_deg: float | None = None,
                     pulse_s: float | None = None, decay_s: float | None = None, vehicle: str = "sedan_caravan",
                     **_ignored) -> tuple[Scenario, None]:
    """ISO 9815 steering impulse of a combination (``manoeuvres.combination.steering_pulse``: the triangular
    steering-wheel pulse of ``amplitude_deg`` and ``pulse_s``, default 20 deg and 0.25 s, from 0.5 s), the
    vehicle at ``speed_kmh`` from the start and its driven wheels' torque the rolling-resistance torque of the
    whole combination (``manoeuvres.runs.rolling_resistance_drive`` of ``vehicle``, the combination the vehicle
    component runs, per wheel); the run lasts ``decay_s`` (default 6 s) after the pulse for the articulation
    angle's decay."""
    from fmu_vehicle.manoeuvres import combination as cm
    from fmu_vehicle.manoeuvres.runs import rolling_resistance_drive
    from fmu_vehicle.vehicle import Vehicle

    pulse = cm.steering_pulse(cm.PULSE_AMPLITUDE_RAD if amplitude_deg is None else math.radians(float(amplitude_deg)),
                              duration_s=impulse_duration_s(pulse_s))
    torques = set(rolling_resistance_drive(Vehicle.load(str(vehicle))).values())
    if len(torques) != 1:
        raise ModelError(f"steering_impulse: vehicle '{vehicle}' has unequal driven wheels' torques {sorted(torques)}")
    points = list(zip(pulse.breakpoints, (math.degrees(pulse.angle(t)) for t in pulse.breakpoints)))
    set_parameters(system, "robot", steering_profile=_profile(points), pedal_force_profile="0:0",
                   drive_torque_profile=_profile([(0.0, torques.pop())]))
    set_parameters(system, "vehicle", v0=float(speed_kmh) * KMH, model=str(vehicle))
    t_end = float(pulse.breakpoints[-1])
    system.stop_time = t_end + (cm.DECAY_S if decay_s is None else float(decay_s))
    title = f"steering impulse at {speed_kmh:g} km/h"
    outputs = ("robot.steering_wheel_angle",) + tuple(f"vehicle.chassis.{q}" for q in ("x", "y", "yaw", "vx", "ay",
                                                                                        "yaw_rate"))
    return Scenario(system, title, order=_order(system), outputs=outputs + ARTICULATION_OUTPUTS,
                    output_interval=1e-2), None


def impulse_duration_s(pulse_s=None) -> float:
    """The steering pulse's duration [s]: ``pulse_s`` or the default ``manoeuvres.combination.PULSE_DURATION_S``."""
    from fmu_vehicle.manoeuvres.combination import PULSE_DURATION_S
    return PULSE_DURATION_S if pulse_s is None else float(pulse_s)


ARTICULATION_OUTPUTS = ("vehicle.caravan.articulation", "vehicle.caravan.yaw_rate", "vehicle.caravan.ay")
"""The towed unit's outputs the steering impulse records (system ``combination``: ``sedan_caravan``'s caravan)."""


PROTOCOLS = {"ccr": ccr, "acc": acc, "platoon": platoon, "ride": ride, "sine_with_dwell": sine_with_dwell,
             "braking": braking, "launch": launch, "steering_impulse": steering_impulse}
"""Catalogue ``protocol`` name -> protocol(system, **parameters) -> (Scenario, on_step or None)."""
