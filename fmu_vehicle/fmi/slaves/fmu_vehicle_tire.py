"""Tire.fmu: one Magic Formula tire (one instance per wheel), the vehicle's own tire code as an FMI 2.0 CS slave.

Two wheel interfaces (parameter ``wheel_interface``), both with the coefficients of a ``.tir`` file shipped in
the FMU resources, ISO 8855 axes (x forward, y left, z up) and SI units:

* ``planar`` (default): a wheel in the global x-z plane, spin axis a = +y (rolling forward spins positively
  about +y), the longitudinal contact ``fmu_vehicle.tire.contact.tire_contact``; inputs wheel.*, road.*.
  The slave is a variable table over the single-wheel stepper ``fmu_vehicle.tire.stepper`` (the integrator of
  the single-wheel rig too): each doStep is one ``wheel_advance`` of a wheel whose motion is held to its inputs
  (``TireModel``).
* ``chrono``: Project Chrono's force-element tire interface (``FMU2cs_ForceElementTire``): the spatial wheel
  state wheel_state.pos/rot/lin_vel/ang_vel and the terrain terrain_height/normal/mu under query_point in,
  wheel_load.point/force/moment out; the tire model's contact ``fmu_vehicle.tire.models.contact`` that the
  vehicle uses internally (a ``.tir`` file: the MF 5.2 combined-slip contact ``tire_contact_3d``, κ' and
  q = tan α' with their relaxation lengths, low-speed damping, ``side = right`` mirrored). A variable table
  over ``fmu_vehicle.tire.tire3d.TireModel3d`` and its stepper ``fmu_vehicle.tire.stepper3d``. See
  docs/tire.md §13.

Per communication step [t, t+h] the inputs are the wheel's state at t (FMI 2.0 CS, inputs held).  Inside the
step the tire extrapolates that state: the velocities and the spin (chrono: the angular velocity vector; the
spin axis is held) change at their rates over the previous step (backward differences of the inputs,
``input_extrapolation = linear``) and the centre position follows, c(τ) = c + v τ + a τ²/2.

    road      under c(τ): the internal road (``road``; chrono: ``road_eval_xy`` at (c_x, c_y)) or the road
              inputs as a plane through the input point (planar: road.* extrapolated along their slope;
              chrono: the plane through (query_point.x, query_point.y, terrain_height) with normal
              terrain_normal, dh/dx = -n_x/n_z, dh/dy = -n_y/n_z)
    slip      the transient slip κ' (chrono: and q = tan α') is integrated with n = max(1, round(h/dt)) RK4
              sub-steps of  dκ'/dt = (-Vsx - |Vx| κ') / σc  (chrono: and dq/dt = (Vcy - |Vx| q) / σα)
              (contact.py; relaxation lengths σc, σα, Pacejka 2012)
    outputs   evaluated at τ = h/2 (``output_time = midpoint``, default; RK4 continuous extension inside
              the sub-step that contains it) or τ = h (``end``):
              fx, fy, fz        longitudinal force along the road tangent t, lateral force along l = n x t,
                                normal load along n [N] (fy = 0 with the planar interface)
              my, mz            rolling resistance moment about the spin axis, aligning moment [N m]
              wheel_load.point  the wheel centre given at the step start (the input)
              wheel_load.force  F = fx t + fy l + fz n, global
              wheel_load.moment the tire's moment about the wheel centre c(τ) at the output time, global:
                                M = My a + Mz n⊥ + (P - c(τ)) x F,   P = c(τ) - d n (contact point)
                                (a host applying F at point plus M applies the tire load reduced to the
                                wheel centre)
              wheel_load.force_x/_z, moment_y   the x, z and y components of the same load (planar names)
                                -> the vehicle's ``wheel_<w>.tire_force_x/z`` and ``tire_moment_y`` inputs
              query_point       the wheel centre input, where the host evaluates the terrain inputs (chrono:
                                it follows wheel_state.pos as soon as that is set, so a host that reads it
                                after setting the wheel state, as Chrono's co-simulation loop does, queries
                                the terrain under the current centre)

Why: the vehicle FMU holds its tire-load inputs over its step, and with the Gauss-Seidel order tire -> vehicle
it takes the same step [t, t+h] right after the tire.  The load it should apply is the step's mean, whose
midpoint-rule estimate is the load at t + h/2.  On the bumpy road at h = 1 ms, loads at the start or the end
of the step put x(5 s) about 40 mm off the monolithic vehicle; the midpoint loads put it within 10 mm.
The extrapolation matters at low speed.  The wheel spin and the tire's carcass (slip stiffness over
relaxation length) form a ~28 Hz mode whose only damping at a few m/s is |Vx|/σc.  Holding the spin over
the step lags the loop by h/2, which is enough to make that mode grow below about 4 m/s (seen as a 7 rad/s
spin oscillation at 3 m/s).  The extrapolated spin removes the lag to second order.

Initialization: at exitInitializationMode the outputs are the loads of the initial inputs (the wheel state
set during initialization, e.g. the vehicle FMU's initial wheel outputs propagated by the master) with the
initial slip ``slip0`` (and q = 0).

Bad input: NaN/inf or out-of-range inputs are refused by the base class (fmi2Discard, logged error naming the
input, model untouched); with the chrono interface also a zero quaternion (``wheel_state.rot``; a non-unit one
is normalized) and, with road_source = inputs, a terrain normal that does not point up (``terrain_normal``).

``fail_at_time`` >= 0 makes every doStep starting at t >= fail_at_time fail (logged error, fmi2Discard,
terminated): a test hook for the co-simulation master's failure handling.

FMU state = κ' (chrono: and q) and the previous step's inputs (plus the variable values, saved by the base
class); rollback continues bit-identically.
"""
import math
from operator import itemgetter
from pathlib import Path

