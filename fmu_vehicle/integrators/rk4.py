"""Fixed-step classical Runge-Kutta (RK4), the integrator of Dai, Pan et al. (2022) at a 1 ms step.

    k1 = f(t, y), k2 = f(t + h/2, y + h/2 k1), k3 = f(t + h/2, y + h/2 k2), k4 = f(t + h, y + h k3)
    y(t + h) = y + h/6 (k1 + 2 k2 + 2 k3 + k4)

The stages and the update are ``numerics.rk4``'s (written once for every RK4 of the package). The step loop
itself is compiled (a Python-level loop costs as much as the model) and runs in chunks so
that progress can be shown and the system can be re-parameterized between steps. The loops call the
system's passes through ``base.system_rhs``/``system_record``, resolved from the model's type when numba
compiles them.

See docs/integrators.md §2 and §3.
"""
from __future__ import annotations

import numpy as np

from ..numerics.jit import njit
from ..numerics.packing import PackedCall, by_ref, packed_value
from ..numerics.rk4 import rk4_rest
from .base import finish_run, fixed_steps, inputs_key, run_chunks, save_for, saved_for, system_record, system_rhs


@njit(inline="always")
def _system_f(t, y, ctx, dy):
    """The system's derivative dy = f(t, y) in ``numerics.rk4``'s form: ctx = (model, data)."""
    return system_rhs(t, y, ctx[0], ctx[1], dy)


@njit(inline="always")
def _rk4_rest(model, data, t, h, y, work):
    """Stages 2-4 and the update of one RK4 step from (t, y) whose k1 = f(t, y) is in work[0] (work rows: the
    stages K1..K4 and TMP of ``numerics.rk4``); returns the first negative status or 0."""
    return rk4_rest(_system_f, t, h, y, (model, data), work)


@njit
def rk4_chunk(model, data, t0, h, y, nsteps, record_every, step0, out, nrec, work):
    """Advance y in place by up to ``nsteps`` RK4 steps starting at step index ``step0``.

    The state after ``s`` steps is at time t0 + (step0 + s) h. Rows are recorded into ``out``
    for every step index that is a multiple of ``record_every`` (none if ``record_every`` <= 0).
    Returns (steps done, status, rows recorded so far).
    """
    mref, dref = by_ref(model), by_ref(data)
    for s in range(nsteps):
        step = step0 + s
        t = t0 + step * h
        st = system_rhs(t, y, mref, dref, work[0])
        if st < 0:
            return s, st, nrec
        if st == 1:
            return s, st, nrec
        if record_every > 0 and step % record_every == 0:
            system_record(t, y, mref, dref, out[nrec])
            nrec += 1
        st = _rk4_rest(mref, dref, t, h, y, work)
        if st < 0:
            return s, st, nrec
    return nsteps, 0, nrec


@njit(inline="always")
def _evaluate_and_record(model, data, t, y, out_row, ydot):
    st = system_rhs(t, y, model, data, ydot)
    if st >= 0:
        system_record(t, y, model, data, out_row)
    return st


@njit
def rk4_final(model, data, t, y, out_row, ydot):
    """Evaluate and record the state y at t (the final state of a run, or a stepper's output without a
    step; used by every method); returns the status."""
    return _evaluate_and_record(model, data, t, y, out_row, ydot)


@njit
def rk4_final_packed(mbuf, mty, dbuf, dty, t, y, out_row, ydot):
    """:func:`rk4_final` for the (model, data) of ``packing.packed`` (a stepper's output without a step)."""
    return rk4_final(packed_value(mbuf, mty), packed_value(dbuf, dty), t, y, out_row, ydot)


