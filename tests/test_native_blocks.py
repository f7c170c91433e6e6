"""Native block FMUs (fmu_vehicle.native.block, c/fmi2_block.c): the LeadVehicle FMU with its kernels compiled to
machine code and the generic C FMI layer, against its pythonfmu twin (docs/native.md §10)."""
import contextlib
import math
import shutil
import subprocess
import zipfile

import numpy as np
import pytest

from fmu_vehicle.native import block

# the demo's ACC profile, fixed at export; x0 set in the run (a parameter the kernels read: settable)
EXPORT = {"speed_profile": "stop_and_go"}
RUN = {"x0": 12.5}


@pytest.fixture(scope="module")
def native_blocks(tmp_path_factory) -> dict:
    """name -> path of the native LeadVehicle (the demo's profile set at export), Powertrain and Controller
    (``native.block.export_many``: one child process compiles the three blocks' kernels), linux64 and win64 where
    mingw is installed."""
    out = tmp_path_factory.mktemp("native_blocks")
    platforms = ("linux64", *(("win64",) if shutil.which("x86_64-w64-mingw32-gcc") else ()))
    paths = block.export_many([("LeadVehicle", EXPORT), ("Powertrain", None), ("Controller", None)], out,
                              targets=platforms)
    return dict(zip(block.BLOCK_FMUS, paths))


def test_export_native_takes_the_block_fmus(native_blocks, tmp_path, capsys):
    """``fmu-vehicle export --native LeadVehicle --set ...`` writes the same FMU as ``native.block.export`` (its
    kernels' IR and objects cached by the fixture's build: seconds); --fmi-version 3 is refused by name."""
    from fmu_vehicle.cli import main
    command = ["export", "--native", "LeadVehicle", "--set", "speed_profile=stop_and_go", "--platform", "linux64",
               "--out", str(tmp_path)]
    assert main(command) == 0
    with zipfile.ZipFile(tmp_path / "LeadVehicle.fmu") as cli, zipfile.ZipFile(native_blocks["LeadVehicle"]) as ours:
        assert cli.read("modelDescription.xml") == ours.read("modelDescription.xml")
        assert cli.read("binaries/linux64/LeadVehicle.so") == ours.read("binaries/linux64/LeadVehicle.so")
    assert main([*command, "--fmi-version", "3"]) != 0
    assert "LeadVehicle: the native block FMUs are FMI 2.0 only" in capsys.readouterr().err


@pytest.fixture(scope="module")
def native_lead(native_blocks):
    return native_blocks["LeadVehicle"]


def _item(fmu, name, option) -> int:
    from fmpy import read_model_description
    var = next(v for v in read_model_description(str(fmu)).modelVariables if v.name == name)
    return next(int(i.value) for i in var.declaredType.items if i.name == option)


def test_the_native_lead_vehicle_equals_the_python_fmu_bit_for_bit(native_lead, companion_fmus):
    """32 s of the stop-and-go profile from the start time 0.3 s with x0 = 12.5 m (the export's 50 m changed
    before initialization), 10 ms steps: every output of every step equal to the pythonfmu FMU's; the end position
    is x0 plus the profile's area (64 + 80 + 51.2 m)."""
    from fmpy import simulate_fmu
    python = companion_fmus["LeadVehicle"]
    start = {**RUN, "speed_profile": _item(python, "speed_profile", EXPORT["speed_profile"])}
    kw = dict(start_time=0.3, stop_time=32.0, output_interval=1e-2, start_values=start)
    reference = simulate_fmu(str(python), **kw)
    native = simulate_fmu(str(native_lead), **kw)
    assert len(native) == len(reference) == 3171
    for name in ("x", "vx", "ax"):
        assert np.array_equal(native[name], reference[name]), name
    assert native["x"][-1] == pytest.approx(12.5 + 195.2, abs=1e-9) and native["vx"].max() == 16.0


