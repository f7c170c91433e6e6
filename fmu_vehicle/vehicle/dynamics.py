"""Vehicle passes (compiled): the derivative and the output row of a (VehicleModel, VehicleData) pair.

State y = [z^i (ni), zd^i (ni), kappa' (nw), phi (nw)]: the engine's independent coordinates and
velocities, then per wheel the transient longitudinal slip kappa' of its tire and the bristle angle phi
of its brake (``tire.brake``). Positions along x are engine coordinates: road x = engine x +
``data.origin[0]`` (outputs are road x).

Per evaluation (``vehicle_rhs``): engine positions and velocities -> per wheel: the road under the wheel
centre (internal road or inputs), the tire contact force at the contact point and the rolling-resistance
moment (internal tire) or the external tire's force and moment about the wheel centre, the drive torque
and the brake torque on the wheel's spin joint (the reaction acts on the hub) -> engine forward dynamics.
Inputs are the columns of the signal table's inputs (``signals.LONGITUDINAL_VERTICAL``), SI units.
See docs/vehicle.md.
"""
from __future__ import annotations

from ..jit import njit

from ..multibody.dynamics import forward_dynamics
from ..multibody.force_elements import add_point_force
from ..multibody.kinematics import point_position, point_velocity
from ..multibody.state import STATUS_MASS_NOT_PD, clear_loads, set_state
from ..road.kernel import road_eval
from ..tire.brake import brake_torque
from ..tire.contact import OUT_DKAPPA, OUT_FX, OUT_FZ, OUT_MY, OUT_POINT, tire_contact
from .model import (MODE_ROAD, MODE_TIRE, W_AXIS, W_CENTER, W_FORCE, W_MOMENT, W_OMEGA, W_POINT, W_ROAD, W_VEL,
                    VehicleModel)
from .signals import LAYOUT_FIRST_VEHICLE, LAYOUT_N_CHASSIS, LAYOUT_N_WHEEL, LONGITUDINAL_VERTICAL as _LV

# input columns (signal table)
IN_DRIVE = _LV.input_column("torque_drive")
IN_BRAKE = _LV.input_column("torque_brake")
IN_ROAD_H = _LV.input_column("road_height")
IN_ROAD_SLOPE = _LV.input_column("road_slope")
IN_ROAD_MU = _LV.input_column("road_mu")
IN_FX = _LV.input_column("tire_force_x")
IN_FZ = _LV.input_column("tire_force_z")
IN_MY = _LV.input_column("tire_moment_y")

# output offsets inside their block (signal table)
_C = {r.name: _LV.output_column(r.name, "chassis") for r in _LV.chassis_outputs}
_W = {r.name: _LV.output_column(r.name, "wheel") for r in _LV.wheel_outputs}
O_X, O_Z, O_PITCH = _C["x"], _C["z"], _C["pitch"]
O_VX, O_VZ, O_PITCH_RATE = _C["vx"], _C["vz"], _C["pitch_rate"]
O_AX, O_AZ, O_PITCH_ACC = _C["ax"], _C["az"], _C["pitch_acc"]
OW_OMEGA, OW_OMEGA_REL, OW_X, OW_Z, OW_VX, OW_VZ = (_W[n] for n in ("omega", "omega_rel", "x", "z", "vx", "vz"))
OW_TRAVEL, OW_SUSP, OW_FZ, OW_FX, OW_SLIP = (_W[n] for n in ("travel", "suspension_force", "tire_fz", "tire_fx",
                                                               "slip"))
OW_DRIVE, OW_BRAKE = _W["torque_drive_applied"], _W["torque_brake_applied"]
OV_RESIDUAL = _LV.output_column("constraint_residual", "vehicle")


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

    Internal tire: F, P, My from ``tire_contact`` on the road (internal road at road x, or the road inputs).
    External tire: F = (Fx, 0, Fz) and M = (0, My, 0) from the inputs, at the wheel centre.
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
            rout = wk[W_ROAD:W_ROAD + 3]
            if data.modes[MODE_ROAD] == 0:
                road_eval(model.road, c[0] + data.origin[0], rout)
            else:
                rout[0], rout[1], rout[2] = inp[IN_ROAD_H], inp[IN_ROAD_SLOPE], inp[IN_ROAD_MU]
            tire_contact(model.tire_p[w], c, v, om, ax, rout[0], rout[1], rout[2], y[2 * ni + w], out)
            for k in range(3):
                F[k] = out[k]
                P[k] = out[OUT_POINT + k]
                M[k] = out[OUT_MY] * ax[k]
            ydot[2 * ni + w] = out[OUT_DKAPPA]
        else:
            F[0], F[1], F[2] = inp[IN_FX], 0.0, inp[IN_FZ]
            M[0], M[1], M[2] = 0.0, inp[IN_MY], 0.0
            P[0], P[1], P[2] = c[0], c[1], c[2]      # external loads act at the wheel centre
            ydot[2 * ni + w] = 0.0
            out[OUT_FX] = inp[IN_FX]
            out[OUT_FZ] = inp[IN_FZ]
        add_point_force(d.Qext[body], P, F)
        for k in range(3):
            d.Qext[body, 3 + k] += M[k]
        s = model.w_spin[w]
        tb, dphi = brake_torque(inp[IN_BRAKE], y[2 * ni + nw + w], d.zd[s], model.w_inertia[w])
        data.brake[w] = tb
        ydot[2 * ni + nw + w] = dphi
        d.jforce[s] += inp[IN_DRIVE] + tb


