"""Anti-roll bars (``vehicle.templates.AntiRollBar``, evaluated by ``vehicle.dynamics.bar_loads``; docs/vehicle.md
§3): the vehicle file's field is checked, a bar of stiffness 0 or none is no element, the bar's forces are the
gradient of its energy and carry no net force or moment, and the steady roll of a car with and without bars is the
closed-form roll model's (``manoeuvres.vehicle_model.roll_model_of``). The ISO 4138 run of the shipped car with its
bars is in tests/test_vehicle_midsize.py.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.manoeuvres.runs import step_steer
from fmu_vehicle.manoeuvres.single_track import G
from fmu_vehicle.manoeuvres.vehicle_model import roll_model_of
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.dynamics import vehicle_rhs
from fmu_vehicle.vehicle.model import W_CENTER, W_VEL

NAME = "midsize14"
NO_BARS = {"anti_roll_bars": None}
"""Overrides that take the shipped car's bars off."""


@pytest.fixture(scope="module")
def car():
    return Vehicle.load(NAME)


def test_the_shipped_bars_and_the_field_checks(car):
    """midsize14 has a bar on each axle (front 22, rear 14 kN m/rad; the rate at the wheel K / t^2 with its
    1.56 m track); a bar of 0 is no bar, as is none; a bad field is a ModelError naming it."""
    bars = {b.axle: b for b in car.spec.anti_roll_bars}
    assert {a: b.roll_stiffness_N_m_per_rad for a, b in bars.items()} == {"front": 22000.0, "rear": 14000.0}
    assert bars["front"].track_m == pytest.approx(1.56, abs=1e-12)
    assert car.bar_rate == pytest.approx([22000.0 / 1.56 ** 2, 14000.0 / 1.56 ** 2], rel=1e-12)
    assert car.bar_wheels.tolist() == [[0, 1], [2, 3]]
    for over in (NO_BARS, {"anti_roll_bars": {"front": {"roll_stiffness_N_m_per_rad": 0.0},
                                              "rear": {"roll_stiffness_N_m_per_rad": 0.0}}}):
        bare = Vehicle.load(NAME, overrides=over)
        assert bare.spec.anti_roll_bars == () and bare.bar_wheels.shape == (0, 2) and bare.bar_rate.shape == (0,)
    assert Vehicle.load("fullcar14").spec.anti_roll_bars == ()
    bad = {"middle": {"roll_stiffness_N_m_per_rad": 1.0}}
    with pytest.raises(ModelError, match="anti_roll_bars.middle: no axle 'middle'; valid: front, rear"):
        Vehicle.load(NAME, overrides={"anti_roll_bars": bad})
    for value in (-1.0, "stiff", math.inf, math.nan):
        with pytest.raises(ModelError, match="anti_roll_bars.front: .*roll_stiffness_N_m_per_rad"):
            Vehicle.load(NAME, overrides={"anti_roll_bars.front.roll_stiffness_N_m_per_rad": value})
    with pytest.raises(ModelError, match="anti_roll_bars.front: must be an object"):
        Vehicle.load(NAME, overrides={"anti_roll_bars.front.stiffness": 1.0})
    with pytest.raises(ModelError, match="field 'anti_roll_bars' must be an object"):
        Vehicle.load(NAME, overrides={"anti_roll_bars": [1.0]})


def test_the_bar_forces_are_the_gradient_of_its_energy(car):
    """In a turn (rolled, rolling, steering), the wrenches the bars add (the difference of the external loads with
    and without them) have no net force or moment, and their power is -dV/dt of V = sum k_w (s_L - s_R)^2 / 2,
    s the wheel travel (wheel-centre height in the chassis frame): dV/dt from the wheel centres' velocities and
    the chassis's rotation, independently of the element's placement of its forces (1e-9)."""
    sim = car.simulator("flat", v0=15.0)
    sim.set_steering(1.0)
    sim.advance(0.6)
    y = sim.y.copy()
    system = car.system("flat")
    d = system.data.mech
    loads = []
    for model in (system.model, system.model._replace(bar_rate=np.zeros_like(system.model.bar_rate))):
        assert vehicle_rhs(sim.t, y, model, system.data, np.zeros_like(y)) >= 0
        loads.append(d.Qext.copy())
    dq = loads[0] - loads[1]
    assert np.abs(dq).max() > 100.0                       # the bars are loaded in the turn
    assert np.abs(dq.sum(axis=0)).max() < 1e-9 * np.abs(dq).max()
    power = float(np.sum(dq * d.Z))
    A, w = d.A[car.chassis], d.Z[car.chassis, 3:]
    e, edot = A[:, 2], np.cross(d.Z[car.chassis, 3:], A[:, 2])
    expected = 0.0
    for (wl, wr), k in zip(car.bar_wheels, car.bar_rate):
        work = system.data.work
        dc = work[wl, W_CENTER:W_CENTER + 3] - work[wr, W_CENTER:W_CENTER + 3]
        dv = work[wl, W_VEL:W_VEL + 3] - work[wr, W_VEL:W_VEL + 3]
        ds = e @ dc - (car.w_center0[wl, 2] - car.w_center0[wr, 2])
        expected -= k * ds * (edot @ dc + e @ dv)
    assert abs(w[0]) > 0.01 and abs(expected) > 1.0
    assert power == pytest.approx(expected, rel=1e-9)


def _roll_gradient_of_step_steer(car) -> float:
    """d roll / d a_y [deg/g] of the steady turns of two ISO 7401 step steers at 80 km/h (2 and 4 m/s^2 in the
    single-track estimate): the slope between their steady states (each the mean of the last second)."""
    pts = []
    for ay in (2.0, 4.0):
        res, _m = step_steer(car, 80 / 3.6, ay, hold_s=4.0)
        k = res.t > res.t[-1] - 1.0
        pts.append((np.mean(res["chassis.ay"][k]), np.mean(res["chassis.roll"][k])))
    (a1, r1), (a2, r2) = pts
    return math.degrees((r2 - r1) / (a2 - a1)) * G


def test_steady_roll_with_and_without_bars_is_the_closed_form(car):
    """The body's roll gradient in steady turns (two step steers held at 80 km/h) against the closed-form roll model
    from the springs, bars, tires and suspension kinematics: measured 5.65 deg/g with the bars (closed form 5.48),
    8.42 without (closed form 8.30); each within 5 %, and the bars' effect (the ratio of the two: 0.671, closed
    form 0.660) within 5 % of the closed form's."""
    got = {}
    for label, c in (("bars", car), ("none", Vehicle.load(NAME, overrides=NO_BARS))):
        got[label] = (_roll_gradient_of_step_steer(c), roll_model_of(c).roll_gradient_deg_per_g)
    print({k: tuple(round(x, 3) for x in v) for k, v in got.items()})
    for measured, closed in got.values():
        assert measured == pytest.approx(closed, rel=0.05)
    assert 4.0 <= got["bars"][0] <= 6.0 and got["none"][0] > 7.0
    ratio_measured, ratio_closed = got["bars"][0] / got["none"][0], got["bars"][1] / got["none"][1]
    assert ratio_measured == pytest.approx(ratio_closed, rel=0.05)
