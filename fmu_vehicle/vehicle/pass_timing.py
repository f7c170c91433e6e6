"""One vehicle evaluation pass by pass, for timing (``fmu-vehicle bench --passes``; docs/formulation.md §9).

``pass_loop`` repeats one pass of ``vehicle_rhs`` (or the whole of it) at the state last evaluated; the
bench times it from Python and divides by the number of calls. The parts of ``set_state`` and of
``forward_dynamics`` are listed after them. Repeating a pass leaves the workspace in a state no run should
continue from (loads added again and again): evaluate ``vehicle_rhs`` before using it for anything else.
"""
from __future__ import annotations

from ..numerics.jit import njit
from ..multibody.constraints import acceleration_bias, eval_constraints, factor_dependent, velocity_transform
from ..multibody.dynamics import (accumulate, add_rods, assemble, body_terms, drive_forces, forward_dynamics,
                                  solve_accelerations)
from ..multibody.force_elements import spring_dampers
from ..multibody.kinematics import forward_positions, forward_velocities
from ..multibody.state import set_state
from ..numerics.packing import by_ref
from .dynamics import vehicle_rhs_ref, wheel_loads

PASSES = ("vehicle_rhs", "set_state", "forward_positions", "eval_constraints", "factor_dependent",
          "forward_velocities", "velocity_transform", "wheel_loads", "forward_dynamics", "body_terms",
          "spring_dampers", "acceleration_bias", "accumulate", "assemble", "add_rods", "solve_accelerations",
          "drive_forces")
"""The passes ``pass_loop`` runs, by number: the whole evaluation, ``set_state`` and its parts (at a
converged state: no Newton step), the wheel loads, ``forward_dynamics`` and its parts."""

PARTS_OF = {p: "set_state" for p in PASSES[2:7]} | {p: "forward_dynamics" for p in PASSES[9:]}
"""Pass -> the pass of ``PASSES`` it is a part of."""


@njit(cache=True)
def pass_loop(which, n, t, y, model, data, ydot):
    """Run pass number ``which`` of ``PASSES`` n times at time t [s] and state y; returns the sum of the
    status codes the passes that have one returned (0 for a pass that has none)."""
    mech, d = model.mech, data.mech
    model_ref, data_ref = by_ref(model), by_ref(data)   # (as the integrators' loops call it: no copy per call)
    s = 0
    for _ in range(n):
        if which == 0:
            s += vehicle_rhs_ref(t, y, model_ref, data_ref, ydot)
        elif which == 1:
            s += set_state(mech, d, y, model.position_tol, model.position_maxit)
        elif which == 2:
            forward_positions(mech, d)
        elif which == 3:
            eval_constraints(mech, d, False)
        elif which == 4:
            factor_dependent(mech, d)
        elif which == 5:
            forward_velocities(mech, d)
        elif which == 6:
            velocity_transform(mech, d)
        elif which == 7:
            wheel_loads(model, data, y, ydot, mech.ni)
        elif which == 8:
            forward_dynamics(mech, d)
        elif which == 9:
            body_terms(mech, d)
        elif which == 10:
            spring_dampers(mech, d)
        elif which == 11:
            acceleration_bias(mech, d)
        elif which == 12:
            accumulate(mech, d)
        elif which == 13:
            assemble(mech, d)
        elif which == 14:
            add_rods(mech, d)
        elif which == 15:
            solve_accelerations(mech, d)
        elif which == 16:
            drive_forces(mech, d)
    return s
