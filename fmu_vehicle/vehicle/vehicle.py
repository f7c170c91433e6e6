"""The vehicle API shared by scripts, the command line and the FMUs.

    car = Vehicle.load("halfcar7")
    road = load_road("bumpy")
    res = car.simulate(road, duration=5.0, v0=20.0, drive_torque={"front": 300.0})
    res.final("chassis.x"), res.to_csv("out.csv"), res.plot("out.png")

For stepping (FMUs, co-simulation): ``sim = car.simulator(road, v0=20.0)``; ``sim.set_input(...)``;
``sim.advance(h)``; ``sim.outputs()``. The inputs and outputs are those of the vehicle's signal table
(``vehicle.signals``); the integrator is chosen by name (``fmu_vehicle.integrators.INTEGRATORS``).
See docs/vehicle.md.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError, SimulationError
from ..integrators import integrate, make_stepper
from ..integrators.base import Interrupted
from ..plotting import Panel
from ..results import Result as SimResult
from ..numerics.packing import PackedCall
from ..multibody.mechanism import POSITION_MAXIT, POSITION_TOL, Mechanism, failure, repartition_failure
from ..multibody.state import PREDICTOR_FIELDS
from ..road import load_road
from ..road.arrays import slope_breaks
from ..tire.models import params as tire_params
from .dynamics import IN_BRAKE, IN_DRIVE, QUANTITIES, n_quantities, vehicle_record, vehicle_rhs
from .loader import VehicleSpec, load_vehicle_spec
from .model import W_LEVER, VehicleData, VehicleModel, check_data, make_data
from .equilibrium import FAIL_PLACEMENT, INFO_ITERATIONS, INFO_RESIDUAL, new_work, static_equilibrium
from .start import StartTable, initial_y
from .stepping import prepare_step_packed, rebase, refresh_levers, repartition_state, substeps
from .signals import FULL_VEHICLE, LONGITUDINAL_VERTICAL, TABLES, SignalTable

SIGNAL_KINDS = {"planar": LONGITUDINAL_VERTICAL.kind, "free": FULL_VEHICLE.kind}
"""Signal table kind of a vehicle by its chassis template: the planar half car keeps the
longitudinal-vertical names, a 6-DOF chassis gets the full table."""

CHASSIS_COORDINATES = ("chassis.x", "chassis.y", "chassis.z", "chassis.roll", "chassis.pitch", "chassis.yaw")
"""The chassis joint coordinates the outputs read (VehicleModel.chassis_coords order; absent ones are -1)."""


def output_table(wheel_names, signals: SignalTable | None = None, unit_names=(),
                 axle_names=()) -> list[tuple[str, str, str]]:
    """(name, unit, description) of every recorded output, in row order (default: the longitudinal-vertical table;
    ``unit_names``: a combination's towed units, docs/articulated.md §6; ``axle_names``: the vehicle's axles)."""
    signals = signals if signals is not None else TABLES[LONGITUDINAL_VERTICAL.kind]
    return [(name, r.unit, r.description) for r, name in signals.outputs(wheel_names, unit_names, axle_names)]


#: Default plot of a vehicle run: the chassis states in 3 x 2 panels.
CHASSIS_PANELS = (Panel("x [m]", (("x", "chassis.x"),)), Panel("vx [m/s]", (("vx", "chassis.vx"),)),
                  Panel("z [m]", (("z", "chassis.z"),)), Panel("vz [m/s]", (("vz", "chassis.vz"),)),
                  Panel("pitch [rad]", (("pitch", "chassis.pitch"),)),
                  Panel("pitch rate [rad/s]", (("pitch rate", "chassis.pitch_rate"),)))


class Vehicle:
    """A vehicle model (static) built from a vehicle file; simulations get their own state.

    ``signals`` is the vehicle kind's signal table (``signals.TABLES``, read when the vehicle is built); arrays
    such as ``tire_p`` may be changed before a system is built (``system``), which takes a copy of them. No
    run writes them: each system owns its workspace, the engine's included (``Mechanism.new_data``)."""

    def __init__(self, spec: VehicleSpec, signals: SignalTable | None = None):
        self.spec = spec
        self.signals = signals if signals is not None else TABLES[SIGNAL_KINDS[spec.chassis_template]]
        self.mech = Mechanism(spec.mechanism)
        m = self.mech
        self.wheel_names = tuple(w.name for w in spec.wheels)
        self.unit_names = tuple(u.name for u in spec.units)
        self.axle_names = tuple(a.name for a in spec.axles)     # (loader.vehicle_axles)
        self.outputs = output_table(self.wheel_names, self.signals, self.unit_names, self.axle_names)
        self.output_names = tuple(n for n, _, _ in self.outputs)
        self.chassis = m.body(spec.chassis_body)
        self.chassis_coords = np.array([m.info.coordinate_index.get(c, -1) for c in CHASSIS_COORDINATES],
                                       dtype=np.int64)
        self.w_body = np.array([m.body(w.body) for w in spec.wheels], dtype=np.int64)
        self.w_chassis = np.array([m.body(w.chassis_body) for w in spec.wheels], dtype=np.int64)
        # towed units (docs/articulated.md §6): the static equilibrium holds each coupling's yaw
        self.held = np.array([m.coordinate(u.yaw_coordinate) for u in spec.units], dtype=np.int64)
        self.u_body = np.array([m.body(u.name) for u in spec.units], dtype=np.int64)
        # axles: the left and right wheel of each
        self.a_wheels = np.array([[self.wheel_names.index(a.left), self.wheel_names.index(a.right)]
                                  for a in spec.axles], dtype=np.int64).reshape(-1, 2)
        # anti-roll bars: the left and right wheel of each, its rate at the wheel [N/m]
        self.bar_wheels = np.array([[self.wheel_names.index(b.left), self.wheel_names.index(b.right)]
                                    for b in spec.anti_roll_bars], dtype=np.int64).reshape(-1, 2)
        self.bar_rate = np.array([b.wheel_rate_N_per_m for b in spec.anti_roll_bars], dtype=float)
        self.w_hub = np.array([m.body(w.hub_body) for w in spec.wheels], dtype=np.int64)
        self.w_spin = np.array([m.coordinate(w.spin_coordinate) for w in spec.wheels], dtype=np.int64)
        self.w_spring = np.array([m.info.spring_names.index(w.spring) for w in spec.wheels], dtype=np.int64)
        self.w_center0 = np.array([w.center_m for w in spec.wheels], dtype=float)
        self.w_axis0 = np.array([w.spin_axis for w in spec.wheels], dtype=float)
        # spin inertia a^T I a of each wheel body about its axle [kg m^2]
        self.w_inertia = np.array([a @ m.model.inertia0[b] @ a for a, b in zip(self.w_axis0, self.w_body)])
        self.w_side = np.array([1.0 if w.side == "left" else -1.0 for w in spec.wheels])
        # the chassis CoM at the design configuration [m] (the point chassis.x, .y, .z designate)
        self.chassis_com0 = np.array(next(b.com_m for b in spec.mechanism.bodies if b.name == spec.chassis_body),
                                     dtype=float)
        # the kernel's input matrix has the columns of the largest table; this table's inputs map onto them
        self.input_columns = self.signals.input_columns(FULL_VEHICLE)
        self.tire_p = np.array([tire_params(t) for t in spec.tires], dtype=float)
        self.n_wheels = len(spec.wheels)
        st = spec.steering
        self.steer_drv = -1 if st is None else int(list(m.model.drv).index(m.coordinate(st.rack_coordinate)))
        self.rack_gain = 0.0 if st is None else st.rack_gain_m_per_rad

    @classmethod
    def load(cls, name_or_path, *, base=None, overrides=None) -> "Vehicle":
        return cls(load_vehicle_spec(name_or_path, base=base, overrides=overrides))

    @property
    def name(self) -> str:
        return self.spec.name

    def wheel_index(self, name: str) -> int:
        try:
            return self.wheel_names.index(name)
        except ValueError:
            raise ModelError(f"vehicle '{self.name}': unknown wheel '{name}'; valid: {', '.join(self.wheel_names)}") from None

    @property
    def total_mass_kg(self) -> float:
        """Sum of the masses of every body and removed rod [kg] (``VehicleSpec.total_mass_kg``)."""
        return self.spec.total_mass_kg

    @property
    def n_states(self) -> int:
        """Length of the state vector y = [z^i, zd^i, kappa' per wheel, brake phi per wheel, q = tan(alpha')
        per wheel]."""
        return 2 * self.mech.n_dof + 3 * self.n_wheels

    # ------------------------------------------------------------------------------------------
    def model(self, road=None) -> VehicleModel:
        """The static description of a run on ``road`` (a road name, dict, file or Road; None: flat)."""
        r = load_road(road if road is not None else {"type": "flat"})
        out_map = self.signals.output_map(self.n_wheels, QUANTITIES, len(self.unit_names), len(self.axle_names))
        return VehicleModel(self.mech.model, POSITION_TOL, POSITION_MAXIT, self.w_body, self.w_hub, self.w_spin,
                            self.w_spring, self.w_center0, self.w_axis0, self.w_inertia, self.w_side,
                            self.tire_p.copy(), r.to_arrays(), int(self.chassis), self.chassis_coords,
                            self.chassis_com0, self.steer_drv, out_map, *self._load_point_rows(), self.w_chassis,
                            self.held, self.u_body, self.a_wheels, self.bar_wheels, self.bar_rate.copy())

    def _load_point_rows(self) -> tuple[int, np.ndarray]:
        """(input column of an external load's point.x, (nw, 3) output rows of the wheel centres): what
        ``stepping.update_levers`` reads; -1 where this vehicle's signal table has no load point or no
        wheel centre output."""
        rows = np.full((self.n_wheels, 3), -1, dtype=np.int64)
        sig = self.signals
        if "point.x" not in sig.input_names or not any(r.name == "pos.x" for r in sig.wheel_outputs):
            return -1, rows
        names = self.output_names
        for w, wheel in enumerate(self.wheel_names):
            rows[w] = [names.index(f"wheel_{wheel}.pos.{a}") for a in "xyz"]
        return FULL_VEHICLE.input_column("point.x"), rows

    def system(self, road=None) -> "VehicleSystem":
        """A vehicle ODE system (model + fresh workspace, the engine's own included) on ``road``: internal road
        and tire, inputs at their start values (see :meth:`VehicleSimulator.set_sources`)."""
        model = self.model(road)
        data = make_data(model, self.mech.new_data(), len(FULL_VEHICLE.inputs), [r.start for r in FULL_VEHICLE.inputs],
                         n_quantities(self.n_wheels, len(self.unit_names), len(self.axle_names)), self.rack_gain)
        check_data(model, data, len(FULL_VEHICLE.inputs))
        return VehicleSystem(self, model, data)

    # ------------------------------------------------------------------------------------------
    def initial_state(self, system: "VehicleSystem", v0: float = 0.0, x0: float = 0.0) -> np.ndarray:
        """Static equilibrium on the road (zero torques), then moving at ``v0`` [m/s] along the road
        with free-rolling wheels (spin = v0 / effective rolling radius, zero transient slip, brakes relaxed):
        :func:`start.start_state` of :meth:`start_table`."""
        return initial_y(self.start_table(system, x0), v0)

    def start_table(self, system: "VehicleSystem", x0: float = 0.0) -> StartTable:
        """The static equilibrium on the road at ``x0`` [m] (zero torques) and the gains that give the state
        at any start speed (``vehicle.start``): the chassis along the road tangent, the wheels free rolling
        at their effective rolling radius, the tire states at rest. The compiled
        :func:`equilibrium.static_equilibrium` (the native FMU calls it too). Leaves ``system``'s workspace at
        the equilibrium."""
        model, data = system.model, system.data
        self.mech.reset(data.mech)     # the same answer after any earlier run, even one that diverged
        n = self.n_states
        ws = new_work(self.mech.n_dof, self.mech.model.n, self.n_wheels, n)
        y, gain, radius = np.zeros(n), np.zeros(n), np.zeros(n)
        status = static_equilibrium(model, data, float(x0), self.total_mass_kg, ws, y, gain, radius)
        if status == FAIL_PLACEMENT:
            raise SimulationError(f"vehicle '{self.name}': cannot place the chassis on this road at x0 = {x0} m "
                                  "(the position problem diverged)")
        if status < 0:
            raise SimulationError(f"vehicle '{self.name}': no static equilibrium found on this road at x0 = {x0} m "
                                  f"(residual {ws.info[INFO_RESIDUAL]:.3g} N after "
                                  f"{int(ws.info[INFO_ITERATIONS])} Newton iterations)")
        return StartTable(y, gain, radius, 2 * self.mech.n_dof)

    def simulate(self, road, duration: float, *, dt: float = 1e-3, v0: float = 0.0, x0: float = 0.0,
                 drive_torque: dict | None = None, brake_torque: dict | None = None,
                 integrator: str = "rk4", record_every: int = 1, progress: bool = False,
                 y0: np.ndarray | None = None, steer=None) -> SimResult:
        """Run a manoeuvre with constant wheel torques [N m] from the equilibrium at ``v0`` [m/s] at ``x0`` [m].

        ``integrator`` is a name of ``fmu_vehicle.integrators.INTEGRATORS`` (``dt`` is its step, or the output
        spacing of an adaptive method). Ctrl-C (SIGINT) during a run stops it at the end of the current chunk
        (500 steps): the result then holds the rows so far and ``meta["interrupted"]`` is True. Any distance
        works: the engine keeps its coordinates near its origin (``VehicleSystem.rebase``); ``meta["y_end"]``
        is in engine coordinates, whose origin is ``meta["x_origin"]``.

        ``steer``: a steering-wheel angle against time with ``angle(t)`` [rad], ``rate(t)`` [rad/s] and
        ``breakpoints`` [s], linear between breakpoints (``fmu_vehicle.driver.SteeringProfile``); the run is
        integrated segment by segment between the exact breakpoint times, the rack following the profile's
        line in each, s(t) = g (angle(t_i) + rate_i (t - t_i)), so the applied angle is the profile's at every
        instant. A breakpoint off the dt grid gets a shorter step to it and one from it to the next grid time
        (``_steering_segments``); the result rows stay on the grid t = k dt, k a multiple of
        ``record_every``, and the run's end."""
        if not (isinstance(dt, (int, float)) and dt > 0 and math.isfinite(dt)):
            raise ModelError(f"dt must be a positive number of seconds, got {dt!r}")
        if not (isinstance(duration, (int, float)) and duration > 0 and math.isfinite(duration)):
            raise ModelError(f"duration must be a positive number of seconds, got {duration!r}")
        system = self.system(road)
        y = self.initial_state(system, v0, x0) if y0 is None else np.array(y0, dtype=float)   # y0: origin 0
        for table, col in ((drive_torque, IN_DRIVE), (brake_torque, IN_BRAKE)):
            for w, T in (table or {}).items():
                if not math.isfinite(T):
                    raise ModelError(f"torque for wheel '{w}' must be finite, got {T}")
                system.data.inputs[self.wheel_index(w), col] = float(T)
        pieces = [(0.0, duration, dt, record_every, True, None)] if steer is None else \
            self._steering_segments(steer, duration, dt, record_every)
        interrupted = False
        ts, outs = [], []
        for a, b, h, every, keep_end, ramp in pieces:
            if ramp is not None:                 # the profile's line in this segment, as rack travel [m]
                g = self.rack_gain
                system.data.steer[:] = (ramp[0], g * ramp[1], g * ramp[2], g)
            try:
                t, out, y = integrate(system, y, b, h, integrator=integrator, t0=a, record_every=every,
                                      progress=progress and h == dt)
            except Interrupted as stop:          # Ctrl-C between two chunks: the rows so far
                t, out, y, interrupted = stop.times, stop.outputs, stop.y, True
            k = 1 if ts else 0                   # a piece's first row is the previous one's last
            j = t.size if keep_end or interrupted else t.size - 1    # a row off the result grid is not kept
            ts.append(t[k:j])
            outs.append(out[k:j])
            if interrupted:
                break
        t, out, y_end = np.concatenate(ts), np.concatenate(outs), y
        return SimResult.from_columns(t, self.output_names, [u for _, u, _ in self.outputs], out,
                                      {"vehicle": self.name, "integrator": integrator, "dt": dt, "v0": v0,
                                       "y_end": y_end, "x_origin": float(system.data.origin[0]),
                                       "interrupted": interrupted}, panels=CHASSIS_PANELS)

    def _steering_segments(self, steer, duration: float, dt: float, record_every: int = 1) -> list[tuple]:
        """The pieces a steered run is integrated in: [(t0, t1, h, every, keep_end, ramp)], times [s].

        The run [0, duration] (duration a multiple of dt) is cut at the profile's breakpoints inside it, at
        their exact times (one within 1e-9 dt of a grid time k dt is that grid time). Each segment between
        two cuts is integrated on the grid: one step from a cut off the grid to the next grid time, steps of
        dt between grid times, one step from the last grid time to a cut off the grid. ``every`` (the
        integrator's record_every) puts the recorded rows on the steps k that are multiples of
        ``record_every``; ``keep_end`` says whether the row at t1 is a result row (such a grid time, or the
        end of the run); ``ramp`` = (t_i, angle_i [rad], rate_i [rad/s]) is the profile's line in the
        segment, angle(t) = angle_i + rate_i (t - t_i)."""
        from ..integrators.base import fixed_steps
        if self.steer_drv < 0:
            raise ModelError(f"vehicle '{self.name}' has no steering (its file has no 'steering' entry)")
        lo, hi = self._steering_limits()
        for t in [0.0, *steer.breakpoints]:
            a = float(steer.angle(t))
            if not lo <= a <= hi:
                raise ModelError(f"steering-wheel angle {a:g} rad at t = {t:g} s is outside [{lo:g}, {hi:g}] rad")
        n, r = fixed_steps(0.0, duration, dt), int(record_every)

        def on_grid(t):
            k = round(t / dt)
            return k if abs(t - k * dt) <= 1e-9 * dt else None

        cuts = [0.0]
        for c in sorted(float(b) for b in steer.breakpoints if 0.0 < b < duration):
            k = on_grid(c)
            c = c if k is None else k * dt
            if 0.0 < c < n * dt and c > cuts[-1]:
                cuts.append(c)
        cuts.append(n * dt)
        pieces = []
        for a, b in zip(cuts[:-1], cuts[1:]):
            ramp = (a, float(steer.angle(a)), float(steer.rate(0.5 * (a + b))))
            ka, kb = on_grid(a), on_grid(b)
            first = ka if ka is not None else math.floor(a / dt) + 1      # grid times first .. last inside [a, b]
            last = kb if kb is not None else math.ceil(b / dt) - 1
            if first > last:                     # a and b off the grid in one step: a single step
                pieces.append((a, b, b - a, 1, False, ramp))
                continue
            if ka is None:
                pieces.append((a, first * dt, first * dt - a, 1, first % r == 0, ramp))
            if first % r:                        # up to the next multiple of record_every: no row inside
                k = min(last, first + r - first % r)
                if k > first:
                    pieces.append((first * dt, k * dt, dt, k - first, k % r == 0 or k == n, ramp))
                first = k
            if last > first:
                pieces.append((first * dt, last * dt, dt, r, last % r == 0 or last == n, ramp))
            if kb is None:
                pieces.append((last * dt, b, b - last * dt, 1, False, ramp))
        return pieces

    def _steering_limits(self) -> tuple[float, float]:
        """The steering-wheel angles [rad] that put the rack on its end stops (the vehicle file's
        ``steering.rack_travel_limit_m`` over ``|rack_gain_m_per_rad|``)."""
        a = self.spec.steering.angle_limit_rad
        return -a, a

    def simulator(self, road=None, *, v0=0.0, x0=0.0, dt=1e-3, road_source="internal", tire_source="internal",
                  integrator="rk4"):
        return VehicleSimulator(self, road, v0=v0, x0=x0, dt=dt, road_source=road_source, tire_source=tire_source,
                                integrator=integrator)


