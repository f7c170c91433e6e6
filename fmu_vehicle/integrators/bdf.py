"""Fixed-step BDF2 with a BDF1 (backward Euler) start-up, solved by a Newton-chord iteration.

Backward differentiation formulas (Hairer and Wanner 1996, Solving Ordinary Differential Equations II,
section III.1 and IV.8) on the independent-coordinate ODE y' = f(t, y), step h, t_n+1 = t_n + h:

    BDF1   y_n+1 = y_n + h f(t_n+1, y_n+1)                                  (beta = 1)
    BDF2   y_n+1 = 4/3 y_n - 1/3 y_n-1 + 2/3 h f(t_n+1, y_n+1)             (beta = 2/3)

i.e. y_n+1 = psi + h beta f(t_n+1, y_n+1). Newton-chord: from the predictor y(0) = 2 y_n - y_n-1 (BDF2)
or y_n (BDF1),

    (I - h beta J) d(k) = psi + h beta f(t_n+1, y(k)) - y(k),    y(k+1) = y(k) + d(k)

until max_i |d_i| / (atol + rtol |y_i|) <= 1. J = df/dy is a forward difference of f, column by column
(step sqrt(eps) max(|y_j|, 1)), taken at the end of the step (t_n+1 and the predictor, as CVODE does:
Hindmarsh et al. 2005, "SUNDIALS: Suite of nonlinear and differential/algebraic equation solvers", ACM TOMS
31(3)), and both iteration matrices (beta = 1 and 2/3) are LU-factored (partial pivoting, ``numerics.linalg``:
the kernels run without numba's runtime) and reused over many steps. They are refreshed: before the next
step when the iteration converged slowly (more than ``SLOW_ITERATIONS`` iterations or a contraction ratio
|d(k)| / |d(k-1)| above ``SLOW_RATIO``); after a re-partition (the independent coordinates changed), a
change of h, and ``reset()``; and within a step that does not converge. An attempt is abandoned when it
diverges, or when its contraction ratio theta cannot reach the tolerance in the iterations left
(|d| theta^left / (1 - theta) > 1, Hairer and Wanner IV.8); the step is then tried again from the best
iterate so far (the one after the smallest correction) with matrices refreshed there, and last by Newton
(J at every iterate, ``NEWTON_ITERATIONS``). f is only piecewise smooth on a road with bumps: a wheel that
lifts off within a step has the contact's Jacobian at y_n and the airborne one at y_n+1 (the chord
iteration with the former contracts by about 0.6 per iteration); where f jumps (a damped tire touching
down) the BDF equation may have no solution near the switching surface, and the iterates alternate across
it. A step that still fails is taken as 2, 4, ... 2^``MAX_SPLITS`` sub-steps (``_bdf_split``), after which
the history restarts; a step that fails even so stops the run (SimulationError). The history y_n-1
restarts (one BDF1 step) after a re-partition, a rebase, an input change and ``reset()``; the stepper's
``get_state``/``set_state`` carry the history and the factored matrices.

See docs/integrators.md §2 and §3.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import SimulationError
from ..numerics.jit import njit
from ..numerics.linalg import lu_factor, lu_solve
from ..numerics.packing import PackedCall, by_ref, packed_value
from .base import finish_run, fixed_steps, inputs_key, run_chunks, system_record, system_rhs
from .rk4 import rk4_final, rk4_final_packed

MAX_ITERATIONS = 30
"""Newton-chord iterations of one attempt before the step is retried with a fresh matrix."""
MAX_ATTEMPTS = 3
"""Attempts of one step: Newton-chord with the matrices as they are, Newton-chord with matrices refreshed at
the best iterate, then Newton (the matrices refreshed at every iterate)."""
NEWTON_ITERATIONS = 8
"""Iterations of the last attempt (each costs a Jacobian: n + 2 evaluations)."""
MAX_SPLITS = 4
"""A step that fails is taken again as 2, 4, ... 2^MAX_SPLITS sub-steps before the run stops."""
SLOW_ITERATIONS = 4
"""A step that needed more iterations refreshes the matrix before the next step."""
SLOW_RATIO = 0.5
"""A contraction ratio |d(k)| / |d(k-1)| above this refreshes the matrix (before the next step)."""
DIVERGED_RATIO = 1.0
"""A contraction ratio above this abandons the iteration (the step is retried with a fresh matrix)."""
STATUS_NEWTON_FAILED = -1000
"""Status of a step whose Newton-chord iteration did not converge even with a fresh matrix."""

# ctl (int64): [y_n-1 held (0/1), matrices valid (0/1), derivative evaluations, factorizations, split steps]
_PREV, _VALID, _NFEV, _NFAC, _NSPLIT = 0, 1, 2, 3, 4
CTL_RANGES = ((0, 1), (0, 1), (0, 2 ** 63 - 1), (0, 2 ** 63 - 1), (0, 2 ** 63 - 1))
"""The values each ctl entry can hold, [lo, hi]: what a restored state is checked against (a native FMU's C
layer; the pivots, rows of the state, it checks within [0, n))."""
# work rows: y(k), f, d, psi, f at the Jacobian's point, perturbed f, y_n-1, best iterate, perturbed y,
# y_n kept while a step is split
_YK, _F, _D, _PSI, _F0, _FT, _YPREV, _YBEST, _YT, _YSAVE = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9


@njit
def bdf_reset(ctl):
    """Forget y_n-1 and the factored matrices (``BDF2Stepper.reset``): the next step is a BDF1 step with the
    matrices refreshed."""
    ctl[_PREV] = 0
    ctl[_VALID] = 0


@njit(inline="always")
def _refresh_matrices(model, data, t, h, y, jac, lu, piv, hmat, ctl, work):
    """J = df/dy at (t, y) by forward differences, then the LU factors of I - h J (lu[0], BDF1) and
    I - 2/3 h J (lu[1], BDF2). Returns the first negative status of f, or 0 (STATUS_NEWTON_FAILED for a
    singular matrix). Uses the work rows _F0, _FT and _YT only."""
    n = y.size
    f0, ft, yt = work[_F0], work[_FT], work[_YT]
    ctl[_NFEV] += 1 + n
    st = system_rhs(t, y, model, data, f0)
    if st < 0:
        return st
    for i in range(n):
        yt[i] = y[i]
    for j in range(n):
        d = 1.4901161193847656e-08 * max(abs(y[j]), 1.0)
        yt[j] = y[j] + d
        d = yt[j] - y[j]            # the step actually represented
        st = system_rhs(t, yt, model, data, ft)
        if st < 0:
            return st
        for i in range(n):
            jac[i, j] = (ft[i] - f0[i]) / d
        yt[j] = y[j]
    for k in range(2):
        hb = h if k == 0 else 2.0 / 3.0 * h
        a = lu[k]
        for i in range(n):
            for j in range(n):
                a[i, j] = -hb * jac[i, j]
            a[i, i] += 1.0
        if lu_factor(a, piv[k], None, None) == math.inf:
            return STATUS_NEWTON_FAILED
    ctl[_NFAC] += 1
    ctl[_VALID] = 1
    hmat[0] = h
    return 0


@njit(inline="always")
def _bdf_step(model, data, t, h, y, jac, lu, piv, hmat, ctl, work, rtol, atol):
    """One BDF2 step (BDF1 while y_n-1 is not held) from (t, y) to t + h, y updated in place. Returns the
    status of the last evaluation of f (1: the system asks for a re-partition; the step is taken) or a
    negative failure (STATUS_NEWTON_FAILED: no convergence in ``MAX_ATTEMPTS`` attempts).

    Attempts: the matrices as they are (unless invalid); then refreshed at (t + h, y_best), y_best the
    iterate after the smallest correction so far (at first the predictor), iterating from y_best. A
    Jacobian from the end of the step, not from its start, matters where f is only piecewise smooth: a
    wheel that lifts off within the step has the contact's Jacobian at y_n and the airborne one at y_n+1."""
    n = y.size
    yk, f, d, psi, yprev, ybest = work[_YK], work[_F], work[_D], work[_PSI], work[_YPREV], work[_YBEST]
    k = 1 if ctl[_PREV] == 1 else 0
    hb = 2.0 / 3.0 * h if k == 1 else h
    for i in range(n):
        psi[i] = 4.0 / 3.0 * y[i] - 1.0 / 3.0 * yprev[i] if k == 1 else y[i]
        ybest[i] = 2.0 * y[i] - yprev[i] if k == 1 else y[i]        # the predictor
    best = np.inf
    st = 0
    for attempt in range(MAX_ATTEMPTS):
        fresh = False
        if ctl[_VALID] == 0 or hmat[0] != h:
            st = _refresh_matrices(model, data, t + h, h, ybest, jac, lu, piv, hmat, ctl, work)
            if st < 0:      # f fails at the predicted point: the start of the step is a valid state
                st = _refresh_matrices(model, data, t, h, y, jac, lu, piv, hmat, ctl, work)
                if st < 0:
                    return st
            fresh = True
        for i in range(n):
            yk[i] = ybest[i]
        newton = attempt == MAX_ATTEMPTS - 1
        converged = False
        slow = False
        dn_prev = 0.0
        st = 0
        for it in range(NEWTON_ITERATIONS if newton else MAX_ITERATIONS):
            if newton and it > 0:       # the last attempt: Newton, J at every iterate
                st = _refresh_matrices(model, data, t + h, h, yk, jac, lu, piv, hmat, ctl, work)
                if st < 0:
                    break
            ctl[_NFEV] += 1
            st = system_rhs(t + h, yk, model, data, f)
            if st < 0:
                break
            for i in range(n):
                d[i] = psi[i] + hb * f[i] - yk[i]
            lu_solve(lu[k], piv[k], None, None, d, 0, n)
            dn = 0.0
            for i in range(n):
                yk[i] += d[i]
                e = abs(d[i]) / (atol + rtol * abs(yk[i]))
                if e > dn or e != e:
                    dn = e
            if dn != dn:
                break
            if dn < best:
                best = dn
                for i in range(n):
                    ybest[i] = yk[i]
            if dn <= 1.0:
                converged = True
                if it + 1 > SLOW_ITERATIONS or (it > 0 and dn > SLOW_RATIO * dn_prev):
                    slow = True
                break
            if it > 0 and not newton:
                ratio = dn / dn_prev if dn_prev > 0.0 else 0.0
                if ratio > SLOW_RATIO:
                    slow = True
                if ratio > DIVERGED_RATIO:
                    break
                # the iterations left reach at best dn ratio^left / (1 - ratio) (Hairer and Wanner IV.8)
                if dn * ratio ** (MAX_ITERATIONS - 1 - it) > 1.0 - ratio:
                    break
            dn_prev = dn
        if converged:
            if slow or newton:
                ctl[_VALID] = 0
            for i in range(n):
                yprev[i] = y[i]
                y[i] = yk[i]
            ctl[_PREV] = 1
            return st
        if fresh and attempt == MAX_ATTEMPTS - 1:
            return st if st < 0 else STATUS_NEWTON_FAILED
        ctl[_VALID] = 0         # retry the step with a matrix at (t + h, y_best)
    return STATUS_NEWTON_FAILED


