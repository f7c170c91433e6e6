"""The native vehicle FMUs as FMI 3.0 Co-Simulation FMUs (docs/native.md §7): their modelDescription is the FMI 2.0
one in FMI 3.0 form (same variables, value references, units, ranges, descriptions, start values and ModelStructure,
FMPy's validation clean for all four vehicles), their library exports only fmi3* functions, and a run through FMPy
equals the FMI 2.0 build's bit for bit (inputs moving, parameters set); states round-trip, and bad input is
refused with fmi3Error and a message naming the variable."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fmu_vehicle.fmi.vehicle_parameters import parameter_table
from fmu_vehicle.fmi.vehicle_slave import vehicle_structure, vehicle_variables
from fmu_vehicle.native import fmu as native

from fmi3_probe import refusals, state_round_trip
from native_probe import asan_runtime, sanitizer_flags
from timeouts import HANG_GUARD_S

RUNS = {  # FMU -> (input signals: name -> value at the times T, parameters set)
    "VehicleLV": ({"wheel_front.torque_drive": [0.0, 400.0, 400.0, -100.0, 0.0],
                   "wheel_rear.torque_brake": [0.0, 0.0, 300.0, 300.0, 0.0]},
                  {"v0": 15.0, "dt": 5e-4, "chassis.mass": 1000.0}),
    "Vehicle": ({"steering_wheel_angle": [0.0, 0.0, 0.6, 0.6, -0.2],
                 "wheel_RL.torque_drive": [0.0, 1000.0, 1000.0, 0.0, 0.0]},
                {"v0": 18.0, "dt": 2e-3, "suspension_FL.spring_stiffness": 60000.0}),
}
T = [0.0, 0.3, 0.6, 1.0, 1.5]


def _description(fmu_or_folder):
    from fmpy import read_model_description
    return read_model_description(str(fmu_or_folder), validate=False)


def _meaning(md) -> tuple[dict, dict, dict, list]:
    """({name: (value reference, causality, variability, type, unit, display unit, min, max, start, description,
    declared type's items)}, {output: [(known, kind)] while stepping}, {output: [knowns] in initialization mode},
    [the unit definitions]) of a modelDescription read by FMPy, the FMI 2.0 types named as FMI 3.0's."""
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
    units = [(u.name, [getattr(u.baseUnit, k) for k in ("kg", "m", "s", "A", "K", "mol", "cd", "rad", "factor")],
              [(d.name, d.factor, d.offset) for d in u.displayUnits]) for u in md.unitDefinitions]
    return variables, deps(md.outputs), deps(md.initialUnknowns), units


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
    variables, stepping, initial, units = meaning[3]
    assert len(units) > 8 and ("m/s", [0, 1, -1, 0, 0, 0, 0, 0, 1.0], [("km/h", 3.6, 0.0)]) in units
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
        # the adapter's calls of the FMI 2.0 layer and of the step are direct: no dynamic relocation names them
        relocs = subprocess.run(["objdump", "-R", str(tmp_path / name / "binaries" / "x86_64-linux" / f"{name}.so")],
                                capture_output=True, text=True, check=True).stdout
        assert not [line for line in relocs.splitlines() if " fv_" in line or " fmi" in line], relocs
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
    """fmpy.simulate_fmu, 1.5 s, inputs interpolated between the points of RUNS, v0, dt and a model parameter
    (a mass, a spring) set: every output of the FMI 3.0 build equals the FMI 2.0 build's at every one of the 751
    points."""
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


def test_fmi3_state_get_set_serialize_round_trip_continues_identically(native_fmi3_fmus):
    state_round_trip(native_fmi3_fmus["VehicleLV"])


def test_bad_input_is_refused_with_fmi3_error_naming_the_variable(native_fmi3_fmus):
    refusals(native_fmi3_fmus["VehicleLV"])


@pytest.mark.skipif(sanitizer_flags() is None or asan_runtime() is None,
                    reason="the C compiler cannot build with -fsanitize=address,undefined (libasan/libubsan missing)")
def test_the_fmi3_layer_under_address_and_undefined_behaviour_sanitizers(native_fmi3_fmus, tmp_path):
    """VehicleLV's FMI 3.0 build with both C layers instrumented (the compiled kernels are not), in a child
    process with the ASan runtime preloaded: the refusals and the state round trip above run with no report."""
    path = native.export("VehicleLV", tmp_path, targets=("linux64",), c_flags=sanitizer_flags(), fmi_version=3)
    with zipfile.ZipFile(path) as z:
        z.extract("binaries/x86_64-linux/VehicleLV.so", tmp_path)
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(tmp_path / "binaries/x86_64-linux/VehicleLV.so")],
                               capture_output=True, text=True, check=True).stdout
    assert "__asan_report" in undefined and "__ubsan_handle" in undefined       # instrumented
    code = ("import sys; sys.path.insert(0, sys.argv[2]); import fmi3_probe as p; p.refusals(sys.argv[1]); "
            "p.state_round_trip(sys.argv[1]); print('DONE')")
    env = {**os.environ, "LD_PRELOAD": asan_runtime(), "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
    proc = subprocess.run([sys.executable, "-c", code, str(path), str(Path(__file__).parent)], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=HANG_GUARD_S)
    assert proc.returncode == 0 and "DONE" in proc.stdout, proc.stderr[-3000:]
    assert "Sanitizer" not in proc.stderr and "runtime error" not in proc.stderr, proc.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["TractorSemitrailer"])
def test_the_combinations_export_as_fmi3_and_equal_their_fmi2_build(name, tmp_path):
    """The tractor-semitrailer (twelve wheels, two units) through ``export(fmi_version=3)`` (linux64; minutes when
    its kernels are not cached): valid, and 0.3 s at 15 m/s with a steering input equal to its FMI 2.0 build's bit
    for bit. The car with caravan passed the same (its FMI 3.0 description is checked above); the suite runs the
    larger of the two only, to save two exports."""
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
