"""The vehicle's static equilibrium on the road at a position x0, in compiled code (``static_equilibrium``).

It is what every run starts from (``Vehicle.start_table``), and the native FMU calls the same kernel through
an entry point of its binary, so that ``x0`` stays settable there (docs/native.md). The steps:

1. The engine workspace at its design configuration (``multibody.state.rest_at_design``), the origin at the
   nearest metre to x0 (``VehicleSystem.rebase``), no torque, internal road and tire, steering straight.
2. A rigid placement: pitch = -atan(grade), grade = (h_front - h_rear) / (x_front - x_rear) from the road
   heights under the first and last wheel; the chassis lowered so that the tires are deflected by
   m g / (n_wheels c_z) on average; the continuation ``multibody.state.assemble_positions`` takes the
   chassis there in 10 steps.
3. Newton's method on the reduced generalized forces Q(q) = 0 at zero velocity [N or N m] over the free
   independent positions q (all but the chassis's x, y and yaw and the wheel spins, which a standing car
   leaves undetermined): first the suspensions with the chassis held, then everything; if that ends above
   the accepted residual (a suspension lifted its wheel off the road while the chassis was held, e.g. a
   spring preloaded in tension), again from the placement with everything free at once. The Jacobian is
   formed by forward differences, dQ/dq_j = (Q(q + h_j e_j) - Q(q)) / h_j with h_j = 1e-7 (1 + |q_j|), and
   factored with ``multibody.linalg.lu_factor``; each step is limited to MAX_STEP and halved until |Q|
   decreases. When no halving does, the differences are taken again over a 100 times wider step (up to
   1e-3: Q has kinks, e.g. the lateral slope of a two-track road jumps to 0 at its edge, where a car's wheels
   stand), and the iteration stops at the widest (the evaluation's rounding floor) or when the step is below
   1e-15 relative. The tires' lateral force and aligning moment are off meanwhile (``tire.models.rest_params``:
   a tire at rest carries no lateral force).
4. Each loaded tire's lateral state q_y = tan(alpha') is set where its lateral force Fy(q_y) = 0 (ply steer
   and conicity cancelled), by bisection on [-0.5, 0.5] to 1e-15, or left at 0 where Fy has no root there.
5. The start table (``vehicle.start``): the chassis velocity gains along the road tangent
   (1, grade)/|(1, grade)| and each wheel's effective rolling radius at the equilibrium.

A solver of its own, not SciPy's ``root``: the native FMU has no Python and no LAPACK, and one kernel for
both keeps the Python FMU and the native FMU equal bit for bit. All scratch is in :class:`EquilibriumWork`
(no allocation in the kernel).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..numerics import elementary as em
from ..numerics.jit import njit
from ..numerics.linalg import lu_factor, lu_solve, max_abs
from ..multibody.constraints import velocity_transform
from ..multibody.kinematics import forward_velocities
from ..multibody.state import assemble_positions, rest_at_design
from ..road.kernel import road_eval_xy
from ..tire.models import (CONTACT_OUT_N, N_PARAMS, OUT_FY, OUT_FZ, OUT_RE, contact, model_id, rest_params,
                           unloaded_radius, vertical_stiffness)
from .dynamics import IN_BRAKE, IN_DRIVE, vehicle_rhs
from .model import MODE_ROAD, MODE_TIRE, W_AXIS, W_CENTER, W_OMEGA, W_ROAD, W_VEL, VehicleModel

PLACEMENT_STEPS = 10        # continuation steps of the rigid placement
NEWTON_MAXIT = 60           # Newton iterations per stage
MAX_STEP = 0.1             # largest change of any position in one Newton step [m or rad]
HALVINGS = 12               # step halvings before a Newton iteration counts as stalled
FD_STEP = 1e-7              # forward-difference step, relative to 1 + |q_j|
FD_STEP_MAX = 1e-3          # the widest step tried when a Newton iteration makes no progress
ACCEPT = 1e-6               # largest accepted residual, relative to the vehicle's weight m g

# EquilibriumWork.info
INFO_RESIDUAL, INFO_ITERATIONS, INFO_EVALUATIONS = 0, 1, 2

# status of static_equilibrium besides 0
FAIL_PLACEMENT, FAIL_RESIDUAL = -1, -2


class EquilibriumWork(NamedTuple):
    """Scratch of :func:`static_equilibrium` for a vehicle of ``ni`` independent coordinates, ``n``
    coordinates, ``nw`` wheels and ``n_states`` states (:func:`new_work`)."""
    jac: np.ndarray         # (ni, ni) forward-difference Jacobian, then its LU factors
    rest_p: np.ndarray      # (nw, N_PARAMS) the tire parameters of ``tire.models.rest_params``
    vec: np.ndarray         # (5, ni): q, Q(q), step, trial q, Q(trial q)
    ys: np.ndarray          # (2, n_states): the trial state, its derivative
    zs: np.ndarray          # (4, n): placement target and continuation scratch (rows 0-2), then the last
                            # good z and zd (rows 0-1); road heights (row 3)
    saved: np.ndarray       # (2 nw + 3,): the drive and brake inputs, the steering ramp's t0, s0, rate
    out: np.ndarray         # (CONTACT_OUT_N,) one tire evaluation
    info: np.ndarray        # (3,): INFO_* of the last call: max|Q| [N or N m], Newton iterations, evaluations
    ints: np.ndarray        # (4 ni + 2,) int64: pivots, block begins, block ends, unknowns; saved modes


def work_shapes(ni: int, n: int, nw: int, n_states: int) -> tuple[tuple[int, ...], ...]:
    """The shapes of :class:`EquilibriumWork`'s members, in order: float64 ones, then ``ints`` (int64)."""
    return ((ni, ni), (nw, N_PARAMS), (5, ni), (2, n_states), (4, n), (2 * nw + 3,), (CONTACT_OUT_N,), (3,),
            (4 * ni + 2,))