@njit(inline="always")
def _bdf_split(model, data, t, h, y, jac, lu, piv, hmat, ctl, work, rtol, atol):
    """The step from (t, y) to t + h as m = 2, 4, ..., 2^MAX_SPLITS steps of h/m (BDF1, then BDF2), the
    first m whose steps all converge; y updated in place, the history restarts after it (y_n-1 is not
    at t + h - h) and the matrices are refreshed for h at the next step. Where f jumps across a switching
    surface (a tire touching down with a damper force, a relaxation rate that changes as the wheel leaves
    the road) the BDF equation may have no solution when the step ends near that surface: the iterates
    alternate between its sides; shorter steps end elsewhere. Returns the last status (1 if any sub-step
    asked for a re-partition) or STATUS_NEWTON_FAILED."""
    n = y.size
    save = work[_YSAVE]
    for i in range(n):
        save[i] = y[i]
    m = 1
    for level in range(MAX_SPLITS):
        m *= 2
        hs = h / m
        for i in range(n):
            y[i] = save[i]
        ctl[_PREV] = 0
        req = 0
        st = 0
        for j in range(m):
            st = _bdf_step(model, data, t + j * hs, hs, y, jac, lu, piv, hmat, ctl, work, rtol, atol)
            if st < 0:
                break
            if st == 1:
                req = 1
        if st >= 0:
            ctl[_PREV] = 0
            ctl[_VALID] = 0
            return req
    for i in range(n):
        y[i] = save[i]
    ctl[_PREV] = 0
    ctl[_VALID] = 0
    return STATUS_NEWTON_FAILED


