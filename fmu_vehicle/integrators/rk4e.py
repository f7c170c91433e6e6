"""Classical RK4 with event location: a grid step in which a switching function changes sign is retaken as
RK4 sub-steps that meet at the located root, so that no sub-step straddles a point where the derivative
is not smooth (compiled; outputs stay on the fixed grid).

A step of RK4 across a jump or kink of f loses the method's order there: its error is of first order in h,
with a sign that depends on where in the step the switch falls. The system's switching pass
(``base.system_switch``, e.g. ``vehicle.events``) writes values g(t, y) whose change of sign marks such a
point. Per grid step [t_n, t_n + h] from (t_a, y_a) = (t_n, y_n), with f_a = f(t_a, y_a), g_a = g(t_a, y_a):

1. trial: y_b = RK4(t_a, y_a, H), H = t_n + h - t_a, then f and g at (t_n + h, y_b)  (f is the next k1);
2. no component with sign(g_a,i) != sign(g_b,i): accept;
3. else locate the earliest root theta* in (0, 1] of g_i(theta) = g_i(t_a + theta H, RK4(t_a, y_a, theta H))
   over the components that changed sign: regula falsi with the Illinois modification (Dowell and
   Jarratt 1971, "A modified regula falsi method for computing the root of an equation", BIT 11) on
   the bracket [a, b] (no component changes sign on [0, a], one does on [a, b]), on the component whose
   secant root is the earliest, each iterate re-integrated from y_a (three evaluations) and evaluated
   (one), until (b - a) H <= ``tol`` [s] or ``max_iter`` iterates; an iterate where another component
   has changed sign moves b there and the iteration to that component;
4. the sub-step ends at the bracket's end b, where the sign has changed: (t_a, y_a) <- (t_a + b H,
   RK4(t_a, y_a, b H)) with its f and g from the location, and back to 1 for the rest of the grid step.

After ``max_sub`` located events in one grid step the trial is accepted as it is. Without a switching
pass (no sign ever changes) the method is RK4 with the last evaluation of a step reused as the first of
the next: the same evaluations in the same order, bit for bit ``rk4``. Re-integrating the iterates
instead of interpolating the trial step (its Hermite dense output) keeps them exact RK4 states: the
trial straddles the event, so its interpolant errs by O(h^2) there. See docs/integrators.md §2.
"""
from __future__ import annotations

import numpy as np

from ..numerics.jit import njit
from ..numerics.packing import PackedCall, by_ref, packed_value
from .base import (finish_run, fixed_steps, inputs_key, run_chunks, save_for, saved_for, switch_count, switch_params,
                   system_record, system_rhs, system_switch)
from .rk4 import RK4Stepper, _rk4_rest, rk4_final, rk4_final_packed

# rows of the (N_WORK, n) state workspace
K1, YA, FB, YB, FT, YT = 0, 5, 6, 7, 8, 9
N_WORK = 10
# rows of the (N_G, ng) switching workspace: g at the current state, at the bracket end b, at an iterate, at a
G0, GB, GT, GA = 0, 1, 2, 3
N_G = 4
# counters of a run (``RK4E.stats``)
S_EVENTS, S_EVALS, S_ITERS, S_CAPPED = 0, 1, 2, 3
N_STATS = 4


@njit(inline="always")
def _changed(ga, gb):
    """True if some component has another sign in gb than in ga (g > 0 against g <= 0)."""
    for i in range(ga.size):
        if (ga[i] > 0.0) != (gb[i] > 0.0):
            return True
    return False


@njit(inline="always")
def _earliest(ga, gb, a, b):
    """(component, secant root) of the component changing sign between ga (at a) and gb (at b) whose
    secant root a + (b - a) ga / (ga - gb) is the smallest; (-1, b) if none changes sign."""
    j, best = -1, b
    for i in range(ga.size):
        if (ga[i] > 0.0) != (gb[i] > 0.0):
            th = a + (b - a) * ga[i] / (ga[i] - gb[i])
            if j < 0 or th < best:
                j, best = i, th
    return j, best


