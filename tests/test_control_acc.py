"""ACC + AEB control law against a point-mass vehicle; sampling, jerk limit, TTC trigger, FMU == model."""
import dataclasses
import math

import numpy as np
import pytest

from fmu_vehicle.control import AccController, AccParameters
from fmu_vehicle.errors import ModelError
from fmu_vehicle.scenario import LeadVehicle, parse_speed_profile

try:
    from test_fmi_support import companion_fmus, simulate_in_child  # noqa: F401
except ImportError:
    from .test_fmi_support import companion_fmus, simulate_in_child  # noqa: F401

P = AccParameters()


def follow(profile, v0, gap0=None, T=25.0, h=1e-3, lag=0.3, params=P):
    """Closed loop: point mass m with first-order actuator lag, rolling + aero resistance.

    Returns per-step arrays t, gap, v_ego, a_cmd, aeb, and the controller.
    """
    lead = LeadVehicle(parse_speed_profile(profile), 0.0)
    gap0 = params.standstill_distance + params.time_gap * v0 if gap0 is None else gap0
    x, v, force = -gap0, v0, 0.0
    ctl = AccController(params, 0.0, x, v, 0.0, lead.x, lead.vx)
    out = {k: [] for k in ("t", "gap", "v", "a_cmd", "aeb", "brake")}
    for i in range(int(round(T / h))):
        f_cmd = ctl.throttle * params.drive_force_max - ctl.brake * params.brake_torque_max / params.wheel_radius
        force += h / lag * (f_cmd - force)
        a = (force - 0.012 * params.mass * 9.81 - 0.6 * v * v) / params.mass
        v = max(v + h * a, 0.0)
        x += h * v
        t = (i + 1) * h
        lead.set_time(t)
        ctl.x_ego, ctl.v_ego, ctl.a_ego, ctl.x_lead, ctl.v_lead = x, v, a, lead.x, lead.vx
        ctl.step(h)
        for k, val in (("t", t), ("gap", lead.x - x), ("v", v), ("a_cmd", ctl.a_cmd), ("aeb", ctl.aeb_active),
                       ("brake", ctl.brake)):
            out[k].append(val)
    return {k: np.array(val) for k, val in out.items()}, ctl


@pytest.mark.parametrize("profile, v0", [
    ("0:20,5:20,8:8,12:8", 20.0),        # 4 m/s^2 to 8 m/s
    ("0:20,5:20,8.4:0", 20.0),           # ~6 m/s^2 to standstill
    ("0:30,5:30,10:10", 30.0),           # 4 m/s^2 from 30 m/s
])
def test_time_gap_is_kept_behind_a_braking_lead(profile, v0):
    r, ctl = follow(profile, v0, T=35.0)
    moving = r["v"] > 1.0
    time_gap = (r["gap"][moving] - P.standstill_distance) / r["v"][moving]   # stricter than gap / v
    assert time_gap.min() >= P.time_gap - 0.3
    assert not r["aeb"].any()                           # ACC alone handles these
    assert r["gap"].min() > 0.8 * P.standstill_distance
    assert r["v"][-1] == pytest.approx(parse_speed_profile(profile).speeds[-1], abs=0.15)


def test_cruise_reaches_set_speed_without_lead():
    params = dataclasses.replace(P, set_speed=27.0)
    r, _ = follow("0:20", 20.0, gap0=1000.0, T=40.0, params=params)
    assert r["v"][-1] == pytest.approx(27.0, abs=0.02)           # integral action removes the offset
    assert r["v"].max() < 27.0 + 0.5


@pytest.mark.parametrize("profile, v0, gap0, mode", [
    ("0:0", 0.0, 1000.0, "acc"),             # cruise from standstill to 27 m/s, no lead in range
    ("0:20,5:20,5.5:0", 20.0, None, "acc"),  # the lead stops at 40 m/s2: ACC alone (no AEB stage)
])
def test_comfort_limits_bound_the_command(profile, v0, gap0, mode):
    """The ACC command never leaves [-decel_max, accel_max] (2 and 6 m/s2, the comfort and authority
    limits), and reaches the limit that the situation asks for: the full acceleration when far below
    the set speed, the full deceleration behind a lead that stops much harder than 6 m/s2."""
    params = dataclasses.replace(P, set_speed=27.0, mode=mode)
    r, _ = follow(profile, v0, gap0=gap0, T=12.0, params=params)
    a = r["a_cmd"]
    assert a.max() <= params.accel_max and a.min() >= -params.decel_max
    if v0 == 0.0:
        assert a.max() == params.accel_max
    else:
        assert a.min() == -params.decel_max


def test_jerk_limit_and_sampling():
    r, _ = follow("0:20,5:20,8.4:0", 20.0)
    a = r["a_cmd"][~r["aeb"]]
    steps = np.diff(a)
    assert np.abs(steps).max() <= P.jerk_max * P.sample_period * (1 + 1e-12)
    assert np.abs(steps).max() > 0.9 * P.jerk_max * P.sample_period   # the limit is active
    # with 1 ms steps the outputs change only every 10th step, at t = k * Ts
    changed = np.flatnonzero(np.diff(r["brake"]) != 0) + 1
    assert changed.size > 50
    k = r["t"][changed] / P.sample_period
    np.testing.assert_allclose(k, np.round(k), atol=1e-6)


