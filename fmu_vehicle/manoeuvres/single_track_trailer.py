"""The linear single-track model of a towing unit (car or tractor) with a trailer (caravan or semitrailer) on
a hitch: the reference the articulated multibody vehicles are checked against. Described in
docs/articulated.md §2.

Assumptions as in :mod:`fmu_vehicle.manoeuvres.single_track` (one axle per end, both tires' cornering
stiffness lumped, small angles, constant forward speed vx, no roll, no load transfer, no longitudinal hitch
force), one more axle on the trailer. The towing unit (mass m1, yaw inertia I1 about its centre of mass,
axles a in front of and b behind the centre of mass, stiffnesses C_f, C_r) pulls the trailer (mass m2, yaw
inertia I2 about its own centre of mass, stiffness C_t) through a hitch h behind the towing unit's centre of
mass (the hitch overhang behind the rear axle is h - b; a fifth wheel ahead of the drive axle has h < b).
The trailer's centre of mass is e behind the hitch, its axle l behind the hitch (e < l: nose load on the
hitch, static nose load m2 g (l - e) / l). The equations are derived here by Newton-Euler with the lateral
hitch force eliminated.

States: vy (lateral velocity of the towing unit's centre of mass, its body axes), r (its yaw rate), theta
(articulation angle, trailer heading minus towing-unit heading, + counter-clockwise; in a left turn theta
< 0: the trailer lags) and w = dtheta/dt. Input the steering-wheel angle delta_sw, delta = delta_sw / i_s.
With r2 = r + w the trailer's yaw rate, the lateral velocities (small angles, trailer axes ~ towing axes):

    hitch                    v_h = vy - h r
    trailer centre of mass   v_2 = v_h - vx theta - e r2   (in the trailer's axes)
    trailer axle             v_t = v_h - vx theta - l r2

    alpha_f = delta - (vy + a r) / vx     alpha_r = -(vy - b r) / vx     alpha_t = -v_t / vx
    F_f = C_f alpha_f     F_r = C_r alpha_r     F_t = C_t alpha_t = C_t (theta - (vy - (h + l) r - l w) / vx)

The trailer's lateral acceleration a_2 = dv_2/dt + vx r2 = (dvy/dt + vx r) - (h + e) dr/dt - e dw/dt.
With F_h the lateral force of the trailer on the towing unit at the hitch (the trailer feels -F_h):

    m1 (dvy/dt + vx r) = F_f + F_r + F_h          I1 dr/dt = a F_f - b F_r - h F_h
    m2 a_2 = F_t - F_h                            I2 (dr/dt + dw/dt) = -e F_h - (l - e) F_t

Eliminating F_h = F_t - m2 a_2 gives M dx'/dt = K x + E delta for x' = [vy, r, w]:

    M = [[m1 + m2,  -m2 (h + e),            -m2 e       ],
         [-m2 h,     I1 + m2 h (h + e),      m2 h e     ],
         [-m2 e,     I2 + m2 e (h + e),      I2 + m2 e^2]]
    row 1:  F_f + F_r + F_t - (m1 + m2) vx r
    row 2:  a F_f - b F_r - h F_t + m2 h vx r
    row 3:  m2 e vx r - l F_t

and dtheta/dt = w; A(vx), B follow (:meth:`TrailerCombination.state_space`). With the trailer massless and
without tire force (m2, I2, C_t -> 0 together) the towing-unit rows are the single-track car's and the
trailer rows become (I2 + m2 e^2) dw/dt = -l C_t (theta - (vy - (h + l) r - l w) / vx) + m2 e (...): the
trailer on a hitch moving straight has J s^2 + (l^2 C_t / vx) s + l C_t = 0 (J = I2 + m2 e^2), always stable.
The snaking instability of a car with a caravan comes from the coupling through the hitch.

Steady state (dx/dt = 0, w = 0): the trailer's axle carries the share e / l of its centripetal force,
F_t = m2 vx r e / l, so alpha_t = F_t / C_t and

    theta = alpha_t + (vy - (h + l) r) / vx

At low speed (no slip: vy = b r) theta -> -(l + h - b) / R, the kinematic articulation angle on radius R.
:meth:`TrailerCombination.steady_state` solves A x = -B delta_sw for all states.

The snaking mode is the least damped oscillatory eigenvalue pair lambda = -zeta omega_n +- i omega_d of A(vx):
zeta = -Re(lambda) / |lambda|, f = Im(lambda) / (2 pi). :func:`critical_speed` finds the speed where the
largest real part of the eigenvalues crosses zero (Brent's method on a bracket from a speed scan). The
literature's trends (Darling, J.; Tilley, D.; Gao, B. (2009), "An experimental investigation of car-trailer
high-speed stability", Proc. IMechE Part D 223): the critical speed falls as the trailer's yaw
inertia or the hitch overhang grows and rises with more nose load (centre of mass moved forward of the axle);
tests/test_articulated_reference.py checks all three on the caravan preset.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from fmu_vehicle.errors import ModelError

from .single_track import G, SingleTrack

_POSITIVE = ("m1_kg", "i1_kg_m2", "a_m", "b_m", "cf_N_per_rad", "cr_N_per_rad", "steering_ratio",
             "hitch_m", "m2_kg", "i2_kg_m2", "trailer_com_m", "trailer_axle_m", "ct_N_per_rad")


@dataclass(frozen=True)
class TrailerCombination:
    """Parameters of the linear towing-unit-with-trailer model (module docstring).

    Towing unit: m1_kg, i1_kg_m2 (yaw inertia about its centre of mass), a_m / b_m (centre of mass to front /
    rear axle), cf_N_per_rad / cr_N_per_rad (axle cornering stiffnesses, all tires of the axle),
    steering_ratio, hitch_m (hitch behind the centre of mass, h). Trailer: m2_kg, i2_kg_m2 (yaw inertia about
    its centre of mass), trailer_com_m (hitch to the trailer's centre of mass, e), trailer_axle_m (hitch to
    the trailer axle, l), ct_N_per_rad (trailer axle cornering stiffness). All must be positive; a model
    with the trailer's mass, inertia and stiffness all tiny is allowed (the single-track limit)."""

    m1_kg: float
    i1_kg_m2: float
    a_m: float
    b_m: float
    cf_N_per_rad: float
    cr_N_per_rad: float
    steering_ratio: float
    hitch_m: float
    m2_kg: float
    i2_kg_m2: float
    trailer_com_m: float
    trailer_axle_m: float
    ct_N_per_rad: float

    def __post_init__(self):
        for field in _POSITIVE:
            value = getattr(self, field)
            if not (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                    and value > 0.0):
                raise ModelError(f"trailer model: {field} must be a positive number, got {value!r}")

    # ------------------------------------------------------------------ derived

    @property
    def towing_unit(self) -> SingleTrack:
        """The towing unit alone as a :class:`SingleTrack`."""
        return SingleTrack(self.m1_kg, self.i1_kg_m2, self.a_m, self.b_m, self.cf_N_per_rad, self.cr_N_per_rad,
                           self.steering_ratio)

    @property
    def hitch_overhang_m(self) -> float:
        """Hitch behind the towing unit's rear axle, h - b [m] (< 0: ahead of it, as a fifth wheel)."""
        return self.hitch_m - self.b_m

    @property
    def nose_load_N(self) -> float:
        """Static vertical load of the trailer on the hitch, m2 g (l - e) / l [N] (< 0: the hitch is lifted)."""
        return self.m2_kg * G * (self.trailer_axle_m - self.trailer_com_m) / self.trailer_axle_m

    def with_(self, **changes) -> "TrailerCombination":
        """A copy with ``changes`` (validated)."""
        return replace(self, **changes)

    # ------------------------------------------------------------------ dynamics

    def state_space(self, vx: float):
        """(A, B, C, D) at forward speed ``vx`` [m/s] for the states [vy, r, theta, w], the input delta_sw
        [rad] and the outputs [r (rad/s), a_y of the towing unit (m/s^2), theta (rad), r2 = r + w (rad/s),
        a_2 of the trailer's centre of mass (m/s^2)]."""
        if not (isinstance(vx, (int, float, np.floating)) and math.isfinite(vx) and vx > 0.0):
            raise ModelError(f"trailer model: vx must be a positive speed, got {vx!r}")
        m1, I1, a, b = self.m1_kg, self.i1_kg_m2, self.a_m, self.b_m
        Cf, Cr, Ct, i_s = self.cf_N_per_rad, self.cr_N_per_rad, self.ct_N_per_rad, self.steering_ratio
        h, m2, I2, e, l = self.hitch_m, self.m2_kg, self.i2_kg_m2, self.trailer_com_m, self.trailer_axle_m
        # tire forces as rows over x = [vy, r, theta, w] and the input delta (road-wheel angle)
        Ff = np.array([-Cf / vx, -Cf * a / vx, 0.0, 0.0]); Ff_d = Cf
        Fr = np.array([-Cr / vx, Cr * b / vx, 0.0, 0.0])
        Ft = np.array([-Ct / vx, Ct * (h + l) / vx, Ct, Ct * l / vx])
        r_row = np.array([0.0, 1.0, 0.0, 0.0])
        rhs = np.vstack([Ff + Fr + Ft - (m1 + m2) * vx * r_row,
                         a * Ff - b * Fr - h * Ft + m2 * h * vx * r_row,
                         m2 * e * vx * r_row - l * Ft])
        rhs_d = np.array([Ff_d, a * Ff_d, 0.0])
        M = np.array([[m1 + m2, -m2 * (h + e), -m2 * e],
                      [-m2 * h, I1 + m2 * h * (h + e), m2 * h * e],
                      [-m2 * e, I2 + m2 * e * (h + e), I2 + m2 * e * e]])
        acc = np.linalg.solve(M, rhs)            # rows: dvy/dt, dr/dt, dw/dt
        acc_d = np.linalg.solve(M, rhs_d)
        A = np.vstack([acc[0], acc[1], [0.0, 0.0, 0.0, 1.0], acc[2]])
        B = np.array([[acc_d[0]], [acc_d[1]], [0.0], [acc_d[2]]]) / i_s
        ay1 = A[0] + vx * r_row
        ay2 = ay1 - (h + e) * A[1] - e * A[3]
        C = np.vstack([r_row, ay1, [0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], ay2])
        D = np.array([[0.0], [B[0, 0]], [0.0], [0.0], [B[0, 0] - (h + e) * B[1, 0] - e * B[3, 0]]])
        return A, B, C, D

    def eigenvalues(self, vx: float) -> np.ndarray:
        return np.linalg.eigvals(self.state_space(vx)[0])

    def snaking_mode(self, vx: float) -> dict:
        """The least damped oscillatory eigenvalue pair at ``vx``: eigenvalue (Im > 0), damping_ratio,
        frequency_hz, max_real_part (over all eigenvalues, [1/s]). With no oscillatory pair: damping_ratio 1,
        frequency_hz 0 and eigenvalue the largest real one."""
        lam = self.eigenvalues(vx)
        osc = lam[lam.imag > 1e-9]
        pick = osc[np.argmax(osc.real / np.abs(osc))] if osc.size else lam[np.argmax(lam.real)]
        zeta = float(-pick.real / abs(pick)) if osc.size else 1.0
        return {"eigenvalue": complex(pick), "damping_ratio": zeta,
                "frequency_hz": float(pick.imag / (2.0 * math.pi)), "max_real_part": float(lam.real.max())}

    def damping_vs_speed(self, speeds_m_s) -> dict:
        """:meth:`snaking_mode` over ``speeds_m_s``: arrays speed_m_s, damping_ratio, frequency_hz,
        max_real_part."""
        v = _speeds(speeds_m_s, "speeds_m_s")
        rows = [self.snaking_mode(float(s)) for s in v]
        return {"speed_m_s": v, "damping_ratio": np.array([r["damping_ratio"] for r in rows]),
                "frequency_hz": np.array([r["frequency_hz"] for r in rows]),
                "max_real_part": np.array([r["max_real_part"] for r in rows])}

    # ------------------------------------------------------------------ steady state

    def steady_state(self, vx: float) -> dict:
        """Steady-state gains per rad of steering-wheel angle at ``vx``: vy, yaw_rate (r), theta
        (articulation angle), ay (towing unit), ay_trailer, all from A x = -B; and theta_closed_form from
        the trailer's axle force (module docstring), equal to theta."""
        A, B, C, D = self.state_space(vx)
        x = -np.linalg.solve(A, B[:, 0])
        y = C @ x + D[:, 0]
        l, e, h = self.trailer_axle_m, self.trailer_com_m, self.hitch_m
        Ft = self.m2_kg * vx * x[1] * e / l
        theta_cf = Ft / self.ct_N_per_rad + (x[0] - (h + l) * x[1]) / vx
        return {"vy": float(x[0]), "yaw_rate": float(x[1]), "theta": float(x[2]), "ay": float(y[1]),
                "ay_trailer": float(y[4]), "theta_closed_form": float(theta_cf)}

    def kinematic_articulation_per_curvature_m(self) -> float:
        """Low-speed articulation angle per path curvature of the towing unit, theta R = -(l + h - b) [m]."""
        return -(self.trailer_axle_m + self.hitch_m - self.b_m)


