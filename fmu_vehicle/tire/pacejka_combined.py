"""njit Magic Formula 5.2 kernels: camber, pure lateral force, aligning moment and combined slip (steady state).

Version: MF-Tyre 5.2 (the form of the Delft/TNO "MF-Tyre 5.2" and PAC2002 property files), as written in
Pacejka, Tire and Vehicle Dynamics (2nd ed. 2006 / 3rd ed. 2012), §4.3.2, at nominal inflation pressure,
without turn slip (all zeta = 1) and with the contact centre speed Vc = |Vcx| / cos(alpha) (cos'alpha =
cos alpha). Every function is a pure function of the parameter array ``p`` (layout: ``tir.P_*``) and
scalars, SI units, and runs uncompiled with NUMBA_DISABLE_JIT=1.

Inputs and sign conventions (ISO 8855 / TYDEX W-axis system, forward rolling, Vcx > 0):
    fz      vertical load [N] (Fz <= 0: all forces and moments 0)
    kappa   longitudinal slip [-] = -Vsx/|Vcx|, positive when driving
    alpha   slip angle [rad], tan(alpha) = Vcy/|Vcx|: positive when the contact centre slides to the left
            (+y); the tire then pushes the wheel to the right, Fy < 0 (files carry PKY1 < 0)
    gamma   inclination (camber) angle [rad], positive when the wheel top leans to the left (+x rotation)
    mu_road road friction [-]: lambda_mu* = L_MU mu_road / MU_ROAD_NOMINAL replaces LMUX and LMUY wherever
            they appear (peak friction, vertical shifts, and 1/LMUY in the aligning moment stiffness)
Outputs: Fx [N] along +x, Fy [N] along +y, Mz [N m] about +z (aligning moment; positive for alpha > 0
with a positive pneumatic trail, i.e. it turns the wheel toward its direction of travel).

Guards (not part of the published equations): the B factors divide by C D +/- EPS_Y (the sign of C D
kept), Fy0/Ky divides by Ky +/- EPS_Y, and 1/lambda_mu* in the aligning moment uses max(lambda_mu*,
EPS_LMU), so mu_road = 0 and files without lateral coefficients stay finite.

See docs/tire.md §9.
"""
from __future__ import annotations

import math

from ..numerics import elementary as em
from ..numerics.jit import njit

from .pacejka import (MU_ROAD_NOMINAL, SIGMA_KAPPA_MIN, mf_fx0_eval_kx, nominal_load, relaxation_length,
                      slip_stiffness)
from .tir import (P_LFZO, P_LSGAL, P_PTY1, P_PTY2, P_LCY, P_LEY, P_LGAY, P_LGAZ, P_LHY, P_LKY, P_LMUY, P_LRES, P_LS,
                  P_LTR, P_LVY, P_LVYKA, P_LXAL, P_LYKA, P_PCY1, P_PDY1, P_PDY2, P_PDY3, P_PEY1, P_PEY2, P_PEY3,
                  P_PEY4, P_PHY1, P_PHY2, P_PHY3, P_PKY1, P_PKY2, P_PKY3, P_PVY1, P_PVY2, P_PVY3, P_PVY4, P_QBZ1,
                  P_QBZ10, P_QBZ2, P_QBZ3, P_QBZ4, P_QBZ5, P_QBZ9, P_QCZ1, P_QDZ1, P_QDZ2, P_QDZ3, P_QDZ4, P_QDZ6,
                  P_QDZ7, P_QDZ8, P_QDZ9, P_QEZ1, P_QEZ2, P_QEZ3, P_QEZ4, P_QEZ5, P_QHZ1, P_QHZ2, P_QHZ3, P_QHZ4,
                  P_R0, P_RBX1, P_RBX2, P_RBY1, P_RBY2, P_RBY3, P_RCX1, P_RCY1, P_REX1, P_REX2, P_REY1, P_REY2,
                  P_RHX1, P_RHY1, P_RHY2, P_RVY1, P_RVY2, P_RVY3, P_RVY4, P_RVY5, P_RVY6, P_SSZ1, P_SSZ2, P_SSZ3,
                  P_SSZ4)

