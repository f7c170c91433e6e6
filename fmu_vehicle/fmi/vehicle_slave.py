"""The vehicle FMUs' common slave: a variable table over ``Vehicle``/``VehicleSimulator`` (the script API).

    car = Vehicle.load(model, base=<FMU resources>, overrides={...from the parameters...})
    sim = car.simulator(road, v0=v0, x0=x0, dt=dt, integrator=..., road_source=..., tire_source=...)
    per doStep(t, h):  sim.set_inputs(<every wheel's inputs>); [sim.set_steering(angle) |
                       sim.set_rack_travel(s)]; sim.advance(h); outputs <- sim.row

``VehicleLV.fmu`` (the half car), ``Vehicle.fmu`` (the full car), ``VehicleCombination.fmu`` and ``TractorSemitrailer.fmu`` (a full car
towing other units) are subclasses, each a few lines in its slave script: the FMU's name (a key of
``vehicle_parameters.KINDS``: its vehicle files, signal table and chassis parameters) and its parameter table
read from the FMU's resources. A combination has the same variables per wheel for every unit's wheels, and the
towed units' outputs (signal scope ``unit``: articulation angle and rate, position, velocities, yaw, roll,
lateral acceleration, the coupling's force) after the vehicle's. The full vehicles' FMUs have every axle's
outputs (signal scope ``axle``: load, forces, load transfer ratio, heave, roll) last.

Semantics (units SI, axes ISO 8855: x forward, y left, z up):

* Parameters map one-to-one onto ``Vehicle.load`` overrides; their start values are read from the default
  vehicle file and its suspension and tire files, so the default FMU is exactly the shipped vehicle.
  ``tire_<w>.unloaded_radius`` sets the free radius of that corner's tire (``tire.models.set_unloaded_radius``
  on the tire parameter array; the .tir file is not rewritten).
* ``integrator`` names the internal method (``fmu_vehicle.integrators.STEPPING_INTEGRATORS``) and ``dt`` its
  step: a communication step h runs ``n = max(1, round(h/dt))`` equal sub-steps h/n
  (``VehicleSimulator.advance``). Inputs are held constant over a communication step, except the steering:
  the rack moves linearly from where it is to the input's value over the step (a first-order hold).
* The initial state is the static equilibrium on the internal road ``road`` with the internal tire at
  ``x0`` and speed ``v0`` (free-rolling wheels, straight ahead). With ``road_source = inputs`` and/or
  ``tire_source = external`` the inputs take over after that equilibrium (``VehicleSimulator.set_sources``):
  an external tire with zero initial loads has no equilibrium, and the road inputs before initialization
  are usually not known. Give ``road`` the road at the start position.
* Inputs whose source is not selected are ignored by the model (still checked to be finite).
* Inputs and outputs are the rows of the vehicle's signal table (``fmu_vehicle.vehicle.signals``): the same
  names, units, descriptions and bounds as the Python API.
* FMU state = ``VehicleSimulator.get_state()`` (time, integrator state, inputs, position warm start,
  coordinate partition, output row, steering ramp): rollback and deserialization continue bit-identically.

See docs/fmus.md.
"""
from __future__ import annotations

from operator import itemgetter
from pathlib import Path

from fmu_vehicle.errors import FmuVehicleError, ModelError
from fmu_vehicle.fmi.resource_files import ALLOW_PARAMETER
from fmu_vehicle.fmi.roads import SHIPPED_ROADS, road_parameter
from fmu_vehicle.fmi.slave_base import SlaveBase
from fmu_vehicle.fmi.variables import Structure, Var
from fmu_vehicle.fmi.vehicle_parameters import KINDS, ParameterTable, model_range
from fmu_vehicle.integrators import STEPPING_INTEGRATORS
from fmu_vehicle.tire.models import set_unloaded_radius
from fmu_vehicle.vehicle import Vehicle

_DISPLAY = {"m/s": "km/h", "rad": "deg", "rad/s": "rpm"}

STEERING_INPUTS = ("steering_wheel_angle", "rack_travel")
"""Values of the ``steering_input`` parameter: which vehicle input moves the rack."""


