"""Controllers: every function that turns measurements into actuator commands (the driver models are ``driver``).

* ``acc``         adaptive cruise control with an emergency-braking stage (Controller.fmu);
* ``hydraulics``  the per-wheel hydraulic brake (master cylinder, modulator valves, pressure lag and rate
                  limits, brake torque = gain x pressure), stepped with the vehicle;
* ``ecu``         the chassis controller unit at its own sample period (10 ms): sensors in, pressure limits, active
                  pressures and a drive-torque factor out; it runs the functions below in a fixed order
                  (ChassisControl.fmu);
* ``abs``, ``tcs``, ``esc``   the chassis functions, each switchable and with its own tuning and state;
* ``closed_loop`` a vehicle driven through the brakes and the chassis controller with the Python API;
* ``braking``     the ISO braking and launch tests run that way (straight and in a turn, split friction).

Described in docs/chassis_control.md and docs/fmus.md.
"""
from fmu_vehicle.control.acc import AccController, AccParameters

__all__ = ["AccController", "AccParameters"]
