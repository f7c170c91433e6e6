"""The native VehicleLV FMU (fmu_vehicle.native.fmu): built once for linux64 (and win64 where mingw is
installed), it validates in FMPy, declares the Python FMU's variables with the same units, ranges and
descriptions, gives the Python FMU's numbers bit for bit over 20 s of the bumpy road with varying wheel
torques, runs in the project's C host with no libpython in the process (10 of 10 runs exit 0), and refuses a
parameter fixed at export with a message naming it; its Real parameters are settable until initialization ends."""
from __future__ import annotations

import math
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.hosts import Inputs, build_host, run_c_host, run_fmpy
from fmu_vehicle.fmi.vehicle_parameters import parameter_table
from fmu_vehicle.fmi.vehicle_slave import vehicle_variables
from fmu_vehicle.native import fmu as native

from libcosim_runner import run_libcosim
from native_probe import with_check

OUTPUTS = ["chassis.x", "chassis.z", "chassis.pitch", "chassis.vx", "chassis.az", "wheel_front.tire_fz",
           "wheel_rear.tire_fx", "wheel_front.omega", "wheel_rear.travel"]
TORQUES = Inputs(signals={"wheel_front.torque_drive": (150.0, 120.0, 0.5),
                          "wheel_rear.torque_brake": (40.0, 30.0, 0.3)})


