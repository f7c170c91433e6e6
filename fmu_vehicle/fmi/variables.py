"""Declarative FMI variable records (``Var``) and the SI unit table written into every modelDescription.

A slave lists its interface once, as a tuple of ``Var``; the slave base class registers them with
pythonfmu and ``post_process`` writes units, display units, min/max and descriptions from the same
table, so the Python code and ``modelDescription.xml`` cannot drift apart.

Naming: structured dotted names without array indices (``chassis.x``, ``wheel_left.torque_drive``).
Tools that read the structured naming convention group ``a.b`` into records or buses, while an index
``a[1]`` declares an array that such tools expect complete and 1-based; dotted names load in FMPy and
libcosim alike.  The FMU interfaces are documented in docs/fmus.md.

Defaults follow FMI 2.0 (section 2.2.7).  A parameter must be ``fixed`` or ``tunable``: left at FMI's
default ``continuous``, FMPy refuses to load the FMU; Integer, Boolean and String inputs and outputs
must be ``discrete``, else FMPy's validation fails:

==========  ===========================================  ======================
causality   allowed variability                          default
==========  ===========================================  ======================
parameter   fixed, tunable                               fixed
input       continuous (Real only), discrete             continuous / discrete
output      continuous (Real only), discrete             continuous / discrete
==========  ===========================================  ======================

Integer, Boolean and String inputs/outputs are always ``discrete``.  Outputs are
``initial="calculated"``: their start value is only the value before initialization, the real
initial value is computed in ``exitInitializationMode`` and listed in ``ModelStructure/InitialUnknowns``
by the post-processor.

Next to its variable table a slave declares which outputs depend on which inputs (``Structure``), once:
``post_process`` writes it into ``ModelStructure`` (``Outputs`` and ``InitialUnknowns`` with their
``dependencies``), the native export writes the same declaration, and tests/test_fmu_model_structure.py
checks it against what each FMU does when its inputs move.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from fmu_vehicle.errors import ModelError

CAUSALITIES = ("parameter", "input", "output")
VARIABILITIES = ("fixed", "tunable", "discrete", "continuous")
TYPES = ("Real", "Integer", "Boolean", "String", "Enumeration")

#: Structured-name grammar accepted by FMPy's validator, restricted to dotted identifiers.
NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")

@dataclass(frozen=True)
class Unit:
    """One SI unit: exponents of the FMI base units and display units.

    base     exponents, e.g. ``{"m": 1, "s": -1}`` for m/s
    display  display-unit name -> factor, with ``value_display = factor * value``
             (FMI 2.0 §2.2.2, offset 0)
    """

    base: Mapping[str, int]
    display: Mapping[str, float] = field(default_factory=dict)


#: Unit name (FMI/Modelica spelling) -> definition. Every Real variable must use one of these.
UNITS: dict[str, Unit] = {
    "1": Unit({}, {"%": 100.0}),
    "s": Unit({"s": 1}, {"ms": 1000.0}),
    "1/s": Unit({"s": -1}),
    "1/s2": Unit({"s": -2}),
    "Hz": Unit({"s": -1}),
    "m": Unit({"m": 1}, {"mm": 1000.0, "km": 1e-3}),
    "m2": Unit({"m": 2}),
    "m/s": Unit({"m": 1, "s": -1}, {"km/h": 3.6}),
    "m/s2": Unit({"m": 1, "s": -2}, {"g": 1.0 / 9.80665}),
    "m/s3": Unit({"m": 1, "s": -3}),
    "rad": Unit({"rad": 1}, {"deg": 180.0 / math.pi}),
    "rad/s": Unit({"rad": 1, "s": -1}, {"rpm": 30.0 / math.pi, "deg/s": 180.0 / math.pi}),
    "rad/s2": Unit({"rad": 1, "s": -2}, {"deg/s2": 180.0 / math.pi}),
    "kg": Unit({"kg": 1}, {"t": 1e-3}),
    "kg.m2": Unit({"kg": 1, "m": 2}),
    "N": Unit({"kg": 1, "m": 1, "s": -2}, {"kN": 1e-3}),
    "N.m": Unit({"kg": 1, "m": 2, "s": -2}, {"kN.m": 1e-3}),
    "N/m": Unit({"kg": 1, "s": -2}),
    "N.s/m": Unit({"kg": 1, "s": -1}),
    "N.m/rad": Unit({"kg": 1, "m": 2, "s": -2, "rad": -1}),
    "N.m.s/rad": Unit({"kg": 1, "m": 2, "s": -1, "rad": -1}),
    "W": Unit({"kg": 1, "m": 2, "s": -3}, {"kW": 1e-3}),
    "Pa": Unit({"kg": 1, "m": -1, "s": -2}, {"bar": 1e-5}),
    "Pa/s": Unit({"kg": 1, "m": -1, "s": -3}, {"bar/s": 1e-5}),
    "N/rad": Unit({"kg": 1, "m": 1, "s": -2, "rad": -1}),
    "N.m/Pa": Unit({"m": 3}, {"N.m/bar": 1e5}),
}

_PY_TYPES = {"Real": (float, int), "Integer": (int,), "Boolean": (bool,), "String": (str,), "Enumeration": (str,)}


@dataclass(frozen=True)
class Var:
    """One FMI scalar variable of a slave (the single source for code and modelDescription).

    name          structured dotted name, e.g. ``"wheel_left.torque_drive"``
    causality     ``"parameter" | "input" | "output"``
    variability   ``"fixed" | "tunable" | "discrete" | "continuous"``; None -> default (module doc)
    unit          key of ``UNITS`` (required for Real, None otherwise)
    description   one line, with the sign convention / frame where it matters
    start         value before initialization (parameters/inputs: the default value)
    min, max      inclusive bounds (Real/Integer), checked at the FMI boundary
    display_unit  a display unit of ``unit`` (e.g. ``"km/h"`` for ``"m/s"``)
    type          ``"Real" | "Integer" | "Boolean" | "String" | "Enumeration"``
    choices       the option names of an Enumeration parameter, in item order

    An Enumeration (FMI 2.0 section 2.2.3) is a parameter that chooses among named options: its value in
    Python (``self.values``, the start value, the scripts and the CLI) is the option's name; in the FMU it is
    the item value ``choices.index(name) + 1``, set and read with fmi2SetInteger/fmi2GetInteger, and the
    modelDescription declares the items in ``<TypeDefinitions>`` as the type ``enumeration_type`` (the
    variable name in CamelCase, e.g. ``RoadSource`` for ``road_source``). A String stays only where the value
    is a user's file name or free text.
    """

    name: str
    causality: str
    variability: str | None = None
    unit: str | None = None
    description: str = ""
    start: Any = None
    min: float | int | None = None
    max: float | int | None = None
    display_unit: str | None = None
    type: str = "Real"
    choices: tuple | None = None

    def __post_init__(self) -> None:
        where = f"FMI variable '{self.name}'"
        if not isinstance(self.name, str) or not NAME_PATTERN.match(self.name):
            raise ModelError(f"{where}: name must be dotted identifiers like 'wheel_left.torque_drive'")
        if self.type not in TYPES:
            raise ModelError(f"{where}: type must be one of {TYPES}, got {self.type!r}")
        if self.causality not in CAUSALITIES:
            raise ModelError(f"{where}: causality must be one of {CAUSALITIES}, got {self.causality!r}")
        if self.variability is None:
            default = "fixed" if self.causality == "parameter" else (
                "continuous" if self.type == "Real" else "discrete")
            object.__setattr__(self, "variability", default)
        if self.variability not in VARIABILITIES:
            raise ModelError(f"{where}: variability must be one of {VARIABILITIES}, got {self.variability!r}")
        if self.causality == "parameter" and self.variability not in ("fixed", "tunable"):
            raise ModelError(f"{where}: a parameter must be 'fixed' or 'tunable', got {self.variability!r}")
        if self.causality != "parameter" and self.variability in ("fixed", "tunable"):
            raise ModelError(f"{where}: only parameters can be {self.variability!r}")
        if self.type != "Real" and self.variability == "continuous":
            raise ModelError(f"{where}: {self.type} variables must be 'discrete', not 'continuous'")
        if self.type == "Real":
            if self.unit not in UNITS:
                raise ModelError(f"{where}: Real needs a unit from fmu_vehicle.fmi.variables.UNITS, "
                                 f"got {self.unit!r}")
        elif self.unit is not None:
            raise ModelError(f"{where}: only Real variables carry a unit")
        if self.display_unit is not None and self.display_unit not in UNITS[self.unit].display:
            raise ModelError(f"{where}: display unit {self.display_unit!r} is not defined for "
                             f"{self.unit!r} (known: {sorted(UNITS[self.unit].display)})")
        if (self.min is not None or self.max is not None) and self.type not in ("Real", "Integer"):
            raise ModelError(f"{where}: min/max apply to Real and Integer only")
        if self.min is not None and self.max is not None and not self.min <= self.max:
            raise ModelError(f"{where}: min {self.min} > max {self.max}")
        if (self.choices is not None) != (self.type == "Enumeration"):
            raise ModelError(f"{where}: an Enumeration needs its choices, and only an Enumeration has choices "
                             f"(a parameter that names options is an Enumeration, not a {self.type})")
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))
            if self.causality != "parameter":
                raise ModelError(f"{where}: an Enumeration must be a parameter")
            if not self.choices or len(set(self.choices)) != len(self.choices) or \
                    not all(isinstance(c, str) and NAME_PATTERN.match(c) and "." not in c for c in self.choices):
                raise ModelError(f"{where}: choices must be distinct identifiers, got {self.choices!r}")
        if self.start is None:
            raise ModelError(f"{where}: a start value is required")
        problem = self.check(self.start)
        if problem:
            raise ModelError(f"{where}: start value {problem}")
        object.__setattr__(self, "start", self.coerce(self.start))

    def coerce(self, value: Any) -> Any:
        """``value`` converted to this variable's Python type (float, int, bool, str)."""
        if self.type == "Real":
            return float(value)
        if self.type == "Integer":
            return int(value)
        if self.type == "Boolean":
            return bool(value)
        return str(value)

    @property
    def enumeration_type(self) -> str:
        """The name of an Enumeration's type in the modelDescription: the variable name in CamelCase
        (``road_source`` -> ``RoadSource``)."""
        return "".join(part[:1].upper() + part[1:] for part in re.split(r"[._]", self.name))

    def item_value(self, name: str) -> int:
        """The FMI item value (1, 2, ...) of option ``name`` of this Enumeration."""
        return self.choices.index(name) + 1

    def item_name(self, value) -> str | None:
        """The option named by FMI item value ``value`` of this Enumeration (None: not an item value)."""
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= len(self.choices):
            return self.choices[value - 1]
        return None

    def start_text(self) -> str:
        """The start value as a modelDescription writes it: an Enumeration's item value, a Boolean's
        ``true``/``false``, a Real's shortest round-trip text (``repr``), an Integer's or String's own."""
        if self.type == "Enumeration":
            return str(self.item_value(self.start))
        if self.type == "Boolean":
            return "true" if self.start else "false"
        if self.type == "Real":
            return repr(float(self.start))
        return str(self.start)

    def items_text(self) -> str:
        """``1 = fullcar14, 2 = fullcar14_forkarm`` (the items, for messages and docs)."""
        return ", ".join(f"{i} = {c}" for i, c in enumerate(self.choices, start=1))

    def check(self, value: Any) -> str | None:
        """None if ``value`` is acceptable, else the reason (used for parameters and inputs)."""
        if self.type == "Boolean":
            ok = isinstance(value, (bool, int))
        elif self.type == "Real":
            ok = isinstance(value, (float, int)) and not isinstance(value, bool)
        else:
            ok = isinstance(value, _PY_TYPES[self.type]) and not isinstance(value, bool)
        if not ok:
            return f"{value!r} is not a {self.type}"
        if self.type == "Real" and not math.isfinite(value):
            return f"{value!r} is not finite"
        if self.min is not None and value < self.min:
            return f"{value!r} is below min {self.min!r}"
        if self.max is not None and value > self.max:
            return f"{value!r} is above max {self.max!r}"
        if self.choices is not None and value not in self.choices:
            return f"{value!r} is not one of {list(self.choices)}"
        return None


