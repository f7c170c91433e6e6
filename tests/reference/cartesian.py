"""Independent reference dynamics: Newton-Euler in centre-of-mass coordinates with Lagrange multipliers.

Test-only. It shares no code with ``fmu_vehicle.multibody`` beyond reading the parsed mechanism
description (:class:`MechanismSpec`) and the joint coordinates ``z, dz/dt`` of a state.

Per body (mass m, CoM g, CoM inertia J = A J0 A^T, angular velocity w), unknowns x_b = {a_g; dw/dt}:
    m a_g = F,    J dw/dt + w x J w = n_g                                  (Newton-Euler at the CoM)
Joints are Cartesian constraints between the two bodies, differentiated twice, C x = c:
    revolute    5 rows: point coincidence (3) + axis u (parent) perpendicular to v1, v2 (child)
    prismatic   5 rows: equal angular accelerations (3) + (r_c - r_p) . v1, v2 = 0 (v fixed in parent)
    spherical   3 rows: point coincidence;   universal 4 rows: point + axis1 (parent) . axis2 (child) = 0
    planar      3 rows: rotation axis n (parent) perpendicular to v1, v2 (child) + (r_c - r_p) . n = 0
    free        0 rows;   distance (massless rod) 1 row: |r_a - r_b|^2 = l^2
    driven coordinate z_k = s(t) of a revolute or prismatic joint (rheonomic) 1 row, its relative coordinate
    differentiated twice with the exact s'' on the right-hand side:
        revolute   d2 theta/dt2 = (dw_c - dw_p) . u + (w_c - w_p) . (w_p x u) = s''       (u fixed in the parent)
        prismatic  d2/dt2 ((r_c - r_p) . u) = s''      (r_p, r_c the joint point on parent and child)
    Its multiplier is the generalized force [N | N m] the prescription applies along z_k (its row is the
    Jacobian of dz_k/dt, so the constraint force C^T lambda has virtual power lambda dz_k).
A removed rod with mass becomes a thin rigid body (CoM at its fraction, J = J_t (I - e e^T)) with
spherical joints at both ends and one extra row dw.e = 0 that fixes its (dynamically decoupled) spin.
The KKT system  [[M, C^T], [C, 0]] {x; -lambda} = {Q; c}  is solved densely.

Kinematics are recomputed here from the joint chain (A_child = A_parent prod Rot(u_k, z_k), semirecursive
sign conventions: design coordinates, every body frame = global frame at z = 0), not read from the engine.
Loads: gravity m grav at the CoM; spring-dampers as opposite point forces along the element: compressive
spring force preload + k x, or a piecewise-linear table of the deflection x = L_design - L (linear
extrapolation with the end segments), plus a bump stop k_b (x - c_b) for x > c_b and minus a rebound stop
k_r (-x - c_r) for -x > c_r; damper tension c dL/dt or a piecewise-linear table of dL/dt; a generalized force tau on a joint coordinate (rotational spring-damper,
joint force/torque) as the dual wrench (F, n) on the child and (-F, -n) on the parent at the joint point,
with F . u_j = tau delta_jk over the joint's translational axes and n . u_j = tau delta_jk over its
rotational axes, so that its virtual power is tau dz_k. Further loads (tires, drive torques) come from a
caller's function of the body states, as (body, point, force, torque) with the torque about the CoM.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

GROUND = "ground"


def skew(a):
    """Matrix of the cross product: skew(a) @ b = a x b."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def rot(axis, angle):
    """Rotation by ``angle`` [rad] about the unit ``axis``."""
    return Rotation.from_rotvec(np.asarray(axis, float) * angle).as_matrix()


def perpendiculars(u):
    """Two unit vectors perpendicular to the unit vector u and to each other."""
    t = np.eye(3)[int(np.argmin(np.abs(u)))]
    v1 = np.cross(u, t)
    v1 /= np.linalg.norm(v1)
    return v1, np.cross(u, v1)


@dataclass
class Body:
    """Pose and velocity of one rigid body; points are given in design coordinates X."""
    name: str
    m: float
    J: np.ndarray        # (3,3) CoM inertia, global axes [kg m^2]
    A: np.ndarray        # (3,3) rotation
    o: np.ndarray        # (3,) frame origin [m]: point X is at o + A X
    g: np.ndarray        # (3,) CoM [m]
    gd: np.ndarray       # (3,) CoM velocity [m/s]
    w: np.ndarray        # (3,) angular velocity [rad/s]

    def point(self, X):
        return self.o + self.A @ X

    def velocity(self, r):
        return self.gd + np.cross(self.w, r - self.g)