@pytest.fixture(scope="module")
def native_lv(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("native")
    targets = ("linux64", "win64") if shutil.which("x86_64-w64-mingw32-gcc") else ("linux64",)
    return native.export("VehicleLV", out, targets=targets)


def test_settings_are_checked_by_name():
    variables = vehicle_variables("VehicleLV", parameter_table("VehicleLV", None))
    assert native.parameter_values(variables, {"v0": "12.5"})["v0"] == 12.5
    with pytest.raises(ModelError, match=r"--set v_0: no such parameter"):
        native.parameter_values(variables, {"v_0": "1"})
    with pytest.raises(ModelError, match=r"--set v0='500': 500.0 is above max 100.0"):
        native.parameter_values(variables, {"v0": "500"})
    with pytest.raises(ModelError, match=r"--set road_source='x': 'x' is not one of \['internal', 'inputs'\]"):
        native.parameter_values(variables, {"road_source": "x"})
    assert native.parameter_values(variables, {"integrator": "bdf2"})["integrator"] == "bdf2"
    with pytest.raises(ModelError, match=r"--set integrator='euler': 'euler' is not one of \['rk4', 'abm4'"):
        native.parameter_values(variables, {"integrator": "euler"})


@pytest.mark.slow
def test_validates_and_declares_the_python_fmus_variables(native_lv):
    from fmpy import read_model_description
    from fmpy.validation import validate_fmu
    assert validate_fmu(str(native_lv)) == []
    md = read_model_description(str(native_lv))
    variables = vehicle_variables("VehicleLV", parameter_table("VehicleLV", None))
    mine = {v.name: v for v in md.modelVariables[:len(variables)]}     # then Model Exchange's states (locals)
    assert list(mine) == [v.name for v in variables]
    assert all(v.causality == "local" for v in md.modelVariables[len(variables):])
    for v in variables:
        m = mine[v.name]
        assert (m.causality, m.variability, m.type, m.unit) == (v.causality, v.variability, v.type, v.unit), v.name
        # the native build may add what it does not carry ('model': the vehicles of other sizes) or fixes
        extra = (m.description or "").removeprefix(v.description or "")
        assert extra == "" or extra.startswith(" [native FMU: ") and extra.endswith("]"), (v.name, m.description)
        if v.min is not None:
            assert float(m.min) == v.min, v.name
    outputs = [v for v in md.modelVariables if v.causality == "output"]
    assert len(md.outputs) == len(outputs) > 20
    assert all(u.dependencies == [] for u in md.outputs)          # outputs change only in doStep
    names = zipfile.ZipFile(native_lv).namelist()
    assert "binaries/linux64/VehicleLV.so" in names and "resources/image.bin" in names
    assert not any(n.endswith(".py") for n in names)


@pytest.mark.slow
def test_same_numbers_as_the_python_fmu_over_20_s_of_the_bumpy_road(native_lv, all_fmus):
    ours = run_fmpy(native_lv, OUTPUTS, TORQUES, 1e-3, 20000, every=10)
    python = run_fmpy(all_fmus["VehicleLV"], OUTPUTS, TORQUES, 1e-3, 20000, every=10)
    assert ours.returncode == 0 and python.returncode == 0, ours.stderr[-2000:] + python.stderr[-2000:]
    assert ours.rows.shape == python.rows.shape == (2001, 1 + len(OUTPUTS))
    assert ours.rows[-1, 1] > 390.0                           # 20 s at about 20 m/s: several origin rebases
    scale = np.maximum(np.abs(python.rows).max(axis=0), 1e-300)
    assert np.max(np.abs(ours.rows - python.rows) / scale) <= 1e-12
    assert np.array_equal(ours.rows, python.rows)             # bit for bit: the same kernels, the same order


@pytest.mark.slow
@pytest.mark.parametrize("v0", [0.0, 12.5])
def test_the_start_speed_is_settable_and_gives_the_python_fmus_numbers(native_lv, all_fmus, v0):
    """Exported at v0 = 20 m/s, started at another speed: the compiled start (vehicle.start.start_state from the
    equilibrium at x0) gives the Python FMU's run bit for bit; at rest the tires start with their rest
    lateral states, moving with zero ones."""
    inputs = Inputs(signals=TORQUES.signals, reals={"v0": v0})
    ours = run_fmpy(native_lv, OUTPUTS, inputs, 1e-3, 2000, every=100)
    python = run_fmpy(all_fmus["VehicleLV"], OUTPUTS, inputs, 1e-3, 2000, every=100)
    assert ours.returncode == 0 and python.returncode == 0, ours.stderr[-2000:] + python.stderr[-2000:]
    assert np.array_equal(ours.rows, python.rows)
    assert abs(ours.rows[0, 4] - v0) < 0.05                   # chassis.vx at the start [m/s]


def test_the_start_position_is_settable_and_gives_the_python_fmus_numbers(native_lv, all_fmus):
    """Exported at x0 = 0, started with the front wheel on the crest of the bump at 50 m: the FMU solves the static
    equilibrium there with the Python FMU's compiled kernel (vehicle.equilibrium) and gives its run bit for bit."""
    from fmu_vehicle.vehicle.vehicle import Vehicle

    car = Vehicle.load("halfcar7")
    x0 = 50.25 - float(car.w_center0[car.wheel_index("front"), 0])
    inputs = Inputs(signals=TORQUES.signals, reals={"x0": x0})
    ours = run_fmpy(native_lv, OUTPUTS, inputs, 1e-3, 2000, every=100)
    python = run_fmpy(all_fmus["VehicleLV"], OUTPUTS, inputs, 1e-3, 2000, every=100)
    assert ours.returncode == 0 and python.returncode == 0, ours.stderr[-2000:] + python.stderr[-2000:]
    assert np.array_equal(ours.rows, python.rows)
    assert abs(ours.rows[0, 1] - (x0 + car.chassis_com0[0])) < 1e-12   # chassis.x (its CoM) at the start [m]
    assert ours.rows[0, 3] < -5e-3                            # pitched nose up by the 6 cm bump [rad]


@pytest.mark.slow
def test_c_host_runs_it_without_python(native_lv, tmp_path):
    host = build_host(tmp_path / "fmi2_host")
    lib_dir = tmp_path / "x"
    with zipfile.ZipFile(native_lv) as z:
        z.extract("binaries/linux64/VehicleLV.so", lib_dir)
    lib = lib_dir / "binaries/linux64/VehicleLV.so"
    ldd = subprocess.run(["ldd", str(lib)], capture_output=True, text=True).stdout
    libs = {line.split()[0] for line in ldd.splitlines() if line.strip()}
    assert not {n for n in libs if "python" in n or "numba" in n}, ldd
    assert {n.split(".so")[0] for n in libs} <= {"linux-vdso", "libc", "libm", "libdl", "libpthread",
                                                  "/lib64/ld-linux-x86-64"}, ldd
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(lib)], capture_output=True, text=True).stdout
    assert not [s for s in undefined.split() if s.startswith(("Py", "numba_", "NRT_"))], undefined
    reference = run_fmpy(native_lv, OUTPUTS, TORQUES, 1e-3, 2000, every=100)
    for k in range(10):
        # the last run also saves the state at 1 s, restores it at 2 s (directly and through serialize /
        # deserialize) and requires the second half bit-identical
        run = run_c_host(host, native_lv, OUTPUTS, TORQUES, 1e-3, 2000, every=100, python=False,
                         state_check=k == 9)
        assert run.returncode == 0, run.stderr[-2000:]
        assert "libpython mapped: no" in run.stderr
        assert np.array_equal(run.rows, reference.rows)
    assert "state restore bit-identical" in run.stderr


