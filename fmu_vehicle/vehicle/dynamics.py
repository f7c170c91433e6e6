"""Vehicle derivative evaluation: the engine + wheels, tires, road and actuator inputs (compiled).

State y = [z^i (ni), zd^i (ni), kappa' (one transient slip state per wheel)].
Positions along x are engine coordinates: road x = engine x + ``sys.origin[0]`` (outputs are road x).
Per evaluation: engine positions/velocities -> per wheel: road under the wheel centre (internal road
or inputs), tire contact force at the contact point and rolling-resistance moment (internal tire) or
the external tire's force and moment about the wheel centre, drive torque and brake torque on the
wheel's spin joint (the reaction acts on the hub) -> engine dynamics.

Inputs per wheel (``sys.inputs[w, :]``), SI units:
    IN_DRIVE drive torque [N m] (+ drives forward), IN_BRAKE brake torque magnitude [N m] (>= 0),
    IN_ROAD_H road height [m], IN_ROAD_SLOPE dh/dx [-], IN_ROAD_MU friction [-]   (road_source = inputs)
    IN_FX, IN_FZ force on the wheel centre along global x, z [N], IN_MY moment about global y at the
    wheel centre [N m]                                                          (tire_source = external)
"""
from __future__ import annotations

import math
from collections import namedtuple

from ..integrators.registry import register_system
from ..jit import njit

from ..multibody.dynamics import forward_dynamics
from ..multibody.force_elements import add_point_force
from ..multibody.kinematics import point_position, point_velocity
from ..multibody.state import STATUS_MASS_NOT_PD, clear_loads, set_state
from ..road.kernel import road_eval
from ..tire.contact import OUT_DKAPPA, OUT_FX, OUT_FZ, OUT_MY, OUT_POINT, tire_contact

IN_DRIVE, IN_BRAKE, IN_ROAD_H, IN_ROAD_SLOPE, IN_ROAD_MU, IN_FX, IN_FZ, IN_MY = range(8)
N_INPUTS = 8
INPUT_KEYS = ("drive_torque", "brake_torque", "road_height", "road_slope", "road_mu", "force_x", "force_z",
              "moment_y")
"""The keywords of ``VehicleSimulator.set_input`` in input-column order (IN_DRIVE ... IN_MY)."""

OMEGA_BRAKE = 0.05
"""Angular speed [rad/s] over which the brake torque changes sign (tanh regularization): a wheel
held by the brake creeps at about this fraction of a rad/s per unit of torque imbalance."""

# per-wheel work columns: [0:3] centre, [3:6] centre velocity, [6:9] spin axis, [9:12] force, [12:15] point
VehicleArgs = namedtuple("VehicleArgs", [
    "model", "data", "params",     # engine model/workspace, [position tol, max Newton iterations]
    "w_body", "w_hub", "w_spin",   # (nw,) int64 wheel body, hub body, spin coordinate
    "w_spring",                    # (nw,) int64 index of the corner's spring-damper element
    "w_center0", "w_axis0",        # (nw,3) wheel centre and axle at the design configuration
    "tire_p",                      # (nw, NP) tire parameter arrays
    "road",                        # RoadArrays: the compiled road record
    "modes",                       # (2,) int64: road_source (0 internal, 1 inputs), tire_source (0 internal, 1 external)
    "inputs",                      # (nw, N_INPUTS)
    "contact",                     # (nw, CONTACT_OUT_N) last tire contact outputs
    "work",                        # (nw, 16) scratch
    "chassis", "chassis_coords",   # chassis body index, (3,) coordinates of x, z, pitch
    "origin",                      # (1,) x [m] of the engine's origin on the road (``VehicleSystem.rebase``)
])