def new_work(ni: int, n: int, nw: int, n_states: int) -> EquilibriumWork:
    """Zeroed :class:`EquilibriumWork` for these sizes (module docstring)."""
    *floats, ints = work_shapes(ni, n, nw, n_states)
    return EquilibriumWork(*(np.zeros(s) for s in floats), np.zeros(ints, dtype=np.int64))


@njit(inline="always")
def _with_tire_p(model, tire_p):
    """``model`` with its tire parameters replaced (the other members shared)."""
    return VehicleModel(model.mech, model.position_tol, model.position_maxit, model.w_body, model.w_hub,
                        model.w_spin, model.w_spring, model.w_center0, model.w_axis0, model.w_inertia, model.w_side,
                        tire_p, model.road, model.chassis, model.chassis_coords, model.chassis_com0, model.steer_drv,
                        model.out_map, model.point_column, model.w_center_row, model.w_chassis, model.held,
                        model.u_body, model.a_wheels, model.bar_wheels, model.bar_rate)


@njit(inline="always")
def _forces(model, data, y, ws, unknowns, n_unk, q, f):
    """Q(q) into ``f[:n_unk]``: the reduced generalized forces of the unknown slots with y's slots replaced by
    q (1e6 each if the evaluation fails); returns |Q|^2."""
    yy = ws.ys[0]
    for k in range(y.shape[0]):
        yy[k] = y[k]
    for j in range(n_unk):
        yy[unknowns[j]] = q[j]
    ws.info[INFO_EVALUATIONS] += 1.0
    d = data.mech
    z_good, zd_good = ws.zs[0], ws.zs[1]
    for i in range(d.z.shape[0]):
        z_good[i], zd_good[i] = d.z[i], d.zd[i]
    st = vehicle_rhs(0.0, yy, model, data, ws.ys[1])
    if st < 0:      # the next evaluation starts from the last good positions, not from where this one failed
        for i in range(d.z.shape[0]):
            d.z[i], d.zd[i] = z_good[i], zd_good[i]
    ss = 0.0
    for j in range(n_unk):
        f[j] = 1e6 if st < 0 else data.mech.fr[unknowns[j]]
        ss += f[j] * f[j]
    return ss


