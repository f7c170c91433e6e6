"""The plain-data FMU state format and the checks made when a state is restored (in-process slaves)."""
import json
import math
import struct

import numpy as np
import pytest
from pythonfmu.enums import Fmi2Status

from fmu_vehicle.fmi import state_format as sf
from fmu_vehicle.fmi.slave_base import SlaveBase
from fmu_vehicle.fmi.variables import Var


class Mass(SlaveBase):
    """x'' = F/m with a numpy state, y = x; NaN when F == 13 (to test the refusal after a NaN step)."""

    MODEL_NAME = "Mass"
    VARIABLES = (
        Var("m", "parameter", "fixed", "kg", "mass", 2.0, min=0.1, max=10.0),
        Var("gain", "parameter", "tunable", "1", "force gain", 1.0, min=0.0, max=5.0),
        Var("F", "input", None, "N", "force", 0.0),
        Var("x", "output", None, "m", "position", 0.0),
    )

    def _setup(self):
        self.q = np.zeros(2)
        self.values["x"] = 0.0

    def _advance(self, t, h):
        f = self.values["F"] * self.values["gain"]
        a = math.nan if f == 13.0 else f / self.values["m"]
        self.q += np.array([self.q[1] * h + 0.5 * a * h * h, a * h])
        self.values["x"] = float(self.q[0])

    def _state(self):
        return {"q": self.q.copy(), "note": ("ok", 1, None)}

    def _restore(self, state):
        self.q = state["q"]


def make(**params):
    s = Mass(instance_name="mass", resources=".")
    vr = {v.name: v.value_reference for v in s.vars.values()}
    for k, v in params.items():
        s.set_real([vr[k]], [v])
    s.setup_experiment(0.0)
    s.enter_initialization_mode()
    s.exit_initialization_mode()
    return s, vr


def errors(s):
    return [m.msg for m in s.log_queue if m.status == Fmi2Status.error]


def run(s, vr, t0, n, force=1.0):
    for k in range(n):
        s.set_real([vr["F"]], [force])
        assert s.do_step(t0 + k * 0.1, 0.1)
    return s.get_real([vr["x"]])[0]


def test_round_trip_is_bit_identical_and_plain_data():
    s, vr = make()
    run(s, vr, 0.0, 3)
    blob = Mass._fmu_state_to_bytes(s._get_fmu_state())
    assert blob.startswith(sf.MAGIC) and b"pickle" not in blob
    n_head = struct.unpack_from("<Q", blob, 20)[0]
    doc = json.loads(blob[28:28 + n_head])
    assert doc["header"]["fixed_parameters"] == {"m": 2.0} and doc["arrays"] == [{"dtype": "<f8", "shape": [2]}]
    x_ref = run(s, vr, 0.3, 3)
    other, _ = make()
    other._set_fmu_state(Mass._fmu_state_from_bytes(blob))
    assert run(other, vr, 0.3, 3) == x_ref


@pytest.mark.parametrize("mutate, words", [
    (lambda b: b[:-3], "payload has"),
    (lambda b: b"XX" + b[2:], "wrong magic"),
    (lambda b: b[:16] + struct.pack("<I", 99) + b[20:], "version 99"),
    (lambda b: b.replace(b'"shape":[2]', b'"shape":[3]'), "payload has"),
    (lambda b: b.replace(b'"$array":0', b'"$array":5'), "malformed array reference"),
])
def test_damaged_bytes_are_refused(mutate, words):
    s, vr = make()
    run(s, vr, 0.0, 2)
    blob = mutate(Mass._fmu_state_to_bytes(s._get_fmu_state()))
    s._set_fmu_state(Mass._fmu_state_from_bytes(blob))
    assert words in errors(s)[-1] and "could not be read" in errors(s)[-1]
    assert s.do_step(0.2, 0.1) is False and "instance failed" in errors(s)[-1]


def _edited(blob, edit):
    state = sf.load(blob)
    edit(state)
    return sf.dump(state)


@pytest.mark.parametrize("edit, words", [
    (lambda st: st.header.update(guid="00000000-0000-0000-0000-000000000000"), "another build"),
    (lambda st: st.header["fixed_parameters"].update(m=3.0), "other parameter values (m = 3.0 in the state"),
    (lambda st: st.arrays.__setitem__(0, np.zeros(3)), "model.q: array float64[3] where float64[2]"),
    (lambda st: st.arrays.__setitem__(0, np.array([math.nan, 0.0])), "NaN or infinite"),
    (lambda st: st.tree.update(extra=1), "other entries than expected"),
    (lambda st: st.header["values"].update(x=math.inf), "variable 'x'"),
    (lambda st: st.header["values"].update(F="1"), "variable 'F'"),
])
def test_states_that_do_not_fit_are_refused(edit, words):
    s, vr = make()
    run(s, vr, 0.0, 2)
    blob = _edited(Mass._fmu_state_to_bytes(s._get_fmu_state()), edit)
    x = s.get_real([vr["x"]])[0]
    s._set_fmu_state(Mass._fmu_state_from_bytes(blob))
    assert words in errors(s)[-1], errors(s)[-1]
    assert s.get_real([vr["x"]])[0] == x                          # nothing was restored
    assert s.do_step(0.2, 0.1) is False


def test_state_from_an_instance_with_other_fixed_parameters_is_refused():
    a, vr = make(m=3.0)
    run(a, vr, 0.0, 2)
    b, _ = make()
    b._set_fmu_state(a._get_fmu_state())
    assert "other parameter values (m = 3.0 in the state, 2.0 here)" in errors(b)[-1]
    assert b.do_step(0.0, 0.1) is False


def test_tunable_parameters_come_back_with_the_state():
    s, vr = make()
    saved = s._get_fmu_state()
    s.set_real([vr["gain"]], [4.0])
    run(s, vr, 0.0, 1)
    s._set_fmu_state(saved)
    assert s.values["gain"] == 1.0 and s.get_real([vr["x"]]) == [0.0]


def test_nan_state_discards_and_keeps_refusing_until_a_state_is_restored():
    s, vr = make()
    run(s, vr, 0.0, 2)
    saved = s._get_fmu_state()
    x = s.get_real([vr["x"]])[0]
    s.set_real([vr["F"]], [13.0])
    assert s.do_step(0.2, 0.1) is False and "output 'x' became nan" in errors(s)[-1]
    assert s.get_real([vr["x"]])[0] == x                          # the outputs at the step start, not NaN
    s.set_real([vr["F"]], [1.0])
    assert s.do_step(0.2, 0.1) is False and "instance failed" in errors(s)[-1]
    s._set_fmu_state(saved)
    assert s.do_step(0.2, 0.1) and math.isfinite(s.get_real([vr["x"]])[0])


def test_serializers_never_raise():
    assert isinstance(Mass._fmu_state_from_bytes(b""), sf.RejectedState)
    assert isinstance(Mass._fmu_state_from_bytes(sf.MAGIC + b"\x01\x00\x00\x00" + b"\xff" * 8), sf.RejectedState)
    assert Mass._fmu_state_to_bytes(None) == b""
    assert Mass._fmu_state_to_bytes(object()) == b""
