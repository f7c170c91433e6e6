"""``VehicleSlaveBase``: the pythonfmu ``Fmi2Slave`` that owns every FMI rule, so slaves stay thin.

A concrete slave is a class-level variable table plus four hooks (see ``fmu_vehicle_lead_vehicle.py``
for a 60-line example)::

    class LeadVehicle(VehicleSlaveBase):
        MODEL_NAME = "LeadVehicle"                  # modelName = modelIdentifier = binary name
        DESCRIPTION = "Lead vehicle from a speed profile"
        RESOURCES = ()                              # sub-paths of <repo>/resources shipped in the FMU
        VARIABLES = (Var("x0", "parameter", "fixed", "m", "initial position", 50.0), ...)

        def _setup(self):            # parameters are final: build the plain-Python model, set outputs
        def _advance(self, t, h):    # one communication step [t, t+h]: read self.values, step, write outputs
        def _state(self):            # picklable snapshot of the model (deep-copied by the base)
        def _restore(self, state):   # inverse of _state (the model exists: the base calls _setup first)
        def _on_tunable_change(self, names):   # optional: tunable parameters changed (already validated)

All values live in ``self.values`` (name -> float/int/bool/str); every variable is registered with an
explicit getter/setter on that store (no attribute paths).  Data files are read through
``Path(self.resources)`` (``self.resource_file(...)``), never ``importlib.resources`` (fmi_notes §0.2).

Error handling (pythonfmu 0.7.0, read in ``src/pythonfmu/fmi2.cpp`` and ``PySlaveInstance.cpp``):

* Any Python exception escaping a callback (``do_step``, ``exit_initialization_mode``, getters,
  setters, state hooks) becomes ``fmi2Fatal``; the wrapper DECREFs the Python instance and the next
  ``fmi2Terminate`` is a use-after-free that segfaults FMPy and libcosim (fmi_notes §1.6).  So no
  method of this class lets an exception escape.
* The return value of ``exit_initialization_mode`` is ignored by the wrapper (``Py_DECREF(f)``), so
  initialization cannot return ``fmi2Error`` without crashing the host.  Therefore invalid parameters
  and initial inputs (NaN/inf, outside min/max, unknown choice, a model/data error raised by
  ``_setup``) are *logged* during ``fmi2ExitInitializationMode`` with status ``fmi2Error`` naming the
  variable, the instance enters the ``failed`` phase, and every later ``fmi2DoStep`` logs the same
  message and returns ``fmi2Discard`` (``fmi2Terminated`` = true).  ``fmi2Terminate``/``fmi2FreeInstance``
  keep working.  Messages reach the host only if it instantiated with ``loggingOn`` (FMPy:
  ``debug_logging=True`` or ``instantiate(loggingOn=True)``).
* ``do_step`` returns False (``fmi2Discard``) with a logged message for: NaN/inf or out-of-range input,
  step size <= 0 or not finite, a call after ``terminate``, a changed fixed parameter or an invalid
  tunable parameter, and any exception in ``_advance`` (traceback logged; the instance is then failed
  until a state is restored).  Input problems leave the model untouched, so a master may retry.
* Setting an output or a fixed parameter after initialization is refused the same way (logged,
  next ``do_step`` discards), because a setter may not raise.

State (``--handle-state --serialize-state``, enabled by ``build.py`` when a slave overrides
``_state``/``_restore``): ``_get_fmu_state`` deep-copies values, phase, time and ``_state()``;
``_set_fmu_state`` deep-copies again (the host reuses the state object); pickle serializers are
static methods because the wrapper calls them on the class (fmi_notes §1.5).  Deserialize only states
this FMU produced (pickle).
"""
from __future__ import annotations

import copy
import math
import pickle
import sys
import traceback
from abc import abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from pythonfmu import Boolean, DefaultExperiment, Fmi2Causality, Fmi2Slave, Fmi2Variability, Integer, Real, String
from pythonfmu.enums import Fmi2Status

from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.variables import Var, var_table
from fmu_vehicle.fmi import embedding
from fmu_vehicle.fmi.version import build_info, fmu_guid, package_version

_COMPILE_NOTICE_LOGGED = False

_PYTHONFMU_TYPES = {"Real": Real, "Integer": Integer, "Boolean": Boolean, "String": String}

#: Life cycle of an instance (FMI 2.0 CS state machine, reduced to what the checks need).
PHASES = ("instantiated", "initialization", "stepping", "failed", "terminated")


