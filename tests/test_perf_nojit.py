"""The compiled vehicle path equals the same functions run uncompiled (NUMBA_DISABLE_JIT=1).

From the bumpy-road start state (static equilibrium at 20 m/s, front drive torque 300 N m) prepared
here, a subprocess without JIT integrates 20 RK4 steps of each vehicle and evaluates the derivative
at the end; the state, the recorded outputs, the derivative and the engine's M, f, Phi_z, R_z must
equal the compiled ones to 1e-12 (relative to the largest value).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fmu_vehicle.integrators import integrate
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.dynamics import vehicle_rhs
from timeouts import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[1]
FIELDS = ("M", "f", "phiz", "Rz", "zdd")

CHILD = r"""
import json, sys
import numpy as np
import numba
assert numba.config.DISABLE_JIT
from fmu_vehicle.integrators import integrate
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.dynamics import vehicle_rhs
case = json.load(sys.stdin)
car = Vehicle.load(case["vehicle"])
system = car.system("bumpy")
system.data.inputs[:] = np.array(case["inputs"])
d = system.data.mech
d.z[:], d.indep[:], d.dep[:] = case["z"], case["indep"], case["dep"]
t, rows, y = integrate(system, np.array(case["y0"]), 0.02, 1e-3)
ydot = np.zeros_like(y)
vehicle_rhs(0.02, y, system.model, system.data, ydot)
print(json.dumps({"y": y.tolist(), "rows": rows.tolist(), "ydot": ydot.tolist(),
                  **{k: np.asarray(getattr(d, k)).tolist() for k in %r}}))
""" % (FIELDS,)


def _close(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    return np.all(np.abs(a - b) <= 1e-12 * max(1.0, np.abs(b).max(initial=0.0)))


@pytest.mark.parametrize("name", ["halfcar7", "halfcar7_forkarm"])
def test_uncompiled_vehicle_run_gives_the_compiled_results(name):
    car = Vehicle.load(name)
    system = car.system("bumpy")
    system.data.inputs[car.wheel_index("front"), 0] = 300.0
    y0 = car.initial_state(system, 20.0)
    d = system.data.mech
    case = {"vehicle": name, "inputs": system.data.inputs.tolist(), "z": d.z.tolist(), "indep": d.indep.tolist(),
            "dep": d.dep.tolist(), "y0": y0.tolist()}
    _, rows, y = integrate(system, y0, 0.02, 1e-3)
    ydot = np.zeros_like(y)
    vehicle_rhs(0.02, y, system.model, system.data, ydot)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(case), capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout)
    assert _close(got["y"], y)
    assert _close(got["rows"], rows)
    assert _close(got["ydot"], ydot)
    for k in FIELDS:
        assert _close(got[k], getattr(d, k)), k
    assert abs(y[0] - y0[0]) > 0.3          # the car really moved (20 m/s for 20 ms)
