"""The chassis-control unit: samples its sensors every ``sample_period_s`` (10 ms, like an ECU) and runs its
functions in a fixed order, each of which may change the commands the hydraulics and the powertrain get.

At a sample instant t_k the unit reads :class:`Sensors` (wheel spins, yaw rate, lateral acceleration,
steering-wheel angle, longitudinal speed, the driver's master-cylinder pressure and drive torque), starts from
the neutral :class:`Commands` (no pressure limit, no active pressure, slip-target factors and drive-torque
factor 1) and hands them to

    tcs   traction control: active pressure on a spinning driven wheel, drive-torque factor < 1
    esc   yaw control: active pressure on one wheel against over- or understeer, and under braking a factor < 1
          on ABS's slip set-point of the front wheel on the other side; it reads the active pressures
          TCS has set and expects the yaw rate of their moment, k_tcs (t/2) sum_w s_w K_w p_w / r_w times the
          single-track r / M_z (esc.py, step 1), instead of braking against it
    abs   anti-lock: a slip controller's pressure limit on each wheel running beyond its slip set-point (the
          road-friction estimate's, times ESC's factor); it acts last, so its limits cap the driver's pressure
          and the pressures TCS and ESC build (the arbiter: docs/chassis_control.md §1)

in that order. The commands are held until the next sample instant. A function switched off is not run
(its state stays as it was). Each function is a class in its own module (``FUNCTIONS``) with

    name                         its key in the tuning file and in ``enabled``
    TUNING                       {key: (unit, description, min, max)} of its tuning values (the FMU's
                                 parameters ``<name>.<key>``; start values from the default tuning file)
    OUTPUTS                      (name, unit, description) of its diagnostic signals; a name with ``{wheel}``
                                 is one signal per wheel, in wheel order (``function_outputs``)
    __init__(vehicle, tuning)    ``vehicle`` a :class:`ControlledVehicle`, ``tuning`` its section of the file
    state                        a float64 array: everything that carries from one sample to the next
    reset()                      the state at the start of a run
    step(sensors, commands, period_s)   one sample: reads sensors and state, updates both commands and state
    output_values()              its diagnostic signals now, in OUTPUTS order

so that the unit's state is the concatenation of its functions' states (saved and restored bit for bit).

Tunings: ``resources/chassis_control/<name>.json`` (:func:`load_tuning`), one section per function.
"""
from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ModelError
from fmu_vehicle.util import read_json
from ..paths import resource_path

FUNCTIONS = {"tcs": "tcs:TractionControl", "esc": "esc:StabilityControl", "abs": "abs:AntiLock"}
"""The functions in the order they run at a sample instant: name -> ``module:Class``, the module in this package
(imported by a relative name, so that a renamed copy of the package, as an FMU carries, finds its own)."""

SAMPLE_PERIOD_S = 0.01
"""Default sample period of the unit [s]."""


@dataclass(frozen=True)
class ControlledVehicle:
    """What the controller knows of its vehicle (constants, SI): per-wheel arrays in the vehicle's wheel order.

    side is +1 for a left wheel and -1 for a right one; ``front``/``driven`` are booleans; ``radius_m`` the
    rolling radius that turns a wheel spin into a wheel speed; the single-track constants (mass, yaw inertia,
    axle distances, cornering stiffnesses, steering ratio) are those of ``manoeuvres.vehicle_model
    .single_track_of``; ``track_m`` the mean track width."""

    wheel_names: tuple[str, ...]
    side: np.ndarray
    front: np.ndarray
    driven: np.ndarray
    radius_m: np.ndarray
    mass_kg: float
    yaw_inertia_kg_m2: float
    a_m: float
    b_m: float
    cf_N_per_rad: float
    cr_N_per_rad: float
    steering_ratio: float
    track_m: float
    brake_gain_Nm_per_Pa: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def n_wheels(self) -> int:
        return len(self.wheel_names)


