"""njit single-point tire contact on a locally planar road: forces, application point, transient slip rate.

Geometry (global frame, ISO 8855, z up). The road is the plane through p_road = (cx, cy, h) with unit normal
n = (-dh/dx, 0, 1)/sqrt(1 + (dh/dx)^2), h and dh/dx taken at x = cx (c = wheel centre):
    d = n·(c - p_road)             centre-to-road distance = loaded radius [m]
    δ = R0 - d,  δ̇ = -n·ċ          deflection [m] and its rate [m/s]
    t = (a × n)/|a × n|            longitudinal (forward) unit vector, a = spin axis
    P = c - d n                    contact point, where the force acts

Slip (single contact point transient model with a relaxation length, Pacejka 2012, as in MF-Tyre):
    Vx = t·ċ,  Ω = ω·a,  Re = effective_rolling_radius(δ),  Vsx = Vx - Ω Re
    dκ'/dt = (-Vsx - |Vx| κ') / σc(Fz, κ', Vx)     (steady state κ' = -Vsx/|Vx|)
    Fx = mf_fx0(Fz, κ' - k_low(Vx) Vsx / Kx, mu)    (k_low: low-speed damping, zero above VXLOW)
    σc = max(σmin, σκ0 (dFx0/dκ')/Kx)               (pacejka.slip_relaxation_length)
σκ0 (PTX1..3) is the relaxation length at small slip. σc is Pacejka's semi-non-linear form: the carcass is a
linear spring Kx/σκ0 up to the friction limit, so a locked or sliding wheel stores no deflection beyond it
and does not spring back by σκ0 when the vehicle stops; σmin >= |Vx| RELAXATION_TIME_MIN keeps the slip
equation non-stiff. k_low damps the carcass spring near standstill, where |Vx|/σc no longer does.
Anti-windup (spinning or locked wheel at standstill): at or beyond KPUMIN/KPUMAX the outward rate of κ' is
zero, and force and σc use κ' clipped to those limits.
Airborne (δ <= 0): no force, and κ' relaxes to 0 with dκ'/dt = -max(|Vx|, VXLOW) κ' / σκ0(Fz0').

Force on the wheel: F = Fx t + Fz n at P, plus the rolling resistance moment My about the spin axis a.
The moment of F about the wheel centre is (P - c) × F (lever arm = loaded radius d).

See docs/tire.md §1.
"""
from __future__ import annotations

import math

from ..jit import njit

from .pacejka import (effective_rolling_radius, low_speed_damping, mf_fx0, nominal_load, relaxation_length,
                      rolling_resistance_moment, slip_relaxation_length, slip_stiffness, vertical_force)
from .tir import P_KPUMAX, P_KPUMIN, P_R0, P_VXLOW

OUT_FORCE = 0         # [0:3] total force on the wheel Fx t + Fz n [N], global frame
OUT_POINT = 3         # [3:6] application point P [m], global frame
OUT_MY = 6            # rolling resistance moment about the spin axis [N m]
OUT_FX = 7            # longitudinal force along t [N]
OUT_FZ = 8            # normal force along n [N], >= 0
OUT_DEFLECTION = 9    # δ = R0 - d [m] (negative when airborne)
OUT_DKAPPA = 10       # dκ'/dt [1/s]
OUT_KAPPA_SS = 11     # steady-state (kinematic) slip -Vsx / max(|Vx|, KAPPA_SPEED_EPS) [-]
OUT_VX = 12           # longitudinal speed of the wheel centre Vx = t·ċ [m/s]
OUT_VSX = 13          # slip velocity Vsx = Vx - Ω Re [m/s]
OUT_RE = 14           # effective rolling radius [m]
OUT_SIGMA = 15        # relaxation length σc in use [m]
OUT_NORMAL = 16       # [16:19] road normal n [-]
OUT_TANGENT = 19      # [19:22] longitudinal unit vector t [-]
CONTACT_OUT_N = 22

KAPPA_SPEED_EPS = 0.01
"""Speed floor in the reported steady-state slip -Vsx/|Vx| [m/s] (output only, no effect on forces)."""

_AXIS_EPS = 1e-9


