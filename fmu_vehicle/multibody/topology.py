"""Compile a mechanism description into the flat tree model (run once per model; docs/formulation.md §2).

Steps (the analogue of Drake's LinkJointGraph -> SpanningForest):

1. Spanning tree of the body/joint graph rooted at the ground. Joints marked ``cut`` are loop
   closures. When the data names none, cut joints are chosen automatically: non-spherical joints
   enter the tree first (Kruskal order), so every loop is closed at a spherical joint (3 equations,
   as the vehicles of Dai, Pan et al. 2022 are, §2). A loop without a cuttable joint, a body not connected to the ground, or a joint whose
   parent is farther from the ground than its child is reported by name.
2. Compound joints are expanded into chains of 1-DOF revolute/prismatic joints with massless
   auxiliary bodies (docs/formulation.md §2); bodies are numbered in topological order.
3. Removed rods / fork arms become distance constraints with consistent end-point mass coefficients
   (docs/formulation.md §6): a = m - 2 m xi + c, b = m xi - c, c = J_t / l^2 + m xi^2.
4. Driven coordinates (docs/formulation.md §13) become indices ``drv``; ``ni = n - m - ndrv`` independent
   coordinates remain.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from .model import (COORD_ALL_GROUPS, JOINT_PRISMATIC, JOINT_REVOLUTE, ROLE_DRIVEN, ROLE_FREE, ROLE_PREFERRED,
                    MultibodyModel)
from .spec import GROUND, MechanismSpec


@dataclass(frozen=True)
class TreeInfo:
    """Names and maps that translate between the user's terms and tree indices."""
    body_names: tuple          # per tree index (auxiliary bodies are named '<joint>#k')
    coordinate_names: tuple    # per tree index
    body_index: dict           # physical body name -> tree index (its frame)
    coordinate_index: dict     # coordinate name -> tree index
    joint_of_coordinate: tuple # joint name per tree index
    cut_joints: tuple          # names of the cut spherical joints
    rod_names: tuple           # names of the rod constraints (fork arms give '<arm>.jk', '<arm>.jl')
    spring_names: tuple
    rotational_names: tuple


class _UnionFind:
    def __init__(self, names):
        self.p = {n: n for n in names}

    def find(self, a):
        while self.p[a] != a:
            self.p[a] = self.p[self.p[a]]
            a = self.p[a]
        return a

    def union(self, a, b) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.p[ra] = rb
        return True


def _choose_tree(spec: MechanismSpec):
    """Return (tree joints, cut joints). Errors name the offending bodies/joints."""
    src = spec.source
    names = [GROUND] + [b.name for b in spec.bodies]
    named_cuts = [j for j in spec.joints if j.cut]
    uf = _UnionFind(names)
    tree, cuts = [], []
    if named_cuts:
        for j in spec.joints:
            if j.cut:
                cuts.append(j)
            elif not uf.union(j.parent, j.child):
                raise ModelError(f"{src}: joints: loop with no closure through joint '{j.name}' "
                                 f"(bodies '{j.parent}' and '{j.child}' are already connected); "
                                 "mark one spherical joint of the loop with \"cut\": true")
            else:
                tree.append(j)
    else:
        order = [j for j in spec.joints if j.type != "spherical"] + [j for j in spec.joints if j.type == "spherical"]
        for j in order:
            if uf.union(j.parent, j.child):
                tree.append(j)
            elif j.type == "spherical":
                cuts.append(j)
            else:
                raise ModelError(f"{src}: joints: loop with no closure: joint '{j.name}' ({j.type}) closes a loop "
                                 "of non-spherical joints; only spherical joints can be cut (or model a "
                                 "link as a removed rod)")
    root = uf.find(GROUND)
    for b in spec.bodies:
        if uf.find(b.name) != root:
            raise ModelError(f"{src}: bodies: body '{b.name}' is not connected to the ground by joints")
    return tree, cuts


