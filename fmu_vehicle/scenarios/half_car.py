"""The example co-simulation systems: VehicleLV with Tire, Powertrain, Controller and LeadVehicle FMUs.

Each builder returns a :class:`Scenario` (the SSP system as Python data, the coupling scheme and its
Gauss-Seidel order, recorded variables, derived signals, plot layout); :func:`run_scenario` writes it as an
``.ssp`` archive (``write_ssp``), reads that back (``read_ssp``) and runs it with ``run_system``.

    bumpy_road        the paper's manoeuvre (20 m/s, 300 N m on the front wheel, 5 s); internal tires, or
                      two Tire FMUs
    acc_stop_and_go   ACC + AEB controller, automatic powertrain, two Tire FMUs; a lead vehicle pulls away,
                      cruises and brakes hard; bumps on the way
    slope_cruise      cruise control up the paper's 16.5 deg slope
    platoon           three vehicles behind a lead vehicle, each controller following the vehicle ahead

Wiring (in the spirit of Project Chrono's vehicle FMU demos), units SI, axes ISO 8855::

    vehicle wheel_<w>.{x,z,vx,vz,omega}   -> tire_<w> wheel.{x,z,vx,vz,omega}          (global wheel state)
    tire_<w> wheel_load.{force_x,force_z,moment_y}
                                          -> vehicle wheel_<w>.tire_{force_x,force_z,moment_y} (at the centre)
    vehicle wheel_front.omega             -> powertrain wheel_left.omega, wheel_right.omega
    powertrain wheel_left.torque_drive    -> vehicle wheel_front.torque_drive
    controller throttle                   -> powertrain throttle
    controller brake_torque_front/_rear   -> vehicle wheel_front/_rear.torque_brake
    vehicle chassis.x, chassis.vx, .ax    -> controller ego.x, ego.vx, ego.ax
    lead x, vx                            -> controller lead.x, lead.vx

The half car is the left half of a symmetric car: its one front wheel stands for the driven axle, so the
powertrain sees that wheel's speed on both sides of its open differential and the car gets the left
half-shaft torque; per-wheel brake torques apply as they are.  The controller works with the whole car's
mass (``CONTROLLER``), so its force and brake commands split the same way.

Positions (one global x, the road's): ``chassis.x`` is the x of the vehicle's centre of mass (the design front
wheel centre is at x = 0 of the vehicle file, ``x0`` moves the whole car along the road, so the CoM starts at
``x0 + COM_X_M``).  LeadVehicle ``x`` is the lead's rear bumper.  The bumper gap is
``lead.x - chassis.x - FRONT_BUMPER_FROM_COM_M`` (controller ``acc.gap_offset``); a follower's ``lead.x`` is
the vehicle ahead's rear bumper, ``chassis.x - REAR_BUMPER_FROM_COM_M`` (an SSP linear transformation).

Gauss-Seidel order: upstream components first, the vehicle last (lead, controller, powertrain, tires,
vehicle).  The tires and the powertrain then step over [t, t+h] from the vehicle state at t, and the vehicle
takes the same step with their fresh loads: the Tire FMU's midpoint loads make that coupling second order.

Initialization: in initialization mode the FMUs of this package build their model from the parameters
and inputs set so far whenever a master reads an output, so what the master propagates are initial outputs
(the vehicle at v0, the tires' static loads), not start values.  The scenarios with a powertrain and a
controller nevertheless start at standstill: the powertrain picks first gear at idle and the controller's
speed-difference estimates start from zero.  The paper manoeuvre has no powertrain and starts at 20 m/s.

See docs/cosimulation.md.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from fmu_vehicle.cosim.master import run_system
from fmu_vehicle.cosim.ssp import read_ssp, write_ssp
from fmu_vehicle.cosim.system import Component, Connection, Experiment, System
from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.roads import road_parameters
from fmu_vehicle.plotting import Panel
from fmu_vehicle.results import Result
from fmu_vehicle.tire.models import host, params, unloaded_radius
from fmu_vehicle.traffic.lead_vehicle import DEFAULT_X0_M, SPEED_PROFILES, lead_profile_parameters
from fmu_vehicle.util import fixed
from fmu_vehicle.vehicle.loader import load_vehicle_spec

#: FMUs the scenarios use (registry names = file stems in the FMU folder).
FMU_NAMES = ("VehicleLV", "Tire", "Powertrain", "Controller", "LeadVehicle")
WHEELS = ("front", "rear")
VEHICLE = "halfcar7"
"""The vehicle file every VehicleLV of the scenarios loads (resources/vehicles/halfcar7.json)."""

FRONT_OVERHANG_M = 0.9
"""Front axle to front bumper [m]; the paper gives no body, this is a typical sedan value."""
REAR_OVERHANG_M = 1.0
"""Rear axle to rear bumper [m] (typical sedan value, see FRONT_OVERHANG_M)."""

DIMENSIONS = {
    "WHEELBASE_M": "Front to rear wheel centre of VEHICLE [m], from its vehicle file.",
    "HALF_CAR_MASS_KG": "Total mass of VEHICLE [kg], from its vehicle file: the left half of the car.",
    "WHEEL_RADIUS_M": "Free radius of VEHICLE's front tire [m], from its tire property file.",
    "COM_X_M": "Design x of VEHICLE's chassis centre of mass in its vehicle file [m] (the point ``chassis.x`` gives).",
    "FRONT_BUMPER_FROM_COM_M": "Chassis centre of mass to front bumper along x [m]: front bumper x = chassis.x + this.",
    "REAR_BUMPER_FROM_COM_M": "Chassis centre of mass to rear bumper along x [m]: rear bumper x = chassis.x - this.",
    "CONTROLLER": "Controller parameters for the whole car the half car stands for (others: the Controller defaults).",
}
"""The module's constants computed from VEHICLE's files, read at their first use (importing the module reads no
file): ``half_car.WHEELBASE_M`` etc., and :func:`dimension` inside the module."""


@functools.cache
def _dimensions() -> dict:
    spec = load_vehicle_spec(VEHICLE)
    front, rear = (spec.wheel(w) for w in WHEELS)
    com_x = next(b.com_m[0] for b in spec.mechanism.bodies if b.name == spec.chassis_body)
    d = {"WHEELBASE_M": front.center_m[0] - rear.center_m[0],
         "HALF_CAR_MASS_KG": spec.total_mass_kg,
         "WHEEL_RADIUS_M": float(host(unloaded_radius)(params(spec.tires[spec.wheels.index(front)]))),
         "COM_X_M": com_x,
         "FRONT_BUMPER_FROM_COM_M": front.center_m[0] - com_x + FRONT_OVERHANG_M,
         "REAR_BUMPER_FROM_COM_M": com_x - rear.center_m[0] + REAR_OVERHANG_M}
    d["CONTROLLER"] = {"vehicle.mass": 2.0 * d["HALF_CAR_MASS_KG"], "vehicle.wheel_radius": d["WHEEL_RADIUS_M"],
                       "acc.gap_offset": d["FRONT_BUMPER_FROM_COM_M"]}
    return d


def dimension(name: str):
    """The constant ``name`` of :data:`DIMENSIONS` (a copy for ``CONTROLLER``)."""
    value = _dimensions()[name]
    return dict(value) if isinstance(value, dict) else value


def __getattr__(name: str):
    if name in DIMENSIONS:
        return dimension(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


ACC_LEAD_PROFILE = SPEED_PROFILES["stop_and_go"]
"""Lead vehicle of acc_stop_and_go: waits 1 s, 2 m/s^2 to 16 m/s, cruises 5 s, brakes at 2.5 m/s^2 to a stop
(the ISO 15622 stop case) and stays there; the ACC stops behind it and holds."""
ACC_DURATION_S = 30.0
"""Length of acc_stop_and_go [s]: the lead stops at 20.4 s, the ego about 3 s later, then 6 s of hold."""
LEAD_START_X_M = DEFAULT_X0_M
"""Lead rear bumper at t = 0 [m]: the LeadVehicle start value of ``x``, so initialization is consistent."""


# ----------------------------------------------------------------------------------------------- records

@dataclass
class Scenario:
    """A co-simulation example: the system plus how to run, record and show it.

    system           components (FMU files, parameters, step sizes) and connections
    title            one line for plots and summaries
    scheme, order    coupling scheme and Gauss-Seidel order (component names)
    outputs          recorded 'component.variable' columns (None = every input and output)
    output_interval  s between recorded rows (None = every master step)
    derive           extra columns computed from the result: fn(result) -> {name: (values, unit)}
    panels           plot layout
    """

    system: System
    title: str
    scheme: str = "gauss-seidel"
    order: tuple[str, ...] | None = None
    outputs: tuple[str, ...] | None = None
    output_interval: float | None = 0.01
    derive: Callable[[Result], dict] | None = None
    panels: tuple[Panel, ...] = ()

    @property
    def name(self) -> str:
        return self.system.name

    def experiment(self, system: System | None = None, **overrides) -> Experiment:
        """The experiment from the default experiment of ``system`` (default: this scenario's; run_scenario
        passes the one read back from the SSP) and this scenario's scheme, order and recording; keywords
        override fields."""
        scheme = overrides.get("scheme", self.scheme)
        kwargs = {"scheme": scheme, "order": self.order if scheme == "gauss-seidel" else None,
                  "outputs": self.outputs, "output_interval": self.output_interval}
        kwargs.update(overrides)
        return Experiment.from_system(system or self.system, **kwargs)


@dataclass
class ScenarioRun:
    """What :func:`run_scenario` produced: the result (with derived columns), the files written, and a
    summary a caller may fill in (``metrics``)."""

    scenario: Scenario
    result: Result
    ssp: Path
    csv: Path
    plot: Path
    metrics: dict = field(default_factory=dict)


# ----------------------------------------------------------------------------------------------- wiring

def fmu_path(fmus: dict, name: str) -> Path:
    """The path of ``name``.fmu among ``fmus`` ({registry name: path}); ModelError naming the missing FMU."""
    if name not in fmus:
        raise ModelError(f"scenario needs {name}.fmu, not among the given FMUs ({', '.join(sorted(fmus))})")
    return Path(fmus[name])


def tire_connections(vehicle: str, tire: str, wheel: str) -> list[Connection]:
    """Wheel state vehicle -> tire and wheel load tire -> vehicle for one wheel."""
    cons = [Connection(vehicle, f"wheel_{wheel}.{q}", tire, f"wheel.{q}") for q in ("x", "z", "vx", "vz", "omega")]
    cons += [Connection(tire, f"wheel_load.{a}", vehicle, f"wheel_{wheel}.tire_{a}")
             for a in ("force_x", "force_z", "moment_y")]
    return cons


def powertrain_connections(vehicle: str, powertrain: str, controller: str) -> list[Connection]:
    """Front wheel speed to both powertrain sides, left half-shaft torque to the front wheel, pedals, brakes."""
    return [Connection(vehicle, "wheel_front.omega", powertrain, "wheel_left.omega"),
            Connection(vehicle, "wheel_front.omega", powertrain, "wheel_right.omega"),
            Connection(powertrain, "wheel_left.torque_drive", vehicle, "wheel_front.torque_drive"),
            Connection(controller, "throttle", powertrain, "throttle"),
            Connection(controller, "brake_torque_front", vehicle, "wheel_front.torque_brake"),
            Connection(controller, "brake_torque_rear", vehicle, "wheel_rear.torque_brake"),
            Connection(vehicle, "chassis.x", controller, "ego.x"),
            Connection(vehicle, "chassis.vx", controller, "ego.vx"),
            Connection(vehicle, "chassis.ax", controller, "ego.ax")]


def follow_connections(leader: str, controller: str, leader_is_vehicle: bool) -> list[Connection]:
    """Leader position (rear bumper) and speed to a controller's lead inputs."""
    if not leader_is_vehicle:
        return [Connection(leader, "x", controller, "lead.x"), Connection(leader, "vx", controller, "lead.vx")]
    return [Connection(leader, "chassis.x", controller, "lead.x", offset=-dimension("REAR_BUMPER_FROM_COM_M")),
            Connection(leader, "chassis.vx", controller, "lead.vx")]