import numpy as np

from fmu_vehicle.errors import ModelError
from fmu_vehicle.fmi.resource_files import ALLOW_PARAMETER, load_file
from fmu_vehicle.fmi.roads import SHIPPED_ROADS, road_parameter
from fmu_vehicle.fmi.slave_base import VehicleSlaveBase
from fmu_vehicle.fmi.start_values import DEFAULT_TIRE_FILE, tire_rolling_start
from fmu_vehicle.fmi.variables import Structure, Var
from fmu_vehicle.numerics.jit import entry_point
from fmu_vehicle.road import plane_arrays, set_plane
from fmu_vehicle.tire.contact import (OUT_DEFLECTION, OUT_FORCE, OUT_FX, OUT_FZ, OUT_KAPPA_SS, OUT_MY,
                                      OUT_NORMAL, OUT_POINT, OUT_RE, OUT_SIGMA, OUT_VSX)
from fmu_vehicle.tire.stepper import (N_STATES, S_KAPPA, S_OMEGA, S_VX, S_VZ, S_X, S_Z, TMP, W_ALPHA, W_AX,
                                      W_AZ, WK_MOMENT, WK_ROAD, wheel_advance, wheel_arrays, wheel_derivative)
from fmu_vehicle.tire.models import params as tire_params, read_tire
from fmu_vehicle.tire.stepper3d import quaternion_spin_axis
from fmu_vehicle.tire.tire3d import OUTPUTS_3D, Terrain, TireModel3d, WheelState, terrain_slopes

#: Output name -> (unit, description) of the outputs the planar interface introduced, in modelDescription
#: order (first, so that their value references stay those of the planar-only FMU).
PLANAR_OUTPUTS = {
    "fx": ("N", "longitudinal tire force along the road tangent t (+ forward)"),
    "fz": ("N", "tire normal load along the road normal (>= 0, 0 when airborne)"),
    "my": ("N.m", "rolling resistance moment about the spin axis (opposes forward rolling: < 0)"),
    "wheel_load.force_x": ("N", "tire force on the wheel, global x (fx t + fz n), acting at the wheel centre; "
                                "chrono interface: = wheel_load.force.x"),
    "wheel_load.force_z": ("N", "tire force on the wheel, global z (fx t + fz n), acting at the wheel centre; "
                                "chrono interface: = wheel_load.force.z"),
    "wheel_load.moment_y": ("N.m", "tire moment on the wheel about global y at the wheel centre: lever arm of "
                                   "the contact force plus the rolling resistance moment; chrono interface: "
                                   "= wheel_load.moment.y"),
    "slip": ("1", "transient longitudinal slip kappa' (relaxation-length state)"),
    "slip_kinematic": ("1", "steady-state longitudinal slip -Vsx/|Vx|"),
    "slip_velocity": ("m/s", "longitudinal slip velocity Vsx = Vx - omega Re"),
    "deflection": ("m", "vertical tire deflection R0 - d (negative when airborne)"),
    "deflection_rate": ("m/s", "rate of the tire deflection, -n . (wheel centre velocity)"),
    "loaded_radius": ("m", "distance d from the wheel centre to the road plane"),
    "rolling_radius": ("m", "effective rolling radius Re"),
    "relaxation_length": ("m", "longitudinal relaxation length sigma_c in use"),
    "contact.x": ("m", "contact point P = c - d n, global x"),
    "contact.z": ("m", "contact point P = c - d n, global z"),
    "road.height_used": ("m", "road height under the wheel centre used in this step"),
    "road.slope_used": ("1", "road slope dh/dx under the wheel centre used in this step"),
}

