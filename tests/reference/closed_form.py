"""Closed-form mechanics of the assembled vehicles (no tests here): ``mass_points`` (every body and removed rod,
placed by the reference's kinematics) and the steady longitudinal acceleration from torque, radius, rolling
resistance and inertia (``closed_form_acceleration``, ``steady_acceleration``; the equation is in
test_vehicle_closed_form.py's docstring), used by that module, test_vehicle_midsize.py, test_examples.py and
test_cli.py."""
from __future__ import annotations

import math

import numpy as np

from fmu_vehicle.road import load_road
from fmu_vehicle.tire.pacejka import effective_rolling_radius
from fmu_vehicle.tire.tir import P_LMY, P_QSY1, P_QSY3, P_QSY4, P_R0
from reference import cartesian
from reference.states import coordinates

G = 9.81     # the mechanisms' gravity, [0, 0, -9.81] m/s^2


def mass_points(mech):
    """(mass [kg], CoM [m]) of every body and removed rod at the state in mech.data (a system's mechanism,
    ``VehicleSystem.mech``), placed by the reference's kinematics (not the engine's)."""
    z, zd = coordinates(mech)
    tree = [j for j in mech.spec.joints if j.name not in mech.info.cut_joints]
    bodies, _ = cartesian.body_states(mech.spec, z, zd, tree)
    out = [(b.mass_kg, bodies[b.name].g) for b in mech.spec.bodies]
    for r in mech.spec.rods:
        ra, rb = bodies[r.body_a].point(r.point_a_m), bodies[r.body_b].point(r.point_b_m)
        out.append((r.mass_kg, (1 - r.com_fraction) * ra + r.com_fraction * rb))
    return out


def closed_form_acceleration(car, t, col, torques: dict, road_name: str, grade: float, window):
    """(measured, closed-form) acceleration along the road [m/s^2] over the time ``window`` [s] of a run:
    ``t`` the times, ``col(name)`` the recorded output ``name``, ``torques`` the drive torque per wheel."""
    k = (t >= window[0]) & (t <= window[1])
    c, s = math.cos(grade), math.sin(grade)
    v_road = col("chassis.vx") * c + col("chassis.vz") * s
    a_meas = np.polyfit(t[k], v_road[k], 1)[0]
    road = load_road(road_name)
    M = car.total_mass_kg
    num, den = -M * G * s, M
    for i, w in enumerate(car.spec.wheels):
        p = car.tire_p[i]
        assert p[P_QSY3] == 0.0 and p[P_QSY4] == 0.0
        fz = col(f"wheel_{w.name}.tire_fz")[k].mean()
        pos = "pos." if f"wheel_{w.name}.pos.x" in car.output_names else ""     # the full car: Chrono's names
        x, zc = col(f"wheel_{w.name}.{pos}x")[k], col(f"wheel_{w.name}.{pos}z")[k]
        d = ((zc - road.height(x)) * c).mean()                     # loaded radius: centre to road plane
        re = effective_rolling_radius(p, p[P_R0] - d)
        my = -p[P_R0] * fz * p[P_QSY1] * p[P_LMY]
        inertia = next(b for b in car.spec.mechanism.bodies if b.name == w.body).inertia_kg_m2[1, 1]
        num += (torques.get(w.name, 0.0) + my) / d
        den += inertia / (d * re)
    return a_meas, num / den


def steady_acceleration(car, road_name, v0, torque, grade, t_end=4.0, window=(2.5, 4.0)):
    """(measured, closed-form) acceleration of a run with ``torque`` on every driven wheel."""
    torques = {w.name: torque for w in car.spec.wheels if w.driven}
    res = car.simulate(road_name, t_end, v0=v0, drive_torque=torques)
    return closed_form_acceleration(car, res.t, lambda n: res[n], torques, road_name, grade, window)
