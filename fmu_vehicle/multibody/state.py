"""Entry points of one derivative evaluation: set the state, then (after the caller's loads) solve
(docs/formulation.md §8-§10).

A caller (a mechanism simulation, a vehicle, an FMU) does per evaluation::

    status = set_state(model, data, y, tol, maxit)   # positions (Newton), R_z, velocities, kinematics
    clear_loads(data); <add wheel/tire/actuator loads to data.Qext, data.jforce>
    ok = forward_dynamics(model, data)                # -> data.zddi
    drive_forces(model, data)                         # -> data.drv_force (only if needed)
State vector y = [z^i, zd^i] (independent coordinates and velocities). Driven coordinates are not states:
the caller writes their prescribed values s(t), s'(t), s''(t) into data.drv_z, drv_zd, drv_zdd before
set_state (docs/formulation.md §13).
"""
from __future__ import annotations

import math

from ..numerics.jit import njit

from .constraints import (clear_transform, driven_column, eval_constraints, factor_dependent, solve_positions,
                          velocity_transform)
from .kinematics import forward_positions, forward_velocities

STATUS_OK = 0
STATUS_REPARTITION = 1      # Phi_z^d is becoming ill-conditioned: choose new independent coordinates
STATUS_POSITION_FAILED = -1
STATUS_SINGULAR = -2
STATUS_MASS_NOT_PD = -3

PREDICTOR_FIELDS = ("Rz", "Rdrv", "rz_rows", "rz_nrows", "rdrv_rows", "rdrv_nrows", "rdrv_stale", "S")
"""The workspace fields besides z and zd that :func:`predict_dependent` reads: what a saved state must hold
to continue bit-identically."""

REPARTITION_PIVOT_GROWTH = 10.0   # re-partition when the LU pivot ratio of Phi_z^d grew this much since
                                  # the partition was chosen (data.stats[3]); scale-free across mechanisms


@njit(inline="always")
def predict_dependent(model, data, y):
    """Newton start for z^d from the last evaluation, to second order in the step:

        z^d += R_z|_d dz^i + R_drv|_d dz_drv + (a^2 / 2) S^d

    dz^i = y^i - z^i and dz_drv = data.drv_z - z_drv are the moves of the independent and driven
    coordinates since the last evaluation, R_z and R_drv its velocity transformations (the first-order
    change of z^d) and S its acceleration bias, dR_z/dt zd^i: the second derivative of z^d along the last
    velocities, scaled by a [s], the time a = (dz . zd) / |zd|^2 that best explains the move along them.
    Between RK4 stages (z^i moves by about (h/2) zd^i) this leaves |Phi| near 5e-13 m, within the position
    tolerance, for about 99 % of evaluations, which then need no Newton iteration (the previous start,
    z^d += a zd^d, needed about one per evaluation).

    It reads only the workspace the last evaluation left (z, zd, R_z, R_drv, their row lists and S),
    which the simulator's saved state holds, so a restored state continues bit-identically. A workspace
    whose coordinates or partition were set otherwise has these cleared (``constraints.clear_transform``):
    then z^d stays where it is. Keeps z and zd as they were in data.z_last and zd_last and returns a (0
    without velocities), for :func:`set_state`'s second start.

    A column of R_drv that the last evaluation left stale (its driven coordinate at rest there:
    ``constraints.velocity_transform``) is built here if that coordinate now moves, at the configuration the
    last evaluation solved, z as it still is: Phi_z and its LU factors are evaluated there again (the same
    numbers the last evaluation had; the workspace's may since belong to another configuration: a failed
    position problem, a restored state), once per start of motion.
    """
    refactored = False
    for k in range(model.ndrv):
        if data.rdrv_stale[k] and data.drv_z[k] != data.z[model.drv[k]]:
            if not refactored:
                forward_positions(model, data)
                eval_constraints(model, data, False)
                refactored = model.m == 0 or not math.isinf(factor_dependent(model, data))
            if refactored:
                driven_column(model, data, k)
    num = 0.0
    den = 0.0
    for k in range(model.ni):
        i = data.indep[k]
        num += (y[k] - data.z[i]) * data.zd[i]
        den += data.zd[i] * data.zd[i]
    for k in range(model.ndrv):
        i = model.drv[k]
        num += (data.drv_z[k] - data.z[i]) * data.zd[i]
        den += data.zd[i] * data.zd[i]
    for i in range(model.n):
        data.z_last[i] = data.z[i]
        data.zd_last[i] = data.zd[i]
    for k in range(model.ni):
        dz = y[k] - data.z[data.indep[k]]
        rows = data.rz_rows[k]
        for t in range(1, data.rz_nrows[k]):          # (rows[0] is the independent coordinate itself)
            r = rows[t]
            data.z[r] += data.Rz[r, k] * dz
    for k in range(model.ndrv):
        dz = data.drv_z[k] - data.z[model.drv[k]]
        if data.rdrv_stale[k]:                        # at rest since (dz = 0), or its configuration singular
            continue
        rows = data.rdrv_rows[k]
        for t in range(1, data.rdrv_nrows[k]):
            r = rows[t]
            data.z[r] += data.Rdrv[r, k] * dz
    a = num / den if den > 0.0 else 0.0
    half_a2 = 0.5 * a * a
    for c in range(model.m):
        d = data.dep[c]
        data.z[d] += half_a2 * data.S[d]
    return a


