"""The linear towing-unit-with-trailer reference (manoeuvres/single_track_trailer.py) and the articulated-vehicle
KPIs (manoeuvres/articulated.py): the single-track limit, the three literature trends of the critical speed,
the steady state, the KPIs on analytic signals, the offtracking closed form against the kinematics, the
plots and the input checks (docs/articulated.md)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.manoeuvres import plots
from fmu_vehicle.manoeuvres.articulated import (critical_speed_from_damping, fit_circle,
                                                kinematic_tractor_trailer_paths, offtracking_closed_form,
                                                offtracking_from_paths, rearward_amplification, single_sine_steer,
                                                yaw_damping)
from fmu_vehicle.manoeuvres.single_track_trailer import (CAR_CARAVAN, TRACTOR_SEMITRAILER, TrailerCombination,
                                                         critical_speed, simulate)


# ------------------------------------------------------------------------------------------ linear model

@pytest.mark.parametrize("vx", [10.0, 25.0, 40.0])
def test_a_vanishing_trailer_leaves_the_single_track_car(vx):
    eps = 1e-9
    model = CAR_CARAVAN.with_(m2_kg=CAR_CARAVAN.m2_kg * eps, i2_kg_m2=CAR_CARAVAN.i2_kg_m2 * eps,
                              ct_N_per_rad=CAR_CARAVAN.ct_N_per_rad * eps)
    lam = model.eigenvalues(vx)
    car = model.towing_unit.eigenvalues(vx)
    for c in car:
        assert np.min(np.abs(lam - c)) < 1e-5 * abs(c), (lam, car)
    # the other pair: the trailer on a hitch moving straight, J s^2 + (l^2 C_t / vx) s + l C_t = 0
    l, e = model.trailer_axle_m, model.trailer_com_m
    J, Ct = model.i2_kg_m2 + model.m2_kg * e * e, model.ct_N_per_rad
    for c in np.roots([J, l * l * Ct / vx, l * Ct]):
        assert np.min(np.abs(lam - c)) < 1e-5 * abs(c), (lam, c)
    # and the towing unit's rows of A, B are the single-track car's
    A, B, _, _ = model.state_space(vx)
    A1, B1, _, _ = model.towing_unit.state_space(vx)
    np.testing.assert_allclose(A[:2, :2], A1, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(B[:2], B1, rtol=1e-6)


def test_the_tire_forces_balance_both_units_accelerations():
    # at any state the linear and angular momentum balance of the whole combination must hold: the sum of the
    # tire forces equals m1 a_1 + m2 a_2 (independent of the hitch force), evaluated from A and C
    model, vx = TRACTOR_SEMITRAILER, 20.0
    A, B, C, D = model.state_space(vx)
    rng = np.random.default_rng(1)
    for _ in range(5):
        x = rng.normal(size=4) * [0.5, 0.1, 0.05, 0.1]
        u = rng.normal() * 0.5
        y = C @ x + D[:, 0] * u
        vy, r, th, w = x
        d = u / model.steering_ratio
        Ff = model.cf_N_per_rad * (d - (vy + model.a_m * r) / vx)
        Fr = -model.cr_N_per_rad * (vy - model.b_m * r) / vx
        Ft = model.ct_N_per_rad * (th - (vy - (model.hitch_m + model.trailer_axle_m) * r
                                         - model.trailer_axle_m * w) / vx)
        assert model.m1_kg * y[1] + model.m2_kg * y[4] == pytest.approx(Ff + Fr + Ft, rel=1e-9, abs=1e-6)


def test_caravan_preset_has_a_critical_speed_with_the_three_literature_trends():
    vc = critical_speed(CAR_CARAVAN)
    assert 20.0 < vc < 50.0                        # 72 .. 180 km/h: a real, finite snaking speed
    assert CAR_CARAVAN.snaking_mode(vc)["max_real_part"] == pytest.approx(0.0, abs=1e-6)
    assert CAR_CARAVAN.snaking_mode(0.8 * vc)["damping_ratio"] > 0.0
    assert CAR_CARAVAN.snaking_mode(1.1 * vc)["damping_ratio"] < 0.0
    base = CAR_CARAVAN
    inertia = [critical_speed(base.with_(i2_kg_m2=base.i2_kg_m2 * k)) for k in (0.8, 1.0, 1.2, 1.5)]
    overhang = [critical_speed(base.with_(hitch_m=base.hitch_m + d)) for d in (-0.3, 0.0, 0.2, 0.4)]
    nose = [critical_speed(base.with_(trailer_com_m=base.trailer_axle_m - d)) for d in (0.1, 0.2, 0.3, 0.4)]
    assert np.all(np.diff(inertia) < 0.0), inertia          # more yaw inertia: lower critical speed
    assert np.all(np.diff(overhang) < 0.0), overhang        # longer hitch overhang: lower
    assert np.all(np.diff(nose) > 0.0), nose                # more nose load: higher
    assert base.with_(trailer_com_m=3.5).nose_load_N > base.nose_load_N


def test_critical_speed_from_the_model_equals_the_one_from_its_damping_table():
    vc = critical_speed(CAR_CARAVAN)
    table = CAR_CARAVAN.damping_vs_speed(np.linspace(15.0, 45.0, 301))
    assert critical_speed_from_damping(table["speed_m_s"], table["damping_ratio"]) == pytest.approx(vc, rel=1e-3)


def test_critical_speed_errors():
    with pytest.raises(ModelError, match="v_max_m_s"):
        critical_speed(CAR_CARAVAN, v_max_m_s=20.0)
    with pytest.raises(ModelError, match="v_min_m_s"):
        critical_speed(CAR_CARAVAN, v_min_m_s=60.0, v_max_m_s=80.0)
    with pytest.raises(ModelError, match="v_min_m_s"):
        critical_speed(CAR_CARAVAN, v_min_m_s=-1.0)


@pytest.mark.parametrize("model", [CAR_CARAVAN, TRACTOR_SEMITRAILER], ids=["caravan", "semitrailer"])
def test_simulate_settles_on_the_analytic_steady_state(model):
    vx = 15.0
    ss = model.steady_state(vx)
    assert ss["theta"] == pytest.approx(ss["theta_closed_form"], rel=1e-9)
    assert ss["ay"] == pytest.approx(vx * ss["yaw_rate"], rel=1e-9)
    assert ss["ay_trailer"] == pytest.approx(ss["ay"], rel=1e-9)     # one circle, one yaw rate
    t = np.linspace(0.0, 40.0, 8001)
    u = np.where(t > 0.5, 0.05, 0.0)
    out = simulate(model, t, u, vx)
    for key, ref in (("r", "yaw_rate"), ("theta", "theta"), ("ay", "ay"), ("vy", "vy"), ("ay_trailer", "ay_trailer")):
        assert out[key][-1] == pytest.approx(0.05 * ss[ref], rel=1e-6), key
    assert out["r2"][-1] == pytest.approx(out["r"][-1], rel=1e-6)


def test_low_speed_articulation_is_the_kinematic_one():
    for model in (CAR_CARAVAN, TRACTOR_SEMITRAILER):
        vx = 0.2
        ss = model.steady_state(vx)
        curvature = ss["yaw_rate"] / vx
        assert ss["theta"] / curvature == pytest.approx(model.kinematic_articulation_per_curvature_m(), rel=1e-3)


def test_model_input_errors_name_the_field():
    with pytest.raises(ModelError, match="i2_kg_m2"):
        CAR_CARAVAN.with_(i2_kg_m2=0.0)
    with pytest.raises(ModelError, match="hitch_m"):
        CAR_CARAVAN.with_(hitch_m=float("nan"))
    with pytest.raises(ModelError, match="vx"):
        CAR_CARAVAN.state_space(0.0)
    with pytest.raises(ModelError, match="steering_wheel_angle"):
        simulate(CAR_CARAVAN, np.linspace(0, 1, 5), np.zeros(4), 10.0)
    with pytest.raises(ModelError, match="speeds_m_s"):
        CAR_CARAVAN.damping_vs_speed([10.0, -1.0])
    assert isinstance(TRACTOR_SEMITRAILER, TrailerCombination)


# ------------------------------------------------------------------------------------------ KPIs

@pytest.mark.parametrize("zeta", [0.02, 0.1, 0.3])
def test_log_decrement_returns_the_damping_of_a_damped_sine(zeta):
    wn = 2.0 * math.pi * 0.6
    wd = wn * math.sqrt(1.0 - zeta * zeta)
    t = np.linspace(0.0, 30.0, 6001)
    x = 0.02 + 0.1 * np.exp(-zeta * wn * t) * np.sin(wd * t + 0.4)
    res = yaw_damping(t, x, offset=0.02, max_peaks=4)
    assert res["damping_ratio"] == pytest.approx(zeta, abs=1e-3)
    assert res["frequency_hz"] == pytest.approx(wd / (2.0 * math.pi), rel=1e-3)


def test_log_decrement_on_the_linear_model_matches_its_eigenvalue():
    vx = 25.0
    t = np.linspace(0.0, 15.0, 7501)
    pulse = np.where((t > 0.2) & (t < 0.4), 0.05, 0.0)            # steering impulse (ISO 9815 style)
    out = simulate(CAR_CARAVAN, t, pulse, vx)
    res = yaw_damping(t, out["theta"], t_from=2.0, max_peaks=5)
    mode = CAR_CARAVAN.snaking_mode(vx)
    assert res["damping_ratio"] == pytest.approx(mode["damping_ratio"], abs=5e-3)
    assert res["frequency_hz"] == pytest.approx(mode["frequency_hz"], rel=1e-2)


def test_rearward_amplification_of_two_sines():
    t = np.linspace(0.0, 5.0, 5001)
    front = 1.5 * np.sin(2.0 * math.pi * 0.4 * t)
    rear = 0.3 + 1.5 * 1.37 * np.sin(2.0 * math.pi * 0.4 * (t - 0.3))
    res = rearward_amplification(t, front, rear)
    assert res["ratio"] == pytest.approx((1.5 * 1.37 + 0.3) / 1.5, rel=1e-6)
    tt = np.linspace(-1.0, 5.0, 6001)
    f2 = np.where(tt < 0.0, 0.0, np.sin(2.0 * math.pi * 0.4 * tt))
    r2 = 0.3 + np.where(tt < 0.0, 0.0, 1.37 * np.sin(2.0 * math.pi * 0.4 * (tt - 0.3)))
    res = rearward_amplification(tt, f2, r2, zero_before=0.0)
    assert res["ratio"] == pytest.approx(1.37, rel=1e-5)
    assert res["delay_s"] == pytest.approx(0.3, abs=2e-3)


def test_single_sine_steer_on_the_semitrailer():
    t = np.linspace(0.0, 10.0, 5001)
    u = single_sine_steer(t, math.radians(30.0), t_start=0.5)
    assert u[0] == 0.0 and u[-1] == 0.0
    assert np.max(u) == pytest.approx(math.radians(30.0), rel=1e-4)
    assert single_sine_steer(0.5 + 0.625, 1.0) == pytest.approx(1.0)
    out = simulate(TRACTOR_SEMITRAILER, t, u, 80.0 / 3.6)
    ra = rearward_amplification(t, out["ay"], out["ay_trailer"])
    assert 0.5 < ra["ratio"] < 3.0 and ra["delay_s"] > 0.0          # the trailer lags the tractor


def test_critical_speed_from_damping_interpolates():
    v = np.array([30.0, 10.0, 20.0, 40.0])
    z = np.array([0.0 - 0.05, 0.3, 0.15, -0.2])
    assert critical_speed_from_damping(v, z) == pytest.approx(20.0 + 0.15 / 0.2 * 10.0)
    with pytest.raises(ModelError, match="no critical speed"):
        critical_speed_from_damping([10.0, 20.0], [0.3, 0.1])
    with pytest.raises(ModelError, match="damping_ratio"):
        critical_speed_from_damping([10.0, 20.0], [0.3])


# ------------------------------------------------------------------------------------------ offtracking

@pytest.mark.parametrize("c", [-0.3, 0.0, 1.0])
def test_offtracking_closed_form_equals_the_kinematic_integration(c):
    L1, l, R = 3.7, 7.7, 12.5
    ref = offtracking_closed_form(R, L1, c, l)
    p = kinematic_tractor_trailer_paths(R, L1, c, l)
    assert np.hypot(p["trailer_x"][-1], p["trailer_y"][-1] - R) == pytest.approx(ref["trailer_radius_m"], abs=1e-3)
    meas = offtracking_from_paths(p["front_x"], p["front_y"], p["trailer_x"], p["trailer_y"])
    assert meas["offtracking_m"] == pytest.approx(ref["offtracking_m"], abs=1e-3)
    assert meas["centre_offset_m"] < 1e-3
    assert meas["max_offtracking_m"] >= meas["offtracking_m"] - 1e-6
    # steady articulation angle: the trailer lags
    assert p["theta"][-1] < 0.0


def test_fit_circle_and_offtracking_errors():
    a = np.linspace(0.0, 2.0, 50)
    assert fit_circle(3.0 + 5.0 * np.cos(a), -1.0 + 5.0 * np.sin(a)) == pytest.approx((3.0, -1.0, 5.0))
    with pytest.raises(ModelError, match="front_radius_m"):
        offtracking_closed_form(3.0, 3.7, 0.0, 7.7)
    with pytest.raises(ModelError, match="trailer_axle_m"):
        offtracking_closed_form(12.5, 3.7, 0.0, -7.7)
    with pytest.raises(ModelError, match="trailer_y"):
        offtracking_from_paths(a, a, a, a[:-1])
    with pytest.raises(ModelError, match="signal"):
        yaw_damping(a, a[:-1])
    with pytest.raises(ModelError, match="rear_unit"):
        rearward_amplification(a, a, np.full_like(a, np.nan))
    with pytest.raises(ModelError, match="frequency_hz"):
        single_sine_steer(a, 0.1, frequency_hz=0.0)


def test_plots(tmp_path):
    table = CAR_CARAVAN.damping_vs_speed(np.linspace(5.0, 45.0, 41))
    out = plots.plot_damping_vs_speed(tmp_path / "damping.png", table["speed_m_s"], table["damping_ratio"],
                                      critical_speed_m_s=critical_speed(CAR_CARAVAN))
    assert out.stat().st_size > 1000
    p = kinematic_tractor_trailer_paths(12.5, 3.7, -0.3, 7.7, n_points=801)
    kpis = offtracking_from_paths(p["front_x"], p["front_y"], p["trailer_x"], p["trailer_y"])
    out = plots.plot_articulation(tmp_path / "paths.png", p["t"], p["theta"], (p["front_x"], p["front_y"]),
                                  (p["trailer_x"], p["trailer_y"]), kpis=kpis)
    assert out.stat().st_size > 1000
