"""Time integrators over the :class:`OdeSystem` protocol (independent of the dynamics)."""
from .adaptive import ScipyReference
from .base import OdeSystem, integrate
from .explicit import RK4

INTEGRATORS = {"rk4": RK4, "reference": ScipyReference}

__all__ = ["OdeSystem", "RK4", "ScipyReference", "INTEGRATORS", "integrate"]
