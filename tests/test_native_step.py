"""The native step (fmu_vehicle.native): the package's RK4 communication step as C entry points, its (model,
data) buffers as relocatable images, and a shared library without Python that runs them.

The reference everywhere is ``VehicleSimulator.advance`` (the package's own stepper, JIT-compiled): the
native runs must reproduce its output rows bit for bit, on Linux and on Windows (the kernels call no libm
transcendental function: fmu_vehicle.numerics.elementary).
Runs are 2 s of 1 ms communication steps of the half car at 20 m/s on the bumpy road: the chassis ends near
x = 37.8 m, before the engine's origin moves (``REBASE_DISTANCE``).
"""
from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
from pathlib import Path

import numba
import numpy as np
import pytest

pytestmark = pytest.mark.skipif(bool(numba.config.DISABLE_JIT), reason="native steps need numba's compiler")

STEPS = 2000
H = 1e-3
V0 = 20.0
API = {"fv_advance", "fv_final", "fv_prepare", "fv_start", "fv_equilibrium", "fv_repartition", "fv_instance_new", "fv_instance_free", "fv_instance_blob", "fv_last_error",
       "fv_shape"}


class Case:
    """A simulator's state after construction (as an image and stepper arrays) and the rows the simulator
    then makes in ``STEPS`` steps of ``H``."""

    def __init__(self, vehicle_name, road, steps=STEPS):
        from fmu_vehicle.native.layout import ARRAY_DATA, make_image
        from fmu_vehicle.native.step import pack_system
        from fmu_vehicle.vehicle.vehicle import Vehicle

        self.vehicle = Vehicle.load(vehicle_name)
        sim = self.vehicle.simulator(road, v0=V0)
        p = pack_system(sim.system, self.vehicle.n_states)
        self.packed = p
        self.image = make_image(sim.system.model, p.model_buf, p.model_type, sim.system.data, p.data_buf,
                                p.data_type)
        self.key_word = self.image.field("data.inputs").word + ARRAY_DATA
        st = sim.stepper
        self.t0 = sim.t
        self.y, self.work, self.saved, self.row = st.y.copy(), st._work.copy(), st._saved.copy(), sim.row.copy()
        rows = []
        for _ in range(steps):
            sim.advance(H)
            rows.append(sim.row.copy())
        self.rows = np.array(rows)
        self.names = self.vehicle.output_names
        self.sim = sim

    def column(self, name):
        return self.names.index(name)


@pytest.fixture(scope="module")
def halfcar():
    return Case("halfcar7", "bumpy")


def test_the_reference_run_is_the_one_the_native_tests_expect(halfcar):
    x = halfcar.rows[:, halfcar.column("chassis.x")]
    assert x[-1] == pytest.approx(37.77, abs=0.05)            # 2 s at ~20 m/s, the CoM starts 2 m behind x0
    assert np.abs(x).max() < 100.0                              # no rebase of the engine's origin
    assert np.ptp(halfcar.rows[:, halfcar.column("wheel_front.tire_fz")]) > 1e3   # the bumps load the tires