@pytest.mark.parametrize("name", block.BLOCK_FMUS)
def test_the_library_exports_fmi2_only_links_the_c_runtime_and_validates(native_blocks, name, tmp_path):
    from fmpy.validation import validate_fmu
    fmu = native_blocks[name]
    assert validate_fmu(str(fmu)) == []
    with zipfile.ZipFile(fmu) as z:
        z.extractall(tmp_path)
    lib = tmp_path / "binaries" / "linux64" / f"{name}.so"
    defined = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True,
                             check=True).stdout.split("\n")
    symbols = {line.split()[-1] for line in defined if line.strip()}
    assert symbols and all(s.startswith("fmi2") for s in symbols), sorted(s for s in symbols if s[:4] != "fmi2")
    needed = subprocess.run(["objdump", "-p", str(lib)], capture_output=True, text=True, check=True).stdout
    libraries = {line.split()[-1] for line in needed.splitlines() if "NEEDED" in line}
    assert libraries <= {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"}, libraries    # the C runtime only


@pytest.mark.parametrize("name", block.BLOCK_FMUS)
def test_the_model_description_is_the_python_fmus(native_blocks, name, companion_fmus):
    """Names, value references, causality, variability, types, units, ranges, enumerations and the ModelStructure
    (Outputs and InitialUnknowns) as in the pythonfmu FMU; the start values are the export's."""
    from fmpy import read_model_description
    native, python = (read_model_description(str(p)) for p in (native_blocks[name], companion_fmus[name]))

    def table(md):
        return [(v.name, v.valueReference, v.causality, v.variability, v.type, v.unit, v.min, v.max,
                 v.declaredType.name if v.declaredType else None) for v in md.modelVariables]

    assert table(native) == table(python)
    for unknowns in ("outputs", "initialUnknowns"):
        assert [(u.variable.name, [d.name for d in u.dependencies or ()]) for u in getattr(native, unknowns)] == \
            [(u.variable.name, [d.name for d in u.dependencies or ()]) for u in getattr(python, unknowns)]
    if name != "LeadVehicle":
        return
    starts = {v.name: v.start for v in native.modelVariables}
    assert starts["speed_profile"] == str(_item(native_blocks[name], "speed_profile", "stop_and_go"))
    assert starts["x0"] == "50.0"
    described = {v.name: v.description for v in native.modelVariables}
    assert described["speed_profile_points"].endswith(block.FIXED_NOTE) and block.FIXED_NOTE not in described["x0"]


@contextlib.contextmanager
def instance(path, name):
    """(FMPy's FMU2Slave of the FMU at ``path``, instantiated with logging on; {name: value reference};
    refused(call, text): asserts that the call fails and a logged message holds ``text``), freed after use."""
    from fmpy import calloc, extract, free, read_model_description
    from fmpy.fmi1 import FMICallException
    from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                           fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, fmi2StepFinishedTYPE)
    md = read_model_description(str(path))
    folder = extract(str(path))
    messages = []
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(lambda env, instance_name, status, category, message:
                                              messages.append(message.decode()))
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    callbacks.stepFinished = fmi2StepFinishedTYPE()
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier=name, instanceName="t")

    def refused(call, text):
        with pytest.raises(FMICallException):
            call()
        assert any(text in m for m in messages), (text, messages[-3:])

    try:
        fmu.instantiate(loggingOn=True, callbacks=callbacks)
        yield fmu, {v.name: v.valueReference for v in md.modelVariables}, refused
        fmu.terminate()
        fmu.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_bad_values_are_refused_by_name_and_a_state_is_restored_bit_for_bit(native_lead):
    with instance(native_lead, "LeadVehicle") as (fmu, vr, refused):
        stop_and_go = _item(native_lead, "speed_profile", "stop_and_go")
        fmu.setInteger([vr["speed_profile"]], [stop_and_go])          # fixed: its own value is accepted
        refused(lambda: fmu.setInteger([vr["speed_profile"]], [stop_and_go - 1]),
                "parameter 'speed_profile' is fixed at export")
        refused(lambda: fmu.setString([vr["speed_profile_points"]], ["0:1,2:3"]),
                "parameter 'speed_profile_points' is fixed at export")
        refused(lambda: fmu.setReal([vr["x0"]], [math.nan]), "x0 = nan is not finite")
        refused(lambda: fmu.setReal([vr["x"]], [1.0]), "'x' is an output")
        fmu.setReal([vr["x0"]], [-4.0])
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        assert fmu.getReal([vr["x"]]) == [-4.0]                      # initial outputs in initialization mode
        fmu.exitInitializationMode()
        refused(lambda: fmu.setReal([vr["x0"]], [0.0]), "parameter 'x0' can only be set before initialization ends")
        refused(lambda: fmu.doStep(0.5, 0.1), "is not the FMU's time")
        refused(lambda: fmu.doStep(0.0, -1.0), "must be finite and > 0")
        t = 0.0
        for _ in range(1000):
            fmu.doStep(t, 0.01)
            t += 0.01
        state = fmu.getFMUstate()
        blob = bytes(fmu.serializeFMUstate(state))
        outputs = [vr["x"], vr["vx"], vr["ax"]]
        for _ in range(300):
            fmu.doStep(t + _ * 0.01, 0.01)
        later = fmu.getReal(outputs)
        assert later[1] == 16.0                                       # cruising between 9 and 14 s
        fmu.setFMUstate(fmu.deSerializeFMUstate(blob))
        for _ in range(300):
            fmu.doStep(t + _ * 0.01, 0.01)
        assert fmu.getReal(outputs) == later
        refused(lambda: fmu.deSerializeFMUstate(blob[:-8]), "the state has")
        flipped = bytearray(blob)
        flipped[100] ^= 1
        refused(lambda: fmu.deSerializeFMUstate(bytes(flipped)), "check word")
        fmu.freeFMUstate(state)


