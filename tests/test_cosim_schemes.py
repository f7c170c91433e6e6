"""Jacobi vs Gauss-Seidel coupling of a PD-controlled mass-spring-damper against exact solutions.

Plant m x'' + c x' + k x = F (RK4 inside the FMU, exact to ~1e-13 per 1 ms step), controller
F = Kp (x_ref - x) - Kd v. References:
* continuous closed loop  z(t) = expm(A t) z0,  A = [[0, 1], [-(k+Kp)/m, -(c+Kd)/m]];
* the exact sampled loops the two schemes implement, with Ad, Bd the zero-order-hold discretisation of the plant:
  Gauss-Seidel  z[n+1] = Ad z[n] + Bd K z[n]            (controller first, fresh output to the plant)
  Jacobi        z[n+1] = Ad z[n] + Bd K z[n-1], z[-1] = z[0]   (one step older output; the controller's initial
                output already equals K z[0] because start values are propagated during initialization).
"""
from pathlib import Path

import fmpy
import numpy as np
import pytest
from scipy.linalg import expm

from cosim_fmus.fixtures import CTRL, PLANT, plant_ctrl_system, session_fmus
from fmu_vehicle.cosim import Component, Experiment, System, read_ssp, run_system, write_ssp
from fmu_vehicle.cosim.master import derive_order
from fmu_vehicle.cosim.system import Connection
from fmu_vehicle.errors import ModelError


@pytest.fixture(scope="session")
def fmus(tmp_path_factory):
    return session_fmus(tmp_path_factory)


def continuous(n_steps, h, plant=PLANT, ctrl=CTRL):
    """Exact closed-loop [x, v] at t = n h, n = 0..n_steps (x_ref = 0), by powers of expm(A h)."""
    m, k, c, Kp, Kd = plant["m"], plant["k"], plant["c"], ctrl["Kp"], ctrl["Kd"]
    A = np.array([[0.0, 1.0], [-(k + Kp) / m, -(c + Kd) / m]])
    Phi = expm(A * h)
    z = np.zeros((n_steps + 1, 2))
    z[0] = plant["x0"], plant["v0"]
    for n in range(n_steps):
        z[n + 1] = Phi @ z[n]
    return z


def sampled(n_steps, h, scheme, plant=PLANT, ctrl=CTRL):
    """Exact sampled-data loop of each scheme (see module docstring); rows z[0..n_steps]."""
    m, k, c = plant["m"], plant["k"], plant["c"]
    M = np.zeros((3, 3))
    M[:2, :2] = [[0.0, 1.0], [-k / m, -c / m]]
    M[1, 2] = 1.0 / m
    E = expm(M * h)
    Ad, Bd = E[:2, :2], E[:2, 2]
    K = np.array([-ctrl["Kp"], -ctrl["Kd"]])
    z = np.zeros((n_steps + 1, 2))
    z[0] = plant["x0"], plant["v0"]
    for n in range(n_steps):
        held = z[n] if scheme == "gauss-seidel" else z[max(n - 1, 0)]
        z[n + 1] = Ad @ z[n] + Bd * (K @ held)
    return z


def run(fmus, scheme, h=1e-3, stop=3.0, **params):
    system = plant_ctrl_system(fmus, **params)
    order = ("ctrl", "plant") if scheme == "gauss-seidel" else None
    return run_system(system, Experiment(stop_time=stop, step_size=h, scheme=scheme, order=order), progress=False)


def test_gauss_seidel_three_times_more_accurate_than_jacobi(fmus):
    errors = {}
    for scheme in ("jacobi", "gauss-seidel"):
        result = run(fmus, scheme)
        exact = continuous(3000, 1e-3)
        errors[scheme] = np.max(np.abs(result["plant.x"] - exact[:, 0]))
    # Jacobi acts with 1.5 steps of delay, Gauss-Seidel with 0.5 (zero-order hold): error ratio 3
    assert 5.0e-3 < errors["jacobi"] < 6.0e-3
    assert 1.6e-3 < errors["gauss-seidel"] < 2.0e-3
    assert 2.8 < errors["jacobi"] / errors["gauss-seidel"] < 3.2


