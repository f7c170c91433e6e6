"""The modes of a linear model dx/dt = A x: eigenvalues with damping ratio and frequencies, each named by the
states that take part in it, and the single-track model's modes beside them.

For an eigenvalue lambda = sigma + j omega_d of A:

    natural frequency   omega_n = |lambda|            f_n = omega_n / (2 pi)   [Hz]
    damping ratio       zeta = -sigma / |lambda|      (1 for a real negative eigenvalue, < 0 unstable)
    damped frequency    f_d = |omega_d| / (2 pi)      [Hz]

Names come from the participation factors p_ki = |v_ki w_ik| (Perez-Arriaga, I. J.; Verghese, G. C.;
Schweppe, F. C. (1982), "Selective Modal Analysis with Applications to Electric Power Systems, Part I",
IEEE Transactions on Power Apparatus and Systems 101(9), 3117-3125): v_i the right eigenvector of lambda_i,
w_i the left one with w_i^T v_i = 1. Unlike the eigenvector's components they do not depend on the units of
the states. Each state belongs to a family (:func:`state_family`): yaw/sideslip (v, yaw rate), roll,
pitch/bounce (height and pitch), longitudinal (u), and per corner wheel hop (suspension travel), wheel spin
(spin rate and transient longitudinal slip) and tire relaxation (lateral transient slip); a mode is named by
the family with the largest summed participation, a corner's family counted corner by corner (so one tire's
relaxation competes with the yaw/sideslip pair, not four tires together), with the corners that take at
least a quarter of the largest corner's share. The single-track model's counterparts are the modes with the
largest yaw/sideslip share (:func:`yaw_sideslip`). One mode is given per complex pair (omega_d >= 0).
Described in docs/linearization.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .single_track import SingleTrack

YAW_SIDESLIP = "yaw/sideslip"
SINGLE_TRACK_STATES = ("chassis.v", "chassis.yaw.rate")
"""The single-track model's states [vy, r] under the reduced vehicle state's names (their families)."""
CORNER_SHARE = 0.25
"""A corner is named in a wheel mode when it takes at least this share of the largest corner's participation."""


def state_family(name: str) -> tuple[str, str]:
    """(family, corner or '') of a reduced state (``linearization.ReducedSystem.state_names``)."""
    if name in SINGLE_TRACK_STATES:
        return YAW_SIDESLIP, ""
    if name == "chassis.u":
        return "longitudinal", ""
    if name.startswith("chassis.roll"):
        return "roll", ""
    if name.startswith("chassis."):
        return "pitch/bounce", ""
    corner, _, what = name.partition(".")
    if what.startswith("spin") or what == "kappa":
        return "wheel spin", corner
    if what == "tan_alpha":
        return "tire relaxation", corner
    return "wheel hop", corner


@dataclass(frozen=True)
class Mode:
    """One mode: its eigenvalue [1/s], damping ratio, natural and damped frequency [Hz], name (its family and
    corners) and family, the three states with the largest participation (name -> share; the shares of all
    states sum to 1) and the share of each family (corners summed)."""
    eigenvalue: complex
    damping_ratio: float
    natural_frequency_hz: float
    damped_frequency_hz: float
    name: str
    family: str
    participation: dict
    families: dict


def _shares(p: np.ndarray, state_names) -> dict:
    """Participation summed per (family, corner) (:func:`state_family`)."""
    out: dict[tuple[str, str], float] = {}
    for share, name in zip(p, state_names):
        key = state_family(name)
        out[key] = out.get(key, 0.0) + float(share)
    return out


def _name(shares: dict) -> tuple[str, str]:
    """(name, family) of the (family, corner) of the largest share; a corner family's name lists its corners
    that take at least :data:`CORNER_SHARE` of it."""
    family, corner = max(shares, key=shares.get)
    if not corner:
        return family, family
    top = shares[(family, corner)]
    corners = ", ".join(c for (f, c), p in shares.items() if f == family and p >= CORNER_SHARE * top)
    return f"{family} {corners}", family


def modes(A, state_names) -> list[Mode]:
    """The modes of A (module docstring), by increasing natural frequency."""
    A = np.asarray(A, dtype=float)
    lam, V = np.linalg.eig(A)
    W = np.linalg.inv(V)                     # rows: left eigenvectors, W V = I
    out = []
    for i, value in enumerate(lam):
        if value.imag < 0.0:
            continue
        p = np.abs(V[:, i] * W[i, :])
        p = p / p.sum()
        shares = _shares(p, state_names)
        families: dict[str, float] = {}
        for (family, _corner), share in shares.items():
            families[family] = families.get(family, 0.0) + share
        order = np.argsort(p)[::-1][:3]
        size = float(abs(value))
        out.append(Mode(complex(value), float(-value.real / size) if size > 0.0 else 1.0, size / (2.0 * math.pi),
                        float(abs(value.imag)) / (2.0 * math.pi), *_name(shares),
                        {state_names[k]: float(p[k]) for k in order}, families))
    return sorted(out, key=lambda m: (m.natural_frequency_hz, m.eigenvalue.real))


def single_track_modes(model: SingleTrack, speed_m_s: float) -> list[Mode]:
    """The modes of the single-track model's A at ``speed_m_s`` [m/s] (its states vy, r: yaw/sideslip)."""
    return modes(model.state_space(speed_m_s)[0], SINGLE_TRACK_STATES)


def yaw_sideslip(found: list[Mode]) -> list[Mode]:
    """The modes of ``found`` in which the lateral velocity and the yaw rate take the largest part, as many
    eigenvalues as the single-track model has (two: a complex pair counts twice), by increasing natural
    frequency: the full model's counterpart of the single-track model's modes."""
    chosen, count = [], 0
    for m in sorted(found, key=lambda m: m.families.get(YAW_SIDESLIP, 0.0), reverse=True):
        if count >= len(SINGLE_TRACK_STATES):
            break
        chosen.append(m)
        count += 2 if m.eigenvalue.imag > 0.0 else 1
    return sorted(chosen, key=lambda m: m.natural_frequency_hz)


def table(found: list[Mode]) -> list[dict]:
    """The modes as rows: name, eigenvalue (real, imaginary [1/s]), damping ratio, natural and damped
    frequency [Hz], the dominant states."""
    return [{"mode": m.name, "real_1_s": m.eigenvalue.real, "imag_1_s": m.eigenvalue.imag,
             "damping_ratio": m.damping_ratio, "natural_frequency_hz": m.natural_frequency_hz,
             "damped_frequency_hz": m.damped_frequency_hz,
             "states": ", ".join(f"{k} {v:.2f}" for k, v in m.participation.items())} for m in found]
