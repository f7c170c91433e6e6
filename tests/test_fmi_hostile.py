"""Misuse of every FMU through FMPy, one fresh process per FMU running every case of this module on a fresh
instance each (harness: fmu_harness.py, ``CaseBatches``; ``_plan`` lists the cases).

Each case checks the FMI statuses returned, a logged message naming the variable, parameter or file (the
messages logged while that case ran), that no NaN is published with status OK, and that the process exits 0
after terminate/freeInstance of every instance and a garbage collection (a failed process fails every case of
its FMU). No call returns fmi2Fatal; refused parameters make fmi2ExitInitializationMode return fmi2Error.

No case here depends on being the first use of its FMU in a process, so none runs alone: a state is read
without pickle (``fmu_vehicle.fmi.state_format``), the crafted pickle's marker file is that case's own, every
case makes its own instances, and what a process does once (the warning that the model is compiled in this
process, the package's cached default resources) is logged below Error or holds no file a case passes.
"""
import json
import math
import pickle

import pytest

from fmu_lists import HARNESS_FMUS
from fmu_harness import CaseBatches

OK, DISCARD, ERROR, FATAL = 0, 2, 3, 4
pytestmark = pytest.mark.slow


def _outputs_finite(r):
    return all(math.isfinite(x) for x in r["reals"].values())


def _run(hostile, name, case, **args):
    r = hostile.result(name, case, **args)
    assert FATAL not in r["statuses"], r
    assert _outputs_finite(r), r["reals"]
    return r


@pytest.mark.parametrize("name", HARNESS_FMUS)
def test_unknown_value_reference_gives_nan_and_one_refused_step(hostile, name):
    r = _run(hostile, name, "unknown_reference")
    assert r["statuses"] == [OK, DISCARD, OK]
    assert math.isnan(r["extra"]["value"])
    assert any("value reference 9999 is not a variable" in m for m in r["errors"])


@pytest.mark.parametrize("name", HARNESS_FMUS)
def test_wrong_type_reference_is_refused_naming_the_variable(hostile, name):
    r = _run(hostile, name, "wrong_type_reference")
    assert r["statuses"] == [OK, OK, OK, DISCARD, OK]
    assert math.isnan(r["extra"]["value"])
    assert any(f"'{r['extra']['name']}'" in m and "not a Real" in m for m in r["errors"])


#: FMUs with a String or Enumeration parameter (the text cases need one; ChassisControl has Real and Boolean
#: parameters only)
WITH_TEXT = [n for n in HARNESS_FMUS if n != "ChassisControl"]
NO_INPUTS = ("LeadVehicle", "Robot")
"""FMUs whose outputs follow their parameters and time only."""
EXACT = ("LeadVehicle", "Robot", "ChassisControl")
"""FMUs without internal steps (exact solutions over any step: the lead's motion, the robot's tables, the brake
pressures' lag under held valve commands), which take a huge communication step."""
#: (FMU, fixed parameter, another value): a state saved with that value, restored into a default instance
OTHER_PARAMETERS = [
    ("VehicleLV", "chassis.mass", 1500.0), ("VehicleLV", "dt", 5e-4), ("Powertrain", "step_size", 5e-4),
    ("Tire", "dt", 5e-4), ("Controller", "vehicle.mass", 1800.0), ("LeadVehicle", "x0", 10.0),
    ("Driver", "sample_period", 0.02), ("Vehicle", "chassis.mass", 2000.0),
]
#: (FMU, start values, words of the Error that initialization logs)
INVALID_STARTS = [
    ("VehicleLV", {"v0": -1.0}, ["parameter 'v0'", "below min"]),
    ("VehicleLV", {"dt": 0.0}, ["parameter 'dt'", "below min"]),
    ("VehicleLV", {"model": "truck"}, ["parameter 'model'", "truck"]),
    ("VehicleLV", {"road_file": "/etc/passwd"}, ["parameter 'road_file'", "outside the FMU resources"]),
    ("VehicleLV", {"road_file": "../../../../etc/hosts.json"}, ["parameter 'road_file'", "outside the FMU resources"]),
    ("Tire", {"tire_file": "/etc/passwd"}, ["parameter 'tire_file'", "outside the FMU resources"]),
    ("Tire", {"road_file": "/etc/passwd"}, ["parameter 'road_file'", "outside the FMU resources"]),
    ("Powertrain", {"powertrain_file": "../../../../etc/passwd"},
     ["parameter 'powertrain_file'", "outside the FMU resources"]),
    ("Driver", {"path_file": "/etc/passwd"}, ["parameter 'path_file'", "outside the FMU resources"]),
    ("Driver", {"driver_file": "../../../../etc/passwd.json"},
     ["parameter 'driver_file'", "outside the FMU resources"]),
]
CRAFTED_PICKLE = ("Powertrain", "VehicleLV")
"""FMUs given a pickle that would touch a marker file if it were unpickled."""
GARBAGE = b"\x00garbage" * 50
"""Bytes that are no FMU state."""


