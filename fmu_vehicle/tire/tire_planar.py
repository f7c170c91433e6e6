"""``TireModel``: one MF 5.2 tire on a planar wheel driven by the wheel's state, stepped per communication step.

The Python side of the single-wheel stepper ``tire.stepper`` for a wheel whose motion is given (what Tire.fmu
runs with ``wheel_interface = planar``; a script can use it without FMI), beside ``tire3d.TireModel3d`` (the
spatial wheel of the chrono interface). Planar wheel in the global x-z plane (ISO 8855: x forward, z up), spin
axis +y (rolling forward spins positively); the longitudinal contact ``contact.tire_contact``.

Per step [t, t + h] (``TireModel.step``), τ in [0, h]:

    rates     a = (v - v_prev)/(t - t_prev), α = (Ω - Ω_prev)/(t - t_prev) from the previous step's inputs
              (zero on the first step or with ``extrapolate = False``)
    motion    v(τ) = v + a τ,  c(τ) = c + v τ + a τ²/2,  Ω(τ) = Ω + α τ      (vx, vz; x, z)
    road      the internal road at x(τ) (``road_arrays``), or the road inputs extrapolated along their slope,
              h_r(τ) = h_r + (dh/dx)(x(τ) - x)
    slip      κ' integrated with n = max(1, round(h/dt)) RK4 sub-steps (``stepper.wheel_advance``)
    outputs   at τ = h/2 (``output_time = "midpoint"``) or τ = h (``"end"``), ``signals.OUTPUTS`` (the planar
              ones, the load as vectors at the centre given at the step start, ``signals.PLANAR_ZEROS``)

Why (both interfaces of Tire.fmu step this way): the vehicle FMU holds its tire-load inputs over its step, and
with the Gauss-Seidel order tire -> vehicle it takes the same step [t, t+h] right after the tire. The load it
should apply is the step's mean, whose midpoint-rule estimate is the load at t + h/2. On the bumpy road at
h = 1 ms, loads at the start or the end of the step put x(5 s) about 40 mm off the monolithic vehicle; the
midpoint loads put it within 10 mm. The extrapolation matters at low speed. The wheel spin and the tire's
carcass (slip stiffness over relaxation length) form a ~28 Hz mode whose only damping at a few m/s is |Vx|/σc.
Holding the spin over the step lags the loop by h/2, which is enough to make that mode grow below about 4 m/s
(seen as a 7 rad/s spin oscillation at 3 m/s). The extrapolated spin removes the lag to second order.

See docs/tire.md §12 and §13.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from ..numerics.jit import entry_point
from ..numerics.rk4 import TMP
from ..road import plane_arrays, set_plane
from .models import (OUT_DEFLECTION, OUT_FORCE, OUT_FX, OUT_FZ, OUT_KAPPA_SS, OUT_MY, OUT_NORMAL, OUT_POINT, OUT_RE,
                     OUT_SIGMA, OUT_VSX)
from .signals import PLANAR_ZEROS
from .stepper import (N_STATES, S_KAPPA, S_OMEGA, S_VX, S_VZ, S_X, S_Z, W_ALPHA, W_AX, W_AZ, WK_MOMENT, WK_ROAD,
                      wheel_advance, wheel_arrays, wheel_derivative)


class TireModel:
    """One tire: parameters ``p`` (``tire.models.params`` of a .tir file, an MF 5.2 tire: ``stepper.wheel_arrays``
    refuses any other model with a ModelError naming ``tire_file``), optional internal road (RoadArrays), slip
    state κ' (``kappa``).

    ``step(t, h, ...)`` takes the wheel state at t and advances κ' over [t, t+h] with the single-wheel stepper
    (``stepper.wheel_advance``, RK4) on a wheel whose velocities and spin are held to the inputs and change at
    their input rates, τ in [0, h]:

        v(τ) = v + a τ,  c(τ) = c + v τ + a τ²/2,  omega(τ) = omega + alpha τ     (vx, vz; x, z)

    where a, alpha are backward differences of the velocity and spin inputs over the previous step
    (``extrapolate``; zero on the first step or when off, leaving c + v τ).  The road is the internal one
    at x(τ), or the road inputs extrapolated along their slope, h_r(τ) = h_r + (dh/dx)(x(τ) - x).  The
    returned outputs are at τ = h/2 (``output_time = "midpoint"``: the midpoint-rule estimate of the step's
    mean load, from the RK4 continuous extension) or at τ = h (``"end"``).
    """

    def __init__(self, p: np.ndarray, road_arrays=None, kappa: float = 0.0, tire_file=None):
        self.p = p
        self.internal_road = road_arrays is not None
        road = road_arrays if self.internal_road else plane_arrays()
        self.wheel = wheel_arrays(p, road, hold_vx=True, hold_vz=True, hold_omega=True, tire_file=tire_file)
        self.kappa = float(kappa)
        self.last_input: tuple | None = None       # (t, vx, vz, omega) of the previous step
        self._y = np.zeros(N_STATES)
        self._y_out = np.zeros(N_STATES)
        self._advance = None                       # wheel_advance's compiled entry point (first step)

    def input_rates(self, t: float, kin, extrapolate: bool) -> tuple[float, float, float]:
        """(ax [m/s^2], az [m/s^2], alpha [rad/s^2]) from the previous step's inputs; remembers these."""
        rates = (0.0, 0.0, 0.0)
        last = self.last_input
        if extrapolate and last is not None and t > last[0]:
            dt = t - last[0]
            rates = ((kin[2] - last[1]) / dt, (kin[3] - last[2]) / dt, (kin[4] - last[3]) / dt)
        self.last_input = (t, kin[2], kin[3], kin[4])
        return rates

    def _load(self, kin, rates, road_in, kappa: float) -> np.ndarray:
        """Wheel state y at the step start from the inputs; held rates and the input road into the record."""
        y = self._y
        y[:] = 0.0
        y[S_X], y[S_Z], y[S_VX], y[S_VZ], y[S_OMEGA] = kin
        y[S_KAPPA] = kappa
        wheel = self.wheel.wheel
        wheel[W_AX], wheel[W_AZ], wheel[W_ALPHA] = rates
        if not self.internal_road:
            height, slope, mu = road_in
            set_plane(self.wheel.road, kin[0], height, slope, mu)
        return y

    def _outputs(self, y: np.ndarray, kin) -> dict:
        """The FMU outputs of the stepper's last evaluation, made at the wheel state y (units as in
        ``signals.OUTPUTS``); kin = the inputs at the step start (the wheel centre there is ``wheel_load.point``)."""
        # as Python floats (the same doubles: one conversion each instead of a NumPy scalar per element)
        out, work, y = self.wheel.contact.tolist(), self.wheel.work.tolist(), y.tolist()
        px, pz = float(kin[0]), float(kin[1])
        x, z, vx, vz = y[S_X], y[S_Z], y[S_VX], y[S_VZ]
        rx, rz = out[OUT_POINT] - x, out[OUT_POINT + 2] - z
        nx, nz = out[OUT_NORMAL], out[OUT_NORMAL + 2]
        values = {
            "fx": out[OUT_FX], "fz": out[OUT_FZ], "my": out[OUT_MY],
            "wheel_load.force_x": out[OUT_FORCE], "wheel_load.force_z": out[OUT_FORCE + 2],
            "wheel_load.moment_y": work[WK_MOMENT],
            "slip": y[S_KAPPA], "slip_kinematic": out[OUT_KAPPA_SS], "slip_velocity": out[OUT_VSX],
            "deflection": out[OUT_DEFLECTION], "deflection_rate": -(nx * vx + nz * vz),
            "loaded_radius": math.hypot(rx, rz), "rolling_radius": out[OUT_RE],
            "relaxation_length": out[OUT_SIGMA], "contact.x": out[OUT_POINT], "contact.z": out[OUT_POINT + 2],
            "road.height_used": work[WK_ROAD], "road.slope_used": work[WK_ROAD + 1],
            # the same load as vectors (the chrono interface's outputs): point = the centre at the step start
            "wheel_load.point.x": px, "wheel_load.point.y": 0.0, "wheel_load.point.z": pz,
            "wheel_load.force.x": out[OUT_FORCE], "wheel_load.force.y": 0.0, "wheel_load.force.z": out[OUT_FORCE + 2],
            "wheel_load.moment.x": 0.0, "wheel_load.moment.y": work[WK_MOMENT], "wheel_load.moment.z": 0.0,
            "query_point.x": px, "query_point.y": 0.0, "query_point.z": pz,
            "contact.y": 0.0, "road.mu_used": work[WK_ROAD + 2], **PLANAR_ZEROS,
        }
        return values

    def outputs(self, kin, rates, road_in, tau: float, kappa: float) -> dict:
        """The FMU outputs tau [s] into the step (wheel state extrapolated as in the class doc), with slip kappa."""
        y = self._load(kin, rates, road_in, kappa)
        x, z, vx, vz, omega = kin
        ax, az, alpha = rates
        y[S_X], y[S_Z] = x + (vx + 0.5 * ax * tau) * tau, z + (vz + 0.5 * az * tau) * tau
        y[S_VX], y[S_VZ], y[S_OMEGA] = vx + ax * tau, vz + az * tau, omega + alpha * tau
        wheel_derivative(tau, y, self.wheel, self.wheel.stages[TMP])
        return self._outputs(y, kin)

    def step(self, t: float, h: float, dt: float, kin, road_in, *, output_time: str = "midpoint",
             extrapolate: bool = True) -> dict:
        """Advance κ' over [t, t+h] (n = max(1, round(h/dt)) RK4 steps) and return the outputs (class doc).

        kin      (x [m], z [m], vx [m/s], vz [m/s], omega [rad/s]) wheel centre state and spin at t
        road_in  (height [m], slope [-], mu [-]) under the wheel at t (used without an internal road)
        """
        rates = self.input_rates(t, kin, extrapolate)
        n = max(1, int(round(h / dt)))
        tau_out = 0.5 * h if output_time == "midpoint" else h
        y = self._load(kin, rates, road_in, self.kappa)
        if self._advance is None:       # resolved once: later calls skip numba's typing of the arguments
            self._advance = entry_point(wheel_advance, float(t), float(h), n, float(tau_out), y, self.wheel,
                                        self._y_out)
        self._advance(float(t), float(h), n, float(tau_out), y, self.wheel, self._y_out)
        k, k_out = float(y[S_KAPPA]), float(self._y_out[S_KAPPA])
        if not (math.isfinite(k) and math.isfinite(k_out)):
            raise ModelError(f"transient slip became {k!r} (wheel state {tuple(kin)}, road inputs {tuple(road_in)})")
        self.kappa = k
        return self._outputs(self._y_out, kin)

    def get_state(self):
        return self.kappa, self.last_input

    def set_state(self, state) -> None:
        self.kappa, self.last_input = state
