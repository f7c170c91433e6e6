"""``TireModel3d``: one combined-slip tire driven by a spatial wheel's state, stepped per communication step.

The Python side of ``tire.stepper3d`` (what Tire.fmu runs with ``wheel_interface = chrono``; a script can
use it without FMI). The wheel state is that of Project Chrono's force-element tire interface: wheel centre
position, rotation quaternion (scalar first) of the wheel frame, centre velocity and angular velocity, all
in the global frame (ISO 8855, z up); the wheel frame's y axis is the spin axis and points to the vehicle's
left on both sides. The terrain is given as Chrono gives it: the height under the query point (the wheel
centre), the unit normal there, and the friction coefficient.

Per step [t, t + h] (``TireModel3d.step``):

    rates     a = (v - v_prev)/(t - t_prev), α = (ω - ω_prev)/(t - t_prev) from the previous step's inputs
              (zero on the first step or with ``extrapolate = False``); the spin axis is held
    road      the plane through (c_x, c_y, terrain height) with normal n: dh/dx = -n_x/n_z, dh/dy = -n_y/n_z
              (``road_arrays`` None), or the internal road ``road_eval_xy`` under the moving centre
    slip      κ' and q = tan α' integrated with n = max(1, round(h/dt)) RK4 sub-steps (``advance3d``)
    outputs   at τ = h/2 (``output_time = "midpoint"``) or τ = h (``"end"``), ``signals.OUTPUTS_3D``:
              the load at the wheel centre given at the step start (point = c), force F, and the moment
              about the centre at the output time, My a + Mz n⊥ + (P - c(τ)) × F

See docs/tire.md §13.
"""
from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

from ..errors import ModelError
from ..numerics.jit import entry_point
from .models import (OUT_DEFLECTION, OUT_FORCE, OUT_FX, OUT_FY, OUT_FZ, OUT_GAMMA, OUT_KAPPA_SS, OUT_MY,
                     OUT_MZ, OUT_NORMAL, OUT_POINT, OUT_RE, OUT_SIGMA, OUT_SIGMA_Y, OUT_TAN_ALPHA,
                     OUT_TAN_ALPHA_SS, OUT_VSX)
from .stepper3d import (M_ACC, M_ALPHA, M_AXIS, M_MIRROR, M_OMEGA, M_PLANE, M_POS, M_VEL, N_STATES, S_KAPPA,
                        S_Q, TMP, WK_CENTER, WK_MOMENT, WK_ROAD, WK_VEL, advance3d, derivative3d,
                        quaternion_spin_axis, wheel3d_arrays)

SIDES = {"left": 1.0, "right": -1.0}
"""Tire side -> ``models.contact``'s mirror (a right-hand tire is the mirror image of the file's tire)."""


class WheelState(NamedTuple):
    """A wheel's state, global frame (ISO 8855, z up), Project Chrono's ``WheelState``.

    pos      (x, y, z) wheel centre [m]
    rot      (e0, e1, e2, e3) rotation quaternion of the wheel frame, scalar first [-] (normalized on use)
    lin_vel  (x, y, z) centre velocity [m/s]
    ang_vel  (x, y, z) wheel angular velocity, spin included [rad/s]
    """

    pos: Sequence[float]
    rot: Sequence[float]
    lin_vel: Sequence[float]
    ang_vel: Sequence[float]


class Terrain(NamedTuple):
    """The terrain under the query point: height [m], unit normal (x, y, z) [-] (n_z > 0), friction mu [-]
    (the road friction coefficient of ``models.contact``: it scales the friction coefficients of the
    property file, LMUX* = LMUX mu/mu_nom and LMUY* = LMUY mu/mu_nom with mu_nom = 1)."""

    height: float
    normal: Sequence[float] = (0.0, 0.0, 1.0)
    mu: float = 1.0


def terrain_slopes(normal: Sequence[float]) -> tuple[float, float]:
    """(dh/dx, dh/dy) = (-n_x/n_z, -n_y/n_z) of a terrain normal; raises ValueError unless it points up."""
    nx, ny, nz = (float(v) for v in normal)
    size = math.sqrt(nx * nx + ny * ny + nz * nz)
    if not (math.isfinite(size) and nz > 1e-6 * size):
        raise ValueError(f"terrain normal ({nx!r}, {ny!r}, {nz!r}) does not point up (n_z > 0 needed)")
    return -nx / nz, -ny / nz


