"""The C entry points of a system's communication step: numba ``cfunc`` wrappers of the RK4 stepper kernels.

For one (model type, data type) pair, :func:`step_cfuncs` compiles six functions with plain C signatures
(:data:`ADVANCE_SIGNATURE`, :data:`FINAL_SIGNATURE`)::

    int64 advance(int64 *model_buf, int64 *data_buf, double t0, double h, int64 nsteps, double *y,
                  double *row, double *work, double *key, double *saved, int64 *done)
    int64 final(int64 *model_buf, int64 *data_buf, double t, double *y, double *row, double *ydot)
    int64 prepare(int64 *model_buf, int64 *data_buf, double t, double h, double rack_target, double *y,
                  double *row)
    int64 start(double *y_rest, double *speed_gain, double *spin_radius, int64 tire_from, double v0, double *y)
    int64 equilibrium(int64 *model_buf, int64 *data_buf, double x0, double mass, int64 work, int64 *ints,
                      double *y_rest, double *speed_gain, double *spin_radius)
    int64 repartition(int64 *model_buf, int64 *data_buf, double *y)

``advance`` is ``integrators.rk4.rk4_advance`` (``nsteps`` RK4 steps of ``h`` [s] from ``t0`` [s], then the
output row of the final state; first-same-as-last reuse of ``work[0]`` through ``key``/``saved``) on the
(model, data) that ``packing.packed`` wrote into the two buffers; it stores the steps done in ``done[0]`` and
returns the kernel's status (0 ok, 1 the system asks to be re-parameterized after ``done[0]`` steps, < 0 a
failure code of the system). ``final`` is ``VehicleSimulator.refresh``: an external load's levers about the
wheel centres of the outputs in ``row`` (``vehicle.stepping.refresh_levers``), then
``integrators.rk4.rk4_final`` (evaluate and record the state ``y`` at ``t`` without a step; ``ydot`` receives
dy/dt). ``prepare`` is ``vehicle.stepping.prepare_step`` (before a communication step of ``h`` from ``t``: the
steering ramp to ``rack_target`` [m], an external load's levers, the origin rebase; returns 1 if the stepper
must not reuse its last evaluation: zero ``saved[0]``). ``start`` is ``vehicle.start.start_state`` (the
initial state moving at ``v0`` [m/s] from a start table; returns 0). ``equilibrium`` is
``vehicle.equilibrium.static_equilibrium`` (the static equilibrium at ``x0`` [m] and the start table; ``mass``
[kg] the vehicle's; ``work`` the address of the float64 members of its scratch, contiguous in
``work_shapes`` order, ``ints`` its int64 member; returns 0 or the kernel's negative status). ``repartition``
is ``vehicle.stepping.repartition_state`` (after ``advance`` returned 1: new independent coordinates at ``y``,
rewritten in place; returns 0 or the engine's negative status). All six call the package's kernels themselves:
no formula is written twice.

The buffer types and every array length are compile-time constants of the pair (``StepShape``): the
pointers are wrapped with ``numba.carray`` of those lengths, so the entry points take no sizes. ``work`` is
the stepper's (5, n_states) scratch in C order, ``key`` the system's inputs flattened (``integrators.base.
inputs_key``: for a vehicle, the memory of ``data.inputs``), ``saved`` the (1 + n_key,) first-same-as-last
record (``RK4Stepper``).

:func:`evaluate_cfunc` compiles one more, for a host that integrates the state itself (a native FMU in Model
Exchange, docs/native.md §9): the derivative, the switching functions, the outputs and the rebase check at one
state.

See docs/native.md §1.
"""
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import carray, cfunc, types
from numba.extending import intrinsic

