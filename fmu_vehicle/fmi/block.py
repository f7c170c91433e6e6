"""Block slaves: FMUs whose model is two numba kernels over four float64 arrays.

A block's model is

    init(p, s, u, y, t0) -> status        the start at the FMU's start time t0 [s]
    step(p, s, u, y, t, h) -> status      the communication step [t, t + h] [s]

over its parameter array ``p`` (the Real parameters the kernels read, at the indices ``Block.parameters``
names, followed by whatever the block derives from its other parameters and files at setup: tables, ...), its
state ``s`` (``Block.n_state`` numbers), its inputs ``u`` (the FMU's Real inputs in variable-table order) and its
outputs ``y`` (the FMU's outputs in variable-table order; an Integer output is a whole number there, a Boolean one
0 or 1). A status other than 0 is a failure of the model. The same kernels run in the Python FMU (:class:`BlockSlave`, a thin
owner of the arrays) and, compiled to machine code with a C FMI layer, in the native FMU
(``fmu_vehicle.native.block``): no formula exists twice. See docs/native.md §10.
"""
from __future__ import annotations

from typing import Any, Callable, ClassVar, NamedTuple

import numpy as np

from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.slave_base import SlaveBase


class Block(NamedTuple):
    """The kernels and array layout of a block FMU (module docstring)."""
    init: Callable            # njit init(p, s, u, y, t0) -> int
    step: Callable            # njit step(p, s, u, y, t, h) -> int
    parameters: dict          # Real parameter name -> its index in p (settable until initialization ends; at any
                              # time if its variability is tunable)
    n_state: int              # length of s
    parameter_array: Callable  # parameter_array(values, resources) -> p (float64), from the parameter values


def block_inputs(variables) -> tuple[str, ...]:
    """The names of a block's inputs ``u``, in order: the Real inputs of the variable table."""
    return tuple(v.name for v in variables if v.causality == "input" and v.type == "Real")


def block_outputs(variables) -> tuple[str, ...]:
    """The names of a block's outputs ``y``, in order: the outputs of the variable table."""
    return tuple(v.name for v in variables if v.causality == "output")


class BlockSlave(SlaveBase):
    """A ``SlaveBase`` over a :class:`Block`: ``_setup`` makes the arrays and calls ``init``, ``_advance`` copies
    the inputs into ``u`` and calls ``step``; the FMU state is the arrays ``s`` and ``y``."""

    BLOCK: ClassVar[Block]

    def _setup(self):
        block, cls = self.BLOCK, type(self)
        self._u_names, self._y_names = block_inputs(cls.VARIABLES), block_outputs(cls.VARIABLES)
        kinds = {"Integer": int, "Boolean": bool}
        self._output_kinds = [kinds.get(v.type, float) for v in cls.VARIABLES if v.causality == "output"]
        self.p = np.ascontiguousarray(block.parameter_array(self.values, self.resources), dtype=np.float64)
        self.s = np.zeros(block.n_state)
        self.u = np.array([float(self.values[name]) for name in self._u_names], dtype=np.float64)
        self.y = np.zeros(len(self._y_names))
        self._check(block.init(self.p, self.s, self.u, self.y, float(self.start_time)), "initialization")
        self._write_outputs()

    def _advance(self, t, h):
        values, u = self.values, self.u
        for i, name in enumerate(self._u_names):
            u[i] = values[name]
        self._check(self.BLOCK.step(self.p, self.s, u, self.y, float(t), float(h)), f"step at t = {t!r} s")
        self._write_outputs()

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            raise ModelError(f"{self.MODEL_NAME} {what}: the model failed (status {int(status)})")

    def _write_outputs(self):
        self.values.update((name, kind(x)) for name, kind, x in zip(self._y_names, self._output_kinds, self.y))

    def _on_tunable_change(self, names):
        self._parameters_from_values(names)

    def _parameters_from_values(self, names) -> None:
        """Write the parameters ``names`` the kernels read from ``p`` (``Block.parameters``) from the values."""
        where = self.BLOCK.parameters
        for name in names:
            if name in where:
                self.p[where[name]] = self.values[name]

    def _state(self) -> Any:
        return {"s": self.s.copy(), "y": self.y.copy()}

    def _restore(self, state):
        self.s[:] = state["s"]
        self.y[:] = state["y"]
        self._parameters_from_values(self.BLOCK.parameters)      # tunable parameters come back with the values