EPS_Y = 0.1
"""Guard added (with the sign of the divisor) in By = Ky/(Cy Dy), Byk... and SVy/Ky [N]."""

EPS_LMU = 1e-6
"""Floor of lambda_mu_y* in the 1/lambda_mu_y* factors of the aligning moment [-] (mu_road -> 0)."""


@njit
def _sgn(x):
    """sgn(x) with sgn(0) = 0."""
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return 0.0


@njit
def _guard(x):
    """x + EPS_Y sgn(x) (EPS_Y for x = 0): a divisor kept away from zero with its sign."""
    if x < 0.0:
        return x - EPS_Y
    return x + EPS_Y


@njit(inline="always")
def _mf_arg(b, e, x):
    """B x - E (B x - atan(B x)), the argument of the Magic Formula's outer atan; B x itself for E = 0 (the
    same double for a finite B x, without the inner atan: the combined-slip weighting functions of every
    shipped tire file have E = 0)."""
    bx = b * x
    if e == 0.0:
        return bx
    return bx - e * (bx - em.atan(bx))


@njit
def _mf_sin(b, c, d, e, x):
    """D sin(C atan(B x - E (B x - atan(B x)))), the Magic Formula sine form (``_mf_arg``)."""
    return d * em.sin(c * em.atan(_mf_arg(b, e, x)))


@njit
def _mf_cos(b, c, e, x):
    """cos(C atan(B x - E (B x - atan(B x)))), the cosine form used by the weighting functions and the trail
    (``_mf_arg``)."""
    return em.cos(c * em.atan(_mf_arg(b, e, x)))


@njit(inline="always")
def _cos_atan(x):
    """cos(atan x) = 1/sqrt(1 + x^2): the identity, one square root instead of two transcendental calls."""
    return 1.0 / math.sqrt(1.0 + x * x)


@njit(inline="always")
def _sin_2atan(x):
    """sin(2 atan x) = 2 x/(1 + x^2) (double-angle formula with tan(atan x) = x)."""
    return 2.0 * x / (1.0 + x * x)


@njit
def mf_fx0_camber(p, fz, kappa, gamma, mu_road):
    """Pure longitudinal slip force Fx0 [N] with camber, MF 5.2 (Pacejka 2006 Eqs. 4.E9-4.E18).

    gamma_x = gamma LGAX, mu_x = (PDX1 + PDX2 dfz)(1 - PDX3 gamma_x^2) LMUX*, Dx = mu_x Fz; every other
    term as in ``pacejka.mf_fx0`` (equal to it for gamma = 0): kx = kappa + (PHX1 + PHX2 dfz) LHX,
    Cx = PCX1 LCX, Ex = min(1, (PEX1 + PEX2 dfz + PEX3 dfz^2)(1 - PEX4 sgn(kx)) LEX),
    Kx = Fz (PKX1 + PKX2 dfz) exp(PKX3 dfz) LKX, Bx = Kx/(Cx Dx + EPS_X),
    SVx = Fz (PVX1 + PVX2 dfz) LVX LMUX*, Fx0 = Dx sin(Cx atan(Bx kx - Ex (Bx kx - atan(Bx kx)))) + SVx,
    with LMUX* = LMUX mu_road / MU_ROAD_NOMINAL and mu_x clipped at 0 (implemented once, in
    ``pacejka.mf_fx0_eval_kx``).
    """
    if fz <= 0.0:
        return 0.0
    fx0, _slope = mf_fx0_eval_kx(p, fz, slip_stiffness(p, fz), kappa, gamma, mu_road, False)
    return fx0


@njit
def cornering_stiffness(p, fz, gamma):
    """Cornering stiffness Ky = PKY1 Fz0' sin(2 atan(Fz / (PKY2 Fz0'))) (1 - PKY3 |gamma LGAY|) LKY [N/rad]
    (MF 5.2, Pacejka 2006 Eq. 4.E25); 0 when PKY2 = 0 (a file without lateral data)."""
    if p[P_PKY2] == 0.0:
        return 0.0
    fz0 = nominal_load(p)
    return (p[P_PKY1] * fz0 * _sin_2atan(fz / (p[P_PKY2] * fz0))
            * (1.0 - p[P_PKY3] * abs(gamma * p[P_LGAY])) * p[P_LKY])