def _speeds(values, name: str) -> np.ndarray:
    v = np.asarray(values, dtype=float).ravel()
    if v.size < 1 or not np.all(np.isfinite(v)) or np.any(v <= 0.0):
        raise ModelError(f"trailer model: {name} must be positive finite speeds")
    return v


def critical_speed(model: TrailerCombination, *, v_min_m_s: float = 1.0, v_max_m_s: float = 100.0,
                   n_scan: int = 200, tol_m_s: float = 1e-6) -> float:
    """The lowest speed [m/s] in [v_min_m_s, v_max_m_s] where the largest real part of the eigenvalues of
    A(vx) crosses zero from below (the snaking speed): a scan of ``n_scan`` speeds brackets the first sign
    change, Brent's method refines it to ``tol_m_s``. ModelError if the model is unstable at ``v_min_m_s``
    or stable up to ``v_max_m_s``."""
    from scipy.optimize import brentq

    if not (math.isfinite(v_min_m_s) and v_min_m_s > 0.0):
        raise ModelError(f"critical_speed: v_min_m_s must be a positive speed, got {v_min_m_s!r}")
    if not (math.isfinite(v_max_m_s) and v_max_m_s > v_min_m_s):
        raise ModelError(f"critical_speed: v_max_m_s must be a speed above v_min_m_s, got {v_max_m_s!r}")
    if int(n_scan) < 2:
        raise ModelError(f"critical_speed: n_scan must be at least 2, got {n_scan!r}")

    def f(v):
        return float(model.eigenvalues(v).real.max())

    speeds = np.linspace(v_min_m_s, v_max_m_s, int(n_scan))
    values = np.array([f(v) for v in speeds])
    if values[0] >= 0.0:
        raise ModelError(f"critical_speed: the model is already unstable at v_min_m_s = {v_min_m_s:g} m/s")
    up = np.flatnonzero((values[:-1] < 0.0) & (values[1:] >= 0.0))
    if not up.size:
        raise ModelError(f"critical_speed: no critical speed below v_max_m_s = {v_max_m_s:g} m/s (the largest "
                         f"real part stays at or below {values.max():.4g} 1/s)")
    k = int(up[0])
    return float(brentq(f, speeds[k], speeds[k + 1], xtol=tol_m_s))