def test_coupling_error_is_first_order_in_the_step(fmus):
    for scheme in ("jacobi", "gauss-seidel"):
        err = []
        for h in (1e-3, 2e-3):
            result = run(fmus, scheme, h=h)
            err.append(np.max(np.abs(result["plant.x"] - continuous(round(3.0 / h), h)[:, 0])))
        assert 1.85 < err[1] / err[0] < 2.15


@pytest.mark.parametrize("scheme", ["jacobi", "gauss-seidel"])
def test_schemes_match_their_exact_sampled_loops(fmus, scheme):
    result = run(fmus, scheme, stop=2.0)
    z = sampled(2000, 1e-3, scheme)
    np.testing.assert_allclose(result.time, np.arange(2001) * 1e-3, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result["plant.x"], z[:, 0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(result["plant.v"], z[:, 1], rtol=0, atol=1e-9)
    # the force the plant used over [t_n, t_n+1] (recorded input at row n)
    K = np.array([-CTRL["Kp"], -CTRL["Kd"]])
    held = z[:-1] if scheme == "gauss-seidel" else np.vstack([z[:1], z[:-2]])
    np.testing.assert_allclose(result["plant.F"][:-1], held @ K, rtol=0, atol=1e-8)
    assert result["ctrl.n_steps"][-1] == 2000


@pytest.mark.parametrize("scheme", ["jacobi", "gauss-seidel"])
def test_start_values_propagated_at_t0(fmus, scheme):
    plant = {"x0": 0.7, "v0": 0.2}
    result = run(fmus, scheme, stop=0.01, plant=plant)
    first = result.data[0]
    assert first["time"] == 0.0
    assert first["ctrl.x"] == 0.7 and first["ctrl.v"] == 0.2          # not 0.0 as in fmpy.ssp
    assert first["plant.F"] == pytest.approx(-30.0 * 0.7 - 4.0 * 0.2, abs=1e-12)
    # and the first step used that force: one exact ZOH step of the plant
    z = sampled(1, 1e-3, "gauss-seidel", plant=dict(PLANT, **plant))
    assert result["plant.x"][1] == pytest.approx(z[1, 0], abs=1e-12)


def test_parameter_bindings_from_ssp_change_the_result_as_predicted(fmus, tmp_path):
    ctrl = {"Kp": 60.0, "Kd": 2.0}
    system = plant_ctrl_system(fmus, ctrl=ctrl, plant={"x0": 0.5})
    system = read_ssp(write_ssp(system, tmp_path / "pd.ssp"))
    assert system.component("ctrl").parameters == {"Kp": 60.0, "Kd": 2.0, "x_ref": 0.0}
    exp = Experiment(stop_time=1.0, step_size=1e-3, scheme="gauss-seidel", order=("ctrl", "plant"))
    result = run_system(system, exp, progress=False)
    z_bound = sampled(1000, 1e-3, "gauss-seidel", plant=dict(PLANT, x0=0.5), ctrl=dict(CTRL, **ctrl))
    z_default = sampled(1000, 1e-3, "gauss-seidel", plant=dict(PLANT, x0=0.5))
    np.testing.assert_allclose(result["plant.x"], z_bound[:, 0], rtol=0, atol=1e-9)
    assert np.max(np.abs(result["plant.x"] - z_default[:, 0])) > 0.1


def test_output_interval_and_selected_outputs(fmus, tmp_path):
    system = plant_ctrl_system(fmus)
    exp = Experiment(stop_time=0.5, step_size=1e-3, output_interval=0.1, outputs=("plant.x", "ctrl.F"))
    result = run_system(system, exp, progress=False, output_path=tmp_path / "out.csv")
    assert result.names == ("time", "plant.x", "ctrl.F")
    np.testing.assert_allclose(result.time, [0.0, 0.1, 0.2, 0.3, 0.4, 0.5], atol=1e-12)
    full = run(fmus, "jacobi", stop=0.5)
    np.testing.assert_array_equal(result["plant.x"], full["plant.x"][::100])
    text = (tmp_path / "out.csv").read_text().splitlines()
    assert text[0] == "time,plant.x,ctrl.F" and text[1].startswith("# units: s,") and len(text) == 8


def test_on_step_can_stop_the_run(fmus):
    seen = []

    def on_step(t, row):
        seen.append(row["plant.x"])
        return t < 0.25 - 1e-12

    result = run_system(plant_ctrl_system(fmus), Experiment(stop_time=1.0), progress=False, on_step=on_step)
    assert result.time[-1] == pytest.approx(0.25, abs=1e-12)
    assert seen == list(result["plant.x"])


def test_derived_gauss_seidel_order():
    con = Connection
    # chain sensor -> ctrl -> plant plus a loop plant -> ctrl: the loop {ctrl, plant} keeps declaration order,
    # sensor (upstream of the loop) goes first, logger (downstream) last
    names = ["logger", "plant", "ctrl", "sensor"]
    connections = [con("sensor", "y", "ctrl", "r"), con("ctrl", "F", "plant", "F"), con("plant", "x", "ctrl", "x"),
                   con("plant", "x", "logger", "u")]
    assert [names[i] for i in derive_order(names, connections)] == ["sensor", "plant", "ctrl", "logger"]
    assert derive_order(["a", "b"], []) == [0, 1]


def test_bad_experiment_and_order(fmus):
    system = plant_ctrl_system(fmus)
    with pytest.raises(ModelError, match="scheme"):
        Experiment(scheme="newton")
    with pytest.raises(ModelError, match="integer multiple"):
        run_system(system, Experiment(stop_time=0.0105, step_size=1e-3), progress=False)
    with pytest.raises(ModelError, match=r"missing: \['plant'\]"):
        run_system(system, Experiment(scheme="gauss-seidel", order=("ctrl",)), progress=False)
    with pytest.raises(ModelError, match="plant.nope"):
        run_system(system, Experiment(outputs=("plant.nope",)), progress=False)
    with pytest.raises(ModelError, match="'ctrl'.*no variable 'F_typo'"):
        system.connections.append(Connection("ctrl", "F_typo", "plant", "F"))
        run_system(system, Experiment(), progress=False)


def test_instances_of_one_fmu_are_independent_and_extracted_once(fmus, tmp_path, monkeypatch):
    calls = []
    real_extract = fmpy.extract
    monkeypatch.setattr(fmpy, "extract", lambda *a, **k: calls.append(a[0]) or real_extract(*a, **k))
    unzipped = Path(real_extract(str(fmus["plant"]), unzipdir=tmp_path / "plant_dir"))
    system = System("three", [Component("p1", fmus["plant"], {"x0": 1.0}),
                              Component("p2", fmus["plant"], {"x0": -0.5, "c": 2.0}),
                              Component("p3", unzipped, {"x0": 0.25})])
    result = run_system(system, Experiment(stop_time=1.0), progress=False)
    assert calls == [str(fmus["plant"].resolve())]                     # p1 and p2 share one extraction
    assert (unzipped / "modelDescription.xml").is_file()                # a given directory is left in place
    for name, x0, c in (("p1", 1.0, 0.5), ("p2", -0.5, 2.0), ("p3", 0.25, 0.5)):
        A = np.array([[0.0, 1.0], [-PLANT["k"] / PLANT["m"], -c / PLANT["m"]]])   # free oscillation, F = 0
        exact = np.array([expm(A * t) @ [x0, 0.0] for t in result.time[::50]])
        np.testing.assert_allclose(result[f"{name}.x"][::50], exact[:, 0], rtol=0, atol=1e-10)