#: The outputs added with the chrono interface (meaningful with both interfaces: the planar one gives the
#: planar load as vectors, zero lateral force, moment and slip angle).
SPATIAL_OUTPUTS = {
    **OUTPUTS_3D,
    "fy": ("N", "lateral tire force along l = n x t (+ left of the wheel heading; 0 with the planar interface)"),
    "mz": ("N.m", "aligning moment about the road normal (+ turns the wheel to the left; 0 with the planar "
                  "interface)"),
    "slip_angle": ("rad", "transient slip angle alpha' the force uses, atan(q - low-speed damping term) (+ when "
                          "the contact slides to the left; 0 with the planar interface)"),
    "slip_angle_kinematic": ("rad", "steady-state slip angle atan(Vcy/|Vx|) (0 with the planar interface)"),
    "lateral_slip": ("1", "lateral transient slip state q = tan(alpha') (0 with the planar interface)"),
    "inclination": ("rad", "inclination angle asin(a . n) of the spin axis a to the road normal n (rotation of "
                           "the wheel about +t; 0 with the planar interface)"),
    "camber": ("rad", "camber angle: + when the top of the wheel leans outward, away from the vehicle "
                      "(-inclination on a left tire, +inclination on a right tire)"),
    "relaxation_length_lateral": ("m", "lateral relaxation length sigma_alpha in use (0 with the planar "
                                       "interface)"),
    "contact.y": ("m", "contact point P = c - d n, global y"),
    "road.slope_y_used": ("1", "road slope dh/dy under the wheel centre used in this step (0 with the planar "
                               "interface)"),
    "road.mu_used": ("1", "road friction coefficient under the wheel centre used in this step"),
}

#: Every output: name -> (unit, description).
OUTPUTS = {**PLANAR_OUTPUTS, **SPATIAL_OUTPUTS}

_DISPLAY = {"m/s": "km/h", "rad/s": "rpm"}

#: Outputs that the planar interface has no source for: no lateral force, moment, slip or inclination.
_PLANAR_ZEROS = {name: 0.0 for name in ("fy", "mz", "slip_angle", "slip_angle_kinematic", "lateral_slip",
                                        "inclination", "camber", "relaxation_length_lateral", "road.slope_y_used")}


