"""Subsystem templates: a subsystem file (hardpoints, masses, elements) -> mechanism entries.

Each template returns a :class:`Fragment` of mechanism-file entries (see
:mod:`fmu_vehicle.multibody.spec`) named with the corner prefix (``front``, ``rear_left``, ...), plus
the :class:`WheelInfo` the vehicle layer needs. Hardpoints and centres of mass are given for the left
side relative to the wheel centre; a right-side corner mirrors y (the convention is stated once, here).

See docs/vehicle.md §2 and §3.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ModelError


@dataclass
class Fragment:
    bodies: list = field(default_factory=list)
    joints: list = field(default_factory=list)
    rods: list = field(default_factory=list)
    fork_arms: list = field(default_factory=list)
    force_elements: list = field(default_factory=list)
    independent: list = field(default_factory=list)

    def extend(self, other: "Fragment"):
        for k in ("bodies", "joints", "rods", "fork_arms", "force_elements", "independent"):
            getattr(self, k).extend(getattr(other, k))


@dataclass(frozen=True)
class WheelInfo:
    """What the vehicle layer needs to know of one wheel (design coordinates)."""
    name: str                 # corner prefix, e.g. "front" or "front_left"
    body: str                 # wheel body
    hub_body: str             # knuckle / carrier carrying the wheel bearing
    spin_coordinate: str      # wheel revolute coordinate (relative to the hub)
    travel_coordinate: str    # the independent suspension coordinate
    center_m: tuple           # wheel centre at the design configuration
    spin_axis: tuple          # unit wheel axis at design (+y for both sides: forward rolling is +spin)
    spring: str               # spring-damper element name
    driven: bool
    tire_file: str
    side: str = "left"        # "left" or "right": a right-hand corner mirrors y and its tire
    chassis_body: str = "chassis"   # the unit's chassis body the corner is mounted on (docs/articulated.md §6)
    axle: str = ""            # the corner file's axle name ("": none given; loader.vehicle_axles pairs it)


class _HP:
    """Point reader: left-side offsets from the wheel centre in the object ``data[field]`` -> design
    coordinates, ``c + (x, +-y, z)``."""

    def __init__(self, data: dict, center, mirror: bool, where: str, field: str = "hardpoints_m"):
        self.hp = data.get(field)
        if not isinstance(self.hp, dict):
            raise ModelError(f"{where}: missing field '{field}'")
        self.c = np.asarray(center, dtype=float)
        self.s = np.array([1.0, -1.0 if mirror else 1.0, 1.0])
        self.where, self.field = where, field

    def __call__(self, key: str) -> list:
        v = self.hp.get(key)
        if not (isinstance(v, list) and len(v) == 3 and all(isinstance(x, (int, float)) for x in v)):
            raise ModelError(f"{self.where}: {self.field}: missing or invalid point '{key}' (3 numbers, m)")
        return (self.c + self.s * np.asarray(v, dtype=float)).tolist()


def _num(d: dict, key: str, where: str) -> float:
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ModelError(f"{where}: missing or non-numeric field '{key}'")
    return float(v)


def _inertia(d: dict, key: str, where: str) -> dict:
    v = d.get(key)
    if not isinstance(v, dict):
        raise ModelError(f"{where}: missing field '{key}' ({{xx, yy, zz}} kg m^2)")
    return v


def _body(name, mass, com, inertia):
    return {"name": name, "mass_kg": mass, "com_m": list(map(float, com)), "inertia_kg_m2": inertia}


def _spring_damper(name, a, pa, b, pb, data: dict, where: str) -> dict:
    el = {"name": name, "type": "spring_damper", "body_a": a, "point_a_m": pa, "body_b": b, "point_b_m": pb}
    sp = data.get("spring")
    if not isinstance(sp, dict):
        raise ModelError(f"{where}: missing field 'spring'")
    el["stiffness_N_per_m"] = _num(sp, "stiffness_N_per_m", f"{where}: spring")
    if "preload_N" in sp:
        el["preload_N"] = _num(sp, "preload_N", f"{where}: spring")
    dm = data.get("damper")
    if not isinstance(dm, dict):
        raise ModelError(f"{where}: missing field 'damper'")
    el["damping_N_s_per_m"] = _num(dm, "damping_N_s_per_m", f"{where}: damper")
    for stop in ("bump_stop", "rebound_stop"):
        if stop in data:
            el[stop] = data[stop]
    return el


def macpherson_strut(prefix: str, chassis: str, center, mirror: bool, data: dict, where: str,
                     tie_rod_body: str | None = None):
    """MacPherson strut corner (Dai, Pan et al. 2022, Fig. 2): strut hung from the chassis by a spherical
    top mount (3R, strut axis last), knuckle sliding on the strut (prismatic), wheel revolute on the
    knuckle, lower arm on a chassis revolute closed by a cut ball joint (or removed as a fork arm,
    Dai, Pan et al. 2022, section 3), tie rod removed. Independent coordinate: the strut slide.
    Centres of mass: the knuckle's from ``com_m``, the strut's at the middle of its two hardpoints, the
    lower arm's at the centroid of its three, the wheel's at the wheel centre."""
    hp = _HP(data, center, mirror, where)
    com = _HP(data, center, mirror, where, "com_m")
    m = data.get("masses_kg", {})
    c = list(map(float, center))
    knuckle, wheel, strut, arm = f"{prefix}.knuckle", f"{prefix}.wheel", f"{prefix}.strut", f"{prefix}.lower_arm"
    top, low = np.array(hp("strut_top")), np.array(hp("strut_lower"))
    axis = (top - low) / np.linalg.norm(top - low)
    j, k, l = hp("lower_ball_joint"), hp("lower_arm_front"), hp("lower_arm_rear")
    f = Fragment()
    f.bodies += [
        _body(strut, _num(m, "strut", where), (top + low) / 2, _inertia(data, "strut_inertia_kg_m2", where)),
        _body(knuckle, _num(m, "knuckle", where), com("knuckle"), _inertia(data, "knuckle_inertia_kg_m2", where)),
        _body(wheel, _num(m, "wheel", where), c, _inertia(data, "wheel_inertia_kg_m2", where)),
    ]
    # first two top-mount axes perpendicular to the strut axis, strut axis last: the three axes are
    # orthogonal at design, far from the singular configuration where the first and last coincide
    e1 = np.cross([0.0, 1.0, 0.0], axis)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(axis, e1)
    f.joints += [
        {"name": f"{prefix}.top_mount", "type": "spherical", "parent": chassis, "child": strut,
         "point_m": top.tolist(), "axes": [e1.tolist(), e2.tolist(), axis.tolist()]},
        {"name": f"{prefix}.travel", "type": "prismatic", "parent": strut, "child": knuckle,
         "point_m": low.tolist(), "axis": axis.tolist()},
        {"name": f"{prefix}.spin", "type": "revolute", "parent": knuckle, "child": wheel, "point_m": c,
         "axis": [0.0, 1.0, 0.0]},
    ]
    lower_arm = data.get("lower_arm", "body")
    if lower_arm == "body":
        f.bodies.append(_body(arm, _num(m, "lower_arm", where), (np.array(j) + np.array(k) + np.array(l)) / 3,
                              _inertia(data, "lower_arm_inertia_kg_m2", where)))
        kl = np.array(l) - np.array(k)
        f.joints += [
            {"name": f"{prefix}.lower_arm_pivot", "type": "revolute", "parent": chassis, "child": arm,
             "point_m": k, "axis": (kl / np.linalg.norm(kl)).tolist()},
            {"name": f"{prefix}.ball_joint", "type": "spherical", "parent": arm, "child": knuckle, "point_m": j,
             "cut": True},
        ]
    elif lower_arm == "fork_arm":
        # the arm's mass is split between its two bars in proportion to their lengths (uniform bars)
        ljk, ljl = np.linalg.norm(np.subtract(k, j)), np.linalg.norm(np.subtract(l, j))
        ma = _num(m, "lower_arm", where)
        f.fork_arms.append({"name": arm, "body_j": knuckle, "point_j_m": j, "body_kl": chassis,
                            "point_k_m": k, "point_l_m": l, "mass_jk_kg": ma * ljk / (ljk + ljl),
                            "mass_jl_kg": ma * ljl / (ljk + ljl)})
    else:
        raise ModelError(f"{where}: field 'lower_arm' must be \"body\" or \"fork_arm\", got {lower_arm!r}")
    f.rods.append({"name": f"{prefix}.tie_rod", "body_a": knuckle, "point_a_m": hp("tie_rod_outer"),
                   "body_b": tie_rod_body or chassis, "point_b_m": hp("tie_rod_inner"),
                   "mass_kg": _num(m, "tie_rod", where)})
    f.force_elements.append(_spring_damper(f"{prefix}.strut_spring", chassis, top.tolist(), knuckle,
                                           hp("spring_seat_lower"), data, where))
    f.independent += [f"{prefix}.travel", f"{prefix}.spin"]
    return f, dict(body=wheel, hub_body=knuckle, spin_coordinate=f"{prefix}.spin",
                   travel_coordinate=f"{prefix}.travel", spring=f"{prefix}.strut_spring")


FIVE_LINKS = ("upper_front", "upper_rear", "lower_front", "lower_rear", "toe")


def five_link(prefix: str, chassis: str, center, mirror: bool, data: dict, where: str, tie_rod_body=None):
    """Five-link corner (Dai, Pan et al. 2022, Fig. 2): the wheel carrier has a free joint (3P + 3R, five
    massless auxiliary bodies) to the chassis and is located by five removed rods; a coil-over acts between
    carrier and chassis. Independent coordinate: the carrier's vertical slide. Centres of mass: the
    carrier's from ``com_m``, the wheel's at the wheel centre. Not steerable (``tie_rod_body`` must be None)."""
    if tie_rod_body is not None:
        raise ModelError(f"{where}: a five-link corner cannot be steered (its toe link is fixed to the chassis)")
    hp = _HP(data, center, mirror, where)
    com = _HP(data, center, mirror, where, "com_m")
    m = data.get("masses_kg", {})
    c = list(map(float, center))
    carrier, wheel = f"{prefix}.carrier", f"{prefix}.wheel"
    f = Fragment()
    f.bodies += [
        _body(carrier, _num(m, "carrier", where), com("carrier"), _inertia(data, "carrier_inertia_kg_m2", where)),
        _body(wheel, _num(m, "wheel", where), c, _inertia(data, "wheel_inertia_kg_m2", where)),
    ]
    f.joints += [
        {"name": f"{prefix}.carrier", "type": "free", "parent": chassis, "child": carrier, "point_m": c,
         "coordinate_names": [f"{prefix}.carrier_x", f"{prefix}.carrier_y", f"{prefix}.travel",
                              f"{prefix}.carrier_rz", f"{prefix}.carrier_ry", f"{prefix}.carrier_rx"]},
        {"name": f"{prefix}.spin", "type": "revolute", "parent": carrier, "child": wheel, "point_m": c,
         "axis": [0.0, 1.0, 0.0]},
    ]
    for link in FIVE_LINKS:
        f.rods.append({"name": f"{prefix}.{link}", "body_a": carrier, "point_a_m": hp(f"{link}_carrier"),
                       "body_b": chassis, "point_b_m": hp(f"{link}_chassis"), "mass_kg": _num(m, link, where)})
    f.force_elements.append(_spring_damper(f"{prefix}.spring", chassis, hp("spring_chassis"), carrier,
                                           hp("spring_carrier"), data, where))
    f.independent += [f"{prefix}.travel", f"{prefix}.spin"]
    return f, dict(body=wheel, hub_body=carrier, spin_coordinate=f"{prefix}.spin",
                   travel_coordinate=f"{prefix}.travel", spring=f"{prefix}.spring")


def _unit(v, where: str) -> list:
    v = np.asarray(v, dtype=float)
    n = float(np.linalg.norm(v))
    if not n > 1e-9:
        raise ModelError(f"{where}: the two points coincide (no axis)")
    return (v / n).tolist()


def beam_axle(axle: str, chassis: str, corners, where: str, tie_rod_body: str | None = None):
    """Beam (rigid) axle carrying a left and a right wheel, on leaf or air springs: the axle body (named
    ``<axle>.axle``, centre of mass at the middle of the two wheel centres) hangs from the chassis by a
    vertical slide (coordinate ``<axle>.heave``, a massless slide body between) and a revolute joint about the
    chassis x axis through the roll centre (``roll_center_m``, relative to the axle's middle; coordinate
    ``<axle>.roll``), so the axle moves in heave and roll and is held in x, y and yaw as by its leaf springs or
    its trailing arms and Panhard rod. Each side has a spring-damper between the chassis and the axle (its
    spring seat), with the spring, damper and stops of that side's data. Unsteered, each wheel turns on the
    axle at its wheel centre; steered (``tie_rod_body`` given), each wheel turns on a knuckle that is hinged
    to the axle about the kingpin axis (``kingpin_lower`` to ``kingpin_upper``) and located by a removed tie
    rod from its steering arm (``tie_rod_knuckle``) to ``tie_rod_body`` (``tie_rod_inner``), so the knuckles'
    steer angles are dependent coordinates and Ackermann follows from the arms' geometry.

    ``corners`` is ((name, wheel centre [m], data, mirror), ...) for the left and the right corner; each data
    is that corner's suspension file merged with its overrides: the axle's own fields (``masses_kg.axle``,
    ``axle_inertia_kg_m2``, ``roll_center_m``) must be the same on both sides. Hardpoints are left-side offsets
    from each wheel centre (mirrored for the right). Independent coordinates: heave, roll and the two spins.
    Returns (Fragment, (wheel fields left, wheel fields right))."""
    (ln, lc, ld, _lm), (rn, rc, rd, _rm) = corners
    for key in ("axle_inertia_kg_m2", "roll_center_m"):
        if ld.get(key) != rd.get(key):
            raise ModelError(f"{where}: field '{key}' differs between corners '{ln}' and '{rn}' of one axle")
    if ld.get("masses_kg", {}).get("axle") != rd.get("masses_kg", {}).get("axle"):
        raise ModelError(f"{where}: field 'masses_kg.axle' differs between corners '{ln}' and '{rn}' of one axle")
    mid = (np.asarray(lc, dtype=float) + np.asarray(rc, dtype=float)) / 2.0
    roll_c = ld.get("roll_center_m")
    if not (isinstance(roll_c, list) and len(roll_c) == 3 and all(isinstance(x, (int, float)) for x in roll_c)):
        raise ModelError(f"{where}: missing or invalid field 'roll_center_m' (3 numbers, m, from the axle's middle)")
    slide, body = f"{axle}.axle_slide", f"{axle}.axle"
    f = Fragment()
    f.bodies += [_body(slide, 0.0, mid, {"xx": 0.0, "yy": 0.0, "zz": 0.0}),
                 _body(body, _num(ld.get("masses_kg", {}), "axle", f"{where}: masses_kg"), mid,
                       _inertia(ld, "axle_inertia_kg_m2", where))]
    f.joints += [
        {"name": f"{axle}.heave", "type": "prismatic", "parent": chassis, "child": slide,
         "point_m": mid.tolist(), "axis": [0.0, 0.0, 1.0]},
        {"name": f"{axle}.roll", "type": "revolute", "parent": slide, "child": body,
         "point_m": (mid + np.asarray(roll_c, dtype=float)).tolist(), "axis": [1.0, 0.0, 0.0]},
    ]
    f.independent += [f"{axle}.heave", f"{axle}.roll"]
    wheels = []
    for name, center, data, mirror in corners:
        cw = f"{where} (corner '{name}')"
        hp = _HP(data, center, mirror, cw)
        m = data.get("masses_kg", {})
        c = list(map(float, center))
        wheel, hub = f"{name}.wheel", body
        if tie_rod_body is not None:
            hub = f"{name}.knuckle"
            lower, upper = hp("kingpin_lower"), hp("kingpin_upper")
            f.bodies.append(_body(hub, _num(m, "knuckle", cw), c, _inertia(data, "knuckle_inertia_kg_m2", cw)))
            f.joints.append({"name": f"{name}.steer", "type": "revolute", "parent": body, "child": hub,
                             "point_m": lower, "axis": _unit(np.subtract(upper, lower), f"{cw}: kingpin")})
            f.rods.append({"name": f"{name}.tie_rod", "body_a": hub, "point_a_m": hp("tie_rod_knuckle"),
                           "body_b": tie_rod_body, "point_b_m": hp("tie_rod_inner"),
                           "mass_kg": _num(m, "tie_rod", cw)})
        f.bodies.append(_body(wheel, _num(m, "wheel", cw), c, _inertia(data, "wheel_inertia_kg_m2", cw)))
        f.joints.append({"name": f"{name}.spin", "type": "revolute", "parent": hub, "child": wheel, "point_m": c,
                         "axis": [0.0, 1.0, 0.0]})
        f.force_elements.append(_spring_damper(f"{name}.spring", chassis, hp("spring_chassis"), body,
                                               hp("spring_axle"), data, cw))
        f.independent.append(f"{name}.spin")
        wheels.append(dict(body=wheel, hub_body=hub, spin_coordinate=f"{name}.spin",
                           travel_coordinate=f"{axle}.heave", spring=f"{name}.spring"))
    return f, tuple(wheels)


def planar_chassis(name: str, data: dict, where: str) -> Fragment:
    """Chassis moving in the x-z plane (x, z, pitch: 2 massless auxiliary bodies), for the 7-DOF
    half car; the joint's reference point is the chassis CoM at design."""
    com = data.get("com_m")
    f = Fragment()
    f.bodies.append(_body(name, _num(data, "mass_kg", where), com, _inertia(data, "inertia_kg_m2", where)))
    f.joints.append({"name": "chassis", "type": "planar", "parent": "ground", "child": name, "point_m": com,
                     "axes": [[1, 0, 0], [0, 0, 1], [0, 1, 0]],
                     "coordinate_names": ["chassis.x", "chassis.z", "chassis.pitch"]})
    f.independent += ["chassis.x", "chassis.z", "chassis.pitch"]
    return f


