"""Adaptive reference integration through scipy.integrate.solve_ivp (DOP853 by default).

Used to check the fixed-step results (rtol 1e-9 by default). The coordinate partition cannot
change inside solve_ivp, so a re-partition request is ignored here (the state stays valid).

See docs/integrators.md §2.
"""
from __future__ import annotations

import numpy as np

from ..numerics.jit import entry_point
from .base import passes


class ScipyReference:
    name = "reference"

    def __init__(self, method: str = "DOP853", rtol: float = 1e-9, atol: float = 1e-11):
        self.method, self.rtol, self.atol = method, rtol, atol
        self.nfev = 0       # derivative evaluations of the last run

    def run(self, system, y0, t0, t_end, h, *, record_every=1, progress=False):
        ydot = np.zeros_like(y0)
        failure = {}
        model, data = system.model, system.data
        rhs, record = passes(model)
        # the compiled entry point skips numba's typing of the system tuple on each of the many calls
        rhs = entry_point(rhs, float(t0), np.array(y0, dtype=float), model, data, ydot)
        self.nfev = 0

        def fun(t, y):
            self.nfev += 1
            st = rhs(float(t), np.ascontiguousarray(y, dtype=float), model, data, ydot)
            if st < 0:
                failure.setdefault("code", (st, t))
                return np.full_like(y, np.nan)
            return ydot.copy()

        nsteps = int(round((t_end - t0) / h))
        t_eval = t0 + h * record_every * np.arange(nsteps // record_every + 1)
        if t_eval[-1] < t_end - 1e-12:
            t_eval = np.append(t_eval, t_end)
        t_eval[-1] = min(t_eval[-1], t_end)
        out = np.zeros((t_eval.size, len(system.output_names)))
        y = np.array(y0, dtype=float)
        max_step = max(h * 50, (t_end - t0) / 20)
        # one solve per output interval, each row recorded right after its interval: the system's
        # warm-started position problem then starts next to the recorded state (a single solve
        # recorded afterwards restarted Newton at t0 from the final configuration, which can land
        # on another branch of the dependent coordinates, e.g. a 3R spherical joint's twin angles)
        from scipy.integrate import solve_ivp      # here: importing it takes 0.5 s, paid only by adaptive runs
        for k, t in enumerate(t_eval):
            if k > 0:
                sol = solve_ivp(fun, (t_eval[k - 1], t), y, method=self.method, rtol=self.rtol, atol=self.atol,
                                max_step=max_step)
                # a stage that failed (NaN derivative) makes the method reject its step and try a shorter one:
                # only a run that could not go on is the vehicle's failure
                if not sol.success:
                    if "code" in failure:
                        raise system.failure(*failure["code"])
                    raise RuntimeError(f"reference integration failed: {sol.message}")
                failure.clear()
                y = sol.y[:, -1].copy()
            st = rhs(float(t), y, model, data, ydot)
            self.nfev += 1
            if st < 0:
                raise system.failure(st, t)
            record(t, y, model, data, out[k])
        return t_eval, out, y

