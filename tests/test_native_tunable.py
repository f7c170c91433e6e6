"""Every Real parameter of the native vehicle FMUs is settable until initialization ends and gives the Python
FMU's numbers: each parameter alone at two values (its bounds where the vehicle has a static equilibrium there,
else points inside its range), 0.3 s of the bumpy road with a drive torque, the outputs equal to the pythonfmu
FMU set the same way, bit for bit, or both refuse. Each FMU's cases run in one child process per FMU (a crash
there cannot take pytest down). An FMU state carries the parameter values it was taken with, and a restored
state's parameter entries are checked (in range, equal to each other)."""
from __future__ import annotations

import numpy as np
import pytest

from fmu_vehicle.fmi.vehicle_parameters import parameter_table
from fmu_vehicle.fmi.vehicle_slave import vehicle_variables
from fmu_vehicle.native.fmu import OWN_KINDS
from native_probe import run_case_script

CASES_SCRIPT = """
import json, sys
from fmu_vehicle.numerics.jit import pin_portable_cpu
pin_portable_cpu()
from fmpy import extract, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave
spec = json.loads(sys.argv[1])
md = read_model_description(spec["fmu"]); folder = extract(spec["fmu"])
vr = {v.name: v.valueReference for v in md.modelVariables}
outs = [vr[n] for n in spec["outputs"]]
for name, value in spec["cases"]:
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="case")
    fmu.instantiate(loggingOn=False)
    try:
        fmu.setupExperiment(startTime=0.0)
        if name is not None:
            fmu.setReal([vr[name]], [value])
        fmu.enterInitializationMode()
        fmu.setReal([vr[spec["torque"]]], [spec["torque_value"]])
        fmu.exitInitializationMode()
        for i in range(spec["n_steps"]):
            fmu.doStep(i * 1e-3, 1e-3)
        result = fmu.getReal(outs)
        fmu.terminate()
    except FMICallException as e:
        result = "refused: " + str(e)
    fmu.freeInstance()
    print("CASE," + json.dumps([name, value, result]), flush=True)
"""

OUTPUTS = {"VehicleLV": ["chassis.x", "chassis.z", "chassis.pitch", "chassis.vx", "wheel_front.tire_fz",
                         "wheel_rear.tire_fx", "wheel_front.omega", "wheel_rear.travel"],
           "Vehicle": ["chassis.x", "chassis.y", "chassis.z", "chassis.roll", "chassis.pitch", "chassis.vx",
                       "wheel_FL.tire_fz", "wheel_RR.tire_fx", "wheel_FR.omega", "wheel_RL.travel"]}
TORQUE = {"VehicleLV": "wheel_rear.torque_drive", "Vehicle": "wheel_RL.torque_drive"}
N_STEPS = 300


def cases(fmu: str) -> list[tuple]:
    """(name, value) of every tunable parameter at its two bounds (the default run first: (None, None))."""
    out = [(None, None)]
    for v in vehicle_variables(fmu, parameter_table(fmu, None)):
        if v.causality == "parameter" and v.type == "Real" and v.name not in OWN_KINDS:
            out += [(v.name, float(v.min)), (v.name, float(v.max))]
    return out


def run_cases(fmu_path, fmu: str, todo) -> dict:
    spec = {"fmu": str(fmu_path), "outputs": OUTPUTS[fmu], "cases": todo, "n_steps": N_STEPS,
            "torque": TORQUE[fmu], "torque_value": 200.0}
    return {(name, value): result for name, value, result in run_case_script(CASES_SCRIPT, spec)}


@pytest.mark.slow
@pytest.mark.parametrize("fmu", ["VehicleLV", "Vehicle"])
def test_every_real_parameter_at_its_bounds_equals_the_python_fmu(fmu, native_fmus, all_fmus):
    todo = cases(fmu)
    assert len(todo) == {"VehicleLV": 29, "Vehicle": 51}[fmu]
    ours = run_cases(native_fmus[fmu], fmu, todo)
    python = run_cases(all_fmus[fmu], fmu, todo)
    assert len(ours) == len(python) == len(todo)
    default = np.array(python[(None, None)])
    ran = 0
    for case in ours:
        a, b = ours[case], python[case]
        if isinstance(b, str):               # the Python FMU refuses (no static equilibrium): so does the native one
            assert isinstance(a, str), (case, a, b)
            continue
        assert not isinstance(a, str), (case, a)
        assert a == b, (case, a, b)          # bit for bit
        if case[0] is not None:
            ran += 1
            assert not np.array_equal(np.array(b), default), case       # the parameter does change the run
    assert ran >= len(todo) - 1 - 6, ran       # at most a few bounds without an equilibrium


def test_a_state_carries_its_parameter_values_and_a_crafted_one_is_refused(native_fmus, tmp_path):
    """A state saved with chassis.mass = 1234.5 and the front wheel's spin inertia = 1.2345 (two entries of the
    model's arrays) restores them into an instance set otherwise, which then steps as the saved one did; a state
    whose mass entry is out of range, or whose two inertia entries disagree, is refused naming the parameter."""
    import struct

    from native_probe import extract, run_child, with_check
    info = extract(native_fmus["VehicleLV"], tmp_path / "lv")
    mass, inertia = {"chassis.mass": 1234.5}, {"wheel_front.inertia_yy": 1.2345}
    out = ["chassis.x", "chassis.z", "wheel_front.omega", "chassis.mass", "wheel_front.inertia_yy"]
    code, results, err = run_child([info], [
        ["init", 0, 0.0, {**mass, **inertia}], ["steps", 0, 0.0, 1e-3, 20], ["save", 0, "a"],
        ["state_bytes", 0, "a"], ["steps", 0, 0.02, 1e-3, 20], ["get", 0, out],
        ["init", 0, 0.0, {}], ["load", 0, "a"], ["get", 0, out], ["steps", 0, 0.02, 1e-3, 20], ["get", 0, out]])
    assert code == 0 and all(r["status"] == "OK" for r in results), (results, err)
    later, restored, again = results[5]["values"], results[8]["values"], results[10]["values"]
    assert restored[3:] == [1234.5, 1.2345] and again == later
    state = bytes.fromhex(results[3]["hex"])

    def crafted(value, new):            # the state with each 8-byte occurrence of value replaced by new, in turn
        word = struct.pack("<d", value)
        return [with_check(state[:k] + struct.pack("<d", new) + state[k + 8:]) for k in range(len(state) - 15)
                if state[k:k + 8] == word]

    out_of_range, disagree = crafted(1234.5, 1e6), crafted(1.2345, 1.5)   # the model's entries and the workspace's
    assert out_of_range and len(disagree) >= 2
    code, results, err = run_child([info], [["init", 0, 0.0, {}]] + [["load", 0, s.hex()]
                                                                     for s in out_of_range + disagree])
    assert code == 0, err
    messages = [r["messages"][0] if r["messages"] else "" for r in results[1:]]
    assert any("parameter 'chassis.mass' = 1e+06 is outside its range" in m for m in messages[:len(out_of_range)])
    assert any("parameter 'wheel_front.inertia_yy' has two values" in m for m in messages[len(out_of_range):])