def free_chassis(name: str, data: dict, where: str) -> Fragment:
    """Chassis with 6 DOF (x, y, z, yaw, pitch, roll) for the 14-DOF full car."""
    com = data.get("com_m")
    f = Fragment()
    f.bodies.append(_body(name, _num(data, "mass_kg", where), com, _inertia(data, "inertia_kg_m2", where)))
    f.joints.append({"name": "chassis", "type": "free", "parent": "ground", "child": name, "point_m": com,
                     "coordinate_names": ["chassis.x", "chassis.y", "chassis.z", "chassis.yaw", "chassis.pitch",
                                          "chassis.roll"]})
    f.independent += ["chassis.x", "chassis.y", "chassis.z", "chassis.yaw", "chassis.pitch", "chassis.roll"]
    return f


def rack_steering(chassis: str, data: dict, inner_points, where: str) -> Fragment:
    """A steering rack: a body on a prismatic joint along the chassis y axis through the middle of the
    steered corners' inner tie-rod points; its travel ``steering.rack_travel`` [m, + toward the left] is a
    driven coordinate (prescribed by the steering input, docs/formulation.md §13). The tie rods of the
    steered corners end on it, so Ackermann, toe and bump steer follow from the hardpoints."""
    mid = np.mean(np.asarray(inner_points, dtype=float), axis=0)
    f = Fragment()
    f.bodies.append(_body("steering.rack", _num(data, "mass_kg", where), mid,
                          _inertia(data, "inertia_kg_m2", where)))
    f.joints.append({"name": "steering.rack_travel", "type": "prismatic", "parent": chassis,
                     "child": "steering.rack", "point_m": mid.tolist(), "axis": [0.0, 1.0, 0.0]})
    return f