def _signal_vars(kind, wheels, steering=None, units=(), axles=()) -> tuple:
    """The FMU's inputs and outputs: one variable per row of the signal table (per wheel, per towed unit of
    ``units`` and per axle of ``axles``, where it is). The
    steering inputs take the range of the vehicle files (``steering`` = (angle limit [rad], rack travel limit
    [m]), ``vehicle_parameters.steering_limits``): what the rack of the offered file with the widest stops can
    travel; the chosen file's own stops are checked at each step."""
    sig = kind.signals
    bounds = {} if steering is None else {"steering_wheel_angle": steering[0], "rack_travel_command": steering[1]}
    inputs = tuple(Var(f"wheel_{w}.{r.name}", "input", "continuous", r.unit, f"{w} wheel: {r.description}",
                       r.start, min=r.min, max=r.max) for w in wheels for r in sig.inputs)
    inputs += tuple(Var(r.name, "input", "continuous", r.unit, r.description, r.start,
                        min=-bounds[r.name] if r.name in bounds else r.min,
                        max=bounds[r.name] if r.name in bounds else r.max,
                        display_unit=_DISPLAY.get(r.unit)) for r in sig.vehicle_inputs)
    outputs = tuple(Var(name, "output", "continuous", r.unit, r.description, 0.0, display_unit=_DISPLAY.get(r.unit))
                    for r, name in sig.outputs(wheels, units, axles))
    return inputs + outputs


def vehicle_variables(fmu: str, table: ParameterTable) -> tuple:
    """The variable table of vehicle FMU ``fmu`` (a key of ``KINDS``) with the parameters of ``table``."""
    kind = KINDS[fmu]
    steered = bool(kind.signals.vehicle_inputs)
    return (
        Var("model", "parameter", "fixed", None, f"vehicle file in resources/vehicles: one of {', '.join(kind.models)} "
            f"(the other parameters' start values are {kind.models[0]}'s; left at its start value a parameter keeps "
            "the chosen file's value)", kind.models[0], type="Enumeration", choices=kind.models),
        *(Var(name, "parameter", "fixed", unit, desc, start, min=lo, max=hi)
          for name, (_, unit, desc, start, lo, hi) in table.overrides.items()),
        *(Var(name, "parameter", "fixed", "m", f"{w} tire free (unloaded) radius (road-vehicle tire sizes about "
              f"the design radius {start:g} m: far from it the corner leaves its suspension travel and the vehicle "
              f"has no static equilibrium)", start, min=table.tire_radius_range[0], max=table.tire_radius_range[1])
          for name, (w, start) in table.tire_radius.items()),
        Var("v0", "parameter", "fixed", "m/s", "initial forward speed (wheels free rolling)", 20.0, min=0.0,
            max=100.0, display_unit="km/h"),
        Var("x0", "parameter", "fixed", "m", "initial displacement along the road (the front wheel centre starts "
            "at x = x0)", 0.0, min=-1e6, max=1e6),
        Var("integrator", "parameter", "fixed", None, "internal integrator: one of "
            f"{', '.join(STEPPING_INTEGRATORS)} (rk4: classical fixed-step Runge-Kutta)",
            "rk4", type="Enumeration", choices=STEPPING_INTEGRATORS),
        Var("dt", "parameter", "fixed", "s", "internal integration step; a communication step h runs "
            f"max(1, round(h/dt)) equal sub-steps (at most {kind.dt_max[0] * 1e3:g} ms: {kind.dt_max[1]})", 1e-3,
            min=1e-6, max=kind.dt_max[0], display_unit="ms"),
        Var("road_source", "parameter", "fixed", None, "internal (the road parameter) | inputs "
            "(wheel_<w>.road_* inputs)", "internal", type="Enumeration", choices=("internal", "inputs")),
        Var("road", "parameter", "fixed", None, "internal road: a shipped road (resources/roads; road_file, when "
            "set, replaces it); with road_source = inputs it still gives the road for the initial equilibrium",
            "bumpy", type="Enumeration", choices=SHIPPED_ROADS),
        Var("tire_source", "parameter", "fixed", None, "internal (Magic Formula tire on the road) | external "
            "(the wheel_<w> tire load inputs" + (": point, force, moment, global, as Project Chrono's wheel "
                                                 "interface)" if steered else ")"),
            "internal", type="Enumeration", choices=("internal", "external")),
        *((Var("steering_input", "parameter", "fixed", None, "which input moves the steering rack: "
               "steering_wheel_angle (through the steering ratio) | rack_travel (directly)",
               STEERING_INPUTS[0], type="Enumeration", choices=STEERING_INPUTS),) if steered else ()),
        *_signal_vars(kind, table.wheels, table.steering, table.units, table.axle_names),
        Var(ALLOW_PARAMETER, "parameter", "fixed", None, "allow a road file outside the FMU resources "
            "(absolute paths, ..)", False, type="Boolean"),
        # last: the value references of the variables above are those of the FMUs without it
        Var("road_file", "parameter", "fixed", None, "a user's road: a .json/.csv file relative to the FMU resources "
            "(or resources/roads), or an absolute path (allow_external_files); empty: the shipped road", "",
            type="String"),
    )