@njit(cache=True)
def vehicle_rhs(t, y, model, data, ydot):
    """dy/dt of the vehicle; returns the engine status (0 ok, 1 re-partition advised, < 0 failure)."""
    mech, d = model.mech, data.mech
    st = set_state(mech, d, y, model.position_tol, model.position_maxit)
    if st < 0:
        return st
    ni = mech.ni
    clear_loads(d)
    wheel_loads(model, data, y, ydot, ni)
    if not forward_dynamics(mech, d):
        return STATUS_MASS_NOT_PD
    for k in range(ni):
        ydot[k] = y[ni + k]
        ydot[ni + k] = d.zddi[k]
    return st


@njit(cache=True)
def vehicle_record(t, y, model, data, row):
    """Output row of the state just evaluated by ``vehicle_rhs`` (names and units: the signal table)."""
    mech, d = model.mech, data.mech
    cc = model.chassis_coords
    row[O_X] = d.z[cc[0]] + data.origin[0]
    row[O_Z] = d.z[cc[1]]
    row[O_PITCH] = d.z[cc[2]]
    row[O_VX] = d.zd[cc[0]]
    row[O_VZ] = d.zd[cc[1]]
    row[O_PITCH_RATE] = d.zd[cc[2]]
    row[O_AX] = d.zdd[cc[0]]
    row[O_AZ] = d.zdd[cc[1]]
    row[O_PITCH_ACC] = d.zdd[cc[2]]
    Ac, oc = d.A[model.chassis], d.o[model.chassis]
    ni = mech.ni
    lay = model.out_layout
    for w in range(model.w_body.shape[0]):
        wheel_kinematics(model, data, w)
        wk = data.work[w]
        c, v, ax, om = wk[W_CENTER:W_CENTER + 3], wk[W_VEL:W_VEL + 3], wk[W_AXIS:W_AXIS + 3], wk[W_OMEGA:W_OMEGA + 3]
        base = lay[LAYOUT_N_CHASSIS] + w * lay[LAYOUT_N_WHEEL]
        out = data.contact[w]
        row[base + OW_OMEGA] = om[0] * ax[0] + om[1] * ax[1] + om[2] * ax[2]
        row[base + OW_OMEGA_REL] = d.zd[model.w_spin[w]]
        row[base + OW_X] = c[0] + data.origin[0]
        row[base + OW_Z] = c[2]
        row[base + OW_VX] = v[0]
        row[base + OW_VZ] = v[2]
        # travel: wheel centre height in the chassis frame minus its design value (bump +)
        rel_z = Ac[0, 2] * (c[0] - oc[0]) + Ac[1, 2] * (c[1] - oc[1]) + Ac[2, 2] * (c[2] - oc[2])
        row[base + OW_TRAVEL] = rel_z - model.w_center0[w, 2]
        row[base + OW_SUSP] = -d.sd_force[model.w_spring[w]]
        row[base + OW_FZ] = out[OUT_FZ]
        row[base + OW_FX] = out[OUT_FX]
        row[base + OW_SLIP] = y[2 * ni + w]
        row[base + OW_DRIVE] = data.inputs[w, IN_DRIVE]
        row[base + OW_BRAKE] = -data.brake[w]
    err = 0.0
    for r in range(mech.m):
        err = max(err, abs(d.phi[r]))
    row[lay[LAYOUT_FIRST_VEHICLE] + OV_RESIDUAL] = err


# A VehicleModel names its system's passes (integrators.base.system_rhs/system_record resolve them from
# the model's type when an integrator loop is compiled).
VehicleModel.rhs = staticmethod(vehicle_rhs)
VehicleModel.record = staticmethod(vehicle_record)