@njit
def bdf_chunk(model, data, t0, h, y, nsteps, record_every, step0, out, nrec, jac, lu, piv, hmat, ctl, work,
              rtol, atol):
    """Advance y in place by up to ``nsteps`` BDF steps starting at step index ``step0`` (state at
    t0 + step0 h). Rows are recorded into ``out`` (after an evaluation at that state) for every step index
    that is a multiple of ``record_every`` (none if <= 0). Returns (steps done, status, rows recorded so
    far); after a status 1 the history restarts and the matrices are refreshed."""
    mref, dref = by_ref(model), by_ref(data)
    for s in range(nsteps):
        step = step0 + s
        t = t0 + step * h
        if record_every > 0 and step % record_every == 0:
            ctl[_NFEV] += 1
            st = system_rhs(t, y, mref, dref, work[_F])
            if st != 0:
                if st == 1:
                    ctl[_PREV] = 0
                    ctl[_VALID] = 0
                return s, st, nrec
            system_record(t, y, mref, dref, out[nrec])
            nrec += 1
        st = _bdf_step(mref, dref, t, h, y, jac, lu, piv, hmat, ctl, work, rtol, atol)
        if st < 0:
            st_split = _bdf_split(mref, dref, t, h, y, jac, lu, piv, hmat, ctl, work, rtol, atol)
            if st_split < 0:
                return s, st, nrec
            ctl[_NSPLIT] += 1
            st = st_split
        if st == 1:
            ctl[_PREV] = 0
            ctl[_VALID] = 0
            return s + 1, st, nrec
    return nsteps, 0, nrec