def simulate(model: TrailerCombination, t, steering_wheel_angle, vx: float) -> dict:
    """Response of the linear model at constant ``vx`` [m/s] from rest in the lateral states to the
    steering-wheel angle [rad] at the instants ``t`` [s] (an array or a callable of t). Returns arrays t,
    steering_wheel_angle, vy, r (towing unit's yaw rate), ay (towing unit), theta (articulation angle),
    r2 (trailer's yaw rate), ay_trailer."""
    from scipy.signal import lsim

    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 2 or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0.0):
        raise ModelError("trailer simulate: t must be an increasing 1-D array of at least 2 instants")
    u = np.asarray(steering_wheel_angle(t) if callable(steering_wheel_angle) else steering_wheel_angle, dtype=float)
    if u.shape != t.shape:
        raise ModelError(f"trailer simulate: steering_wheel_angle has {u.size} values for {t.size} instants")
    A, B, C, D = model.state_space(vx)
    _, yout, xout = lsim((A, B, C, D), u, t - t[0])
    return {"t": t, "steering_wheel_angle": u, "vy": xout[:, 0], "r": yout[:, 0], "ay": yout[:, 1],
            "theta": yout[:, 2], "r2": yout[:, 3], "ay_trailer": yout[:, 4]}


# ---------------------------------------------------------------------------------------------- presets
TRACTOR_SEMITRAILER = TrailerCombination(
    m1_kg=7000.0, i1_kg_m2=25000.0, a_m=1.3, b_m=2.4, cf_N_per_rad=320000.0, cr_N_per_rad=900000.0,
    steering_ratio=20.0, hitch_m=2.1, m2_kg=30000.0, i2_kg_m2=480000.0, trailer_com_m=5.9,
    trailer_axle_m=7.7, ct_N_per_rad=1350000.0)
