"""ESC (electronic stability control, yaw control): a yaw-rate reference from the driver's steering, a
differential brake against the yaw-rate error, and a sideslip limit. Described in docs/chassis_control.md §4.

At each sample (period T, sensors of ``ecu.Sensors``):

1. Reference. The steady-state yaw rate of the linear single-track model of the vehicle
   (:class:`~fmu_vehicle.manoeuvres.single_track.SingleTrack`, the constants of ``ControlledVehicle``) for the
   steering-wheel angle delta_sw at the speed v_x, capped by what the road can carry, then lagged::

       r_lin = v_x / (L (1 + K v_x^2)) delta_sw / i_s            (SingleTrack.yaw_rate_gain)
       r_cap = clip(r_lin, -mu g / v_x, mu g / v_x)             mu: ``friction_coefficient``
       r_ref += (r_cap - r_ref) (1 - exp(-T / tau_ref))          tau_ref: ``reference_time_constant_s``

   mu is a tuning value (the friction the reference assumes, 1.0 for a dry road), not an estimate: on a road
   of lower friction the reference asks for more yaw than the car can make; the understeer dead band keeps
   small errors of that kind from braking the inner rear wheel (docs/chassis_control.md §4, limits).

   Coordination with TCS (which runs before ESC): the active pressures p_w TCS has put into ``commands`` brake
   its spinning wheels, and on split friction the traction difference they leave between the sides yaws the
   car while the driver holds the wheel straight. ESC expects that yaw instead of braking against it: the
   reference adds the steady-state yaw rate of that moment in the same single-track model
   (:meth:`SingleTrack.yaw_moment_gain`), scaled by k_tcs (``tcs_yaw_moment_share``, 0: no allowance)::

       M_tcs = (t / 2) sum_w s_w K_w p_w / r_w                   t track, s_w +1 left / -1 right,
                                                                 K_w brake gain, r_w rolling radius
       r_lin = v_x / (L (1 + K v_x^2)) delta_sw / i_s
               + k_tcs v_x (C_f + C_r) / (C_f C_r L^2 (1 + K v_x^2)) M_tcs

   (a brake on a left wheel turns the car to the left, the sign convention of step 3). The cap mu g / v_x
   still bounds the sum, and the sideslip term still acts, so a yaw beyond what the road carries is caught.
2. Sideslip. The sideslip angle beta is not a sensor: it is estimated from its kinematic rate
   d(beta)/dt = a_y / v_x - r (a constant v_x, small beta), integrated with a leak that forgets the drift of
   sensor offsets::

       beta += T (a_y / v_x - r - beta / tau_leak)               tau_leak: ``sideslip_leak_time_s``

3. Control signal, in rad/s of yaw rate (e = r - r_ref, de/dt its difference over one sample)::

       c = e + T_d de/dt - k_beta (beta - clip(beta, -beta_max, beta_max))

   The correcting yaw moment has the sign of -c: a brake on a left wheel turns the car to the left, one on a
   right wheel to the right, so the wheel is on the side sign(-c) (+1 left).
4. Wheel and pressure. If that moment opposes the present yaw rate (sign(c) = sign(r): the car yaws more
   than the reference, or the wrong way: oversteer) the brake goes on the front wheel on that side, the
   OUTER front wheel of the turn; otherwise (it adds yaw: understeer) on the rear wheel on that side, the
   INNER rear wheel. With the dead band d of that case (``deadband_oversteer_rad_s``,
   ``deadband_understeer_rad_s``) and v_x above ``min_speed_m_s``::

       active  if  |c| > d
       p = min(k_p (|c| - d), p_max_front or p_max_rear)       k_p = p_max_front / c_full

   (c_full: ``full_pressure_error_rad_s``, the control signal beyond the dead band at which a front wheel
   gets its cap ``max_pressure_front_Pa``; the rear cap is ``max_pressure_rear_Pa``)

   ``commands.active_pressure`` of that wheel becomes max(its value, p) (the pump builds it where it is above
   the driver's pressure; ABS acts after ESC and limits it), and while active the drive-torque factor is at
   most ``drive_torque_factor_active`` (an engine torque reduction).
5. Under braking. A wheel the driver brakes to ABS's limit cannot take more pressure; the moment then comes
   from taking pressure off the other side: the FRONT wheel on the side sign(c), whose brake force makes the
   unwanted moment, gets a factor on ABS's slip set-point (``commands.slip_target_factor``)::

       f = 1 - k_red min((|c| - d) / c_full, 1)          k_red: ``braking_slip_reduction``

   and ABS's slip controller, which runs after ESC, dumps that wheel through its outlet valve to the lower slip,
   below the driver's pressure (the yaw controller setting slip set-points for the wheel-slip controllers, as
   in van Zanten 2000, "Bosch ESP Systems: 5 Years of Experience", SAE 2000-01-1633). It acts only on a wheel
   that is braked; with ABS switched off ESC can only build.

The state (``state``: r_ref, beta, the last e, and the diagnostics of the last sample) is everything carried
from one sample to the next.
"""
from __future__ import annotations

