"""njit single-wheel stepper: one wheel on a road with its transient slip and brake, classic RK4.

The one integrator of a lone wheel: the rig (``wheel.simulate_wheel``) and the Tire FMU's planar interface
(``tire.tire_planar.TireModel``) both step through ``wheel_derivative`` with the RK4 kernels of
``numerics.rk4``, over the preallocated arrays of a ``WheelArrays`` record. Planar wheel in the global x-z
plane (ISO 8855: x forward, z up), spin axis a = +y.

State y (float64[N_STATES]):
    S_X, S_Z      wheel centre position, global x, z [m]
    S_VX, S_VZ    wheel centre velocity, global x, z [m/s]
    S_OMEGA       wheel spin Ω about +y [rad/s] (rolling forward = positive)
    S_KAPPA       transient longitudinal slip κ' [-]
    S_PHI         brake bristle angle φ [rad] (``brake.brake_torque``)

Derivative (gravity g along -z; wheel mass m, spin inertia I, extra massless load L along -z):
    ẋ = vx,  ż = vz
    v̇x = Fx / m                                       or ax when vx is held
    v̇z = (Fz - m g - L) / m                           or az when vz is held
    Ω̇  = (T_drive(t) + T_brake + M_y) / I             or α  when Ω is held
    κ̇' = dκ'/dt of ``contact.tire_contact``,  φ̇ = φ̇ of ``brake.brake_torque(T_b(t), φ, Ω, I)``
where F = (Fx, Fz) is the tire force on the wheel (global x, z), M_y = [(P - c) × F]_y + My its moment
about the wheel centre c, both from ``tire_contact`` on the road ``road_eval(road, x)`` under the centre,
and T_drive(t), T_b(t) are piecewise-linear time tables with their end values held
(``numerics.interp.interp_held``). A held velocity changes at the
constant rate given with it (zero on a rig that holds its speed), so the centre follows
c + v τ + a τ²/2 and the spin Ω + α τ exactly (RK4 integrates these polynomials without truncation error).

RK4 step of size h (classic, four stages; rows K1..K4 of ``stages``; ``numerics.rk4`` with f = wheel_derivative):
    k1 = f(t, y), k2 = f(t + h/2, y + h/2 k1), k3 = f(t + h/2, y + h/2 k2), k4 = f(t + h, y + h k3)
    y(t + h) = y + h/6 (k1 + 2 k2 + 2 k3 + k4)
with the continuous extension (Hermite, third order) y(t + θ h) = y + h (b1 k1 + b23 (k2 + k3) + b4 k4),
    b1 = θ - 3θ²/2 + 2θ³/3,  b23 = θ² - 2θ³/3,  b4 = -θ²/2 + 2θ³/3,   θ in [0, 1].

See docs/tire.md §12.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import ModelError
from ..numerics import rk4
from ..numerics.interp import interp_held
from ..numerics.jit import njit
from ..numerics.rk4 import N_STAGES
from ..road.arrays import RoadArrays
from ..road.kernel import road_eval
from .brake import brake_torque
from .contact import tire_contact
from .models import (CONTACT_OUT_N, MF52, N_PARAMS, OUT_DKAPPA, OUT_FORCE, OUT_MY, OUT_POINT, host, model_id,
                     model_name)

GRAVITY = 9.81
"""Gravitational acceleration [m/s^2], acting along -z."""

# state vector
S_X, S_Z, S_VX, S_VZ, S_OMEGA, S_KAPPA, S_PHI = range(7)
N_STATES = 7

# wheel constants and held motion, WheelArrays.wheel
W_MASS = 0          # translational mass m [kg] (unused when vx and vz are held)
W_INERTIA = 1       # spin inertia I [kg m^2] (also sets the brake's stiffness)
W_LOAD = 2          # extra massless vertical load on the centre, along -z [N]
W_HOLD_VX = 3       # 1.0: vx changes at the rate W_AX instead of by the tire force; 0.0: free
W_HOLD_VZ = 4       # 1.0: vz changes at the rate W_AZ; 0.0: free
W_HOLD_OMEGA = 5    # 1.0: Ω changes at the rate W_ALPHA; 0.0: free
W_AX = 6            # rate of a held vx [m/s^2]
W_AZ = 7            # rate of a held vz [m/s^2]
W_ALPHA = 8         # rate of a held Ω [rad/s^2]
N_WHEEL = 9

# WheelArrays.work after a derivative evaluation (also its scratch)
WK_CENTER = 0       # [0:3] wheel centre c [m]
WK_VEL = 3          # [3:6] centre velocity [m/s]
WK_SPIN = 6         # [6:9] wheel angular velocity (0, Ω, 0) [rad/s]
WK_AXIS = 9         # [9:12] spin axis (0, 1, 0) [-]
WK_DRIVE = 12       # drive torque T_drive [N m]
WK_BRAKE = 13       # brake torque on the wheel T_brake [N m]
WK_ROAD = 14        # [14:17] road height h [m], slope dh/dx [-], friction mu [-] under the centre
WK_MOMENT = 17      # tire moment about the centre M_y = [(P - c) x F]_y + My [N m]
N_WORK = 18

# rows of WheelArrays.stages: numerics.rk4's K1..K4, TMP (N_STAGES rows)


class WheelArrays(NamedTuple):
    """One wheel as a record of preallocated arrays for the stepper (build it with ``wheel_arrays``).

    Fields:
        p                  tire parameter array (tir.P_* layout)
        road               the road (RoadArrays for ``road_eval``)
        wheel              float64[N_WHEEL], W_* layout
        drive_t, drive_v   drive torque table: times [s] (non-decreasing), values [N m]
        brake_t, brake_v   brake capacity table: times [s], values [N m] (>= 0)
        stages             float64[N_STAGES, N_STATES]: RK4 stages K1..K4 and the TMP stage state
        work               float64[N_WORK], WK_* layout: the last derivative evaluation's wheel quantities
        contact            float64[CONTACT_OUT_N]: the last evaluation's ``tire_contact`` outputs (OUT_*)
    """

    p: np.ndarray
    road: RoadArrays
    wheel: np.ndarray
    drive_t: np.ndarray
    drive_v: np.ndarray
    brake_t: np.ndarray
    brake_v: np.ndarray
    stages: np.ndarray
    work: np.ndarray
    contact: np.ndarray


def _torque_table(table, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(times, values) float64 arrays of a torque table; None gives a zero torque."""
    if table is None:
        return np.zeros(1), np.zeros(1)
    times, values = (np.ascontiguousarray(v, dtype=np.float64) for v in table)
    if times.ndim != 1 or times.shape != values.shape or times.size == 0:
        raise ModelError(f"wheel_arrays: {name} must be (times [s], values [N m]) of equal length >= 1")
    return times, values


