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
* :func:`roll_model_of`: the closed-form steady-state roll of the car (:class:`RollModel`), from the
  springs, anti-roll bars and tires and the suspension kinematics at rest.

Described in docs/handling.md §12.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from ..multibody.constraints import solve_positions
from ..multibody.mechanism import POSITION_MAXIT, POSITION_TOL
from ..tire.models import OUT_FZ, OUT_POINT, cornering_stiffness, vertical_stiffness
from ..vehicle.dynamics import vehicle_rhs
from .single_track import G, SingleTrack

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


ROLL_FD_STEP_M = 1e-3
"""Step of the suspension travel coordinate [m] for the finite differences of :func:`roll_model_of`."""


@dataclass(frozen=True)
class AxleRoll:
    """One axle of :class:`RollModel`: the contact points' track t [m], the mean wheel rate of its two springs
    k_w [N/m] (spring force change per wheel travel, geometry included), its anti-roll bar K_bar [N m/rad], the
    roll centre's height above the road h_rc [m] and the tires' vertical stiffness c_z [N/m] (one tire)."""
    name: str
    track_m: float
    wheel_rate_N_per_m: float
    bar_N_m_per_rad: float
    roll_centre_height_m: float
    tire_rate_N_per_m: float

    @property
    def suspension_roll_stiffness_N_m_per_rad(self) -> float:
        """K_s = k_w t^2 / 2 + K_bar: the roll moment per roll of the chassis relative to the axle's wheels."""
        return self.wheel_rate_N_per_m * self.track_m ** 2 / 2.0 + self.bar_N_m_per_rad

    @property
    def tire_roll_stiffness_N_m_per_rad(self) -> float:
        """K_t = c_z t^2 / 2: the roll moment per roll of the wheels on the road (tire deflections)."""
        return self.tire_rate_N_per_m * self.track_m ** 2 / 2.0


@dataclass(frozen=True)
class RollModel:
    """Steady-state roll of a car in a turn (Gillespie, T. D. (1992), *Fundamentals of Vehicle Dynamics*, SAE,
    ch. 8: roll stiffness, roll centres and the roll axis, with the tires' compliance added in series).

    The sprung mass m_s (the chassis body, centre of mass h_s above the road at rest) rolls about the roll axis
    through the axles' roll centres (height h_ra under its centre of mass, linear between the axles), by the
    suspension roll phi_s against the axles' summed K_s; the whole car (mass m, centre of mass h) rolls on its
    tires by phi_t against the summed K_t; the body's roll is phi = phi_s + phi_t. Moments in the steady turn
    at lateral acceleration a_y, gravity's moment of the rolled body included (h_1 = h_s - h_ra):

        K_s phi_s = m_s h_1 (a_y + g phi)            K_t phi_t = m h a_y + m_s g h_s phi

    linear in phi_s and phi_t; :meth:`roll_gradient_rad_per_m_s2` solves them for phi / a_y. Left out: the
    unsprung masses' own roll, the roll centres' movement with roll and the tires' lateral compliance."""
    axles: tuple
    sprung_mass_kg: float
    sprung_com_height_m: float
    roll_axis_height_m: float
    mass_kg: float
    com_height_m: float

    @property
    def roll_gradient_rad_per_m_s2(self) -> float:
        """d phi / d a_y [rad/(m/s^2)] (class docstring; + : the body rolls out of the turn)."""
        ks = sum(a.suspension_roll_stiffness_N_m_per_rad for a in self.axles)
        kt = sum(a.tire_roll_stiffness_N_m_per_rad for a in self.axles)
        ms, h1, g = self.sprung_mass_kg, self.sprung_com_height_m - self.roll_axis_height_m, G
        w = ms * g * self.sprung_com_height_m
        # [K_s - m_s g h1, -m_s g h1; -w, K_t - w] [phi_s, phi_t] = [m_s h1, m h] a_y
        mat = np.array([[ks - ms * g * h1, -ms * g * h1], [-w, kt - w]])
        phi_s, phi_t = np.linalg.solve(mat, [ms * h1, self.mass_kg * self.com_height_m])
        return float(phi_s + phi_t)

    @property
    def roll_gradient_deg_per_g(self) -> float:
        """:attr:`roll_gradient_rad_per_m_s2` in deg/g."""
        return float(np.degrees(self.roll_gradient_rad_per_m_s2) * G)


def _corner_geometry(car, w, d, radius):
    """(travel s [m], spring length L [m], contact point's lateral position outward [m]) of wheel w at the
    state of engine workspace ``d``, in the chassis frame: s the wheel centre's height minus its design value,
    the contact point ``radius`` below the wheel centre in the wheel plane."""
    A, o = d.A[car.chassis], d.o[car.chassis]
    c = d.o[car.w_body[w]] + d.A[car.w_body[w]] @ car.w_center0[w]
    a = A.T @ (d.A[car.w_body[w]] @ car.w_axis0[w])
    down = np.array([0.0, 0.0, -1.0]) + a[2] * a
    cp = A.T @ (c - o) + radius * down / np.linalg.norm(down)
    mech = car.mech.model
    e = car.w_spring[w]
    ends = [d.o[b] + d.A[b] @ p if b >= 0 else p for b, p in ((mech.sd_a[e], mech.sd_pa[e]), (mech.sd_b[e], mech.sd_pb[e]))]
    return float((A.T @ (c - o))[2] - car.w_center0[w, 2]), float(np.linalg.norm(ends[1] - ends[0])), \
        float(car.w_side[w] * cp[1])


