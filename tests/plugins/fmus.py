"""The FMU fixtures of the suite, one session-wide set per test process (named in conftest's ``pytest_plugins``).

Every fixture here hands out FMUs of the session's one FMU folder (``fmi_support.session_fmus``: below the
session's base folder, shared by the xdist workers; built there from the current sources when missing or
stale, one process at a time). ``registered_fmus`` looks each FMU up once per test process; the other fixtures
are named subsets of it, so that an FMU is built once per session whichever fixtures ask for it.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from fmi_support import RegisteredFmus
from fmu_lists import COMPANION_FMUS, HARNESS_FMUS


@pytest.fixture(scope="session")
def registered_fmus(tmp_path_factory) -> RegisteredFmus:
    """name -> path of any FMU of the registry, built when first asked for."""
    return RegisteredFmus(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def companion_fmus(registered_fmus) -> dict[str, Path]:
    """name -> path of the Powertrain, Controller and LeadVehicle FMUs (``fmu_lists.COMPANION_FMUS``)."""
    return registered_fmus.subset(COMPANION_FMUS)


@pytest.fixture(scope="session")
def all_fmus(registered_fmus) -> dict[str, Path]:
    """name -> path of every FMU of ``fmu_lists.HARNESS_FMUS``."""
    return registered_fmus.subset(HARNESS_FMUS)


@pytest.fixture(scope="session")
def scenario_fmus(registered_fmus) -> dict[str, Path]:
    """name -> path of the five FMUs of the example systems (``scenarios.half_car.FMU_NAMES``).

    The co-simulations of the tests that use them run in the pytest process (``run_system`` over FMPy's
    FMU2Slave): the FMUs then use the repository's ``fmu_vehicle`` that pytest imported (pythonfmu imports by
    module name in the process-wide ``sys.modules``, and pytest imported it first), so the vehicle's numba code
    is loaded once for all of them. Running the FMUs on their shipped package copy is tested in
    test_fmu_vehicle_lv.py and test_fmi_*.py."""
    from fmu_vehicle.scenarios.half_car import FMU_NAMES
    return registered_fmus.subset(FMU_NAMES)


@pytest.fixture(scope="session")
def native_fmus(tmp_path_factory) -> dict[str, Path]:
    """name -> path of the native VehicleLV and Vehicle FMUs (``fmu_vehicle.native.fmu``, linux64; win64 too
    where mingw is installed), exported once per test process with their default parameters (seconds when the
    entry points' IR is in the kernel cache, minutes the first time)."""
    import shutil
    from fmu_vehicle.native import fmu as native
    out = tmp_path_factory.mktemp("native_fmus")
    targets = ("linux64", "win64") if shutil.which("x86_64-w64-mingw32-gcc") else ("linux64",)
    return {name: native.export(name, out, targets=targets) for name in ("VehicleLV", "Vehicle")}


@pytest.fixture(scope="session")
def native_integrators_fmu(tmp_path_factory) -> Path:
    """The native VehicleLV carrying every stepping integrator (``native.fmu.export(integrators=...)``; the
    default export carries RK4 and the ``integrator`` set only), linux64, exported once per test process."""
    from fmu_vehicle.integrators import STEPPING_INTEGRATORS
    from fmu_vehicle.native import fmu as native
    out = tmp_path_factory.mktemp("native_integrators")
    return native.export("VehicleLV", out, targets=("linux64",), integrators=STEPPING_INTEGRATORS)


@pytest.fixture(scope="session")
def native_fmi3_fmus(native_fmus) -> dict[str, Path]:
    """name -> path of the FMI 3.0 builds of the native VehicleLV (linux64, and win64 where mingw is installed) and
    Vehicle (linux64), made by ``fmu-vehicle export --native --fmi-version 3`` into ``fmi3/`` beside the FMI 2.0
    builds of ``native_fmus`` (the same image and parameters: only the FMI layer differs; seconds each, as the
    entry points' IR is cached by the FMI 2.0 builds)."""
    import shutil
    from fmu_vehicle.cli import main
    out = native_fmus["VehicleLV"].parent
    win = ["win64"] if shutil.which("x86_64-w64-mingw32-gcc") else []
    for name, platforms in (("VehicleLV", ["linux64", *win]), ("Vehicle", ["linux64"])):
        command = ["export", "--native", name, "--fmi-version", "3", "--platform", *platforms, "--out", str(out)]
        assert main(command) == 0, command
    return {name: out / "fmi3" / f"{name}.fmu" for name in ("VehicleLV", "Vehicle")}
