"""The ISO 3888-1 double lane change as a co-simulation: Vehicle.fmu (the full car) driven by Driver.fmu, with
its internal tires or four Tire.fmu on Project Chrono's wheel interface; and a lane change along a shipped path
(``path_lane_change``: e.g. the tractor-semitrailer's single lane change).

Wiring (Project Chrono's vehicle/tire/driver FMU demos, ISO 8855 axes, SI units)::

    vehicle chassis.{x,y,yaw,vx}                  -> driver chassis.{x,y,yaw,vx}
    driver steering_wheel_angle                   -> vehicle steering_wheel_angle
    driver wheel_torque (x 1/2)                   -> vehicle wheel_FL/FR.torque_drive   (front-wheel drive)
    vehicle wheel_<w>.{pos,rot,lin_vel,ang_vel}.* -> tire_<w> wheel_state.*             (tires = external)
    tire_<w> wheel_load.{point,force,moment}.*    -> vehicle wheel_<w>.{point,force,moment}.*

The driver holds ``target_speed`` (its start value, the entry speed) with its PI speed loop as a total wheel
torque on the driven front wheels (a negative torque brakes them); the ISO 3888-1 test drives through at a
constant throttle, so the loop only makes up rolling resistance and cornering drag. The tires run on their
own internal road (the same flat road as the vehicle's), so no terrain host is needed.

Gauss-Seidel order: driver, tires, vehicle: the tires step from the vehicle's state at t with their loads at
the step's midpoint (second order, ``Tire.fmu`` output_time = midpoint), then the vehicle takes the same step
with them. The driver samples every ``DRIVER_SAMPLE_S`` and holds its command (Driver.fmu sample_period).

KPIs (``manoeuvres.lane_change.lane_change_kpis``): gates passed, cones hit, largest distance from the centre
line, peak lateral acceleration and yaw rate. See docs/cosimulation.md.
"""
from __future__ import annotations


from fmu_vehicle.scenarios.half_car import Scenario, fmu_path
from fmu_vehicle.cosim.system import Component, Connection, System
from fmu_vehicle.errors import ModelError
from fmu_vehicle.manoeuvres.lane_change import iso3888_1_layout, lane_change_kpis, lane_change_path
from fmu_vehicle.plotting import Panel
from fmu_vehicle.results import Result

WHEELS = ("FL", "FR", "RL", "RR")
VEHICLE_MODEL = "fullcar14"
DRIVER_SAMPLE_S = 0.01
"""Driver sample period [s] (as the script API's closed-loop manoeuvres)."""
RUN_OUT_M = 20.0
"""Distance driven past the end of the track [m]."""
WHEEL_STATE = tuple(f"{q}.{a}" for q in ("pos", "lin_vel", "ang_vel") for a in "xyz") + \
    tuple(f"rot.e{k}" for k in range(4))
WHEEL_LOAD = tuple(f"{q}.{a}" for q in ("point", "force", "moment") for a in "xyz")


def _vehicle_width(model: str = VEHICLE_MODEL) -> float:
    """The overall width [m] of vehicle file ``model`` (``manoeuvres.runs.vehicle_width``: every unit's wheels)."""
    from fmu_vehicle.manoeuvres.runs import vehicle_width
    from fmu_vehicle.vehicle import Vehicle
    return vehicle_width(Vehicle.load(model))


def _start_x0(model: str = VEHICLE_MODEL) -> float:
    """The ``x0`` [m] of vehicle file ``model`` that puts its (towing unit's) centre of mass (``chassis.x``) at
    x = 0 at the start: minus the design CoM x of its chassis."""
    from fmu_vehicle.vehicle.loader import load_vehicle_spec
    spec = load_vehicle_spec(model)
    return -float(next(b.com_m[0] for b in spec.mechanism.bodies if b.name == spec.chassis_body))


