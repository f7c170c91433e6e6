"""The registry finds the FMUs in ``fmi/slaves/``: each slave script declares its FMU's name (``MODEL_NAME``).

* today's FMUs under today's names, in today's order (the build script's order), each name the one its
  script's slave class declares;
* a script added to the folder is an FMU, listed after those; a script that declares no name, two names, or a
  name another script declares is refused naming the script;
* a new controller FMU is two code files: a copy of the package with a model module in ``control/`` and a slave
  script in ``fmi/slaves/`` (nothing else edited) registers, builds and runs it.
"""
from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fmi_support import simulate_in_child
from fmu_vehicle.errors import FmuVehicleError
from fmu_vehicle.fmi.registry import FMUS, SLAVES_DIR, declared_name, find_fmus, slave_script
from timeouts import HANG_GUARD_S

REPO_DIR = Path(__file__).resolve().parents[1]

TODAY = (("Powertrain", "fmu_vehicle_powertrain.py"), ("Controller", "fmu_vehicle_controller.py"),
         ("LeadVehicle", "fmu_vehicle_lead_vehicle.py"), ("VehicleLV", "fmu_vehicle_vehicle_lv.py"),
         ("Vehicle", "fmu_vehicle_vehicle.py"), ("VehicleCombination", "fmu_vehicle_vehicle_combination.py"),
         ("TractorSemitrailer", "fmu_vehicle_tractor_semitrailer.py"), ("Tire", "fmu_vehicle_tire.py"),
         ("Driver", "fmu_vehicle_driver.py"), ("ChassisControl", "fmu_vehicle_chassis_control.py"),
         ("Robot", "fmu_vehicle_robot.py"))
"""The registry as it was written by hand before it found the scripts: names, scripts and order."""


def test_todays_fmus_keep_their_names_scripts_and_order():
    assert tuple(FMUS.items())[:len(TODAY)] == TODAY
    for name, script in FMUS.items():
        assert slave_script(name) == SLAVES_DIR / script and slave_script(name).is_file()


@pytest.mark.parametrize("name", list(FMUS))
def test_the_name_is_the_one_the_slave_class_declares(name):
    module = importlib.import_module(f"fmu_vehicle.fmi.slaves.{Path(FMUS[name]).stem}")
    declared = {c.MODEL_NAME for c in vars(module).values()
                if isinstance(c, type) and c.__module__ == module.__name__ and "MODEL_NAME" in vars(c)}
    assert declared == {name}


def test_an_unknown_name_is_refused_naming_the_registered_ones():
    with pytest.raises(FmuVehicleError, match="unknown FMU 'NoSuchFmu' \\(registered: Powertrain, Controller"):
        slave_script("NoSuchFmu")


SLAVE = '''
from fmu_vehicle.fmi.slave_base import SlaveBase


class {cls}(SlaveBase):
    MODEL_NAME = "{name}"    # the FMU's name
'''


