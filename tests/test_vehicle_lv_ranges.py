"""Every VehicleLV parameter works at both ends of its declared range (the others at their start values):
static equilibrium found, and a run over the bumps stays finite (in-process, the FMU's own mapping)."""
import sys
from pathlib import Path

import numpy as np
import pytest

from fmu_vehicle.vehicle import Vehicle

SLAVES = Path(__file__).resolve().parents[1] / "fmu_vehicle" / "fmi" / "slaves"


def _overrides():
    sys.path.insert(0, str(SLAVES))
    try:
        import fmu_vehicle_vehicle_lv as slave
    finally:
        sys.path.remove(str(SLAVES))
    return slave.TABLE.overrides


CASES = [(name, path, bound) for name, (path, _u, _d, _s, lo, hi) in _overrides().items() for bound in (lo, hi)]


@pytest.mark.slow
@pytest.mark.parametrize("name, path, value", CASES, ids=[f"{c[0]}={c[2]:g}" for c in CASES])
def test_declared_parameter_bounds_work(name, path, value):
    car = Vehicle.load("halfcar7", overrides={path: value})
    sim = car.simulator("bumpy", v0=30.0, dt=1e-3)
    sim.advance(1.2)                                                 # over the first two bumps
    assert np.all(np.isfinite(sim.row)), (name, value)
    assert sim.row[-1] < 1e-8                                        # constraint residual
