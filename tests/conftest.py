"""Test-session settings.

numba compiles for the portable CPU target in the test processes (and, through the environment, in the
processes they start): FMUs run inside a test process then load the kernels they ship, compiled for that
target at build time, instead of compiling them again for the native CPU (numba fixes one CPU target per
process; see ``fmu_vehicle.jit.use_portable_target``). The package's own kernels are compiled once per
source state for the same target and cached as usual. Speed is measured by ``fmu-vehicle bench``, never here.
"""
import os

os.environ.setdefault("NUMBA_CPU_NAME", "generic")

import pytest


@pytest.fixture(scope="module")
def combination():
    """The shipped car with a caravan (``sedan_caravan``, docs/articulated.md §6), loaded once per test module."""
    from fmu_vehicle.vehicle.vehicle import Vehicle
    return Vehicle.load("sedan_caravan")