#: Outputs that follow the inputs in Initialization Mode (``vehicle_structure``): the whole-body accelerations and
#: the rack force come from the one evaluation of the equations of motion, which every force input of every wheel
#: enters (its own or, for the internal tire on road inputs, through the tire load); a wheel's tire forces and
#: moments follow its road and tire-load inputs, its camber (to the road normal) its road slopes; the applied
#: torques repeat the wheel's torque inputs. Everything else is the state, which the inputs move only in doStep.
BODY_OUTPUTS = ("chassis.ax", "chassis.ay", "chassis.az", "chassis.roll_acc", "chassis.pitch_acc", "chassis.yaw_acc",
                "rack_force")
#: Units of a towed unit's output (signal scope ``unit``) that make it an outcome of the equations of motion: like
#: ``BODY_OUTPUTS`` it comes from their evaluation, which every force input enters (``<unit>.ay``, an acceleration,
#: and ``<unit>.coupling_f*``, the coupling's force, from the unit's accelerations and tire loads); the other unit
#: outputs are states.
EVALUATED_UNITS = ("m/s2", "rad/s2", "N")
TIRE_OUTPUTS = ("tire_fx", "tire_fy", "tire_fz", "tire_mz")
#: An axle's outputs made of its two wheels' tire forces (signal scope ``axle``): they follow those wheels' road and
#: tire-load inputs as the wheels' tire outputs do; its heave and roll are states.
AXLE_TIRE_OUTPUTS = ("load", "fx", "fy", "load_transfer")
ROAD_INPUTS = ("road_height", "road_slope", "road_slope_y", "road_mu")
TORQUE_INPUTS = ("torque_drive", "torque_brake")


