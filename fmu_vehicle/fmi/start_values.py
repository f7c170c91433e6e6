"""Start values of FMU inputs that follow from the FMUs' data files, so that each FMU run alone with its
defaults shows its model at a recognizable operating point (docs/fmus.md, "Run alone with the defaults").

Each function reads the data once per process (``functools.cache``): pythonfmu re-executes a slave script
at each instantiation, possibly after the first FMU's folder has been deleted (docs/fmu_hosts.md), so the
slave scripts call these with their resources folder and get the numbers of their first call.

``tire_rolling_start(data_dir)``
    The Tire's default wheel: rolling freely at ``TIRE_ROLLING_SPEED`` on level road (height 0 at x = 0,
    as every shipped road starts) under its nominal load.  From the default property file:

        static deflection  δ0 = Fz0' / (CZ LCZ),  Fz0' = FNOMIN LFZO           (pacejka.nominal_load)
        centre height      z0 = R0 - δ0                    (the loaded radius at the nominal load)
        spin               ω0 = v0 / Re(δ0)                (free rolling: slip velocity v0 - ω0 Re = 0;
                                                            pacejka.effective_rolling_radius)

    so that ``fz`` = CZ LCZ δ0 = Fz0' (vertical_force with δ̇ = 0) and the slip is zero.

``driver_path_start(width)``
    The Driver's default vehicle state: on the built-in ISO 3888-1 path (``lane_change_path(width)``) at
    its sample of largest |curvature| (a bend of the lane changes), heading along the path, at the
    standard's entry speed ``TEST_SPEED_KMH`` (= the default target speed): the driver steers to follow the
    curve with zero lateral and heading error.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

from fmu_vehicle.paths import resource_path

DEFAULT_TIRE_FILE = "tires/dai2022_sedan.tir"
"""The Tire FMU's default property file (relative to its resources), the source of its start values."""

TIRE_ROLLING_SPEED = 10.0
"""Forward speed of the Tire FMU's default wheel [m/s] (36 km/h)."""


class TireStart(NamedTuple):
    z: float          # wheel centre height above the road: the loaded radius at the nominal load [m]
    vx: float         # wheel centre forward speed [m/s]
    omega: float      # free-rolling spin about +y [rad/s]
    fz: float         # the normal load at that state: the scaled nominal load Fz0' [N]


@functools.cache
def tire_rolling_start(data_dir: str | None = None, tire_file: str = DEFAULT_TIRE_FILE,
                       speed: float = TIRE_ROLLING_SPEED) -> TireStart:
    """The Tire FMU's default wheel state (module doc) from ``tire_file`` in ``data_dir`` (None or a folder
    without it: the package's resources)."""
    from fmu_vehicle.tire.models import host, nominal_state, params, read_tire, unloaded_radius

    parts = tire_file.split("/")
    base = data_dir if data_dir is not None and Path(data_dir).joinpath(*parts).is_file() else None
    p = params(read_tire(resource_path(*parts, base=base)))
    fz0, delta0, re = nominal_state(p)
    return TireStart(z=float(host(unloaded_radius)(p) - delta0), vx=float(speed), omega=float(speed) / re, fz=fz0)


class DriverStart(NamedTuple):
    x: float          # chassis centre of mass x [m]
    y: float          # chassis centre of mass y [m]
    yaw: float        # heading of the path there [rad]
    vx: float         # forward speed = target speed [m/s]


@functools.cache
def driver_path_start(width: float) -> DriverStart:
    """The Driver FMU's default chassis state on the ISO 3888-1 path for a vehicle of ``width`` [m] (module doc)."""
    import numpy as np

    from fmu_vehicle.manoeuvres.lane_change import TEST_SPEED_KMH, lane_change_path

    path = lane_change_path(width)
    k = int(np.argmax(np.abs(path.curvature)))
    return DriverStart(x=float(path.x[k]), y=float(path.y[k]), yaw=float(path.heading[k]),
                       vx=TEST_SPEED_KMH / 3.6)