@njit
def lateral_relaxation_length(p, fz, gamma):
    """Lateral relaxation length sigma_alpha = PTY1 sin(2 atan(Fz / (PTY2 Fz0'))) (1 - PKY3 |gamma|) R0 LFZO LSGAL
    [m] (MF 5.2, Pacejka 2006 §7.2 / Eq. 4.E26 form); ``pacejka.relaxation_length`` (the longitudinal
    sigma_kappa0) when the file has no PTY2, and at least ``pacejka.SIGMA_KAPPA_MIN``."""
    if p[P_PTY2] == 0.0 or fz <= 0.0:
        return relaxation_length(p, fz)
    fz0 = nominal_load(p)
    sigma = (p[P_PTY1] * _sin_2atan(fz / (p[P_PTY2] * fz0)) * (1.0 - p[P_PKY3] * abs(gamma))
             * p[P_R0] * p[P_LFZO] * p[P_LSGAL])
    return sigma if sigma > SIGMA_KAPPA_MIN else SIGMA_KAPPA_MIN


@njit
def mf_fy0_terms(p, fz, alpha, gamma, mu_road):
    """Pure lateral slip force and its terms, MF 5.2 (Pacejka 2006 Eqs. 4.E19-4.E30 in the MF 5.2 form).

    Returns (Fy0 [N], mu_y [-], Ky [N/rad], By, Cy, SHy [-], SVy [N]); all 0 for Fz <= 0.

    gamma_y = gamma LGAY, alpha* = tan(alpha), dfz = (Fz - Fz0')/Fz0', Fz0' = FNOMIN LFZO,
    SHy = (PHY1 + PHY2 dfz) LHY + PHY3 gamma_y,  alpha_y = alpha* + SHy,  Cy = PCY1 LCY,
    mu_y = (PDY1 + PDY2 dfz)(1 - PDY3 gamma_y^2) LMUY*,  Dy = mu_y Fz,
    Ey = min(1, (PEY1 + PEY2 dfz)(1 - (PEY3 + PEY4 gamma_y) sgn(alpha_y)) LEY),
    Ky = PKY1 Fz0' sin(2 atan(Fz / (PKY2 Fz0'))) (1 - PKY3 |gamma_y|) LKY,  By = Ky/(Cy Dy),
    SVy = Fz ((PVY1 + PVY2 dfz) LVY + (PVY3 + PVY4 dfz) gamma_y) LMUY*,
    Fy0 = Dy sin(Cy atan(By alpha_y - Ey (By alpha_y - atan(By alpha_y)))) + SVy,
    with LMUY* = LMUY mu_road / MU_ROAD_NOMINAL. Ky is 0 when PKY2 = 0 (a file without lateral data).
    """
    if fz <= 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    return _fy0_terms(p, fz, em.tan(alpha), gamma, mu_road, cornering_stiffness(p, fz, gamma))


@njit
def _fy0_terms(p, fz, a_star, gamma, mu_road, ky):
    """``mf_fy0_terms`` for Fz > 0 with alpha* = tan(alpha) and Ky = ``cornering_stiffness(p, fz, gamma)`` given."""
    fz0 = nominal_load(p)
    dfz = (fz - fz0) / fz0
    lmuy = p[P_LMUY] * mu_road / MU_ROAD_NOMINAL
    gy = gamma * p[P_LGAY]
    shy = (p[P_PHY1] + p[P_PHY2] * dfz) * p[P_LHY] + p[P_PHY3] * gy
    ay = a_star + shy
    cy = p[P_PCY1] * p[P_LCY]
    muy = (p[P_PDY1] + p[P_PDY2] * dfz) * (1.0 - p[P_PDY3] * gy * gy) * lmuy
    dy = muy * fz
    ey = (p[P_PEY1] + p[P_PEY2] * dfz) * (1.0 - (p[P_PEY3] + p[P_PEY4] * gy) * _sgn(ay)) * p[P_LEY]
    if ey > 1.0:
        ey = 1.0
    by = ky / _guard(cy * dy)
    svy = fz * ((p[P_PVY1] + p[P_PVY2] * dfz) * p[P_LVY] + (p[P_PVY3] + p[P_PVY4] * dfz) * gy) * lmuy
    fy0 = _mf_sin(by, cy, dy, ey, ay) + svy
    return fy0, muy, ky, by, cy, shy, svy


