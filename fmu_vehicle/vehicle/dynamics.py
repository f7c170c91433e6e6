"""Vehicle passes (compiled): the derivative and the output row of a (VehicleModel, VehicleData) pair.

State y = [z^i (ni), zd^i (ni), kappa' (nw), phi (nw), q (nw)]: the engine's independent coordinates and
velocities, then per wheel the transient longitudinal slip kappa' of its tire, the bristle angle phi of
its brake (``tire.brake``) and the lateral transient slip q = tan(alpha') of its tire. Positions along x
are engine coordinates: road x = engine x + ``data.origin[0]`` (outputs are road x).

Per evaluation (``vehicle_rhs``): the steering rack's prescribed travel (``steer``, if the vehicle steers) -> engine
positions and velocities -> per wheel: the road under the wheel centre (internal road or inputs), the
tire's combined-slip contact force and moments (internal tire, ``tire.models.contact``) or the
external tire's force and moment about the wheel centre, the drive torque and the brake torque on the
wheel's spin joint (the reaction acts on the hub) -> the anti-roll bars' forces (``bar_loads``) -> engine
forward dynamics.
Inputs are the columns of the largest signal table's per-wheel inputs (``signals.FULL_VEHICLE``), SI units.
Outputs: ``vehicle_record`` computes the quantity catalogue ``QUANTITIES`` and copies each output row's
quantity (``VehicleModel.out_map``). See docs/vehicle.md.
"""
from __future__ import annotations

import math

from ..numerics import elementary as em
from ..numerics.jit import njit
from ..numerics import shared
from ..numerics.packing import by_ref, deref

from ..multibody.dynamics import drive_forces, forward_dynamics
from ..multibody.force_elements import add_point_force
from ..multibody.kinematics import point_position, point_velocity, screw_point
from ..numerics.linalg import max_abs
from ..multibody.state import STATUS_MASS_NOT_PD, clear_loads, set_state
from ..road.kernel import road_eval_xy
from ..tire.brake import brake_torque
from ..tire.models import (OUT_DALPHA, OUT_DKAPPA, OUT_FX, OUT_FY, OUT_FZ, OUT_GAMMA, OUT_MOMENT, OUT_MZ, OUT_POINT,
                           OUT_TAN_ALPHA, contact, model_id)
from .events import n_switch, vehicle_switch
from .model import (MODE_ROAD, MODE_TIRE, W_AXIS, W_CENTER, W_FORCE, W_LEVER, W_MOMENT, W_OMEGA, W_POINT, W_ROAD,
                    W_VEL, VehicleModel)
from .signals import FULL_VEHICLE as _FULL

# input columns (the largest signal table; the half car's inputs are its first columns)
IN_DRIVE = _FULL.input_column("torque_drive")
IN_BRAKE = _FULL.input_column("torque_brake")
IN_ROAD_H = _FULL.input_column("road_height")
IN_ROAD_SLOPE = _FULL.input_column("road_slope")
IN_ROAD_MU = _FULL.input_column("road_mu")
IN_ROAD_SLOPE_Y = _FULL.input_column("road_slope_y")
IN_FORCE = _FULL.input_column("force.x")       # force.x, .y, .z
IN_MOMENT = _FULL.input_column("moment.x")     # moment.x, .y, .z
N_INPUTS = len(_FULL.inputs)

# The quantities vehicle_record computes, per scope, in the order of the quantity row (chassis block, one
# block per wheel, vehicle block). Signal tables pick their outputs from these by name.
CHASSIS_QUANTITIES = ("x", "y", "z", "roll", "pitch", "yaw", "vx", "vy", "vz", "roll_rate", "pitch_rate",
                      "yaw_rate", "ax", "ay", "az", "roll_acc", "pitch_acc", "yaw_acc", "sideslip")
WHEEL_QUANTITIES = ("omega", "omega_rel", "x", "y", "z", "vx", "vy", "vz", "steer_angle", "camber", "travel",
                    "suspension_force", "tire_fz", "tire_fx", "tire_fy", "tire_mz", "slip", "slip_angle",
                    "torque_drive_applied", "torque_brake_applied", "wx", "wy", "wz", "rot_e0", "rot_e1",
                    "rot_e2", "rot_e3")
VEHICLE_QUANTITIES = ("steering_wheel_angle", "rack_travel", "rack_force", "constraint_residual")
UNIT_QUANTITIES = ("articulation", "articulation_rate", "x", "y", "vx", "vy", "yaw_rate", "yaw", "roll", "ay",
                   "coupling_fx", "coupling_fy", "coupling_fz")
