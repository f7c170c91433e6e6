"""Read a vehicle file (``resources/vehicles/<name>.json``) into a :class:`VehicleSpec`.

A vehicle file names a chassis template and its corners; each corner names a suspension file
(``resources/vehicles/suspensions/``), a tire property file (``resources/tires/``), its wheel centre
at the design configuration and whether it is driven::

    {"name": "halfcar7", "chassis": {"template": "planar", "mass_kg": ..., "com_m": [...], "inertia_kg_m2": {...}},
     "corners": [{"name": "front", "side": "left", "suspension": "macpherson_front.json",
                  "wheel_center_m": [0, 1.1967, 0.4672], "tire": "x.tir", "driven": true,
                  "suspension_overrides": {...}}, ...]}

A variant file says ``"extends": "<other>.json"`` and overrides fields; its ``corners`` may be an
object ``{corner name: {fields to override}}``, its ``units`` an object ``{unit name: {fields}}`` (a unit's
``corners`` again by name, or a list that replaces them) and its ``couplings`` an object
``{towed unit name: {fields}}``; a list replaces the base file's list. Overrides given in Python use dotted
paths, e.g. ``{"corners.front.suspension_overrides.spring.stiffness_N_per_m": 42000}``.

See docs/vehicle.md §2.
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..errors import ModelError
from ..multibody.spec import MechanismSpec, parse_mechanism
from ..paths import resource_path
from ..tire.models import read_tire, tires_side_by_side
from ..util import read_json
from .templates import (AXLE_TEMPLATES, CHASSIS_TEMPLATES, COUPLING_TEMPLATES, STEERING_TEMPLATES, SUSPENSION_TEMPLATES,
                        WheelInfo, anti_roll_bars)


@dataclass(frozen=True)
class SteeringSpec:
    """The steering of a vehicle: its driven rack coordinate and the rack travel per steering-wheel angle."""
    template: str
    rack_coordinate: str          # the driven coordinate of the rack [m]
    rack_gain_m_per_rad: float    # rack travel [m] per rad of steering-wheel angle (sign: + angle steers left)
    corners: tuple                # names of the steered corners
    rack_travel_limit_m: float    # the rack's end stops: |rack travel| <= this [m]

    @property
    def angle_limit_rad(self) -> float:
        """The steering-wheel angle that puts the rack on its end stop: limit / |gain| [rad]."""
        return self.rack_travel_limit_m / abs(self.rack_gain_m_per_rad)


@dataclass(frozen=True)
class VehicleSpec:
    name: str
    description: str
    source: str
    paper_model: str | None
    chassis_template: str
    chassis_body: str
    mechanism: MechanismSpec
    wheels: tuple          # WheelInfo per corner, in file order
    tires: tuple           # tire data per corner (its model's reader's, e.g. tir.TireParams; tire.models)
    data: dict             # the merged vehicle data (for reports)
    steering: SteeringSpec | None = None
    units: tuple = ()      # UnitSpec per towed unit (trailers), in file order; () for a single-unit vehicle
    axles: tuple = ()      # AxleSpec per axle (``vehicle_axles``), in the order of their first corner
    anti_roll_bars: tuple = ()   # templates.AntiRollBar per axle with a bar (field ``anti_roll_bars``)

    def refuse_combination(self, what: str) -> None:
        """ModelError if this vehicle has towed units (docs/articulated.md §6): "``what`` a combination is not
        supported yet" (e.g. what = "drawings of")."""
        if self.units:
            raise ModelError(f"vehicle '{self.name}': {what} a combination (towed units "
                             f"{', '.join(u.name for u in self.units)}) is not supported yet")

    @property
    def total_mass_kg(self) -> float:
        """Sum of the masses of every body and removed rod [kg]."""
        return sum(b.mass_kg for b in self.mechanism.bodies) + sum(r.mass_kg for r in self.mechanism.rods)

    def wheel(self, name: str) -> WheelInfo:
        """The corner named ``name`` (ModelError naming the valid ones otherwise)."""
        for w in self.wheels:
            if w.name == name:
                return w
        raise ModelError(f"vehicle '{self.name}': unknown wheel '{name}'; valid: "
                         f"{', '.join(w.name for w in self.wheels)}")