@njit(inline="always")
def _newton(model, data, y, ws, unknowns, n_unk):
    """Solve Q(q) = 0 over the slots ``unknowns[:n_unk]`` of y, starting from y's values (module docstring,
    step 3); writes the solution into y and returns max|Q| there."""
    ni = ws.jac.shape[0]
    q, f, dq, qt, ft = ws.vec[0], ws.vec[1], ws.vec[2], ws.vec[3], ws.vec[4]
    piv, beg, end = ws.ints[0:ni], ws.ints[ni:2 * ni], ws.ints[2 * ni:3 * ni]
    for j in range(n_unk):
        q[j] = y[unknowns[j]]
    ss = _forces(model, data, y, ws, unknowns, n_unk, q, f)
    fd = FD_STEP
    for it in range(NEWTON_MAXIT):
        ws.info[INFO_ITERATIONS] += 1.0
        # J[:, j] = (Q(q + h e_j) - Q(q)) / h; rows and columns past n_unk: identity
        for i in range(ni):
            for j in range(ni):
                ws.jac[i, j] = 0.0
            beg[i], end[i] = (0, n_unk) if i < n_unk else (i, i + 1)
            if i >= n_unk:
                ws.jac[i, i] = 1.0
        for j in range(n_unk):
            h = fd * (1.0 + abs(q[j]))
            for k in range(n_unk):
                qt[k] = q[k]
            qt[j] = q[j] + h
            _forces(model, data, y, ws, unknowns, n_unk, qt, ft)
            for i in range(n_unk):
                ws.jac[i, j] = (ft[i] - f[i]) / h
        accepted = False
        if not math.isinf(lu_factor(ws.jac, piv, beg, end)):
            for i in range(ni):
                dq[i] = -f[i] if i < n_unk else 0.0
            lu_solve(ws.jac, piv, beg, end, dq, 0, ni)
            big = 0.0
            for k in range(n_unk):
                big = max_abs(big, dq[k])
            scale = min(1.0, MAX_STEP / big) if big > 0.0 else 1.0
            for _ in range(HALVINGS):
                for k in range(n_unk):
                    qt[k] = q[k] + scale * dq[k]
                ss_t = _forces(model, data, y, ws, unknowns, n_unk, qt, ft)
                if ss_t < ss:
                    accepted = True
                    break
                scale *= 0.5
        if not accepted:
            # at the rounding floor, or a Jacobian spoilt by a kink of Q (a wheel exactly on a road's edge):
            # differences over a wider step, up to FD_STEP_MAX
            if fd >= FD_STEP_MAX:
                break
            fd = min(100.0 * fd, FD_STEP_MAX)
            continue
        small = True
        for k in range(n_unk):
            small = small and abs(qt[k] - q[k]) <= 1e-15 * (1.0 + abs(q[k]))
            q[k], f[k] = qt[k], ft[k]
        ss = ss_t
        if small:
            break
    err = 0.0
    for j in range(n_unk):
        y[unknowns[j]] = q[j]
        err = max_abs(err, f[j])
    return err


@njit(inline="always")
def _rest_lateral_states(model, data, y, ws):
    """Step 4 of the module docstring, at the state ``y`` (whose evaluation is current in ``data``)."""
    ni, nw = model.mech.ni, model.w_body.shape[0]
    out = ws.out
    for w in range(nw):
        wk = data.work[w]
        if data.contact[w, OUT_FZ] <= 0.0:
            continue
        fy = ws.vec[0, 0:2]
        for side in range(2):
            contact(model_id(model.tire_p[w]), model.tire_p[w], model.w_side[w], wk[W_CENTER:W_CENTER + 3],
                    wk[W_VEL:W_VEL + 3], wk[W_OMEGA:W_OMEGA + 3], wk[W_AXIS:W_AXIS + 3], wk[W_ROAD],
                    wk[W_ROAD + 1], wk[W_ROAD + 3], wk[W_ROAD + 2], y[2 * ni + w], -0.5 + side, out)
            fy[side] = out[OUT_FY]
        if not fy[0] * fy[1] < 0.0:
            continue
        lo, hi, f_lo = -0.5, 0.5, fy[0]
        while hi - lo > 1e-15:
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            contact(model_id(model.tire_p[w]), model.tire_p[w], model.w_side[w], wk[W_CENTER:W_CENTER + 3],
                    wk[W_VEL:W_VEL + 3], wk[W_OMEGA:W_OMEGA + 3], wk[W_AXIS:W_AXIS + 3], wk[W_ROAD],
                    wk[W_ROAD + 1], wk[W_ROAD + 3], wk[W_ROAD + 2], y[2 * ni + w], mid, out)
            if (out[OUT_FY] < 0.0) == (f_lo < 0.0):
                lo, f_lo = mid, out[OUT_FY]
            else:
                hi = mid
        y[2 * ni + 2 * nw + w] = 0.5 * (lo + hi)


