"""Fixed-step co-simulation master over FMPy's ``FMU2Slave`` (Jacobi or Gauss-Seidel, multi-rate).

One run (:func:`run_system`):

1. check the system against each FMU's modelDescription (variables, causalities, types, step ratios);
2. extract each FMU file once, instantiate every component under its own name with ``loggingOn`` and a
   logger that keeps the component's messages;
3. apply the bound parameters (before ``fmi2EnterInitializationMode``, SSP 1.0 TParameterBindings), enter
   initialization mode for all, then repeat "read outputs -> set connected inputs" up to once per component
   (stopping early at a fixed point), so inputs at t = start equal the connected outputs' initial values;
   exit initialization mode and read the outputs again;
4. step on the master (base) grid t_n = start + n*h:

   * Jacobi: every component due at t_n gets its inputs from the outputs published at t_n, then all step.
     A component publishes its outputs when its own step ends. This is libcosim's fixed_step_algorithm.
   * Gauss-Seidel: components step one after the other in ``Experiment.order`` (or an order derived from the
     connections); each publishes its outputs right after its step, so later components use them at once.

   A component with ``step_size = r*h`` (r integer) steps only at every r-th base step, with its inputs
   sampled at its step start and held (zero-order hold). Its last step is shortened to end at stop_time.
5. record rows: outputs as published at the row time, inputs as set for the step that starts at the row time.

Any FMU status worse than Warning, an exception from an FMI call, or a terminated FMU stops the run with
:class:`CosimError` (component, time, reason = the FMU's logged messages); the rows up to that time are in
``err.result``. Teardown never calls ``fmi2Terminate`` after Error/Fatal and makes no call at all on instances of
an FMU that returned Fatal (pythonfmu frees its Python object then, so any call would be a use-after-free).

Explained in docs/cosimulation.md §2 (checks), §3 (initialization), §4 (schemes and the one-step delay),
§5 (multi-rate) and §7 (recording, failures).
"""
from __future__ import annotations

import logging
import shutil
from collections import deque
from ctypes import byref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from fmu_vehicle.cosim.system import Component, Experiment, System, enumeration_value
from fmu_vehicle.errors import ModelError, SimulationError
from fmu_vehicle.results import Result

log = logging.getLogger(__name__)

_STATUS = ("OK", "Warning", "Discard", "Error", "Fatal", "Pending")
_PY_LEVEL = (logging.DEBUG, logging.WARNING, logging.WARNING, logging.ERROR, logging.CRITICAL, logging.INFO)
_DTYPE = {"Real": "f8", "Integer": "i4", "Enumeration": "i4", "Boolean": "?"}
_RATIO_TOL = 1e-9
_MAX_MESSAGES = 1000


class CosimError(SimulationError):
    """A component failed during a co-simulation run.

    component  name of the failing component
    time       simulation time of the failure [s] (the start of the failing step)
    reason     the FMU's logged message(s), or the status / exception text
    result     Result with the rows recorded up to ``time`` (set by run_system)
    """

    def __init__(self, message: str, *, component: str, time: float, reason: str, result: Result | None = None):
        super().__init__(message)
        self.component, self.time, self.reason, self.result = component, time, reason, result


@dataclass
class _Slot:
    """Run-time state of one component."""

    comp: Component
    index: int
    md: object
    ratio: int
    variables: dict
    messages: deque = field(default_factory=lambda: deque(maxlen=_MAX_MESSAGES))
    n_messages: int = 0
    fmu: object = None
    unzipdir: Path | None = None
    state: str = "new"          # new, instantiated, initializing, ok, discard, error, fatal, freed
    read: list = field(default_factory=list)        # [(type, [names], [vrs])] read when publishing
    write: list = field(default_factory=list)       # [(type, [names], [vrs], [(src, name, factor, offset)])]
    published: dict = field(default_factory=dict)   # variable name -> value at the last publish
    inputs: dict = field(default_factory=dict)      # input name -> value last set (or read once)
    callbacks: object = None                        # fmi2CallbackFunctions (kept alive for the FMU)
    logger_fn: object = None                        # the Python logger behind callbacks.logger

    @property
    def name(self) -> str:
        return self.comp.name