AXLE_QUANTITIES = ("load", "fx", "fy", "load_transfer", "heave", "roll")
QUANTITIES = {"chassis": CHASSIS_QUANTITIES, "wheel": WHEEL_QUANTITIES, "vehicle": VEHICLE_QUANTITIES,
              "unit": UNIT_QUANTITIES, "axle": AXLE_QUANTITIES}
NQ_CHASSIS, NQ_WHEEL, NQ_VEHICLE = len(CHASSIS_QUANTITIES), len(WHEEL_QUANTITIES), len(VEHICLE_QUANTITIES)
(Q_X, Q_Y, Q_Z, Q_ROLL, Q_PITCH, Q_YAW, Q_VX, Q_VY, Q_VZ, Q_ROLL_RATE, Q_PITCH_RATE, Q_YAW_RATE, Q_AX, Q_AY,
 Q_AZ, Q_ROLL_ACC, Q_PITCH_ACC, Q_YAW_ACC, Q_SIDESLIP) = range(NQ_CHASSIS)
(QW_OMEGA, QW_OMEGA_REL, QW_X, QW_Y, QW_Z, QW_VX, QW_VY, QW_VZ, QW_STEER, QW_CAMBER, QW_TRAVEL, QW_SUSP, QW_FZ,
 QW_FX, QW_FY, QW_MZ, QW_SLIP, QW_SLIP_ANGLE, QW_DRIVE, QW_BRAKE, QW_WX, QW_WY, QW_WZ, QW_ROT) = range(NQ_WHEEL - 3)
QV_STEERING_WHEEL, QV_RACK, QV_RACK_FORCE, QV_RESIDUAL = range(NQ_VEHICLE)
NQ_UNIT = len(UNIT_QUANTITIES)
# QU_COUPLING: the first of the three coupling-force rows (x, y, z)
QU_ART, QU_ART_RATE, QU_X, QU_Y, QU_VX, QU_VY, QU_YAW_RATE, QU_YAW, QU_ROLL, QU_AY, QU_COUPLING = range(NQ_UNIT - 2)
NQ_AXLE = len(AXLE_QUANTITIES)
QA_LOAD, QA_FX, QA_FY, QA_TRANSFER, QA_HEAVE, QA_ROLL = range(NQ_AXLE)
TWO_PI = 2.0 * math.pi

LOAD_TRANSFER_FZ_MIN = 1.0
"""Below this axle load [N] (both wheels airborne) the reported load transfer ratio is 0."""

SIDESLIP_SPEED_MIN = 0.1
"""Below this horizontal speed in chassis axes [m/s] the reported sideslip angle is 0 (atan2 of two
near-zero velocities is noise)."""


def n_quantities(n_wheels: int, n_units: int = 0, n_axles: int = 0) -> int:
    """Length of the quantity row for ``n_wheels`` wheels, ``n_units`` towed units and ``n_axles`` axles."""
    return NQ_CHASSIS + n_wheels * NQ_WHEEL + NQ_VEHICLE + n_units * NQ_UNIT + n_axles * NQ_AXLE


@njit(inline="always")
def wheel_kinematics(model, data, w):
    """Centre, centre velocity, spin axis and angular velocity of wheel w into its scratch row (global frame)."""
    d = data.mech
    body = model.w_body[w]
    wk = data.work[w]
    c, v, ax, om = wk[W_CENTER:W_CENTER + 3], wk[W_VEL:W_VEL + 3], wk[W_AXIS:W_AXIS + 3], wk[W_OMEGA:W_OMEGA + 3]
    point_position(d, body, model.w_center0[w], c)
    point_velocity(d, body, c, v)
    A = d.A[body]
    a0 = model.w_axis0[w]
    for k in range(3):
        ax[k] = A[k, 0] * a0[0] + A[k, 1] * a0[1] + A[k, 2] * a0[2]
        om[k] = d.Z[body, 3 + k]


