"""VehicleLV.fmu: the longitudinal-vertical half car (7 DOF, Dai/Pan et al. 2022) as an FMI 2.0 CS slave.

A thin adapter over the script API (``fmu_vehicle.vehicle``)::

    car = Vehicle.load(model, base=<FMU resources>, overrides={...from the parameters...})
    sim = car.simulator(road, v0=v0, x0=x0, dt=dt)
    per doStep(t, h):  sim.set_inputs(<every wheel's inputs>); sim.advance(h); outputs <- sim.row

Semantics (units SI, axes ISO 8855: x forward, z up, pitch + nose down):

* Parameters map one-to-one onto ``Vehicle.load`` overrides (``OVERRIDES``); their start values are
  read from ``resources/vehicles/halfcar7.json`` and its suspension and tire files, so the default FMU is
  exactly the shipped vehicle.  ``tire_<w>.unloaded_radius`` sets the free radius of that corner's
  Magic Formula tire (``P_R0`` of the tire parameter array; the .tir file is not rewritten).
* ``integrator`` names the internal method (``fmu_vehicle.integrators.STEPPING_INTEGRATORS``) and ``dt`` its
  step: a communication step h runs ``n = max(1, round(h/dt))`` equal sub-steps h/n
  (``VehicleSimulator.advance``).  Inputs are held constant over a communication step.
* The initial state is the static equilibrium on the internal road ``road`` with the internal tire
  at ``x0`` and speed ``v0`` (free-rolling wheels).  With ``road_source = inputs`` and/or
  ``tire_source = external`` the inputs take over after that equilibrium (``VehicleSimulator.set_sources``):
  an external tire with zero initial loads has no equilibrium, and the road inputs before
  initialization are usually not known.  Give ``road`` the road at the start position.
* Inputs whose source is not selected are ignored by the model (still checked to be finite).
* Inputs and outputs are the rows of the vehicle's signal table (``fmu_vehicle.vehicle.signals``): the
  same names, units, descriptions and bounds as the Python API.
* FMU state = ``VehicleSimulator.get_state()`` (time, integrator state, inputs, position warm start,
  coordinate partition, output row): rollback and deserialization continue bit-identically.

See docs/fmus.md.
"""
from pathlib import Path

from fmu_vehicle.errors import FmuVehicleError, ModelError
from fmu_vehicle.fmi.resource_files import ALLOW_PARAMETER
from fmu_vehicle.fmi.roads import road_parameter
from fmu_vehicle.fmi.slave_base import VehicleSlaveBase
from fmu_vehicle.fmi.variables import Var
from fmu_vehicle.fmi.vehicle_lv_parameters import MODELS, SIGNALS, parameter_table
from fmu_vehicle.integrators import STEPPING_INTEGRATORS
from fmu_vehicle.tire.tir import P_R0
from fmu_vehicle.vehicle import Vehicle

# Start values from the vehicle files in this FMU's resources folder (where this script sits), read once per
# process: pythonfmu re-executes this module-level code at every instantiation, with the globals of its first
# import, whose folder may be gone by then (docs/fmu_hosts.md).
WHEELS, OVERRIDES, TIRE_RADIUS = parameter_table(str(Path(__file__).resolve().parent))

_DISPLAY = {"m/s": "km/h", "rad": "deg", "rad/s": "rpm"}


def _signal_vars():
    """The FMU's inputs and outputs: one variable per row of the signal table (per wheel where it is)."""
    inputs = tuple(Var(f"wheel_{w}.{r.name}", "input", "continuous", r.unit, f"{w} wheel: {r.description}",
                       r.start, min=r.min, max=r.max) for w in WHEELS for r in SIGNALS.inputs)
    outputs = tuple(Var(name, "output", "continuous", r.unit, r.description, 0.0, display_unit=_DISPLAY.get(r.unit))
                    for r, name in SIGNALS.outputs(WHEELS))
    return inputs + outputs


def _warm_up(sim) -> None:
    """Run one internal step and roll it back, so that numba loads/compiles the stepping kernels during
    initialization instead of in the first doStep (the state round trip is bit-identical)."""
    state = sim.get_state()
    sim.advance(sim.dt)
    sim.set_state(state)


