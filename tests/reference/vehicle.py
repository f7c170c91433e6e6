"""Independent reference for an assembled vehicle: the Cartesian Newton-Euler solution of its mechanism
(:mod:`reference.cartesian`) loaded by the tires, the drive and brake torques and their reactions.

Test-only. The loads are applied here from the reference's own body states, not from the engine's:
    wheel centre c = the wheel body's point at its design centre, its velocity, the wheel's absolute
    angular velocity w and spin axis a = A_wheel a_design;
    internal tire: the package's contact kernel (``tire.contact.tire_contact_3d``, tested on its own against
    an independent Magic Formula) at that wheel state, mirrored for a right-hand corner, and the road under c
    (the engine's compiled road record, read at c_x plus the engine's x origin) gives the force F at the
    contact point P, the rolling resistance moment My about a and the aligning moment Mz: the wheel body
    gets F at P and My a + Mz n_perp, n_perp the road normal's unit part perpendicular to a;
    external tire: F = (Fx, Fy, Fz) at c and (0, My, Mz) on the wheel (the FMU's input convention);
    drive torque T and the brake torque Tbr about the spin axis act on the wheel, their reaction (the
    opposite torque) on the hub (knuckle or carrier). The brake is a bristle element written here from its
    equations: w_rel = (w_wheel - w_hub) . a, k = wb^2 I, c = 2 zeta wb I (I = a . I_wheel a), phi_s = Tb / k,
    phi' = w_rel - min(|w_rel|, r phi_s) phi / phi_s, Tbr = -clip(k phi + c phi', -Tb, Tb) (0 when Tb = 0).
An anti-roll bar between the centres c_L, c_R of an axle's wheels, with rate k_w at the wheel, acts along the
chassis body's z axis e: f = k_w (e . (c_L - c_R) - (z_L - z_R)), z the design centres' heights; -f e on the left
wheel and +f e on the chassis at c_L, +f e on the right wheel and -f e on the chassis at c_R.
"""
from __future__ import annotations

import numpy as np

from fmu_vehicle.road import road_eval
from fmu_vehicle.tire.contact import CONTACT_OUT_N, OUT_FORCE, OUT_MY, OUT_MZ, OUT_NORMAL, OUT_POINT, tire_contact_3d
from fmu_vehicle.tire.brake import BRAKE_DAMPING_RATIO, BRAKE_RATE_MAX, BRAKE_STICK_FREQUENCY

from . import cartesian


def wheel_state(bodies, wheel):
    """(centre, centre velocity, angular velocity, spin axis) of a WheelInfo's wheel in the reference."""
    b = bodies[wheel.body]
    c = b.point(np.asarray(wheel.center_m, float))
    return c, b.velocity(c), b.w.copy(), b.A @ np.asarray(wheel.spin_axis, float)


def brake(t_max, phi, w_rel, inertia):
    """Brake torque on the wheel [N m] (module docstring)."""
    if t_max <= 0.0:
        return 0.0
    k = BRAKE_STICK_FREQUENCY ** 2 * inertia
    c = 2.0 * BRAKE_DAMPING_RATIO * BRAKE_STICK_FREQUENCY * inertia
    phi_s = t_max / k
    phi_dot = w_rel - min(abs(w_rel), BRAKE_RATE_MAX * phi_s) * phi / phi_s
    return -float(np.clip(k * phi + c * phi_dot, -t_max, t_max))