@njit
def bdf_advance(model, data, t0, h, y, nsteps, out_row, jac, lu, piv, hmat, ctl, work, rtol, atol, key, saved):
    """``nsteps`` BDF steps from t0 without recording, then evaluate and record the final state (one compiled
    call per communication step). ``saved`` holds the inputs (``key``, flattened) of the history; other
    inputs restart it (the matrices are kept). Returns (steps done, status) as ``rk4_advance``."""
    for i in range(key.size):
        if saved[i] != key[i]:
            ctl[_PREV] = 0
        saved[i] = key[i]
    done, st, _ = bdf_chunk(model, data, t0, h, y, nsteps, 0, 0, work, 0, jac, lu, piv, hmat,
                            ctl, work, rtol, atol)
    if st < 0 or (st == 1 and done < nsteps):
        return done, st
    ctl[_NFEV] += 1
    return done, rk4_final(model, data, t0 + nsteps * h, y, out_row, work[_F])


class BDF2:
    """Fixed-step BDF2 (BDF1 start-up) with a Newton-chord iteration on a reused LU-factored matrix.
    ``rtol``, ``atol``: the iteration's convergence test max |d_i| / (atol + rtol |y_i|) <= 1.
    ``nfev``, ``nfactor``, ``nsplit``: derivative evaluations, matrix refreshes and steps taken as sub-steps
    (``_bdf_split``) in the last run."""

    name = "bdf2"

    def __init__(self, chunk: int = 500, rtol: float = 1e-8, atol: float = 1e-10):
        if not (rtol > 0 and atol > 0):
            raise ValueError(f"bdf2: rtol and atol must be positive, got rtol={rtol}, atol={atol}")
        self.chunk, self.rtol, self.atol = int(chunk), float(rtol), float(atol)
        self.nfev = self.nfactor = self.nsplit = 0

    def run(self, system, y0, t0, t_end, h, *, record_every=1, progress=False):
        nsteps = fixed_steps(t0, t_end, h)
        model, data = system.model, system.data
        jac, lu, piv, hmat, ctl, work = bdf_arrays(len(y0))

        def step_chunk(y, step, todo, out, nrec):
            return bdf_chunk(model, data, t0, h, y, todo, record_every, step, out, nrec, jac, lu, piv, hmat, ctl,
                             work, self.rtol, self.atol)

        def restart():         # y shifted: restart the history (J does not change)
            ctl[_PREV] = 0

        def failure(code, t):
            return _failure(system, code, t)

        try:
            y, step, times, out, nrec = run_chunks(system, np.array(y0, dtype=float), t0, h, nsteps, record_every,
                                                   progress, self.chunk, step_chunk, on_shift=restart,
                                                   failure=failure)
        finally:
            self.nfev, self.nfactor, self.nsplit = int(ctl[_NFEV]), int(ctl[_NFAC]), int(ctl[_NSPLIT])
        st = rk4_final(model, data, t0 + step * h, y, out[nrec], work[_F])
        self.nfev += 1
        return finish_run(times, out, nrec, y, t0 + step * h, st, step < nsteps, failure)

    def stepper(self, system, y) -> "BDF2Stepper":
        return BDF2Stepper(system, y, self.rtol, self.atol)