from ..integrators.abm import abm_advance, abm_arrays, abm_reset
from ..integrators.base import inputs_key, switch_count, system_record, system_rhs, system_switch
from ..integrators.bdf import bdf_advance, bdf_arrays, bdf_reset
from ..integrators.rk4 import rk4_advance, rk4_final
from ..integrators.rk4e import N_G, N_STATS, N_WORK, rk4e_advance
from ..numerics.packing import packed, packed_value
from ..vehicle.equilibrium import EquilibriumWork, static_equilibrium, work_shapes
from ..vehicle.start import start_state
from ..vehicle.stepping import prepare_step, rebase_due, refresh_levers, repartition_state

_I64P = types.CPointer(types.int64)
_F64P = types.CPointer(types.float64)

ADVANCE_SIGNATURE = types.int64(_I64P, _I64P, types.float64, types.float64, types.int64, _F64P, _F64P, _F64P,
                                _F64P, _F64P, _I64P)
"""C signature of the advance entry point (module docstring)."""

FINAL_SIGNATURE = types.int64(_I64P, _I64P, types.float64, _F64P, _F64P, _F64P)
"""C signature of the final (evaluate-and-record) entry point (module docstring)."""

PREPARE_SIGNATURE = types.int64(_I64P, _I64P, types.float64, types.float64, types.float64, _F64P, _F64P)
"""C signature of the prepare entry point (module docstring)."""

START_SIGNATURE = types.int64(_F64P, _F64P, _F64P, types.int64, types.float64, _F64P)
"""C signature of the start entry point (module docstring)."""

EQUILIBRIUM_SIGNATURE = types.int64(_I64P, _I64P, types.float64, types.float64, types.int64, _I64P, _F64P, _F64P,
                                    _F64P)
"""C signature of the equilibrium entry point (module docstring)."""

REPARTITION_SIGNATURE = types.int64(_I64P, _I64P, _F64P)
"""C signature of the repartition entry point (module docstring)."""

EVALUATE_SIGNATURE = types.int64(_I64P, _I64P, types.float64, _F64P, _F64P, _F64P, _F64P, types.int64, _F64P, _I64P)
"""C signature of the Model Exchange evaluation entry point (:func:`evaluate_cfunc`)."""

ABM4_SIGNATURE = types.int64(_I64P, _I64P, types.float64, types.float64, types.int64, _F64P, _F64P, _F64P, _I64P,
                             _F64P, _F64P, _F64P, types.int64, _I64P)
"""C signature of the ABM4 advance entry point (:func:`integrator_cfuncs`)."""

BDF2_SIGNATURE = types.int64(_I64P, _I64P, types.float64, types.float64, types.int64, _F64P, _F64P, _F64P, _F64P,
                             _I64P, _F64P, _I64P, _F64P, types.float64, types.float64, _F64P, _F64P, types.int64,
                             _I64P)
"""C signature of the BDF2 advance entry point (:func:`integrator_cfuncs`)."""

RK4E_SIGNATURE = types.int64(_I64P, _I64P, types.float64, types.float64, types.int64, _F64P, _F64P, _F64P, _F64P,
                             _F64P, types.int64, types.float64, types.int64, types.int64, _F64P, _F64P, _F64P, _I64P)
"""C signature of the RK4E advance entry point (:func:`integrator_cfuncs`)."""


@intrinsic
def _f64_at(typingctx, address):
    """The ``double *`` at the byte ``address`` (an int64)."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(_F64P))
    return _F64P(types.int64), codegen


class StepShape(NamedTuple):
    """The sizes the entry points are compiled for: the two buffers [int64 words] and the arrays [doubles]."""
    model_words: int
    data_words: int
    n_states: int
    n_outputs: int
    n_key: int
    n_dof: int
    n_coordinates: int
    n_wheels: int
    n_switch: int = 0           # switching functions of the system (``base.switch_count``: RK4E's g rows)

    def work_shapes(self):
        """The shapes of the equilibrium's scratch (``vehicle.equilibrium.work_shapes``)."""
        return work_shapes(self.n_dof, self.n_coordinates, self.n_wheels, self.n_states)

    def work_sizes(self) -> tuple[int, int]:
        """(float64 count, int64 count) of the equilibrium's scratch, as the C layer allocates it."""
        *floats, ints = self.work_shapes()
        return sum(int(np.prod(s)) for s in floats), int(np.prod(ints))