def _towed_chassis(unit: str, chassis: dict, where: str) -> Fragment:
    f = Fragment()
    f.bodies.append(_body(unit, _num(chassis, "mass_kg", f"{where}: chassis"), chassis.get("com_m"),
                          _inertia(chassis, "inertia_kg_m2", f"{where}: chassis")))
    return f


def ball_coupling(unit: str, towing: str, point, chassis: dict, data: dict, where: str, cwhere: str):
    """A towed unit's chassis body (named ``unit``) on a ball hitch: a spherical joint at ``point`` (design
    coordinates) on the towing chassis body, axes z, y', x'': coordinates ``<unit>.yaw`` (the articulation
    angle), ``<unit>.pitch``, ``<unit>.roll``, relative to the towing unit. Returns (Fragment, coordinates)."""
    if data.get("roll_stiffness_N_m_per_rad") is not None:
        raise ModelError(f"{cwhere}: a ball coupling has no roll stiffness")
    f = _towed_chassis(unit, chassis, where)
    coords = (f"{unit}.yaw", f"{unit}.pitch", f"{unit}.roll")
    f.joints.append({"name": f"{unit}.coupling", "type": "spherical", "parent": towing, "child": unit,
                     "point_m": list(map(float, point)), "coordinate_names": list(coords)})
    f.independent += list(coords)
    return f, coords