# test_powertrain's input signal: a launch, full throttle to 50 rad/s at the wheels (upshifts), lift-off (overrun)
SIGNAL = [(0.0, 0.0, 0.0, 0.0), (0.5, 0.0, 0.0, 0.0), (1.0, 1.0, 5.0, 5.5), (4.0, 0.7, 50.0, 52.0),
          (6.0, 0.0, 40.0, 40.0), (8.0, 0.3, 30.0, 30.0)]
POWERTRAIN_OUTPUTS = ["wheel_left.torque_drive", "wheel_right.torque_drive", "engine.speed", "engine.torque",
                      "torque_converter.speed_ratio", "transmission.gear"]


def test_the_native_powertrain_equals_the_python_fmu_bit_for_bit(native_blocks, companion_fmus):
    """8 s of the input signal in 1 ms steps with step_size = 0.5 ms (the export's 1 ms changed before
    initialization): every output of every step equal to the pythonfmu FMU's, through gears 1 to 5 and the overrun
    (negative engine torque)."""
    from fmpy import simulate_fmu
    signal = np.array(SIGNAL, dtype=[("time", float), ("throttle", float), ("wheel_left.omega", float),
                                     ("wheel_right.omega", float)])
    kw = dict(stop_time=8.0, output_interval=1e-3, input=signal, output=POWERTRAIN_OUTPUTS,
              start_values={"step_size": 5e-4})
    reference = simulate_fmu(str(companion_fmus["Powertrain"]), **kw)
    native = simulate_fmu(str(native_blocks["Powertrain"]), **kw)
    assert len(native) == len(reference) == 8001
    for name in POWERTRAIN_OUTPUTS:
        assert np.array_equal(native[name], reference[name]), name
    assert set(native["transmission.gear"]) == {1, 2, 3, 4, 5} and native["engine.torque"].min() < 0.0


def test_the_native_powertrain_refuses_by_name(native_blocks):
    """A file parameter fixed at export, an input outside its range, a step beyond the step budget of step_size."""
    with instance(native_blocks["Powertrain"], "Powertrain") as (fmu, vr, refused):
        fmu.setString([vr["powertrain_file"]], ["powertrain/suv_diesel_6at.json"])     # its own value
        refused(lambda: fmu.setString([vr["powertrain_file"]], ["powertrain/other.json"]),
                "parameter 'powertrain_file' is fixed at export")
        refused(lambda: fmu.setBoolean([vr["allow_external_files"]], [True]),
                "parameter 'allow_external_files' is fixed at export")
        refused(lambda: fmu.setReal([vr["step_size"]], [0.5]), "step_size = 0.5 is outside its range")
        refused(lambda: fmu.setReal([vr["throttle"]], [1.5]), "throttle = 1.5 is outside its range")
        fmu.setReal([vr["throttle"]], [1.0])
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        assert fmu.getInteger([vr["transmission.gear"]]) == [1]
        refused(lambda: fmu.doStep(0.0, 200.0), "internal steps of step_size = 0.001 s")
        fmu.doStep(0.0, 0.5)
        assert fmu.getReal([vr["engine.speed"]])[0] > 100.0                # stall speed at full throttle, held wheels


