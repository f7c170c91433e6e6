"""njit Magic Formula kernels: pure longitudinal force, rolling resistance, vertical force, Re, σκ (hot path).

Every function is a pure function of the parameter array ``p`` (layout: ``tir.P_*``) and scalars, in SI
units. Equations follow Pacejka, Tire and Vehicle Dynamics (3rd ed., 2012), §4.3.2 (MF-Tyre 5.2/6.1 pure
longitudinal slip, rolling resistance moment, effective rolling radius) and the MF-Tyre transient slip
(relaxation length PTX1..3), at nominal inflation pressure; camber enters only Fx0's peak friction
(``mf_fx0_eval_kx``), every other function here is at zero camber. Road friction enters as the ratio
mu_road / MU_ROAD_NOMINAL multiplying the peak friction and the vertical shift (not the slip stiffness).
The same code runs uncompiled with NUMBA_DISABLE_JIT=1.

See docs/tire.md §4.
"""
from __future__ import annotations

import math

from ..numerics import elementary as em
from ..numerics.jit import njit

from .tir import (P_BREFF, P_CZ, P_DREFF, P_FNOMIN, P_FREFF, P_KVLOW0, P_KZ, P_LCX, P_LCZ, P_LEX, P_LFZO,
                  P_LGAX, P_LHX, P_LKX, P_LMUX, P_LMY, P_LONGVL, P_LSGKP, P_LVX, P_PCX1, P_PDX1, P_PDX2,
                  P_PDX3, P_PEX1, P_PEX2, P_PEX3, P_PEX4, P_PHX1, P_PHX2, P_PKX1, P_PKX2, P_PKX3, P_PTX1,
                  P_PTX2, P_PTX3, P_PVX1, P_PVX2, P_QSY1, P_QSY3, P_QSY4, P_R0, P_VXLOW)

MU_ROAD_NOMINAL = 1.0
"""Road friction [-] at which the .tir coefficients hold (mu_road = 1 reproduces the file)."""

EPS_X = 0.1
"""Guard in Bx = Kx / (Cx Dx + EPS_X) [N] (MF epsilon_x; negligible against Cx Dx ~ 1e4 N)."""

ROLLING_OMEGA_SCALE = 0.1
"""Spin rate scale of the smooth sign tanh(Omega / scale) in the rolling resistance moment [rad/s]."""

SIGMA_KAPPA_MIN = 0.002
"""Absolute lower bound of the longitudinal relaxation length [m]."""

RELAXATION_TIME_MIN = 0.0025
"""Shortest slip relaxation time σ/|Vx| [s]: σ >= |Vx| RELAXATION_TIME_MIN keeps |Vx|/σ <= 400 1/s."""


@njit
def nominal_load(p):
    """Scaled nominal load Fz0' = FNOMIN * LFZO [N]."""
    return p[P_FNOMIN] * p[P_LFZO]


@njit
def slip_stiffness(p, fz):
    """Longitudinal slip stiffness Kx = Fz (PKX1 + PKX2 dfz) exp(PKX3 dfz) LKX [N] (0 for Fz <= 0)."""
    if fz <= 0.0:
        return 0.0
    fz0 = nominal_load(p)
    dfz = (fz - fz0) / fz0
    growth = em.exp(p[P_PKX3] * dfz) if p[P_PKX3] != 0.0 else 1.0     # exp(0) = 1 without the call
    return fz * (p[P_PKX1] + p[P_PKX2] * dfz) * growth * p[P_LKX]


@njit
def mf_fx0_eval(p, fz, kappa, mu_road, with_slope):
    """Fx0 [N] and, if with_slope, dFx0/dκ [N] (0 otherwise) at zero camber; the formula of ``mf_fx0``."""
    if fz <= 0.0:
        return 0.0, 0.0
    return mf_fx0_eval_kx(p, fz, slip_stiffness(p, fz), kappa, 0.0, mu_road, with_slope)


