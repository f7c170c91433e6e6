"""The FMU systems of the shipped scenario catalogues, written as SSP system files
(``resources/scenarios/<name>.ssd``) that the catalogues name.

Each builder returns the :class:`~fmu_vehicle.cosim.system.System` of one kind of test: its components (FMU,
parameters that hold for every run, step sizes) in Gauss-Seidel order, its connections and its default
experiment.  A catalogue's protocol (``fmu_vehicle.adas.protocols``) sets what varies per run.  Wiring and
component parameters come from the example systems (``fmu_vehicle.scenarios.half_car``).

    ccr       Euro NCAP AEB car-to-car rear: LeadVehicle target, Controller in mode "aeb", VehicleLV with
              internal tires on the flat road, the driver's constant drive torque on the front wheel
    acc       ISO 15622 ACC: LeadVehicle, Controller (acc_aeb), Powertrain, VehicleLV (internal tires)
    platoon3  three ACC vehicles (Controller, Powertrain, VehicleLV each) behind a LeadVehicle
    ride      VehicleLV alone, its road a file outside the FMU (``allow_external_files``)
    chassis   the regulation tests of chassis control: Robot (steering, pedal, drive torque), ChassisControl
              (brakes with ABS, TCS, ESC) and Vehicle (the full car, internal tires)
    caravan   the ISO 3888-1 double lane change of a car towing a caravan: Driver (path follower) and
              VehicleCombination (sedan_caravan, internal tires)
    combination  the open-loop stability tests of a combination: Robot (steering and drive-torque tables) and
              VehicleCombination (sedan_caravan, internal tires)
    tractor_semitrailer
              a single lane change of the tractor-semitrailer at 70 km/h: Driver (path follower on
              resources/paths/truck_lane_change.csv) and TractorSemitrailer (internal tires)

The files are generated (the FMUs' model descriptions give the connectors' types and units)::

    python -m fmu_vehicle.adas.systems [--fmu-dir DIR]      rewrite resources/scenarios/*.ssd

and tests/test_sweep.py checks that the shipped files are what this module writes.

Each system also exists as a self-contained SSP archive, its FMUs inside (``resources/<component>.fmu``), that any
SSP host runs as it is::

    fmu-vehicle ssp [--out dist/ssp] [NAME ...]              one <name>.ssp per system (write_archives)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fmu_vehicle.scenarios.half_car import (CONTROLLER, LEAD_START_X_M, fmu_path, vehicle_component, follow_connections, platoon,
                                         powertrain_connections)
from fmu_vehicle.cosim.system import Component, Connection, System

CCR_DRIVE_TORQUE_NM = 50.0
"""Driver drive torque on the front wheel [N m] in the CCR tests and the ride runs: the half car's coast-down of
0.085 m/s^2 (measured on the flat road from 10 and 50 km/h) times its mass 1243 kg and wheel radius 0.4672 m,
so the speed stays within Euro NCAP's 1 km/h tolerance over the approach."""


def ccr_system(fmus: dict) -> System:
    """Euro NCAP car-to-car rear: the AEB alone brakes the car under test (the driver holds the speed)."""
    comps = [Component("lead", fmu_path(fmus, "LeadVehicle"), {"speed_profile": "standstill", "x0": LEAD_START_X_M}),
             Component("controller", fmu_path(fmus, "Controller"), {**CONTROLLER, "mode": "aeb"}, step_size=0.01),
             vehicle_component("vehicle", fmus, road="flat", v0=0.0, x0=0.0,
                      **{"wheel_front.torque_drive": CCR_DRIVE_TORQUE_NM})]
    cons = follow_connections("lead", "controller", leader_is_vehicle=False)
    cons += [Connection("controller", "brake_torque_front", "vehicle", "wheel_front.torque_brake"),
             Connection("controller", "brake_torque_rear", "vehicle", "wheel_rear.torque_brake"),
             Connection("vehicle", "chassis.x", "controller", "ego.x"),
             Connection("vehicle", "chassis.vx", "controller", "ego.vx"),
             Connection("vehicle", "chassis.ax", "controller", "ego.ax")]
    return System("ccr", comps, cons, stop_time=10.0, step_size=1e-3)


