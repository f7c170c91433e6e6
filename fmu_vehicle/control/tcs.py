"""Traction control (TCS): driven-wheel slip limiting by active brake pressure on a spinning wheel and by
drive-torque reduction when the driven wheels spin together. Described in docs/chassis_control.md §3.

At each sample instant (period T), for every driven wheel w (radius r_w, spin omega_w, vehicle speed v_x)::

    lambda_w = (omega_w r_w - v_x) / max(v_x, v_min)          drive slip [-] (> 0 spinning)

Brake control, a PI controller on each driven wheel's slip above its set-point lambda_b (integral clamped to
[0, p_max], so it winds down to zero once the wheel grips; off while the driver brakes)::

    e_w  = lambda_w - lambda_b
    I_w <- clip(I_w + K_i,b e_w T, 0, p_max)
    p_active,w = clip(K_p,b e_w + I_w, 0, p_max)               [Pa]

Engine control, a PI controller on the slip of the driven wheel that spins least (both spin when it does)
above the set-point lambda_e, with lambda_e below lambda_b: the torque comes down until one wheel grips
without brake, and the brake then keeps the other (low-friction) wheel at lambda_b::

    e_e  = min_w lambda_w - lambda_e
    I_e <- clip(I_e + K_i,e e_e T, 0, 1 - f_min)
    f    = 1 - clip(K_p,e e_e + I_e, 0, 1 - f_min)             drive_torque_factor [-]

Active pressure only acts through valve APPLY (hydraulics: p_target = max(p_mc, p_active)); ABS, which runs
last, still limits it. ESC, which runs after TCS, reads these pressures and expects the yaw their moment
M_tcs = (t / 2) sum_w s_w K_w p_active,w / r_w makes (esc.py, step 1), so that on split friction it does not
brake against TCS.
"""
from __future__ import annotations

import numpy as np

from .ecu import Commands, ControlledVehicle, Sensors, read_tuning

# state: [I_w per wheel (Pa), slip per wheel, p_active per wheel (Pa), I_e, factor]


class TractionControl:
    """TCS (module docstring) for one vehicle; ``tuning`` the ``tcs`` section of the tuning file."""

    name = "tcs"
    TUNING = {
        "slip_speed_min_m_s": ("m/s", "v_min: the slip's denominator is max(v_x, v_min)", 0.1, 50.0),
        "slip_target_brake": ("1", "set-point of the brake controller", 0.0, 1.0),
        "brake_kp_Pa": ("Pa", "proportional gain of the brake controller, per unit slip", 0.0, 1e10),
        "brake_ki_Pa_per_s": ("Pa/s", "integral gain of the brake controller, per unit slip", 0.0, 1e12),
        "brake_pressure_max_Pa": ("Pa", "largest active pressure TCS asks for", 0.0, 1e8),
        "driver_brake_pressure_max_Pa": ("Pa", "above this master-cylinder pressure the driver brakes and TCS "
                                         "stands down", 0.0, 1e8),
        "slip_target_engine": ("1", "set-point of the drive-torque controller", 0.0, 1.0),
        "engine_kp": ("1", "proportional gain of the drive-torque controller, per unit slip", 0.0, 1e3),
        "engine_ki_per_s": ("1/s", "integral gain of the drive-torque controller, per unit slip", 0.0, 1e5),
        "torque_factor_min": ("1", "lowest drive-torque factor", 0.0, 1.0),
    }
    """key -> (unit, description, min, max) of the tuning values (section ``tcs`` of the tuning file)."""
    OUTPUTS = (("active", "1", "1 while TCS brakes a wheel or reduces the drive torque"),
               ("slip_{wheel}", "1", "drive slip (omega r - v_x) / max(v_x, v_min) (0 on a wheel not driven)"),
               ("pressure_{wheel}", "Pa", "active brake pressure TCS asks for (0 on a wheel not driven)"),
               ("torque_factor", "1", "factor TCS puts on the driver's drive torque"))

    def __init__(self, vehicle: ControlledVehicle, tuning: dict):
        self.vehicle = vehicle
        v = read_tuning(self, tuning)
        self.v_min, self.slip_brake, self.slip_engine = (v["slip_speed_min_m_s"], v["slip_target_brake"],
                                                         v["slip_target_engine"])
        self.kp_b, self.ki_b, self.p_max = v["brake_kp_Pa"], v["brake_ki_Pa_per_s"], v["brake_pressure_max_Pa"]
        self.kp_e, self.ki_e, self.f_min = v["engine_kp"], v["engine_ki_per_s"], v["torque_factor_min"]
        self.p_driver_max = v["driver_brake_pressure_max_Pa"]
        names = vehicle.wheel_names
        self.driven = np.flatnonzero(vehicle.driven)
        n = vehicle.n_wheels
        self.state = np.zeros(3 * n + 2)
        self._integral = self.state[0:n]
        self._slip = self.state[n:2 * n]
        self._pressure = self.state[2 * n:3 * n]
        self.reset()

    def reset(self):
        self.state[:] = 0.0
        self.state[-1] = 1.0

    def slip(self, sensors: Sensors) -> np.ndarray:
        """Drive slip of every wheel (module docstring)."""
        vx = float(sensors.vx)
        return (np.asarray(sensors.omega, dtype=float) * self.vehicle.radius_m - vx) / max(vx, self.v_min)

    def step(self, sensors: Sensors, commands: Commands, period_s: float) -> None:
        d = self.driven
        slip = self.slip(sensors)
        self._slip[:] = 0.0
        self._slip[d] = slip[d]
        if sensors.master_cylinder_pressure > self.p_driver_max or sensors.drive_torque <= 0.0:
            # the driver brakes or does not drive: nothing to limit, the controllers unwind
            self._integral[:] = 0.0
            self._pressure[:] = 0.0
            self.state[-2] = 0.0
            self.state[-1] = 1.0
            return
        e = slip[d] - self.slip_brake
        self._integral[d] = np.clip(self._integral[d] + self.ki_b * e * period_s, 0.0, self.p_max)
        self._pressure[d] = np.clip(self.kp_b * e + self._integral[d], 0.0, self.p_max)
        commands.active_pressure[d] = np.maximum(commands.active_pressure[d], self._pressure[d])
        ee = float(np.min(slip[d])) - self.slip_engine if d.size else 0.0
        cut_max = 1.0 - self.f_min
        self.state[-2] = min(max(self.state[-2] + self.ki_e * ee * period_s, 0.0), cut_max)
        self.state[-1] = 1.0 - min(max(self.kp_e * ee + self.state[-2], 0.0), cut_max)
        commands.drive_torque_factor = min(commands.drive_torque_factor, self.state[-1])

    def output_values(self) -> np.ndarray:
        d = self.driven
        active = float(np.any(self._pressure > 0.0) or self.state[-1] < 1.0)
        slip, pressure = np.zeros(self.vehicle.n_wheels), np.zeros(self.vehicle.n_wheels)
        slip[d], pressure[d] = self._slip[d], self._pressure[d]
        return np.concatenate([[active], slip, pressure, [self.state[-1]]])
