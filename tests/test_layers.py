"""The package's layers import downwards only: the engine knows nothing of integrators, vehicles, tires,
roads or FMI; integrators know no model; vehicles, tires and roads know nothing of FMI or co-simulation."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fmu_vehicle"

#: subpackage -> the package modules/subpackages it may import (besides itself)
ALLOWED = {
    "multibody": {"errors", "paths"},
    "integrators": {"errors"},
    "road": {"errors", "paths", "util"},
    "tire": {"errors", "paths", "road", "util"},
    "vehicle": {"errors", "paths", "util", "multibody", "integrators", "road", "tire", "results",
                "plotting"},
    "driver": {"errors", "paths"},
    "manoeuvres": {"errors", "paths", "util", "plotting", "results", "driver", "multibody", "tire",
                   "vehicle"},
    "control": {"errors", "paths", "util", "plotting", "results", "driver", "road", "vehicle",
                "manoeuvres"},
}
for _allowed in ALLOWED.values():
    _allowed.add("numerics")            # the base layer below every other (compiled calls, numba's internals)


def package_imports(path: Path) -> set[str]:
    """First component below ``fmu_vehicle`` of every package import in ``path``."""
    tree = ast.parse(path.read_text())
    rel_parts = path.relative_to(PACKAGE).parts
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel_parts[:-1])[: len(rel_parts) - node.level]
                target = base + (node.module.split(".") if node.module else [])
                if not target:        # "from .. import x": the names are the subpackages
                    found.update(a.name.split(".")[0] for a in node.names)
                    continue
                found.add(target[0])
            elif node.module and node.module.split(".")[0] == "fmu_vehicle":
                parts = node.module.split(".")
                found.update([parts[1]] if len(parts) > 1 else [a.name for a in node.names])
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "fmu_vehicle" and len(parts) > 1:
                    found.add(parts[1])
    return {f.removesuffix(".py") for f in found}


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(layer):
    bad = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for target in package_imports(path) - ALLOWED[layer] - {layer}:
            bad.append(f"{path.relative_to(PACKAGE)} imports fmu_vehicle.{target}")
    assert not bad, "\n".join(bad)


def test_the_numerics_layer_imports_nothing_of_the_package():
    for path in sorted((PACKAGE / "numerics").rglob("*.py")):
        assert package_imports(path) <= {"numerics"}, path


def test_the_check_sees_the_imports():
    mod = PACKAGE / "multibody" / "mechanism.py"
    assert "integrators" not in package_imports(mod)
    assert "multibody" in package_imports(PACKAGE / "vehicle" / "vehicle.py")
    assert "numerics" in package_imports(PACKAGE / "tire" / "pacejka.py")
    assert {"integrators", "tire", "road"} <= package_imports(PACKAGE / "vehicle" / "vehicle.py") | \
        package_imports(PACKAGE / "vehicle" / "dynamics.py")