def _folder_with(tmp_path: Path, scripts: dict[str, str]) -> Path:
    """A copy of the slaves folder with ``scripts`` (file name -> text) added."""
    folder = tmp_path / "slaves"
    shutil.copytree(SLAVES_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for file_name, text in scripts.items():
        (folder / file_name).write_text(text, encoding="utf-8")
    return folder


def test_a_script_added_to_the_folder_is_an_fmu_listed_after_todays(tmp_path):
    folder = _folder_with(tmp_path, {"fmu_vehicle_b_zeta.py": SLAVE.format(cls="Zeta", name="Zeta"),
                                     "fmu_vehicle_a_headway.py": SLAVE.format(cls="Headway", name="Headway"),
                                     "helper_not_a_slave.py": "X = 1\n"})
    found = find_fmus(folder)
    assert list(found) == [*FMUS, "Headway", "Zeta"]          # new ones in the order of their scripts' names
    assert found["Headway"] == "fmu_vehicle_a_headway.py"
    assert declared_name(folder / "fmu_vehicle_a_headway.py") == "Headway"


@pytest.mark.parametrize("text,words", [
    ("class A:\n    pass\n", "found 0"),
    (SLAVE.format(cls="A", name="A") + SLAVE.format(cls="B", name="B"), "found 2"),
    ("MODEL_NAME = 'Top'\n", "found 0"),                                # not in a class
    ("class A:\n    MODEL_NAME = NAME\n", "found 0"),                  # not a string literal
])
def test_a_script_that_declares_no_single_name_is_refused_naming_it(tmp_path, text, words):
    folder = _folder_with(tmp_path, {"fmu_vehicle_odd.py": text})
    with pytest.raises(FmuVehicleError, match=f"fmu_vehicle_odd.py: .*MODEL_NAME.*{words}"):
        find_fmus(folder)


def test_two_scripts_declaring_one_name_are_refused_naming_both(tmp_path):
    folder = _folder_with(tmp_path, {"fmu_vehicle_other_controller.py":
                                     SLAVE.format(cls="Controller", name="Controller")})
    with pytest.raises(FmuVehicleError, match="fmu_vehicle_other_controller.py and fmu_vehicle_controller.py both "
                                              "declare the FMU 'Controller'"):
        find_fmus(folder)


# --------------------------------------------------------------------------- a new controller FMU, end to end

MODEL = '''"""A headway warning: ``warning`` when the time gap to the lead, gap / speed [s], is below ``threshold`` [s],
sampled every ``sample_period`` [s]."""


class HeadwayWarning:
    STATE_KEYS = ("t", "gap", "speed", "warning")

    def __init__(self, sample_period, threshold, t0=0.0):
        self.sample_period, self.threshold = sample_period, threshold
        self.t, self.gap, self.speed, self.warning = t0, 100.0, 0.0, False

    def step(self, h):
        self.t += h
        self.warning = self.speed > 0.0 and self.gap / self.speed < self.threshold

    def get_state(self):
        return {k: getattr(self, k) for k in self.STATE_KEYS}

    def set_state(self, state):
        for k in self.STATE_KEYS:
            setattr(self, k, state[k])
'''

HEADWAY_SLAVE = '''"""Headway.fmu: a headway warning (control/headway.py)."""
from fmu_vehicle.control.headway import HeadwayWarning
from fmu_vehicle.fmi.slave_base import SlaveBase
from fmu_vehicle.fmi.variables import Structure, Var


class Headway(SlaveBase):
    MODEL_NAME = "Headway"
    DESCRIPTION = "Headway warning"
    INTERNAL_STEP = "sample_period"
    VARIABLES = (Var("sample_period", "parameter", "fixed", "s", "sample period", 0.01, min=1e-4, max=1.0),
                 Var("threshold", "parameter", "fixed", "s", "warning time gap", 1.0, min=0.1, max=10.0),
                 Var("gap", "input", "continuous", "m", "bumper gap to the lead", 100.0, min=0.0, max=1e4),
                 Var("speed", "input", "continuous", "m/s", "own speed", 0.0, min=-100.0, max=100.0),
                 Var("warning", "output", "discrete", None, "headway warning", False, type="Boolean"))
    STRUCTURE = Structure()

    def _setup(self):
        self.model = HeadwayWarning(self.values["sample_period"], self.values["threshold"], self.start_time)

    def _advance(self, t, h):
        self.model.gap, self.model.speed = self.values["gap"], self.values["speed"]
        self.model.step(h)
        self.values["warning"] = self.model.warning

    def _state(self):
        return self.model.get_state()

    def _restore(self, state):
        self.model.set_state(state)
'''

BUILD = """
import sys
sys.path.insert(0, sys.argv[1])
from fmu_vehicle.fmi.build_cache import ensure_fmus
from fmu_vehicle.fmi.registry import FMUS
assert list(FMUS)[-1] == "Headway", list(FMUS)
print(ensure_fmus(["Headway"], sys.argv[2])["Headway"])
"""


@pytest.mark.slow
def test_a_new_controller_fmu_is_its_model_module_and_its_slave_script(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(REPO_DIR / "fmu_vehicle", src / "fmu_vehicle",
                    ignore=shutil.ignore_patterns("__pycache__", "resources"))
    shutil.copy(REPO_DIR / "pyproject.toml", src / "pyproject.toml")
    (src / "fmu_vehicle" / "control" / "headway.py").write_text(MODEL, encoding="utf-8")
    (src / "fmu_vehicle" / "fmi" / "slaves" / "fmu_vehicle_headway.py").write_text(HEADWAY_SLAVE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", BUILD, str(src), str(tmp_path / "out")], capture_output=True,
                          text=True, cwd=src, env=env, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    fmu = Path(proc.stdout.strip().splitlines()[-1])
    assert fmu == tmp_path / "out" / "Headway.fmu"
    # 20 m behind at 25 m/s (0.8 s): a warning; at 15 m/s (1.33 s): none
    for speed, warning in ((25.0, True), (15.0, False)):
        rows = simulate_in_child(fmu, tmp_path / f"run_{speed:g}", 0.05, 0.01,
                                 start_values={"gap": 20.0, "speed": speed}, outputs=["warning"])
        assert bool(rows["warning"][-1]) is warning