@njit
def rk4_advance(model, data, t0, h, y, nsteps, out_row, work, key, saved):
    """``nsteps`` RK4 steps from t0 without recording, then evaluate and record the final state
    (one compiled call per communication step of a stepping interface). Returns (steps done, status):
    a status 1 from a step leaves y at the state after the steps done (the caller re-parameterizes and
    calls again for the rest); the final evaluation's status is returned as is.

    First same as last: the final evaluation f(t0 + nsteps h, y) is the next call's first k1. ``saved``
    holds [1, key] after a final evaluation with status 0, where ``key`` is everything else the
    derivative depends on (the system's inputs, flattened); the next call reuses work[0] as k1 when
    its ``key`` is equal. The caller sets saved[0] = 0 whenever it changes y, t or the system otherwise.
    """
    reuse = saved_for(saved, key) and nsteps > 0
    saved[0] = 0.0
    done = 0
    mref, dref = by_ref(model), by_ref(data)
    if reuse:
        st = _rk4_rest(mref, dref, t0, h, y, work)
        if st < 0:
            return 0, st
        done = 1
    if done < nsteps:   # (the usual communication step of one reused step makes no call: ~1 us each)
        more, st, _ = rk4_chunk(model, data, t0, h, y, nsteps - done, 0, done, work, 0, work)  # records nothing
        done += more
        if st != 0:
            return done, st
    st = _evaluate_and_record(mref, dref, t0 + nsteps * h, y, out_row, work[0])
    if st == 0:
        save_for(saved, key)
    return done, st


@njit
def rk4_advance_packed(mbuf, mty, dbuf, dty, t0, h, y, nsteps, out_row, work, key, saved):
    """:func:`rk4_advance` for the (model, data) of ``packing.packed`` (what a stepper calls per step)."""
    return rk4_advance(packed_value(mbuf, mty), packed_value(dbuf, dty), t0, h, y, nsteps, out_row, work, key,
                       saved)


class RK4:
    """Classical fixed-step RK4. ``chunk`` steps run per compiled call (progress granularity)."""

    name = "rk4"

    def __init__(self, chunk: int = 500):
        self.chunk = int(chunk)

    def run(self, system, y0, t0, t_end, h, *, record_every=1, progress=False):
        nsteps = fixed_steps(t0, t_end, h)
        model, data = system.model, system.data
        work = np.zeros((5, len(y0)))

        def step_chunk(y, step, todo, out, nrec):
            return rk4_chunk(model, data, t0, h, y, todo, record_every, step, out, nrec, work)

        y, step, times, out, nrec = run_chunks(system, np.array(y0, dtype=float), t0, h, nsteps, record_every,
                                               progress, self.chunk, step_chunk)
        # the state after the last step is recorded too (after an interruption: the state reached)
        st = rk4_final(model, data, t0 + step * h, y, out[nrec], work[0])
        return finish_run(times, out, nrec, y, t0 + step * h, st, step < nsteps, system.failure)

    def stepper(self, system, y) -> "RK4Stepper":
        return RK4Stepper(system, y)


class RK4Stepper:
    """RK4 for a stepping interface: ``advance`` is one compiled call per communication step
    (``rk4_advance``), which reuses the last final evaluation as the next first stage while the inputs
    (``system.data.inputs``) are unchanged (first same as last)."""

    def __init__(self, system, y):
        self.system = system
        self.y = y
        self._work = np.zeros((5, y.size))
        self._key = inputs_key(system)
        self._saved = np.zeros(1 + self._key.size)      # [k1 in work[0] valid, inputs of that evaluation]
        self._advance = PackedCall(rk4_advance_packed)
        self._final = PackedCall(rk4_final_packed)

    def reset(self):
        self._saved[0] = 0.0

    def evaluate(self, t, row):
        """Evaluate and record the state y at t into ``row``; returns the status."""
        self.reset()
        return self._final(self.system, float(t), self.y, row, self._work[0])

    def advance(self, t, h, n, row):
        return self._advance(self.system, float(t), float(h), self.y, int(n), row, self._work, self._key,
                             self._saved)

    def get_state(self):
        return (self.y.copy(), self._work[0].copy(), self._saved.copy())

    def set_state(self, state):
        y, k1, saved = state
        self.y[:] = y
        self._work[0][:] = k1
        self._saved[:] = saved