@njit
def static_equilibrium(model, data, x0, mass_kg, ws, y_rest, speed_gain, spin_radius):
    """The static equilibrium on the road at ``x0`` [m] and the start table (module docstring): writes
    ``y_rest``, ``speed_gain`` and ``spin_radius`` (``vehicle.start.StartTable``) and ``ws.info``, and leaves
    ``data`` evaluated at the equilibrium. ``mass_kg``: the vehicle's total mass (the deflection guess and the
    accepted residual, ACCEPT m g). The workspace's partition must be the design one (``Mechanism.reset``).
    Returns 0, FAIL_PLACEMENT or FAIL_RESIDUAL (``ws.info[INFO_RESIDUAL]`` holds max|Q|)."""
    d = data.mech
    ni, nw = model.mech.ni, model.w_body.shape[0]
    cc = model.chassis_coords
    ws.info[:] = 0.0
    # no torque, internal road and tire, steering straight while solving; restored at the end
    n_ints = ws.ints.shape[0]
    for w in range(nw):
        ws.saved[2 * w], ws.saved[2 * w + 1] = data.inputs[w, IN_DRIVE], data.inputs[w, IN_BRAKE]
        data.inputs[w, IN_DRIVE], data.inputs[w, IN_BRAKE] = 0.0, 0.0
    for k in range(3):
        ws.saved[2 * nw + k], data.steer[k] = data.steer[k], 0.0
    ws.ints[n_ints - 2], ws.ints[n_ints - 1] = data.modes[MODE_ROAD], data.modes[MODE_TIRE]
    data.modes[MODE_ROAD], data.modes[MODE_TIRE] = 0, 0
    grade = _road_grade(model, x0, ws.zs[3], ws.out)
    status = _solve(model, data, x0, grade, mass_kg, ws, y_rest)
    for w in range(nw):
        data.inputs[w, IN_DRIVE], data.inputs[w, IN_BRAKE] = ws.saved[2 * w], ws.saved[2 * w + 1]
    for k in range(3):
        data.steer[k] = ws.saved[2 * nw + k]
    data.modes[MODE_ROAD], data.modes[MODE_TIRE] = ws.ints[n_ints - 2], ws.ints[n_ints - 1]
    if status < 0:
        return status
    # the start table: chassis along the road tangent, wheels free rolling at their effective radius
    norm = math.sqrt(1.0 + grade * grade)
    for k in range(y_rest.shape[0]):
        speed_gain[k], spin_radius[k] = 0.0, 0.0
    for k in range(ni):
        i = d.indep[k]
        if i == cc[0]:
            speed_gain[ni + k] = 1.0 / norm
        elif cc[2] >= 0 and i == cc[2]:
            speed_gain[ni + k] = grade / norm
        for w in range(nw):
            if i == model.w_spin[w]:
                spin_radius[ni + k] = data.contact[w, OUT_RE]
    return 0


@njit(inline="always")
def _road_grade(model, x0, heights, road_out):
    """The road grade between the first and last wheel with the car at x0 [m]: (h_0 - h_last) / (x_0 - x_last);
    0 for one wheel or wheels at the same x. Writes the road height under each wheel into ``heights[:nw]``
    (``road_out``: scratch of 4 or more)."""
    nw = model.w_body.shape[0]
    for w in range(nw):
        road_eval_xy(model.road, model.w_center0[w, 0] + x0, model.w_center0[w, 1], road_out)
        heights[w] = road_out[0]
    x_first, x_last = model.w_center0[0, 0] + x0, model.w_center0[nw - 1, 0] + x0
    if nw > 1 and x_first != x_last:
        return (heights[0] - heights[nw - 1]) / (x_first - x_last)
    return 0.0