# ---- layout: images and relocation -------------------------------------------------------------------------
def test_an_image_rebuilt_elsewhere_steps_bit_for_bit_like_the_simulator(halfcar):
    from fmu_vehicle.integrators.rk4 import rk4_advance_packed
    from fmu_vehicle.numerics.jit import entry_point
    from fmu_vehicle.native.layout import ARRAY_DATA, ARRAY_MEMINFO, ARRAY_PARENT, Image, rebuild

    img = Image.from_bytes(halfcar.image.to_bytes())            # through the file format
    assert np.array_equal(img.words, halfcar.image.words) and img.blob == halfcar.image.blob
    fields = halfcar.image.fields
    assert len(fields) == img.relocs.size
    for f in fields:                                            # data words are blob offsets, no pointers left
        assert img.words[f.word + ARRAY_MEMINFO] == 0 and img.words[f.word + ARRAY_PARENT] == 0
        assert 0 <= img.words[f.word + ARRAY_DATA] <= len(img.blob)
        assert img.words[f.word + ARRAY_DATA] == f.offset
    r = rebuild(img)
    inputs = r.array(halfcar.image, "data.inputs")
    assert np.array_equal(inputs, halfcar.sim.system.data.inputs)
    assert not np.shares_memory(inputs, halfcar.sim.system.data.inputs)
    p = halfcar.packed
    y, work, saved, row = halfcar.y.copy(), halfcar.work.copy(), halfcar.saved.copy(), halfcar.row.copy()
    key = inputs.reshape(-1)
    step = entry_point(rk4_advance_packed, r.model_buf, p.model_type, r.data_buf, p.data_type, 0.0, H, y, 1, row,
                       work, key, saved)
    t = halfcar.t0
    rows = []
    for _ in range(STEPS):
        done, status = step(r.model_buf, p.model_type, r.data_buf, p.data_type, t, H, y, 1, row, work, key, saved)
        assert (done, status) == (1, 0)
        t = t + H
        rows.append(row.copy())
    assert np.array_equal(np.array(rows), halfcar.rows)
    # the rebuilt run wrote its own engine workspace: the warm start it ended with is the simulator's
    assert np.array_equal(r.array(halfcar.image, "data.mech.z"), halfcar.sim.system.data.mech.z)


