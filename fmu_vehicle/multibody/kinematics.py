"""Recursive kinematics on the tree (docs/formulation.md §3; eqs. 1-5 of Dai, Pan et al. (2022),
"Real-Time Modeling of Vehicle's Longitudinal-Vertical Dynamics in ADAS Applications").

Positions (forward pass, joint data fixed in the parent, design coordinates):
    u_i = A_p u0_i,   r_i = o_p + A_p r0_i
    revolute:  A_i = A_p Rot(u0_i, z_i),  o_i = r_i - A_i r0_i
    prismatic: A_i = A_p,                 o_i = o_p + z_i u_i
Joint screws:  b_i = {r_i x u_i; u_i} (revolute), {u_i; 0} (prismatic).
Velocities:    Z_i = Z_p + b_i zd_i                          (eq. 3)
Accelerations: dZ_i/dt = dZ_p/dt + b_i zdd_i + d_i,  d_i = crm(Z_p) b_i zd_i   (eq. 4)
A body point with global position r moves with  dr/dt = C(r) Z_i = v_i + w_i x r.
"""
from __future__ import annotations


from ..numerics import elementary as em
from ..numerics.jit import njit

from .model import JOINT_REVOLUTE


@njit(inline="always")
def forward_positions(model, data):
    """Poses A_i, o_i, joint axes u_i, points r_i, screws b_i and CoM positions g_i from z."""
    A, o, u, r, b, g = data.A, data.o, data.u, data.r, data.b, data.g
    for i in range(model.n):
        p = model.parent[i]
        a0, p0 = model.axis0[i], model.point0[i]
        for k in range(3):
            if p < 0:
                u[i, k] = a0[k]
                r[i, k] = p0[k]
            else:
                u[i, k] = A[p, k, 0] * a0[0] + A[p, k, 1] * a0[1] + A[p, k, 2] * a0[2]
                r[i, k] = o[p, k] + A[p, k, 0] * p0[0] + A[p, k, 1] * p0[1] + A[p, k, 2] * p0[2]
        if model.jtype[i] == JOINT_REVOLUTE:
            s, c = em.sincos(data.z[i])
            C = 1.0 - c
            x, y, zz = a0[0], a0[1], a0[2]
            r00, r01, r02 = c + x * x * C, x * y * C - zz * s, x * zz * C + y * s
            r10, r11, r12 = y * x * C + zz * s, c + y * y * C, y * zz * C - x * s
            r20, r21, r22 = zz * x * C - y * s, zz * y * C + x * s, c + zz * zz * C
            for k in range(3):
                if p < 0:
                    q0, q1, q2 = (1.0 if k == 0 else 0.0), (1.0 if k == 1 else 0.0), (1.0 if k == 2 else 0.0)
                else:
                    q0, q1, q2 = A[p, k, 0], A[p, k, 1], A[p, k, 2]
                A[i, k, 0] = q0 * r00 + q1 * r10 + q2 * r20
                A[i, k, 1] = q0 * r01 + q1 * r11 + q2 * r21
                A[i, k, 2] = q0 * r02 + q1 * r12 + q2 * r22
            for k in range(3):
                o[i, k] = r[i, k] - (A[i, k, 0] * p0[0] + A[i, k, 1] * p0[1] + A[i, k, 2] * p0[2])
            b[i, 0] = r[i, 1] * u[i, 2] - r[i, 2] * u[i, 1]
            b[i, 1] = r[i, 2] * u[i, 0] - r[i, 0] * u[i, 2]
            b[i, 2] = r[i, 0] * u[i, 1] - r[i, 1] * u[i, 0]
            b[i, 3], b[i, 4], b[i, 5] = u[i, 0], u[i, 1], u[i, 2]
        else:
            for k in range(3):
                for l in range(3):
                    A[i, k, l] = A[p, k, l] if p >= 0 else (1.0 if k == l else 0.0)
                o[i, k] = (o[p, k] if p >= 0 else 0.0) + data.z[i] * u[i, k]
                b[i, k] = u[i, k]
                b[i, 3 + k] = 0.0
        c0 = model.com0[i]
        for k in range(3):
            g[i, k] = o[i, k] + A[i, k, 0] * c0[0] + A[i, k, 1] * c0[1] + A[i, k, 2] * c0[2]


