"""The tire kernels give the same numbers compiled and uncompiled (NUMBA_DISABLE_JIT=1, run in a subprocess)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from fmu_vehicle.paths import REPO_DIR
from timeouts import HANG_GUARD_S

SCRIPT = r'''
import json, math
import numpy as np
from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire import pacejka
from fmu_vehicle.tire.brake import brake_torque
from fmu_vehicle.tire.contact import CONTACT_OUT_N, tire_contact
from fmu_vehicle.tire.tir import read_tir
from fmu_vehicle.tire.wheel import simulate_wheel

p = read_tir(resource_path("tires", "pacejka_light_truck.tir")).to_array()
values = []
for fz in (-10.0, 900.0, 6000.0, 11000.0):
    for kappa in (-1.2, -0.1, 0.0, 0.03, 0.6):
        values.append(pacejka.mf_fx0(p, fz, kappa, 0.8))
        values.append(pacejka.mf_fx0_slope(p, fz, kappa, 0.8))
        values.append(pacejka.slip_relaxation_length(p, fz, kappa, 0.8, 7.0))
    values.append(pacejka.rolling_resistance_moment(p, fz, 13.0, 0.05))
    values.append(pacejka.relaxation_length(p, fz))
for delta, rate in ((-0.01, 1.0), (0.02, -0.3), (0.001, -9.0)):
    values.append(pacejka.vertical_force(p, delta, rate))
    values.append(pacejka.effective_rolling_radius(p, delta))
values.extend(brake_torque(1500.0, 1e-4, 0.2, 2.0))
s = math.tan(math.radians(12.0))
out = np.zeros(CONTACT_OUT_N)
tire_contact(p, np.array([1.0, 0.2, 0.55]), np.array([8.0, 0.1, 1.5]), np.array([0.1, 17.0, -0.2]),
             np.array([0.0, 0.99, 0.141]) / math.hypot(0.99, 0.141), 0.2, s, 0.9, 0.04, out)
values.extend(out.tolist())
run = simulate_wheel(p, mass_kg=600.0, inertia_kg_m2=2.5, duration_s=0.05, v0_m_per_s=3.0, slope_rad=0.1,
                     drive_torque_Nm=300.0, brake_torque_Nm=([0.0, 0.05], [0.0, 4000.0]))
for name in ("x", "z", "speed", "omega", "kappa", "fx", "fz", "my", "brake_torque"):
    values.extend(getattr(run, name)[-5:].tolist())
from fmu_vehicle.road import load_road
from fmu_vehicle.tire.stepper import N_STATES, W_ALPHA, W_AX, wheel_advance, wheel_arrays
w = wheel_arrays(p, load_road("bumpy").to_arrays(), hold_vx=True, hold_vz=True, hold_omega=True)
w.wheel[W_AX], w.wheel[W_ALPHA] = -2.0, 15.0
y, y_mid = np.array([19.9, 0.45, 15.0, 0.1, 33.0, 0.02, 0.0]), np.zeros(N_STATES)
for k in range(60):
    wheel_advance(k * 1e-3, 1e-3, 3, 0.5e-3, y, w, y_mid)
    values.extend(y_mid.tolist())
values.extend(y.tolist())
print(json.dumps({"kind": type(tire_contact).__name__, "values": values}))
'''


def run_script(disable_jit: bool) -> dict:
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    if disable_jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    result = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO_DIR, env=env, capture_output=True, text=True,
                            timeout=HANG_GUARD_S, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_kernels_identical_with_and_without_jit():
    compiled = run_script(disable_jit=False)
    plain = run_script(disable_jit=True)
    assert compiled["kind"] != "function" and plain["kind"] == "function"
    a, b = np.array(compiled["values"]), np.array(plain["values"])
    assert a.shape == b.shape and a.size > 100
    assert np.all(np.isfinite(a))
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