class TireModel3d:
    """One tire on a spatial wheel: parameters ``p`` (``models.params``), side ("left" | "right"), optional
    internal road (RoadArrays; None: the terrain inputs' plane), slip states κ' (``kappa``) and q = tan α'
    (``q``). Module docstring for the step; ``outputs`` gives the outputs at any τ without stepping."""

    def __init__(self, p: np.ndarray, side: str = "left", road_arrays=None, kappa: float = 0.0, q: float = 0.0):
        if side not in SIDES:
            raise ModelError(f"TireModel3d: side must be one of {tuple(SIDES)}, got {side!r}")
        self.p = p
        self.side = side
        self.mirror = SIDES[side]
        self.internal_road = road_arrays is not None
        self.wheel = wheel3d_arrays(p, road_arrays, self.mirror)
        self.kappa = float(kappa)
        self.q = float(q)
        self.last_input: tuple | None = None      # (t, vx, vy, vz, wx, wy, wz) of the previous step
        self._y = np.zeros(N_STATES)
        self._y_out = np.zeros(N_STATES)
        self._advance = None                      # advance3d's compiled entry point (first step)

    def input_rates(self, t: float, state: WheelState, extrapolate: bool) -> tuple[tuple, tuple]:
        """((a [m/s^2] x3, α [rad/s^2] x3) from the previous step's inputs, these inputs to remember)."""
        v, w = state.lin_vel, state.ang_vel
        now = (t, float(v[0]), float(v[1]), float(v[2]), float(w[0]), float(w[1]), float(w[2]))
        rates = (0.0,) * 6
        last = self.last_input
        if extrapolate and last is not None and t > last[0]:
            dt = t - last[0]
            rates = tuple((now[k] - last[k]) / dt for k in range(1, 7))
        return rates, now

    def _load(self, state: WheelState, rates, terrain: Terrain) -> None:
        """The step's prescribed motion (state at its start, held rates, spin axis) and plane road into the record."""
        m = self.wheel.motion
        try:
            axis = quaternion_spin_axis(*(float(e) for e in state.rot))
        except ValueError as exc:
            raise ModelError(f"wheel_state.rot: {exc}") from None
        m[M_POS:M_POS + 3] = state.pos
        m[M_VEL:M_VEL + 3] = state.lin_vel
        m[M_OMEGA:M_OMEGA + 3] = state.ang_vel
        m[M_ACC:M_ACC + 3] = rates[:3]
        m[M_ALPHA:M_ALPHA + 3] = rates[3:]
        m[M_AXIS:M_AXIS + 3] = axis
        m[M_MIRROR] = self.mirror
        if not self.internal_road:
            try:
                sx, sy = terrain_slopes(terrain.normal)
            except ValueError as exc:
                raise ModelError(f"terrain_normal: {exc}") from None
            m[M_PLANE:M_PLANE + 6] = (state.pos[0], state.pos[1], terrain.height, sx, sy, terrain.mu)

    def _outputs(self, state: WheelState, y: np.ndarray) -> dict:
        """The outputs of the stepper's last evaluation, made with the slip states y (units as in the Tire FMU)."""
        # as Python floats (the same doubles: one conversion each instead of a NumPy scalar per element)
        out, work, m, y = (self.wheel.contact.tolist(), self.wheel.work.tolist(), self.wheel.motion.tolist(),
                           y.tolist())
        c, v = work[WK_CENTER:WK_CENTER + 3], work[WK_VEL:WK_VEL + 3]
        n = out[OUT_NORMAL:OUT_NORMAL + 3]
        p = out[OUT_POINT:OUT_POINT + 3]
        r = (p[0] - c[0], p[1] - c[1], p[2] - c[2])
        force, moment = out[OUT_FORCE:OUT_FORCE + 3], work[WK_MOMENT:WK_MOMENT + 3]
        pos = [float(e) for e in state.pos]
        values = {
            "fx": out[OUT_FX], "fy": out[OUT_FY], "fz": out[OUT_FZ], "my": out[OUT_MY], "mz": out[OUT_MZ],
            "wheel_load.point.x": pos[0], "wheel_load.point.y": pos[1], "wheel_load.point.z": pos[2],
            "wheel_load.force.x": force[0], "wheel_load.force.y": force[1], "wheel_load.force.z": force[2],
            "wheel_load.moment.x": moment[0], "wheel_load.moment.y": moment[1], "wheel_load.moment.z": moment[2],
            "query_point.x": pos[0], "query_point.y": pos[1], "query_point.z": pos[2],
            "wheel_load.force_x": force[0], "wheel_load.force_z": force[2], "wheel_load.moment_y": moment[1],
            "slip": y[S_KAPPA], "slip_kinematic": out[OUT_KAPPA_SS], "slip_velocity": out[OUT_VSX],
            "slip_angle": math.atan(out[OUT_TAN_ALPHA]),
            "slip_angle_kinematic": math.atan(out[OUT_TAN_ALPHA_SS]), "lateral_slip": y[S_Q],
            "inclination": out[OUT_GAMMA], "camber": -m[M_MIRROR] * out[OUT_GAMMA],
            "deflection": out[OUT_DEFLECTION], "deflection_rate": -(n[0] * v[0] + n[1] * v[1] + n[2] * v[2]),
            "loaded_radius": math.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), "rolling_radius": out[OUT_RE],
            "relaxation_length": out[OUT_SIGMA], "relaxation_length_lateral": out[OUT_SIGMA_Y],
            "contact.x": out[OUT_POINT], "contact.y": out[OUT_POINT + 1], "contact.z": out[OUT_POINT + 2],
            "road.height_used": work[WK_ROAD], "road.slope_used": work[WK_ROAD + 1],
            "road.slope_y_used": work[WK_ROAD + 3], "road.mu_used": work[WK_ROAD + 2],
        }
        return values

    def outputs(self, state: WheelState, rates, terrain: Terrain, tau: float, kappa: float, q: float) -> dict:
        """The outputs tau [s] into a step from ``state`` (extrapolated with ``rates``, six numbers: a, α) with
        the slip states (kappa, q); the model's states are not changed."""
        self._load(state, rates, terrain)
        y = self._y_out
        y[S_KAPPA], y[S_Q] = kappa, q
        derivative3d(tau, y, self.wheel, self.wheel.stages[TMP])
        return self._outputs(state, y)

    def step(self, t: float, h: float, dt: float, state: WheelState, terrain: Terrain, *,
             output_time: str = "midpoint", extrapolate: bool = True) -> dict:
        """Advance (κ', q) over [t, t+h] (n = max(1, round(h/dt)) RK4 sub-steps) from the wheel ``state`` and
        ``terrain`` at t, and return the outputs at t + h/2 (``"midpoint"``) or t + h (``"end"``)."""
        rates, now = self.input_rates(t, state, extrapolate)
        self._load(state, rates, terrain)               # raises (model untouched) on a zero quaternion or bad normal
        self.last_input = now
        n = max(1, int(round(h / dt)))
        tau_out = 0.5 * h if output_time == "midpoint" else h
        y = self._y
        y[S_KAPPA], y[S_Q] = self.kappa, self.q
        if self._advance is None:       # resolved once: later calls skip numba's typing of the arguments
            self._advance = entry_point(advance3d, float(h), n, float(tau_out), y, self.wheel, self._y_out)
        self._advance(float(h), n, float(tau_out), y, self.wheel, self._y_out)
        k, q = float(y[S_KAPPA]), float(y[S_Q])
        if not all(math.isfinite(v) for v in (k, q, self._y_out[S_KAPPA], self._y_out[S_Q])):
            raise ModelError(f"slip states became (kappa' {k!r}, q {q!r}) (wheel state {tuple(map(tuple, state))}, "
                             f"terrain {tuple(terrain)})")
        self.kappa, self.q = k, q
        return self._outputs(state, self._y_out)

    def get_state(self):
        return self.kappa, self.q, self.last_input

    def set_state(self, state) -> None:
        kappa, q, last = state
        self.kappa, self.q = float(kappa), float(q)
        self.last_input = None if last is None else tuple(float(v) for v in last)