@njit
def tire_contact(p, center, center_vel, wheel_omega, spin_axis, road_h, road_dhdx, road_mu, slip_state, out):
    """Contact force and transient slip rate of one wheel on a locally planar road (see module docstring).

    Parameters:
        p             tire parameter array (tir.P_* layout)
        center        float64[3] wheel centre position [m], global
        center_vel    float64[3] wheel centre velocity [m/s], global
        wheel_omega   float64[3] absolute angular velocity of the wheel body [rad/s], global
        spin_axis     float64[3] unit wheel spin axis (≈ +y, rolling forward = positive spin) [-]
        road_h        road height at x = center[0] [m]
        road_dhdx     road slope dh/dx at x = center[0] [-]
        road_mu       road friction coefficient [-]
        slip_state    transient longitudinal slip κ' [-] (state integrated by the caller)
        out           float64[CONTACT_OUT_N], overwritten; see the OUT_* constants
    """
    inv = 1.0 / math.sqrt(1.0 + road_dhdx * road_dhdx)
    nx = -road_dhdx * inv
    ny = 0.0
    nz = inv
    d = nz * (center[2] - road_h)
    delta = p[P_R0] - d
    delta_rate = -(nx * center_vel[0] + ny * center_vel[1] + nz * center_vel[2])

    tx = spin_axis[1] * nz - spin_axis[2] * ny
    ty = spin_axis[2] * nx - spin_axis[0] * nz
    tz = spin_axis[0] * ny - spin_axis[1] * nx
    tn = math.sqrt(tx * tx + ty * ty + tz * tz)
    if tn < _AXIS_EPS:
        tx, ty, tz, tn = nz, 0.0, -nx, 1.0
    tx /= tn
    ty /= tn
    tz /= tn

    vx = tx * center_vel[0] + ty * center_vel[1] + tz * center_vel[2]
    omega = wheel_omega[0] * spin_axis[0] + wheel_omega[1] * spin_axis[1] + wheel_omega[2] * spin_axis[2]

    out[OUT_POINT] = center[0] - d * nx
    out[OUT_POINT + 1] = center[1] - d * ny
    out[OUT_POINT + 2] = center[2] - d * nz
    out[OUT_NORMAL] = nx
    out[OUT_NORMAL + 1] = ny
    out[OUT_NORMAL + 2] = nz
    out[OUT_TANGENT] = tx
    out[OUT_TANGENT + 1] = ty
    out[OUT_TANGENT + 2] = tz
    out[OUT_DEFLECTION] = delta
    out[OUT_VX] = vx

    speed = abs(vx)
    speed_floor = speed if speed > KAPPA_SPEED_EPS else KAPPA_SPEED_EPS
    if delta <= 0.0:
        re = p[P_R0]
        vsx = vx - omega * re
        sigma = relaxation_length(p, nominal_load(p))
        rate = speed if speed > p[P_VXLOW] else p[P_VXLOW]
        for k in range(3):
            out[OUT_FORCE + k] = 0.0
        out[OUT_MY] = 0.0
        out[OUT_FX] = 0.0
        out[OUT_FZ] = 0.0
        out[OUT_DKAPPA] = -rate * slip_state / sigma
        out[OUT_KAPPA_SS] = -vsx / speed_floor
        out[OUT_VSX] = vsx
        out[OUT_RE] = re
        out[OUT_SIGMA] = sigma
        return

    fz = vertical_force(p, delta, delta_rate)
    re = effective_rolling_radius(p, delta)
    vsx = vx - omega * re
    kappa = slip_state
    if kappa > p[P_KPUMAX]:
        kappa = p[P_KPUMAX]
    elif kappa < p[P_KPUMIN]:
        kappa = p[P_KPUMIN]
    sigma = slip_relaxation_length(p, fz, kappa, road_mu, vx)
    dkappa = (-vsx - speed * slip_state) / sigma
    if (slip_state >= p[P_KPUMAX] and dkappa > 0.0) or (slip_state <= p[P_KPUMIN] and dkappa < 0.0):
        dkappa = 0.0

    kx = slip_stiffness(p, fz)
    if kx > 0.0:
        kappa -= low_speed_damping(p, vx) * vsx / kx
    fx = mf_fx0(p, fz, kappa, road_mu)
    my = rolling_resistance_moment(p, fz, vx, omega)

    out[OUT_FORCE] = fx * tx + fz * nx
    out[OUT_FORCE + 1] = fx * ty + fz * ny
    out[OUT_FORCE + 2] = fx * tz + fz * nz
    out[OUT_MY] = my
    out[OUT_FX] = fx
    out[OUT_FZ] = fz
    out[OUT_DKAPPA] = dkappa
    out[OUT_KAPPA_SS] = -vsx / speed_floor
    out[OUT_VSX] = vsx
    out[OUT_RE] = re
    out[OUT_SIGMA] = sigma