class TireModel:
    """One tire: parameters ``p`` (``tire.models.params`` of a .tir file), optional internal road (RoadArrays),
    slip state κ' (``kappa``).

    ``step(t, h, ...)`` takes the wheel state at t and advances κ' over [t, t+h] with the single-wheel stepper
    (``stepper.wheel_advance``, RK4) on a wheel whose velocities and spin are held to the inputs and change at
    their input rates, τ in [0, h]:

        v(τ) = v + a τ,  c(τ) = c + v τ + a τ²/2,  omega(τ) = omega + alpha τ     (vx, vz; x, z)

    where a, alpha are backward differences of the velocity and spin inputs over the previous step
    (``extrapolate``; zero on the first step or when off, leaving c + v τ).  The road is the internal one
    at x(τ), or the road inputs extrapolated along their slope, h_r(τ) = h_r + (dh/dx)(x(τ) - x).  The
    returned outputs are at τ = h/2 (``output_time = "midpoint"``: the midpoint-rule estimate of the step's
    mean load, from the RK4 continuous extension) or at τ = h (``"end"``).
    """

    def __init__(self, p: np.ndarray, road_arrays=None, kappa: float = 0.0):
        self.p = p
        self.internal_road = road_arrays is not None
        road = road_arrays if self.internal_road else plane_arrays()
        self.wheel = wheel_arrays(p, road, hold_vx=True, hold_vz=True, hold_omega=True)
        self.kappa = float(kappa)
        self.last_input: tuple | None = None       # (t, vx, vz, omega) of the previous step
        self._y = np.zeros(N_STATES)
        self._y_out = np.zeros(N_STATES)
        self._advance = None                       # wheel_advance's compiled entry point (first step)

    def input_rates(self, t: float, kin, extrapolate: bool) -> tuple[float, float, float]:
        """(ax [m/s^2], az [m/s^2], alpha [rad/s^2]) from the previous step's inputs; remembers these."""
        rates = (0.0, 0.0, 0.0)
        last = self.last_input
        if extrapolate and last is not None and t > last[0]:
            dt = t - last[0]
            rates = ((kin[2] - last[1]) / dt, (kin[3] - last[2]) / dt, (kin[4] - last[3]) / dt)
        self.last_input = (t, kin[2], kin[3], kin[4])
        return rates

    def _load(self, kin, rates, road_in, kappa: float) -> np.ndarray:
        """Wheel state y at the step start from the inputs; held rates and the input road into the record."""
        y = self._y
        y[:] = 0.0
        y[S_X], y[S_Z], y[S_VX], y[S_VZ], y[S_OMEGA] = kin
        y[S_KAPPA] = kappa
        wheel = self.wheel.wheel
        wheel[W_AX], wheel[W_AZ], wheel[W_ALPHA] = rates
        if not self.internal_road:
            height, slope, mu = road_in
            set_plane(self.wheel.road, kin[0], height, slope, mu)
        return y

    def _outputs(self, y: np.ndarray, kin) -> dict:
        """The FMU outputs of the stepper's last evaluation, made at the wheel state y (units as in ``OUTPUTS``);
        kin = the inputs at the step start (the wheel centre there is ``wheel_load.point``)."""
        # as Python floats (the same doubles: one conversion each instead of a NumPy scalar per element)
        out, work, y = self.wheel.contact.tolist(), self.wheel.work.tolist(), y.tolist()
        px, pz = float(kin[0]), float(kin[1])
        x, z, vx, vz = y[S_X], y[S_Z], y[S_VX], y[S_VZ]
        rx, rz = out[OUT_POINT] - x, out[OUT_POINT + 2] - z
        nx, nz = out[OUT_NORMAL], out[OUT_NORMAL + 2]
        values = {
            "fx": out[OUT_FX], "fz": out[OUT_FZ], "my": out[OUT_MY],
            "wheel_load.force_x": out[OUT_FORCE], "wheel_load.force_z": out[OUT_FORCE + 2],
            "wheel_load.moment_y": work[WK_MOMENT],
            "slip": y[S_KAPPA], "slip_kinematic": out[OUT_KAPPA_SS], "slip_velocity": out[OUT_VSX],
            "deflection": out[OUT_DEFLECTION], "deflection_rate": -(nx * vx + nz * vz),
            "loaded_radius": math.hypot(rx, rz), "rolling_radius": out[OUT_RE],
            "relaxation_length": out[OUT_SIGMA], "contact.x": out[OUT_POINT], "contact.z": out[OUT_POINT + 2],
            "road.height_used": work[WK_ROAD], "road.slope_used": work[WK_ROAD + 1],
            # the same load as vectors (the chrono interface's outputs): point = the centre at the step start
            "wheel_load.point.x": px, "wheel_load.point.y": 0.0, "wheel_load.point.z": pz,
            "wheel_load.force.x": out[OUT_FORCE], "wheel_load.force.y": 0.0, "wheel_load.force.z": out[OUT_FORCE + 2],
            "wheel_load.moment.x": 0.0, "wheel_load.moment.y": work[WK_MOMENT], "wheel_load.moment.z": 0.0,
            "query_point.x": px, "query_point.y": 0.0, "query_point.z": pz,
            "contact.y": 0.0, "road.mu_used": work[WK_ROAD + 2], **_PLANAR_ZEROS,
        }
        return values

    def outputs(self, kin, rates, road_in, tau: float, kappa: float) -> dict:
        """The FMU outputs tau [s] into the step (wheel state extrapolated as in the class doc), with slip kappa."""
        y = self._load(kin, rates, road_in, kappa)
        x, z, vx, vz, omega = kin
        ax, az, alpha = rates
        y[S_X], y[S_Z] = x + (vx + 0.5 * ax * tau) * tau, z + (vz + 0.5 * az * tau) * tau
        y[S_VX], y[S_VZ], y[S_OMEGA] = vx + ax * tau, vz + az * tau, omega + alpha * tau
        wheel_derivative(tau, y, self.wheel, self.wheel.stages[TMP])
        return self._outputs(y, kin)

    def step(self, t: float, h: float, dt: float, kin, road_in, *, output_time: str = "midpoint",
             extrapolate: bool = True) -> dict:
        """Advance κ' over [t, t+h] (n = max(1, round(h/dt)) RK4 steps) and return the outputs (class doc).

        kin      (x [m], z [m], vx [m/s], vz [m/s], omega [rad/s]) wheel centre state and spin at t
        road_in  (height [m], slope [-], mu [-]) under the wheel at t (used without an internal road)
        """
        rates = self.input_rates(t, kin, extrapolate)
        n = max(1, int(round(h / dt)))
        tau_out = 0.5 * h if output_time == "midpoint" else h
        y = self._load(kin, rates, road_in, self.kappa)
        if self._advance is None:       # resolved once: later calls skip numba's typing of the arguments
            self._advance = entry_point(wheel_advance, float(t), float(h), n, float(tau_out), y, self.wheel,
                                        self._y_out)
        self._advance(float(t), float(h), n, float(tau_out), y, self.wheel, self._y_out)
        k, k_out = float(y[S_KAPPA]), float(self._y_out[S_KAPPA])
        if not (math.isfinite(k) and math.isfinite(k_out)):
            raise ModelError(f"transient slip became {k!r} (wheel state {tuple(kin)}, road inputs {tuple(road_in)})")
        self.kappa = k
        return self._outputs(self._y_out, kin)

    def get_state(self):
        return self.kappa, self.last_input

    def set_state(self, state) -> None:
        self.kappa, self.last_input = state