@pytest.mark.slow
def test_a_fixed_parameter_is_refused_by_name_and_the_real_ones_are_settable(native_lv):
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave, fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, fmi2CallbackAllocateMemoryTYPE
    from fmpy.fmi2 import fmi2CallbackFreeMemoryTYPE, fmi2StepFinishedTYPE
    from fmpy.fmi1 import FMICallException
    from fmpy import calloc, free

    md = read_model_description(str(native_lv))
    folder = extract(str(native_lv))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    messages = []

    def logger(env, name, status, category, message):
        messages.append(message.decode())

    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(logger)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    callbacks.stepFinished = fmi2StepFinishedTYPE()
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier="VehicleLV", instanceName="t")
    try:
        fmu.instantiate(loggingOn=True, callbacks=callbacks)
        road = {i.name: int(i.value) for i in next(v for v in md.modelVariables if v.name == "road").declaredType.items}
        fmu.setInteger([vr["road"]], [road["flat"]])      # an Enumeration, settable until initialization ends
        fmu.setInteger([vr["road"]], [road["bumpy"]])     # (test_native_choices compares the numbers)
        assert fmu.getReal([vr["chassis.mass"]]) == [1127.0]
        fmu.setReal([vr["chassis.mass"]], [400.0])            # every Real parameter settable until initialization
        assert fmu.getReal([vr["chassis.mass"]]) == [400.0]   # ends (test_native_tunable compares the numbers)
        with pytest.raises(FMICallException):
            fmu.setReal([vr["chassis.mass"]], [1e5])
        assert any("chassis.mass = 100000 is outside its range" in m for m in messages), messages
        fmu.setReal([vr["chassis.mass"]], [1127.0])
        fmu.setReal([vr["v0"]], [15.0])                       # settable until initialization ends
        with pytest.raises(FMICallException):
            fmu.setInteger([vr["road"]], [len(road) + 1])
        assert any(f"{len(road) + 1} is not an item value of parameter 'road'" in m for m in messages), messages
        with pytest.raises(FMICallException):
            fmu.setReal([vr["wheel_front.torque_drive"]], [math.nan])
        assert any("wheel_front.torque_drive = nan is not finite" in m for m in messages), messages
        fmu.setReal([vr["dt"]], [5e-4])
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        # the outputs a master reads in initialization mode are the initial outputs (a driver FMU computes its
        # first command from them), not zeros, and they are the ones initialization ends with
        outputs = [v.valueReference for v in md.modelVariables if v.causality == "output"]
        assert abs(fmu.getReal([vr["chassis.vx"]])[0] - 15.0) < 0.05          # v0 = 15 m/s
        x_start = fmu.getReal([vr["chassis.x"]])[0]
        fmu.setReal([vr["x0"]], [10.0])                       # the start position too
        assert abs(fmu.getReal([vr["chassis.x"]])[0] - (x_start + 10.0)) < 1e-12
        fmu.setReal([vr["x0"]], [0.0])
        fmu.setReal([vr["v0"]], [20.0])                       # read again with another start speed
        assert abs(fmu.getReal([vr["chassis.vx"]])[0] - 20.0) < 0.05
        during = fmu.getReal(outputs)
        fmu.exitInitializationMode()
        assert fmu.getReal(outputs) == during
        for name in ("dt", "v0", "x0", "chassis.mass"):
            with pytest.raises(FMICallException):
                fmu.setReal([vr[name]], [1e-3])
            assert any(f"parameter '{name}' can only be set before initialization ends" in m for m in messages)
        assert fmu.getReal([vr["dt"]]) == [5e-4] and fmu.getReal([vr["v0"]]) == [20.0]
        x0 = fmu.getReal([vr["chassis.x"]])[0]
        for k in range(100):
            fmu.doStep(k * 1e-3, 1e-3)
        x1 = fmu.getReal([vr["chassis.x"]])[0]
        assert 1.9 < x1 - x0 < 2.1                            # 0.1 s at about 20 m/s
        # a serialized state: restored bit-identically; cut short or from another FMU, refused by name
        state = fmu.getFMUstate()
        blob = bytes(fmu.serializeFMUstate(state))
        fmu.doStep(0.1, 0.05)
        later = fmu.getReal([vr["chassis.x"], vr["wheel_front.tire_fz"]])
        fmu.setFMUstate(fmu.deSerializeFMUstate(blob))
        assert fmu.getReal([vr["chassis.x"]]) == [x1]
        fmu.doStep(0.1, 0.05)
        assert fmu.getReal([vr["chassis.x"], vr["wheel_front.tire_fz"]]) == later
        with pytest.raises(FMICallException):
            fmu.deSerializeFMUstate(blob[:-8])
        assert any("truncated or corrupt" in m for m in messages), messages
        with pytest.raises(FMICallException):
            fmu.deSerializeFMUstate(blob[:8] + b"{0" + blob[10:])
        assert any("belongs to another FMU or build" in m for m in messages), messages
        fmu.freeFMUstate(state)
        fmu.terminate()
        fmu.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_new_coordinate_partition_is_made_in_the_native_step(native_lv):
    """The engine asks for a new coordinate partition when the pivot ratio of its dependent block grew tenfold
    since the last one (docs/formulation.md §8). Forced here by zeroing that reference ratio in a serialized
    state (found through the image the FMU ships): the native FMU re-partitions
    inside fmi2DoStep (compiled, no error), which restores the reference; its outputs then equal the in-process
    Python simulator forced the same way, bit for bit, and the unforced run to rounding."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    from fmu_vehicle.native.layout import ARRAY_DATA, Image, make_image
    from fmu_vehicle.native.step import pack_system

    values = native.parameter_values(vehicle_variables("VehicleLV", parameter_table("VehicleLV", None)), {})
    car, sim = native.simulator("VehicleLV", values)
    p = pack_system(sim.system, car.n_states)
    image = make_image(sim.system.model, p.model_buf, p.model_type, sim.system.data, p.data_buf, p.data_type)
    shipped = Image.from_bytes(zipfile.ZipFile(native_lv).read(f"resources/{native.IMAGE_FILE}"))
    # the array's struct is at the same word (numba's layout); its data word holds its offset in the blob, which
    # is the last part of a serialized state before its 8-byte check word
    offset = int(shipped.words[image.field("data.mech.stats").word + ARRAY_DATA])
    stats = offset + 3 * 8 - len(shipped.blob) - 8
    ref = float(sim.system.data.mech.stats[3])
    assert ref > 1.0
    md = read_model_description(str(native_lv))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    names = ["chassis.x", "chassis.z", "chassis.pitch", "chassis.vx"]
    folder = extract(str(native_lv))
    runs = []
    try:
        for force in (True, False):
            fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier="VehicleLV", instanceName="t")
            fmu.instantiate()
            fmu.setupExperiment(startTime=0.0)
            fmu.enterInitializationMode()
            fmu.exitInitializationMode()
            for k in range(30):
                fmu.doStep(k * 1e-3, 1e-3)
            state = bytearray(fmu.serializeFMUstate(fmu.getFMUstate()))
            assert np.frombuffer(state[stats:stats + 8], dtype="<f8")[0] == ref     # the offset is right
            if force:
                state[stats:stats + 8] = np.float64(0.0).tobytes()
                fmu.setFMUstate(fmu.deSerializeFMUstate(with_check(bytes(state))))
            for k in range(30, 300):
                fmu.doStep(k * 1e-3, 1e-3)                   # raises on any status but OK
            after = bytes(fmu.serializeFMUstate(fmu.getFMUstate()))
            runs.append((fmu.getReal([vr[n] for n in names]), np.frombuffer(after[stats:stats + 8], dtype="<f8")[0]))
            fmu.terminate()
            fmu.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    (forced, forced_ref), (plain, plain_ref) = runs
    assert forced_ref == pytest.approx(ref, rel=0.05) and plain_ref == ref
    np.testing.assert_allclose(forced, plain, rtol=1e-9, atol=1e-9)
    for k in range(300):
        if k == 30:
            sim.system.data.mech.stats[3] = 0.0
        sim.advance(1e-3)
    assert sim.system.data.mech.stats[3] == forced_ref
    assert forced == [sim.outputs()[n] for n in names]


@pytest.mark.slow
def test_a_second_export_of_the_same_sources_compiles_nothing(native_lv, monkeypatch):
    """The entry points' IR is kept in the kernel cache under a key of the sources, types and sizes: the
    export above stored it, so asking again makes no child compile; the full car's key differs."""
    from fmu_vehicle.native import emit
    from fmu_vehicle.native.step import pack_system

    variables = vehicle_variables("VehicleLV", parameter_table("VehicleLV", None))
    car, sim = native.simulator("VehicleLV", native.parameter_values(variables, None))
    p = pack_system(sim.system, car.n_states)

    def no_compile(entries, modules):
        raise AssertionError("compiled again")

    monkeypatch.setattr(emit, "_compile_irs", no_compile)
    [(irs, names)] = emit.fresh_irs([(p.model_type, p.data_type, p.shape)])
    entries = {"advance", "final", "prepare", "start", "equilibrium", "repartition", "evaluate"}
    shared = set(names) - entries
    assert entries <= set(names)
    # the derivative and the output row, compiled once and called by every entry (numerics.shared)
    assert sorted(n.split(".")[-2] for n in shared) == ["vehicle_record_ref", "vehicle_rhs_ref"]
    assert all("define" in text for text in irs.values())
    full_vars = vehicle_variables("Vehicle", parameter_table("Vehicle", None))
    full, full_sim = native.simulator("Vehicle", native.parameter_values(full_vars, None))
    q = pack_system(full_sim.system, full.n_states)
    assert emit.ir_key(q.model_type, q.data_type, q.shape) != emit.ir_key(p.model_type, p.data_type, p.shape)


