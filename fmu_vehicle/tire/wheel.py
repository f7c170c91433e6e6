"""Single-wheel rig: one wheel carrying a load on a road, with drive and brake torque, fixed-step RK4.

For tests and standalone tire studies without the multibody engine. The rig body (translational mass m,
spin inertia I) moves in the global x-z plane; its spin axis is +y. Equations of motion (gravity g = 9.81):
    m ẍ = F_x,   m z̈ = F_z - m g - load,   I Ω̇ = T_drive + T_brake + [(P - c) × F]_y + My,   κ̇' = tire
with F, P, My from ``contact.tire_contact``. ``prescribed_vx`` / ``prescribed_omega`` hold ẋ / Ω constant
(tire test trailer on a drum or flat track). The road is piecewise linear through (road_x_m, road_h_m),
extended linearly beyond its ends.

Brake (``brake_torque``): a LuGre/Dahl-type friction element (Canudas de Wit et al. 1995, without the
Stribeck term). A bristle angle φ obeys φ̇ = Ω - min(|Ω|, r φs) φ/φs and the torque is -(k φ + c φ̇),
clipped to |T| <= T_b, with k = ωb² I, c = 2 ζ ωb I and φs = T_b / k. While sliding the torque is exactly
-T_b sgn Ω; at standstill the element is a damped spring of natural frequency ωb, so a held wheel does
not creep (a tanh(Ω) brake would creep at a speed set by its smoothing scale). ωb h = 0.3 and 2 ζ ωb h =
0.42 at h = 1 ms, and the rate cap r (r h = 1) keeps the bristle equation non-stiff, so explicit RK4 is
stable for any brake torque and inertia.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..jit import njit
import numpy as np

from ..errors import ModelError
from .contact import (CONTACT_OUT_N, OUT_DEFLECTION, OUT_DKAPPA, OUT_FORCE, OUT_FX, OUT_FZ, OUT_KAPPA_SS, OUT_MY,
                      OUT_POINT, OUT_VSX, OUT_VX, tire_contact)
from .pacejka import effective_rolling_radius
from .tir import N_PARAMS, P_CZ, P_LCZ, P_R0

GRAVITY = 9.81
"""Gravitational acceleration [m/s^2], acting along -z."""

BRAKE_STICK_FREQUENCY = 300.0
"""Natural frequency ωb of the stuck brake spring with the wheel inertia [rad/s]."""

BRAKE_DAMPING_RATIO = 0.7
"""Damping ratio ζ of the stuck brake spring [-]."""

BRAKE_RATE_MAX = 1000.0
"""Largest relaxation rate of the bristle angle, r in φ̇ = Ω - min(|Ω|, r φs) φ/φs [1/s]."""

# state vector of the rig
S_X, S_Z, S_VX, S_VZ, S_OMEGA, S_KAPPA, S_PHI = range(7)
N_STATES = 7

# columns of the recorded history
(REC_T, REC_X, REC_Z, REC_VX, REC_VZ, REC_SPEED, REC_OMEGA, REC_KAPPA, REC_KAPPA_SS, REC_FX, REC_FZ, REC_MY,
 REC_DEFLECTION, REC_BRAKE, REC_DRIVE, REC_VSX) = range(16)
N_REC = 16


@njit
def brake_torque(t_max, phi, omega, inertia):
    """Brake torque on the wheel [N m] and bristle rate φ̇ [rad/s] (LuGre-type element, module docstring).

    Parameters:
        t_max     brake capacity T_b >= 0 [N m]; 0 gives no torque (φ then relaxes to 0)
        phi       bristle angle φ [rad]
        omega     wheel spin rate Ω [rad/s]
        inertia   wheel spin inertia I [kg m^2] (k = ωb² I, c = 2 ζ ωb I)
    """
    if t_max <= 0.0:
        return 0.0, -BRAKE_RATE_MAX * phi
    k = BRAKE_STICK_FREQUENCY * BRAKE_STICK_FREQUENCY * inertia
    c = 2.0 * BRAKE_DAMPING_RATIO * BRAKE_STICK_FREQUENCY * inertia
    phi_s = t_max / k
    rate = abs(omega)
    if rate > BRAKE_RATE_MAX * phi_s:
        rate = BRAKE_RATE_MAX * phi_s
    dphi = omega - rate * phi / phi_s
    torque = k * phi + c * dphi
    if torque > t_max:
        torque = t_max
    elif torque < -t_max:
        torque = -t_max
    return -torque, dphi


@njit(allocates=True)
def road_at(road_x, road_h, x):
    """Height h [m] and slope dh/dx [-] of the piecewise-linear road at x [m] (linear beyond the ends)."""
    n = road_x.shape[0]
    i = np.searchsorted(road_x, x) - 1
    if i < 0:
        i = 0
    elif i > n - 2:
        i = n - 2
    s = (road_h[i + 1] - road_h[i]) / (road_x[i + 1] - road_x[i])
    return road_h[i] + s * (x - road_x[i]), s


@njit(allocates=True)
def rig_derivative(t, y, p, mass, inertia, load, road_x, road_h, mu, drive_t, drive_v, brake_t, brake_v,
                   fix_vx, fix_omega, work, contact_out, dy):
    """Time derivative dy of the rig state y (S_* layout) at time t [s]; fills contact_out and work.

    work: float64[>=14] scratch (centre, velocity, angular velocity, spin axis); work[12] = drive torque,
    work[13] = brake torque [N m] after the call.
    """
    h, s = road_at(road_x, road_h, y[S_X])
    center = work[0:3]
    vel = work[3:6]
    wom = work[6:9]
    axis = work[9:12]
    center[0] = y[S_X]
    center[1] = 0.0
    center[2] = y[S_Z]
    vel[0] = y[S_VX]
    vel[1] = 0.0
    vel[2] = y[S_VZ]
    wom[0] = 0.0
    wom[1] = y[S_OMEGA]
    wom[2] = 0.0
    axis[0] = 0.0
    axis[1] = 1.0
    axis[2] = 0.0
    tire_contact(p, center, vel, wom, axis, h, s, mu, y[S_KAPPA], contact_out)

    fx_w = contact_out[OUT_FORCE]
    fz_w = contact_out[OUT_FORCE + 2]
    rx = contact_out[OUT_POINT] - center[0]
    rz = contact_out[OUT_POINT + 2] - center[2]
    moment = rz * fx_w - rx * fz_w + contact_out[OUT_MY]
    drive = np.interp(t, drive_t, drive_v)
    brake, dphi = brake_torque(np.interp(t, brake_t, brake_v), y[S_PHI], y[S_OMEGA], inertia)
    work[12] = drive
    work[13] = brake

    dy[S_X] = y[S_VX]
    dy[S_Z] = y[S_VZ]
    dy[S_VX] = 0.0 if fix_vx else fx_w / mass
    dy[S_VZ] = (fz_w - mass * GRAVITY - load) / mass
    dy[S_OMEGA] = 0.0 if fix_omega else (drive + brake + moment) / inertia
    dy[S_KAPPA] = contact_out[OUT_DKAPPA]
    dy[S_PHI] = dphi


@njit(allocates=True)
def rig_run(y0, h, n_steps, p, mass, inertia, load, road_x, road_h, mu, drive_t, drive_v, brake_t, brake_v,
            fix_vx, fix_omega, rec):
    """Integrate the rig n_steps with classic RK4, step h [s]; rec[k, REC_*] holds the history at t = k h."""
    y = y0.copy()
    k1 = np.zeros(N_STATES)
    k2 = np.zeros(N_STATES)
    k3 = np.zeros(N_STATES)
    k4 = np.zeros(N_STATES)
    tmp = np.zeros(N_STATES)
    work = np.zeros(14)
    cout = np.zeros(CONTACT_OUT_N)
    for k in range(n_steps + 1):
        t = k * h
        rig_derivative(t, y, p, mass, inertia, load, road_x, road_h, mu, drive_t, drive_v, brake_t, brake_v,
                       fix_vx, fix_omega, work, cout, k1)
        r = rec[k]
        r[REC_T] = t
        r[REC_X] = y[S_X]
        r[REC_Z] = y[S_Z]
        r[REC_VX] = y[S_VX]
        r[REC_VZ] = y[S_VZ]
        r[REC_SPEED] = cout[OUT_VX]
        r[REC_OMEGA] = y[S_OMEGA]
        r[REC_KAPPA] = y[S_KAPPA]
        r[REC_KAPPA_SS] = cout[OUT_KAPPA_SS]
        r[REC_FX] = cout[OUT_FX]
        r[REC_FZ] = cout[OUT_FZ]
        r[REC_MY] = cout[OUT_MY]
        r[REC_DEFLECTION] = cout[OUT_DEFLECTION]
        r[REC_BRAKE] = work[13]
        r[REC_DRIVE] = work[12]
        r[REC_VSX] = cout[OUT_VSX]
        if k == n_steps:
            break
        for i in range(N_STATES):
            tmp[i] = y[i] + 0.5 * h * k1[i]
        rig_derivative(t + 0.5 * h, tmp, p, mass, inertia, load, road_x, road_h, mu, drive_t, drive_v, brake_t,
                       brake_v, fix_vx, fix_omega, work, cout, k2)
        for i in range(N_STATES):
            tmp[i] = y[i] + 0.5 * h * k2[i]
        rig_derivative(t + 0.5 * h, tmp, p, mass, inertia, load, road_x, road_h, mu, drive_t, drive_v, brake_t,
                       brake_v, fix_vx, fix_omega, work, cout, k3)
        for i in range(N_STATES):
            tmp[i] = y[i] + h * k3[i]
        rig_derivative(t + h, tmp, p, mass, inertia, load, road_x, road_h, mu, drive_t, drive_v, brake_t,
                       brake_v, fix_vx, fix_omega, work, cout, k4)
        for i in range(N_STATES):
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])


@dataclass(frozen=True)
class WheelRun:
    """Time histories of a rig run (all float64 arrays of equal length).

    Fields:
        t [s], x, z centre position [m], vx, vz centre velocity [m/s] (global),
        speed  Vx along the road tangent [m/s], omega spin [rad/s], kappa transient slip κ' [-],
        kappa_ss steady-state slip -Vsx/|Vx| [-], fx, fz tire forces along t, n [N], my rolling resistance
        moment [N m], deflection δ [m], brake_torque, drive_torque [N m], slip_velocity Vsx [m/s]
    """

    t: np.ndarray
    x: np.ndarray
    z: np.ndarray
    vx: np.ndarray
    vz: np.ndarray
    speed: np.ndarray
    omega: np.ndarray
    kappa: np.ndarray
    kappa_ss: np.ndarray
    fx: np.ndarray
    fz: np.ndarray
    my: np.ndarray
    deflection: np.ndarray
    brake_torque: np.ndarray
    drive_torque: np.ndarray
    slip_velocity: np.ndarray


def _positive(value, name: str) -> float:
    """A finite float > 0, else ModelError naming the argument."""
    number = float(value)
    if not math.isfinite(number) or number <= 0.0:
        raise ModelError(f"simulate_wheel: {name} must be finite and > 0, got {value!r}")
    return number


def _table(value, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(times, values) arrays from a constant or a (times [s], values) pair (np.interp semantics)."""
    if np.isscalar(value):
        return np.zeros(1), np.array([float(value)])
    times, values = (np.ascontiguousarray(v, dtype=np.float64) for v in value)
    if times.ndim != 1 or times.shape != values.shape or times.size == 0 or np.any(np.diff(times) < 0.0):
        raise ModelError(f"simulate_wheel: {name} must be a number or (times, values) of equal length "
                         f"with non-decreasing times")
    return times, values