CONTROLLER_OUTPUTS = ["throttle", "brake", "brake_torque_front", "brake_torque_rear", "accel_command", "gap", "ttc",
                      "aeb_active", "held", "lead_detected"]


def _approach():
    """20 s of inputs: the ego car decelerating from 25 m/s at 1.2 m/s^2 behind a lead at 15 m/s, 80 m ahead, that
    brakes to a stop at 3 m/s^2 from 6 s (the AEB engages)."""
    t = np.linspace(0.0, 20.0, 81)
    v = np.clip(25.0 - 1.2 * t, 0.0, None)
    lead = np.where(t < 6.0, 15.0, np.clip(15.0 - 3.0 * (t - 6.0), 0.0, None))

    def position(speed):
        return np.concatenate([[0.0], np.cumsum(0.125 * (speed[1:] + speed[:-1]))])
    return np.array(list(zip(t, position(v), v, np.full(t.size, -1.2), 80.0 + position(lead), lead)),
                    dtype=[("time", float), ("ego.x", float), ("ego.vx", float), ("ego.ax", float), ("lead.x", float),
                           ("lead.vx", float)])


def test_the_native_controller_equals_the_python_fmu_bit_for_bit(native_blocks, companion_fmus):
    """The approach in 1 ms steps with set_speed, time_gap, sample_period and aeb.ttc_on set before
    initialization: every output of every step equal to the pythonfmu FMU's (the ACC command, then the AEB)."""
    from fmpy import simulate_fmu
    kw = dict(stop_time=20.0, output_interval=1e-3, input=_approach(), output=CONTROLLER_OUTPUTS,
              start_values={"acc.set_speed": 20.0, "acc.time_gap": 1.2, "sample_period": 0.005, "aeb.ttc_on": 2.0})
    reference = simulate_fmu(str(companion_fmus["Controller"]), **kw)
    native = simulate_fmu(str(native_blocks["Controller"]), **kw)
    for name in CONTROLLER_OUTPUTS:
        assert np.array_equal(native[name], reference[name]), name
    assert native["aeb_active"].any() and native["throttle"].max() > 0.5 and native["brake"].max() == 1.0


def test_a_tunable_parameter_of_the_native_controller_is_set_while_stepping(native_blocks):
    """acc.set_speed (variability tunable) is taken between steps, as in the Python FMU; aeb.ttc_on (fixed) is
    refused after initialization; ttc_off <= ttc_on fails initialization with the kernel's message."""
    with instance(native_blocks["Controller"], "Controller") as (fmu, vr, refused):
        fmu.setReal([vr["lead.x"]], [1e4])                      # no lead in range: cruise control
        fmu.setReal([vr["ego.vx"]], [20.0])
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        assert fmu.getReal([vr["accel_command"]])[0] == pytest.approx(0.4 * (25.0 - 20.0))   # k_cruise (v_set - v)
        fmu.setReal([vr["acc.set_speed"]], [10.0])
        for k in range(200):                                     # 2 s: the command falls at the jerk limit
            fmu.doStep(k * 0.01, 0.01)
        assert fmu.getReal([vr["accel_command"]])[0] < 0.0       # the new set speed is below the speed
        refused(lambda: fmu.setReal([vr["aeb.ttc_on"]], [1.0]),
                "parameter 'aeb.ttc_on' can only be set before initialization ends")
    with instance(native_blocks["Controller"], "Controller") as (fmu, vr, refused):
        fmu.setReal([vr["aeb.ttc_on"], vr["aeb.ttc_off"]], [3.0, 2.0])
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        refused(fmu.exitInitializationMode, "ttc_off must exceed ttc_on")


def test_an_unknown_fmu_is_refused_by_name():
    from fmu_vehicle.errors import ModelError
    with pytest.raises(ModelError, match="no native block build of 'Robot'"):
        block.slave_class("Robot")
