"""Build the co-simulation test FMUs once per test session and wire them into small systems.

Each script has a unique file name (pythonfmu imports a slave by module name in the process-wide
``sys.modules``, so two scripts of one name would run each other's code) and is built in its own subprocess
(``python -m pythonfmu build -f <script> -d <dir>``), so the test process never imports a slave script.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from timeouts import HANG_GUARD_S

HERE = Path(__file__).resolve().parent
#: key -> (script, FMU file name = class name + .fmu)
SCRIPTS = {"plant": ("cosim_test_plant.py", "CosimTestPlant.fmu"),
           "ctrl": ("cosim_test_ctrl.py", "CosimTestCtrl.fmu"),
           "faulty": ("cosim_test_faulty.py", "CosimTestFaulty.fmu")}
_built: dict[str, Path] = {}


def build_fmus(dest: Path) -> dict[str, Path]:
    """Build every test FMU into ``dest`` (parallel subprocesses); key -> FMU path."""
    dest.mkdir(parents=True, exist_ok=True)
    procs = {key: subprocess.Popen([sys.executable, "-m", "pythonfmu", "build", "-f", str(HERE / script),
                                    "-d", str(dest)], cwd=dest, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
             for key, (script, _) in SCRIPTS.items()}
    for key, proc in procs.items():
        out, _ = proc.communicate(timeout=HANG_GUARD_S)
        if proc.returncode != 0:
            raise RuntimeError(f"pythonfmu build of {SCRIPTS[key][0]} failed (rc={proc.returncode}):\n{out}")
    paths = {key: dest / fmu for key, (_, fmu) in SCRIPTS.items()}
    for key, path in paths.items():
        if not path.is_file():
            raise RuntimeError(f"pythonfmu build of {SCRIPTS[key][0]} did not write {path}")
    return paths


def session_fmus(tmp_path_factory) -> dict[str, Path]:
    """The test FMUs, built on first use in this process (call from session-scoped fixtures)."""
    if not _built:
        _built.update(build_fmus(tmp_path_factory.mktemp("cosim_fmus")))
    return dict(_built)


# closed loop used by most tests: m x'' + c x' + k x = F,  F = Kp (x_ref - x) - Kd v
PLANT = {"m": 1.0, "k": 10.0, "c": 0.5, "x0": 1.0, "v0": 0.0}
CTRL = {"Kp": 30.0, "Kd": 4.0, "x_ref": 0.0}


def plant_ctrl_system(fmus: dict[str, Path], plant: dict | None = None, ctrl: dict | None = None,
                      ctrl_step: float | None = None, plant_step: float | None = None, extra=()):
    """System 'pd': plant.x, plant.v -> ctrl.x, ctrl.v; ctrl.F -> plant.F (parameters bound explicitly)."""
    from fmu_vehicle.cosim import Component, Connection, System

    components = [Component("plant", fmus["plant"], dict(PLANT, **(plant or {})), step_size=plant_step),
                  Component("ctrl", fmus["ctrl"], dict(CTRL, **(ctrl or {})), step_size=ctrl_step)]
    connections = [Connection("plant", "x", "ctrl", "x"), Connection("plant", "v", "ctrl", "v"),
                   Connection("ctrl", "F", "plant", "F")]
    components.extend(c for c in extra if hasattr(c, "source"))
    connections.extend(c for c in extra if hasattr(c, "start_element"))
    return System("pd", components, connections, start_time=0.0, stop_time=1.0, step_size=1e-3)
