"""njit stepper of one spatial wheel's tire slip states over a communication step: the tire model's
contact ``models.contact`` (mf52: the combined-slip ``contact.tire_contact_3d``) on a wheel whose motion is
prescribed, classic RK4.

What the Tire FMU runs with ``wheel_interface = chrono`` (``tire.tire3d.TireModel3d`` is the Python class
over it). Global frame ISO 8855 (x forward, y left, z up). The wheel's motion over the step [t, t + h] is
given at its start and extrapolated with constant rates, τ = time since the step start in [0, h]:

    c(τ) = c + v τ + a τ²/2,   ċ(τ) = v + a τ,   ω(τ) = ω + α τ,   spin axis a_s held

(c wheel centre [m], v its velocity [m/s], a its acceleration [m/s²], ω the wheel's angular velocity [rad/s],
α its angular acceleration [rad/s²]; all global). The spin axis a_s is the wheel frame's y axis, pointing to
the vehicle's left on both sides of the car; rolling forward spins positively about it.

State y (float64[N_STATES]):
    S_KAPPA    transient longitudinal slip κ' [-]
    S_Q        lateral transient slip q = tan α' [-]

Derivative: (dκ'/dt, dq/dt) of ``models.contact`` at (c(τ), ċ(τ), ω(τ), a_s) on the road under c(τ):
either the internal road (``road.kernel.road_eval_xy`` at (c_x, c_y)) or the plane through
(x0, y0, h0) with slopes (sx, sy) = (dh/dx, dh/dy) and friction mu:

    h(x, y) = h0 + sx (x - x0) + sy (y - y0)

Each evaluation also leaves in ``work`` the centre, velocity, angular velocity and road it used, and the
tire's moment about the centre c(τ):

    M_c = My a_s + Mz n⊥ + (P - c(τ)) × F         (the contact's OUT_MOMENT plus the lever arm)

RK4 over n equal sub-steps s = h/n (rows K1..K4 of ``stages``; ``numerics.rk4`` with f = derivative3d):
    k1 = f(τ, y), k2 = f(τ + s/2, y + s/2 k1), k3 = f(τ + s/2, y + s/2 k2), k4 = f(τ + s, y + s k3)
    y(τ + s) = y + s/6 (k1 + 2 k2 + 2 k3 + k4)
and the continuous extension (Hermite, third order) y(τ + θ s) = y + s (b1 k1 + b23 (k2 + k3) + b4 k4),
    b1 = θ - 3θ²/2 + 2θ³/3,  b23 = θ² - 2θ³/3,  b4 = -θ²/2 + 2θ³/3,   θ in [0, 1],
the same kernels as the planar single-wheel stepper (``tire.stepper``) runs with its own derivative.

See docs/tire.md §13.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..numerics.jit import njit
from ..numerics.rk4 import N_STAGES, TMP, rk4_advance_sampled
from ..road.arrays import RoadArrays, plane_arrays
from ..road.kernel import road_eval_xy
from .models import CONTACT_OUT_N, OUT_DALPHA, OUT_DKAPPA, OUT_FORCE, OUT_MOMENT, OUT_POINT, contact, model_id

# state vector
S_KAPPA, S_Q = range(2)
N_STATES = 2

# prescribed motion and road, Wheel3dArrays.motion
M_POS = 0           # [0:3] wheel centre c at the step start [m]
M_VEL = 3           # [3:6] centre velocity v at the step start [m/s]
M_ACC = 6           # [6:9] centre acceleration a over the step [m/s^2]
M_OMEGA = 9         # [9:12] wheel angular velocity ω at the step start [rad/s]
M_ALPHA = 12        # [12:15] angular acceleration α over the step [rad/s^2]
M_AXIS = 15         # [15:18] unit spin axis a_s (wheel frame y axis, to the vehicle's left) [-]
M_MIRROR = 18       # +1 left-hand tire, -1 right-hand tire (tire_contact_3d's mirror)
M_PLANE_ROAD = 19   # 1.0: the plane road below; 0.0: the internal road (Wheel3dArrays.road)
M_PLANE = 20        # [20:26] plane road: x0 [m], y0 [m], h0 [m], dh/dx [-], dh/dy [-], mu [-]
N_MOTION = 26

# Wheel3dArrays.work after a derivative evaluation
WK_CENTER = 0       # [0:3] centre c(τ) [m]
WK_VEL = 3          # [3:6] centre velocity ċ(τ) [m/s]
WK_OMEGA = 6        # [6:9] wheel angular velocity ω(τ) [rad/s]
WK_ROAD = 9         # [9:13] road under c(τ): h [m], dh/dx [-], mu [-], dh/dy [-] (road_eval_xy layout)
WK_MOMENT = 13      # [13:16] tire moment about c(τ): My a_s + Mz n⊥ + (P - c(τ)) × F [N m]
N_WORK = 16

# rows of Wheel3dArrays.stages: numerics.rk4's K1..K4, TMP (N_STAGES rows)


class Wheel3dArrays(NamedTuple):
    """One spatial wheel's tire as a record of preallocated arrays (build it with ``wheel3d_arrays``).

    Fields:
        p         tire parameter array (``models.params``: the model's layout, its id in P_MODEL)
        road      the internal road (RoadArrays for ``road_eval_xy``; a placeholder plane when unused)
        motion    float64[N_MOTION], M_* layout: the prescribed motion of the step and the plane road
        stages    float64[N_STAGES, N_STATES]: RK4 stages K1..K4 and the TMP stage state
        work      float64[N_WORK], WK_* layout: the last derivative evaluation's wheel quantities
        contact   float64[CONTACT_OUT_N]: the last evaluation's ``models.contact`` outputs (OUT_*)
    """

    p: np.ndarray
    road: RoadArrays
    motion: np.ndarray
    stages: np.ndarray
    work: np.ndarray
    contact: np.ndarray


def wheel3d_arrays(p, road: RoadArrays | None = None, mirror: float = 1.0) -> Wheel3dArrays:
    """A ``Wheel3dArrays`` with zero motion and fresh work arrays.

    p        tire parameter array (``models.params``: the model's layout, its id in P_MODEL)
    road     RoadArrays of the internal road, or None for the plane road of motion[M_PLANE:] (set it with
             ``set_plane_road``; until then the level plane h = 0 with mu = 1)
    mirror   +1.0 left-hand tire, -1.0 right-hand tire
    """
    motion = np.zeros(N_MOTION)
    motion[M_AXIS + 1] = 1.0
    motion[M_MIRROR] = mirror
    motion[M_PLANE_ROAD] = 1.0 if road is None else 0.0
    motion[M_PLANE + 5] = 1.0
    return Wheel3dArrays(np.ascontiguousarray(p, dtype=np.float64), plane_arrays() if road is None else road,
                         motion, np.zeros((N_STAGES, N_STATES)), np.zeros(N_WORK), np.zeros(CONTACT_OUT_N))


@njit
def derivative3d(tau, y, w, dy):
    """dy = d(κ', q)/dt at τ [s] into the step (module docstring); fills w.work and w.contact. Returns 0 (the
    status of a ``numerics.rk4`` derivative: it never fails)."""
    m = w.motion
    work = w.work
    center = work[WK_CENTER:WK_CENTER + 3]
    vel = work[WK_VEL:WK_VEL + 3]
    omega = work[WK_OMEGA:WK_OMEGA + 3]
    road = work[WK_ROAD:WK_ROAD + 4]
    half_tau2 = 0.5 * tau * tau
    for k in range(3):
        center[k] = m[M_POS + k] + m[M_VEL + k] * tau + m[M_ACC + k] * half_tau2
        vel[k] = m[M_VEL + k] + m[M_ACC + k] * tau
        omega[k] = m[M_OMEGA + k] + m[M_ALPHA + k] * tau
    if m[M_PLANE_ROAD] != 0.0:
        road[0] = m[M_PLANE + 2] + m[M_PLANE + 3] * (center[0] - m[M_PLANE]) \
            + m[M_PLANE + 4] * (center[1] - m[M_PLANE + 1])
        road[1] = m[M_PLANE + 3]
        road[2] = m[M_PLANE + 5]
        road[3] = m[M_PLANE + 4]
    else:
        road_eval_xy(w.road, center[0], center[1], road)
    out = w.contact
    contact(model_id(w.p), w.p, m[M_MIRROR], center, vel, omega, m[M_AXIS:M_AXIS + 3], road[0], road[1], road[3],
            road[2], y[S_KAPPA], y[S_Q], out)
    rx = out[OUT_POINT] - center[0]
    ry = out[OUT_POINT + 1] - center[1]
    rz = out[OUT_POINT + 2] - center[2]
    fx = out[OUT_FORCE]
    fy = out[OUT_FORCE + 1]
    fz = out[OUT_FORCE + 2]
    work[WK_MOMENT] = out[OUT_MOMENT] + ry * fz - rz * fy
    work[WK_MOMENT + 1] = out[OUT_MOMENT + 1] + rz * fx - rx * fz
    work[WK_MOMENT + 2] = out[OUT_MOMENT + 2] + rx * fy - ry * fx
    dy[S_KAPPA] = out[OUT_DKAPPA]
    dy[S_Q] = out[OUT_DALPHA]
    return 0


@njit
def advance3d(h, n, tau_out, y, w, y_out):
    """Advance y over the step [0, h] (τ) with n >= 1 equal RK4 sub-steps and sample it at τ = tau_out
    (``numerics.rk4.rk4_advance_sampled`` from τ = 0).

    tau_out [s] in (0, h]: y_out is the continuous extension inside the sub-step that contains it, or that
    sub-step's result when tau_out falls on its end (to round-off). On return w.work and w.contact hold the
    evaluation at (tau_out, y_out), the quantities an output at that time reports.
    """
    rk4_advance_sampled(derivative3d, 0.0, h, n, tau_out, y, w, w.stages, y_out)


def quaternion_spin_axis(e0: float, e1: float, e2: float, e3: float) -> tuple[float, float, float]:
    """The wheel frame's y axis R·(0, 1, 0) for the rotation quaternion (e0, e1, e2, e3) (scalar first),
    normalized first; for a unit quaternion

        R·(0, 1, 0) = (2 (e1 e2 - e0 e3),  e0² - e1² + e2² - e3²,  2 (e2 e3 + e0 e1)).

    Raises ValueError if the quaternion's norm is below 1e-6 or not finite (no rotation)."""
    norm = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3)
    if not (norm >= 1e-6 and math.isfinite(norm)):
        raise ValueError(f"quaternion ({e0!r}, {e1!r}, {e2!r}, {e3!r}) has norm {norm!r}: not a rotation")
    if norm != 1.0:
        e0, e1, e2, e3 = e0 / norm, e1 / norm, e2 / norm, e3 / norm
    return (2.0 * (e1 * e2 - e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2.0 * (e2 * e3 + e0 * e1))
