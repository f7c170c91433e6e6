"""Open-loop driver commands: steering-wheel angle, brake pedal force and drive torque played back against time,
as a test robot gives them (the Robot FMU, ``control.closed_loop.run``).

Each channel is piecewise linear between its breakpoints (t_i, v_i) and held outside them; the steering is a
:class:`~fmu_vehicle.driver.profile.SteeringProfile` [rad], the pedal force [N] and the drive torque [N m] are
[(t, value), ...] lists or constants. Described in docs/chassis_control.md and docs/fmus.md §11.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError


def _profile(points, what: str):
    """A piecewise-linear function of time from [(t [s], value), ...] (held outside), or a constant."""
    if points is None:
        return lambda t: 0.0
    if isinstance(points, (int, float)):
        v = float(points)
        return lambda t: v
    pts = np.asarray(points, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 2 or not np.all(np.isfinite(pts)) or np.any(np.diff(pts[:, 0]) <= 0):
        raise ModelError(f"{what}: expected [(t, value), ...] with increasing finite times, got {points!r}")
    return lambda t: float(np.interp(t, pts[:, 0], pts[:, 1]))


@dataclass
class OpenLoopDriver:
    """Profiles played back: ``steer`` a :class:`~fmu_vehicle.driver.profile.SteeringProfile` (or None: wheel
    held straight), ``pedal_force_N`` and ``drive_torque_Nm`` as [(t, value), ...] piecewise linear or a
    constant."""

    steer: object = None
    pedal_force_N: object = None
    drive_torque_Nm: object = None

    def __post_init__(self):
        self._pedal = _profile(self.pedal_force_N, "pedal_force_N")
        self._drive = _profile(self.drive_torque_Nm, "drive_torque_Nm")

    def at(self, t: float) -> tuple[float, float, float]:
        """(steering-wheel angle [rad], pedal force [N], drive torque [N m]) at time ``t`` [s]."""
        return 0.0 if self.steer is None else float(self.steer.angle(t)), self._pedal(t), self._drive(t)

    def command(self, t: float, h: float, outputs: dict):
        return self.at(t + h)
