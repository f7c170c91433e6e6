"""The integrator interface: what a system offers, what a method offers, and the run-level helpers.

A system (``OdeSystem``) is a pair of compiled passes over a static model and a workspace:

* ``rhs(t, y, model, data, ydot) -> int``: writes dy/dt; returns 0 (ok), 1 (the state is valid but the
  system asks to be re-parameterized, e.g. a new coordinate partition) or a negative failure code;
* ``record(t, y, model, data, row)``: writes the output row of the state just evaluated by ``rhs``;

plus ``model``, ``data``, ``output_names`` and the Python hooks ``reparameterize(y) -> y``,
``failure(code, t) -> Exception`` and optionally ``rebase(y) -> bool`` (the system shifted its own
coordinates, e.g. the vehicle's x origin; y changed in place).

The compiled loops of a method take ``rhs`` and ``record`` as arguments, so numba specializes them for
each system (a direct call, cached on disk) and no system registers itself anywhere. A method
(``Method``) has a ``name``, ``run`` for a whole simulation and, if it can step an interface (an FMU),
``stepper(system, y, h)``. See docs/integrators.md.
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
    model: tuple
    data: tuple
    output_names: tuple

    def reparameterize(self, y: np.ndarray) -> np.ndarray: ...

    def failure(self, code: int, t: float) -> Exception: ...


class Stepper(Protocol):
    """A method's stepping state for one system (the FMU path): advance by whole steps, record the end.

    ``advance(t, h, n, row)`` runs n steps of h [s] from t on ``y`` and records the final state in ``row``;
    returns (steps done, status) where status 1 asks the caller to re-parameterize ``y`` and call again for
    the remaining steps. ``reset()`` says that y, t, the inputs or the system changed other than by
    ``advance`` (first-same-as-last reuse, multistep histories restart). ``get_state``/``set_state``
    carry everything the next step depends on, for bit-identical rollback."""

    y: np.ndarray

    def advance(self, t: float, h: float, n: int, row: np.ndarray) -> tuple[int, int]: ...

    def evaluate(self, t: float, row: np.ndarray) -> int: ...

    def reset(self) -> None: ...

    def get_state(self): ...

    def set_state(self, state) -> None: ...


def plain(f):
    """The numba function behind ``f``: a dispatcher stored as a class attribute of a system (``rhs =
    vehicle_rhs``) is bound to the instance when read from it if not a staticmethod; return the function."""
    import inspect
    return f.__func__ if inspect.ismethod(f) and hasattr(f.__func__, "py_func") else f