@njit
def mf_fx0_eval_kx(p, fz, kx_stiffness, kappa, gamma, mu_road, with_slope):
    """Pure longitudinal slip force Fx0 [N] at the inclination gamma [rad] and, if with_slope, its slope
    dFx0/dκ [N] (0 otherwise), for Fz > 0 with the slip stiffness Kx = ``slip_stiffness(p, fz)`` [N] given
    (a caller that needs Kx itself computes its exp once). The one implementation of the MF 5.2 Fx0
    (Pacejka 2006 Eqs. 4.E9-4.E18): ``mf_fx0`` is gamma = 0, ``pacejka_combined.mf_fx0_camber`` any gamma.

    dfz = (Fz - Fz0')/Fz0', kx = κ + SHx, SHx = (PHX1 + PHX2 dfz) LHX, Cx = PCX1 LCX,
    LMUX* = LMUX mu_road/mu_nom, mu_x = max(0, (PDX1 + PDX2 dfz)(1 - PDX3 (gamma LGAX)^2) LMUX*), Dx = mu_x Fz,
    Ex = min(1, (PEX1 + PEX2 dfz + PEX3 dfz^2)(1 - PEX4 sgn(kx)) LEX), Bx = Kx/(Cx Dx + EPS_X),
    SVx = Fz (PVX1 + PVX2 dfz) LVX LMUX*,  φ = Bx kx - Ex (Bx kx - atan(Bx kx)),
    Fx0 = Dx sin(Cx atan φ) + SVx,  dFx0/dκ = Dx cos(Cx atan φ) Cx/(1 + φ²) (Bx - Ex (Bx - Bx/(1 + (Bx kx)²)))
    (Ex held fixed: its sgn(kx) step is not differentiated).
    """
    fz0 = nominal_load(p)
    dfz = (fz - fz0) / fz0
    lmux = p[P_LMUX] * mu_road / MU_ROAD_NOMINAL
    gx = gamma * p[P_LGAX]
    kx = kappa + (p[P_PHX1] + p[P_PHX2] * dfz) * p[P_LHX]
    cx = p[P_PCX1] * p[P_LCX]
    mux = (p[P_PDX1] + p[P_PDX2] * dfz) * (1.0 - p[P_PDX3] * gx * gx) * lmux
    if mux < 0.0:
        mux = 0.0
    dx = mux * fz
    sgn = 0.0
    if kx > 0.0:
        sgn = 1.0
    elif kx < 0.0:
        sgn = -1.0
    ex = (p[P_PEX1] + p[P_PEX2] * dfz + p[P_PEX3] * dfz * dfz) * (1.0 - p[P_PEX4] * sgn) * p[P_LEX]
    if ex > 1.0:
        ex = 1.0
    bx = kx_stiffness / (cx * dx + EPS_X)
    svx = fz * (p[P_PVX1] + p[P_PVX2] * dfz) * p[P_LVX] * lmux
    bk = bx * kx
    phi = bk - ex * (bk - em.atan(bk))
    angle = cx * em.atan(phi)
    if not with_slope:
        return dx * em.sin(angle) + svx, 0.0
    sin_a, cos_a = em.sincos(angle)
    dphi = bx - ex * (bx - bx / (1.0 + bk * bk))
    return dx * sin_a + svx, dx * cos_a * cx / (1.0 + phi * phi) * dphi


@njit
def mf_fx0(p, fz, kappa, mu_road):
    """Pure longitudinal slip force Fx0 [N], Magic Formula (Pacejka 2012 Eq. 4.E9-4.E18, camber 0).

    Parameters:
        p         parameter array (tir.P_* layout)
        fz        vertical load [N]; Fz <= 0 gives 0
        kappa     longitudinal slip [-] (positive when driving)
        mu_road   road friction [-]; peak friction and SVx scale with mu_road / MU_ROAD_NOMINAL

    dfz = (Fz - Fz0')/Fz0', kx = kappa + SHx, SHx = (PHX1 + PHX2 dfz) LHX, Cx = PCX1 LCX,
    mu_x = max(0, (PDX1 + PDX2 dfz) LMUX mu_road/mu_nom), Dx = mu_x Fz,
    Ex = min(1, (PEX1 + PEX2 dfz + PEX3 dfz^2)(1 - PEX4 sgn(kx)) LEX), Kx = slip_stiffness(p, Fz),
    Bx = Kx/(Cx Dx + EPS_X), SVx = Fz (PVX1 + PVX2 dfz) LVX LMUX mu_road/mu_nom,
    Fx0 = Dx sin(Cx atan(Bx kx - Ex (Bx kx - atan(Bx kx)))) + SVx.
    """
    fx, _slope = mf_fx0_eval(p, fz, kappa, mu_road, False)
    return fx


@njit
def mf_fx0_slope(p, fz, kappa, mu_road):
    """Slope dFx0/dκ of ``mf_fx0`` at kappa [N] (analytic; equals Kx at kx = 0, Ex held fixed)."""
    _fx, slope = mf_fx0_eval(p, fz, kappa, mu_road, True)
    return slope


@njit
def rolling_resistance_moment(p, fz, vx, omega):
    """Rolling resistance moment My about the spin axis [N m] (MF 5.2/6.1 form without the QSY2 and camber terms).

    My = -tanh(omega / ROLLING_OMEGA_SCALE) R0 Fz (QSY1 + QSY3 |Vx/LONGVL| + QSY4 (Vx/LONGVL)^4) LMY;
    it opposes the spin omega [rad/s] and is continuous through omega = 0. Fz <= 0 gives 0. vx in m/s.
    """
    if fz <= 0.0:
        return 0.0
    v = vx / p[P_LONGVL]
    coeff = p[P_QSY1] + p[P_QSY3] * abs(v) + p[P_QSY4] * v * v * v * v
    return -em.tanh(omega / ROLLING_OMEGA_SCALE) * p[P_R0] * fz * coeff * p[P_LMY]


