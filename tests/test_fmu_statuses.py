"""The statuses of the package's FMU binary (``fmu_vehicle/fmi/wrapper``) at the two places where pythonfmu's
binary could not be honest: refused parameters at fmi2ExitInitializationMode (fmi2Error with the message, and
``simulate_fmu`` raises) and ``fmi2Terminated`` after a refused step whose retry succeeded (false again), in
every FMU. One child process runs all of it through FMPy and must exit 0 (docs/fmu_robustness.md)."""
from __future__ import annotations

import pytest

from fmi_support import run_child

STATUSES = '''
from fmpy.fmi2 import fmi2Terminated
RESULT = {}
# 1. simulate_fmu with a start value the FMU refuses: it raises, and the FMU's message names the parameter
import io, contextlib
printed = io.StringIO()
MESSAGES.clear()
with contextlib.redirect_stdout(printed):
    try:
        simulate_fmu(INPUTS['fmus']['VehicleLV'], stop_time=0.01, output_interval=0.01, start_values={'v0': -1.0})
        RESULT['simulate'] = None
    except FMICallException as exc:
        RESULT['simulate'] = (exc.function, exc.status)
# the host's logger: FMPy's (it prints) or the prelude's, which FMPy's logger proxy may route it to
RESULT['simulate_log'] = printed.getvalue() + ''.join(f'[{s}] {m}' for s, m in MESSAGES)

# 2. two parameters that contradict each other: exitInitializationMode returns fmi2Error, naming both; the
#    instance then refuses every step and reports terminated, and is freed cleanly
fmu = Fmu(INPUTS['fmus']['Controller'])
MESSAGES.clear()
f = fmu.new('bad', init=False, start={'aeb.ttc_on': 3.0, 'aeb.ttc_off': 2.0})
f.enterInitializationMode()
try:
    f.exitInitializationMode(); RESULT['exit'] = 0
except FMICallException as exc:
    RESULT['exit'] = exc.status
RESULT['exit_messages'] = [m for s, m in MESSAGES if s >= 3]
RESULT['exit_step'] = do_step(f, 0.0, 0.01)
RESULT['exit_terminated'] = bool(f.getBooleanStatus(fmi2Terminated))
f.terminate(); f.freeInstance()

# 3. every FMU: a refused step (step size 0) reports terminated; after fmi2SetFMUstate the retry succeeds and
#    fmi2Terminated is false again
RESULT['retry'] = {}
for name, path in INPUTS['fmus'].items():
    fmu = Fmu(path)
    f = fmu.new(name)
    h = float(fmu.md.defaultExperiment.stepSize)
    state = f.getFMUstate()
    refused = do_step(f, 0.0, 0.0)
    after_refusal = bool(f.getBooleanStatus(fmi2Terminated))
    f.setFMUstate(state)
    retried = do_step(f, 0.0, h)
    RESULT['retry'][name] = (refused, after_refusal, retried, bool(f.getBooleanStatus(fmi2Terminated)))
    if name == 'VehicleLV':
        # a state the instance refuses leaves it unable to step: terminated without a refused step
        garbage = f.deSerializeFMUstate(b'not a state')
        f.setFMUstate(garbage)
        RESULT['garbage_terminated'] = bool(f.getBooleanStatus(fmi2Terminated))
        f.setFMUstate(state)
        RESULT['restored'] = (bool(f.getBooleanStatus(fmi2Terminated)), do_step(f, 0.0, h))
        f.freeFMUstate(garbage)
    f.freeFMUstate(state)
    f.terminate(); f.freeInstance()
'''


@pytest.fixture(scope="module")
def statuses(registered_fmus, tmp_path_factory):
    fmus = {name: str(registered_fmus[name]) for name in registered_fmus}
    return run_child(STATUSES, tmp_path_factory.mktemp("statuses"), fmus=fmus)


def test_refused_start_value_makes_simulate_fmu_raise(statuses):
    assert statuses["simulate"] == ("fmi2ExitInitializationMode", 3)
    log = statuses["simulate_log"]
    assert ("[ERROR]" in log or "[3]" in log) and "parameter 'v0'" in log and "below min 0.0" in log, log


def test_contradicting_parameters_fail_exit_initialization(statuses):
    assert statuses["exit"] == 3                       # fmi2Error, not OK
    assert any("aeb.ttc_on" in m and "aeb.ttc_off" in m for m in statuses["exit_messages"]), \
        statuses["exit_messages"]
    assert statuses["exit_step"] == 2 and statuses["exit_terminated"]


def test_terminated_is_false_after_a_successful_retry(statuses):
    from fmu_vehicle.fmi.registry import FMUS
    assert set(statuses["retry"]) == set(FMUS)
    for name, (refused, after_refusal, retried, after_retry) in statuses["retry"].items():
        assert (refused, after_refusal, retried, after_retry) == (2, True, 0, False), name
    assert statuses["garbage_terminated"] is True
    assert statuses["restored"] == (False, 0)
