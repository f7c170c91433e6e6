"""What a stepping run does to a vehicle between two communication points, compiled (kernels of (model, data)).

Before each communication step of length h from time t, :func:`prepare_step`:

1. points the steering rack's ramp at its target (a first-order hold of the steering input): the travel now,
   s(t) = s0 + r (t - t0) from the ramp ``data.steer`` = [t0, s0, r, gain], becomes the ramp's start, and the
   rate becomes r = (s_target - s(t)) / h, so the rack reaches s_target at t + h with zero acceleration;
2. for an external tire load given at a point P (``point.x/y/z`` inputs), sets each wheel's lever r = P - c
   about its wheel centre c (the ``pos.x/y/z`` outputs of the current row) into the ``W_LEVER`` scratch
   (``update_levers``; the derivative pass holds it over the step);
3. keeps the engine near its x origin (:func:`rebase_origin`).

It returns True when any of these changed what the derivative depends on, so that a stepper that reuses its
last evaluation (first same as last, multistep histories) must start afresh.

When a step reports that the engine's coordinate partition is degrading (status 1), :func:`repartition_state`
chooses new independent coordinates at the state reached, and the rest of the communication step runs from
there with a fresh stepper. The Python simulator (``VehicleSimulator.advance``) and the native FMU's step call
these same kernels. See docs/vehicle.md (Stepping).
"""
from __future__ import annotations

from ..numerics.jit import njit
from ..multibody.partition import repartition
from ..numerics.packing import packed_value
from .model import MODE_TIRE, W_LEVER

REBASE_DISTANCE = 100.0
"""The engine's x origin moves along with the vehicle whenever the chassis is this far from it [m]."""


@njit(inline="always")
def rebase_origin(model, data, y):
    """Keep the engine near its origin: if the chassis x coordinate (an independent coordinate, slot k of
    y) is more than ``REBASE_DISTANCE`` from it, move the origin by the whole metres D = rint(x):
    y[k] -= D, the engine's warm start z[x] -= D and ``data.origin[0]`` += D (all exact in floating point).
    The vehicle is free along x, so only the road lookups (at engine x + origin) see the origin; the
    engine's numbers stay those of a run near x = 0 at any distance. Returns True if the origin moved."""
    cx = model.chassis_coords[0]
    if cx < 0:
        return False
    d = data.mech
    for k in range(d.indep.shape[0]):
        if d.indep[k] == cx:
            x = y[k]
            if not abs(x) > REBASE_DISTANCE:
                return False
            shift = float(round(x))
            y[k] = x - shift
            d.z[cx] -= shift
            data.origin[0] += shift
            return True
    return False


@njit
def rebase_due(model, data, y):
    """True if :func:`rebase_origin` would move the origin at ``y`` (the chassis x, an independent coordinate,
    more than ``REBASE_DISTANCE`` from it): what a host that integrates the state itself (an FMU in Model
    Exchange) asks at each completed step, to make the rebase an event. Changes nothing."""
    cx = model.chassis_coords[0]
    if cx < 0:
        return False
    indep = data.mech.indep
    for k in range(indep.shape[0]):
        if indep[k] == cx:
            return abs(y[k]) > REBASE_DISTANCE
    return False


@njit(inline="always")
def update_levers(model, data, row):
    """The lever r = P - c of each wheel's external load point P (inputs ``point.x/y/z``, global [m]) about its
    wheel centre c (row[model.w_center_row[w]], the current outputs) into ``data.work[w, W_LEVER:+3]``:
    the load is reduced to the centre with the lever of the step's start, a body-fixed lever (a point fixed
    in space would drift along the wheel's path over the step). Nothing for a vehicle whose signal table
    has no load point or no wheel centre output (w_center_row = -1). Returns True if a lever changed."""
    changed = False
    nw = model.w_body.shape[0]
    col = model.point_column
    for w in range(nw):
        for a in range(3):
            j = model.w_center_row[w, a]
            if j < 0 or col < 0:
                continue
            r = data.inputs[w, col + a] - row[j]
            if data.work[w, W_LEVER + a] != r:
                data.work[w, W_LEVER + a] = r
                changed = True
    return changed


@njit(inline="always")
def ramp_steering(model, data, t, h, rack_target):
    """Point the rack's ramp from its travel at ``t`` [s] to ``rack_target`` [m] at t + h (step 1 of the module
    docstring). Returns True if the rack's rate changed."""
    if model.steer_drv < 0:
        return False
    st = data.steer
    now = st[1] + st[2] * (t - st[0])
    rate = (rack_target - now) / h
    changed = st[2] != rate
    st[0] = t
    st[1] = now
    st[2] = rate
    return changed


@njit
def prepare_step(model, data, t, h, rack_target, y, row):
    """Steps 1-3 of the module docstring before a communication step of ``h`` [s] from ``t`` [s]; ``y`` is the
    state (rebased in place), ``row`` the outputs at t. Returns True if a stepper must not reuse its last
    evaluation."""
    reset = ramp_steering(model, data, t, h, rack_target)
    if data.modes[MODE_TIRE] != 0:
        if update_levers(model, data, row):
            reset = True
    if rebase_origin(model, data, y):
        reset = True
    return reset


@njit
def prepare_step_packed(mbuf, mty, dbuf, dty, t, h, rack_target, y, row):
    """:func:`prepare_step` for the (model, data) of ``packing.packed`` (called once per communication step)."""
    return prepare_step(packed_value(mbuf, mty), packed_value(dbuf, dty), t, h, rack_target, y, row)


@njit
def refresh_levers(model, data, row):
    """:func:`update_levers` if the tire is external (before outputs are evaluated without a step)."""
    if data.modes[MODE_TIRE] == 0:
        return False
    return update_levers(model, data, row)


@njit
def rebase(model, data, y):
    """:func:`rebase_origin` as a kernel of its own (called between the chunks of a recorded run)."""
    return rebase_origin(model, data, y)


def substeps(h: float, dt: float) -> int:
    """Internal steps in a communication step of ``h`` [s] for an internal step of about ``dt`` [s]:
    n = max(1, round(h / dt)), each h / n long."""
    return max(1, int(round(h / dt)))


@njit
def repartition_state(model, data, y):
    """New independent coordinates at the state ``y`` (``multibody.partition.repartition`` on the engine's
    slots y[:2 ni], rewritten in place; the tire and brake states after them do not change). Returns 0 or the
    engine's negative failure status."""
    return repartition(model.mech, data.mech, y, model.position_tol, model.position_maxit)