def _vec(name: str, unit: str, description: str, start, lo: float, hi: float, display=None) -> tuple:
    """Continuous Real inputs name.x, .y, .z (or .e0..e3 for a quaternion start of length 4)."""
    axes = ("e0", "e1", "e2", "e3") if len(start) == 4 else ("x", "y", "z")
    return tuple(Var(f"{name}.{axis}", "input", "continuous", unit, f"{description}, {axis}", value,
                     min=lo, max=hi, display_unit=display) for axis, value in zip(axes, start))


#: The chrono interface's wheel state inputs, in the order of ``WheelState``.
_POS = ("wheel_state.pos.x", "wheel_state.pos.y", "wheel_state.pos.z")
_ROT = ("wheel_state.rot.e0", "wheel_state.rot.e1", "wheel_state.rot.e2", "wheel_state.rot.e3")
_LIN_VEL = ("wheel_state.lin_vel.x", "wheel_state.lin_vel.y", "wheel_state.lin_vel.z")
_ANG_VEL = ("wheel_state.ang_vel.x", "wheel_state.ang_vel.y", "wheel_state.ang_vel.z")
_NORMAL = ("terrain_normal.x", "terrain_normal.y", "terrain_normal.z")
_get_pos, _get_rot, _get_lin_vel, _get_ang_vel, _get_normal = (itemgetter(*names) for names in (
    _POS, _ROT, _LIN_VEL, _ANG_VEL, _NORMAL))     # each: the tuple of these values of a value store
#: query_point output <- the input it repeats (direct feedthrough: a host reads the query point after setting
#: the wheel state, as Chrono's co-simulation loop does, and evaluates the terrain there)
_QUERY = {"wheel_state.pos.x": "query_point.x", "wheel_state.pos.y": "query_point.y",
          "wheel_state.pos.z": "query_point.z"}