@njit(inline="always")
def wheel_loads(model, data, y, ydot, ni):
    """Tire/road/actuator loads of every wheel into the engine's loads; slip and bristle rates into ydot.

    Internal tire: F, P and the moment My a + Mz n⊥ from ``tire.models.contact`` on the road (internal road at
    road x, or the road inputs). External tire: the inputs' force F and moment M, with F acting at the
    wheel centre c and M + r × F added, r = the lever of the input point about the wheel centre taken at
    the start of the step (``W_LEVER``, set by ``stepping.prepare_step``; 0 for a table without a point); reported as
    tire_fx/tire_fy along and across the wheel heading t = a × z / |a × z|, tire_fz = F_z, tire_mz = M_z.
    Spin joint: T = T_drive + T_brake with T_brake from the brake element (``tire.brake.brake_torque``)."""
    d = data.mech
    nw = model.w_body.shape[0]
    for w in range(nw):
        wheel_kinematics(model, data, w)
        body = model.w_body[w]
        wk = data.work[w]
        c, v, ax, om = wk[W_CENTER:W_CENTER + 3], wk[W_VEL:W_VEL + 3], wk[W_AXIS:W_AXIS + 3], wk[W_OMEGA:W_OMEGA + 3]
        F, P, M = wk[W_FORCE:W_FORCE + 3], wk[W_POINT:W_POINT + 3], wk[W_MOMENT:W_MOMENT + 3]
        inp = data.inputs[w]
        out = data.contact[w]
        if data.modes[MODE_TIRE] == 0:
            rout = wk[W_ROAD:W_ROAD + 4]
            if data.modes[MODE_ROAD] == 0:
                road_eval_xy(model.road, c[0] + data.origin[0], c[1], rout)
            else:
                rout[0], rout[1], rout[2] = inp[IN_ROAD_H], inp[IN_ROAD_SLOPE], inp[IN_ROAD_MU]
                rout[3] = inp[IN_ROAD_SLOPE_Y]
            tp = model.tire_p[w]
            contact(model_id(tp), tp, model.w_side[w], c, v, om, ax, rout[0], rout[1], rout[3], rout[2],
                    y[2 * ni + w], y[2 * ni + 2 * nw + w], out)
            for k in range(3):
                F[k] = out[k]
                P[k] = out[OUT_POINT + k]
                M[k] = out[OUT_MOMENT + k]
            ydot[2 * ni + w] = out[OUT_DKAPPA]
            ydot[2 * ni + 2 * nw + w] = out[OUT_DALPHA]
        else:
            r = wk[W_LEVER:W_LEVER + 3]
            for k in range(3):
                F[k] = inp[IN_FORCE + k]
                P[k] = c[k]                          # reduced to the wheel centre
            M[0] = inp[IN_MOMENT] + r[1] * F[2] - r[2] * F[1]
            M[1] = inp[IN_MOMENT + 1] + r[2] * F[0] - r[0] * F[2]
            M[2] = inp[IN_MOMENT + 2] + r[0] * F[1] - r[1] * F[0]
            ydot[2 * ni + w] = 0.0
            ydot[2 * ni + 2 * nw + w] = 0.0
            # reported in the wheel's heading frame on a level road: t = a x z / |a x z|, l = z x t
            an = math.sqrt(ax[0] * ax[0] + ax[1] * ax[1])
            tx, ty = ax[1] / an, -ax[0] / an
            out[OUT_FX] = F[0] * tx + F[1] * ty
            out[OUT_FY] = F[1] * tx - F[0] * ty
            out[OUT_FZ] = F[2]
            out[OUT_MZ] = M[2]
        add_point_force(d.Qext[body], P, F)
        for k in range(3):
            d.Qext[body, 3 + k] += M[k]
        s = model.w_spin[w]
        tb, dphi = brake_torque(inp[IN_BRAKE], y[2 * ni + nw + w], d.zd[s], model.w_inertia[w])
        data.brake[w] = tb
        ydot[2 * ni + nw + w] = dphi
        d.jforce[s] += inp[IN_DRIVE] + tb


@njit(inline="always")
def _add_force_along(Q, r, f, e):
    """Q += {f e; r x f e}: the force f [N] along the unit vector e at the global point r (6-vector Q)."""
    fx, fy, fz = f * e[0], f * e[1], f * e[2]
    Q[0] += fx
    Q[1] += fy
    Q[2] += fz
    Q[3] += r[1] * fz - r[2] * fy
    Q[4] += r[2] * fx - r[0] * fz
    Q[5] += r[0] * fy - r[1] * fx


