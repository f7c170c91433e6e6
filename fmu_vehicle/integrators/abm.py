"""Fixed-step fourth-order Adams-Bashforth-Moulton (ABM4) in predict-evaluate-correct-evaluate form.

With f_k = f(t_k, y_k) of the last four steps (Hairer, Norsett and Wanner 1993, Solving Ordinary
Differential Equations I, section III.1):

    predict   y*      = y_n + h/24 (55 f_n - 59 f_n-1 + 37 f_n-2 - 9 f_n-3)      (Adams-Bashforth, 4 steps)
    evaluate  f*      = f(t_n + h, y*)
    correct   y_n+1   = y_n + h/24 (9 f* + 19 f_n - 5 f_n-1 + f_n-2)              (Adams-Moulton, 3 steps)
    evaluate  f_n+1   = f(t_n + h, y_n+1)

two derivative evaluations per step against RK4's four. The history f_n ... f_n-3 is a ring of four rows
of a preallocated array; while it holds fewer than four derivatives the method takes RK4 steps (start-up),
each ending with the evaluation at its new state. The history restarts (RK4 start-up again) when the
system asks for a re-partition (status 1: the independent coordinates change), after a rebase (the
system shifted y), when the inputs change (the stepper compares them with those of the history) and
on ``reset()``. A stepper's ``get_state``/``set_state`` carry the history, so a restored state continues
exactly as the uninterrupted run.

See docs/integrators.md §2 and §3.
"""
from __future__ import annotations


import numpy as np

from ..numerics.jit import njit
from ..numerics.packing import PackedCall, by_ref, packed_value
from .base import finish_run, fixed_steps, inputs_key, run_chunks, system_record, system_rhs
from .rk4 import _rk4_rest, rk4_final_packed

# ctl (int64): [derivatives in the history (0..4), ring index of f_n, derivative evaluations so far]
_COUNT, _HEAD, _NFEV = 0, 1, 2
CTL_RANGES = ((0, 4), (0, 3), (0, 2 ** 63 - 1))
"""The values each ctl entry can hold, [lo, hi]: what a restored state is checked against (a native FMU's C
layer; the ring index selects a row of the history)."""


@njit
def abm_reset(ctl):
    """Restart the history (``ABM4Stepper.reset``): the next step starts with RK4 steps again."""
    ctl[_COUNT] = 0


@njit(inline="always")
def _abm_push(model, data, t, y, hist, ctl):
    """f(t, y) into the next ring row, which becomes f_n; returns the status."""
    head = (ctl[_HEAD] + 1) % 4
    ctl[_HEAD] = head
    ctl[_NFEV] += 1
    st = system_rhs(t, y, model, data, hist[head])
    if ctl[_COUNT] < 4:
        ctl[_COUNT] += 1
    return st


@njit(inline="always")
def _abm_step(model, data, t, h, y, hist, ctl, work):
    """One step from (t, y) whose f_n = f(t, y) is hist[ctl[_HEAD]]: RK4 while the history holds fewer
    than four derivatives, else ABM4 (PECE); then f(t + h, y_new) is pushed. Returns the status of that
    last evaluation (1: re-partition requested, y_new is valid) or the first negative one."""
    n = y.size
    head = ctl[_HEAD]
    fn = hist[head]
    if ctl[_COUNT] < 4:
        k1 = work[0]
        for i in range(n):
            k1[i] = fn[i]
        ctl[_NFEV] += 3
        st = _rk4_rest(model, data, t, h, y, work)
        if st < 0:
            return st
    else:
        f1, f2, f3 = hist[(head + 3) % 4], hist[(head + 2) % 4], hist[(head + 1) % 4]
        yp, fp = work[0], work[1]
        c = h / 24.0
        for i in range(n):
            yp[i] = y[i] + c * (55.0 * fn[i] - 59.0 * f1[i] + 37.0 * f2[i] - 9.0 * f3[i])
        ctl[_NFEV] += 1
        st = system_rhs(t + h, yp, model, data, fp)
        if st < 0:
            return st
        for i in range(n):
            y[i] += c * (9.0 * fp[i] + 19.0 * fn[i] - 5.0 * f1[i] + f2[i])
    return _abm_push(model, data, t + h, y, hist, ctl)


@njit
def abm_chunk(model, data, t0, h, y, nsteps, record_every, step0, out, nrec, hist, ctl, work):
    """Advance y in place by up to ``nsteps`` ABM4 steps starting at step index ``step0`` (state at
    t0 + step0 h). An empty history (ctl[_COUNT] == 0) starts with f(t, y). Rows are recorded into
    ``out`` for every step index that is a multiple of ``record_every`` (none if <= 0), right after the
    evaluation at that state. Returns (steps done, status, rows recorded so far); after a status 1 the
    history is empty (restart once the caller re-parameterized y)."""
    mref, dref = by_ref(model), by_ref(data)
    for s in range(nsteps):
        step = step0 + s
        t = t0 + step * h
        if ctl[_COUNT] == 0:
            st = _abm_push(mref, dref, t, y, hist, ctl)
            if st != 0:
                ctl[_COUNT] = 0
                return s, st, nrec
        if record_every > 0 and step % record_every == 0:
            system_record(t, y, mref, dref, out[nrec])
            nrec += 1
        st = _abm_step(mref, dref, t, h, y, hist, ctl, work)
        if st != 0:
            ctl[_COUNT] = 0
            return (s + 1 if st == 1 else s), st, nrec
    return nsteps, 0, nrec


