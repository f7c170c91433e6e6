"""The Tire FMU's signal tables: every input and output of one tire, with its unit and meaning.

The single source of the tire's interface (the FMU's variables, in this order, and the test tables): names in
ISO 8855 axes (x forward, y left, z up), units in FMI spelling (``m``, ``m/s``, ``N.m``, ``1`` for
dimensionless). Two wheel interfaces:

* planar (``tire_planar.TireModel``): a wheel in the global x-z plane, inputs ``planar_inputs`` (wheel centre,
  velocity and spin; road under the centre), outputs ``PLANAR_OUTPUTS`` (longitudinal tire);
* chrono (``tire3d.TireModel3d``): Project Chrono's force-element tire interface, inputs ``chrono_inputs``
  (spatial wheel state, terrain under the query point), outputs ``OUTPUTS_3D`` (the load at the wheel centre)
  and the lateral quantities of ``SPATIAL_OUTPUTS``.

Every output exists with both interfaces (``OUTPUTS``): the planar one gives its load as vectors too and
holds the lateral quantities at 0 (``PLANAR_ZEROS``). ``output_dependencies`` and ``QUERY`` tell which
inputs each output depends on (the FMU's ModelStructure). See docs/tire.md §13 and docs/fmus.md.
"""
from __future__ import annotations

from typing import NamedTuple


class Input(NamedTuple):
    """One input: unit, description, start value, inclusive bounds, display unit (None: the unit)."""

    unit: str
    description: str
    start: float
    min: float
    max: float
    display_unit: str | None = None


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

_MOMENT = "tire moment on the wheel about its centre at the output time, My a + Mz n_perp + (P - c) x F, global "