@njit
def mf_fy0(p, fz, alpha, gamma, mu_road):
    """Pure lateral slip force Fy0 [N], MF 5.2 (see ``mf_fy0_terms`` for the equations)."""
    fy0, _muy, _ky, _by, _cy, _shy, _svy = mf_fy0_terms(p, fz, alpha, gamma, mu_road)
    return fy0


@njit
def mz_trail_terms(p, fz, alpha, gamma, mu_road, by, cy):
    """Pneumatic trail and residual moment factors of the aligning moment, MF 5.2 (Pacejka 2006 Eqs. 4.E31-4.E49).

    Returns (Bt, Ct, Dt [m], Et, SHt [-], Br [-], Dr [N m]).

    gamma_z = gamma LGAZ, SHt = QHZ1 + QHZ2 dfz + (QHZ3 + QHZ4 dfz) gamma_z,
    Bt = (QBZ1 + QBZ2 dfz + QBZ3 dfz^2)(1 + QBZ4 gamma_z + QBZ5 |gamma_z|) LKY / LMUY*,  Ct = QCZ1,
    Dt = Fz (QDZ1 + QDZ2 dfz)(1 + QDZ3 gamma_z + QDZ4 gamma_z^2)(R0/Fz0') LTR,
    Et = min(1, (QEZ1 + QEZ2 dfz + QEZ3 dfz^2)(1 + (QEZ4 + QEZ5 gamma_z)(2/pi) atan(Bt Ct alpha_t))),
    Br = QBZ9 LKY / LMUY* + QBZ10 By Cy,  Dr = Fz ((QDZ6 + QDZ7 dfz) LRES + (QDZ8 + QDZ9 dfz) gamma_z) R0 LMUY*.
    Et depends on alpha_t = alpha* + SHt (pure slip) and is evaluated there by the callers.
    """
    return _mz_trail_terms(p, fz, em.tan(alpha), gamma, mu_road, by, cy)


@njit
def _mz_trail_terms(p, fz, a_star, gamma, mu_road, by, cy):
    """``mz_trail_terms`` with alpha* = tan(alpha) given."""
    fz0 = nominal_load(p)
    dfz = (fz - fz0) / fz0
    lmuy = p[P_LMUY] * mu_road / MU_ROAD_NOMINAL
    lmuy_div = lmuy if lmuy > EPS_LMU else EPS_LMU
    gz = gamma * p[P_LGAZ]
    sht = p[P_QHZ1] + p[P_QHZ2] * dfz + (p[P_QHZ3] + p[P_QHZ4] * dfz) * gz
    bt = ((p[P_QBZ1] + p[P_QBZ2] * dfz + p[P_QBZ3] * dfz * dfz)
          * (1.0 + p[P_QBZ4] * gz + p[P_QBZ5] * abs(gz)) * p[P_LKY] / lmuy_div)
    ct = p[P_QCZ1]
    dt = fz * (p[P_QDZ1] + p[P_QDZ2] * dfz) * (1.0 + p[P_QDZ3] * gz + p[P_QDZ4] * gz * gz) * (p[P_R0] / fz0) * p[P_LTR]
    at = a_star + sht
    et = ((p[P_QEZ1] + p[P_QEZ2] * dfz + p[P_QEZ3] * dfz * dfz)
          * (1.0 + (p[P_QEZ4] + p[P_QEZ5] * gz) * (2.0 / math.pi) * em.atan(bt * ct * at)))
    if et > 1.0:
        et = 1.0
    br = p[P_QBZ9] * p[P_LKY] / lmuy_div + p[P_QBZ10] * by * cy
    dr = fz * ((p[P_QDZ6] + p[P_QDZ7] * dfz) * p[P_LRES] + (p[P_QDZ8] + p[P_QDZ9] * dfz) * gz) * p[P_R0] * lmuy
    return bt, ct, dt, et, sht, br, dr


