"""Misuse of every FMU through FMPy, one fresh process per case (harness: fmu_harness.py).

Each case checks the FMI statuses returned, a logged message naming the variable, parameter or file,
that no NaN is published with status OK, and that the process exits 0 after terminate/freeInstance
(a Python exception in the FMU would have released the instance: fmi2Fatal, then a crash).
"""
import json
import math
import pickle

import pytest

try:
    from fmu_harness import ALL_FMUS, all_fmus, run_case  # noqa: F401
except ImportError:      # pragma: no cover
    from .fmu_harness import ALL_FMUS, all_fmus, run_case  # noqa: F401

OK, DISCARD, FATAL = 0, 2, 4
pytestmark = pytest.mark.slow


def _outputs_finite(r):
    return all(math.isfinite(x) for x in r["reals"].values())


def _run(all_fmus, tmp_path, name, case, **args):
    r = run_case(all_fmus[name], case, tmp_path / f"{name}_{case}", **args)
    assert FATAL not in r["statuses"], r
    assert _outputs_finite(r), r["reals"]
    return r


@pytest.mark.parametrize("name", ALL_FMUS)
def test_unknown_value_reference_gives_nan_and_one_refused_step(all_fmus, tmp_path, name):
    r = _run(all_fmus, tmp_path, name, "unknown_reference")
    assert r["statuses"] == [OK, DISCARD, OK]
    assert math.isnan(r["extra"]["value"])
    assert any("value reference 9999 is not a variable" in m for m in r["errors"])


@pytest.mark.parametrize("name", ALL_FMUS)
def test_wrong_type_reference_is_refused_naming_the_variable(all_fmus, tmp_path, name):
    r = _run(all_fmus, tmp_path, name, "wrong_type_reference")
    assert r["statuses"] == [OK, OK, OK, DISCARD, OK]
    assert math.isnan(r["extra"]["value"])
    assert any(f"'{r['extra']['name']}'" in m and "not a Real" in m for m in r["errors"])


#: FMUs with a String or Enumeration parameter (the text cases need one; ChassisControl has Real and Boolean
#: parameters only)
WITH_TEXT = [n for n in ALL_FMUS if n != "ChassisControl"]
NO_INPUTS = ("LeadVehicle", "Robot")
"""FMUs whose outputs follow their parameters and time only."""
EXACT = ("LeadVehicle", "Robot", "ChassisControl")
"""FMUs without internal steps (exact solutions over any step: the lead's motion, the robot's tables, the brake
pressures' lag under held valve commands), which take a huge communication step."""


@pytest.mark.parametrize("name", WITH_TEXT)
def test_non_utf8_string_is_refused_and_initialization_fails(all_fmus, tmp_path, name):
    r = _run(all_fmus, tmp_path, name, "non_utf8_string")
    assert r["statuses"] == [OK, OK, OK, DISCARD]
    assert any(f"'{r['extra']['name']}'" in m and "UTF-8" in m for m in r["errors"])


@pytest.mark.parametrize("name", WITH_TEXT)
def test_a_1mb_string_is_not_echoed(all_fmus, tmp_path, name):
    r = _run(all_fmus, tmp_path, name, "huge_string")
    assert r["statuses"][-1] == DISCARD
    assert r["errors"] and all(len(m) < 3000 for m in r["errors"])
    assert any(f"'{r['extra']['name']}'" in m for m in r["errors"])
    assert not any("Traceback" in m for m in r["errors"])


@pytest.mark.parametrize("name", ALL_FMUS)
def test_garbage_state_bytes_are_refused(all_fmus, tmp_path, name):
    r = _run(all_fmus, tmp_path, name, "garbage_state", blob=b"\x00garbage" * 50)
    assert r["statuses"] == [OK, OK, DISCARD, DISCARD]          # failed until a valid state is set
    assert any("could not be read" in m for m in r["errors"])


@pytest.mark.parametrize("name", ["Powertrain", "VehicleLV"])
def test_crafted_pickle_state_runs_nothing(all_fmus, tmp_path, name):
    marker = tmp_path / "pwned"

    class Exploit:
        def __reduce__(self):
            import os
            return (os.system, (f"touch {marker}",))

    r = _run(all_fmus, tmp_path, name, "garbage_state", blob=pickle.dumps(Exploit()), marker=str(marker))
    assert not marker.exists() and r["extra"]["marker_exists"] is False
    assert r["statuses"] == [OK, OK, DISCARD, DISCARD]
    assert any("not an fmu_vehicle FMU state" in m for m in r["errors"])


@pytest.mark.parametrize("name", ALL_FMUS)
def test_huge_finite_inputs_are_refused_and_never_give_nan(all_fmus, tmp_path, name):
    r = _run(all_fmus, tmp_path, name, "huge_input")       # per input: set 1e300, step, set back; step
    n = (len(r["statuses"]) - 1) // 3
    assert r["statuses"] == [OK, DISCARD, OK] * n + [OK]
    assert sum("above max" in m for m in r["errors"]) == n
    assert n > 0 or name in NO_INPUTS


