"""``SlaveBase``: the pythonfmu ``Fmi2Slave`` that owns every FMI rule, so slaves stay thin.

A concrete slave is a class-level variable table plus four hooks (``slaves/fmu_vehicle_lead_vehicle.py`` is a
complete one, 42 lines with its docstring and imports, whose hooks are those of ``fmi.block.BlockSlave``: a model
of two numba kernels over arrays, which also gets a native build, docs/native.md §10; adding a controller FMU:
docs/extending.md)::

    class LeadVehicle(SlaveBase):
        MODEL_NAME = "LeadVehicle"                  # modelName = modelIdentifier = binary name
        DESCRIPTION = "Lead vehicle from a speed profile"
        RESOURCES = ()                              # sub-paths of <repo>/resources shipped in the FMU
        INTERNAL_STEP = None                        # parameter holding the internal step [s], if any
        VARIABLES = (Var("x0", "parameter", "fixed", "m", "initial position", 50.0), ...)
        STRUCTURE = Structure()                     # which outputs follow which inputs (none here; see
                                                    # variables.Structure): the FMU's ModelStructure

        def _setup(self):            # parameters are final: build the plain-Python model, set outputs
        def _advance(self, t, h):    # one communication step [t, t+h]: read self.values, step, write outputs
        def _state(self):            # snapshot of the model as plain data (numbers, strings, tuples,
                                     # lists, dicts with str keys, numpy arrays), see state_format
        def _restore(self, state):   # inverse of _state (the model exists: the base calls _setup first)
        def _on_tunable_change(self, names):   # optional: tunable parameters changed (already validated)

All values live in ``self.values`` (name -> float/int/bool/str); every variable is registered with an
explicit getter/setter on that store (no attribute paths). An Enumeration (``Var``) is held there by its option
name and registered with pythonfmu as an Integer: fmi2GetInteger gives the option's item value, fmi2SetInteger
takes an item value (another is refused, naming the variable and its items), and fmi2SetString of an option
name on its value reference (a host written when it was a String) is taken with a warning naming the
enumeration and the item value to set.  The per-step calls have fast paths, since a
host makes them every communication step (the model's own step may cost less than their Python work):

* ``set_real`` of Real inputs with float values (what the wrapper passes) stores them without the per-value
  checks of ``_set_value`` (none can fail for a float input: range and finiteness are checked at the next
  ``doStep``); a slave that reacts to an input in ``_set_value`` gives the same reaction in ``_input_hook``.
* ``_inputs_pending`` is True when an input was set or restored since the last step: only then are the
  inputs checked again, and a slave may skip handing unchanged inputs to its model.
* ``get_real`` keeps a reader for the value references of its last call (hosts read the same list each
  step).  A slave may give all its Real outputs as one list (``_publish_outputs``) instead of writing them
  into ``self.values``: getReal serves them from that list, ``self.values`` gets them when read there.
Data files are read through ``Path(self.resources)`` (``fmi.resource_files``), never ``importlib.resources``
(a package copy cached by an earlier instance may point at a deleted extraction folder).

The FMU binary (this package's own, ``fmi/wrapper``; pythonfmu's 0.7.0 export library with
``build_fmu(binary="pythonfmu")``) calls the pythonfmu ``Fmi2Slave`` methods and turns their results into
statuses; the rules that follow:

* ``fmi2ExitInitializationMode`` returns fmi2Error (the reason logged) when ``exit_initialization_mode``
  returns False: invalid parameters (pythonfmu's binary returns fmi2OK whatever it returns).
* ``fmi2DoStep`` returns fmi2Discard when ``do_step`` returns False; ``fmi2Terminated`` is true after such a
  step until a step, state or reset follows, and while ``refuses_steps()`` (pythonfmu's binary: from the first
  Discard on, for good).
* A Python exception escaping a callback becomes fmi2Error with its text logged (pythonfmu's binary:
  ``fmi2Fatal``, and it releases the Python instance, so the next call on it is a use-after-free that crashes
  the host).  **No method of this class lets an exception escape**, for both binaries.
* Every other call returns fmi2OK: setters, getters, setup, terminate and the state setter have no status of
  their own.  So the least-bad correct answer to misuse is: do nothing harmful, log the reason with status
  ``fmi2Error`` (naming the variable, parameter or file), and make the **next ``fmi2DoStep`` return
  ``fmi2Discard``** with the same message, so that a host that logs nothing still sees a failed status:

  - setter with an unknown value reference, a reference of another type, a value of the wrong type,
    a String that is not valid UTF-8 (this package's binary passes it with its bad bytes as lone surrogates;
    pythonfmu's passes a NULL item, which is never touched),
    an output, or a fixed parameter after initialization: the value is ignored;
  - getter with an unknown or wrong-type reference: placeholder value (NaN, 0, false, "");
  - invalid parameters or initial inputs at ``fmi2ExitInitializationMode`` (NaN/inf, outside
    min/max, unknown choice, a file outside the resources, a model/data error from ``_setup``, a
    non-finite initial output): that call returns fmi2Error and the instance is *failed*; every later
    ``fmi2DoStep`` returns ``fmi2Discard`` with the message (one-shot problems above discard one step,
    failures all);
  - a state that cannot be restored (see below): the instance is failed until a valid state is set.
* ``do_step`` refuses (``fmi2Discard``, model untouched, the master may retry) a step size <= 0 or not
  finite, a step needing more than ``MAX_SUBSTEPS`` internal steps of ``INTERNAL_STEP``, a
  ``currentCommunicationPoint`` that differs from the FMU's time by more than
  ``TIME_TOLERANCE * max(1, |t|)`` (within it, the master's time is taken, so no drift builds up), NaN/inf or
  out-of-range inputs (ranges are the declared min/max: what the model can take), an invalid tunable parameter,
  a call before initialization or after terminate.
* If a step raises or produces a non-finite Real output, the outputs are put back to their values at
  the step start (never NaN with ``fmi2OK``), the step returns ``fmi2Discard`` and the instance stays
  failed until ``fmi2SetFMUstate`` restores a valid state.
* Messages are one line, values and exception texts cut (``fmi.messages``): no tracebacks, no 1 MB
  values.  Errors reach the host's logger always (this package's binary; pythonfmu's only with logging on),
  other messages only if it instantiated with ``loggingOn`` (or turns logging on later: a failed instance
  repeats its message on every refused step).

FMU state (``--handle-state --serialize-state``, enabled by ``build.py`` when a slave overrides
``_state``/``_restore``): ``fmi.state_format``, plain data, no pickle.  A state carries the model name,
the GUID and the *fixed* parameter values it was made with; ``fmi2SetFMUstate`` refuses (instance
failed, message) a state of another model or FMU build, one made with other fixed parameters
(tunable parameters are part of the state and are restored), values of the wrong type, non-finite
outputs or arrays, and a model snapshot whose structure (keys, lengths, array dtypes and shapes)
differs from this instance's own.  ``fmi2DeSerializeFMUstate`` itself returns OK on garbage (it can
only return OK or raise); the reason is logged when the state is set.

Summarized in docs/fmus.md §1; the behaviour on misuse in docs/fmu_robustness.md.
"""
from __future__ import annotations