@njit
def mf_mz0(p, fz, alpha, gamma, mu_road):
    """Pure side slip aligning moment Mz0 [N m], MF 5.2 (Pacejka 2006 Eqs. 4.E31-4.E49).

    alpha_t = alpha* + SHt, SHf = SHy + SVy/Ky, alpha_r = alpha* + SHf,
    t = Dt cos(Ct atan(Bt alpha_t - Et (Bt alpha_t - atan(Bt alpha_t)))) cos(alpha)   pneumatic trail [m],
    Mzr = Dr cos(atan(Br alpha_r)) cos(alpha)                                          residual moment [N m],
    Mz0 = -t Fy0 + Mzr (factors: ``mz_trail_terms``, Fy0: ``mf_fy0_terms``). 0 for Fz <= 0.
    """
    if fz <= 0.0:
        return 0.0
    fy0, _muy, ky, by, cy, shy, svy = mf_fy0_terms(p, fz, alpha, gamma, mu_road)
    bt, ct, dt, et, sht, br, dr = mz_trail_terms(p, fz, alpha, gamma, mu_road, by, cy)
    a_star = em.tan(alpha)
    cos_a = em.cos(alpha)
    t = dt * _mf_cos(bt, ct, et, a_star + sht) * cos_a
    mzr = dr * _cos_atan(br * (a_star + shy + svy / _guard(ky))) * cos_a
    return -t * fy0 + mzr


@njit
def mf_combined(p, fz, kappa, alpha, gamma, mu_road):
    """Combined slip Fx [N], Fy [N], Mz [N m], MF 5.2 (Pacejka 2006 Eqs. 4.E50-4.E78, Mx and My left out).

    Longitudinal:  alpha_S = alpha* + SHxa, SHxa = RHX1, Bxa = RBX1 cos(atan(RBX2 kappa)) LXAL, Cxa = RCX1,
                   Exa = min(1, REX1 + REX2 dfz),
                   Gxa = cos(Cxa atan(Bxa alpha_S - Exa(...))) / cos(Cxa atan(Bxa SHxa - Exa(...))),
                   Fx = Gxa Fx0(kappa, gamma)                                  (``mf_fx0_camber``)
    Lateral:       kappa_S = kappa + SHyk, SHyk = RHY1 + RHY2 dfz, Byk = RBY1 cos(atan(RBY2 (alpha* - RBY3))) LYKA,
                   Cyk = RCY1, Eyk = min(1, REY1 + REY2 dfz), Gyk as Gxa with kappa_S and SHyk,
                   DVyk = mu_y Fz (RVY1 + RVY2 dfz + RVY3 gamma_y) cos(atan(RVY4 alpha*)),
                   SVyk = DVyk sin(RVY5 atan(RVY6 kappa)) LVYKA,
                   Fy = Gyk Fy0(alpha, gamma) + SVyk                           (``mf_fy0_terms``)
    Aligning:      alpha_t,eq = sqrt(alpha_t^2 + (Kx/Ky)^2 kappa^2) sgn(alpha_t),
                   alpha_r,eq = sqrt(alpha_r^2 + (Kx/Ky)^2 kappa^2) sgn(alpha_r),
                   t = Dt cos(Ct atan(Bt alpha_t,eq - Et (...))) cos(alpha),  Mzr = Dr cos(atan(Br alpha_r,eq)) cos(alpha),
                   s = R0 (SSZ1 + SSZ2 Fy/Fz0' + (SSZ3 + SSZ4 dfz) gamma_z) LS,
                   Mz = -t (Fy - SVyk) + Mzr + s Fx
    with Kx from ``pacejka.slip_stiffness``, Ky, By, Cy from ``mf_fy0_terms`` and Bt, Ct, Dt, Et (at the
    pure-slip alpha_t), Br, Dr from ``mz_trail_terms``. Returns (0, 0, 0) for Fz <= 0.
    The slip angle enters through alpha* alone, with cos(alpha) = 1/sqrt(1 + alpha*^2) (|alpha| < pi/2, the
    range of a slip angle), and every cos(atan x) is evaluated as 1/sqrt(1 + x^2).
    """
    if fz <= 0.0:
        return 0.0, 0.0, 0.0
    kx = slip_stiffness(p, fz)
    fx0, _slope = mf_fx0_eval_kx(p, fz, kx, kappa, gamma, mu_road, False)
    return mf_combined_given(p, fz, kappa, em.tan(alpha), gamma, mu_road, kx,
                             cornering_stiffness(p, fz, gamma), fx0)


