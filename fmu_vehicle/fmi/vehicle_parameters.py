"""The vehicle FMUs' parameter tables: vehicle-file fields exposed as FMI parameters, with start values read
from the vehicle, suspension and tire files of each FMU's default model.

Four FMUs export the vehicle (``KINDS``): ``VehicleLV`` the longitudinal-vertical half car, ``Vehicle``
the full car, ``VehicleCombination`` a full car towing other units (docs/articulated.md §6) and
``TractorSemitrailer`` the 6x4 tractor with its semitrailer; a combination's table also covers the towed units'
corners and chassis masses. Each kind has its own corner ranges (``PASSENGER_CAR_CORNERS``,
``HEAVY_TRUCK_CORNERS``), tire radius range and longest internal step. ``parameter_table(fmu, data_dir)`` reads the start
values from ``data_dir`` (the FMU's resources folder) once per process and returns the same table on every later call: pythonfmu re-executes the slave
script at each instantiation, possibly after the first FMU's folder has been deleted (docs/fmu_hosts.md).
See docs/fmus.md.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import NamedTuple

from fmu_vehicle.errors import ModelError
from fmu_vehicle.tire.models import host, params, read_tire, unloaded_radius
from fmu_vehicle.paths import resource_path
from fmu_vehicle.vehicle.loader import load_vehicle_spec, vehicle_file_data, vehicle_value
from fmu_vehicle.vehicle.signals import TABLES

_SUSP = "{c}.suspension_overrides."
"""Override path of a corner's suspension field: ``{c}`` is the corner's path (``corner_paths``)."""


TIRE_RADIUS_M = (0.25, 0.7)
"""Range of a car's ``tire_<w>.unloaded_radius`` parameters [m] (``Kind.tire_radius``): passenger-car to
light-truck tires about the cars' design radius (0.4672 m). Each corner alone has a static equilibrium and runs
over the bumps across it; far beyond (about 0.9-2 m) one corner lifts the body out of its suspension travel and
no equilibrium exists."""

PASSENGER_CAR_CORNERS = (
    ("suspension_{w}.spring_stiffness", _SUSP + "spring.stiffness_N_per_m", "N/m",
     "{w} suspension spring rate", (1000.0, 10000.0), 1e7),
    ("suspension_{w}.spring_preload", _SUSP + "spring.preload_N", "N",
     "{w} suspension spring preload at the design length (compression +)", (-2e4, 0.0), 2e4),
    ("suspension_{w}.damping", _SUSP + "damper.damping_N_s_per_m", "N.s/m", "{w} suspension damper rate", 0.0, 1e5),
    ("wheel_{w}.mass", _SUSP + "masses_kg.wheel", "kg", "{w} wheel (rim + tire) mass", 1.0, 200.0),
    ("wheel_{w}.inertia_yy", _SUSP + "wheel_inertia_kg_m2.yy", "kg.m2", "{w} wheel spin inertia "
     "(at most the sum of the other two principal moments)", 0.01, 2.5),
)
"""The corner parameters of a car's FMU: (name, override path, unit, description, min, max); ``{w}`` is the
corner's name, ``{c}`` in the path its override path (``corner_paths``). A bound is one number for every corner
or a pair (front axle, other axles). Their reasoning: ``_override_table``."""

HEAVY_TRUCK_CORNERS = (
    ("suspension_{w}.spring_stiffness", _SUSP + "spring.stiffness_N_per_m", "N/m",
     "{w} suspension spring rate (one side of a beam axle)", 1e5, 1e7),
    ("suspension_{w}.spring_preload", _SUSP + "spring.preload_N", "N",
     "{w} suspension spring preload at the design length (compression +)", 0.0, 6e4),
    ("suspension_{w}.damping", _SUSP + "damper.damping_N_s_per_m", "N.s/m", "{w} suspension damper rate", 0.0, 5e5),
    ("wheel_{w}.mass", _SUSP + "masses_kg.wheel", "kg", "{w} wheel (rim + tire, a dual pair as one) mass",
     (30.0, 30.0, 60.0), (300.0, 300.0, 600.0)),
    ("wheel_{w}.inertia_yy", _SUSP + "wheel_inertia_kg_m2.yy", "kg.m2", "{w} wheel spin inertia "
     "(at most the sum of the other two principal moments)", (1.0, 1.0, 2.0), (24.0, 24.0, 62.0)),
)
"""The corner parameters of a heavy truck's FMU, as ``PASSENGER_CAR_CORNERS``; a bound is one number or a
triple (front axle, other single-tire axles, dual-tire axles). About a 6x4 tractor's and a semitrailer's
corners (``tractor_semitrailer``: wheel loads of 25-30 kN, leaf springs of 0.6-1.0 MN/m with preloads of
21-29 kN near their static forces, dampers of 0.9-1.6e5 N s/m, single wheels of 120-135 kg and 21.6 kg m^2,
dual pairs of 255 kg and 43.3 kg m^2); a wheel's spin inertia ends below the sum of its other two moments
(24.2 kg m^2 for a single wheel, 62.2 for a dual pair). Each corner alone at either end has a static
equilibrium and runs (tests/test_fmu_ranges.py)."""


class Kind(NamedTuple):
    """One vehicle FMU: the vehicle files it offers (all with the same corner and unit names; the first gives the
    start values, and a parameter left at its start value keeps the chosen file's own value:
    ``vehicle_slave.load_vehicle``), its signal table, the chassis parameters it exposes (name, path, unit,
    description, min, max), for a combination the same for each towed unit's chassis (``{u}`` in name, path
    and description is the unit's name), the corner parameters (``PASSENGER_CAR_CORNERS``), the range of
    the tires' free radius (min, max) [m] and the longest internal step ``dt`` [s] with the reason for it."""
    models: tuple
    signals: object
    chassis: tuple
    unit_chassis: tuple = ()
    corners: tuple = PASSENGER_CAR_CORNERS
    tire_radius: tuple = TIRE_RADIUS_M
    dt_max: tuple = (0.01, "RK4 at 0.1 s loses the wheel-hop and tire modes")


