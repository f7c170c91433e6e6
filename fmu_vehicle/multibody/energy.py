"""Mechanical energy of the mechanism (kinetic + gravity + elastic), for conservation checks
(docs/formulation.md §12).

T = 1/2 sum_i Z_i^T Mbar_i Z_i (data.Ibar) + 1/2 sum_rods [v_a; v_b]^T M_rod [v_a; v_b]
V = -sum m grav . g  (bodies and rods, rod CoM = (1 - xi) r_a + xi r_b)
    + sum_springs int_0^x Fs dx  (x = L0 - L, compression positive)  + 1/2 sum_rot k (z - z0)^2
Dampers and the caller's loads (Qext, jforce) do work that is not counted here.

Power balance (docs/formulation.md §13): along a solution

    dE/dt = sum_k lambda_k zd_drv,k  +  P_nc,
    P_nc  = sum_dampers (-Fd dL/dt) - sum_rot c zd^2 + jforce . zd + sum_i Qext_i . Z_i

where lambda_k (data.drv_force) is the force that enforces the k-th driven coordinate (zero without
driven coordinates: the scleronomic closure forces do no work) and Qext_i = {F; r x F} acts on the twist
Z_i = {v; w} about the origin.
"""
from __future__ import annotations

from ..numerics.jit import njit

from .dynamics import inertia_times
from .force_elements import damper_tension, spring_compression_force
from .kinematics import end_points


@njit(cache=True)
def _spring_energy(model, e, x):
    """int_0^x Fs(s) ds by Gauss-Legendre (3 points per table segment is exact for piecewise linear)."""
    off, cnt = model.sd_stab[e, 0], model.sd_stab[e, 1]
    # breakpoints: table nodes and stop clearances inside [0, x]
    lo, hi = (0.0, x) if x >= 0.0 else (x, 0.0)
    total = 0.0
    a = lo
    while a < hi:
        b = hi
        for k in range(cnt):
            t = model.tab_x[off + k]
            if a < t < b:
                b = t
        st = model.sd_stops[e]
        if a < st[0] < b:
            b = st[0]
        if a < -st[2] < b:
            b = -st[2]
        h = 0.5 * (b - a)
        c = 0.5 * (a + b)
        q = 0.7745966692414834 * h
        total += h * (5.0 / 9.0 * spring_compression_force(model, e, c - q)
                      + 8.0 / 9.0 * spring_compression_force(model, e, c)
                      + 5.0 / 9.0 * spring_compression_force(model, e, c + q))
        a = b
    return total if x >= 0.0 else -total


@njit(cache=True)
def mechanical_energy(model, data):
    """Return (kinetic, potential) energy [J] at the current positions/velocities."""
    kin = 0.0
    pot = 0.0
    grav = model.gravity
    MZ = data.tmp6[0]
    for i in range(model.n):
        Z = data.Z[i]
        inertia_times(data.Ibar[i], Z, MZ)
        for k in range(6):
            kin += 0.5 * Z[k] * MZ[k]
        pot -= model.mass[i] * (grav[0] * data.g[i, 0] + grav[1] * data.g[i, 1] + grav[2] * data.g[i, 2])
    ra, rb, va, vb = data.tmp[8], data.tmp[9], data.tmp[10], data.tmp[11]
    for q in range(model.nrod):
        end_points(data, model.rod_a[q], model.rod_pa[q], model.rod_b[q], model.rod_pb[q], ra, rb, va, vb)
        ca, cb, cc = model.rod_M[q, 0], model.rod_M[q, 1], model.rod_M[q, 2]
        vaa = va[0] * va[0] + va[1] * va[1] + va[2] * va[2]
        vab = va[0] * vb[0] + va[1] * vb[1] + va[2] * vb[2]
        vbb = vb[0] * vb[0] + vb[1] * vb[1] + vb[2] * vb[2]
        kin += 0.5 * (ca * vaa + 2.0 * cb * vab + cc * vbb)
        for k in range(3):
            pot -= grav[k] * (model.rod_w[q, 0] * ra[k] + model.rod_w[q, 1] * rb[k])
    for e in range(model.nsd):
        pot += _spring_energy(model, e, model.sd_L0[e] - data.sd_len[e])
    for e in range(model.nrsd):
        dz = data.z[model.rsd_coord[e]] - model.rsd_z0[e]
        pot += 0.5 * model.rsd_k[e] * dz * dz
    return kin, pot


@njit(cache=True)
def drive_power(model, data):
    """Power [W] of the prescriptions of the driven coordinates, sum_k drv_force_k drv_zd_k, at the last
    evaluated state (after dynamics.drive_forces)."""
    p = 0.0
    for k in range(model.ndrv):
        p += data.drv_force[k] * data.zd[model.drv[k]]
    return p


@njit(cache=True)
def nonconservative_power(model, data):
    """Power [W] of the forces not in the mechanical energy at the last evaluated state: dampers of the
    translational elements (-Fd dL/dt, from data.sd_vel) and of the rotational ones (-c zd^2), the caller's
    joint forces (jforce . zd) and external wrenches (sum_i Qext_i . Z_i)."""
    p = 0.0
    for e in range(model.nsd):
        p -= damper_tension(model, e, data.sd_vel[e]) * data.sd_vel[e]
    for e in range(model.nrsd):
        zd = data.zd[model.rsd_coord[e]]
        p -= model.rsd_c[e] * zd * zd
    for i in range(model.n):
        p += data.jforce[i] * data.zd[i]
        for k in range(6):
            p += data.Qext[i, k] * data.Z[i, k]
    return p
