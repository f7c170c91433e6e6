"""The tire-model interface (tire.models): the model is chosen by the tire's data, its id travels with the
parameters, and ``contact`` is the model's contact bit for bit (mf52: ``contact.tire_contact_3d``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import REPO_DIR, resource_path
from fmu_vehicle.tire import models
from fmu_vehicle.tire.contact import CONTACT_OUT_N, tire_contact_3d
from fmu_vehicle.tire.pacejka import effective_rolling_radius, nominal_load
from fmu_vehicle.tire.pacejka_combined import cornering_stiffness
from fmu_vehicle.tire.tir import (N_PARAMS, P_CZ, P_KZ, P_LCZ, P_LHY, P_LKY, P_LMUY, P_LRES, P_LS, P_LTR, P_LVY,
                                  P_LXAL, P_MODEL, P_R0, TireParams, read_tir)
from timeouts import HANG_GUARD_S

SHIPPED = sorted(p.name for p in resource_path("tires").glob("*.tir"))


def test_the_first_registered_model_is_mf52_with_id_zero():
    assert models.MODELS[0].name == "mf52" and models.MODELS[0].model_id == models.MF52 == 0
    assert [m.model_id for m in models.MODELS] == list(range(len(models.MODELS)))
    assert len({m.name for m in models.MODELS}) == len(models.MODELS)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_tir_files_choose_mf52(name):
    path = resource_path("tires", name)
    assert models.model_for(path).name == "mf52"
    tire = models.read_tire(path)
    assert isinstance(tire, TireParams)
    p = models.params(tire)
    assert p.shape == (N_PARAMS,) and p[P_MODEL] == models.MF52 and models.model_id(p) == models.MF52
    # the coefficients are the reader's, unchanged
    np.testing.assert_array_equal(p[:P_MODEL], read_tir(path).to_array()[:P_MODEL])


def test_an_explicit_name_chooses_the_model():
    path = resource_path("tires", SHIPPED[0])
    assert models.model_for(path, "mf52").model_id == models.MF52
    assert models.model_id_of("mf52") == models.MF52


def test_an_unknown_model_name_names_the_field_and_the_known_models():
    with pytest.raises(ModelError, match=r"corner 'x': field 'tire_model': unknown tire model 'mf99'; "
                                         r"known models: mf52"):
        models.model_for(resource_path("tires", SHIPPED[0]), "mf99", "corner 'x': field 'tire_model'")


def test_an_unknown_suffix_names_the_known_models_and_their_suffixes(tmp_path):
    f = tmp_path / "tire.ftire"
    f.write_text("x")
    with pytest.raises(ModelError, match=r"suffix '\.ftire' chooses no tire model.*tire_model.*mf52 \(\.tir\)"):
        models.read_tire(f)


def test_data_of_no_model_is_refused():
    with pytest.raises(ModelError, match="belongs to no tire model; known models: mf52"):
        models.params(object())


def test_a_vehicle_corner_naming_an_unknown_tire_model_is_refused():
    from fmu_vehicle.vehicle import Vehicle
    with pytest.raises(ModelError, match=r"corners\[0\] 'front': field 'tire_model': unknown tire model "
                                         r"'ftire'; known models: mf52"):
        Vehicle.load("halfcar7", overrides={"corners.front.tire_model": "ftire"})
    car = Vehicle.load("halfcar7", overrides={"corners.front.tire_model": "mf52"})
    assert np.all(car.tire_p[:, P_MODEL] == models.MF52)


def _random_inputs(rng):
    """Random wheel states: loaded, lifted off, fast, crawling, on slopes, both sides of the car."""
    axis = np.array([rng.normal(0.0, 0.1), 1.0, rng.normal(0.0, 0.1)])
    axis /= np.linalg.norm(axis)
    center = np.array([rng.uniform(-5, 5), rng.uniform(-2, 2), rng.uniform(0.25, 0.36)])
    vel = np.array([rng.choice([rng.uniform(-30, 30), rng.uniform(-0.05, 0.05)]), rng.uniform(-3, 3),
                    rng.uniform(-0.5, 0.5)])
    omega = np.array([rng.normal(0, 0.3), rng.uniform(-100, 100), rng.normal(0, 0.5)])
    return (rng.choice([1.0, -1.0]), center, vel, omega, axis, rng.uniform(-0.02, 0.02), rng.uniform(-0.2, 0.2),
            rng.uniform(-0.1, 0.1), rng.uniform(0.1, 1.2), rng.uniform(-1.5, 1.5), rng.uniform(-0.6, 0.6))


@pytest.mark.parametrize("name", SHIPPED)
def test_contact_is_tire_contact_3d_bit_for_bit(name):
    p = models.params(models.read_tire(resource_path("tires", name)))
    rng = np.random.default_rng(20261128)
    for _ in range(400):
        args = _random_inputs(rng)
        a, b = np.full(CONTACT_OUT_N, -1.0), np.full(CONTACT_OUT_N, -2.0)
        models.contact(models.model_id(p), p, *args, a)
        tire_contact_3d(p, *args, b)
        assert np.array_equal(a, b, equal_nan=True), args


def test_an_unknown_model_id_gives_nan_outputs():
    p = models.params(models.read_tire(resource_path("tires", SHIPPED[0])))
    out = np.zeros(CONTACT_OUT_N)
    models.contact(len(models.MODELS), p, *_random_inputs(np.random.default_rng(1)), out)
    assert np.all(np.isnan(out))


@pytest.mark.parametrize("name", SHIPPED)
def test_accessors_are_the_mf52_coefficients(name):
    p = models.params(models.read_tire(resource_path("tires", name)))
    assert models.unloaded_radius(p) == p[P_R0]
    assert models.vertical_stiffness(p) == p[P_CZ] * p[P_LCZ]
    assert models.vertical_damping(p) == p[P_KZ]
    assert models.nominal_load(p) == nominal_load(p)
    assert models.rolling_radius(p, 0.012) == effective_rolling_radius(p, 0.012)
    assert models.cornering_stiffness(p, 4000.0, 0.01) == cornering_stiffness(p, 4000.0, 0.01)
    fz0, delta0, re = models.nominal_state(p)
    assert (fz0, delta0, re) == (nominal_load(p), nominal_load(p) / (p[P_CZ] * p[P_LCZ]),
                                 effective_rolling_radius(p, delta0))
    rest = np.full(N_PARAMS, np.nan)
    models.rest_params(p, rest)
    off = [P_LMUY, P_LKY, P_LVY, P_LHY, P_LXAL, P_LTR, P_LRES, P_LS]
    assert np.all(rest[off] == 0.0)
    keep = np.setdiff1d(np.arange(N_PARAMS), off)
    np.testing.assert_array_equal(rest[keep], p[keep])
    q = p.copy()
    models.set_unloaded_radius(q, 0.5)
    assert q[P_R0] == 0.5 and np.array_equal(np.delete(q, P_R0), np.delete(p, P_R0))


def test_no_module_outside_tire_reads_coefficient_indices():
    """Only tire/ knows the coefficient layout: no module outside it imports ``tir``'s P_* indices or calls a
    model's kernels directly."""
    pkg = REPO_DIR / "fmu_vehicle"
    offenders = []
    for f in pkg.rglob("*.py"):
        if f.parent == pkg / "tire":
            continue
        text = f.read_text(encoding="utf-8")
        for needle in ("tire.tir import", "tire import tir", "tire.pacejka", "tire_contact_3d(", "tire.contact import "
                       "tire_contact"):
            if needle in text:
                offenders.append((f.relative_to(pkg).as_posix(), needle))
    assert offenders == []


