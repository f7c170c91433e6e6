"""Memory kept per instance: instantiate, initialize, step, terminate and free an FMU many times in one
process (FMPy, a child process) and measure what stays, two ways (docs/fmu_robustness.md, "Memory per
instance", has the numbers and what stays where).

* **Resident memory** (``/proc/self/statm``) every 10 cycles from cycle 40 to 120 (the vehicle FMUs: every 5
  from 20 to 50), each reading after a garbage collection and glibc's ``malloc_trim(0)``; the least-squares
  slope of the readings, times 200, is the memory 200 instances keep.  Without the trim a reading includes the
  heap pages glibc keeps after they were freed, which wander by +-1.5 MB from one reading to the next in a
  process that runs VehicleLV instances while what is allocated stays the same.  The first cycles load the code,
  the compiled kernels and the first-call caches (tens of MB for the vehicles).
* **Python allocations** (tracemalloc: every Python allocation, the FMU binary's included, as it allocates
  through Python; not timing-dependent) per instance over two windows of 10 more cycles (the vehicles: 6), the
  smaller: a
  one-off allocation (1 MB was seen once) shows in one window only.

Vehicle and VehicleCombination are the vehicle slave of VehicleLV and TractorSemitrailer with other vehicle
files: the suite measures those two (the four measured 0.0-0.2 MB and 4.5-4.8 kB alike).

The FMUs ship the package's own binary, which imports the slave script once per process and releases everything
of an instance at fmi2FreeInstance: what stays is a few hundred bytes of Python's own caches per instance (and,
in the vehicle FMUs, numba's dispatch caches).  pythonfmu 0.7.0's binary kept about 1.3 kB more per instance
(the MRO list of the slave class it finds by executing the script again, and the repr strings of it).
"""
import pytest

from fmu_lists import HARNESS_FMUS
from fmi_support import run_child

pytestmark = pytest.mark.slow

CYCLES = 200
RSS_BUDGET = 1e6          # bytes of resident memory kept over 200 cycles (the slope of the readings, times 200)
PER_INSTANCE = 8_000      # bytes of Python allocations kept per instance
READINGS = (40, 10, 120)  # first cycle read, then every 10 up to 120: 9 readings (a slope: the growth per cycle)
#: FMUs whose initialization solves the vehicle's static equilibrium (0.2-0.4 s a cycle here): fewer cycles, read
#: from cycle 20 on (after the trim, what the first cycles load is settled by then), 7 readings
VEHICLES = ("Vehicle", "VehicleLV", "VehicleCombination", "TractorSemitrailer")
MEASURED = dict.fromkeys(VEHICLES, (20, 5, 50))

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
first, every, last = INPUTS['readings']
readings = []
for i in range(1, last + 1):
    cycle()
    if i >= first and (i - first) % every == 0:
        readings.append((i, resident()))
n, rss = np.array(readings, dtype=float).T
traced = []
for _ in range(2):                        # two windows: a one-off allocation shows in one of them only
    gc.collect()
    tracemalloc.start()
    for _ in range(INPUTS['traced']):
        cycle()
    gc.collect()
    traced.append(tracemalloc.get_traced_memory()[0] / INPUTS['traced'])
    tracemalloc.stop()
RESULT = {'rss_per_cycle': float(np.polyfit(n, rss, 1)[0]), 'rss_span': float(rss.max() - rss.min()),
          'traced_per_instance': min(traced)}
'''


@pytest.mark.parametrize("fmu", [f for f in HARNESS_FMUS if f not in ("Vehicle", "VehicleCombination")])
def test_memory_kept_per_instance_is_bounded(all_fmus, tmp_path, fmu):
    kept = run_child(CHILD, tmp_path, fmu=str(all_fmus[fmu]), readings=MEASURED.get(fmu, READINGS),
                     traced=6 if fmu in VEHICLES else 10)
    assert kept["rss_per_cycle"] * CYCLES <= RSS_BUDGET, f"{fmu}: {kept}"
    assert kept["traced_per_instance"] <= PER_INSTANCE, f"{fmu}: {kept}"