import ctypes
import math
import sys
from operator import itemgetter
from abc import abstractmethod
from typing import Any, ClassVar

from pythonfmu import Boolean, DefaultExperiment, Fmi2Causality, Fmi2Slave, Fmi2Variability, Integer, Real, String
from pythonfmu.enums import Fmi2Status

from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi import state_format as sf
from fmu_vehicle.fmi.messages import MESSAGE_LIMIT, clip, describe_exception, short
from fmu_vehicle.fmi.variables import Structure, Var, var_table
from fmu_vehicle.fmi import embedding
from fmu_vehicle.fmi.version import build_info, fmu_guid, package_version

_COMPILE_NOTICE_LOGGED = False

_PYTHONFMU_TYPES = {"Real": Real, "Integer": Integer, "Boolean": Boolean, "String": String}
#: pythonfmu class a variable of each Var type is registered as: an Enumeration is set and read as an Integer
#: (FMI 2.0 fmi2SetInteger/fmi2GetInteger with the item value); ``post_process`` declares it an Enumeration.
_REGISTERED_AS = {**_PYTHONFMU_TYPES, "Enumeration": Integer}
_PLACEHOLDER = {"Real": math.nan, "Integer": 0, "Boolean": False, "String": ""}
_INT32 = (-2 ** 31, 2 ** 31 - 1)

#: Life cycle of an instance (FMI 2.0 CS state machine, reduced to what the checks need).
PHASES = ("instantiated", "initialization", "stepping", "failed", "terminated")

_PyErr_Occurred = ctypes.pythonapi.PyErr_Occurred
_PyErr_Occurred.restype = ctypes.c_void_p
_PyErr_Occurred.argtypes = ()


def _argument_conversion_failed() -> bool:
    """True if pythonfmu's binary left a Python error pending while building this call's arguments.

    That binary converts ``fmi2SetString`` values with ``Py_BuildValue("s")``; for bytes that are not
    UTF-8 that fails, the list item stays NULL and the error stays set.  A ctypes call of a Python C-API
    function re-raises a pending error, which is caught here (clearing it); the NULL items are never read.
    """
    try:
        _PyErr_Occurred()
    except BaseException:
        return True
    return False


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeError:
        return False


class _SetStringEntry:
    """``set_string`` as a data descriptor placed in every slave class's own ``__dict__``.

    After a failed ``Py_BuildValue("s")`` the wrapper looks the method up with the error still set.
    CPython's attribute lookup then fails (it clears the error and raises AttributeError: fatal) when
    it has to search past the first class of the MRO or consult the instance ``__dict__``.  A data
    descriptor found in the leaf class is returned before either, and its ``__get__`` clears the
    pending error first (``_argument_conversion_failed``) and passes the outcome on.
    """

    def __get__(self, obj, objtype=None):
        failed = _argument_conversion_failed()
        if obj is None:
            return self
        return lambda vrs, values: obj._set_string(vrs, values, failed)

    def __set__(self, obj, value):
        raise AttributeError("set_string is read-only")