def simulate_wheel(params: np.ndarray, *, mass_kg: float, inertia_kg_m2: float, duration_s: float,
                   step_s: float = 1e-3, v0_m_per_s: float = 0.0, omega0_rad_per_s: float | None = None,
                   kappa0: float = 0.0, load_N: float = 0.0, slope_rad: float = 0.0, road_x_m=None,
                   road_h_m=None, mu: float = 1.0, drive_torque_Nm=0.0, brake_torque_Nm=0.0,
                   prescribed_vx: bool = False, prescribed_omega: bool = False) -> WheelRun:
    """Run the single-wheel rig from static equilibrium at x = 0 with fixed-step RK4.

    Parameters:
        params            tire parameter array (TireParams.to_array())
        mass_kg           translational mass m [kg] (wheel plus the mass it carries)
        inertia_kg_m2     spin inertia I [kg m^2]
        duration_s        simulated time [s]; step_s fixed RK4 step [s]
        v0_m_per_s        initial speed along the road [m/s]
        omega0_rad_per_s  initial spin [rad/s]; default free rolling v0 / Re
        kappa0            initial transient slip κ' [-]
        load_N            extra massless vertical load on the centre, along -z [N]
        slope_rad         plane road angle (used when road_x_m is None) [rad]
        road_x_m, road_h_m  piecewise-linear road profile (increasing x) [m]
        mu                road friction [-]
        drive_torque_Nm, brake_torque_Nm   constant or (times [s], values [N m]); brake capacity >= 0
        prescribed_vx, prescribed_omega    hold the horizontal speed / the spin at their initial values

    The centre starts at the static deflection δ0 = (m g + load) cos θ / (CZ LCZ) above the road.
    """
    p = np.ascontiguousarray(params, dtype=np.float64)
    if p.shape != (N_PARAMS,):
        raise ModelError(f"simulate_wheel: params must have shape ({N_PARAMS},), got {p.shape}")
    mass = _positive(mass_kg, "mass_kg")
    inertia = _positive(inertia_kg_m2, "inertia_kg_m2")
    duration = _positive(duration_s, "duration_s")
    step = _positive(step_s, "step_s")
    if road_x_m is None:
        road_x = np.array([0.0, 1.0])
        road_h = np.array([0.0, math.tan(slope_rad)])
    else:
        road_x = np.ascontiguousarray(road_x_m, dtype=np.float64)
        road_h = np.ascontiguousarray(road_h_m, dtype=np.float64)
        if road_x.ndim != 1 or road_x.shape != road_h.shape or road_x.size < 2 or np.any(np.diff(road_x) <= 0):
            raise ModelError("simulate_wheel: road_x_m, road_h_m must be equal-length 1-D arrays (>= 2 points) "
                             "with increasing x")
    drive_t, drive_v = _table(drive_torque_Nm, "drive_torque_Nm")
    brake_t, brake_v = _table(brake_torque_Nm, "brake_torque_Nm")
    if np.any(brake_v < 0.0):
        raise ModelError("simulate_wheel: brake_torque_Nm must be >= 0 (a capacity; it always opposes spin)")

    h0, s0 = road_at(road_x, road_h, 0.0)
    cos_t = 1.0 / math.sqrt(1.0 + s0 * s0)
    sin_t = s0 * cos_t
    delta0 = (mass * GRAVITY + float(load_N)) * cos_t / (p[P_CZ] * p[P_LCZ])
    y0 = np.zeros(N_STATES)
    y0[S_Z] = h0 + (p[P_R0] - delta0) / cos_t
    y0[S_VX] = v0_m_per_s * cos_t
    y0[S_VZ] = v0_m_per_s * sin_t
    if omega0_rad_per_s is None:
        y0[S_OMEGA] = v0_m_per_s / effective_rolling_radius(p, delta0)
    else:
        y0[S_OMEGA] = float(omega0_rad_per_s)
    y0[S_KAPPA] = kappa0

    n_steps = int(round(duration / step))
    rec = np.zeros((n_steps + 1, N_REC))
    rig_run(y0, step, n_steps, p, mass, inertia, float(load_N), road_x, road_h, float(mu), drive_t, drive_v,
            brake_t, brake_v, bool(prescribed_vx), bool(prescribed_omega), rec)
    return WheelRun(t=rec[:, REC_T].copy(), x=rec[:, REC_X].copy(), z=rec[:, REC_Z].copy(),
                    vx=rec[:, REC_VX].copy(), vz=rec[:, REC_VZ].copy(), speed=rec[:, REC_SPEED].copy(),
                    omega=rec[:, REC_OMEGA].copy(), kappa=rec[:, REC_KAPPA].copy(),
                    kappa_ss=rec[:, REC_KAPPA_SS].copy(), fx=rec[:, REC_FX].copy(), fz=rec[:, REC_FZ].copy(),
                    my=rec[:, REC_MY].copy(), deflection=rec[:, REC_DEFLECTION].copy(),
                    brake_torque=rec[:, REC_BRAKE].copy(), drive_torque=rec[:, REC_DRIVE].copy(),
                    slip_velocity=rec[:, REC_VSX].copy())