class Packed(NamedTuple):
    """A system's (model, data) as ``packing.packed`` buffers, their numba types and the step's sizes."""
    model_buf: object
    model_type: object
    data_buf: object
    data_type: object
    shape: StepShape


def pack_system(system, n_states: int) -> Packed:
    """Pack ``system``'s model and data (``packing.packed``) and the sizes for ``n_states`` states. The
    buffers hold the addresses of the system's arrays: keep ``system`` alive while they are used."""
    if numba.config.DISABLE_JIT:
        raise RuntimeError("native steps need numba's compiler: NUMBA_DISABLE_JIT is set")
    mbuf, mty = packed(system.model)
    dbuf, dty = packed(system.data)
    shape = StepShape(int(mbuf.size), int(dbuf.size), int(n_states), len(system.output_names),
                      int(inputs_key(system).size), int(system.model.mech.ni), int(system.model.mech.n),
                      int(system.model.w_body.shape[0]), int(switch_count(system.model)))
    return Packed(mbuf, mty, dbuf, dty, shape)


def step_cfuncs(model_type, data_type, shape: StepShape):
    """(advance, final, prepare, start, equilibrium, repartition): the compiled C entry points for buffers of these
    numba types and these sizes (module docstring). Each is a ``numba.cfunc`` (``.address``, ``.ctypes``, ``._library``)."""
    shape = StepShape(*(int(v) for v in shape))         # also from a plain tuple (the export's child)
    nm, nd, n, nout, nkey = shape[:5]
    *float_shapes, int_shape = shape.work_shapes()
    offsets = tuple(int(o) for o in np.cumsum([0] + [8 * int(np.prod(s)) for s in float_shapes])[:-1])
    f0, f1, f2, f3, f4, f5, f6, f7 = float_shapes
    o0, o1, o2, o3, o4, o5, o6, o7 = offsets
    mty, dty = model_type, data_type

    def advance(model_buf, data_buf, t0, h, nsteps, y, row, work, key, saved, done):
        model = packed_value(carray(model_buf, nm), mty)
        data = packed_value(carray(data_buf, nd), dty)
        steps, status = rk4_advance(model, data, t0, h, carray(y, n), nsteps, carray(row, nout),
                                    carray(work, (5, n)), carray(key, nkey), carray(saved, 1 + nkey))
        done[0] = steps
        return status

    def final(model_buf, data_buf, t, y, row, ydot):
        model = packed_value(carray(model_buf, nm), mty)
        data = packed_value(carray(data_buf, nd), dty)
        out = carray(row, nout)
        refresh_levers(model, data, out)
        return rk4_final(model, data, t, carray(y, n), out, carray(ydot, n))

    def prepare(model_buf, data_buf, t, h, rack_target, y, row):
        model = packed_value(carray(model_buf, nm), mty)
        data = packed_value(carray(data_buf, nd), dty)
        return 1 if prepare_step(model, data, t, h, rack_target, carray(y, n), carray(row, nout)) else 0

    def start(y_rest, speed_gain, spin_radius, tire_from, v0, y):
        start_state(carray(y_rest, n), carray(speed_gain, n), carray(spin_radius, n), tire_from, v0, carray(y, n))
        return 0

    def equilibrium(model_buf, data_buf, x0, mass, work, ints, y_rest, speed_gain, spin_radius):
        model = packed_value(carray(model_buf, nm), mty)
        data = packed_value(carray(data_buf, nd), dty)
        ws = EquilibriumWork(carray(_f64_at(work + o0), f0), carray(_f64_at(work + o1), f1),
                             carray(_f64_at(work + o2), f2), carray(_f64_at(work + o3), f3),
                             carray(_f64_at(work + o4), f4), carray(_f64_at(work + o5), f5),
                             carray(_f64_at(work + o6), f6), carray(_f64_at(work + o7), f7), carray(ints, int_shape))
        return static_equilibrium(model, data, x0, mass, ws, carray(y_rest, n), carray(speed_gain, n),
                                  carray(spin_radius, n))

    def repartition(model_buf, data_buf, y):
        model = packed_value(carray(model_buf, nm), mty)
        data = packed_value(carray(data_buf, nd), dty)
        return repartition_state(model, data, carray(y, n))

    return (cfunc(ADVANCE_SIGNATURE)(advance), cfunc(FINAL_SIGNATURE)(final),
            cfunc(PREPARE_SIGNATURE)(prepare), cfunc(START_SIGNATURE)(start),
            cfunc(EQUILIBRIUM_SIGNATURE)(equilibrium), cfunc(REPARTITION_SIGNATURE)(repartition))