KINDS = {
    "VehicleLV": Kind(("halfcar7", "halfcar7_forkarm"), TABLES["longitudinal_vertical"], (
        ("chassis.mass", "chassis.mass_kg", "kg", "chassis mass of the half car (one side of the symmetric "
         "vehicle)", 50.0, 3000.0),
        ("chassis.inertia_yy", "chassis.inertia_kg_m2.yy", "kg.m2", "chassis pitch inertia about its centre of "
         "mass (the other principal moments bound it: triangle inequality)", 4100.0, 5100.0))),
    "Vehicle": Kind(("fullcar14", "fullcar14_forkarm", "midsize14"), TABLES["full_vehicle"], (
        ("chassis.mass", "chassis.mass_kg", "kg", "chassis (sprung) mass of the whole vehicle", 100.0, 6000.0),)),
    "VehicleCombination": Kind(("sedan_caravan",), TABLES["full_vehicle"], (
        ("chassis.mass", "chassis.mass_kg", "kg", "chassis (sprung) mass of the towing unit", 100.0, 6000.0),), (
        ("{u}.chassis_mass", "units.{u}.chassis.mass_kg", "kg", "{u} chassis (body) mass, its axle's corners not "
         "included (its centre of mass and inertia stay as in the vehicle file)", 200.0, 3000.0),)),
    "TractorSemitrailer": Kind(("tractor_semitrailer",), TABLES["full_vehicle"], (
        ("chassis.mass", "chassis.mass_kg", "kg", "chassis (sprung) mass of the tractor", 4000.0, 20000.0),), (
        ("{u}.chassis_mass", "units.{u}.chassis.mass_kg", "kg", "{u} chassis (body and payload) mass, its axles' "
         "corners not included (its centre of mass and inertia stay as in the vehicle file)", 5000.0, 30000.0),),
        HEAVY_TRUCK_CORNERS, (0.4, 0.6), (0.005, "RK4 at 8 ms diverges on the bumpy road: the leaf springs "
                                                  "and bump stops of the axles are stiff")),
}
"""The vehicle FMUs by model name."""

MODEL_RANGES = {
    "midsize14": {
        "chassis.mass": (100.0, 4000.0),
        **{f"suspension_{w}.spring_preload": (0.0, 18000.0) for w in ("FL", "FR")},
        **{f"suspension_{w}.spring_preload": (0.0, 8000.0) for w in ("RL", "RR")},
        **{f"wheel_{w}.inertia_yy": (0.01, 1.1) for w in ("FL", "FR", "RL", "RR")},
        **{f"tire_{w}.unloaded_radius": (0.25, 0.575) for w in ("FL", "FR", "RL", "RR")},
    },
}
"""Narrower ranges of a model that is not its FMU's first: parameter -> (min, max). The declared min/max of the
FMU's variables hold for its first model (``fullcar14``) and every model not listed here; the mid-size car's
corners carry about 60 % of the full car's load on softer springs and smaller wheels, and beyond these bounds
its static equilibrium leaves the suspension travel or the solver finds none reliably (a negative front preload,
a rear preload above about five times its 1.5 kN, a body above 4 t, a tire of 0.6 m and more fail at some
values), or its wheel's inertia breaks I1 + I2 >= I3 (rim and tire about the axle at most twice the 0.55 kg m^2
about a diameter). A value outside is refused at initialization naming the parameter and
the model (``vehicle_slave.load_vehicle``); tests/test_fmu_ranges.py sweeps these ranges for the model."""


