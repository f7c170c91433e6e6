"""njit wheel brake: a LuGre/Dahl-type friction element that holds a wheel at standstill without creep.

The element (Canudas de Wit, Olsson, Åström and Lischinsky 1995, "A new model for control of systems with
friction", without the Stribeck term) acts between the wheel and its carrier (hub or rig). Its one state
is the bristle angle φ [rad]; Ω [rad/s] is the spin of the wheel relative to the carrier and I [kg m^2]
the wheel's spin inertia:

    k  = ωb² I                        bristle (stuck-brake) stiffness [N m/rad]
    c  = 2 ζ ωb I                     bristle damping [N m s/rad]
    φs = T_b / k                      bristle angle at the full brake torque [rad]
    φ̇  = Ω - min(|Ω|, r φs) φ / φs   bristle rate [rad/s]
    T  = -clip(k φ + c φ̇, -T_b, T_b)   torque on the wheel about its spin axis [N m] (on the carrier: -T)

with T_b >= 0 the brake capacity (the commanded brake torque magnitude). While the wheel slides at a steady
Ω, φ settles where φ̇ = 0, at max(φs, |Ω|/r) sgn Ω, so k φ >= T_b and the torque is exactly -T_b sgn Ω. At
standstill φ̇ = Ω: the element is a spring k with damper c, so a wheel held against a steady torque
T_ext < T_b stands still (φ = T_ext / k, Ω = 0). A brake law T = -T_b tanh(Ω/Ω0) instead has no torque at
Ω = 0 and holds T_ext only by turning at Ω = Ω0 atanh(T_ext/T_b): the wheel creeps.

The torque is continuous in Ω (no switching), and the constants keep the element non-stiff for explicit
integrators with steps h up to about 1 ms: ωb h = 0.3, 2 ζ ωb h = 0.42 and r h = 1 at h = 1 ms (classic
RK4 is stable for real eigenvalues down to -2.78/h, so steps up to about 2.7 ms remain stable; the stuck
frequency ωb is the wheel alone, a wheel coupled to the road through the tire only lowers it).
T_b = 0 gives no torque and lets φ relax to 0 at the rate r.

See docs/tire.md §7.
"""
from __future__ import annotations

from ..numerics.jit import njit

BRAKE_STICK_FREQUENCY = 300.0
"""Natural frequency ωb [rad/s] of the stuck brake spring with the wheel's spin inertia: k = ωb² I."""

BRAKE_DAMPING_RATIO = 0.7
"""Damping ratio ζ [-] of the stuck brake spring: c = 2 ζ ωb I."""

BRAKE_RATE_MAX = 1000.0
"""Largest relaxation rate r [1/s] of the bristle angle, in φ̇ = Ω - min(|Ω|, r φs) φ/φs."""


@njit
def brake_torque(t_max, phi, omega, inertia):
    """Brake torque on the wheel T [N m] and bristle rate φ̇ [rad/s] (module docstring).

    Parameters:
        t_max     brake capacity T_b [N m], >= 0 (the commanded torque magnitude; <= 0 gives no torque)
        phi       bristle angle φ [rad]: the element's state, integrated by the caller from φ̇ (start at 0)
        omega     spin of the wheel relative to the body that carries the brake (hub, rig) Ω [rad/s]
        inertia   spin inertia of the wheel I [kg m^2], > 0 (sets k = ωb² I and c = 2 ζ ωb I)

    Returns:
        (torque, dphi): torque on the wheel about its spin axis [N m] (the carrier gets -torque), and φ̇.
    """
    if t_max <= 0.0:
        return 0.0, -BRAKE_RATE_MAX * phi
    k = BRAKE_STICK_FREQUENCY * BRAKE_STICK_FREQUENCY * inertia
    c = 2.0 * BRAKE_DAMPING_RATIO * BRAKE_STICK_FREQUENCY * inertia
    phi_s = t_max / k
    rate = abs(omega)
    if rate > BRAKE_RATE_MAX * phi_s:
        rate = BRAKE_RATE_MAX * phi_s
    dphi = omega - rate * phi / phi_s
    torque = k * phi + c * dphi
    if torque > t_max:
        torque = t_max
    elif torque < -t_max:
        torque = -t_max
    return -torque, dphi
