"""SlaveBase logic in-process (no FMU binary): value store, life cycle, no escaping exceptions."""
import math

import pytest
from pythonfmu.enums import Fmi2Status

from fmu_vehicle.fmi.slave_base import SlaveBase
from fmu_vehicle.fmi.variables import Var
from fmu_vehicle.fmi.version import fmu_guid, package_version
from fmu_vehicle.paths import resources_dir

from fmu_ranges import slave_class


class Integrator(SlaveBase):
    """y' = k u, exact for held u; blows up on purpose when u == 13."""

    MODEL_NAME = "Integrator"
    VARIABLES = (
        Var("k", "parameter", "tunable", "1/s", "gain", 2.0, min=0.0, max=10.0),
        Var("u", "input", None, "m", "input", 0.0),
        Var("y", "output", None, "m", "integral", 0.0),
    )

    def _setup(self):
        self.y = 0.0
        self.values["y"] = self.y

    def _advance(self, t, h):
        if self.values["u"] == 13.0:
            raise RuntimeError("unlucky input")
        self.y += self.values["k"] * self.values["u"] * h
        self.values["y"] = self.y

    def _state(self):
        return self.y

    def _restore(self, state):
        self.y = state


def make():
    s = Integrator(instance_name="toy", resources=".")
    vr = {v.name: v.value_reference for v in s.vars.values()}
    s.setup_experiment(0.0)
    s.enter_initialization_mode()
    return s, vr


def errors(s):
    return [m.msg for m in s.log_queue if m.status == Fmi2Status.error]


def test_value_store_getters_setters_and_identity():
    s, vr = make()
    assert s.modelName == "Integrator" and str(s.guid) == fmu_guid("Integrator", package_version())
    s.set_real([vr["u"]], [1.5])
    s.exit_initialization_mode()
    assert s.do_step(0.0, 0.5) and s.get_real([vr["y"]]) == [1.5]
    assert Integrator.supports_state() and not SlaveBase.supports_state()


def test_exceptions_never_escape_and_state_recovers():
    s, vr = make()
    s.exit_initialization_mode()
    s.set_real([vr["u"]], [1.0])
    assert s.do_step(0.0, 1.0)
    saved = s._get_fmu_state()
    s.set_real([vr["u"]], [13.0])
    assert s.do_step(1.0, 1.0) is False                       # -> fmi2Discard, traceback logged
    assert "unlucky input" in errors(s)[-1]
    assert s.do_step(2.0, 1.0) is False and "instance failed" in errors(s)[-1]
    s._set_fmu_state(saved)                                     # rollback clears the failure
    s.set_real([vr["u"]], [1.0])
    assert s.do_step(1.0, 1.0) and s.get_real([vr["y"]]) == [4.0]
    blob = Integrator._fmu_state_to_bytes(s._get_fmu_state())
    other, _ = make()
    other._set_fmu_state(Integrator._fmu_state_from_bytes(blob))     # builds the model, then restores
    assert other.get_real([vr["y"]]) == [4.0] and other.do_step(2.0, 1.0)


def test_tunable_change_is_validated_at_the_next_step():
    s, vr = make()
    s.exit_initialization_mode()
    s.set_real([vr["k"]], [math.nan])
    s.set_real([vr["u"]], [1.0])
    assert s.do_step(0.0, 1.0) is False and "tunable parameter 'k'" in errors(s)[-1]
    s.set_real([vr["k"]], [3.0])
    assert s.do_step(0.0, 1.0) and s.get_real([vr["y"]]) == [3.0]


def test_state_from_another_model_is_refused():
    s, vr = make()
    s.exit_initialization_mode()
    s._set_fmu_state({"model_name": "Other"})
    assert "does not come from a Integrator FMU" in errors(s)[-1]
    assert s.do_step(0.0, 1.0) is False


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_bad_step_sizes(bad):
    s, _ = make()
    s.exit_initialization_mode()
    assert s.do_step(0.0, bad) is False and "step size" in errors(s)[-1]


class Bounded(SlaveBase):
    """y = a + b + c, for the per-step input checks and getReal by reference."""

    MODEL_NAME = "Bounded"
    VARIABLES = (
        Var("mode", "parameter", "fixed", None, "a String, not readable as Real", "sum", type="String"),
        Var("a", "input", None, "m", "bounded input", 1.0, min=0.0, max=5.0),
        Var("b", "input", None, "m", "free input", 0.0),
        Var("c", "input", None, "m", "free input", 0.0),
        Var("y", "output", None, "m", "a + b + c", 0.0),
    )

    def _setup(self):
        self.values["y"] = 0.0

    def _advance(self, t, h):
        v = self.values
        v["y"] = v["a"] + v["b"] + v["c"]


