"""Anti-lock braking (ABS): a wheel-slip controller whose set-point follows a road-friction estimate, realised
as a pressure limit per wheel through the hydraulic unit's inlet and outlet valves; rear-axle select-low and
yaw-moment build-up limiting on split friction. Described in docs/chassis_control.md §2.

At each sample instant (period T), with v_x the vehicle speed and, for every wheel w, its rolling radius r_w,
spin omega_w and the unit's model of its pressure p_w::

    v_w      = omega_w r_w                                   wheel speed [m/s]
    sigma_w  = (v_x - v_w) / max(v_x, v_ref)                 brake slip [-] (> 0 braking)
    a_w      = (v_w - v_w,prev) / T                          wheel acceleration [m/s^2]

Friction estimate. While the driver brakes and wheels are slip-controlled they work near the tire's friction
peak, so the vehicle's horizontal acceleration is what the road gives: the deceleration, low-pass filtered
(time constant tau_mu), combined with the lateral acceleration a_y of a braking turn::

    d    += ((v_x,prev - v_x) / T - d) (1 - exp(-T / tau_mu))
    mu_e  = clip(sqrt(d^2 + a_y^2) / g, mu_min, mu_max)

and mu_e = mu_max otherwise (no wheel under control yet, or only a function's active pressure brakes: ESC's
one braked wheel says nothing of the road).

Slip set-point. The tire's slip stiffness does not change with the road's friction while its peak force
scales with it, so the slip of the force peak is proportional to the friction (about 0.15 mu for the shipped
tire, docs/chassis_control.md §2)::

    sigma* = k_sigma c_sigma mu_e               c_sigma: peak slip per unit friction, k_sigma < 1 a margin
    sigma*_w = f_w sigma*                       f_w <= 1: ESC's factor on a wheel (commands.slip_target_factor)

With the set-point proportional to the estimate the loop climbs to the peak: below it the deceleration, and
with it the next set-point, rises (the tire force grows less than proportionally with the slip below its
peak), beyond it the force falls.

Control. A wheel comes under control when its slip passes sigma*_w, or when it decelerates faster than a_on
with a slip beyond sigma_on (the first sign of a wheel running into lock, before the slip shows it). It then
has a pressure limit p_lim,w, a PI controller in velocity form on the slip error e_w = sigma_w - sigma*_w::

    p_lim,w <- p_lim,w - k_p (e_w - e_w,prev) - k_i T e_w
    p_lim,w  = clip(p_lim,w, 0, min(p_source, p_w + p_margin))          (no wind-up above the wheel's pressure)

started at the wheel's pressure. The valves (hydraulics) dump the wheel to the limit or let it build to it
from the master cylinder. The control ends when the driver releases the brake (p_mc and active pressure
below p_min) or v_x < v_min.

Split friction: (1) rear select-low: both rear wheels get the lower of their two limits, so the rear axle brakes
at the low-friction wheel's level and keeps its side force; (2) yaw-moment build-up limiting on the front
axle: when a front wheel comes under control while the other has not, the other wheel's pressure is limited
to the controlled wheel's limit plus r_ym (t - t_1) for t_ym from then on: the yaw moment of the brake-force
difference builds up slowly enough for a driver to counter-steer (the "yaw moment build-up delay" of Reif
(ed.) 2014, *Brakes, Brake Control and Driver Assistance Systems*, Springer).

Commands: ABS runs last, and its limits cap whatever pressure the driver or a function before it asks for
(``commands.pressure_limit`` becomes the minimum of its value and ABS's limit); it reads ESC's slip-target
factors from ``commands.slip_target_factor``.
"""
from __future__ import annotations

import math

import numpy as np

from ..manoeuvres.steady_state import G
from .ecu import Commands, ControlledVehicle, Sensors, read_tuning

