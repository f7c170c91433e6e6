"""The native vehicle FMUs as FMI 3.0 Co-Simulation FMUs (docs/native.md §7): their modelDescription is the FMI 2.0
one in FMI 3.0 form (same variables, value references, units, ranges, descriptions, start values and ModelStructure,
FMPy's validation clean for all four vehicles), their library exports only fmi3* functions, and a run through FMPy
equals the FMI 2.0 build's bit for bit (inputs moving, parameters set); states round-trip, and bad input is
refused with fmi3Error and a message naming the variable."""
from __future__ import annotations

import math
import shutil
import subprocess
import zipfile

import numpy as np
import pytest

from fmu_vehicle.fmi.vehicle_parameters import parameter_table
from fmu_vehicle.fmi.vehicle_slave import vehicle_structure, vehicle_variables
from fmu_vehicle.native import fmu as native

RUNS = {  # FMU -> (input signals: name -> value at the times T, parameters set)
    "VehicleLV": ({"wheel_front.torque_drive": [0.0, 400.0, 400.0, -100.0, 0.0],
                   "wheel_rear.torque_brake": [0.0, 0.0, 300.0, 300.0, 0.0]},
                  {"v0": 15.0, "dt": 5e-4}),
    "Vehicle": ({"steering_wheel_angle": [0.0, 0.0, 0.6, 0.6, -0.2],
                 "wheel_RL.torque_drive": [0.0, 1000.0, 1000.0, 0.0, 0.0]},
                {"v0": 18.0, "dt": 2e-3}),
}
T = [0.0, 0.3, 0.6, 1.0, 1.5]


def _description(fmu_or_folder):
    from fmpy import read_model_description
    return read_model_description(str(fmu_or_folder), validate=False)


def _meaning(md) -> tuple[dict, dict, dict]:
    """({name: (value reference, causality, variability, type, unit, display unit, min, max, start, description,
    declared type's items)}, {output: [(known, kind)] while stepping}, {output: [knowns] in initialization mode})
    of a modelDescription read by FMPy, the FMI 2.0 types named as FMI 3.0's."""
    types = {"Real": "Float64", "Integer": "Int32"}
    variables = {}
    for v in md.modelVariables:
        if v.causality == "independent":
            continue
        items = tuple((i.name, int(i.value)) for i in v.declaredType.items) if v.declaredType is not None else None
        variables[v.name] = (v.valueReference, v.causality, v.variability, types.get(v.type, v.type), v.unit,
                             v.displayUnit, v.min, v.max, v.start, v.description, items)

    def deps(unknowns):
        return {u.variable.name: [(d.name, k) for d, k in zip(u.dependencies, u.dependenciesKind or
                                                                ["dependent"] * len(u.dependencies))]
                for u in unknowns}
    return variables, deps(md.outputs), deps(md.initialUnknowns)


@pytest.mark.parametrize("name", native.NATIVE_FMUS)
def test_the_fmi3_description_is_the_fmi2_one_and_both_validate(name, tmp_path):
    """All four vehicles (no build needed): both descriptions, written from the same Var table and Structure,
    pass FMPy's validation (schema, start values, causality and variability, units, ModelStructure; the grammar
    of the names, which takes FMPy 8 s for the tractor's 663, is checked by ``validate_fmu`` on the built FMUs
    below: the names are the same in both versions and in the Python FMUs), and say the same of every variable
    and every dependency; FMI 3.0 adds the independent variable time after the last value reference."""
    from fmpy import read_model_description
    params = parameter_table(name, None)
    table = vehicle_variables(name, params)
    meaning = {}
    for version in (2, 3):
        folder = tmp_path / f"fmi{version}"
        folder.mkdir()
        (folder / "modelDescription.xml").write_bytes(
            native.model_description(name, "{a-guid}", "test", table, vehicle_structure(name, params), version))
        md = read_model_description(str(folder), validate=True, validate_model_structure=True)   # raises if not
        assert md.guid == "{a-guid}" and md.fmiVersion.startswith(str(version))
        meaning[version] = _meaning(md)
        if version == 3:
            time = [v for v in md.modelVariables if v.causality == "independent"]
            assert [(v.name, v.valueReference, v.unit) for v in time] == [("time", len(table), "s")]
    assert meaning[3] == meaning[2]
    variables, stepping, initial = meaning[3]
    assert len(variables) == len(table) and all(d == [] for d in stepping.values())
    types = {t[3] for t in variables.values()}
    assert types == {"Float64", "Enumeration", "Boolean", "String"}
    model = variables["model"]
    assert model[3] == "Enumeration" and model[10][0][1] == 1 and model[8] == "1"   # item values from 1
    # an acceleration follows every wheel input in initialization mode; a position none
    inputs = {n for n, v in variables.items() if v[1] == "input"}
    assert {k for k, _ in initial["chassis.az"]} & inputs == {n for n in inputs if n.startswith("wheel_")}
    assert not {k for k, _ in initial["chassis.x"]} & inputs


