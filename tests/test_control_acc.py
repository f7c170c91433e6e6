"""ACC + AEB control law against a point-mass vehicle; sampling, jerk limit, TTC trigger, FMU == model."""
import dataclasses
import math

import numpy as np
import pytest

from fmu_vehicle.control import AccController, AccParameters
from fmu_vehicle.errors import ModelError
from fmu_vehicle.traffic import LeadVehicle, parse_speed_profile

from fmi_support import simulate_in_child

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
    ("0:20,5:20,13:0", 20.0),            # 2.5 m/s^2 to standstill (the ISO 15622 stop case)
    ("0:30,5:30,10:10", 30.0),           # 4 m/s^2 from 30 m/s
])
def test_time_gap_is_kept_behind_a_braking_lead(profile, v0):
    """While the lead moves, (gap - d0) / v stays within 0.3 s of the 1.8 s time gap (stricter than gap / v);
    once the lead has stopped the car stops at d0 (the stopping law, see the next test), where
    (gap - d0) / v tends to 0 by design, so the time gap is checked only while the lead moves."""
    r, ctl = follow(profile, v0, T=35.0)
    lead_v = np.array([parse_speed_profile(profile).evaluate(t)[1] for t in r["t"]])
    moving = (r["v"] > 1.0) & (lead_v > P.lead_stopped_speed)
    time_gap = (r["gap"][moving] - P.standstill_distance) / r["v"][moving]
    assert time_gap.min() >= P.time_gap - 0.3
    assert not r["aeb"].any()                           # ACC alone handles these (<= 4 m/s^2 leads)
    assert r["gap"].min() > 0.8 * P.standstill_distance
    assert r["v"][-1] == pytest.approx(parse_speed_profile(profile).speeds[-1], abs=0.15)


def test_stops_holds_and_restarts_behind_a_stopped_lead():
    """Lead: 16 m/s, brakes at 2.5 m/s^2 to a stop at 11.4 s, waits, pulls away at 2 m/s^2 to 12 m/s at 26 s.
    The stopping law brings the car to rest at d0 = 5 m: the lag of the point mass (0.3 s) lets it
    overshoot by at most v_ref(0.05 m) * lag ~ 0.1 m, so the stop gap is 5 m within 0.5 m.  It is held at
    rest (brake >= brake_hold, speed 0) until the lead moves off, then follows it up to 12 m/s."""
    profile = "0:16,5:16,11.4:0,20:0,26:12,40:12"
    r, ctl = follow(profile, 16.0, T=40.0)
    stop = int(np.argmax(r["v"] < P.stop_speed))
    assert 11.4 < r["t"][stop] < 20.0 and r["v"][stop:stop + 10].max() < P.stop_speed
    assert r["gap"][stop] == pytest.approx(P.standstill_distance, abs=0.5)
    assert r["gap"].min() > P.standstill_distance - 0.5 and not r["aeb"].any()
    still = (r["t"] > r["t"][stop] + 0.5) & (r["t"] < 20.0)
    assert r["v"][still].max() == 0.0 and r["brake"][still].min() >= P.brake_hold
    after = r["t"] > 38.0
    assert r["v"][after] == pytest.approx(12.0, abs=0.3)       # restarted, following at 12 m/s


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
    """The ACC command never leaves [-decel_max, accel_max] (2 m/s2 comfort, 3.5 m/s2 the ISO 15622 ACC-stage
    deceleration bound), and reaches the limit that the situation asks for: the full acceleration when far
    below the set speed, the full deceleration behind a lead that stops much harder than 3.5 m/s2."""
    params = dataclasses.replace(P, set_speed=27.0, mode=mode)
    r, _ = follow(profile, v0, gap0=gap0, T=12.0, params=params)
    a = r["a_cmd"]
    assert params.decel_max == 3.5
    assert a.max() <= params.accel_max and a.min() >= -params.decel_max
    if v0 == 0.0:
        assert a.max() == params.accel_max
    else:
        assert a.min() == -params.decel_max


def iso15622_jerk(v):
    """ISO 15622:2018 ACC jerk limit [m/s^3]: 5 below 5 m/s, 5.83 - v/6 between 5 and 20 m/s (the line
    through (5, 5) and (20, 2.5), 35/6 - v/6), 2.5 above 20 m/s."""
    return np.where(v <= 5.0, 5.0, np.where(v >= 20.0, 2.5, 5.0 - (v - 5.0) / 6.0))


def test_jerk_limit_and_sampling():
    """Lead brakes at 3.3 m/s^2 from 25 m/s: the command's change per 10 ms sample stays within the ISO 15622
    speed-dependent jerk limit at the speed the controller saw, and that limit is reached at high speed
    (2.5 m/s^3 above 20 m/s)."""
    r, _ = follow("0:25,5:25,12.5:0", 25.0, T=20.0)
    assert not r["aeb"].any()
    steps = np.diff(r["a_cmd"])
    bound = iso15622_jerk(r["v"][1:]) * P.sample_period
    assert np.all(np.abs(steps) <= bound * (1 + 1e-9) + 1e-12)
    fast = r["v"][1:] > 20.0
    assert np.abs(steps[fast]).max() > 0.99 * 2.5 * P.sample_period      # the high-speed limit is active
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


def test_aeb_mode_brakes_only_for_the_collision_and_then_holds():
    """Mode "aeb" (the Euro NCAP car-to-car set-up): the ACC stage commands nothing (no throttle, no brake
    while TTC >= 1.5 s), the AEB brakes fully below TTC 1.5 s, and the car, stopped, is held.  CCRs at
    50 km/h from TTC 4 s: the point mass brakes at up to 30 kN / 2.5 t = 12 m/s^2 after its 0.3 s lag, so
    it stops well before the target."""
    params = dataclasses.replace(P, mode="aeb")
    v0 = 50.0 / 3.6
    r, ctl = follow("0:0", v0, gap0=4.0 * v0, T=8.0, params=params)
    ttc = r["gap"] / np.maximum(r["v"], 1e-9)
    first = int(np.argmax(r["aeb"]))
    assert r["aeb"].any() and ttc[first] < params.ttc_on <= ttc[first - 10]
    assert r["brake"][:first].max() == 0.0 and r["a_cmd"][:first].max() == 0.0
    assert r["gap"].min() > 0.0 and r["v"][-1] == 0.0 and ctl.brake >= params.brake_hold


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