def acc_system(fmus: dict) -> System:
    """ISO 15622 ACC: the ego (ACC + AEB, powertrain, internal tires) from rest behind a lead 50 m ahead."""
    comps = [Component("lead", fmu_path(fmus, "LeadVehicle"), {"speed_profile": "standstill", "x0": LEAD_START_X_M}),
             Component("controller", fmu_path(fmus, "Controller"),
                       {**CONTROLLER, "acc.time_gap": 1.8, "acc.set_speed": 25.0, "mode": "acc_aeb"},
                       step_size=0.01),
             Component("powertrain", fmu_path(fmus, "Powertrain"), {}),
             vehicle_component("vehicle", fmus, road="flat", v0=0.0)]
    cons = follow_connections("lead", "controller", leader_is_vehicle=False)
    cons += powertrain_connections("vehicle", "powertrain", "controller")
    return System("acc", comps, cons, stop_time=25.0, step_size=1e-3)


def platoon3_system(fmus: dict) -> System:
    """Three ACC vehicles behind a lead (``scenarios.half_car.platoon``), master step 2 ms, flat road."""
    system = platoon(fmus, n=3, duration=20.0, road="flat").system
    system.name = "platoon3"
    return system


def ride_system(fmus: dict) -> System:
    """VehicleLV at constant speed; the protocol gives it a generated ISO 8608 road file."""
    comp = vehicle_component("vehicle", fmus, road="flat", allow_external_files=True, v0=20.0,
                    **{"wheel_front.torque_drive": CCR_DRIVE_TORQUE_NM})
    return System("ride", [comp], [], stop_time=8.0, step_size=1e-3)


CHASSIS_WHEELS = ("FL", "FR", "RL", "RR")
"""The full car's wheels, as the ChassisControl FMU names them."""


def chassis_system(fmus: dict) -> System:
    """Robot -> ChassisControl -> Vehicle (fullcar14) in Gauss-Seidel order, one step of 1 ms: the order and
    timing of ``control.closed_loop.run``. The car starts with its centre of mass at x = 0
    (``x0`` = 2.0 m, the design front axle ahead of it) on the flat road at 80 km/h; the protocols set the
    robot's tables, the road and the speed."""
    from fmu_vehicle.fmi.roads import road_parameters
    comps = [Component("robot", fmu_path(fmus, "Robot"), {}),
             Component("chassis_control", fmu_path(fmus, "ChassisControl"), {}),
             Component("vehicle", fmu_path(fmus, "Vehicle"), {"model": "fullcar14", **road_parameters("flat"),
                                                          "v0": 80.0 / 3.6, "x0": 2.0})]
    cons = [Connection("robot", "steering_wheel_angle", "vehicle", "steering_wheel_angle"),
            Connection("robot", "steering_wheel_angle", "chassis_control", "steering_wheel_angle"),
            Connection("robot", "pedal_force", "chassis_control", "driver.pedal_force"),
            Connection("robot", "drive_torque", "chassis_control", "driver.drive_torque")]
    cons += [Connection("vehicle", f"wheel_{w}.omega", "chassis_control", f"wheel_{w}.omega") for w in CHASSIS_WHEELS]
    cons += [Connection("vehicle", f"chassis.{q}", "chassis_control", f"chassis.{q}") for q in ("yaw_rate", "ay", "vx")]
    cons += [Connection("chassis_control", f"wheel_{w}.torque_{k}", "vehicle", f"wheel_{w}.torque_{k}")
             for w in CHASSIS_WHEELS for k in ("brake", "drive")]
    return System("chassis", comps, cons, stop_time=6.0, step_size=1e-3)


CARAVAN_SPEED_M_S = 60.0 / 3.6
"""Entry speed of the caravan's double lane change [m/s]: the speed of the full car's co-simulated lane change
(``scenarios.full_car``), about half the linear car-caravan model's critical (snaking) speed (docs/articulated.md
§5)."""


