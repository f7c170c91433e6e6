"""Compile-time dispatch from a system's argument tuple to its ``rhs``/``record`` functions.

The compiled integrator loops call ``system_rhs(t, y, sys, ydot)``/``system_record(t, y, sys, row)``;
numba resolves them from the type of ``sys`` (a namedtuple class registered here), so the loops take
no function-typed arguments and can be cached on disk. Uncompiled (NUMBA_DISABLE_JIT=1) the same
names dispatch through the dictionary.
"""
from __future__ import annotations

from numba.extending import overload

_SYSTEMS: dict = {}   # argument namedtuple class -> (rhs, record)


def register_system(args_class, rhs, record) -> None:
    """Declare that tuples of ``args_class`` are integrated with ``rhs`` and recorded with ``record``."""
    _SYSTEMS[args_class] = (rhs, record)


def system_rhs(t, y, sys, ydot):
    return _SYSTEMS[type(sys)][0](t, y, sys, ydot)


def system_record(t, y, sys, row):
    _SYSTEMS[type(sys)][1](t, y, sys, row)


@overload(system_rhs, jit_options={"cache": True, "_nrt": False})
def _system_rhs(t, y, sys, ydot):
    fn = _SYSTEMS[sys.instance_class][0]

    def impl(t, y, sys, ydot):
        return fn(t, y, sys, ydot)
    return impl


@overload(system_record, jit_options={"cache": True, "_nrt": False})
def _system_record(t, y, sys, row):
    fn = _SYSTEMS[sys.instance_class][1]

    def impl(t, y, sys, row):
        fn(t, y, sys, row)
    return impl
