"""The package's layers import downwards only, no module imports another in a cycle, and no module takes a private
name (``_x``) from another package.

The engine knows nothing of integrators, vehicles, tires, roads or FMI; integrators know no model; vehicles, tires
and roads know nothing of FMI or co-simulation; the co-simulation master knows no vehicle. Imports inside
functions count like the others (a lazy import still ties the layers together).
"""
import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fmu_vehicle"

LEAVES = {"errors", "paths", "util"}
"""Top-level modules below every layer: they import at most each other (``util`` reads files and raises ``errors``)."""
BASE = LEAVES | {"numerics"}
"""What every layer may import: the leaves and ``numerics`` (jit, packing, elementary functions, LU, RK4 stages,
table lookup, the kernel cache; numba's internals behind ``numerics.numba_compat``)."""
MODEL = {"multibody", "integrators", "road", "tire", "driver", "traffic", "comfort", "powertrain", "vehicle",
         "manoeuvres", "control", "plotting", "results"}
"""The model packages (no FMI, no co-simulation)."""

ALLOWED = {
    "errors": set(),
    "paths": set(),
    "util": {"errors"},
    "numerics": LEAVES,
    "plotting": BASE,
    "results": BASE | {"plotting"},
    "multibody": BASE,
    "integrators": BASE,
    "road": BASE,
    "tire": BASE | {"road"},
    "driver": BASE,
    "traffic": BASE,
    "comfort": BASE,
    "powertrain": BASE,
    "vehicle": BASE | {"multibody", "integrators", "road", "tire", "results", "plotting"},
    "manoeuvres": BASE | {"plotting", "results", "driver", "multibody", "integrators", "tire", "vehicle"},
    "control": BASE | {"plotting", "results", "driver", "road", "vehicle", "manoeuvres"},
    "cosim": BASE | {"results"},
    "fmi": BASE | MODEL,
    "native": BASE | {"fmi", "integrators", "vehicle"},
    "scenarios": BASE | MODEL | {"cosim", "fmi"},
    "adas": BASE | MODEL | {"cosim", "fmi", "scenarios"},
    "tools": BASE | MODEL | {"cosim", "fmi", "native", "scenarios", "adas"},
    "cli": BASE | MODEL | {"cosim", "fmi", "native", "scenarios", "adas", "tools"},
    "__main__": {"cli"},
    "__init__": {"numerics"},
}
"""Every subpackage and top-level module -> the subpackages and top-level modules it may import (besides itself)."""


def top_level_units(root: Path = PACKAGE) -> set[str]:
    """The subpackages and top-level modules of the package at ``root``."""
    return ({p.name for p in root.iterdir() if (p / "__init__.py").is_file()} |
            {p.stem for p in root.glob("*.py")})


def module_name(path: Path, root: Path = PACKAGE) -> str:
    """Dotted name of the module at ``path`` below the package folder ``root`` (the package itself is ``root.name``)."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def imports(path: Path, root: Path = PACKAGE) -> tuple[tuple[str, str | None], ...]:
    """(module, imported name or None) of every import of the package in the module at ``path``: ``from m import
    n`` gives (m.n, None) when m.n is a module of the package, else (m, n); ``import m`` gives (m, None)."""
    me = module_name(path, root).split(".")
    here = me if path.name == "__init__.py" else me[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                target = here[:len(here) - node.level + 1] + (node.module.split(".") if node.module else [])
            else:
                target = node.module.split(".") if node.module else []
            if not target or target[0] != root.name:
                continue
            module = ".".join(target)
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                is_module = (root.parent / sub.replace(".", "/")).with_suffix(".py").is_file() or \
                    (root.parent / sub.replace(".", "/") / "__init__.py").is_file()
                found.append((sub, None) if is_module else (module, alias.name))
        elif isinstance(node, ast.Import):
            found += [(a.name, None) for a in node.names if a.name.split(".")[0] == root.name]
    return tuple(found)


def unit_of(module: str) -> str:
    """The subpackage or top-level module a dotted module name belongs to (``__init__`` for the package root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_violations(root: Path = PACKAGE, allowed: dict = ALLOWED) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        me = unit_of(module_name(path, root))
        for module, _name in imports(path, root):
            target = unit_of(module)
            if target != me and target not in allowed.get(me, set()):
                bad.append(f"{path.relative_to(root)} ({me}) imports {module}")
    return bad


def import_cycles(root: Path = PACKAGE) -> list[list[str]]:
    """The cycles of the module import graph (its strongly connected components of more than one module; a
    package's ``__init__`` counts as the module of the package's name)."""
    graph = defaultdict(set)
    for path in root.rglob("*.py"):
        me = module_name(path, root)
        graph[me] |= {m for m, _ in imports(path, root) if m != me}
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):                   # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def private_imports(root: Path = PACKAGE) -> list[str]:
    """``from <another unit> import _name``: a private name taken across a subpackage boundary."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        me = unit_of(module_name(path, root))
        for module, name in imports(path, root):
            if name and name.startswith("_") and not name.startswith("__") and unit_of(module) != me:
                bad.append(f"{path.relative_to(root)} imports {name} from {module}")
    return bad


def test_every_subpackage_and_top_level_module_has_its_layer():
    assert top_level_units() == set(ALLOWED)


@pytest.mark.parametrize("unit", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(unit):
    bad = [line for line in layer_violations() if f"({unit}) " in line]
    assert not bad, "\n".join(bad)


def test_no_module_imports_another_in_a_cycle():
    assert import_cycles() == []


def test_no_private_name_is_imported_across_packages():
    assert private_imports() == []


def test_the_model_layers_know_no_fmi_or_cosimulation():
    for unit in MODEL | BASE:
        assert not ALLOWED[unit] & {"fmi", "cosim", "scenarios", "adas", "native", "tools", "cli"}, unit


def test_the_check_sees_the_imports():
    deps = {m for m, _ in imports(PACKAGE / "vehicle" / "vehicle.py")} | \
        {m for m, _ in imports(PACKAGE / "vehicle" / "dynamics.py")}
    assert {"integrators", "tire", "road", "multibody"} <= {unit_of(m) for m in deps}
    assert "numerics" in {unit_of(m) for m, _ in imports(PACKAGE / "tire" / "pacejka.py")}
    assert "integrators" not in {unit_of(m) for m, _ in imports(PACKAGE / "multibody" / "mechanism.py")}


def _toy_package(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "fmu_vehicle"
    for rel, text in {"__init__.py": "", "a/__init__.py": "", "b/__init__.py": "", **files}.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text)
    return pkg


def test_the_checks_fail_on_a_cycle_a_private_import_and_an_upward_import(tmp_path):
    """Each check run on a small package that breaks its rule finds exactly that break."""
    pkg = _toy_package(tmp_path, {
        "a/one.py": "from fmu_vehicle.b.two import helper\n",
        "b/two.py": "def helper():\n    from ..a import one\n",           # a lazy import closes the cycle
        "a/three.py": "from fmu_vehicle.b.two import _hidden\n",
        "b/four.py": "from .two import _hidden\n",                          # private, but the same package
    })
    assert import_cycles(pkg) == [["fmu_vehicle.a.one", "fmu_vehicle.b.two"]]
    assert private_imports(pkg) == ["a/three.py imports _hidden from fmu_vehicle.b.two"]
    assert layer_violations(pkg, {"a": {"b"}, "b": set(), "__init__": set()}) == [
        "b/two.py (b) imports fmu_vehicle.a.one"]
