"""The Python side of the FMU binary ``fmi2_python.c``: one :class:`Fmi2Instance` per ``fmi2Instantiate``.

The binary imports the slave script's module (named in ``resources/slavemodule.txt``) with the resources folder
on ``sys.path`` only for that import, and calls the module's ``fmi2_instance`` (this module's
:func:`fmi2_instance`, imported there by the build's prologue) with the module, the instance name, the resources
folder and ``visible``. Every later fmi2 call of the instance is a method call on the object returned:

==========================================  ===========================================================
fmi2 function                               method (the slave's unless said otherwise)
==========================================  ===========================================================
fmi2SetupExperiment                         ``setup_experiment(start, stop or None, tolerance or None)``
fmi2Enter/ExitInitializationMode            ``enter_initialization_mode()``, ``exit_initialization_mode()``
                                            (False: the parameters are refused -> fmi2Error)
fmi2DoStep                                  ``do_step(t, h)`` (False -> fmi2Discard)
fmi2Terminate, fmi2Reset                    ``terminate()``, :meth:`Fmi2Instance.reset` (a new slave)
fmi2Get/Set{Real,Integer,Boolean,String}    ``get_real(vrs)`` ... ``set_string(vrs, values)``
fmi2GetBooleanStatus(fmi2Terminated)        :meth:`Fmi2Instance.cannot_continue` (when the last step was
                                            not refused)
fmi2Get/SetFMUstate                         ``_get_fmu_state()`` (None: refused), ``_set_fmu_state(state)``
fmi2(De)SerializeFMUstate                   the slave class's ``_fmu_state_to_bytes`` / ``_fmu_state_from_bytes``
==========================================  ===========================================================

A Python exception in any of them makes the call return fmi2Error with the exception logged; the instance lives
on until ``fmi2FreeInstance``. After each call the binary takes the messages the slave queued
(:meth:`Fmi2Instance.take_messages`) and passes them to the host's logger. The slave API is pythonfmu's
``Fmi2Slave``'s, so the slaves need no change.
"""
from __future__ import annotations

import inspect
import types
from typing import Any

from pythonfmu import Fmi2Slave

_SLAVE_CALLS = ("setup_experiment", "enter_initialization_mode", "exit_initialization_mode", "do_step",
                "terminate", "get_real", "get_integer", "get_boolean", "get_string", "set_real", "set_integer",
                "set_boolean", "set_string")


def slave_class(module: types.ModuleType) -> type:
    """The one concrete ``Fmi2Slave`` subclass defined in ``module`` (the slave script)."""
    found = [obj for obj in vars(module).values()
             if isinstance(obj, type) and issubclass(obj, Fmi2Slave) and not inspect.isabstract(obj)
             and obj.__module__ == module.__name__]
    if len(found) != 1:
        raise TypeError(f"module {module.__name__} defines {len(found)} concrete Fmi2Slave classes, expected one "
                        f"({', '.join(c.__name__ for c in found) or 'none'})")
    return found[0]


class Fmi2Instance:
    """One FMU instance: the slave, its methods for the binary's calls, and what the binary asks besides."""

    def __init__(self, cls: type, instance_name: str, resources: str, visible: bool):
        self._cls = cls
        self._kwargs = dict(instance_name=instance_name, resources=resources, visible=visible)
        self._new_slave()

    def _new_slave(self) -> None:
        slave = self._cls(**self._kwargs)
        self.slave = slave
        self.log_queue: list = slave.log_queue
        for name in _SLAVE_CALLS:             # bound methods: no extra Python frame per call
            setattr(self, name, getattr(slave, name))

    def reset(self) -> None:
        """fmi2Reset: a new slave, as right after fmi2Instantiate (its messages queued in the new queue)."""
        self._new_slave()

    def cannot_continue(self) -> bool:
        """True while the slave refuses every step (``refuses_steps()``, where the slave has it)."""
        refuses = getattr(self.slave, "refuses_steps", None)
        return bool(refuses()) if refuses is not None else False

    def get_fmu_state(self) -> Any:
        return self.slave._get_fmu_state()

    def set_fmu_state(self, state: Any) -> None:
        self.slave._set_fmu_state(state)

    def state_to_bytes(self, state: Any) -> bytes:
        return self._cls._fmu_state_to_bytes(state)

    def state_from_bytes(self, data: bytes) -> Any:
        return self._cls._fmu_state_from_bytes(data)

    def take_messages(self) -> list[tuple[int, str, str]]:
        """The queued messages as (FMI status, category, message) and the queue emptied. The message is the
        logger's format string as the slave wrote it (the slaves double a '%')."""
        queue = self.log_queue
        out = [(int(m.status), str(m.category or ""), str(m.msg)) for m in queue]
        del queue[:len(out)]
        return out


def fmi2_instance(module: types.ModuleType, instance_name: str, resources: str, visible: bool) -> Fmi2Instance:
    """What the binary's fmi2Instantiate calls (see the module docstring)."""
    return Fmi2Instance(slave_class(module), instance_name, resources, visible)
