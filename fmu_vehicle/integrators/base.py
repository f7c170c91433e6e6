"""The integrator interface.

An :class:`OdeSystem` exposes two numba functions and their argument tuple:

* ``rhs(t, y, sys, ydot) -> int``: writes dy/dt; returns 0 (ok), 1 (state valid but the system asks
  to be re-parameterized, e.g. a new coordinate partition) or a negative failure code;
* ``record(t, y, sys, row)``: writes the output row of the state just evaluated by ``rhs``;

plus Python hooks ``reparameterize(y) -> y`` and ``failure(code, t) -> Exception``. The argument
tuple's class is registered with ``integrators.registry.register_system(cls, rhs, record)`` so that the
compiled loops find the functions at compile time.
Integrators (fixed-step RK4, the adaptive scipy reference; later Adams-Bashforth-Moulton or an
implicit Newton-chord method, seed 002) only call these, so they never touch the dynamics.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Protocol

import numpy as np


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run between two chunks: ``times``, ``outputs``, ``y`` hold the rows recorded so
    far and the state after the last completed step (a KeyboardInterrupt, so callers that do not
    handle it still stop)."""

    def __init__(self, times, outputs, y):
        super().__init__("simulation interrupted")
        self.times, self.outputs, self.y = times, outputs, y


@contextmanager
def interrupt_flag():
    """Within the block, SIGINT (Ctrl-C) only sets ``flag["set"]``; integrators check it between compiled
    chunks, so a run stops at a consistent step. Outside the main thread nothing changes."""
    flag = {"set": False}
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def handler(signum, frame):
        flag["set"] = True

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


class OdeSystem(Protocol):
    rhs: object
    record: object
    sys: tuple
    output_names: tuple

    def reparameterize(self, y: np.ndarray) -> np.ndarray: ...

    def failure(self, code: int, t: float) -> Exception: ...


def integrate(system, y0, t_end, h, *, integrator="rk4", t0=0.0, record_every=1, progress=False, **options):
    """Integrate ``system`` from ``t0`` to ``t_end``; returns (t [s], outputs, y_end).

    ``integrator`` is a name from :data:`fmu_vehicle.integrators.INTEGRATORS` or an instance.
    """
    from . import INTEGRATORS
    if isinstance(integrator, str):
        try:
            integrator = INTEGRATORS[integrator](**options)
        except KeyError:
            raise ValueError(f"unknown integrator {integrator!r}; valid: {', '.join(INTEGRATORS)}") from None
    return integrator.run(system, np.asarray(y0, dtype=float), t0, t_end, h, record_every=record_every,
                          progress=progress)
