"""Mechanism files and random consistent states for the multibody tests."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np

from fmu_vehicle.multibody import Mechanism
from fmu_vehicle.multibody.model import JOINT_PRISMATIC
from fmu_vehicle.paths import resources_dir

MECHANISMS = resources_dir() / "mechanisms"


def mechanism_dict(name: str) -> dict:
    """The parsed JSON of resources/mechanisms/<name>.json (a fresh copy)."""
    return copy.deepcopy(json.loads((MECHANISMS / f"{name}.json").read_text()))


def load(name: str) -> Mechanism:
    return Mechanism.from_file(MECHANISMS / f"{name}.json")


def random_state(mech: Mechanism, rng, angle=1.0, rate=3.0, travel=0.05, speed=0.5, prescribed=None) -> np.ndarray:
    """Assemble ``mech`` at random independent coordinates/velocities: revolute coordinates uniform in
    +-angle [rad] and +-rate [rad/s], prismatic ones in +-travel [m] and +-speed [m/s]; ``prescribed``
    {name: (position, velocity)} gives the driven coordinates."""
    pos, vel = {}, {}
    for i in mech.data.indep:
        name = mech.coordinate_names[i]
        prismatic = mech.model.jtype[i] == JOINT_PRISMATIC
        pos[name] = rng.uniform(-1.0, 1.0) * (travel if prismatic else angle)
        vel[name] = rng.uniform(-1.0, 1.0) * (speed if prismatic else rate)
    for name, (p, v) in (prescribed or {}).items():
        pos[name], vel[name] = p, v
    return mech.assemble(pos, vel)


def coordinates(mech: Mechanism) -> tuple[dict, dict]:
    """(z, zd) of the workspace as {coordinate name: value}."""
    names = mech.coordinate_names
    return ({c: float(mech.data.z[i]) for i, c in enumerate(names)},
            {c: float(mech.data.zd[i]) for i, c in enumerate(names)})