def _ground():
    z = np.zeros(3)
    return Body(GROUND, 0.0, np.zeros((3, 3)), np.eye(3), z, z, z, z)


# ----------------------------------------------------------------------------------------------
# kinematics from the joint chain
def _joint_motion(joint, parent: Body, z, zd):
    """Child pose/velocity across a (compound) joint and the global elementary axes.

    All translational elementary joints precede the rotational ones in every joint type of the
    spec, so the child's joint point is r_p + sum_P z_k u_k and the rotations act about it.
    Returns (A_c, r_c, v_rc, w_c, axes) with v_rc the velocity of the child's joint point.
    """
    X = joint.point_m
    r = parent.point(X)
    v = parent.velocity(r)
    R = parent.A.copy()
    w = parent.w.copy()
    axes = []
    for k, (ax, kind) in enumerate(zip(joint.axes, joint.kinds)):
        u = R @ ax
        axes.append(u)
        if kind == "P":
            if any(kk == "R" for kk in joint.kinds[:k]):
                raise NotImplementedError(f"joint '{joint.name}': a translation after a rotation")
            # r moves along u; v_P(r) must be re-evaluated at the new point: add w_p x (z u)
            r = r + z[k] * u
            v = v + zd[k] * u + np.cross(parent.w, z[k] * u)
        else:
            R = R @ rot(ax, z[k])
            w = w + zd[k] * u
    return R, r, v, w, axes


def body_states(spec, z: dict, zd: dict, tree_joints) -> dict:
    """Pose and velocity of every body (and of 'ground') from the coordinates of the tree joints."""
    props = {b.name: b for b in spec.bodies}
    out = {GROUND: _ground()}
    axes = {}
    pending = list(tree_joints)
    while pending:
        progress = False
        for j in list(pending):
            if j.parent not in out:
                continue
            zc = [z[c] for c in j.coordinate_names]
            zdc = [zd[c] for c in j.coordinate_names]
            A, r, v, w, ax = _joint_motion(j, out[j.parent], zc, zdc)
            b = props[j.child]
            o = r - A @ j.point_m
            g = o + A @ b.com_m
            out[j.child] = Body(b.name, b.mass_kg, A @ b.inertia_kg_m2 @ A.T, A, o, g,
                                v + np.cross(w, g - r), w)
            axes[j.name] = ax
            pending.remove(j)
            progress = True
        if not progress:
            raise ValueError("tree joints do not connect every body to the ground")
    return out, axes


def _rod_body(rod, a: Body, b: Body) -> Body:
    ra, rb = a.point(rod.point_a_m), b.point(rod.point_b_m)
    va, vb = a.velocity(ra), b.velocity(rb)
    L = np.linalg.norm(rb - ra)
    e = (rb - ra) / L
    xi = rod.com_fraction
    return Body(f"rod:{rod.name}", rod.mass_kg, rod.transverse_inertia_kg_m2 * (np.eye(3) - np.outer(e, e)),
                np.eye(3), np.zeros(3), (1 - xi) * ra + xi * rb, (1 - xi) * va + xi * vb,
                np.cross(e, vb - va) / L)


# ----------------------------------------------------------------------------------------------
# constraint rows: each row is ({body: (6,) coefficients on {a_g; dw}}, bias); row . x + bias = 0
def _point_acc(b: Body, r):
    """Point acceleration of body b at r: linear part (3x6) and velocity bias (3,)."""
    rho = r - b.g
    return np.hstack([np.eye(3), -skew(rho)]), np.cross(b.w, np.cross(b.w, rho))