@njit(inline="always")
def _locate(model, data, ta, hh, work, gw, sw, tol, max_iter, stats):
    """Steps 3-4 of the module docstring for the trial from (ta, work[YA]) of hh [s] whose end state, f and g
    are in work[YB], work[FB], gw[GB]; leaves the bracket end's state, f and g there and returns (b, status)."""
    ya, yt = work[YA], work[YT]
    n = ya.size
    ga, gb, gt = gw[GA], gw[GB], gw[GT]
    for i in range(ga.size):
        ga[i] = gw[G0, i]
    a, b = 0.0, 1.0
    j, _ = _earliest(ga, gb, a, b)
    fa, fb = ga[j], gb[j]
    side = 0
    for _ in range(max_iter):
        if (b - a) * hh <= tol:
            break
        th = (a * fb - b * fa) / (fb - fa)
        if not (a < th < b):
            th = 0.5 * (a + b)
        for i in range(n):
            yt[i] = ya[i]
        st = _rk4_rest(model, data, ta, th * hh, yt, work)
        if st < 0:
            return b, st
        st = system_rhs(ta + th * hh, yt, model, data, work[FT])
        if st < 0:
            return b, st
        system_switch(ta + th * hh, yt, model, data, sw, gt)
        stats[S_EVALS] += 4.0
        stats[S_ITERS] += 1.0
        if _changed(ga, gt):            # a root in (a, th]: th is the new b
            b = th
            for i in range(n):
                work[YB, i] = yt[i]
                work[FB, i] = work[FT, i]
            for i in range(gb.size):
                gb[i] = gt[i]
            k, _ = _earliest(ga, gb, a, b)
            if k != j:
                j, fa, fb, side = k, ga[k], gb[k], 0
            else:
                fb = gb[j]
                if side == 1:
                    fa *= 0.5
                side = 1
        else:                           # no root in [a, th]: th is the new a
            a = th
            for i in range(ga.size):
                ga[i] = gt[i]
            fa = ga[j]
            if side == -1:
                fb *= 0.5
            side = -1
    return b, 0


@njit
def rk4e_chunk(model, data, t0, h, y, nsteps, record_every, step0, out, nrec, work, gw, sw, fresh, tol, max_iter,
               max_sub, stats):
    """Advance y in place by up to ``nsteps`` grid steps of RK4 with event location (module docstring) from
    step index ``step0`` (the state after ``s`` steps is at t0 + (step0 + s) h).

    ``fresh``: evaluate f and g at the start (else work[K1] and gw[G0] hold them, from the last step of the
    previous call); ``sw``: the system's ``switch_params``. Rows are recorded into ``out`` for every step index
    that is a multiple of ``record_every`` (none if <= 0), from the evaluation at that state. ``stats`` accumulates
    [events located, evaluations, location iterates, grid steps that hit ``max_sub``].
    Returns (steps done, status, rows recorded so far); a status 1 of the evaluation that ends a step
    returns after that step (the caller re-parameterizes y and calls again with ``fresh``)."""
    mref, dref = by_ref(model), by_ref(data)
    n = y.size
    if fresh:
        t = t0 + step0 * h
        st = system_rhs(t, y, mref, dref, work[K1])
        stats[S_EVALS] += 1.0
        if st != 0:
            return 0, st, nrec
        system_switch(t, y, mref, dref, sw, gw[G0])
    for s in range(nsteps):
        step = step0 + s
        t = t0 + step * h
        t_end = t0 + (step + 1) * h
        if record_every > 0 and step % record_every == 0:
            system_record(t, y, mref, dref, out[nrec])
            nrec += 1
        ta = t
        hh = h
        nsub = 0
        while True:
            for i in range(n):
                work[YA, i] = y[i]
            st = _rk4_rest(mref, dref, ta, hh, y, work)
            if st < 0:
                return s, st, nrec
            st = system_rhs(t_end, y, mref, dref, work[FB])
            if st < 0:
                return s, st, nrec
            system_switch(t_end, y, mref, dref, sw, gw[GB])
            stats[S_EVALS] += 4.0
            if not _changed(gw[G0], gw[GB]):
                break
            if nsub >= max_sub:
                stats[S_CAPPED] += 1.0
                break
            for i in range(n):
                work[YB, i] = y[i]
            b, st = _locate(mref, dref, ta, hh, work, gw, sw, tol, max_iter, stats)
            if st < 0:
                return s, st, nrec
            stats[S_EVENTS] += 1.0
            nsub += 1
            for i in range(n):
                y[i] = work[YB, i]
            if b >= 1.0:                # the root is at the end of the step
                break
            for i in range(n):
                work[K1, i] = work[FB, i]
            for i in range(gw.shape[1]):
                gw[G0, i] = gw[GB, i]
            ta = ta + b * hh
            hh = t_end - ta
        for i in range(n):
            work[K1, i] = work[FB, i]
        for i in range(gw.shape[1]):
            gw[G0, i] = gw[GB, i]
        if st == 1:
            return s + 1, st, nrec
    return nsteps, 0, nrec


@njit
def rk4e_record(t, y, model, data, row):
    """Record the state y at t, last evaluated by the step that ended there."""
    system_record(t, y, model, data, row)


@njit
def rk4e_advance(model, data, t0, h, y, nsteps, out_row, work, gw, sw, tol, max_iter, max_sub, stats, key, saved):
    """``nsteps`` grid steps from t0 without recording, then record the final state (one compiled call per
    communication step). Returns (steps done, status) as ``rk4.rk4_advance``. ``saved`` holds [1, key] when
    work[K1], gw[G0] hold f and g of y at t0 with the inputs ``key`` (the previous call's last evaluation);
    the caller sets saved[0] = 0 whenever it changes y, t or the system otherwise."""
    fresh = not saved_for(saved, key)
    saved[0] = 0.0
    done, st, _ = rk4e_chunk(model, data, t0, h, y, nsteps, 0, 0, work, 0, work, gw, sw, fresh, tol, max_iter,
                             max_sub, stats)
    if st < 0 or done < nsteps:
        return done, st
    system_record(t0 + nsteps * h, y, model, data, out_row)
    if st == 0:
        save_for(saved, key)
    return done, st


