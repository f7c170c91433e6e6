"""Time integration methods over the :class:`~fmu_vehicle.integrators.base.OdeSystem` protocol, chosen by name.

    t, rows, y_end = integrate(system, y0, t_end=5.0, h=1e-3, integrator="rk4")
    stepper = make_stepper(system, y0, integrator="rk4")      # step-by-step (FMU) interface

``INTEGRATORS`` maps each name to its method class: ``rk4`` (``rk4.RK4``), ``abm4`` (``abm.ABM4``), ``bdf2``
(``bdf.BDF2``), ``rk4e`` (``rk4e.RK4E``, RK4 with event location) and ``reference``
(``adaptive.ScipyReference``, scipy's DOP853). ``base`` holds the system and stepper protocols and the shared
run loop. A new method is a module with a class that has ``name``, ``run(system, y0, t0, t_end, h, *,
record_every, progress)`` returning (times, output rows, final y) (a fixed-step method hands its compiled chunk
to ``base.run_chunks``) and, if it can step, ``stepper(system, y)``; it is added here and nowhere else (the API,
the command line, the bench and the FMUs read the names from ``INTEGRATORS``). A new method is appended: the
FMUs' ``integrator`` Enumeration numbers the stepping methods by their position in ``STEPPING_INTEGRATORS``
(tests/test_fmi_enumerations.py). See docs/integrators.md §4 and docs/extending.md.
"""
from __future__ import annotations

import numpy as np

from .abm import ABM4
from .adaptive import ScipyReference
from .bdf import BDF2
from .base import Interrupted, OdeSystem, Stepper
from .rk4 import RK4
from .rk4e import RK4E

INTEGRATORS = {RK4.name: RK4, ABM4.name: ABM4, BDF2.name: BDF2, RK4E.name: RK4E, ScipyReference.name: ScipyReference}
"""Integration method classes by name."""

STEPPING_INTEGRATORS = tuple(name for name, cls in INTEGRATORS.items() if hasattr(cls, "stepper"))
"""Names of the methods that can advance a stepping interface (an FMU) step by step."""


def get_integrator(name, **options):
    """The method called ``name`` with ``options`` (an instance is returned as is); ValueError names the valid ones."""
    if not isinstance(name, str):
        return name
    try:
        cls = INTEGRATORS[name]
    except KeyError:
        raise ValueError(f"unknown integrator {name!r}; valid: {', '.join(INTEGRATORS)}") from None
    return cls(**options)


def integrate(system, y0, t_end, h, *, integrator="rk4", t0=0.0, record_every=1, progress=False, **options):
    """Integrate ``system`` from ``t0`` to ``t_end`` [s] with step ``h`` [s] (output spacing for adaptive
    methods); returns (t [s], output rows, y_end). ``integrator``: a name of ``INTEGRATORS`` or an instance."""
    m = get_integrator(integrator, **options)
    return m.run(system, np.asarray(y0, dtype=float), t0, t_end, h, record_every=record_every, progress=progress)


def make_stepper(system, y0, integrator: str = "rk4") -> Stepper:
    """A stepping state of the method called ``integrator`` for ``system`` starting at ``y0`` (ValueError
    for a method that cannot step)."""
    if integrator not in STEPPING_INTEGRATORS:
        raise ValueError(f"integrator {integrator!r} cannot step an interface; valid: "
                         f"{', '.join(STEPPING_INTEGRATORS)}")
    return INTEGRATORS[integrator]().stepper(system, np.array(y0, dtype=float))


__all__ = ["OdeSystem", "Stepper", "Interrupted", "RK4", "RK4E", "ABM4", "BDF2", "ScipyReference", "INTEGRATORS", "STEPPING_INTEGRATORS",
           "get_integrator", "integrate", "make_stepper"]
