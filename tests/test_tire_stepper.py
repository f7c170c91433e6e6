"""The single-wheel stepper: the rig and the Tire FMU's model step through the same code (equal to the last bit),
held motion follows its polynomial, and a step samples its outputs where the FMU's output_time says."""
from __future__ import annotations

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.numerics.interp import interp_held
from fmu_vehicle.paths import resource_path
from fmu_vehicle.road import FlatRoad, SpeedBumpRoad, plane_arrays
from fmu_vehicle.tire import models
from fmu_vehicle.tire.pacejka import effective_rolling_radius
from fmu_vehicle.tire.stepper import (N_STATES, S_KAPPA, S_OMEGA, S_VX, S_VZ, S_X, S_Z, W_ALPHA, W_AX, W_AZ,
                                      rk4_step, wheel_advance, wheel_arrays)
from fmu_vehicle.tire.tir import TireParams, read_tir, side_by_side
from fmu_vehicle.tire.tire_planar import TireModel
from fmu_vehicle.tire.wheel import simulate_wheel

P = read_tir(resource_path("tires", "dai2022_sedan.tir")).to_array()
H = 1e-3


def test_rig_and_tire_fmu_give_the_same_numbers_to_the_last_bit():
    """A driven wheel (2 % slip) at 12 m/s over a speed bump at fixed spindle height: the rig holds vx, vz
    and the spin; the FMU's model, fed the rig's wheel state at every step (end-of-step outputs, one
    sub-step per step), reproduces the rig's slip and forces exactly."""
    road = SpeedBumpRoad([(1.0, 0.5, 0.03)])
    speed = 12.0
    omega = speed * 1.02 / effective_rolling_radius(P, 0.02)
    run = simulate_wheel(P, mass_kg=500.0, inertia_kg_m2=1.0, duration_s=0.3, v0_m_per_s=speed,
                         omega0_rad_per_s=omega, road=road, prescribed_vx=True, prescribed_vz=True,
                         prescribed_omega=True)
    assert run.fz.max() > 2.0 * run.fz[0] and run.kappa.max() > 0.01      # the bump and the slip build-up
    model = TireModel(P, road.to_arrays(), run.kappa[0])
    for k in range(len(run.t) - 1):
        kin = (run.x[k], run.z[k], run.vx[k], run.vz[k], run.omega[k])
        out = model.step(run.t[k], H, H, kin, (0.0, 0.0, 1.0), output_time="end")
        assert (out["slip"], out["fx"], out["fz"], out["my"]) == (run.kappa[k + 1], run.fx[k + 1], run.fz[k + 1],
                                                                   run.my[k + 1]), k
        assert model.kappa == run.kappa[k + 1]


def test_held_motion_follows_its_polynomial_and_outputs_are_sampled_in_the_step():
    """Held velocities with rates: after n sub-steps the centre is c + v h + a h^2/2 and the spin omega + alpha h
    (to round-off); the slip sampled at h/2 matches an RK4 run that stops there."""
    w = wheel_arrays(P, plane_arrays(0.0, 0.01, 0.05, 0.9), hold_vx=True, hold_vz=True, hold_omega=True)
    w.wheel[W_AX], w.wheel[W_AZ], w.wheel[W_ALPHA] = -3.0, 0.7, 20.0
    y0 = np.zeros(N_STATES)
    y0[S_X], y0[S_Z], y0[S_VX], y0[S_VZ], y0[S_OMEGA], y0[S_KAPPA] = 2.0, 0.3, 10.0, -0.2, 33.0, 0.01
    h = 4e-3
    for n in (1, 3, 4):
        y, y_mid = y0.copy(), np.zeros(N_STATES)
        wheel_advance(0.0, h, n, 0.5 * h, y, w, y_mid)
        assert y[S_X] == pytest.approx(2.0 + 10.0 * h - 1.5 * h * h, rel=1e-15)
        assert y[S_Z] == pytest.approx(0.3 - 0.2 * h + 0.35 * h * h, rel=1e-15)
        assert y[S_VX] == pytest.approx(10.0 - 3.0 * h, rel=1e-15)
        assert y[S_OMEGA] == pytest.approx(33.0 + 20.0 * h, rel=1e-15)
        assert y_mid[S_X] == pytest.approx(2.0 + 10.0 * h / 2 - 1.5 * (h / 2) ** 2, rel=1e-15)
        if n % 2 == 0:                                     # h/2 ends sub-step n/2: that sub-step's result
            half = y0.copy()
            for i in range(n // 2):
                rk4_step(i * (h / n), h / n, half, w)
            assert np.array_equal(y_mid, half)
        else:                                              # inside a sub-step: the continuous extension
            fine = y0.copy()
            for i in range(200):
                rk4_step(i * (h / 400), h / 400, fine, w)
            assert y_mid[S_KAPPA] - y0[S_KAPPA] == pytest.approx(fine[S_KAPPA] - y0[S_KAPPA], rel=1e-3)


def test_the_torque_tables_are_np_interp():
    """The stepper's drive and brake tables (``numerics.interp.interp_held``): np.interp to the bit."""
    times = np.array([0.0, 1.0, 1.0, 2.5, 4.0])
    values = np.array([0.0, 0.0, 500.0, -20.0, 7.0])
    for t in (-1.0, 0.0, 0.3, 1.0, 1.7, 2.5, 3.9, 4.0, 9.0):
        assert interp_held(times, values, t) == np.interp(t, times, values)
    assert interp_held(np.zeros(1), np.array([3.0]), 5.0) == 3.0


def test_flat_road_free_rolling_needs_no_rates():
    """Held motion without rates on a flat road: the wheel's x advances by v h exactly and the centre height stays."""
    w = wheel_arrays(P, FlatRoad().to_arrays(), hold_vx=True, hold_vz=True, hold_omega=True)
    y = np.zeros(N_STATES)
    y[S_Z], y[S_VX], y[S_OMEGA] = 0.45, 8.0, 8.0 / 0.3
    for k in range(10):
        rk4_step(k * H, H, y, w)
    assert y[S_Z] == 0.45 and y[S_VX] == 8.0 and y[S_X] == pytest.approx(0.08, rel=1e-14)


@pytest.mark.parametrize("model_id, name", [(1, "other"), (7, r"unknown \(id 7\)")])
def test_the_planar_stepper_and_the_rig_refuse_a_tire_of_another_model(monkeypatch, model_id, name):
    """The stepper runs the MF 5.2 longitudinal contact on any array it gets: a tire whose model is not mf52
    (a registered one, or an id no model has) is refused where its parameters enter, naming its file."""
    monkeypatch.setattr(models, "MODELS", models.MODELS + (
        models.TireModelEntry("other", 1, (".other",), read_tir, TireParams, side_by_side),))
    p = P.copy()
    p[models.P_MODEL] = model_id
    message = rf"tire file 'tires/x\.other': tire model {name}; the planar single-wheel stepper"
    with pytest.raises(ModelError, match=message):
        wheel_arrays(p, plane_arrays(), tire_file="tires/x.other")
    with pytest.raises(ModelError, match=message):
        TireModel(p, None, 0.0, "tires/x.other")
    with pytest.raises(ModelError, match=message):
        simulate_wheel(p, mass_kg=500.0, inertia_kg_m2=1.0, duration_s=0.01, tire_file="tires/x.other")
    with pytest.raises(ModelError, match=rf"tire parameters \(no file named\): tire model {name}"):
        wheel_arrays(p, plane_arrays())
    p[models.P_MODEL] = models.MF52
    assert wheel_arrays(p, plane_arrays(), tire_file="tires/x.tir").p[models.P_MODEL] == models.MF52