@dataclass(frozen=True)
class UnitSpec:
    """A towed unit of an articulated vehicle (docs/articulated.md §6): its chassis body, hung from the towing
    unit's chassis body by the coupling joint at ``coupling_point_m`` (design coordinates)."""
    name: str                   # the unit's name, also its chassis body's name
    towing: str                 # chassis body of the unit it hangs from ("chassis": the towing unit)
    coupling: str               # "ball" (spherical joint) or "fifth_wheel" (universal, or spherical + roll spring)
    coupling_point_m: tuple     # the coupling point at the design configuration [m]
    coordinates: tuple          # the coupling joint's coordinates (yaw, pitch[, roll]) relative to the towing unit
    corners: tuple              # names of this unit's corners

    @property
    def yaw_coordinate(self) -> str:
        """The articulation angle's coordinate: this unit's yaw relative to the towing one [rad, + left]."""
        return self.coordinates[0]


@dataclass(frozen=True)
class AxleSpec:
    """An axle: a left and a right corner of one unit (the signals of scope ``axle``, docs/vehicle.md §2, §10)."""
    name: str                   # the corners' field ``axle``, or made from their names (``vehicle_axles``)
    left: str                   # the left-hand corner's name
    right: str                  # the right-hand corner's name


AXLE_X_TOL_M = 0.05
"""Two corners without a field ``axle`` form an axle when they are on the same unit, one left and one right,
and their design wheel centres are at most this far apart along x [m]."""


def _axle_name(a: str, b: str) -> str:
    """The name of the axle of corners ``a`` and ``b`` given none: the names without the one character in which
    they differ (FL, FR -> F; RL1, RR1 -> R1), else their common beginning without a trailing '_' or '-'
    (front_left, front_right -> front); "" if neither gives a name."""
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1 and len(a) > 1:
            return a[:diff[0]] + a[diff[0] + 1:]
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n].rstrip("_-")


def vehicle_axles(wheels, src: str) -> tuple:
    """The axles (``AxleSpec``, in the order of their first corner) of the corners ``wheels`` (WheelInfo): the
    corners that share a field ``axle`` (one left, one right, on one unit), and each left corner without one
    with the first right corner without one on its unit whose design wheel centre is within ``AXLE_X_TOL_M``
    along x. A corner left without a partner (the half car's single-track corners) is on no axle."""
    out, named, free = [], {}, []
    for i, w in enumerate(wheels):
        if w.axle:
            named.setdefault(w.axle, []).append((i, w))
        else:
            free.append((i, w))
    for axle, members in named.items():
        sides = sorted(w.side for _i, w in members)
        if sides != ["left", "right"] or members[0][1].chassis_body != members[1][1].chassis_body:
            raise ModelError(f"{src}: axle '{axle}' needs one left and one right corner of one unit, has "
                             f"{', '.join(f'{w.name} ({w.side}, on {w.chassis_body})' for _i, w in members)}")
        left, right = sorted(members, key=lambda m: m[1].side != "left")
        out.append((min(left[0], right[0]), AxleSpec(axle, left[1].name, right[1].name)))
    taken = set()
    for i, w in free:
        if w.side != "left":
            continue
        partner = next(((j, r) for j, r in free if j not in taken and r.side == "right"
                        and r.chassis_body == w.chassis_body
                        and abs(r.center_m[0] - w.center_m[0]) <= AXLE_X_TOL_M), None)
        if partner is None:
            continue
        taken.add(partner[0])
        name = _axle_name(w.name, partner[1].name)
        if not name or "." in name:
            raise ModelError(f"{src}: corners '{w.name}' and '{partner[1].name}' form an axle whose name cannot be "
                             f"made from theirs: give both a field 'axle'")
        out.append((min(i, partner[0]), AxleSpec(name, w.name, partner[1].name)))
    axles = tuple(a for _i, a in sorted(out, key=lambda e: e[0]))
    names = [a.name for a in axles]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ModelError(f"{src}: axle names must be unique; repeated: {', '.join(dup)} (name the axles with the "
                         f"corners' field 'axle')")
    return axles


