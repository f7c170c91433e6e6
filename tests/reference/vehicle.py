"""Independent reference for an assembled vehicle: the Cartesian Newton-Euler solution of its mechanism
(:mod:`reference.cartesian`) loaded by the tires, the drive and brake torques and their reactions.

Test-only. The loads are applied here from the reference's own body states, not from the engine's:
    wheel centre c = the wheel body's point at its design centre, its velocity, the wheel's absolute
    angular velocity w and spin axis a = A_wheel a_design;
    internal tire: the package's contact kernel (``tire.contact.tire_contact``, tested on its own against
    an independent Magic Formula) at that wheel state and the road under c gives the force F at the
    contact point P and the rolling resistance moment My about a: the wheel body gets F at P and My a;
    external tire: F = (Fx, 0, Fz) at c and (0, My, 0) on the wheel (the FMU's input convention);
    drive torque T and brake torque -Tb tanh(w_rel / OMEGA_BRAKE) about the spin axis act on the wheel,
    their reaction (the opposite torque) on the hub (knuckle or carrier), w_rel = (w_wheel - w_hub) . a.
"""
from __future__ import annotations

import numpy as np

from fmu_vehicle.tire.contact import CONTACT_OUT_N, OUT_FORCE, OUT_MY, OUT_POINT, tire_contact
from fmu_vehicle.vehicle.dynamics import OMEGA_BRAKE

from . import cartesian


def wheel_state(bodies, wheel):
    """(centre, centre velocity, angular velocity, spin axis) of a WheelInfo's wheel in the reference."""
    b = bodies[wheel.body]
    c = b.point(np.asarray(wheel.center_m, float))
    return c, b.velocity(c), b.w.copy(), b.A @ np.asarray(wheel.spin_axis, float)


def loads(car, road, slip, inputs: dict, external_tires: dict | None = None):
    """external(bodies) for :func:`cartesian.solve`: the loads of every wheel of ``car``.

    ``slip``: transient slip state per wheel; ``inputs``: wheel name -> {"drive": T, "brake": Tb} [N m];
    ``external_tires``: wheel name -> (Fx, Fz, My) replaces the internal tire of that wheel.
    """
    def external(bodies):
        out = []
        for k, w in enumerate(car.spec.wheels):
            c, v, om, a = wheel_state(bodies, w)
            if external_tires is not None:
                fx, fz, my = external_tires[w.name]
                out += [(w.body, c, np.array([fx, 0.0, fz]), np.array([0.0, my, 0.0]))]
            else:
                res = np.zeros(CONTACT_OUT_N)
                x = float(c[0])
                tire_contact(car.tire_p[k], c, v, om, a, float(road.height(x)), float(road.slope(x)),
                             float(road.friction(x)), float(slip[k]), res)
                out += [(w.body, res[OUT_POINT:OUT_POINT + 3].copy(), res[OUT_FORCE:OUT_FORCE + 3].copy(),
                         res[OUT_MY] * a)]
            u = inputs.get(w.name, {})
            w_rel = (om - bodies[w.hub_body].w) @ a
            torque = u.get("drive", 0.0) - u.get("brake", 0.0) * np.tanh(w_rel / OMEGA_BRAKE)
            out += [(w.body, None, None, torque * a), (w.hub_body, None, None, -torque * a)]
        return out
    return external


def solve_vehicle(car, road, slip, inputs: dict, external_tires: dict | None = None) -> cartesian.Solution:
    """Reference accelerations at the state held in ``car.mech.data`` (after a ``vehicle_rhs`` call)."""
    return cartesian.solve_mechanism(car.mech, external=loads(car, road, slip, inputs, external_tires))
