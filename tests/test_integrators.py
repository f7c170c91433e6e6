"""The multistep methods (ABM4, BDF2): observed order against the adaptive reference, restarts after an
input step, bit-identical continuation after a state restore, and their stepping interface.

The order is measured on the damped slider-crank (smooth, no re-partition): the largest error of the
recorded coordinates and rates over 1 s, against DOP853 at rtol 1e-12, for steps h and h/2.
"""
import numpy as np
import pytest

from fmu_vehicle.integrators import INTEGRATORS, STEPPING_INTEGRATORS, get_integrator, integrate
from fmu_vehicle.multibody import MechanismSystem
from fmu_vehicle.vehicle import Vehicle
from reference.states import load
from timeouts import HANG_GUARD_S

RECORD_S = 0.05     # output spacing of the order runs [s]


@pytest.fixture(scope="module")
def slider_crank():
    mech = load("slider_crank")
    y0 = mech.assemble()
    z0 = mech.data.z.copy()
    system = MechanismSystem(mech)
    _, ref, _ = integrate(system, y0, 1.0, RECORD_S, integrator="reference", rtol=1e-12, atol=1e-13)
    return mech, system, y0, z0, ref


def order_errors(slider_crank, name, steps, **options):
    """Largest error of the coordinates and rates (relative to each one's range + 1) for each step."""
    mech, system, y0, z0, ref = slider_crank
    n = 2 * mech.model.n
    errors = []
    for h in steps:
        mech.data.z[:] = z0         # the same warm start of the position problem for every run
        _, out, _ = integrate(system, y0, 1.0, h, integrator=name, record_every=int(round(RECORD_S / h)), **options)
        assert out.shape == ref.shape
        scale = np.abs(ref[:, :n]).max(axis=0) + 1.0
        errors.append((np.abs(out[:, :n] - ref[:, :n]) / scale).max())
    return errors


def test_the_methods_are_offered_by_name():
    assert {"rk4", "abm4", "bdf2", "reference"} <= set(INTEGRATORS)
    assert {"rk4", "abm4", "bdf2"} <= set(STEPPING_INTEGRATORS) and "reference" not in STEPPING_INTEGRATORS
    with pytest.raises(ValueError, match="unknown integrator 'abm5'; valid: rk4, abm4"):
        get_integrator("abm5")


def test_abm4_is_fourth_order(slider_crank):
    """Halving the step divides the ABM4 error by about 2^4 = 16 (asymptotically: 1.25 ms -> 0.625 ms)."""
    e = order_errors(slider_crank, "abm4", (2.5e-3, 1.25e-3, 6.25e-4))
    assert 1e-10 < e[-1] < 1e-7
    assert 12.0 < e[0] / e[1] < 20.0 and 12.0 < e[1] / e[2] < 20.0


def test_bdf2_is_second_order(slider_crank):
    """Halving the step divides the BDF2 error by about 2^2 = 4 (Newton-chord converged far below it)."""
    e = order_errors(slider_crank, "bdf2", (2.5e-3, 1.25e-3, 6.25e-4), rtol=1e-10, atol=1e-12)
    assert 1e-5 < e[-1] < 1e-3
    assert 3.5 < e[0] / e[1] < 4.5 and 3.5 < e[1] / e[2] < 4.5


def test_abm4_counts_two_evaluations_per_step(slider_crank):
    """PECE: 2 evaluations per step after the RK4 start-up (3 steps of 4 evaluations) and the first f."""
    mech, system, y0, z0, _ = slider_crank
    mech.data.z[:] = z0
    method = get_integrator("abm4")
    integrate(system, y0, 0.1, 1e-3, integrator=method)
    assert method.nfev == 1 + 3 * 4 + 97 * 2


def drive_run(sim, start, steps, *, save_at=None, torque_step_at=None, h=1e-3):
    """From the simulator state ``start`` (on the bumpy road at 20 m/s): ``steps`` communication steps of
    h; a front drive torque of 300 N m from step ``torque_step_at`` on; optionally saved at ``save_at``
    and, after two more steps with another torque, restored. Returns the rows after every step."""
    sim.set_state(start)
    rows = []
    k = 0
    while k < steps:
        sim.set_input("front", torque_drive=300.0 if torque_step_at is not None and k >= torque_step_at else 0.0)
        if k == save_at:
            state = sim.get_state()
            sim.set_input("front", torque_drive=-500.0)
            sim.advance(h)
            sim.advance(h)
            sim.set_state(state)
            save_at = None
            continue
        sim.advance(h)
        rows.append(sim.row.copy())
        k += 1
    return np.array(rows)


def fresh(car, integrator):
    """(a simulator at 20 m/s on the bumpy road, its start state)."""
    sim = car.simulator("bumpy", v0=20.0, integrator=integrator)
    return sim, sim.get_state()


