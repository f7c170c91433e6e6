"""The FMUs wherever they are imported: a C host, fresh processes, a wheel install, several FMUs per process.

* Every FMU runs in the project's C host (``fmu_vehicle/fmi/host/fmi2_host.c``, compiled here with ``cc``) as
  a separate process: instantiate, initialize, 1 s of 1 ms steps with sinusoidal inputs, a state saved at
  0.5 s and restored (directly and through serialization) with bit-identical outputs, terminate, free, exit
  -- 10 runs of VehicleLV and 3 of each other FMU (the same embedding code: the exit of the embedded
  interpreter is what repeated runs probe), each exit code 0, outputs equal to FMPy's.
* FMPy processes that simulate the five FMUs of the ACC scenario (LeadVehicle, VehicleLV, Tire, Powertrain,
  Controller) one after another exit 0 and leave ``sys.path`` as it was.
* Two builds of one FMU from different sources run side by side in one process, each with its own code.
* The Tire FMU's loads and the vehicle's states are valid right after (and during) initialization.
* Each FMU's ``requirements.txt`` names exactly the third-party distributions it imports.
* The FMU ships compiled code: a first instance with an empty user cache compiles nothing.
* ``pip install`` of the wheel works from another directory (data files installed with the package), from the
  system Python as from a virtual environment.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from fmu_vehicle.fmi.hosts import Inputs, build_host, check_fmu, default_outputs, run_c_host, run_fmpy
from fmu_vehicle.fmi.roads import SHIPPED_ROADS
from fmu_vehicle.numerics.jit import LINK_ONLY
from fmu_vehicle.paths import REPO_DIR
from timeouts import HANG_GUARD_S

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the C host and the FMU binaries "
                                "tested here are Linux x86-64")

R_TIRE = 0.4672
"""Free radius of the shipped tire [m] (resources/tires/dai2022_sedan.tir, UNLOADED_RADIUS)."""

#: inputs per FMU for the host runs: (offset, amplitude, frequency [Hz]); values a master would send
HOST_INPUTS = {
    "VehicleLV": Inputs(signals={"wheel_front.torque_drive": (300.0, 150.0, 1.0),
                                 "wheel_rear.torque_brake": (50.0, 50.0, 2.0)}),
    "Tire": Inputs(signals={"wheel.z": (R_TIRE - 0.012, 0.004, 3.0), "wheel.vx": (10.0, 1.0, 1.0),
                            "wheel.omega": (10.0 / (R_TIRE - 0.01), 1.0, 2.0)}),
    "Powertrain": Inputs(signals={"throttle": (0.4, 0.3, 1.0), "wheel_left.omega": (20.0, 5.0, 0.5),
                                  "wheel_right.omega": (20.0, 5.0, 0.5)}),
    "Controller": Inputs(signals={"ego.x": (0.0, 10.0, 0.2), "ego.vx": (15.0, 2.0, 0.5),
                                  "lead.x": (40.0, 5.0, 0.3), "lead.vx": (12.0, 2.0, 0.5)}),
    "LeadVehicle": Inputs(),
    "Vehicle": Inputs(signals={"steering_wheel_angle": (0.0, 0.6, 1.0), "wheel_FL.torque_drive": (150.0, 100.0, 1.0),
                               "wheel_FR.torque_drive": (150.0, 100.0, 1.0), "wheel_RR.torque_brake": (50.0, 50.0, 2.0)},
                      strings={"road": "flat"}),
    "Driver": Inputs(signals={"chassis.x": (0.0, 10.0, 0.2), "chassis.y": (0.3, 0.5, 0.5),
                              "chassis.yaw": (0.0, 0.1, 0.5), "chassis.vx": (15.0, 2.0, 0.5),
                              "target_speed": (15.0, 1.0, 0.3)}, reals={"path.x_offset": 60.0}),
    # braking at 20 m/s with the front wheels slowing (ABS cycles), turning (ESC acts)
    "ChassisControl": Inputs(signals={"driver.pedal_force": (300.0, 100.0, 1.0), "chassis.vx": (20.0, 0.5, 0.5),
                                      "wheel_FL.omega": (38.0, 8.0, 3.0), "wheel_FR.omega": (40.0, 6.0, 2.0),
                                      "wheel_RL.omega": (43.0, 1.0, 1.0), "wheel_RR.omega": (43.0, 1.0, 1.0),
                                      "chassis.yaw_rate": (0.1, 0.2, 0.7), "chassis.ay": (2.0, 3.0, 0.7),
                                      "steering_wheel_angle": (0.2, 0.5, 0.7)}),
    "Robot": Inputs(strings={"steering_profile": "0:0,0.5:0,1:90,2:-90"}),
}


@pytest.fixture(scope="module")
def c_host(tmp_path_factory):
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc) on this machine")
    return build_host(tmp_path_factory.mktemp("c_host") / "fmi2_host")


def test_the_fmpy_check_runs_the_code_the_fmu_ships(registered_fmus):
    """``fmu-vehicle doctor`` (and the comparisons here) run the FMU in FMPy beside the package's own
    ``elementary.sin``: the FMU still loads the portable kernels it ships, as in a host, instead of compiling the
    model for this CPU (which it would log: ``jit.COMPILE_NOTICE``)."""
    fmu = Path(registered_fmus["VehicleLV"])
    run = run_fmpy(fmu, default_outputs(fmu, 3), Inputs(), 1e-3, 5)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.rows.shape == (6, 4)
    assert "compiling the model" not in run.stderr, run.stderr[-2000:]


HOST_RUNS = 3
"""C-host runs per FMU: each process starts and finalizes its own interpreter (the exit is where pythonfmu's
binary used to crash, now and then; the package's binary has no static destructor, docs/fmu_hosts.md)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HOST_INPUTS))
def test_fmu_in_c_host_exits_0_every_time_and_equals_fmpy(name, registered_fmus, c_host):
    fmu = Path(registered_fmus[name])
    report = check_fmu(fmu, inputs=HOST_INPUTS[name], step=1e-3, n_steps=1000, every=100,
                       runs=HOST_RUNS, host=c_host)
    assert len(report.c_host) == HOST_RUNS
    for run in report.c_host:
        assert run.returncode == 0, f"{name} in the C host exited {run.returncode}: {run.stderr[-2000:]}"
        assert "state restore bit-identical" in run.stderr
    assert report.fmpy.returncode == 0, report.fmpy.stderr[-2000:]
    assert report.fmpy.rows.shape == (11, 1 + len(default_outputs(fmu)))
    assert report.max_difference == 0.0                     # the same code and inputs: the same bits
    rows = report.fmpy.rows
    assert np.ptp(rows[:, 1:], axis=0).max() > 0.0          # the outputs really move over the second


def test_c_host_that_unloads_the_library_exits_0(scenario_fmus, c_host):
    """A host that dlcloses the FMU binary before exiting (the library stays pinned while its exit handler
    is registered)."""
    fmu = Path(scenario_fmus["VehicleLV"])
    run = run_c_host(c_host, fmu, ["chassis.x"], HOST_INPUTS["VehicleLV"], 1e-3, 50, every=50, unload=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.rows[-1, 1] > -2.0 + 0.9       # the centre of mass starts 2.0 m behind x0 = 0; 50 ms at 20 m/s


def test_c_host_reports_a_failing_step_with_its_status(scenario_fmus, c_host):
    """An invalid input in the C host: fmi2DoStep returns Discard, the host stops with code 3, no crash. (The
    input is valid at initialization, -100 sin(2 pi 50 t) N m, and below its min 0 from the second step on: an
    invalid initial input would make fmi2ExitInitializationMode return fmi2Error.)"""
    fmu = Path(scenario_fmus["VehicleLV"])
    bad = Inputs(signals={"wheel_front.torque_brake": (0.0, -100.0, 50.0)})      # min is 0
    run = run_c_host(c_host, fmu, ["chassis.x"], bad, 1e-3, 10)
    assert run.returncode == 3, run.stderr[-2000:]
    assert "fmi2DoStep returned status 2" in run.stderr and "wheel_front.torque_brake" in run.stderr


def test_c_host_runs_a_python_fmu_with_no_python_in_its_environment(scenario_fmus, c_host):
    """The FMU binary links this Python's libpython and starts it with this Python's home: no LD_PRELOAD, no
    PYTHONHOME or PYTHONPATH (docs/fmu_hosts.md); the numpy FMU runs, saves and restores its state, exits 0."""
    fmu = Path(scenario_fmus["Powertrain"])
    run = run_c_host(c_host, fmu, default_outputs(fmu), HOST_INPUTS["Powertrain"], 1e-3, 200, every=100,
                     state_check=True, python=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.rows.shape[0] == 3 and np.isfinite(run.rows).all()


SEQUENCE = """
import json, sys
from fmpy import simulate_fmu
fmus = json.loads(sys.argv[1])
before = list(sys.path)
ends = {}
for name, path in fmus:
    r = simulate_fmu(path, stop_time=0.02, output_interval=1e-3)
    ends[name] = float(r["time"][-1])
assert sys.path == before, (before, sys.path)
packages = sorted(m for m in sys.modules if m.startswith("_fmu_vehicle_") and "." not in m)
print(json.dumps({"ends": ends, "packages": packages}))
"""


UNPACK = """
import json, sys
from fmpy import simulate_fmu
rows = simulate_fmu(sys.argv[1], stop_time=0.01, output_interval=1e-3)
package = [m.__file__ for n, m in sys.modules.items() if n.startswith("_fmu_vehicle_") and "." not in n]
print(json.dumps({"package": package, "rows": len(rows), "path": sys.path}))
"""


def test_package_archive_is_unpacked_once_per_machine(scenario_fmus, tmp_path):
    """The package copy an FMU ships as one archive is unpacked into the per-user cache by the first process
    and imported from there, as is, by the next one; with no writable cache it is unpacked next to the
    slave script, inside the host's extraction folder, and the FMU runs all the same. Neither leaves an
    entry on sys.path."""
    from fmu_vehicle.fmi.build import PACKAGE_PREFIX

    def run(cache):
        env = dict(os.environ, XDG_CACHE_HOME=str(cache))
        out = subprocess.run([sys.executable, "-c", UNPACK, str(scenario_fmus["Powertrain"])], env=env,
                             cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD_S)
        assert out.returncode == 0, out.stderr[-3000:]
        result = json.loads(out.stdout.strip().splitlines()[-1])
        assert result["rows"] == 11 and not [p for p in result["path"] if "fmu_vehicle/packages" in p]
        return result

    cache = tmp_path / "cache"
    first = run(cache)
    folders = sorted((cache / "fmu_vehicle" / "packages").iterdir())
    assert [f.name.split("-")[0] for f in folders] == [Path(first["package"][0]).parent.name]
    assert folders[0].name.startswith(PACKAGE_PREFIX)                     # no unpacking leftovers either
    init = folders[0] / folders[0].name.split("-")[0] / "__init__.py"
    assert first["package"] == [str(init)]
    stamp = init.stat().st_mtime_ns
    assert run(cache)["package"] == [str(init)] and init.stat().st_mtime_ns == stamp     # not unpacked again
    blocked = tmp_path / "not_a_folder"
    blocked.write_text("")
    fallback = run(blocked)["package"][0]
    assert f"/resources/{Path(fallback).parent.name}/__init__.py" in fallback
    assert not fallback.startswith(str(cache))


@pytest.mark.slow
def test_fmpy_processes_running_every_fmu_in_turn_exit_0(scenario_fmus, tmp_path):
    """LeadVehicle first (its extraction folder is deleted when its run ends), then the FMUs that import
    more of the package: each finds its modules; five processes in a row exit 0."""
    order = [(n, str(scenario_fmus[n])) for n in ("LeadVehicle", "VehicleLV", "Tire", "Powertrain", "Controller")]
    for _ in range(5):
        proc = subprocess.run([sys.executable, "-c", SEQUENCE, json.dumps(order)], capture_output=True, text=True,
                              cwd=tmp_path, timeout=HANG_GUARD_S)
        assert proc.returncode == 0, proc.stderr[-3000:]
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        assert out["ends"] == {n: pytest.approx(0.02) for n, _ in order}
        assert len(out["packages"]) == 1                    # one build: one shared package copy


SIDE_BY_SIDE = """
import json, sys
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
slaves = []
for k, path in enumerate(sys.argv[1:]):
    md = read_model_description(path)
    f = FMU2Slave(guid=md.guid, unzipDirectory=extract(path), modelIdentifier=md.coSimulation.modelIdentifier,
                  instanceName=f"lead{k}")
    f.instantiate(); f.setupExperiment(startTime=0.0); f.enterInitializationMode(); f.exitInitializationMode()
    x = next(v.valueReference for v in md.modelVariables if v.name == "x")
    slaves.append((md.guid, f, x))
rows = []
for i in range(100):                                        # interleaved steps
    for guid, f, x in slaves:
        f.doStep(i * 0.01, 0.01)
    rows.append([f.getReal([x])[0] for _, f, x in slaves])
packages = sorted(m for m in sys.modules if m.startswith("_fmu_vehicle_") and "." not in m)
print(json.dumps({"guids": [g for g, _, _ in slaves], "last": rows[-1], "packages": packages}))
"""


@pytest.mark.slow
def test_two_builds_from_different_sources_run_side_by_side(scenario_fmus, tmp_path):
    """A copy of the package whose LeadVehicle reports x + 1000 m, built in its own process: in one host
    process with today's LeadVehicle, each instance runs its own code."""
    src = tmp_path / "other"
    shutil.copytree(REPO_DIR / "fmu_vehicle", src / "fmu_vehicle",
                    ignore=shutil.ignore_patterns("__pycache__", "resources"))
    shutil.copytree(REPO_DIR / "fmu_vehicle" / "resources" / "vehicles", src / "fmu_vehicle" / "resources" / "vehicles")
    shutil.copy(REPO_DIR / "pyproject.toml", src / "pyproject.toml")
    slave = src / "fmu_vehicle" / "fmi" / "slaves" / "fmu_vehicle_lead_vehicle.py"
    text = slave.read_text()
    assert 'return lead_parameters(profile, values["x0"])' in text      # the start 1000 m ahead: x + 1000 m
    slave.write_text(text.replace('lead_parameters(profile, values["x0"])',
                                  'lead_parameters(profile, values["x0"] + 1000.0)'))
    build = ("import sys; sys.path.insert(0, sys.argv[1]); from fmu_vehicle.fmi.build import build_fmu; "
             "from fmu_vehicle.fmi.registry import slave_script; print(build_fmu(slave_script('LeadVehicle'), sys.argv[2]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", build, str(src), str(tmp_path / "out")], capture_output=True,
                          text=True, cwd=src, env=env, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-2000:]
    other = Path(proc.stdout.strip().splitlines()[-1])
    assert other.parent == tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", SIDE_BY_SIDE, str(scenario_fmus["LeadVehicle"]), str(other)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["guids"][0] != out["guids"][1]
    assert len(out["packages"]) == 2
    assert out["last"][1] - out["last"][0] == pytest.approx(1000.0, abs=1e-9)
    assert out["last"][0] > 0.0


def test_outputs_are_valid_during_and_after_initialization(scenario_fmus):
    """The Tire FMU reports the load of its initial inputs before any step; the vehicle reports its
    equilibrium at v0 while still in initialization mode (so a master propagates real initial values)."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    from fmu_vehicle.paths import resource_path
    from fmu_vehicle.tire.tir import read_tir
    from fmu_vehicle.vehicle import Vehicle

    def open_fmu(name):
        path = str(scenario_fmus[name])
        md = read_model_description(path)
        f = FMU2Slave(guid=md.guid, unzipDirectory=extract(path), modelIdentifier=md.coSimulation.modelIdentifier,
                      instanceName=name)
        f.instantiate()
        f.setupExperiment(startTime=0.0)
        return f, {v.name: v.valueReference for v in md.modelVariables}

    tire, vr = open_fmu("Tire")
    tir = read_tir(resource_path("tires", "dai2022_sedan.tir"))
    deflection = 0.01
    tire.setReal([vr["wheel.z"], vr["wheel.vx"], vr["wheel.omega"]], [R_TIRE - deflection, 10.0, 10.0 / R_TIRE])
    tire.enterInitializationMode()
    tire.exitInitializationMode()
    fz = tire.getReal([vr["fz"]])[0]
    # a static tire: Fz = c_z * deflection (linear vertical stiffness at rest, no vertical velocity)
    assert fz == pytest.approx(tir.VERTICAL_STIFFNESS * tir.LCZ * deflection, rel=1e-12)
    tire.terminate()
    tire.freeInstance()

    car, vr = open_fmu("VehicleLV")
    car.setReal([vr["v0"]], [15.0])
    car.setInteger([vr["road"]], [SHIPPED_ROADS.index("flat") + 1])     # an Enumeration: its item value
    car.enterInitializationMode()
    vx, z = car.getReal([vr["chassis.vx"], vr["chassis.z"]])     # before exitInitializationMode
    sim = Vehicle.load("halfcar7").simulator("flat", v0=15.0)   # the same initial state through the Python API
    initial = dict(zip(sim.vehicle.output_names, sim.row))
    # v0 along the road; vx is along the chassis x axis, pitched by the static equilibrium (cos p = 0.9997)
    assert vx == pytest.approx(initial["chassis.vx"], rel=1e-9) and vx == pytest.approx(15.0, rel=1e-3)
    assert z == pytest.approx(initial["chassis.z"], abs=1e-9) and z != 0.0
    car.exitInitializationMode()
    assert car.getReal([vr["chassis.vx"], vr["chassis.z"]]) == [vx, z]
    car.terminate()
    car.freeInstance()


IMPORTS = """
import builtins, importlib, json, sys
from importlib import metadata
resources = sys.argv[1]
sys.path.insert(0, resources)
direct, real_import = set(), builtins.__import__
def record(name, globals=None, locals=None, fromlist=(), level=0):
    importer = (globals or {}).get("__name__") or ""
    if level == 0 and importer.startswith(("_fmu_vehicle_", "fmu_vehicle_")):    # the FMU's own code
        direct.add(name.split(".")[0])
    return real_import(name, globals, locals, fromlist, level)
builtins.__import__ = record
module = importlib.import_module(open(resources + "/slavemodule.txt").read().strip())
cls = [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__][-1]
s = cls(instance_name="probe", resources=resources)
s.enter_initialization_mode(); s.exit_initialization_mode(); s.do_step(0.0, 1e-3)
dists = metadata.packages_distributions()
print(json.dumps(sorted({d for t in direct if t not in sys.stdlib_module_names for d in dists.get(t, [])})))
"""


IMPORTED_WHERE_NEEDED = {"scipy": "the coherence of a two-track ISO 8608 road (iso8608_c_two_track, "
                                  "scipy.special) and the adaptive reference integrator (scipy.integrate): "
                                  "0.6 s of imports a run with neither does not pay"}
"""Distributions an FMU's package imports only inside the functions that need them (not in a default run)."""


@pytest.mark.parametrize("name", sorted(set(HOST_INPUTS) - {"Driver"}))
def test_requirements_list_exactly_the_distributions_an_fmu_imports(name, registered_fmus, tmp_path):
    """Every third-party distribution the FMU's own code imports while it runs is in requirements.txt, and
    nothing else is (pythonfmu is shipped in the FMU) but what it imports only where needed
    (:data:`IMPORTED_WHERE_NEEDED`). The Driver imports scipy only for a CSV path (tests/test_driver_fmu.py
    checks its requirements)."""
    with zipfile.ZipFile(registered_fmus[name]) as archive:
        archive.extractall(tmp_path)
        required = {line.split("<")[0].split(">")[0].split("=")[0].lower()
                    for line in archive.read("resources/requirements.txt").decode().split()}
    proc = subprocess.run([sys.executable, "-c", IMPORTS, str(tmp_path / "resources")], capture_output=True,
                          text=True, cwd=tmp_path, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {d.lower() for d in json.loads(proc.stdout.strip().splitlines()[-1])} - {"pythonfmu"}
    assert imported <= required and required - imported <= set(IMPORTED_WHERE_NEEDED), (imported, required)


COLD = """
import json, sys, time
from fmpy import simulate_fmu
t0 = time.perf_counter()
simulate_fmu(sys.argv[1], stop_time=2e-3, output_interval=1e-3)
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""


@pytest.mark.parametrize("name", ["VehicleLV", "Tire"])
def test_first_instance_with_an_empty_cache_compiles_nothing(name, scenario_fmus, tmp_path):
    """The FMU carries its kernels compiled for a portable CPU: with an empty user cache the first run only
    copies them (the cache folder then holds exactly the shipped files; a compile would add others)."""
    fmu = Path(scenario_fmus[name])
    with zipfile.ZipFile(fmu) as archive:        # the kernels are one archive in resources/numba_cache/
        assert [n for n in archive.namelist() if n.startswith("resources/numba_cache/")] == \
            ["resources/numba_cache/kernels.zip"]
        with zipfile.ZipFile(io.BytesIO(archive.read("resources/numba_cache/kernels.zip"))) as kernels:
            shipped = sorted(n for n in kernels.namelist() if not n.endswith("/"))
            size = archive.getinfo("resources/numba_cache/kernels.zip").file_size
            compression = {i.compress_type for i in kernels.infolist() if not i.is_dir()}
    assert any(n.endswith(".nbc") for n in shipped)
    assert not [n for n in shipped if f"{LINK_ONLY}." in n]     # an inline kernel's own code: not needed
    assert compression == {zipfile.ZIP_LZMA}
    assert size <= 5e6                                           # bytes; FMI cross-check's limit is 10 MB
    env = {k: v for k, v in os.environ.items() if k not in ("FMU_VEHICLE_CACHE_DIR", "PYTHONPATH")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    proc = subprocess.run([sys.executable, "-c", COLD, str(fmu)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-2000:]
    folders = list((tmp_path / "cache" / "fmu_vehicle").glob("numba-*"))
    assert len(folders) == 1
    found = sorted(p.relative_to(folders[0]).as_posix() for p in folders[0].rglob("*") if p.is_file())
    assert found == shipped


def test_a_build_ships_no_lock_or_half_written_kernel_file(scenario_fmus, tmp_path):
    """Builds of the same sources share one portable kernel folder and take turns under its lock file; what
    they archive leaves out the lock and numba's files in writing (``<file>.tmp.<id>``, renamed when done):
    here a stray one planted in the folder, as another process writing at that moment would leave it."""
    from filelock import FileLock

    from fmu_vehicle.fmi.build import BUILD_LOCK, build_fmu, portable_cache_dir
    from fmu_vehicle.fmi.registry import slave_script
    folder = portable_cache_dir(Path(scenario_fmus["Tire"]))
    stray = folder / "fmu_vehicle.tire.contact.tire_contact_3d-1.py311.nbi.tmp.0123456789abcdef"
    stray.write_bytes(b"half written")
    try:
        fmu = build_fmu(slave_script("Tire"), tmp_path)
    finally:
        stray.unlink()
    with zipfile.ZipFile(fmu) as archive, \
            zipfile.ZipFile(io.BytesIO(archive.read("resources/numba_cache/kernels.zip"))) as kernels:
        shipped = kernels.namelist()
    assert any(n.endswith(".nbc") for n in shipped)
    assert not [n for n in shipped if ".tmp" in n or n.endswith(BUILD_LOCK)]
    assert (folder / BUILD_LOCK).is_file()
    with FileLock(folder / BUILD_LOCK, timeout=0):          # released when the build is done
        pass


def running_site_dirs() -> list[str]:
    """The site-packages folders of this interpreter (a virtual environment's own, or the system's), where
    the package's dependencies are installed."""
    import site
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE and Path(site.getusersitepackages()).is_dir():
        dirs.append(site.getusersitepackages())
    return dirs


@pytest.mark.slow
def test_wheel_install_runs_from_another_directory(tmp_path):
    """``pip install`` of the built wheel (not editable) into a fresh environment: ``info`` lists the shipped
    vehicles and roads and ``simulate`` writes its CSV, from a directory that is not the checkout.

    The environment is made from this interpreter, whether that is the system's Python or a virtual
    environment (``venv --system-site-packages`` would see only the base interpreter's packages, which a
    virtual environment's test run does not have). It sees this interpreter's site-packages folders through
    a ``.pth`` file (their own ``.pth`` files, among them an editable install of the checkout, are not run),
    and pip installs the wheel with its dependencies from them, offline (``--no-index``): a dependency the
    wheel declares that is not installed fails the install."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    wheels = tmp_path / "wheels"
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                           "-w", str(wheels), str(REPO_DIR)], capture_output=True, text=True, env=env,
                          timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-2000:]
    wheel = next(wheels.glob("fmu_vehicle-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"fmu_vehicle/resources/vehicles/halfcar7.json", "fmu_vehicle/resources/tires/dai2022_sedan.tir",
            "fmu_vehicle/resources/roads/bumpy.json", "fmu_vehicle/fmi/host/fmi2_host.c"} <= names
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, timeout=HANG_GUARD_S)
    python = venv / "bin" / "python"
    own_site = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                              capture_output=True, text=True, env=env, timeout=HANG_GUARD_S).stdout.strip()
    (Path(own_site) / "_running_interpreter.pth").write_text("\n".join(running_site_dirs()) + "\n")
    proc = subprocess.run([str(python), "-m", "pip", "install", "--no-index", "-q", str(wheel)],
                          capture_output=True, text=True, env=env, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run([str(python), "-c", "import fmu_vehicle; print(fmu_vehicle.__file__)"], cwd=elsewhere,
                           capture_output=True, text=True, env=env, timeout=HANG_GUARD_S)
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout + where.stderr
    info = subprocess.run([str(venv / "bin" / "fmu-vehicle"), "info"], cwd=elsewhere, capture_output=True,
                          text=True, env=env, timeout=HANG_GUARD_S)
    assert info.returncode == 0, info.stderr[-2000:]
    assert "halfcar7:" in info.stdout and "fullcar14:" in info.stdout and "bumpy" in info.stdout
    sim = subprocess.run([str(venv / "bin" / "fmu-vehicle"), "simulate", "--vehicle", "halfcar7", "--road", "flat",
                          "--v0", "10", "--duration", "0.05", "-q", "-o", "run.csv"], cwd=elsewhere,
                         capture_output=True, text=True, env=env, timeout=HANG_GUARD_S)
    assert sim.returncode == 0, sim.stderr[-2000:]
    lines = (elsewhere / "run.csv").read_text().splitlines()
    assert len(lines) == 1 + 51 and lines[0].startswith("time")


def test_doctor_checks_an_fmu_and_rejects_a_missing_one(scenario_fmus, tmp_path, capsys):
    from fmu_vehicle.cli import main
    assert main(["doctor", str(scenario_fmus["LeadVehicle"]), "--runs", "2", "--steps", "100"]) == 0
    out = capsys.readouterr().out
    assert "libpython" in out and "C host exit codes [0, 0] (2/2 ok)" in out and "verdict: OK" in out
    assert main(["doctor", str(tmp_path / "none.fmu")]) == 2
    assert "none.fmu" in capsys.readouterr().err