def test_aeb_triggers_at_ttc_threshold_with_hysteresis():
    """Open loop: ego at 20 m/s toward a stopped object; TTC = gap / 20 falls by Ts each sample."""
    params = dataclasses.replace(P, sensor_range=500.0)
    ctl = AccController(params, 0.0, 0.0, 20.0, 0.0, 60.0, 0.0)
    ttc_seen, active = [], []
    for k in range(1, 200):
        ctl.x_ego = 20.0 * k * params.sample_period
        ctl.step(params.sample_period)
        ttc_seen.append(ctl.ttc)
        active.append(ctl.aeb_active)
    first = active.index(True)
    assert ttc_seen[first] < params.ttc_on <= ttc_seen[first - 1]
    assert (ctl.brake, ctl.throttle) == (1.0, 0.0)
    assert ctl.brake_torque_front == pytest.approx(params.brake_torque_max * params.brake_front_bias / 2)
    assert ctl.brake_torque_rear == pytest.approx(params.brake_torque_max * (1 - params.brake_front_bias) / 2)
    # object moves away slowly: TTC rises; stays on below ttc_off, releases above it
    gap = ctl.gap
    for k in range(400):
        ctl.x_lead += 0.1                         # gap grows while the ego input still closes at 20 m/s
        ctl.step(params.sample_period)
        if ctl.ttc <= params.ttc_off:
            assert ctl.aeb_active
        elif ctl.ttc > params.ttc_off:
            assert not ctl.aeb_active
            break
    else:
        pytest.fail("AEB never released")
    assert ctl.gap > gap
    no_aeb = AccController(dataclasses.replace(params, mode="acc"), 0.0, 0.0, 20.0, 0.0, 10.0, 0.0)
    assert no_aeb.ttc < params.ttc_on and not no_aeb.aeb_active


def test_aeb_on_cut_in():
    r, _ = follow("0:5", 20.0, gap0=15.0, T=10.0)
    assert r["aeb"][:50].all()                         # TTC = 1 s at the first sample
    assert r["gap"].min() > 0.0                        # no collision


def test_parameter_errors_name_the_parameter():
    with pytest.raises(ModelError, match="'ttc_off'"):
        AccParameters(ttc_on=2.0, ttc_off=1.0)
    with pytest.raises(ModelError, match="'mode'"):
        AccParameters(mode="autopilot")
    with pytest.raises(ModelError, match="'time_gap'"):
        AccParameters(time_gap=math.nan)


def test_fmu_equals_python_model(companion_fmus, tmp_path):
    t = np.linspace(0.0, 6.0, 61)
    lead_x = 40.0 + 18.0 * t - 0.5 * 4.0 * np.clip(t - 2.0, 0, None) ** 2     # lead brakes at 4 m/s^2
    lead_v = 18.0 - 4.0 * np.clip(t - 2.0, 0, None)
    ego_v = 20.0 - 0.5 * t
    ego_x = 20.0 * t - 0.25 * t ** 2
    sig = np.array(list(zip(t, ego_x, ego_v, lead_x, lead_v)),
                   dtype=[("time", float), ("ego.x", float), ("ego.vx", float), ("lead.x", float), ("lead.vx", float)])
    names = ["ego.x", "ego.vx", "lead.x", "lead.vx", "throttle", "brake", "brake_torque_front", "brake_torque_rear",
             "accel_command", "gap", "ttc", "aeb_active"]
    res = simulate_in_child(companion_fmus["Controller"], tmp_path, stop_time=6.0, input_signals=sig,
                            start_values={"acc.time_gap": 1.5}, outputs=names)
    params = dataclasses.replace(P, time_gap=1.5)
    ctl = AccController(params, 0.0, res["ego.x"][0], res["ego.vx"][0], 0.0, res["lead.x"][0], res["lead.vx"][0])
    rows = [(ctl.throttle, ctl.brake, ctl.brake_torque_front, ctl.brake_torque_rear, ctl.a_cmd, ctl.gap, ctl.ttc,
             ctl.aeb_active)]
    for i in range(len(res) - 1):
        ctl.t = res["time"][i]
        ctl.x_ego, ctl.v_ego = res["ego.x"][i + 1], res["ego.vx"][i + 1]
        ctl.x_lead, ctl.v_lead = res["lead.x"][i + 1], res["lead.vx"][i + 1]
        ctl.step(res["time"][i + 1] - res["time"][i])
        rows.append((ctl.throttle, ctl.brake, ctl.brake_torque_front, ctl.brake_torque_rear, ctl.a_cmd, ctl.gap,
                     ctl.ttc, ctl.aeb_active))
    got = np.column_stack([res[n] for n in names[4:]]).astype(float)
    assert res["aeb_active"].any() and res["brake"].max() == 1.0      # the run reaches the AEB stage
    np.testing.assert_allclose(got, np.array(rows, dtype=float), rtol=0, atol=1e-12)
    # discrete outputs: they change only at multiples of the 10 ms sample period
    changed = np.flatnonzero(np.diff(res["brake"]) != 0) + 1
    k = res["time"][changed] / 0.01
    np.testing.assert_allclose(k, np.round(k), atol=1e-6)
