"""Handling manoeuvres on the linear single-track model: the model against its closed-form steady state,
the ISO 4138 understeer gradient, the ISO 7401 step-steer metrics, the ISO 3888-1 track and KPIs, the
kinematics table and the plots."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_vehicle.driver import Path, PathFollower, load_driver_params
from fmu_vehicle.errors import ModelError
from fmu_vehicle.manoeuvres import plots
from fmu_vehicle.manoeuvres.kinematics import kinematics_table
from fmu_vehicle.manoeuvres.lane_change import iso3888_1_layout, lane_change_kpis, lane_change_path
from fmu_vehicle.manoeuvres.single_track import SingleTrack, closed_loop, simulate
from fmu_vehicle.manoeuvres.steady_state import ConstantRadiusRun, understeer_gradient
from fmu_vehicle.manoeuvres.step_steer import step_steer_metrics, step_steer_profile

CAR = SingleTrack(mass_kg=1500.0, yaw_inertia_kg_m2=2500.0, a_m=1.2, b_m=1.5, cf_N_per_rad=130000.0,
                  cr_N_per_rad=160000.0, steering_ratio=16.0)


# ------------------------------------------------------------------------------------------ single track

def test_closed_form_quantities():
    L = 2.7
    K = 1500.0 * (1.5 * 160000.0 - 1.2 * 130000.0) / (L * L * 130000.0 * 160000.0)
    assert CAR.stability_factor == pytest.approx(K)
    assert CAR.understeer_gradient == pytest.approx((1500.0 / L) * (1.5 / 130000.0 - 1.2 / 160000.0))
    assert CAR.understeer_gradient_deg_per_g == pytest.approx(math.degrees(K * L) * 9.80665)
    assert CAR.characteristic_speed_m_s == pytest.approx(1.0 / math.sqrt(K))
    # at the characteristic speed the yaw-rate gain is half that of a neutral car
    v = CAR.characteristic_speed_m_s
    assert CAR.yaw_rate_gain(v) == pytest.approx(0.5 * v / L / 16.0)
    assert CAR.critical_speed_m_s == math.inf
    with pytest.raises(ModelError, match="cf_N_per_rad"):
        SingleTrack(1500.0, 2500.0, 1.2, 1.5, 0.0, 160000.0, 16.0)


def test_oversteer_model_loses_stability_at_the_critical_speed():
    over = SingleTrack(1500.0, 2500.0, 1.5, 1.2, 130000.0, 100000.0, 16.0)
    assert over.understeer_gradient < 0.0 and over.characteristic_speed_m_s == math.inf
    v = over.critical_speed_m_s
    assert np.max(over.eigenvalues(0.95 * v).real) < 0.0 < np.max(over.eigenvalues(1.05 * v).real)


@pytest.mark.parametrize("speed_m_s", [10.0, 20.0, 30.0, 45.0])
def test_steady_state_gain_equals_the_simulated_final_value(speed_m_s):
    t = np.linspace(0.0, 15.0, 3001)
    delta = math.radians(20.0)
    sim = simulate(CAR, t, np.full(t.size, delta), speed_m_s)
    assert sim["r"][-1] / delta == pytest.approx(CAR.yaw_rate_gain(speed_m_s), rel=1e-6)
    assert sim["ay"][-1] / delta == pytest.approx(CAR.lateral_acceleration_gain(speed_m_s), rel=1e-6)
    # the steady circle: delta_sw = i_s (L / R + EG a_y) with R = v / r
    R = speed_m_s / sim["r"][-1]
    assert CAR.steady_state_steering(speed_m_s, R) == pytest.approx(delta, rel=1e-6)


def test_understeer_gradient_of_a_closed_loop_constant_radius_run():
    run = ConstantRadiusRun(radius_m=100.0, acceleration_m_s2=0.1, ay_end_m_s2=4.5)
    params = load_driver_params(wheelbase_m=2.7, steering_ratio=16.0, mass_kg=1500.0, wheel_radius_m=0.3)
    res = closed_loop(CAR, PathFollower(run.path(), params, speed_m_s=run.speed), t_end=run.duration_s,
                      vx0=run.speed_start_m_s)
    assert res["ay"][-1] == pytest.approx(4.5, rel=0.02)
    fit = understeer_gradient(res["ay"], res["steering_wheel_angle"], 16.0, 2.7, 100.0)
    assert fit["understeer_gradient_rad_per_m_s2"] == pytest.approx(CAR.understeer_gradient, rel=0.01)
    assert fit["understeer_gradient_deg_per_g"] == pytest.approx(CAR.understeer_gradient_deg_per_g, rel=0.01)
    assert fit["ay_range_m_s2"][1] <= 4.0 and fit["ay_range_m_s2"][0] >= 0.5
    assert abs(fit["intercept_rad"]) < 0.02 * fit["ackermann_rad"]


def test_understeer_gradient_of_a_right_hand_circle_and_errors():
    R = 40.0
    v = np.linspace(4.0, 14.0, 50)
    swa = -np.array([CAR.steady_state_steering(s, R) for s in v])
    fit = understeer_gradient(-v * v / R, swa, 16.0, 2.7, R)
    assert fit["understeer_gradient_rad_per_m_s2"] == pytest.approx(CAR.understeer_gradient, rel=1e-9)
    with pytest.raises(ModelError, match="too little"):
        understeer_gradient(v * v / R * 0.1, -swa, 16.0, 2.7, R)
    with pytest.raises(ModelError, match="steering_ratio"):
        understeer_gradient(v * v / R, -swa, 0.0, 2.7, R)


# ------------------------------------------------------------------------------------------ step steer

def test_step_steer_profile_is_the_iso7401_ramp():
    p = step_steer_profile(math.radians(40.0), t_start_s=0.5, rate_deg_s=400.0)
    assert p.angle(0.5) == 0.0 and p.angle(0.6) == pytest.approx(math.radians(40.0))
    assert p.rate(0.55) == pytest.approx(math.radians(400.0))
    for bad in (150.0, 600.0):
        with pytest.raises(ModelError, match="rate_deg_s"):
            step_steer_profile(0.5, rate_deg_s=bad)


def step_run(speed_kmh: float, amplitude_deg: float | None = None, rate_deg_s: float = 400.0):
    v = speed_kmh / 3.6
    amplitude = math.radians(amplitude_deg) if amplitude_deg else 4.0 / CAR.lateral_acceleration_gain(v)
    t = np.arange(0.0, 6.0, 0.001)
    sim = simulate(CAR, t, step_steer_profile(amplitude, rate_deg_s=rate_deg_s), v)
    return t, sim, step_steer_metrics(t, sim["steering_wheel_angle"], sim["r"], sim["ay"])


def test_step_steer_metrics_give_the_analytic_gains():
    t, sim, m = step_run(80.0)
    assert m["yaw_rate"]["gain"] == pytest.approx(CAR.yaw_rate_gain(80.0 / 3.6), rel=1e-6)
    assert m["ay"]["gain"] == pytest.approx(CAR.lateral_acceleration_gain(80.0 / 3.6), rel=1e-6)
    assert m["ay"]["steady_state"] == pytest.approx(4.0, rel=1e-6)
    ramp = m["steering_wheel_angle_rad"] / math.radians(400.0)
    assert m["t50_s"] == pytest.approx(0.5 + 0.5 * ramp, abs=1e-6)
    # the response time is where the yaw rate crosses 90 %, measured from t50
    k = np.searchsorted(t, m["t50_s"] + m["yaw_rate"]["response_time_s"])
    assert sim["r"][k - 1] < 0.9 * m["yaw_rate"]["steady_state"] <= sim["r"][k]
    assert 0.05 < m["yaw_rate"]["response_time_s"] < 0.3
    assert m["yaw_rate"]["peak_response_time_s"] > m["yaw_rate"]["response_time_s"]
    left = step_steer_metrics(t, -sim["steering_wheel_angle"], -sim["r"], -sim["ay"])
    assert left["yaw_rate"]["gain"] == pytest.approx(m["yaw_rate"]["gain"])
    assert left["yaw_rate"]["steady_state"] == pytest.approx(-m["yaw_rate"]["steady_state"])


def test_step_steer_response_moves_the_right_way_with_speed():
    """The yaw mode's damping ratio falls with speed (2 zeta omega_n is proportional to 1/v, omega_n falls
    more slowly), so the yaw-rate overshoot grows; the lateral acceleration, which needs the body slip
    angle to build up, lags more at higher speed. Same steering input at every speed."""
    speeds = [40.0, 60.0, 80.0, 100.0, 120.0]
    metrics = [step_run(s, amplitude_deg=20.0)[2] for s in speeds]
    zeta = []
    for s in speeds:
        lam = CAR.eigenvalues(s / 3.6)
        wn = math.sqrt(abs(np.prod(lam)))
        zeta.append(-np.sum(lam).real / (2 * wn))
    assert np.all(np.diff(zeta) < 0.0)
    overshoot = [m["yaw_rate"]["overshoot_pct"] for m in metrics]
    assert np.all(np.diff(overshoot[1:]) > 0.0) and overshoot[-1] > 5.0
    ay_response = [m["ay"]["response_time_s"] for m in metrics]
    assert np.all(np.diff(ay_response) > 0.0)


# ------------------------------------------------------------------------------------------ lane change

def test_iso3888_1_track_dimensions():
    w = 1.8
    track = iso3888_1_layout(w)
    g1, g3, g5, g6 = track.gates
    assert [g.width for g in track.gates] == pytest.approx([1.1 * w + 0.25, 1.2 * w + 0.25, 1.3 * w + 0.25,
                                                             1.3 * w + 0.25])
    assert [(g.x_start, g.x_end) for g in track.gates] == [(0.0, 15.0), (45.0, 70.0), (95.0, 110.0), (110.0, 125.0)]
    assert g3.y_right - g1.y_right == pytest.approx(3.5)
    assert g5.y_right == g1.y_right == g6.y_right == pytest.approx(-0.5 * (1.1 * w + 0.25))
    mirrored = iso3888_1_layout(w, left=False)
    assert mirrored.gates[1].y_left == pytest.approx(-g3.y_right)
    with pytest.raises(ModelError, match="vehicle_width_m"):
        iso3888_1_layout(0.0)


def test_lane_change_kpis_on_prescribed_runs():
    w = 1.8
    path = lane_change_path(w)
    x = np.arange(-20.0, 140.0, 0.2)
    y = np.interp(x, path.x, path.y)
    yaw = np.interp(x, path.x, path.heading)
    t = x / 20.0
    ay = 400.0 * np.interp(x, path.x, path.curvature)
    on_line = lane_change_kpis(t, x, y, yaw, ay, w, path=path)
    assert on_line["gates_passed"] == 4 and on_line["cones_hit"] == 0 and on_line["completed"]
    assert on_line["max_path_error_m"] < 1e-3
    assert on_line["peak_ay_m_s2"] == pytest.approx(400.0 * np.max(np.abs(path.curvature)), rel=1e-3)
    assert on_line["peak_yaw_rate_rad_s"] == pytest.approx(20.0 * np.max(np.abs(path.curvature)), rel=0.02)
    # 0.5 m to the left: the body crosses the left-hand lines of every gate
    shifted = lane_change_kpis(t, x, y + 0.5, yaw, ay, w, path=path)
    assert shifted["gates_passed"] == 0 and shifted["cones_hit"] >= 4
    assert shifted["max_path_error_m"] == pytest.approx(0.5, rel=1e-3)
    # a body 4.5 m long, yawed on the centre line, still fits; one 2.53 m wide (wider than sections 1 and 3
    # of the 1.8 m car's track, narrower than sections 5 and 6) does not
    assert lane_change_kpis(t, x, y, yaw, ay, w, path=path, front_m=3.6, rear_m=0.9)["cones_hit"] == 0
    wide = lane_change_kpis(t, x, y, yaw, ay, 1.1 * w + 0.25 + 0.3, track=iso3888_1_layout(w), path=path)
    assert wide["cones_hit"] == 12 and wide["gates_passed"] == 2
    assert [v[0] for v in wide["violations"]] == ["section 1", "section 3"]
    # stopping before the end: not completed, the last gates not passed
    short = x < 100.0
    partial = lane_change_kpis(t[short], x[short], y[short], yaw[short], ay[short], w, path=path)
    assert not partial["completed"] and partial["gates_passed"] == 2


# ------------------------------------------------------------------------------------------ kinematics

def test_kinematics_table_gradients():
    z = np.linspace(-0.08, 0.08, 33)
    toe = 0.001 - 0.2 * z + 3.0 * z ** 2            # rad
    camber = -0.01 - 0.5 * z
    rack = np.linspace(-0.07, 0.07, 15)
    table = kinematics_table(z, toe, camber, rack, 0.001 + 5.0 * rack, -0.01 + 0.3 * rack ** 2, name="front left")
    g = table.gradients_deg_per_m
    assert g["bump_steer"] == pytest.approx(math.degrees(-0.2), rel=1e-6)
    assert g["camber_change"] == pytest.approx(math.degrees(-0.5), rel=1e-6)
    assert g["toe_per_rack"] == pytest.approx(math.degrees(5.0), rel=1e-6)
    assert g["camber_per_rack"] == pytest.approx(0.0, abs=1e-9)
    assert table.wheel.toe_deg[16] == pytest.approx(math.degrees(0.001))
    assert len(table.rows()) == 33 + 15
    with pytest.raises(ModelError, match="design position"):
        kinematics_table(z[z > 0.01], toe[z > 0.01], camber[z > 0.01])
    with pytest.raises(ModelError, match="one toe and one camber"):
        kinematics_table(z, toe[:-1], camber)


# ------------------------------------------------------------------------------------------ plots

def test_every_manoeuvre_plot_is_written(tmp_path):
    t, sim, m = step_run(80.0)
    files = [plots.plot_step_steer(tmp_path / "step.png", t, sim["steering_wheel_angle"], sim["r"], sim["ay"], m)]
    R = 100.0
    v = np.linspace(5.0, 21.0, 200)
    swa = np.array([CAR.steady_state_steering(s, R) for s in v])
    fit = understeer_gradient(v * v / R, swa, 16.0, 2.7, R)
    files.append(plots.plot_constant_radius(tmp_path / "circle.png", v * v / R, swa, 16.0, 2.7, R, fit))
    path = lane_change_path(1.8)
    x = np.arange(-20.0, 140.0, 0.5)
    y, yaw = np.interp(x, path.x, path.y), np.interp(x, path.x, path.heading)
    ay = 400.0 * np.interp(x, path.x, path.curvature)
    kpis = lane_change_kpis(x / 20.0, x, y, yaw, ay, 1.8, path=path)
    files.append(plots.plot_lane_change(tmp_path / "dlc.svg", x / 20.0, x, y, yaw, ay, kpis, 1.8,
                                        centre_line=path, front_m=3.6, rear_m=0.9))
    z = np.linspace(-0.08, 0.08, 17)
    table = kinematics_table(z, -0.2 * z, -0.5 * z, z, 5.0 * z, 0.3 * z ** 2)
    files.append(plots.plot_kinematics(tmp_path / "kin.png", table))
    for f in files:
        assert f.is_file() and f.stat().st_size > 5000
    assert files[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and b"<svg" in files[2].read_bytes()[:500]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["circle.png", "dlc.svg", "kin.png", "step.png"]
