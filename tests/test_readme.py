"""README.md and the documentation index against the code: the integrators, the FMUs, the vehicles and their
body counts, the start-up cases of an FMU, and the commands of the "your own vehicle" section."""
from __future__ import annotations

import re
from pathlib import Path

from fmu_vehicle.paths import REPO_DIR

README = REPO_DIR / "README.md"
DOCS_INDEX = REPO_DIR / "docs" / "README.md"
VEHICLES_README = REPO_DIR / "fmu_vehicle" / "resources" / "vehicles" / "README.md"
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven"}


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
        assert "`import fmu_vehicle` alone" in text and "`fmu_vehicle.numerics.jit.pin_portable_cpu()`" in text
        assert "`FMU_VEHICLE_NATIVE=1`" in text and "`NUMBA_CPU_NAME=generic`" in text
    assert "wherever they are used" not in readme


def test_your_own_vehicle_suspension_tire_and_road_load_as_the_readme_says(tmp_path):
    """Each way of the README's section "Your own vehicle, suspension, tire or road", done once: a copied
    vehicle file with a changed mass loaded by path, a variant by "extends", a suspension in a ``base``
    folder, a tire by absolute path, a CSV road; and a tire file missing a coefficient is one ModelError
    naming the file and the key."""
    import json
    import re
    import shutil

    import pytest

    from fmu_vehicle.errors import ModelError
    from fmu_vehicle.paths import resource_path
    from fmu_vehicle.road import load_road
    from fmu_vehicle.tire.tir import P_PDY1
    from fmu_vehicle.vehicle import Vehicle
    text = flat(README).split("## Your own vehicle, suspension, tire or road")[1].split("## ")[0]
    for phrase in ('Vehicle.load("my/mycar.json")', '"extends"', 'base="that folder"', "absolute path",
                   '{"type": "csv", "path": "myprofile.csv", "mu": 0.8}'):
        assert phrase in text, phrase
    shipped = json.loads(resource_path("vehicles", "fullcar14.json").read_text())
    own = dict(shipped, name="mycar", chassis=dict(shipped["chassis"], mass_kg=2000.0))
    (tmp_path / "mycar.json").write_text(json.dumps(own))
    assert Vehicle.load(tmp_path / "mycar.json").total_mass_kg == pytest.approx(2486.0 - 254.0)
    (tmp_path / "heavy.json").write_text(json.dumps({"extends": str(resource_path("vehicles", "fullcar14.json")),
                                                     "name": "heavy", "chassis": {"mass_kg": 2600.0}}))
    assert Vehicle.load(tmp_path / "heavy.json").total_mass_kg == pytest.approx(2486.0 + 346.0)
    base = tmp_path / "res"
    (base / "vehicles" / "suspensions").mkdir(parents=True)
    (base / "tires").mkdir()
    front = json.loads(resource_path("vehicles", "suspensions", "macpherson_front.json").read_text())
    front["spring"]["stiffness_N_per_m"] = 50000.0
    (base / "vehicles" / "suspensions" / "stiff_front.json").write_text(json.dumps(front))
    shutil.copy(resource_path("vehicles", "suspensions", "five_link_rear.json"), base / "vehicles" / "suspensions")
    shutil.copy(resource_path("tires", "dai2022_sedan.tir"), base / "tires")
    stiff = json.loads(json.dumps(shipped))
    stiff["name"] = "stiff"
    for corner in stiff["corners"][:2]:
        corner["suspension"] = "stiff_front.json"
    (base / "vehicles" / "stiff.json").write_text(json.dumps(stiff))
    for car in (Vehicle.load(base / "vehicles" / "stiff.json", base=base), Vehicle.load("stiff", base=base)):
        assert [sd.stiffness_N_per_m for sd in car.spec.mechanism.spring_dampers][:4] == [5e4, 5e4, 35e3, 35e3]
    tire = re.sub(r"PDY1\s*=\s*-0\.990", "PDY1 = -0.800", resource_path("tires", "dai2022_sedan.tir").read_text())
    (tmp_path / "my.tir").write_text(tire)
    with_tire = json.loads(json.dumps(own))
    for corner in with_tire["corners"]:
        corner["tire"] = str(tmp_path / "my.tir")
    (tmp_path / "with_tire.json").write_text(json.dumps(with_tire))
    assert list(Vehicle.load(tmp_path / "with_tire.json").tire_p[:, P_PDY1]) == [-0.8] * 4
    (tmp_path / "bad.tir").write_text(re.sub(r"\nPKX1[^\n]*", "", tire))
    with_tire["corners"][0]["tire"] = str(tmp_path / "bad.tir")
    (tmp_path / "bad.json").write_text(json.dumps(with_tire))
    with pytest.raises(ModelError, match=r"bad\.tir.*PKX1 missing"):
        Vehicle.load(tmp_path / "bad.json")
    (tmp_path / "myprofile.csv").write_text("distance_m,height_m\n0,0\n10,0\n11,0.05\n12,0\n100,0\n")
    (tmp_path / "myroad.json").write_text(json.dumps({"type": "csv", "path": "myprofile.csv", "mu": 0.8}))
    road = load_road(tmp_path / "myroad.json")
    assert float(road.height(11.0)) == pytest.approx(0.05) and float(road.height(10.5)) == pytest.approx(0.025)