@dataclass
class _Plan:
    """Everything run_system needs, checked before any FMU is loaded."""

    system: System
    experiment: Experiment
    slots: list[_Slot]
    order: list[_Slot]
    h: float
    n_steps: int
    output_every: int
    columns: list[tuple[str, int, str, bool]]   # (column, slot index, variable, is_input)
    dtype: list
    units: dict[str, str]


def run_system(system: System, experiment: Experiment, *, progress: bool = True,
               on_step: Callable[[float, np.void], bool | None] | None = None,
               output_path: str | Path | None = None) -> Result:
    """Co-simulate ``system`` over ``experiment`` and return the recorded signals.

    Parameters:
        system       components (FMU files, parameters, step sizes) and connections
        experiment   times, master step, scheme ('jacobi' | 'gauss-seidel'), order, output interval, outputs
        progress     show a tqdm bar when the run takes longer than 2 s
        on_step      called after each recorded row as on_step(time, row); returning False stops the run
        output_path  if given, the result (also the partial one of a failed run) is written there as CSV

    Returns:
        Result (time + 'component.variable' columns)

    Raises:
        ModelError   the system does not fit the FMUs or the experiment (nothing is loaded then)
        CosimError   a component failed; ``err.result`` holds the rows up to the failure time

    Rows are at start_time + k*output_interval and at stop_time. In a row, outputs are the values published
    at that time (in Gauss-Seidel a component's last published output, i.e. from its previous step) and
    inputs are the values set for the step that starts there (the last row: what the next exchange would set).
    """
    plan = _plan(system, experiment)
    recorder = _Recorder(plan)
    error: CosimError | None = None
    extracted: dict[Path, Path] = {}
    try:
        _instantiate(plan, extracted)
        _initialize(plan)
        _simulate(plan, recorder, progress, on_step)
    except CosimError as exc:
        error = exc
    finally:
        _teardown(plan, extracted)
    result = recorder.result(_messages(plan))
    if output_path is not None:
        result.to_csv(output_path)
    if error is not None:
        error.result = result
        raise error
    return result


# ----------------------------------------------------------------------------------------------- planning