def loads(car, road, states, inputs: dict, external_tires: dict | None = None, x_origin: float = 0.0):
    """external(bodies) for :func:`cartesian.solve`: the loads of every wheel of ``car``.

    ``states``: the vehicle's wheel states: transient slip per wheel, brake bristle angle per wheel, lateral
    transient slip tan(alpha') per wheel; ``inputs``: wheel name -> {"drive": T, "brake": Tb} [N m];
    ``external_tires``: wheel name -> (Fx, Fy, Fz, My, Mz) replaces the internal tire of that wheel;
    ``x_origin``: road x of the engine's x origin (the road under a wheel is read at its x + x_origin).
    """
    nw = len(car.spec.wheels)
    slip, phi, lateral = states[:nw], states[nw:2 * nw], states[2 * nw:]
    road_arrays, rout = road.to_arrays(), np.zeros(3)
    bodies_spec = {b.name: b for b in car.spec.mechanism.bodies}
    wheels = {w.name: w for w in car.spec.wheels}

    def external(bodies):
        out = []
        for k, w in enumerate(car.spec.wheels):
            c, v, om, a = wheel_state(bodies, w)
            if external_tires is not None:
                fx, fy, fz, my, mz = external_tires[w.name]
                out += [(w.body, c, np.array([fx, fy, fz]), np.array([0.0, my, mz]))]
            else:
                res = np.zeros(CONTACT_OUT_N)
                x = float(c[0]) + x_origin
                road_eval(road_arrays, x, rout)     # the road as the engine sees it (tabulated roads interpolate)
                side = 1.0 if w.side == "left" else -1.0
                tire_contact_3d(car.tire_p[k], side, c, v, om, a, float(rout[0]), float(rout[1]), 0.0,
                                float(rout[2]), float(slip[k]), float(lateral[k]), res)
                n = res[OUT_NORMAL:OUT_NORMAL + 3]
                n_perp = n - (n @ a) * a
                n_perp /= np.linalg.norm(n_perp)
                out += [(w.body, res[OUT_POINT:OUT_POINT + 3].copy(), res[OUT_FORCE:OUT_FORCE + 3].copy(),
                         res[OUT_MY] * a + res[OUT_MZ] * n_perp)]
            u = inputs.get(w.name, {})
            w_rel = (om - bodies[w.hub_body].w) @ a
            a0 = np.asarray(w.spin_axis, float)
            inertia = float(a0 @ np.asarray(bodies_spec[w.body].inertia_kg_m2) @ a0)
            torque = u.get("drive", 0.0) + brake(u.get("brake", 0.0), float(phi[k]), float(w_rel), inertia)
            out += [(w.body, None, None, torque * a), (w.hub_body, None, None, -torque * a)]
        for bar in car.spec.anti_roll_bars:
            left, right = wheels[bar.left], wheels[bar.right]
            e = bodies[left.chassis_body].A[:, 2]
            cl, cr = wheel_state(bodies, left)[0], wheel_state(bodies, right)[0]
            f = bar.wheel_rate_N_per_m * (e @ (cl - cr) - (left.center_m[2] - right.center_m[2]))
            out += [(left.body, cl, -f * e, None), (left.chassis_body, cl, f * e, None),
                    (right.body, cr, f * e, None), (right.chassis_body, cr, -f * e, None)]
        return out
    return external


def solve_vehicle(car, road, states, inputs: dict, external_tires: dict | None = None,
                  x_origin: float = 0.0, rack_acceleration: float = 0.0, mech=None) -> cartesian.Solution:
    """Reference accelerations at the state held in ``mech.data`` (a system's mechanism, ``system.mech``,
    after a ``vehicle_rhs`` call; default ``car.mech``); a steering rack is prescribed with the acceleration
    ``rack_acceleration`` [m/s^2] (its position and velocity are the state's)."""
    driven = ({car.spec.steering.rack_coordinate: rack_acceleration} if car.spec.steering is not None else None)
    return cartesian.solve_mechanism(car.mech if mech is None else mech, external=loads(car, road, states, inputs, external_tires, x_origin),
                                     driven=driven)


def unit_members(car, unit: str) -> set:
    """Names of the bodies of the towed unit ``unit``: its chassis body and every body hung from it (from the
    spec's tree joints, child to parent, up to the ground)."""
    parent = {j.child: j.parent for j in car.spec.mechanism.joints}
    members = set()
    for b in car.spec.mechanism.bodies:
        n = b.name
        while n in parent and n != unit:
            n = parent[n]
        if n == unit:
            members.add(b.name)
    return members


def coupling_force(car, sol: cartesian.Solution, unit: str, loads_applied) -> np.ndarray:
    """The force [N, global] of the coupling on the towed unit ``unit`` from the reference solution ``sol``:
    Newton's law of the unit's bodies and removed rods, F = sum m a_g + sum_rods m ((1 - xi) a_A + xi a_B)
    - (the applied loads on its bodies, ``loads_applied`` = the list ``external(sol.bodies)`` returned)
    - M g; a rod end's acceleration from its body's: a_P = a_g + dw/dt x (P - g) + w x (w x (P - g))."""
    spec = car.spec.mechanism
    members = unit_members(car, unit)
    gravity = np.asarray(spec.gravity_m_per_s2, float)
    force, mass = np.zeros(3), 0.0
    for b in spec.bodies:
        if b.name in members and b.mass_kg > 0.0:
            force += b.mass_kg * sol.acc[b.name][0]
            mass += b.mass_kg

    def point_acc(name, X):
        body = sol.bodies[name]
        r = body.point(np.asarray(X, float)) - body.g
        a_g, dw = sol.acc[name]
        return a_g + np.cross(dw, r) + np.cross(body.w, np.cross(body.w, r))

    for r in spec.rods:
        if r.body_a in members and r.body_b in members and r.mass_kg > 0.0:
            xi = r.com_fraction
            force += r.mass_kg * ((1.0 - xi) * point_acc(r.body_a, r.point_a_m) + xi * point_acc(r.body_b, r.point_b_m))
            mass += r.mass_kg
    for body, _point, f, _torque in loads_applied:
        if body in members and f is not None:
            force -= f
    return force - mass * gravity
