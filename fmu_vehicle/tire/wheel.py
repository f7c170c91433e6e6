"""Single-wheel rig: one wheel carrying a load on a road, with drive and brake torque, fixed-step RK4.

For tests and standalone tire studies without the multibody engine. The rig body (translational mass m,
spin inertia I) moves in the global x-z plane; its spin axis is +y. Equations of motion (gravity g = 9.81):
    m ẍ = F_x,   m z̈ = F_z - m g - load,   I Ω̇ = T_drive + T_brake + [(P - c) × F]_y + My,   κ̇' = tire
with F, P, My from ``contact.tire_contact`` and the brake torque from ``brake.brake_torque`` (a LuGre-type
element that holds a wheel at standstill without creep). The rig is the single-wheel stepper
(``stepper.wheel_derivative`` with ``numerics.rk4``) run from static equilibrium with a recorder;
``prescribed_vx`` / ``prescribed_vz`` / ``prescribed_omega`` hold ẋ / ż / Ω constant (tire test trailer on
a drum or flat track). The road is any road of the road package (``road``), a plane of angle
``slope_rad`` (``SlopeRoad``), or a polyline through (road_x_m, road_h_m) (``ProfileRoad``: linear between
the points, end heights held level beyond them).

See docs/tire.md §12.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from ..numerics import rk4
from ..numerics.jit import njit
from ..numerics.rk4 import K1
from ..road import ProfileRoad, Road, SlopeRoad, road_eval
from .models import N_PARAMS, OUT_DEFLECTION, OUT_FX, OUT_FZ, OUT_KAPPA_SS, OUT_MY, OUT_VSX, OUT_VX
from .pacejka import effective_rolling_radius
from .stepper import (GRAVITY, N_STATES, S_KAPPA, S_OMEGA, S_VX, S_VZ, S_X, S_Z, WK_BRAKE, WK_DRIVE, wheel_arrays,
                      wheel_derivative)
from .tir import P_CZ, P_LCZ, P_R0

__all__ = ["GRAVITY", "WheelRun", "simulate_wheel", "rig_run", "PROFILE_DX_M"]

PROFILE_DX_M = 0.01
"""Largest grid spacing [m] of the table a (road_x_m, road_h_m) polyline is resampled onto."""

# columns of the recorded history
(REC_T, REC_X, REC_Z, REC_VX, REC_VZ, REC_SPEED, REC_OMEGA, REC_KAPPA, REC_KAPPA_SS, REC_FX, REC_FZ, REC_MY,
 REC_DEFLECTION, REC_BRAKE, REC_DRIVE, REC_VSX) = range(16)
N_REC = 16


@njit
def rig_run(y, h, n_steps, w, rec):
    """Integrate the wheel state y (stepper S_* layout, advanced in place) n_steps RK4 steps of h [s] with the
    stepper over the WheelArrays w; rec[k, REC_*] holds the history at t = k h."""
    for k in range(n_steps + 1):
        t = k * h
        wheel_derivative(t, y, w, w.stages[K1])
        cout = w.contact
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
        r[REC_BRAKE] = w.work[WK_BRAKE]
        r[REC_DRIVE] = w.work[WK_DRIVE]
        r[REC_VSX] = cout[OUT_VSX]
        if k == n_steps:
            break
        rk4.rk4_rest(wheel_derivative, t, h, y, w, w.stages)


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


def _rig_road(road, slope_rad, road_x_m, road_h_m, mu):
    """The rig's road: ``road`` (a Road), else the polyline (road_x_m, road_h_m), else the plane of slope_rad."""
    if road is not None:
        if road_x_m is not None or road_h_m is not None or slope_rad != 0.0:
            raise ModelError("simulate_wheel: give either road or road_x_m/road_h_m or slope_rad, not several")
        if not isinstance(road, Road):
            raise ModelError(f"simulate_wheel: road must be a Road of fmu_vehicle.road, got {type(road).__name__}")
        return road
    if road_x_m is None and road_h_m is None:
        return SlopeRoad(math.degrees(float(slope_rad)), mu=mu)
    if road_x_m is None or road_h_m is None:
        raise ModelError("simulate_wheel: road_x_m and road_h_m go together")
    road_x = np.asarray(road_x_m, dtype=np.float64)
    road_h = np.asarray(road_h_m, dtype=np.float64)
    if road_x.ndim != 1 or road_x.shape != road_h.shape or road_x.size < 2 or np.any(np.diff(road_x) <= 0):
        raise ModelError("simulate_wheel: road_x_m, road_h_m must be equal-length 1-D arrays (>= 2 points) "
                         "with increasing x")
    dx = min(PROFILE_DX_M, float(np.min(np.diff(road_x))))
    return ProfileRoad(road_x, road_h, mu=mu, dx_m=dx, label="simulate_wheel: road_x_m/road_h_m")