def driven_wheels(model: str = VEHICLE_MODEL) -> tuple[str, ...]:
    """The driven wheels of vehicle file ``model`` (its corners with ``driven``), towing unit first."""
    from fmu_vehicle.vehicle.loader import load_vehicle_spec
    return tuple(w.name for w in load_vehicle_spec(model).wheels if w.driven)


def driver_connections(model: str = VEHICLE_MODEL) -> list[Connection]:
    """Driver.fmu <-> the vehicle FMU (components ``driver`` and ``vehicle``): the towing unit's position, yaw
    and speed to the driver, its steering-wheel angle to the vehicle and its total wheel torque shared equally
    by the driven wheels of vehicle file ``model`` (``driven_wheels``: the full car's two front wheels, the
    tractor's four dual wheels)."""
    driven = driven_wheels(model)
    cons = [Connection("vehicle", f"chassis.{q}", "driver", f"chassis.{q}") for q in ("x", "y", "yaw", "vx")]
    cons += [Connection("driver", "steering_wheel_angle", "vehicle", "steering_wheel_angle")]
    cons += [Connection("driver", "wheel_torque", "vehicle", f"wheel_{w}.torque_drive", factor=1.0 / len(driven))
             for w in driven]
    return cons


def _vehicle_component(fmus: dict, vehicle_fmu: str, model: str, speed: float, tires: str = "internal"):
    """The vehicle FMU's component: vehicle file ``model`` on the flat road at ``speed`` [m/s], its towing
    unit's centre of mass starting at x = 0 (``_start_x0``)."""
    return Component("vehicle", fmu_path(fmus, vehicle_fmu), {"model": model, "road": "flat", "v0": float(speed),
                                                          "x0": _start_x0(model), "tire_source": tires})


def tire_connections(vehicle: str, tire: str, wheel: str) -> list[Connection]:
    """Project Chrono's wheel interface for one wheel: wheel state vehicle -> tire, wheel load tire -> vehicle."""
    return ([Connection(vehicle, f"wheel_{wheel}.{q}", tire, f"wheel_state.{q}") for q in WHEEL_STATE]
            + [Connection(tire, f"wheel_load.{q}", vehicle, f"wheel_{wheel}.{q}") for q in WHEEL_LOAD])


