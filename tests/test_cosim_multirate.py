"""Multi-rate stepping: PD controller at 10 ms, plant at 1 ms (master step 1 ms).

The controller samples its inputs at its step start and its output is held (zero-order hold):
* Jacobi (libcosim semantics): the output is published when the controller's step ends, so the force over the
  window [10k, 10k+10) ms is K z(10(k-1) ms) (K z(0) in the first window);
* Gauss-Seidel (controller first): published right after its step, so the window uses K z(10k ms).
"""
import numpy as np
import pytest

from cosim_fmus.fixtures import CTRL, plant_ctrl_system, session_fmus
from fmu_vehicle.cosim import Experiment, run_system
from fmu_vehicle.errors import ModelError

K = np.array([-CTRL["Kp"], -CTRL["Kd"]])


@pytest.fixture(scope="session")
def fmus(tmp_path_factory):
    return session_fmus(tmp_path_factory)


def test_jacobi_controller_output_is_piecewise_constant_over_10ms(fmus):
    system = plant_ctrl_system(fmus, ctrl_step=10e-3)
    result = run_system(system, Experiment(stop_time=0.5, step_size=1e-3), progress=False)
    assert len(result) == 501
    F = result["ctrl.F"][:500].reshape(50, 10)                  # 50 windows of 10 base steps
    assert np.all(F == F[:, :1])                                # constant inside every window
    assert np.all(np.abs(np.diff(F[1:, 0])) > 1e-6)              # and it really changes between windows
    z = np.column_stack([result["plant.x"], result["plant.v"]])
    expected = np.concatenate([[K @ z[0]], z[0:490:10] @ K])     # window k holds K z(10(k-1) ms)
    np.testing.assert_allclose(F[:, 0], expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(result["plant.F"], result["ctrl.F"])   # the plant sees what was published
    # the controller's inputs are sampled at its step start and held
    np.testing.assert_array_equal(result["ctrl.x"][:500].reshape(50, 10), np.repeat(z[0:500:10, :1], 10, axis=1))
    np.testing.assert_array_equal(result["ctrl.n_steps"][::10], np.arange(51))


def test_gauss_seidel_uses_the_fresh_sample(fmus):
    system = plant_ctrl_system(fmus, ctrl_step=10e-3)
    exp = Experiment(stop_time=0.5, step_size=1e-3, scheme="gauss-seidel", order=("ctrl", "plant"))
    result = run_system(system, exp, progress=False)
    z = np.column_stack([result["plant.x"], result["plant.v"]])
    F_used = result["plant.F"][:500].reshape(50, 10)
    assert np.all(F_used == F_used[:, :1])
    np.testing.assert_allclose(F_used[:, 0], z[0:500:10] @ K, rtol=0, atol=1e-12)


def test_last_slow_step_is_shortened_to_the_stop_time(fmus):
    system = plant_ctrl_system(fmus, ctrl_step=10e-3)
    result = run_system(system, Experiment(stop_time=0.105, step_size=1e-3))          # tqdm path too
    assert result.time[-1] == pytest.approx(0.105, abs=1e-12)
    assert result["ctrl.n_steps"][-1] == 11                      # ten 10 ms steps + one of 5 ms


@pytest.mark.parametrize("step", [2.5e-3, 0.5e-3, 10.0000001e-3])
def test_step_that_is_not_an_integer_multiple_is_rejected(fmus, step):
    system = plant_ctrl_system(fmus, ctrl_step=step)
    with pytest.raises(ModelError, match=r"component 'ctrl': step_size = .* is not an integer multiple of the "
                                         r"master step size 0\.001 s"):
        run_system(system, Experiment(stop_time=0.1, step_size=1e-3), progress=False)
