"""Test-session settings, the suite warm-up and the fixtures every test module may use.

The shared fixtures live here and in the plugin modules named in ``pytest_plugins`` (``plugins/fmus.py``: the
session's FMUs); a test module asks for them by name and imports none. Plain helpers shared by test modules
are in helper modules (``fmi_support.py``, ``fmu_cases.py``, ``unit_masses.py``, ...), imported as usual.

numba compiles for the portable CPU target in the test processes (and, through the environment, in the
processes they start): FMUs run inside a test process then load the kernels they ship, compiled for that
target at build time, instead of compiling them again for the native CPU (numba fixes one CPU target per
process; see ``fmu_vehicle.numerics.jit.use_portable_target``). The package's own kernels are compiled once per
source state for the same target and cached as usual. Speed is measured by ``fmu-vehicle bench``, never here.
"""
import os
import shutil
import sys

import pytest

os.environ.setdefault("NUMBA_CPU_NAME", "generic")

pytest_plugins = ["plugins.fmus"]


def pytest_sessionstart(session):
    """In the controller of a whole-suite run with worker processes (pytest-xdist, whose own hook starts the
    workers after this one): build the session's FMUs and compile the kernels most tests share
    (``session_warm_up.py``) at the same time, one on each core, before any worker starts; otherwise both
    workers compile the same kernels at once and one waits, idle, on the lock of the other's FMU build.
    From an empty kernel cache here: 13 min 29 s with it, 14 min 10 s without (24.3 and 25.9 CPU minutes).
    Not for a collection alone (--collect-only). A failure here is left to the tests that need what failed
    (they report it)."""
    import subprocess
    import threading
    from pathlib import Path

    config = session.config
    if (getattr(config.option, "numprocesses", None) in (None, 0) or hasattr(config, "workerinput")
            or config.args_source != pytest.Config.ArgsSource.TESTPATHS
            or config.option.keyword or config.option.markexpr or config.option.collectonly):
        return
    from fmi_support import session_fmus
    from fmu_lists import HARNESS_FMUS
    from timeouts import HANG_GUARD_S

    failures = []

    def build():
        try:       # into the folder the workers use (fmi_support.session_fmu_folder of the base folder)
            session_fmus(HARNESS_FMUS, config._tmp_path_factory.getbasetemp())
        except Exception as e:          # noqa: BLE001 - the tests that use the FMUs report it
            failures.append(f"building the FMUs: {e}")

    reporter = config.pluginmanager.get_plugin("terminalreporter")
    reporter.write_line("warm-up: building the session's FMUs and compiling the shared kernels (minutes on an "
                        "empty kernel cache, seconds on a filled one)")
    builder = threading.Thread(target=build)
    builder.start()
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("session_warm_up.py"))],
                          capture_output=True, text=True, timeout=HANG_GUARD_S)
    builder.join()
    if proc.returncode != 0:
        failures.append(f"compiling the shared kernels: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    for line in failures:
        reporter.write_line(f"warm-up failed ({line}); the tests that need it will say more")


@pytest.fixture(scope="module")
def combination():
    """The shipped car with a caravan (``sedan_caravan``, docs/articulated.md §6), loaded once per test module."""
    from fmu_vehicle.vehicle.vehicle import Vehicle
    return Vehicle.load("sedan_caravan")


@pytest.fixture(scope="module")
def c_host(tmp_path_factory):
    """The project's C FMI host (``fmi.hosts.build_host``), built once per test module; skipped off Linux or
    without cc."""
    from fmu_vehicle.fmi.hosts import build_host
    if not sys.platform.startswith("linux") or shutil.which("cc") is None:
        pytest.skip("the C host is built with cc on Linux")
    return build_host(tmp_path_factory.mktemp("c_host") / "fmi2_host")
