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

from ..numerics import elementary as em
from ..numerics.jit import njit

from .pacejka import (RELAXATION_TIME_MIN, effective_rolling_radius, low_speed_damping, mf_fx0_eval_kx,
                      nominal_load, relaxation_length, relaxation_length_from_slope, rolling_resistance_moment,
                      slip_stiffness, vertical_force)
from .pacejka_combined import cornering_stiffness, lateral_relaxation_length, mf_combined_given
from .tir import P_KPUMAX, P_KPUMIN, P_R0, P_VXLOW
# the contact output layout of the tire interface (every OUT_* slot: the kernels below write them all)
from .interface import (CONTACT_OUT_N, OUT_DALPHA, OUT_DEFLECTION, OUT_DKAPPA, OUT_FORCE, OUT_FX, OUT_FY, OUT_FZ,
                        OUT_GAMMA, OUT_KAPPA_SS, OUT_LATERAL, OUT_MOMENT, OUT_MY, OUT_MZ, OUT_NORMAL, OUT_POINT,
                        OUT_RE, OUT_SIGMA, OUT_SIGMA_Y, OUT_TAN_ALPHA, OUT_TAN_ALPHA_SS, OUT_TANGENT, OUT_VSX,
                        OUT_VX, OUT_VY)

KAPPA_SPEED_EPS = 0.01
"""Speed floor in the reported steady-state slip -Vsx/|Vx| [m/s] (output only, no effect on forces)."""

_AXIS_EPS = 1e-9


@njit(inline="always")
def contact_frame(p, center, center_vel, wheel_omega, spin_axis, road_h, nx, ny, nz, out):
    """The contact geometry of §1 for the road normal n = (nx, ny, nz) through (cx, cy, road_h): writes P, n,
    t, δ and Vx into ``out`` and returns (δ, δ̇, tx, ty, tz, Vx, Ω) (module docstring)."""
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
    return delta, delta_rate, tx, ty, tz, vx, omega


@njit(inline="always")
def airborne(p, vx, omega, slip_state, speed_floor, out):
    """A wheel off the road (δ <= 0): no force, no moment, κ' relaxes to 0 at max(|Vx|, VXLOW) / σκ0(Fz0');
    the longitudinal outputs into ``out``. Returns (that rate [m/s], σκ0 [m])."""
    speed = abs(vx)
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
    return rate, sigma


@njit(inline="always")
def longitudinal_slip(p, fz, vx, vsx, road_mu, slip_state):
    """The transient longitudinal slip of a loaded tire at zero camber (module docstring): returns (κ used for
    the force, dκ'/dt [1/s], σc [m], Fx0(κ) [N]).

    κ = clip(κ', KPUMIN, KPUMAX) - k_low(Vx) Vsx / Kx,  σc = slip_relaxation_length(κ clipped),
    dκ'/dt = (-Vsx - |Vx| κ') / σc, zero outward at the clip limits (anti-windup)."""
    return longitudinal_slip_kx(p, fz, slip_stiffness(p, fz), 0.0, vx, vsx, road_mu, slip_state)


@njit(inline="always")
def longitudinal_slip_kx(p, fz, kx, gamma, vx, vsx, road_mu, slip_state):
    """``longitudinal_slip`` at the inclination gamma [rad] with the slip stiffness Kx =
    ``pacejka.slip_stiffness(p, fz)`` [N] given (its exp computed once per contact). σc takes the slope of
    the Fx0 the force uses (camber included), and that Fx0 at the clipped κ' comes with it: above VXLOW,
    where k_low = 0, it is Fx0(κ) itself, so the Magic Formula's longitudinal terms are evaluated once."""
    kappa = slip_state
    if kappa > p[P_KPUMAX]:
        kappa = p[P_KPUMAX]
    elif kappa < p[P_KPUMIN]:
        kappa = p[P_KPUMIN]
    fx0, slope = mf_fx0_eval_kx(p, fz, kx, kappa, gamma, road_mu, kx > 0.0)
    sigma = relaxation_length_from_slope(p, fz, kx, slope, vx)
    dkappa = (-vsx - abs(vx) * slip_state) / sigma
    if (slip_state >= p[P_KPUMAX] and dkappa > 0.0) or (slip_state <= p[P_KPUMIN] and dkappa < 0.0):
        dkappa = 0.0
    if kx > 0.0:
        damping = low_speed_damping(p, vx)
        if damping != 0.0:
            kappa -= damping * vsx / kx
            fx0, _slope = mf_fx0_eval_kx(p, fz, kx, kappa, gamma, road_mu, False)
    return kappa, dkappa, sigma, fx0


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
    for k in range(OUT_FY, CONTACT_OUT_N):
        out[k] = 0.0
    inv = 1.0 / math.sqrt(1.0 + road_dhdx * road_dhdx)
    nx = -road_dhdx * inv
    ny = 0.0
    nz = inv
    delta, delta_rate, tx, ty, tz, vx, omega = contact_frame(p, center, center_vel, wheel_omega, spin_axis,
                                                             road_h, nx, ny, nz, out)
    speed = abs(vx)
    speed_floor = speed if speed > KAPPA_SPEED_EPS else KAPPA_SPEED_EPS
    if delta <= 0.0:
        airborne(p, vx, omega, slip_state, speed_floor, out)
        return

    fz = vertical_force(p, delta, delta_rate)
    re = effective_rolling_radius(p, delta)
    vsx = vx - omega * re
    kappa, dkappa, sigma, fx = longitudinal_slip(p, fz, vx, vsx, road_mu, slip_state)
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