#: Output name -> (unit, description) of ``tire3d.TireModel3d`` (the chrono interface's load outputs).
OUTPUTS_3D = {
    **{f"wheel_load.point.{a}": ("m", f"point where wheel_load acts: the wheel centre given at the step start, "
                                      f"global {a}") for a in "xyz"},
    **{f"wheel_load.force.{a}": ("N", f"tire force on the wheel Fx t + Fy l + Fz n, global {a}") for a in "xyz"},
    **{f"wheel_load.moment.{a}": ("N.m", _MOMENT + a) for a in "xyz"},
    **{f"query_point.{a}": ("m", f"where the host evaluates the terrain inputs: the wheel centre input, global {a}")
       for a in "xyz"},
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

#: Display unit of the outputs of a unit (none: the unit itself).
DISPLAY_UNITS = {"m/s": "km/h", "rad/s": "rpm"}

#: Outputs that the planar interface has no source for: no lateral force, moment, slip or inclination.
PLANAR_ZEROS = {name: 0.0 for name in ("fy", "mz", "slip_angle", "slip_angle_kinematic", "lateral_slip",
                                       "inclination", "camber", "relaxation_length_lateral", "road.slope_y_used")}


def planar_inputs(z0: float, vx0: float, omega0: float) -> dict[str, Input]:
    """The planar interface's inputs; the wheel starts at height z0 [m], speed vx0 [m/s], spin omega0 [rad/s]."""
    return {
        "wheel.x": Input("m", "wheel centre position, global x", 0.0, -10000000.0, 10000000.0),
        "wheel.z": Input("m", "wheel centre position, global z (up) (start: the loaded radius at the nominal load)",
                         z0, -10000.0, 10000.0),
        "wheel.vx": Input("m/s", "wheel centre velocity, global x", vx0, -1000.0, 1000.0, "km/h"),
        "wheel.vz": Input("m/s", "wheel centre velocity, global z", 0.0, -1000.0, 1000.0),
        "wheel.omega": Input("rad/s", "absolute wheel spin about +y (+ rolling forward; start: free rolling)",
                             omega0, -10000.0, 10000.0, "rpm"),
        "road.height": Input("m", "road height under the wheel centre (road_source = inputs)", 0.0, -10000.0,
                             10000.0),
        "road.slope": Input("1", "road slope dh/dx under the wheel centre (road_source = inputs)", 0.0, -100.0,
                            100.0),
        "road.mu": Input("1", "road friction coefficient (road_source = inputs)", 1.0, 0.0, 10.0),
    }


def _vec(name: str, unit: str, description: str, start, lo: float, hi: float, display=None) -> dict:
    """Inputs name.x, .y, .z (or .e0..e3 for a quaternion start of length 4)."""
    axes = ("e0", "e1", "e2", "e3") if len(start) == 4 else ("x", "y", "z")
    return {f"{name}.{axis}": Input(unit, f"{description}, {axis}", value, lo, hi, display)
            for axis, value in zip(axes, start)}


def chrono_inputs(z0: float, vx0: float, omega0: float) -> dict[str, Input]:
    """The chrono interface's inputs; the wheel starts at height z0 [m], speed vx0 [m/s], spin omega0 [rad/s]."""
    return {
        **_vec("wheel_state.pos", "m", "chrono interface: wheel centre position, global", (0.0, 0.0, z0),
               -10000000.0, 10000000.0),
        **_vec("wheel_state.rot", "1", "chrono interface: rotation quaternion (scalar first) of the wheel frame "
               "w.r.t. the global frame; its y axis is the spin axis, pointing to the vehicle's left on both sides "
               "(normalized; a zero quaternion is refused)", (1.0, 0.0, 0.0, 0.0), -10.0, 10.0),
        **_vec("wheel_state.lin_vel", "m/s", "chrono interface: wheel centre velocity, global", (vx0, 0.0, 0.0),
               -1000.0, 1000.0, "km/h"),
        **_vec("wheel_state.ang_vel", "rad/s", "chrono interface: wheel angular velocity (spin included; rolling "
               "forward spins positively about the wheel frame's y axis), global", (0.0, omega0, 0.0),
               -10000.0, 10000.0, "rpm"),
        "terrain_height": Input("m", "chrono interface: terrain height under query_point (road_source = inputs)",
                                0.0, -10000.0, 10000.0),
        **_vec("terrain_normal", "1", "chrono interface: terrain unit normal at query_point, global, pointing up "
               "(road_source = inputs; the road is the plane through (query_point.x, query_point.y, "
               "terrain_height) with this normal)", (0.0, 0.0, 1.0), -10.0, 10.0),
        "terrain_mu": Input("1", "chrono interface: terrain friction coefficient under query_point (road_source = "
                            "inputs): as the roads' mu, it scales the property file's friction coefficients (LMUX, "
                            "LMUY times mu, nominal 1)", 1.0, 0.0, 10.0),
    }


#: The chrono interface's wheel state and terrain normal inputs, in the order of ``tire3d.WheelState``.
POS = ("wheel_state.pos.x", "wheel_state.pos.y", "wheel_state.pos.z")
ROT = ("wheel_state.rot.e0", "wheel_state.rot.e1", "wheel_state.rot.e2", "wheel_state.rot.e3")
LIN_VEL = ("wheel_state.lin_vel.x", "wheel_state.lin_vel.y", "wheel_state.lin_vel.z")
ANG_VEL = ("wheel_state.ang_vel.x", "wheel_state.ang_vel.y", "wheel_state.ang_vel.z")
NORMAL = ("terrain_normal.x", "terrain_normal.y", "terrain_normal.z")

#: query_point output <- the input it repeats (direct feedthrough: a host reads the query point after setting
#: the wheel state, as Chrono's co-simulation loop does, and evaluates the terrain there)
QUERY = {"wheel_state.pos.x": "query_point.x", "wheel_state.pos.y": "query_point.y",
         "wheel_state.pos.z": "query_point.z"}
#: The outputs that report the wheel centre input (x, y, z components) and the inputs they repeat (planar:
#: wheel.x, 0, wheel.z; chrono: wheel_state.pos), and the outputs that are slip states (the initial values
#: slip0 and 0, no input).
_CENTRE_OUTPUTS = ("query_point.", "wheel_load.point.")
_CENTRE_INPUTS = {"x": ("wheel.x", "wheel_state.pos.x"), "y": ("wheel_state.pos.y",),
                  "z": ("wheel.z", "wheel_state.pos.z")}
_SLIP_STATES = ("slip", "lateral_slip")
#: Outputs the planar interface holds at 0 (no lateral force, moment, slip or inclination): only the chrono
#: interface's inputs move them.
_SPATIAL_ONLY = (*PLANAR_ZEROS, "contact.y", "wheel_load.force.y", "wheel_load.moment.x", "wheel_load.moment.z")


def output_dependencies(inputs, outputs) -> dict[str, tuple]:
    """Output -> the inputs (of ``inputs``, both interfaces' names in FMU order) its initial value depends on.

    The wheel centre outputs repeat the centre input of either interface; the slip states start at slip0 and
    0 (no entry); the outputs the planar interface holds at 0 follow the chrono interface's inputs; every other
    output is the contact of the whole wheel state with the road and depends on every input of both
    interfaces (the interface and the road source are parameters, which a modelDescription cannot follow).
    """
    spatial = tuple(name for name in inputs if not name.startswith(("wheel.", "road.")))    # the chrono interface's
    initial = {}
    for name in outputs:
        if name in _SLIP_STATES:
            continue
        centre = name.startswith(_CENTRE_OUTPUTS) and name[-1] in _CENTRE_INPUTS
        initial[name] = (_CENTRE_INPUTS[name[-1]] if centre else spatial if name in _SPATIAL_ONLY
                         else tuple(inputs))
    return initial