@njit(inline="always")
def set_state(model, data, y, tol, maxit):
    """Impose y = [z^i, zd^i] and the driven coordinates (data.drv_z, drv_zd), solve the position and
    velocity problems and the kinematics.

    Returns STATUS_OK, STATUS_REPARTITION (state valid, partition degrading) or a negative failure.
    """
    ni = model.ni
    a = predict_dependent(model, data, y)
    for k in range(ni):
        data.z[data.indep[k]] = y[k]
        data.zd[data.indep[k]] = y[ni + k]
    for k in range(model.ndrv):
        data.z[model.drv[k]] = data.drv_z[k]
        data.zd[model.drv[k]] = data.drv_zd[k]
    solved = False
    for start in range(2):          # (one loop: the position solve is inlined once, not once per start)
        if start == 1:
            # far from the last evaluation (a large or rejected step), the second-order start can fail where
            # a first-order one does not: start again from the last solution moved along its velocities
            for c in range(model.m):
                d = data.dep[c]
                data.z[d] = data.z_last[d] + a * data.zd_last[d]
        if solve_positions(model, data, tol, maxit) >= 0:
            solved = True
            break
    if not solved:
        # no solution near y: leave the workspace as the last evaluation left it (positions, velocities,
        # R_z and S), so that an integrator that rejects the step goes on from there
        for i in range(model.n):
            data.z[i] = data.z_last[i]
            data.zd[i] = data.zd_last[i]
        forward_positions(model, data)
        return STATUS_POSITION_FAILED
    if not velocity_transform(model, data):
        return STATUS_SINGULAR
    forward_velocities(model, data)
    if model.m > 0 and data.stats[2] > REPARTITION_PIVOT_GROWTH * max(data.stats[3], 1.0):
        return STATUS_REPARTITION
    return STATUS_OK


@njit(inline="always")
def clear_loads(data):
    """Zero the caller's external wrenches and joint forces."""
    for i in range(data.Qext.shape[0]):
        data.jforce[i] = 0.0
        for k in range(6):
            data.Qext[i, k] = 0.0


@njit(cache=True)
def positions_and_residual(model, data):
    """Bodies' positions and the loop-closure residual Phi(z) (data.phi, data.phiz) at the workspace's z: the
    two passes a mechanism is checked with when it is built, in one compiled call from Python."""
    forward_positions(model, data)
    eval_constraints(model, data, False)


@njit(cache=True)
def rest_at_design(model, data):
    """Put the workspace at its design configuration z = 0, at rest (z, zd and the driven coordinates zeroed),
    positions and Phi_z current, the pivot ratio of Phi_z^d recorded in data.stats[3] for the partition the
    workspace holds (``Mechanism.reset`` does this and also restores the design partition)."""
    for a in (data.z, data.zd, data.drv_z, data.drv_zd, data.drv_zdd):
        for i in range(a.shape[0]):
            a[i] = 0.0
    positions_and_residual(model, data)
    if model.m > 0:
        data.stats[3] = factor_dependent(model, data)
    clear_transform(model, data)


@njit(cache=True)
def assemble_positions(model, data, target, scratch, steps, tol, maxit):
    """Move the independent and driven coordinates from where the workspace is to ``target`` [m | rad] by
    continuation: z_imposed(k) = z_start + (k / N) (target - z_start), k = 1..N, N = ``steps``, solving the
    position problem (``solve_positions``) at each point. A point that fails is retried from the last good
    one with twice the remaining steps, up to 64 ``steps`` in all. Dependent coordinates keep the values
    they have on entry as the first guess. ``scratch``: (2, n) [start, last good z]. Leaves the driven
    coordinates' data.drv_z at their target and the velocities unsolved. Returns 0, or -1 if the position
    problem cannot be followed to the target."""
    n = model.n
    start, z_try = scratch[0], scratch[1]
    for i in range(n):
        start[i] = data.z[i]
    k, nsteps = 0, steps
    while k < nsteps:
        frac = (k + 1) / nsteps
        for i in range(n):
            z_try[i] = data.z[i]
        for c in range(model.ni):
            i = data.indep[c]
            data.z[i] = start[i] + frac * (target[i] - start[i])
        for c in range(model.ndrv):
            i = model.drv[c]
            data.z[i] = start[i] + frac * (target[i] - start[i])
        if solve_positions(model, data, tol, maxit) < 0:
            if nsteps > 64 * steps:
                return -1
            for i in range(n):
                data.z[i] = z_try[i]
                start[i] = z_try[i]
            nsteps, k = 2 * (nsteps - k), 0
            continue
        k += 1
    for c in range(model.ndrv):
        data.drv_z[c] = data.z[model.drv[c]]
    return 0
