"""The integrator interface: what a system offers, what a method offers, and the run-level helpers.

A system (``OdeSystem``) is a static model and a workspace (``model``, ``data``: numba namedtuples) whose
model type names the system's two compiled passes as class attributes:

* ``rhs(t, y, model, data, ydot) -> int``: writes dy/dt; returns 0 (ok), 1 (the state is valid but the
  system asks to be re-parameterized, e.g. a new coordinate partition) or a negative failure code;
* ``record(t, y, model, data, row)``: writes the output row of the state just evaluated by ``rhs``;

and optionally a third, for methods that locate events (``rk4e``):

* ``switch(t, y, model, data, params, g)``: writes the switching functions of the state just evaluated by
  ``rhs`` (a by-product of that evaluation): values whose change of sign marks a point where the derivative
  is not smooth; ``params`` is the system object's ``switch_params`` (a float64 array the pass alone reads,
  kept out of ``model``: see ``road.arrays.slope_breaks``); ``n_switch(model) -> int`` (a Python function on
  the same type) gives their number;

plus ``output_names`` and the Python hooks ``reparameterize(y) -> y``, ``failure(code, t) -> Exception``
and optionally ``rebase(y) -> bool`` (the system shifted its own coordinates, e.g. the vehicle's x
origin; y changed in place).

A system may also offer ``rhs_ref(t, y, model_ref, data_ref, ydot)`` and ``record_ref(t, y, model_ref,
data_ref, row)``: the same passes taking references (``packing.by_ref``) to its model and workspace. A call
that passes the namedtuples themselves hands over every member of them, about 0.4 us for a vehicle whatever
the pass then does; a reference is one pointer. So a compiled loop makes ``mref, dref = by_ref(model),
by_ref(data)`` once and passes those to ``system_rhs``, ``system_record`` and ``system_switch``, which take
either (a system without the ``_ref`` forms gets the values, loaded from the references).

The compiled loops of a method call ``system_rhs``/``system_record``; numba resolves them from the type
of ``model`` when it compiles the loop, so neither the loop nor the system is registered anywhere. A pass
with a ``_ref`` form is called through its one compiled copy (``numerics.shared``): the loop's code holds a
call, not a copy of the vehicle's derivative, so each loop compiles in seconds and its cache entry is small.
The loop's cache entry is keyed by the modules of the model's type and of the passes it carries
(``fmu_vehicle.numerics.jit.types_key``), so an edit of a system's passes recompiles the loop; the overloads
themselves are not cached (they are compiled into the loop). (Passing the passes as function arguments
instead makes numba key its disk cache on dispatcher objects, which differ between copies of the package,
e.g. two FMUs.)

A method has a ``name``, ``run`` for a whole simulation and, if it can step an interface (an FMU),
``stepper(system, y)``. See docs/integrators.md.
"""
from __future__ import annotations

import math
import signal
import threading
from contextlib import contextmanager
from typing import Protocol

import numpy as np
from numba.core import types
from numba.extending import overload

from ..numerics import shared
from ..numerics.jit import njit
from ..numerics.packing import by_ref, deref


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


def fixed_steps(t0, t_end, h) -> int:
    """Number of fixed steps h [s] from t0 to t_end [s]; ValueError for a bad step or duration."""
    if not (h > 0 and math.isfinite(h)):
        raise ValueError(f"step size h must be a positive number of seconds, got {h}")
    nsteps = int(round((t_end - t0) / h))
    if nsteps < 1 or abs(nsteps * h - (t_end - t0)) > 1e-9 * max(1.0, abs(t_end)):
        raise ValueError(f"duration {t_end - t0} s is not a positive multiple of the step {h} s")
    return nsteps


def inputs_key(system) -> np.ndarray:
    """The system's inputs as a flat view: what a stepper compares to know whether they changed since its last
    evaluation (first-same-as-last reuse, multistep histories); empty if the system has none."""
    inputs = getattr(system.data, "inputs", None)
    return np.zeros(0) if inputs is None else inputs.reshape(-1)


def system_rhs(t, y, model, data, out):
    """``type(model).rhs(t, y, model, data, out)``: the derivative pass of the system ``model`` belongs to
    (dy/dt into ``out``)."""
    return type(model).rhs(t, y, model, data, out)


def system_record(t, y, model, data, out):
    """``type(model).record(t, y, model, data, out)``: the output pass of the system ``model`` belongs to (the
    output row into ``out``)."""
    type(model).record(t, y, model, data, out)


def system_switch(t, y, model, data, params, g):
    """``type(model).switch(t, y, model, data, params, g)``: the switching functions of the state just
    evaluated by ``system_rhs`` (nothing for a system without a switching pass)."""
    fn = getattr(type(model), "switch", None)
    if fn is not None:
        fn(t, y, model, data, params, g)


def switch_count(model) -> int:
    """Number of switching functions of the system ``model`` belongs to (0 without a switching pass)."""
    n = getattr(type(model), "n_switch", None)
    return 0 if n is None or getattr(type(model), "switch", None) is None else int(n(model))


def switch_params(system) -> np.ndarray:
    """The array a system hands to its switching pass (``system.switch_params``; empty without)."""
    params = getattr(system, "switch_params", None)
    return np.zeros(0) if params is None else np.ascontiguousarray(params, dtype=np.float64)


def _instance_class(model):
    """The Python class of the system ``model`` (a numba type, or a reference to one) belongs to."""
    return (model.dtype if isinstance(model, types.CPointer) else model).instance_class


@overload(system_rhs, jit_options={"_nrt": False})
def _system_rhs(t, y, model, data, out):
    cls = _instance_class(model)
    fn, ref = cls.rhs, getattr(cls, "rhs_ref", None)
    return _pass_impl(model, fn, ref)