def vehicle_component(name: str, fmus: dict, *, road: str, v0: float, x0: float = 0.0, tires: str = "internal",
                      **extra) -> Component:
    """The half car (VehicleLV.fmu) as the component ``name`` on ``road`` at speed ``v0`` [m/s] from road
    position ``x0`` [m], with internal or external (``tires="external"``) tires; ``extra``: more start values."""
    return Component(name, fmu_path(fmus, "VehicleLV"),
                     {"model": VEHICLE, **road_parameters(road), "v0": float(v0), "x0": float(x0),
                      "tire_source": tires, **extra})


def _tires(vehicle: str, fmus: dict, road: str, prefix: str = "tire_", **params):
    comps = [Component(f"{prefix}{w}", fmu_path(fmus, "Tire"), {**road_parameters(road), **params}) for w in WHEELS]
    cons = [c for w in WHEELS for c in tire_connections(vehicle, f"{prefix}{w}", w)]
    return comps, cons


# ----------------------------------------------------------------------------------------------- derived signals

def bumper_gap(result: Result, lead_x: np.ndarray, ego: str) -> np.ndarray:
    """Bumper-to-bumper gap [m]: lead rear bumper minus ego front bumper (chassis.x + FRONT_BUMPER_FROM_COM_M)."""
    return lead_x - result[f"{ego}.chassis.x"] - dimension("FRONT_BUMPER_FROM_COM_M")


