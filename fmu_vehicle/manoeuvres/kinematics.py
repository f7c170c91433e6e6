"""Suspension kinematics sweep, the analysis side: toe and camber of a wheel against wheel travel (rack
centred) and against rack travel (wheel at its design position), with their gradients at the design
position. The numbers come from the vehicle (a quasi-static sweep of its suspension); this module only
checks, tabulates and summarises them. Angles are taken as given (radians, the vehicle's sign convention)
and reported in degrees. Described in docs/handling.md §9.

Gradients at the design position (travel 0) are the slopes of a least-squares parabola through the
samples within ``GRADIENT_SPAN_M`` of it: bump steer d(toe)/dz, camber change d(camber)/dz, and the
steering gradients d(toe)/d(rack) and d(camber)/d(rack), in deg/m (deg/mm = deg/m / 1000).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fmu_vehicle.errors import ModelError

GRADIENT_SPAN_M = 0.02
"""Half-width of the travel window around 0 for the gradients [m]."""


@dataclass(frozen=True)
class Sweep:
    """One sweep: travel [m] and toe, camber [deg] at each travel (sorted by travel)."""

    travel_m: np.ndarray
    toe_deg: np.ndarray
    camber_deg: np.ndarray


@dataclass(frozen=True)
class KinematicsTable:
    """The wheel-travel sweep, the optional rack sweep and the gradients at the design position [deg/m]."""

    name: str
    wheel: Sweep
    rack: Sweep | None
    gradients_deg_per_m: dict

    def rows(self) -> list[dict]:
        """The table as rows (sweep, travel_mm, toe_deg, camber_deg) for CSV or display."""
        out = []
        for label, sweep in (("wheel travel", self.wheel), ("rack travel", self.rack)):
            if sweep is None:
                continue
            out += [{"sweep": label, "travel_mm": 1000.0 * float(z), "toe_deg": float(a), "camber_deg": float(c)}
                    for z, a, c in zip(sweep.travel_m, sweep.toe_deg, sweep.camber_deg)]
        return out


def _sweep(name, what, travel, toe, camber) -> Sweep:
    arrays = [np.asarray(a, dtype=float).ravel() for a in (travel, toe, camber)]
    if not (arrays[0].size == arrays[1].size == arrays[2].size):
        raise ModelError(f"{name}: the {what} sweep needs one toe and one camber per travel, got "
                         f"{arrays[0].size}, {arrays[1].size}, {arrays[2].size}")
    if arrays[0].size < 3:
        raise ModelError(f"{name}: the {what} sweep needs at least 3 points")
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise ModelError(f"{name}: the {what} sweep contains a value that is not a finite number")
    order = np.argsort(arrays[0])
    z = arrays[0][order]
    if np.any(np.diff(z) == 0.0):
        raise ModelError(f"{name}: the {what} sweep repeats a travel")
    if not (z[0] <= 0.0 <= z[-1]):
        raise ModelError(f"{name}: the {what} sweep must include the design position (travel 0)")
    return Sweep(z, np.degrees(arrays[1][order]), np.degrees(arrays[2][order]))


def _gradient_at_zero(z, a) -> float:
    use = np.abs(z) <= GRADIENT_SPAN_M
    if use.sum() < 3:
        use = np.argsort(np.abs(z))[:3]
    zz, aa = z[use], a[use]
    return float(np.polyfit(zz, aa, min(2, zz.size - 1))[-2])


def kinematics_table(wheel_travel_m, toe_rad, camber_rad, rack_travel_m=None, toe_rack_rad=None,
                     camber_rack_rad=None, *, name: str = "wheel") -> KinematicsTable:
    """Tabulate a kinematics sweep (module docstring): toe and camber [rad] at each wheel travel [m]
    (+ = bump, wheel towards the body), and optionally at each rack travel [m] (+ = rack to the left)."""
    wheel = _sweep(name, "wheel-travel", wheel_travel_m, toe_rad, camber_rad)
    rack = None
    if rack_travel_m is not None:
        if toe_rack_rad is None or camber_rack_rad is None:
            raise ModelError(f"{name}: a rack sweep needs toe_rack_rad and camber_rack_rad")
        rack = _sweep(name, "rack-travel", rack_travel_m, toe_rack_rad, camber_rack_rad)
    grads = {"bump_steer": _gradient_at_zero(wheel.travel_m, wheel.toe_deg),
             "camber_change": _gradient_at_zero(wheel.travel_m, wheel.camber_deg)}
    if rack is not None:
        grads["toe_per_rack"] = _gradient_at_zero(rack.travel_m, rack.toe_deg)
        grads["camber_per_rack"] = _gradient_at_zero(rack.travel_m, rack.camber_deg)
    return KinematicsTable(name, wheel, rack, grads)
