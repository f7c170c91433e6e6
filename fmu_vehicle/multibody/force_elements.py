"""Applied force elements: translational spring-damper-actuators and rotational spring-dampers
(docs/formulation.md §11).

Translational element between point a (body A) and point b (body B), the translational
spring-damper-actuator ("TSDA") of general-purpose multibody codes:
    L = |r_b - r_a|, e = (r_b - r_a)/L, dL/dt = e . (v_b - v_a), deflection x = L0 - L
    compressive spring force  Fs = preload + k x  (or table(x)) + bump/rebound stops
    damper tension            Fd = c dL/dt       (or table(dL/dt))
    tension T = Fd - Fs;  body A gets +T e at r_a, body B gets -T e at r_b (as {F; r x F}).
Rotational element on a coordinate z: generalized force  -k (z - z0) - c dz/dt.
"""
from __future__ import annotations

import math

from ..numerics.interp import interp_extrapolated
from ..numerics.jit import njit

from .kinematics import end_points


@njit(inline="always")
def spring_compression_force(model, e, x):
    """Compressive force [N] of element e's spring (incl. stops) at deflection x = L0 - L [m]."""
    off, cnt = model.sd_stab[e, 0], model.sd_stab[e, 1]
    if cnt > 0:
        F = interp_extrapolated(model.tab_x, model.tab_y, off, cnt, x)
    else:
        F = model.sd_pre[e] + model.sd_k[e] * x
    st = model.sd_stops[e]
    if st[1] > 0.0 and x > st[0]:
        F += st[1] * (x - st[0])
    if st[3] > 0.0 and -x > st[2]:
        F -= st[3] * (-x - st[2])
    return F


@njit(inline="always")
def damper_tension(model, e, v):
    """Damper tension [N] of element e at extension rate v [m/s]."""
    off, cnt = model.sd_dtab[e, 0], model.sd_dtab[e, 1]
    if cnt > 0:
        return interp_extrapolated(model.tab_x, model.tab_y, off, cnt, v)
    return model.sd_c[e] * v


@njit(inline="always")
def add_point_force(Q, r, F):
    """Q += {F; r x F}: the force F at global point r as a wrench about the origin (6-vector Q)."""
    Q[0] += F[0]
    Q[1] += F[1]
    Q[2] += F[2]
    Q[3] += r[1] * F[2] - r[2] * F[1]
    Q[4] += r[2] * F[0] - r[0] * F[2]
    Q[5] += r[0] * F[1] - r[1] * F[0]


@njit(inline="always")
def apply_point_force(data, body, r, F):
    """Add the force F at global point r to body's wrench {F; r x F} (ignored on the ground)."""
    if body >= 0:
        add_point_force(data.Qbar[body], r, F)


@njit(inline="always")
def spring_dampers(model, data):
    """Evaluate all translational elements, add their forces to Qbar, record length/rate/tension."""
    ra, rb, va, vb, F = data.tmp[0], data.tmp[1], data.tmp[2], data.tmp[3], data.tmp[4]
    for e in range(model.nsd):
        A, B = model.sd_a[e], model.sd_b[e]
        end_points(data, A, model.sd_pa[e], B, model.sd_pb[e], ra, rb, va, vb)
        dx, dy, dz = rb[0] - ra[0], rb[1] - ra[1], rb[2] - ra[2]
        L = math.sqrt(dx * dx + dy * dy + dz * dz)
        ex, ey, ez = dx / L, dy / L, dz / L
        Ld = ex * (vb[0] - va[0]) + ey * (vb[1] - va[1]) + ez * (vb[2] - va[2])
        T = damper_tension(model, e, Ld) - spring_compression_force(model, e, model.sd_L0[e] - L)
        data.sd_len[e], data.sd_vel[e], data.sd_force[e] = L, Ld, T
        F[0], F[1], F[2] = T * ex, T * ey, T * ez
        apply_point_force(data, A, ra, F)
        F[0], F[1], F[2] = -F[0], -F[1], -F[2]
        apply_point_force(data, B, rb, F)


@njit(inline="always")
def rotational_spring_dampers(model, data):
    """Add the generalized forces of the rotational elements to f."""
    for e in range(model.nrsd):
        c = model.rsd_coord[e]
        data.f[c] += -model.rsd_k[e] * (data.z[c] - model.rsd_z0[e]) - model.rsd_c[e] * data.zd[c]