class VehicleSystem:
    """The :class:`~fmu_vehicle.integrators.base.OdeSystem` of a vehicle run: ``model`` (static) and ``data``
    (this run's workspace) for the passes ``vehicle_rhs``/``vehicle_record``."""
    rhs = staticmethod(vehicle_rhs)
    record = staticmethod(vehicle_record)

    def __init__(self, vehicle: Vehicle, model: VehicleModel, data: VehicleData):
        self.vehicle = vehicle
        self.model = model
        self.data = data
        self.output_names = vehicle.output_names
        self.switch_params = slope_breaks(model.road)    # for the switching pass (vehicle.events)

    @property
    def mech(self):
        """The vehicle's mechanism over this system's engine workspace (``Mechanism.with_data``): coordinate
        names, partition and the state of the last evaluation of this run."""
        return self.vehicle.mech.with_data(self.data.mech)

    def rebase(self, y) -> bool:
        """Keep the engine near its origin (``stepping.rebase_origin``): True if the origin moved (``y`` changed
        in place). Called between the chunks of a recorded run; a stepping run rebases in ``prepare_step``."""
        return bool(rebase(self.model, self.data, y))

    def reparameterize(self, y):
        """y in new independent coordinates chosen at y (``stepping.repartition_state``, as the native FMU)."""
        y = np.array(y, dtype=float)
        st = repartition_state(self.model, self.data, y)
        if st < 0:
            raise repartition_failure(self.vehicle.name, st)
        return y

    def failure(self, code, t):
        return failure(self.vehicle.name, code, t)