def roll_model_of(car) -> RollModel:
    """The :class:`RollModel` of ``car`` (a four-wheel car with independent suspensions: one travel coordinate per
    corner) at rest on a flat road. Per corner, with the chassis held and the travel coordinate moved by
    +-:data:`ROLL_FD_STEP_M` about its value at rest: the spring length L and the contact point's outward
    position y against the wheel travel s; the wheel rate k_w = k L'^2 - F L'' (k the spring's stiffness, F its
    compressive force at rest, ' = d/ds: the second derivative of the spring's energy) and the roll centre
    h_rc = (t / 2) y' (the point of the centre line on the normal to the contact point's path). The bars are the
    vehicle file's; c_z the tires' vertical stiffness; heights from the static equilibrium."""
    car.spec.refuse_combination("roll_model_of")
    system = car.system("flat")
    y = car.initial_state(system, v0=0.0)
    vehicle_rhs(0.0, y, system.model, system.data, np.zeros_like(y))
    ds = system.data.mech
    m = car.mech
    d = m.data
    rest = {name: float(ds.z[m.coordinate(name)]) for name in m.independent_names}
    if car.spec.steering is not None:
        rest[car.spec.steering.rack_coordinate] = 0.0
    base = {**rest, **{c: 0.0 for c in rest if c.startswith("chassis.")}}
    mech = m.model
    bars = {b.axle: b.roll_stiffness_N_m_per_rad for b in car.spec.anti_roll_bars}
    axles = []
    for axle in car.spec.axles:
        rates, outward, tracks, cz = [], [], [], []
        for corner in (axle.left, axle.right):
            w = car.wheel_index(corner)
            coord = car.spec.wheels[w].travel_coordinate
            radius = float(np.linalg.norm(system.data.work[w, 0:3] - system.data.contact[w, OUT_POINT:OUT_POINT + 3]))
            geo = []
            for dq in (-ROLL_FD_STEP_M, 0.0, ROLL_FD_STEP_M):
                m.assemble({**base, coord: base[coord] + dq}, {}, steps=2)
                geo.append(_corner_geometry(car, w, d, radius))
            (s0, l0, y0), (s1, l1, y1), (s2, l2, y2) = geo
            dl, dy = (l2 - l0) / (s2 - s0), (y2 - y0) / (s2 - s0)
            ddl = 2.0 * ((l2 - l1) / (s2 - s1) - (l1 - l0) / (s1 - s0)) / (s2 - s0)
            e = car.w_spring[w]
            force = mech.sd_pre[e] + mech.sd_k[e] * (mech.sd_L0[e] - l1)
            rates.append(mech.sd_k[e] * dl ** 2 - force * ddl)
            outward.append(dy)
            tracks.append(y1)
            cz.append(vertical_stiffness(car.tire_p[w]))
        t = tracks[0] + tracks[1]
        axles.append(AxleRoll(axle.name, t, float(np.mean(rates)), bars.get(axle.name, 0.0),
                              float(t / 2.0 * np.mean(outward)), float(np.mean(cz))))
    m.assemble({c: 0.0 for c in base}, {}, steps=5)
    k = m.body(car.spec.chassis_body)
    xw = np.array([(ds.o[b] + ds.A[b] @ c0)[0] for b, c0 in zip(car.w_body, car.w_center0)])
    x_axle = [xw[car.wheel_index(a.left)] for a in car.spec.axles]
    if len(axles) != 2:
        raise ModelError(f"vehicle '{car.name}': roll_model_of needs two axles, has {len(axles)}")
    (x_f, h_f), (x_r, h_r) = sorted(((x, a.roll_centre_height_m) for x, a in zip(x_axle, axles)), reverse=True)
    frac = (x_f - ds.g[k][0]) / (x_f - x_r)
    mass, com = rest_mass_centre(car, ds)
    return RollModel(tuple(axles), float(mech.mass[k]), float(ds.g[k][2]), float(h_f + (h_r - h_f) * frac),
                     mass, float(com[2]))


def rest_mass_centre(car, d) -> tuple[float, np.ndarray]:
    """(mass [kg], centre of mass [m, global]) of the whole vehicle at the state of engine workspace ``d``:
    every body at its centre of mass, every removed rod at its own (``com_fraction`` along it)."""
    m = car.mech
    pts = [(b.mass_kg, d.g[m.body(b.name)]) for b in m.spec.bodies]
    for r in m.spec.rods:
        ends = [d.o[m.body(n)] + d.A[m.body(n)] @ np.asarray(p, dtype=float)
                for n, p in ((r.body_a, r.point_a_m), (r.body_b, r.point_b_m))]
        pts.append((r.mass_kg, (1.0 - r.com_fraction) * ends[0] + r.com_fraction * ends[1]))
    mass = sum(mm for mm, _g in pts)
    return float(mass), sum(mm * np.asarray(g) for mm, g in pts) / mass