def model_range(model: str, name: str, declared: tuple[float, float]) -> tuple[float, float]:
    """(min, max) of parameter ``name`` for vehicle file ``model``: ``MODEL_RANGES`` or the ``declared`` range."""
    return MODEL_RANGES.get(model, {}).get(name, declared)


def _pick(bound, i: int):
    """A bound shared by all corners, or the one of a tuple (front axle, other axles[, dual-tire axles]) for a
    corner of class i (``_corner_class``); a pair gives a dual-tire corner the other axles' bound."""
    return bound[min(i, len(bound) - 1)] if isinstance(bound, tuple) else bound


def _corner_class(corner: dict, x_front: float) -> int:
    """0 for a corner of the front axle (at the largest wheel-centre x, ``x_front`` [m]), 2 for a corner with
    dual tires, 1 for any other (a towed unit's corners among them: they are not steered)."""
    if corner["wheel_center_m"][0] >= x_front:
        return 0
    return 2 if corner.get("dual") else 1


def corner_paths(data: dict) -> dict:
    """Corner name -> its ``Vehicle.load`` override path (``corners.<w>``, or ``units.<u>.corners.<w>`` for a
    towed unit's corner) of every corner of the vehicle file data ``data``, towing unit first."""
    out = {c["name"]: f"corners.{c['name']}" for c in data["corners"]}
    for u in data.get("units", ()):
        out.update({c["name"]: f"units.{u['name']}.corners.{c['name']}" for c in u["corners"]})
    return out


def _corner_data(data: dict, path: str) -> dict:
    """The corner entry of vehicle file data ``data`` at override path ``path`` (``corner_paths``)."""
    keys = path.split(".")
    node = data
    for k in keys:
        node = next(c for c in node if c.get("name") == k) if isinstance(node, list) else node[k]
    return node


def start_value(model: str, path: str, base=None):
    """The effective value of override path ``path`` in vehicle file ``model``: ``loader.vehicle_value``, which
    reads a towing-unit corner's suspension file; for a towed unit's corner
    (``units.<u>.corners.<w>.suspension_overrides.<field>``) the corner's own override, else its suspension
    file's value. ModelError names the path when it leads nowhere."""
    head, sep, field = path.partition(".suspension_overrides.")
    if not (sep and head.startswith("units.")):
        return vehicle_value(model, path, base=base)
    corner = _corner_data(vehicle_file_data(model, base=base), head)
    suspension = json.loads(resource_path("vehicles", "suspensions", corner["suspension"], base=base).read_text())
    for node in (corner.get("suspension_overrides", {}), suspension):
        for k in field.split("."):
            node = node.get(k) if isinstance(node, dict) else None
        if node is not None:
            return node
    raise ModelError(f"vehicle '{model}': no value at '{path}'")