def evaluate_cfunc(model_type, data_type, shape: StepShape):
    """The entry point of a host that integrates the state itself (an FMU in Model Exchange)::

        int64 evaluate(model_buf, data_buf, t, y, row, ydot, sw, n_sw, g (n_switch,), due (1,) int64)

    at the state ``y`` at the model time ``t`` [s]: an external load's levers about the wheel centres of the
    outputs in ``row`` (``vehicle.stepping.refresh_levers``, as ``final``), the derivative dy/dt into ``ydot``
    (``base.system_rhs``), the switching functions into ``g`` (``base.system_switch`` with the system's
    ``switch_params`` ``sw``, ``n_sw`` of them: the values whose change of sign RK4E locates, now the event
    indicators), the output row into ``row`` (``base.system_record``), and ``due[0]`` = 1 if the engine's
    origin is to be rebased (``vehicle.stepping.rebase_due``). Returns the derivative's status: 0, 1 (the
    state is valid, the coordinate partition should be renewed: ``repartition``), < 0 a failure (nothing
    after the derivative is written then). A ``numba.cfunc``."""
    shape = StepShape(*(int(v) for v in shape))
    nm, nd, n, nout = shape[:4]
    ng = shape.n_switch
    mty, dty = model_type, data_type

    def evaluate(model_buf, data_buf, t, y, row, ydot, sw, n_sw, g, due):
        model = packed_value(carray(model_buf, nm), mty)
        data = packed_value(carray(data_buf, nd), dty)
        out, yy = carray(row, nout), carray(y, n)
        refresh_levers(model, data, out)
        st = system_rhs(t, yy, model, data, carray(ydot, n))
        if st < 0:
            return st
        system_switch(t, yy, model, data, carray(sw, n_sw), carray(g, ng))
        system_record(t, yy, model, data, out)
        due[0] = 1 if rebase_due(model, data, yy) else 0
        return st

    return cfunc(EVALUATE_SIGNATURE)(evaluate)


INTEGRATOR_ENTRIES = ("abm4", "bdf2", "rk4e")
"""The stepping methods besides RK4 with an entry point of their own (:func:`integrator_cfuncs`)."""