class RK4E:
    """Fixed-step RK4 with event location on the system's switching functions (module docstring).

    Options: ``tol`` [s] the width of the located bracket (1e-9 s), ``max_iter`` location iterates per
    event (20), ``max_sub`` located events per grid step (8), ``chunk`` grid steps per compiled call.
    ``stats`` after a run: events located, evaluations, location iterates, grid steps that hit max_sub."""

    name = "rk4e"

    def __init__(self, tol: float = 1e-9, max_iter: int = 20, max_sub: int = 8, chunk: int = 500):
        if not tol > 0.0:
            raise ValueError(f"rk4e: tol must be a positive number of seconds, got {tol!r}")
        for field, value in (("max_iter", max_iter), ("max_sub", max_sub), ("chunk", chunk)):
            if int(value) != value or value < 1:
                raise ValueError(f"rk4e: {field} must be a positive integer, got {value!r}")
        self.tol, self.max_iter, self.max_sub, self.chunk = float(tol), int(max_iter), int(max_sub), int(chunk)
        self.stats = {}

    @property
    def nfev(self) -> int:
        """Derivative evaluations of the last run (grid steps, sub-steps and location iterates)."""
        return self.stats.get("evaluations", 0)

    def run(self, system, y0, t0, t_end, h, *, record_every=1, progress=False):
        nsteps = fixed_steps(t0, t_end, h)
        model, data = system.model, system.data
        work = np.zeros((N_WORK, len(y0)))
        gw = np.zeros((N_G, switch_count(model)))
        sw = switch_params(system)
        stats = np.zeros(N_STATS)
        fresh = [True]          # evaluate f and g at the start of the next call (y changed since)

        def step_chunk(y, step, todo, out, nrec):
            r = rk4e_chunk(model, data, t0, h, y, todo, record_every, step, out, nrec, work, gw, sw, fresh[0],
                           self.tol, self.max_iter, self.max_sub, stats)
            fresh[0] = False
            return r

        def changed():
            fresh[0] = True

        try:
            y, step, times, out, nrec = run_chunks(system, np.array(y0, dtype=float), t0, h, nsteps, record_every,
                                                   progress, self.chunk, step_chunk, on_shift=changed,
                                                   on_repartition=changed)
        finally:
            self.stats = dict(zip(("events", "evaluations", "iterations", "capped"), stats.astype(int).tolist()))
        t_last = t0 + step * h
        if step < nsteps or fresh[0]:   # interrupted, or y changed since its evaluation: evaluate it again
            st = rk4_final(model, data, t_last, y, out[nrec], work[K1])
        else:
            st = 0
            rk4e_record(t_last, y, model, data, out[nrec])
        return finish_run(times, out, nrec, y, t_last, st, step < nsteps, system.failure)

    def stepper(self, system, y) -> "RK4EStepper":
        return RK4EStepper(system, y, self)


@njit
def rk4e_advance_packed(mbuf, mty, dbuf, dty, t0, h, y, nsteps, out_row, work, gw, sw, tol, max_iter, max_sub, stats,
                        key, saved):
    """:func:`rk4e_advance` for the (model, data) of ``packing.packed`` (what a stepper calls per step)."""
    return rk4e_advance(packed_value(mbuf, mty), packed_value(dbuf, dty), t0, h, y, nsteps, out_row, work, gw, sw,
                        tol, max_iter, max_sub, stats, key, saved)


class RK4EStepper(RK4Stepper):
    """RK4 with event location for a stepping interface: ``advance`` is one compiled call per communication
    step (``rk4e_advance``), which reuses the last evaluation (f and g) while the inputs are unchanged
    (``reset`` and ``evaluate`` as RK4's: f is in work[K1] = work[0] too)."""

    def __init__(self, system, y, method: RK4E | None = None):
        self.system = system
        self.y = y
        self.method = method if method is not None else RK4E()
        self._work = np.zeros((N_WORK, y.size))
        self._gw = np.zeros((N_G, switch_count(system.model)))
        self._sw = switch_params(system)
        self._stats = np.zeros(N_STATS)
        self._key = inputs_key(system)
        self._saved = np.zeros(1 + self._key.size)      # [work[K1], gw[G0] valid, inputs of that evaluation]
        self._advance = PackedCall(rk4e_advance_packed)
        self._final = PackedCall(rk4_final_packed)

    def advance(self, t, h, n, row):
        m = self.method
        return self._advance(self.system, float(t), float(h), self.y, int(n), row, self._work, self._gw,
                             self._sw, m.tol, m.max_iter, m.max_sub, self._stats, self._key, self._saved)

    def get_state(self):
        return (self.y.copy(), self._work[K1].copy(), self._gw[G0].copy(), self._saved.copy())

    def set_state(self, state):
        y, k1, g0, saved = state
        self.y[:] = y
        self._work[K1][:] = k1
        self._gw[G0][:] = g0
        self._saved[:] = saved