@njit(inline="always")
def forward_velocities(model, data):
    """Cartesian velocities Z_i (eq. 3), velocity-only accelerations Zd0_i = sum of d_k along the
    path (eq. 4 with zdd = 0), and CoM velocities gd_i = v_i + w_i x g_i."""
    Z, Zd0, b = data.Z, data.Zd0, data.b
    for i in range(model.n):
        p = model.parent[i]
        zd = data.zd[i]
        if p < 0:
            for k in range(6):
                Z[i, k] = b[i, k] * zd
                Zd0[i, k] = 0.0
        else:
            # d_i = crm(Z_p) b_i zd_i,  crm(v, w) = [[w~, v~], [0, w~]]
            v0, v1, v2 = Z[p, 0], Z[p, 1], Z[p, 2]
            w0, w1, w2 = Z[p, 3], Z[p, 4], Z[p, 5]
            bv0, bv1, bv2 = b[i, 0], b[i, 1], b[i, 2]
            bw0, bw1, bw2 = b[i, 3], b[i, 4], b[i, 5]
            d0 = (w1 * bv2 - w2 * bv1) + (v1 * bw2 - v2 * bw1)
            d1 = (w2 * bv0 - w0 * bv2) + (v2 * bw0 - v0 * bw2)
            d2 = (w0 * bv1 - w1 * bv0) + (v0 * bw1 - v1 * bw0)
            d3 = w1 * bw2 - w2 * bw1
            d4 = w2 * bw0 - w0 * bw2
            d5 = w0 * bw1 - w1 * bw0
            for k in range(6):
                Z[i, k] = Z[p, k] + b[i, k] * zd
            Zd0[i, 0] = Zd0[p, 0] + d0 * zd
            Zd0[i, 1] = Zd0[p, 1] + d1 * zd
            Zd0[i, 2] = Zd0[p, 2] + d2 * zd
            Zd0[i, 3] = Zd0[p, 3] + d3 * zd
            Zd0[i, 4] = Zd0[p, 4] + d4 * zd
            Zd0[i, 5] = Zd0[p, 5] + d5 * zd
        g = data.g[i]
        data.gd[i, 0] = Z[i, 0] + Z[i, 4] * g[2] - Z[i, 5] * g[1]
        data.gd[i, 1] = Z[i, 1] + Z[i, 5] * g[0] - Z[i, 3] * g[2]
        data.gd[i, 2] = Z[i, 2] + Z[i, 3] * g[1] - Z[i, 4] * g[0]


@njit(inline="always")
def point_position(data, body, X, out):
    """Global position of the body point with design coordinates X (ground: X itself)."""
    if body < 0:
        for k in range(3):
            out[k] = X[k]
    else:
        A, o = data.A[body], data.o[body]
        for k in range(3):
            out[k] = o[k] + A[k, 0] * X[0] + A[k, 1] * X[1] + A[k, 2] * X[2]


@njit(inline="always")
def screw_point(Zs, r, out):
    """out = C(r) Zs = Zs[0:3] + Zs[3:6] x r (velocity of the point r for the screw Zs)."""
    out[0] = Zs[0] + Zs[4] * r[2] - Zs[5] * r[1]
    out[1] = Zs[1] + Zs[5] * r[0] - Zs[3] * r[2]
    out[2] = Zs[2] + Zs[3] * r[1] - Zs[4] * r[0]


@njit(inline="always")
def point_velocity(data, body, r, out):
    """Velocity of the point of ``body`` at global position r (zero on the ground)."""
    if body < 0:
        out[0] = out[1] = out[2] = 0.0
    else:
        screw_point(data.Z[body], r, out)


@njit(inline="always")
def end_points(data, A, Xa, B, Xb, ra, rb, va, vb):
    """Global positions ra, rb and velocities va, vb of the point Xa of body A and Xb of body B (design
    coordinates): the two ends of a cut joint, rod or spring-damper."""
    point_position(data, A, Xa, ra)
    point_position(data, B, Xb, rb)
    point_velocity(data, A, ra, va)
    point_velocity(data, B, rb, vb)


@njit(inline="always")
def point_accel0(data, body, r, rd, out):
    """Velocity-only acceleration a0 = C(r) Zd0 + w x dr/dt of a body point (docs/formulation.md §5)."""
    if body < 0:
        out[0] = out[1] = out[2] = 0.0
    else:
        screw_point(data.Zd0[body], r, out)
        w = data.Z[body]
        out[0] += w[4] * rd[2] - w[5] * rd[1]
        out[1] += w[5] * rd[0] - w[3] * rd[2]
        out[2] += w[3] * rd[1] - w[4] * rd[0]


@njit(inline="always")
def point_jacobian(model, data, body, r, G):
    """G = dr/dz (3 x n): column k is C(r) b_k for k on the path of ``body``, else 0."""
    n = model.n
    for k in range(n):
        if body >= 0 and model.on_path[body, k]:
            bk = data.b[k]
            G[0, k] = bk[0] + bk[4] * r[2] - bk[5] * r[1]
            G[1, k] = bk[1] + bk[5] * r[0] - bk[3] * r[2]
            G[2, k] = bk[2] + bk[3] * r[1] - bk[4] * r[0]
        else:
            G[0, k] = G[1, k] = G[2, k] = 0.0


@njit(inline="always")
def point_jacobian_cols(model, data, body, r, G, cols, ncols):
    """Columns cols[:ncols] of G = dr/dz (as :func:`point_jacobian`); the other columns are not written."""
    for c in range(ncols):
        k = cols[c]
        if body >= 0 and model.on_path[body, k]:
            bk0, bk1, bk2 = data.b[k, 0], data.b[k, 1], data.b[k, 2]
            bk3, bk4, bk5 = data.b[k, 3], data.b[k, 4], data.b[k, 5]
            G[0, k] = bk0 + bk4 * r[2] - bk5 * r[1]
            G[1, k] = bk1 + bk5 * r[0] - bk3 * r[2]
            G[2, k] = bk2 + bk3 * r[1] - bk4 * r[0]
        else:
            G[0, k] = G[1, k] = G[2, k] = 0.0