class SlaveBase(Fmi2Slave):
    """Generic FMI 2.0 CS slave over a plain-Python model; subclasses give VARIABLES and the hooks."""

    MODEL_NAME: ClassVar[str] = ""
    DESCRIPTION: ClassVar[str] = ""
    VARIANT: ClassVar[str] = ""
    VARIABLES: ClassVar[tuple[Var, ...]] = ()
    STRUCTURE: ClassVar[Structure]                 # no default: every slave declares its ModelStructure
    RESOURCES: ClassVar[tuple[str, ...]] = ()
    AUTHOR: ClassVar[str] = "fmu_vehicle developers"
    LICENSE: ClassVar[str] = "MIT"
    INTERNAL_STEP: ClassVar[str | None] = None     # parameter giving the internal step [s]
    MAX_SUBSTEPS: ClassVar[int] = 100_000          # internal steps one doStep may take
    TIME_TOLERANCE: ClassVar[float] = 1e-9         # relative tolerance of currentCommunicationPoint
    default_experiment = DefaultExperiment(start_time=0.0, stop_time=10.0, step_size=1e-3)
    set_string = _SetStringEntry()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.set_string = _SetStringEntry()      # in the leaf class's own __dict__ (see _SetStringEntry)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        cls = type(self)
        embedding.settle_instance(__name__.split(".")[0], self.resources, cls.MODEL_NAME)
        if not cls.MODEL_NAME:
            raise ModelError(f"slave class {cls.__name__}: MODEL_NAME is empty")
        self.modelName = cls.MODEL_NAME
        self.description = cls.DESCRIPTION or None
        self.author = cls.AUTHOR
        self.license = cls.LICENSE
        self.version = package_version()
        self.guid = fmu_guid(cls.MODEL_NAME, self.version, cls.VARIANT, build_info().get("sources", ""))
        self.var_by_name: dict[str, Var] = var_table(cls.VARIABLES)
        self.values: dict[str, Any] = {v.name: v.start for v in cls.VARIABLES}
        self._inputs = tuple(v for v in cls.VARIABLES if v.causality == "input")
        self._fixed = tuple(v.name for v in cls.VARIABLES if v.variability == "fixed")
        self._phase = "instantiated"
        self._error: str | None = None      # why the instance is failed / why the next step discards
        self._dirty: set[str] = set()       # tunable parameters set since the last step
        self._model_ready = False
        self._setup_key: tuple | None = None    # parameters and inputs the model was last built from
        self.start_time = 0.0
        self.time = 0.0
        for var in cls.VARIABLES:
            self.register_variable(self._pythonfmu_variable(var), nested=False)
        # value reference -> Var per FMI type (a dict: references the wrapper passes as negative ints
        # or beyond the table are simply absent)
        self._by_type = {kind: {vr: self.var_by_name[v.name] for vr, v in self.vars.items()
                                if isinstance(v, _PYTHONFMU_TYPES[kind])} for kind in _PYTHONFMU_TYPES}
        self._real_names = {vr: v.name for vr, v in self._by_type["Real"].items()}
        # per-step fast paths: the Real inputs (stored as float by _set_value), the bounds of those that
        # have any, the Real outputs (checked finite after every step), every output (saved over a step)
        self._real_inputs = tuple(v.name for v in self._inputs if v.type == "Real")
        self._read_real_inputs = _reader(self._real_inputs)
        self._bounded_inputs = tuple((v.name, -math.inf if v.min is None else v.min,
                                      math.inf if v.max is None else v.max)
                                     for v in self._inputs if v.type == "Real" and (v.min, v.max) != (None, None))
        self._fast_inputs = len(self._real_inputs) == len(self._inputs)
        self._declared_bounds = self._bounded_inputs
        self._input_limits: dict = {}          # narrower limits of this instance's model (narrow_inputs)
        self._real_outputs = tuple(v.name for v in cls.VARIABLES if v.causality == "output" and v.type == "Real")
        self._read_real_outputs = _reader(self._real_outputs)
        self._outputs = tuple(v.name for v in cls.VARIABLES if v.causality == "output")
        self._read_outputs = _reader(self._outputs)
        self._real_input_refs = {vr: name for vr, name in self._real_names.items()
                                 if self.var_by_name[name].causality == "input"}
        self._row_index = {name: i for i, name in enumerate(self._real_outputs)}
        self._row: list | None = None   # the Real outputs as published by _publish_outputs (see there)
        # the value references of the last getReal/setReal call and what serves them (``_real_plan``)
        self._get_plan: tuple = (None, None, None)
        self._set_plan: tuple = (None, None)
        # a subclass that reacts to inputs in _set_value and not in _input_hook keeps the value-by-value path
        self._fast_set = cls._set_value is SlaveBase._set_value \
            or cls._input_hook is not SlaveBase._input_hook
        self._inputs_pending = True     # inputs set (or restored) since the last step: check and apply them
        # _max_step() while stepping (kept by exit_initialization_mode, a tunable change and a restored state;
        # 0 until then, so that the usual-step test of _step_refusal fails and the full checks run)
        self._max_h = 0.0

    # ------------------------------------------------------------------ hooks for subclasses
    @abstractmethod
    def _setup(self) -> None:
        """Build the model from ``self.values`` (parameters and initial inputs); set initial outputs."""

    @abstractmethod
    def _advance(self, t: float, h: float) -> None:
        """Advance the model over [t, t+h] with the inputs in ``self.values``; write the outputs."""

    def _on_tunable_change(self, names: list[str]) -> None:
        """Called before ``_advance`` with the tunable parameters set since the last step (validated)."""

    def _state(self) -> Any:
        """Snapshot of the whole model state as plain data (override to enable FMU state support)."""
        raise NotImplementedError

    def _restore(self, state: Any) -> None:
        """Restore ``_state()`` output into the model built by ``_setup`` (override with ``_state``).
        Raise ``ModelError`` if the (structurally valid) data make no sense for the model."""
        raise NotImplementedError

    @classmethod
    def supports_state(cls) -> bool:
        """True if the slave implements ``_state``/``_restore`` (build with --handle-state)."""
        return cls._state is not SlaveBase._state and cls._restore is not SlaveBase._restore

    # ------------------------------------------------------------------ helpers for subclasses
    def _publish_outputs(self, row: list) -> None:
        """Set every Real output at once: ``row`` is a list of floats in the order of the Real outputs in
        ``VARIABLES`` (``self._real_outputs``), which this instance keeps and never changes (pass a new list
        each time). Instead of writing ``self.values`` entry by entry: getReal serves these values from the
        list, and ``self.values`` gets them only when something reads them there (``_flush_outputs``: the
        other getters, getFMUstate). A slave that publishes its outputs this way writes no other value in
        ``_advance``."""
        self._row = row

    def _flush_outputs(self) -> None:
        """Copy the published Real outputs (``_publish_outputs``) into ``self.values``."""
        row = self._row
        if row is not None:
            self._row = None
            self.values.update(zip(self._real_outputs, row))

    def _value(self, name: str) -> Any:
        """The current value of variable ``name`` (a published output or from ``self.values``)."""
        row = self._row
        if row is not None and name in self._row_index:
            return row[self._row_index[name]]
        return self.values[name]

    def log_message(self, message: str, status: Fmi2Status = Fmi2Status.ok) -> None:
        """Log through the FMI logger: cut to ``MESSAGE_LIMIT``, valid UTF-8 (the wrapper crashes on
        anything else), '%' escaped because hosts treat the text as a printf format."""
        text = clip(f"[{self.instance_name}] {message}", MESSAGE_LIMIT)
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
        self.log(text.replace("%", "%%"), status)

    # ------------------------------------------------------------------ registration
    def _pythonfmu_variable(self, var: Var):
        causality = getattr(Fmi2Causality, var.causality)
        variability = getattr(Fmi2Variability, var.variability)
        if var.type == "Enumeration":          # the item value of the option named in self.values
            getter = lambda v=var: v.item_value(self.values[v.name])     # noqa: E731
        else:
            getter = lambda name=var.name: self._value(name)              # noqa: E731
        return _REGISTERED_AS[var.type](
            var.name, causality=causality, variability=variability, description=var.description or None,
            getter=getter,
            setter=lambda value, v=var: self._set_value(v, value))

    def _set_value(self, var: Var, value: Any) -> None:
        try:
            if var.causality == "output":
                self._refuse(f"variable '{var.name}' is an output and cannot be set")
                return
            if var.variability == "fixed" and self._phase in ("stepping", "failed", "terminated"):
                self._refuse(f"fixed parameter '{var.name}' cannot be changed after initialization "
                             f"(value {short(value)} ignored)")
                return
            if var.type == "Enumeration":
                name = var.item_name(value)
                if name is None:
                    self._refuse(f"parameter '{var.name}' (Enumeration of type {var.enumeration_type}) set to "
                                 f"{short(value)}: not one of its item values {var.items_text()}; ignored")
                    return
                value = name
            elif not _accepts(var, value):
                self._refuse(f"setting {var.type} variable '{var.name}' to {short(value)}: wrong type, ignored")
                return
            self.values[var.name] = var.coerce(value)
            if var.causality == "input":
                self._inputs_pending = True
            elif var.variability == "tunable" and self._phase == "stepping":
                self._dirty.add(var.name)
        except Exception as exc:    # never let an exception reach the C++ wrapper
            self._refuse(f"setting '{var.name}' to {short(value)} failed: {describe_exception(exc)}")

    def _refuse(self, message: str) -> None:
        self.log_message(message, Fmi2Status.error)
        if self._error is None:
            self._error = message

    # ------------------------------------------------------------------ getters and setters by reference
    def _describe_ref(self, vr, kind: str) -> str:
        var = self.vars.get(vr) if type(vr) is int else None
        if var is None:
            return f"value reference {short(vr)} is not a variable of {self.MODEL_NAME}"
        return f"value reference {vr} is '{var.name}', a {type(var).__name__} variable, not a {kind}"

    def _get(self, kind: str, vrs) -> list:
        """Values of ``vrs`` (all of FMI type ``kind``); bad references give placeholders (class doc)."""
        self._flush_outputs()
        table, out, bad = self._by_type[kind], [], []
        for vr in vrs:
            var = table.get(vr) if type(vr) is int else None
            if var is None:
                bad.append(self._describe_ref(vr, kind))
                out.append(_PLACEHOLDER[kind])
                continue
            value = self.values[var.name]
            if var.type == "Enumeration":
                value = var.item_value(value)
            elif kind == "String" and not (isinstance(value, str) and _utf8(value)):
                value = str(value).encode("utf-8", "replace").decode("utf-8")
            out.append(value)
        if bad:
            self._refuse(f"get{kind}: {'; '.join(bad[:3])}" + (f" (+{len(bad) - 3} more)" if len(bad) > 3 else ""))
        return out

    def _set(self, kind: str, vrs, values) -> None:
        table, bad = self._by_type[kind], []
        for vr, value in zip(vrs, values):
            var = table.get(vr) if type(vr) is int else None
            if kind == "String" and isinstance(value, str) and not _utf8(value):   # bytes that were not UTF-8
                name = self.vars[vr].name if type(vr) is int and vr in self.vars else short(vr)
                self._refuse(f"setString of '{name}': the value is not valid UTF-8 text, ignored")
            elif var is None and kind == "String" and type(vr) is int and vr in self._by_type["Integer"] \
                    and self._by_type["Integer"][vr].type == "Enumeration":
                self._set_enumeration_name(self._by_type["Integer"][vr], value)
            elif var is None:
                bad.append(self._describe_ref(vr, kind))
            else:
                self._set_value(var, value)
        if bad or len(vrs) != len(values):
            self._refuse(f"set{kind}: " + ("; ".join(bad[:3]) or f"{len(vrs)} references, {len(values)} values")
                         + ", ignored")

    def _set_enumeration_name(self, var: Var, value) -> None:
        """fmi2SetString on an Enumeration (a host or script written when the parameter was a String): an option
        name is taken, with a warning saying which enumeration and item value to set with fmi2SetInteger; any
        other text is refused (logged, next doStep Discard) with the items."""
        name = value if isinstance(value, str) and value in var.choices else None
        if name is None:
            self._refuse(f"parameter '{var.name}' set by fmi2SetString to {short(value)}: it is an Enumeration (type "
                         f"{var.enumeration_type}), set it with fmi2SetInteger to one of {var.items_text()}; ignored")
            return
        self.log_message(f"parameter '{var.name}' set by fmi2SetString to {name!r}: it is an Enumeration (type "
                         f"{var.enumeration_type}), set it with fmi2SetInteger to {var.item_value(name)} ({name}); the "
                         f"name was taken", Fmi2Status.warning)
        self._set_value(var, var.item_value(name))

    def get_real(self, vrs):
        """fmi2GetReal (never raises). Fast path: the references of the last call again (a host reads the
        same list every step) are read with one ``itemgetter`` built for them; other valid Real references
        build that reader; anything else goes through ``_get`` (placeholders and a logged reason)."""
        if self._phase == "initialization":
            self._guard(self._initial_outputs, None, "initial outputs")
        try:
            plan = self._get_plan
            if vrs != plan[0]:
                plan = self._get_plan = self._real_plan(vrs)
            row = self._row
            if row is not None:
                if plan[2] is not None:
                    return plan[2](row)
                self._flush_outputs()
            return plan[1](self.values)
        except Exception:
            self._get_plan = (None, None, None)
            return self._guard(lambda: self._get("Real", vrs), [math.nan] * len(vrs), "getReal")

    def _real_plan(self, vrs) -> tuple:
        """(references, reader of ``self.values``, reader of the published row or None) for getReal of
        ``vrs``; raises (KeyError, TypeError) if one is not a Real variable's reference."""
        names = [self._real_names[vr] for vr in vrs]
        index = self._row_index
        rows = [index[n] for n in names if n in index]
        if len(rows) < len(names):
            from_row = None                     # not all Real outputs: read self.values
        elif rows == list(range(len(index))):
            from_row = list.copy                # all of them in their order (a copy: the row stays ours)
        else:
            from_row = _reader(rows)
        return list(vrs), _reader(names), from_row

    def get_integer(self, vrs):
        if self._phase == "initialization":
            self._guard(self._initial_outputs, None, "initial outputs")
        return self._guard(lambda: self._get("Integer", vrs), [0] * len(vrs), "getInteger")

    def get_boolean(self, vrs):
        if self._phase == "initialization":
            self._guard(self._initial_outputs, None, "initial outputs")
        return self._guard(lambda: self._get("Boolean", vrs), [False] * len(vrs), "getBoolean")

    def get_string(self, vrs):
        return self._guard(lambda: self._get("String", vrs), [""] * len(vrs), "getString")

    def set_real(self, vrs, values):
        """fmi2SetReal. Fast path: every reference a Real input and every value a Python float (what the
        wrapper passes) -- nothing to refuse, the values are stored as they are; the references of the last
        call are recognized without a lookup. Anything else goes through ``_set`` value by value."""
        try:
            plan = self._set_plan
            if vrs != plan[0]:
                refs = self._real_input_refs
                names = [refs.get(vr) if type(vr) is int else None for vr in vrs]
                plan = self._set_plan = (list(vrs), None if None in names or not names else
                                         (tuple(names), self._input_hook(names)))
            fast = plan[1]
            if fast is not None and self._fast_set and len(values) == len(fast[0]) and {*map(type, values)} == _FLOAT_TYPE:
                self.values.update(zip(fast[0], values))
                self._inputs_pending = True
                if fast[1] is not None:
                    fast[1]()
                return
        except Exception:
            self._set_plan = (None, None)
        self._guard(lambda: self._set("Real", vrs, values), None, "setReal")

    def _input_hook(self, names: list[str]):
        """A callable run after the fast path of ``set_real`` stored the Real inputs ``names`` (None: nothing
        to do). A subclass that reacts to inputs in ``_set_value`` gives the same reaction here."""
        return None

    def set_integer(self, vrs, values):
        self._guard(lambda: self._set("Integer", vrs, values), None, "setInteger")

    def set_boolean(self, vrs, values):
        self._guard(lambda: self._set("Boolean", vrs, values), None, "setBoolean")

    def _set_string(self, vrs, values, conversion_failed: bool) -> None:
        """fmi2SetString (reached through ``_SetStringEntry``, which already cleared a pending error)."""
        if conversion_failed:                 # `values` holds NULL items: never read them
            names = [self.vars[vr].name if type(vr) is int and vr in self.vars else str(vr) for vr in vrs]
            self._refuse(f"setString of {', '.join(repr(n) for n in names[:5])}: a value is not valid UTF-8 "
                         f"text, the call was ignored")
            return
        self._guard(lambda: self._set("String", vrs, values), None, "setString")

    def _guard(self, call, fallback, what: str):
        try:
            return call()
        except Exception as exc:
            self._refuse(f"{what} failed: {describe_exception(exc)}")
            return fallback

    # ------------------------------------------------------------------ FMI life cycle
    def setup_experiment(self, start_time: float, stop_time=None, tolerance=None):
        """fmi2SetupExperiment: only before initialization (FMI 2.0 CS state machine). Afterwards it would move
        the FMU's time under a running model: refused (ignored, logged naming the call, next doStep Discard)."""
        try:
            if self._phase not in ("instantiated", "initialization"):
                self._refuse(f"fmi2SetupExperiment(startTime={short(start_time)}) after initialization is not "
                             f"allowed (FMI 2.0: only before fmi2EnterInitializationMode); ignored, the FMU's time "
                             f"stays {self.time!r}")
                return
            if not math.isfinite(start_time):
                self._refuse(f"setupExperiment: start time {short(start_time)} is not finite")
                return
            self.start_time = float(start_time)
            self.time = float(start_time)
        except Exception as exc:
            self._refuse(f"setupExperiment failed: {describe_exception(exc)}")

    def enter_initialization_mode(self):
        if self._phase == "instantiated":
            self._phase = "initialization"

    def exit_initialization_mode(self) -> bool:
        """fmi2ExitInitializationMode: the model built from the parameters; False (the instance failed, the
        reason logged) when they are refused, which this package's FMU binary returns as fmi2Error."""
        try:
            problems = [f"{v.causality} '{v.name}': {p}" for v in self.VARIABLES
                        if v.causality in ("parameter", "input") and (p := _check(v, self.values[v.name]))]
            if problems:
                return self._fail("invalid start values: " + "; ".join(problems))
            if self._error is not None:
                return self._fail(self._error)
            if not (self._model_ready and self._setup_key == self._input_key()):
                self._build_model()
            self._model_ready = True
            bad = self._non_finite_output()
            if bad:
                return self._fail(f"initialization of {self.MODEL_NAME}: initial output '{bad}' = "
                                  f"{self._value(bad)!r} is not finite (check the parameters)")
            self._phase = "stepping"
            self._max_h = self._max_step()
            return True
        except Exception as exc:
            return self._fail(f"initialization of {self.MODEL_NAME} failed: {_model_error_text(exc)}")

    def refuses_steps(self) -> bool:
        """True while every doStep is refused until a valid state is restored (a failed instance): what this
        package's FMU binary reports as fmi2Terminated besides a refused last step."""
        return self._phase == "failed"

    def _fail(self, message: str) -> bool:
        self._phase = "failed"
        self._error = message
        self.log_message(message, Fmi2Status.error)
        return False

    def _step_refusal(self, current_time: float, step_size: float) -> str | None:
        """Why this doStep must be refused without touching the model (None: it may run).

        The usual step (stepping, nothing pending, the step following the last one, inputs unchanged or
        passing the quick test) is recognized in one expression; everything else takes the checks below,
        which find the reason (the expression is true only where they all pass: a NaN or infinite time or
        step fails its comparisons)."""
        now = abs(self.time)
        if self._phase == "stepping" and self._error is None and not self._dirty \
                and 0.0 < step_size <= self._max_h \
                and abs(current_time - self.time) <= self.TIME_TOLERANCE * (now if now > 1.0 else 1.0) \
                and (not self._inputs_pending or self._inputs_ok()):
            return None
        if self._phase == "terminated":
            return f"doStep(t={current_time!r}) after terminate"
        if self._phase == "failed":
            return f"doStep refused, instance failed: {self._error}"
        if self._phase != "stepping":
            return f"doStep(t={current_time!r}) before exitInitializationMode"
        if self._error is not None:
            message, self._error = self._error, None
            return f"doStep refused: {message}"
        if not (math.isfinite(step_size) and step_size > 0.0):
            return f"communication step size h={step_size!r} at t={current_time!r} must be finite and > 0"
        if not math.isfinite(current_time):
            return f"communication point t={current_time!r} is not finite"
        if abs(current_time - self.time) > self.TIME_TOLERANCE * max(1.0, abs(self.time)):
            return (f"communication point t={current_time!r} does not match the FMU's time {self.time!r} "
                    f"(steps must follow each other; restore a state to go back)")
        if self.INTERNAL_STEP is not None:
            internal = self.values[self.INTERNAL_STEP]
            if step_size > self.MAX_SUBSTEPS * internal:
                return (f"communication step h={step_size!r} s needs {step_size / internal:.3g} internal steps of "
                        f"{self.INTERNAL_STEP} = {internal!r} s, more than {self.MAX_SUBSTEPS} per doStep; "
                        f"use communication steps <= {self.MAX_SUBSTEPS * internal:g} s")
        if self._inputs_pending and not self._inputs_ok():
            for var in self._inputs:
                problem = _check(var, self.values[var.name])
                if problem:
                    return f"input '{var.name}' at t={current_time!r}: {problem}"
            for name, (lo, hi, why) in self._input_limits.items():
                value = self.values[name]
                if not lo <= value <= hi:
                    return f"input '{name}' at t={current_time!r}: {value!r} is outside [{lo:g}, {hi:g}] ({why})"
        if self._dirty:
            for name in sorted(self._dirty):
                problem = _check(self.var_by_name[name], self.values[name])
                if problem:
                    return f"tunable parameter '{name}': {problem}"
        return None

    def narrow_inputs(self, limits: dict, why: str) -> None:
        """Bounds of this instance's model inside the declared ranges: ``limits`` = {input: (min, max)}, ``why``
        their reason (named in the refusal). A step with an input beyond them is refused like one beyond its
        declared range (Discard, the instance unchanged). Replaces the previous call's limits."""
        self._input_limits = {name: (lo, hi, why) for name, (lo, hi) in limits.items()}
        self._bounded_inputs = tuple((name, *self._input_limits.get(name, (lo, hi))[:2])
                                     for name, lo, hi in self._declared_bounds)

    def _max_step(self) -> float:
        """The largest communication step a doStep takes (``MAX_SUBSTEPS`` internal steps; else the largest
        finite float, so that an infinite step is refused)."""
        if self.INTERNAL_STEP is None:
            return sys.float_info.max
        return self.MAX_SUBSTEPS * self.values[self.INTERNAL_STEP]

    def do_step(self, current_time: float, step_size: float) -> bool:
        saved = None
        try:
            refusal = self._step_refusal(current_time, step_size)
            if refusal is not None:
                self.log_message(refusal, Fmi2Status.error)
                return False
            if self._dirty:
                names = sorted(self._dirty)
                self._dirty.clear()
                self._on_tunable_change(names)
                self._max_h = self._max_step()
            # only outputs change in a step: keep the published row (a slave that publishes writes nothing
            # else) or the outputs in self.values
            row = self._row
            saved = (row, None if row is not None else self._read_outputs(self.values))
            self._advance(current_time, step_size)
            row = self._row
            # a published row whose sum is finite has only finite numbers (else find the culprit)
            bad = None if row is not None and type(row) is list and _finite_sum(row) else self._non_finite_output()
            if bad:
                value = self._value(bad)
                self._restore_outputs(saved)
                return self._fail(f"doStep(t={current_time!r}, h={step_size!r}): output '{bad}' became {value!r}; "
                                  f"the model state is invalid, outputs are those at t={current_time!r}, and the "
                                  f"instance refuses to step until a state is restored")
            self.time = current_time + step_size
            self._inputs_pending = False
            return True
        except Exception as exc:
            if saved is not None:
                self._restore_outputs(saved)
            return self._fail(f"doStep(t={current_time!r}, h={step_size!r}) failed: {_model_error_text(exc)}")

    def _restore_outputs(self, saved: tuple) -> None:
        """Put the outputs back to ``saved`` (made in ``do_step`` before the step)."""
        row, outputs = saved
        self._row = row
        if outputs is not None:
            self.values.update(zip(self._outputs, outputs))

    def _inputs_ok(self) -> bool:
        """Quick test that every input passes ``Var.check`` (False: run the checks for the message).

        Real inputs are floats (``_set_value`` coerces them), so finite and within bounds is all there is
        to test; the sum of finite values is finite unless it overflows (then the full checks decide).
        """
        if not self._fast_inputs:
            return False
        values = self.values
        if not math.isfinite(sum(self._read_real_inputs(values))):
            return False
        for name, lo, hi in self._bounded_inputs:
            if not lo <= values[name] <= hi:
                return False
        return True

    def _build_model(self) -> None:
        """``_setup()``, after logging (once per process) why the model is compiled now if it is
        (``jit.COMPILE_NOTICE``: the compiled code shipped in the FMU cannot be used in this process)."""
        global _COMPILE_NOTICE_LOGGED
        jit = sys.modules.get(__name__.split(".")[0] + ".numerics.jit")
        notice = getattr(jit, "COMPILE_NOTICE", None)
        if notice and not _COMPILE_NOTICE_LOGGED:
            _COMPILE_NOTICE_LOGGED = True
            self.log_message(notice, Fmi2Status.warning)
        self._setup()

    def _input_key(self) -> tuple:
        return tuple(self.values[v.name] for v in self.VARIABLES if v.causality != "output")

    def _initial_outputs(self) -> None:
        """In initialization mode, (re)build the model from the parameters and inputs set so far, so that the
        outputs a master reads there -- and propagates to other FMUs -- are the initial outputs, not start
        values. Done only when a parameter or input changed since the last build; a build that fails leaves
        the previous outputs (the error is reported by ``fmi2ExitInitializationMode``)."""
        key = self._input_key()
        if key == self._setup_key:
            return
        self._setup_key = key
        if self._error is not None or any(_check(v, self.values[v.name]) for v in self.VARIABLES
                                          if v.causality in ("parameter", "input")):
            return
        try:
            self._build_model()
            self._model_ready = True
        except Exception:
            self._model_ready = False

    def _non_finite_output(self) -> str | None:
        """The first Real output that is NaN/inf, else None (a sum first: one pass in the usual case)."""
        row = self._row
        if row is not None:
            try:
                if math.isfinite(sum(row)):
                    return None
            except (TypeError, OverflowError):
                pass
            for name, value in zip(self._real_outputs, row):
                if not (isinstance(value, (int, float)) and math.isfinite(value)):
                    return name
            return None
        values = self.values
        try:
            if math.isfinite(sum(self._read_real_outputs(values))):
                return None
        except (TypeError, OverflowError):
            pass
        for name in self._real_outputs:
            value = values[name]
            if not (isinstance(value, (int, float)) and math.isfinite(value)):
                return name
        return None

    def terminate(self):
        self._phase = "terminated"
        embedding.finalize_at_exit(self.resources, self.MODEL_NAME)   # after everything stepping loaded

    # ------------------------------------------------------------------ FMU state
    def _get_fmu_state(self):
        try:
            self._flush_outputs()
            arrays: list = []
            tree = sf.to_tree(self._state(), arrays) if self._model_ready else None
            header = {"model_name": self.MODEL_NAME, "guid": str(self.guid), "version": self.version,
                      "fixed_parameters": {name: self.values[name] for name in self._fixed},
                      "values": sf.to_tree(dict(self.values), []), "phase": self._phase, "error": self._error,
                      "time": self.time, "start_time": self.start_time, "model_ready": self._model_ready}
            return sf.SavedState(header, tree, arrays)
        except Exception as exc:
            self._refuse(f"getFMUstate failed: {describe_exception(exc)}")
            return None

    def _set_fmu_state(self, state):
        try:
            problem = self._state_problem(state)
            if problem is None:
                problem = self._apply_state(state)
        except Exception as exc:
            problem = f"restoring it failed: {_model_error_text(exc)}"
        if problem is not None:
            self._fail(f"setFMUstate refused: {problem}; the instance refuses to step until a valid state is set")

    def _state_problem(self, state) -> str | None:
        """Why ``state`` cannot be restored into this instance (header and values only), else None."""
        if isinstance(state, sf.RejectedState):
            return f"the serialized state could not be read: {state.reason}"
        if not isinstance(state, sf.SavedState):
            return f"the state does not come from a {self.MODEL_NAME} FMU"
        h = state.header
        if h.get("model_name") != self.MODEL_NAME:
            return f"the state does not come from a {self.MODEL_NAME} FMU (it names {short(h.get('model_name'))})"
        if h.get("guid") != str(self.guid):
            return (f"the state was made by another build of {self.MODEL_NAME} (GUID {short(h.get('guid'))}, "
                    f"this FMU has {self.guid})")
        values, fixed = h.get("values"), h.get("fixed_parameters")
        if not isinstance(values, dict) or set(values) != set(self.values) or not isinstance(fixed, dict) \
                or set(fixed) != set(self._fixed):
            return "the state does not list this FMU's variables"
        for name, value in values.items():
            var = self.var_by_name[name]
            if not _accepts(var, value) or (var.type == "Integer" and not _INT32[0] <= value <= _INT32[1]) \
                    or (var.type == "Real" and var.causality == "output" and not math.isfinite(value)):
                return f"variable '{name}' = {short(value)} in the state is not a valid {var.type}"
        differ = [f"{n} = {short(fixed[n])} in the state, {short(self.values[n])} here" for n in self._fixed
                  if fixed[n] != self.values[n] or values[n] != fixed[n]]
        if differ:
            return ("the state was made with other parameter values (" + "; ".join(differ[:4])
                    + (f"; +{len(differ) - 4} more" if len(differ) > 4 else "") + ")")
        if h.get("phase") not in PHASES or not (h.get("error") is None or isinstance(h.get("error"), str)):
            return "the state has an unknown life-cycle phase"
        for key in ("time", "start_time"):
            if type(h.get(key)) is not float or not math.isfinite(h[key]):
                return f"the state's {key} is not a finite number"
        if type(h.get("model_ready")) is not bool or (state.tree is not None) != h["model_ready"]:
            return "the state's model snapshot is missing or unexpected"
        if not sf.arrays_finite(state.arrays):
            return "the model snapshot holds NaN or infinite numbers"
        return None

    def _apply_state(self, state: sf.SavedState) -> str | None:
        """Check the model snapshot against this instance's own and restore everything (header checked)."""
        h = state.header
        model = None
        if h["model_ready"]:
            invalid = [f"'{v.name}': {p}" for v in self.VARIABLES
                       if v.causality == "parameter" and (p := _check(v, h["values"][v.name]))]
            if invalid:
                return f"its parameters are invalid ({'; '.join(invalid[:3])})"
            if not self._model_ready:
                self._build_model()
                self._model_ready = True
            template_arrays: list = []
            template = sf.to_tree(self._state(), template_arrays)
            problem = sf.same_shape(state.tree, template, state.arrays, template_arrays)
            if problem:
                return f"its model snapshot does not fit this model ({problem})"
            model = sf.from_tree(state.tree, state.arrays)
        self.values = {name: self.var_by_name[name].coerce(v) for name, v in h["values"].items()}
        self._row = None
        self._dirty.clear()
        self._inputs_pending = True
        self._phase, self._error = h["phase"], h["error"]
        self.time, self.start_time = h["time"], h["start_time"]
        self._max_h = self._max_step()
        if model is not None:
            self._restore(model)
        return None

    @staticmethod
    def _fmu_state_to_bytes(state) -> bytes:
        try:
            return sf.dump(state)
        except Exception:
            return b""            # deserializes to a rejected state (and is logged when set)

    @staticmethod
    def _fmu_state_from_bytes(data: bytes):
        try:
            return sf.load(data)
        except Exception as exc:
            return sf.RejectedState(clip(str(exc)) if isinstance(exc, sf.StateFormatError) else type(exc).__name__)