def caravan_system(fmus: dict) -> System:
    """Driver -> VehicleCombination (``sedan_caravan``: the full car towing its caravan, internal tires) in
    Gauss-Seidel order, one step of 1 ms: the ISO 3888-1 double lane change of ``scenarios.full_car`` at
    ``CARAVAN_SPEED_M_S``, its track laid out for the combination's width; the driver steers the car along the
    track's centre line and holds the entry speed with a drive torque split over the front wheels."""
    from fmu_vehicle.scenarios.full_car import double_lane_change
    system = double_lane_change(fmus, tires="internal", speed=CARAVAN_SPEED_M_S, vehicle_fmu="VehicleCombination",
                                model="sedan_caravan").system
    system.name = "caravan"
    return system


COMBINATION_DRIVEN_WHEELS = ("FL", "FR")
"""The towing car's driven wheels in ``sedan_caravan``: the robot's drive-torque table drives each of them."""


def combination_system(fmus: dict) -> System:
    """Robot -> VehicleCombination (``sedan_caravan``, internal tires) in Gauss-Seidel order, one step of 1 ms:
    the robot's steering-wheel angle steers the car, its drive-torque table is the torque on each of the car's
    driven wheels (``COMBINATION_DRIVEN_WHEELS``: the protocol gives the per-wheel value). The car starts with
    its centre of mass at x = 0 (``x0`` = 2.0 m) on the flat road; the protocols set the tables and the speed."""
    from fmu_vehicle.fmi.roads import road_parameters
    comps = [Component("robot", fmu_path(fmus, "Robot"), {}),
             Component("vehicle", fmu_path(fmus, "VehicleCombination"),
                       {"model": "sedan_caravan", **road_parameters("flat"), "v0": 80.0 / 3.6, "x0": 2.0})]
    cons = [Connection("robot", "steering_wheel_angle", "vehicle", "steering_wheel_angle")]
    cons += [Connection("robot", "drive_torque", "vehicle", f"wheel_{w}.torque_drive") for w in COMBINATION_DRIVEN_WHEELS]
    return System("combination", comps, cons, stop_time=7.0, step_size=1e-3)


TRUCK_SPEED_M_S = 70.0 / 3.6
"""Speed of the tractor-semitrailer's lane change [m/s]: between ISO 14791's 80 km/h for the rearward
amplification of heavy vehicle combinations and the 60 km/h of the car's lane changes."""

TRUCK_PATH = "truck_lane_change.csv"
"""The tractor-semitrailer's path (resources/paths): a 3.5 m lane change to the left over 80 m, about
1.4 m/s^2 of lateral acceleration at ``TRUCK_SPEED_M_S`` (the ISO 3888-1 double lane change, 3.5 m over 30 m
and back, is a passenger-car test: the loaded semitrailer swings out and jackknifes in it at 50-70 km/h)."""

TRUCK_DRIVER = {"vehicle.wheelbase": 4.78, "vehicle.steering_ratio": 20.0, "vehicle.mass": 35757.4,
                "vehicle.wheel_radius": 0.499}
"""Driver.fmu's vehicle fields for ``tractor_semitrailer`` (ISO 14792's convention for a combination, as
``manoeuvres.runs.constant_radius``): the tractor's wheelbase [m] and steering ratio [1] from its single-track
model (``single_track_of(towing_vehicle(car))``: 4.780 m, 19.98, rounded), the whole combination's mass
[kg] and the tires' free radius [m]; tests/test_fmu_tractor_semitrailer.py recomputes them."""


def tractor_semitrailer_system(fmus: dict) -> System:
    """Driver -> TractorSemitrailer (``tractor_semitrailer``, internal tires) in Gauss-Seidel order, one step
    of 1 ms: the lane change along ``TRUCK_PATH`` at ``TRUCK_SPEED_M_S`` (``scenarios.full_car.path_lane_change``);
    the driver steers the tractor and holds the speed with a drive torque shared by the four dual wheels of the
    driven tandem."""
    from fmu_vehicle.scenarios.full_car import path_lane_change
    system = path_lane_change(fmus, path=TRUCK_PATH, speed=TRUCK_SPEED_M_S, vehicle_fmu="TractorSemitrailer",
                              model="tractor_semitrailer", driver=TRUCK_DRIVER).system
    system.name = "tractor_semitrailer"
    return system


SYSTEMS = {"ccr": ccr_system, "acc": acc_system, "platoon3": platoon3_system, "ride": ride_system,
           "chassis": chassis_system, "caravan": caravan_system, "combination": combination_system,
           "tractor_semitrailer": tractor_semitrailer_system}
