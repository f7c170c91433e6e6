"""The checks shared by the combination FMUs' test modules (no tests here): tests/test_fmu_combination.py
(VehicleCombination, the car with its caravan) and tests/test_fmu_tractor_semitrailer.py (TractorSemitrailer).

``run_combination`` runs, in two child processes side by side, a steady turn through ``VehicleSimulator`` (the
Python API) and, through FMPy, the same turn, the initialization outputs at rest (the default towed unit and a
heavier one), the FMU state checks and a list of refused cases. ``c_host_turn`` runs the turn in the project's
C host, ``native_turn`` a turn through a native export and the Python FMU, ``run_system_file`` a shipped
scenario system in the project's master. ``dependencies`` reads the ModelStructure.
"""
from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
from lxml import etree

from fmu_vehicle.fmi.hosts import Inputs, check_fmu
from fmu_vehicle.paths import REPO_DIR

from fmu_cases import BAD_INPUT_HARNESS, STATE_HARNESS
from fmi_support import CHILD_PRELUDE, collect_children, spawn_child

REFERENCE_CHILD = '''
import pickle, sys
INPUTS = pickle.load(open("inputs.pkl", "rb"))
sys.path.insert(0, INPUTS["repo"])            # this checkout's package (the child runs without PYTHONPATH)
import numpy as np
from fmu_vehicle.vehicle import Vehicle
car = Vehicle.load(INPUTS["model"])
sim = car.simulator("flat", v0=INPUTS["v0"], dt=INPUTS["h"])
rows = [sim.row.copy()]
for k in range(INPUTS["steps"]):
    sim.set_steering(INPUTS["swa"])
    sim.advance(INPUTS["h"])
    if (k + 1) % INPUTS["every"] == 0:
        rows.append(sim.row.copy())
pickle.dump({"names": car.output_names, "rows": np.array(rows)}, open("result.pkl", "wb"))
'''

FMU_CHILD = '''
import shutil
RESULT = {}
H = INPUTS["h"]
fmu = Fmu(INPUTS["fmu"])
outs = [v.name for v in fmu.md.modelVariables if v.causality == "output"]
ovr = [fmu.vr[n] for n in outs]
TURN = {"road": "flat", "v0": INPUTS["v0"], "steering_wheel_angle": INPUTS["swa"]}
HEAVY = {INPUTS["mass_parameter"]: INPUTS["heavy"]}

# ---- 1. a steady left turn at a constant steering-wheel angle
f = fmu.new("turn", start=TURN)
rows = [f.getReal(ovr)]
for k in range(INPUTS["steps"]):
    f.doStep(k * H, H)
    if (k + 1) % INPUTS["every"] == 0:
        rows.append(f.getReal(ovr))
f.terminate(); f.freeInstance()
RESULT["names"], RESULT["rows"] = outs, np.array(rows)

# ---- 2. at rest (initialization outputs): the default towed unit, then a heavier one
for label, start in (("rest", {"road": "flat", "v0": 0.0}), ("rest_heavy", {"road": "flat", "v0": 0.0, **HEAVY})):
    f = fmu.new(label, start=start)
    RESULT[label] = dict(zip(outs, f.getReal(ovr)))
    f.terminate(); f.freeInstance()

# ---- 3. FMU state: rollback, serialization, reset, interleaved instances (the other one heavier)
drive = lambda k: {"steering_wheel_angle": INPUTS["swa"] * min(1.0, k / 100)}
RESULT["state"] = check_state(fmu, drive, 300, 200, h=H, start={"road": "flat", "v0": INPUTS["v0"]},
                              restore_start={"road": "flat", "v0": INPUTS["v0"]},
                              other_start={"road": "flat", "v0": INPUTS["v0"], **HEAVY})

# ---- 4. refused parameters and inputs
for label, start, actions in INPUTS["bad"]:
    case(fmu, label, start=start, actions=actions)
RESULT["bad"] = BAD
shutil.rmtree(fmu.dir, ignore_errors=True)
'''


def run_combination(fmu: Path, workdirs, *, model: str, h: float, v0: float, swa: float, steps: int, every: int,
                    mass_parameter: str, heavy: float, bad: list) -> dict:
    """{"reference": the Python API's turn, "fmu": FMPy's turn, rest, rest_heavy, state and bad cases} of
    combination FMU ``fmu`` with vehicle file ``model``: the steady turn at ``v0`` [m/s] and steering-wheel
    angle ``swa`` [rad] for ``steps`` steps of ``h`` [s] (the output rows every ``every`` steps), the heavier
    towed unit with parameter ``mass_parameter`` = ``heavy`` [kg], ``bad`` = [(label, start values, actions)]
    (``fmu_cases.BAD_INPUT_HARNESS``). ``workdirs``: pytest's tmp_path_factory."""
    common = {"h": h, "v0": v0, "swa": swa, "steps": steps, "every": every, "model": model}
    ref_dir, fmu_dir = workdirs.mktemp(f"{model}_ref"), workdirs.mktemp(f"{model}_run")
    ref = spawn_child(REFERENCE_CHILD, ref_dir, {**common, "repo": str(REPO_DIR)})
    prelude = CHILD_PRELUDE + "\nINPUTS = pickle.load(open('inputs.pkl', 'rb'))\n" + BAD_INPUT_HARNESS + STATE_HARNESS
    run = spawn_child(prelude + FMU_CHILD + "\npickle.dump(RESULT, open('result.pkl', 'wb'))\n", fmu_dir,
                      {**common, "fmu": str(fmu), "mass_parameter": mass_parameter, "heavy": heavy, "bad": bad})
    return collect_children({"reference": (ref, ref_dir), "fmu": (run, fmu_dir)})


