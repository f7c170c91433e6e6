"""VehicleSimulator, the stepping API under the FMUs: inputs at once and per keyword, stepping."""
import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.signals import LONGITUDINAL_VERTICAL

INPUT_KEYS = LONGITUDINAL_VERTICAL.input_names
N_INPUTS = len(INPUT_KEYS)


@pytest.fixture(scope="module")
def car():
    return Vehicle.load("halfcar7")


def test_set_inputs_is_set_input_for_every_wheel_in_key_order(car):
    a = car.simulator("flat", v0=10.0)
    b = car.simulator("flat", v0=10.0)
    values = np.arange(1.0, 1.0 + len(car.wheel_names) * N_INPUTS)
    a.set_inputs(values.tolist())
    for w, wheel in enumerate(car.wheel_names):
        b.set_input(wheel, **dict(zip(INPUT_KEYS, values[w * N_INPUTS:(w + 1) * N_INPUTS])))
    assert np.array_equal(a.inputs, b.inputs)
    assert a.inputs[car.wheel_index("rear"), car.input_columns[INPUT_KEYS.index("road_mu")]] == N_INPUTS + 5.0
    with pytest.raises(ModelError, match=r"16 values expected \(2 wheels x 8 inputs\), got 3"):
        a.set_inputs([0.0, 1.0, 2.0])


def test_advance_in_substeps_matches_single_steps(car):
    """h = 50 dt in one call (one compiled call: steps + the final evaluation) equals 50 calls of dt."""
    a = car.simulator("bumpy", v0=20.0)
    b = car.simulator("bumpy", v0=20.0)
    for s in (a, b):
        s.set_input("front", torque_drive=300.0)
    a.advance(0.05)
    for _ in range(50):
        b.advance(1e-3)
    assert a.t == pytest.approx(0.05) and b.t == pytest.approx(0.05)
    np.testing.assert_allclose(a.y, b.y, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.row, b.row, rtol=0, atol=1e-9)
    assert a.outputs()["chassis.x"] - car.chassis_com0[0] == pytest.approx(1.0, rel=0.02)   # 20 m/s for 50 ms


def test_reusing_the_last_evaluation_is_exact():
    """First same as last: with inputs unchanged a step reuses the final evaluation of the previous one.
    Against a simulator whose reuse is defeated every step, the runs are bit-identical, also across an
    input change, a state restore and a source switch (each must invalidate the saved evaluation).
    (Two vehicles: simulators of one vehicle share its engine workspace, the Newton warm start.)"""
    a = Vehicle.load("halfcar7").simulator("bumpy", v0=20.0)
    b = Vehicle.load("halfcar7").simulator("bumpy", v0=20.0)
    saved = None
    for k in range(120):
        if k == 30:
            for s in (a, b):
                s.set_input("front", torque_drive=500.0)
        if k == 50:
            saved = (a.get_state(), b.get_state())
        if k == 70:
            a.set_state(saved[0])
            b.set_state(saved[1])
        if k == 90:
            for s in (a, b):
                s.set_sources("inputs", "internal")
                s.set_input("front", road_height=0.02)
                s.set_input("rear", road_height=0.01)
        b.stepper.reset()       # b recomputes k1 every step
        a.advance(1e-3)
        b.advance(1e-3)
        assert np.array_equal(a.y, b.y) and np.array_equal(a.row, b.row), k
    assert a.t == pytest.approx(0.1, abs=1e-12)


def test_set_inputs_of_the_full_car_and_a_changed_internal_step():
    """set_inputs writes the kernel's input matrix at this vehicle's columns (all of them for the full car);
    after ``dt`` changes, advance takes max(1, round(h/dt)) sub-steps of the new dt (as a simulator made
    with that dt from the same state: bit-identical)."""
    full = Vehicle.load("fullcar14")
    names = full.signals.input_names
    a, b = full.simulator("flat", v0=10.0), full.simulator("flat", v0=10.0)
    values = np.arange(1.0, 1.0 + len(full.wheel_names) * len(names)) * 0.01
    a.set_inputs(values)
    for w, wheel in enumerate(full.wheel_names):
        b.set_input(wheel, **dict(zip(names, values[w * len(names):(w + 1) * len(names)])))
    assert np.array_equal(a.inputs, b.inputs) and np.count_nonzero(a.inputs) == values.size

    car = Vehicle.load("halfcar7")
    a = car.simulator("bumpy", v0=20.0, dt=1e-3)
    a.set_input("front", torque_drive=300.0)
    a.advance(2e-3)
    a.dt = 2e-3
    b = Vehicle.load("halfcar7").simulator("bumpy", v0=20.0, dt=2e-3)
    b.set_state(a.get_state())
    a.advance(2e-3)
    b.advance(2e-3)
    assert np.array_equal(a.y, b.y) and np.array_equal(a.row, b.row)