"""System file stem (resources/scenarios/<stem>.ssd) -> builder(fmus) -> System."""


def write_systems(fmus: dict, folder: str | Path) -> list[Path]:
    """Write every system of SYSTEMS as ``folder/<stem>.ssd`` (components name their FMU by file name)."""
    from fmu_vehicle.cosim.ssp import write_ssd

    return [write_ssd(build(fmus), Path(folder) / f"{stem}.ssd") for stem, build in SYSTEMS.items()]


def system_file(stem: str) -> Path:
    """The shipped system file ``resources/scenarios/<stem>.ssd`` (ModelError naming the known ones if unknown)."""
    from fmu_vehicle.errors import ModelError
    from fmu_vehicle.paths import resource_path

    if stem not in SYSTEMS:
        raise ModelError(f"unknown scenario system '{stem}' (shipped: {', '.join(SYSTEMS)})")
    return resource_path("scenarios", f"{stem}.ssd")


def system_fmu_names(stem: str) -> list[str]:
    """Registry names of the FMUs the shipped system ``stem`` uses (its components' sources, in order)."""
    return ssd_fmu_names(system_file(stem))


def ssd_fmu_names(path: str | Path) -> list[str]:
    """Registry names of the FMUs a system file (.ssd) uses: its components' source file stems, in order."""
    from lxml import etree

    from fmu_vehicle.cosim.ssp import SSD_NS

    root = etree.parse(str(path)).getroot()
    names = [Path(el.get("source")).stem for el in root.iter(f"{{{SSD_NS}}}Component")]
    return list(dict.fromkeys(names))


def write_archives(stems=None, out: str | Path | None = None, fmu_dir: str | Path | None = None,
                   log=print) -> list[Path]:
    """Write every shipped system in ``stems`` (default all of SYSTEMS) as ``out/<stem>.ssp`` (default dist/ssp).

    The archive holds the shipped ``<stem>.ssd`` as its ``SystemStructure.ssd`` (the same components,
    connectors, parameter bindings, connections and default experiment; sources ``resources/<component>.fmu``)
    and the FMUs from ``fmu_dir`` (default dist/fmus), built there first if missing or stale (``ensure_fmus``).
    The names are checked before anything is built; each archive is checked against the SSP 1.0 schema and
    written atomically (an error or Ctrl-C leaves no partial archive).  ``log`` gets one line per FMU built and
    per archive written.  Returns the archives' paths.
    """
    from fmu_vehicle.fmi.build_cache import ensure_fmus
    from fmu_vehicle.cosim.ssp import read_ssp, write_ssp
    from fmu_vehicle.paths import dist_dir

    stems = list(dict.fromkeys(stems or SYSTEMS))
    files = {stem: system_file(stem) for stem in stems}
    out = Path(out) if out is not None else dist_dir() / "ssp"
    written = []
    for i, (stem, ssd) in enumerate(files.items(), 1):
        built = ensure_fmus(system_fmu_names(stem), fmu_dir, log=log)
        system = read_ssp(ssd, fmu_dir=Path(next(iter(built.values()))).parent)
        path = write_ssp(system, out / f"{stem}.ssp")
        written.append(path)
        n = len(system.components)
        log(f"[{i}/{len(files)}] wrote {path} ({n} component{'' if n == 1 else 's'}, "
            f"{path.stat().st_size / 1e6:.1f} MB)")
    return written


def main(argv: list[str] | None = None) -> int:
    from fmu_vehicle.fmi.build_cache import ensure_fmus
    from fmu_vehicle.scenarios.half_car import FMU_NAMES
    from fmu_vehicle.paths import resource_path

    parser = argparse.ArgumentParser(prog="python -m fmu_vehicle.adas.systems", description=__doc__.split("\n")[0])
    parser.add_argument("--fmu-dir", help="folder of the built FMUs (default dist/fmus, built if missing)")
    a = parser.parse_args(argv)
    names = list(dict.fromkeys([*FMU_NAMES, "Vehicle", "ChassisControl", "Robot", "Driver", "VehicleCombination",
                                "TractorSemitrailer"]))
    for path in write_systems(ensure_fmus(names, a.fmu_dir, log=print), resource_path("scenarios")):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