@njit
def abm_final(model, data, t, y, out_row, hist, ctl):
    """Record the state y at t: reuses f_n when the history holds it (the last evaluation was at this
    state), else evaluates. Returns the status."""
    st = 0
    if ctl[_COUNT] == 0:
        st = _abm_push(model, data, t, y, hist, ctl)
        if st != 0:
            ctl[_COUNT] = 0
    if st >= 0:
        system_record(t, y, model, data, out_row)
    return st


@njit
def abm_advance(model, data, t0, h, y, nsteps, out_row, hist, ctl, work, key, saved):
    """``nsteps`` ABM4 steps from t0 without recording, then record the final state (one compiled call
    per communication step). ``saved`` holds the inputs (``key``, flattened) the history was computed
    with; a different ``key`` restarts the history. Returns (steps done, status): a status 1 leaves y at
    the state after the steps done (the caller re-parameterizes and calls again for the rest; when all
    steps are done the row is recorded and the next call starts with the re-partition request)."""
    for i in range(key.size):
        if saved[i] != key[i]:
            ctl[_COUNT] = 0
        saved[i] = key[i]
    done, st, _ = abm_chunk(model, data, t0, h, y, nsteps, 0, 0, work, 0, hist, ctl, work)
    if st < 0 or (st == 1 and done < nsteps):
        return done, st
    if st == 1:         # the final state's evaluation asked for a re-partition: record it as it is
        system_record(t0 + nsteps * h, y, model, data, out_row)
        return done, st
    return done, abm_final(model, data, t0 + nsteps * h, y, out_row, hist, ctl)


class ABM4:
    """Fixed-step Adams-Bashforth-Moulton of order 4 (PECE) with an RK4 start-up. ``chunk`` steps run per
    compiled call (progress granularity). ``nfev``: derivative evaluations of the last run."""

    name = "abm4"

    def __init__(self, chunk: int = 500):
        self.chunk = int(chunk)
        self.nfev = 0

    def run(self, system, y0, t0, t_end, h, *, record_every=1, progress=False):
        nsteps = fixed_steps(t0, t_end, h)
        model, data = system.model, system.data
        hist, ctl, work = abm_arrays(len(y0))

        def step_chunk(y, step, todo, out, nrec):
            return abm_chunk(model, data, t0, h, y, todo, record_every, step, out, nrec, hist, ctl, work)

        def restart():         # y shifted or re-partitioned: restart the history
            ctl[_COUNT] = 0

        try:
            y, step, times, out, nrec = run_chunks(system, np.array(y0, dtype=float), t0, h, nsteps, record_every,
                                                   progress, self.chunk, step_chunk, on_shift=restart,
                                                   on_repartition=restart)
        finally:
            self.nfev = int(ctl[_NFEV])
        st = abm_final(model, data, t0 + step * h, y, out[nrec], hist, ctl)
        self.nfev = int(ctl[_NFEV])
        return finish_run(times, out, nrec, y, t0 + step * h, st, step < nsteps, system.failure)

    def stepper(self, system, y) -> "ABM4Stepper":
        return ABM4Stepper(system, y)


@njit
def abm_advance_packed(mbuf, mty, dbuf, dty, t0, h, y, nsteps, out_row, hist, ctl, work, key, saved):
    """:func:`abm_advance` for the (model, data) of ``packing.packed`` (what a stepper calls per step)."""
    return abm_advance(packed_value(mbuf, mty), packed_value(dbuf, dty), t0, h, y, nsteps, out_row, hist, ctl,
                       work, key, saved)


class ABM4Stepper:
    """ABM4 for a stepping interface: ``advance`` is one compiled call per communication step
    (``abm_advance``); the history carries over from one call to the next while the inputs
    (``system.data.inputs``) are unchanged and nobody called ``reset()``."""

    def __init__(self, system, y):
        self.system = system
        self.y = y
        self._hist, self._ctl, self._work = abm_arrays(y.size)
        self._key = inputs_key(system)
        self._saved = self._key.copy()
        self._advance = PackedCall(abm_advance_packed)
        self._evaluate = PackedCall(rk4_final_packed)

    def reset(self):
        abm_reset(self._ctl)

    def evaluate(self, t, row):
        """Evaluate and record the state y at t into ``row``; returns the status (restarts the history)."""
        self.reset()
        return self._evaluate(self.system, float(t), self.y, row, self._work[0])

    def advance(self, t, h, n, row):
        return self._advance(self.system, float(t), float(h), self.y, int(n), row, self._hist, self._ctl,
                             self._work, self._key, self._saved)

    def get_state(self):
        return (self.y.copy(), self._hist.copy(), self._ctl.copy(), self._saved.copy())

    def set_state(self, state):
        y, hist, ctl, saved = state
        self.y[:] = y
        self._hist[:] = hist
        self._ctl[:] = ctl
        self._saved[:] = saved


def abm_arrays(n):
    """(history ring (4, n), control integers, RK4/PECE work (5, n)) for a state of n numbers."""
    return np.zeros((4, n)), np.zeros(3, dtype=np.int64), np.zeros((5, n))