NORMAL, HOLD_PHASE, RELEASE_PHASE, BUILD_PHASE = 0, 1, 2, 3
"""Phases of a wheel, as written to ``abs.phase_<wheel>``: not controlled, and under control holding, dumping
or building its pressure (the limit against the wheel's pressure at the sample, within ``PHASE_TOLERANCE_PA``)."""
PHASES = ("normal", "hold", "release", "build")
PHASE_TOLERANCE_PA = 2.0e4

# per-wheel slots of the state
_PHASE, _V_PREV, _SLIP, _ACC, _CONTROLLED, _LIMIT, _E_PREV, _YM_LEFT, _OUT_LIMIT, _N_SLOTS = range(10)
# global slots after the per-wheel ones
_VALID, _VX_PREV, _DECEL, _MU, _TARGET, _N_GLOBAL = range(6)


class AntiLock:
    """ABS (module docstring) for one vehicle; ``tuning`` the ``abs`` section of the tuning file."""

    name = "abs"
    TUNING = {
        "speed_min_m_s": ("m/s", "ABS inactive below this speed", 0.1, 50.0),
        "slip_speed_min_m_s": ("m/s", "v_ref: the slip's denominator is max(v_x, v_ref)", 0.1, 50.0),
        "pressure_min_Pa": ("Pa", "a wheel counts as braked above this master-cylinder or active pressure", 0.0, 1e7),
        "wheel_decel_hold_m_s2": ("m/s2", "a_on: wheel deceleration that starts the slip control (with the slip "
                                  "beyond slip_hold)", 0.0, 1e3),
        "slip_hold": ("1", "sigma_on: slip magnitude beyond which the deceleration a_on starts the slip control",
                      0.0, 1.0),
        "slip_release": ("1", "retired (no effect): the release threshold of the former phase cycle", 0.0, 1.0),
        "wheel_acc_release_end_m_s2": ("m/s2", "retired (no effect): end of a release in the former phase cycle",
                                       -1e3, 1e3),
        "slip_deep": ("1", "retired (no effect): deep-slip threshold of the former phase cycle", 0.0, 1.0),
        "slip_reapply": ("1", "retired (no effect): re-apply threshold of the former phase cycle", 0.0, 1.0),
        "reapply_fast_time_s": ("s", "retired (no effect): fast re-apply time of the former phase cycle",
                                0.0, 10.0),
        "reapply_apply_samples": ("1", "retired (no effect): apply samples of the former stepped re-apply", 1, 100),
        "reapply_hold_samples": ("1", "retired (no effect): hold samples of the former stepped re-apply", 0, 100),
        "rear_select_low": ("1", "1: rear axle select-low, 0: each rear wheel on its own", 0, 1),
        "yaw_moment_limit_time_s": ("s", "t_ym: duration of the front yaw-moment build-up limiting (0: off)",
                                    0.0, 10.0),
        "yaw_moment_limit_apply_every_samples": ("1", "retired (no effect): the former pulsed build-up limiting",
                                                 1, 100),
        "peak_slip_per_friction": ("1", "c_sigma: slip of the tire's force peak per unit road friction", 0.01, 1.0),
        "slip_target_fraction": ("1", "k_sigma: the slip set-point as a fraction of the estimated peak slip",
                                 0.1, 2.0),
        "friction_min": ("1", "mu_min: lowest friction estimate", 0.01, 2.0),
        "friction_max": ("1", "mu_max: highest friction estimate, and the estimate before any wheel is "
                         "controlled", 0.01, 2.0),
        "friction_filter_time_s": ("s", "tau_mu: low-pass time constant of the deceleration behind the friction "
                                   "estimate", 0.001, 10.0),
        "slip_gain_Pa": ("Pa", "k_p: proportional gain of the slip controller, per unit slip", 0.0, 1e10),
        "slip_integral_gain_Pa_per_s": ("Pa/s", "k_i: integral gain of the slip controller, per unit slip",
                                        0.0, 1e12),
        "pressure_margin_Pa": ("Pa", "p_margin: how far a wheel's limit may lie above its pressure (anti-wind-up)",
                               0.0, 1e7),
        "yaw_moment_limit_rate_Pa_per_s": ("Pa/s", "r_ym: rise rate of the front pressure difference while "
                                           "limiting the yaw-moment build-up", 0.0, 1e10),
    }
    """key -> (unit, description, min, max) of the tuning values (section ``abs`` of the tuning file); a
    retired key is still read (the ChassisControl FMU keeps its parameter) but has no effect."""
    OUTPUTS = (("active", "1", "1 while the pressure limit of any wheel is below its source pressure"),
               ("phase_{wheel}", "1", "ABS phase: 0 not controlled; controlled: 1 hold, 2 release (dump), 3 build"),
               ("slip_{wheel}", "1", "longitudinal slip (omega r - v_x) / max(v_x, v_ref)"),
               ("wheel_acc_{wheel}", "m/s2", "wheel circumferential acceleration from successive samples"),
               ("friction_estimate", "1", "road friction estimate mu_e behind the slip set-point"),
               ("slip_target", "1", "slip set-point sigma* = k_sigma c_sigma mu_e (brake slip, > 0)"),
               ("pressure_limit_{wheel}", "Pa", "ABS's pressure limit on the wheel (0 while not controlled)"))

    def __init__(self, vehicle: ControlledVehicle, tuning: dict):
        self.vehicle = vehicle
        v = read_tuning(self, tuning)
        self.v_min, self.v_ref, self.p_min = v["speed_min_m_s"], v["slip_speed_min_m_s"], v["pressure_min_Pa"]
        self.decel_on, self.slip_on = v["wheel_decel_hold_m_s2"], v["slip_hold"]
        self.select_low = v["rear_select_low"] >= 0.5
        self.t_ym, self.r_ym = v["yaw_moment_limit_time_s"], v["yaw_moment_limit_rate_Pa_per_s"]
        self.c_sigma, self.k_sigma = v["peak_slip_per_friction"], v["slip_target_fraction"]
        self.mu_min, self.mu_max, self.tau_mu = v["friction_min"], v["friction_max"], v["friction_filter_time_s"]
        self.k_p, self.k_i, self.margin = v["slip_gain_Pa"], v["slip_integral_gain_Pa_per_s"], v["pressure_margin_Pa"]
        n = vehicle.n_wheels
        self.state = np.zeros(_N_SLOTS * n + _N_GLOBAL)
        self._w = self.state[:_N_SLOTS * n].reshape(_N_SLOTS, n)      # views: set_state writes in place
        self._g = self.state[_N_SLOTS * n:]
        self._front = np.flatnonzero(vehicle.front)
        self._rear = np.flatnonzero(~np.asarray(vehicle.front, dtype=bool))
        self.reset()

    def reset(self):
        self.state[:] = 0.0

    def _friction(self, vx: float, ay: float, period_s: float, controlled: bool) -> float:
        """Update the filtered deceleration; the friction estimate mu_e (module docstring)."""
        g = self._g
        if g[_VALID] != 0.0:
            g[_DECEL] += ((g[_VX_PREV] - vx) / period_s - g[_DECEL]) * (1.0 - math.exp(-period_s / self.tau_mu))
        g[_VX_PREV] = vx
        g[_MU] = min(max(math.hypot(g[_DECEL], ay) / G, self.mu_min), self.mu_max) if controlled else self.mu_max
        return g[_MU]

    def step(self, sensors: Sensors, commands: Commands, period_s: float) -> None:
        s, g, vx = self._w, self._g, float(sensors.vx)
        n = self.vehicle.n_wheels
        v_wheel = np.asarray(sensors.omega, dtype=float) * self.vehicle.radius_m
        slip = (vx - v_wheel) / max(vx, self.v_ref)
        first = g[_VALID] == 0.0
        acc = np.zeros(n) if first else (v_wheel - s[_V_PREV]) / period_s
        s[_V_PREV], s[_SLIP], s[_ACC] = v_wheel, -slip, acc
        p_wheel = np.zeros(n) if sensors.wheel_pressure is None else np.asarray(sensors.wheel_pressure, dtype=float)
        source = np.maximum(sensors.master_cylinder_pressure, commands.active_pressure)
        braked = source > self.p_min
        driver = sensors.master_cylinder_pressure > self.p_min
        mu = self._friction(vx, float(sensors.ay), period_s, driver and bool(np.any(s[_CONTROLLED] != 0.0)))
        g[_VALID] = 1.0
        target = self.k_sigma * self.c_sigma * mu
        g[_TARGET] = target
        factor = np.ones(n) if commands.slip_target_factor is None else commands.slip_target_factor
        controlled_before = s[_CONTROLLED].copy()
        limit = np.full(n, math.inf)
        for w in range(n):
            if vx < self.v_min or not braked[w]:
                s[_CONTROLLED, w], s[_PHASE, w], s[_LIMIT, w], s[_E_PREV, w] = 0.0, NORMAL, 0.0, 0.0
                s[_YM_LEFT, w] = 0.0
                continue
            sigma_t = factor[w] * target
            e = slip[w] - sigma_t
            if s[_CONTROLLED, w] == 0.0:
                if slip[w] <= sigma_t and not (acc[w] < -self.decel_on and slip[w] > self.slip_on):
                    continue
                s[_CONTROLLED, w], s[_LIMIT, w], s[_E_PREV, w] = 1.0, p_wheel[w], 0.0
            p = s[_LIMIT, w] - self.k_p * (e - s[_E_PREV, w]) - self.k_i * period_s * e
            s[_LIMIT, w] = min(max(p, 0.0), source[w], p_wheel[w] + self.margin)
            s[_E_PREV, w] = e
            limit[w] = s[_LIMIT, w]
        # yaw-moment build-up limiting: a front wheel's first control starts the other front wheel's slow rise
        if self.t_ym > 0.0 and self._front.size == 2:
            for i, w in enumerate(self._front):
                other = self._front[1 - i]
                if controlled_before[w] == 0.0 and s[_CONTROLLED, w] != 0.0 and s[_CONTROLLED, other] == 0.0 \
                        and braked[other]:
                    s[_YM_LEFT, other] = self.t_ym
            for i, w in enumerate(self._front):
                if s[_YM_LEFT, w] > 0.0:
                    other = self._front[1 - i]
                    base = limit[other] if math.isfinite(limit[other]) else p_wheel[other]
                    limit[w] = min(limit[w], base + self.r_ym * (self.t_ym - s[_YM_LEFT, w]))
                    s[_YM_LEFT, w] = max(s[_YM_LEFT, w] - period_s, 0.0)
        if self.select_low and self._rear.size == 2:
            limit[self._rear] = limit[self._rear].min()
        for w in range(n):
            if math.isfinite(limit[w]) and limit[w] < source[w]:
                d = limit[w] - p_wheel[w]
                s[_PHASE, w] = BUILD_PHASE if d > PHASE_TOLERANCE_PA else (
                    RELEASE_PHASE if d < -PHASE_TOLERANCE_PA else HOLD_PHASE)
            else:
                s[_PHASE, w] = NORMAL
            s[_OUT_LIMIT, w] = limit[w] if s[_PHASE, w] != NORMAL else 0.0
        commands.pressure_limit[:] = np.minimum(commands.pressure_limit, limit)

    def output_values(self) -> np.ndarray:
        s, g = self._w, self._g
        return np.concatenate([[float(np.any(s[_PHASE] != NORMAL))], s[_PHASE], s[_SLIP], s[_ACC],
                               [g[_MU], g[_TARGET]], s[_OUT_LIMIT]])