def _numbering_aside(ir: str) -> str:
    """``ir`` without what differs between two compiles of the same code: the numbers numba gives a function's
    name (``B<n>v<n>B``), the module's name and the attribute groups (their order and their numbering)."""
    lines = (re.sub(r"B\d+v\d+B", "BvB", line) for line in ir.splitlines())
    return "\n".join(re.sub(r" #\d+\b", " #", line) for line in lines
                     if not line.startswith(("; ModuleID", "; Function Attrs", "attributes #")))


@pytest.mark.slow
def test_the_export_loads_its_kernels_from_the_kernel_cache(native_lv, tmp_path, monkeypatch):
    """The export's child keeps its kernels (portable CPU) in the package's kernel cache: compiling the entry
    points again, without the IR cache, writes no kernel into it and gives the IR of the first compile (a
    kernel loaded from the cache brings the bitcode numba keeps for linking: docs/native.md §3). Checked on a
    copy of the cache, which the other test worker cannot write to meanwhile."""
    from fmu_vehicle.native import emit
    from fmu_vehicle.native.step import pack_system

    variables = vehicle_variables("VehicleLV", parameter_table("VehicleLV", None))
    car, sim = native.simulator("VehicleLV", native.parameter_values(variables, None))
    p = pack_system(sim.system, car.n_states)
    entries, modules = [(p.model_type, p.data_type, p.shape)], [type(sim.system).__module__]
    [(stored, _)] = emit.fresh_irs(entries, modules)            # the fixture's export stored it
    folder = tmp_path / "kernels"
    shutil.copytree(emit.kernel_cache_dir(), folder, ignore=shutil.ignore_patterns("*.tmp.*", "native-kernels"))
    monkeypatch.setattr(emit, "kernel_cache_dir", lambda: folder)

    def listing():
        return {f: f.stat().st_mtime_ns for f in folder.rglob("*") if f.is_file()}

    files = listing()
    [(irs, _)] = emit._compile_irs(entries, modules)
    if listing() != files:      # the fixture's IR came from an earlier run's IR cache: now the copy is filled
        files = listing()
        [(irs, _)] = emit._compile_irs(entries, modules)
    assert listing() == files
    assert irs.keys() == stored.keys()
    for k in irs:
        assert _numbering_aside(irs[k]) == _numbering_aside(stored[k]), k


