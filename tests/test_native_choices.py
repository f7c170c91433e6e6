"""The choices of the native vehicle FMUs (``model``, ``road``, ``road_source``, ``tire_source``,
``steering_input``, ``allow_external_files``) are settable until initialization ends, as in the pythonfmu FMU, and
give its numbers bit for bit: each choice set at run time, 0.1 s of steps with a drive torque, the outputs equal
to the Python FMU set the same way. A Real parameter set before or after a change of the road gives the same
run (the C layer holds the values set and applies them at initialization); a value outside the choices, a
vehicle the FMU does not carry and the user's road file are refused with a message naming the parameter and why.
An FMU state taken on one road restores into an instance on another, and steps on the first road. Each FMU's
cases run through FMPy in one child process (a crash there cannot take pytest down)."""
from __future__ import annotations

import json

import pytest

from native_probe import run_case_script

CASES_SCRIPT = """
import json, sys
from fmu_vehicle.numerics.jit import pin_portable_cpu
pin_portable_cpu()
from fmpy import calloc, extract, free, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE, fmi2CallbackFunctions,
                       fmi2CallbackLoggerTYPE, fmi2StepFinishedTYPE)
spec = json.loads(sys.argv[1])
md = read_model_description(spec["fmu"]); folder = extract(spec["fmu"])
vr = {v.name: v.valueReference for v in md.modelVariables}
items = {v.name: {i.name: int(i.value) for i in v.declaredType.items} for v in md.modelVariables
         if v.declaredType is not None and v.declaredType.items}
outs = [vr[n] for n in spec["outputs"]]
messages = []
callbacks = fmi2CallbackFunctions()
callbacks.logger = fmi2CallbackLoggerTYPE(lambda env, name, status, category, message:
                                          messages.append(message.decode()))
callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
callbacks.stepFinished = fmi2StepFinishedTYPE()


def put(fmu, name, value):
    if name in items:
        fmu.setInteger([vr[name]], [items[name][value] if isinstance(value, str) else value])
    elif isinstance(value, bool):
        fmu.setBoolean([vr[name]], [value])
    elif isinstance(value, str):
        fmu.setString([vr[name]], [value])
    else:
        fmu.setReal([vr[name]], [value])


for case in spec["cases"]:
    messages.clear()
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="case")
    fmu.instantiate(loggingOn=False, callbacks=callbacks)
    try:
        fmu.setupExperiment(startTime=0.0)
        for name, value in case["before"]:
            put(fmu, name, value)
        fmu.enterInitializationMode()
        for name, value in case.get("init", []):
            put(fmu, name, value)
        fmu.setReal([vr[spec["torque"]]], [spec["torque_value"]])
        fmu.exitInitializationMode()
        for i in range(spec["n_steps"]):
            fmu.doStep(i * 1e-3, 1e-3)
        if case.get("state"):            # a state taken here, restored into a fresh instance on another road
            state = fmu.serializeFMUstate(fmu.getFMUstate())
            for i in range(spec["n_steps"], 2 * spec["n_steps"]):
                fmu.doStep(i * 1e-3, 1e-3)
            result = [fmu.getReal(outs)]
            other = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier=md.coSimulation.modelIdentifier,
                              instanceName="other")
            other.instantiate(loggingOn=False, callbacks=callbacks)
            try:
                other.setupExperiment(startTime=0.0)
                put(other, "road", case["state"])
                other.enterInitializationMode(); other.exitInitializationMode()
                other.setFMUstate(other.deSerializeFMUstate(state))
                for i in range(spec["n_steps"], 2 * spec["n_steps"]):
                    other.doStep(i * 1e-3, 1e-3)
                result.append(other.getReal(outs))
                other.terminate()
            except FMICallException as e:
                result.append("refused: " + str(e))
            other.freeInstance()
        else:
            result = fmu.getReal(outs)
        fmu.terminate()
    except FMICallException as e:
        result = "refused: " + str(e) + ": " + " | ".join(messages)
    fmu.freeInstance()
    print("CASE," + json.dumps([case["name"], result]), flush=True)
"""

OUTPUTS = {"VehicleLV": ["chassis.x", "chassis.z", "chassis.pitch", "chassis.vx", "wheel_front.tire_fz",
                         "wheel_rear.tire_fx", "wheel_front.omega", "wheel_rear.travel"],
           "Vehicle": ["chassis.x", "chassis.y", "chassis.z", "chassis.roll", "chassis.pitch", "chassis.yaw",
                       "chassis.vx", "wheel_FL.tire_fz", "wheel_RR.tire_fx", "wheel_FR.omega", "wheel_RL.travel"]}
TORQUE = {"VehicleLV": "wheel_rear.torque_drive", "Vehicle": "wheel_RL.torque_drive"}
MASS = {"VehicleLV": 900.0, "Vehicle": 1500.0}
FRONT = {"VehicleLV": "wheel_front", "Vehicle": "wheel_FL"}
N_STEPS = 100