def _plan(system: System, experiment: Experiment) -> _Plan:
    """Check the system and experiment against the FMUs' model descriptions; ModelError on any problem."""
    from fmpy import read_model_description

    h = experiment.step_size
    span = experiment.stop_time - experiment.start_time
    n_steps = _multiple(span, h, f"Experiment: stop_time - start_time = {span!r} s")
    output_every = 1
    if experiment.output_interval is not None:
        output_every = _multiple(experiment.output_interval, h,
                                 f"Experiment.output_interval = {experiment.output_interval!r} s")
    if not system.components:
        raise ModelError(f"system '{system.name}': no components")

    slots: list[_Slot] = []
    by_name: dict[str, _Slot] = {}
    for comp in system.components:
        if comp.name in by_name:
            raise ModelError(f"system '{system.name}': duplicate component name '{comp.name}'")
        if not comp.source.exists():
            raise ModelError(f"component '{comp.name}': FMU file {comp.source} not found")
        try:
            md = read_model_description(str(comp.source), validate=False)
        except Exception as exc:
            raise ModelError(f"component '{comp.name}': cannot read the modelDescription of {comp.source}: "
                             f"{exc}") from exc
        if md.fmiVersion != "2.0" or md.coSimulation is None:
            raise ModelError(f"component '{comp.name}': {comp.source} is not an FMI 2.0 Co-Simulation FMU")
        ratio = 1
        if comp.step_size is not None:
            ratio = _multiple(comp.step_size, h, f"component '{comp.name}': step_size = {comp.step_size!r} s")
        slot = _Slot(comp=comp, index=len(slots), md=md, ratio=ratio,
                     variables={v.name: v for v in md.modelVariables})
        for pname, value in comp.parameters.items():
            _check_parameter(slot, pname, value)
        slots.append(slot)
        by_name[comp.name] = slot

    # connections: start = output-like variable, end = input/parameter, same type
    incoming: dict[tuple[str, str], object] = {}
    writes: dict[int, dict[str, list]] = {s.index: {} for s in slots}
    reads: dict[int, dict[str, str]] = {s.index: {} for s in slots}
    for con in system.connections:
        src, dst = by_name.get(con.start_element), by_name.get(con.end_element)
        for side, slot in (("start", src), ("end", dst)):
            if slot is None:
                element = con.start_element if side == "start" else con.end_element
                raise ModelError(f"system '{system.name}': connection {con}: unknown component '{element}' "
                                 f"(known: {', '.join(by_name)})")
        out_var = _variable(src, con.start_connector, f"connection {con}")
        in_var = _variable(dst, con.end_connector, f"connection {con}")
        if out_var.causality not in ("output", "calculatedParameter", "local", "parameter"):
            raise ModelError(f"connection {con}: {src.name}.{out_var.name} has causality '{out_var.causality}', "
                             f"it cannot drive a connection")
        if not (in_var.causality == "input" or (in_var.causality == "parameter" and in_var.variability == "tunable")):
            raise ModelError(f"connection {con}: {dst.name}.{in_var.name} has causality '{in_var.causality}' and "
                             f"variability '{in_var.variability}'; only inputs and tunable parameters can be "
                             f"connected to")
        if _kind(out_var.type) != _kind(in_var.type) or _kind(in_var.type) is None:
            raise ModelError(f"connection {con}: type {out_var.type} -> {in_var.type} is not supported "
                             f"(Real, Integer, Boolean; both ends the same)")
        if (con.factor != 1.0 or con.offset != 0.0) and in_var.type != "Real":
            raise ModelError(f"connection {con}: a linear transformation needs Real variables")
        key = (dst.name, in_var.name)
        if key in incoming:
            raise ModelError(f"connection {con}: input {dst.name}.{in_var.name} is already driven by {incoming[key]}")
        incoming[key] = con
        reads[src.index][out_var.name] = out_var.type
        writes[dst.index].setdefault(_kind(in_var.type), []).append(
            (in_var.name, in_var.valueReference, (src.index, out_var.name, float(con.factor), float(con.offset))))

    # recorded columns
    columns, dtype, units = [], [("time", "f8")], {"time": "s"}
    wanted = experiment.outputs
    if wanted is None:
        wanted = [f"{s.name}.{v.name}" for s in slots for v in s.md.modelVariables
                  if v.causality in ("input", "output") and _kind(v.type) is not None]
    seen = set()
    for column in wanted:
        if column in seen:
            raise ModelError(f"Experiment.outputs: '{column}' is listed twice")
        seen.add(column)
        slot, var = _split_column(column, slots)
        if _kind(var.type) is None:
            raise ModelError(f"Experiment.outputs: '{column}' has type {var.type}, which cannot be recorded")
        is_input = var.causality == "input"
        if not is_input:
            reads[slot.index][var.name] = var.type
        columns.append((column, slot.index, var.name, is_input))
        dtype.append((column, _DTYPE[var.type]))
        units[column] = _unit(var) or ""

    for slot in slots:
        groups: dict[str, tuple[list, list]] = {}
        for name, vtype in reads[slot.index].items():
            names, vrs = groups.setdefault(_kind(vtype), ([], []))
            names.append(name)
            vrs.append(slot.variables[name].valueReference)
        slot.read = [(kind, names, vrs) for kind, (names, vrs) in groups.items()]
        slot.write = [(kind, [w[0] for w in items], [w[1] for w in items], [w[2] for w in items])
                      for kind, items in writes[slot.index].items()]

    if experiment.scheme == "gauss-seidel" and experiment.order is not None:
        order_names = list(experiment.order)
        unknown = [n for n in order_names if n not in by_name]
        missing = [n for n in by_name if n not in order_names]
        if unknown or missing or len(set(order_names)) != len(order_names):
            raise ModelError(f"Experiment.order {order_names}: must list every component once "
                             f"(unknown: {unknown or 'none'}, missing: {missing or 'none'})")
        order = [by_name[n] for n in order_names]
    else:
        order = [slots[i] for i in derive_order([s.name for s in slots], system.connections)]
    return _Plan(system, experiment, slots, order, h, n_steps, output_every, columns, dtype, units)