def _exploit(marker):
    """A pickle whose loading runs ``touch marker``."""
    class Exploit:
        def __reduce__(self):
            import os
            return (os.system, (f"touch {marker}",))

    return pickle.dumps(Exploit())


def _secret_file(folder):
    """A JSON file outside the FMU's resources holding a token that no message may quote."""
    secret = folder / "secret.json"
    secret.write_text(json.dumps({"type": "flat", "token": "s3cr3t-T0KEN"}))
    return secret


def _secret_start(secret):
    return {"powertrain_file": str(secret), "allow_external_files": True}


def _plan(name, folder):
    """The (case, args) pairs the tests below ask of FMU ``name``, all run in one process (``CaseBatches``);
    files they use go into ``folder``."""
    cases = [(case, {}) for case in ("unknown_reference", "wrong_type_reference", "huge_input", "huge_step",
                                     "time_mismatch", "setup_after_init", "fixed_after_init")]
    cases.append(("garbage_state", {"blob": GARBAGE}))
    if name in WITH_TEXT:
        cases += [("non_utf8_string", {}), ("huge_string", {})]
    if name in CRAFTED_PICKLE:
        marker = folder / "pwned"
        cases.append(("garbage_state", {"blob": _exploit(marker), "marker": str(marker)}))
    cases += [("other_parameters", {"parameter": parameter, "value": value})
              for fmu, parameter, value in OTHER_PARAMETERS if fmu == name]
    cases += [("start_values", {"start": start}) for fmu, start, _words in INVALID_STARTS if fmu == name]
    if name == "Powertrain":
        cases.append(("start_values", {"start": _secret_start(_secret_file(folder))}))
    return cases


@pytest.fixture(scope="module")
def hostile(all_fmus, tmp_path_factory):
    """Results of the cases of ``_plan``: one child process per FMU, started by its first test."""
    return CaseBatches(all_fmus, _plan, tmp_path_factory)


@pytest.mark.parametrize("name", WITH_TEXT)
def test_non_utf8_string_is_refused_and_initialization_fails(hostile, name):
    r = _run(hostile, name, "non_utf8_string")
    assert r["statuses"] == [OK, OK, ERROR, DISCARD]          # setString, enter, exitInitializationMode, step
    assert any(f"'{r['extra']['name']}'" in m and "UTF-8" in m for m in r["errors"])


@pytest.mark.parametrize("name", WITH_TEXT)
def test_a_1mb_string_is_not_echoed(hostile, name):
    r = _run(hostile, name, "huge_string")
    assert r["statuses"][-1] == DISCARD
    assert r["errors"] and all(len(m) < 3000 for m in r["errors"])
    assert any(f"'{r['extra']['name']}'" in m for m in r["errors"])
    assert not any("Traceback" in m for m in r["errors"])


@pytest.mark.parametrize("name", HARNESS_FMUS)
def test_garbage_state_bytes_are_refused(hostile, name):
    r = _run(hostile, name, "garbage_state", blob=GARBAGE)
    assert r["statuses"] == [OK, OK, DISCARD, DISCARD]          # failed until a valid state is set
    assert any("could not be read" in m for m in r["errors"])


