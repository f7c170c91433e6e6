"""Tire.fmu: one Magic Formula tire (one instance per wheel), the vehicle's own tire code as an FMI 2.0 CS slave.

A thin variable table over the tire models (nothing of the tire is restated here), ISO 8855 axes (x forward,
y left, z up), SI units, the coefficients of a ``.tir`` file shipped in the FMU resources (``tire_file``):

* ``wheel_interface = planar`` (default): a wheel in the global x-z plane, inputs wheel.*, road.*;
  ``fmu_vehicle.tire.tire_planar.TireModel`` over the single-wheel stepper ``tire.stepper`` (the integrator
  of the wheel rig too), the MF 5.2 longitudinal contact; a tire file of another model is refused.
* ``wheel_interface = chrono``: Project Chrono's force-element tire interface (``FMU2cs_ForceElementTire``):
  the spatial wheel state and the terrain under query_point in, wheel_load out;
  ``fmu_vehicle.tire.tire3d.TireModel3d`` over ``tire.stepper3d``, the tire model's contact
  ``tire.models.contact`` that the vehicle uses internally (MF 5.2 combined slip, ``side = right`` mirrored).

The inputs, outputs and their dependencies are the tables of ``fmu_vehicle.tire.signals``. Per communication
step [t, t+h] the inputs are the wheel's state at t (FMI 2.0 CS, inputs held); the model extrapolates it with
the rates of the previous step (``input_extrapolation``), integrates the slip states with
max(1, round(h/dt)) RK4 sub-steps and reports the outputs at t + h/2 (``output_time = midpoint``: the
midpoint-rule mean load of the step, which the vehicle FMU taking the same step after the tire holds) or at
t + h (``end``); why: ``tire.tire_planar``'s docstring; how: docs/tire.md §13, docs/fmus.md.

Initialization: at exitInitializationMode the outputs are the loads of the initial inputs (the wheel state
set during initialization, e.g. the vehicle FMU's initial wheel outputs propagated by the master) with the
initial slip ``slip0`` (and q = 0).

Bad input: NaN/inf or out-of-range inputs are refused by the base class (fmi2Discard, logged error naming the
input, model untouched); with the chrono interface also a zero quaternion (``wheel_state.rot``; a non-unit one
is normalized) and, with road_source = inputs, a terrain normal that does not point up (``terrain_normal``).

FMU state = κ' (chrono: and q) and the previous step's inputs (plus the variable values, saved by the base
class); rollback continues bit-identically.
"""
from operator import itemgetter
from pathlib import Path

from fmu_vehicle.fmi.resource_files import ALLOW_PARAMETER, load_file
from fmu_vehicle.fmi.roads import SHIPPED_ROADS, road_parameter
from fmu_vehicle.fmi.slave_base import SlaveBase
from fmu_vehicle.fmi.start_values import DEFAULT_TIRE_FILE, tire_rolling_start
from fmu_vehicle.fmi.variables import Structure, Var
from fmu_vehicle.tire.models import params as tire_params, read_tire
from fmu_vehicle.tire.signals import (ANG_VEL, DISPLAY_UNITS, LIN_VEL, NORMAL, PLANAR_OUTPUTS, POS, QUERY, ROT,
                                      SPATIAL_OUTPUTS, chrono_inputs, output_dependencies, planar_inputs)
from fmu_vehicle.tire.stepper3d import quaternion_spin_axis
from fmu_vehicle.tire.tire3d import Terrain, TireModel3d, WheelState, terrain_slopes
from fmu_vehicle.tire.tire_planar import TireModel

_get_pos, _get_rot, _get_lin_vel, _get_ang_vel, _get_normal = (itemgetter(*names) for names in (
    POS, ROT, LIN_VEL, ANG_VEL, NORMAL))     # each: the tuple of these values of a value store


def _inputs(table) -> tuple:
    """Continuous inputs of a ``signals`` input table."""
    return tuple(Var(name, "input", "continuous", r.unit, r.description, r.start, min=r.min, max=r.max,
                     display_unit=r.display_unit) for name, r in table.items())


def _outputs(table) -> tuple:
    """Continuous outputs (start 0) of a ``signals`` output table."""
    return tuple(Var(name, "output", "continuous", unit, desc, 0.0, display_unit=DISPLAY_UNITS.get(unit))
                 for name, (unit, desc) in table.items())