def vehicle_structure(fmu: str, table: ParameterTable) -> Structure:
    """The ModelStructure (``Structure``) of vehicle FMU ``fmu`` (a key of ``KINDS``) with the wheels of
    ``table``: the Python FMU's and the native FMU's.

    Initialization: the initial state is the static equilibrium on the internal road (no input enters it); the
    outputs read in Initialization Mode are evaluated at that state with the inputs set so far (``_setup``:
    ``_apply_inputs`` then ``VehicleSimulator.refresh``), so the outputs of ``BODY_OUTPUTS``, the tire outputs
    and the applied torques depend on inputs (see there). The steering inputs set the rack's target at the end of
    the next step only: no output follows them in Initialization Mode. Declared for every parameter setting
    (road_source, tire_source: an input the model ignores under one setting is declared all the same).
    A towed unit's acceleration and coupling force (``EVALUATED_UNITS``: ``<unit>.ay``, ``<unit>.coupling_f*``)
    follow every input as ``BODY_OUTPUTS`` do; its other outputs (articulation angle and rate, position,
    velocities, yaw, roll) are states. An axle's tire-force outputs (``AXLE_TIRE_OUTPUTS``) follow its two
    wheels' road and tire-load inputs; its heave and roll are states.
    Stepping: the inputs act in doStep only (``dependencies=""`` for every output)."""
    sig = KINDS[fmu].signals
    wheels = table.wheels
    names = [r.name for r in sig.inputs]
    road = [n for n in names if n in ROAD_INPUTS]
    loads = [n for n in names if n not in ROAD_INPUTS and n not in TORQUE_INPUTS]
    every = tuple(f"wheel_{w}.{n}" for w in wheels for n in names)
    initial = {}
    axles = {f"axle_{a.name}.": (a.left, a.right) for a in table.axles}
    for r, name in sig.outputs(wheels, table.units, table.axle_names):
        if name in BODY_OUTPUTS or (r.scope == "unit" and r.unit in EVALUATED_UNITS):
            initial[name] = every
        elif r.scope == "axle" and r.name in AXLE_TIRE_OUTPUTS:
            pair = axles[name[:-len(r.name)]]
            initial[name] = tuple(f"wheel_{w}.{n}" for w in pair for n in road + loads)
        elif r.scope == "wheel":
            prefix = name[:-len(r.name)]            # "wheel_<w>."
            if r.name in TIRE_OUTPUTS:
                initial[name] = tuple(prefix + n for n in road + loads)
            elif r.name == "camber":
                initial[name] = tuple(prefix + n for n in road if n in ("road_slope", "road_slope_y"))
            elif r.name in ("torque_drive_applied", "torque_brake_applied"):
                initial[name] = (prefix + r.name[:-len("_applied")],)
    return Structure(initial=initial)


def steering_input_limits(car, steering_input: str | None) -> dict:
    """{input: (min, max)} of the steering input ``steering_input`` drives (a value of ``STEERING_INPUTS``;
    None: none) that ``car``'s rack can take: its end stops, ``steering.rack_travel_limit_m`` [m] and that
    travel over the rack gain [rad]. Inside the declared ranges (the widest file's), narrower for a smaller car."""
    if steering_input is None:
        return {}
    steering = car.spec.steering
    a, s = steering.angle_limit_rad, steering.rack_travel_limit_m
    return {"steering_wheel_angle": {"steering_wheel_angle": (-a, a)},
            "rack_travel": {"rack_travel_command": (-s, s)}}[steering_input]


def load_vehicle(table: ParameterTable, values: dict, resources: Path):
    """(Vehicle, road) of a vehicle FMU's parameter ``values`` (name -> value, every parameter of
    ``vehicle_variables``) with its data files in ``resources``: what the Python FMU builds at initialization
    and the native export builds once. Errors name the parameters.

    The start values are those of the FMU's first model (``KINDS[fmu].models[0]``); a parameter left at its start
    value keeps the value of the chosen model's file, one set to any other value replaces it (for the first
    model and the models that share its corners both read the same)."""
    model = values["model"]
    changed = {name: values[name] for name, (_p, _u, _d, start, *_r) in table.overrides.items()
               if values[name] != start}
    changed.update({name: values[name] for name, (_w, start) in table.tire_radius.items() if values[name] != start})
    for name, value in changed.items():
        declared = table.tire_radius_range if name in table.tire_radius else table.overrides[name][4:6]
        lo, hi = model_range(model, name, declared)
        if not lo <= value <= hi:
            raise ModelError(f"parameter '{name}' = {value!r} is outside [{lo:g}, {hi:g}] for model {model!r} "
                             f"(the model's own range: fmi.vehicle_parameters.MODEL_RANGES)")
    overrides = {path: values[name] for name, (path, *_r) in table.overrides.items() if name in changed}
    try:
        car = Vehicle.load(values["model"], base=resources, overrides=overrides)
    except ModelError as exc:
        listed = ", ".join(f"{n} = {v!r}" for n, v in changed.items())
        raise ModelError(f"parameter 'model' = {values['model']!r} with {listed or 'the default parameters'}: "
                         f"{exc}") from None
    if car.wheel_names != table.wheels:
        raise ModelError(f"parameter 'model' = {values['model']!r}: wheels {car.wheel_names}, this FMU has "
                         f"{table.wheels}")
    if car.unit_names != table.units:
        raise ModelError(f"parameter 'model' = {values['model']!r}: towed units {car.unit_names}, this FMU has "
                         f"{table.units}")
    if car.spec.axles != table.axles:
        raise ModelError(f"parameter 'model' = {values['model']!r}: axles {car.spec.axles}, this FMU has "
                         f"{table.axles}")
    for name, (w, _start) in table.tire_radius.items():
        if name in changed:
            set_unloaded_radius(car.tire_p[car.wheel_index(w)], values[name])
    return car, road_parameter(values["road"], values["road_file"], resources, values[ALLOW_PARAMETER])