@pytest.mark.parametrize("name", CRAFTED_PICKLE)
def test_crafted_pickle_state_runs_nothing(hostile, name):
    marker = hostile.folder(name) / "pwned"
    r = _run(hostile, name, "garbage_state", blob=_exploit(marker), marker=str(marker))
    assert not marker.exists() and r["extra"]["marker_exists"] is False
    assert r["statuses"] == [OK, OK, DISCARD, DISCARD]
    assert any("not an fmu_vehicle FMU state" in m for m in r["errors"])


@pytest.mark.parametrize("name", HARNESS_FMUS)
def test_huge_finite_inputs_are_refused_and_never_give_nan(hostile, name):
    r = _run(hostile, name, "huge_input")       # per input: set 1e300, step, set back; step
    n = (len(r["statuses"]) - 1) // 3
    assert r["statuses"] == [OK, DISCARD, OK] * n + [OK]
    assert sum("above max" in m for m in r["errors"]) == n
    assert n > 0 or name in NO_INPUTS


@pytest.mark.parametrize("name", HARNESS_FMUS)
def test_huge_communication_step_returns_promptly(hostile, name):
    r = _run(hostile, name, "huge_step")
    if name in EXACT:                    # exact solution, no internal steps: the step is taken
        assert r["statuses"] == [OK]
    else:
        assert r["statuses"] == [DISCARD]
        assert any("internal steps" in m for m in r["errors"])


@pytest.mark.parametrize("name", HARNESS_FMUS)
def test_communication_point_must_match_the_fmu_time(hostile, name):
    r = _run(hostile, name, "time_mismatch")
    assert r["statuses"] == [OK, DISCARD, OK]
    assert any("does not match the FMU's time" in m for m in r["errors"])


@pytest.mark.parametrize("name", HARNESS_FMUS)
def test_setup_experiment_after_initialization_is_refused_and_the_time_stays(hostile, name):
    """fmi2SetupExperiment(startTime = 5 s) after a first step: the wrapper can only return OK for it, so it is
    ignored with an error naming the call, the next doStep is refused once, and the FMU's time stays 1 ms (a
    step from 1 ms is taken, one from 5 s refused)."""
    r = _run(hostile, name, "setup_after_init")
    assert r["statuses"] == [OK, OK, DISCARD, OK, DISCARD]
    assert any("fmi2SetupExperiment(startTime=5.0) after initialization" in m for m in r["errors"]), r["errors"]
    assert any("does not match the FMU's time 0.002" in m for m in r["errors"]), r["errors"]


@pytest.mark.parametrize("name", HARNESS_FMUS)
def test_fixed_parameter_cannot_be_set_after_initialization(hostile, name):
    r = _run(hostile, name, "fixed_after_init")
    assert r["statuses"] == [OK, DISCARD, OK]
    assert any(f"fixed parameter '{r['extra']['name']}'" in m for m in r["errors"])


@pytest.mark.parametrize("name, parameter, value", OTHER_PARAMETERS)
def test_state_from_other_parameters_is_refused(hostile, name, parameter, value):
    r = _run(hostile, name, "other_parameters", parameter=parameter, value=value)
    assert r["statuses"] == [OK, OK, DISCARD]                  # other's step, setFMUstate, step
    assert any("other parameter values" in m and parameter in m for m in r["errors"])
    assert r["extra"]["value_after"] != value                 # the instance kept its own parameters


@pytest.mark.parametrize("name, start, words", INVALID_STARTS)
def test_invalid_parameters_fail_initialization_with_a_message(hostile, name, start, words):
    r = _run(hostile, name, "start_values", start=start)
    assert r["statuses"] == [OK, ERROR, DISCARD, DISCARD]     # enter, exitInitializationMode, two steps
    for word in words:
        assert any(word in m for m in r["errors"]), r["errors"]
    assert not any("root:" in m for m in r["errors"])         # nothing of /etc/passwd


def test_allowed_outside_file_errors_do_not_quote_its_content(hostile):
    secret = _secret_file(hostile.folder("Powertrain"))
    r = _run(hostile, "Powertrain", "start_values", start=_secret_start(secret))
    assert r["statuses"] == [OK, ERROR, DISCARD, DISCARD]
    assert any("secret.json" in m for m in r["errors"])
    assert not any("s3cr3t" in m for m in r["errors"]), r["errors"]
