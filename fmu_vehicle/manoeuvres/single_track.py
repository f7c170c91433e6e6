"""The linear single-track ("bicycle") model: the reference the full vehicle's handling is checked
against, and the plant on which the driver and the manoeuvre analyses are tested.

One axle per end, each with the cornering stiffness of both its tires, small angles, constant forward
speed vx, no roll, no load transfer (Riekert, P.; Schunck, T. E. (1940), "Zur Fahrmechanik des
gummibereiften Kraftfahrzeugs", Ingenieur-Archiv 11, 210-224; in the notation of Gillespie, T. D. (1992),
*Fundamentals of Vehicle Dynamics*, SAE, ch. 6, and Mitschke, M.; Wallentowitz, H. (2004), *Dynamik der
Kraftfahrzeuge*, 4th ed., Springer, ch. C). States vy (lateral velocity of the centre of mass, ISO 8855
body axes) and r (yaw rate); input the steering-wheel angle delta_sw, road-wheel angle delta = delta_sw / i_s:

    alpha_f = delta - (vy + a r) / vx        alpha_r = -(vy - b r) / vx          slip angles [rad]
    F_f = C_f alpha_f                        F_r = C_r alpha_r                   axle side forces [N]
    m (dvy/dt + vx r) = F_f + F_r            I_z dr/dt = a F_f - b F_r
    a_y = dvy/dt + vx r = (F_f + F_r) / m                                         lateral acceleration

so d/dt [vy, r] = A [vy, r] + B delta_sw with

    A = [[-(C_f + C_r) / (m vx),       -(a C_f - b C_r) / (m vx) - vx],
         [-(a C_f - b C_r) / (I_z vx), -(a^2 C_f + b^2 C_r) / (I_z vx)]]
    B = [C_f / m, a C_f / I_z] / i_s

Steady state (Gillespie 1992, ch. 6, written with axle stiffnesses; L = a + b):

    r / delta_sw = (vx / L) / (1 + K vx^2) / i_s            K = m (b C_r - a C_f) / (L^2 C_f C_r)  [s^2/m^2]
    delta = L / R + EG a_y                                    EG = K L = (m / L) (b / C_f - a / C_r)  [rad/(m/s^2)]

K is the stability factor, EG the understeer gradient (> 0 understeer, < 0 oversteer; EG in deg/g is
EG * 180/pi * g). The characteristic speed v_ch = 1 / sqrt(K) of an understeering car is where the yaw-rate
gain r/delta is largest (half the neutral car's); an oversteering car becomes unstable above the critical
speed v_crit = 1 / sqrt(-K).

:func:`simulate` integrates the linear model for a steering input (``scipy.signal.lsim``, input linear
between samples); :func:`closed_loop` drives it with a path follower and adds a longitudinal equation
(m dvx/dt = T / r_w - F_resist + m vy r) and the kinematics of the position and heading on the ground
(dX/dt = vx cos psi - vy sin psi, dY/dt = vx sin psi + vy cos psi, dpsi/dt = r), RK4 with the driver's
commands held over each step. Described in docs/handling.md §6.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fmu_vehicle.errors import ModelError

G = 9.80665
"""Standard gravity [m/s^2] (deg/g conversions)."""
MIN_SPEED_M_S = 1.0
"""The slip angles divide by vx: below this speed [m/s] the closed loop uses it instead."""


@dataclass(frozen=True)
class SingleTrack:
    """Parameters of the linear single-track model (module docstring).

    mass_kg, yaw_inertia_kg_m2, a_m / b_m (centre of mass to front / rear axle), cf_N_per_rad /
    cr_N_per_rad (front / rear axle cornering stiffness, both tires), steering_ratio (steering-wheel angle
    per road-wheel angle)."""

    mass_kg: float
    yaw_inertia_kg_m2: float
    a_m: float
    b_m: float
    cf_N_per_rad: float
    cr_N_per_rad: float
    steering_ratio: float

    def __post_init__(self):
        for field in ("mass_kg", "yaw_inertia_kg_m2", "a_m", "b_m", "cf_N_per_rad", "cr_N_per_rad",
                      "steering_ratio"):
            value = getattr(self, field)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0.0):
                raise ModelError(f"single-track model: {field} must be a positive number, got {value!r}")

    # ------------------------------------------------------------------ steady state

    @property
    def wheelbase_m(self) -> float:
        return self.a_m + self.b_m

    @property
    def stability_factor(self) -> float:
        """K = m (b C_r - a C_f) / (L^2 C_f C_r) [s^2/m^2]."""
        L = self.wheelbase_m
        return self.mass_kg * (self.b_m * self.cr_N_per_rad - self.a_m * self.cf_N_per_rad) / (
            L * L * self.cf_N_per_rad * self.cr_N_per_rad)

    @property
    def understeer_gradient(self) -> float:
        """EG = K L = (m / L) (b / C_f - a / C_r) [rad of road-wheel angle per m/s^2]."""
        return self.stability_factor * self.wheelbase_m

    @property
    def understeer_gradient_deg_per_g(self) -> float:
        return math.degrees(self.understeer_gradient) * G

    @property
    def characteristic_speed_m_s(self) -> float:
        """1 / sqrt(K) for an understeering model (K > 0), inf for a neutral or oversteering one."""
        K = self.stability_factor
        return 1.0 / math.sqrt(K) if K > 0.0 else math.inf

    @property
    def critical_speed_m_s(self) -> float:
        """1 / sqrt(-K) for an oversteering model (K < 0), inf otherwise."""
        K = self.stability_factor
        return 1.0 / math.sqrt(-K) if K < 0.0 else math.inf

    def yaw_rate_gain(self, vx):
        """Steady-state r / delta_sw = (vx / L) / (1 + K vx^2) / i_s [1/s]."""
        vx = np.asarray(vx, dtype=float)
        out = vx / self.wheelbase_m / (1.0 + self.stability_factor * vx * vx) / self.steering_ratio
        return float(out) if out.ndim == 0 else out

    def yaw_moment_gain(self, vx):
        """Steady-state r / M_z [rad/s per N m] for an external yaw moment M_z (e.g. of a brake force
        difference between the sides) with the steering wheel held straight. With I_z dr/dt = a F_f - b F_r + M_z
        in place of the yaw equation above, the steady state (F_f + F_r = m vx r, a F_f - b F_r = -M_z) gives

            r / M_z = vx (C_f + C_r) / (C_f C_r L^2 (1 + K vx^2))."""
        vx = np.asarray(vx, dtype=float)
        L, Cf, Cr = self.wheelbase_m, self.cf_N_per_rad, self.cr_N_per_rad
        out = vx * (Cf + Cr) / (Cf * Cr * L * L * (1.0 + self.stability_factor * vx * vx))
        return float(out) if out.ndim == 0 else out

    def lateral_acceleration_gain(self, vx):
        """Steady-state a_y / delta_sw = vx r / delta_sw [(m/s^2)/rad]."""
        out = np.asarray(vx, dtype=float) * self.yaw_rate_gain(vx)
        return float(out) if np.ndim(out) == 0 else out

    def steady_state_steering(self, vx: float, radius_m: float) -> float:
        """Steering-wheel angle [rad] to drive a circle of ``radius_m`` at ``vx``: i_s (L/R + EG vx^2/R)."""
        return self.steering_ratio * (self.wheelbase_m / radius_m + self.understeer_gradient * vx * vx / radius_m)

    # ------------------------------------------------------------------ dynamics

    def state_space(self, vx: float):
        """(A, B, C, D) at forward speed ``vx`` [m/s] for the states [vy, r], the input delta_sw [rad] and
        the outputs [r (rad/s), a_y (m/s^2), beta = vy / vx (rad)]."""
        if not (math.isfinite(vx) and vx > 0.0):
            raise ModelError(f"single-track model: vx must be a positive speed, got {vx!r}")
        m, Iz, a, b = self.mass_kg, self.yaw_inertia_kg_m2, self.a_m, self.b_m
        Cf, Cr, i_s = self.cf_N_per_rad, self.cr_N_per_rad, self.steering_ratio
        A = np.array([[-(Cf + Cr) / (m * vx), -(a * Cf - b * Cr) / (m * vx) - vx],
                      [-(a * Cf - b * Cr) / (Iz * vx), -(a * a * Cf + b * b * Cr) / (Iz * vx)]])
        B = np.array([[Cf / m], [a * Cf / Iz]]) / i_s
        C = np.array([[0.0, 1.0], A[0] + np.array([0.0, vx]), [1.0 / vx, 0.0]])
        D = np.array([[0.0], [B[0, 0]], [0.0]])
        return A, B, C, D

    def eigenvalues(self, vx: float) -> np.ndarray:
        return np.linalg.eigvals(self.state_space(vx)[0])


def simulate(model: SingleTrack, t, steering_wheel_angle, vx: float) -> dict:
    """Response of the linear model at constant ``vx`` [m/s] from rest in the lateral states to the
    steering-wheel angle [rad] given at the instants ``t`` [s] (an array, or a callable of t such as a
    :class:`fmu_vehicle.driver.profile.SteeringProfile`). Returns arrays t, steering_wheel_angle, vy, r
    (yaw rate), ay, beta."""
    t, u, yout, xout = linear_response(model.state_space(vx), t, steering_wheel_angle, "single-track")
    return {"t": t, "steering_wheel_angle": u, "vy": xout[:, 0], "r": yout[:, 0], "ay": yout[:, 1],
            "beta": yout[:, 2]}


def linear_response(state_space, t, steering_wheel_angle, who: str):
    """(t, u, outputs, states) of the linear system ``state_space`` = (A, B, C, D) from rest to the
    steering-wheel angle u [rad] at the instants ``t`` [s] (an array, or a callable of t), input linear
    between them (``scipy.signal.lsim``); ModelError, prefixed with ``who``, for instants that are not an
    increasing finite 1-D array of at least 2 or angles of another length."""
    from scipy.signal import lsim

    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 2 or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0.0):
        raise ModelError(f"{who} simulate: t must be an increasing 1-D array of at least 2 instants")
    u = np.asarray(steering_wheel_angle(t) if callable(steering_wheel_angle) else steering_wheel_angle, dtype=float)
    if u.shape != t.shape:
        raise ModelError(f"{who} simulate: steering_wheel_angle has {u.size} values for {t.size} instants")
    _, yout, xout = lsim(state_space, u, t - t[0])
    return t, u, yout, xout


def _derivatives(model: SingleTrack, state, delta_sw: float, force_x: float):
    """d/dt of [X, Y, psi, vx, vy, r] for the closed loop (module docstring); force_x: drive minus
    resistance [N]. Also returns a_y [m/s^2]."""
    X, Y, psi, vx, vy, r = state
    m, Iz, a, b = model.mass_kg, model.yaw_inertia_kg_m2, model.a_m, model.b_m
    v = max(vx, MIN_SPEED_M_S)
    delta = delta_sw / model.steering_ratio
    Ff = model.cf_N_per_rad * (delta - (vy + a * r) / v)
    Fr = model.cr_N_per_rad * (-(vy - b * r) / v)
    ay = (Ff + Fr) / m
    c, s = math.cos(psi), math.sin(psi)
    return np.array([vx * c - vy * s, vx * s + vy * c, r, force_x / m + vy * r, ay - vx * r,
                     (a * Ff - b * Fr) / Iz]), ay


def closed_loop(model: SingleTrack, driver, *, t_end: float, dt: float = 0.01, x0: float = 0.0,
                y0: float = 0.0, yaw0: float = 0.0, vx0: float = 0.0, wheel_radius_m: float = 0.3,
                rolling_resistance: float = 0.012, drag_N_per_m2_s2: float = 0.4,
                stop=None) -> dict:
    """Drive ``model`` with ``driver`` (``driver.command(t, x, y, yaw, vx) -> (delta_sw [rad], wheel
    torque [N m])``, called every ``dt`` and held over the step) from the ground position (x0, y0),
    heading yaw0 and speed vx0 (lateral states at rest) until ``t_end`` [s] or until ``stop(t, x, y)``
    is true. Resistance F = m g f_r sign(vx) + c vx^2. Returns arrays t, x, y, yaw, vx, vy, r, ay,
    steering_wheel_angle, wheel_torque."""
    if not (dt > 0.0 and t_end > 0.0):
        raise ModelError(f"closed_loop: dt and t_end must be positive, got {dt!r}, {t_end!r}")
    n = int(round(t_end / dt)) + 1
    out = {k: np.zeros(n) for k in ("t", "x", "y", "yaw", "vx", "vy", "r", "ay", "steering_wheel_angle",
                                    "wheel_torque")}
    state = np.array([x0, y0, yaw0, vx0, 0.0, 0.0], dtype=float)
    m = model.mass_kg
    last = n
    for k in range(n):
        t = k * dt
        delta_sw, torque = driver.command(t, state[0], state[1], state[2], state[3])

        def f(st):
            resist = m * G * rolling_resistance * math.tanh(st[3] / 0.1) + drag_N_per_m2_s2 * st[3] * abs(st[3])
            return _derivatives(model, st, delta_sw, torque / wheel_radius_m - resist)

        k1, ay = f(state)
        for key, value in (("t", t), ("x", state[0]), ("y", state[1]), ("yaw", state[2]), ("vx", state[3]),
                           ("vy", state[4]), ("r", state[5]), ("ay", ay), ("steering_wheel_angle", delta_sw),
                           ("wheel_torque", torque)):
            out[key][k] = value
        if stop is not None and stop(t, state[0], state[1]):
            last = k + 1
            break
        k2, _ = f(state + 0.5 * dt * k1)
        k3, _ = f(state + 0.5 * dt * k2)
        k4, _ = f(state + dt * k3)
        state = state + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return {key: value[:last] for key, value in out.items()}