def require_mf52(p, tire_file=None) -> None:
    """Refuse parameters ``p`` whose tire model (``models.model_id``, slot P_MODEL) is not mf52 (MF 5.2): the
    stepper runs the MF 5.2 longitudinal contact ``contact.tire_contact`` on whatever array it gets. ModelError
    naming ``tire_file`` (where the parameters came from; None: not known) and the model."""
    if p.shape != (N_PARAMS,):
        raise ModelError(f"tire parameters have shape {p.shape}, need ({N_PARAMS},)")
    mid = int(host(model_id)(p))
    if mid != MF52:
        where = f"tire file '{tire_file}'" if tire_file is not None else "tire parameters (no file named)"
        raise ModelError(f"{where}: tire model {model_name(mid)}; the planar single-wheel stepper (the wheel rig "
                         f"and the Tire FMU's planar interface) runs MF 5.2 tires only (tire model mf52, a .tir file)")


def wheel_arrays(p, road: RoadArrays, *, mass_kg: float = 1.0, inertia_kg_m2: float = 1.0, load_N: float = 0.0,
                 drive=None, brake=None, hold_vx: bool = False, hold_vz: bool = False,
                 hold_omega: bool = False, tire_file=None) -> WheelArrays:
    """A ``WheelArrays`` with fresh work arrays; the held rates start at zero (set wheel[W_AX..W_ALPHA]).
    ModelError (``require_mf52``) unless ``p`` is an MF 5.2 tire's.

    Parameters:
        p                 tire parameter array (``models.params``: tir.P_* layout, model id mf52 in P_MODEL)
        road              RoadArrays (``Road.to_arrays()``, ``road.plane_arrays``)
        mass_kg, inertia_kg_m2, load_N   m [kg], I [kg m^2], extra vertical load L [N]
        drive, brake      (times [s], values [N m]) tables, np.interp semantics; None = zero
        hold_vx, hold_vz, hold_omega     hold that velocity (it changes at its W_AX/W_AZ/W_ALPHA rate)
        tire_file         the file ``p`` was read from (named by the ModelError of another tire model)
    """
    p = np.ascontiguousarray(p, dtype=np.float64)
    require_mf52(p, tire_file)
    wheel = np.zeros(N_WHEEL)
    wheel[W_MASS] = mass_kg
    wheel[W_INERTIA] = inertia_kg_m2
    wheel[W_LOAD] = load_N
    wheel[W_HOLD_VX] = 1.0 if hold_vx else 0.0
    wheel[W_HOLD_VZ] = 1.0 if hold_vz else 0.0
    wheel[W_HOLD_OMEGA] = 1.0 if hold_omega else 0.0
    drive_t, drive_v = _torque_table(drive, "drive")
    brake_t, brake_v = _torque_table(brake, "brake")
    return WheelArrays(p, road, wheel, drive_t, drive_v, brake_t, brake_v,
                       np.zeros((N_STAGES, N_STATES)), np.zeros(N_WORK), np.zeros(CONTACT_OUT_N))