@overload(system_record, jit_options={"_nrt": False})
def _system_record(t, y, model, data, out):
    cls = _instance_class(model)
    return _pass_impl(model, cls.record, getattr(cls, "record_ref", None))


def _pass_impl(model, fn, ref):
    """The implementation of a call ``pass(t, y, model, data, out)``: a pass with a by-reference form
    ``ref`` is called through its one compiled copy (``numerics.shared``) with references to model and data;
    one without it gets the values (loaded from the references if the loop passes those)."""
    if ref is not None and isinstance(model, types.CPointer):
        def impl(t, y, model, data, out):
            return shared.call(ref, t, y, model, data, out)
    elif ref is not None:
        def impl(t, y, model, data, out):
            return shared.call(ref, t, y, by_ref(model), by_ref(data), out)
    elif isinstance(model, types.CPointer):
        def impl(t, y, model, data, out):
            return fn(t, y, deref(model), deref(data), out)
    else:
        def impl(t, y, model, data, out):
            return fn(t, y, model, data, out)
    return impl


@overload(system_switch, jit_options={"_nrt": False})
def _system_switch(t, y, model, data, params, g):
    fn = getattr(_instance_class(model), "switch", None)
    if fn is None:
        def impl(t, y, model, data, params, g):
            pass
    elif not isinstance(model, types.CPointer):
        def impl(t, y, model, data, params, g):
            fn(t, y, model, data, params, g)
    else:
        def impl(t, y, model, data, params, g):
            fn(t, y, deref(model), deref(data), params, g)
    return impl


def passes(model):
    """(rhs, record) of the system ``model`` belongs to (the compiled functions, for Python-level calls)."""
    return type(model).rhs, type(model).record


# ------------------------------------------------------------------ the run loop every fixed-step method shares

@njit(inline="always")
def saved_for(saved, key):
    """True if ``saved`` = [1, key]: the last evaluation a stepper kept was made with the inputs ``key``."""
    same = saved[0] == 1.0
    for i in range(key.size):
        if saved[1 + i] != key[i]:
            same = False
    return same


@njit(inline="always")
def save_for(saved, key):
    """Mark the stepper's kept evaluation valid for the inputs ``key``: saved = [1, key]."""
    saved[0] = 1.0
    for i in range(key.size):
        saved[1 + i] = key[i]


def _recorded_steps(step0, nrec, every):
    """Step indices of the ``nrec`` rows recorded by a chunk that started at step index ``step0``."""
    first = -(-step0 // every) * every
    return first + every * np.arange(nrec)


def run_chunks(system, y, t0, h, nsteps, record_every, progress, chunk, step_chunk, *, on_shift=None,
               on_repartition=None, failure=None):
    """The Python loop every fixed-step method's ``run`` shares: ``nsteps`` steps of ``h`` [s] from
    (t0, y) in compiled calls of up to ``chunk`` steps, ``step_chunk(y, step, todo, out, nrec) -> (steps done,
    status, rows recorded so far)``, recording every ``record_every``-th step into a fresh output table.

    Between calls: the progress bar advances; the system may move its coordinates (``system.rebase(y)``;
    ``on_shift()`` when it did) or ask for a new partition (status 1: ``y = system.reparameterize(y)``,
    then ``on_repartition()``), so that a method can restart what it keeps of the past; a negative status
    raises ``failure(status, t)`` (default ``system.failure``); Ctrl-C stops the loop after the call.
    Returns (y, steps done, times [s], output table, rows recorded); the caller records the final state
    (:func:`finish_run`)."""
    nrows = nsteps // record_every + 2
    out = np.zeros((nrows, len(system.output_names)))
    times = np.zeros(nrows)
    bar = None
    step, nrec = 0, 0
    rebase = getattr(system, "rebase", None)
    failure = system.failure if failure is None else failure
    try:
        with interrupt_flag() as stop:
            bar = _progress(progress, nsteps)       # here a Ctrl-C while it draws cannot leave it half shown
            while step < nsteps and not stop["set"]:
                todo = min(chunk, nsteps - step)
                first = nrec
                done, status, nrec = step_chunk(y, step, todo, out, nrec)
                times[first:nrec] = t0 + h * _recorded_steps(step, nrec - first, record_every)
                step += done
                if bar is not None:
                    bar.update(done)
                if rebase is not None and status >= 0 and rebase(y) and on_shift is not None:
                    on_shift()
                if status == 1:
                    y = system.reparameterize(y)
                    if on_repartition is not None:
                        on_repartition()
                elif status < 0:
                    raise failure(status, t0 + step * h)
    finally:
        if bar is not None:
            bar.close()
    return y, step, times, out, nrec


def finish_run(times, out, nrec, y, t, st, interrupted, failure):
    """The end of a fixed-step run whose final state ``y`` at ``t`` [s] was evaluated and recorded into
    out[nrec] with status ``st``: its row is kept if ``st`` >= 0; an interrupted run raises
    :class:`Interrupted` with the rows so far, a completed one ``failure(st, t)`` if ``st`` < 0, else
    returns (times, rows, y)."""
    if st >= 0:
        times[nrec] = t
        nrec += 1
    if interrupted:
        raise Interrupted(times[:nrec].copy(), out[:nrec].copy(), y)
    if st < 0:
        raise failure(st, t)
    return times[:nrec].copy(), out[:nrec].copy(), y


def _progress(progress, total):
    if not progress:
        return None
    from tqdm import tqdm
    return tqdm(total=total, unit="step", desc="simulating", leave=False, mininterval=0.5)