@njit(inline="always")
def bar_loads(model, data):
    """The anti-roll bars' loads (``templates.AntiRollBar``), after ``wheel_loads`` (it reads the wheel centres
    c of ``data.work``). Per bar between wheels L and R on the chassis body with axes A (z axis e = A[:, 2]):
    the travel difference s_L - s_R = e . (c_L - c_R) - (z0_L - z0_R) (z0 the design centres' heights), the
    force f = k_w (s_L - s_R); the left wheel gets -f e at c_L and the chassis +f e there, the right wheel +f e
    at c_R and the chassis -f e there: the generalized forces of V = k_w (s_L - s_R)^2 / 2 (the travel is the
    wheel centre's height in the chassis frame, so a force pair along e at c, wheel and chassis, does its
    virtual work exactly). No bar, no evaluation."""
    d = data.mech
    for b in range(model.bar_wheels.shape[0]):
        wl, wr = model.bar_wheels[b, 0], model.bar_wheels[b, 1]
        ch = model.w_chassis[wl]
        A = d.A[ch]
        e = A[:, 2]
        cl, cr = data.work[wl, W_CENTER:W_CENTER + 3], data.work[wr, W_CENTER:W_CENTER + 3]
        ds = e[0] * (cl[0] - cr[0]) + e[1] * (cl[1] - cr[1]) + e[2] * (cl[2] - cr[2]) \
            - (model.w_center0[wl, 2] - model.w_center0[wr, 2])
        f = model.bar_rate[b] * ds
        _add_force_along(d.Qext[model.w_body[wl]], cl, -f, e)
        _add_force_along(d.Qext[ch], cl, f, e)
        _add_force_along(d.Qext[model.w_body[wr]], cr, f, e)
        _add_force_along(d.Qext[ch], cr, -f, e)