#: The outputs that report the wheel centre input (x, y, z components) and the inputs they repeat (planar:
#: wheel.x, 0, wheel.z; chrono: wheel_state.pos), and the outputs that are slip states (the initial values
#: slip0 and 0, no input).
_CENTRE_OUTPUTS = ("query_point.", "wheel_load.point.")
_CENTRE_INPUTS = {"x": ("wheel.x", "wheel_state.pos.x"), "y": ("wheel_state.pos.y",), "z": ("wheel.z", "wheel_state.pos.z")}
_SLIP_STATES = ("slip", "lateral_slip")
#: Outputs the planar interface holds at 0 (no lateral force, moment, slip or inclination): only the chrono
#: interface's inputs move them.
_SPATIAL_ONLY = (*_PLANAR_ZEROS, "contact.y", "wheel_load.force.y", "wheel_load.moment.x", "wheel_load.moment.z")


def _structure(variables) -> Structure:
    """The Tire's ModelStructure (``Structure``) over its ``variables``.

    Initialization: the outputs are the load at the initial inputs (``_setup``). The wheel centre outputs
    repeat the centre input of either interface; the slip states start at slip0 and 0; the outputs the planar
    interface holds at 0 follow the chrono interface's inputs; every other output is the contact of the whole
    wheel state with the road and is declared on every input of both interfaces (wheel_interface and road_source
    are parameters, which a modelDescription cannot follow).
    Stepping: with the chrono interface query_point follows wheel_state.pos as soon as it is set
    (``_follow_query``), a factor 1 fixed by the parameter wheel_interface; everything else moves in doStep.
    """
    inputs = tuple(v.name for v in variables if v.causality == "input")
    spatial = tuple(name for name in inputs if not name.startswith(("wheel.", "road.")))    # the chrono interface's
    initial = {}
    for v in variables:
        if v.causality != "output" or v.name in _SLIP_STATES:
            continue
        centre = v.name.startswith(_CENTRE_OUTPUTS) and v.name[-1] in _CENTRE_INPUTS
        initial[v.name] = (_CENTRE_INPUTS[v.name[-1]] if centre else spatial if v.name in _SPATIAL_ONLY
                           else inputs)
    return Structure(initial=initial, stepping={query: {pos: "fixed"} for pos, query in _QUERY.items()})


#: The default wheel (start values of the wheel inputs of both interfaces): rolling freely on the road at the
#: default tire's loaded radius under its nominal load, from the property file in this FMU's resources (where
#: this script sits; ``start_values.tire_rolling_start``).
START = tire_rolling_start(str(Path(__file__).resolve().parent))