def _constant_unit_screws(parent, jtype, axis0, path, depth):
    """(unit_axis, unit_depth): unit_axis[i] = k if the screw of coordinate i is the constant b_i = {e_k; 0}
    (a prismatic joint along global axis k whose ancestors are all prismatic, so that its parent's rotation
    is the identity: a vehicle's chassis translations), else -1; unit_depth[i] = how many of the first
    coordinates of path[i] (root first) have such a screw."""
    n = len(parent)
    unit_axis = np.full(n, -1, dtype=np.int64)
    translating = np.zeros(n, dtype=np.bool_)       # the body's rotation is the identity at every z
    for i in range(n):
        p = parent[i]
        if jtype[i] != JOINT_PRISMATIC or (p >= 0 and not translating[p]):
            continue
        translating[i] = True
        a = np.asarray(axis0[i], dtype=float)
        k = int(np.argmax(np.abs(a)))
        if a[k] == 1.0 and np.count_nonzero(a) == 1:
            unit_axis[i] = k
    unit_depth = np.zeros(n, dtype=np.int64)
    for i in range(n):
        c = 0
        while c < depth[i] and unit_axis[path[i, c]] >= 0:
            c += 1
        unit_depth[i] = c
    return unit_axis, unit_depth


def _mass_pattern(on_path, pairs):
    """The entries of the open-loop mass matrix M that can be non-zero, and those of them only the rods write.

    M_ij = b_i^T M^S_max(i,j) b_j is written for i and j on one path (one an ancestor of the other, or
    i = j); a pair (A, B) of bodies joined by massive rods adds b (G_a,i . G_b,j + G_a,j . G_b,i) for i on
    the path of A and j on the path of B (``dynamics.add_rods``). Every other entry stays zero.
    Returns (mcol_rows (n, n): the rows of column j's possibly non-zero entries, increasing, in
    mcol_rows[j, :mcol_nrows[j]]; mcol_nrows (n,); rod_reset (k, 2): the entries (i, j), i < j, that
    only the rods write, which ``add_rods`` zeroes before adding)."""
    n = on_path.shape[0]
    nz = on_path | on_path.T
    reset = set()
    for a, b in pairs:
        for i in np.flatnonzero(on_path[a]):
            for j in np.flatnonzero(on_path[b]):
                if not nz[i, j]:
                    reset.add((min(i, j), max(i, j)))
    for i, j in reset:
        nz[i, j] = nz[j, i] = True
    mcol_rows = np.zeros((n, n), dtype=np.int64)
    mcol_nrows = nz.sum(axis=0).astype(np.int64)
    for j in range(n):
        mcol_rows[j, :mcol_nrows[j]] = np.flatnonzero(nz[:, j])
    rod_reset = np.array(sorted(reset), dtype=np.int64).reshape(len(reset), 2)
    return mcol_rows, mcol_nrows, rod_reset


def _reduced_pattern(mcol_rows, mcol_nrows, coord_group):
    """Which entries of the reduced matrix R_z^T M R_z can be non-zero, for any partition: column k of R_z
    (k independent) is non-zero only in row k and the rows of the dependent coordinates of k's loop group,
    so entry (k, l) is a sum of entries of M between {k} + group(k) and {l} + group(l) (a coordinate in no
    group has its own row only; a driven one is never independent). With S[k, a] = 1 for a in {k} + group(k)
    and N the pattern of M: entry (k, l) can be non-zero iff (S N S^T)[k, l] > 0. Returns (n, n) bool."""
    n = mcol_nrows.shape[0]
    nz = np.zeros((n, n), dtype=np.int64)
    for j in range(n):
        nz[mcol_rows[j, :mcol_nrows[j]], j] = 1
    group = np.asarray(coord_group)
    support = ((group[:, None] == group[None, :]) & (group[:, None] >= 0)) | np.eye(n, dtype=np.bool_)
    s = support.astype(np.int64)           # s[k, a] = 1: row a of M enters column k of R_z
    return (s @ nz @ s.T) > 0


def _postorder_rank(parent):
    """Position of every body (coordinate) in the tree's postorder: each subtree contiguous, children (in
    index order) before their parent, roots last in index order."""
    n = len(parent)
    children = [[] for _ in range(n)]
    roots = []
    for i in range(n):
        (children[parent[i]] if parent[i] >= 0 else roots).append(i)
    rank = np.zeros(n, dtype=np.int64)
    pos = 0
    stack = [(r, False) for r in reversed(roots)]
    while stack:
        i, done = stack.pop()
        if done:
            rank[i] = pos
            pos += 1
            continue
        stack.append((i, True))
        stack.extend((c, False) for c in reversed(children[i]))
    return rank


