"""Compiled multibody model (static, flat arrays) and its preallocated workspace.

``MultibodyModel`` is the constant description produced once by :func:`topology.compile_mechanism`;
``MultibodyData`` holds every per-evaluation buffer. Engine functions take ``(model, data, ...)``,
mutate ``data`` only, and allocate nothing (Pinocchio's Model/Data split, MuJoCo's mjModel/mjData).

Indexing: tree bodies ``0..n-1`` in topological order (parent index < child index), one 1-DOF joint
each (its input joint), so there are ``n`` relative coordinates ``z``. Index ``-1`` is the ground.
The coordinates split into ``m`` dependent, ``ni`` independent and ``ndrv`` driven (prescribed as
functions of time, docs/formulation.md §13) ones: ``n = m + ni + ndrv``.
Body frames coincide with the global frame at the design configuration (``z = 0``), so body-fixed
points, axes and inertias are stored in design (global) coordinates. Notation follows
docs/formulation.md §1: 6-vectors are [translational; rotational] about the global origin.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

COORD_ALL_GROUPS = -2
"""``coord_group`` of a driven coordinate in the columns of loops: its column of Phi_z may reach several
groups (a steering rack moves both front corners), so its velocity transformation solves every block."""

JOINT_REVOLUTE = 0
JOINT_PRISMATIC = 1

ROLE_FREE = 0          # ``coord_role``: the partition may make the coordinate dependent or independent
ROLE_PREFERRED = 1     # kept independent while the partition stays well conditioned (coordinates.independent)
ROLE_DRIVEN = 2        # prescribed: neither dependent nor independent

MODEL_FIELDS = (
    "n",            # number of tree bodies = relative coordinates
    "m",            # number of loop-closure equations (3 per cut spherical joint + 1 per rod)
    "ndrv",         # number of driven (prescribed, rheonomic) coordinates z_drv = s(t)
    "drv",          # (ndrv,) int64 coordinate index of each driven coordinate, in the file's order
    "ni",           # number of independent coordinates (degrees of freedom) = n - m - ndrv
    "coord_role",   # (n,) int64 ROLE_FREE | ROLE_PREFERRED | ROLE_DRIVEN (partition.choose_dependent)
    "parent",       # (n,) int64 parent body index, -1 = ground
    "jtype",        # (n,) int64 JOINT_REVOLUTE | JOINT_PRISMATIC
    "axis0",        # (n,3) joint axis, design coordinates (unit)
    "point0",       # (n,3) point on the joint axis, design coordinates [m]
    "mass",         # (n,) body mass [kg] (0 for auxiliary bodies)
    "com0",         # (n,3) centre of mass, design coordinates [m]
    "inertia0",     # (n,3,3) inertia about the CoM, design axes [kg m^2]
    "on_path",      # (n,n) bool: on_path[i, j] <=> j is i or an ancestor of i (path matrix T)
    "path",         # (n, n) int64: path[i, :depth[i]] = i and its ancestors, increasing
    "depth",        # (n,) int64
    "unit_axis",    # (n,) int64 k if b_i is the constant {e_k; 0} (a translation along a global axis with only
                    # translations above it: a vehicle's chassis x, y, z), else -1
    "unit_depth",   # (n,) int64 number of leading coordinates of path[i] whose b is such a constant
    "loop_cols",    # (nsph+nrod, n) int64: coordinates on the path of exactly one body of a cut joint / rod,
    "loop_ncols",   # (nsph+nrod,) int64    increasing (loop_cols[c, :loop_ncols[c]]; sph first, then rods):
                    #                       the only non-zero columns of its Phi_z rows (a common ancestor
                    #                       moves the closed loop rigidly: its column vanishes)
    "ngroup",       # number of loop groups (loops sharing coordinate columns; topology._loop_groups)
    "group_beg",    # (ngroup+1,) int64 start of every group in the LU order of the constraint rows, then m
    "coord_group",  # (n,) int64 loop group whose columns hold the coordinate, -1 if none (moves no loop)
    "lu_row",       # (m,) int64 constraint row of each LU row (rows ordered group by group)
    "lu_beg", "lu_end",   # (m,) int64 the LU block [lu_beg[k], lu_end[k]) holding LU row/column k
    "gravity",      # (3,) [m/s^2]
    "nsph", "sph_a", "sph_b", "sph_pa", "sph_pb",    # cut spherical joints: bodies, design points [m]
    "nrod", "rod_a", "rod_b", "rod_pa", "rod_pb",    # removed rods / distance constraints
    "rod_len",      # (nrod,) constant length [m]
    "rod_mass",     # (nrod,) [kg]
    "rod_M",        # (nrod,3) consistent end-point mass coefficients (a, b, c) [kg]: M_rod = [[aI, bI],[bI, cI]]
    "rod_w",        # (nrod,2) share of the rod weight carried by end a and end b [-]
    "rod_pair",     # (nrod,) int64 index of the rod's (body a, body b) pair, -1 if massless or on the ground
    "npair", "pair_a", "pair_b",   # distinct body pairs joined by massive rods (their coupling terms)
    "pair_ncommon", "pair_lca",    # (npair,) int64: length of the common prefix of path[pair_a] and path[pair_b]
                                   # (the coordinates on both paths) and its last body (the lowest common
                                   # ancestor, -1 if none): the coupling on the common prefix is accumulated
                                   # as an inertia of that body (dynamics.rod_body_terms)
    "mcol_rows", "mcol_nrows",     # (n,n), (n,) int64: rows of the entries of column j of M that can be
                                   # non-zero, increasing (mcol_rows[j, :mcol_nrows[j]]; M is symmetric, so
                                   # also the columns of row j): on one path, or coupled by a rod pair
    "nrod_reset", "rod_reset",     # (nrod_reset, 2) int64: entries (i, j), i < j, of M that only the rods'
                                   # coupling writes (neither body on the other's path)
    "mr_coupled",   # (n,n) bool: the reduced matrix R_z^T M R_z can have a non-zero entry between independent
                    # coordinates k and l (some entry of M between their columns' possible rows: k or l and the
                    # coordinates of its loop group), whatever the partition
    "elim_rank",    # (n,) int64 position of each coordinate in the tree's postorder (children before their
                    # parent, every subtree contiguous): the reduced system is factored in this order, so the
                    # coordinates every path shares (the root's) come last
    "nsd", "sd_a", "sd_b", "sd_pa", "sd_pb",         # translational spring-damper elements
    "sd_L0",        # (nsd,) design length [m] (reference for the deflection x = L0 - L)
    "sd_k",         # (nsd,) stiffness [N/m] (used when no spring table)
    "sd_pre",       # (nsd,) compressive preload at L0 [N]
    "sd_c",         # (nsd,) damping [N s/m] (used when no damper table)
    "sd_stab",      # (nsd,2) int64 (offset, count) into tab_x/tab_y of the spring table, count 0 = linear
    "sd_dtab",      # (nsd,2) int64 (offset, count) of the damper table, count 0 = linear
    "sd_stops",     # (nsd,4) bump clearance [m], bump stiffness [N/m], rebound clearance [m], rebound stiffness [N/m]
    "tab_x", "tab_y",                                  # concatenated characteristic tables
    "nrsd", "rsd_coord", "rsd_k", "rsd_c", "rsd_z0",   # rotational spring-dampers on a coordinate
)
MultibodyModel = namedtuple("MultibodyModel", MODEL_FIELDS)

DATA_FIELDS = (
    "z", "zd", "zdd",          # (n,) relative coordinates, velocities, accelerations [m | rad, /s, /s^2]
    "A",                       # (n,3,3) body rotation matrices
    "o",                       # (n,3) body frame origins [m]: point p = o + A X
    "u", "r",                  # (n,3) joint axes and joint points, global
    "b",                       # (n,6) joint screws b_i (docs/formulation.md §3)
    "g", "gd",                 # (n,3) CoM positions [m] and velocities [m/s]
    "Z", "Zd0", "Zd",          # (n,6) Cartesian velocities Z_i, velocity-only accelerations, full dZ_i/dt
    "Ibar", "Qbar", "Pbar",    # (n,10), (n,6), (n,6) body mass matrices Mbar as spatial inertias (mass [kg],
                               # first moment m g [kg m], J_O [kg m^2]: dynamics.I_*), forces, velocity terms
    "IS", "QS", "PS",          # accumulated M^Σ (as spatial inertias), Q^Σ, P^Σ
    "M", "f",                  # (n,n) open-loop mass matrix (rods included), (n,) forces
    "Qext",                    # (n,6) external wrenches {F; r x F} about the origin, set by the caller
    "jforce",                  # (n,) generalized joint forces/torques, set by the caller
    "drv_z", "drv_zd", "drv_zdd",   # (ndrv,) prescribed positions [m | rad], velocities, accelerations of
                               # the driven coordinates, set by the caller before state.set_state
    "drv_force",               # (ndrv,) generalized force the prescription applies along each driven
                               # coordinate [N | N m] (actuator force), from dynamics.drive_forces
    "phi", "phiz", "gam",      # (m,), (m,n), (m,) constraints, Jacobian, dPhi_z/dt * zd
    "indep", "dep",            # (ni,), (m,) int64 coordinate partition
    "lu", "piv",               # (m,m), (m,) LU factors of Phi_z^d, rows model.lu_row, columns lu_dep (only the
                               # diagonal blocks model.lu_beg/lu_end are used)
    "lu_dep",                  # (m,) int64 dependent coordinate of each LU column (dep ordered group by group)
    "group_fill",              # (ngroup,) int64 work
    "Rz", "S",                 # (n,ni), (n,) second velocity transformation and dR_z/dt * zd_i (plus the
                               # driven terms: S|_drv = zdd_drv, docs/formulation.md §13)
    "Rdrv",                    # (n,ndrv) velocity transformation of the driven coordinates: zd = R_z zd^i
                               # + R_drv zd_drv, R_drv|_drv = I, R_drv|_d = -(Phi_z^d)^-1 Phi_z^drv, R_drv|_i = 0
    "Mr", "fr", "zddi",        # (ni,ni), (ni,), (ni,) reduced system (rows and columns in elimination order,
                               # mr_order; overwritten by its Cholesky factor), forces and independent
                               # accelerations (both in the order of indep)
    "mr_order", "mr_pos",      # (ni,), (ni,) int64: position in indep of each row of Mr, and its inverse
    "mr_first",                # (ni,) int64 first possibly non-zero column of each row of Mr (its envelope)
    "mr_indep",                # (ni,) int64 the partition mr_order/mr_pos/mr_first were built for (-1: none yet)
    "xr",                      # (ni,) scratch: the reduced right-hand side in elimination order
    "Ga", "Gb",                # (3,n) work: point Jacobians
    "sd_len", "sd_vel", "sd_force",   # (nsd,) element length [m], rate [m/s], tension [N] (+ pulls ends together)
    "stats",                   # (4,) float: last Newton iterations, max |phi|, LU pivot ratio, pivot ratio at partition
    "tmp", "tmp6", "wm",       # (16,3) scratch 3-vectors, (4,6) scratch 6-vectors, (m,) scratch vector
    "rod_kin",                 # (nrod,6,3) rod ends a, b: positions [m], velocities [m/s], velocity-only
                               # accelerations [m/s^2] (rows ra, rb, va, vb, a0a, a0b), set by acceleration_bias
    "Kp",                      # (npair,16) rod coupling K = sum b C(r_a)^T C(r_b) per body pair, as its sums
                               # C = sum b [kg], s_a, s_b = sum b r [kg m], W (3x3, row-major) [kg m^2]
    "rz_rows", "rz_nrows",     # (ni,n), (ni,) int64: rows of the non-zero entries of each column of R_z
    "rdrv_rows", "rdrv_nrows", # (ndrv,n), (ndrv,) int64: the same for R_drv
    "rdrv_stale",              # (ndrv,) int64: 1 if column k of R_drv was not rebuilt at the last velocity
                               # transformation (its coordinate was at rest) and holds an older configuration's
                               # entries (constraints.velocity_transform, state.predict_dependent)
    "part_a", "part_b",        # (m,n), (n,m) scratch of the partition choice (partition.choose_dependent)
    "part_sv", "part_cols",    # (m,) scratch singular values, (2,n) int64 scratch pivot orders
    "z_last", "zd_last",       # (n,), (n,) z and zd as the last evaluation left them (state.set_state)
)
MultibodyData = namedtuple("MultibodyData", DATA_FIELDS)


def make_data(model: MultibodyModel, indep: np.ndarray) -> MultibodyData:
    """Allocate the workspace for ``model`` with the independent coordinates ``indep`` (none of them driven;
    the dependent ones are the rest)."""
    n, m, ndrv = model.n, model.m, model.ndrv
    indep = np.asarray(indep, dtype=np.int64)
    ni = indep.size
    if ni != model.ni:
        raise ValueError(f"{ni} independent coordinates given, the model has {n} coordinates, {m} constraints "
                         f"and {ndrv} driven coordinates")
    if set(indep.tolist()) & set(model.drv.tolist()):
        raise ValueError("a driven coordinate cannot be independent")
    dep = np.array(sorted(set(range(n)) - set(indep.tolist()) - set(model.drv.tolist())), dtype=np.int64)
    z, zi = np.zeros, (lambda shape: np.zeros(shape, dtype=np.int64))
    A = np.zeros((n, 3, 3))
    A[:] = np.eye(3)
    return MultibodyData(
        z=z(n), zd=z(n), zdd=z(n), A=A, o=z((n, 3)), u=z((n, 3)), r=z((n, 3)), b=z((n, 6)), g=z((n, 3)),
        gd=z((n, 3)), Z=z((n, 6)), Zd0=z((n, 6)), Zd=z((n, 6)), Ibar=z((n, 10)), Qbar=z((n, 6)), Pbar=z((n, 6)),
        IS=z((n, 10)), QS=z((n, 6)), PS=z((n, 6)), M=z((n, n)), f=z(n), Qext=z((n, 6)), jforce=z(n),
        drv_z=z(ndrv), drv_zd=z(ndrv), drv_zdd=z(ndrv), drv_force=z(ndrv),
        phi=z(m), phiz=z((m, n)), gam=z(m), indep=indep.copy(), dep=dep, lu=z((m, m)), piv=zi(m), lu_dep=zi(m),
        group_fill=zi(model.ngroup), Rz=z((n, ni)), S=z(n), Rdrv=z((n, ndrv)), Mr=z((ni, ni)), fr=z(ni), zddi=z(ni),
        mr_order=zi(ni), mr_pos=zi(ni), mr_first=zi(ni), mr_indep=np.full(ni, -1, dtype=np.int64), xr=z(ni),
        Ga=z((3, n)), Gb=z((3, n)), sd_len=z(model.nsd), sd_vel=z(model.nsd), sd_force=z(model.nsd), stats=z(4),
        tmp=z((16, 3)), tmp6=z((4, 6)), wm=z(m), rod_kin=z((model.nrod, 6, 3)), Kp=z((model.npair, 16)),
        rz_rows=zi((ni, n)), rz_nrows=zi(ni), rdrv_rows=zi((ndrv, n)), rdrv_nrows=zi(ndrv), rdrv_stale=zi(ndrv),
        part_a=z((m, n)), part_b=z((n, m)), part_sv=z(m), part_cols=zi((2, n)), z_last=z(n), zd_last=z(n))