@pytest.fixture(scope="module")
def car():
    return Vehicle.load("halfcar7")


@pytest.mark.parametrize("name", ["abm4", "bdf2", "rk4e"])
def test_a_restored_state_continues_bitwise(car, name):
    """Save mid-run (inside the ABM4 history / after BDF2's first steps; RK4E's reused evaluation and
    switching values) and during the start-up, take two steps with another torque, restore: the rest equals
    the uninterrupted run bit for bit."""
    sim, start = fresh(car, name)
    a = drive_run(sim, start, 40, torque_step_at=10)
    assert np.array_equal(a, drive_run(sim, start, 40, torque_step_at=10))     # the runs are reproducible
    assert np.array_equal(a, drive_run(sim, start, 40, torque_step_at=10, save_at=22))
    assert np.array_equal(a, drive_run(sim, start, 40, torque_step_at=10, save_at=2))


@pytest.mark.parametrize("name", ["abm4", "bdf2"])
def test_an_input_step_restarts_the_history(car, name):
    """A torque step restarts the history: the run equals the same run continued at the step by a
    stepper whose history was reset (what an input change must amount to); without the restart the
    result differs."""
    sim, start = fresh(car, name)
    a = drive_run(sim, start, 30, torque_step_at=10)
    drive_run(sim, start, 10)
    # what an input change must amount to: the history restarts (BDF2 keeps its iteration matrix)
    getattr(sim.stepper, "restart_history", sim.stepper.reset)()
    sim.set_input("front", torque_drive=300.0)
    rows = []
    for _ in range(20):
        sim.advance(1e-3)
        rows.append(sim.row.copy())
    assert np.array_equal(a[10:], np.array(rows))
    # the same continuation without a restart (the inputs of the history forged) is another result
    sim.set_state(start)
    drive_run(sim, start, 10)
    sim.set_input("front", torque_drive=300.0)
    sim.stepper._saved[:] = sim.inputs.reshape(-1)
    sim.advance(1e-3)
    assert not np.array_equal(sim.row, a[10])


@pytest.mark.parametrize("name", ["abm4", "bdf2"])
def test_stepper_follows_the_whole_run(car, name):
    """The stepping interface (1 ms communication steps, inputs unchanged) and ``run`` take the same
    steps: equal to rounding after 0.2 s with a drive torque."""
    sim, start = fresh(car, name)
    rows = drive_run(sim, start, 200, torque_step_at=0)
    res = car.simulate("bumpy", 0.2, v0=20.0, drive_torque={"front": 300.0}, integrator=name)
    np.testing.assert_allclose(rows[-1], [res.final(n) for n in car.output_names], rtol=1e-9, atol=1e-9)


NOJIT_CHILD = r"""
import json, sys
import numba
assert numba.config.DISABLE_JIT
sys.path.insert(0, "tests")
from fmu_vehicle.integrators import integrate
from fmu_vehicle.multibody import MechanismSystem
from reference.states import load
out = {}
for name in ("abm4", "bdf2"):
    mech = load("slider_crank")
    _, rows, y = integrate(MechanismSystem(mech), mech.assemble(), 0.02, 1e-3, integrator=name)
    out[name] = {"y": y.tolist(), "rows": rows.tolist()}
print(json.dumps(out))
"""


def test_uncompiled_methods_give_the_compiled_results():
    """ABM4 and BDF2 run with NUMBA_DISABLE_JIT=1 (a subprocess) and give the compiled results to 1e-12."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path
    repo = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-c", NOJIT_CHILD], cwd=repo, capture_output=True, text=True,
                          env=dict(os.environ, NUMBA_DISABLE_JIT="1"), timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in ("abm4", "bdf2"):
        mech = load("slider_crank")
        _, rows, y = integrate(MechanismSystem(mech), mech.assemble(), 0.02, 1e-3, integrator=name)
        np.testing.assert_allclose(got[name]["y"], y, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got[name]["rows"], rows, rtol=0, atol=1e-12)


def test_bdf2_stays_stable_where_rk4_diverges():
    """20 ms steps over the first 0.5 s of the bumpy road (flat there; 20 m/s, 300 N m on the front wheel).
    The tire's transient slip relaxes at |Vx| / sigma (sigma >= |Vx| 2.5 ms: up to 400 1/s, coupled with the
    wheel spin through the slip stiffness), past RK4's stability limit at this step: its transient slip grows
    by orders of magnitude per step from the start and the front wheel spins up. BDF2 is A-stable: at the
    same step it gives RK4's 1 ms result to 1e-6 (chassis speed, front spin, front slip)."""
    car = Vehicle.load("halfcar7")
    keys = ("chassis.vx", "wheel_front.omega", "wheel_front.slip")

    def final(integrator, dt):
        res = car.simulate("bumpy", 0.5, v0=20.0, drive_torque={"front": 300.0}, dt=dt, integrator=integrator)
        return np.array([res.final(k) for k in keys])

    fine = final("rk4", 1e-3)
    bdf = final("bdf2", 0.02)
    np.testing.assert_allclose(bdf[:2], fine[:2], rtol=1e-6)
    assert abs(bdf[2] - fine[2]) < 1e-6 and 0.005 < fine[2] < 0.006       # a driven wheel's slip, ~0.57 %
    rk4 = final("rk4", 0.02)
    assert not abs(rk4[2]) < 1e6        # |slip| > 1e6 (or not finite): diverged
    assert not abs(rk4[1] - fine[1]) < 10.0     # the front wheel spun up by more than 10 rad/s