def column(result: dict, name: str) -> np.ndarray:
    """The column ``name`` of the rows of a turn of ``run_combination``."""
    return result["rows"][:, list(result["names"]).index(name)]


def gravity(car) -> float:
    """The vehicle's gravitational acceleration [m/s^2], positive."""
    return -float(car.spec.mechanism.gravity_m_per_s2[2])


def dependencies(fmu: Path, section: str) -> dict:
    """ModelStructure/<section>: output name -> the names of the inputs it depends on (a list, or None when the
    attribute is absent)."""
    with zipfile.ZipFile(fmu) as archive:
        root = etree.fromstring(archive.read("modelDescription.xml"))
    names = [sv.get("name") for sv in root.iter("ScalarVariable")]
    out = {}
    for unknown in root.find("ModelStructure").find(section):
        deps = unknown.get("dependencies")
        out[names[int(unknown.get("index")) - 1]] = None if deps is None else \
            [names[int(i) - 1] for i in deps.split()]
    return out


def c_host_turn(fmu: Path, c_host, reference: dict, outputs: list, *, swa: float, v0: float, h: float,
                steps: int) -> None:
    """The steady turn of ``run_combination`` in the C host (two runs, each with a state save/restore check) and
    in FMPy: exit code 0, the same bits; the C host's ``outputs`` at the end equal the Python API's
    (``reference``) to 1e-12 (relative above 1)."""
    import pytest
    report = check_fmu(fmu, inputs=Inputs(signals={"steering_wheel_angle": (swa, 0.0, 1.0)}, reals={"v0": v0},
                                          strings={"road": "flat"}),
                       outputs=outputs, step=h, n_steps=steps, every=steps // 4, runs=2, host=c_host)
    for run in report.c_host:
        assert run.returncode == 0, run.stderr[-2000:]
        assert "state restore bit-identical" in run.stderr
    assert report.fmpy.returncode == 0, report.fmpy.stderr[-2000:]
    assert report.max_difference == 0.0
    last = report.c_host[0].rows[-1]
    assert last[0] == pytest.approx(steps * h, abs=1e-9)
    for k, name in enumerate(outputs, 1):
        assert last[k] == pytest.approx(column(reference, name)[-1], rel=0.0,
                                        abs=1e-12 * max(1.0, abs(last[k]))), name


NATIVE_TURN = r"""
import json, sys
import numpy as np
from fmpy import simulate_fmu
# the steering-wheel angle ramps to 0.5 rad (left) from 0.5 s to 0.65 s and is held to 4 s
t = np.array([0.0, 0.5, 0.65, 4.0])
signal = np.array(list(zip(t, [0.0, 0.0, 0.5, 0.5])), dtype=[("time", float), ("steering_wheel_angle", float)])
outputs = sys.argv[2].split(",")
tuned = json.loads(sys.argv[4])          # Real parameters set at run time in both FMUs
r = simulate_fmu(sys.argv[1], stop_time=4.0, step_size=1e-3, output_interval=1e-3, input=signal, output=outputs,
                 start_values=tuned if sys.argv[3] == "native" else {"v0": 15.0, "road": 3, **tuned})  # road 3 = flat
print("ROWS " + json.dumps([[float(row["time"])] + [float(row[n]) for n in outputs] for row in r]))
"""


def native_turn(name: str, python_fmu: Path, tmp_path: Path, outputs: list,
                tuned: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(native rows, Python FMU rows) [time, *outputs] every 1 ms of ``NATIVE_TURN`` (4 s at 15 m/s on the flat
    road, 0.5 rad of steering-wheel angle from 0.65 s) through FMPy: ``fmu-vehicle export --native <name>`` with
    v0 and the road fixed at export, and the Python FMU ``python_fmu`` with them as start values; the Real
    parameters ``tuned`` (name -> value) set as start values in both."""
    from fmpy.validation import validate_fmu

    from fmu_vehicle.native import fmu as native

    path = native.export(name, tmp_path, settings={"v0": "15.0", "road": "flat"}, targets=("linux64",))
    assert validate_fmu(str(path)) == []
    runs = {}
    for kind, where in (("native", path), ("python", python_fmu)):
        proc = subprocess.run([sys.executable, "-c", NATIVE_TURN, str(where), ",".join(outputs), kind,
                               json.dumps(tuned or {})],
                              capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-3000:]
        line = next(x for x in proc.stdout.splitlines() if x.startswith("ROWS "))
        runs[kind] = np.array(json.loads(line[5:]))
    return runs["native"], runs["python"]


def run_system_file(stem: str, fmu_dir: Path, outputs: tuple):
    """(system, result): the shipped ``resources/scenarios/<stem>.ssd`` with the FMUs of ``fmu_dir``, run by the
    project's master to its stop time (Gauss-Seidel: driver then vehicle), ``outputs`` every 10 ms."""
    from fmu_vehicle.adas.systems import system_file
    from fmu_vehicle.cosim import Experiment, read_ssp, run_system

    system = read_ssp(system_file(stem), fmu_dir=fmu_dir)
    experiment = Experiment.from_system(system, scheme="gauss-seidel", order=("driver", "vehicle"), outputs=outputs,
                                        output_interval=0.01)
    return system, run_system(system, experiment, progress=False)
