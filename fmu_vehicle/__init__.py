"""fmu_vehicle: semi-recursive multibody vehicle models as FMI 2.0 Co-Simulation FMUs."""
from __future__ import annotations

__version__ = "0.1.0"


def __getattr__(name: str):
    """``fmu_vehicle.CACHE_DIR``: the folder of this copy's compiled kernels (``numerics.cache.cache_dir``),
    chosen at first use: importing the package does no work."""
    if name == "CACHE_DIR":
        from .numerics.cache import cache_dir
        return cache_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