"""A two-axle tractor with a laden three-axle semitrailer (about 37 t), every axle group lumped into one axle.
Assumptions of plausible magnitude, not the data of one vehicle: tractor wheelbase 3.7 m, fifth wheel 0.3 m
ahead of the drive axle; semitrailer 13.6 m, kingpin to the tridem's centre 7.7 m, uniformly laden box
(I2 = m2 (13.6^2 + 2.5^2) / 12 ~ 480 000 kg m^2), centre of mass 5.9 m behind the kingpin (about a quarter of
its weight on the fifth wheel); cornering stiffness about 150 kN/rad per truck tire: front axle 2 tires (320 kN/rad), drive axle
2 x 2 twin tires (900 kN/rad, twin tires count less than twice a single), trailer tridem 3 x 3 wide-base
tires (1350 kN/rad). Steering ratio 20."""

CAR_CARAVAN = TrailerCombination(
    m1_kg=1600.0, i1_kg_m2=2700.0, a_m=1.2, b_m=1.6, cf_N_per_rad=100000.0, cr_N_per_rad=120000.0,
    steering_ratio=16.0, hitch_m=2.6, m2_kg=1300.0, i2_kg_m2=3500.0, trailer_com_m=3.75,
    trailer_axle_m=4.0, ct_N_per_rad=90000.0)
"""A mid-size car with a single-axle caravan on a ball hitch. Assumptions of plausible magnitude, not the
data of one vehicle: car 1600 kg, wheelbase 2.8 m, hitch ball 1.0 m behind the rear axle; caravan 1300 kg
(about 80 % of the car's mass, the usual towing guidance's upper range), hitch to axle 4.0 m, centre of mass
0.25 m ahead of the axle (nose load 1300 g 0.25 / 4 ~ 800 N, ~ 6 % of its weight), yaw inertia 3500 kg m^2
(a 6 m x 2.3 m box with its mass nearer the axle than a uniform one); cornering stiffnesses about 50 kN/rad
per car tire and 45 kN/rad per caravan tire."""
