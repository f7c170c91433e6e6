"""Shared helpers for the Tire/scenario/example tests: the five FMUs of the example systems, built once per
test process into a temporary folder.  This module holds no tests.

The co-simulations of these tests run in the pytest process (``run_system`` over FMPy's FMU2Slave): the FMUs
then use the repository's ``fmu_vehicle`` that pytest imported (the wrapper imports through the process-wide
``sys.modules``, so a package the host already imported is the one every FMU gets), so the vehicle's numba
code is loaded once for all of them.  Running the FMUs on their shipped package copy is tested in
test_fmu_vehicle_lv.py and test_fmi_*.py.
"""
from __future__ import annotations

from pathlib import Path

import pytest

_BUILT: dict[str, Path] = {}


def build_scenario_fmus(out: Path) -> dict[str, Path]:
    """The five FMUs in one folder (the examples take a folder), built on first use in this process."""
    if not _BUILT:
        from fmu_vehicle.cosim.build_cache import ensure_fmus
        from fmu_vehicle.cosim.scenarios import FMU_NAMES
        _BUILT.update(ensure_fmus(FMU_NAMES, out))
    return dict(_BUILT)


@pytest.fixture(scope="session")
def scenario_fmus(tmp_path_factory) -> dict[str, Path]:
    """name -> path of the five FMUs the example systems use."""
    return build_scenario_fmus(tmp_path_factory.getbasetemp() / "scenario_fmus")
