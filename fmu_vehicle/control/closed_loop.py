"""A vehicle driven through its hydraulic brakes and (optionally) the chassis-control unit, with the Python API.

Every vehicle step h (1 ms), from time t, in the order of a Gauss-Seidel co-simulation of the Robot,
ChassisControl and Vehicle FMUs (so the FMU system gives the same numbers):

    1. the driver's commands for the step, their values at t + h: steering-wheel angle, pedal force [N] ->
       master-cylinder pressure p_mc (``hydraulics``), drive-torque demand [N m];
    2. at a sample instant of the unit (t a multiple of its period): sensors = the vehicle's outputs at t, the
       driver's commands of 1. and the wheel pressures at t -> the commands held until the next instant
       (``ecu.ChassisController``);
    3. the wheel pressures advance to t + h, the hydraulic unit's valves following the held pressure limits and
       active pressures (``hydraulics.advance_pressures``);
    4. the vehicle's inputs over [t, t + h]: brake torque capacity K_w p_w(t + h) per wheel, drive torque
       = factor x demand split evenly over the driven wheels, the steering wheel ramping to its angle at
       t + h; the vehicle advances to t + h.

A driver is any object with ``command(t, h, outputs) -> (steering_wheel_angle [rad], pedal_force [N],
drive_torque [N m])``, the values for t + h from the vehicle's outputs at t; :class:`OpenLoopDriver` plays
back profiles.

The result holds the vehicle's outputs and, per row, ``driver.*``, ``brakes.*`` (master-cylinder and wheel
pressures [Pa], brake torques [N m]), ``ecu.*`` (the valve state of each wheel's last step, active pressures, drive-torque factor) and the
functions' diagnostic signals.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from ..results import Result
from ..driver.open_loop import OpenLoopDriver
from .ecu import ChassisController, Commands, ControlledVehicle, Sensors
from .hydraulics import HOLD, BrakeSystem, advance_pressures

__all__ = ["OpenLoopDriver", "controlled_vehicle", "run", "sensors_from"]


def controlled_vehicle(car, brakes: BrakeSystem | None = None) -> ControlledVehicle:
    """The constants the control unit knows of a :class:`~fmu_vehicle.vehicle.vehicle.Vehicle` (and its brake
    system's gains): the single-track constants of ``manoeuvres.vehicle_model.single_track_of``, the track, the
    axles and driven wheels, and each wheel's rolling radius: the effective one of the free-rolling start at
    static load (v / omega), not the unloaded R0, which reads about 2 % slip on a free-rolling wheel."""
    from ..manoeuvres.vehicle_model import single_track_of
    st = single_track_of(car)
    y = np.array([w.center_m[1] for w in car.spec.wheels])
    left, right = y[car.w_side > 0], y[car.w_side < 0]
    track = float(np.mean(left) - np.mean(right)) if left.size and right.size else 0.0
    x = np.array([w.center_m[0] for w in car.spec.wheels])
    front = x > 0.5 * (x.max() + x.min())
    gains = brakes.torque_gain_Nm_per_Pa.copy() if brakes is not None else np.zeros(car.n_wheels)
    start = car.simulator(None, v0=1.0).outputs()
    radius = np.array([1.0 / start[f"wheel_{w}.omega"] for w in car.wheel_names])
    return ControlledVehicle(tuple(car.wheel_names), car.w_side.copy(), front,
                             np.array([w.driven for w in car.spec.wheels]), radius, st.mass_kg,
                             float(st.yaw_inertia_kg_m2), st.a_m, st.b_m, st.cf_N_per_rad, st.cr_N_per_rad,
                             st.steering_ratio, track, gains)


def sensors_from(outputs: dict, vehicle: ControlledVehicle, t: float, steering_wheel_angle: float,
                 master_cylinder_pressure: float, drive_torque: float, wheel_pressure=None) -> Sensors:
    """The unit's sensors read from a vehicle's outputs (full-vehicle signal names) and its hydraulic model's
    wheel pressures [Pa] (None: zero)."""
    n = len(vehicle.wheel_names)
    return Sensors(t, np.array([outputs[f"wheel_{w}.omega"] for w in vehicle.wheel_names]),
                   float(outputs["chassis.yaw_rate"]), float(outputs["chassis.ay"]), float(steering_wheel_angle),
                   float(outputs["chassis.vx"]), float(master_cylinder_pressure), float(drive_torque),
                   np.zeros(n) if wheel_pressure is None else np.array(wheel_pressure, dtype=float))


def run(car, road, duration: float, driver, brakes: BrakeSystem, controller: ChassisController | None = None, *,
        v0: float = 0.0, x0: float | None = None, dt: float = 1e-3, record_every: int = 1, stop=None) -> Result:
    """Drive ``car`` on ``road`` for ``duration`` [s] from speed ``v0`` [m/s] (module docstring). ``x0``
    (default: the centre of mass starts at x = 0) as in ``Vehicle.simulator``; ``controller`` None runs the
    brakes alone (every inlet valve open). ``stop(outputs)`` True ends the run after that step."""
    if tuple(brakes.wheel_names) != tuple(car.wheel_names):
        raise ModelError(f"brake system '{brakes.name}' is for wheels {brakes.wheel_names}, the vehicle has "
                         f"{car.wheel_names}")
    n_steps = int(round(duration / dt))
    if n_steps < 1 or abs(n_steps * dt - duration) > 1e-9 * max(duration, 1.0):
        raise ModelError(f"duration {duration!r} s must be a positive whole number of steps dt = {dt!r} s")
    every = 1
    if controller is not None:
        every = int(round(controller.sample_period_s / dt))
        if every < 1 or abs(every * dt - controller.sample_period_s) > 1e-9:
            raise ModelError(f"the controller's sample period {controller.sample_period_s} s must be a whole "
                             f"number of vehicle steps dt = {dt} s")
        controller.reset()
        cv = controller.vehicle
    else:
        cv = None
    x0 = -float(car.chassis_com0[0]) if x0 is None else float(x0)
    sim = car.simulator(road, v0=v0, x0=x0, dt=dt)
    nw = car.n_wheels
    driven = np.array([w.driven for w in car.spec.wheels])
    n_driven = max(int(driven.sum()), 1)
    p = np.zeros(nw)
    valves = np.full(nw, HOLD)
    commands = Commands.neutral(nw)
    extra_names = (["driver.steering_wheel_angle", "driver.pedal_force", "driver.drive_torque",
                    "brakes.master_cylinder_pressure"]
                   + [f"brakes.pressure_{w}" for w in car.wheel_names]
                   + [f"brakes.torque_{w}" for w in car.wheel_names]
                   + [f"ecu.mode_{w}" for w in car.wheel_names]
                   + [f"ecu.active_pressure_{w}" for w in car.wheel_names] + ["ecu.drive_torque_factor"])
    extra_units = (["rad", "N", "N.m", "Pa"] + ["Pa"] * nw + ["N.m"] * nw + ["1"] * nw + ["Pa"] * nw + ["1"])
    diag = controller.output_table() if controller is not None else []
    extra_names += [n for n, _, _ in diag]
    extra_units += [u for _, u, _ in diag]
    swa = 0.0
    times, rows = [], []
    diag_values = controller.output_values() if controller is not None else np.zeros(0)
    torque_b = brakes.torques(p)

    def record(t, pedal, drive, p_mc):
        ext = [swa, pedal, drive, p_mc, *p, *torque_b, *valves, *commands.active_pressure,
               commands.drive_torque_factor]
        times.append(t)
        rows.append(np.concatenate([sim.row, ext, diag_values]))

    out = sim.outputs()
    for k in range(n_steps):
        t = k * dt
        swa_next, pedal, drive = driver.command(t, dt, out)
        if not (math.isfinite(swa_next) and math.isfinite(pedal) and math.isfinite(drive)):
            raise ModelError(f"driver command at t = {t:g} s is not finite: {(swa_next, pedal, drive)}")
        p_mc = brakes.master_cylinder_pressure(pedal)
        if controller is not None and k % every == 0:
            commands = controller.sample(sensors_from(out, cv, t, swa_next, p_mc, drive, p))
            diag_values = controller.output_values()      # the diagnostics change at sample instants only
        if k == 0:
            record(t, pedal, drive, p_mc)
        advance_pressures(brakes, p, p_mc, commands.pressure_limit, commands.active_pressure, dt, valves)
        torque_b = brakes.torques(p)
        per_wheel_drive = drive * commands.drive_torque_factor / n_driven
        for w, name in enumerate(car.wheel_names):
            sim.set_input(name, torque_brake=torque_b[w], torque_drive=per_wheel_drive if driven[w] else 0.0)
        if car.steer_drv >= 0:
            sim.set_steering(swa_next)
        sim.advance(dt)
        swa = swa_next
        if (k + 1) % record_every == 0 or k + 1 == n_steps:
            record(sim.t, pedal, drive, p_mc)
        out = sim.outputs()
        if stop is not None and stop(out):
            break
    names = list(car.output_names) + extra_names
    units = [u for _, u, _ in car.outputs] + extra_units
    return Result.from_columns(times, names, units, np.array(rows),
                               {"vehicle": car.name, "brakes": brakes.name, "dt": dt, "v0": v0,
                                "controller": None if controller is None else
                                [n for n, on in controller.enabled.items() if on]})