@pytest.mark.parametrize("inputs, ok, words", [
    ({"a": 5.0, "b": 1e308, "c": 1e308}, False, ("output 'y'", "inf")),   # accepted inputs, output overflows
    ({"a": 0.0, "b": -2.5, "c": 7.0}, True, None),
    ({"b": math.nan}, False, ("input 'b'", "not finite")),
    ({"c": -math.inf}, False, ("input 'c'", "not finite")),
    ({"a": 5.5}, False, ("input 'a'", "above max 5.0")),
    ({"a": -1e-9}, False, ("input 'a'", "below min 0.0")),
])
def test_inputs_are_checked_every_step(inputs, ok, words):
    s = Bounded(instance_name="b", resources=".")
    vr = {v.name: v.value_reference for v in s.vars.values()}
    s.setup_experiment(0.0)
    s.enter_initialization_mode()
    s.exit_initialization_mode()
    s.set_real([vr[k] for k in inputs], list(inputs.values()))
    assert s.do_step(0.0, 0.1) is ok
    if ok:
        v = s.values
        assert s.get_real([vr["y"], vr["a"], vr["b"]]) == [v["a"] + v["b"] + v["c"], v["a"], v["b"]]
        assert s.get_real([vr["y"]]) == [pythonfmu_get_real(s, vr["y"])]
    else:
        assert all(w in errors(s)[-1] for w in words) and s.values["y"] == 0.0    # the model was not stepped


def pythonfmu_get_real(s, ref):
    return float(s.vars[ref].getter())


def test_get_real_refuses_a_reference_that_is_not_real():
    # an exception would be fmi2Fatal in the wrapper: NaN placeholders and a logged error instead
    s = Bounded(instance_name="b", resources=".")
    vr = {v.name: v.value_reference for v in s.vars.values()}
    a, mode = s.get_real([vr["a"], vr["mode"]])
    assert a == 1.0 and math.isnan(mode)
    assert f"value reference {vr['mode']} is 'mode', a String variable, not a Real" in errors(s)[-1]
    assert math.isnan(s.get_real([99])[0]) and "value reference 99 is not a variable" in errors(s)[-1]


class Row(SlaveBase):
    """Two Real outputs published as one list (``_publish_outputs``): p = sum of the inputs over the steps,
    q = the last step's size; an output becomes NaN when input ``a`` is 13. Counts how often it saw new
    inputs (``_inputs_pending``)."""

    MODEL_NAME = "Row"
    VARIABLES = (
        Var("a", "input", None, "m", "input a", 1.0, min=-100.0, max=100.0),
        Var("b", "input", None, "m", "input b", 2.0),
        Var("p", "output", None, "m", "sum", 0.0),
        Var("n", "output", "discrete", None, "steps", 0, type="Integer"),
        Var("q", "output", None, "s", "step size", 0.0),
    )

    def _setup(self):
        self.p, self.seen = 0.0, 0
        self._publish_outputs([self.p, 0.0])

    def _advance(self, t, h):
        if self._inputs_pending:
            self.seen += 1
        a, b = self.values["a"], self.values["b"]
        self.p += a + b
        self._publish_outputs([math.nan if a == 13.0 else self.p, h])

    def _state(self):
        return {"p": self.p}

    def _restore(self, state):
        self.p = state["p"]


def make_row():
    s = Row(instance_name="row", resources=".")
    vr = {v.name: v.value_reference for v in s.vars.values()}
    s.setup_experiment(0.0)
    s.enter_initialization_mode()
    s.exit_initialization_mode()
    return s, vr


def test_published_outputs_are_read_in_any_order_and_reach_the_value_store_when_read_there():
    s, vr = make_row()
    assert s.do_step(0.0, 0.5) and s.do_step(0.5, 0.25)
    assert s.get_real([vr["p"], vr["q"]]) == [6.0, 0.25]                 # the whole row in its order
    assert s.get_real([vr["q"], vr["p"], vr["q"]]) == [0.25, 6.0, 0.25]    # any selection
    assert s.get_real([vr["a"], vr["p"]]) == [1.0, 6.0]                  # an input with it: from the store
    assert s.values["p"] == 6.0 and s.values["q"] == 0.25
    row = s.get_real([vr["p"], vr["q"]])
    row[0] = -1.0                                                        # the caller's copy, not the row
    assert s.get_real([vr["p"], vr["q"]]) == [6.0, 0.25]
    assert s.do_step(0.75, 0.25) and s.get_integer([vr["n"]]) == [0] and s.values["p"] == 9.0


def test_published_outputs_roll_back_on_nan_and_round_trip_through_the_state():
    s, vr = make_row()
    assert s.do_step(0.0, 0.5)
    state = s._fmu_state_from_bytes(s._fmu_state_to_bytes(s._get_fmu_state()))
    assert s.do_step(0.5, 0.5) and s.get_real([vr["p"]]) == [6.0]
    s.set_real([vr["a"]], [13.0])
    assert not s.do_step(1.0, 0.5)
    assert s.get_real([vr["p"], vr["q"]]) == [6.0, 0.5]                  # the outputs at the step start
    assert "output 'p' became nan" in errors(s)[-1]
    s._set_fmu_state(state)
    assert s.get_real([vr["p"], vr["q"]]) == [3.0, 0.5] and s.values["a"] == 1.0
    assert s.do_step(0.5, 0.5) and s.get_real([vr["p"]]) == [6.0]