def test_bdf2_crosses_lift_off_and_touch_down():
    """The bumpy road's first bump throws the front wheel off the road (t ~ 1.013 s at 1 ms: the Newton-chord
    iteration on a matrix from the start of the step stopped the run there) and the rear wheel lands at the
    end of a 0.25 ms step (t ~ 1.2435 s), where the tire's damper force and relaxation lengths jump and the
    BDF equation has no solution: BDF2 runs through both (a Jacobian from the end of the step, Newton from
    the best iterate, then sub-steps). After both axles crossed the bump it is within 1e-2 m/s of the
    reference speed (seen: 4.8e-3 at 1 ms, 1.6e-3 at 0.25 ms; RK4 at 1 ms 3.0e-4: the contact events cost
    every fixed-step method a first-order error), 2e-4 rad in pitch and 0.05 rad/s in front wheel spin."""
    car = Vehicle.load("halfcar7")
    ref = car.simulate("bumpy", 1.4, v0=20.0, drive_torque={"front": 300.0}, dt=0.1, integrator="reference")
    for dt in (1e-3, 2.5e-4):
        res = car.simulate("bumpy", 1.4, v0=20.0, drive_torque={"front": 300.0}, dt=dt, integrator="bdf2")
        assert abs(res.final("chassis.vx") - ref.final("chassis.vx")) < 1e-2
        assert abs(res.final("chassis.pitch") - ref.final("chassis.pitch")) < 2e-4
        assert abs(res.final("wheel_front.omega") - ref.final("wheel_front.omega")) < 0.05


def test_a_run_that_blows_up_stops_with_an_error_naming_the_time():
    """ABM4 at 5 ms is above its stable step on the bumpy road: the state grows without bound and becomes NaN
    near 13 s. The run stops there with the vehicle's error (a NaN state does not satisfy the loop closures;
    the position solver once took max(0, NaN) = 0 for converged and the run returned NaN rows), and the
    same vehicle then starts afresh."""
    from fmu_vehicle.errors import SimulationError
    car = Vehicle.load("halfcar7")
    with pytest.raises(SimulationError, match=r"halfcar7: simulation stopped at t = 1[2-4]\.\d+ s: the position problem"):
        car.simulate("bumpy", 14.0, v0=20.0, drive_torque={"front": 300.0}, dt=5e-3, integrator="abm4")
    res = car.simulate("bumpy", 0.1, v0=20.0, drive_torque={"front": 300.0}, dt=5e-3, integrator="abm4")
    assert np.isfinite(res.final("chassis.vx")) and abs(res.final("chassis.vx") - 20.0) < 0.1


def test_a_nan_loop_residual_is_reported_as_nan():
    """The records' residual outputs keep a NaN entry of Phi (a maximum with max() would drop it and report
    the largest finite entry): the vehicle's constraint_residual and a mechanism's position residual."""
    car = Vehicle.load("halfcar7")
    system = car.system("bumpy")
    y = car.initial_state(system, 20.0)
    system.rhs(0.0, y, system.model, system.data, np.zeros_like(y))
    row = np.zeros(len(car.output_names))
    k = list(car.output_names).index("constraint_residual")
    system.record(0.0, y, system.model, system.data, row)
    assert 0.0 <= row[k] < 1e-9
    system.data.mech.phi[0] = 1e-3
    system.data.mech.phi[1] = np.nan
    system.record(0.0, y, system.model, system.data, row)
    assert np.isnan(row[k])

    mech = load("slider_crank")
    msys = MechanismSystem(mech)
    y = mech.assemble()
    msys.rhs(0.0, y, msys.model, msys.data, np.zeros_like(y))
    mrow = np.zeros(len(msys.output_names))
    mech.data.phi[0] = np.nan
    msys.record(0.0, y, msys.model, msys.data, mrow)
    assert np.isnan(mrow[msys.output_names.index("residual.position")])