def fifth_wheel_coupling(unit: str, towing: str, point, chassis: dict, data: dict, where: str, cwhere: str):
    """A towed unit's chassis body on a fifth wheel at ``point``: pitch and yaw free; without
    ``roll_stiffness_N_m_per_rad`` rigid in roll (a universal joint, axes z then y': ``<unit>.yaw``,
    ``<unit>.pitch``), with it a spherical joint as :func:`ball_coupling` plus a rotational spring-damper on
    ``<unit>.roll``: M = -k roll - c d(roll)/dt [N m] (k, c: ``roll_stiffness_N_m_per_rad``,
    ``roll_damping_N_m_s_per_rad``). Returns (Fragment, coordinates)."""
    if data.get("roll_stiffness_N_m_per_rad") is None:
        f = _towed_chassis(unit, chassis, where)
        coords = (f"{unit}.yaw", f"{unit}.pitch")
        f.joints.append({"name": f"{unit}.coupling", "type": "universal", "parent": towing, "child": unit,
                         "point_m": list(map(float, point)), "axes": [[0, 0, 1], [0, 1, 0]],
                         "coordinate_names": list(coords)})
        f.independent += list(coords)
        return f, coords
    f, coords = ball_coupling(unit, towing, point, chassis, {}, where, cwhere)
    f.force_elements.append({"name": f"{unit}.coupling_roll", "type": "rotational_spring_damper",
                             "coordinate": coords[2],
                             "stiffness_N_m_per_rad": _num(data, "roll_stiffness_N_m_per_rad", cwhere),
                             "damping_N_m_s_per_rad": _num(data, "roll_damping_N_m_s_per_rad", cwhere)})
    return f, coords