@njit
def vertical_force(p, deflection, deflection_rate):
    """Vertical force Fz = max(0, CZ LCZ δ + KZ δ̇) for δ > 0, else 0 [N]; δ [m], δ̇ [m/s] (never pulls)."""
    if deflection <= 0.0:
        return 0.0
    fz = p[P_CZ] * p[P_LCZ] * deflection + p[P_KZ] * deflection_rate
    if fz < 0.0:
        return 0.0
    return fz


@njit
def effective_rolling_radius(p, deflection):
    """Effective rolling radius Re [m] (MF 6.1 form without centrifugal growth).

    Re = R0 - ρz0 (DREFF atan(BREFF ρ/ρz0) + FREFF ρ/ρz0), ρ = max(δ, 0), ρz0 = Fz0'/(CZ LCZ).
    With the defaults DREFF = BREFF = 0, FREFF = 1/3 this is the classic Re = R0 - δ/3.
    """
    rho = deflection if deflection > 0.0 else 0.0
    rho_z0 = nominal_load(p) / (p[P_CZ] * p[P_LCZ])
    rho_d = rho / rho_z0
    peak = p[P_DREFF] * em.atan(p[P_BREFF] * rho_d) if p[P_DREFF] != 0.0 else 0.0    # (the defaults: 0)
    return p[P_R0] - rho_z0 * (peak + p[P_FREFF] * rho_d)


@njit
def relaxation_length(p, fz):
    """Longitudinal relaxation length at small slip σκ0 [m] (MF-Tyre 5.2/6.1 PTX form), >= SIGMA_KAPPA_MIN.

    σκ0 = Fz (PTX1 + PTX2 dfz) exp(-PTX3 dfz) (R0 / Fz0') LSGKP; Fz <= 0 gives SIGMA_KAPPA_MIN.
    """
    if fz <= 0.0:
        return SIGMA_KAPPA_MIN
    fz0 = nominal_load(p)
    dfz = (fz - fz0) / fz0
    sigma = fz * (p[P_PTX1] + p[P_PTX2] * dfz) * em.exp(-p[P_PTX3] * dfz) * (p[P_R0] / fz0) * p[P_LSGKP]
    if sigma < SIGMA_KAPPA_MIN:
        return SIGMA_KAPPA_MIN
    return sigma


@njit
def slip_relaxation_length(p, fz, kappa, mu_road, vx):
    """Slip-dependent relaxation length σc = max(σmin, σκ0 max(0, dFx0/dκ) / Kx) [m].

    Pacejka's semi-non-linear transient model: the carcass acts as a linear spring Kx/σκ0 up to the
    friction limit, so σc shrinks as the force curve flattens and κ' follows the kinematic slip while
    sliding; a wheel that stops while locked then keeps no 'deflection' beyond the friction limit to
    spring back with. Equals σκ0 at kx = 0. σmin = max(SIGMA_KAPPA_MIN, |Vx| RELAXATION_TIME_MIN) bounds
    the relaxation rate |Vx|/σc for explicit integration (vx in m/s).
    """
    return slip_relaxation_length_kx(p, fz, slip_stiffness(p, fz), kappa, mu_road, vx)


@njit
def slip_relaxation_length_kx(p, fz, kx, kappa, mu_road, vx):
    """``slip_relaxation_length`` with Kx = ``slip_stiffness(p, fz)`` [N] given."""
    slope = 0.0
    if kx > 0.0:
        _fx, slope = mf_fx0_eval_kx(p, fz, kx, kappa, 0.0, mu_road, True)
    return relaxation_length_from_slope(p, fz, kx, slope, vx)


@njit
def relaxation_length_from_slope(p, fz, kx, slope, vx):
    """σc = max(σmin, σκ0 max(0, dFx0/dκ) / Kx) [m] from the slope dFx0/dκ [N] and Kx [N]
    (``slip_relaxation_length``; σκ0 itself when Kx <= 0, then the slope is not used)."""
    sigma0 = relaxation_length(p, fz)
    sigma_min = abs(vx) * RELAXATION_TIME_MIN
    if sigma_min < SIGMA_KAPPA_MIN:
        sigma_min = SIGMA_KAPPA_MIN
    if kx <= 0.0:
        return sigma0 if sigma0 > sigma_min else sigma_min
    if slope < 0.0:
        slope = 0.0
    sigma = sigma0 * slope / kx
    if sigma < sigma_min:
        return sigma_min
    return sigma


@njit
def low_speed_damping(p, vx):
    """Low-speed longitudinal damping coefficient [N s/m] (after MF-Tyre's low-speed correction).

    k = 0.5 KVLOW0 (1 + cos(pi |Vx| / VXLOW)) for |Vx| < VXLOW, else 0. The contact adds -k Vsx to the
    force (through the slip, so it saturates at the friction limit); it damps the tire carcass spring
    Kx/σκ, which the relaxation term |Vx| κ'/σκ no longer damps as Vx -> 0.
    """
    speed = abs(vx)
    if speed >= p[P_VXLOW]:
        return 0.0
    return 0.5 * p[P_KVLOW0] * (1.0 + em.cos(math.pi * speed / p[P_VXLOW]))
