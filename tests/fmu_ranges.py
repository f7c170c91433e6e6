"""The declared range of every FMU parameter, swept (no tests here; tests/test_fmu_ranges.py runs them).

``sweep_values(var)`` gives the values tried for one Real parameter: both bounds and interior points (not
symmetric about the middle; geometric ones for ranges over decades). ``PAIRS`` names parameters that
constrain each other: a value of one is tried with the other at its start value when that satisfies the
constraint, else at the bound that does. ``run_slave(cls, resources, values)`` initializes a slave class
in-process through the same calls as the FMU binary (setupExperiment, enter/exit initialization, doStep)
and takes ``STEPS`` steps of ``H`` (or of the FMU's internal step when that is longer, so that a long
internal step is really taken); it returns None or the reason it failed.
"""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

from pythonfmu.enums import Fmi2Status

from fmu_vehicle.fmi.registry import FMUS
from fmu_vehicle.paths import resources_dir

SLAVES = Path(__file__).resolve().parents[1] / "fmu_vehicle" / "fmi" / "slaves"
SCRIPTS = {name: Path(script).stem for name, script in FMUS.items()}
"""FMU name -> its slave script's module name (the registry's)."""
H = 1e-3           # s, communication step of the short run
STEPS = 30         # steps of the short run

#: parameters that constrain each other: (lower, upper) must satisfy lower < upper
PAIRS = {"Controller": (("aeb.ttc_on", "aeb.ttc_off"),)}


def slave_class(fmu: str):
    """The slave class of FMU ``fmu``, imported from its script."""
    name = SCRIPTS[fmu]
    spec = importlib.util.spec_from_file_location(f"_ranges_{name}", SLAVES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, fmu)


def ranged_parameters(cls) -> list:
    """The Real parameters of slave class ``cls`` that declare a min and a max."""
    return [v for v in cls.VARIABLES if v.causality == "parameter" and v.type == "Real"
            and v.min is not None and v.max is not None]


def sweep_values(var) -> list[float]:
    """Both bounds and interior points of ``var``'s declared range (ordered, no duplicates)."""
    lo, hi = var.min, var.max
    points = [lo, hi, lo + 0.29 * (hi - lo), lo + 0.83 * (hi - lo)]
    if lo > 0 and hi / lo > 100:                       # decades: the interior on a log scale
        points += [lo * (hi / lo) ** 0.21, lo * (hi / lo) ** 0.64]
    return sorted(set(points))


def companions(fmu: str, cls, name: str, value: float) -> dict:
    """Values of the parameters that must go with ``name`` = ``value`` (``PAIRS``): the start value of the
    partner if it satisfies the constraint, else the partner's bound that does."""
    by_name = {v.name: v for v in cls.VARIABLES}
    for lower, upper in PAIRS.get(fmu, ()):
        if name == lower and not value < by_name[upper].start:
            return {upper: by_name[upper].max}
        if name == upper and not by_name[lower].start < value:
            return {lower: by_name[lower].min}
    return {}


def run_slave(cls, values: dict, resources: str | None = None, steps: int = STEPS, h: float = H) -> str | None:
    """Initialize ``cls`` with the parameter ``values`` and step it ``steps`` times; None, or why it failed."""
    s = cls(instance_name="sweep", resources=str(resources or resources_dir()))
    vr = {v.name: v.value_reference for v in s.vars.values()}
    s.setup_experiment(0.0)
    s.enter_initialization_mode()
    by_name = {v.name: v for v in cls.VARIABLES}
    for name, value in values.items():
        if isinstance(value, str):              # an Enumeration by its option name (e.g. ``model``)
            s.set_integer([vr[name]], [by_name[name].item_value(value)])
        else:
            s.set_real([vr[name]], [float(value)])
    s.exit_initialization_mode()
    if cls.INTERNAL_STEP is not None:           # at least one internal step per communication step
        h = max(h, s.values[cls.INTERNAL_STEP])
    errors = [m.msg for m in s.log_queue if m.status >= Fmi2Status.error]
    if s._phase != "stepping" or errors:
        return f"initialization: {errors[-1] if errors else s._phase}"
    for k in range(steps):
        if not s.do_step(k * h, h):
            errors = [m.msg for m in s.log_queue if m.status >= Fmi2Status.error]
            return f"step {k}: {errors[-1] if errors else '?'}"
    outputs = [s._value(v.name) for v in cls.VARIABLES if v.causality == "output" and v.type == "Real"]
    if not all(math.isfinite(x) for x in outputs):
        return "non-finite output"
    return None


def cases(fmu: str, cls) -> list[tuple[str, float, dict]]:
    """(parameter, value, all values to set) for every swept value of every ranged parameter of ``cls``."""
    out = []
    for var in ranged_parameters(cls):
        for value in sweep_values(var):
            out.append((var.name, value, {var.name: value, **companions(fmu, cls, var.name, value)}))
    return out


def model_cases(cls, model: str) -> list[tuple[str, float, dict]]:
    """``cases`` of a vehicle slave class with its parameter ``model`` set to ``model``, each parameter swept
    over that model's own range (``fmi.vehicle_parameters.model_range``: the declared one or a narrower)."""
    from types import SimpleNamespace

    from fmu_vehicle.fmi.vehicle_parameters import model_range
    out = []
    for var in ranged_parameters(cls):
        lo, hi = model_range(model, var.name, (var.min, var.max))
        for value in sweep_values(SimpleNamespace(min=lo, max=hi)):
            out.append((var.name, value, {"model": model, var.name: value}))
    return out
