"""The numba cache is keyed by what each kernel depends on (fmu_vehicle/numerics/jit.py).

Static part: the import graph behind each module's key. Compiled part (a copy of the package, a fresh
subprocess per run, with a copy of this checkout's cache; numba's per-dispatcher cache hit and miss counts):
a second run of halfcar7 (10 ms, RK4) compiles nothing (an inline kernel's twin, which Python calls, included);
an edit of a module no kernel imports compiles nothing; an edit
of tire/pacejka.py recompiles the tire kernels a run calls but loads the multibody kernels of the same run,
and moves the source key of the vehicle's passes and the type key of the RK4 loop's vehicle entries (the
folder and index entry each is filed under: they would compile on their next call; compiling them again
here would take minutes), not those of the multibody engine or the RK4 module itself (the integrator
modules import no tire or vehicle module: the vehicle's passes reach the loop through the model's type).
"""
import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fmu_vehicle.numerics import jit
from timeouts import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[1]
PKG = REPO / "fmu_vehicle"

COUNTS = """
import json, sys
import numba
from numba import typeof
from fmu_vehicle.numerics import jit
from fmu_vehicle.vehicle import Vehicle
car = Vehicle.load("halfcar7")
system = car.system("bumpy")
if "integrate" in sys.argv[1:]:
    from fmu_vehicle.integrators import integrate
    integrate(system, car.initial_state(system, 20.0), 0.01, 1e-3)
if "tire" in sys.argv[1:]:        # the tire's own kernels, called directly (scalars and its parameter array)
    from fmu_vehicle.paths import resource_path
    from fmu_vehicle.tire import pacejka
    from fmu_vehicle.tire.tir import read_tir
    p = read_tir(resource_path("tires", "dai2022_sedan.tir")).to_array()
    fz = pacejka.vertical_force(p, 0.02, 0.0)
    assert fz > 0.0 and pacejka.mf_fx0(p, fz, 0.05, 1.0) > 0.0
counts = {}
for name, module in sorted(sys.modules.items()):
    if name.split(".")[0] != "fmu_vehicle":
        continue
    for attr, obj in vars(module).items():
        if isinstance(obj, numba.core.dispatcher.Dispatcher) and obj.py_func.__module__ == name:
            # an inline kernel called from Python runs its twin compiled with numba's wrappers (":python")
            for label, d in ((attr, obj), (attr + ":python", obj.__dict__.get("_fv_twin"))):
                if d is None:
                    continue
                hits, misses = sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values())
                if hits or misses:
                    counts[name[len("fmu_vehicle."):] + "." + label] = [hits, misses]
pkg = jit._PKG
keys = {m: jit.source_key(pkg / m) for m in ("vehicle/dynamics.py", "multibody/dynamics.py",
                                              "integrators/rk4.py", "tire/pacejka.py")}
keys["rk4 entry for this model"] = jit.types_key((typeof(system.model),))
print(json.dumps({"counts": counts, "keys": keys}))
"""


def _rel(paths):
    return {p.relative_to(PKG).as_posix() for p in paths}


def test_the_import_scan_finds_every_import_a_whole_module_parse_finds():
    """jit.import_statements parses import lines alone (fast); for every module of the package it finds at
    least the imports of a parse of the whole module (more only where a string holds an import line)."""
    def dumps(nodes):
        return {ast.dump(n) for n in nodes}

    for path in PKG.rglob("*.py"):
        source = path.read_bytes()
        whole = dumps(n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Import, ast.ImportFrom)))
        assert whole <= dumps(jit.import_statements(source)), path
    # continuation lines, relative imports, a name list in parentheses, an import inside a function
    text = b"import a.b, c\nfrom .x import (p,\n    q)\nfrom ..y import \\\n    r\ndef f():\n    import s\n"
    found = dumps(jit.import_statements(text))
    assert found == dumps(n for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.Import, ast.ImportFrom)))
    assert len(found) == 4


def test_keys_follow_the_static_import_graph():
    deps = {m: _rel(jit.dependencies(PKG / m)) for m in
            ("vehicle/dynamics.py", "multibody/dynamics.py", "tire/pacejka.py", "integrators/rk4.py")}
    assert {"vehicle/signals.py", "tire/pacejka.py", "multibody/dynamics.py", "numerics/jit.py"} <= deps["vehicle/dynamics.py"]
    assert "tire/pacejka.py" not in deps["multibody/dynamics.py"]
    assert deps["tire/pacejka.py"] == {"tire/pacejka.py", "tire/tir.py", "tire/interface.py", "errors.py", "util.py",
                                       "numerics/jit.py", "numerics/cache.py", "numerics/elementary.py",
                                       "numerics/numba_compat.py"}
    assert not any(d.startswith("vehicle/") for d in deps["integrators/rk4.py"])
    kernels = [p for p in PKG.rglob("*.py") if re.search(r"^\s*@[\w.]*njit", p.read_text(), re.M)]  # decorated kernels
    assert len(kernels) > 10
    outside = {"cli/__init__.py", "cli/simulate.py", "tools/bench.py", "__init__.py", "cosim/master.py", "adas/sweep.py",
               "fmi/slave_base.py"}
    for k in kernels:
        assert not outside & _rel(jit.dependencies(k)), k
    # the RK4 loop's entries for a vehicle are keyed by the vehicle's passes through the model's type
    from numba import typeof

    from fmu_vehicle.vehicle import Vehicle
    from fmu_vehicle.vehicle.dynamics import VehicleModel
    car = Vehicle.load("halfcar7")
    model_type = typeof(car.system("bumpy").model)
    assert model_type.instance_class is VehicleModel
    key = jit.types_key((model_type,))
    assert key and key != jit.types_key((typeof(1.0),)) == ""
    assert key == jit.types_key((model_type, typeof(1.0)))