@njit
def wheel_derivative(t, y, w, dy):
    """dy = dy/dt of the wheel state y (S_* layout) at time t [s] (module docstring); fills w.work and
    w.contact with this evaluation's wheel quantities and tire outputs. Returns 0 (the status of a
    ``numerics.rk4`` derivative: it never fails)."""
    work = w.work
    wheel = w.wheel
    center = work[WK_CENTER:WK_CENTER + 3]
    vel = work[WK_VEL:WK_VEL + 3]
    spin = work[WK_SPIN:WK_SPIN + 3]
    axis = work[WK_AXIS:WK_AXIS + 3]
    road = work[WK_ROAD:WK_ROAD + 3]
    road_eval(w.road, y[S_X], road)
    center[0] = y[S_X]
    center[1] = 0.0
    center[2] = y[S_Z]
    vel[0] = y[S_VX]
    vel[1] = 0.0
    vel[2] = y[S_VZ]
    spin[0] = 0.0
    spin[1] = y[S_OMEGA]
    spin[2] = 0.0
    axis[0] = 0.0
    axis[1] = 1.0
    axis[2] = 0.0
    out = w.contact
    tire_contact(w.p, center, vel, spin, axis, road[0], road[1], road[2], y[S_KAPPA], out)

    fx_w = out[OUT_FORCE]
    fz_w = out[OUT_FORCE + 2]
    rx = out[OUT_POINT] - center[0]
    rz = out[OUT_POINT + 2] - center[2]
    moment = rz * fx_w - rx * fz_w + out[OUT_MY]
    inertia = wheel[W_INERTIA]
    drive = interp_held(w.drive_t, w.drive_v, t)
    brake, dphi = brake_torque(interp_held(w.brake_t, w.brake_v, t), y[S_PHI], y[S_OMEGA], inertia)
    work[WK_DRIVE] = drive
    work[WK_BRAKE] = brake
    work[WK_MOMENT] = moment

    mass = wheel[W_MASS]
    dy[S_X] = y[S_VX]
    dy[S_Z] = y[S_VZ]
    dy[S_VX] = wheel[W_AX] if wheel[W_HOLD_VX] != 0.0 else fx_w / mass
    dy[S_VZ] = wheel[W_AZ] if wheel[W_HOLD_VZ] != 0.0 else (fz_w - mass * GRAVITY - wheel[W_LOAD]) / mass
    dy[S_OMEGA] = wheel[W_ALPHA] if wheel[W_HOLD_OMEGA] != 0.0 else (drive + brake + moment) / inertia
    dy[S_KAPPA] = out[OUT_DKAPPA]
    dy[S_PHI] = dphi
    return 0


@njit
def rk4_step(t, h, y, w):
    """One classic RK4 step: y(t) -> y(t + h) in place (h [s])."""
    rk4.rk4_step(wheel_derivative, t, h, y, w, w.stages)


@njit
def wheel_advance(t, h, n, tau_out, y, w, y_out):
    """Advance y over [t, t + h] with n >= 1 equal RK4 steps and sample it at t + tau_out into y_out
    (``numerics.rk4.rk4_advance_sampled``).

    tau_out [s] in (0, h]: y_out is the continuous extension inside the step that contains it, or that step's
    result when tau_out falls on its end (to round-off). On return w.work and w.contact hold the evaluation
    at (t + tau_out, y_out), the quantities an output at that time reports.
    """
    rk4.rk4_advance_sampled(wheel_derivative, t, h, n, tau_out, y, w, w.stages, y_out)
