"""VehicleSlaveBase logic in-process (no FMU binary): value store, life cycle, no escaping exceptions."""
import math

import pytest
from pythonfmu.enums import Fmi2Status

from fmu_vehicle.fmi.slave_base import VehicleSlaveBase
from fmu_vehicle.fmi.variables import Var
from fmu_vehicle.fmi.version import fmu_guid, package_version


class Integrator(VehicleSlaveBase):
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
    assert Integrator.supports_state() and not VehicleSlaveBase.supports_state()


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