@pytest.mark.slow
def test_the_win64_dll_runs_in_the_c_host_under_wine(native_lv, tmp_path):
    """The FMU's win64 DLL in the project's C host cross-compiled with mingw, under wine, over 20 s of the bumpy
    road: exit 0, no Python DLL loaded, the state check bit-identical, and the rows of the Linux binary bit
    for bit: the kernels' sin, atan2, exp, tanh, ... are fmu_vehicle.numerics.elementary's, not the C runtime's
    (docs/native.md §5; with wine's libm the rows differed by up to 3.7e-12 of |Fx| max on the rear tire's force
    and 5.1e-12 of the pitch angle's range)."""
    if not shutil.which("x86_64-w64-mingw32-gcc") or not (shutil.which("wine64") or shutil.which("wine")):
        pytest.skip("needs x86_64-w64-mingw32-gcc and wine64 (Debian: gcc-mingw-w64-x86-64 wine64)")
    assert "binaries/win64/VehicleLV.dll" in zipfile.ZipFile(native_lv).namelist()
    linux = run_c_host(build_host(tmp_path / "fmi2_host"), native_lv, OUTPUTS, TORQUES, 1e-3, 20000, every=100,
                       python=False)
    win = run_c_host(build_host(tmp_path / "fmi2_host.exe", platform="win64"), native_lv, OUTPUTS, TORQUES, 1e-3,
                     20000, every=100, python=False, state_check=True, wine_prefix=tmp_path / "wine")
    assert win.returncode == 0, win.stderr[-2000:]
    assert "libpython mapped: no" in win.stderr and "state restore bit-identical" in win.stderr
    assert win.rows.shape == linux.rows.shape == (201, 1 + len(OUTPUTS))
    error = np.abs(win.rows - linux.rows)
    print("largest difference relative to each output's largest value:",
          np.max(error / np.maximum(np.max(np.abs(linux.rows), axis=0), 1e-300)))
    assert np.array_equal(win.rows, linux.rows)


