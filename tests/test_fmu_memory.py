"""Memory kept per instance: instantiate, initialize, step, terminate and free an FMU many times in one
process (FMPy, a child process) and measure what stays allocated (tracemalloc: every Python allocation, the
FMU binary's included, as it allocates through Python; not timing-dependent).

pythonfmu's binary executes the slave script again at each instantiation and keeps the MRO list of every
class it finds in that execution's names for the process lifetime; the build runs the script's own code
only at the module's import (``fmu_vehicle.fmi.build.REEXECUTION_GUARD``): measured 1.3-1.9 kB kept per
instance for the small FMUs (11.6-23.5 kB before) and 7.1 kB for Vehicle (116-121 kB before).
"""
import pytest

from fmu_lists import HARNESS_FMUS
from fmi_support import run_child

pytestmark = pytest.mark.slow

BUDGET = 5e6        # bytes over 200 cycles
CYCLES = 200
#: FMUs whose initialization solves the vehicle's static equilibrium (about a second each): fewer cycles,
#: the growth extrapolated to 200 (what stays is per instance, the same every cycle)
MEASURED = {"Vehicle": 25, "VehicleLV": 25, "VehicleCombination": 25, "TractorSemitrailer": 25}

CHILD = '''
import gc, tracemalloc
from fmpy.fmi2 import FMU2Slave
fmu = Fmu(INPUTS['fmu'])
f = FMU2Slave(guid=fmu.md.guid, unzipDirectory=fmu.dir, modelIdentifier=fmu.md.coSimulation.modelIdentifier,
              instanceName='memory')
def cycle():
    f.instantiate(loggingOn=False, callbacks=CALLBACKS)
    f.setupExperiment(startTime=0.0)
    f.enterInitializationMode()
    f.exitInitializationMode()
    f.doStep(0.0, 1e-3)
    f.terminate()
    f.fmi2FreeInstance(f.component)       # the instance only: the FMU binary stays loaded
for _ in range(3):                      # imports, compiled code, first-call caches
    cycle()
gc.collect()
tracemalloc.start()
before = tracemalloc.get_traced_memory()[0]
for _ in range(INPUTS['n']):
    cycle()
gc.collect()
RESULT = {'growth': tracemalloc.get_traced_memory()[0] - before}
tracemalloc.stop()
'''


@pytest.mark.parametrize("fmu", HARNESS_FMUS)
def test_memory_kept_per_instance_is_bounded(all_fmus, tmp_path, fmu):
    n = MEASURED.get(fmu, CYCLES)
    growth = run_child(CHILD, tmp_path, fmu=str(all_fmus[fmu]), n=n)["growth"]
    assert growth * CYCLES / n <= BUDGET, f"{fmu}: {growth / n:.0f} bytes kept per instance"
    assert growth / n <= 10_000, f"{fmu}: {growth / n:.0f} bytes kept per instance"
