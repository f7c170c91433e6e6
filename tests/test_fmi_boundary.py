"""Bad input at the FMI boundary (FMPy low-level API in a child process): Error/Discard with a logged
message naming the variable, no crash, terminate/freeInstance still work."""
import pytest

try:
    from test_fmi_support import companion_fmus, run_child  # noqa: F401
except ImportError:
    from .test_fmi_support import companion_fmus, run_child  # noqa: F401

CHILD = """
res = {}
def last_error():
    errors = [m for s, m in MESSAGES if s >= 3]
    return errors[-1] if errors else None

def case(name, fmu, start=None, actions=()):
    MESSAGES.clear()
    f = fmu.new(name, start=start)
    statuses, terminated = [], []
    t = 0.0
    for act in actions:
        if act[0] == 'set':
            kind, key, value = act[1], act[2], act[3]
            getattr(f, 'set' + kind)([fmu.vr[key]], [value])
        elif act[0] == 'step':
            st = do_step(f, act[1], act[2])
            statuses.append(st)
            terminated.append(bool(f.getBooleanStatus(fmi2Terminated)) if st == 2 else False)
        elif act[0] == 'terminate':
            f.terminate()
    if not any(a[0] == 'terminate' for a in actions):
        f.terminate()
    f.freeInstance()
    res[name] = dict(statuses=statuses, terminated=terminated, message=last_error(),
                     messages=[m for _, m in MESSAGES])

pt, ctl, lead = Fmu(INPUTS['Powertrain']), Fmu(INPUTS['Controller']), Fmu(INPUTS['LeadVehicle'])
case('nan_input', pt, actions=[('step', 0.0, 1e-3), ('set', 'Real', 'throttle', math.nan), ('step', 1e-3, 1e-3),
                               ('set', 'Real', 'throttle', 0.5), ('step', 1e-3, 1e-3)])
case('inf_input', pt, actions=[('set', 'Real', 'wheel_left.omega', -math.inf), ('step', 0.0, 1e-3)])
case('input_range', pt, actions=[('set', 'Real', 'throttle', 1.5), ('step', 0.0, 1e-3)])
case('zero_step', pt, actions=[('step', 0.0, 0.0), ('step', 0.0, -1e-3), ('step', 0.0, math.nan), ('step', 0.0, 1e-3)])
case('after_terminate', pt, actions=[('step', 0.0, 1e-3), ('terminate',), ('step', 1e-3, 1e-3)])
case('inf_parameter', pt, start={'step_size': math.inf}, actions=[('step', 0.0, 1e-3), ('step', 1e-3, 1e-3)])
case('parameter_range', pt, start={'step_size': 0.5}, actions=[('step', 0.0, 1e-3)])
case('missing_file', pt, start={'powertrain_file': 'powertrain/none.json'}, actions=[('step', 0.0, 1e-3)])
case('unknown_mode', ctl, start={'mode': 'autopilot'}, actions=[('step', 0.0, 1e-3)])
case('bad_profile', lead, start={'speed_profile': '0:20,5:x'}, actions=[('step', 0.0, 1e-3)])
case('set_output', ctl, actions=[('set', 'Real', 'throttle', 0.3), ('step', 0.0, 1e-3), ('step', 0.0, 1e-3)])
case('fixed_after_init', ctl, actions=[('set', 'Real', 'sample_period', 0.02), ('step', 0.0, 1e-3)])
case('tunable_range', ctl, actions=[('set', 'Real', 'acc.time_gap', 50.0), ('step', 0.0, 1e-3),
                                    ('set', 'Real', 'acc.time_gap', 2.0), ('step', 0.0, 1e-3)])
case('percent_in_message', lead, start={'speed_profile': '0:20%'}, actions=[('step', 0.0, 1e-3)])
RESULT = res
"""


@pytest.fixture(scope="module")
def results(companion_fmus, tmp_path_factory):
    return run_child(CHILD, tmp_path_factory.mktemp("boundary"), **{k: str(v) for k, v in companion_fmus.items()})


DISCARD = 2


@pytest.mark.parametrize("case, statuses, words", [
    ("nan_input", [0, DISCARD, 0], ["input 'throttle'", "nan"]),
    ("inf_input", [DISCARD], ["input 'wheel_left.omega'", "-inf"]),
    ("input_range", [DISCARD], ["input 'throttle'", "above max 1.0"]),
    ("zero_step", [DISCARD, DISCARD, DISCARD, 0], ["step size"]),
    ("after_terminate", [0, DISCARD], ["after terminate"]),
    ("inf_parameter", [DISCARD, DISCARD], ["parameter 'step_size'", "inf is not finite"]),
    ("parameter_range", [DISCARD], ["parameter 'step_size'", "above max 0.01"]),
    ("missing_file", [DISCARD], ["parameter 'powertrain_file'", "none.json"]),
    ("unknown_mode", [DISCARD], ["parameter 'mode'", "autopilot"]),
    ("bad_profile", [DISCARD], ["parameter 'speed_profile'", "entry 2"]),
    ("set_output", [DISCARD, 0], ["'throttle' is an output"]),
    ("fixed_after_init", [DISCARD], ["fixed parameter 'sample_period'"]),
    ("tunable_range", [DISCARD, 0], ["tunable parameter 'acc.time_gap'", "above max"]),
    ("percent_in_message", [DISCARD], ["parameter 'speed_profile'", "20%"]),
])
def test_bad_input_is_refused_with_a_message_naming_the_variable(results, case, statuses, words):
    r = results[case]
    assert r["statuses"] == statuses                      # FMPy raised FMICallException(status=2) on discard
    assert all(r["terminated"][i] for i, s in enumerate(statuses) if s == DISCARD)
    assert r["message"] is not None
    for word in words:
        assert word in r["message"], r["messages"]        # terminate/freeInstance ran after it (no crash)


def test_initialization_errors_are_logged_as_fmi2error_during_exit_initialization(results):
    # the message is delivered by exitInitializationMode (status 3) and repeated by every refused doStep
    msgs = results["inf_parameter"]["messages"]
    assert sum("parameter 'step_size'" in m for m in msgs) == 3