STEP_STEER = r"""
import json, sys
import numpy as np
from fmpy import simulate_fmu
# ISO 7401 step steer at 80 km/h: the steering-wheel angle ramps from 0 to 40 deg in 0.15 s at t = 0.5 s
t = np.array([0.0, 0.5, 0.65, 3.0])
signal = np.array(list(zip(t, np.radians([0.0, 0.0, 40.0, 40.0]))),
                  dtype=[("time", float), ("steering_wheel_angle", float)])
outputs = sys.argv[2].split(",")
r = simulate_fmu(sys.argv[1], stop_time=3.0, step_size=1e-3, output_interval=1e-3, input=signal, output=outputs,
                 start_values={} if sys.argv[3] == "native" else {"v0": 80 / 3.6})
print("ROWS " + json.dumps([[float(row["time"])] + [float(row[n]) for n in outputs] for row in r]))   # requested order
"""


@pytest.mark.slow
def test_native_vehicle_equals_the_python_fmu_in_an_iso_7401_step_steer(all_fmus, tmp_path):
    """The full car (40 states, rack steering, combined slip), exported with v0 = 80 km/h: the steering ramp
    runs in the compiled prepare step; 3 s of the step steer through FMPy equal the Python FMU's outputs."""
    import json
    import sys
    fmu = native.export("Vehicle", tmp_path, settings={"v0": str(80 / 3.6)}, targets=("linux64",))
    outputs = ["chassis.x", "chassis.y", "chassis.yaw_rate", "chassis.ay", "chassis.roll", "chassis.sideslip",
               "wheel_FL.tire_fy", "wheel_RR.tire_fz", "rack_travel", "steering_wheel_angle_applied"]
    runs = {}
    for kind, path in (("native", fmu), ("python", all_fmus["Vehicle"])):
        proc = subprocess.run([sys.executable, "-c", STEP_STEER, str(path), ",".join(outputs), kind],
                              capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-3000:]
        line = next(x for x in proc.stdout.splitlines() if x.startswith("ROWS "))
        runs[kind] = np.array(json.loads(line[5:]))
    ours, python = runs["native"], runs["python"]
    assert ours.shape == python.shape == (3001, 1 + len(outputs))
    assert abs(python[-1, 10] - np.radians(40.0)) < 1e-3         # the steering-wheel angle applied [rad]
    # the car turns: 40 deg at the wheel is 0.042 rad at the road wheels (rack ratio about 16.5), vx delta / L =
    # 0.35 rad/s without understeer; the understeering car settles near 0.20 rad/s (ay = vx r near 4.4 m/s^2)
    assert 0.15 < python[-1, 3] < 0.25 and 3.5 < python[-1, 4] < 5.5
    scale = np.maximum(np.abs(python).max(axis=0), 1e-300)
    print("largest difference relative to each output's largest value:", np.max(np.abs(ours - python) / scale))
    assert np.array_equal(ours, python)                  # bit for bit (measured: difference 0.0)


