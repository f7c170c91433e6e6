"""The numerics base layer: what every other layer builds on and nothing in it knows of vehicles, tires,
roads or FMI.

* ``shared``: calls between compiled kernels that reach the callee's one compiled copy;
* ``numba_compat``: every use of numba's and llvmlite's internals, in one place.
"""