class VehicleLV(VehicleSlaveBase):
    MODEL_NAME = "VehicleLV"
    DESCRIPTION = ("Longitudinal-vertical half car (7 DOF semi-recursive multibody model of Dai, Pan et al. 2022: "
                   "chassis x/z/pitch, MacPherson front and five-link rear suspension, Magic Formula tires, road "
                   "profile); wheel torques, road and tire loads as inputs; ISO 8855 axes, SI units")
    RESOURCES = ("vehicles", "tires", "roads")
    INTERNAL_STEP = "dt"
    VARIABLES = (
        Var("model", "parameter", "fixed", None, f"vehicle file in resources/vehicles: one of {', '.join(MODELS)}",
            MODELS[0], type="String", choices=MODELS),
        *(Var(name, "parameter", "fixed", unit, desc, start, min=lo, max=hi)
          for name, (_, unit, desc, start, lo, hi) in OVERRIDES.items()),
        *(Var(name, "parameter", "fixed", "m", f"{w} tire free (unloaded) radius", start, min=0.1, max=2.0)
          for name, (w, start) in TIRE_RADIUS.items()),
        Var("v0", "parameter", "fixed", "m/s", "initial forward speed (wheels free rolling)", 20.0, min=0.0,
            max=100.0, display_unit="km/h"),
        Var("x0", "parameter", "fixed", "m", "initial displacement along the road (the front wheel centre starts "
            "at x = x0)", 0.0, min=-1e6, max=1e6),
        Var("integrator", "parameter", "fixed", None, "internal integrator: one of "
            f"{', '.join(STEPPING_INTEGRATORS)} (rk4: classical fixed-step Runge-Kutta)",
            "rk4", type="String", choices=STEPPING_INTEGRATORS),
        Var("dt", "parameter", "fixed", "s", "internal integration step; a communication step h runs "
            "max(1, round(h/dt)) equal sub-steps", 1e-3, min=1e-6, max=0.1, display_unit="ms"),
        Var("road_source", "parameter", "fixed", None, "internal (the road parameter) | inputs "
            "(wheel_<w>.road_height/road_slope/road_mu)", "internal", type="String", choices=("internal", "inputs")),
        Var("road", "parameter", "fixed", None, "internal road: shipped name (bumpy, flat, slope16_5, iso8608_c, ...), "
            "a .json/.csv file relative to the FMU resources (or resources/roads), or an absolute path; "
            "with road_source = inputs it still gives the road for the initial equilibrium", "bumpy",
            type="String"),
        Var("tire_source", "parameter", "fixed", None, "internal (Magic Formula tire on the road) | external "
            "(wheel_<w>.tire_force_x/tire_force_z/tire_moment_y)", "internal", type="String",
            choices=("internal", "external")),
        *_signal_vars(),
        Var(ALLOW_PARAMETER, "parameter", "fixed", None, "allow a road file outside the FMU resources "
            "(absolute paths, ..)", False, type="Boolean"),
    )

    def _setup(self):
        v = self.values
        res = Path(self.resources)
        overrides = {path: v[name] for name, (path, *_) in OVERRIDES.items()}
        try:
            car = Vehicle.load(v["model"], base=res, overrides=overrides)
        except ModelError as exc:
            changed = ", ".join(f"{n} = {v[n]!r}" for n, (_, _, _, start, *_r) in OVERRIDES.items() if v[n] != start)
            raise ModelError(f"parameter 'model' = {v['model']!r} with {changed or 'the default parameters'}: "
                             f"{exc}") from None
        if car.wheel_names != WHEELS:
            raise ModelError(f"parameter 'model' = {v['model']!r}: wheels {car.wheel_names}, this FMU has {WHEELS}")
        for name, (w, _) in TIRE_RADIUS.items():
            car.tire_p[car.wheel_index(w), P_R0] = v[name]
        road = self._road(res)
        self.car = car
        self._output_names = list(car.output_names)
        self._input_names = [f"wheel_{w}.{name}" for w in car.wheel_names for name in car.signals.input_names]
        try:
            self.sim = sim = car.simulator(road, v0=v["v0"], x0=v["x0"], dt=v["dt"], integrator=v["integrator"],
                                           road_source=v["road_source"], tire_source=v["tire_source"])
            self._apply_inputs()
            sim.refresh()
            _warm_up(sim)
        except FmuVehicleError as exc:
            raise ModelError(f"initial state of model {v['model']!r} on road {v['road']!r} at v0 = {v['v0']} m/s, "
                             f"x0 = {v['x0']} m: {exc}") from None
        self._write_outputs()

    def _road(self, res: Path):
        return road_parameter(self.values["road"], res, self.values[ALLOW_PARAMETER])

    def _apply_inputs(self):
        v = self.values
        self.sim.set_inputs([v[name] for name in self._input_names])

    def _advance(self, t, h):
        self._apply_inputs()
        try:
            self.sim.advance(h)
        except FmuVehicleError as exc:
            raise ModelError(str(exc)) from None
        self._write_outputs()

    def _write_outputs(self):
        self.values.update(zip(self._output_names, self.sim.row.tolist()))

    def _state(self):
        return self.sim.get_state()

    def _restore(self, state):
        self.sim.set_state(state)
