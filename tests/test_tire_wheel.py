"""Single-wheel rig tests (RK4, 1 ms): slope hold, free rolling, driven wheel, slip lag, braking to standstill."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire.brake import brake_torque
from fmu_vehicle.tire.pacejka import mf_fx0, relaxation_length
from fmu_vehicle.tire.tir import read_tir
from fmu_vehicle.tire.wheel import GRAVITY, simulate_wheel

TIRE = read_tir(resource_path("tires", "pacejka_light_truck.tir"))
P = TIRE.to_array()
R0 = TIRE.UNLOADED_RADIUS
MASS = 600.0      # quarter of the ~2.4 t vehicle [kg]
INERTIA = 2.5     # spin inertia of a 0.47 m light-truck wheel with tire [kg m^2]
WEIGHT = MASS * GRAVITY


def loaded_radius(fz: float) -> float:
    return R0 - fz / TIRE.VERTICAL_STIFFNESS


def rolling_radius(fz: float) -> float:
    assert TIRE.DREFF == 0.0
    return R0 - TIRE.FREFF * fz / TIRE.VERTICAL_STIFFNESS


def test_brake_held_on_a_slope_balances_gravity_without_creep():
    theta = math.radians(16.5)  # the paper's sloping road
    run = simulate_wheel(P, mass_kg=MASS, inertia_kg_m2=INERTIA, duration_s=6.0, slope_rad=theta,
                         brake_torque_Nm=2000.0)
    t = np.array([math.cos(theta), math.sin(theta)])
    n = np.array([-math.sin(theta), math.cos(theta)])
    force = run.fx[-1] * t + run.fz[-1] * n
    assert force == pytest.approx([0.0, WEIGHT], abs=1e-2)  # 2e-6 of the weight
    assert run.fx[-1] == pytest.approx(WEIGHT * math.sin(theta), rel=1e-5)
    assert run.fz[-1] == pytest.approx(WEIGHT * math.cos(theta), rel=1e-9)
    # the brake carries the slope torque through the loaded radius: T_brake - d Fx + My = 0, My ~ 0 at rest
    assert run.brake_torque[-1] == pytest.approx(loaded_radius(run.fz[-1]) * run.fx[-1], rel=1e-5)
    # no creep: the stuck brake and the tire carcass are springs, so after the start transient (a few mm)
    # the wheel stands still; 10 um over the last 2 s allows for the decaying residual oscillation only
    hold = run.t >= 4.0
    assert abs(run.x[-1] - run.x[hold][0]) < 1e-5
    assert np.max(np.abs(run.speed[hold])) < 1e-4
    assert abs(run.x[-1]) < 0.03


def test_free_rolling_wheel_decelerates_by_rolling_resistance():
    run = simulate_wheel(P, mass_kg=MASS, inertia_kg_m2=INERTIA, duration_s=3.0, v0_m_per_s=20.0)
    window = run.t >= 1.0
    accel = np.polyfit(run.t[window], run.speed[window], 1)[0]
    # m v' = Fx, I W' = -d Fx + My, W = v (1 + k)/Re  ->  v' = My / (m d + I (1 + k)/Re),  My = -R0 Fz QSY1
    my = -R0 * WEIGHT * TIRE.QSY1
    kappa = run.kappa[-1]
    expected = my / (MASS * loaded_radius(WEIGHT) + INERTIA * (1.0 + kappa) / rolling_radius(WEIGHT))
    assert accel == pytest.approx(expected, rel=1e-4)
    assert run.my[-1] == pytest.approx(my, rel=1e-9)
    # a free-rolling tire only transmits the small force that drags the wheel mass along: k' = Fx/Kx ~ 0
    dfz = (WEIGHT - TIRE.FNOMIN) / TIRE.FNOMIN
    kx = WEIGHT * (TIRE.PKX1 + TIRE.PKX2 * dfz) * math.exp(TIRE.PKX3 * dfz)
    assert abs(kappa) < 2e-3
    assert kappa == pytest.approx(run.fx[-1] / kx, rel=2e-2)
    assert run.kappa_ss[-1] == pytest.approx(kappa, rel=1e-3)


def test_driven_wheel_reaches_the_closed_form_slip():
    torque = 800.0
    run = simulate_wheel(P, mass_kg=MASS, inertia_kg_m2=INERTIA, duration_s=3.0, v0_m_per_s=15.0,
                         drive_torque_Nm=torque, prescribed_vx=True)
    d = loaded_radius(WEIGHT)
    my = R0 * WEIGHT * TIRE.QSY1
    kappa = brentq(lambda k: mf_fx0(P, WEIGHT, k, 1.0) * d - (torque - my), 0.0, 0.1, xtol=1e-14)
    assert run.kappa[-1] == pytest.approx(kappa, rel=1e-6)
    assert run.kappa_ss[-1] == pytest.approx(kappa, rel=1e-6)
    assert run.fx[-1] * d == pytest.approx(torque - abs(run.my[-1]), rel=1e-8)
    assert run.speed[-1] == pytest.approx(15.0, rel=1e-12)
    assert run.omega[-1] == pytest.approx(15.0 * (1.0 + kappa) / rolling_radius(WEIGHT), rel=1e-6)


def test_transient_slip_lags_with_time_constant_sigma_over_vx():
    speed, target = 10.0, 0.004
    omega = speed * (1.0 + target) / rolling_radius(WEIGHT)
    run = simulate_wheel(P, mass_kg=MASS, inertia_kg_m2=INERTIA, duration_s=0.4, v0_m_per_s=speed,
                         omega0_rad_per_s=omega, prescribed_vx=True, prescribed_omega=True)
    assert run.kappa_ss[0] == pytest.approx(target, rel=1e-9)
    tau = relaxation_length(P, WEIGHT) / speed
    t63 = np.interp((1.0 - math.exp(-1.0)) * target, run.kappa, run.t)
    assert t63 == pytest.approx(tau, rel=0.015)
    assert run.kappa[-1] == pytest.approx(target, rel=1e-4)
    model = target * (1.0 - np.exp(-run.t / tau))
    assert np.max(np.abs(run.kappa - model)) < 0.02 * target


def stop_index(run) -> int:
    return int(np.argmax(run.speed <= 0.0))


@pytest.mark.parametrize("brake", [2000.0, 6000.0])  # rolling (ABS-like) stop and locked-wheel stop
def test_braking_to_standstill_settles_and_stays(brake):
    v0 = 15.0
    run = simulate_wheel(P, mass_kg=MASS, inertia_kg_m2=INERTIA, duration_s=6.0, v0_m_per_s=v0,
                         brake_torque_Nm=brake)
    i = stop_index(run)
    mid = i // 2
    accel = (run.speed[mid + 100] - run.speed[mid - 100]) / (run.t[mid + 100] - run.t[mid - 100])
    if brake == 2000.0:
        # rolling: m v' = Fx, I W' = -T - d Fx + My, W = v (1 + k)/Re
        d, re = loaded_radius(WEIGHT), rolling_radius(WEIGHT)
        expected = -(brake + abs(run.my[mid])) / (MASS * d + INERTIA * (1.0 + run.kappa[mid]) / re)
        assert -0.1 < run.kappa[mid] < -0.02
    else:
        # locked: the wheel slides at k = -1 and the tire gives the Magic Formula sliding force
        expected = mf_fx0(P, WEIGHT, -1.0, 1.0) / MASS
        assert run.kappa[mid] == pytest.approx(-1.0, abs=1e-9)
        assert abs(run.omega[mid]) < 1e-3
    assert accel == pytest.approx(expected, rel=1e-6)
    assert run.t[i] == pytest.approx(v0 / abs(expected), rel=0.01)
    # after the stop: the carcass and brake springs release once, then the motion decays every window
    peaks = [np.max(np.abs(run.speed[i + k * 500:i + (k + 1) * 500])) for k in range(7)]
    assert peaks[0] < 0.5
    assert all(b < 0.6 * a for a, b in zip(peaks, peaks[1:]))
    last = run.t >= run.t[-1] - 1.0
    assert np.max(np.abs(run.speed[last])) < 1e-3
    assert abs(run.x[-1] - run.x[last][0]) < 1e-4
    assert np.max(np.abs(run.omega[last])) < 1e-3


def test_rk4_converges_at_fourth_order():
    kwargs = dict(mass_kg=MASS, inertia_kg_m2=INERTIA, duration_s=0.256, v0_m_per_s=12.0, drive_torque_Nm=600.0)
    x = [simulate_wheel(P, step_s=h, **kwargs).x[-1] for h in (1e-3, 5e-4, 2.5e-4)]
    ratio = (x[0] - x[1]) / (x[1] - x[2])
    assert 12.0 < ratio < 20.0  # 2^4 = 16 for a fourth-order method


def test_brake_element():
    torque, dphi = brake_torque(1000.0, 0.0, 5.0, 2.0)
    assert torque == -1000.0 and dphi == 5.0          # spinning: full torque opposing the spin
    torque, dphi = brake_torque(1000.0, 0.0, -5.0, 2.0)
    assert torque == 1000.0
    torque, _ = brake_torque(1000.0, 0.0, 0.0, 2.0)
    assert torque == 0.0                               # smooth through zero
    torque, _ = brake_torque(0.0, 0.01, 3.0, 2.0)
    assert torque == 0.0


def test_bad_rig_arguments():
    with pytest.raises(ModelError, match="mass_kg"):
        simulate_wheel(P, mass_kg=0.0, inertia_kg_m2=1.0, duration_s=1.0)
    with pytest.raises(ModelError, match="brake_torque_Nm"):
        simulate_wheel(P, mass_kg=1.0, inertia_kg_m2=1.0, duration_s=1.0, brake_torque_Nm=-5.0)
    with pytest.raises(ModelError, match="road_x_m"):
        simulate_wheel(P, mass_kg=1.0, inertia_kg_m2=1.0, duration_s=1.0, road_x_m=[0.0, 0.0], road_h_m=[0.0, 1.0])
    with pytest.raises(ModelError, match="params"):
        simulate_wheel(P[:-1], mass_kg=1.0, inertia_kg_m2=1.0, duration_s=1.0)


def test_piecewise_road_and_torque_tables():
    road_x = np.array([0.0, 5.0, 10.0, 100.0])
    road_h = np.array([0.0, 0.0, 0.05, 0.05])  # 5 cm ramp up
    run = simulate_wheel(P, mass_kg=MASS, inertia_kg_m2=INERTIA, duration_s=2.0, v0_m_per_s=10.0,
                         road_x_m=road_x, road_h_m=road_h, drive_torque_Nm=([0.0, 1.0, 1.0], [0.0, 0.0, 500.0]))
    assert run.drive_torque[500] == pytest.approx(0.0) and run.drive_torque[-1] == pytest.approx(500.0)
    end = run.t >= 1.5
    static = R0 - WEIGHT / TIRE.VERTICAL_STIFFNESS
    assert run.x[-1] > 15.0 and np.all(run.fz > 0.0)
    assert np.mean(run.z[end]) == pytest.approx(0.05 + static, abs=3e-3)  # rides on the upper level