@dataclass
class Sensors:
    """The unit's inputs at a sample instant (SI, ISO 8855 axes)."""

    t: float                        # time [s]
    omega: np.ndarray               # wheel spins [rad/s] (+ rolling forward), vehicle wheel order
    yaw_rate: float                 # [rad/s], + turning left
    ay: float                       # lateral acceleration of the centre of mass along chassis y [m/s^2]
    steering_wheel_angle: float     # [rad], + left
    vx: float                       # longitudinal speed of the centre of mass [m/s]
    master_cylinder_pressure: float  # the driver's brake demand p_mc [Pa]
    drive_torque: float             # the driver's drive-torque demand [N m] (total over the driven wheels)
    wheel_pressure: np.ndarray | None = None   # the unit's wheel pressures [Pa] (its hydraulic model; None: 0)


NO_LIMIT_IN_STATE = -1.0
"""A wheel's pressure limit "none" (+inf in ``Commands.pressure_limit``) as stored in ``ChassisController.
get_state`` (an FMU state holds finite numbers only)."""


@dataclass
class Commands:
    """The unit's outputs, held between sample instants (the arbiter's result, docs/chassis_control.md §1):
    per wheel the pressure the pump builds and the limit the wheel pressure must stay under (the hydraulic
    unit's valves realise both at every step: ``hydraulics.advance_pressures``), per wheel the factor ESC
    puts on ABS's slip set-point, and the factor on the driver's drive torque."""

    pressure_limit: np.ndarray      # largest wheel pressure [Pa] (+inf: none; the inlet follows the source)
    active_pressure: np.ndarray     # pressure the pump builds at the wheel [Pa]
    drive_torque_factor: float = 1.0
    slip_target_factor: np.ndarray | None = None   # ESC's factor on ABS's slip set-point per wheel [-]

    @classmethod
    def neutral(cls, n_wheels: int) -> "Commands":
        return cls(np.full(n_wheels, math.inf), np.zeros(n_wheels), 1.0, np.ones(n_wheels))


def load_tuning(name_or_path="default") -> dict:
    """The tuning file ``resources/chassis_control/<name>.json`` (or a path): {function: {parameter: value}}."""
    p = Path(name_or_path)
    if p.suffix != ".json":
        p = resource_path("chassis_control", f"{name_or_path}.json")
    doc = read_json(p, "chassis-control tuning")
    unknown = set(doc) - set(FUNCTIONS) - {"name", "description", "sample_period_s"}
    if unknown:
        raise ModelError(f"{p}: unknown section(s) {', '.join(sorted(unknown))}; valid: {', '.join(FUNCTIONS)}")
    return doc


