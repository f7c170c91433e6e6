"""Built FMUs: FMPy validation, units/min/max/InitialUnknowns in the modelDescription, deterministic
GUIDs, shipped files, the build script's error path (exit 2, nothing half-written)."""
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from fmpy.validation import validate_fmu
from lxml import etree

from fmu_vehicle.fmi.build import (DIGEST_CHARS, PACKAGE_PREFIX, BuildError, build_fmu, shipped_package_file,
                                   source_digest)
from fmu_vehicle.fmi.post_process import ROOT_ORDER
from fmu_vehicle.fmi.registry import FMUS, slave_script
from fmu_vehicle.fmi.variables import UNITS
from fmu_vehicle.fmi.version import fmu_guid, package_version
from timeouts import HANG_GUARD_S

from fmu_lists import COMPANION_FMUS

REPO = Path(__file__).resolve().parents[1]


def model_description(path):
    with zipfile.ZipFile(path) as z:
        return etree.fromstring(z.read("modelDescription.xml"))


@pytest.mark.parametrize("name", COMPANION_FMUS)
def test_fmpy_validation_is_clean(companion_fmus, name):
    assert validate_fmu(str(companion_fmus[name])) == []


@pytest.mark.parametrize("name", COMPANION_FMUS)
def test_model_description_carries_units_bounds_and_structure(companion_fmus, name):
    root = model_description(companion_fmus[name])
    assert [c.tag for c in root] == sorted((c.tag for c in root), key=ROOT_ORDER.index)
    assert root.get("modelName") == name and root.get("version") == package_version()
    assert root.get("guid") == fmu_guid(name, package_version(), sources=source_digest())
    units = {u.get("name"): u for u in root.find("UnitDefinitions")}
    scalars = root.find("ModelVariables")
    for sv in scalars:
        node = sv[0]
        assert sv.get("description"), sv.get("name")
        if node.tag == "Real":
            unit = node.get("unit")
            assert unit in units and unit in UNITS, sv.get("name")
            base = units[unit].find("BaseUnit")
            assert {k: int(v) for k, v in base.attrib.items()} == {k: v for k, v in UNITS[unit].base.items() if v}
            display = node.get("displayUnit")
            assert display is None or display in [d.get("name") for d in units[unit].findall("DisplayUnit")]
    outputs = [i for i, sv in enumerate(scalars, 1) if sv.get("causality") == "output"]
    structure = root.find("ModelStructure")
    assert [int(u.get("index")) for u in structure.find("Outputs")] == outputs
    assert [int(u.get("index")) for u in structure.find("InitialUnknowns")] == outputs
    cs = root.find("CoSimulation")
    assert cs.get("canGetAndSetFMUstate") == cs.get("canSerializeFMUstate") == "true"
    assert cs.get("canInterpolateInputs") == "false"


def test_bounds_and_display_units_are_written(companion_fmus):
    root = model_description(companion_fmus["Powertrain"])
    by_name = {sv.get("name"): sv[0] for sv in root.find("ModelVariables")}
    assert (by_name["throttle"].get("min"), by_name["throttle"].get("max")) == ("0.0", "1.0")
    assert by_name["engine.speed"].get("displayUnit") == "rpm"
    assert by_name["step_size"].get("start") == "0.001"
    rpm = [d for u in root.find("UnitDefinitions") if u.get("name") == "rad/s" for d in u
           if d.get("name") == "rpm"][0]
    assert float(rpm.get("factor")) == pytest.approx(9.549296585513721)


def test_archive_contents(companion_fmus):
    with zipfile.ZipFile(companion_fmus["Powertrain"]) as z:
        names = z.namelist()
        requirements = z.read("resources/requirements.txt").decode()
    assert "resources/powertrain/suv_diesel_6at.json" in names
    digest = source_digest()[:DIGEST_CHARS]                                # the package copy of this build
    # the package copy travels as one archive (members <alias>/...), not as files of the FMU
    assert f"resources/{PACKAGE_PREFIX}{digest}.zip" in names
    assert not [n for n in names if n.startswith(("resources/fmu_vehicle/", f"resources/{PACKAGE_PREFIX}{digest}/"))]
    assert b"class SlaveBase" in shipped_package_file(companion_fmus["Powertrain"], "fmi/slave_base.py")
    info = json.loads(shipped_package_file(companion_fmus["Powertrain"], "fmi/build_info.json"))
    assert info["sources"] == source_digest()
    with zipfile.ZipFile(companion_fmus["Powertrain"]) as z, \
            zipfile.ZipFile(io.BytesIO(z.read(f"resources/{PACKAGE_PREFIX}{digest}.zip"))) as inner:
        members = inner.namelist()
    assert all(n.startswith(f"{PACKAGE_PREFIX}{digest}/") for n in members)
    assert not [n for n in members if n.startswith(f"{PACKAGE_PREFIX}{digest}/resources/")]
    assert f"resources/fmu_vehicle_powertrain_{digest}.py" in names
    assert "binaries/linux64/Powertrain.so" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc") or "/tests/" in n]
    lines = requirements.splitlines()
    assert "numpy>=1.26,<3" in lines                                      # specifier from pyproject.toml
    assert not [x for x in lines if x.split(">")[0].split("=")[0] in ("pythonfmu", "fmu_vehicle", "math", "json")]
    with zipfile.ZipFile(companion_fmus["Controller"]) as z:
        controller = z.read("resources/requirements.txt").decode().splitlines()
    assert "numpy>=1.26,<3" in controller and not [x for x in controller if x.startswith("scipy")]  # block kernels
    assert set(controller) <= set(lines)


def test_guid_is_deterministic_and_rebuild_is_atomic(companion_fmus, tmp_path):
    again = build_fmu(slave_script("LeadVehicle"), tmp_path)
    assert model_description(again).get("guid") == model_description(companion_fmus["LeadVehicle"]).get("guid")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["LeadVehicle.fmu"]


def test_broken_slave_raises_one_line_and_leaves_nothing(tmp_path):
    script = tmp_path / "fmu_vehicle_broken.py"
    script.write_text(
        "from fmu_vehicle.fmi.slave_base import SlaveBase\n"
        "from fmu_vehicle.fmi.variables import Var\n"
        "class Broken(SlaveBase):\n"
        "    MODEL_NAME = 'Broken'\n"
        "    VARIABLES = (Var('speed', 'output', None, 'furlong/fortnight', 'x', 0.0),)\n"
        "    def _setup(self): pass\n"
        "    def _advance(self, t, h): pass\n")
    out = tmp_path / "out"
    with pytest.raises(BuildError, match=r"fmu_vehicle_broken\.py: .*'speed'.*unit") as info:
        build_fmu(script, out)
    assert "\n" not in str(info.value)
    assert list(out.iterdir()) == []
    with pytest.raises(BuildError, match="fmu_vehicle_<name>.py"):
        build_fmu(REPO / "fmu_vehicle" / "fmi" / "slave_base.py", out)


def test_build_script_cli(tmp_path):
    ok = subprocess.run([sys.executable, str(REPO / "build_scripts" / "build_fmus.py"), "--out", str(tmp_path),
                         "LeadVehicle"], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert ok.returncode == 0 and ok.stdout.startswith("LeadVehicle: ") and len(ok.stdout.splitlines()) == 1
    bad = subprocess.run([sys.executable, str(REPO / "build_scripts" / "build_fmus.py"), "--out", str(tmp_path),
                          "NoSuchFmu"], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "NoSuchFmu" in bad.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["LeadVehicle.fmu"]


def test_registry_scripts_exist():
    for name, script in FMUS.items():
        assert slave_script(name).is_file(), script