def _loop_groups(loop_cols, loop_ncols, nsph: int, n: int, driven=()):
    """Loop groups: the connected sets of loops (cut joints and rods) that share a coordinate column of
    Phi_z. Phi_z is block-diagonal over them, and so is Phi_z^d for every regular partition: a group's
    rows vanish outside its columns, so it holds exactly as many dependent coordinates as rows. A vehicle
    has one group per suspension corner (the chassis coordinates are common ancestors, in no column).

    Driven coordinates are never dependent, so their columns join no groups (they are not part of
    Phi_z^d): they get ``COORD_ALL_GROUPS``.

    Returns the constraint rows ordered group by group (rows of cut joint s: 3s..3s+2, of rod q:
    3 nsph + q), the start of every group in that order (plus the end), and the group of each
    coordinate (-1: in no loop's columns).
    """
    nloop = len(loop_ncols)
    groups = _UnionFind(range(nloop))
    owner = {}
    driven = set(int(k) for k in driven)
    in_loops = set()
    for c in range(nloop):
        for k in loop_cols[c, :loop_ncols[c]].tolist():
            if k in driven:
                in_loops.add(k)
                continue
            if k in owner:
                groups.union(c, owner[k])
            else:
                owner[k] = c
    roots = list(dict.fromkeys(groups.find(c) for c in range(nloop)))
    rows, group_beg = [], [0]
    for root in roots:
        for c in range(nloop):
            if groups.find(c) == root:
                rows.extend([3 * c, 3 * c + 1, 3 * c + 2] if c < nsph else [3 * nsph + (c - nsph)])
        group_beg.append(len(rows))
    coord_group = np.full(n, -1, dtype=np.int64)
    for k, c in owner.items():
        coord_group[k] = roots.index(groups.find(c))
    for k in in_loops:
        coord_group[k] = COORD_ALL_GROUPS
    return np.array(rows, dtype=np.int64), np.array(group_beg, dtype=np.int64), coord_group