def _symbols(lib) -> list[str]:
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True, check=True).stdout
    return [line.split()[-1] for line in out.splitlines() if line.strip()]


def test_the_fmi3_fmus_validate_and_their_libraries_export_only_fmi3_functions(native_fmus, native_fmi3_fmus,
                                                                                 tmp_path):
    from fmpy.validation import validate_fmu
    for name, path in native_fmi3_fmus.items():
        assert validate_fmu(str(path)) == [] and validate_fmu(str(native_fmus[name])) == []
        with zipfile.ZipFile(path) as z:
            files = z.namelist()
            assert f"binaries/x86_64-linux/{name}.so" in files and not any("linux64" in f for f in files)
            z.extract(f"binaries/x86_64-linux/{name}.so", tmp_path / name)
        symbols = _symbols(tmp_path / name / "binaries" / "x86_64-linux" / f"{name}.so")
        assert len(symbols) >= 70 and {"fmi3DoStep", "fmi3GetFloat64", "fmi3SerializeFMUState"} <= set(symbols)
        assert [s for s in symbols if not s.startswith("fmi3")] == []
    if shutil.which("x86_64-w64-mingw32-objdump") is None:
        return                          # no mingw on this machine: no win64 DLL was built
    with zipfile.ZipFile(native_fmi3_fmus["VehicleLV"]) as z:
        z.extract("binaries/x86_64-windows/VehicleLV.dll", tmp_path)
    dump = subprocess.run(["x86_64-w64-mingw32-objdump", "-p", str(tmp_path / "binaries/x86_64-windows/VehicleLV.dll")],
                          capture_output=True, text=True, check=True).stdout
    table = dump.split("[Ordinal/Name Pointer] Table", 1)[1].split("\n\n", 1)[0]
    names = [line.split()[-1] for line in table.splitlines() if line.strip()]
    assert len(names) >= 70 and all(n.startswith("fmi3") for n in names), names


@pytest.mark.parametrize("name", ["VehicleLV", "Vehicle"])
def test_fmi3_equals_fmi2_bit_for_bit_with_moving_inputs_and_parameters_set(name, native_fmus, native_fmi3_fmus):
    """fmpy.simulate_fmu, 1.5 s, inputs interpolated between the points of RUNS, v0 and dt set: every output of
    the FMI 3.0 build equals the FMI 2.0 build's at every one of the 751 points."""
    from fmpy import simulate_fmu
    signals, start = RUNS[name]
    signal = np.array(list(zip(T, *signals.values())), dtype=[("time", float)] + [(n, float) for n in signals])
    outputs = [v.name for v in _description(native_fmus[name]).modelVariables if v.causality == "output"]
    runs = [simulate_fmu(str(path), stop_time=T[-1], output_interval=2e-3, input=signal, start_values=start,
                         output=outputs) for path in (native_fmus[name], native_fmi3_fmus[name])]
    assert len(runs[0]) == len(runs[1]) == 751
    for n in ("time", *outputs):
        assert np.array_equal(runs[0][n], runs[1][n]), n
    vx = runs[1]["chassis.vx"]
    assert abs(vx[0] - start["v0"]) < 0.05 and np.ptp(vx) > 0.2          # the torques moved the car
    if name == "Vehicle":
        assert runs[1]["chassis.yaw_rate"][450] > 0.05                      # turning left at 0.9 s