@dataclass(frozen=True)
class AntiRollBar:
    """An anti-roll (torsion) bar between the left and the right corner of an axle: a force element of the
    vehicle layer (``vehicle.dynamics.anti_roll_bars``), not of the engine.

    Its stiffness is given per radian of the axle's roll relative to the chassis, K_phi [N m/rad], the roll
    being phi = (s_L - s_R) / t with s the wheel travels (wheel-centre height in the chassis frame minus its
    design value, bump +) and t the design track (the wheel centres' y distance). Its potential is
    V = K_phi phi^2 / 2 = k_w (s_L - s_R)^2 / 2 with the rate at the wheel k_w = K_phi / t^2 [N/m]: each wheel
    gets the force -+k_w (s_L - s_R) along the chassis z axis at its centre (left -, right +) and the chassis
    the opposite force at the same point. Being a pure roll element it adds K_phi to the axle's roll
    stiffness and nothing to its heave stiffness."""
    axle: str
    left: str                         # the axle's left corner
    right: str                        # the axle's right corner
    roll_stiffness_N_m_per_rad: float
    track_m: float

    @property
    def wheel_rate_N_per_m(self) -> float:
        """k_w = K_phi / t^2 [N/m] (class docstring)."""
        return self.roll_stiffness_N_m_per_rad / self.track_m ** 2