def derive_order(names: list[str], connections) -> list[int]:
    """A Gauss-Seidel order (indices into ``names``): upstream components first.

    Strongly connected groups (feedback loops) are found with Tarjan's algorithm and placed in topological
    order of the condensed graph; inside a loop the components keep their order in ``names``. Ties go to
    the component declared first.
    """
    index = {n: i for i, n in enumerate(names)}
    succ: list[set[int]] = [set() for _ in names]
    for con in connections:
        a, b = index[con.start_element], index[con.end_element]
        if a != b:
            succ[a].add(b)
    # Tarjan's strongly connected components
    counter, stack, on_stack = [0], [], [False] * len(names)
    low, num, comp_of = [0] * len(names), [-1] * len(names), [-1] * len(names)
    groups: list[list[int]] = []

    def visit(v: int) -> None:
        num[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack[v] = True
        for w in sorted(succ[v]):
            if num[w] < 0:
                visit(w)
                low[v] = min(low[v], low[w])
            elif on_stack[w]:
                low[v] = min(low[v], num[w])
        if low[v] == num[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack[w] = False
                comp_of[w] = len(groups)
                group.append(w)
                if w == v:
                    break
            groups.append(sorted(group))

    for v in range(len(names)):
        if num[v] < 0:
            visit(v)
    # Kahn on the condensed graph, smallest declaration index first
    indegree = [0] * len(groups)
    gsucc: list[set[int]] = [set() for _ in groups]
    for v in range(len(names)):
        for w in succ[v]:
            if comp_of[v] != comp_of[w] and comp_of[w] not in gsucc[comp_of[v]]:
                gsucc[comp_of[v]].add(comp_of[w])
                indegree[comp_of[w]] += 1
    ready = sorted((groups[g][0], g) for g in range(len(groups)) if indegree[g] == 0)
    order: list[int] = []
    while ready:
        _, g = ready.pop(0)
        order.extend(groups[g])
        for g2 in gsucc[g]:
            indegree[g2] -= 1
            if indegree[g2] == 0:
                ready.append((groups[g2][0], g2))
                ready.sort()
    return order


def _multiple(value: float, h: float, what: str) -> int:
    """round(value / h), or ModelError if value is not a positive integer multiple of h."""
    ratio = value / h
    n = round(ratio)
    if n < 1 or abs(ratio - n) > _RATIO_TOL * max(1.0, ratio):
        raise ModelError(f"{what} is not an integer multiple of the master step size {h!r} s "
                         f"(ratio {ratio:.9g})")
    return int(n)


def _kind(vtype: str) -> str | None:
    """FMI call family of a variable type: 'Real', 'Integer' (also Enumeration), 'Boolean'; None otherwise."""
    return {"Real": "Real", "Integer": "Integer", "Enumeration": "Integer", "Boolean": "Boolean"}.get(vtype)


def _unit(var) -> str | None:
    unit = getattr(var, "unit", None)
    if unit is None and getattr(var, "declaredType", None) is not None:
        unit = getattr(var.declaredType, "unit", None)
    return unit


def _variable(slot: _Slot, name: str, context: str):
    var = slot.variables.get(name)
    if var is None:
        raise ModelError(f"{context}: component '{slot.name}' ({slot.comp.source.name}) has no variable "
                         f"'{name}'")
    return var


def _split_column(column: str, slots: list[_Slot]):
    """(slot, variable) of a 'component.variable' name; component names may contain dots."""
    for slot in sorted(slots, key=lambda s: -len(s.name)):
        if column.startswith(slot.name + "."):
            return slot, _variable(slot, column[len(slot.name) + 1:], f"Experiment.outputs '{column}'")
    raise ModelError(f"Experiment.outputs: '{column}' does not start with a component name "
                     f"(components: {', '.join(s.name for s in slots)})")


def _check_parameter(slot: _Slot, name: str, value) -> None:
    """A bound parameter exists, may be set, and its value fits the variable type."""
    var = _variable(slot, name, "parameter binding")
    if var.variability == "constant" or var.causality == "calculatedParameter" or \
            (var.causality not in ("input", "parameter") and var.initial not in ("exact", "approx")):
        raise ModelError(f"parameter binding: {slot.name}.{name} (causality '{var.causality}', variability "
                         f"'{var.variability}') cannot be set")
    if var.type == "Enumeration":           # an option name or an item value (``enumeration_value``)
        enumeration_value(var, value, f"parameter binding {slot.name}.{name}")
        return
    ok = {"Real": isinstance(value, (int, float)) and not isinstance(value, bool),
          "Integer": isinstance(value, int) and not isinstance(value, bool),
          "Boolean": isinstance(value, bool),
          "String": isinstance(value, str)}.get(var.type, False)
    if not ok:
        raise ModelError(f"parameter binding: {slot.name}.{name} is {var.type}, got {value!r} "
                         f"({type(value).__name__})")


# ----------------------------------------------------------------------------------------------- running

def _instantiate(plan: _Plan, extracted: dict[Path, Path]) -> None:
    """Extract each FMU once and instantiate every component with its own name and logger."""
    from fmpy import extract
    from fmpy.fmi2 import FMU2Slave

    t0 = plan.experiment.start_time
    routes = {slot.name: slot for slot in plan.slots}
    for slot in plan.slots:
        source = slot.comp.source.resolve()
        if source.is_dir():
            slot.unzipdir = source
        else:
            if source not in extracted:
                extracted[source] = Path(extract(str(source)))
            slot.unzipdir = extracted[source]
        slot.callbacks = _callbacks(slot, routes)
        try:
            slot.fmu = FMU2Slave(guid=slot.md.guid, unzipDirectory=str(slot.unzipdir),
                                 modelIdentifier=slot.md.coSimulation.modelIdentifier, instanceName=slot.name)
        except Exception as exc:
            raise _failure(slot, t0, "loading the FMU binary", 0, exc) from exc
        _call(slot, t0, "fmi2Instantiate", slot.fmu.instantiate, visible=False, callbacks=slot.callbacks,
              loggingOn=True)
        slot.state = "instantiated"


def _initialize(plan: _Plan) -> None:
    """Parameters, then initialization mode with start values propagated along the connections."""
    exp = plan.experiment
    t0 = exp.start_time
    for slot in plan.slots:
        _call(slot, t0, "fmi2SetupExperiment", slot.fmu.setupExperiment, startTime=t0, stopTime=exp.stop_time)
        for name, value in slot.comp.parameters.items():
            var = slot.variables[name]
            if var.type == "Enumeration":       # set as its item value (fmi2SetInteger), also when bound by name
                value = enumeration_value(var, value, f"parameter binding {slot.name}.{name}")
            setter = {"Real": slot.fmu.setReal, "Integer": slot.fmu.setInteger, "Enumeration": slot.fmu.setInteger,
                      "Boolean": slot.fmu.setBoolean, "String": slot.fmu.setString}[var.type]
            _call(slot, t0, f"setting parameter '{name}'", setter, [var.valueReference], [value])
    for slot in plan.slots:
        _call(slot, t0, "fmi2EnterInitializationMode", slot.fmu.enterInitializationMode)
        slot.state = "initializing"
    for iteration in range(len(plan.slots)):
        for slot in plan.slots:
            _publish(slot, t0)
        changed = False
        for slot in plan.slots:
            changed |= _set_inputs(slot, plan.slots, t0)
        if not changed and iteration > 0:
            break
    for slot in plan.slots:
        _call(slot, t0, "fmi2ExitInitializationMode", slot.fmu.exitInitializationMode)
        slot.state = "ok"
    for slot in plan.slots:
        _publish(slot, t0)
    # recorded inputs that no connection drives keep their start value: read it once
    for _, index, name, is_input in plan.columns:
        slot = plan.slots[index]
        if is_input and name not in slot.inputs:
            var = slot.variables[name]
            getter = {"Real": slot.fmu.getReal, "Integer": slot.fmu.getInteger,
                      "Boolean": slot.fmu.getBoolean}[_kind(var.type)]
            slot.inputs[name] = _call(slot, t0, f"reading input '{name}'", getter, [var.valueReference])[0]


def _simulate(plan: _Plan, recorder: "_Recorder", progress: bool, on_step) -> None:
    """The fixed-step loop (see the module docstring for the scheme semantics)."""
    from tqdm import tqdm

    exp, slots, h, n_steps = plan.experiment, plan.slots, plan.h, plan.n_steps
    t0, t_end = exp.start_time, exp.stop_time
    jacobi = exp.scheme == "jacobi"
    bar = tqdm(total=n_steps, disable=not progress, delay=2.0, unit="step", desc=plan.system.name,
               leave=False, mininterval=0.5)
    try:
        for n in range(n_steps):
            t = t0 + n * h
            row = n % plan.output_every == 0
            if row:
                recorder.begin_row(t)
            if jacobi:
                due = [s for s in slots if n % s.ratio == 0]
                for slot in due:
                    _set_inputs(slot, slots, t)
                for slot in due:
                    _do_step(slot, t, min(slot.ratio, n_steps - n) * h)
                for slot in slots:
                    if (n + 1) % slot.ratio == 0 or n + 1 == n_steps:
                        _publish(slot, t)
            else:
                for slot in plan.order:
                    if n % slot.ratio == 0:
                        _set_inputs(slot, slots, t)
                        _do_step(slot, t, min(slot.ratio, n_steps - n) * h)
                        _publish(slot, t)
            if row and recorder.end_row(on_step) is False:
                return
            if (n & 255) == 255:
                bar.update(256)
        bar.update(n_steps - bar.n)
        # final row: outputs at stop_time, inputs as a last exchange would set them
        recorder.begin_row(t_end)
        for slot in slots:
            _set_inputs(slot, slots, t_end, send=False)
        recorder.end_row(on_step)
    finally:
        bar.close()


def _set_inputs(slot: _Slot, slots: list[_Slot], t: float, send: bool = True) -> bool:
    """Set the slot's connected inputs from the published outputs; True if any value changed."""
    changed = False
    for kind, names, vrs, sources in slot.write:
        if kind == "Real":
            values = [factor * slots[src].published[name] + offset for src, name, factor, offset in sources]
        else:
            values = [slots[src].published[name] for src, name, _, _ in sources]
        if send:
            setter = slot.fmu.setReal if kind == "Real" else (
                slot.fmu.setInteger if kind == "Integer" else slot.fmu.setBoolean)
            _call(slot, t, f"fmi2Set{kind}", setter, vrs, values)
        inputs = slot.inputs
        for name, value in zip(names, values):
            if inputs.get(name) != value:
                changed = True
                inputs[name] = value
    return changed


def _publish(slot: _Slot, t: float) -> None:
    """Read the slot's connected and recorded variables into ``slot.published``."""
    fmu = slot.fmu
    for kind, names, vrs in slot.read:
        if kind == "Real":
            values = _call(slot, t, "fmi2GetReal", fmu.getReal, vrs)
        elif kind == "Integer":
            values = _call(slot, t, "fmi2GetInteger", fmu.getInteger, vrs)
        else:
            values = [bool(v) for v in _call(slot, t, "fmi2GetBoolean", fmu.getBoolean, vrs)]
        slot.published.update(zip(names, values))


def _do_step(slot: _Slot, t: float, communication_step: float) -> None:
    """One fmi2DoStep of the component over [t, t + communication_step] [s]."""
    _call(slot, t, f"fmi2DoStep(t={t:.12g}, h={communication_step:.12g})", slot.fmu.doStep, t, communication_step)


def _call(slot: _Slot, t: float, what: str, fn, *args, **kwargs):
    """Run one FMI call; on a status worse than Warning or an exception raise CosimError."""
    from fmpy.fmi1 import FMICallException

    before = slot.n_messages
    try:
        return fn(*args, **kwargs)
    except FMICallException as exc:
        slot.state = {2: "discard", 3: "error", 4: "fatal"}.get(exc.status, "error")
        raise _failure(slot, t, what, before, exc, status=exc.status) from exc
    except Exception as exc:
        if slot.state != "new":              # 'new': instantiate failed, only the library is loaded
            slot.state = "error"
        raise _failure(slot, t, what, before, exc) from exc


def _failure(slot: _Slot, t: float, what: str, before: int, exc: Exception, status: int | None = None):
    """CosimError naming the component, the time and the FMU's messages logged since ``before``."""
    new = list(slot.messages)[max(0, len(slot.messages) - (slot.n_messages - before)):]
    worst = [m for m in new if m[0] >= 1] or new
    reason = " | ".join(m[2].strip() for m in worst if m[2].strip())
    if status is not None:
        label = _STATUS[status] if 0 <= status < len(_STATUS) else str(status)
        how = f"returned {label}"
        if status == 2 and _terminated(slot):
            how += " and reports terminated"
        reason = reason or f"no message logged (status {label})"
    else:
        how = f"raised {type(exc).__name__}"
        reason = reason or str(exc) or type(exc).__name__
    return CosimError(f"co-simulation stopped at t={t:.12g} s: component '{slot.name}' {how} in {what}: {reason}",
                      component=slot.name, time=t, reason=reason)


def _terminated(slot: _Slot) -> bool:
    from fmpy.fmi2 import fmi2Terminated
    try:
        return slot.fmu.getBooleanStatus(fmi2Terminated)
    except Exception:
        return False


def _callbacks(slot: _Slot, routes: dict):
    """fmi2CallbackFunctions whose logger stores the component's messages (and forwards them to logging).

    FMPy's logger proxy (which formats the variadic message in C) keeps ONE Python logger per process,
    the last one registered, so a message is routed by the instance name the FMU passes (``routes``:
    instance name -> component), falling back to ``slot``."""
    from fmpy import calloc, free
    from fmpy.fmi2 import (fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE, fmi2CallbackFunctions,
                           fmi2CallbackLoggerTYPE)

    def logger(env, instance, status, category, message):
        text = message.decode("utf-8", "replace") if message else ""
        cat = category.decode("utf-8", "replace") if category else ""
        name = instance.decode("utf-8", "replace") if isinstance(instance, bytes) else instance
        target = routes.get(name, slot)
        target.messages.append((int(status), cat, text))
        target.n_messages += 1
        level = _PY_LEVEL[status] if 0 <= status < len(_PY_LEVEL) else logging.ERROR
        log.log(level, "[%s] %s", target.name, text)

    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(logger)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    try:
        from fmpy.logging import addLoggerProxy      # formats the variadic message in C
        addLoggerProxy(byref(callbacks))
    except Exception as exc:                         # pragma: no cover - platform without the proxy library
        log.warning("FMPy logger proxy unavailable (%s); FMU messages are not formatted", exc)
    slot.logger_fn = logger
    return callbacks


def _teardown(plan: _Plan, extracted: dict[Path, Path]) -> None:
    """Terminate and free every instance as its state allows, then remove the extraction directories."""
    fatal_dirs = {s.unzipdir for s in plan.slots if s.state == "fatal"}
    for slot in plan.slots:
        fmu, state = slot.fmu, slot.state
        if fmu is None or state == "freed":
            continue
        if state == "fatal" or slot.unzipdir in fatal_dirs:
            log.warning("[%s] left allocated: its FMU returned Fatal, no further FMI call is allowed", slot.name)
            continue
        try:
            if state == "new":
                fmu.freeLibrary()
                continue
            if state in ("ok", "discard"):
                fmu.terminate()
        except Exception as exc:
            log.warning("[%s] fmi2Terminate failed: %s", slot.name, exc)
        try:
            fmu.freeInstance()
        except Exception as exc:
            log.warning("[%s] fmi2FreeInstance failed: %s", slot.name, exc)
        slot.state = "freed"
    for directory in extracted.values():
        shutil.rmtree(directory, ignore_errors=True)


def _messages(plan: _Plan) -> list[str]:
    """Captured FMU messages as '[component] Status category: text'."""
    lines = []
    for slot in plan.slots:
        for status, category, text in slot.messages:
            label = _STATUS[status] if 0 <= status < len(_STATUS) else str(status)
            lines.append(f"[{slot.name}] {label}{' ' + category if category else ''}: {text}")
    return lines


class _Recorder:
    """Fills the result array row by row: outputs at begin_row, inputs at end_row."""

    def __init__(self, plan: _Plan):
        n_rows = plan.n_steps // plan.output_every + 1 + (1 if plan.n_steps % plan.output_every else 0)
        self.plan = plan
        self.data = np.zeros(n_rows, dtype=plan.dtype)
        self.n = 0
        self.pending: list | None = None

    def begin_row(self, t: float) -> None:
        slots = self.plan.slots
        row = [t]
        for _, index, name, is_input in self.plan.columns:
            row.append(None if is_input else slots[index].published[name])
        self.pending = row

    def end_row(self, on_step=None):
        row, slots = self.pending, self.plan.slots
        for i, (_, index, name, is_input) in enumerate(self.plan.columns, start=1):
            if is_input:
                row[i] = slots[index].inputs.get(name, 0)
        self.data[self.n] = tuple(row)
        self.pending = None
        self.n += 1
        if on_step is not None:
            return on_step(row[0], self.data[self.n - 1])
        return None

    def result(self, messages: list[str]) -> Result:
        if self.pending is not None:
            self.end_row()
        return Result(data=self.data[:self.n].copy(), units=dict(self.plan.units), messages=messages)