@njit(inline="always")
def aligning_fade(p, vx):
    """Factor on the aligning moment: 0.5 (1 - cos(pi |Vx| / VXLOW)) below VXLOW, 1 above (fmu_vehicle's
    choice, the complement of the low-speed damping's fade-in): a tire at rest has neither pneumatic trail
    nor the residual torque of its conicity, which would otherwise steer a parked car and push it through
    the steering geometry. Turn slip (parking torque) is not modelled."""
    speed = abs(vx)
    if speed >= p[P_VXLOW]:
        return 1.0
    return 0.5 * (1.0 - em.cos(math.pi * speed / p[P_VXLOW]))


LATERAL_SLIP_MAX = 1.5
"""Anti-windup limit of the lateral transient slip q = tan α' [-] (about 56°), like KPUMIN/KPUMAX for κ'."""


@njit
def tire_contact_3d(p, mirror, center, center_vel, wheel_omega, spin_axis, road_h, road_dhdx, road_dhdy,
                    road_mu, slip_state, lateral_state, out):
    """Contact force, moments and transient slip rates of one wheel with combined slip (docs/tire.md §10).

    The road is the plane through (cx, cy, h) with unit normal n = (-dh/dx, -dh/dy, 1)/|.|. As in
    ``tire_contact``: d = n·(c - p_road), δ = R0 - d, P = c - d n, t = (a × n)/|a × n|, Vx = t·ċ,
    Vsx = Vx - Ω Re, and the longitudinal transient slip κ' (``longitudinal_slip``). In addition:
        l = n × t,  Vcy = l·ċ,  γ = asin(a·n)                 lateral axis, lateral speed, inclination
        q = tan α'  (state):  dq/dt = (Vcy - |Vx| q) / σα     (σα: ``lateral_relaxation_length``,
                                                               >= |Vx| RELAXATION_TIME_MIN)
        tan α = clip(q, ±LATERAL_SLIP_MAX) - k_low(Vx) Vcy / Ky    (low-speed damping, as for κ)
        (Fx, Fy, Mz) = MF 5.2 combined slip (``pacejka_combined.mf_combined``) at (Fz, κ, α, γ, mu),
        Mz faded out below VXLOW (``aligning_fade``)
    A right-hand tire (``mirror`` = -1) is the mirror image of the left-hand tire the file describes:
    it is evaluated at (-α, -γ) and its Fy and Mz change sign, so left and right tires of a symmetric car
    are exact mirror images even with the file's ply-steer and conicity terms.
    Loads on the wheel: F = Fx t + Fy l + Fz n at P, and the moment My a + Mz n⊥ (My: rolling resistance),
    n⊥ = (n - (n·a) a)/|.| the normal's part perpendicular to the spin axis: the aligning moment turns
    the wheel about its steering axes and never spins it (on a cambered wheel Mz n would drive the spin
    by Mz sin γ, and a car at rest would creep on its residual aligning moment).
    Velocities are those of the wheel centre (the contact point's extra velocity from the hub's rotation,
    about d × the roll or pitch rate, is neglected, as in ``tire_contact``).

    Parameters as ``tire_contact``, plus: mirror (+1 left-hand tire, -1 right-hand), road_dhdy [-],
    lateral_state q = tan α' [-]. ``out`` (float64[CONTACT_OUT_N]) gets every OUT_* entry.
    """
    inv = 1.0 / math.sqrt(1.0 + road_dhdx * road_dhdx + road_dhdy * road_dhdy)
    nx = -road_dhdx * inv
    ny = -road_dhdy * inv
    nz = inv
    delta, delta_rate, tx, ty, tz, vx, omega = contact_frame(p, center, center_vel, wheel_omega, spin_axis,
                                                             road_h, nx, ny, nz, out)
    lx = ny * tz - nz * ty
    ly = nz * tx - nx * tz
    lz = nx * ty - ny * tx
    vy = lx * center_vel[0] + ly * center_vel[1] + lz * center_vel[2]
    sin_g = spin_axis[0] * nx + spin_axis[1] * ny + spin_axis[2] * nz
    if sin_g > 1.0:
        sin_g = 1.0
    elif sin_g < -1.0:
        sin_g = -1.0
    gamma = em.asin(sin_g)

    out[OUT_LATERAL] = lx
    out[OUT_LATERAL + 1] = ly
    out[OUT_LATERAL + 2] = lz
    out[OUT_VY] = vy
    out[OUT_GAMMA] = gamma

    speed = abs(vx)
    speed_floor = speed if speed > KAPPA_SPEED_EPS else KAPPA_SPEED_EPS
    out[OUT_TAN_ALPHA_SS] = vy / speed_floor
    sigma_min = speed * RELAXATION_TIME_MIN
    if delta <= 0.0:
        rate, sigma = airborne(p, vx, omega, slip_state, speed_floor, out)
        for k in range(3):
            out[OUT_MOMENT + k] = 0.0
        out[OUT_FY] = 0.0
        out[OUT_MZ] = 0.0
        out[OUT_DALPHA] = -rate * lateral_state / sigma
        out[OUT_TAN_ALPHA] = lateral_state
        out[OUT_SIGMA_Y] = sigma
        return

    fz = vertical_force(p, delta, delta_rate)
    re = effective_rolling_radius(p, delta)
    vsx = vx - omega * re
    gamma_t = mirror * gamma
    kx = slip_stiffness(p, fz)          # Kx, Ky and Fx0 enter the slip and the Magic Formula: evaluated once
    kappa, dkappa, sigma, fx0 = longitudinal_slip_kx(p, fz, kx, gamma_t, vx, vsx, road_mu, slip_state)

    sigma_y = lateral_relaxation_length(p, fz, gamma_t)
    if sigma_y < sigma_min:
        sigma_y = sigma_min
    q = lateral_state
    if q > LATERAL_SLIP_MAX:
        q = LATERAL_SLIP_MAX
    elif q < -LATERAL_SLIP_MAX:
        q = -LATERAL_SLIP_MAX
    dq = (vy - speed * lateral_state) / sigma_y
    if (lateral_state >= LATERAL_SLIP_MAX and dq > 0.0) or (lateral_state <= -LATERAL_SLIP_MAX and dq < 0.0):
        dq = 0.0
    ky = cornering_stiffness(p, fz, gamma_t)
    if ky != 0.0:
        q -= low_speed_damping(p, vx) * vy / ky

    fx, fy_t, mz_t = mf_combined_given(p, fz, kappa, mirror * q, gamma_t, road_mu, kx, ky, fx0)  # tan(atan q) = q
    fy = mirror * fy_t
    mz = mirror * mz_t * aligning_fade(p, vx)
    my = rolling_resistance_moment(p, fz, vx, omega)
    px = nx - sin_g * spin_axis[0]
    py = ny - sin_g * spin_axis[1]
    pz = nz - sin_g * spin_axis[2]
    pn = math.sqrt(px * px + py * py + pz * pz)
    if pn > _AXIS_EPS:
        px /= pn
        py /= pn
        pz /= pn
    out[OUT_MOMENT] = my * spin_axis[0] + mz * px
    out[OUT_MOMENT + 1] = my * spin_axis[1] + mz * py
    out[OUT_MOMENT + 2] = my * spin_axis[2] + mz * pz

    out[OUT_FORCE] = fx * tx + fy * lx + fz * nx
    out[OUT_FORCE + 1] = fx * ty + fy * ly + fz * ny
    out[OUT_FORCE + 2] = fx * tz + fy * lz + fz * nz
    out[OUT_MY] = my
    out[OUT_FX] = fx
    out[OUT_FY] = fy
    out[OUT_FZ] = fz
    out[OUT_MZ] = mz
    out[OUT_DKAPPA] = dkappa
    out[OUT_DALPHA] = dq
    out[OUT_KAPPA_SS] = -vsx / speed_floor
    out[OUT_TAN_ALPHA] = q
    out[OUT_VSX] = vsx
    out[OUT_RE] = re
    out[OUT_SIGMA] = sigma
    out[OUT_SIGMA_Y] = sigma_y
