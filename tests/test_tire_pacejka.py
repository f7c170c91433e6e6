"""Tests for the Magic Formula kernels against an independent implementation and closed-form properties."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.optimize import brentq, minimize_scalar

from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire.pacejka import (EPS_X, ROLLING_OMEGA_SCALE, SIGMA_KAPPA_MIN, effective_rolling_radius,
                                      low_speed_damping, mf_fx0, mf_fx0_slope, relaxation_length,
                                      rolling_resistance_moment, slip_relaxation_length, slip_stiffness,
                                      vertical_force)
from fmu_vehicle.tire.tir import (P_BREFF, P_DREFF, P_FREFF, P_KVLOW0, P_LMUX, P_PEX4, P_PHX1, P_PHX2, P_PVX1,
                                  P_PVX2, P_QSY3, P_QSY4, P_VXLOW, read_tir)

TIRE = read_tir(resource_path("tires", "pacejka_light_truck.tir"))


@pytest.fixture
def p():
    return TIRE.to_array()


def fx_reference(t, fz, kappa, mu=1.0, phx=(0.0, 0.0), pvx=(0.0, 0.0), pex4=0.0):
    """Pure longitudinal Magic Formula written out from Pacejka (2012) Eqs. 4.E9-4.E18 (independent of pacejka.py)."""
    fz0 = t.FNOMIN * t.LFZO
    dfz = (fz - fz0) / fz0
    kx = kappa + (phx[0] + phx[1] * dfz) * t.LHX
    c = t.PCX1 * t.LCX
    d = (t.PDX1 + t.PDX2 * dfz) * t.LMUX * mu * fz
    e = min(1.0, (t.PEX1 + t.PEX2 * dfz + t.PEX3 * dfz ** 2) * (1.0 - pex4 * np.sign(kx)) * t.LEX)
    k = fz * (t.PKX1 + t.PKX2 * dfz) * math.exp(t.PKX3 * dfz) * t.LKX
    b = k / (c * d + EPS_X)
    sv = fz * (pvx[0] + pvx[1] * dfz) * t.LVX * t.LMUX * mu
    return d * math.sin(c * math.atan(b * kx - e * (b * kx - math.atan(b * kx)))) + sv


def kx_reference(t, fz):
    fz0 = t.FNOMIN * t.LFZO
    dfz = (fz - fz0) / fz0
    return fz * (t.PKX1 + t.PKX2 * dfz) * math.exp(t.PKX3 * dfz) * t.LKX


@pytest.mark.parametrize("fz", [2000.0, 6000.0, 11000.0])
def test_kernel_equals_reference_formula(p, fz):
    for kappa in np.linspace(-1.2, 1.2, 49):
        assert mf_fx0(p, fz, kappa, 1.0) == pytest.approx(fx_reference(TIRE, fz, kappa), rel=1e-12, abs=1e-9)
    assert mf_fx0(p, fz, 0.1, 0.6) == pytest.approx(fx_reference(TIRE, fz, 0.1, mu=0.6), rel=1e-12)


def test_curvature_factor_is_capped_at_one():
    steep = dataclasses.replace(TIRE, PEX1=1.6, PEX2=0.4)
    q = steep.to_array()
    capped = dataclasses.replace(TIRE, PEX1=1.0, PEX2=0.0)
    for kappa in (-0.5, 0.05, 0.3, 1.0):
        assert mf_fx0(q, 7000.0, kappa, 1.0) == pytest.approx(fx_reference(steep, 7000.0, kappa), rel=1e-12)
        assert mf_fx0(q, 7000.0, kappa, 1.0) == pytest.approx(fx_reference(capped, 7000.0, kappa), rel=1e-12)


def test_zero_slip_gives_zero_force_and_shifts_move_the_origin(p):
    assert mf_fx0(p, 6000.0, 0.0, 1.0) == 0.0
    q = p.copy()
    q[P_PHX1], q[P_PHX2], q[P_PVX1], q[P_PVX2] = 0.004, -0.002, 0.01, 0.005
    fz = 8000.0
    dfz = (fz - 6000.0) / 6000.0
    shx = 0.004 - 0.002 * dfz
    svx = fz * (0.01 + 0.005 * dfz)
    assert mf_fx0(q, fz, -shx, 1.0) == pytest.approx(svx, rel=1e-12)
    assert mf_fx0(q, fz, 0.05, 1.0) == pytest.approx(
        fx_reference(TIRE, fz, 0.05, phx=(0.004, -0.002), pvx=(0.01, 0.005)), rel=1e-12)


@pytest.mark.parametrize("fz", [3000.0, 6000.0, 9000.0])
def test_slope_at_zero_slip_is_kx(p, fz):
    h = 1e-7
    numeric = (mf_fx0(p, fz, h, 1.0) - mf_fx0(p, fz, -h, 1.0)) / (2 * h)
    cd = TIRE.PCX1 * (TIRE.PDX1 + TIRE.PDX2 * (fz - 6000.0) / 6000.0) * fz
    assert numeric == pytest.approx(kx_reference(TIRE, fz) * cd / (cd + EPS_X), rel=1e-8)  # Bx Cx Dx
    assert numeric == pytest.approx(kx_reference(TIRE, fz), rel=5e-5)
    assert slip_stiffness(p, fz) == pytest.approx(kx_reference(TIRE, fz), rel=1e-13)
    assert mf_fx0_slope(p, fz, 0.0, 1.0) == pytest.approx(numeric, rel=1e-8)
    for kappa in (-0.3, 0.02, 0.15, 0.8):
        fd = (mf_fx0(p, fz, kappa + h, 1.0) - mf_fx0(p, fz, kappa - h, 1.0)) / (2 * h)
        assert mf_fx0_slope(p, fz, kappa, 1.0) == pytest.approx(fd, rel=1e-5, abs=1e-3)


@pytest.mark.parametrize("fz", [3000.0, 6000.0, 9000.0])
def test_peak_equals_dx_at_the_expected_slip(p, fz):
    dfz = (fz - 6000.0) / 6000.0
    dx = (TIRE.PDX1 + TIRE.PDX2 * dfz) * fz
    best = minimize_scalar(lambda k: -fx_reference(TIRE, fz, k), bounds=(0.0, 1.0), method="bounded",
                           options={"xatol": 1e-10})
    kappa_peak = best.x
    assert -best.fun == pytest.approx(dx, rel=1e-9)
    # analytic: Cx atan(phi) = pi/2  ->  Bx k - Ex (Bx k - atan(Bx k)) = tan(pi / (2 Cx))
    c = TIRE.PCX1
    b = kx_reference(TIRE, fz) / (c * dx + EPS_X)
    e = TIRE.PEX1 + TIRE.PEX2 * dfz
    analytic = brentq(lambda k: b * k - e * (b * k - math.atan(b * k)) - math.tan(math.pi / (2 * c)), 1e-6, 1.0)
    assert kappa_peak == pytest.approx(analytic, abs=1e-5)
    assert mf_fx0(p, fz, analytic, 1.0) == pytest.approx(dx, rel=1e-12)
    grid = np.linspace(0.0, 1.0, 20001)
    values = np.array([mf_fx0(p, fz, k, 1.0) for k in grid])
    assert grid[np.argmax(values)] == pytest.approx(analytic, abs=1e-4)
    assert 0.08 < analytic < 0.25  # a realistic peak slip for the shipped tire


def test_sign_symmetry_and_driving_asymmetry(p):
    for kappa in (0.01, 0.1, 0.5, 1.0):
        assert mf_fx0(p, 6000.0, -kappa, 1.0) == pytest.approx(-mf_fx0(p, 6000.0, kappa, 1.0), rel=1e-14)
        assert mf_fx0(p, 6000.0, kappa, 1.0) > 0.0
    q = p.copy()
    q[P_PEX4] = 0.3
    assert mf_fx0(q, 6000.0, 0.5, 1.0) != pytest.approx(-mf_fx0(q, 6000.0, -0.5, 1.0), rel=1e-3)
    assert mf_fx0(q, 6000.0, 0.5, 1.0) == pytest.approx(fx_reference(TIRE, 6000.0, 0.5, pex4=0.3), rel=1e-12)


def test_no_force_without_load(p):
    for fz in (0.0, -1.0, -1e4):
        assert mf_fx0(p, fz, 0.2, 1.0) == 0.0
        assert rolling_resistance_moment(p, fz, 10.0, 20.0) == 0.0
        assert slip_stiffness(p, fz) == 0.0


def test_peak_friction_falls_with_load_when_pdx2_negative(p):
    assert TIRE.PDX2 < 0.0
    mus = []
    for fz in (2000.0, 4000.0, 6000.0, 9000.0, 12000.0):
        grid = np.linspace(0.0, 0.6, 6001)
        mus.append(max(mf_fx0(p, fz, k, 1.0) for k in grid) / fz)
        assert mus[-1] == pytest.approx(TIRE.PDX1 + TIRE.PDX2 * (fz - 6000.0) / 6000.0, rel=1e-6)
    assert all(a > b for a, b in zip(mus, mus[1:]))


def test_road_friction_scales_peak_not_slip_stiffness(p):
    fz = 6000.0
    grid = np.linspace(0.0, 1.0, 10001)
    peak_dry = max(mf_fx0(p, fz, k, 1.0) for k in grid)
    peak_wet = max(mf_fx0(p, fz, k, 0.5) for k in grid)
    assert peak_wet == pytest.approx(0.5 * peak_dry, rel=1e-6)
    assert mf_fx0_slope(p, fz, 0.0, 0.5) == pytest.approx(kx_reference(TIRE, fz), rel=1e-4)
    assert mf_fx0(p, fz, 0.3, 0.0) == 0.0
    q = p.copy()
    q[P_LMUX] = 0.5
    assert mf_fx0(q, fz, 0.3, 1.0) == pytest.approx(mf_fx0(p, fz, 0.3, 0.5), rel=1e-14)


def test_rolling_resistance_moment(p):
    fz, vx = 6000.0, 20.0
    expected = TIRE.UNLOADED_RADIUS * fz * TIRE.QSY1
    assert rolling_resistance_moment(p, fz, vx, 40.0) == pytest.approx(-expected, rel=1e-12)
    assert rolling_resistance_moment(p, fz, -vx, -40.0) == pytest.approx(expected, rel=1e-12)
    assert rolling_resistance_moment(p, fz, 0.0, 0.0) == 0.0
    small = 1e-6
    assert abs(rolling_resistance_moment(p, fz, 0.0, small)) == pytest.approx(expected * small / ROLLING_OMEGA_SCALE,
                                                                              rel=1e-6)
    q = p.copy()
    q[P_QSY3], q[P_QSY4] = 0.002, 0.0005
    v = vx / TIRE.LONGVL
    assert rolling_resistance_moment(q, fz, vx, 40.0) == pytest.approx(
        -TIRE.UNLOADED_RADIUS * fz * (TIRE.QSY1 + 0.002 * v + 0.0005 * v ** 4), rel=1e-12)


def test_vertical_force_never_pulls(p):
    k, c = TIRE.VERTICAL_STIFFNESS, TIRE.VERTICAL_DAMPING
    assert vertical_force(p, 0.02, 0.1) == pytest.approx(k * 0.02 + c * 0.1, rel=1e-14)
    assert vertical_force(p, 0.0, 5.0) == 0.0
    assert vertical_force(p, -0.01, -100.0) == 0.0
    assert vertical_force(p, -0.01, 100.0) == 0.0
    assert vertical_force(p, 0.001, -50.0) == 0.0
    for delta in np.linspace(-0.05, 0.05, 21):
        for rate in (-1e3, -1.0, 0.0, 1.0):
            assert vertical_force(p, delta, rate) >= 0.0


def test_effective_rolling_radius(p):
    r0 = TIRE.UNLOADED_RADIUS
    assert effective_rolling_radius(p, 0.03) == pytest.approx(r0 - TIRE.FREFF * 0.03, rel=1e-14)
    assert effective_rolling_radius(p, -0.01) == r0
    q = p.copy()
    q[P_BREFF], q[P_DREFF], q[P_FREFF] = 8.0, 0.25, 0.07
    rho_z0 = TIRE.FNOMIN / TIRE.VERTICAL_STIFFNESS
    expected = r0 - rho_z0 * (0.25 * math.atan(8.0 * 0.02 / rho_z0) + 0.07 * 0.02 / rho_z0)
    assert effective_rolling_radius(q, 0.02) == pytest.approx(expected, rel=1e-14)


def test_relaxation_lengths(p):
    r0 = TIRE.UNLOADED_RADIUS
    assert relaxation_length(p, 6000.0) == pytest.approx(TIRE.PTX1 * r0, rel=1e-14)
    dfz = 0.5
    assert relaxation_length(p, 9000.0) == pytest.approx(
        9000.0 * (TIRE.PTX1 + TIRE.PTX2 * dfz) * math.exp(-TIRE.PTX3 * dfz) * r0 / 6000.0, rel=1e-14)
    assert relaxation_length(p, 0.0) == SIGMA_KAPPA_MIN
    # semi-non-linear: sigma0 at zero slip, shrinking to the floor where the force curve is flat or falling
    assert slip_relaxation_length(p, 6000.0, 0.0, 1.0, 10.0) == pytest.approx(relaxation_length(p, 6000.0), rel=1e-5)
    assert slip_relaxation_length(p, 6000.0, 0.05, 1.0, 10.0) < relaxation_length(p, 6000.0)
    assert slip_relaxation_length(p, 6000.0, -1.0, 1.0, 10.0) == pytest.approx(10.0 * 0.0025)
    assert slip_relaxation_length(p, 6000.0, -1.0, 1.0, 0.0) == SIGMA_KAPPA_MIN


def test_low_speed_damping_fades_out(p):
    assert low_speed_damping(p, 0.0) == p[P_KVLOW0]
    assert low_speed_damping(p, 0.5 * p[P_VXLOW]) == pytest.approx(0.5 * p[P_KVLOW0])
    assert low_speed_damping(p, -p[P_VXLOW]) == 0.0
    assert low_speed_damping(p, 20.0) == 0.0
