"""The LuGre brake element: full torque while sliding, a held wheel stands still (no creep), also on the rig on a
16.5 deg slope with the sedan's wheel, where a tanh brake law creeps."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire.brake import BRAKE_RATE_MAX, BRAKE_STICK_FREQUENCY, brake_torque
from fmu_vehicle.tire.tir import read_tir
from fmu_vehicle.tire.wheel import GRAVITY, simulate_wheel

OMEGA_TANH = 0.05
"""Smoothing speed [rad/s] of the tanh brake law T = -T_b tanh(Omega / OMEGA_TANH) the element replaces."""


def spin_against_torque(law: str, t_ext: float, t_b: float, inertia: float, h: float = 1e-3,
                        duration: float = 3.0) -> tuple[np.ndarray, float]:
    """A wheel of spin inertia I [kg m^2] against a constant torque t_ext [N m], braked with capacity t_b [N m]:
    RK4 of I dOmega/dt = t_ext + T_brake, dphi/dt (LuGre) from rest. Returns (Omega history, final phi)."""

    def rate(y):
        if law == "lugre":
            torque, dphi = brake_torque(t_b, y[1], y[0], inertia)
        else:
            torque, dphi = -t_b * math.tanh(y[0] / OMEGA_TANH), 0.0
        return np.array([(t_ext + torque) / inertia, dphi])

    y = np.zeros(2)
    omega = [0.0]
    for _ in range(int(round(duration / h))):
        k1 = rate(y)
        k2 = rate(y + 0.5 * h * k1)
        k3 = rate(y + 0.5 * h * k2)
        k4 = rate(y + h * k3)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        omega.append(y[0])
    return np.array(omega), float(y[1])


def test_held_wheel_stands_still_where_a_tanh_brake_creeps():
    inertia, t_b, t_ext = 2.3, 2000.0, 760.0
    omega, phi = spin_against_torque("lugre", t_ext, t_b, inertia)
    # stuck: a damped spring k = wb^2 I, which carries t_ext at phi = t_ext / k with the wheel at rest
    assert np.max(np.abs(omega[-1000:])) < 1e-9
    assert phi == pytest.approx(t_ext / (BRAKE_STICK_FREQUENCY ** 2 * inertia), rel=1e-9)
    assert brake_torque(t_b, phi, 0.0, inertia)[0] == pytest.approx(-t_ext, rel=1e-9)
    # the tanh law holds t_ext only while turning at Omega0 atanh(t_ext / t_b): the wheel creeps (its
    # stiffness T_b / (Omega0 I) = 1.7e4 1/s needs a 20 us step for RK4; the creep is reached within 1 ms)
    creep, _ = spin_against_torque("tanh", t_ext, t_b, inertia, h=2e-5, duration=0.1)
    assert creep[-1] == pytest.approx(OMEGA_TANH * math.atanh(t_ext / t_b), rel=1e-6)
    assert creep[-1] > 100.0 * 1e-4


def test_sliding_wheel_gets_the_full_torque_and_a_released_brake_lets_go():
    inertia, t_b = 1.5, 1200.0
    omega, phi = spin_against_torque("lugre", 3000.0, t_b, inertia, duration=0.5)   # t_ext > t_b: it slides
    assert omega[-1] > 0.0
    torque, dphi = brake_torque(t_b, phi, omega[-1], inertia)
    assert torque == -t_b
    # sliding fast (|Omega| > r phi_s): dphi/dt = Omega - r phi, so on the spin ramp Omega = a t the bristle
    # trails Omega / r by a / r^2; it stays above phi_s, so k phi >= T_b holds the torque at its capacity
    r, accel = BRAKE_RATE_MAX, (3000.0 - t_b) / inertia
    phi_s = t_b / (BRAKE_STICK_FREQUENCY ** 2 * inertia)
    assert phi == pytest.approx(omega[-1] / r - accel / r ** 2, rel=1e-9) and phi > phi_s
    assert brake_torque(t_b, -phi, -omega[-1], inertia)[0] == t_b                          # odd in (phi, Omega)
    torque, dphi = brake_torque(0.0, phi, omega[-1], inertia)
    assert torque == 0.0 and dphi < 0.0                                                   # released: phi -> 0


def test_brake_holds_the_sedan_wheel_on_the_16_5_degree_slope_without_creep():
    """The vehicle's case: a sedan corner (620 kg, wheel spin inertia 2.3 kg m^2) braked on the 16.5 deg
    slope. After the start transient the wheel settles: |Omega| < 1e-4 rad/s from 4 s on and decaying,
    the centre stops (no drift), and the brake carries the slope torque below its capacity."""
    tire = read_tir(resource_path("tires", "dai2022_sedan.tir"))
    theta, mass, brake = math.radians(16.5), 620.0, 2000.0
    run = simulate_wheel(tire.to_array(), mass_kg=mass, inertia_kg_m2=2.3, duration_s=6.0, slope_rad=theta,
                         brake_torque_Nm=brake)
    held = run.t >= 4.0
    assert np.max(np.abs(run.omega[held])) < 1e-4
    peaks = [np.max(np.abs(run.omega[(run.t >= a) & (run.t < a + 1.0)])) for a in (2.0, 3.0, 4.0, 5.0)]
    assert all(b < 0.5 * a for a, b in zip(peaks, peaks[1:]))                 # decays, no steady creep
    assert abs(run.x[-1] - run.x[held][0]) < 1e-5
    assert run.fx[-1] == pytest.approx(mass * GRAVITY * math.sin(theta), rel=1e-5)
    assert 0.0 < run.brake_torque[-1] < brake
    # a tanh brake would have to turn at Omega0 atanh(T/T_b) to carry this torque: 200 times the bound
    assert OMEGA_TANH * math.atanh(run.brake_torque[-1] / brake) > 100.0 * 1e-4