def cases(fmu: str) -> list[dict]:
    """The runs compared with the Python FMU: name, the sets before initialization (in order) and in it."""
    from fmu_vehicle.fmi.roads import SHIPPED_ROADS
    out = [{"name": "default", "before": []}]
    out += [{"name": f"road={road}", "before": [["road", road]]} for road in SHIPPED_ROADS[1:]]
    mass = ["chassis.mass", MASS[fmu]]
    out += [{"name": "mass, then road", "before": [mass, ["road", "flat"]]},
            {"name": "road, then mass", "before": [["road", "flat"], mass]},
            {"name": "road and mass in initialization mode", "before": [], "init": [["road", "flat"], mass]},
            {"name": "road_source=inputs", "before": [["road_source", "inputs"]],
             "init": [[f"{FRONT[fmu]}.road_height", 0.02]]},
            {"name": "tire_source=external", "before": [["tire_source", "external"]]},
            {"name": "allow_external_files", "before": [["allow_external_files", True]]},
            {"name": "state", "before": [["road", "split_mu"]], "state": "flat"}]
    if fmu == "Vehicle":
        out += [{"name": "model=midsize14", "before": [["model", "midsize14"]]},
                {"name": "model=midsize14 on flat, mass", "before": [["road", "flat"], mass, ["model", "midsize14"]]},
                {"name": "midsize14, mass at the start value (its own kept)",
                 "before": [["model", "midsize14"], ["chassis.mass", "start"]]},
                {"name": "midsize14, mass beyond its own range", "before": [["model", "midsize14"],
                                                                            ["chassis.mass", 5000.0]]},
                {"name": "steering_input=rack_travel", "before": [["steering_input", "rack_travel"],
                                                                  ["rack_travel_command", 0.01]]},
                {"name": "steering wheel angle", "before": [["steering_wheel_angle", 0.5]]}]
    return out


def run_cases(fmu_path, fmu: str, todo) -> dict:
    spec = {"fmu": str(fmu_path), "outputs": OUTPUTS[fmu], "cases": todo, "n_steps": N_STEPS,
            "torque": TORQUE[fmu], "torque_value": 200.0}
    return dict(run_case_script(CASES_SCRIPT, spec))


def _with_starts(todo, fmu):
    """``todo`` with the value "start" replaced by the parameter's start value (the first model's)."""
    from fmu_vehicle.fmi.vehicle_parameters import parameter_table
    from fmu_vehicle.fmi.vehicle_slave import vehicle_variables
    starts = {v.name: v.start for v in vehicle_variables(fmu, parameter_table(fmu, None))}
    return [{**c, "before": [[n, starts[n] if v == "start" else v] for n, v in c["before"]]} for c in todo]


@pytest.mark.parametrize("fmu", ["VehicleLV", "Vehicle"])
def test_every_choice_set_at_run_time_equals_the_python_fmu(fmu, native_fmus, all_fmus):
    todo = _with_starts(cases(fmu), fmu)
    ours = run_cases(native_fmus[fmu], fmu, todo)
    python = run_cases(all_fmus[fmu], fmu, todo)
    assert len(ours) == len(python) == len(todo)
    default = python["default"]
    for case in todo:
        name = case["name"]
        a, b = ours[name], python[name]
        if name == "state":                    # the Python FMU's state does not carry its road (restored on the
            a, b = a[0], b[0]                  # flat road it discards a step): the first instance only
        if isinstance(b, str):                 # the Python FMU refuses: so does the native one, saying why
            assert isinstance(a, str), (name, a, b)
            continue
        assert a == b, (name, a, b)            # bit for bit
        if not name.startswith("road=") and name not in ("default", "allow_external_files",
                                                          "midsize14, mass at the start value (its own kept)"):
            assert a != default, name          # the choice does change the run
    # the roads change the run (some only after the first 0.1 s: the flat road is the bumpy one's start)
    assert len({json.dumps(ours[c["name"]]) for c in todo if c["name"].startswith("road=")} - {json.dumps(default)}) >= 5
    assert ours["mass, then road"] == ours["road, then mass"] == ours["road and mass in initialization mode"]
    assert ours["allow_external_files"] == default
    # a state of split_mu restored into an instance on the flat road steps on split_mu: the same numbers
    first, restored = ours["state"]
    assert first == restored and first != python["road=split_mu"]
    if fmu == "Vehicle":
        assert isinstance(ours["midsize14, mass beyond its own range"], str)
        assert "parameter 'chassis.mass' = 5000 is outside [100, 4000] for model 'midsize14'" in \
            ours["midsize14, mass beyond its own range"]
        assert ours["midsize14, mass at the start value (its own kept)"] == ours["model=midsize14"]


def test_refusals_name_the_parameter_and_why(native_fmus):
    """A value outside the choices, a vehicle the build does not carry (its compiled step has other sizes), the
    road file (a user's file, read at export) and a choice after initialization are refused by name."""
    todo = [{"name": "road 11", "before": [["road", 11]]}, {"name": "road 0", "before": [["road", 0]]},
            {"name": "fork arm", "before": [["model", "halfcar7_forkarm"]]},
            {"name": "road file", "before": [["road_file", "my_road.json"]]},
            {"name": "road file unchanged", "before": [["road_file", ""], ["road", "flat"]]}]
    got = run_cases(native_fmus["VehicleLV"], "VehicleLV", todo)
    assert "11 is not an item value of parameter 'road' (1 to 10)" in got["road 11"]
    assert "0 is not an item value of parameter 'road' (1 to 10)" in got["road 0"]
    assert "parameter 'model' = 2: this native FMU does not carry that vehicle: its compiled step has other sizes " \
           "(n_coordinates 15, this build's 16)" in got["fork arm"]
    assert "parameter 'road_file' names a user's file, which this native FMU read at export" in got["road file"]
    assert not isinstance(got["road file unchanged"], str)