@njit
def mf_combined_given(p, fz, kappa, a_star, gamma, mu_road, kx, ky, fx0):
    """``mf_combined`` with alpha* = tan(alpha) [-], Kx = ``pacejka.slip_stiffness(p, fz)`` [N],
    Ky = ``cornering_stiffness(p, fz, gamma)`` [N/rad] and Fx0 = ``mf_fx0_camber(p, fz, kappa, gamma, mu_road)``
    [N] given: a caller that needs them too (the contact's slip relaxation, which evaluates Fx0 with its
    slope, and the low-speed damping) evaluates each once. Same result as ``mf_combined``; the contact passes
    alpha* = q, its transient slip tan(alpha'), without the round trip tan(atan q)."""
    if fz <= 0.0:
        return 0.0, 0.0, 0.0
    fz0 = nominal_load(p)
    dfz = (fz - fz0) / fz0
    cos_a = _cos_atan(a_star)       # cos(alpha) for |alpha| < pi/2, the range of a slip angle
    gy = gamma * p[P_LGAY]
    gz = gamma * p[P_LGAZ]

    fy0, muy, ky, by, cy, shy, svy = _fy0_terms(p, fz, a_star, gamma, mu_road, ky)

    # longitudinal force, combined slip
    shxa = p[P_RHX1]
    bxa = p[P_RBX1] * _cos_atan(p[P_RBX2] * kappa) * p[P_LXAL]
    cxa = p[P_RCX1]
    exa = p[P_REX1] + p[P_REX2] * dfz
    if exa > 1.0:
        exa = 1.0
    gxa = _mf_cos(bxa, cxa, exa, a_star + shxa) / _mf_cos(bxa, cxa, exa, shxa)
    fx = gxa * fx0

    # lateral force, combined slip
    shyk = p[P_RHY1] + p[P_RHY2] * dfz
    byk = p[P_RBY1] * _cos_atan(p[P_RBY2] * (a_star - p[P_RBY3])) * p[P_LYKA]
    cyk = p[P_RCY1]
    eyk = p[P_REY1] + p[P_REY2] * dfz
    if eyk > 1.0:
        eyk = 1.0
    gyk = _mf_cos(byk, cyk, eyk, kappa + shyk) / _mf_cos(byk, cyk, eyk, shyk)
    dvyk = muy * fz * (p[P_RVY1] + p[P_RVY2] * dfz + p[P_RVY3] * gy) * _cos_atan(p[P_RVY4] * a_star)
    svyk = dvyk * em.sin(p[P_RVY5] * em.atan(p[P_RVY6] * kappa)) * p[P_LVYKA]
    fy = gyk * fy0 + svyk

    # aligning moment, combined slip
    bt, ct, dt, et, sht, br, dr = _mz_trail_terms(p, fz, a_star, gamma, mu_road, by, cy)
    at = a_star + sht
    ar = a_star + shy + svy / _guard(ky)
    kk = kx / _guard(ky) * kappa
    at_eq = math.sqrt(at * at + kk * kk) * _sgn(at)
    ar_eq = math.sqrt(ar * ar + kk * kk) * _sgn(ar)
    t = dt * _mf_cos(bt, ct, et, at_eq) * cos_a
    mzr = dr * _cos_atan(br * ar_eq) * cos_a
    s = p[P_R0] * (p[P_SSZ1] + p[P_SSZ2] * fy / fz0 + (p[P_SSZ3] + p[P_SSZ4] * dfz) * gz) * p[P_LS]
    mz = -t * (fy - svyk) + mzr + s * fx
    return fx, fy, mz
