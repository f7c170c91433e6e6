"""Shared helpers for the Tire/scenario/example tests: the five FMUs of the example systems, built once per
test session into one folder shared by the xdist workers (test_fmi_support.session_fmus).  This module
holds no tests.

The co-simulations of these tests run in the pytest process (``run_system`` over FMPy's FMU2Slave): the FMUs
then use the repository's ``fmu_vehicle`` that pytest imported (pythonfmu imports by module name in
the process-wide ``sys.modules``, and pytest imported it first), so the vehicle's numba
code is loaded once for all of them.  Running the FMUs on their shipped package copy is tested in
test_fmu_vehicle_lv.py and test_fmi_*.py.
"""
from __future__ import annotations

from pathlib import Path

import pytest

_BUILT: dict[str, Path] = {}


def build_scenario_fmus(basetemp: Path) -> dict[str, Path]:
    """The five FMUs in the session's one FMU folder (the examples take a folder: test_fmi_support
    .session_fmus), looked up once per process."""
    if not _BUILT:
        from fmu_vehicle.scenarios.half_car import FMU_NAMES
        try:
            from test_fmi_support import session_fmus
        except ImportError:      # pragma: no cover - package-style import
            from .test_fmi_support import session_fmus
        _BUILT.update(session_fmus(FMU_NAMES, basetemp))
    return dict(_BUILT)


@pytest.fixture(scope="session")
def scenario_fmus(tmp_path_factory) -> dict[str, Path]:
    """name -> path of the five FMUs the example systems use."""
    return build_scenario_fmus(tmp_path_factory.getbasetemp())