def _point_m(value, field: str, note: str = ""):
    """``value`` if it is a list of 3 numbers (a point [m]); ModelError naming ``field`` otherwise."""
    if not (isinstance(value, list) and len(value) == 3
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise ModelError(f"{field} must be 3 numbers [m]{note}")
    return value


class CornerData(NamedTuple):
    """A corner of a vehicle file as read and checked by :func:`_corner_data`."""
    name: str                # the corner's name (its wheel's)
    side: str                # "left" or "right"
    suspension_file: Path    # its suspension file
    suspension: dict         # that file's data merged with the corner's ``suspension_overrides``
    center: object           # design wheel centre [m], (3,)
    where: str               # the corner's place in the vehicle file, for error messages


def _corner_data(c, i, src, base, prefix) -> CornerData:
    """The corner ``c`` (entry ``i`` of the list ``prefix`` of the file ``src``), checked."""
    where = f"{src}: {prefix}[{i}]"
    cname = c.get("name") if isinstance(c, dict) else None
    if not isinstance(cname, str) or not cname:
        raise ModelError(f"{where}: missing field 'name'")
    where = f"{where} '{cname}'"
    side = c.get("side", "left")
    if side not in ("left", "right"):
        raise ModelError(f"{where}: field 'side' must be \"left\" or \"right\", got {side!r}")
    susp_file = c.get("suspension")
    if not isinstance(susp_file, str):
        raise ModelError(f"{where}: missing field 'suspension'")
    sp = resource_path("vehicles", "suspensions", susp_file, base=base)
    susp = _merge(read_json(sp, "suspension"), c.get("suspension_overrides", {}))
    center = _point_m(c.get("wheel_center_m"), f"{where}: field 'wheel_center_m'")
    return CornerData(cname, side, sp, susp, center, where)


def _axle_fragment(axle, members, chassis_body, rack, src, frag, inner_points):
    """Build the suspension shared by the two corners ``members`` ([(corner, corner data), ...]) of the axle
    named ``axle`` (``AXLE_TEMPLATES``); returns {corner name: wheel fields}."""
    where = f"{src}: axle '{axle}'"
    if not axle:
        raise ModelError(f"{src}: field 'axle' of a two-corner suspension must name its axle, got {axle!r}")
    sides = sorted(d.side for _c, d in members)
    if sides != ["left", "right"]:
        raise ModelError(f"{where}: needs one left and one right corner, has "
                         f"{', '.join(d.name + ' (' + d.side + ')' for _c, d in members)}")
    members = sorted(members, key=lambda m: m[1].side != "left")      # left first
    files = {str(d.suspension_file) for _c, d in members}
    if len(files) != 1:
        raise ModelError(f"{where}: its corners name different suspension files ({', '.join(sorted(files))})")
    sp, data = members[0][1].suspension_file, members[0][1].suspension
    st = data.get("template")
    if st not in AXLE_TEMPLATES:
        raise ModelError(f"{sp}: template {st!r} does not carry an axle (field 'axle' of the corners); "
                         f"valid: {', '.join(AXLE_TEMPLATES)}")
    steered = {bool(c.get("steered", False)) for c, _d in members}
    if len(steered) != 1:
        raise ModelError(f"{where}: either both its corners are steered or neither")
    tie = rack if steered.pop() else None
    f, fields = AXLE_TEMPLATES[st](axle, chassis_body, [(d.name, d.center, d.suspension, d.side == "right") for _c, d in members],
                                   f"{sp} (axle '{axle}')", tie_rod_body=tie)
    if tie is not None:
        inner_points += [r["point_b_m"] for r in f.rods if r["body_b"] == tie]
    frag.extend(f)
    return {d[0]: w for (_c, d), w in zip(members, fields)}


def _add_corners(corners, chassis_body, rack, src, base, frag, wheels, tires, inner_points, prefix="corners"):
    """Append the suspension fragments, WheelInfo and tire data of ``corners`` (a vehicle file's corner list)
    mounted on the body ``chassis_body``. A corner of a two-corner template (``AXLE_TEMPLATES``: a beam axle)
    shares the suspension named by its field ``axle`` with the other corner naming it; on an independent
    suspension the field only names the corner's axle (``vehicle_axles``); ``dual``: true mounts two of its
    tires side by side (``tire.models.tires_side_by_side``)."""
    data = [_corner_data(c, i, src, base, prefix) for i, c in enumerate(corners)]
    axles = {}
    for c, d in zip(corners, data):
        axle = c.get("axle", "")
        if not isinstance(axle, str) or "." in axle:
            raise ModelError(f"{d.where}: field 'axle' must be a name without '.', got {axle!r}")
        if "axle" in c and d.suspension.get("template") in AXLE_TEMPLATES:
            axles.setdefault(axle, []).append((c, d))
    shared = {}
    for axle, members in axles.items():
        shared.update(_axle_fragment(axle, members, chassis_body, rack, src, frag, inner_points))
    for c, (cname, side, sp, susp, center, where) in zip(corners, data):
        is_steered = bool(c.get("steered", False))
        if cname in shared:
            w = shared[cname]
        else:
            st = susp.get("template")
            if st not in SUSPENSION_TEMPLATES:
                hint = " (a two-wheel template: give the corner a field 'axle')" if st in AXLE_TEMPLATES else ""
                raise ModelError(f"{sp}: unknown template {st!r}{hint}; valid: {', '.join(SUSPENSION_TEMPLATES)}")
            f, w = SUSPENSION_TEMPLATES[st](cname, chassis_body, center, side == "right", susp,
                                            f"{sp} (corner '{cname}')", tie_rod_body=rack if is_steered else None)
            if is_steered:
                inner_points += [r["point_b_m"] for r in f.rods if r["body_b"] == rack]
            frag.extend(f)
        tire_file = c.get("tire")
        if not isinstance(tire_file, str):
            raise ModelError(f"{where}: missing field 'tire'")
        tire = read_tire(resource_path("tires", tire_file, base=base), c.get("tire_model"),
                         f"{where}: field 'tire_model'")
        dual = c.get("dual", False)
        if not isinstance(dual, bool):
            raise ModelError(f"{where}: field 'dual' must be true or false, got {dual!r}")
        tires.append(tires_side_by_side(tire, 2) if dual else tire)
        wheels.append(WheelInfo(name=cname, center_m=tuple(map(float, center)), spin_axis=(0.0, 1.0, 0.0),
                                driven=bool(c.get("driven", False)), tire_file=tire_file, side=side,
                                chassis_body=chassis_body, axle=c.get("axle", ""), **w))


def _add_units(data: dict, src: str, base, frag, wheels, tires) -> tuple:
    """The towed units of ``data`` (fields ``units`` and ``couplings``, docs/articulated.md §6): each unit's
    chassis body and corners, and its coupling joint to the towing unit's chassis (the tree grows by one
    branch per unit: no loop is added). Returns the UnitSpec per unit; () when the file has no ``units``."""
    units, couplings = data.get("units"), data.get("couplings")
    if units is None and couplings is None:
        return ()
    if not isinstance(units, list) or not units:
        raise ModelError(f"{src}: field 'units' must be a non-empty list of towed units")
    if not isinstance(couplings, list) or len(couplings) != len(units):
        raise ModelError(f"{src}: field 'couplings' must list one coupling per towed unit "
                         f"({len(units)} units)")
    bodies = ["chassis"]
    out = []
    by_trailer = {c.get("trailer"): c for c in couplings if isinstance(c, dict)}
    for i, u in enumerate(units):
        where = f"{src}: units[{i}]"
        uname = u.get("name") if isinstance(u, dict) else None
        if not isinstance(uname, str) or not uname or "." in uname or uname in ("chassis", "steering", "ground"):
            raise ModelError(f"{where}: field 'name' must be a name without '.', not chassis/steering/ground")
        if uname in bodies:
            raise ModelError(f"{where}: unit '{uname}' defined twice")
        where = f"{where} '{uname}'"
        chassis = u.get("chassis")
        if not isinstance(chassis, dict):
            raise ModelError(f"{where}: missing field 'chassis' (mass_kg, com_m, inertia_kg_m2)")
        if "template" in chassis:
            raise ModelError(f"{where}: chassis: a towed unit has no 'template' (its coupling sets its joint)")
        cp = by_trailer.get(uname)
        if cp is None:
            raise ModelError(f"{src}: couplings: no coupling has \"trailer\": \"{uname}\"")
        cw = f"{src}: coupling of '{uname}'"
        ctype, towing = cp.get("type"), cp.get("towing")
        if ctype not in COUPLING_TEMPLATES:
            raise ModelError(f"{cw}: field 'type' must be one of {', '.join(COUPLING_TEMPLATES)}, got {ctype!r}")
        if towing not in bodies:
            raise ModelError(f"{cw}: field 'towing' must name the towing unit ('chassis') or a unit listed "
                             f"before '{uname}'; valid: {', '.join(bodies)}")
        point = _point_m(cp.get("point_m"), f"{cw}: field 'point_m'", " (design coordinates)")
        corners = u.get("corners")
        if not isinstance(corners, list) or not corners:
            raise ModelError(f"{where}: field 'corners' must be a non-empty list")
        if any(isinstance(c, dict) and c.get("steered", False) for c in corners):
            raise ModelError(f"{where}: steered corners on a towed unit are not supported yet")
        f, coords = COUPLING_TEMPLATES[ctype](uname, towing, point, chassis, cp, where, cw)
        frag.extend(f)
        n0 = len(wheels)
        _add_corners(corners, uname, None, src, base, frag, wheels, tires, [], prefix=f"units[{i}].corners")
        out.append(UnitSpec(uname, towing, ctype, tuple(map(float, point)), coords,
                            tuple(w.name for w in wheels[n0:])))
        bodies.append(uname)
    return tuple(out)


def vehicle_names(base=None) -> list[str]:
    """Names of the vehicle files shipped in resources/vehicles/."""
    d = resource_path("vehicles", base=base)
    return sorted(p.stem for p in d.glob("*.json"))


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _read_vehicle(path: Path, depth: int = 0) -> dict:
    data = read_json(path, "vehicle")
    if not isinstance(data, dict):
        raise ModelError(f"{path}: a vehicle file must be a JSON object")
    parent = data.pop("extends", None)
    if parent is None:
        return data
    if depth > 5:
        raise ModelError(f"{path}: 'extends' chain is too deep (a cycle?)")
    base = _read_vehicle(path.parent / parent, depth + 1)
    corners_over = data.pop("corners", None)
    by_name = {k: data.pop(k) for k in ("units", "couplings") if isinstance(data.get(k), dict)}
    merged = _merge(base, data)
    if corners_over is not None:
        if not isinstance(corners_over, dict):
            raise ModelError(f"{path}: in a variant, 'corners' must be an object {{corner name: overrides}}")
        merged["corners"] = _merge_named(merged.get("corners", []), corners_over, f"{path}: corners", "corner")
    if "units" in by_name:
        merged["units"] = _merge_named(merged.get("units", []), by_name["units"], f"{path}: units", "unit",
                                       nested="corners")
    if "couplings" in by_name:
        merged["couplings"] = _merge_named(merged.get("couplings", []), by_name["couplings"],
                                           f"{path}: couplings", "coupling", key="trailer")
    return merged


def _merge_named(items: list, over: dict, where: str, what: str, key: str = "name", nested: str | None = None):
    """``items`` (a list of objects) with ``over`` = {name: overrides} merged into the entry whose ``key`` is that
    name (a variant's corners by corner name, units by unit name, couplings by the unit they tow). An override's
    list replaces the entry's list, except the ``nested`` field given as an object: its entries are merged by name
    too (a unit's corners)."""
    out = copy.deepcopy(items) if isinstance(items, list) else []
    names = [c.get(key) if isinstance(c, dict) else None for c in out]
    for name, o in over.items():
        if name not in names:
            raise ModelError(f"{where}: unknown {what} '{name}'; valid: {', '.join(map(str, names)) or 'none'}")
        if not isinstance(o, dict):
            raise ModelError(f"{where}.{name}: must be an object of fields to override")
        i = names.index(name)
        o = dict(o)
        inner = o.pop(nested, None) if nested and isinstance(o.get(nested), dict) else None
        out[i] = _merge(out[i], o)
        if inner is not None:
            out[i][nested] = _merge_named(out[i].get(nested, []), inner, f"{where}.{name}.{nested}", "corner")
    return out


def apply_overrides(data: dict, overrides: dict, source: str) -> dict:
    """Set dotted-path fields; a path through ``corners`` addresses a corner by name."""
    data = copy.deepcopy(data)
    for path, value in (overrides or {}).items():
        keys = path.split(".")
        node = data
        for i, k in enumerate(keys[:-1]):
            if isinstance(node, list):
                match = [c for c in node if isinstance(c, dict) and c.get("name") == k]
                if not match:
                    raise ModelError(f"{source}: override '{path}': no entry named '{k}'")
                node = match[0]
            else:
                if k not in node:
                    node[k] = {}
                node = node[k]
            if not isinstance(node, (dict, list)):
                raise ModelError(f"{source}: override '{path}': '{'.'.join(keys[:i + 1])}' is not an object")
        node[keys[-1]] = value
    return data


def vehicle_value(name_or_path: str | os.PathLike, path: str, *, base=None):
    """The effective value of the dotted override path ``path`` (``Vehicle.load`` overrides spelling) in a
    vehicle: the vehicle file's value, or for ``corners.<corner>.suspension_overrides.<field>`` the corner's
    override or else its suspension file's value. ModelError names the path when it leads nowhere."""
    data = vehicle_file_data(name_or_path, base=base)
    keys = path.split(".")
    if len(keys) > 3 and keys[0] == "corners" and keys[2] == "suspension_overrides":
        corner = next((c for c in data.get("corners", []) if c.get("name") == keys[1]), None)
        if corner is None:
            raise ModelError(f"vehicle '{name_or_path}': no corner '{keys[1]}' (path '{path}')")
        sp = resource_path("vehicles", "suspensions", corner["suspension"], base=base)
        node, keys = _merge(read_json(sp, "suspension"), corner.get("suspension_overrides", {})), keys[3:]
    else:
        node = data
    for k in keys:
        if isinstance(node, list):
            node = next((c for c in node if isinstance(c, dict) and c.get("name") == k), None)
        elif isinstance(node, dict):
            node = node.get(k)
        else:
            node = None
        if node is None:
            raise ModelError(f"vehicle '{name_or_path}': no value at '{path}'")
    return node


def vehicle_file_data(name_or_path: str | os.PathLike, *, base=None) -> dict:
    """The merged contents of a vehicle file (its ``extends`` chain resolved), by shipped name or path."""
    p = Path(name_or_path)
    if p.suffix != ".json":
        p = resource_path("vehicles", f"{name_or_path}.json", base=base)
        if not p.exists():
            raise ModelError(f"unknown vehicle '{name_or_path}'; valid: {', '.join(vehicle_names(base))}")
    return _read_vehicle(p)


def load_vehicle_spec(name_or_path: str | os.PathLike, *, base=None, overrides: dict | None = None) -> VehicleSpec:
    """Load a shipped vehicle by name (``halfcar7``) or a vehicle JSON file by path."""
    p = Path(name_or_path)
    if p.suffix != ".json":
        p = resource_path("vehicles", f"{name_or_path}.json", base=base)
    data = apply_overrides(vehicle_file_data(name_or_path, base=base), overrides or {}, str(p))
    src = str(p)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ModelError(f"{src}: missing field 'name'")
    chassis = data.get("chassis")
    if not isinstance(chassis, dict):
        raise ModelError(f"{src}: missing field 'chassis'")
    tmpl = chassis.get("template")
    if tmpl not in CHASSIS_TEMPLATES:
        raise ModelError(f"{src}: chassis: unknown template {tmpl!r}; valid: {', '.join(CHASSIS_TEMPLATES)}")
    frag = CHASSIS_TEMPLATES[tmpl]("chassis", chassis, f"{src}: chassis")
    corners = data.get("corners")
    if not isinstance(corners, list) or not corners:
        raise ModelError(f"{src}: field 'corners' must be a non-empty list")
    steering = data.get("steering")
    steered = [c.get("name") for c in corners if isinstance(c, dict) and c.get("steered", False)]
    if steering is not None:
        if not isinstance(steering, dict) or steering.get("template") not in STEERING_TEMPLATES:
            raise ModelError(f"{src}: steering: field 'template' must be one of {', '.join(STEERING_TEMPLATES)}")
        gain = steering.get("rack_gain_m_per_rad")
        if isinstance(gain, bool) or not isinstance(gain, (int, float)) or gain == 0 or gain != gain:
            raise ModelError(f"{src}: steering: field 'rack_gain_m_per_rad' must be a non-zero number [m/rad]")
        stop = steering.get("rack_travel_limit_m")
        if isinstance(stop, bool) or not isinstance(stop, (int, float)) or not 0 < stop < float("inf"):
            raise ModelError(f"{src}: steering: field 'rack_travel_limit_m' must be a positive number [m] "
                             f"(the rack's end stops), got {stop!r}")
        if not steered:
            raise ModelError(f"{src}: steering: no corner has \"steered\": true")
    elif steered:
        raise ModelError(f"{src}: corners {', '.join(map(str, steered))} are steered but the vehicle has no "
                         f"'steering'")
    rack = "steering.rack" if steering is not None else None
    inner_points = []
    wheels, tires = [], []
    _add_corners(corners, "chassis", rack, src, base, frag, wheels, tires, inner_points)
    coordinates = {"independent": frag.independent}
    steering_spec = None
    if steering is not None:
        frag.extend(STEERING_TEMPLATES[steering["template"]]("chassis", steering, inner_points, f"{src}: steering"))
        coordinates["driven"] = ["steering.rack_travel"]
        steering_spec = SteeringSpec(steering["template"], "steering.rack_travel",
                                     float(steering["rack_gain_m_per_rad"]), tuple(steered),
                                     float(steering["rack_travel_limit_m"]))
    units = _add_units(data, src, base, frag, wheels, tires)
    if units and tmpl != "free":
        raise ModelError(f"{src}: towed units need a towing chassis with the 'free' template (6 DOF), not {tmpl!r}")
    names = [w.name for w in wheels]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ModelError(f"{src}: corner names must be unique across the units; repeated: {', '.join(dup)}")
    mech = {"name": name, "gravity_m_per_s2": data.get("gravity_m_per_s2", [0.0, 0.0, -9.81]),
            "bodies": frag.bodies, "joints": frag.joints, "rods": frag.rods, "fork_arms": frag.fork_arms,
            "force_elements": frag.force_elements, "coordinates": coordinates}
    spec = parse_mechanism(mech, f"{src} (assembled mechanism)")
    axles = vehicle_axles(wheels, src)
    return VehicleSpec(name, data.get("description", ""), src, data.get("paper_model"), tmpl, "chassis", spec,
                       tuple(wheels), tuple(tires), data, steering_spec, units, axles,
                       anti_roll_bars(data.get("anti_roll_bars"), axles, wheels, src))
