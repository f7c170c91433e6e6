"""Every declared min/max of every FMU parameter is one the model runs at.

Each Real parameter with a declared range is set alone (the others at their start values; a pair that
constrains each other, ``fmu_ranges.PAIRS``, with its partner where the constraint holds) to both bounds
and to interior points, not symmetric about the middle (``fmu_ranges.sweep_values``); the FMU must
initialize (static equilibrium for the vehicles) and take 30 steps of 1 ms with finite outputs. The interior
points in-process through the slave classes (the same calls as the FMU binary makes: setupExperiment,
enter/exit initialization, doStep); the bounds through the built FMUs in FMPy, one instance reset and
re-initialized per value. A combination that breaks a constraint is refused naming both parameters.
"""
import pytest

from fmu_vehicle.fmi.vehicle_parameters import KINDS, MODEL_RANGES

from fmu_lists import HARNESS_FMUS
from fmu_ranges import PAIRS, SCRIPTS, cases, model_cases, ranged_parameters, run_slave, slave_class
from fmi_support import run_child

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("fmu", list(SCRIPTS))
def test_every_swept_parameter_value_initializes_and_runs_in_process(fmu):
    """The interior points (the bounds are the FMPy test's below)."""
    cls = slave_class(fmu)
    ranges = {v.name: (v.min, v.max) for v in ranged_parameters(cls)}
    failures = [f"{name} = {value:g}: {problem}" for name, value, values in cases(fmu, cls)
                if value not in ranges[name] and (problem := run_slave(cls, values)) is not None]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("model", KINDS["Vehicle"].models[1:])
def test_each_further_vehicle_model_runs_across_its_ranges_in_process(model):
    """Vehicle.fmu's other vehicle files (``model``): every ranged parameter swept over the model's own range
    (the declared one, or the narrower one of ``MODEL_RANGES``) initializes and runs."""
    cls = slave_class("Vehicle")
    failures = [f"{name} = {value:g}: {problem}" for name, value, values in model_cases(cls, model)
                if (problem := run_slave(cls, values)) is not None]
    assert not failures, "\n".join(failures)


def test_a_value_outside_a_models_own_range_is_refused_naming_parameter_and_model():
    """The mid-size car's front spring preload must be >= 0 (a negative one lowers its body out of the
    suspension travel): -5 kN is refused at initialization naming the parameter and the model, while the full car
    takes it; its wheel inertia 2.0 kg m^2 (fullcar14 has 2.3) breaks I1 + I2 >= I3 and is refused the same way."""
    cls = slave_class("Vehicle")
    assert MODEL_RANGES["midsize14"]["suspension_FL.spring_preload"][0] == 0.0
    for name, value in (("suspension_FL.spring_preload", -5000.0), ("wheel_RR.inertia_yy", 2.0)):
        problem = run_slave(cls, {"model": "midsize14", name: value})
        assert problem is not None and f"'{name}'" in problem and "'midsize14'" in problem, problem
        assert run_slave(cls, {name: value}) is None


BOUNDS_CHILD = '''
from fmpy.fmi1 import FMICallException
fmu = Fmu(INPUTS['fmu'])
f = fmu.new('bounds', init=False)
out = {}
for label, values in INPUTS['cases']:
    MESSAGES.clear()
    f.reset()
    f.setupExperiment(startTime=0.0)
    for k, v in values.items():
        f.setReal([fmu.vr[k]], [v])
    f.enterInitializationMode()
    f.exitInitializationMode()
    status = 0
    for k in range(INPUTS['steps']):
        try:
            f.doStep(k * 1e-3, 1e-3)
        except FMICallException as exc:
            status = int(exc.status)
            break
    out[label] = (status, [m for s, m in MESSAGES if s >= 3][-1:])
f.terminate()
f.freeInstance()
RESULT = out
'''


@pytest.mark.parametrize("fmu", HARNESS_FMUS)
def test_declared_parameter_bounds_initialize_and_run_through_fmpy(all_fmus, tmp_path, fmu):
    cls = slave_class(fmu)
    bounds = [(f"{name} = {value:g}", values) for name, value, values in cases(fmu, cls)
              if value in (next(v for v in ranged_parameters(cls) if v.name == name).min,
                           next(v for v in ranged_parameters(cls) if v.name == name).max)]
    assert len(bounds) == 2 * len(ranged_parameters(cls))
    result = run_child(BOUNDS_CHILD, tmp_path, fmu=str(all_fmus[fmu]), cases=bounds, steps=30)
    failures = {label: r for label, r in result.items() if r[0] != 0}
    assert not failures, failures


@pytest.mark.parametrize("lower, upper", PAIRS["Controller"])
def test_a_broken_constraint_between_two_parameters_names_both(lower, upper):
    """aeb.ttc_on = 3 s with aeb.ttc_off at its start value 2.5 s: each value is within its own range, the
    combination is refused at initialization with one message naming both parameters."""
    cls = slave_class("Controller")
    problem = run_slave(cls, {lower: 3.0})
    assert problem is not None and f"'{lower}' = 3.0" in problem and f"'{upper}' = 2.5" in problem, problem
    assert run_slave(cls, {lower: 3.0, upper: 3.5}) is None
