"""The vehicle's signal tables: every input and output of a vehicle kind, with its unit and meaning.

A table is the single source of the vehicle's interface. From it come the column of each input in the
per-wheel input matrix the kernel reads (``VehicleData.inputs``), the column of each output in the row
the kernel writes (``vehicle_record``), the keywords of ``VehicleSimulator.set_input``, the order of
``set_inputs``, the names and units of a simulation result and its CSV header, and the variables of the
vehicle FMU. Adding an output is one row here plus the line of ``vehicle_record`` that computes it.

Names (ISO 8855 axes: x forward, y left, z up; SI units):

* scope ``chassis``: ``chassis.<name>``;
* scope ``wheel``: one per wheel, ``wheel_<wheel name>.<name>`` (inputs are always per wheel);
* scope ``vehicle``: ``<name>`` (quantities of the whole model, e.g. a residual);
* scope ``unit``: one per towed unit of a combination, ``<unit name>.<name>`` (docs/articulated.md §6); a
  single-unit vehicle has none;
* scope ``axle``: one per axle (a left and a right corner of one unit, ``loader.vehicle_axles``),
  ``axle_<axle name>.<name>``; the half car has none.

Output row layout: the chassis rows in table order, then each wheel's rows (wheels in vehicle-file
order), then the vehicle rows, then each towed unit's rows (units in vehicle-file order), then each axle's
rows (axles in the order of their first corner). The kernel
computes a fixed catalogue of quantities (``vehicle.dynamics.QUANTITIES``); each output row names the quantity it reports (``Signal.quantity``, by
default its own name) and ``SignalTable.output_map`` tells the kernel where to find it, so tables choose,
order and name their rows freely. Per-wheel inputs: the kernel's input matrix has the columns of the
largest table (``FULL_VEHICLE``); an input row of another table names the column it fills
(``Signal.quantity``, by default its own name) and ``SignalTable.input_columns`` maps a table's inputs onto
it. See docs/vehicle.md for what each signal means physically.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import ModelError

SCOPES = ("chassis", "wheel", "vehicle", "unit", "axle")
CAUSALITIES = ("input", "output")


@dataclass(frozen=True)
class Signal:
    """One row of a signal table.

    name         short name (without the ``chassis.``/``wheel_<w>.`` prefix)
    unit         SI unit in FMI spelling (``m``, ``m/s2``, ``N.m``, ``1`` for dimensionless)
    description  one line, with the sign convention and frame
    scope        ``chassis`` | ``wheel`` | ``vehicle`` | ``unit`` (a towed unit's) | ``axle``
    causality    ``input`` | ``output``
    start, min, max   inputs: default value and inclusive bounds (outputs: start only)
    quantity     outputs: the computed quantity (``vehicle.dynamics.QUANTITIES`` of its scope) the row
                 reports; None: the quantity of the same name. A row naming no computed quantity reads 0.
                 Per-wheel inputs: the column of the kernel's input matrix (an input of ``FULL_VEHICLE``)
                 the row fills; None: the column of the same name.
    """

    name: str
    unit: str
    description: str
    scope: str
    causality: str
    start: float = 0.0
    min: float | None = None
    max: float | None = None
    quantity: str | None = None

    def __post_init__(self):
        if self.scope not in SCOPES:
            raise ModelError(f"signal '{self.name}': scope must be one of {SCOPES}, got {self.scope!r}")
        if self.causality not in CAUSALITIES:
            raise ModelError(f"signal '{self.name}': causality must be one of {CAUSALITIES}, got {self.causality!r}")
        if self.causality == "input" and self.scope in ("chassis", "unit", "axle"):
            raise ModelError(f"signal '{self.name}': inputs are per wheel or of the whole vehicle")

    def full_name(self, wheel: str | None = None, unit: str | None = None, axle: str | None = None) -> str:
        if self.scope == "chassis":
            return f"chassis.{self.name}"
        if self.scope == "unit":
            return f"{unit}.{self.name}"
        if self.scope == "axle":
            return f"axle_{axle}.{self.name}"
        if self.scope == "wheel":
            return f"wheel_{wheel}.{self.name}"
        return self.name


class SignalTable:
    """The rows of one vehicle kind, and the layouts derived from them."""

    def __init__(self, kind: str, rows):
        self.kind = kind
        self.rows = tuple(rows)
        seen = set()
        for r in self.rows:
            key = (r.scope, r.name)
            if key in seen:
                raise ModelError(f"signal table '{kind}': '{r.name}' appears twice in scope {r.scope}")
            seen.add(key)
        self.inputs = tuple(r for r in self.rows if r.causality == "input" and r.scope == "wheel")
        self.vehicle_inputs = tuple(r for r in self.rows if r.causality == "input" and r.scope == "vehicle")
        self.chassis_outputs = self._outputs("chassis")
        self.wheel_outputs = self._outputs("wheel")
        self.vehicle_outputs = self._outputs("vehicle")
        self.unit_outputs = self._outputs("unit")
        self.axle_outputs = self._outputs("axle")

    def _outputs(self, scope):
        return tuple(r for r in self.rows if r.causality == "output" and r.scope == scope)

    def input_columns(self, superset: "SignalTable"):
        """int64 column of each of this table's per-wheel inputs in ``superset``'s input matrix."""
        import numpy as np
        return np.array([superset.input_column(r.quantity or r.name) for r in self.inputs], dtype=np.int64)

    def output_map(self, n_wheels: int, quantities: dict, n_units: int = 0, n_axles: int = 0):
        """int64 index of each output row (``outputs`` order) in the kernel's quantity row, -1 for none.

        ``quantities`` = {scope: names of the computed quantities of that scope, in kernel order}; the
        quantity row holds the chassis block, one block per wheel, the vehicle block, one block per
        towed unit, then one block per axle."""
        import numpy as np
        qc, qw, qv, qu, qa = (quantities[k] for k in SCOPES)

        def index(r, names, base):
            q = r.quantity or r.name
            return base + names.index(q) if q in names else -1

        out = [index(r, qc, 0) for r in self.chassis_outputs]
        for w in range(n_wheels):
            out += [index(r, qw, len(qc) + w * len(qw)) for r in self.wheel_outputs]
        out += [index(r, qv, len(qc) + n_wheels * len(qw)) for r in self.vehicle_outputs]
        base = len(qc) + n_wheels * len(qw) + len(qv)
        for u in range(n_units):
            out += [index(r, qu, base + u * len(qu)) for r in self.unit_outputs]
        base += n_units * len(qu)
        for a in range(n_axles):
            out += [index(r, qa, base + a * len(qa)) for r in self.axle_outputs]
        return np.array(out, dtype=np.int64)

    @property
    def input_names(self) -> tuple[str, ...]:
        """Per-wheel input names in input-matrix column order."""
        return tuple(r.name for r in self.inputs)

    def input_column(self, name: str) -> int:
        """Column of input ``name`` in the (n_wheels, n_inputs) input matrix."""
        try:
            return self.input_names.index(name)
        except ValueError:
            raise ModelError(f"unknown vehicle input '{name}'; valid: {', '.join(self.input_names)}") from None

    def output_column(self, name: str, scope: str) -> int:
        """Offset of output ``name`` inside its block (chassis, one wheel's, or the vehicle rows)."""
        block = {"chassis": self.chassis_outputs, "wheel": self.wheel_outputs, "vehicle": self.vehicle_outputs,
                 "unit": self.unit_outputs, "axle": self.axle_outputs}[scope]
        for k, r in enumerate(block):
            if r.name == name:
                return k
        raise ModelError(f"signal table '{self.kind}': no {scope} output '{name}'")

    def outputs(self, wheel_names, unit_names=(), axle_names=()) -> list[tuple[Signal, str]]:
        """(row, full name) of every output in output-row order (``unit_names``: the towed units',
        ``axle_names``: the axles')."""
        out = [(r, r.full_name()) for r in self.chassis_outputs]
        for w in wheel_names:
            out += [(r, r.full_name(w)) for r in self.wheel_outputs]
        out += [(r, r.full_name()) for r in self.vehicle_outputs]
        for u in unit_names:
            out += [(r, r.full_name(unit=u)) for r in self.unit_outputs]
        for a in axle_names:
            out += [(r, r.full_name(axle=a)) for r in self.axle_outputs]
        return out


def _in(name, unit, description, start=0.0, lo=None, hi=None, scope="wheel", column=None):
    return Signal(name, unit, description, scope, "input", start, lo, hi, column)


def _out(scope, name, unit, description, quantity=None):
    return Signal(name, unit, description, scope, "output", quantity=quantity)


LONGITUDINAL_VERTICAL = SignalTable("longitudinal_vertical", (
    # inputs, per wheel
    _in("torque_drive", "N.m", "drive torque on the wheel about its spin axis (+ drives forward)", 0.0, -1e5, 1e5),
    _in("torque_brake", "N.m", "brake torque capacity (>= 0; the brake acts against the wheel's spin "
        "relative to its hub and holds it at rest)", 0.0, 0.0, 1e5),
    _in("road_height", "m", "road height under the wheel centre (used when road_source = inputs)", 0.0, -1e4, 1e4),
    _in("road_slope", "1", "road slope dh/dx under the wheel centre (used when road_source = inputs)",
        0.0, -100.0, 100.0),
    _in("road_mu", "1", "road friction coefficient under the wheel (used when road_source = inputs)", 1.0, 0.0, 10.0),
    _in("tire_force_x", "N", "external tire force on the wheel centre along global x (used when "
        "tire_source = external)", 0.0, -1e6, 1e6, column="force.x"),
    _in("tire_force_z", "N", "external tire force on the wheel centre along global z (used when "
        "tire_source = external)", 0.0, -1e6, 1e6, column="force.z"),
    _in("tire_moment_y", "N.m", "external tire moment on the wheel about global y at the wheel centre (used "
        "when tire_source = external)", 0.0, -1e6, 1e6, column="moment.y"),
    # chassis outputs: positions of the chassis centre of mass in the global frame of the wheel centres, the
    # road and other actors; velocities and accelerations in chassis axes (ISO 8855 vehicle axes), the same
    # for every vehicle kind
    _out("chassis", "x", "m", "chassis centre of mass x, global (road x)"),
    _out("chassis", "z", "m", "chassis centre of mass z (height), global"),
    _out("chassis", "pitch", "rad", "chassis pitch angle about +y (ISO 8855: + nose down)"),
    _out("chassis", "vx", "m/s", "velocity of the centre of mass along the chassis x axis"),
    _out("chassis", "vz", "m/s", "velocity of the centre of mass along the chassis z axis (not d(chassis.z)/dt "
         "when pitched or rolled)"),
    _out("chassis", "pitch_rate", "rad/s", "angular velocity about the chassis y axis (the half car: "
         "d(chassis.pitch)/dt)"),
    _out("chassis", "ax", "m/s2", "acceleration of the centre of mass along the chassis x axis (gravity not "
         "included)"),
    _out("chassis", "az", "m/s2", "acceleration of the centre of mass along the chassis z axis (gravity not "
         "included)"),
    _out("chassis", "pitch_acc", "rad/s2", "angular acceleration about the chassis y axis"),
    # per-wheel outputs
    _out("wheel", "omega", "rad/s", "absolute wheel spin about its axle (+ rolling forward)"),
    _out("wheel", "omega_rel", "rad/s", "wheel spin relative to the hub"),
    _out("wheel", "x", "m", "wheel centre x, global"),
    _out("wheel", "z", "m", "wheel centre z, global"),
    _out("wheel", "vx", "m/s", "wheel centre velocity x, global"),
    _out("wheel", "vz", "m/s", "wheel centre velocity z, global"),
    _out("wheel", "travel", "m", "suspension travel: wheel centre height in the chassis frame minus design (bump +)"),
    _out("wheel", "suspension_force", "N", "spring + damper + stops force of the corner's element (compression +)"),
    _out("wheel", "tire_fz", "N", "tire normal load"),
    _out("wheel", "tire_fx", "N", "tire longitudinal force (+ forward)"),
    _out("wheel", "slip", "1", "transient longitudinal slip kappa'"),
    _out("wheel", "torque_drive_applied", "N.m", "drive torque applied to the wheel"),
    _out("wheel", "torque_brake_applied", "N.m", "brake torque acting on the wheel against its spin relative "
         "to the hub (+ opposes forward rolling)"),
    # whole-model outputs
    _out("vehicle", "constraint_residual", "1", "max |Phi| of the loop-closure equations after correction "
         "[m or m2]"),
))
"""Signals of the longitudinal-vertical vehicles (the half car: x, z, pitch)."""

def _lv(scope: str, name: str) -> Signal:
    """The half car's row ``name`` of ``scope``, for a table that has the same signal alike."""
    return next(r for r in LONGITUDINAL_VERTICAL.rows if (r.scope, r.name) == (scope, name))


def _load_input(kind: str, axis: str, unit: str, meaning: str) -> Signal:
    return _in(f"{kind}.{axis}", unit, f"external tire load: {meaning}, global {axis} (used when tire_source = "
               f"external; Project Chrono's TerrainForce)", 0.0, -1e6, 1e6)


FULL_VEHICLE = SignalTable("full_vehicle", (
    # per-wheel inputs
    _lv("wheel", "torque_drive"),
    _lv("wheel", "torque_brake"),
    _lv("wheel", "road_height"),
    _lv("wheel", "road_slope"),
    _in("road_slope_y", "1", "road slope dh/dy under the wheel centre (used when road_source = inputs; the road "
        "normal is (-road_slope, -road_slope_y, 1) normalized)", 0.0, -100.0, 100.0),
    _lv("wheel", "road_mu"),
    # the external tire's load (Project Chrono's wheel interface): the force acts at the point, the moment is
    # added; the point's lever about the wheel centre is taken at the start of each step
    *(_load_input("point", a, "m", "application point of the force") for a in "xyz"),
    *(_load_input("force", a, "N", "force on the wheel") for a in "xyz"),
    *(_load_input("moment", a, "N.m", "moment on the wheel besides the force's") for a in "xyz"),
    # whole-vehicle inputs
    _in("steering_wheel_angle", "rad", "steering-wheel angle (+ steers left); the rack travel is "
        "rack_gain x this angle, ramped linearly over each step", 0.0, -20.0, 20.0, scope="vehicle"),
    _in("rack_travel_command", "m", "steering rack travel (+ toward the left) when the rack is driven directly "
        "(the FMU's steering_input = rack_travel), ramped linearly over each step; at most rack_gain x the "
        "steering-wheel angle limit", 0.0, -0.5, 0.5, scope="vehicle"),
    # chassis outputs (ISO 8855: x forward, y left, z up; angles yaw-pitch-roll about z, y', x'')
    _lv("chassis", "x"),
    _out("chassis", "y", "m", "chassis centre of mass y, global"),
    _lv("chassis", "z"),
    _out("chassis", "roll", "rad", "roll angle about x'' (+ right side down)"),
    _out("chassis", "pitch", "rad", "pitch angle about y' (+ nose down)"),
    _out("chassis", "yaw", "rad", "yaw angle about global z (+ left; not wrapped: continuous over turns)"),
    _lv("chassis", "vx"),
    _out("chassis", "vy", "m/s", "velocity of the centre of mass along the chassis y axis"),
    _lv("chassis", "vz"),
    _out("chassis", "roll_rate", "rad/s", "angular velocity about the chassis x axis"),
    _lv("chassis", "pitch_rate"),
    _out("chassis", "yaw_rate", "rad/s", "angular velocity about the chassis z axis (+ turning left)"),
    _lv("chassis", "ax"),
    _out("chassis", "ay", "m/s2", "acceleration of the centre of mass along the chassis y axis (+ left; gravity "
         "not included)"),
    _lv("chassis", "az"),
    _out("chassis", "roll_acc", "rad/s2", "angular acceleration about the chassis x axis"),
    _lv("chassis", "pitch_acc"),
    _out("chassis", "yaw_acc", "rad/s2", "angular acceleration about the chassis z axis"),
    _out("chassis", "sideslip", "rad", "vehicle sideslip angle atan2(vy, |vx|) at the centre of mass, in "
         "(-pi/2, pi/2]: + when the car moves to its left of its x axis, forward or backward, no jump when vx "
         "changes sign (0 below 0.1 m/s)"),
    # per-wheel outputs
    _lv("wheel", "omega"),
    _lv("wheel", "omega_rel"),
    # the wheel state of Project Chrono's wheel interface (global frame)
    *(_out("wheel", f"pos.{a}", "m", f"wheel centre {a}, global", a) for a in "xyz"),
    *(_out("wheel", f"rot.e{k}", "1", f"wheel frame orientation, unit quaternion component e{k} (scalar e0 "
           "first): frame y axis = spin axis pointing to the vehicle's left, x forward and z up at design",
           f"rot_e{k}") for k in range(4)),
    *(_out("wheel", f"lin_vel.{a}", "m/s", f"wheel centre velocity {a}, global", f"v{a}") for a in "xyz"),
    *(_out("wheel", f"ang_vel.{a}", "rad/s", f"wheel angular velocity {a} (including the spin), global",
           f"w{a}") for a in "xyz"),
    _out("wheel", "steer_angle", "rad", "road-wheel angle: wheel heading about the chassis z axis (+ left)"),
    _out("wheel", "camber", "rad", "inclination of the wheel plane to the road normal (+ top leaning away "
         "from the vehicle)"),
    _lv("wheel", "travel"),
    _lv("wheel", "suspension_force"),
    _lv("wheel", "tire_fz"),
    _lv("wheel", "tire_fx"),
    _out("wheel", "tire_fy", "N", "tire lateral force along the road plane, perpendicular to the wheel "
         "heading (+ left)"),
    _out("wheel", "tire_mz", "N.m", "tire aligning moment about the road normal (+ turning left)"),
    _lv("wheel", "slip"),
    _out("wheel", "slip_angle", "rad", "transient slip angle alpha' (+ when the contact slides to the left)"),
    _lv("wheel", "torque_drive_applied"),
    _lv("wheel", "torque_brake_applied"),
    # whole-model outputs
    _out("vehicle", "steering_wheel_angle_applied", "rad", "steering-wheel angle in effect: the input, ramped "
         "over the step (+ left)", "steering_wheel_angle"),
    _out("vehicle", "rack_travel", "m", "steering rack travel (+ toward the left)"),
    _out("vehicle", "rack_force", "N", "force the steering must apply to the rack along its travel"),
    _lv("vehicle", "constraint_residual"),
    # per towed unit of a combination (docs/articulated.md §6), its chassis body's
    _out("unit", "articulation", "rad", "articulation angle: the coupling's yaw, this unit's heading minus the "
         "towing unit's about the towing unit's z axis (+ counter-clockwise seen from above)"),
    _out("unit", "articulation_rate", "rad/s", "d(articulation)/dt"),
    _out("unit", "x", "m", "unit chassis centre of mass x, global (road x)"),
    _out("unit", "y", "m", "unit chassis centre of mass y, global"),
    _out("unit", "vx", "m/s", "velocity of the unit chassis centre of mass along its own x axis"),
    _out("unit", "vy", "m/s", "velocity of the unit chassis centre of mass along its own y axis"),
    _out("unit", "yaw_rate", "rad/s", "angular velocity about the unit chassis z axis (+ turning left)"),
    _out("unit", "yaw", "rad", "heading of the unit chassis x axis (z-y'-x'' yaw, as chassis.yaw), continued by "
         "whole turns to within pi of chassis.yaw"),
    _out("unit", "roll", "rad", "roll angle of the unit chassis (z-y'-x'' roll, + left side up)"),
    _out("unit", "ay", "m/s2", "acceleration of the unit chassis centre of mass along its own y axis"),
    *(_out("unit", f"coupling_f{a}", "N", f"force of the coupling on this unit along the unit chassis's {a} axis "
           f"({what})") for a, what in (("x", "+ when the towing unit pulls it forward"),
                                        ("y", "+ pushing it to its left"),
                                        ("z", "+ carrying it: the nose or kingpin load at rest"))),
    # per axle: its left (L) and right (R) wheel's
    _out("axle", "load", "N", "axle load: the two tire normal loads Fz_L + Fz_R"),
    _out("axle", "fx", "N", "axle longitudinal force: tire_fx of its two wheels summed (+ forward)"),
    _out("axle", "fy", "N", "axle lateral force: tire_fy of its two wheels summed (+ left)"),
    _out("axle", "load_transfer", "1", "lateral load transfer ratio (Fz_L - Fz_R) / (Fz_L + Fz_R): + left wheel "
         "more loaded, +-1 when a wheel lifts off (0 when both are off the ground)"),
    _out("axle", "heave", "m", "axle heave: mean suspension travel of its two wheels (bump +)"),
    _out("axle", "roll", "rad", "axle roll relative to its unit's chassis: angle of the line through the two wheel "
         "centres about the chassis x axis (+ left side up; a beam axle's roll joint angle)"),
))
"""Signals of the full vehicles (6-DOF chassis, steering, lateral tires)."""

TABLES = {LONGITUDINAL_VERTICAL.kind: LONGITUDINAL_VERTICAL, FULL_VEHICLE.kind: FULL_VEHICLE}
"""Signal table of each vehicle kind, by name."""
