"""Tire models by name: the registry, the choice from a tire's data, and the one contact interface.

Every layer that needs a tire (the vehicle's derivative and equilibrium, the tire rig ``stepper3d``/``tire3d``,
the Tire FMU, the FMU start values and parameter tables, the drawings) calls this module, never a model's
kernels or its coefficient indices:

    params(tire)          float64[N_PARAMS]: the model's coefficients with the model id in slot P_MODEL
    tires_side_by_side(tire, n)   the data of n such tires on one wheel (dual tires) acting as one
    model_id(p)           the id stored with the parameters (integer, index into MODELS); model_name(id) its name
    contact(model_id, p, mirror, c, ċ, ω, a, h, dh/dx, dh/dy, μ, κ', q, out)
                          forces, application point and slip rates of one wheel, out in the OUT_* layout

and the interface's layouts (defined in ``tire.interface``, below the models, and re-exported here): the
parameter width N_PARAMS and model slot P_MODEL, the contact output slots OUT_* and their count CONTACT_OUT_N

and the quantities other layers read, each from the parameters of any model:

    unloaded_radius(p)              R0 [m]
    nominal_load(p)                 Fz0' [N]
    vertical_stiffness(p)           Cz (scaled) [N/m]: Fz = Cz δ + Kz δ̇ for δ > 0
    vertical_damping(p)             Kz [N s/m]
    rolling_radius(p, δ)            effective rolling radius Re at the deflection δ [m]
    cornering_stiffness(p, Fz, γ)   dFy/dα at α = 0 [N/rad]
    rest_params(p, out)             the parameters with the lateral force and aligning moment switched off
                                    (the static equilibrium's tire: no lateral force at rest)
    set_unloaded_radius(p, r0)      writes R0 [m] (an FMU parameter)
    nominal_state(p)                (Fz0', δ0 = Fz0'/Cz, Re(δ0)) evaluated in Python (start values)
    host(accessor)                  the accessor's Python function (host-side tables, no compilation)

Choice by data: a tire file's model is named explicitly (a ``"tire_model"`` field next to the file name,
e.g. a vehicle corner's) or, without such a field, follows from the file's suffix (``.tir`` -> ``mf52``).
An unknown name or suffix raises ModelError naming the field and the known models.

Models (ids are their positions in MODELS; slot P_MODEL of a zero array is 0, mf52):
    mf52   Magic Formula 5.2 combined slip with transient slip states (κ', q): ``contact.tire_contact_3d``,
           coefficients read by ``tir.read_tir`` from an MF-Tyre ``.tir`` file in the ``tir.P_*`` layout

The dispatch is an integer branch in njit code (no Python objects), inlined into its callers (``contact``,
``model_id`` and the vertical accessors are ``inline="always"``), so it costs one comparison per call and
runs unchanged with NUMBA_DISABLE_JIT=1. A model's parameter array fits the common width N_PARAMS with
its id in the last slot P_MODEL (a vehicle stacks its wheels' arrays). See docs/tire.md §11.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

from ..errors import ModelError
from ..numerics.jit import njit
from . import pacejka, pacejka_combined
from .contact import tire_contact_3d
from .interface import (CONTACT_OUT_N, N_PARAMS, OUT_DALPHA, OUT_DEFLECTION, OUT_DKAPPA, OUT_FORCE, OUT_FX, OUT_FY,
                        OUT_FZ, OUT_GAMMA, OUT_KAPPA_SS, OUT_LATERAL, OUT_MOMENT, OUT_MY, OUT_MZ, OUT_NORMAL,
                        OUT_POINT, OUT_RE, OUT_SIGMA, OUT_SIGMA_Y, OUT_TAN_ALPHA, OUT_TAN_ALPHA_SS, OUT_TANGENT,
                        OUT_VSX, OUT_VX, OUT_VY, P_MODEL)
from .tir import P_CZ, P_KZ, P_LCZ, P_R0, TireParams, read_tir, side_by_side
from .tir import P_LHY, P_LKY, P_LMUY, P_LRES, P_LS, P_LTR, P_LVY, P_LXAL

__all__ = ["CONTACT_OUT_N", "MF52", "MODELS", "N_PARAMS", "OUT_DALPHA", "OUT_DEFLECTION", "OUT_DKAPPA", "OUT_FORCE",
           "OUT_FX", "OUT_FY", "OUT_FZ", "OUT_GAMMA", "OUT_KAPPA_SS", "OUT_LATERAL", "OUT_MOMENT", "OUT_MY", "OUT_MZ",
           "OUT_NORMAL", "OUT_POINT", "OUT_RE", "OUT_SIGMA", "OUT_SIGMA_Y", "OUT_TAN_ALPHA", "OUT_TAN_ALPHA_SS",
           "OUT_TANGENT", "OUT_VSX", "OUT_VX", "OUT_VY", "P_MODEL", "TireModelEntry", "contact",
           "cornering_stiffness", "host", "model_for", "model_id", "model_id_of", "model_name", "model_named",
           "nominal_load", "nominal_state", "params", "read_tire", "rest_params", "rolling_radius",
           "set_unloaded_radius", "tires_side_by_side", "unloaded_radius", "vertical_damping", "vertical_stiffness"]


class TireModelEntry(NamedTuple):
    name: str                           # the name a tire's data gives (e.g. a "tire_model" field)
    model_id: int                       # stored in slot P_MODEL of the parameters
    suffixes: tuple[str, ...]           # file suffixes that choose this model when no name is given
    read: Callable[[Path], object]      # file -> tire data with .to_array() (float64[N_PARAMS])
    data_type: type                     # the type ``read`` returns
    side_by_side: Callable[[object, int], object]   # (tire data, n) -> n such tires on one wheel as one tire


MF52 = 0

MODELS = (
    TireModelEntry("mf52", MF52, (".tir",), read_tir, TireParams, side_by_side),
)

_MF52_REST_SCALES = np.array([P_LMUY, P_LKY, P_LVY, P_LHY, P_LXAL, P_LTR, P_LRES, P_LS], dtype=np.int64)
"""mf52 scaling factors that switch the lateral force, the aligning moment and the slip-angle weighting of
Fx off (rest_params sets them to 0)."""


def _known() -> str:
    return ", ".join(m.name for m in MODELS)


def model_name(model_id: int) -> str:
    """The name of the model with the id ``model_id`` ("unknown (id k)" if none has it)."""
    for m in MODELS:
        if m.model_id == model_id:
            return m.name
    return f"unknown (id {model_id})"


def model_named(name, field: str = "tire_model") -> TireModelEntry:
    """The registry entry called ``name``; ModelError naming ``field`` and the known models otherwise."""
    for m in MODELS:
        if m.name == name:
            return m
    raise ModelError(f"{field}: unknown tire model {name!r}; known models: {_known()}")


def model_for(path, name=None, field: str = "tire_model") -> TireModelEntry:
    """The model of the tire file ``path``: the one ``name`` gives (the data's ``field``), else the one its
    suffix chooses; ModelError naming the field and the known models (with their suffixes) otherwise."""
    if name is not None:
        return model_named(name, field)
    suffix = Path(str(path)).suffix.lower()
    for m in MODELS:
        if suffix in m.suffixes:
            return m
    kinds = ", ".join(f"{m.name} ({' '.join(m.suffixes)})" for m in MODELS)
    raise ModelError(f"tire file '{path}': its suffix {suffix!r} chooses no tire model and no {field} names one; "
                     f"known models: {kinds}")


def read_tire(path, name=None, field: str = "tire_model"):
    """The tire data of the file ``path`` read by its model's reader (``model_for``)."""
    return model_for(path, name, field).read(path)


def _entry_of(tire) -> TireModelEntry:
    for m in MODELS:
        if isinstance(tire, m.data_type):
            return m
    raise ModelError(f"tire data of type {type(tire).__name__} belongs to no tire model; known models: {_known()}")


def tires_side_by_side(tire, n: int):
    """The data of ``n`` tires ``tire`` mounted side by side on one wheel (dual tires: n = 2), acting as one
    tire of n times the load: the model's own ``side_by_side`` (mf52: ``tir.side_by_side``)."""
    return _entry_of(tire).side_by_side(tire, n)


def params(tire) -> np.ndarray:
    """float64[N_PARAMS]: the coefficients of ``tire`` (data a registered reader returned) with its model id
    in slot P_MODEL."""
    m = _entry_of(tire)
    p = np.asarray(tire.to_array(), dtype=np.float64)
    if p.shape != (N_PARAMS,):
        raise ModelError(f"tire model {m.name}: parameters have shape {p.shape}, need ({N_PARAMS},)")
    p[P_MODEL] = m.model_id
    return p


def model_id_of(name) -> int:
    """The integer id of the model called ``name`` (ModelError if unknown)."""
    return model_named(name).model_id


@njit(inline="always")
def model_id(p):
    """The tire model id stored with the parameters ``p`` (slot P_MODEL)."""
    return int(p[P_MODEL])


@njit(inline="always")
def contact(model_id, p, mirror, center, center_vel, wheel_omega, spin_axis, road_h, road_dhdx, road_dhdy,
            road_mu, slip_state, lateral_state, out):
    """The contact of the tire model ``model_id`` with parameters ``p``: writes ``out`` (float64[CONTACT_OUT_N],
    ``OUT_*``). mirror: +1 left-hand tire, -1 right-hand; c, ċ [m, m/s], ω [rad/s], a the unit spin
    axis, global frame; road height h [m], slopes dh/dx, dh/dy [-] and friction μ [-] under the centre;
    slip_state κ' and lateral_state q = tan α' the transient slip states. mf52: ``contact.tire_contact_3d``.
    An unknown id writes NaN into ``out``."""
    if model_id == MF52:
        tire_contact_3d(p, mirror, center, center_vel, wheel_omega, spin_axis, road_h, road_dhdx, road_dhdy,
                        road_mu, slip_state, lateral_state, out)
    else:
        for k in range(out.shape[0]):
            out[k] = math.nan


@njit(inline="always")
def unloaded_radius(p):
    """Unloaded (free) radius R0 [m]."""
    if int(p[P_MODEL]) == MF52:
        return p[P_R0]
    return math.nan


@njit
def nominal_load(p):
    """Nominal (scaled) load Fz0' [N]."""
    if int(p[P_MODEL]) == MF52:
        return pacejka.nominal_load(p)
    return math.nan


@njit(inline="always")
def vertical_stiffness(p):
    """Vertical stiffness Cz [N/m] (mf52: VERTICAL_STIFFNESS * LCZ)."""
    if int(p[P_MODEL]) == MF52:
        return p[P_CZ] * p[P_LCZ]
    return math.nan


@njit(inline="always")
def vertical_damping(p):
    """Vertical damping Kz [N s/m]."""
    if int(p[P_MODEL]) == MF52:
        return p[P_KZ]
    return math.nan


@njit
def rolling_radius(p, deflection):
    """Effective rolling radius Re [m] at the deflection δ [m]."""
    if int(p[P_MODEL]) == MF52:
        return pacejka.effective_rolling_radius(p, deflection)
    return math.nan


@njit
def cornering_stiffness(p, fz, gamma):
    """Cornering stiffness dFy/dα at α = 0 [N/rad] at the load Fz [N] and inclination γ [rad]."""
    if int(p[P_MODEL]) == MF52:
        return pacejka_combined.cornering_stiffness(p, fz, gamma)
    return math.nan


@njit
def rest_params(p, out):
    """``out`` := ``p`` with the model's lateral force and aligning moment switched off (mf52: the scaling
    factors LMUY, LKY, LVY, LHY, LXAL, LTR, LRES, LS at 0)."""
    for c in range(p.shape[0]):
        out[c] = p[c]
    if int(p[P_MODEL]) == MF52:
        for c in _MF52_REST_SCALES:
            out[c] = 0.0


def host(fn):
    """The Python function of an accessor above (host-side tables evaluate it without compiling it)."""
    return getattr(fn, "py_func", fn)


def nominal_state(p) -> tuple[float, float, float]:
    """(Fz0' [N], δ0 = Fz0' / Cz [m], Re(δ0) [m]): the tire statically loaded at its nominal load, evaluated in
    Python without compiling (start values)."""
    if int(p[P_MODEL]) != MF52:
        raise ModelError(f"tire model id {int(p[P_MODEL])}: unknown; known models: {_known()}")
    fz0 = float(host(pacejka.nominal_load)(p))
    delta0 = fz0 / host(vertical_stiffness)(p)
    return fz0, delta0, float(host(pacejka.effective_rolling_radius)(p, delta0))


def set_unloaded_radius(p, radius_m: float) -> None:
    """Write the unloaded radius R0 [m] into the parameters ``p``."""
    if int(p[P_MODEL]) == MF52:
        p[P_R0] = radius_m
    else:
        raise ModelError(f"tire model id {int(p[P_MODEL])}: unknown; known models: {_known()}")