def anti_roll_bars(data, axles, wheels, where: str) -> tuple:
    """The anti-roll bars of a vehicle file's field ``anti_roll_bars``, an object {axle name: {"roll_stiffness_
    N_m_per_rad": K_phi}} (``axles``: the vehicle's AxleSpecs, ``wheels``: its WheelInfos), as
    :class:`AntiRollBar` in the order of the axles. A stiffness of 0 gives no bar (no element is evaluated);
    None (field absent) gives none."""
    if data is None:
        return ()
    if not isinstance(data, dict):
        raise ModelError(f"{where}: field 'anti_roll_bars' must be an object {{axle name: {{roll_stiffness_"
                         f"N_m_per_rad}}}}")
    by_name = {a.name: a for a in axles}
    centers = {w.name: w.center_m for w in wheels}
    for name, bar in data.items():
        w = f"{where}: anti_roll_bars.{name}"
        if name not in by_name:
            raise ModelError(f"{w}: no axle '{name}'; valid: {', '.join(by_name) or 'none'}")
        if not isinstance(bar, dict) or set(bar) - {"roll_stiffness_N_m_per_rad", "description"}:
            raise ModelError(f"{w}: must be an object with the field 'roll_stiffness_N_m_per_rad' [N m/rad]")
        k = _num(bar, "roll_stiffness_N_m_per_rad", w)
        if not 0.0 <= k < float("inf"):
            raise ModelError(f"{w}: field 'roll_stiffness_N_m_per_rad' must be a finite number >= 0, got {k!r}")
    out = []
    for a in axles:
        k = float(data[a.name]["roll_stiffness_N_m_per_rad"]) if a.name in data else 0.0
        if k > 0.0:
            out.append(AntiRollBar(a.name, a.left, a.right, k, abs(centers[a.left][1] - centers[a.right][1])))
    return tuple(out)


STEERING_TEMPLATES = {"rack": rack_steering}
COUPLING_TEMPLATES = {"ball": ball_coupling, "fifth_wheel": fifth_wheel_coupling}
SUSPENSION_TEMPLATES = {"macpherson_strut": macpherson_strut, "five_link": five_link}
AXLE_TEMPLATES = {"beam_axle": beam_axle}
"""Templates of a suspension that carries two corners (a left and a right wheel): a vehicle file's corners
name the axle they share (field ``axle``)."""
CHASSIS_TEMPLATES = {"planar": planar_chassis, "free": free_chassis}
