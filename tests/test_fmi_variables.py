"""Var records: FMI causality/variability rules, units, value checks."""
import math

import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.variables import UNITS, Var, unit_exponents, var_table


def test_defaults_follow_fmi_rules():
    assert Var("k", "parameter", None, "N/m", "stiffness", 1.0).variability == "fixed"
    assert Var("u", "input", None, "N", "force", 0).variability == "continuous"
    assert Var("gear", "output", None, None, "gear", 1, type="Integer").variability == "discrete"
    assert Var("u", "input", None, "N", "force", 0).start == 0.0 and isinstance(Var("u", "input", None, "N", "", 0).start, float)


@pytest.mark.parametrize("kwargs, match", [
    (dict(name="k", causality="parameter", variability="continuous", unit="m", start=1.0), "fixed' or 'tunable"),
    (dict(name="g", causality="output", variability="continuous", start=1, type="Integer"), "discrete"),
    (dict(name="x", causality="output", start=0.0), "unit"),
    (dict(name="x", causality="output", unit="m/s", display_unit="mph", start=0.0), "display unit"),
    (dict(name="wheel[1].x", causality="output", unit="m", start=0.0), "name"),
    (dict(name="1x", causality="output", unit="m", start=0.0), "name"),
    (dict(name="a-b", causality="output", unit="m", start=0.0), "name"),
    (dict(name="x", causality="input", unit="m", start=5.0, max=1.0), "above max"),
    (dict(name="x", causality="input", unit="m", start=math.nan), "not finite"),
    (dict(name="x", causality="input", unit="m"), "start value is required"),
    (dict(name="m", causality="parameter", start="b", type="Enumeration", choices=("a",)), "not one of"),
    (dict(name="m", causality="parameter", start="a", type="String", choices=("a",)), "only an Enumeration"),
    (dict(name="m", causality="parameter", start="a", type="Enumeration"), "needs its choices"),
    (dict(name="m", causality="input", start="a", type="Enumeration", choices=("a",)), "must be a parameter"),
    (dict(name="m", causality="parameter", start="a", type="Enumeration", choices=("a", "a")), "distinct"),
    (dict(name="x", causality="local", unit="m", start=0.0), "causality"),
])
def test_invalid_declarations_name_the_variable(kwargs, match):
    with pytest.raises(ModelError, match=match) as info:
        Var(**kwargs)
    assert f"'{kwargs['name']}'" in str(info.value)


def test_check_values():
    v = Var("throttle", "input", None, "1", "pedal", 0.0, min=0.0, max=1.0)
    assert v.check(0.5) is None
    assert "not finite" in v.check(math.inf)
    assert "below min" in v.check(-0.1)
    assert "not a Real" in v.check("x")
    b = Var("on", "parameter", None, None, "", False, type="Boolean")
    assert b.check(True) is None


def test_units_table():
    assert UNITS["m/s"].display["km/h"] == 3.6
    assert UNITS["rad/s"].display["rpm"] == pytest.approx(60 / (2 * math.pi))
    assert UNITS["rad"].display["deg"] == pytest.approx(180 / math.pi)
    assert unit_exponents("N.m") == {"kg": 1, "m": 2, "s": -2}
    assert unit_exponents("1") == {}
    with pytest.raises(ModelError, match="declared twice"):
        var_table((Var("a", "input", None, "m", "", 0.0), Var("a", "output", None, "m", "", 0.0)))
