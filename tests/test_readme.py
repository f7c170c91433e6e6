"""README.md and the documentation index against the code: its length, the integrators, the FMUs, the vehicles
and their body counts, the start-up cases of an FMU, the "your own vehicle" section, and every command it shows.

Every command of the README's ``bash`` blocks and every ``python`` block is accounted for in
:data:`COMMANDS_RUN_ELSEWHERE` or run here (``test_the_readme_command_runs``), and every ``fmu-vehicle``
command parses with the command line's own parser; a command added to the README without either fails
``test_every_command_the_readme_shows_is_run``."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

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
    limits = text.split("## Known limits")[1].split("##")[0]
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
    readme = flat(README).split("## Vehicles, roads and the Python API")[0]
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


# ------------------------------------------------------------------------------------------ length, FMU list

MAX_README_LINES = 300


def test_the_readme_is_a_users_document_of_at_most_300_lines():
    """History, derivations and long measurements live in docs/ (speed.md, testing.md, overview.md)."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; move the details into docs/"


def test_the_readme_lists_every_fmu():
    from fmu_vehicle.fmi.registry import FMUS
    section = flat(README).split("## The FMUs")[1].split("## ")[0]
    assert f"{NUMBERS[len(FMUS)].capitalize()} FMI 2.0 Co-Simulation FMUs" in section
    assert [name for name in FMUS if f"`{name}.fmu`" not in section] == []


# ------------------------------------------------------------------------------------------ the commands

def code_blocks(language: str) -> list[str]:
    """The bodies of the README's fenced blocks of ``language``, in order."""
    text = README.read_text(encoding="utf-8")
    return [m.group(2) for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
            if m.group(1) == language]


def readme_commands() -> list[tuple[str, ...]]:
    """Every command of the README's bash blocks as its words (shlex): lines continued with a backslash or inside
    an open quote joined, comments dropped, ``a && b`` as two commands."""
    commands = []
    for block in code_blocks("bash"):
        pending = ""
        for line in block.splitlines():
            pending = f"{pending}\n{line}" if pending else line
            if pending.endswith("\\"):
                pending = pending[:-1]
                continue
            try:
                words = shlex.split(pending, comments=True)
            except ValueError:          # a quote still open: the command goes on on the next line
                continue
            pending = ""
            command = []
            for word in [*words, "&&"]:
                if word != "&&":
                    command.append(word)
                elif command:
                    commands.append(tuple(command))
                    command = []
        assert not pending, f"README: unterminated command {pending!r}"
    return commands


#: ``fmu-vehicle`` commands whose README form takes many minutes or builds the FMUs into the checkout's dist/:
#: the test file that runs the same command (``main([...])`` or ``python -m fmu_vehicle ...``) with a shorter
#: run or a test folder. Their README form still parses (``test_the_readme_fmu_vehicle_commands_parse``).
COMMANDS_RUN_ELSEWHERE = {
    "demo": "test_demo_and_requirements.py",         # the demo end to end (slow)
    "bench": "test_bench_cli.py",                     # the speed table: about half an hour in its README form
    "doctor": "test_fmu_portability.py",
    "crosscheck": "test_crosscheck.py",
    "sweep": "test_sweep.py",
    "ssp": "test_ssp_archives.py",
    "linearize": "test_linearize.py",                 # into a test folder, with the check of its files
}

#: The other commands shown, by their first words: the test that runs them.
SCRIPTS_RUN_ELSEWHERE = {
    ("python", "build_scripts/build_fmus.py"): "test_fmi_build.py",   # runs the script into a test folder
}

#: ``fmu-vehicle`` commands run here as the README shows them, in an empty working folder.
RUN_HERE = ("info", "simulate", "manoeuvre", "reproduce-paper", "export")
SLOW_HERE = ("export",)        # a native build: compiles the entry points (minutes on an empty kernel cache)


def _kind(command: tuple[str, ...]) -> str:
    if command[:3] == ("python3", "-m", "pip"):
        return "pip"
    if command[:3] == ("python3", "-m", "pytest"):
        return "pytest"
    if command[0] == "fmu-vehicle":
        return f"fmu-vehicle {command[1]}"
    if command[:2] == ("python", "-c"):
        return "python -c"
    if command[:2] in SCRIPTS_RUN_ELSEWHERE:
        return "script elsewhere"
    if command[0] == "python" and command[1].startswith("examples/"):
        return "example"
    return "unknown"


def test_every_command_the_readme_shows_is_run():
    """Each command is run here (``fmu-vehicle`` commands of RUN_HERE, ``python -c``, the examples, the python
    blocks), by the named test file (which runs that command), or is the Quick start's (the install and the
    whole suite: ``.ci/run`` runs the test command verbatim, the demo's is run by its test)."""
    commands = readme_commands()
    assert len(commands) >= 15, commands
    unknown = [c for c in commands if _kind(c) == "unknown"]
    assert not unknown, f"README commands that no test runs (add them to tests/test_readme.py): {unknown}"
    for command in commands:
        kind = _kind(command)
        if kind.startswith("fmu-vehicle "):
            sub = command[1]
            assert sub in RUN_HERE or sub in COMMANDS_RUN_ELSEWHERE, f"no test runs {' '.join(command)}"
            if sub in COMMANDS_RUN_ELSEWHERE:
                runner = (REPO_DIR / "tests" / COMMANDS_RUN_ELSEWHERE[sub]).read_text(encoding="utf-8")
                assert f'main(["{sub}"' in runner or f'"fmu_vehicle", "{sub}"' in runner, (sub, runner[:80])
        elif kind == "script elsewhere":
            runner = (REPO_DIR / "tests" / SCRIPTS_RUN_ELSEWHERE[command[:2]]).read_text(encoding="utf-8")
            assert f'"{command[1].split("/")[0]}" / "{command[1].split("/")[1]}"' in runner, command
        elif kind == "example":
            assert (REPO_DIR / command[1]).is_file(), command
    assert len(code_blocks("python")) >= 2