def test_views_of_one_memory_stay_one_memory_in_the_image():
    # (a package record type: a namedtuple class of a test module would enter numba's shared cache index)
    from fmu_vehicle.native.layout import make_image, rebuild
    from fmu_vehicle.numerics.packing import packed
    from fmu_vehicle.road.arrays import RoadArrays

    base = np.arange(10.0)
    none = np.zeros(0)
    value = RoadArrays(7, base, 2.5, 0.1, base[3:7], np.arange(4.0) + 40.0, 0.0, 0.0, 1, none, none, none)
    empty = RoadArrays(0, np.zeros(0), 0.0, 0.0, np.zeros(0), np.zeros(2), 0.0, 0.0, 1, none, none, none)
    buf, ty = packed(value)
    ebuf, ety = packed(empty)
    img = make_image(value, buf, ty, empty, ebuf, ety)
    a, view = img.field("model.params"), img.field("model.h_table")
    assert view.offset - a.offset == 3 * 8                      # one segment: the view inside its base
    assert img.field("data.params").offset == 0                 # empty arrays point at offset 0
    assert img.words[img.scalar("model.x0").byte // 8:][:1].view(np.float64)[0] == 2.5
    assert img.words[img.scalar("model.kind").byte // 8] == 7
    r = rebuild(img)
    ra, rview = r.array(img, "model.params"), r.array(img, "model.h_table")
    assert np.array_equal(ra, base) and np.array_equal(r.array(img, "model.s_table"), [40.0, 41.0, 42.0, 43.0])
    rview[0] = -1.0                                             # a write through the view shows in its base
    assert ra[3] == -1.0 and base[3] == 3.0
    # the rebuilt buffers hold the rebuilt addresses where the original held the originals
    assert r.model_buf[a.word + 4] == ra.ctypes.data and buf[a.word + 4] == base.ctypes.data


def test_plain_tuples_of_arrays_are_found_in_their_layouts():
    # homogeneous tuples are LLVM arrays [n x T], mixed ones structs: both are walked
    from fmu_vehicle.native.layout import make_image, rebuild
    from fmu_vehicle.numerics.packing import packed

    uni = (np.arange(3.0), np.arange(5.0) * 2.0)
    mixed = (np.arange(2, dtype=np.int64) + 7, 0.5, np.ones((2, 3)))
    img = make_image(uni, *packed(uni), mixed, *packed(mixed))
    r = rebuild(img)
    assert np.array_equal(r.array(img, "model.1"), [0.0, 2.0, 4.0, 6.0, 8.0])
    assert np.array_equal(r.array(img, "data.0"), [7, 8]) and np.array_equal(r.array(img, "data.2"), np.ones((2, 3)))
    assert img.words[img.scalar("data.1").byte // 8:][:1].view(np.float64)[0] == 0.5


def test_a_damaged_image_file_is_refused_with_the_reason(halfcar):
    from fmu_vehicle.native.layout import Image

    raw = halfcar.image.to_bytes()
    with pytest.raises(ValueError, match="magic"):
        Image.from_bytes(b"NOTANIMG" + raw[8:])
    with pytest.raises(ValueError, match="header says"):
        Image.from_bytes(raw[:-8])


# ---- the C entry points, in this process ---------------------------------------------------------------------
def _ptr(a):
    return ctypes.c_void_p(a.ctypes.data)


def test_the_c_entry_points_step_like_the_simulator_in_this_process(halfcar):
    from fmu_vehicle.integrators.rk4 import rk4_final
    from fmu_vehicle.native.layout import rebuild
    from fmu_vehicle.native.step import step_cfuncs

    p = halfcar.packed
    advance, final, _, start, equilibrium, _ = step_cfuncs(p.model_type, p.data_type, p.shape)  # (prepare: test_native_fmu)
    r = rebuild(halfcar.image)
    y, work, saved, row = halfcar.y.copy(), halfcar.work.copy(), halfcar.saved.copy(), halfcar.row.copy()
    key = r.array(halfcar.image, "data.inputs").reshape(-1)
    done = np.zeros(1, dtype=np.int64)
    vp, d = ctypes.c_void_p, ctypes.c_double
    f = ctypes.CFUNCTYPE(ctypes.c_int64, vp, vp, d, d, ctypes.c_int64, vp, vp, vp, vp, vp, vp)(advance.address)
    g = ctypes.CFUNCTYPE(ctypes.c_int64, vp, vp, d, vp, vp, vp)(final.address)
    t = halfcar.t0
    n = 500
    for k in range(n):
        status = f(_ptr(r.model_buf), _ptr(r.data_buf), t, H, 1, _ptr(y), _ptr(row), _ptr(work), _ptr(key),
                   _ptr(saved), _ptr(done))
        assert (status, done[0]) == (0, 1)
        assert np.array_equal(row, halfcar.rows[k])
        t = t + H
    # final: evaluate and record without a step, as rk4_final does on the simulator's own (model, data)
    row2, ydot, ydot_ref = np.zeros_like(row), np.zeros_like(y), np.zeros_like(y)
    assert g(_ptr(r.model_buf), _ptr(r.data_buf), t, _ptr(y), _ptr(row2), _ptr(ydot)) == 0
    assert np.array_equal(row2, halfcar.rows[n - 1])
    ref_row = np.zeros_like(row)
    ref = Case("halfcar7", "bumpy", steps=n)
    assert rk4_final(ref.sim.system.model, ref.sim.system.data, t, ref.sim.y, ref_row, ydot_ref) == 0
    assert np.array_equal(ydot, ydot_ref) and np.array_equal(ref_row, row2)
    assert np.abs(ydot).max() > 1.0                                         # a moving, bouncing car
    # start: the simulator's initial state at another speed from its start table (vehicle.start)
    table = ref.sim.start_table
    y_start = np.zeros_like(y)
    h = ctypes.CFUNCTYPE(ctypes.c_int64, vp, vp, vp, ctypes.c_int64, d, vp)(start.address)
    for v0 in (0.0, 7.5, V0):
        assert h(_ptr(table.y_rest), _ptr(table.speed_gain), _ptr(table.spin_radius), table.tire_from, v0,
                 _ptr(y_start)) == 0
        assert np.array_equal(y_start, ref.sim.vehicle.initial_state(ref.sim.vehicle.system("bumpy"), v0))
    # equilibrium: the static equilibrium and start table at another x0, on the image's (model, data) after the
    # 500 steps above, equal to the Python API's on a fresh system (vehicle.equilibrium)
    car = ref.sim.vehicle
    e = ctypes.CFUNCTYPE(ctypes.c_int64, vp, vp, d, d, ctypes.c_int64, vp, vp, vp, vp)(equilibrium.address)
    n_doubles, n_ints = p.shape.work_sizes()
    work_eq, ints = np.zeros(n_doubles), np.zeros(n_ints, dtype=np.int64)
    for x0 in (37.3, 50.25 - float(car.w_center0[0, 0])):     # the second with wheel 0 on a bump's crest
        got = [np.zeros_like(y) for _ in range(3)]
        assert e(_ptr(r.model_buf), _ptr(r.data_buf), x0, car.total_mass_kg, work_eq.ctypes.data, _ptr(ints),
                 *(_ptr(a) for a in got)) == 0
        want = car.start_table(car.system("bumpy"), x0)
        for a, b in zip(got, (want.y_rest, want.speed_gain, want.spin_radius)):
            assert np.array_equal(a, b)
        assert want.y_rest[0] == x0 - round(x0)                   # chassis.x from the origin at the nearest metre
    assert np.abs(got[0][1:] - table.y_rest[1:]).max() > 1e-3        # the car on a bump is not the car at 0 m


def test_the_repartition_entry_point_is_the_simulators():
    """A re-partition forced after 30 steps (the partition's reference pivot ratio zeroed in both): communication
    steps made as the native FMU makes them (advance; while it returns 1 with steps left: the repartition entry
    point, a fresh first stage, the steps left) equal the Python simulator's, which re-partitions inside
    advance, bit for bit: at the re-partition and 50 steps after it."""
    from fmu_vehicle.native.layout import rebuild
    from fmu_vehicle.native.step import step_cfuncs

    case = Case("halfcar7", "bumpy", steps=0)
    p = case.packed
    advance, _, _, _, _, repartition = step_cfuncs(p.model_type, p.data_type, p.shape)
    r = rebuild(case.image)
    y, work, saved, row = case.y.copy(), case.work.copy(), case.saved.copy(), case.row.copy()
    key = r.array(case.image, "data.inputs").reshape(-1)
    stats = r.array(case.image, "data.mech.stats")
    done = np.zeros(1, dtype=np.int64)
    vp, d = ctypes.c_void_p, ctypes.c_double
    f = ctypes.CFUNCTYPE(ctypes.c_int64, vp, vp, d, d, ctypes.c_int64, vp, vp, vp, vp, vp, vp)(advance.address)
    g = ctypes.CFUNCTYPE(ctypes.c_int64, vp, vp, vp)(repartition.address)
    sim = case.sim
    clock = [case.t0, 0]                                 # time [s], re-partitions made

    def communication_step():
        t = clock[0]
        st = f(_ptr(r.model_buf), _ptr(r.data_buf), t, H, 1, _ptr(y), _ptr(row), _ptr(work), _ptr(key), _ptr(saved),
               _ptr(done))
        made = int(done[0])
        while st == 1 and made < 1:
            assert g(_ptr(r.model_buf), _ptr(r.data_buf), _ptr(y)) == 0
            clock[1] += 1
            saved[0] = 0.0
            st = f(_ptr(r.model_buf), _ptr(r.data_buf), t + made * H, H, 1 - made, _ptr(y), _ptr(row), _ptr(work),
                   _ptr(key), _ptr(saved), _ptr(done))
            made += int(done[0])
        assert st in (0, 1) and made == 1
        clock[0] = t + H
        sim.advance(H)
        assert np.array_equal(y, sim.y) and np.array_equal(row, sim.row)

    for _ in range(30):
        communication_step()
    ref = float(stats[3])
    stats[3] = sim.system.data.mech.stats[3] = 0.0
    for _ in range(3):
        communication_step()
    assert clock[1] == 1
    assert stats[3] == sim.system.data.mech.stats[3] and stats[3] == pytest.approx(ref, rel=0.05)
    assert np.array_equal(r.array(case.image, "data.mech.indep"), sim.system.data.mech.indep)
    for _ in range(50):
        communication_step()
    assert clock[1] == 1


# ---- the shared library without Python ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fullcar():
    return Case("fullcar14", "bumpy")


@pytest.fixture(scope="module")
def native_irs(halfcar, fullcar):
    """The IR of the half car's and the full car's entry points (one child process: same types, minutes)."""
    from fmu_vehicle.native.emit import fresh_irs
    return fresh_irs([(c.packed.model_type, c.packed.data_type, c.packed.shape) for c in (halfcar, fullcar)],
                     ["fmu_vehicle.vehicle.dynamics"])


@pytest.fixture(scope="module")
def halfcar_ir(native_irs):
    return native_irs[0]


def _files(case, folder):
    from fmu_vehicle.native.host import write_run
    image = folder / "image.bin"
    image.write_bytes(case.image.to_bytes())
    run = write_run(folder / "run.bin", len(case.rows), 1, case.key_word, case.t0, H, case.y, case.work, case.saved,
                    case.row)
    return image, run


@pytest.fixture(scope="module")
def linux_build(halfcar, halfcar_ir, tmp_path_factory):
    from fmu_vehicle.native.emit import TARGETS, build_library, missing_tools
    from fmu_vehicle.native.host import compile_host
    target = TARGETS["linux64"]
    if missing_tools(target):
        pytest.skip(f"no {', '.join(missing_tools(target))}")
    folder = tmp_path_factory.mktemp("native_linux")
    lib = build_library(*halfcar_ir, halfcar.packed.shape, target, folder)
    return folder, lib, compile_host(target, folder)


@pytest.mark.slow
def test_the_linux_library_needs_only_libc_and_libm(linux_build):
    folder, lib, _ = linux_build
    ldd = subprocess.run(["ldd", str(lib)], capture_output=True, text=True, check=True).stdout
    deps = {line.split()[0] for line in ldd.splitlines() if line.strip()}
    allowed = ("linux-vdso", "libc.so", "libm.so", "libdl.so", "libpthread.so", "/lib64/ld-linux", "ld-linux")
    assert deps and all(d.startswith(allowed) or "ld-linux" in d for d in deps), ldd
    assert any(d.startswith("libm.so") for d in deps)
    undefined = subprocess.run(["nm", "-u", str(lib)], capture_output=True, text=True, check=True).stdout
    names = {line.split()[-1].split("@")[0] for line in undefined.splitlines() if line.strip()}
    assert not {n for n in names if n.startswith(("Py", "_Py", "numba_", "NRT_"))}, names
    # no transcendental function of the platform's libm: the kernels' sin, atan2, tanh, ... are
    # fmu_vehicle.numerics.elementary's (the runtime's exp wrapper, native/emit.py OLD_GLIBC_VERSIONS, is not the step's)
    step_undefined = subprocess.run(["nm", "-u", str(folder / "fv_step-linux64.o")], capture_output=True, text=True,
                                    check=True).stdout
    step_names = {line.split()[-1] for line in step_undefined.splitlines() if line.strip()}
    assert not step_names & {"sin", "cos", "tan", "atan", "atan2", "asin", "exp", "tanh", "log", "pow", "hypot"}
    assert not names & {"sin", "cos", "tan", "atan", "atan2", "asin", "tanh", "log", "pow", "hypot"}
    exported = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True,
                              check=True).stdout
    assert {line.split()[-1] for line in exported.splitlines() if line.strip()} == API
    # every glibc symbol version the library needs is 2.17 or older (exp@GLIBC_2.29 is wrapped: native/emit.py)
    dynamic = subprocess.run(["objdump", "-T", str(lib)], capture_output=True, text=True, check=True).stdout
    versions = {tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)", dynamic)}
    assert versions and max(versions) <= (2, 17), sorted(versions)
    assert "(GLIBC_2.2.5) exp" in " ".join(dynamic.split())


@pytest.mark.slow
def test_the_step_object_would_be_refused_without_the_runtime_stand_ins(linux_build):
    from fmu_vehicle.native.emit import (LIBC_SYMBOLS, TARGETS, NativeBuildError, check_symbols, runtime_symbols,
                                         undefined_symbols)
    folder, _, _ = linux_build
    target = TARGETS["linux64"]
    obj = folder / "fv_step-linux64.o"
    undefined = undefined_symbols(obj, target)
    stand_ins = runtime_symbols(folder / "runtime-linux64.o", target)
    assert {"PyErr_SetString", "numba_unpickle", "numba_do_raise", "numba_gil_ensure"} <= undefined & stand_ins
    check_symbols(undefined, LIBC_SYMBOLS | stand_ins, "the step object")          # what the build did
    with pytest.raises(NativeBuildError, match="numba_do_raise"):
        check_symbols(undefined, LIBC_SYMBOLS, "the step object")
    # a kernel calling the platform's sin (math.sin instead of fmu_vehicle.numerics.elementary.sin) is refused by name
    with pytest.raises(NativeBuildError, match="libm for atan2, sin"):
        check_symbols(undefined | {"sin", "atan2"}, LIBC_SYMBOLS | stand_ins, "the step object")


@pytest.mark.slow
def test_the_linux_library_steps_bit_for_bit_like_the_simulator_without_python(halfcar, linux_build):
    from fmu_vehicle.native.host import run_host
    folder, lib, exe = linux_build
    image, run = _files(halfcar, folder)
    res = run_host(exe, lib, image, run, folder / "rows.bin", len(halfcar.names))
    assert res.returncode == 0, res.stderr
    assert res.summary["status"] == "0" and int(res.summary["steps"]) == STEPS
    assert res.summary["libpython"] == "0"                     # the host process maps no libpython
    assert float(res.summary["t"]) == halfcar.sim.t
    assert np.array_equal(res.rows, halfcar.rows)


@pytest.mark.slow
def test_a_raise_in_the_compiled_step_becomes_a_status_and_its_message(halfcar, linux_build):
    from fmu_vehicle.native.host import run_host
    from fmu_vehicle.native.layout import Image
    folder, lib, exe = linux_build
    img = halfcar.image
    words = img.words.copy()
    words[img.scalar("model.road.kind").byte // 8] = 99         # the road kernel raises on an unknown kind
    bad = folder / "bad_road"
    bad.mkdir(exist_ok=True)
    image, run = _files(halfcar, bad)
    image.write_bytes(Image(img.model_words, words, img.relocs, img.blob, ()).to_bytes())
    res = run_host(exe, lib, image, run, bad / "rows.bin", len(halfcar.names))
    assert res.returncode == 1 and res.summary["status"] == "-1000" and res.summary["steps"] == "0"
    assert "ValueError: road_eval: unknown road kind (in road_surface " in res.stderr

    # in a process that has libpython (this one), the stand-ins stay the library's own
    so = ctypes.CDLL(str(lib))
    so.fv_last_error.restype = ctypes.c_char_p
    so.fv_instance_new.restype = ctypes.c_void_p
    so.fv_instance_new.argtypes = [ctypes.c_char_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p]
    mb, db = ctypes.c_void_p(), ctypes.c_void_p()
    raw = img.to_bytes()
    assert so.fv_instance_new(raw[:-8], len(raw) - 8, ctypes.byref(mb), ctypes.byref(db)) is None
    assert b"file size" in so.fv_last_error()
    inst = so.fv_instance_new(raw, len(raw), ctypes.byref(mb), ctypes.byref(db))
    assert inst is not None and db.value - mb.value == 8 * img.model_words
    shape = np.zeros(5, dtype=np.int64)
    so.fv_shape(_ptr(shape))
    assert tuple(shape) == tuple(halfcar.packed.shape)[:5]
    so.fv_instance_free(ctypes.c_void_p(inst))
    # the raise in this process: the library's stand-ins answer, not this process's libpython
    vp, d = ctypes.c_void_p, ctypes.c_double
    so.fv_advance.restype = ctypes.c_int64
    so.fv_advance.argtypes = [vp, vp, d, d, ctypes.c_int64, vp, vp, vp, vp, vp, vp]
    raw = image.read_bytes()
    inst = so.fv_instance_new(raw, len(raw), ctypes.byref(mb), ctypes.byref(db))
    y, work, saved, row = halfcar.y.copy(), halfcar.work.copy(), halfcar.saved.copy(), halfcar.row.copy()
    key = img.field("data.inputs")
    key_ptr = ctypes.c_int64.from_address(mb.value + 8 * (key.word + 4)).value     # the instance's inputs
    done = np.ones(1, dtype=np.int64)
    status = so.fv_advance(mb, db, 0.0, H, 1, _ptr(y), _ptr(row), _ptr(work), vp(key_ptr), _ptr(saved), _ptr(done))
    assert (status, done[0]) == (-1000, 0)
    message = so.fv_last_error().decode()
    assert message.startswith("ValueError: road_eval: unknown road kind (in road_surface ")
    assert message.endswith("road/kernel.py)")
    so.fv_instance_free(ctypes.c_void_p(inst))


@pytest.mark.slow
def test_the_full_car_library_steps_bit_for_bit_like_the_simulator(fullcar, native_irs, tmp_path):
    from fmu_vehicle.native.emit import TARGETS, build_library
    from fmu_vehicle.native.host import compile_host, run_host
    assert fullcar.vehicle.n_wheels == 4 and fullcar.packed.shape.n_states > 20
    target = TARGETS["linux64"]
    lib = build_library(*native_irs[1], fullcar.packed.shape, target, tmp_path)
    image, run = _files(fullcar, tmp_path)
    res = run_host(compile_host(target, tmp_path), lib, image, run, tmp_path / "rows.bin", len(fullcar.names))
    assert res.returncode == 0, res.stderr
    assert res.summary["libpython"] == "0" and int(res.summary["steps"]) == STEPS
    assert np.array_equal(res.rows, fullcar.rows)
    fz = [fullcar.column(f"wheel_{w}.tire_fz") for w in fullcar.vehicle.wheel_names]
    assert np.ptp(res.rows[:, fz], axis=0).min() > 1e3                   # every corner on the bumps


# ---- win64 ---------------------------------------------------------------------------------------------------
def _win64_missing():
    from fmu_vehicle.native.emit import TARGETS, missing_tools
    from fmu_vehicle.native.host import wine
    missing = missing_tools(TARGETS["win64"])
    if wine() is None:
        missing.append("wine64")
    return missing


@pytest.mark.slow
def test_the_win64_library_steps_like_the_simulator_under_wine(halfcar, halfcar_ir, tmp_path):
    """Bit for bit: the kernels call no transcendental function of the C runtime (fmu_vehicle.numerics.elementary's
    sin, atan2, exp, ... are sequences of IEEE operations), so the DLL under wine reproduces the simulator's
    rows exactly. (With the platform's libm, whose sin, cos, tan, asin, atan, atan2, exp and tanh differ from
    glibc's by 1 ulp for 0.1 % to 19 % of arguments, the states differed by up to 1e-11 of their largest value:
    a last bit can decide whether a Newton start within the position tolerance is iterated, docs/native.md §5.)"""
    missing = _win64_missing()
    if missing:
        pytest.skip(f"win64 needs {', '.join(missing)} (not found on PATH)")
    from fmu_vehicle.native.emit import TARGETS, build_library
    from fmu_vehicle.native.host import compile_host, run_host
    target = TARGETS["win64"]
    lib = build_library(*halfcar_ir, halfcar.packed.shape, target, tmp_path)
    dump = subprocess.run(["x86_64-w64-mingw32-objdump", "-p", str(lib)], capture_output=True, text=True).stdout
    dlls = {line.split()[-1].lower() for line in dump.splitlines() if "DLL Name" in line}
    assert dlls and not any("python" in d for d in dlls), dlls
    exe = compile_host(target, tmp_path)
    image, run = _files(halfcar, tmp_path)
    prefix = tmp_path / "wineprefix"
    res = run_host(exe, lib, image, run, tmp_path / "rows.bin", len(halfcar.names), target, wine_prefix=prefix)
    shutil.rmtree(prefix, ignore_errors=True)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.summary["status"] == "0" and int(res.summary["steps"]) == STEPS and res.summary["libpython"] == "0"
    assert np.array_equal(res.rows.view(np.int64), halfcar.rows.view(np.int64))   # every bit, -0.0 and nan too
