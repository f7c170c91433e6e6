"""Mechanism description (static data) and its validating loader (docs/formulation.md §2).

A mechanism file is JSON. All geometry is given in *design coordinates*: the global frame
(ISO 8855: x forward, y left, z up) at the design configuration, where every joint coordinate
is zero and every loop closure is satisfied. Every body frame coincides with the global frame at
the design configuration, so a body point keeps its design coordinates ``X`` and moves as
``p = o_i + A_i X``.

Top-level keys::

    name, description (optional), gravity_m_per_s2 (default [0, 0, -9.81])
    bodies:  [{name, mass_kg, com_m[3], inertia_kg_m2 {xx, yy, zz, xy=0, xz=0, yz=0}}]   (about the CoM)
    joints:  [{name, type, parent, child, point_m[3], axis[3] | axes[[3],...], cut (bool, optional),
               coordinate_names (optional)}]
             type: revolute | prismatic | universal | spherical | cylindrical | planar | free
             parent may be "ground". A joint marked "cut" (spherical only) closes a loop (3 equations).
    rods:    [{name, body_a, point_a_m, body_b, point_b_m, mass_kg, com_fraction=0.5,
               transverse_inertia_kg_m2 (default uniform rod m l^2/12)}]        (removed rods, 1 equation)
    fork_arms: [{name, body_j, point_j_m, body_kl, point_k_m, point_l_m, mass_jk_kg, mass_jl_kg}]
                                                                                  (two rods sharing j)
    force_elements: [{name, type: spring_damper, body_a, point_a_m, body_b, point_b_m,
                      stiffness_N_per_m | spring_table {deflection_m[], force_N[]},
                      free_length_m | preload_N (default 0), damping_N_s_per_m | damper_table
                      {velocity_m_per_s[], force_N[]}, bump_stop {clearance_m, stiffness_N_per_m},
                      rebound_stop {clearance_m, stiffness_N_per_m}}
                     {name, type: rotational_spring_damper, coordinate, stiffness_N_m_per_rad,
                      damping_N_m_s_per_rad, free_angle_rad (default 0)}]
    coordinates: {independent: [names], driven: [names] (optional), initial: {name: value},
                  initial_velocity: {name: value}}

A driven coordinate is prescribed as a function of time, z_k = s(t) (a rheonomic constraint, e.g. a
steering rack's travel set by the steering input; docs/formulation.md §13): it is neither independent
nor dependent, and the engine computes the generalized force that enforces it.

Conventions of the translational element: deflection x = L_design - L (compression positive);
the spring pushes the end points apart with force ``preload + k x`` (or ``table(x)``); the damper
resists the extension rate with ``c dL/dt`` (or ``table(dL/dt)``). ``free_length_m`` is an
alternative to ``preload_N`` for linear springs: preload = k (free_length - L_design).

Every error raises :class:`fmu_vehicle.errors.ModelError` naming the file, the entry and the reason.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..util import read_json

GROUND = "ground"
JOINT_TYPES = ("revolute", "prismatic", "universal", "spherical", "cylindrical", "planar", "free")
JOINT_NDOF = {"revolute": 1, "prismatic": 1, "universal": 2, "spherical": 3, "cylindrical": 2,
              "planar": 3, "free": 6}
FORCE_ELEMENT_TYPES = ("spring_damper", "rotational_spring_damper")


@dataclass(frozen=True)
class BodySpec:
    name: str
    mass_kg: float
    com_m: np.ndarray            # (3,) design coordinates
    inertia_kg_m2: np.ndarray    # (3, 3) about the CoM, design axes


@dataclass(frozen=True)
class JointSpec:
    name: str
    type: str
    parent: str
    child: str
    point_m: np.ndarray          # (3,) design coordinates of the joint centre / a point on the axis
    axes: tuple                  # unit axes of the elementary 1-DOF joints, in chain order
    kinds: tuple                 # "R" or "P" per elementary joint
    coordinate_names: tuple      # full coordinate names, one per elementary joint
    cut: bool = False


@dataclass(frozen=True)
class RodSpec:
    """A removed rod: distance constraint plus line-mass inertia (docs/formulation.md §6)."""
    name: str
    body_a: str
    point_a_m: np.ndarray
    body_b: str
    point_b_m: np.ndarray
    mass_kg: float
    com_fraction: float          # CoM position from a (0) to b (1)
    transverse_inertia_kg_m2: float


@dataclass(frozen=True)
class SpringDamperSpec:
    name: str
    body_a: str
    point_a_m: np.ndarray
    body_b: str
    point_b_m: np.ndarray
    stiffness_N_per_m: float
    preload_N: float
    spring_table: tuple | None   # (deflection_m array, force_N array) or None
    damping_N_s_per_m: float
    damper_table: tuple | None   # (velocity_m_per_s array, force_N array) or None
    bump_clearance_m: float
    bump_stiffness_N_per_m: float
    rebound_clearance_m: float
    rebound_stiffness_N_per_m: float


@dataclass(frozen=True)
class RotationalSpringDamperSpec:
    name: str
    coordinate: str
    stiffness_N_m_per_rad: float
    damping_N_m_s_per_rad: float
    free_angle_rad: float


@dataclass(frozen=True)
class MechanismSpec:
    name: str
    source: str
    gravity_m_per_s2: np.ndarray
    bodies: tuple
    joints: tuple
    rods: tuple
    spring_dampers: tuple
    rotational_spring_dampers: tuple
    independent: tuple | None
    initial: dict = field(default_factory=dict)
    initial_velocity: dict = field(default_factory=dict)
    description: str = ""
    driven: tuple = ()           # names of the driven (prescribed) coordinates, in the file's order


# ----------------------------------------------------------------------------------------------
# field readers: each names file + entry + field in its error
class _Ctx:
    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, msg: str):
        raise ModelError(f"{self.source}: {where}: {msg}")

    def get(self, d: dict, key: str, where: str, default=...):
        if not isinstance(d, dict):
            self.fail(where, "must be a JSON object")
        if key not in d:
            if default is ...:
                self.fail(where, f"missing field '{key}'")
            return default
        return d[key]

    def number(self, d, key, where, default=..., minimum=None, positive=False):
        v = self.get(d, key, where, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.fail(where, f"field '{key}' must be a number, got {v!r}")
        v = float(v)
        if not math.isfinite(v):
            self.fail(where, f"field '{key}' must be finite, got {v}")
        if positive and v <= 0.0:
            self.fail(where, f"field '{key}' must be > 0, got {v}")
        if minimum is not None and v < minimum:
            self.fail(where, f"field '{key}' must be >= {minimum}, got {v}")
        return v

    def vec3(self, d, key, where, default=..., unit=False):
        v = self.get(d, key, where, default)
        return self.as_vec3(v, f"{where}: field '{key}'", unit)

    def as_vec3(self, v, where, unit=False):
        if (not isinstance(v, (list, tuple)) or len(v) != 3
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)):
            self.fail(where, f"must be a list of 3 numbers, got {v!r}")
        a = np.array(v, dtype=float)
        if not np.all(np.isfinite(a)):
            self.fail(where, f"must be finite, got {v!r}")
        if unit:
            nrm = float(np.linalg.norm(a))
            if nrm < 1e-12:
                self.fail(where, "axis must not be the zero vector")
            a = a / nrm
        return a

    def name(self, d, where):
        n = self.get(d, "name", where)
        if not isinstance(n, str) or not n:
            self.fail(where, f"field 'name' must be a non-empty string, got {n!r}")
        return n

    def table(self, d, key, xkey, ykey, where):
        t = self.get(d, key, where, None)
        if t is None:
            return None
        w = f"{where}: {key}"
        xs, ys = self.get(t, xkey, w), self.get(t, ykey, w)
        try:
            x = np.array(xs, dtype=float)
            y = np.array(ys, dtype=float)
        except (TypeError, ValueError):
            self.fail(w, f"'{xkey}' and '{ykey}' must be lists of numbers")
        if x.ndim != 1 or x.shape != y.shape or x.size < 2:
            self.fail(w, f"'{xkey}' and '{ykey}' must be lists of equal length >= 2")
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            self.fail(w, "table values must be finite")
        if np.any(np.diff(x) <= 0):
            self.fail(w, f"'{xkey}' must be strictly increasing")
        return (x, y)


def _inertia(ctx: _Ctx, d, where) -> np.ndarray:
    I = ctx.get(d, "inertia_kg_m2", where)
    w = f"{where}: inertia_kg_m2"
    if isinstance(I, dict):
        xx, yy, zz = (ctx.number(I, k, w) for k in ("xx", "yy", "zz"))
        xy, xz, yz = (ctx.number(I, k, w, 0.0) for k in ("xy", "xz", "yz"))
        J = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    else:
        try:
            J = np.array(I, dtype=float)
        except (TypeError, ValueError):
            ctx.fail(w, "must be {xx, yy, zz, xy, xz, yz} or a 3x3 list")
        if J.shape != (3, 3) or not np.all(np.isfinite(J)):
            ctx.fail(w, "must be {xx, yy, zz, xy, xz, yz} or a finite 3x3 list")
        if not np.allclose(J, J.T, rtol=0, atol=1e-12 * max(1.0, np.abs(J).max())):
            ctx.fail(w, "must be symmetric")
    ev = np.linalg.eigvalsh(J)
    tol = 1e-12 * max(1.0, abs(ev).max())
    if ev[0] < -tol:
        ctx.fail(w, f"not positive semi-definite (principal moments {ev.round(6).tolist()} kg m^2)")
    # principal moments of a real body satisfy the triangle inequality I1 + I2 >= I3
    if ev[0] + ev[1] < ev[2] - 1e-9 * max(1.0, ev[2]):
        ctx.fail(w, f"principal moments {ev.round(6).tolist()} violate I1 + I2 >= I3 (no real body has them)")
    return J


def _default_axes(jtype: str):
    ex, ey, ez = np.eye(3)
    return {"universal": (ex, ey), "spherical": (ez, ey, ex), "planar": (ex, ez, ey),
            "free": (ex, ey, ez, ez, ey, ex)}.get(jtype)


def _kinds(jtype: str) -> tuple:
    return {"revolute": ("R",), "prismatic": ("P",), "universal": ("R", "R"), "spherical": ("R", "R", "R"),
            "cylindrical": ("P", "R"), "planar": ("P", "P", "R"), "free": ("P", "P", "P", "R", "R", "R")}[jtype]


def _default_coord_names(name: str, jtype: str) -> tuple:
    if JOINT_NDOF[jtype] == 1:
        return (name,)
    sub = {"universal": ("r1", "r2"), "spherical": ("r1", "r2", "r3"), "cylindrical": ("t", "r"),
           "planar": ("t1", "t2", "r"), "free": ("x", "y", "z", "rz", "ry", "rx")}[jtype]
    return tuple(f"{name}.{s}" for s in sub)


def _joint(ctx: _Ctx, d, where) -> JointSpec:
    name = ctx.name(d, where)
    where = f"{where} '{name}'"
    jtype = ctx.get(d, "type", where)
    if jtype not in JOINT_TYPES:
        ctx.fail(where, f"unknown joint type {jtype!r}; valid: {', '.join(JOINT_TYPES)}")
    parent, child = ctx.get(d, "parent", where), ctx.get(d, "child", where)
    for k, v in (("parent", parent), ("child", child)):
        if not isinstance(v, str) or not v:
            ctx.fail(where, f"field '{k}' must be a body name")
    if parent == child:
        ctx.fail(where, f"parent and child are the same body '{parent}'")
    point = ctx.vec3(d, "point_m", where, [0.0, 0.0, 0.0] if jtype == "prismatic" else ...)
    ndof = JOINT_NDOF[jtype]
    if ndof == 1:
        axes = (ctx.vec3(d, "axis", where, unit=True),)
    elif jtype == "cylindrical":
        a = ctx.vec3(d, "axis", where, unit=True)
        axes = (a, a)
    else:
        raw = ctx.get(d, "axes", where, None)
        if raw is None:
            axes = _default_axes(jtype)
        else:
            if not isinstance(raw, list) or len(raw) != ndof:
                ctx.fail(where, f"field 'axes' must list {ndof} axes for a {jtype} joint")
            axes = tuple(ctx.as_vec3(a, f"{where}: axes[{k}]", unit=True) for k, a in enumerate(raw))
        kinds = _kinds(jtype)
        # rotation axes of one joint must be independent (no gimbal lock at the design configuration)
        R = np.array([a for a, k in zip(axes, kinds) if k == "R"])
        P = np.array([a for a, k in zip(axes, kinds) if k == "P"])
        for M, what in ((R, "rotation"), (P, "translation")):
            if len(M) > 1 and np.linalg.matrix_rank(M, tol=1e-6) < len(M):
                ctx.fail(where, f"{what} axes are not independent (gimbal lock at the design configuration)")
    names = ctx.get(d, "coordinate_names", where, None)
    if names is None:
        names = _default_coord_names(name, jtype)
    else:
        if (not isinstance(names, list) or len(names) != ndof
                or not all(isinstance(s, str) and s for s in names)):
            ctx.fail(where, f"field 'coordinate_names' must list {ndof} non-empty names")
        names = tuple(names)
    cut = ctx.get(d, "cut", where, False)
    if not isinstance(cut, bool):
        ctx.fail(where, "field 'cut' must be true or false")
    if cut and jtype != "spherical":
        ctx.fail(where, f"only spherical joints can be cut (3 closure equations), this one is {jtype}")
    return JointSpec(name, jtype, parent, child, point, tuple(axes), _kinds(jtype), names, cut)


def _rod(ctx: _Ctx, d, where, name=None, a=None, pa=None, b=None, pb=None, mass=None) -> RodSpec:
    name = name or ctx.name(d, where)
    where = f"{where} '{name}'"
    body_a = a or ctx.get(d, "body_a", where)
    body_b = b or ctx.get(d, "body_b", where)
    point_a = ctx.vec3(d, "point_a_m", where) if pa is None else pa
    point_b = ctx.vec3(d, "point_b_m", where) if pb is None else pb
    m = ctx.number(d, "mass_kg", where, minimum=0.0) if mass is None else mass
    length = float(np.linalg.norm(point_b - point_a))
    if length < 1e-9:
        ctx.fail(where, "end points coincide (rod length 0)")
    xi = ctx.number(d, "com_fraction", where, 0.5) if mass is None else 0.5
    if not 0.0 <= xi <= 1.0:
        ctx.fail(where, f"field 'com_fraction' must be within [0, 1], got {xi}")
    jt = ctx.number(d, "transverse_inertia_kg_m2", where, m * length**2 / 12.0, minimum=0.0) \
        if mass is None else m * length**2 / 12.0
    return RodSpec(name, body_a, point_a, body_b, point_b, m, xi, jt)


def _spring_damper(ctx: _Ctx, d, where, name) -> SpringDamperSpec:
    body_a, body_b = ctx.get(d, "body_a", where), ctx.get(d, "body_b", where)
    pa, pb = ctx.vec3(d, "point_a_m", where), ctx.vec3(d, "point_b_m", where)
    L = float(np.linalg.norm(pb - pa))
    if L < 1e-9:
        ctx.fail(where, "end points coincide (element length 0)")
    stab = ctx.table(d, "spring_table", "deflection_m", "force_N", where)
    k = ctx.number(d, "stiffness_N_per_m", where, 0.0 if stab is not None else ..., minimum=0.0)
    if stab is not None and "stiffness_N_per_m" in d:
        ctx.fail(where, "give either 'stiffness_N_per_m' or 'spring_table', not both")
    if "free_length_m" in d and "preload_N" in d:
        ctx.fail(where, "give either 'free_length_m' or 'preload_N', not both")
    if "free_length_m" in d:
        if stab is not None:
            ctx.fail(where, "'free_length_m' applies to linear springs; include the preload in 'spring_table'")
        preload = k * (ctx.number(d, "free_length_m", where, positive=True) - L)
    else:
        preload = ctx.number(d, "preload_N", where, 0.0)
    dtab = ctx.table(d, "damper_table", "velocity_m_per_s", "force_N", where)
    c = ctx.number(d, "damping_N_s_per_m", where, 0.0, minimum=0.0)
    if dtab is not None and "damping_N_s_per_m" in d:
        ctx.fail(where, "give either 'damping_N_s_per_m' or 'damper_table', not both")
    stops = []
    for key in ("bump_stop", "rebound_stop"):
        s = ctx.get(d, key, where, None)
        if s is None:
            stops += [0.0, 0.0]
        else:
            w = f"{where}: {key}"
            stops += [ctx.number(s, "clearance_m", w, minimum=0.0), ctx.number(s, "stiffness_N_per_m", w, minimum=0.0)]
    return SpringDamperSpec(name, body_a, pa, body_b, pb, k, preload, stab, c, dtab, *stops)


def parse_mechanism(data: dict, source: str = "<mechanism>") -> MechanismSpec:
    """Validate a mechanism dictionary (see module docstring) and return a :class:`MechanismSpec`."""
    ctx = _Ctx(source)
    if not isinstance(data, dict):
        ctx.fail("top level", "must be a JSON object")
    name = ctx.get(data, "name", "top level")
    g = ctx.vec3(data, "gravity_m_per_s2", "top level", [0.0, 0.0, -9.81])

    bodies, seen = [], {GROUND}
    blist = ctx.get(data, "bodies", "top level")
    if not isinstance(blist, list) or not blist:
        ctx.fail("top level", "field 'bodies' must be a non-empty list")
    for i, d in enumerate(blist):
        w = f"bodies[{i}]"
        n = ctx.name(d, w)
        w = f"{w} '{n}'"
        if n in seen:
            ctx.fail(w, "duplicate body name" if n != GROUND else "'ground' is reserved")
        seen.add(n)
        m = ctx.number(d, "mass_kg", w)
        if m < 0.0:
            ctx.fail(w, f"negative mass {m} kg")
        bodies.append(BodySpec(n, m, ctx.vec3(d, "com_m", w), _inertia(ctx, d, w)))

    joints, jnames, cnames = [], set(), set()
    for i, d in enumerate(ctx.get(data, "joints", "top level")):
        j = _joint(ctx, d, f"joints[{i}]")
        w = f"joints[{i}] '{j.name}'"
        if j.name in jnames:
            ctx.fail(w, "duplicate joint name")
        jnames.add(j.name)
        for b in (j.parent, j.child):
            if b not in seen:
                ctx.fail(w, f"unknown body '{b}'")
        for c in j.coordinate_names:
            if c in cnames:
                ctx.fail(w, f"duplicate coordinate name '{c}'")
            cnames.add(c)
        joints.append(j)

    rods = []
    for i, d in enumerate(ctx.get(data, "rods", "top level", [])):
        r = _rod(ctx, d, f"rods[{i}]")
        rods.append(r)
    for i, d in enumerate(ctx.get(data, "fork_arms", "top level", [])):
        w = f"fork_arms[{i}]"
        n = ctx.name(d, w)
        w = f"{w} '{n}'"
        bj, bkl = ctx.get(d, "body_j", w), ctx.get(d, "body_kl", w)
        pj, pk, pl = (ctx.vec3(d, k, w) for k in ("point_j_m", "point_k_m", "point_l_m"))
        mk = ctx.number(d, "mass_jk_kg", w, minimum=0.0)
        ml = ctx.number(d, "mass_jl_kg", w, minimum=0.0)
        if np.linalg.norm(np.cross(pk - pj, pl - pj)) < 1e-9:
            ctx.fail(w, "points j, k and l are collinear: the arm's pivot axis k-l is undefined")
        rods.append(_rod(ctx, d, w, f"{n}.jk", bj, pj, bkl, pk, mk))
        rods.append(_rod(ctx, d, w, f"{n}.jl", bj, pj, bkl, pl, ml))
    rnames = set()
    for r in rods:
        if r.name in rnames:
            ctx.fail(f"rod '{r.name}'", "duplicate rod name")
        rnames.add(r.name)
        for b in (r.body_a, r.body_b):
            if b not in seen:
                ctx.fail(f"rod '{r.name}'", f"unknown body '{b}'")
        if r.body_a == r.body_b:
            ctx.fail(f"rod '{r.name}'", f"both ends on the same body '{r.body_a}'")

    sds, rsds, fnames = [], [], set()
    for i, d in enumerate(ctx.get(data, "force_elements", "top level", [])):
        w = f"force_elements[{i}]"
        n = ctx.name(d, w)
        w = f"{w} '{n}'"
        if n in fnames:
            ctx.fail(w, "duplicate force element name")
        fnames.add(n)
        t = ctx.get(d, "type", w)
        if t == "spring_damper":
            s = _spring_damper(ctx, d, w, n)
            for b in (s.body_a, s.body_b):
                if b not in seen:
                    ctx.fail(w, f"unknown body '{b}'")
            sds.append(s)
        elif t == "rotational_spring_damper":
            c = ctx.get(d, "coordinate", w)
            if c not in cnames:
                ctx.fail(w, f"unknown coordinate '{c}'")
            rsds.append(RotationalSpringDamperSpec(
                n, c, ctx.number(d, "stiffness_N_m_per_rad", w, 0.0, minimum=0.0),
                ctx.number(d, "damping_N_m_s_per_rad", w, 0.0, minimum=0.0),
                ctx.number(d, "free_angle_rad", w, 0.0)))
        else:
            ctx.fail(w, f"unknown force element type {t!r}; valid: {', '.join(FORCE_ELEMENT_TYPES)}")

    coords = ctx.get(data, "coordinates", "top level", {})
    indep = ctx.get(coords, "independent", "coordinates", None)
    if indep is not None:
        if not isinstance(indep, list) or not all(isinstance(s, str) for s in indep):
            ctx.fail("coordinates", "field 'independent' must be a list of coordinate names")
        for s in indep:
            if s not in cnames:
                ctx.fail("coordinates: independent", f"unknown coordinate '{s}'")
        if len(set(indep)) != len(indep):
            ctx.fail("coordinates: independent", "a coordinate is listed twice")
        indep = tuple(indep)
    driven = ctx.get(coords, "driven", "coordinates", [])
    if not isinstance(driven, list) or not all(isinstance(s, str) for s in driven):
        ctx.fail("coordinates", "field 'driven' must be a list of coordinate names")
    for s in driven:
        if s not in cnames:
            ctx.fail("coordinates: driven", f"unknown coordinate '{s}' (a driven name must be a joint coordinate)")
        if indep is not None and s in indep:
            ctx.fail("coordinates: driven", f"coordinate '{s}' is also listed as independent; a driven coordinate "
                     "is prescribed, not a degree of freedom")
    if len(set(driven)) != len(driven):
        ctx.fail("coordinates: driven", "a coordinate is listed twice")
    init = {}
    for key in ("initial", "initial_velocity"):
        vals = ctx.get(coords, key, "coordinates", {})
        if not isinstance(vals, dict):
            ctx.fail(f"coordinates: {key}", "must be an object {coordinate: value}")
        for s in vals:
            if s not in cnames:
                ctx.fail(f"coordinates: {key}", f"unknown coordinate '{s}'")
            ctx.number(vals, s, f"coordinates: {key}")
        init[key] = {k: float(v) for k, v in vals.items()}
    return MechanismSpec(name, source, g, tuple(bodies), tuple(joints), tuple(rods), tuple(sds), tuple(rsds),
                         indep, init["initial"], init["initial_velocity"], data.get("description", ""),
                         tuple(driven))


def load_mechanism_file(path) -> MechanismSpec:
    """Read and validate a mechanism JSON file."""
    p = Path(path)
    return parse_mechanism(read_json(p, "mechanism"), str(p))
