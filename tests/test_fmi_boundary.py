"""Bad input at the FMI boundary (FMPy low-level API in a child process): Error/Discard with a logged
message naming the variable, no crash, terminate/freeInstance still work."""
import pytest

from fmu_cases import BAD_INPUT_HARNESS, DISCARD, assert_refused
from fmi_support import run_child

CHILD = """
pt, ctl, lead = Fmu(INPUTS['Powertrain']), Fmu(INPUTS['Controller']), Fmu(INPUTS['LeadVehicle'])
case(pt, 'nan_input', actions=[('step', 0.0, 1e-3), ('set', 'Real', 'throttle', math.nan), ('step', 1e-3, 1e-3),
                               ('set', 'Real', 'throttle', 0.5), ('step', 1e-3, 1e-3)])
case(pt, 'inf_input', actions=[('set', 'Real', 'wheel_left.omega', -math.inf), ('step', 0.0, 1e-3)])
case(pt, 'input_range', actions=[('set', 'Real', 'throttle', 1.5), ('step', 0.0, 1e-3)])
case(pt, 'zero_step', actions=[('step', 0.0, 0.0), ('step', 0.0, -1e-3), ('step', 0.0, math.nan), ('step', 0.0, 1e-3)])
case(pt, 'after_terminate', actions=[('step', 0.0, 1e-3), ('terminate',), ('step', 1e-3, 1e-3)])
case(pt, 'inf_parameter', start={'step_size': math.inf}, actions=[('step', 0.0, 1e-3), ('step', 1e-3, 1e-3)])
case(pt, 'parameter_range', start={'step_size': 0.5}, actions=[('step', 0.0, 1e-3)])
case(pt, 'missing_file', start={'powertrain_file': 'powertrain/none.json'}, actions=[('step', 0.0, 1e-3)])
case(ctl, 'unknown_mode', start={'mode': 'autopilot'}, actions=[('step', 0.0, 1e-3)])
case(lead, 'bad_profile', start={'speed_profile_points': '0:20,5:x'}, actions=[('step', 0.0, 1e-3)])
case(ctl, 'set_output', actions=[('set', 'Real', 'throttle', 0.3), ('step', 0.0, 1e-3), ('step', 0.0, 1e-3)])
case(ctl, 'fixed_after_init', actions=[('set', 'Real', 'sample_period', 0.02), ('step', 0.0, 1e-3)])
case(ctl, 'tunable_range', actions=[('set', 'Real', 'acc.time_gap', 50.0), ('step', 0.0, 1e-3),
                                    ('set', 'Real', 'acc.time_gap', 2.0), ('step', 0.0, 1e-3)])
case(lead, 'percent_in_message', start={'speed_profile_points': '0:20%'}, actions=[('step', 0.0, 1e-3)])
RESULT = BAD
"""


@pytest.fixture(scope="module")
def results(companion_fmus, tmp_path_factory):
    return run_child(BAD_INPUT_HARNESS + CHILD, tmp_path_factory.mktemp("boundary"),
                     **{k: str(v) for k, v in companion_fmus.items()})


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
    ("bad_profile", [DISCARD], ["parameter 'speed_profile_points'", "entry 2"]),
    ("set_output", [DISCARD, 0], ["'throttle' is an output"]),
    ("fixed_after_init", [DISCARD], ["fixed parameter 'sample_period'"]),
    ("tunable_range", [DISCARD, 0], ["tunable parameter 'acc.time_gap'", "above max"]),
    ("percent_in_message", [DISCARD], ["parameter 'speed_profile_points'", "20%"]),
])
def test_bad_input_is_refused_with_a_message_naming_the_variable(results, case, statuses, words):
    assert_refused(results[case], statuses, words)     # terminate/freeInstance ran after it (no crash)


def test_initialization_errors_are_logged_as_fmi2error_during_exit_initialization(results):
    # the message is delivered by exitInitializationMode (status 3) and repeated by every refused doStep
    msgs = results["inf_parameter"]["messages"]
    assert sum("parameter 'step_size'" in m for m in msgs) == 3
