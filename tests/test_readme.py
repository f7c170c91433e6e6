"""README.md and the documentation index against the code: the integrators, the FMUs, the vehicles and their
body counts, the start-up cases of an FMU, and the commands of the "your own vehicle" section."""
from __future__ import annotations

import re
from pathlib import Path

from fmu_vehicle.paths import REPO_DIR

README = REPO_DIR / "README.md"
DOCS_INDEX = REPO_DIR / "docs" / "README.md"
VEHICLES_README = REPO_DIR / "fmu_vehicle" / "resources" / "vehicles" / "README.md"
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def flat(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


def test_readme_names_every_integrator():
    from fmu_vehicle.integrators import INTEGRATORS
    text = flat(README)
    assert [name for name in INTEGRATORS if f"`{name}`" not in text] == []


def test_docs_index_counts_and_names_every_fmu():
    from fmu_vehicle.fmi.registry import FMUS
    text = flat(DOCS_INDEX)
    assert f"The {NUMBERS[len(FMUS)]} FMUs (" in text
    listed = re.search(r"The \w+ FMUs \(([^)]*)\)", text).group(1)
    assert sorted(n.strip() for n in listed.split(",")) == sorted(FMUS)


def test_readme_first_lines_and_known_limits_describe_both_cars():
    text = flat(README)
    intro = text.split("## Quick start")[0]
    assert "7-DOF half car" in intro and "14-DOF full car" in intro and "lateral" in intro
    limits = text.split("Known limits:")[1].split("##")[0]
    assert "longitudinal–vertical only" not in limits and "longitudinal-vertical only" not in limits
    assert "`Vehicle.fmu`" in limits


def test_body_counts_of_info_are_the_documented_ones():
    """`fmu-vehicle info` prints '<n> bodies + <m> removed rods' (the spec's bodies with mass, its rods);
    resources/vehicles/README.md states the same numbers for every shipped vehicle."""
    from fmu_vehicle.vehicle import Vehicle, vehicle_names
    text = flat(VEHICLES_README)
    for name in vehicle_names():
        spec = Vehicle.load(name).mech.spec
        assert f"`{name}` {len(spec.bodies)} + {len(spec.rods)}" in text, name


def test_start_up_cases_are_stated_where_users_read_about_start_up():
    """The FMU compiles the model at its first instance when numba already compiles natively in the host
    process (importing the model modules does that, ``import fmu_vehicle`` alone does not): README's quick
    start and docs/fmu_hosts.md say so, and name the way out."""
    import os
    import subprocess
    import sys

    from timeouts import HANG_GUARD_S
    probe = ("import sys, importlib; importlib.import_module(sys.argv[1]); from numba.core import registry; "
             "print('_toplevel_target_context' in registry.cpu_target.__dict__)")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_NAME", "FMU_VEHICLE_NATIVE")}
    env["PYTHONPATH"] = str(REPO_DIR)      # the conftest's NUMBA_CPU_NAME=generic would pin the target
    fixed = {module: subprocess.run([sys.executable, "-c", probe, module], capture_output=True, text=True,
                                    env=env, cwd=REPO_DIR, timeout=HANG_GUARD_S, check=True).stdout.strip()
             for module in ("fmu_vehicle", "fmu_vehicle.vehicle")}
    assert fixed == {"fmu_vehicle": "False", "fmu_vehicle.vehicle": "True"}
    readme = flat(README).split("## What is in it")[0]
    hosts = flat(REPO_DIR / "docs" / "fmu_hosts.md")
    for text in (readme, hosts):
        assert "`import fmu_vehicle` alone" in text and "`fmu_vehicle.jit.pin_portable_cpu()`" in text
        assert "`FMU_VEHICLE_NATIVE=1`" in text and "`NUMBA_CPU_NAME=generic`" in text
    assert "wherever they are used" not in readme