def double_lane_change(fmus: dict, *, tires: str = "external", speed: float = 60 / 3.6, step: float = 1e-3,
                       width: float | None = None, vehicle_fmu: str = "Vehicle",
                       model: str = VEHICLE_MODEL) -> Scenario:
    """The ISO 3888-1 double lane change at ``speed`` [m/s] (module docstring). ``tires``: ``internal`` (the
    vehicle's own) or ``external`` (a Tire.fmu per wheel of ``WHEELS``, the full car's). ``width``: the vehicle's
    overall width [m] for the track (default: that of the vehicle file). ``vehicle_fmu`` and ``model``: the
    vehicle FMU (a key of ``fmus``) and its vehicle file, e.g. ``VehicleCombination`` with ``sedan_caravan``
    (internal tires: the caravan's wheels have no Tire.fmu here)."""
    if tires not in ("internal", "external"):
        raise ModelError(f"double_lane_change: tires must be 'internal' or 'external', got {tires!r}")
    if tires == "external" and vehicle_fmu != "Vehicle":
        raise ModelError(f"double_lane_change: tires = 'external' is wired for Vehicle.fmu's four wheels, not "
                         f"{vehicle_fmu}")
    width = _vehicle_width(model) if width is None else float(width)
    path = lane_change_path(width)
    x_start = float(path.x[0])                  # the car starts on the path's first point
    track = iso3888_1_layout(width)
    duration = round((track.end_x + RUN_OUT_M - x_start) / speed / step) * step
    comps = [
        Component("driver", fmu_path(fmus, "Driver"), {"vehicle.width": width, "path.x_offset": -x_start,
                                                   "target_speed": float(speed), "sample_period": DRIVER_SAMPLE_S}),
        _vehicle_component(fmus, vehicle_fmu, model, speed, tires),
    ]
    cons = driver_connections(model)
    order = ["driver"]
    if tires == "external":
        for w in WHEELS:
            comps.append(Component(f"tire_{w}", fmu_path(fmus, "Tire"), {"wheel_interface": "chrono", "road": "flat",
                                                                     "side": "left" if w[1] == "L" else "right"}))
            cons += tire_connections("vehicle", f"tire_{w}", w)
            order.append(f"tire_{w}")
    order.append("vehicle")
    v = "vehicle."
    outputs = tuple(v + n for n in ("chassis.x", "chassis.y", "chassis.yaw", "chassis.vx", "chassis.ay",
                                    "chassis.yaw_rate", "chassis.roll", "steering_wheel_angle_applied",
                                    "wheel_FL.tire_fy", "wheel_RL.tire_fy", "wheel_FL.tire_fz", "wheel_FR.tire_fz"))
    outputs += ("driver.lateral_error", "driver.wheel_torque")

    def derive(result: Result) -> dict:
        return {"track.x": (result[v + "chassis.x"] + x_start, "m")}

    system = System(f"double_lane_change_{tires}_tires", comps, cons, stop_time=duration, step_size=step)
    return Scenario(system, f"ISO 3888-1 double lane change, {model}, {speed * 3.6:g} km/h "
                            f"({tires} tires{', Gauss-Seidel driver -> tires -> vehicle' if tires == 'external' else ''})",
                    order=tuple(order), outputs=outputs, output_interval=step, derive=derive,
                    panels=(Panel("y [m]", (("y", v + "chassis.y"),)),
                            Panel("yaw [rad]", (("yaw", v + "chassis.yaw"),)),
                            Panel("ay [m/s2]", (("ay", v + "chassis.ay"),)),
                            Panel("steering-wheel angle [rad]", (("swa", v + "steering_wheel_angle_applied"),)),
                            Panel("tire lateral force [N]", (("FL", v + "wheel_FL.tire_fy"),
                                                             ("RL", v + "wheel_RL.tire_fy"))),
                            Panel("path error [m]", (("driver", "driver.lateral_error"),))))


def lane_change_metrics(result: Result, width: float | None = None) -> dict:
    """ISO 3888-1 KPIs of a run of :func:`double_lane_change` (``lane_change_kpis`` in track coordinates)."""
    width = _vehicle_width() if width is None else float(width)
    v = "vehicle."
    path = lane_change_path(width)
    x = result[v + "chassis.x"] + float(path.x[0])
    return lane_change_kpis(result.t, x, result[v + "chassis.y"], result[v + "chassis.yaw"], result[v + "chassis.ay"],
                            width, path=path, yaw_rate=result[v + "chassis.yaw_rate"])


PATH_END_MARGIN_M = 20.0
"""A path-following run ends when the towing unit's centre of mass is this far before the path's last point [m]
(the driver's preview needs path ahead of it)."""


def shipped_path(name: str):
    """The driver ``Path`` of the CSV file ``name`` in resources/paths (what Driver.fmu reads for its ``path``
    parameter)."""
    from fmu_vehicle.driver.path import Path as DriverPath
    from fmu_vehicle.paths import resource_path
    return DriverPath.from_csv(resource_path("paths", name))