@njit(inline="always")
def wheel_loads(sys, y, ydot, ni):
    """Tire/road/actuator loads of every wheel into data.Qext/jforce; slip-state rates into ydot."""
    data = sys.data
    nw = sys.w_body.shape[0]
    for w in range(nw):
        body = sys.w_body[w]
        wk = sys.work[w]
        c, v, ax, F, P, M = wk[0:3], wk[3:6], wk[6:9], wk[9:12], wk[12:15], data.tmp[12]
        point_position(data, body, sys.w_center0[w], c)
        point_velocity(data, body, c, v)
        A = data.A[body]
        a0 = sys.w_axis0[w]
        for k in range(3):
            ax[k] = A[k, 0] * a0[0] + A[k, 1] * a0[1] + A[k, 2] * a0[2]
        inp = sys.inputs[w]
        if sys.modes[1] == 0:
            rout = data.tmp[13]
            if sys.modes[0] == 0:
                road_eval(sys.road, c[0] + sys.origin[0], rout)
            else:
                rout[0], rout[1], rout[2] = inp[IN_ROAD_H], inp[IN_ROAD_SLOPE], inp[IN_ROAD_MU]
            out = sys.contact[w]
            om = data.tmp[14]
            for k in range(3):
                om[k] = data.Z[body, 3 + k]
            tire_contact(sys.tire_p[w], c, v, om, ax, rout[0], rout[1], rout[2], y[2 * ni + w], out)
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
            out = sys.contact[w]
            out[OUT_FX] = inp[IN_FX]
            out[OUT_FZ] = inp[IN_FZ]
        add_point_force(data.Qext[body], P, F)
        for k in range(3):
            data.Qext[body, 3 + k] += M[k]
        s = sys.w_spin[w]
        data.jforce[s] += inp[IN_DRIVE] - inp[IN_BRAKE] * math.tanh(data.zd[s] / OMEGA_BRAKE)


@njit(cache=True)
def vehicle_rhs(t, y, sys, ydot):
    """dy/dt of the vehicle; returns the engine status (0 ok, 1 re-partition advised, < 0 failure)."""
    model, data = sys.model, sys.data
    st = set_state(model, data, y, sys.params[0], int(sys.params[1]))
    if st < 0:
        return st
    ni = model.n - model.m
    clear_loads(data)
    wheel_loads(sys, y, ydot, ni)
    if not forward_dynamics(model, data):
        return STATUS_MASS_NOT_PD
    for k in range(ni):
        ydot[k] = y[ni + k]
        ydot[ni + k] = data.zddi[k]
    return st


N_CHASSIS_OUT = 9
N_WHEEL_OUT = 13


@njit(cache=True)
def vehicle_record(t, y, sys, row):
    """Output row (see :data:`fmu_vehicle.vehicle.vehicle.OUTPUTS` for names and units)."""
    model, data = sys.model, sys.data
    cc = sys.chassis_coords
    for k in range(3):
        row[k] = data.z[cc[k]]
        row[3 + k] = data.zd[cc[k]]
        row[6 + k] = data.zdd[cc[k]]
    row[0] += sys.origin[0]
    ch = sys.chassis
    Ac, oc = data.A[ch], data.o[ch]
    base = N_CHASSIS_OUT
    for w in range(sys.w_body.shape[0]):
        body = sys.w_body[w]
        c, v = data.tmp[12], data.tmp[13]
        point_position(data, body, sys.w_center0[w], c)
        point_velocity(data, body, c, v)
        A = data.A[body]
        a0 = sys.w_axis0[w]
        spin = 0.0
        for k in range(3):
            spin += data.Z[body, 3 + k] * (A[k, 0] * a0[0] + A[k, 1] * a0[1] + A[k, 2] * a0[2])
        # travel: wheel centre height in the chassis frame minus its design value (bump +)
        rel_z = Ac[0, 2] * (c[0] - oc[0]) + Ac[1, 2] * (c[1] - oc[1]) + Ac[2, 2] * (c[2] - oc[2])
        out = sys.contact[w]
        row[base + 0] = spin
        row[base + 1] = data.zd[sys.w_spin[w]]
        row[base + 2] = c[0] + sys.origin[0]
        row[base + 3] = c[2]
        row[base + 4] = v[0]
        row[base + 5] = v[2]
        row[base + 6] = rel_z - sys.w_center0[w, 2]
        row[base + 7] = -data.sd_force[sys.w_spring[w]]
        row[base + 8] = out[OUT_FZ]
        row[base + 9] = out[OUT_FX]
        row[base + 10] = y[2 * (model.n - model.m) + w]
        row[base + 11] = sys.inputs[w, IN_DRIVE]
        row[base + 12] = sys.inputs[w, IN_BRAKE] * math.tanh(data.zd[sys.w_spin[w]] / OMEGA_BRAKE)
        base += N_WHEEL_OUT
    err = 0.0
    for r in range(model.m):
        err = max(err, abs(data.phi[r]))
    row[base] = err


register_system(VehicleArgs, vehicle_rhs, vehicle_record)
