"""Chassis control: the hydraulic brake system and the brake-based controllers (ABS, TCS, ESC).

* ``hydraulics``  the per-wheel hydraulic brake (master cylinder, modulator valves, pressure lag and rate
                  limits, brake torque = gain x pressure), stepped with the vehicle;
* ``ecu``         the controller unit at its own sample period (10 ms): sensors in, valve modes, active
                  pressures and a drive-torque factor out; it runs the functions below in a fixed order;
* ``abs``, ``tcs``, ``esc``   the functions, each switchable and with its own tuning and state;
* ``closed_loop`` a vehicle driven through the brakes and the controller with the Python API.

Described in docs/chassis_control.md.
"""