def simulate_wheel(params: np.ndarray, *, mass_kg: float, inertia_kg_m2: float, duration_s: float,
                   step_s: float = 1e-3, v0_m_per_s: float = 0.0, omega0_rad_per_s: float | None = None,
                   kappa0: float = 0.0, load_N: float = 0.0, slope_rad: float = 0.0, road_x_m=None,
                   road_h_m=None, road: Road | None = None, mu: float = 1.0, drive_torque_Nm=0.0,
                   brake_torque_Nm=0.0, prescribed_vx: bool = False, prescribed_vz: bool = False,
                   prescribed_omega: bool = False, tire_file=None) -> WheelRun:
    """Run the single-wheel rig from static equilibrium at x = 0 with fixed-step RK4.

    Parameters:
        params            tire parameter array (``models.params`` of an MF 5.2 tire; ModelError for another
                          model, naming ``tire_file``, the file it was read from, if given)
        mass_kg           translational mass m [kg] (wheel plus the mass it carries)
        inertia_kg_m2     spin inertia I [kg m^2] (also sets the brake's stuck stiffness)
        duration_s        simulated time [s]; step_s fixed RK4 step [s]
        v0_m_per_s        initial speed along the road [m/s]
        omega0_rad_per_s  initial spin [rad/s]; default free rolling v0 / Re
        kappa0            initial transient slip κ' [-]
        load_N            extra massless vertical load on the centre, along -z [N]
        slope_rad         plane road angle [rad], grade everywhere (used without road and road_x_m)
        road_x_m, road_h_m  polyline road profile (increasing x) [m], resampled at <= PROFILE_DX_M
        road              any road of the road package (a ``Road``; carries its own friction)
        mu                friction of the slope or polyline road [-]
        drive_torque_Nm, brake_torque_Nm   constant or (times [s], values [N m]); brake capacity >= 0
        prescribed_vx, prescribed_vz, prescribed_omega   hold the horizontal speed / the vertical speed /
                          the spin at their initial values

    The centre starts at the static deflection δ0 = (m g + load) cos θ / (CZ LCZ) above the road at x = 0.
    """
    p = np.ascontiguousarray(params, dtype=np.float64)
    if p.shape != (N_PARAMS,):
        raise ModelError(f"simulate_wheel: params must have shape ({N_PARAMS},), got {p.shape}")
    mass = _positive(mass_kg, "mass_kg")
    inertia = _positive(inertia_kg_m2, "inertia_kg_m2")
    duration = _positive(duration_s, "duration_s")
    step = _positive(step_s, "step_s")
    arrays = _rig_road(road, slope_rad, road_x_m, road_h_m, mu).to_arrays()
    drive = _table(drive_torque_Nm, "drive_torque_Nm")
    brake = _table(brake_torque_Nm, "brake_torque_Nm")
    if np.any(brake[1] < 0.0):
        raise ModelError("simulate_wheel: brake_torque_Nm must be >= 0 (a capacity; it always opposes spin)")
    w = wheel_arrays(p, arrays, mass_kg=mass, inertia_kg_m2=inertia, load_N=float(load_N), drive=drive,
                     brake=brake, hold_vx=bool(prescribed_vx), hold_vz=bool(prescribed_vz),
                     hold_omega=bool(prescribed_omega), tire_file=tire_file)

    at_start = np.zeros(3)
    road_eval(arrays, 0.0, at_start)
    h0, s0 = at_start[0], at_start[1]
    cos_t = 1.0 / math.sqrt(1.0 + s0 * s0)
    sin_t = s0 * cos_t
    delta0 = (mass * GRAVITY + float(load_N)) * cos_t / (p[P_CZ] * p[P_LCZ])
    y = np.zeros(N_STATES)
    y[S_Z] = h0 + (p[P_R0] - delta0) / cos_t
    y[S_VX] = v0_m_per_s * cos_t
    y[S_VZ] = v0_m_per_s * sin_t
    if omega0_rad_per_s is None:
        y[S_OMEGA] = v0_m_per_s / effective_rolling_radius(p, delta0)
    else:
        y[S_OMEGA] = float(omega0_rad_per_s)
    y[S_KAPPA] = kappa0

    n_steps = int(round(duration / step))
    rec = np.zeros((n_steps + 1, N_REC))
    rig_run(y, step, n_steps, w, rec)
    return WheelRun(t=rec[:, REC_T].copy(), x=rec[:, REC_X].copy(), z=rec[:, REC_Z].copy(),
                    vx=rec[:, REC_VX].copy(), vz=rec[:, REC_VZ].copy(), speed=rec[:, REC_SPEED].copy(),
                    omega=rec[:, REC_OMEGA].copy(), kappa=rec[:, REC_KAPPA].copy(),
                    kappa_ss=rec[:, REC_KAPPA_SS].copy(), fx=rec[:, REC_FX].copy(), fz=rec[:, REC_FZ].copy(),
                    my=rec[:, REC_MY].copy(), deflection=rec[:, REC_DEFLECTION].copy(),
                    brake_torque=rec[:, REC_BRAKE].copy(), drive_torque=rec[:, REC_DRIVE].copy(),
                    slip_velocity=rec[:, REC_VSX].copy())