class VehicleSimulator:
    """Step-by-step interface (the FMU adapter's Python API): fixed internal steps of about ``dt`` with the
    integrator named ``integrator`` (one of ``fmu_vehicle.integrators.STEPPING_INTEGRATORS``).

    The initial state is the static equilibrium on ``road`` with the internal tire (an external tire
    or road inputs are not known before the run starts); the selected ``road_source``/``tire_source``
    take over from then on. ``row`` holds the outputs at the current time (``vehicle.output_names`` order,
    :meth:`outputs` as a dict). Change the state and inputs through the methods only (the stepper may
    reuse the last evaluation while they are unchanged).
    """

    def __init__(self, vehicle: Vehicle, road, *, v0=0.0, x0=0.0, dt=1e-3, road_source="internal",
                 tire_source="internal", integrator="rk4"):
        self.vehicle = vehicle
        self.dt = float(dt)
        self.integrator = integrator
        self.system = vehicle.system(road)
        self.start_table = vehicle.start_table(self.system, x0)   # the native FMU ships it (v0 settable there)
        self.stepper = make_stepper(self.system, initial_y(self.start_table, v0), integrator)
        self.set_sources(road_source, tire_source)
        self.t = 0.0
        self.row = np.zeros(len(vehicle.output_names))
        self._input_names = vehicle.signals.input_names
        # set_inputs writes the flat view of the input matrix at these positions (wheel by wheel)
        inputs = self.system.data.inputs
        if not inputs.flags.c_contiguous:
            raise ModelError("the kernel's input matrix must be C-contiguous (set_inputs writes a flat view of it)")
        self._inputs_flat = inputs.reshape(-1)
        self._input_positions = (np.arange(vehicle.n_wheels)[:, None] * inputs.shape[1]
                                 + vehicle.input_columns[None, :]).reshape(-1)
        self._substeps = (None, None, 1, 0.0)     # (h, dt, n, h/n) of the last advance
        self._rack_target = 0.0          # rack travel [m] to reach at the end of the next advance
        self._prepare = PackedCall(prepare_step_packed)
        self.refresh()

    @property
    def y(self) -> np.ndarray:
        """The state vector at ``t`` (see :attr:`Vehicle.n_states`)."""
        return self.stepper.y

    @property
    def inputs(self) -> np.ndarray:
        """(n_wheels, n_inputs) input matrix of the kernel: the columns of the largest signal table's
        per-wheel inputs (``signals.FULL_VEHICLE``); ``vehicle.input_columns`` are this vehicle's."""
        return self.system.data.inputs

    def set_sources(self, road_source: str, tire_source: str):
        """Take the road under each wheel from the internal road or the inputs, the tire loads from the
        internal tire or the inputs (``set_input(road_height=..., tire_force_x=...)``)."""
        if road_source not in ("internal", "inputs"):
            raise ModelError(f"road_source must be 'internal' or 'inputs', got {road_source!r}")
        if tire_source not in ("internal", "external"):
            raise ModelError(f"tire_source must be 'internal' or 'external', got {tire_source!r}")
        self.system.data.modes[0] = int(road_source == "inputs")
        self.system.data.modes[1] = int(tire_source == "external")
        self.stepper.reset()

    def refresh(self):
        """Re-evaluate the outputs at the current state with the current inputs (no time step)."""
        if refresh_levers(self.system.model, self.system.data, self.row):
            self.stepper.reset()
        st = self.stepper.evaluate(self.t, self.row)
        if st < 0:
            raise self.system.failure(st, self.t)

    def set_input(self, wheel: str, **values):
        """Set some inputs of one wheel by name (the signal table's inputs, SI units), e.g.
        ``set_input("front", torque_drive=200.0, torque_brake=0.0)``."""
        w = self.vehicle.wheel_index(wheel)
        table = self.vehicle.signals
        for name, v in values.items():
            self.inputs[w, self.vehicle.input_columns[table.input_column(name)]] = float(v)

    def set_steering(self, steering_wheel_angle: float):
        """The steering-wheel angle [rad, + left] to reach at the end of the next :meth:`advance`: the rack
        travel (``vehicle.rack_gain`` x the angle) moves linearly from where it is over that step, so the
        rack's velocity is the ramp's and its acceleration zero (a first-order hold of the input)."""
        v = self.vehicle
        if v.steer_drv < 0:
            raise ModelError(f"vehicle '{v.name}' has no steering (its file has no 'steering' entry)")
        lo, hi = v._steering_limits()
        a = float(steering_wheel_angle)
        if not lo <= a <= hi:        # also refuses NaN
            raise ModelError(f"steering_wheel_angle must be a number in [{lo:g}, {hi:g}] rad (the rack end stops of "
                             f"vehicle '{v.name}'), got {steering_wheel_angle!r}")
        self._rack_target = v.rack_gain * a

    def set_rack_travel(self, rack_travel_m: float):
        """The steering rack travel [m, + toward the left] to reach at the end of the next :meth:`advance`
        (instead of a steering-wheel angle, :meth:`set_steering`; the same first-order hold)."""
        v = self.vehicle
        if v.steer_drv < 0:
            raise ModelError(f"vehicle '{v.name}' has no steering (its file has no 'steering' entry)")
        s = float(rack_travel_m)
        limit = v.spec.steering.rack_travel_limit_m
        if not -limit <= s <= limit:        # also refuses NaN
            raise ModelError(f"rack_travel must be a number in [{-limit:g}, {limit:g}] m (the rack end stops of vehicle "
                             f"'{v.name}'), got {rack_travel_m!r}")
        self._rack_target = s

    def set_inputs(self, values):
        """Every input of every wheel at once: ``values`` has ``n_wheels * n_inputs`` numbers, wheel by wheel
        in the order of ``wheel_names``, each wheel's in the signal table's input order (``input_names``)."""
        if len(values) != self._input_positions.size:
            nw, n = self.vehicle.n_wheels, len(self._input_names)
            raise ModelError(f"set_inputs: {nw * n} values expected ({nw} wheels x {n} inputs), got {len(values)}")
        self._inputs_flat[self._input_positions] = np.asarray(values, dtype=float)

    def advance(self, h: float):
        """Advance by h [s] in n = max(1, round(h / dt)) equal sub-steps of h / n, then evaluate the outputs
        at the new state (one compiled call unless the coordinate partition must change)."""
        last_h, last_dt, n, step = self._substeps
        if h != last_h or self.dt != last_dt:
            n = substeps(h, self.dt)
            step = h / n
            self._substeps = (h, self.dt, n, step)
        st = self.stepper
        system = self.system
        # the steering ramp, the external load's levers and the origin, compiled (stepping.prepare_step)
        if self._prepare(system, float(self.t), float(h), self._rack_target, st.y, self.row):
            st.reset()
        t = self.t
        done, status = st.advance(t, step, n, self.row)
        while status == 1 and done < n:     # a new coordinate partition: re-parameterize, go on
            st.y = system.reparameterize(st.y)
            st.reset()
            more, status = st.advance(t + done * step, step, n - done, self.row)
            done += more
        if status < 0:
            raise system.failure(status, t + done * step)
        self.t = t + h

    def outputs(self) -> dict:
        return dict(zip(self.vehicle.output_names, self.row.tolist()))

    def get_state(self):
        """Everything needed to continue bit-identically (time, stepper state, inputs, engine warm start and
        partition, output row, engine origin, steering ramp and target, and the external tire load's levers
        about the wheel centres, ``W_LEVER``, which the next step uses unless the load point or the row moved,
        and the last evaluation's velocity transformations and acceleration bias, ``PREDICTOR_FIELDS``, from
        which the next position problem starts)."""
        data = self.system.data
        d = data.mech
        return (self.t, self.stepper.get_state(), self.inputs.copy(), d.z.copy(), d.zd.copy(), d.indep.copy(),
                d.dep.copy(), self.row.copy(), float(data.origin[0]), data.steer.copy(),
                self._rack_target, data.work[:, W_LEVER:W_LEVER + 3].copy(),
                tuple(getattr(d, f).copy() for f in PREDICTOR_FIELDS))

    def set_state(self, state):
        """Inverse of :meth:`get_state`; refuses (ModelError) data that do not fit this vehicle: other
        array shapes, or a coordinate partition that is not a split of the non-driven coordinates (the
        compiled kernels index with it and check no bounds)."""
        t, stepper_state, inp, z, zd, indep, dep, row, origin, steer, rack_target, lever, predictor = state
        data = self.system.data
        d = data.mech
        y = stepper_state[0]
        levers = data.work[:, W_LEVER:W_LEVER + 3]
        if len(predictor) != len(PREDICTOR_FIELDS):
            raise ModelError(f"simulator state: {len(predictor)} predictor arrays, this vehicle needs "
                             f"{len(PREDICTOR_FIELDS)} ({', '.join(PREDICTOR_FIELDS)})")
        for name, new, old in (("y", y, self.y), ("inputs", inp, self.inputs), ("z", z, d.z), ("steer", steer, data.steer),
                               ("zd", zd, d.zd), ("indep", indep, d.indep), ("dep", dep, d.dep), ("row", row, self.row),
                               ("lever", lever, levers),
                               *((f, a, getattr(d, f)) for f, a in zip(PREDICTOR_FIELDS, predictor))):
            if np.shape(new) != old.shape:
                raise ModelError(f"simulator state: {name} has shape {np.shape(new)}, this vehicle needs {old.shape}")
        split = np.concatenate([np.asarray(indep, dtype=np.int64), np.asarray(dep, dtype=np.int64),
                                self.vehicle.mech.model.drv])
        if not np.array_equal(np.sort(split), np.arange(d.z.size)):
            raise ModelError("simulator state: the coordinate partition is not a split of the coordinates")
        n = d.z.size
        for f, a in zip(PREDICTOR_FIELDS, predictor):     # the row lists and their counts index z unchecked too
            top = n if f.endswith("nrows") else n - 1
            if f.endswith("rows") and not np.all((np.asarray(a) >= 0) & (np.asarray(a) <= top)):
                raise ModelError(f"simulator state: {f} holds a value outside 0..{top}")
        self.stepper.set_state(stepper_state)
        self.t = t
        self.inputs[:] = inp
        d.z[:], d.zd[:], d.indep[:], d.dep[:] = z, zd, indep, dep
        self.row[:] = row
        data.origin[0] = origin
        data.steer[:] = steer
        levers[:] = lever
        for f, a in zip(PREDICTOR_FIELDS, predictor):
            getattr(d, f)[:] = a
        self._rack_target = float(rack_target)
