"""Records describing a co-simulation: components, connections, the system and the experiment.

Plain data, no behaviour except validation (FMPy ``ssp/ssd.py`` analogue). Times are in seconds.

See docs/cosimulation.md §1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from fmu_vehicle.errors import ModelError

#: Python types a parameter value may have (SSV Real, Integer, Boolean, String).
ParameterValue = float | int | bool | str

#: Coupling schemes understood by :func:`fmu_vehicle.cosim.master.run_system`.
SCHEMES = ("jacobi", "gauss-seidel")

#: SSP connector types used here.
CONNECTOR_TYPES = ("Real", "Integer", "Boolean", "String", "Enumeration")


@dataclass(frozen=True)
class Connector:
    """One port of a component as declared in an SSD (``ssd:Connector``).

    name   FMU variable name
    kind   'input' | 'output' | 'parameter' | 'calculatedParameter' | 'inout'
    type   'Real' | 'Integer' | 'Boolean' | 'String' | 'Enumeration', None = not declared (take the FMU's)
    unit   unit string or None
    """

    name: str
    kind: str
    type: str | None = None
    unit: str | None = None


@dataclass
class Component:
    """One FMU instance in a system.

    name        unique instance name inside the system (also the FMI instance name)
    source      path of the ``.fmu`` file (or of an already extracted FMU directory)
    parameters  start values applied before initialization, FMU variable name -> value
    step_size   own communication step in s (an integer multiple of the master step), None = master step
    connectors  declared ports (from an SSD); empty = take inputs/outputs from the modelDescription
    """

    name: str
    source: Path
    parameters: dict[str, ParameterValue] = field(default_factory=dict)
    step_size: float | None = None
    connectors: tuple[Connector, ...] = ()

    def __post_init__(self) -> None:
        self.source = Path(self.source)
        self.parameters = dict(self.parameters)
        self.connectors = tuple(self.connectors)


@dataclass(frozen=True)
class Connection:
    """Signal from an output of one component to an input of another.

    The input receives ``factor * output + offset`` (SSP ``ssc:LinearTransformation``).
    """

    start_element: str
    start_connector: str
    end_element: str
    end_connector: str
    factor: float = 1.0
    offset: float = 0.0

    def __str__(self) -> str:
        text = f"{self.start_element}.{self.start_connector} -> {self.end_element}.{self.end_connector}"
        if self.factor != 1.0 or self.offset != 0.0:
            text += f" (factor {self.factor:g}, offset {self.offset:g})"
        return text


@dataclass
class System:
    """A flat system of FMU components and their connections.

    start_time, stop_time  default experiment in s (None = not given)
    step_size              default master (base) communication step in s (None = not given)
    """

    name: str
    components: list[Component]
    connections: list[Connection] = field(default_factory=list)
    start_time: float = 0.0
    stop_time: float | None = None
    step_size: float | None = None

    def __post_init__(self) -> None:
        self.components = list(self.components)
        self.connections = list(self.connections)

    def component(self, name: str) -> Component:
        """The component called ``name`` (ModelError if there is none)."""
        for comp in self.components:
            if comp.name == name:
                return comp
        raise ModelError(f"system '{self.name}': no component named '{name}' "
                         f"(known: {', '.join(c.name for c in self.components) or 'none'})")


@dataclass(frozen=True)
class Experiment:
    """Options of one co-simulation run.

    start_time       s
    stop_time        s
    step_size        master (base) communication step in s
    scheme           'jacobi' (all components step from the same inputs) or 'gauss-seidel'
                     (components step one after the other, fresh outputs passed on at once)
    order            Gauss-Seidel stepping order (component names); None = derived from the connections
    output_interval  s between recorded rows (a multiple of step_size); None = every step
    outputs          recorded 'component.variable' names; None = every input and output
    """

    start_time: float = 0.0
    stop_time: float = 1.0
    step_size: float = 1e-3
    scheme: str = "jacobi"
    order: tuple[str, ...] | None = None
    output_interval: float | None = None
    outputs: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise ModelError(f"Experiment.scheme: unknown scheme '{self.scheme}' (use one of {', '.join(SCHEMES)})")
        for name in ("start_time", "stop_time", "step_size"):
            if not math.isfinite(getattr(self, name)):
                raise ModelError(f"Experiment.{name}: must be finite, got {getattr(self, name)!r}")
        if self.step_size <= 0.0:
            raise ModelError(f"Experiment.step_size: must be > 0 s, got {self.step_size!r}")
        if self.stop_time <= self.start_time:
            raise ModelError(f"Experiment.stop_time: must be > start_time={self.start_time!r} s, "
                             f"got {self.stop_time!r}")
        if self.output_interval is not None and not self.output_interval > 0.0:
            raise ModelError(f"Experiment.output_interval: must be > 0 s, got {self.output_interval!r}")
        if self.order is not None:
            object.__setattr__(self, "order", tuple(self.order))
        if self.outputs is not None:
            object.__setattr__(self, "outputs", tuple(self.outputs))

    @classmethod
    def from_system(cls, system: System, **overrides) -> "Experiment":
        """An experiment from the system's default experiment; keyword arguments override fields."""
        kwargs: dict = {"start_time": system.start_time}
        if system.stop_time is not None:
            kwargs["stop_time"] = system.stop_time
        if system.step_size is not None:
            kwargs["step_size"] = system.step_size
        kwargs.update(overrides)
        return cls(**kwargs)


def split_component_variable(component_names, name: str) -> tuple[str, str] | None:
    """``(component, variable)`` of a ``component.variable`` name: the longest of ``component_names`` that,
    followed by a dot, begins ``name`` and leaves a variable name after it; None if there is none."""
    for comp in sorted(component_names, key=len, reverse=True):
        if name.startswith(comp + ".") and len(name) > len(comp) + 1:
            return comp, name[len(comp) + 1:]
    return None


def parameter_type(value: ParameterValue) -> str:
    """SSV type name of a Python parameter value ('Real', 'Integer', 'Boolean' or 'String')."""
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Integer"
    if isinstance(value, float):
        return "Real"
    if isinstance(value, str):
        return "String"
    raise TypeError(f"unsupported parameter value {value!r} of type {type(value).__name__}")


def enumeration_value(var, value: ParameterValue, where: str) -> int:
    """The item value of ``value`` for the Enumeration variable ``var`` (FMPy's ``ModelVariable`` of the FMU's
    modelDescription): an option name (what the Python API and the CLI write, e.g. ``model="fullcar14"``) is
    looked up among the items of its ``declaredType``, an Integer must be one of the item values. ModelError
    (starting with ``where``) names the variable, its type and its items otherwise."""
    items = {item.name: int(item.value) for item in var.declaredType.items}
    if isinstance(value, str) and value in items:
        return items[value]
    if isinstance(value, int) and not isinstance(value, bool) and value in items.values():
        return value
    listed = ", ".join(f"{v} = {n}" for n, v in items.items())
    raise ModelError(f"{where}: {value!r} is not an option of the Enumeration '{var.name}' (type "
                     f"{var.declaredType.name}: {listed})")
