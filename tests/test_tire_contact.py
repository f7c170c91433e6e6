"""Tests for the single-point contact kernel: plane geometry, force assembly, slip rate, lift-off."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire.contact import (CONTACT_OUT_N, OUT_DEFLECTION, OUT_DKAPPA, OUT_FORCE, OUT_FX, OUT_FZ,
                                      OUT_KAPPA_SS, OUT_MY, OUT_NORMAL, OUT_POINT, OUT_RE, OUT_SIGMA, OUT_TANGENT,
                                      OUT_VSX, OUT_VX, tire_contact)
from fmu_vehicle.tire.pacejka import (low_speed_damping, mf_fx0, relaxation_length, rolling_resistance_moment,
                                      slip_relaxation_length, slip_stiffness)
from fmu_vehicle.tire.tir import read_tir

TIRE = read_tir(resource_path("tires", "pacejka_light_truck.tir"))
P = TIRE.to_array()
R0 = TIRE.UNLOADED_RADIUS
Y = np.array([0.0, 1.0, 0.0])


def contact(center, vel=(0.0, 0.0, 0.0), omega=0.0, h=0.0, s=0.0, mu=1.0, kappa=0.0, axis=Y):
    out = np.full(CONTACT_OUT_N, np.nan)
    axis = np.asarray(axis, dtype=float)
    tire_contact(P, np.asarray(center, dtype=float), np.asarray(vel, dtype=float), omega * axis, axis, h, s, mu,
                 kappa, out)
    assert np.all(np.isfinite(out))
    return out


@pytest.mark.parametrize("theta_deg", [0.0, 10.0, 16.5, -8.0])
def test_geometry_on_a_slope(theta_deg):
    theta = math.radians(theta_deg)
    s = math.tan(theta)
    delta = 0.025
    xc = 3.0
    foot = np.array([xc + 0.4, 0.0, (xc + 0.4) * s])  # a point on the road h(x) = x tan(theta)
    normal = np.array([-math.sin(theta), 0.0, math.cos(theta)])
    center = foot + (R0 - delta) * normal
    out = contact(center, h=center[0] * s, s=s)
    assert out[OUT_NORMAL:OUT_NORMAL + 3] == pytest.approx(normal, abs=1e-15)
    assert out[OUT_TANGENT:OUT_TANGENT + 3] == pytest.approx([math.cos(theta), 0.0, math.sin(theta)], abs=1e-15)
    assert out[OUT_DEFLECTION] == pytest.approx(delta, abs=1e-13)
    assert out[OUT_POINT:OUT_POINT + 3] == pytest.approx(foot, abs=1e-13)
    fz = TIRE.VERTICAL_STIFFNESS * delta
    assert out[OUT_FZ] == pytest.approx(fz, rel=1e-12)
    assert out[OUT_FORCE:OUT_FORCE + 3] == pytest.approx(fz * normal, abs=1e-9)  # at rest: no slip, no Fx
    assert out[OUT_FX] == 0.0 and out[OUT_MY] == 0.0 and out[OUT_DKAPPA] == 0.0


def test_force_is_fx_along_t_plus_fz_along_n_and_slip_matches_definitions():
    theta = math.radians(5.0)
    s = math.tan(theta)
    t = np.array([math.cos(theta), 0.0, math.sin(theta)])
    n = np.array([-math.sin(theta), 0.0, math.cos(theta)])
    center = np.array([0.0, 0.0, (R0 - 0.03) / math.cos(theta)])
    vel = 12.0 * t - 0.2 * n
    omega, kappa = 12.0 / (R0 - 0.01) * 1.02, 0.015
    out = contact(center, vel=vel, omega=omega, s=s, kappa=kappa, mu=0.9)
    delta, rate = 0.03, 0.2
    fz = TIRE.VERTICAL_STIFFNESS * delta + TIRE.VERTICAL_DAMPING * rate
    assert TIRE.DREFF == 0.0
    re = R0 - TIRE.FREFF * delta
    vsx = 12.0 - omega * re
    assert out[OUT_DEFLECTION] == pytest.approx(delta, abs=1e-12)
    assert out[OUT_FZ] == pytest.approx(fz, rel=1e-9)
    assert out[OUT_VX] == pytest.approx(12.0, rel=1e-12)
    assert out[OUT_RE] == pytest.approx(re, rel=1e-14)
    assert out[OUT_VSX] == pytest.approx(vsx, rel=1e-9)
    assert out[OUT_KAPPA_SS] == pytest.approx(-vsx / 12.0, rel=1e-9)
    sigma = slip_relaxation_length(P, fz, kappa, 0.9, 12.0)
    assert out[OUT_SIGMA] == pytest.approx(sigma, rel=1e-9)
    assert out[OUT_DKAPPA] == pytest.approx((-vsx - 12.0 * kappa) / sigma, rel=1e-9)
    fx = mf_fx0(P, fz, kappa, 0.9)  # no low-speed damping at 12 m/s
    assert out[OUT_FX] == pytest.approx(fx, rel=1e-9)
    assert out[OUT_FORCE:OUT_FORCE + 3] == pytest.approx(fx * t + fz * n, rel=1e-9)
    assert out[OUT_MY] == pytest.approx(rolling_resistance_moment(P, fz, 12.0, omega), rel=1e-9)


def test_steady_slip_is_a_fixed_point_of_the_slip_equation():
    center = np.array([0.0, 0.0, R0 - 0.03])
    omega = 15.0 * 1.05 / (R0 - TIRE.FREFF * 0.03)
    out = contact(center, vel=(15.0, 0.0, 0.0), omega=omega)
    out2 = contact(center, vel=(15.0, 0.0, 0.0), omega=omega, kappa=out[OUT_KAPPA_SS])
    assert out[OUT_KAPPA_SS] == pytest.approx(0.05, rel=1e-9)
    assert abs(out2[OUT_DKAPPA]) < 1e-9


def test_low_speed_damping_opposes_slip_velocity():
    center = np.array([0.0, 0.0, R0 - 0.03])
    out = contact(center, vel=(0.02, 0.0, 0.0))  # wheel not turning, sliding forward slowly
    fz = out[OUT_FZ]
    expected = mf_fx0(P, fz, -low_speed_damping(P, 0.02) * 0.02 / slip_stiffness(P, fz), 1.0)
    assert out[OUT_FX] < 0.0
    assert out[OUT_FX] == pytest.approx(expected, rel=1e-12)
    assert out[OUT_FX] == pytest.approx(-low_speed_damping(P, 0.02) * 0.02, rel=1e-3)  # linear range: -k Vsx


def test_tilted_spin_axis_keeps_t_orthogonal():
    axis = np.array([0.0, math.cos(0.1), math.sin(0.1)])  # cambered wheel
    out = contact([0.0, 0.0, R0 - 0.02], vel=(5.0, 0.0, 0.0), axis=axis, s=0.2)
    t, n = out[OUT_TANGENT:OUT_TANGENT + 3], out[OUT_NORMAL:OUT_NORMAL + 3]
    assert np.linalg.norm(t) == pytest.approx(1.0, abs=1e-15)
    assert abs(t @ n) < 1e-15 and abs(t @ axis) < 1e-15 and t[0] > 0.0


def test_lift_off_gives_no_force_and_relaxes_the_slip_state():
    out = contact([0.0, 0.0, R0 + 0.01], vel=(8.0, 0.0, -30.0), omega=30.0, kappa=0.2)
    assert out[OUT_DEFLECTION] == pytest.approx(-0.01)
    assert np.all(out[OUT_FORCE:OUT_FORCE + 3] == 0.0)
    assert out[OUT_FX] == 0.0 and out[OUT_FZ] == 0.0 and out[OUT_MY] == 0.0
    sigma0 = relaxation_length(P, TIRE.FNOMIN)
    assert out[OUT_DKAPPA] == pytest.approx(-8.0 * 0.2 / sigma0, rel=1e-12)
    slow = contact([0.0, 0.0, R0 + 0.01], vel=(0.0, 0.0, 0.0), kappa=-0.5)
    assert slow[OUT_DKAPPA] == pytest.approx(TIRE.VXLOW * 0.5 / sigma0, rel=1e-12)
    # touching with a large rebound rate: deflection > 0 but the tire never pulls
    pull = contact([0.0, 0.0, R0 - 0.001], vel=(8.0, 0.0, 10.0), omega=8.0 / R0)
    assert pull[OUT_FZ] == 0.0 and pull[OUT_FX] == 0.0 and pull[OUT_DEFLECTION] > 0.0


def test_slip_state_is_clipped_at_the_valid_range():
    center = [0.0, 0.0, R0 - 0.03]
    out = contact(center, vel=(0.0, 0.0, 0.0), omega=50.0, kappa=TIRE.KPUMAX + 2.0)
    ref = contact(center, vel=(0.0, 0.0, 0.0), omega=50.0, kappa=TIRE.KPUMAX)
    assert out[OUT_DKAPPA] == 0.0 and ref[OUT_DKAPPA] == 0.0
    assert out[OUT_FX] == ref[OUT_FX] > 0.0