def test_the_quick_start_is_two_commands_and_ci_runs_its_test_command():
    quick = code_blocks("bash")[1]
    lines = [line for line in quick.splitlines() if line.strip()]
    assert lines == ["python3 -m pip install -e . && fmu-vehicle demo",
                     'python3 -m pip install -e ".[test]" && python3 -m pytest'], lines
    ci = (REPO_DIR / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == lines[1]
    pytest_runs = [c for c in readme_commands() if _kind(c) == "pytest"]
    assert ("python3", "-m", "pytest") in pytest_runs
    declared = (REPO_DIR / "pyproject.toml").read_text(encoding="utf-8")
    for command in pytest_runs:          # the Testing section's variants: a declared marker, an existing file
        for word in command[3:]:
            if word.startswith("tests/"):
                assert (REPO_DIR / word).is_file(), command
        if "-m" in command[3:]:
            marker = command[command.index("-m", 3) + 1].split()[-1]
            assert f'"{marker}:' in declared, command


def test_the_readme_fmu_vehicle_commands_parse():
    """Every ``fmu-vehicle`` command shown parses with the command line's parser (names, options, their types
    and choices), including those whose run is left to another test file."""
    from fmu_vehicle.cli import build_parser
    parser = build_parser()
    for command in readme_commands():
        if command[0] == "fmu-vehicle":
            args = parser.parse_args(list(command[1:]))
            assert callable(args.func), command


def _here(sub: str):
    commands = [c for c in readme_commands() if c[0] == "fmu-vehicle" and c[1] == sub]
    assert commands, f"the README shows no fmu-vehicle {sub}"
    return commands


@pytest.mark.parametrize("sub", [pytest.param(s, marks=pytest.mark.slow) if s in SLOW_HERE else s for s in RUN_HERE])
def test_the_readme_command_runs(sub, tmp_path, monkeypatch, capsys):
    """``fmu-vehicle <sub> ...`` exactly as the README shows it, in an empty working folder (its outputs land
    there), exits 0 and writes what the README says."""
    from fmu_vehicle.cli import main
    monkeypatch.chdir(tmp_path)
    for command in _here(sub):
        assert main(list(command[1:])) == 0, command
    out = capsys.readouterr().out
    if sub == "info":
        assert "halfcar7" in out and "fullcar14" in out and "bumpy" in out
    if sub == "simulate":
        assert (tmp_path / "run.csv").is_file() and (tmp_path / "run.png").is_file()
    if sub == "manoeuvre":           # "CSV, plot, <name>_summary.json in dist/manoeuvres"
        assert sorted(p.name for p in (tmp_path / "dist" / "manoeuvres").iterdir()) == [
            "step_steer.csv", "step_steer.png", "step_steer_summary.json"]
    if sub == "reproduce-paper":
        assert any((tmp_path / "dist" / "paper").iterdir())
    if sub == "export":
        assert (tmp_path / "dist" / "native" / "VehicleLV.fmu").is_file()


def test_the_readme_python_blocks_and_python_c_run(tmp_path, monkeypatch):
    """The Python API block and the drawing command (``python -c``) run as shown, in an empty working folder."""
    monkeypatch.chdir(tmp_path)
    api = next(block for block in code_blocks("python") if "Vehicle.load" in block)
    exec(compile(api, "README.md (Python API)", "exec"), {})
    assert (tmp_path / "run.csv").is_file() and (tmp_path / "run.png").is_file()
    inline = [c for c in readme_commands() if c[:2] == ("python", "-c")]
    assert inline
    for command in inline:
        exec(compile(command[2], "README.md (python -c)", "exec"), {})
    assert (tmp_path / "fullcar14.png").is_file()


@pytest.fixture(scope="module")
def vehicle_lv_fmu(registered_fmus) -> Path:
    """VehicleLV.fmu of the session's FMU folder (built there from the current sources if missing or stale)."""
    return Path(registered_fmus["VehicleLV"])


def test_the_readme_fmpy_block_runs_in_a_fresh_process(vehicle_lv_fmu, tmp_path):
    """The FMPy block, in a fresh Python process as the README says, on the session's VehicleLV.fmu (the
    README's dist/fmus/VehicleLV.fmu is what ``build_fmus.py`` writes): 5 s of the bumpy road, and the prints."""
    import os
    import subprocess
    import sys

    from timeouts import HANG_GUARD_S
    block = next(block for block in code_blocks("python") if "simulate_fmu" in block)
    assert '"dist/fmus/VehicleLV.fmu"' in block
    script = block.replace('"dist/fmus/VehicleLV.fmu"', repr(str(vehicle_lv_fmu)))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                          env=dict(os.environ), timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr[-2000:]
    x, pitch = map(float, proc.stdout.split()[-2:])
    assert 95.0 < x < 115.0 and abs(pitch) < 0.1, proc.stdout


def test_the_readme_example_runs(vehicle_lv_fmu, tmp_path):
    """``python examples/bumpy_road.py`` as shown: its ``main()`` (what the script runs), writing into a test
    folder, with the session's FMU folder instead of the checkout's dist/fmus."""
    import importlib.util
    examples = [c for c in readme_commands() if _kind(c) == "example"]
    assert examples
    for command in examples:
        path = REPO_DIR / command[1]
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        run = module.main(out_dir=tmp_path, fmu_dir=vehicle_lv_fmu.parent, progress=False)
        assert run.result.time[-1] == pytest.approx(5.0)