@pytest.mark.slow
def test_the_native_vehicle_dll_steers_under_wine_as_the_linux_library(tmp_path):
    """The full car's win64 DLL in the C host under wine: 10 s of a sine steer (0.7 rad at the steering wheel,
    0.5 Hz) at 80 km/h, exit 0, no Python DLL, the state check bit-identical, and the rows of the Linux library
    bit for bit. With the C runtime's libm (before fmu_vehicle.numerics.elementary) they differed by up to 3.5e-11 of an
    output's largest magnitude (the front left tire's side force): the steered car's yaw and roll modes carried
    the last-bit differences of wine's libm and the Newton starts they decided (docs/native.md §5)."""
    if not shutil.which("x86_64-w64-mingw32-gcc") or not (shutil.which("wine64") or shutil.which("wine")):
        pytest.skip("needs x86_64-w64-mingw32-gcc and wine64 (Debian: gcc-mingw-w64-x86-64 wine64)")
    fmu = native.export("Vehicle", tmp_path, settings={"v0": str(80 / 3.6)}, targets=("linux64", "win64"))
    outputs = ["chassis.x", "chassis.y", "chassis.yaw_rate", "chassis.ay", "chassis.roll", "wheel_FL.tire_fy",
               "wheel_RR.tire_fx", "wheel_FR.tire_fz"]
    steer = Inputs(signals={"steering_wheel_angle": (0.0, 0.7, 0.5)})
    linux = run_c_host(build_host(tmp_path / "fmi2_host"), fmu, outputs, steer, 1e-3, 10000, every=10, python=False)
    win = run_c_host(build_host(tmp_path / "fmi2_host.exe", platform="win64"), fmu, outputs, steer, 1e-3, 10000,
                     every=10, python=False, state_check=True, wine_prefix=tmp_path / "wine")
    assert linux.returncode == 0 and win.returncode == 0, linux.stderr[-2000:] + win.stderr[-2000:]
    assert "libpython mapped: no" in win.stderr and "state restore bit-identical" in win.stderr
    assert win.rows.shape == linux.rows.shape == (1001, 1 + len(outputs))
    assert np.ptp(linux.rows[:, 3]) > 0.2 and np.ptp(linux.rows[:, 4]) > 4.0      # it weaves: yaw rate, ay
    scale = np.maximum(np.abs(linux.rows).max(axis=0), 1e-300)
    print("largest difference relative to each output's largest value:",
          np.max(np.abs(win.rows - linux.rows) / scale))
    assert np.array_equal(win.rows, linux.rows)


EXTERNAL_POINTS = {"FL": (0.0, 1.1967), "FR": (0.0, -1.1967), "RL": (-4.1584, 1.1967), "RR": (-4.1584, -1.1967)}
"""The design contact points of fullcar14's wheels at rest (x, y) [m], where the external loads are given."""