def tuning_value(tuning: dict, key: str, src: str, lo: float | None = None, hi: float | None = None) -> float:
    """``tuning[key]`` as a float, checked finite and inside [lo, hi]; the error names ``src.key``."""
    v = tuning.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ModelError(f"{src}.{key} must be a finite number, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ModelError(f"{src}.{key} = {v!r} is outside [{lo}, {hi}]")
    return float(v)


def read_tuning(function, tuning: dict) -> dict:
    """A function's tuning values: every key of its class's ``TUNING`` table read from ``tuning`` (its section of
    the tuning file) with ``tuning_value`` and the table's bounds; an unknown key is refused, naming the valid ones."""
    unknown = sorted(set(tuning) - set(function.TUNING))
    if unknown:
        raise ModelError(f"{function.name}: unknown tuning key(s) {', '.join(unknown)}; "
                         f"valid: {', '.join(function.TUNING)}")
    return {k: tuning_value(tuning, k, function.name, lo, hi) for k, (_u, _d, lo, hi) in function.TUNING.items()}


def function_outputs(entries, wheel_names) -> list[tuple[str, str, str]]:
    """(name, unit, description) of a function's diagnostic signals (``entries``: its class's ``OUTPUTS`` or a
    part of them) for a vehicle's wheels: an entry whose name holds ``{wheel}`` stands for one signal per wheel,
    in wheel order."""
    out = []
    for name, unit, desc in entries:
        out += [(name.format(wheel=w), unit, f"{desc} (wheel {w})") for w in wheel_names] if "{wheel}" in name \
            else [(name, unit, desc)]
    return out


def function_class(name: str):
    """The class of function ``name`` (a key of ``FUNCTIONS``)."""
    module, cls = FUNCTIONS[name].split(":")
    return getattr(importlib.import_module(f".{module}", __package__), cls)


class ChassisController:
    """The unit (module docstring) for one vehicle: ``enabled`` switches functions on or off by name."""

    def __init__(self, vehicle: ControlledVehicle, tuning: dict | None = None, *, enabled: dict | None = None,
                 sample_period_s: float | None = None):
        tuning = load_tuning() if tuning is None else tuning
        self.vehicle = vehicle
        enabled = {} if enabled is None else dict(enabled)
        unknown = set(enabled) - set(FUNCTIONS)
        if unknown:
            raise ModelError(f"unknown chassis-control function(s) {', '.join(sorted(unknown))}; "
                             f"valid: {', '.join(FUNCTIONS)}")
        self.enabled = {n: bool(enabled.get(n, True)) for n in FUNCTIONS}
        period = sample_period_s if sample_period_s is not None else tuning.get("sample_period_s", SAMPLE_PERIOD_S)
        self.sample_period_s = tuning_value({"sample_period_s": period}, "sample_period_s", "chassis control",
                                            1e-4, 1.0)
        self.functions = [function_class(n)(vehicle, tuning.get(n, {})) for n in FUNCTIONS]
        self.commands = Commands.neutral(vehicle.n_wheels)

    def reset(self):
        for f in self.functions:
            f.reset()
        self.commands = Commands.neutral(self.vehicle.n_wheels)

    def sample(self, sensors: Sensors) -> Commands:
        """Run the enabled functions at one sample instant; the commands to hold until the next."""
        c = Commands.neutral(self.vehicle.n_wheels)
        for f in self.functions:
            if self.enabled[f.name]:
                f.step(sensors, c, self.sample_period_s)
        self.commands = c
        return c

    # -- diagnostics and state ---------------------------------------------------------------------------
    def output_table(self) -> list[tuple[str, str, str]]:
        """(name, unit, description) of every function's diagnostic signals, named ``<function>.<signal>``."""
        return [(f"{f.name}.{n}", u, d) for f in self.functions
                for n, u, d in function_outputs(f.OUTPUTS, self.vehicle.wheel_names)]

    def output_values(self) -> np.ndarray:
        return np.concatenate([np.asarray(f.output_values(), dtype=float) for f in self.functions])

    def get_state(self) -> np.ndarray:
        """The unit's state: each function's state, then the held commands (pressure limits, active pressures,
        factor). A state holds finite numbers only: a wheel without a pressure limit (+inf) is stored as
        :data:`NO_LIMIT_IN_STATE` (limits are >= 0 Pa)."""
        c = self.commands
        limits = np.where(np.isinf(c.pressure_limit), NO_LIMIT_IN_STATE, c.pressure_limit)
        return np.concatenate([*(f.state for f in self.functions), limits, c.active_pressure,
                               [c.drive_torque_factor]])

    def set_state(self, state) -> None:
        s = np.asarray(state, dtype=float)
        n, k = self.vehicle.n_wheels, 0
        expected = sum(f.state.size for f in self.functions) + 2 * n + 1
        if s.shape != (expected,):
            raise ModelError(f"chassis-control state must have {expected} values, got shape {s.shape}")
        for f in self.functions:
            f.state[:] = s[k:k + f.state.size]
            k += f.state.size
        limits = np.where(s[k:k + n] < 0.0, math.inf, s[k:k + n])
        self.commands = Commands(limits, s[k + n:k + 2 * n].copy(), float(s[k + 2 * n]), np.ones(n))
