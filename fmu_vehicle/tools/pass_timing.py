"""One vehicle evaluation pass by pass, for timing (``fmu-vehicle bench --passes``; docs/formulation.md §9).

``pass_loop`` repeats one pass of ``vehicle_rhs`` (or the whole of it) at the state last evaluated; the
bench times it from Python and divides by the number of calls. :data:`PASS_CALLS` lists the passes as
(name, call) pairs, every call taking ``(t, y, model, data, model_ref, data_ref, ydot)`` and returning the
pass's status code (0 for a pass that has none): a pass to time is one entry. The parts of ``set_state``
and of ``forward_dynamics`` are listed after them. Repeating a pass leaves the workspace in a state no run
should continue from (loads added again and again): evaluate ``vehicle_rhs`` before using it for anything
else.
"""
from __future__ import annotations

from numba import literal_unroll

from ..multibody.constraints import acceleration_bias, eval_constraints, factor_dependent, velocity_transform
from ..multibody.dynamics import (accumulate, add_rods, assemble, body_terms, drive_forces, forward_dynamics,
                                  solve_accelerations)
from ..multibody.force_elements import spring_dampers
from ..multibody.kinematics import forward_positions, forward_velocities
from ..multibody.state import set_state
from ..numerics.jit import njit
from ..numerics.packing import by_ref
from ..vehicle.dynamics import vehicle_rhs_ref, wheel_loads

# Each call is inlined into the loop that runs it (``njit(inline="always")``): the loop times the pass, not a
# call that hands over every member of the model and workspace.


@njit(inline="always")
def _vehicle_rhs(t, y, model, data, model_ref, data_ref, ydot):
    return vehicle_rhs_ref(t, y, model_ref, data_ref, ydot)


@njit(inline="always")
def _set_state(t, y, model, data, model_ref, data_ref, ydot):
    return set_state(model.mech, data.mech, y, model.position_tol, model.position_maxit)


@njit(inline="always")
def _eval_constraints(t, y, model, data, model_ref, data_ref, ydot):
    eval_constraints(model.mech, data.mech, False)
    return 0


@njit(inline="always")
def _wheel_loads(t, y, model, data, model_ref, data_ref, ydot):
    wheel_loads(model, data, y, ydot, model.mech.ni)
    return 0


def _engine(fn):
    """The call of the engine pass ``fn(mech, d)`` (no status). Compiled only into the loop that runs it (not
    cached itself: its code holds ``fn``)."""
    @njit(inline="always", cache=False)
    def call(t, y, model, data, model_ref, data_ref, ydot):
        fn(model.mech, data.mech)
        return 0
    return call


PASS_CALLS = (("vehicle_rhs", _vehicle_rhs), ("set_state", _set_state),
              ("forward_positions", _engine(forward_positions)), ("eval_constraints", _eval_constraints),
              ("factor_dependent", _engine(factor_dependent)), ("forward_velocities", _engine(forward_velocities)),
              ("velocity_transform", _engine(velocity_transform)), ("wheel_loads", _wheel_loads),
              ("forward_dynamics", _engine(forward_dynamics)), ("body_terms", _engine(body_terms)),
              ("spring_dampers", _engine(spring_dampers)), ("acceleration_bias", _engine(acceleration_bias)),
              ("accumulate", _engine(accumulate)), ("assemble", _engine(assemble)), ("add_rods", _engine(add_rods)),
              ("solve_accelerations", _engine(solve_accelerations)), ("drive_forces", _engine(drive_forces)))
"""(name, call) of each pass ``pass_loop`` runs, by number: the whole evaluation, ``set_state`` and its parts
(at a converged state: no Newton step), the wheel loads, ``forward_dynamics`` and its parts."""

PASSES = tuple(name for name, _ in PASS_CALLS)
"""The names of :data:`PASS_CALLS`, by number."""

PARTS_OF = {p: "set_state" for p in PASSES[2:7]} | {p: "forward_dynamics" for p in PASSES[9:]}
"""Pass -> the pass of ``PASSES`` it is a part of."""

_CALLS = tuple(call for _, call in PASS_CALLS)


@njit(cache=True)
def pass_loop(which, n, t, y, model, data, ydot):
    """Run pass number ``which`` of ``PASS_CALLS`` n times at time t [s] and state y; returns the sum of the
    status codes the passes returned. The loop over the calls is unrolled when compiled (``literal_unroll``):
    each copy of its body a direct call of one pass, inlined."""
    model_ref, data_ref = by_ref(model), by_ref(data)   # (as the integrators' loops call it: no copy per call)
    s = 0
    for _ in range(n):
        k = 0
        for call in literal_unroll(_CALLS):
            if k == which:
                s += call(t, y, model, data, model_ref, data_ref, ydot)
            k += 1
    return s
