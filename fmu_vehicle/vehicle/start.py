"""The state a run starts from at a speed v0, given the vehicle's static equilibrium (``Vehicle.start_table``).

The static equilibrium on the road (positions, zero velocities) does not depend on the start speed; only the
velocities do, linearly. ``Vehicle.start_table`` solves the equilibrium once and records, per slot k of the
state y = [z^i, zd^i, tire states]:

* ``speed_gain[k]``: the chassis's independent velocities along the road tangent t = (1, grade)/|(1, grade)|
  (zd_x = v0 t_x, zd_z = v0 t_z), 0 elsewhere;
* ``spin_radius[k]`` [m]: each wheel spin's effective rolling radius r_e at the equilibrium (free rolling,
  omega = v0 / r_e), 0 elsewhere;
* ``y_rest``: the state at rest, whose tire states (from ``tire_from`` on) carry no lateral force at rest
  (``vehicle.equilibrium``); moving straight (v0 != 0) they start at 0.

:func:`start_state` turns the table into y for any v0. The Python simulator and the native FMU (an entry point
of its binary, so that ``v0`` stays settable there) call this same kernel. See docs/vehicle.md (Initial state).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..numerics.jit import njit


class StartTable(NamedTuple):
    """What :func:`start_state` needs (module docstring); arrays of the state's length."""
    y_rest: np.ndarray
    speed_gain: np.ndarray
    spin_radius: np.ndarray
    tire_from: int


@njit
def start_state(y_rest, speed_gain, spin_radius, tire_from, v0, y):
    """Write into ``y`` the state moving at ``v0`` [m/s] along the road from the table's equilibrium:
    y[k] = v0 speed_gain[k] where the gain is non-zero (chassis), v0 / spin_radius[k] where the radius is
    positive (wheel spins), 0 for the tire states (k >= tire_from) when v0 != 0, else y_rest[k]."""
    for k in range(y.shape[0]):
        if speed_gain[k] != 0.0:
            y[k] = v0 * speed_gain[k]
        elif spin_radius[k] > 0.0:
            y[k] = v0 / spin_radius[k]
        elif k >= tire_from and v0 != 0.0:
            y[k] = 0.0
        else:
            y[k] = y_rest[k]


def initial_y(table: StartTable, v0: float) -> np.ndarray:
    """:func:`start_state` into a new array."""
    y = np.empty_like(table.y_rest)
    start_state(table.y_rest, table.speed_gain, table.spin_radius, table.tire_from, float(v0), y)
    return y