@pytest.mark.parametrize("name", ALL_FMUS)
def test_huge_communication_step_returns_promptly(all_fmus, tmp_path, name):
    r = _run(all_fmus, tmp_path, name, "huge_step")
    if name in EXACT:                    # exact solution, no internal steps: the step is taken
        assert r["statuses"] == [OK]
    else:
        assert r["statuses"] == [DISCARD]
        assert any("internal steps" in m for m in r["errors"])


@pytest.mark.parametrize("name", ALL_FMUS)
def test_communication_point_must_match_the_fmu_time(all_fmus, tmp_path, name):
    r = _run(all_fmus, tmp_path, name, "time_mismatch")
    assert r["statuses"] == [OK, DISCARD, OK]
    assert any("does not match the FMU's time" in m for m in r["errors"])


@pytest.mark.parametrize("name", ALL_FMUS)
def test_setup_experiment_after_initialization_is_refused_and_the_time_stays(all_fmus, tmp_path, name):
    """fmi2SetupExperiment(startTime = 5 s) after a first step: the wrapper can only return OK for it, so it is
    ignored with an error naming the call, the next doStep is refused once, and the FMU's time stays 1 ms (a
    step from 1 ms is taken, one from 5 s refused)."""
    r = _run(all_fmus, tmp_path, name, "setup_after_init")
    assert r["statuses"] == [OK, OK, DISCARD, OK, DISCARD]
    assert any("fmi2SetupExperiment(startTime=5.0) after initialization" in m for m in r["errors"]), r["errors"]
    assert any("does not match the FMU's time 0.002" in m for m in r["errors"]), r["errors"]


@pytest.mark.parametrize("name", ALL_FMUS)
def test_fixed_parameter_cannot_be_set_after_initialization(all_fmus, tmp_path, name):
    r = _run(all_fmus, tmp_path, name, "fixed_after_init")
    assert r["statuses"] == [OK, DISCARD, OK]
    assert any(f"fixed parameter '{r['extra']['name']}'" in m for m in r["errors"])


@pytest.mark.parametrize("name, parameter, value", [
    ("VehicleLV", "chassis.mass", 1500.0), ("VehicleLV", "dt", 5e-4), ("Powertrain", "step_size", 5e-4),
    ("Tire", "dt", 5e-4), ("Controller", "vehicle.mass", 1800.0), ("LeadVehicle", "x0", 10.0),
    ("Driver", "sample_period", 0.02), ("Vehicle", "chassis.mass", 2000.0),
])
def test_state_from_other_parameters_is_refused(all_fmus, tmp_path, name, parameter, value):
    r = _run(all_fmus, tmp_path, name, "other_parameters", parameter=parameter, value=value)
    assert r["statuses"] == [OK, OK, DISCARD]                  # other's step, setFMUstate, step
    assert any("other parameter values" in m and parameter in m for m in r["errors"])
    assert r["extra"]["value_after"] != value                 # the instance kept its own parameters


@pytest.mark.parametrize("name, start, words", [
    ("VehicleLV", {"v0": -1.0}, ["parameter 'v0'", "below min"]),
    ("VehicleLV", {"dt": 0.0}, ["parameter 'dt'", "below min"]),
    ("VehicleLV", {"model": "truck"}, ["parameter 'model'", "truck"]),
    ("VehicleLV", {"road_file": "/etc/passwd"}, ["parameter 'road_file'", "outside the FMU resources"]),
    ("VehicleLV", {"road_file": "../../../../etc/hosts.json"}, ["parameter 'road_file'", "outside the FMU resources"]),
    ("Tire", {"tire_file": "/etc/passwd"}, ["parameter 'tire_file'", "outside the FMU resources"]),
    ("Tire", {"road_file": "/etc/passwd"}, ["parameter 'road_file'", "outside the FMU resources"]),
    ("Powertrain", {"powertrain_file": "../../../../etc/passwd"},
     ["parameter 'powertrain_file'", "outside the FMU resources"]),
    ("Driver", {"path": "/etc/passwd"}, ["parameter 'path'", "outside the FMU resources"]),
    ("Driver", {"driver_file": "../../../../etc/passwd.json"},
     ["parameter 'driver_file'", "outside the FMU resources"]),
])
def test_invalid_parameters_fail_initialization_with_a_message(all_fmus, tmp_path, name, start, words):
    r = _run(all_fmus, tmp_path, name, "start_values", start=start)
    assert r["statuses"] == [OK, OK, DISCARD, DISCARD]
    for word in words:
        assert any(word in m for m in r["errors"]), r["errors"]
    assert not any("root:" in m for m in r["errors"])         # nothing of /etc/passwd


def test_allowed_outside_file_errors_do_not_quote_its_content(all_fmus, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"type": "flat", "token": "s3cr3t-T0KEN"}))
    r = _run(all_fmus, tmp_path, "Powertrain", "start_values",
             start={"powertrain_file": str(secret), "allow_external_files": True})
    assert r["statuses"] == [OK, OK, DISCARD, DISCARD]
    assert any("secret.json" in m for m in r["errors"])
    assert not any("s3cr3t" in m for m in r["errors"]), r["errors"]