def _override_table(kind: Kind, corners, units=()) -> dict:
    """FMI parameter -> (Vehicle.load override path, unit, description, min, max) of the chassis parameters of
    ``kind``, those of each towed unit of ``units`` (names) and those of each corner of ``corners``, (name,
    override path of ``corner_paths``, class of ``_corner_class``), its rows ``kind.corners``. The cars'
    ranges (``PASSENGER_CAR_CORNERS``): the half car's are
    those in which it has a static equilibrium and runs over the bumpy road at 30 m/s at dt = 1 ms (each
    parameter alone, the others at their start values; tests/test_vehicle_lv_ranges.py); a pair (front,
    rear) where the corners differ. The full car has the same corners and takes the same ranges; each of its
    corners alone works across them too (tests/test_fmu_ranges.py). The spring preload ends at 20 kN (about four
    times a rear corner's static load): above it the full car's equilibrium solve failed at some values (one
    rear corner at 25 kN, not its mirror image). A towed unit's corners take the rear corners' ranges (the
    caravan's are the car's five-link rear corners, under about the same load); each caravan parameter at either
    end, the caravan's chassis mass included, had an equilibrium and ran 2 s over the bumpy road at 30 m/s when
    the ranges were chosen, and tests/test_fmu_ranges.py sweeps every range of the combination FMU. The
    tractor-semitrailer's (``HEAVY_TRUCK_CORNERS``, its chassis masses in ``KINDS``): each at either end alone had
    an equilibrium and ran 2 s over the bumpy road at 20 m/s with 1.5 rad of steering-wheel angle when they
    were chosen, and the same sweep covers them."""
    return {
        **{name: (path, unit, desc, lo, hi) for name, path, unit, desc, lo, hi in kind.chassis},
        **{name.format(u=u): (path.format(u=u), unit, desc.format(u=u), lo, hi)
           for u in units for name, path, unit, desc, lo, hi in kind.unit_chassis},
        **{name.format(w=w): (path.format(c=c), unit, desc.format(w=w), _pick(lo, cls), _pick(hi, cls))
           for w, c, cls in corners for name, path, unit, desc, lo, hi in kind.corners},
    }


class ParameterTable(NamedTuple):
    wheels: tuple            # corner names of the vehicle files
    overrides: dict          # FMI parameter -> (override path, unit, description, start, min, max)
    tire_radius: dict        # FMI parameter -> (wheel, start [m] from that corner's .tir file)
    steering: tuple | None   # (steering-wheel angle limit [rad], rack travel limit [m]) of the steered kind
    units: tuple = ()        # towed unit names of a combination (their outputs: signal scope ``unit``)
    tire_radius_range: tuple = TIRE_RADIUS_M   # (min, max) of the tire_<w>.unloaded_radius parameters [m]
    axles: tuple = ()        # loader.AxleSpec per axle (loader.vehicle_axles; outputs: signal scope ``axle``)

    @property
    def axle_names(self) -> tuple:
        """The axles' names, in ``axles`` order."""
        return tuple(a.name for a in self.axles)


def steering_limits(models, base=None) -> tuple[float, float]:
    """(steering-wheel angle limit [rad], rack travel limit [m]) of the steering inputs' declared ranges: the
    rack's end stops (``SteeringSpec.rack_travel_limit_m``, ``angle_limit_rad``), the largest over the vehicle
    files of ``models``. A value beyond the chosen file's own stops (a smaller car's) is refused at the step
    by the simulator (``VehicleSimulator.set_steering``/``set_rack_travel``: Discard, naming the input and the
    vehicle), so that one car's stops do not narrow another's."""
    specs = [load_vehicle_spec(model, base=base).steering for model in models]
    return max(s.angle_limit_rad for s in specs), max(s.rack_travel_limit_m for s in specs)


@functools.cache
def parameter_table(fmu: str, data_dir: str | None) -> ParameterTable:
    """The table of vehicle FMU ``fmu`` (a key of ``KINDS``) with start values read from the data files in
    ``data_dir`` (None or a folder without ``vehicles/``: the package's resources); computed once per process."""
    kind = KINDS[fmu]
    model = kind.models[0]
    base = data_dir if data_dir is not None and (Path(data_dir) / "vehicles").is_dir() else None
    data = vehicle_file_data(model, base=base)
    paths = corner_paths(data)
    corners = [_corner_data(data, path) for path in paths.values()]
    wheels = tuple(paths)
    units = tuple(u["name"] for u in data.get("units", ()))
    x_front = max(c["wheel_center_m"][0] for c in corners)
    rows = [(w, paths[w], _corner_class(c, x_front)) for w, c in zip(wheels, corners)]
    overrides = {name: (path, unit, desc, float(start_value(model, path, base=base)), lo, hi)
                 for name, (path, unit, desc, lo, hi) in _override_table(kind, rows, units).items()}
    tires = {c["name"]: params(read_tire(resource_path("tires", c["tire"], base=base), c.get("tire_model"),
                                         f"corner '{c['name']}': field 'tire_model'")) for c in corners}
    radius = {f"tire_{name}.unloaded_radius": (name, float(host(unloaded_radius)(p))) for name, p in tires.items()}
    steered = bool(kind.signals.vehicle_inputs)
    axles = load_vehicle_spec(model, base=base).axles
    return ParameterTable(wheels, overrides, radius, steering_limits(kind.models, base) if steered else None, units,
                          kind.tire_radius, axles)