def compile_mechanism(spec: MechanismSpec) -> tuple[MultibodyModel, TreeInfo]:
    """Build the flat tree model of ``spec`` (see module docstring)."""
    src = spec.source
    tree, cuts = _choose_tree(spec)
    by_child = {}
    children = {GROUND: []}
    for j in tree:
        if j.child in by_child:   # two tree joints into one body: the second one must be a cut
            raise ModelError(f"{src}: joints: body '{j.child}' is the child of both '{by_child[j.child].name}' "
                             f"and '{j.name}'; make one of them a cut joint or swap its parent and child")
        by_child[j.child] = j
        children.setdefault(j.parent, []).append(j)
    # breadth-first from the ground gives topological order; a joint reached from its child is reversed
    body = {b.name: b for b in spec.bodies}
    order, seen, queue = [], {GROUND}, deque([GROUND])
    while queue:
        p = queue.popleft()
        for j in children.get(p, []):
            if j.child in seen:
                continue
            seen.add(j.child)
            order.append(j)
            queue.append(j.child)
    for j in tree:
        if j.child not in seen:
            raise ModelError(f"{src}: joints: joint '{j.name}': parent '{j.parent}' is farther from the ground "
                             f"than child '{j.child}'; swap parent and child")

    parent, jtype, axis0, point0, mass, com0, inertia0 = [], [], [], [], [], [], []
    bnames, cnames, jof = [], [], []
    index = {GROUND: -1}
    for j in order:
        p = index[j.parent]
        k = len(j.axes)
        for e, (ax, kind, cname) in enumerate(zip(j.axes, j.kinds, j.coordinate_names)):
            last = e == k - 1
            parent.append(p)
            jtype.append(JOINT_REVOLUTE if kind == "R" else JOINT_PRISMATIC)
            axis0.append(ax)
            point0.append(j.point_m)
            if last:
                b = body[j.child]
                mass.append(b.mass_kg), com0.append(b.com_m), inertia0.append(b.inertia_kg_m2)
                bnames.append(b.name)
            else:
                mass.append(0.0), com0.append(j.point_m), inertia0.append(np.zeros((3, 3)))
                bnames.append(f"{j.name}#{e + 1}")
            cnames.append(cname)
            jof.append(j.name)
            p = len(parent) - 1
        index[j.child] = p
    n = len(parent)
    parent = np.array(parent, dtype=np.int64)
    on_path = np.zeros((n, n), dtype=np.bool_)
    for i in range(n):
        k = i
        while k >= 0:
            on_path[i, k] = True
            k = parent[k]

    def bidx(name):
        return index[name]

    sph = [(bidx(j.parent), bidx(j.child), j.point_m, j.point_m) for j in cuts]
    rods = spec.rods
    rod_M, rod_w, rod_len = [], [], []
    for r in rods:
        L = float(np.linalg.norm(r.point_b_m - r.point_a_m))
        m, xi = r.mass_kg, r.com_fraction
        c = r.transverse_inertia_kg_m2 / L**2 + m * xi**2
        rod_M.append((m - 2 * m * xi + c, m * xi - c, c))
        rod_w.append((m * (1 - xi), m * xi))
        rod_len.append(L)
    sds = spec.spring_dampers
    tab_x, tab_y, stab, dtab = [], [], [], []
    for s in sds:
        for tbl, dest in ((s.spring_table, stab), (s.damper_table, dtab)):
            if tbl is None:
                dest.append((0, 0))
            else:
                dest.append((len(tab_x), len(tbl[0])))
                tab_x.extend(tbl[0]), tab_y.extend(tbl[1])
    coord_index = {c: i for i, c in enumerate(cnames)}
    rsds = spec.rotational_spring_dampers

    def arr(x, shape):
        return np.array(x, dtype=float).reshape(shape)

    loops = [(a, b) for a, b, _, _ in sph] + [(bidx(r.body_a), bidx(r.body_b)) for r in rods]
    loop_cols = np.zeros((len(loops), n), dtype=np.int64)
    loop_ncols = np.zeros(len(loops), dtype=np.int64)
    for c, (a, b) in enumerate(loops):
        cols = [k for k in range(n) if (a >= 0 and on_path[a, k]) != (b >= 0 and on_path[b, k])]
        loop_cols[c, :len(cols)] = cols
        loop_ncols[c] = len(cols)
    driven_idx = [coord_index[c] for c in spec.driven if c in coord_index]     # others are refused below
    lu_row, group_beg, coord_group = _loop_groups(loop_cols, loop_ncols, len(sph), n, driven_idx)
    lu_beg = np.repeat(group_beg[:-1], np.diff(group_beg))
    lu_end = np.repeat(group_beg[1:], np.diff(group_beg))

    pairs, rod_pair = [], []
    for r in rods:
        a, b = bidx(r.body_a), bidx(r.body_b)
        if r.mass_kg == 0.0 or a < 0 or b < 0:
            rod_pair.append(-1)
            continue
        if (a, b) not in pairs:
            pairs.append((a, b))
        rod_pair.append(pairs.index((a, b)))
    path = np.zeros((n, n), dtype=np.int64)
    depth = on_path.sum(axis=1).astype(np.int64)
    for i in range(n):
        path[i, :depth[i]] = np.flatnonzero(on_path[i])

    unit_axis, unit_depth = _constant_unit_screws(parent, jtype, axis0, path, depth)
    mcol_rows, mcol_nrows, rod_reset = _mass_pattern(on_path, pairs)
    # the common prefix of the two paths of a pair: paths list a body's ancestors root first
    pair_ncommon = np.array([int(np.sum(on_path[a] & on_path[b])) for a, b in pairs], dtype=np.int64)
    pair_lca = np.array([path[a, k - 1] if k > 0 else -1 for (a, _), k in zip(pairs, pair_ncommon)], dtype=np.int64)

    mr_coupled = _reduced_pattern(mcol_rows, mcol_nrows, coord_group)
    elim_rank = _postorder_rank(parent)

    cut_coords = {c: j.name for j in cuts for c in j.coordinate_names}
    for c in spec.driven:
        if c in cut_coords:
            raise ModelError(f"{src}: coordinates: driven: '{c}' is a coordinate of the cut joint '{cut_coords[c]}', "
                             "which has no coordinates of its own; prescribe a coordinate of a tree joint")
    drv = np.array([coord_index[c] for c in spec.driven], dtype=np.int64)
    m = 3 * len(sph) + len(rods)
    role = np.full(n, ROLE_FREE, dtype=np.int64)
    role[[coord_index[c] for c in spec.independent or ()]] = ROLE_PREFERRED
    role[drv] = ROLE_DRIVEN
    model = MultibodyModel(
        n=n, m=m, ndrv=len(drv), drv=drv, ni=n - m - len(drv), coord_role=role, parent=parent, jtype=np.array(jtype, dtype=np.int64),
        axis0=arr(axis0, (n, 3)), point0=arr(point0, (n, 3)), mass=arr(mass, (n,)), com0=arr(com0, (n, 3)),
        inertia0=arr(inertia0, (n, 3, 3)), on_path=on_path, path=path, depth=depth, unit_axis=unit_axis,
        unit_depth=unit_depth, loop_cols=loop_cols,
        loop_ncols=loop_ncols, ngroup=len(group_beg) - 1, group_beg=group_beg, coord_group=coord_group,
        lu_row=lu_row, lu_beg=lu_beg, lu_end=lu_end, gravity=np.array(spec.gravity_m_per_s2, dtype=float),
        nsph=len(sph), sph_a=np.array([s[0] for s in sph], dtype=np.int64),
        sph_b=np.array([s[1] for s in sph], dtype=np.int64),
        sph_pa=arr([s[2] for s in sph], (len(sph), 3)), sph_pb=arr([s[3] for s in sph], (len(sph), 3)),
        nrod=len(rods), rod_a=np.array([bidx(r.body_a) for r in rods], dtype=np.int64),
        rod_b=np.array([bidx(r.body_b) for r in rods], dtype=np.int64),
        rod_pa=arr([r.point_a_m for r in rods], (len(rods), 3)), rod_pb=arr([r.point_b_m for r in rods], (len(rods), 3)),
        rod_len=arr(rod_len, (len(rods),)), rod_mass=arr([r.mass_kg for r in rods], (len(rods),)),
        rod_M=arr(rod_M, (len(rods), 3)), rod_w=arr(rod_w, (len(rods), 2)),
        rod_pair=np.array(rod_pair, dtype=np.int64), npair=len(pairs),
        pair_a=np.array([p[0] for p in pairs], dtype=np.int64), pair_b=np.array([p[1] for p in pairs], dtype=np.int64),
        pair_ncommon=pair_ncommon, pair_lca=pair_lca,
        mcol_rows=mcol_rows, mcol_nrows=mcol_nrows, nrod_reset=len(rod_reset), rod_reset=rod_reset,
        mr_coupled=mr_coupled, elim_rank=elim_rank,
        nsd=len(sds), sd_a=np.array([bidx(s.body_a) for s in sds], dtype=np.int64),
        sd_b=np.array([bidx(s.body_b) for s in sds], dtype=np.int64),
        sd_pa=arr([s.point_a_m for s in sds], (len(sds), 3)), sd_pb=arr([s.point_b_m for s in sds], (len(sds), 3)),
        sd_L0=arr([np.linalg.norm(s.point_b_m - s.point_a_m) for s in sds], (len(sds),)),
        sd_k=arr([s.stiffness_N_per_m for s in sds], (len(sds),)), sd_pre=arr([s.preload_N for s in sds], (len(sds),)),
        sd_c=arr([s.damping_N_s_per_m for s in sds], (len(sds),)),
        sd_stab=np.array(stab, dtype=np.int64).reshape(len(sds), 2),
        sd_dtab=np.array(dtab, dtype=np.int64).reshape(len(sds), 2),
        sd_stops=arr([(s.bump_clearance_m, s.bump_stiffness_N_per_m, s.rebound_clearance_m,
                       s.rebound_stiffness_N_per_m) for s in sds], (len(sds), 4)),
        tab_x=np.array(tab_x + [0.0]), tab_y=np.array(tab_y + [0.0]),
        nrsd=len(rsds), rsd_coord=np.array([coord_index[r.coordinate] for r in rsds], dtype=np.int64),
        rsd_k=arr([r.stiffness_N_m_per_rad for r in rsds], (len(rsds),)),
        rsd_c=arr([r.damping_N_m_s_per_rad for r in rsds], (len(rsds),)),
        rsd_z0=arr([r.free_angle_rad for r in rsds], (len(rsds),)),
    )
    info = TreeInfo(tuple(bnames), tuple(cnames), {b.name: index[b.name] for b in spec.bodies},
                    coord_index, tuple(jof), tuple(j.name for j in cuts), tuple(r.name for r in rods),
                    tuple(s.name for s in sds), tuple(r.name for r in rsds))
    if model.m >= n:
        raise ModelError(f"{src}: {model.m} loop-closure equations for {n} coordinates: the mechanism cannot move")
    if model.ni < 0:
        raise ModelError(f"{src}: coordinates: driven: {model.ndrv} driven coordinates, but {n} coordinates - "
                         f"{model.m} closure equations leave only {n - model.m} to prescribe")
    return model, info
