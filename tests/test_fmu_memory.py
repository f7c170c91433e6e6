"""Memory kept per instance: instantiate, initialize, step, terminate and free an FMU many times in one
process (FMPy, a child process) and measure what stays, two ways.

* **Resident memory** (``/proc/self/statm``) of the process after each further ten cycles from cycle 50 to 200,
  each reading after a garbage collection and glibc's ``malloc_trim(0)``; the least-squares slope over the 16
  readings, times 200, is the memory 200 instances keep.  Without the trim the reading includes the heap pages
  glibc keeps after they were freed: the heap of a process that runs VehicleLV instances grows by a few MB over
  the first 40 cycles and then wanders by +-1.5 MB from one reading to the next, though what is allocated stays
  the same (``mallinfo2``); a difference of two untrimmed readings says more about that than about the FMU.
  Cycles 1-49 load the code, the compiled kernels and the first-call caches (tens of MB for the vehicles).
* **Python allocations** (tracemalloc: every Python allocation, the FMU binary's included, as it allocates
  through Python; not timing-dependent) over 25 more cycles, per instance.

pythonfmu 0.7.0's binary executes the slave script again at each instantiation and keeps, for the process
lifetime, the MRO list of every class it finds among that execution's names and the repr strings it makes of
them (``findClass`` in its ``src/pythonfmu/PySlaveInstance.cpp``, docs/fmu_robustness.md "Memory per
instance").  The build runs the script's own code, its imports included, only at the module's import
(``fmu_vehicle.fmi.build.REEXECUTION_GUARD``), so a re-execution shows the binary the slave class only: what
stays per instance is that class's MRO list and strings, 0.6-1.4 kB (docs/fmu_robustness.md has the numbers).
"""
import pytest

from fmu_lists import HARNESS_FMUS
from fmi_support import run_child

pytestmark = pytest.mark.slow

CYCLES = 200
RSS_BUDGET = 1e6          # bytes of resident memory kept over 200 cycles (the slope from cycle 50 to 200)
PER_INSTANCE = 2_000      # bytes of Python allocations kept per instance

CHILD = '''
import ctypes, gc, os, tracemalloc
import numpy as np
from fmpy.fmi2 import FMU2Slave
fmu = Fmu(INPUTS['fmu'])
f = FMU2Slave(guid=fmu.md.guid, unzipDirectory=fmu.dir, modelIdentifier=fmu.md.coSimulation.modelIdentifier,
              instanceName='memory')
libc = ctypes.CDLL(None)
def cycle():
    f.instantiate(loggingOn=False, callbacks=CALLBACKS)
    f.setupExperiment(startTime=0.0)
    f.enterInitializationMode()
    f.exitInitializationMode()
    f.doStep(0.0, 1e-3)
    f.terminate()
    f.fmi2FreeInstance(f.component)       # the instance only: the FMU binary stays loaded
def resident():
    gc.collect()
    libc.malloc_trim(0)                   # freed heap pages back to the system: what stays is in use
    with open('/proc/self/statm') as statm:
        return int(statm.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')
readings = []
for i in range(1, INPUTS['cycles'] + 1):
    cycle()
    if i >= 50 and i % 10 == 0:
        readings.append((i, resident()))
n, rss = np.array(readings, dtype=float).T
gc.collect()
tracemalloc.start()
before = tracemalloc.get_traced_memory()[0]
for _ in range(INPUTS['traced']):
    cycle()
gc.collect()
traced = tracemalloc.get_traced_memory()[0] - before
tracemalloc.stop()
RESULT = {'rss_per_cycle': float(np.polyfit(n, rss, 1)[0]), 'rss_span': float(rss.max() - rss.min()),
          'traced_per_instance': traced / INPUTS['traced']}
'''


@pytest.mark.parametrize("fmu", HARNESS_FMUS)
def test_memory_kept_per_instance_is_bounded(all_fmus, tmp_path, fmu):
    kept = run_child(CHILD, tmp_path, fmu=str(all_fmus[fmu]), cycles=CYCLES, traced=25)
    assert kept["rss_per_cycle"] * CYCLES <= RSS_BUDGET, f"{fmu}: {kept}"
    assert kept["traced_per_instance"] <= PER_INSTANCE, f"{fmu}: {kept}"