class _Rows:
    def __init__(self):
        self.rows = []

    def add(self, coeffs: dict, bias: float):
        self.rows.append(({k: v for k, v in coeffs.items() if k != GROUND}, float(bias)))

    def coincide(self, a: Body, b: Body, r):
        La, ba = _point_acc(a, r)
        Lb, bb = _point_acc(b, r)
        for k in range(3):
            c = {a.name: La[k]}
            c[b.name] = c.get(b.name, 0.0) - Lb[k]
            self.add(c, ba[k] - bb[k])

    def perpendicular(self, p: Body, u, c: Body, v):
        """d2/dt2 (u . v) = 0 for u fixed in p and v fixed in c."""
        up, vc = np.cross(p.w, u), np.cross(c.w, v)
        bias = v @ np.cross(p.w, up) + u @ np.cross(c.w, vc) + 2.0 * up @ vc
        self.add({p.name: np.r_[np.zeros(3), np.cross(u, v)], c.name: np.r_[np.zeros(3), np.cross(v, u)]}, bias)

    def slide(self, p: Body, rp, c: Body, rc, v, rhs=0.0):
        """d2/dt2 ((r_c - r_p) . v) = rhs for v fixed in p, r_p on p, r_c on c."""
        d = rc - rp
        dd = c.velocity(rc) - p.velocity(rp)
        Lc, bc = _point_acc(c, rc)
        Lp, bp = _point_acc(p, rp)
        vd = np.cross(p.w, v)
        coef_p = -(v @ Lp) + np.r_[np.zeros(3), np.cross(v, d)]
        bias = v @ (bc - bp) + 2.0 * dd @ vd + d @ np.cross(p.w, vd)
        self.add({c.name: v @ Lc, p.name: coef_p}, bias - rhs)

    def relative_angle(self, p: Body, c: Body, u, rhs):
        """d2/dt2 of the angle of c relative to p about u (fixed in p and c) = rhs."""
        e = np.r_[np.zeros(3), u]
        self.add({c.name: e, p.name: -e}, (c.w - p.w) @ np.cross(p.w, u) - rhs)

    def same_rotation(self, p: Body, c: Body):
        for k in range(3):
            e = np.zeros(6)
            e[3 + k] = 1.0
            self.add({c.name: e, p.name: -e}, 0.0)

    def distance(self, a: Body, ra, b: Body, rb):
        d = ra - rb
        dd = a.velocity(ra) - b.velocity(rb)
        La, ba = _point_acc(a, ra)
        Lb, bb = _point_acc(b, rb)
        c = {a.name: d @ La}
        c[b.name] = c.get(b.name, 0.0) - d @ Lb
        self.add(c, d @ (ba - bb) + dd @ dd)

    def spin_lock(self, rod: Body, e):
        self.add({rod.name: np.r_[np.zeros(3), e]}, 0.0)


def _joint_rows(rows: _Rows, j, p: Body, c: Body, axes):
    X = j.point_m
    if j.type == "free":
        return
    if j.type in ("revolute", "spherical", "universal"):
        rows.coincide(p, c, p.point(X))
    if j.type == "revolute":
        for vbar in perpendiculars(j.axes[0]):
            rows.perpendicular(p, p.A @ j.axes[0], c, c.A @ vbar)
    elif j.type == "universal":
        rows.perpendicular(p, p.A @ j.axes[0], c, c.A @ j.axes[1])
    elif j.type == "prismatic":
        rows.same_rotation(p, c)
        for vbar in perpendiculars(j.axes[0]):
            rows.slide(p, p.point(X), c, c.point(X), p.A @ vbar)
    elif j.type == "planar":
        n = [ax for ax, k in zip(j.axes, j.kinds) if k == "R"][0]
        for vbar in perpendiculars(n):
            rows.perpendicular(p, p.A @ n, c, c.A @ vbar)
        rows.slide(p, p.point(X), c, c.point(X), p.A @ n)
    elif j.type != "spherical":
        raise NotImplementedError(f"reference: joint type {j.type} ('{j.name}')")


# ----------------------------------------------------------------------------------------------
# force element characteristics
def _table(table, x):
    """Piecewise-linear table (xs, ys) at x; beyond the ends the first/last segment continues."""
    xs, ys = np.asarray(table[0], float), np.asarray(table[1], float)
    k = int(np.clip(np.searchsorted(xs, x) - 1, 0, len(xs) - 2))
    return ys[k] + (ys[k + 1] - ys[k]) * (x - xs[k]) / (xs[k + 1] - xs[k])


def spring_compression(s, x):
    """Compressive force [N] of spring-damper ``s`` at deflection x = L_design - L [m], stops included."""
    force = _table(s.spring_table, x) if s.spring_table is not None else s.preload_N + s.stiffness_N_per_m * x
    if x > s.bump_clearance_m:
        force += s.bump_stiffness_N_per_m * (x - s.bump_clearance_m)
    if -x > s.rebound_clearance_m:
        force -= s.rebound_stiffness_N_per_m * (-x - s.rebound_clearance_m)
    return force


def damper_tension(s, rate):
    """Damper tension [N] of ``s`` at the extension rate dL/dt [m/s]."""
    return _table(s.damper_table, rate) if s.damper_table is not None else s.damping_N_s_per_m * rate