NOJIT = r'''
import json
import numpy as np
from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire import models
p = models.params(models.read_tire(resource_path("tires", "pacejka2006_205_60R15.tir")))
values = [models.unloaded_radius(p), models.nominal_load(p), models.vertical_stiffness(p), models.vertical_damping(p),
          models.rolling_radius(p, 0.01), models.cornering_stiffness(p, 3000.0, 0.02)]
out = np.zeros(models.CONTACT_OUT_N)
models.contact(models.model_id(p), p, -1.0, np.array([1.0, 0.7, 0.29]), np.array([12.0, 0.4, -0.1]),
               np.array([0.05, 40.0, 0.3]), np.array([0.0, 1.0, 0.0]), 0.0, 0.03, -0.02, 0.9, 0.05, -0.03, out)
values.extend(out.tolist())
print(json.dumps({"kind": type(models.contact).__name__, "values": values}))
'''


def test_interface_runs_without_jit():
    def run(disable: bool) -> dict:
        env = dict(os.environ)
        env.pop("NUMBA_DISABLE_JIT", None)
        if disable:
            env["NUMBA_DISABLE_JIT"] = "1"
        r = subprocess.run([sys.executable, "-c", NOJIT], cwd=REPO_DIR, env=env, capture_output=True, text=True,
                           timeout=HANG_GUARD_S, check=True)
        return json.loads(r.stdout.strip().splitlines()[-1])

    compiled, plain = run(False), run(True)
    assert compiled["kind"] != "function" and plain["kind"] == "function"
    a, b = np.array(compiled["values"]), np.array(plain["values"])
    assert a.size == 6 + CONTACT_OUT_N and np.all(np.isfinite(a))
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