def _run(pkg_parent: Path, cache: Path, *what: str) -> dict:
    """COUNTS in a fresh process on the package copy under ``pkg_parent``: {"counts", "keys"}."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", "FMU_VEHICLE_NATIVE")}
    env.update(FMU_VEHICLE_CACHE_DIR=str(cache), PYTHONPATH=str(pkg_parent))
    out = subprocess.run([sys.executable, "-c", COUNTS, *what], cwd=pkg_parent, env=env, capture_output=True,
                         text=True, timeout=HANG_GUARD_S)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _compiled(counts: dict) -> set:
    return {k for k, (hits, misses) in counts.items() if misses}


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


@pytest.mark.slow
def test_an_edit_recompiles_only_the_kernels_that_depend_on_it(tmp_path):
    copy = tmp_path / "src"
    shutil.copytree(PKG, copy / "fmu_vehicle", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # start from a copy of this checkout's kernel cache (the package copy has the same sources, so it finds
    # them: the cache does not depend on where the package lives); a cold compile here would cost minutes
    import fmu_vehicle
    cache = tmp_path / "cache"
    if fmu_vehicle.CACHE_DIR and Path(fmu_vehicle.CACHE_DIR).is_dir():
        shutil.copytree(fmu_vehicle.CACHE_DIR, cache)
    first = _run(copy, cache, "integrate", "tire")["counts"]
    assert {"integrators.rk4.rk4_chunk", "vehicle.equilibrium.static_equilibrium", "multibody.state.positions_and_residual",
            "tire.pacejka.vertical_force", "tire.pacejka.mf_fx0",
            "multibody.constraints.factor_dependent:python"} <= set(first)    # the counts cover these

    warm = _run(copy, cache, "integrate", "tire")       # nothing compiled, not even an inline kernel's twin
    assert _compiled(warm["counts"]) == set() and warm["counts"]["integrators.rk4.rk4_chunk"] == [1, 0]
    assert warm["counts"]["multibody.constraints.factor_dependent:python"] == [1, 0]

    # modules no kernel imports: the command line, co-simulation, ADAS
    _append(copy / "fmu_vehicle" / "cli" / "__init__.py", "\n# an edit outside the kernels\n")
    _append(copy / "fmu_vehicle" / "cosim" / "master.py", "\n# an edit outside the kernels\n")
    _append(copy / "fmu_vehicle" / "adas" / "sweep.py", "\n# an edit outside the kernels\n")
    outside = _run(copy, cache, "integrate", "tire")
    assert _compiled(outside["counts"]) == set() and outside["keys"] == warm["keys"]

    # the tire: its kernels compile again, the multibody kernels the same run calls load from the cache
    _append(copy / "fmu_vehicle" / "tire" / "pacejka.py", "\n# an edit of the tire\n")
    tire = _run(copy, cache, "tire")
    compiled = _compiled(tire["counts"])
    assert {"tire.pacejka.vertical_force", "tire.pacejka.mf_fx0"} <= compiled      # and the kernels they call
    assert all(k.startswith("tire.pacejka.") for k in compiled), compiled
    multibody = {k for k in tire["counts"] if k.startswith("multibody.")}
    assert multibody and all(tire["counts"][k] == [1, 0] for k in multibody)
    # ... and the vehicle's passes (which call the tire) and the RK4 loop's entries for a vehicle are filed
    # under new keys; the multibody engine's and the RK4 module's own keys stay
    before, after = warm["keys"], tire["keys"]
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {"tire/pacejka.py", "vehicle/dynamics.py", "rk4 entry for this model"}, changed
    assert "tire/pacejka.py" not in _rel(jit.dependencies(PKG / "integrators" / "rk4.py"))
    assert _compiled(_run(copy, cache, "tire")["counts"]) == set()


def test_each_source_key_has_its_own_folder_and_idle_ones_are_pruned(tmp_path):
    """A module's kernels live in ``<package folder>/<module>-<key>``; folders of other keys of that module
    unused for a day are deleted, except the two most recently used (importing the module is enough)."""
    import time
    key = jit.source_key(PKG / "tire" / "pacejka.py")[:jit.KEY_CHARS]
    tire = tmp_path / "tire"
    ages_h = {"pacejka-" + "1" * 16: 1, "pacejka-" + "2" * 16: 48, "pacejka-" + "3" * 16: 72,
              "pacejka-" + "4" * 16: 120, "contact-" + "5" * 16: 120, "pacejka-notakey": 120}
    for name, hours in ages_h.items():
        (tire / name).mkdir(parents=True)
        (tire / name / "x.nbi").write_bytes(b"index")
        t = time.time() - hours * 3600.0
        os.utime(tire / name, (t, t))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["FMU_VEHICLE_CACHE_DIR"] = str(tmp_path)
    subprocess.run([sys.executable, "-c", "import fmu_vehicle.tire.pacejka"], cwd=REPO, env=env, timeout=HANG_GUARD_S,
                   check=True)
    kept = {p.name for p in tire.iterdir() if p.name.startswith("pacejka-")}
    assert kept == {f"pacejka-{key}", "pacejka-" + "1" * 16, "pacejka-" + "2" * 16, "pacejka-notakey"}
    assert (tire / ("contact-" + "5" * 16)).is_dir()       # another module's: pruned by that module's import