# ----------------------------------------------------------------------------------------------
# loads: wrench about the CoM, {F; n_g} per body
def _add_force(Q, b: Body, r, F):
    if b.name == GROUND:
        return
    Q[b.name][:3] += F
    Q[b.name][3:] += np.cross(r - b.g, F)


def _add_torque(Q, b: Body, n):
    if b.name != GROUND:
        Q[b.name][3:] += n


def _generalized_force(Q, j, p: Body, c: Body, axes, k, tau):
    """Dual wrench of a generalized force tau on elementary coordinate k of joint j."""
    r = c.point(j.point_m)
    for kind, apply in (("P", lambda vec: (_add_force(Q, c, r, vec), _add_force(Q, p, r, -vec))),
                        ("R", lambda vec: (_add_torque(Q, c, vec), _add_torque(Q, p, -vec)))):
        idx = [i for i, kk in enumerate(j.kinds) if kk == kind]
        if k not in idx:
            continue
        U = np.array([axes[i] for i in idx])           # rows = axes of this kind
        rhs = np.array([tau if i == k else 0.0 for i in idx])
        vec = np.linalg.lstsq(U, rhs, rcond=None)[0]
        apply(vec)


def _driven_row(rows: _Rows, j, p: Body, c: Body, axes, sdd):
    """The row of a driven coordinate of the 1-DOF joint j: its second derivative equals sdd."""
    if j.type == "prismatic":
        X = j.point_m
        rows.slide(p, p.point(X), c, c.point(X), axes[0], sdd)
    elif j.type == "revolute":
        rows.relative_angle(p, c, axes[0], sdd)
    else:
        raise NotImplementedError(f"reference: driven coordinate of a {j.type} joint ('{j.name}')")


@dataclass
class Solution:
    bodies: dict          # name -> Body (state used)
    acc: dict             # name -> (a_g (3,), dw/dt (3,))
    multipliers: np.ndarray
    constraint_rank: int
    n_rows: int
    driven_forces: dict   # driven coordinate name -> multiplier of its row [N | N m]


