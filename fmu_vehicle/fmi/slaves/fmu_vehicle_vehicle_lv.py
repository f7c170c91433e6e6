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
from fmu_vehicle.integrators import STEPPING_INTEGRATORS
from fmu_vehicle.tire.tir import P_R0, read_tir
from fmu_vehicle.paths import resource_path
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.loader import vehicle_file_data, vehicle_value
from fmu_vehicle.vehicle.signals import LONGITUDINAL_VERTICAL

#: Vehicle files this FMU offers (all have the corners ``WHEELS``); the first gives the start values.
MODELS = ("halfcar7", "halfcar7_forkarm")

#: Where the vehicle files are read at import: inside an FMU this script sits in the FMU's resources folder
#: next to the staged data; at build time (imported from the package) the package resources.
_DATA = Path(__file__).parent if (Path(__file__).parent / "vehicles").is_dir() else None

WHEELS = tuple(c["name"] for c in vehicle_file_data(MODELS[0], base=_DATA)["corners"])

#: The signal table of the vehicle kind this FMU exports (its inputs and outputs).
SIGNALS = LONGITUDINAL_VERTICAL

_SUSP = "corners.{w}.suspension_overrides."


def _pick(bound, i: int):
    """A bound shared by both corners, or the i-th of a (front, rear) pair."""
    return bound[i] if isinstance(bound, tuple) else bound


#: FMI parameter -> (Vehicle.load override path, unit, description, min, max); the start value is the
#: path's value in the vehicle file ``MODELS[0]``. The ranges are those in which the vehicle has a static
#: equilibrium and runs over the bumpy road at 30 m/s at dt = 1 ms (each parameter alone, the others at
#: their start values; tests/test_vehicle_lv_ranges.py); a pair (front, rear) where the corners differ.
_OVERRIDE_TABLE = {
    "chassis.mass": ("chassis.mass_kg", "kg", "chassis mass of the half car (one side of the symmetric vehicle)",
                     50.0, 3000.0),
    "chassis.inertia_yy": ("chassis.inertia_kg_m2.yy", "kg.m2", "chassis pitch inertia about its centre of mass "
                           "(the other principal moments bound it: triangle inequality)", 4100.0, 5100.0),
    **{name.format(w=w): (path.format(w=w), unit, desc.format(w=w), _pick(lo, i), _pick(hi, i))
       for i, w in enumerate(WHEELS)
       for name, path, unit, desc, lo, hi in (
           ("suspension_{w}.spring_stiffness", _SUSP + "spring.stiffness_N_per_m", "N/m",
            "{w} suspension spring rate", (1000.0, 10000.0), 1e7),
           ("suspension_{w}.spring_preload", _SUSP + "spring.preload_N", "N",
            "{w} suspension spring preload at the design length (compression +)", (-2e4, 0.0), (2e4, 1e5)),
           ("suspension_{w}.damping", _SUSP + "damper.damping_N_s_per_m", "N.s/m",
            "{w} suspension damper rate", 0.0, 1e5),
           ("wheel_{w}.mass", _SUSP + "masses_kg.wheel", "kg", "{w} wheel (rim + tire) mass", 1.0, 200.0),
           ("wheel_{w}.inertia_yy", _SUSP + "wheel_inertia_kg_m2.yy", "kg.m2", "{w} wheel spin inertia "
            "(at most the sum of the other two principal moments)", 0.01, 2.5),
       )},
}

#: FMI parameter -> (Vehicle.load override path, unit, description, start, min, max).
OVERRIDES = {name: (path, unit, desc, float(vehicle_value(MODELS[0], path, base=_DATA)), lo, hi)
             for name, (path, unit, desc, lo, hi) in _OVERRIDE_TABLE.items()}

#: FMI parameter -> (wheel whose tire free radius it sets, start value [m] from that corner's .tir file).
TIRE_RADIUS = {f"tire_{c['name']}.unloaded_radius":
               (c["name"], float(read_tir(resource_path("tires", c["tire"], base=_DATA)).to_array()[P_R0]))
               for c in vehicle_file_data(MODELS[0], base=_DATA)["corners"]}

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