def integrator_cfuncs(model_type, data_type, shape: StepShape, methods=INTEGRATOR_ENTRIES) -> dict:
    """{method: entry point} for the ``methods`` (names of :data:`INTEGRATOR_ENTRIES`; ValueError for another):
    the advance entry points of the other stepping methods, each the method's
    ``*_advance`` kernel on the buffers as ``advance`` of :func:`step_cfuncs` (same sizes, ``done`` and status;
    the arrays are the method's stepper arrays, C order, of the shapes of ``abm.abm_arrays`` and
    ``bdf.bdf_arrays``; n = n_states, nk = n_key)::

        int64 abm4(model_buf, data_buf, t0, h, nsteps, y, row, hist (4, n), ctl (3,) int64, work (5, n),
                   key, saved (nk,), fresh, done)
        int64 bdf2(model_buf, data_buf, t0, h, nsteps, y, row, jac (n, n), lu (2, n, n), piv (2, n) int64,
                   hmat (1,), ctl (5,) int64, work (10, n), rtol, atol, key, saved (nk,), fresh, done)
        int64 rk4e(model_buf, data_buf, t0, h, nsteps, y, row, work (10, n), gw (4, n_switch), sw, n_sw,
                   tol, max_iter, max_sub, stats (4,), key, saved (1 + nk,), done)

    ``fresh`` != 0 restarts the method's history first (``abm.abm_reset``, ``bdf.bdf_reset``: what the
    stepper's ``reset()`` does); RK4E restarts as RK4 does, by the caller zeroing saved[0]. ``sw`` holds the
    system's ``switch_params`` (``n_sw`` of them). Each is a ``numba.cfunc``, compiled only when asked for (a
    method costs its kernels' compile time and library size: docs/native.md §8)."""
    unknown = [m for m in methods if m not in INTEGRATOR_ENTRIES]
    if unknown:
        raise ValueError(f"no native entry point for the integrator(s) {', '.join(map(repr, unknown))}; "
                         f"entry points: {', '.join(INTEGRATOR_ENTRIES)}")
    shape = StepShape(*(int(v) for v in shape))
    nm, nd, n, nout, nkey = shape[:5]
    ng = shape.n_switch
    s_hist, s_actl, s_awork = (a.shape for a in abm_arrays(n))
    s_jac, s_lu, s_piv, s_hmat, s_bctl, s_bwork = (a.shape for a in bdf_arrays(n))
    mty, dty = model_type, data_type

    def abm4(model_buf, data_buf, t0, h, nsteps, y, row, hist, ctl, work, key, saved, fresh, done):
        model = packed_value(carray(model_buf, nm), mty)
        data = packed_value(carray(data_buf, nd), dty)
        c = carray(ctl, s_actl)
        if fresh != 0:
            abm_reset(c)
        steps, status = abm_advance(model, data, t0, h, carray(y, n), nsteps, carray(row, nout), carray(hist, s_hist),
                                    c, carray(work, s_awork), carray(key, nkey), carray(saved, nkey))
        done[0] = steps
        return status

    def bdf2(model_buf, data_buf, t0, h, nsteps, y, row, jac, lu, piv, hmat, ctl, work, rtol, atol, key, saved, fresh,
             done):
        model = packed_value(carray(model_buf, nm), mty)
        data = packed_value(carray(data_buf, nd), dty)
        c = carray(ctl, s_bctl)
        if fresh != 0:
            bdf_reset(c)
        steps, status = bdf_advance(model, data, t0, h, carray(y, n), nsteps, carray(row, nout), carray(jac, s_jac),
                                    carray(lu, s_lu), carray(piv, s_piv), carray(hmat, s_hmat), c,
                                    carray(work, s_bwork), rtol, atol, carray(key, nkey), carray(saved, nkey))
        done[0] = steps
        return status

    def rk4e(model_buf, data_buf, t0, h, nsteps, y, row, work, gw, sw, n_sw, tol, max_iter, max_sub, stats, key, saved,
             done):
        model = packed_value(carray(model_buf, nm), mty)
        data = packed_value(carray(data_buf, nd), dty)
        steps, status = rk4e_advance(model, data, t0, h, carray(y, n), nsteps, carray(row, nout),
                                     carray(work, (N_WORK, n)), carray(gw, (N_G, ng)), carray(sw, n_sw), tol,
                                     max_iter, max_sub, carray(stats, N_STATS), carray(key, nkey),
                                     carray(saved, 1 + nkey))
        done[0] = steps
        return status

    compile_ = {"abm4": lambda: cfunc(ABM4_SIGNATURE)(abm4), "bdf2": lambda: cfunc(BDF2_SIGNATURE)(bdf2),
                "rk4e": lambda: cfunc(RK4E_SIGNATURE)(rk4e)}
    return {m: compile_[m]() for m in INTEGRATOR_ENTRIES if m in methods}