def test_fast_set_real_stores_floats_and_the_next_step_still_refuses_bad_inputs():
    s, vr = make_row()
    assert s.do_step(0.0, 0.1) and s.seen == 1                          # the start values count as new
    assert s.do_step(0.1, 0.1) and s.seen == 1                          # nothing set since
    s.set_real([vr["b"], vr["a"]], [4.0, 5.0])
    assert s.do_step(0.2, 0.1) and s.seen == 2 and s.values["a"] == 5.0 and s.values["b"] == 4.0
    s.set_real([vr["b"], vr["a"]], [4.0, 500.0])
    assert not s.do_step(0.3, 0.1) and "input 'a' at t=0.3: 500.0 is above max 100.0" in errors(s)[-1]
    s.set_real([vr["b"], vr["a"]], [math.nan, 5.0])
    assert not s.do_step(0.3, 0.1) and "input 'b' at t=0.3: nan is not finite" in errors(s)[-1]
    s.set_real([vr["b"]], [1])                                          # an int: the checked path, stored as float
    assert type(s.values["b"]) is float and s.do_step(0.3, 0.1)
    s.set_real([vr["b"]], [True])                                       # a bool is not a Real
    assert "wrong type" in errors(s)[-1] and s.values["b"] == 1.0
    s.set_real([vr["p"], vr["a"]], [1.0, 2.0])                          # an output among them: refused alone
    assert "'p' is an output" in errors(s)[-1] and s.values["a"] == 2.0
    assert s.get_real([vr["p"]]) == [pythonfmu_get_real(s, vr["p"])]


class Substepped(Integrator):
    """The integrator with a tunable internal step (at most MAX_SUBSTEPS of them per doStep)."""

    MODEL_NAME = "Substepped"
    INTERNAL_STEP = "dt"
    MAX_SUBSTEPS = 100
    VARIABLES = Integrator.VARIABLES + (Var("dt", "parameter", "tunable", "s", "internal step", 0.1, min=1e-6,
                                            max=1.0),)


def test_largest_step_follows_a_tunable_internal_step_and_a_restored_state():
    """doStep takes at most MAX_SUBSTEPS x dt: 10 s with dt = 0.1 s, 1 s once dt = 0.01 s was set (the usual
    step's quick test must not keep the old limit), 10 s again after restoring a state made with 0.1 s."""
    s = Substepped(instance_name="sub", resources=".")
    vr = {v.name: v.value_reference for v in s.vars.values()}
    s.setup_experiment(0.0)
    s.enter_initialization_mode()
    s.set_real([vr["u"]], [1.0])
    s.exit_initialization_mode()
    assert s.do_step(0.0, 5.0) and s.do_step(5.0, 10.0)
    state = s._get_fmu_state()
    assert not s.do_step(15.0, 10.5) and "more than 100 per doStep" in errors(s)[-1]
    s.set_real([vr["dt"]], [0.01])
    assert s.do_step(15.0, 0.5)            # the first step with dt = 0.01 s (checked in full)
    n = len(errors(s))
    assert not s.do_step(15.5, 5.0) and "more than 100 per doStep" in errors(s)[n]
    assert s.do_step(15.5, 1.0)
    s._set_fmu_state(state)
    assert s.values["dt"] == 0.1 and s.do_step(15.0, 10.0) and s.time == 25.0
    assert s.get_real([vr["y"]]) == [pytest.approx(2.0 * 25.0)]


def test_inputs_set_in_initialization_mode_rebuild_the_state_without_reading_the_vehicle_again():
    """A host may set inputs one at a time in initialization mode and read outputs in between, each change a
    rebuild of the initial state (``SlaveBase._initial_outputs``): the vehicle and road files are read once
    (the same ``Vehicle``), a new simulator follows each input, and a parameter change reads the files again."""
    s = slave_class("VehicleLV")(instance_name="init", resources=str(resources_dir()))
    vr = {v.name: v.value_reference for v in s.vars.values()}
    s.setup_experiment(0.0)
    s.enter_initialization_mode()
    vx = s.get_real([vr["chassis.vx"]])[0]
    car, sim = s.car, s.sim
    s.set_real([vr["wheel_front.torque_drive"]], [200.0])
    s.get_real([vr["chassis.vx"]])
    assert s.car is car and s.sim is not sim
    s.set_real([vr["v0"]], [vx + 5.0])
    assert s.get_real([vr["chassis.vx"]])[0] == pytest.approx(vx + 5.0, abs=0.05)
    assert s.car is not car
    s.exit_initialization_mode()
    assert s.do_step(0.0, 1e-3)