def _warm_up(sim) -> None:
    """Run one internal step and roll it back, so that numba loads/compiles the stepping kernels during
    initialization instead of in the first doStep (the state round trip is bit-identical)."""
    state = sim.get_state()
    sim.advance(sim.dt)
    sim.set_state(state)


class VehicleFmu(SlaveBase):
    """The vehicle slave; a subclass sets MODEL_NAME (a key of ``KINDS``), DESCRIPTION, TABLE (its
    ``parameter_table``), VARIABLES (``vehicle_variables``) and STRUCTURE (``vehicle_structure``)."""
    RESOURCES = ("vehicles", "tires", "roads")
    INTERNAL_STEP = "dt"
    TABLE: ParameterTable
    _loaded: tuple | None = None
    """(parameter values, ``load_vehicle``'s (Vehicle, road)) of the last build: in initialization mode a host
    may set inputs one by one, each a rebuild (``SlaveBase._initial_outputs``); the vehicle and road files are
    read again only when a parameter changed."""

    def _setup(self):
        v = self.values
        parameters = tuple(v[var.name] for var in self.VARIABLES if var.causality == "parameter")
        if self._loaded is None or self._loaded[0] != parameters:    # inputs alone do not reload the files
            self._loaded = (parameters, load_vehicle(self.TABLE, v, Path(self.resources)))
        car, road = self._loaded[1]
        self.car = car
        if tuple(car.output_names) != self._real_outputs:       # the row is published as it is
            raise ModelError(f"{self.MODEL_NAME}: the vehicle's outputs {car.output_names[:3]}... are not the "
                             f"FMU's Real outputs {self._real_outputs[:3]}... in the same order")
        self._input_names = [f"wheel_{w}.{name}" for w in car.wheel_names for name in car.signals.input_names]
        names = self._input_names
        self._read_wheel_inputs = itemgetter(*names) if len(names) > 1 else lambda v: [v[names[0]]]
        self._steering = v.get("steering_input")
        self.narrow_inputs(steering_input_limits(car, self._steering), f"the rack end stops of vehicle '{car.name}'")
        try:
            self.sim = sim = car.simulator(road, v0=v["v0"], x0=v["x0"], dt=v["dt"], integrator=v["integrator"],
                                           road_source=v["road_source"], tire_source=v["tire_source"])
            self._apply_inputs()
            sim.refresh()
            _warm_up(sim)
        except FmuVehicleError as exc:
            raise ModelError(f"initial state of model {v['model']!r} on road {v['road_file'] or v['road']!r} at v0 = {v['v0']} m/s, "
                             f"x0 = {v['x0']} m: {exc}") from None
        self._write_outputs()

    def _apply_inputs(self):
        v, sim = self.values, self.sim
        sim.set_inputs(self._read_wheel_inputs(v))
        if self._steering == "steering_wheel_angle":
            sim.set_steering(v["steering_wheel_angle"])
        elif self._steering == "rack_travel":
            sim.set_rack_travel(v["rack_travel_command"])

    def _advance(self, t, h):
        sim = self.sim
        try:
            if self._inputs_pending:        # else the simulator holds them since the last step
                self._apply_inputs()
            sim.advance(h)
        except FmuVehicleError as exc:
            raise ModelError(str(exc)) from None
        self._row = sim.row.tolist()        # _publish_outputs, without the call (once per step)

    def _write_outputs(self):
        self._publish_outputs(self.sim.row.tolist())

    def _state(self):
        return self.sim.get_state()

    def _restore(self, state):
        self.sim.set_state(state)