def test_a_real_repartition_keeps_the_motion():
    """The engine's trigger, not a mock: with the reference pivot ratio of the partition zeroed (data.stats[3]),
    the next evaluation asks for a new partition (status 1); advance makes it (the compiled
    stepping.repartition_state, as the native FMU does), which restores the reference ratio, keeps the car's
    preferred independent coordinates and the motion (to rounding: the position problem is solved again)."""
    a = Vehicle.load("halfcar7").simulator("bumpy", v0=20.0)
    b = Vehicle.load("halfcar7").simulator("bumpy", v0=20.0)
    calls = []
    reparameterize = b.system.reparameterize
    b.system.reparameterize = lambda y: calls.append(1) or reparameterize(y)
    for s in (a, b):
        s.set_input("front", torque_drive=300.0)
        s.advance(0.05)
    ref = b.system.data.mech.stats[3]
    indep = b.system.data.mech.indep.copy()
    b.system.data.mech.stats[3] = 0.0
    for s in (a, b):
        s.advance(0.005)
    assert len(calls) == 1
    assert b.system.data.mech.stats[3] == pytest.approx(ref, rel=0.05) and ref > 1.0
    assert np.array_equal(b.system.data.mech.indep, indep)
    np.testing.assert_allclose(b.y, a.y, rtol=0, atol=1e-10)
    for s in (a, b):
        s.advance(0.5)
    np.testing.assert_allclose(b.row, a.row, rtol=1e-8, atol=1e-8)
    assert abs(b.outputs()["chassis.x"] - a.outputs()["chassis.x"]) < 1e-9


def test_advance_repartitions_and_continues_with_the_steps_left():
    """A compiled call that stops with status 1 (a new coordinate partition) after 2 of 5 sub-steps: advance
    re-parameterizes y once and runs the 3 steps left from t + 2 h/5; the result follows the uninterrupted run
    (the same motion, a re-evaluated first stage), and the time is the step's end."""
    a = Vehicle.load("halfcar7").simulator("bumpy", v0=20.0)
    b = Vehicle.load("halfcar7").simulator("bumpy", v0=20.0)
    calls, reparameterized = [], []
    st, reparameterize = b.stepper, b.system.reparameterize

    class Interrupting:
        def __getattr__(self, name):
            return getattr(st, name)

        @property
        def y(self):
            return st.y

        @y.setter
        def y(self, value):
            st.y = value

        def advance(self, t, h, n, row):
            calls.append((t, h, n))
            if len(calls) == 1:
                done, status = st.advance(t, h, 2, row)
                return done, 1 if status == 0 else status
            return st.advance(t, h, n, row)

    b.stepper = Interrupting()
    b.system.reparameterize = lambda y: reparameterized.append(y.copy()) or reparameterize(y)
    for s in (a, b):
        s.set_input("front", torque_drive=300.0)
    a.advance(0.005)
    b.advance(0.005)
    assert calls == [(0.0, 0.001, 5), (pytest.approx(0.002), 0.001, 3)] and len(reparameterized) == 1
    assert b.t == a.t == 0.005
    np.testing.assert_allclose(b.y, a.y, rtol=0, atol=1e-9)
    np.testing.assert_allclose(b.row, a.row, rtol=1e-9, atol=1e-9)


def test_the_second_order_warm_start_needs_no_newton_iteration_between_rk4_stages(car):
    """state.predict_dependent: on the bumpy road at 20 m/s the start R_z dz^i + (a^2/2) S satisfies the
    closure to POSITION_TOL in at least 9 of 10 evaluations (seen: 99 %); the first-order start it replaced
    (z^d += a zd^d) needed a Newton iteration in 97 % of them. Counted on the last evaluation of each of 300
    steps (data.stats[0]: Newton iterations, stats[1]: max |Phi| [m])."""
    from fmu_vehicle.multibody.mechanism import POSITION_TOL
    sim = car.simulator("bumpy", v0=20.0)
    sim.set_input("front", torque_drive=300.0)
    stats = sim.system.data.mech.stats
    iterations, residual = [], []
    for _ in range(300):
        sim.advance(1e-3)
        iterations.append(stats[0])
        residual.append(stats[1])
    assert np.mean(np.array(iterations) == 0) >= 0.9
    assert max(residual) <= POSITION_TOL


def test_a_failed_position_problem_leaves_the_last_evaluation_in_the_workspace(car):
    """Both starts fail for independent coordinates no loop closure reaches (the front wheel travel 1 m):
    set_state returns STATUS_POSITION_FAILED and puts z and zd back as the last evaluation left them, and the
    next evaluation at a reachable state succeeds from there (an adaptive method rejects the step and goes on)."""
    from fmu_vehicle.multibody.state import STATUS_POSITION_FAILED
    sim = car.simulator("bumpy", v0=20.0)
    sim.advance(0.01)
    system = sim.system
    d = system.data.mech
    y = sim.stepper.y.copy()
    ydot = np.zeros_like(y)
    assert system.rhs(sim.t, y, system.model, system.data, ydot) == 0
    z, zd = d.z.copy(), d.zd.copy()
    wild = y.copy()
    wild[:car.mech.model.ni] += 1.0              # every independent position 1 m or 1 rad away
    assert system.rhs(sim.t, wild, system.model, system.data, ydot) == STATUS_POSITION_FAILED
    assert np.array_equal(d.z, z) and np.array_equal(d.zd, zd)
    assert system.rhs(sim.t, y, system.model, system.data, ydot) == 0
    assert np.array_equal(d.z, z)
