"""What the handling manoeuvres need to know of a multibody vehicle: its linear single-track equivalent
and its suspension kinematics, computed from the vehicle itself.

* :func:`single_track_of`: the :class:`~fmu_vehicle.manoeuvres.single_track.SingleTrack` of a vehicle at
  rest on a flat road: the total mass m; the centre-of-mass distances a = L Fz_r / (m g) and
  b = L Fz_f / (m g) from the static axle loads the multibody model carries (L the wheelbase at rest);
  the yaw inertia I_z = sum over bodies of (J_zz + m ((x - x_g)^2 + (y - y_g)^2)) about the vertical
  through the centre of mass, removed rods as point masses at their centres (design positions); the axle
  cornering stiffnesses C = sum over the axle's tires of |K_y(F_z)| (Magic Formula 5.2, Pacejka 2006
  Eq. 4.E25, at each tire's static load, camber 0); and the steering ratio i_s = delta_sw / delta, delta
  the mean road-wheel angle of the steered wheels for a small steering-wheel angle at the rest position.
* :func:`kinematics_sweep`: toe (road-wheel angle about the chassis z axis) and camber (top outward +)
  of one corner against its wheel travel and, for a steered corner, against the rack travel, with the
  chassis held at the design position.

Described in docs/handling.md §12.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..multibody.constraints import solve_positions
from ..multibody.mechanism import POSITION_MAXIT, POSITION_TOL
from ..tire.models import OUT_FZ, cornering_stiffness
from ..vehicle.dynamics import vehicle_rhs
from .single_track import SingleTrack

SMALL_STEERING_WHEEL_ANGLE_RAD = 0.02
"""Steering-wheel angle [rad] at which the steering ratio is measured (small: the linear range)."""


def _wheel_angles(car, w, d=None):
    """(toe, camber) [rad] of wheel w at the state of engine workspace ``d`` (default: the mechanism's own),
    chassis axes: toe = heading about the chassis z axis (+ left), camber = lean of the wheel plane from the
    chassis z axis (+ top outward)."""
    d = car.mech.data if d is None else d
    A = d.A[car.chassis]
    a = A.T @ (d.A[car.w_body[w]] @ car.w_axis0[w])       # spin axis in chassis axes
    toe = float(np.arctan2(-a[0], a[1]))
    camber = float(-car.w_side[w] * np.arcsin(np.clip(a[2], -1.0, 1.0)))
    return toe, camber


def _front(car):
    return np.array([w.center_m[0] > np.mean(car.w_center0[:, 0]) for w in car.spec.wheels])


def steering_ratio(car, d=None) -> float:
    """Steering-wheel angle per mean road-wheel angle of the steered wheels at the state of engine workspace
    ``d`` (default: the mechanism's own; a small angle, ``SMALL_STEERING_WHEEL_ANGLE_RAD``; the state is
    restored)."""
    st = car.spec.steering
    if st is None:
        raise ModelError(f"vehicle '{car.name}' has no steering")
    m = car.mech
    d = m.data if d is None else d
    steered = [car.wheel_index(n) for n in st.corners]
    k = car.steer_drv
    z0 = d.z.copy()
    base = [_wheel_angles(car, w, d)[0] for w in steered]
    turned = []
    for sign in (1.0, -1.0):
        d.drv_z[k] = sign * st.rack_gain_m_per_rad * SMALL_STEERING_WHEEL_ANGLE_RAD
        d.z[m.model.drv[k]] = d.drv_z[k]
        if solve_positions(m.model, d, POSITION_TOL, POSITION_MAXIT) < 0:
            raise ModelError(f"vehicle '{car.name}': the steering cannot be assembled at a small angle")
        turned.append(np.mean([_wheel_angles(car, w, d)[0] for w in steered]) - np.mean(base))
    d.z[:] = z0
    d.drv_z[k] = z0[m.model.drv[k]]
    delta = 0.5 * (turned[0] - turned[1])
    return float(SMALL_STEERING_WHEEL_ANGLE_RAD / delta)


def yaw_inertia(car, x_g: float, y_g: float, bodies=None) -> float:
    """Yaw inertia [kg m^2] about the vertical through (x_g, y_g), design positions (module docstring); of the
    bodies named in ``bodies`` and the removed rods with both ends among them (default: the whole vehicle)."""
    spec = car.spec.mechanism
    iz = 0.0
    for b in spec.bodies:
        if bodies is not None and b.name not in bodies:
            continue
        g = np.asarray(b.com_m, dtype=float)
        iz += float(np.asarray(b.inertia_kg_m2)[2, 2]) + b.mass_kg * ((g[0] - x_g) ** 2 + (g[1] - y_g) ** 2)
    for r in spec.rods:
        if bodies is not None and not (r.body_a in bodies and r.body_b in bodies):
            continue
        c = (1.0 - r.com_fraction) * np.asarray(r.point_a_m) + r.com_fraction * np.asarray(r.point_b_m)
        iz += r.mass_kg * ((c[0] - x_g) ** 2 + (c[1] - y_g) ** 2)
    return iz


def towing_vehicle(car):
    """The towing unit alone: ``car``'s vehicle data (``spec.data``: its file with the overrides it was loaded
    with) loaded again without its towed units and couplings (a new Vehicle; ``car`` itself when it has no towed
    units). Changes made to ``car``'s arrays after loading (e.g. ``tire_p``) are not carried over."""
    if not car.spec.units:
        return car
    from ..vehicle.vehicle import Vehicle
    data = {k: v for k, v in car.spec.data.items() if k not in ("units", "couplings")}
    return Vehicle.load(car.spec.source, overrides={**data, "units": None, "couplings": None})


def single_track_of(car) -> SingleTrack:
    """The linear single-track model of ``car`` at rest on a flat road (module docstring). A combination (towed
    units, docs/articulated.md §6) is refused: its axles are not a single-track car's."""
    car.spec.refuse_combination("single_track_of")
    system = car.system("flat")
    y = car.initial_state(system, v0=0.0)
    vehicle_rhs(0.0, y, system.model, system.data, np.zeros_like(y))
    fz = system.data.contact[:, OUT_FZ].copy()
    front = _front(car)
    d = system.data.mech
    xc = np.array([(d.o[b] + d.A[b] @ c0)[0] for b, c0 in zip(car.w_body, car.w_center0)])
    wheelbase = float(xc[front].mean() - xc[~front].mean())
    weight = float(fz.sum())
    a = wheelbase * fz[~front].sum() / weight
    b = wheelbase * fz[front].sum() / weight
    ky = np.array([abs(cornering_stiffness(car.tire_p[w], fz[w], 0.0)) for w in range(car.n_wheels)])
    x_g = float(xc[front].mean() - a)
    com = next(bd.com_m for bd in car.spec.mechanism.bodies if bd.name == car.spec.chassis_body)
    iz = yaw_inertia(car, x_g, float(com[1]))
    return SingleTrack(mass_kg=float(car.total_mass_kg), yaw_inertia_kg_m2=iz, a_m=float(a), b_m=float(b),
                       cf_N_per_rad=float(ky[front].sum()), cr_N_per_rad=float(ky[~front].sum()),
                       steering_ratio=steering_ratio(car, d))
