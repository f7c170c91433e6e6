"""Cost of fmu_vehicle.numerics.elementary's functions against the C library's (numba's math.*), compiled, in one process.

Run: ``python3 tools/elementary_latency.py [sin cos ...]`` (on an idle machine; numbers are ns per call).

Two measures per function, best of 7:
  latency     a dependent chain x <- f(x) * a + b of 200,000 calls: what a kernel waits for when each result
              feeds the next call (the Magic Formula's atan -> atan -> sin), the multiply-add included;
  throughput  the sum of f over 100,000 independent arguments, which the processor overlaps.
Arguments: sin/cos in ±2.6 (C atan(.) of the Magic Formula), atan in ±20, tan in ±1.4, exp/tanh in ±3.
The engine's own speed is measured by ``fmu-vehicle bench``; this script explains a change of it.
"""
from __future__ import annotations

import math
import sys
import time

import numba
import numpy as np

import fmu_vehicle.numerics.elementary as em

N_CHAIN = 200_000
REPEATS = 7


def _chain(f, a, b):
    @numba.njit
    def loop(x0, n):
        x = x0
        for _ in range(n):
            x = f(x) * a + b
        return x
    return loop


def _sum(f):
    @numba.njit
    def loop(xs):
        s = 0.0
        for x in xs:
            s += f(x)
        return s
    return loop


def _best(call, n):
    best = math.inf
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t0)
    return best / n * 1e9


def main(names):
    rng = np.random.default_rng(0)
    cases = [("sin", math.sin, em.sin, 0.9, 0.8, rng.uniform(-2.6, 2.6, 100_000)),
             ("cos", math.cos, em.cos, 0.9, 0.9, rng.uniform(-2.6, 2.6, 100_000)),
             ("atan", math.atan, em.atan, 3.0, 0.3, rng.uniform(-20.0, 20.0, 100_000)),
             ("tan", math.tan, em.tan, 0.5, 0.1, rng.uniform(-1.4, 1.4, 100_000)),
             ("exp", math.exp, em.exp, -0.5, 0.6, rng.uniform(-3.0, 3.0, 100_000)),
             ("tanh", math.tanh, em.tanh, 1.3, 0.2, rng.uniform(-3.0, 3.0, 100_000)),
             ("asin", math.asin, em.asin, 0.5, 0.1, rng.uniform(-1.0, 1.0, 100_000))]
    unknown = set(names) - {c[0] for c in cases}
    if unknown:
        print(f"unknown function(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    print("function  latency: C library / elementary [ns] (ratio)   throughput: C library / elementary [ns] (ratio)")
    for name, f_libm, f_em, a, b, xs in cases:
        if names and name not in names:
            continue
        res = []
        for f in (f_libm, f_em):
            chain, total = _chain(f, a, b), _sum(f)
            chain(0.3, 10)
            total(xs[:10])
            res.append((_best(lambda: chain(0.3, N_CHAIN), N_CHAIN), _best(lambda: total(xs), xs.size)))
        (la, ta), (le, te) = res
        print(f"{name:8s}  {la:6.1f} / {le:6.1f} ({le / la:4.2f})                      "
              f"{ta:6.1f} / {te:6.1f} ({te / ta:4.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
