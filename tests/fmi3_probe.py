"""Drive a native FMI 3.0 FMU (``fmu_vehicle.native.fmu.export(fmi_version=3)``) through FMPy's ``FMU3Slave``: the
state round trip and the refusals of ``test_native_fmi3.py``, importable by a child process (FMPy, numpy and
pytest only: the sanitizer build's child loads no compiled model of the package)."""
from __future__ import annotations

import math
import shutil

import pytest
from fmpy import extract, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi3 import FMU3Slave


class Log:
    """An FMI 3.0 logger keeping (status, message) of every call."""

    def __init__(self):
        self.messages = []

    def __call__(self, env, status, category, message):
        self.messages.append((status, message.decode()))


def instance(path, log):
    """An FMU3Slave of the FMI 3.0 FMU ``path``, instantiated with ``log`` as its logger, and {name: value
    reference}."""
    md = read_model_description(str(path), validate=False)
    fmu = FMU3Slave(guid=md.guid, unzipDirectory=extract(str(path)), modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="probe")
    fmu.instantiate(logMessage=log)
    refs = {v.name: v.valueReference for v in md.modelVariables}
    return fmu, refs


def state_round_trip(path) -> None:
    """VehicleLV's FMI 3.0 FMU ``path``: a state got (and serialized) at 0.3 s and restored (directly, and
    deserialized) gives the next 0.2 s again to the last bit, the drive torque moving."""
    fmu, refs = instance(path, Log())
    names = ["chassis.x", "chassis.vx", "chassis.pitch", "wheel_front.omega", "wheel_rear.tire_fz"]
    vrs = [refs[n] for n in names]
    fmu.enterInitializationMode(startTime=0.0)
    fmu.exitInitializationMode()
    t, h = 0.0, 1e-3

    def run(n):
        nonlocal t
        rows = []
        for k in range(n):
            fmu.setFloat64([refs["wheel_front.torque_drive"]], [200.0 + 100.0 * math.sin(40.0 * t)])
            event, terminate, early, last = fmu.doStep(t, h)
            assert (event, terminate, early) == (False, False, False) and last == t + h
            t += h
            rows.append(fmu.getFloat64(vrs + [refs["time"]]))
        return rows

    run(300)
    saved = fmu.getFMUState()
    blob = fmu.serializeFMUState(saved)
    t0 = t
    first = run(200)
    assert first[-1][-1] == pytest.approx(0.5) and first[-1][0] > first[0][0] + 3.0      # time; it drove ~4 m
    fmu.setFMUState(saved)
    t = t0
    assert run(200) == first
    restored = fmu.deserializeFMUState(blob)
    fmu.setFMUState(restored)
    t = t0
    assert run(200) == first
    for state in (saved, restored):
        fmu.freeFMUState(state)
    fmu.terminate()
    fmu.freeInstance()
    shutil.rmtree(fmu.unzipDirectory, ignore_errors=True)


def refusals(path) -> None:
    """VehicleLV's FMI 3.0 FMU ``path``: each bad call returns fmi3Error and logs a message naming the variable
    (or the function); the instance then initializes at 2 s and steps."""
    log = Log()
    fmu, refs = instance(path, log)
    bad = [
        (lambda: fmu.setFloat64([refs["wheel_front.torque_drive"]], [math.nan]),
         "wheel_front.torque_drive = nan is not finite"),
        (lambda: fmu.setFloat64([refs["wheel_rear.torque_brake"]], [-5.0]),
         "wheel_rear.torque_brake = -5 is outside its range"),
        (lambda: fmu.setFloat64([refs["chassis.mass"]], [1e9]), "chassis.mass = 1e+09 is outside its range"),
        (lambda: fmu.setFloat64([refs["chassis.x"]], [1.0]), "fmi3SetFloat64: 'chassis.x' is an output"),
        (lambda: fmu.setFloat64([refs["time"]], [1.0]), "'time' is the independent variable"),
        (lambda: fmu.setFloat64([refs["model"]], [1.0]), "'model' (Enumeration), not a Float64 variable"),
        (lambda: fmu.setInt64([refs["model"]], [2]), "parameter 'model' = 2: this native FMU does not carry that vehicle"),
        (lambda: fmu.setInt64([refs["road"]], [1 << 40]), "'road' = 1099511627776 is not an item value"),
        (lambda: fmu.setInt32([refs["road"]], [1]), "'road' (Enumeration), not a Int32 variable"),
        (lambda: fmu.setInt64([refs["road"]], [11]), "11 is not an item value of parameter 'road'"),
        (lambda: fmu.setString([refs["road_file"]], ["my.csv"]), "parameter 'road_file' names a user's file"),
        (lambda: fmu.getFloat64([refs["road_file"]]), "'road_file' (String), not a Float64 variable"),
        (lambda: fmu.enterEventMode(), "fmi3EnterEventMode: not supported"),
    ]
    for call, message in bad:
        with pytest.raises(FMICallException) as info:
            call()
        assert info.value.status == 3, message                             # fmi3Error
        assert message in log.messages[-1][1] and log.messages[-1][0] == 3, (message, log.messages[-1])
    # the refused calls changed nothing: the own value of a fixed parameter is accepted, and the instance runs
    fmu.setInt64([refs["model"]], [1])
    fmu.setFloat64([refs["dt"]], [2e-3])
    fmu.enterInitializationMode(startTime=2.0)
    fmu.exitInitializationMode()
    assert fmu.getFloat64([refs["time"], refs["wheel_front.torque_drive"]]) == [2.0, 0.0]
    with pytest.raises(FMICallException):
        fmu.doStep(2.0, math.nan)
    assert "fmi3DoStep: communicationStepSize nan must be finite" in log.messages[-1][1]
    assert fmu.doStep(2.0, 0.01)[3] == 2.01
    fmu.terminate()
    fmu.freeInstance()
    shutil.rmtree(fmu.unzipDirectory, ignore_errors=True)
