"""The engine's kernels run uncompiled (NUMBA_DISABLE_JIT=1) and give the compiled results.

One subprocess evaluates, at states prepared here, the derivatives (and M, f, Phi_z of the workspace)
of the RSSR four-bar and three other mechanisms, plus 20 RK4 steps of the four-bar; they must equal
the compiled path to 1e-12.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from fmu_vehicle.integrators import integrate
from fmu_vehicle.multibody import MechanismSystem
from reference.states import load, random_state
from timeouts import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[1]
NAMES = ["rssr_fourbar", "rssr_fourbar_rod", "macpherson_fork_arm", "open_tree"]
FIELDS = ("zdd", "M", "f", "phiz", "Rz", "Zd")

CHILD = r"""
import json, sys
import numpy as np
import numba
assert numba.config.DISABLE_JIT
sys.path.insert(0, "tests")
from fmu_vehicle.integrators import integrate
from fmu_vehicle.multibody import MechanismSystem
from reference.states import load
cases = json.load(sys.stdin)
out = {}
for name, states in cases["derivatives"].items():
    mech = load(name)
    res = []
    for z, y in states:
        mech.data.z[:] = z
        ydot = mech.derivatives(np.array(y))
        res.append({"ydot": ydot.tolist(), **{k: np.asarray(getattr(mech.data, k)).tolist() for k in %r}})
    out[name] = res
mech = load("rssr_fourbar")
mech.data.z[:] = cases["rk4"]["z"]
_, rows, y = integrate(MechanismSystem(mech), np.array(cases["rk4"]["y"]), 0.02, 1e-3)
out["rk4"] = {"y": y.tolist(), "rows": rows.tolist()}
print(json.dumps(out))
""" % (FIELDS,)


def test_uncompiled_engine_gives_the_compiled_results():
    rng = np.random.default_rng(5)
    cases, expected = {"derivatives": {}}, {}
    for name in NAMES:
        mech = load(name)
        states, results = [], []
        for _ in range(3):
            kw = dict(angle=0.05, rate=1.0, travel=0.05, speed=1.0) if name.startswith("macpherson") else {}
            y = random_state(mech, rng, **kw)
            states.append((mech.data.z.tolist(), y.tolist()))
            ydot = mech.derivatives(y)
            results.append({"ydot": ydot, **{k: np.array(getattr(mech.data, k)) for k in FIELDS}})
        cases["derivatives"][name] = states
        expected[name] = results
    mech = load("rssr_fourbar")
    y0 = mech.assemble({"crank": 0.7}, {"crank": 5.0})
    cases["rk4"] = {"z": mech.data.z.tolist(), "y": y0.tolist()}
    _, rows, y_end = integrate(MechanismSystem(mech), y0, 0.02, 1e-3)

    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(cases), capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout)
    for name in NAMES:
        for exp, res in zip(expected[name], got[name]):
            for key in ("ydot",) + FIELDS:
                b = np.asarray(exp[key]).ravel()
                a = np.asarray(res[key], dtype=float).ravel()
                assert a.shape == b.shape, (name, key)
                assert np.all(np.abs(a - b) <= 1e-12 * max(1.0, np.abs(b).max(initial=0.0))), (name, key)
    assert np.abs(np.array(got["rk4"]["y"]) - y_end).max() <= 1e-12 * np.abs(y_end).max()
    assert np.abs(np.array(got["rk4"]["rows"]) - rows).max() <= 1e-12 * max(1.0, np.abs(rows).max())