@njit
def bdf_advance_packed(mbuf, mty, dbuf, dty, t0, h, y, nsteps, out_row, jac, lu, piv, hmat, ctl, work, rtol, atol,
                       key, saved):
    """:func:`bdf_advance` for the (model, data) of ``packing.packed`` (what a stepper calls per step)."""
    return bdf_advance(packed_value(mbuf, mty), packed_value(dbuf, dty), t0, h, y, nsteps, out_row, jac, lu, piv,
                       hmat, ctl, work, rtol, atol, key, saved)


class BDF2Stepper:
    """BDF2 for a stepping interface: ``advance`` is one compiled call per communication step
    (``bdf_advance``). The history y_n-1 carries over while the inputs are unchanged; the factored
    matrices while nobody calls ``reset()`` (a re-partition, a rebase, new sources)."""

    def __init__(self, system, y, rtol=1e-8, atol=1e-10):
        self.system = system
        self.y = y
        self.rtol, self.atol = float(rtol), float(atol)
        self._jac, self._lu, self._piv, self._hmat, self._ctl, self._work = bdf_arrays(y.size)
        self._key = inputs_key(system)
        self._saved = self._key.copy()
        self._advance = PackedCall(bdf_advance_packed)
        self._final = PackedCall(rk4_final_packed)

    def reset(self):
        bdf_reset(self._ctl)

    def restart_history(self):
        """Forget y_n-1 only (what an input change does): the next step is a BDF1 step."""
        self._ctl[_PREV] = 0

    def evaluate(self, t, row):
        """Evaluate and record the state y at t into ``row``; returns the status (a ``reset()``)."""
        self.reset()
        return self._final(self.system, float(t), self.y, row, self._work[_F])

    def advance(self, t, h, n, row):
        done, st = self._advance(self.system, float(t), float(h), self.y, int(n), row, self._jac, self._lu,
                                 self._piv, self._hmat, self._ctl, self._work, self.rtol, self.atol, self._key,
                                 self._saved)
        if st == STATUS_NEWTON_FAILED:
            raise _failure(self.system, st, t + done * h)
        return done, st

    def get_state(self):
        return (self.y.copy(), self._jac.copy(), self._lu.copy(), self._piv.copy(), self._hmat.copy(),
                self._ctl.copy(), self._work[_YPREV].copy(), self._saved.copy())

    def set_state(self, state):
        y, jac, lu, piv, hmat, ctl, yprev, saved = state
        self.y[:] = y
        self._jac[:], self._lu[:], self._piv[:], self._hmat[:], self._ctl[:] = jac, lu, piv, hmat, ctl
        self._work[_YPREV][:] = yprev
        self._saved[:] = saved


def bdf_arrays(n):
    """(J (n, n), LU factors (2, n, n), pivots (2, n), h of the factors, control integers, work (10, n))."""
    return (np.zeros((n, n)), np.zeros((2, n, n)), np.zeros((2, n), dtype=np.int64), np.zeros(1),
            np.zeros(5, dtype=np.int64), np.zeros((10, n)))


def _failure(system, code, t):
    """The exception for a failed step: the Newton-chord iteration's own, or the system's."""
    if code == STATUS_NEWTON_FAILED:
        name = getattr(getattr(system, "vehicle", None), "name", type(system).__name__)
        return SimulationError(f"{name}: simulation stopped at t = {t:.6g} s: the BDF2 Newton iteration did not "
                               f"converge, not even in {2 ** MAX_SPLITS} sub-steps (step too large?)")
    return system.failure(code, t)