@njit(inline="always")
def _place(model, data, x0, grade, mass_kg, ws, y):
    """Steps 1-2 of the module docstring: the workspace at the rigid placement, y's positions from it and its
    other slots 0. Returns 0 or FAIL_PLACEMENT."""
    mech, d = model.mech, data.mech
    ni, nw, n = mech.ni, model.w_body.shape[0], mech.n
    cc, com = model.chassis_coords, model.chassis_com0
    rest_at_design(mech, d)
    data.origin[0] = np.rint(x0)
    heights = ws.zs[3]
    pitch = -em.atan(grade)
    sp, cp = em.sincos(pitch)
    dz = 0.0
    for w in range(nw):
        c = model.w_center0[w]
        rot_z = com[2] - sp * (c[0] - com[0]) + cp * (c[2] - com[2])
        defl = mass_kg * 9.81 / nw / vertical_stiffness(model.tire_p[w])
        dz += heights[w] + (unloaded_radius(model.tire_p[w]) - defl) / em.cos(em.atan(grade)) - rot_z
    dz /= nw
    target = ws.zs[0]
    for i in range(n):
        target[i] = d.z[i]
    for k in range(6):
        if cc[k] >= 0:
            target[cc[k]] = 0.0
    if model.steer_drv >= 0:
        target[mech.drv[model.steer_drv]] = 0.0
    target[cc[0]] = x0 - data.origin[0]
    if cc[2] >= 0:
        target[cc[2]] = dz
    if cc[4] >= 0:
        target[cc[4]] = pitch
    if assemble_positions(mech, d, target, ws.zs[1:3], PLACEMENT_STEPS, model.position_tol,
                          model.position_maxit) < 0:
        return FAIL_PLACEMENT
    velocity_transform(mech, d)
    forward_velocities(mech, d)
    for k in range(y.shape[0]):
        y[k] = d.z[d.indep[k]] if k < ni else 0.0
    return 0


@njit(inline="always")
def _solve(model, data, x0, grade, mass_kg, ws, y):
    """Steps 1-4 of the module docstring into ``y`` (status as :func:`static_equilibrium`). Step 3 first settles
    the suspensions with the chassis held, then frees the chassis; if that ends above the accepted residual
    (a suspension that lifted its wheel off the road while the chassis was held, e.g. a spring preloaded in
    tension), it starts again from the placement with everything free at once."""
    mech, d = model.mech, data.mech
    ni, nw = mech.ni, model.w_body.shape[0]
    cc = model.chassis_coords
    for w in range(nw):
        rest_params(model.tire_p[w], ws.rest_p[w])
    rest = _with_tire_p(model, ws.rest_p)
    unknowns = ws.ints[3 * ni:4 * ni]
    err = 0.0
    for first_stage in range(2):
        if _place(model, data, x0, grade, mass_kg, ws, y) < 0:
            return FAIL_PLACEMENT
        for stage in range(first_stage, 2):
            n_unk = 0
            for k in range(ni):
                i = d.indep[k]
                held = i == cc[0] or i == cc[1] or i == cc[5]
                for w in range(nw):
                    held = held or i == model.w_spin[w]
                for h in range(model.held.shape[0]):
                    held = held or i == model.held[h]
                if stage == 0:
                    for c in range(6):
                        held = held or i == cc[c]
                if not held:
                    unknowns[n_unk] = k
                    n_unk += 1
            # (n_unk as int64: typed as a literal 0 it compiled _newton a second time)
            err = _newton(rest, data, y, ws, unknowns, np.int64(n_unk))
        if err <= ACCEPT * mass_kg * 9.81:
            break
    ws.info[INFO_RESIDUAL] = err
    if not err <= ACCEPT * mass_kg * 9.81:
        return FAIL_RESIDUAL
    # step 4 at the equilibrium, evaluated with the file's tire parameters
    vehicle_rhs(0.0, y, model, data, ws.ys[1])
    _rest_lateral_states(model, data, y, ws)
    return 0