def path_lane_change(fmus: dict, *, path: str, speed: float, vehicle_fmu: str, model: str,
                     driver: dict | None = None, step: float = 1e-3) -> Scenario:
    """Driver.fmu steering vehicle file ``model`` in vehicle FMU ``vehicle_fmu`` (internal tires, flat road)
    along the shipped path ``path`` (a CSV file of resources/paths, e.g. a single lane change, bound as Driver.fmu's
    ``path`` enumeration: ``fmi.driver_parameters.driver_path_parameters``) at ``speed`` [m/s]: the towing unit's
    centre of mass starts on the path's first point (x = 0) and the run ends ``PATH_END_MARGIN_M`` before its
    last. ``driver``: Driver.fmu parameters besides the path, the target speed
    and the sample period (the vehicle fields ``vehicle.wheelbase``, ``vehicle.steering_ratio``, ... of the
    vehicle driven). Wiring: ``driver_connections``. Records the towing unit's and every towed unit's path,
    articulation and lateral acceleration (``path_lane_change_metrics``)."""
    from fmu_vehicle.fmi.driver_parameters import driver_path_parameters
    from fmu_vehicle.vehicle.loader import vehicle_file_data
    end_x = float(shipped_path(path).x[-1])
    duration = round((end_x - PATH_END_MARGIN_M) / speed / step) * step
    comps = [Component("driver", fmu_path(fmus, "Driver"), {**(driver or {}), **driver_path_parameters(path),
                                                            "target_speed": float(speed),
                                                            "sample_period": DRIVER_SAMPLE_S}),
             _vehicle_component(fmus, vehicle_fmu, model, speed)]
    units = [u["name"] for u in vehicle_file_data(model).get("units", ())]
    v = "vehicle."
    outputs = tuple(v + n for n in ("chassis.x", "chassis.y", "chassis.yaw", "chassis.vx", "chassis.ay",
                                    "chassis.yaw_rate", "steering_wheel_angle_applied"))
    outputs += tuple(f"{v}{u}.{q}" for u in units for q in ("x", "y", "articulation", "ay", "yaw_rate"))
    outputs += ("driver.lateral_error", "driver.wheel_torque")
    system = System(f"path_lane_change_{model}", comps, driver_connections(model), stop_time=duration,
                    step_size=step)
    return Scenario(system, f"lane change along {path}, {model}, {speed * 3.6:g} km/h (Gauss-Seidel driver -> "
                            "vehicle)", order=("driver", "vehicle"), outputs=outputs, output_interval=step,
                    panels=(Panel("y [m]", (("tractor", v + "chassis.y"),
                                            *((u, f"{v}{u}.y") for u in units))),
                            Panel("articulation [rad]", tuple((u, f"{v}{u}.articulation") for u in units)),
                            Panel("ay [m/s2]", (("towing unit", v + "chassis.ay"),
                                                *((u, f"{v}{u}.ay") for u in units))),
                            Panel("steering-wheel angle [rad]", (("swa", v + "steering_wheel_angle_applied"),)),
                            Panel("path error [m]", (("driver", "driver.lateral_error"),))))


def path_lane_change_metrics(result: Result, path: str, units=()) -> dict:
    """KPIs of a run of :func:`path_lane_change` on the shipped path ``path`` for the towed units ``units``:
    max_path_error_m (largest distance of the towing unit's centre of mass from the path), final_y_m (its
    lateral position at the end), peak_ay_m_s2 (its largest |ay|), and per unit ``u``: ``u.peak_ay_m_s2``,
    ``u.rearward_amplification`` (its peak |ay| over the towing unit's, ISO 14791's ratio of peaks),
    ``u.peak_articulation_rad`` and ``u.final_y_m``."""
    import numpy as np
    v = "vehicle."
    _, e = shipped_path(path).project(result[v + "chassis.x"], result[v + "chassis.y"])
    peak = float(np.max(np.abs(result[v + "chassis.ay"])))
    out = {"max_path_error_m": float(np.max(np.abs(e))), "final_y_m": result.final(v + "chassis.y"),
           "peak_ay_m_s2": peak}
    for u in units:
        unit_peak = float(np.max(np.abs(result[f"{v}{u}.ay"])))
        out.update({f"{u}.peak_ay_m_s2": unit_peak, f"{u}.rearward_amplification": unit_peak / peak,
                    f"{u}.peak_articulation_rad": float(np.max(np.abs(result[f"{v}{u}.articulation"]))),
                    f"{u}.final_y_m": result.final(f"{v}{u}.y")})
    return out