@pytest.mark.slow
def test_native_vehicle_with_external_tire_loads_equals_the_python_fmu(all_fmus, tmp_path):
    """tire_source = external (Project Chrono's interface: a force at a point per wheel): the load levers about
    the wheel centres are set at initialization from the shipped initial outputs and before every step from
    the last ones. The rear wheels push with 200 N each, the front loads pulse by 300 N at 2 Hz: 1 s through
    FMPy equals the Python FMU bit for bit. (The physics of the levers: test_fmu_vehicle's
    test_external_point_loads_reproduce_the_internal_tire.)"""
    settings = {"road": "flat", "v0": 0.0, "tire_source": "external"}
    fmu = native.export("Vehicle", tmp_path, settings={k: str(v) for k, v in settings.items()}, targets=("linux64",))
    signals = {}
    for w, (x, y) in EXTERNAL_POINTS.items():
        front = w.startswith("F")
        signals.update({f"wheel_{w}.point.x": (x, 0.0, 0.0), f"wheel_{w}.point.y": (y, 0.0, 0.0),
                        f"wheel_{w}.point.z": (0.0, 0.0, 0.0),   # static loads about the weight: 2 x 6316 + 2 x 4740 N
                        f"wheel_{w}.force.z": (6316.0, 300.0, 2.0) if front else (4740.0, 0.0, 0.0),
                        f"wheel_{w}.force.x": (0.0, 0.0, 0.0) if front else (200.0, 0.0, 0.0)})
    inputs = Inputs(signals=signals, reals={"v0": 0.0}, strings={"road": "flat", "tire_source": "external"})
    outputs = ["chassis.x", "chassis.vx", "chassis.z", "chassis.pitch", "chassis.pitch_rate", "wheel_FL.travel",
               "wheel_RL.omega", "wheel_RR.tire_fx", "wheel_FR.suspension_force"]
    ours = run_fmpy(fmu, outputs, inputs, 1e-3, 1000, every=10)
    python = run_fmpy(all_fmus["Vehicle"], outputs, inputs, 1e-3, 1000, every=10)
    assert ours.returncode == 0 and python.returncode == 0, ours.stderr[-2000:] + python.stderr[-2000:]
    assert ours.rows.shape == python.rows.shape == (101, 1 + len(outputs))
    scale = np.maximum(np.abs(python.rows).max(axis=0), 1e-300)
    assert np.max(np.abs(ours.rows - python.rows) / scale) <= 1e-12
    # the loads act: constant forces are not a tire (nothing holds the body's pitch), so the car drifts: it moves
    # and pitches by centimetres and tenths of a radian in the second; the rear wheels carry the 200 N given
    assert abs(python.rows[-1, 1] - python.rows[0, 1]) > 0.02 and np.ptp(python.rows[:, 4]) > 0.1
    assert np.allclose(python.rows[:, 8], 200.0, rtol=1e-5)


@pytest.mark.slow
def test_the_lane_change_ssp_runs_with_the_native_vehicle_in_our_master_and_in_libcosim(registered_fmus, tmp_path):
    """The ISO 3888-1 double lane change (Driver.fmu steering the car; internal tires) with the native Vehicle
    exported with the scenario's own parameters (which the .ssp sets again: a fixed parameter takes its own
    value): our master's run equals the one with the Python Vehicle FMU, and libcosim's run of the native
    .ssp equals our Jacobi run of it to 1e-9."""
    pytest.importorskip("libcosimpy")
    from fmu_vehicle.cosim import read_ssp, run_system
    from fmu_vehicle.scenarios.full_car import double_lane_change
    from fmu_vehicle.scenarios.half_car import run_scenario

    fmus = {n: registered_fmus[n] for n in ("Vehicle", "Driver")}
    python_sc = double_lane_change(fmus, tires="internal")
    params = next(c for c in python_sc.system.components if c.name == "vehicle").parameters
    vehicle = native.export("Vehicle", tmp_path / "fmu", settings={k: str(v) for k, v in params.items()},
                            targets=("linux64",))
    sc = double_lane_change(dict(fmus, Vehicle=vehicle), tires="internal")
    ours = run_scenario(sc, tmp_path / "native", progress=False)
    reference = run_scenario(python_sc, tmp_path / "python", progress=False)
    signals = ("vehicle.chassis.y", "vehicle.chassis.yaw", "vehicle.wheel_FL.tire_fy", "vehicle.wheel_FR.tire_fz")
    assert ours.result["vehicle.chassis.y"].max() > 3.0                   # it changed lanes
    for name in signals:
        a, b = ours.result[name], reference.result[name]
        assert np.max(np.abs(a - b)) <= 1e-12 * max(1.0, np.max(np.abs(b))), name
    jacobi = run_system(read_ssp(ours.ssp), sc.experiment(read_ssp(ours.ssp), scheme="jacobi"), progress=False)
    theirs = run_libcosim(ours.ssp, len(jacobi.t) - 1, 1_000_000, signals)
    for name in signals:
        steps, values = theirs[name]
        assert steps[-1] == len(jacobi.t) - 1
        np.testing.assert_allclose(values, jacobi[name][steps], rtol=1e-9,
                                   atol=1e-9 * max(1.0, np.max(np.abs(values))))