def unit_exponents(unit: str) -> dict[str, int]:
    """The non-zero FMI base-unit exponents of ``unit`` (``{"m": 1, "s": -1}`` for m/s)."""
    return {k: v for k, v in UNITS[unit].base.items() if v}


def var_table(variables: tuple[Var, ...]) -> dict[str, Var]:
    """Name -> Var, checking that names are unique."""
    table: dict[str, Var] = {}
    for var in variables:
        if var.name in table:
            raise ModelError(f"FMI variable '{var.name}' is declared twice")
        table[var.name] = var
    return table


#: Values of ``dependenciesKind`` in FMI 2.0 (section 2.2.8): how a known enters an unknown.
DEPENDENCY_KINDS = ("dependent", "constant", "fixed", "tunable", "discrete")


@dataclass(frozen=True)
class Structure:
    """Which outputs of a slave depend on which of its inputs: the ``ModelStructure`` of its FMU.

    One declaration per slave (its ``STRUCTURE``, next to ``VARIABLES``), written by ``post_process`` for the
    pythonfmu FMUs and by ``native.fmu.model_description`` for the native ones.

    initial   output name -> the input names its value depends on in Initialization Mode. The slaves compute
              their outputs there from the parameters and the inputs set so far (``SlaveBase.
              _initial_outputs``), so an output may follow an input before ``exitInitializationMode``. An output
              not listed depends on no input there. ``ModelStructure/InitialUnknowns`` lists these inputs and,
              for every output, every parameter (FMI 2.0 counts the parameters, ``initial="exact"``, among the
              knowns of Initialization Mode; the outputs are computed from them).
    stepping  output name -> {input name: dependenciesKind} for an output that follows an input while stepping,
              before the next ``doStep`` (direct feedthrough). An output not listed moves only in ``doStep``:
              ``ModelStructure/Outputs`` gives it ``dependencies=""``, so a master finds no algebraic loop through
              it. An input an output follows while stepping must also be in its ``initial`` entry.
    """

    initial: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    stepping: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def check(self, variables) -> None:
        """Raise ModelError unless every name is an output (keys) or an input (dependencies) of ``variables``
        (Var records), every kind is one of ``DEPENDENCY_KINDS`` and the stepping dependencies are initial ones."""
        table = {v.name: v for v in variables}

        def causality(name, expected, where):
            var = table.get(name)
            if var is None or var.causality != expected:
                raise ModelError(f"model structure ({where}): '{name}' is not an {expected} of the variable table")

        for mode, entries in (("initial", self.initial), ("stepping", self.stepping)):
            for output, inputs in entries.items():
                causality(output, "output", mode)
                for name in inputs:
                    causality(name, "input", f"{mode} dependencies of '{output}'")
        for output, inputs in self.stepping.items():
            for name, kind in inputs.items():
                if kind not in DEPENDENCY_KINDS:
                    raise ModelError(f"model structure: dependenciesKind {kind!r} of '{output}' on '{name}' is not "
                                     f"one of {DEPENDENCY_KINDS}")
                if name not in self.initial.get(output, ()):
                    raise ModelError(f"model structure: '{output}' follows '{name}' while stepping but does not "
                                     f"depend on it in Initialization Mode")