#: The default wheel (start values of the wheel inputs of both interfaces): rolling freely on the road at the
#: default tire's loaded radius under its nominal load, from the property file in this FMU's resources (where
#: this script sits; ``start_values.tire_rolling_start``).
START = tire_rolling_start(str(Path(__file__).resolve().parent))


class Tire(SlaveBase):
    MODEL_NAME = "Tire"
    DESCRIPTION = ("Magic Formula tire with transient slip (relaxation lengths) and rolling resistance, one wheel: "
                   "planar interface (wheel in the x-z plane, longitudinal tire) or Project Chrono's "
                   "force-element tire interface (spatial wheel state and terrain in, MF 5.2 combined-slip load "
                   "at the wheel centre out); the vehicle FMU's internal tire code; ISO 8855 axes, SI units")
    RESOURCES = ("tires", "roads")
    INTERNAL_STEP = "dt"
    VARIABLES = (
        Var("tire_file", "parameter", "fixed", None, ".tir property file, relative to the FMU resources "
            "(tires/...; other files need allow_external_files)", DEFAULT_TIRE_FILE, type="String"),
        Var("road_source", "parameter", "fixed", None, "internal (the road parameter, evaluated under the wheel "
            "centre) | inputs (planar: road.height/road.slope/road.mu; chrono: terrain_height/terrain_normal/"
            "terrain_mu)", "internal", type="Enumeration", choices=("internal", "inputs")),
        Var("road", "parameter", "fixed", None, "internal road: a shipped road (resources/roads; road_file, when "
            "set, replaces it)", "bumpy", type="Enumeration", choices=SHIPPED_ROADS),
        Var("dt", "parameter", "fixed", "s", "internal RK4 step of the slip states; a communication step h runs "
            "max(1, round(h/dt)) equal sub-steps", 1e-3, min=1e-6, max=0.1, display_unit="ms"),
        Var("output_time", "parameter", "fixed", None, "when in the step [t, t+h] the outputs are evaluated: "
            "midpoint (t + h/2, the midpoint-rule mean load of the step; second order when the vehicle takes "
            "the same step after the tire) | end (t + h)", "midpoint", type="Enumeration", choices=("midpoint", "end")),
        Var("input_extrapolation", "parameter", "fixed", None, "wheel state inside a step: linear (velocities "
            "and spin extrapolated with their rates over the previous step, positions integrated) | none "
            "(velocities and spin held)", "linear", type="Enumeration", choices=("linear", "none")),
        Var("slip0", "parameter", "fixed", "1", "initial transient slip kappa'", 0.0, min=-1.0, max=1.0),
        *_inputs(planar_inputs(START.z, START.vx, START.omega)),
        *_outputs(PLANAR_OUTPUTS),
        Var(ALLOW_PARAMETER, "parameter", "fixed", None, "allow tire_file and road outside the FMU resources "
            "(absolute paths, ..)", False, type="Boolean"),
        # ---- the chrono interface (added after the planar variables: their value references are unchanged)
        Var("wheel_interface", "parameter", "fixed", None, "planar (inputs wheel.*, road.*: a wheel in the x-z "
            "plane, longitudinal tire) | chrono (Project Chrono's force-element tire interface: inputs "
            "wheel_state.*, terrain_*; outputs wheel_load.point/force/moment, query_point; MF 5.2 combined slip; "
            "a host that gives the terrain sets road_source = inputs)", "planar", type="Enumeration",
            choices=("planar", "chrono")),
        Var("side", "parameter", "fixed", None, "chrono interface: left | right; a right-hand tire is the mirror "
            "image of the property file's tire (its Fy and Mz change sign at mirrored slip angle and camber)",
            "left", type="Enumeration", choices=("left", "right")),
        *_inputs(chrono_inputs(START.z, START.vx, START.omega)),
        *_outputs(SPATIAL_OUTPUTS),
        # last: the value references of the variables above are those of the FMUs without it
        Var("road_file", "parameter", "fixed", None, "a user's road: a .json/.csv file relative to the FMU resources "
            "(or resources/roads), or an absolute path (allow_external_files); empty: the shipped road", "",
            type="String"),
    )
    STRUCTURE = Structure(
        initial=output_dependencies([v.name for v in VARIABLES if v.causality == "input"],
                                    [v.name for v in VARIABLES if v.causality == "output"]),
        stepping={query: {pos: "fixed"} for pos, query in QUERY.items()})

    def _setup(self):
        v = self.values
        res = Path(self.resources)
        params = tire_params(load_file(v["tire_file"], "tire_file", res, read_tire,
                                       allow_external=v[ALLOW_PARAMETER]))
        road = self._road(res).to_arrays() if v["road_source"] == "internal" else None
        if self._chrono():
            self.model = TireModel3d(params, v["side"], road, v["slip0"], 0.0)
            outputs = self.model.outputs(self._wheel_state(), (0.0,) * 6, self._terrain(), 0.0, self.model.kappa,
                                         self.model.q)
        else:
            self.model = TireModel(params, road, v["slip0"], v["tire_file"])
            outputs = self.model.outputs(self._kinematics(), (0.0, 0.0, 0.0), self._road_inputs(), 0.0,
                                         self.model.kappa)
        self.values.update(outputs)     # loads at t0 from the initial inputs

    def _kinematics(self) -> tuple:
        v = self.values
        return v["wheel.x"], v["wheel.z"], v["wheel.vx"], v["wheel.vz"], v["wheel.omega"]

    def _road_inputs(self) -> tuple:
        v = self.values
        return v["road.height"], v["road.slope"], v["road.mu"]

    def _wheel_state(self) -> WheelState:
        v = self.values
        return WheelState(_get_pos(v), _get_rot(v), _get_lin_vel(v), _get_ang_vel(v))

    def _terrain(self) -> Terrain:
        v = self.values
        return Terrain(v["terrain_height"], _get_normal(v), v["terrain_mu"])

    def _road(self, res: Path):
        return road_parameter(self.values["road"], self.values["road_file"], res, self.values[ALLOW_PARAMETER])

    def _chrono(self) -> bool:
        return self.values["wheel_interface"] == "chrono"

    def _chrono_input_problem(self) -> tuple[str, str] | None:
        """(input, why) if the chrono interface's inputs cannot make a step (a zero quaternion, a terrain
        normal that does not point up), else None."""
        v = self.values
        try:
            quaternion_spin_axis(*(v[n] for n in ROT))
        except ValueError as exc:
            return "wheel_state.rot", str(exc)
        if v["road_source"] == "inputs":
            try:
                terrain_slopes([v[n] for n in NORMAL])
            except ValueError as exc:
                return "terrain_normal", str(exc)
        return None

    def _step_refusal(self, current_time, step_size):
        """The base class's refusals, then the chrono inputs' own checks (refused like an input out of its
        range: the step is refused, the model untouched, and the next step with valid inputs runs)."""
        refusal = super()._step_refusal(current_time, step_size)
        if refusal is None and self._inputs_pending and self._chrono():     # unchanged inputs passed already
            problem = self._chrono_input_problem()
            if problem is not None:
                return f"input '{problem[0]}' at t={current_time!r}: {problem[1]}"
        return refusal

    def _set_value(self, var, value):
        """The base class's setter; with the chrono interface, query_point follows wheel_state.pos at once."""
        super()._set_value(var, value)
        if var.name in QUERY:
            self._follow_query((var.name,))

    def _input_hook(self, names):
        """After the base class's fast ``set_real``: query_point follows the wheel_state.pos inputs set."""
        followed = tuple(name for name in names if name in QUERY)
        return (lambda: self._follow_query(followed)) if followed else None

    def _follow_query(self, names):
        """With the chrono interface, query_point.* = the wheel_state.pos.* inputs ``names`` that are valid
        (finite and within their range)."""
        if self._chrono():
            v = self.values
            for name in names:
                new = v[name]
                if isinstance(new, float) and self.var_by_name[name].check(new) is None:
                    v[QUERY[name]] = new

    def _advance(self, t, h):
        v = self.values
        extrapolate = v["input_extrapolation"] == "linear"
        if self._chrono():
            outputs = self.model.step(t, h, v["dt"], self._wheel_state(), self._terrain(),
                                      output_time=v["output_time"], extrapolate=extrapolate)
        else:
            outputs = self.model.step(t, h, v["dt"], self._kinematics(), self._road_inputs(),
                                      output_time=v["output_time"], extrapolate=extrapolate)
        self.values.update(outputs)

    def _state(self):
        return self.model.get_state()        # the outputs are restored with the values by the base class

    def _restore(self, state):
        self.model.set_state(state)
