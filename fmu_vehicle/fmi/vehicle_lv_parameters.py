"""The VehicleLV FMU's parameter table: vehicle-file fields exposed as FMI parameters, with start values read
from the vehicle, suspension and tire files of the default model (``paths.resources_dir()``: the package's
data, or inside an FMU the FMU's resources folder). Read once per process at import. See docs/fmus.md.
"""
from __future__ import annotations

from fmu_vehicle.tire.tir import P_R0, read_tir
from fmu_vehicle.paths import resource_path
from fmu_vehicle.vehicle.loader import vehicle_file_data, vehicle_value
from fmu_vehicle.vehicle.signals import TABLES

#: Vehicle files this FMU offers (all have the corners ``WHEELS``); the first gives the start values.
MODELS = ("halfcar7", "halfcar7_forkarm")

WHEELS = tuple(c["name"] for c in vehicle_file_data(MODELS[0])["corners"])

#: The signal table of the vehicle kind this FMU exports (its inputs and outputs).
SIGNALS = TABLES["longitudinal_vertical"]

_SUSP = "corners.{w}.suspension_overrides."


def _pick(bound, i: int):
    """A bound shared by both corners, or the i-th of a (front, rear) pair."""
    return bound[i] if isinstance(bound, tuple) else bound


#: FMI parameter -> (Vehicle.load override path, unit, description, min, max); the start value is the
#: path's value in the vehicle file ``MODELS[0]``. The ranges are those in which the vehicle has a static
#: equilibrium and runs over the bumpy road at 30 m/s at dt = 1 ms (each parameter alone, the others at
#: their start values; tests/test_vehicle_lv_ranges.py); a pair (front, rear) where the corners differ.
_OVERRIDE_TABLE = {
    "chassis.mass": ("chassis.mass_kg", "kg", "chassis mass of the half car (one side of the symmetric vehicle)",
                     50.0, 3000.0),
    "chassis.inertia_yy": ("chassis.inertia_kg_m2.yy", "kg.m2", "chassis pitch inertia about its centre of mass "
                           "(the other principal moments bound it: triangle inequality)", 4100.0, 5100.0),
    **{name.format(w=w): (path.format(w=w), unit, desc.format(w=w), _pick(lo, i), _pick(hi, i))
       for i, w in enumerate(WHEELS)
       for name, path, unit, desc, lo, hi in (
           ("suspension_{w}.spring_stiffness", _SUSP + "spring.stiffness_N_per_m", "N/m",
            "{w} suspension spring rate", (1000.0, 10000.0), 1e7),
           ("suspension_{w}.spring_preload", _SUSP + "spring.preload_N", "N",
            "{w} suspension spring preload at the design length (compression +)", (-2e4, 0.0), (2e4, 1e5)),
           ("suspension_{w}.damping", _SUSP + "damper.damping_N_s_per_m", "N.s/m",
            "{w} suspension damper rate", 0.0, 1e5),
           ("wheel_{w}.mass", _SUSP + "masses_kg.wheel", "kg", "{w} wheel (rim + tire) mass", 1.0, 200.0),
           ("wheel_{w}.inertia_yy", _SUSP + "wheel_inertia_kg_m2.yy", "kg.m2", "{w} wheel spin inertia "
            "(at most the sum of the other two principal moments)", 0.01, 2.5),
       )},
}

#: FMI parameter -> (Vehicle.load override path, unit, description, start, min, max).
OVERRIDES = {name: (path, unit, desc, float(vehicle_value(MODELS[0], path)), lo, hi)
             for name, (path, unit, desc, lo, hi) in _OVERRIDE_TABLE.items()}

#: FMI parameter -> (wheel whose tire free radius it sets, start value [m] from that corner's .tir file).
TIRE_RADIUS = {f"tire_{c['name']}.unloaded_radius":
               (c["name"], float(read_tir(resource_path("tires", c["tire"])).to_array()[P_R0]))
               for c in vehicle_file_data(MODELS[0])["corners"]}