def solve(spec, z: dict, zd: dict, cut_joints=(), joint_forces: dict | None = None, external=None,
          driven: dict | None = None) -> Solution:
    """Body accelerations of the mechanism ``spec`` at the state (z, zd) (coordinate name -> value).

    ``cut_joints`` names the joints that are not in the spanning tree (their pose follows from the
    tree); ``joint_forces`` maps coordinate names to generalized forces [N | N m]; ``external(bodies)``
    returns further loads as (body name, point [m] or None, force [N] or None, torque [N m] or None);
    ``driven`` maps prescribed coordinates (of revolute or prismatic tree joints) to their prescribed
    accelerations s'' [m/s^2 | rad/s^2], each adding a rheonomic row whose multiplier is returned in
    ``Solution.driven_forces``.
    """
    cut = set(cut_joints)
    tree = [j for j in spec.joints if j.name not in cut]
    bodies, axes = body_states(spec, z, zd, tree)
    rods = []
    for rod in spec.rods:
        if rod.mass_kg > 0.0:
            rb = _rod_body(rod, bodies[rod.body_a], bodies[rod.body_b])
            bodies[rb.name] = rb
            rods.append((rod, rb))
    names = [n for n in bodies if n != GROUND]
    index = {n: i for i, n in enumerate(names)}
    nb = len(names)

    rows = _Rows()
    for j in spec.joints:
        _joint_rows(rows, j, bodies[j.parent], bodies[j.child], axes.get(j.name))
    for rod in spec.rods:
        a, b = bodies[rod.body_a], bodies[rod.body_b]
        ra, rb = a.point(rod.point_a_m), b.point(rod.point_b_m)
        if rod.mass_kg > 0.0:
            body = bodies[f"rod:{rod.name}"]
            rows.coincide(a, body, ra)
            rows.coincide(b, body, rb)
            rows.spin_lock(body, (rb - ra) / np.linalg.norm(rb - ra))
        else:
            rows.distance(a, ra, b, rb)
    by_coord = {c: (j, k) for j in tree for k, c in enumerate(j.coordinate_names)}
    driven_rows = {}
    for cname, sdd in (driven or {}).items():
        j, _ = by_coord[cname]
        driven_rows[cname] = len(rows.rows)
        _driven_row(rows, j, bodies[j.parent], bodies[j.child], axes[j.name], sdd)

    # loads
    Q = {n: np.zeros(6) for n in names}
    Q[GROUND] = np.zeros(6)
    grav = np.asarray(spec.gravity_m_per_s2, float)
    for n in names:
        b = bodies[n]
        Q[n][:3] += b.m * grav
        Q[n][3:] -= np.cross(b.w, b.J @ b.w)
    for s in spec.spring_dampers:
        a, b = bodies[s.body_a], bodies[s.body_b]
        ra, rb = a.point(s.point_a_m), b.point(s.point_b_m)
        L = np.linalg.norm(rb - ra)
        e = (rb - ra) / L
        Ld = e @ (b.velocity(rb) - a.velocity(ra))
        tension = damper_tension(s, Ld) - spring_compression(s, np.linalg.norm(s.point_b_m - s.point_a_m) - L)
        _add_force(Q, a, ra, tension * e)
        _add_force(Q, b, rb, -tension * e)
    gen = dict(joint_forces or {})
    for rs in spec.rotational_spring_dampers:
        gen[rs.coordinate] = gen.get(rs.coordinate, 0.0) - rs.stiffness_N_m_per_rad * (
            z[rs.coordinate] - rs.free_angle_rad) - rs.damping_N_m_s_per_rad * zd[rs.coordinate]
    for cname, tau in gen.items():
        j, k = by_coord[cname]
        _generalized_force(Q, j, bodies[j.parent], bodies[j.child], axes[j.name], k, tau)

    for name, r, F, n in (external(bodies) if external is not None else ()):
        if F is not None:
            _add_force(Q, bodies[name], r, np.asarray(F, float))
        if n is not None:
            _add_torque(Q, bodies[name], np.asarray(n, float))

    # KKT
    M = np.zeros((6 * nb, 6 * nb))
    rhs_q = np.zeros(6 * nb)
    for n, i in index.items():
        b = bodies[n]
        M[6 * i:6 * i + 3, 6 * i:6 * i + 3] = b.m * np.eye(3)
        M[6 * i + 3:6 * i + 6, 6 * i + 3:6 * i + 6] = b.J
        rhs_q[6 * i:6 * i + 6] = Q[n]
    nr = len(rows.rows)
    C = np.zeros((nr, 6 * nb))
    c = np.zeros(nr)
    for r, (coef, bias) in enumerate(rows.rows):
        for n, v in coef.items():
            C[r, 6 * index[n]:6 * index[n] + 6] += v
        c[r] = -bias
    rank = int(np.linalg.matrix_rank(C, tol=1e-10 * max(1.0, np.abs(C).max()))) if nr else 0
    if rank < nr:
        raise ValueError(f"reference: {nr} constraint rows have rank {rank} (redundant joints)")
    K = np.block([[M, C.T], [C, np.zeros((nr, nr))]])
    sol = np.linalg.solve(K, np.r_[rhs_q, c])
    x = sol[:6 * nb]
    acc = {n: (x[6 * i:6 * i + 3].copy(), x[6 * i + 3:6 * i + 6].copy()) for n, i in index.items()}
    lam = -sol[6 * nb:]
    return Solution(bodies, acc, lam, rank, nr, {c: float(lam[r]) for c, r in driven_rows.items()})


def solve_mechanism(mech, joint_forces: dict | None = None, external=None, driven: dict | None = None) -> Solution:
    """:func:`solve` at the state held in ``mech.data`` (after ``mech.derivatives``); ``driven`` as in
    :func:`solve` (the prescribed accelerations, given by the caller, not read from the engine)."""
    names = mech.info.coordinate_names
    z = {c: float(mech.data.z[i]) for i, c in enumerate(names)}
    zd = {c: float(mech.data.zd[i]) for i, c in enumerate(names)}
    return solve(mech.spec, z, zd, mech.info.cut_joints, joint_forces, external, driven)


def engine_accelerations(mech) -> dict:
    """Body CoM and angular accelerations from the engine's dZ/dt (docs/formulation.md §1):
    a_g = dv/dt + dw/dt x g + w x dg/dt with Z = {v; w} of the point at the origin."""
    d = mech.data
    out = {}
    for name, i in mech.info.body_index.items():
        Zd, w = d.Zd[i], d.Z[i, 3:]
        out[name] = (Zd[:3] + np.cross(Zd[3:], d.g[i]) + np.cross(w, d.gd[i]), Zd[3:].copy())
    return out