_FLOAT_TYPE = {float}


def _finite_sum(values: list) -> bool:
    """True if the sum of ``values`` is finite (False also for non-numbers and an overflowing sum)."""
    try:
        return math.isfinite(sum(values))
    except (TypeError, OverflowError):
        return False


def _reader(keys) -> Any:
    """``store -> [store[k] for k in keys]`` as one ``operator.itemgetter`` call (a list, as the wrapper needs)."""
    keys = tuple(keys)
    if not keys:
        return lambda store: []
    if len(keys) == 1:
        key = keys[0]
        return lambda store: [store[key]]
    get = itemgetter(*keys)
    return lambda store: list(get(store))


def _accepts(var: Var, value) -> bool:
    """True if ``value`` has the Python type of FMI type ``var.type`` (bool is not a number here)."""
    if var.type == "Real":
        return isinstance(value, (float, int)) and not isinstance(value, bool)
    if var.type == "Integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if var.type == "Boolean":
        return isinstance(value, (bool, int))
    if var.type == "Enumeration":          # held by its option name (``Var``)
        return isinstance(value, str) and value in var.choices
    return isinstance(value, str) and _utf8(value)


def _check(var: Var, value) -> str | None:
    """``Var.check`` with the value shown cut (a host may set a 1 MB string)."""
    problem = var.check(value)
    if problem is None:
        return None
    return problem.replace(repr(value), short(value)) if len(repr(value)) > 120 else problem


def _model_error_text(exc: BaseException) -> str:
    """A model/data error's own message (cut), any other exception as one line with its location."""
    if isinstance(exc, ModelError):
        return clip(" ".join(str(exc).split()), 600)
    return describe_exception(exc)