import math

import numpy as np

from ..manoeuvres.single_track import G, SingleTrack
from .ecu import ControlledVehicle, Commands, Sensors, read_tuning

# state layout
_R_REF, _BETA, _E_PREV, _R_CAP, _ERROR, _SIGNAL, _ACTIVE, _WHEEL, _PRESSURE, _VALID, _RELIEVED, _FACTOR = range(12)


class StabilityControl:
    """ESC (module docstring): ``name`` "esc" in the tuning file and in ``enabled``."""

    name = "esc"
    TUNING = {
        "min_speed_m_s": ("m/s", "below this speed ESC is off and reset", 0.1, 100.0),
        "friction_coefficient": ("1", "friction mu of the cap mu g / v_x on the yaw-rate reference", 0.05, 2.0),
        "reference_time_constant_s": ("s", "first-order lag of the yaw-rate reference (0: none)", 0.0, 5.0),
        "sideslip_leak_time_s": ("s", "leak time constant of the sideslip estimate", 0.01, 100.0),
        "sideslip_limit_rad": ("rad", "estimated sideslip beyond which the sideslip term acts", 0.0, 1.0),
        "sideslip_gain_rad_s_per_rad": ("1/s", "yaw-rate equivalent of the sideslip excess", 0.0, 100.0),
        "derivative_time_s": ("s", "derivative time of the yaw-rate error", 0.0, 1.0),
        "deadband_oversteer_rad_s": ("rad/s", "dead band of the control signal against oversteer", 0.0, 10.0),
        "deadband_understeer_rad_s": ("rad/s", "dead band of the control signal against understeer", 0.0, 10.0),
        "full_pressure_error_rad_s": ("rad/s", "control signal beyond the dead band that asks for the front "
                                      "pressure cap", 1e-3, 10.0),
        "max_pressure_front_Pa": ("Pa", "largest active pressure on a front wheel", 0.0, 5e7),
        "max_pressure_rear_Pa": ("Pa", "largest active pressure on a rear wheel", 0.0, 5e7),
        "drive_torque_factor_active": ("1", "largest drive-torque factor while ESC brakes a wheel", 0.0, 1.0),
        "tcs_yaw_moment_share": ("1", "share k_tcs of the steady-state yaw rate of TCS's brake moment that the "
                                 "reference expects (0: none)", 0.0, 1.0),
        "braking_slip_reduction": ("1", "k_red: share of ABS's slip set-point taken off the front wheel on the other "
                                   "side at full control signal (0: ESC only builds)", 0.0, 1.0),
    }
    """key -> (unit, description, min, max) of the tuning values (section ``esc`` of the tuning file)."""
    OUTPUTS = (("yaw_rate_ref", "rad/s", "yaw-rate reference r_ref (capped single-track steady state, lagged)"),
               ("yaw_rate_error", "rad/s", "yaw-rate error e = r - r_ref"),
               ("control_signal", "rad/s", "control signal c = e + T_d de/dt - sideslip term"),
               ("sideslip_estimate", "rad", "estimated sideslip angle beta (leaky integral of a_y / v_x - r)"),
               ("active", "1", "1 while ESC brakes a wheel, else 0"),
               ("wheel", "1", "the braked wheel: its place in the vehicle's wheel order counted from 1; 0 for none"),
               ("pressure_request", "Pa", "active pressure requested on that wheel"),
               ("relieved_wheel", "1", "the front wheel whose slip set-point ESC lowers: its place in the wheel "
                "order counted from 1; 0 for none"),
               ("slip_target_factor", "1", "factor f on ABS's slip set-point of that wheel (1: none)"))

    def __init__(self, vehicle: ControlledVehicle, tuning: dict):
        v = read_tuning(self, tuning)
        self.model = SingleTrack(vehicle.mass_kg, vehicle.yaw_inertia_kg_m2, vehicle.a_m, vehicle.b_m,
                                 vehicle.cf_N_per_rad, vehicle.cr_N_per_rad, vehicle.steering_ratio)
        self.min_speed, self.mu = v["min_speed_m_s"], v["friction_coefficient"]
        self.tau_ref, self.tau_leak = v["reference_time_constant_s"], v["sideslip_leak_time_s"]
        self.beta_max, self.k_beta = v["sideslip_limit_rad"], v["sideslip_gain_rad_s_per_rad"]
        self.t_d = v["derivative_time_s"]
        self.db_over, self.db_under = v["deadband_oversteer_rad_s"], v["deadband_understeer_rad_s"]
        self.p_front, self.p_rear = v["max_pressure_front_Pa"], v["max_pressure_rear_Pa"]
        self.k_p = self.p_front / v["full_pressure_error_rad_s"]
        self.torque_factor = v["drive_torque_factor_active"]
        self.k_tcs = v["tcs_yaw_moment_share"]
        self.k_red, self.c_full = v["braking_slip_reduction"], v["full_pressure_error_rad_s"]
        gain = np.asarray(vehicle.brake_gain_Nm_per_Pa, dtype=float)
        # yaw moment per unit of active pressure on each wheel [N m/Pa]: (t / 2) s_w K_w / r_w (zero without gains)
        self.moment_per_Pa = (0.5 * vehicle.track_m * np.asarray(vehicle.side, dtype=float) * gain
                              / np.asarray(vehicle.radius_m, dtype=float)) if gain.size else np.zeros(vehicle.n_wheels)
        self.front = np.asarray(vehicle.front, dtype=bool)
        self.side = np.asarray(vehicle.side, dtype=float)
        self.state = np.zeros(12)
        self.reset()

    def reset(self):
        self.state[:] = 0.0
        self.state[_FACTOR] = 1.0

    def tcs_yaw_moment(self, active_pressure) -> float:
        """M_tcs [N m] (module docstring, step 1) of the active pressures [Pa] TCS asks for."""
        return float(self.moment_per_Pa @ np.asarray(active_pressure, dtype=float))

    def reference(self, steering_wheel_angle: float, vx: float, tcs_yaw_moment: float = 0.0) -> float:
        """The capped steady-state reference r_cap [rad/s] (module docstring, step 1) for a steering-wheel
        angle [rad] at ``vx`` [m/s] (> 0) and TCS's brake moment ``tcs_yaw_moment`` [N m]."""
        r_lin = (self.model.yaw_rate_gain(vx) * steering_wheel_angle
                 + self.k_tcs * self.model.yaw_moment_gain(vx) * tcs_yaw_moment)
        cap = self.mu * G / vx
        return min(max(r_lin, -cap), cap)

    def _wheel(self, left: bool, front: bool) -> int:
        k = np.flatnonzero((self.front == front) & ((self.side > 0.0) == left))
        return int(k[0]) if k.size else -1

    def step(self, sensors: Sensors, commands: Commands, period_s: float) -> None:
        s = self.state
        vx, r = sensors.vx, sensors.yaw_rate
        if vx <= self.min_speed:
            self.reset()
            return
        r_cap = self.reference(sensors.steering_wheel_angle, vx, self.tcs_yaw_moment(commands.active_pressure))
        if s[_VALID] == 0.0 or self.tau_ref == 0.0:
            s[_R_REF] = r_cap
        else:
            s[_R_REF] += (r_cap - s[_R_REF]) * (1.0 - math.exp(-period_s / self.tau_ref))
        s[_BETA] += period_s * (sensors.ay / vx - r - s[_BETA] / self.tau_leak)
        e = r - s[_R_REF]
        de = (e - s[_E_PREV]) / period_s if s[_VALID] != 0.0 else 0.0
        beta = s[_BETA]
        c = e + self.t_d * de - self.k_beta * (beta - min(max(beta, -self.beta_max), self.beta_max))
        oversteer = c * r > 0.0
        dead = self.db_over if oversteer else self.db_under
        s[_R_CAP], s[_ERROR], s[_SIGNAL], s[_E_PREV], s[_VALID] = r_cap, e, c, e, 1.0
        s[_ACTIVE], s[_WHEEL], s[_PRESSURE], s[_RELIEVED], s[_FACTOR] = 0.0, 0.0, 0.0, 0.0, 1.0
        if abs(c) <= dead:
            return
        w = self._wheel(left=c < 0.0, front=oversteer)
        if w < 0:
            return
        p = min(self.k_p * (abs(c) - dead), self.p_front if oversteer else self.p_rear)
        commands.active_pressure[w] = max(commands.active_pressure[w], p)
        commands.drive_torque_factor = min(commands.drive_torque_factor, self.torque_factor)
        s[_ACTIVE], s[_WHEEL], s[_PRESSURE] = 1.0, float(w + 1), p
        relieved = self._wheel(left=c > 0.0, front=True)
        if relieved >= 0 and commands.slip_target_factor is not None and self.k_red > 0.0:
            f = 1.0 - self.k_red * min((abs(c) - dead) / self.c_full, 1.0)
            commands.slip_target_factor[relieved] = min(commands.slip_target_factor[relieved], f)
            s[_RELIEVED], s[_FACTOR] = float(relieved + 1), f

    def output_values(self) -> np.ndarray:
        s = self.state
        return np.array([s[_R_REF], s[_ERROR], s[_SIGNAL], s[_BETA], s[_ACTIVE], s[_WHEEL], s[_PRESSURE],
                         s[_RELIEVED], s[_FACTOR]])
