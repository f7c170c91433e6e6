"""Exception types. Every message names the file/entry/variable and the reason."""


class FmuVehicleError(Exception):
    """Base class for errors the command line reports as one line with exit code 2."""


class ModelError(FmuVehicleError):
    """Invalid mechanism or vehicle data (missing field, bad value, bad topology)."""


class SimulationError(FmuVehicleError):
    """A simulation could not continue (position problem diverged, singular constraint Jacobian, ...)."""