class Tire(VehicleSlaveBase):
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
        Var("fail_at_time", "parameter", "fixed", "s", "test hook: every doStep starting at t >= fail_at_time "
            "fails (error logged, fmi2Discard); negative = never", -1.0),
        Var("wheel.x", "input", "continuous", "m", "wheel centre position, global x", 0.0, min=-10000000.0, max=10000000.0),
        Var("wheel.z", "input", "continuous", "m", "wheel centre position, global z (up) (start: the loaded radius "
            "at the nominal load)", START.z, min=-10000.0, max=10000.0),
        Var("wheel.vx", "input", "continuous", "m/s", "wheel centre velocity, global x", START.vx, display_unit="km/h", min=-1000.0, max=1000.0),
        Var("wheel.vz", "input", "continuous", "m/s", "wheel centre velocity, global z", 0.0, min=-1000.0, max=1000.0),
        Var("wheel.omega", "input", "continuous", "rad/s", "absolute wheel spin about +y (+ rolling forward; "
            "start: free rolling)", START.omega,
            display_unit="rpm", min=-10000.0, max=10000.0),
        Var("road.height", "input", "continuous", "m", "road height under the wheel centre (road_source = inputs)",
            0.0, min=-10000.0, max=10000.0),
        Var("road.slope", "input", "continuous", "1", "road slope dh/dx under the wheel centre "
            "(road_source = inputs)", 0.0, min=-100.0, max=100.0),
        Var("road.mu", "input", "continuous", "1", "road friction coefficient (road_source = inputs)", 1.0,
            min=0.0, max=10.0),
        *(Var(name, "output", "continuous", unit, desc, 0.0, display_unit=_DISPLAY.get(unit))
          for name, (unit, desc) in PLANAR_OUTPUTS.items()),
        Var(ALLOW_PARAMETER, "parameter", "fixed", None, "allow tire_file and road outside the FMU resources "
            "(absolute paths, ..)", False, type="Boolean"),
        # ---- the chrono interface (added after the planar variables: their value references are unchanged)
        Var("wheel_interface", "parameter", "fixed", None, "planar (inputs wheel.*, road.*: a wheel in the x-z "
            "plane, longitudinal tire) | chrono (Project Chrono's force-element tire interface: inputs "
            "wheel_state.*, terrain_*; outputs wheel_load.point/force/moment, query_point; MF 5.2 combined slip; a host that gives the terrain sets "
            "road_source = inputs)",
            "planar", type="Enumeration", choices=("planar", "chrono")),
        Var("side", "parameter", "fixed", None, "chrono interface: left | right; a right-hand tire is the mirror "
            "image of the property file's tire (its Fy and Mz change sign at mirrored slip angle and camber)",
            "left", type="Enumeration", choices=("left", "right")),
        *_vec("wheel_state.pos", "m", "chrono interface: wheel centre position, global", (0.0, 0.0, START.z),
              -10000000.0, 10000000.0),
        *_vec("wheel_state.rot", "1", "chrono interface: rotation quaternion (scalar first) of the wheel frame "
              "w.r.t. the global frame; its y axis is the spin axis, pointing to the vehicle's left on both sides "
              "(normalized; a zero quaternion is refused)", (1.0, 0.0, 0.0, 0.0), -10.0, 10.0),
        *_vec("wheel_state.lin_vel", "m/s", "chrono interface: wheel centre velocity, global", (START.vx, 0.0, 0.0),
              -1000.0, 1000.0, "km/h"),
        *_vec("wheel_state.ang_vel", "rad/s", "chrono interface: wheel angular velocity (spin included; rolling "
              "forward spins positively about the wheel frame's y axis), global", (0.0, START.omega, 0.0),
              -10000.0, 10000.0, "rpm"),
        Var("terrain_height", "input", "continuous", "m", "chrono interface: terrain height under query_point "
            "(road_source = inputs)", 0.0, min=-10000.0, max=10000.0),
        *_vec("terrain_normal", "1", "chrono interface: terrain unit normal at query_point, global, pointing up "
              "(road_source = inputs; the road is the plane through (query_point.x, query_point.y, "
              "terrain_height) with this normal)", (0.0, 0.0, 1.0), -10.0, 10.0),
        Var("terrain_mu", "input", "continuous", "1", "chrono interface: terrain friction coefficient under "
            "query_point (road_source = inputs): as the roads' mu, it scales the property file's friction "
            "coefficients (LMUX, LMUY times mu, nominal 1)", 1.0, min=0.0, max=10.0),
        *(Var(name, "output", "continuous", unit, desc, 0.0, display_unit=_DISPLAY.get(unit))
          for name, (unit, desc) in SPATIAL_OUTPUTS.items()),
        # last: the value references of the variables above are those of the FMUs without it
        Var("road_file", "parameter", "fixed", None, "a user's road: a .json/.csv file relative to the FMU resources "
            "(or resources/roads), or an absolute path (allow_external_files); empty: the shipped road", "",
            type="String"),
    )
    STRUCTURE = _structure(VARIABLES)

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
            self.model = TireModel(params, road, v["slip0"])
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
            quaternion_spin_axis(*(v[n] for n in _ROT))
        except ValueError as exc:
            return "wheel_state.rot", str(exc)
        if v["road_source"] == "inputs":
            try:
                terrain_slopes([v[n] for n in _NORMAL])
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
        if var.name in _QUERY:
            self._follow_query((var.name,))

    def _input_hook(self, names):
        """After the base class's fast ``set_real``: query_point follows the wheel_state.pos inputs set."""
        followed = tuple(name for name in names if name in _QUERY)
        return (lambda: self._follow_query(followed)) if followed else None

    def _follow_query(self, names):
        """With the chrono interface, query_point.* = the wheel_state.pos.* inputs ``names`` that are valid
        (finite and within their range)."""
        if self._chrono():
            v = self.values
            for name in names:
                new = v[name]
                if isinstance(new, float) and self.var_by_name[name].check(new) is None:
                    v[_QUERY[name]] = new

    def _advance(self, t, h):
        v = self.values
        fail_at = v["fail_at_time"]
        if fail_at >= 0.0 and t >= fail_at - 1e-9 * max(1.0, abs(fail_at)):
            raise ModelError(f"forced failure at t = {t!r} s (parameter fail_at_time = {fail_at!r} s)")
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
