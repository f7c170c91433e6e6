"""Adaptive reference integration through scipy.integrate.solve_ivp (DOP853 by default).

Used to check the fixed-step RK4 results (issue #3: rtol 1e-9). The coordinate partition cannot
change inside solve_ivp, so a re-partition request is ignored here (the state stays valid).
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp


class ScipyReference:
    name = "reference"

    def __init__(self, method: str = "DOP853", rtol: float = 1e-9, atol: float = 1e-11):
        self.method, self.rtol, self.atol = method, rtol, atol

    def run(self, system, y0, t0, t_end, h, *, record_every=1, progress=False):
        ydot = np.zeros_like(y0)
        failure = {}

        def fun(t, y):
            st = system.rhs(t, y, system.sys, ydot)
            if st < 0:
                failure.setdefault("code", (st, t))
                return np.full_like(y, np.nan)
            return ydot.copy()

        nsteps = int(round((t_end - t0) / h))
        t_eval = t0 + h * record_every * np.arange(nsteps // record_every + 1)
        if t_eval[-1] < t_end - 1e-12:
            t_eval = np.append(t_eval, t_end)
        t_eval[-1] = min(t_eval[-1], t_end)
        sol = solve_ivp(fun, (t0, t_end), y0, method=self.method, rtol=self.rtol, atol=self.atol,
                        t_eval=t_eval, max_step=max(h * 50, (t_end - t0) / 20))
        if "code" in failure:
            raise system.failure(*failure["code"])
        if not sol.success:
            raise RuntimeError(f"reference integration failed: {sol.message}")
        out = np.zeros((sol.t.size, len(system.output_names)))
        for k, t in enumerate(sol.t):
            st = system.rhs(t, sol.y[:, k], system.sys, ydot)
            if st < 0:
                raise system.failure(st, t)
            system.record(t, sol.y[:, k], system.sys, out[k])
        return sol.t, out, sol.y[:, -1].copy()
