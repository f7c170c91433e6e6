"""The one timeout of the tests' child processes: the package's hang guard, never a speed limit.

A child that compiles numba kernels can take many minutes on a busy 2-core machine (one cold compile of the
vehicle's kernels took over 8 minutes under a load of 10-12), so no test may fail only because the machine
is slow: every child process a test starts gets ``HANG_GUARD_S``, which only stops a child that hangs.
"""
from fmu_vehicle.util import CHILD_HANG_GUARD_S

HANG_GUARD_S = CHILD_HANG_GUARD_S
"""Upper bound on one child process of a test [s] (``fmu_vehicle.util.CHILD_HANG_GUARD_S``)."""