class Log:
    def __init__(self):
        self.messages = []

    def __call__(self, env, status, category, message):
        self.messages.append((status, message.decode()))


def _instance(path, log):
    from fmpy import extract
    from fmpy.fmi3 import FMU3Slave
    md = _description(path)
    fmu = FMU3Slave(guid=md.guid, unzipDirectory=extract(str(path)), modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="probe")
    fmu.instantiate(logMessage=log)
    refs = {v.name: v.valueReference for v in md.modelVariables}
    return fmu, refs


def test_fmi3_state_get_set_serialize_round_trip_continues_identically(native_fmi3_fmus):
    fmu, refs = _instance(native_fmi3_fmus["VehicleLV"], Log())
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


def test_bad_input_is_refused_with_fmi3_error_naming_the_variable(native_fmi3_fmus):
    from fmpy.fmi1 import FMICallException
    log = Log()
    fmu, refs = _instance(native_fmi3_fmus["VehicleLV"], log)
    bad = [
        (lambda: fmu.setFloat64([refs["wheel_front.torque_drive"]], [math.nan]), "wheel_front.torque_drive = nan is not finite"),
        (lambda: fmu.setFloat64([refs["wheel_rear.torque_brake"]], [-5.0]), "wheel_rear.torque_brake = -5 is outside its range"),
        (lambda: fmu.setFloat64([refs["chassis.mass"]], [900.0]), "parameter 'chassis.mass' is fixed at export"),
        (lambda: fmu.setFloat64([refs["chassis.x"]], [1.0]), "fmi3SetFloat64: 'chassis.x' is an output"),
        (lambda: fmu.setFloat64([refs["time"]], [1.0]), "'time' is the independent variable"),
        (lambda: fmu.setFloat64([refs["model"]], [1.0]), "'model' (Enumeration), not a Float64 variable"),
        (lambda: fmu.setInt64([refs["model"]], [2]), "parameter 'model' is fixed at export"),
        (lambda: fmu.setInt64([refs["road"]], [1 << 40]), "'road' = 1099511627776 is not an item value"),
        (lambda: fmu.setInt32([refs["road"]], [1]), "'road' (Enumeration), not a Int32 variable"),
        (lambda: fmu.setBoolean([refs["allow_external_files"]], [True]), "parameter 'allow_external_files' is fixed"),
        (lambda: fmu.setString([refs["road_file"]], ["my.csv"]), "parameter 'road_file' is fixed at export"),
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


@pytest.mark.slow
@pytest.mark.parametrize("name", ["VehicleCombination", "TractorSemitrailer"])
def test_the_combinations_export_as_fmi3_and_equal_their_fmi2_build(name, tmp_path):
    """The other two vehicles through ``export(fmi_version=3)`` (linux64; minutes when their kernels are not
    cached): valid, and 0.3 s at 15 m/s with a steering input equal to their FMI 2.0 build's bit for bit."""
    from fmpy import simulate_fmu
    from fmpy.validation import validate_fmu
    paths = [native.export(name, tmp_path, settings={"v0": "15.0", "road": "flat"}, targets=("linux64",),
                           fmi_version=v) for v in (2, 3)]
    assert paths[1] == tmp_path / "fmi3" / f"{name}.fmu"
    signal = np.array([(0.0, 0.0), (0.3, 0.3)], dtype=[("time", float), ("steering_wheel_angle", float)])
    outputs = [v.name for v in _description(paths[0]).modelVariables if v.causality == "output"]
    runs = []
    for path in paths:
        assert validate_fmu(str(path)) == []
        runs.append(simulate_fmu(str(path), stop_time=0.3, output_interval=1e-3, input=signal, output=outputs))
    assert all(np.array_equal(runs[0][n], runs[1][n]) for n in ("time", *outputs))
    assert runs[1]["chassis.vx"][-1] > 14.0