def following_signals(gap: np.ndarray, v_ego: np.ndarray, v_lead: np.ndarray, prefix: str = "") -> dict:
    """gap [m], time gap gap/v [s] (NaN below 1 m/s), time to collision gap/(v_ego - v_lead) [s] (inf unless
    closing faster than 0.1 m/s, the controller's rule)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        time_gap = np.where(v_ego > 1.0, gap / v_ego, np.nan)
        closing = v_ego - v_lead
        ttc = np.where(closing > 0.1, gap / closing, np.inf)
    return {f"{prefix}gap": (gap, "m"), f"{prefix}time_gap": (time_gap, "s"), f"{prefix}ttc": (ttc, "s")}


def following_metrics(result: Result, prefix: str = "") -> dict:
    """Summary of a following run: min gap [m], min time gap [s], min TTC [s], peak |pitch| [rad], RMS chassis
    vertical acceleration [m/s^2] of the ego vehicle named ``prefix + 'vehicle'`` (columns from ``derive``)."""
    ego = f"{prefix}vehicle"
    pitch, az = result[f"{ego}.chassis.pitch"], result[f"{ego}.chassis.az"]
    time_gap = result[f"{prefix}time_gap"]
    return {
        "min_gap_m": float(np.min(result[f"{prefix}gap"])),
        "min_time_gap_s": float(np.nanmin(time_gap)) if np.any(np.isfinite(time_gap)) else math.inf,
        "min_ttc_s": float(np.min(result[f"{prefix}ttc"])),
        "peak_pitch_rad": float(pitch[np.argmax(np.abs(pitch))]),
        "rest_pitch_rad": float(pitch[0]),
        "rms_az_m_per_s2": float(np.sqrt(np.mean(az ** 2))),
    }


STOP_SPEED_MAX = 0.2
"""m/s: the ego counts as stopped at the end of the demo below this speed."""
STOP_GAP_BAND = (2.0, 10.0)
"""m: bumper gap band in which the ego must come to rest behind a stopped lead (around the 5 m standstill
distance of the controller)."""


def stop_check(result: Result, prefix: str = "", lead_v: np.ndarray | None = None) -> dict:
    """How the run ends: final ego speed [m/s], final bumper gap [m], final lead speed [m/s], contact (gap <= 0
    at any time) and ``stopped_behind`` = ego below STOP_SPEED_MAX, gap in STOP_GAP_BAND, lead stopped, no contact."""
    ego = f"{prefix}vehicle"
    v_ego, gap = result[f"{ego}.chassis.vx"], result[f"{prefix}gap"]
    v_lead = result["lead.vx"] if lead_v is None else lead_v
    contact = bool(np.any(gap <= 0.0))
    out = {"final_speed_m_per_s": float(v_ego[-1]), "final_gap_m": float(gap[-1]),
           "final_lead_speed_m_per_s": float(v_lead[-1]), "contact": contact}
    out["stopped_behind"] = bool(abs(out["final_speed_m_per_s"]) < STOP_SPEED_MAX and not contact
                                 and STOP_GAP_BAND[0] <= out["final_gap_m"] <= STOP_GAP_BAND[1]
                                 and abs(out["final_lead_speed_m_per_s"]) < STOP_SPEED_MAX)
    return out


def format_stop(check: dict) -> str:
    """One line for the demo: where and how the ego ended."""
    verdict = ("stopped behind the stopped lead" if check["stopped_behind"] else
               "NOT stopped as required (< %g m/s, %g-%g m behind a stopped lead, no contact)"
               % (STOP_SPEED_MAX, *STOP_GAP_BAND))
    return (f"  end: ego {fixed(check['final_speed_m_per_s'], 3)} m/s, {fixed(check['final_gap_m'], 2)} m behind "
            f"the lead ({fixed(check['final_lead_speed_m_per_s'], 3)} m/s), {'CONTACT' if check['contact'] else 'no contact'}: "
            f"{verdict}")


def format_following(metrics: dict) -> str:
    """The demo summary of :func:`following_metrics`, one quantity per line."""
    ttc = metrics["min_ttc_s"]
    return "\n".join([
        f"  min gap                      {metrics['min_gap_m']:8.2f} m",
        f"  min time gap (v > 1 m/s)     {metrics['min_time_gap_s']:8.2f} s",
        f"  min time-to-collision        {ttc:8.2f} s" if math.isfinite(ttc) else
        "  min time-to-collision             inf (never closing)",
        f"  peak pitch                   {metrics['peak_pitch_rad']:8.4f} rad (at rest {metrics['rest_pitch_rad']:.4f}, "
        f"+ nose down)",
        f"  RMS vertical acceleration    {metrics['rms_az_m_per_s2']:8.3f} m/s^2 (chassis)",
    ])


# ----------------------------------------------------------------------------------------------- scenarios

def bumpy_road(fmus: dict, *, tires: str = "internal", duration: float = 5.0, step: float = 1e-3,
               v0: float = 20.0, drive_torque: float = 300.0) -> Scenario:
    """Dai et al. 2022 §4.1: five 60 mm bumps at 20 m/s with a constant 300 N m front drive torque.

    ``tires = "external"`` replaces the vehicle's internal tires by two Tire FMUs (order tires -> vehicle).
    The drive torque is the start value of the input ``wheel_front.torque_drive`` (no connection drives it).
    """
    if tires not in ("internal", "external"):
        raise ModelError(f"bumpy_road: tires must be 'internal' or 'external', got {tires!r}")
    comps = [vehicle_component("vehicle", fmus, road="bumpy", v0=v0, tires=tires,
                      **{"wheel_front.torque_drive": float(drive_torque)})]
    cons, order = [], ("vehicle",)
    if tires == "external":
        tire_comps, cons = _tires("vehicle", fmus, "bumpy")
        comps = tire_comps + comps
        order = ("tire_front", "tire_rear", "vehicle")
    v = "vehicle."
    outputs = (v + "chassis.x", v + "chassis.vx", v + "chassis.vz", v + "chassis.z", v + "chassis.pitch",
               v + "chassis.az", v + "wheel_front.tire_fz", v + "wheel_rear.tire_fz", v + "wheel_front.tire_fx",
               v + "wheel_front.travel", v + "wheel_rear.travel")
    if tires == "external":
        outputs += ("tire_front.slip", "tire_rear.slip", "tire_front.fx", "tire_rear.fx")
    system = System(f"bumpy_road_{tires}_tires", comps, cons, stop_time=duration, step_size=step)
    return Scenario(system, f"{VEHICLE} on the bumpy road, {v0:g} m/s, {drive_torque:g} N m front "
                            f"({tires} tires{', Gauss-Seidel tires -> vehicle' if tires == 'external' else ''})",
                    order=order, outputs=outputs, output_interval=step,
                    panels=(Panel("x [m]", (("x", v + "chassis.x"),)),
                            Panel("vx [m/s]", (("vx", v + "chassis.vx"),)),
                            Panel("z [m]", (("z", v + "chassis.z"),)),
                            Panel("pitch [rad]", (("pitch", v + "chassis.pitch"),)),
                            Panel("tire load [N]", (("front", v + "wheel_front.tire_fz"),
                                                    ("rear", v + "wheel_rear.tire_fz"))),
                            Panel("suspension travel [m]", (("front", v + "wheel_front.travel"),
                                                            ("rear", v + "wheel_rear.travel")))))


def acc_stop_and_go(fmus: dict, *, duration: float = ACC_DURATION_S, lead_profile: str = ACC_LEAD_PROFILE,
                    step: float = 1e-3, time_gap: float = 1.8, road: str = "bumpy",
                    tire_params: dict | None = None) -> Scenario:
    """ACC + AEB behind a lead vehicle that pulls away, cruises and brakes to a stop, on the bumpy road.

    Components: lead (LeadVehicle, 1 ms), controller (Controller, its 10 ms sample period as step),
    powertrain (Powertrain), tire_front/tire_rear (Tire), vehicle (VehicleLV with external tires), all at
    ``step`` except the controller.  Both cars start at rest, the lead's rear bumper 50 m ahead of the ego's
    front axle.  ``tire_params`` adds Tire parameters (e.g. ``{"output_time": "end"}``, for the front tire).
    """
    comps = [Component("lead", fmu_path(fmus, "LeadVehicle"),
                       {**lead_profile_parameters(lead_profile), "x0": LEAD_START_X_M}),
             Component("controller", fmu_path(fmus, "Controller"),
                       {**dimension("CONTROLLER"), "acc.time_gap": float(time_gap), "mode": "acc_aeb"},
                       step_size=0.01),
             Component("powertrain", fmu_path(fmus, "Powertrain"), {})]
    tire_comps, tire_cons = _tires("vehicle", fmus, road)
    if tire_params:
        tire_comps[0].parameters.update(tire_params)
    comps += tire_comps + [vehicle_component("vehicle", fmus, road=road, v0=0.0, tires="external")]
    cons = (follow_connections("lead", "controller", leader_is_vehicle=False)
            + powertrain_connections("vehicle", "powertrain", "controller") + tire_cons)
    system = System("acc_stop_and_go", comps, cons, stop_time=duration, step_size=step)
    v = "vehicle."
    outputs = ("lead.x", "lead.vx",
               v + "chassis.x", v + "chassis.vx", v + "chassis.ax", v + "chassis.z", v + "chassis.pitch",
               v + "chassis.az", v + "wheel_front.x", v + "wheel_front.omega", v + "wheel_front.tire_fz",
               v + "wheel_rear.tire_fz",
               "tire_front.fx", "tire_front.fz", "tire_front.slip", "tire_rear.fx", "tire_rear.fz",
               "powertrain.engine.speed", "powertrain.transmission.gear", "powertrain.wheel_left.torque_drive",
               "controller.throttle", "controller.brake", "controller.accel_command", "controller.gap",
               "controller.ttc", "controller.aeb_active", "controller.held")

    def derive(result: Result) -> dict:
        gap = bumper_gap(result, result["lead.x"], "vehicle")
        return following_signals(gap, result[v + "chassis.vx"], result["lead.vx"])

    return Scenario(system, f"ACC stop-and-go on the {road} road: lead '{lead_profile}' [s:m/s], "
                            f"time gap {time_gap:g} s; Tire FMUs, Gauss-Seidel",
                    order=("lead", "controller", "powertrain", "tire_front", "tire_rear", "vehicle"),
                    outputs=outputs, output_interval=0.01, derive=derive,
                    panels=(Panel("speed [m/s]", (("lead", "lead.vx"), ("ego", v + "chassis.vx"))),
                            Panel("gap [m]", (("bumper gap", "gap"),)),
                            Panel("time gap, TTC [s]", (("time gap", "time_gap"), ("TTC", "ttc")), (0.0, 10.0)),
                            Panel("pedals [1]", (("throttle", "controller.throttle"), ("brake", "controller.brake"))),
                            Panel("gear [-]", (("gear", "powertrain.transmission.gear"),)),
                            Panel("pitch [rad]", (("pitch", v + "chassis.pitch"),)),
                            Panel("vertical acc. [m/s2]", (("chassis az", v + "chassis.az"),)),
                            Panel("tire load [N]", (("front", "tire_front.fz"), ("rear", "tire_rear.fz")))))


def slope_cruise(fmus: dict, *, duration: float = 30.0, set_speed: float = 15.0, v0: float = 0.0,
                 accel_max: float = 1.0, step: float = 1e-3) -> Scenario:
    """Cruise control up the paper's 16.5 deg slope (Dai et al. 2022 §4.2), internal tires: a hill start.

    From rest the car rolls back a little until the torque converter's torque builds up, then climbs at up
    to ``accel_max`` towards ``set_speed``; at 15 m/s the 29 % grade takes nearly full throttle in third gear.
    """
    comps = [Component("controller", fmu_path(fmus, "Controller"),
                       {**dimension("CONTROLLER"), "mode": "cruise", "acc.set_speed": float(set_speed),
                        "acc.accel_max": float(accel_max)}, step_size=0.01),
             Component("powertrain", fmu_path(fmus, "Powertrain"), {}),
             vehicle_component("vehicle", fmus, road="slope16_5", v0=v0)]
    system = System("slope_cruise", comps, powertrain_connections("vehicle", "powertrain", "controller"),
                    stop_time=duration, step_size=step)
    v = "vehicle."
    outputs = (v + "chassis.x", v + "chassis.vx", v + "chassis.ax", v + "chassis.pitch", v + "chassis.az",
               v + "wheel_front.tire_fz", v + "wheel_rear.tire_fz", v + "wheel_front.tire_fx", v + "wheel_front.slip",
               "powertrain.engine.speed", "powertrain.transmission.gear", "powertrain.wheel_left.torque_drive",
               "controller.throttle", "controller.brake", "controller.accel_command")
    return Scenario(system, f"cruise control at {set_speed:g} m/s up the 16.5 deg slope from {v0:g} m/s "
                            f"(internal tires)",
                    order=("controller", "powertrain", "vehicle"), outputs=outputs, output_interval=0.01,
                    panels=(Panel("speed [m/s]", (("vx", v + "chassis.vx"),)),
                            Panel("throttle [1]", (("throttle", "controller.throttle"),)),
                            Panel("gear [-]", (("gear", "powertrain.transmission.gear"),)),
                            Panel("engine speed [rad/s]", (("engine", "powertrain.engine.speed"),)),
                            Panel("front wheel [N m], [N]", (("drive torque", "powertrain.wheel_left.torque_drive"),
                                                             ("tire Fx", v + "wheel_front.tire_fx"))),
                            Panel("tire load [N]", (("front", v + "wheel_front.tire_fz"),
                                                    ("rear", v + "wheel_rear.tire_fz"))),
                            Panel("front slip [1]", (("slip", v + "wheel_front.slip"),)),
                            Panel("pitch [rad]", (("pitch", v + "chassis.pitch"),))))


def platoon(fmus: dict, *, n: int = 3, duration: float = 20.0, lead_profile: str = SPEED_PROFILES["platoon"],
            step: float = 2e-3, road: str = "bumpy") -> Scenario:
    """``n`` vehicles (VehicleLV internal tires + Powertrain + Controller each) behind a lead vehicle.

    Vehicle k (1..n) follows the one ahead (k = 1: the LeadVehicle).  All start at rest: vehicle 1 with its
    front axle at x = 0 (49 m behind the lead), the others at the controller's standstill gap (5 m).  Master step ``step`` (vehicles and powertrains; the vehicle integrates at 1 ms inside),
    controllers at 10 ms.  Gauss-Seidel: lead, then each vehicle's controller, powertrain and vehicle, front
    to back, so every follower sees its leader's fresh state.
    """
    if not isinstance(n, int) or n < 1:
        raise ModelError(f"platoon: n must be a positive integer, got {n!r}")
    spacing = dimension("WHEELBASE_M") + REAR_OVERHANG_M + FRONT_OVERHANG_M + 5.0   # standstill_distance 5 m
    comps = [Component("lead", fmu_path(fmus, "LeadVehicle"),
                       {**lead_profile_parameters(lead_profile), "x0": LEAD_START_X_M},
                       step_size=step)]
    cons, order, outputs = [], ["lead"], ["lead.x", "lead.vx"]
    for k in range(1, n + 1):
        car, pt, ctl = f"vehicle_{k}", f"powertrain_{k}", f"controller_{k}"
        x0 = -(k - 1) * spacing
        comps += [Component(ctl, fmu_path(fmus, "Controller"), dimension("CONTROLLER"), step_size=0.01),
                  Component(pt, fmu_path(fmus, "Powertrain"), {}),
                  vehicle_component(car, fmus, road=road, v0=0.0, x0=x0)]
        cons += follow_connections("lead" if k == 1 else f"vehicle_{k - 1}", ctl, leader_is_vehicle=k > 1)
        cons += powertrain_connections(car, pt, ctl)
        order += [ctl, pt, car]
        outputs += [f"{car}.chassis.x", f"{car}.chassis.vx", f"{car}.chassis.pitch", f"{car}.chassis.az",
                    f"{ctl}.throttle", f"{ctl}.brake"]
    system = System(f"platoon_{n}", comps, cons, stop_time=duration, step_size=step)

    def derive(result: Result) -> dict:
        columns = {}
        for k in range(1, n + 1):
            car = f"vehicle_{k}"
            if k == 1:
                lead_x, lead_v = result["lead.x"], result["lead.vx"]
            else:
                ahead = f"vehicle_{k - 1}"
                lead_x = result[f"{ahead}.chassis.x"] - dimension("REAR_BUMPER_FROM_COM_M")
                lead_v = result[f"{ahead}.chassis.vx"]
            gap = bumper_gap(result, lead_x, car)
            columns.update(following_signals(gap, result[f"{car}.chassis.vx"], lead_v, prefix=f"{car}."))
        return columns

    cars = [f"vehicle_{k}" for k in range(1, n + 1)]
    return Scenario(system, f"platoon of {n} behind a lead vehicle '{lead_profile}' [s:m/s] on the {road} road",
                    order=tuple(order), outputs=tuple(outputs), output_interval=0.01, derive=derive,
                    panels=(Panel("speed [m/s]", (("lead", "lead.vx"),) + tuple((c, f"{c}.chassis.vx") for c in cars)),
                            Panel("bumper gap [m]", tuple((c, f"{c}.gap") for c in cars)),
                            Panel("time gap [s]", tuple((c, f"{c}.time_gap") for c in cars), (0.0, 10.0)),
                            Panel("brake [1]", tuple((c, f"controller_{k}.brake") for k, c in enumerate(cars, 1))),
                            Panel("pitch [rad]", tuple((c, f"{c}.chassis.pitch") for c in cars)),
                            Panel("vertical acc. [m/s2]", tuple((c, f"{c}.chassis.az") for c in cars))))


# ----------------------------------------------------------------------------------------------- running

def run_scenario(scenario: Scenario, out_dir: str | Path, *, progress: bool = True, **experiment) -> ScenarioRun:
    """Write ``<out_dir>/<name>.ssp``, read it back, run it, write ``<name>.csv`` and ``<name>.png``.

    ``experiment`` overrides Experiment fields (stop_time, step_size, scheme, output_interval, ...).  On a
    component failure the partial result is written to the CSV and the CosimError propagates.
    """
    out = Path(out_dir)
    ssp = write_ssp(scenario.system, out / f"{scenario.name}.ssp")
    system = read_ssp(ssp)
    exp = scenario.experiment(system, **experiment)
    csv = out / f"{scenario.name}.csv"
    result = run_system(system, exp, progress=progress, output_path=csv)
    if scenario.derive is not None:
        result = result.with_columns(scenario.derive(result))
        result.to_csv(csv)
    plot = plot_scenario(scenario, result, out / f"{scenario.name}.png")
    return ScenarioRun(scenario, result, ssp, csv, plot)


def plot_scenario(scenario: Scenario, result: Result, path: str | Path) -> Path:
    """The scenario's panels (two columns; default: the first eight columns) into a PNG, atomically."""
    panels = scenario.panels or tuple(Panel(n, ((n, n),)) for n in result.names[1:9])
    return result.plot(path, panels=panels, title=scenario.title, columns=2)