@njit(inline="always")
def wheel_quaternion(A, a0, e):
    """Unit quaternion e = (e0, e1, e2, e3), scalar first, of the wheel frame R = A [x0 y0 z0]: A the wheel
    body's orientation, y0 = a0 its spin axis in body axes (pointing to the vehicle's left), x0 = y0 × z_b /
    |y0 × z_b| (forward), z0 = x0 × y0 (up at design). From R by the largest-pivot rule (Shepperd 1978,
    "Quaternion from rotation matrix", J. Guidance and Control 1(3))."""
    yn = math.sqrt(a0[0] * a0[0] + a0[1] * a0[1] + a0[2] * a0[2])
    y0, y1, y2 = a0[0] / yn, a0[1] / yn, a0[2] / yn
    x0, x1 = y1, -y0                            # y0 × (0, 0, 1)
    xn = math.sqrt(x0 * x0 + x1 * x1)
    x0, x1 = x0 / xn, x1 / xn
    z0, z1, z2 = -x1 * y2, x0 * y2, x0 * y1 - x1 * y0   # x0 × y0 (x2 = 0)
    # R = A [x y z] (x has no z component)
    r00, r10, r20 = A[0, 0] * x0 + A[0, 1] * x1, A[1, 0] * x0 + A[1, 1] * x1, A[2, 0] * x0 + A[2, 1] * x1
    r01 = A[0, 0] * y0 + A[0, 1] * y1 + A[0, 2] * y2
    r11 = A[1, 0] * y0 + A[1, 1] * y1 + A[1, 2] * y2
    r21 = A[2, 0] * y0 + A[2, 1] * y1 + A[2, 2] * y2
    r02 = A[0, 0] * z0 + A[0, 1] * z1 + A[0, 2] * z2
    r12 = A[1, 0] * z0 + A[1, 1] * z1 + A[1, 2] * z2
    r22 = A[2, 0] * z0 + A[2, 1] * z1 + A[2, 2] * z2
    tr = r00 + r11 + r22
    if tr >= r00 and tr >= r11 and tr >= r22:
        s = 2.0 * math.sqrt(1.0 + tr)
        e[0], e[1], e[2], e[3] = 0.25 * s, (r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s
    elif r00 >= r11 and r00 >= r22:
        s = 2.0 * math.sqrt(1.0 + r00 - r11 - r22)
        e[0], e[1], e[2], e[3] = (r21 - r12) / s, 0.25 * s, (r01 + r10) / s, (r02 + r20) / s
    elif r11 >= r22:
        s = 2.0 * math.sqrt(1.0 - r00 + r11 - r22)
        e[0], e[1], e[2], e[3] = (r02 - r20) / s, (r01 + r10) / s, 0.25 * s, (r12 + r21) / s
    else:
        s = 2.0 * math.sqrt(1.0 - r00 - r11 + r22)
        e[0], e[1], e[2], e[3] = (r10 - r01) / s, (r02 + r20) / s, (r12 + r21) / s, 0.25 * s
    if e[0] < 0.0:                              # the hemisphere e0 >= 0 (q and -q are the same rotation)
        for k in range(4):
            e[k] = -e[k]


@njit(inline="always")
def steer(model, data, t):
    """The rack's prescribed travel at time t (if the vehicle steers): the ramp in ``data.steer``,
    s = s0 + r (t - t0), s' = r, s'' = 0 (exact for a steering input that is linear over each step)."""
    k = model.steer_drv
    if k >= 0:
        st, d = data.steer, data.mech
        d.drv_z[k] = st[1] + st[2] * (t - st[0])
        d.drv_zd[k] = st[2]
        d.drv_zdd[k] = 0.0


@njit(cache=True)
def vehicle_rhs_ref(t, y, model_ref, data_ref, ydot):
    """dy/dt of the vehicle; returns the engine status (0 ok, 1 re-partition advised, < 0 failure).
    Takes references to ``model`` and ``data`` (``packing.by_ref``): what the integrators' loops call."""
    model, data = deref(model_ref), deref(data_ref)
    mech, d = model.mech, data.mech
    steer(model, data, t)
    st = set_state(mech, d, y, model.position_tol, model.position_maxit)
    if st < 0:
        return st
    ni = mech.ni
    clear_loads(d)
    wheel_loads(model, data, y, ydot, ni)
    bar_loads(model, data)
    if not forward_dynamics(mech, d):
        return STATUS_MASS_NOT_PD
    for k in range(ni):
        ydot[k] = y[ni + k]
        ydot[ni + k] = d.zddi[k]
    return st


@njit(cache=True)
def vehicle_rhs(t, y, model, data, ydot):
    """:func:`vehicle_rhs_ref` for ``model`` and ``data`` themselves (calls made once, from Python or a kernel;
    the derivative's one compiled copy, ``numerics.shared``)."""
    return shared.call(vehicle_rhs_ref, t, y, by_ref(model), by_ref(data), ydot)


@njit(inline="always")
def _coord(v, i):
    """v[i], or 0 for i < 0 (a chassis coordinate the vehicle does not have)."""
    return v[i] if i >= 0 else 0.0


@njit(inline="always")
def _to_chassis(A, v, k):
    """Component k of the global vector v in the chassis axes: (A^T v)_k."""
    return A[0, k] * v[0] + A[1, k] * v[1] + A[2, k] * v[2]


@njit(inline="always")
def chassis_quantities(model, data, q):
    """The chassis block of the quantity row (``CHASSIS_QUANTITIES``). The chassis joint's translations
    are along the global axes and its reference point is the design CoM g0 (``model.chassis_com0``), so the
    CoM's global position is g = g0 + (x, y, z joint coordinates) + (road x of the engine origin, 0, 0), in
    the frame of the wheel centres and the road, and its velocity and acceleration are the coordinates'
    rates; vehicle-frame components are A^T of the global vectors, the angular acceleration is that of the
    chassis body (``data.mech.Zd``). Sideslip beta = atan2(vy, |vx|) in (-pi/2, pi/2]: continuous when vx
    changes sign (a car rocking backward has beta near 0, not +-pi)."""
    d = data.mech
    cc = model.chassis_coords
    A = d.A[model.chassis]
    for k, i in enumerate((Q_X, Q_Y, Q_Z, Q_ROLL, Q_PITCH, Q_YAW)):
        q[i] = _coord(d.z, cc[k])
    g0 = model.chassis_com0
    q[Q_X] = (g0[0] + q[Q_X]) + data.origin[0]
    q[Q_Y] += g0[1]
    q[Q_Z] += g0[2]
    vgx, vgy, vgz = _coord(d.zd, cc[0]), _coord(d.zd, cc[1]), _coord(d.zd, cc[2])
    agx, agy, agz = _coord(d.zdd, cc[0]), _coord(d.zdd, cc[1]), _coord(d.zdd, cc[2])
    w, wd = d.Z[model.chassis], d.Zd[model.chassis]
    for k in range(3):
        q[Q_VX + k] = A[0, k] * vgx + A[1, k] * vgy + A[2, k] * vgz
        q[Q_AX + k] = A[0, k] * agx + A[1, k] * agy + A[2, k] * agz
        q[Q_ROLL_RATE + k] = A[0, k] * w[3] + A[1, k] * w[4] + A[2, k] * w[5]
        q[Q_ROLL_ACC + k] = A[0, k] * wd[3] + A[1, k] * wd[4] + A[2, k] * wd[5]
    vx, vy = q[Q_VX], q[Q_VY]
    q[Q_SIDESLIP] = em.atan2(vy, abs(vx)) if vx * vx + vy * vy > SIDESLIP_SPEED_MIN ** 2 else 0.0


@njit(cache=True)
def _point_acceleration(d, body, X, out):
    """out = acceleration [m/s^2] of the point of ``body`` at body-fixed (design) coordinates X: with r = o + A X
    and the twist Z = (v, w) at the origin, d2r/dt2 = C(r) dZ/dt + w x (C(r) Z)."""
    r, v = d.tmp[12], d.tmp[13]
    for j in range(3):
        r[j] = d.o[body, j] + d.A[body, j, 0] * X[0] + d.A[body, j, 1] * X[1] + d.A[body, j, 2] * X[2]
    screw_point(d.Z[body], r, v)
    screw_point(d.Zd[body], r, out)
    w = d.Z[body]
    out[0] += w[4] * v[2] - w[5] * v[1]
    out[1] += w[5] * v[0] - w[3] * v[2]
    out[2] += w[3] * v[1] - w[4] * v[0]


@njit(cache=True)
def coupling_force(model, data, ub, out):
    """out = the force [N, global axes] that the coupling applies to the towed unit whose chassis body is
    ``ub``: Newton's law for the unit with everything it carries (the bodies hung from ``ub``: on_path[i, ub]),
    F_c = sum_i m_i a_gi + sum_rods ((a + b) a_A + (b + c) a_B) - sum_wheels F_w - M g, with a_gi the
    acceleration of body i's centre of mass, the removed rods' consistent end-point masses (a, b, c) on the
    accelerations of their end points, F_w the load each of the unit's wheels gets from its tire (or the
    external tire-load input) and M the unit's whole mass. Valid after ``vehicle_rhs`` (it reads dZ/dt);
    the unit's force elements are internal to it, and a coupling's rotational spring-damper gives a moment."""
    mech, d = model.mech, data.mech
    acc = d.tmp[11]
    mass = 0.0
    for k in range(3):
        out[k] = 0.0
    for i in range(mech.n):
        if mech.on_path[i, ub] and mech.mass[i] > 0.0:
            screw_point(d.Zd[i], d.g[i], acc)
            w, gd = d.Z[i], d.gd[i]
            acc[0] += w[4] * gd[2] - w[5] * gd[1]
            acc[1] += w[5] * gd[0] - w[3] * gd[2]
            acc[2] += w[3] * gd[1] - w[4] * gd[0]
            for k in range(3):
                out[k] += mech.mass[i] * acc[k]
            mass += mech.mass[i]
    for r in range(mech.nrod):
        a, b = mech.rod_a[r], mech.rod_b[r]
        if a >= 0 and b >= 0 and mech.rod_mass[r] > 0.0 and mech.on_path[a, ub] and mech.on_path[b, ub]:
            ma = mech.rod_M[r, 0] + mech.rod_M[r, 1]
            mb = mech.rod_M[r, 1] + mech.rod_M[r, 2]
            _point_acceleration(d, a, mech.rod_pa[r], acc)
            for k in range(3):
                out[k] += ma * acc[k]
            _point_acceleration(d, b, mech.rod_pb[r], acc)
            for k in range(3):
                out[k] += mb * acc[k]
            mass += mech.rod_mass[r]
    for w in range(model.w_body.shape[0]):
        if mech.on_path[model.w_body[w], ub]:
            for k in range(3):
                out[k] -= data.work[w, W_FORCE + k]
    for k in range(3):
        out[k] -= mass * mech.gravity[k]


@njit(cache=True)
def vehicle_record_ref(t, y, model_ref, data_ref, row):
    """Output row of the state just evaluated by ``vehicle_rhs``: the quantity row (``QUANTITIES``), then
    each output row's quantity (``model.out_map``; names and units: the vehicle's signal table). Takes
    references to ``model`` and ``data`` (``packing.by_ref``), like :func:`vehicle_rhs_ref`."""
    model, data = deref(model_ref), deref(data_ref)
    mech, d = model.mech, data.mech
    q = data.quantities
    chassis_quantities(model, data, q)
    ni = mech.ni
    nw = model.w_body.shape[0]
    for w in range(nw):
        wheel_kinematics(model, data, w)
        wk = data.work[w]
        c, v, ax, om = wk[W_CENTER:W_CENTER + 3], wk[W_VEL:W_VEL + 3], wk[W_AXIS:W_AXIS + 3], wk[W_OMEGA:W_OMEGA + 3]
        b = NQ_CHASSIS + w * NQ_WHEEL
        out = data.contact[w]
        Ac, oc = d.A[model.w_chassis[w]], d.o[model.w_chassis[w]]     # the wheel's own unit's chassis
        q[b + QW_OMEGA] = om[0] * ax[0] + om[1] * ax[1] + om[2] * ax[2]
        q[b + QW_OMEGA_REL] = d.zd[model.w_spin[w]]
        q[b + QW_X] = c[0] + data.origin[0]
        q[b + QW_Y] = c[1]
        q[b + QW_Z] = c[2]
        q[b + QW_VX] = v[0]
        q[b + QW_VY] = v[1]
        q[b + QW_VZ] = v[2]
        # road-wheel angle: the spin axis a in chassis axes is (-sin(delta), cos(delta), .) for a heading delta
        q[b + QW_STEER] = em.atan2(-_to_chassis(Ac, ax, 0), _to_chassis(Ac, ax, 1))
        q[b + QW_CAMBER] = -model.w_side[w] * out[OUT_GAMMA]
        # travel: wheel centre height in the chassis frame minus its design value (bump +)
        rel_z = Ac[0, 2] * (c[0] - oc[0]) + Ac[1, 2] * (c[1] - oc[1]) + Ac[2, 2] * (c[2] - oc[2])
        q[b + QW_TRAVEL] = rel_z - model.w_center0[w, 2]
        q[b + QW_SUSP] = -d.sd_force[model.w_spring[w]]
        q[b + QW_FZ] = out[OUT_FZ]
        q[b + QW_FX] = out[OUT_FX]
        q[b + QW_FY] = out[OUT_FY]
        q[b + QW_MZ] = out[OUT_MZ]
        q[b + QW_SLIP] = y[2 * ni + w]
        q[b + QW_SLIP_ANGLE] = em.atan(out[OUT_TAN_ALPHA])
        q[b + QW_DRIVE] = data.inputs[w, IN_DRIVE]
        q[b + QW_BRAKE] = -data.brake[w]
        for k in range(3):
            q[b + QW_WX + k] = om[k]
        wheel_quaternion(d.A[model.w_body[w]], model.w_axis0[w], q[b + QW_ROT:b + QW_ROT + 4])
    b = NQ_CHASSIS + nw * NQ_WHEEL
    st = data.steer
    rack = st[1] + st[2] * (t - st[0])
    q[b + QV_RACK] = rack
    q[b + QV_STEERING_WHEEL] = rack / st[3] if st[3] != 0.0 else 0.0
    if model.steer_drv >= 0:
        drive_forces(mech, d)           # (not part of vehicle_rhs: only this row reads it)
        q[b + QV_RACK_FORCE] = d.drv_force[model.steer_drv]
    else:
        q[b + QV_RACK_FORCE] = 0.0
    err = 0.0
    for r in range(mech.m):
        err = max_abs(err, d.phi[r])
    q[b + QV_RESIDUAL] = err
    # towed units (docs/articulated.md §6): the coupling's yaw and the unit chassis body's CoM motion, the
    # velocities in the unit's own axes (A^T of the global vectors)
    for u in range(model.u_body.shape[0]):
        bu, k, ub = b + NQ_VEHICLE + u * NQ_UNIT, model.held[u], model.u_body[u]
        A, Z, Zd, g, gd = d.A[ub], d.Z[ub], d.Zd[ub], d.g[ub], d.gd[ub]
        q[bu + QU_ART] = d.z[k]
        q[bu + QU_ART_RATE] = d.zd[k]
        q[bu + QU_X] = g[0] + data.origin[0]
        q[bu + QU_Y] = g[1]
        q[bu + QU_VX] = _to_chassis(A, gd, 0)
        q[bu + QU_VY] = _to_chassis(A, gd, 1)
        q[bu + QU_YAW_RATE] = A[0, 2] * Z[3] + A[1, 2] * Z[4] + A[2, 2] * Z[5]
        # yaw and roll of the unit's axes (z, y', x'' angles, as the chassis's), the yaw continued by whole turns
        # to lie within pi of the towing chassis's yaw coordinate (which is not wrapped)
        yaw = em.atan2(A[1, 0], A[0, 0])
        turns = (q[Q_YAW] - yaw) / TWO_PI
        q[bu + QU_YAW] = yaw + TWO_PI * float(int(turns + 0.5) if turns >= 0.0 else int(turns - 0.5))
        q[bu + QU_ROLL] = em.atan2(A[2, 1], A[2, 2])
        # centre-of-mass acceleration d2g/dt2 = C(g) dZ/dt + w x dg/dt (Z = (v, w) of the body), along the
        # unit's y axis
        acc = d.tmp[15]
        screw_point(Zd, g, acc)
        ay = 0.0
        for j in range(3):
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            ay += A[j, 1] * (acc[j] + (Z[3 + j1] * gd[j2] - Z[3 + j2] * gd[j1]))
        q[bu + QU_AY] = ay
        f = d.tmp[14]
        coupling_force(model, data, ub, f)
        for j in range(3):
            q[bu + QU_COUPLING + j] = A[0, j] * f[0] + A[1, j] * f[1] + A[2, j] * f[2]
    axle_quantities(model.a_wheels, model.w_chassis, d.A, data.work, q,
                    b + NQ_VEHICLE + model.u_body.shape[0] * NQ_UNIT)
    m = model.out_map
    for k in range(m.shape[0]):
        row[k] = q[m[k]] if m[k] >= 0 else 0.0


@njit(cache=True)
def vehicle_record(t, y, model, data, row):
    """:func:`vehicle_record_ref` for ``model`` and ``data`` themselves (through its one compiled copy)."""
    shared.call(vehicle_record_ref, t, y, by_ref(model), by_ref(data), row)


@njit
def axle_quantities(a_wheels, w_chassis, body_A, work, q, base):
    """The axle block of the quantity row ``q`` from ``base``, after the wheel blocks and ``wheel_kinematics`` of
    every wheel (its centre in ``work``, the vehicle workspace's scratch; ``body_A`` the bodies' orientations,
    ``w_chassis`` each wheel's chassis body: ``VehicleModel``/``VehicleData`` members, passed alone so that the
    call out of ``vehicle_record`` copies a few arrays, not the whole model). Per axle (``a_wheels``: its left
    and right wheel, L and R) the load Fz_L + Fz_R, the forces Fx_L + Fx_R and Fy_L + Fy_R, the load transfer
    ratio (Fz_L - Fz_R) / (Fz_L + Fz_R) (0 below ``LOAD_TRANSFER_FZ_MIN``), the heave (travel_L + travel_R) / 2
    and the roll of the line through the two wheel centres relative to the unit's chassis, atan2(z_L - z_R,
    y_L - y_R) with y, z the centres in the chassis frame (+ left side up: the roll joint angle of a beam
    axle)."""
    for a in range(a_wheels.shape[0]):
        ba = base + a * NQ_AXLE
        wl, wr = a_wheels[a, 0], a_wheels[a, 1]
        bl, br = NQ_CHASSIS + wl * NQ_WHEEL, NQ_CHASSIS + wr * NQ_WHEEL
        load = q[bl + QW_FZ] + q[br + QW_FZ]
        q[ba + QA_LOAD] = load
        q[ba + QA_FX] = q[bl + QW_FX] + q[br + QW_FX]
        q[ba + QA_FY] = q[bl + QW_FY] + q[br + QW_FY]
        q[ba + QA_TRANSFER] = (q[bl + QW_FZ] - q[br + QW_FZ]) / load if load > LOAD_TRANSFER_FZ_MIN else 0.0
        q[ba + QA_HEAVE] = 0.5 * (q[bl + QW_TRAVEL] + q[br + QW_TRAVEL])
        A = body_A[w_chassis[wl]]
        cl, cr = work[wl, W_CENTER:W_CENTER + 3], work[wr, W_CENTER:W_CENTER + 3]
        dy = A[0, 1] * (cl[0] - cr[0]) + A[1, 1] * (cl[1] - cr[1]) + A[2, 1] * (cl[2] - cr[2])
        dz = A[0, 2] * (cl[0] - cr[0]) + A[1, 2] * (cl[1] - cr[1]) + A[2, 2] * (cl[2] - cr[2])
        q[ba + QA_ROLL] = em.atan2(dz, dy)


# A VehicleModel names its system's passes (integrators.base.system_rhs/system_record resolve them from
# the model's type when an integrator loop is compiled).
VehicleModel.rhs = staticmethod(vehicle_rhs)
VehicleModel.rhs_ref = staticmethod(vehicle_rhs_ref)
VehicleModel.record = staticmethod(vehicle_record)
VehicleModel.record_ref = staticmethod(vehicle_record_ref)
VehicleModel.switch, VehicleModel.n_switch = staticmethod(vehicle_switch), staticmethod(n_switch)  # vehicle.events