class VehicleSlaveBase(Fmi2Slave):
    """Generic FMI 2.0 CS slave over a plain-Python model; subclasses give VARIABLES and the hooks."""

    MODEL_NAME: ClassVar[str] = ""
    DESCRIPTION: ClassVar[str] = ""
    VARIANT: ClassVar[str] = ""
    VARIABLES: ClassVar[tuple[Var, ...]] = ()
    RESOURCES: ClassVar[tuple[str, ...]] = ()
    AUTHOR: ClassVar[str] = "fmu_vehicle developers"
    LICENSE: ClassVar[str] = "MIT"
    default_experiment = DefaultExperiment(start_time=0.0, stop_time=10.0, step_size=1e-3)

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
        self._phase = "instantiated"
        self._error: str | None = None      # why the instance is failed / why the next step discards
        self._dirty: set[str] = set()       # tunable parameters set since the last step
        self._model_ready = False
        self._setup_key: tuple | None = None    # parameters and inputs the model was last built from
        self.start_time = 0.0
        self.time = 0.0
        for var in cls.VARIABLES:
            self.register_variable(self._pythonfmu_variable(var), nested=False)
        # per-step fast paths (issue #6): value reference -> name of the Real variables; the Real inputs
        # (stored as float by _set_value) and the bounds of those that have any
        real = {vr: v.name for vr, v in self.vars.items() if isinstance(v, Real)}
        self._real_names = [real.get(vr) for vr in range(max(self.vars, default=-1) + 1)]
        self._real_inputs = tuple(v.name for v in self._inputs if v.type == "Real")
        self._bounded_inputs = tuple((v.name, -math.inf if v.min is None else v.min,
                                      math.inf if v.max is None else v.max)
                                     for v in self._inputs if v.type == "Real" and (v.min, v.max) != (None, None))
        self._fast_inputs = len(self._real_inputs) == len(self._inputs)

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
        """Picklable snapshot of the whole model state (override to enable FMU state support)."""
        raise NotImplementedError

    def _restore(self, state: Any) -> None:
        """Restore ``_state()`` output into the model built by ``_setup`` (override with ``_state``)."""
        raise NotImplementedError

    @classmethod
    def supports_state(cls) -> bool:
        """True if the slave implements ``_state``/``_restore`` (build with --handle-state)."""
        return cls._state is not VehicleSlaveBase._state and cls._restore is not VehicleSlaveBase._restore

    # ------------------------------------------------------------------ helpers for subclasses
    def resource_file(self, *parts: str) -> Path:
        """Path of a data file shipped in the FMU's resources (fresh for every instance)."""
        path = Path(self.resources).joinpath(*parts)
        if not path.is_file():
            raise ModelError(f"{path}: data file not found in the FMU resources")
        return path

    def log_message(self, message: str, status: Fmi2Status = Fmi2Status.ok) -> None:
        """Log through the FMI logger; '%' is escaped because hosts treat the text as a printf format."""
        self.log(f"[{self.instance_name}] {message}".replace("%", "%%"), status)

    # ------------------------------------------------------------------ registration
    def _pythonfmu_variable(self, var: Var):
        causality = getattr(Fmi2Causality, var.causality)
        variability = getattr(Fmi2Variability, var.variability)
        return _PYTHONFMU_TYPES[var.type](
            var.name, causality=causality, variability=variability, description=var.description or None,
            getter=lambda name=var.name: self.values[name],
            setter=lambda value, v=var: self._set_value(v, value))

    def _set_value(self, var: Var, value: Any) -> None:
        try:
            if var.causality == "output":
                self._refuse(f"variable '{var.name}' is an output and cannot be set")
                return
            if var.variability == "fixed" and self._phase in ("stepping", "failed", "terminated"):
                self._refuse(f"fixed parameter '{var.name}' cannot be changed after initialization "
                             f"(value {value!r} ignored)")
                return
            self.values[var.name] = var.coerce(value)
            if var.variability == "tunable" and self._phase == "stepping":
                self._dirty.add(var.name)
        except Exception as exc:    # never let an exception reach the C++ wrapper
            self._refuse(f"setting '{var.name}' to {value!r} failed: {exc}")

    def _refuse(self, message: str) -> None:
        self.log_message(message, Fmi2Status.error)
        if self._error is None:
            self._error = message

    # ------------------------------------------------------------------ FMI life cycle
    def setup_experiment(self, start_time: float, stop_time=None, tolerance=None):
        self.start_time = float(start_time)
        self.time = float(start_time)

    def enter_initialization_mode(self):
        if self._phase == "instantiated":
            self._phase = "initialization"

    def exit_initialization_mode(self):
        try:
            problems = [f"{v.causality} '{v.name}': {p}" for v in self.VARIABLES
                        if v.causality in ("parameter", "input") and (p := v.check(self.values[v.name]))]
            if problems:
                self._fail("invalid start values: " + "; ".join(problems))
                return
            if self._error is not None:
                self._fail(self._error)
                return
            if not (self._model_ready and self._setup_key == self._input_key()):
                self._build_model()
            self._model_ready = True
            self._phase = "stepping"
        except Exception as exc:
            detail = str(exc) if isinstance(exc, ModelError) else traceback.format_exc()
            self._fail(f"initialization of {self.MODEL_NAME} failed: {detail}")

    def _fail(self, message: str) -> bool:
        self._phase = "failed"
        self._error = message
        self.log_message(message, Fmi2Status.error)
        return False

    def do_step(self, current_time: float, step_size: float) -> bool:
        try:
            if self._phase == "terminated":
                self.log_message(f"doStep(t={current_time!r}) after terminate", Fmi2Status.error)
                return False
            if self._phase == "failed":
                self.log_message(f"doStep refused, instance failed: {self._error}", Fmi2Status.error)
                return False
            if self._phase != "stepping":
                self.log_message(f"doStep(t={current_time!r}) before exitInitializationMode", Fmi2Status.error)
                return False
            if self._error is not None:
                message, self._error = self._error, None
                self.log_message(f"doStep refused: {message}", Fmi2Status.error)
                return False
            if not (math.isfinite(step_size) and step_size > 0.0):
                self.log_message(f"communication step size h={step_size!r} at t={current_time!r} "
                                 f"must be finite and > 0", Fmi2Status.error)
                return False
            if not math.isfinite(current_time):
                self.log_message(f"communication point t={current_time!r} is not finite", Fmi2Status.error)
                return False
            if not self._inputs_ok():
                for var in self._inputs:
                    problem = var.check(self.values[var.name])
                    if problem:
                        self.log_message(f"input '{var.name}' at t={current_time!r}: {problem}", Fmi2Status.error)
                        return False
            if self._dirty:
                for name in sorted(self._dirty):
                    problem = self.var_by_name[name].check(self.values[name])
                    if problem:
                        self.log_message(f"tunable parameter '{name}': {problem}", Fmi2Status.error)
                        return False
                names = sorted(self._dirty)
                self._dirty.clear()
                self._on_tunable_change(names)
            self._advance(current_time, step_size)
            self.time = current_time + step_size
            return True
        except Exception as exc:
            detail = str(exc) if isinstance(exc, ModelError) else traceback.format_exc()
            return self._fail(f"doStep(t={current_time!r}, h={step_size!r}) failed: {detail}")

    def _inputs_ok(self) -> bool:
        """Quick test that every input passes ``Var.check`` (False: run the checks for the message).

        Real inputs are floats (``_set_value`` coerces them), so finite and within bounds is all there is
        to test; the sum of finite values is finite unless it overflows (then the full checks decide).
        """
        if not self._fast_inputs:
            return False
        values = self.values
        if not math.isfinite(sum([values[name] for name in self._real_inputs])):
            return False
        for name, lo, hi in self._bounded_inputs:
            if not lo <= values[name] <= hi:
                return False
        return True

    def _build_model(self) -> None:
        """``_setup()``, after logging (once per process) why the model is compiled now if it is
        (``jit.COMPILE_NOTICE``: the compiled code shipped in the FMU cannot be used in this process)."""
        global _COMPILE_NOTICE_LOGGED
        jit = sys.modules.get(__name__.split(".")[0] + ".jit")
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
        if self._error is not None or any(v.check(self.values[v.name]) for v in self.VARIABLES
                                          if v.causality in ("parameter", "input")):
            return
        try:
            self._build_model()
            self._model_ready = True
        except Exception:
            self._model_ready = False

    def get_real(self, vrs):
        """fmi2GetReal: the values by reference through the name table (pythonfmu's version calls a getter
        and an isinstance per variable, about a quarter of a 1 ms step's host overhead)."""
        if self._phase == "initialization":
            self._initial_outputs()
        try:
            values, names = self.values, self._real_names
            return [float(values[names[vr]]) for vr in vrs]
        except (KeyError, IndexError, TypeError, ValueError):
            return super().get_real(vrs)       # raises pythonfmu's error for a reference that is not Real

    def get_integer(self, vrs):
        if self._phase == "initialization":
            self._initial_outputs()
        return super().get_integer(vrs)

    def get_boolean(self, vrs):
        if self._phase == "initialization":
            self._initial_outputs()
        return super().get_boolean(vrs)

    def terminate(self):
        self._phase = "terminated"
        embedding.finalize_at_exit(self.resources, self.MODEL_NAME)   # after everything stepping loaded

    # ------------------------------------------------------------------ FMU state
    def _get_fmu_state(self):
        try:
            model = self._state() if self._model_ready else None
            return copy.deepcopy({"model_name": self.MODEL_NAME, "values": self.values, "phase": self._phase,
                                  "error": self._error, "time": self.time, "start_time": self.start_time,
                                  "model": model})
        except Exception:
            self._refuse(f"getFMUstate failed: {traceback.format_exc()}")
            return None

    def _set_fmu_state(self, state):
        try:
            if not isinstance(state, dict) or state.get("model_name") != self.MODEL_NAME:
                self._refuse(f"setFMUstate: the state does not come from a {self.MODEL_NAME} FMU")
                return
            state = copy.deepcopy(state)
            self.values = dict(state["values"])      # parameters for _setup ...
            self._phase, self._error = state["phase"], state["error"]
            self.time, self.start_time = state["time"], state["start_time"]
            self._dirty.clear()
            if state["model"] is not None:
                if not self._model_ready:
                    self._build_model()
                    self._model_ready = True
                self._restore(state["model"])
            self.values = state["values"]            # ... and the saved outputs, not _setup's initial ones
        except Exception:
            self._phase = "failed"
            self._refuse(f"setFMUstate failed: {traceback.format_exc()}")

    @staticmethod
    def _fmu_state_to_bytes(state) -> bytes:
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    @staticmethod
    def _fmu_state_from_bytes(data: bytes):
        return pickle.loads(data)
