"""The driver: steering profiles, paths and the closed-loop path follower on the linear single-track model."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_vehicle.driver import Path, PathFollower, SteeringProfile, load_driver_params
from fmu_vehicle.errors import ModelError
from fmu_vehicle.manoeuvres.lane_change import iso3888_1_layout, lane_change_kpis, lane_change_path
from fmu_vehicle.manoeuvres.single_track import SingleTrack, closed_loop

#: a mid-size car: 1.26 deg/g understeer, characteristic speed 125 km/h
CAR = SingleTrack(mass_kg=1500.0, yaw_inertia_kg_m2=2500.0, a_m=1.2, b_m=1.5, cf_N_per_rad=130000.0,
                  cr_N_per_rad=160000.0, steering_ratio=16.0)
WHEEL_RADIUS_M = 0.3


def driver_params(**overrides):
    return load_driver_params(wheelbase_m=CAR.wheelbase_m, steering_ratio=CAR.steering_ratio,
                              mass_kg=CAR.mass_kg, wheel_radius_m=WHEEL_RADIUS_M, **overrides)


# ------------------------------------------------------------------------------------------ profile

def test_profile_parses_and_interpolates():
    p = SteeringProfile.parse("0:0,0.5:0,0.7:40,6:40")
    assert list(p.breakpoints) == [0.0, 0.5, 0.7, 6.0]
    assert p.angle(0.6) == pytest.approx(math.radians(20.0))
    assert p.angle(-1.0) == 0.0 and p.angle(100.0) == pytest.approx(math.radians(40.0))
    assert np.allclose(p.angle(np.array([0.5, 0.7])), np.radians([0.0, 40.0]))
    # the rate is the slope of the segment containing t, segments closed on the left
    assert p.rate(0.5) == pytest.approx(math.radians(200.0))
    assert p.rate(0.69) == pytest.approx(math.radians(200.0))
    assert p.rate(0.7) == 0.0 and p.rate(0.4999) == 0.0 and p.rate(-1.0) == 0.0 and p.rate(6.0) == 0.0
    assert np.allclose(p.rate(np.array([0.0, 0.6, 7.0])), [0.0, math.radians(200.0), 0.0])
    right = SteeringProfile.parse(" 0 : -10 ")
    assert right.angle(3.0) == pytest.approx(math.radians(-10.0)) and right.rate(3.0) == 0.0


@pytest.mark.parametrize("text, words", [
    ("", "empty"), ("   ", "empty"),
    ("0:0,0:5", "breakpoint 2"), ("0:0,1:5,0.5:3", "breakpoint 3"),
    ("0:0,a:5", "item 2"), ("0:0,1:x", "item 2"), ("0:nan", "item 1"), ("0:0,inf:1", "item 2"),
    ("0:0,1", "item 2"), ("0:0,1:2:3", "item 2"), ("0:0,,1:2", "item 2"),
])
def test_profile_errors_name_the_item(text, words):
    with pytest.raises(ModelError, match=words):
        SteeringProfile.parse(text)


# ------------------------------------------------------------------------------------------ paths

def test_straight_and_circle_geometry():
    line = Path.straight(100.0, start=(1.0, 2.0), heading_rad=math.pi / 2)
    foot = line.nearest(0.0, 50.0)
    assert foot.s == pytest.approx(48.0) and foot.lateral_error == pytest.approx(1.0)   # x = 0 is left of +y
    assert line.at(110.0)[:2] == pytest.approx((1.0, 112.0))                             # continued straight
    circle = Path.circle(40.0)
    assert circle.closed and circle.length == pytest.approx(2 * math.pi * 40.0, rel=1e-6)
    assert np.allclose(np.hypot(circle.x, circle.y - 40.0), 40.0)
    assert np.allclose(circle.curvature, 1.0 / 40.0)
    x, y, h, k = circle.at(circle.length * 2.25)                                         # wraps
    assert (x, y) == pytest.approx((40.0, 40.0), abs=1e-3) and h == pytest.approx(4.5 * math.pi, abs=1e-3)
    inside = circle.nearest(0.0, 1.0)                                                    # towards the centre
    assert inside.lateral_error == pytest.approx(1.0, abs=1e-4)
    right = Path.circle(40.0, left=False)
    assert np.allclose(right.curvature, -1.0 / 40.0) and right.nearest(0.0, 1.0).lateral_error > 0.0


def test_hinted_queries_agree_with_a_full_scan_along_a_run():
    path = Path.circle(30.0)
    phi = np.linspace(0.0, 4.0 * math.pi, 900)                   # two laps, a wobbling run
    r = 30.0 + 0.5 * np.sin(7.0 * phi)
    x, y = r * np.sin(phi), 30.0 - r * np.cos(phi)
    s, e = path.project(x, y)
    hint = None
    for k in range(0, x.size, 37):
        full = path.nearest(x[k], y[k])
        hinted = path.nearest(x[k], y[k], hint)
        hint = hinted.segment
        assert hinted.lateral_error == pytest.approx(full.lateral_error, abs=1e-9)
        assert e[k] == pytest.approx(full.lateral_error, abs=1e-9)
    assert np.allclose(-e, 0.5 * np.sin(7.0 * phi), atol=1e-3)   # + = left = towards the centre


def test_spline_and_csv_paths(tmp_path):
    phi = np.linspace(0.0, 2.0 * math.pi, 40, endpoint=False)
    closed = Path.from_points(25.0 * np.cos(phi), 25.0 * np.sin(phi), closed=True)
    assert closed.length == pytest.approx(2 * math.pi * 25.0, rel=1e-3)
    assert np.allclose(closed.curvature, 1.0 / 25.0, rtol=0.01)
    csv = tmp_path / "arc.csv"
    xs, ys = 50.0 * np.sin(phi[:10] / 4), 50.0 * (1 - np.cos(phi[:10] / 4))
    csv.write_text("# a left-hand arc, R 50 m\nx_m,y_m,note\n" + "".join(f"{a},{b},p\n" for a, b in zip(xs, ys)))
    arc = Path.from_csv(csv)
    assert np.allclose(arc.curvature[20:-20], 0.02, rtol=0.01)
    assert arc.heading[0] == pytest.approx(0.0, abs=1e-3)
    (tmp_path / "bad.csv").write_text("x,y\n0,0\n1,1\n")
    with pytest.raises(ModelError, match="x_m"):
        Path.from_csv(tmp_path / "bad.csv")
    (tmp_path / "bad2.csv").write_text("x_m,y_m\n0,0\n1,one\n")
    with pytest.raises(ModelError, match="row 2"):
        Path.from_csv(tmp_path / "bad2.csv")
    with pytest.raises(ModelError, match="coincide"):
        Path.from_points([0.0, 1.0, 1.0], [0.0, 0.0, 0.0])


def test_lane_change_centre_line_lies_in_the_gates_with_continuous_curvature():
    width = 1.8
    track = iso3888_1_layout(width)
    path = lane_change_path(width)
    for gate in track.gates:
        inside = (path.x >= gate.x_start) & (path.x <= gate.x_end)
        assert np.allclose(path.y[inside], gate.centre)
    # no curvature steps: between samples 0.1 m apart kappa changes by at most 60 h / d^3 ds (the quintic's
    # third derivative at its ends, h = 3.59 m, d = 25 m), where a cosine blend would jump by pi^2 h / (2 d^2)
    assert np.max(np.abs(np.diff(path.curvature))) < 60 * 3.6 / 25.0 ** 3 * 0.1 * 1.05
    shifts = [(track.gates[1].centre - track.gates[0].centre, 30.0), (track.gates[2].centre - track.gates[1].centre, 25.0)]
    assert np.max(np.abs(path.curvature)) == pytest.approx(max(5.7735 * abs(h) / d ** 2 for h, d in shifts), rel=0.03)
    assert path.y[0] == 0.0 and path.y[-1] == pytest.approx(track.gates[-1].centre)


# ------------------------------------------------------------------------------------------ parameters

def test_driver_parameters_need_the_vehicle_and_name_bad_fields():
    with pytest.raises(ModelError, match="wheelbase_m"):
        load_driver_params(steering_ratio=16.0, mass_kg=1500.0, wheel_radius_m=0.3)
    with pytest.raises(ModelError, match="preview_tme_s"):
        driver_params(preview_tme_s=1.0)
    with pytest.raises(ModelError, match="preview_time_s"):
        driver_params(preview_time_s=-1.0)
    p = driver_params(preview_time_s=0.8)
    assert p.preview_time_s == 0.8 and p.mass_kg == 1500.0
    assert p.with_overrides(speed_kp_1_per_s=2.0).speed_kp_1_per_s == 2.0


# ------------------------------------------------------------------------------------------ closed loop

def test_follows_a_straight_line_and_holds_the_target_speed():
    path = Path.straight(600.0)
    run = closed_loop(CAR, PathFollower(path, driver_params(), speed_m_s=25.0), t_end=25.0, y0=1.0, vx0=10.0,
                      wheel_radius_m=WHEEL_RADIUS_M)
    _, e = path.project(run["x"], run["y"])
    t = run["t"]
    assert abs(e[0]) == pytest.approx(1.0)
    assert np.max(np.abs(e[t > 5.0])) < 0.02 and np.max(np.abs(e[t > 15.0])) < 0.01
    assert np.max(np.abs(e)) < 1.0 + 1e-9                             # no overshoot beyond the start offset
    assert np.max(run["vx"]) < 25.3                                   # speed overshoot below 0.3 m/s
    assert np.max(np.abs(run["vx"][t > 15.0] - 25.0)) < 0.1
    assert np.all(run["wheel_torque"][t < 2.0] > 0.0)                 # accelerates first
    assert run["wheel_torque"][-1] == pytest.approx(                  # then holds against the resistance
        WHEEL_RADIUS_M * (CAR.mass_kg * 9.80665 * 0.012 + 0.4 * 25.0 ** 2), rel=0.05)


def test_brakes_to_a_lower_target_speed():
    path = Path.straight(600.0)
    run = closed_loop(CAR, PathFollower(path, driver_params(), speed_m_s=10.0), t_end=15.0, vx0=25.0,
                      wheel_radius_m=WHEEL_RADIUS_M)
    assert run["wheel_torque"][0] < 0.0
    assert np.max(np.abs(run["vx"][run["t"] > 10.0] - 10.0)) < 0.1


@pytest.mark.parametrize("radius_m, speed_m_s, limit_m", [(40.0, 12.0, 0.05), (100.0, 20.0, 0.03)])
def test_follows_a_circle_with_a_small_steady_error(radius_m, speed_m_s, limit_m):
    path = Path.circle(radius_m)
    run = closed_loop(CAR, PathFollower(path, driver_params(), speed_m_s=speed_m_s), t_end=30.0,
                      vx0=speed_m_s, wheel_radius_m=WHEEL_RADIUS_M)
    _, e = path.project(run["x"], run["y"])
    late = run["t"] > 20.0
    assert np.max(np.abs(e)) < 0.15
    assert np.max(np.abs(e[late])) < limit_m
    # the steering settles on the model's steady-state angle i_s (L/R + EG v^2/R)
    assert run["steering_wheel_angle"][-1] == pytest.approx(CAR.steady_state_steering(speed_m_s, radius_m),
                                                            rel=0.01)


@pytest.mark.parametrize("speed_kmh", [60.0, 70.0, 80.0])
def test_drives_the_iso3888_double_lane_change_without_hitting_cones(speed_kmh):
    width = 1.8
    path = lane_change_path(width)
    v = speed_kmh / 3.6
    run = closed_loop(CAR, PathFollower(path, driver_params(), speed_m_s=v), t_end=path.length / v, x0=-60.0,
                      vx0=v, wheel_radius_m=WHEEL_RADIUS_M)
    kpis = lane_change_kpis(run["t"], run["x"], run["y"], run["yaw"], run["ay"], width, path=path,
                            front_m=3.6, rear_m=0.9)
    assert kpis["completed"]
    assert kpis["cones_hit"] == 0 and kpis["gates_passed"] == 4, kpis["violations"]
    assert kpis["max_path_error_m"] < 0.3
    # the peak lateral acceleration is near the centre line's v^2 max|kappa| (the driver cuts the peak)
    assert 0.65 < kpis["peak_ay_m_s2"] / (v * v * np.max(np.abs(path.curvature))) < 1.1
    assert np.max(np.abs(np.diff(run["steering_wheel_angle"]))) / 0.01 <= math.radians(800.0) + 1e-9


def test_the_driver_refuses_time_going_back():
    drv = PathFollower(Path.straight(100.0), driver_params(), speed_m_s=10.0)
    drv.command(1.0, 0.0, 0.0, 0.0, 10.0)
    drv.command(1.0, 0.0, 0.0, 0.0, 10.0)          # a repeated instant is allowed
    with pytest.raises(ModelError, match="time went back"):
        drv.command(0.5, 0.0, 0.0, 0.0, 10.0)
