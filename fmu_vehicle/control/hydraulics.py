"""The hydraulic brake system: a master cylinder and one brake per wheel behind a modulator valve pair.

Data: ``resources/brakes/<name>.json`` (:func:`load_brake_system`; fields in resources/brakes/README.md).

Master cylinder (a vacuum booster of gain G_b, pedal ratio i_p, bore area A_mc; run-out at p_max)::

    p_mc = min(i_p G_b F_pedal / A_mc, p_max)          F_pedal >= 0 the driver's pedal force [N]

Each wheel sits behind a valve pair of the hydraulic unit: an inlet valve from the master cylinder (or the
pump) and an outlet valve to the low-pressure accumulator. The control unit asks for a pressure window per
wheel: ``p_active`` (the pump builds up to it where it is above p_mc: ESC, TCS) and ``p_limit`` (the wheel
pressure must not exceed it: ABS; +inf for none). At every step the unit's valve driver sets the valves from
the target ``p_target = min(max(p_mc, p_active), p_limit)`` and the wheel pressure p [Pa]::

    BUILD (APPLY)  inlet open, outlet shut    p_target > p:  p rises towards the source max(p_mc, p_active)
    HOLD           both shut                  p_target = p:  dp/dt = 0
    DUMP (RELEASE) inlet shut, outlet open    p_limit < p:   p falls towards 0 (the accumulator)

(with no limit and p_mc below p, the driver releasing the pedal, the inlet stays open and p falls back to
p_mc). An open valve moves p with a first-order lag of time constant tau (lines, caliper compliance) towards
the pressure on its other side, the rate limited to r_build upward (r_active where the pump builds) and
r_release downward; the valve shuts when p reaches p_target within the step. Over a step h the lag is
integrated exactly and the rate limit applied to the step's change::

    BUILD  p <- min(p + min((p_source - p)(1 - exp(-h / tau)), r_up h), p_target)
    DUMP   p <- max(p - min(p (1 - exp(-h / tau)), r_release h), p_limit)

The rates are data (``hydraulics`` of the brake file). The valve state of each step is an output
(``advance_pressures``' ``valves``).

Brake torque capacity on the wheel (floating caliper, one piston of area A_w, two pad faces of friction
mu_pad at the effective radius r_eff; Breuer and Bill (eds.) 2008, *Brake Technology Handbook*, SAE, ch. 7)::

    T_b = K_w p,     K_w = 2 mu_pad A_w r_eff      [N m / Pa]

T_b is what the vehicle's ``wheel_<name>.torque_brake`` input takes: the capacity of the vehicle's brake
element, which acts against the wheel's spin and holds a wheel at rest.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ModelError
from fmu_vehicle.util import read_json
from ..paths import resource_path

APPLY, HOLD, RELEASE = 0, 1, 2
"""Valve states of one wheel (module docstring): APPLY builds (inlet open), HOLD keeps (both shut), RELEASE
dumps (outlet open)."""
VALVE_MODES = ("apply", "hold", "release")

PA_PER_BAR = 1.0e5


@dataclass(frozen=True)
class BrakeSystem:
    """The static description of a vehicle's brake system (module docstring); per-wheel arrays in the
    order of ``wheel_names`` (the vehicle's wheel order)."""

    name: str
    wheel_names: tuple[str, ...]
    torque_gain_Nm_per_Pa: np.ndarray      # K_w per wheel [N m / Pa]
    pedal_ratio: float                     # i_p [-]
    booster_gain: float                    # G_b [-]
    master_cylinder_area_m2: float         # A_mc [m^2]
    max_pressure_Pa: float                 # p_max: booster run-out and the pump's limit [Pa]
    time_constant_s: float                 # tau [s]
    build_rate_Pa_per_s: float             # r_build [Pa/s]
    release_rate_Pa_per_s: float           # r_release [Pa/s]
    active_build_rate_Pa_per_s: float      # r_active [Pa/s]
    description: str = ""

    @property
    def n_wheels(self) -> int:
        return len(self.wheel_names)

    def master_cylinder_pressure(self, pedal_force_N: float) -> float:
        """p_mc [Pa] for a pedal force [N] (module docstring); a negative force counts as none."""
        f = max(float(pedal_force_N), 0.0)
        return min(self.pedal_ratio * self.booster_gain * f / self.master_cylinder_area_m2, self.max_pressure_Pa)

    def pedal_force_for(self, pressure_Pa: float) -> float:
        """The pedal force [N] that gives master-cylinder pressure ``pressure_Pa`` (below run-out)."""
        return float(pressure_Pa) * self.master_cylinder_area_m2 / (self.pedal_ratio * self.booster_gain)

    def torques(self, pressures_Pa: np.ndarray) -> np.ndarray:
        """Brake torque capacities T_b = K_w p [N m] per wheel."""
        return self.torque_gain_Nm_per_Pa * np.maximum(pressures_Pa, 0.0)


def advance_pressures(brakes: BrakeSystem, p: np.ndarray, p_mc: float, p_limit: np.ndarray, p_active: np.ndarray,
                      h: float, valves: np.ndarray | None = None) -> None:
    """Advance the wheel pressures ``p`` [Pa] (in place) over ``h`` [s] (module docstring): master-cylinder
    pressure ``p_mc`` [Pa], pressure limits ``p_limit`` and active pressures ``p_active`` [Pa] per wheel. The
    valve state of each wheel over the step (APPLY = build, HOLD, RELEASE = dump) goes to ``valves`` if given."""
    decay = 1.0 - math.exp(-h / brakes.time_constant_s)
    down = brakes.release_rate_Pa_per_s * h
    for w in range(p.size):
        active = min(p_active[w], brakes.max_pressure_Pa)
        source = max(p_mc, active)
        limit = p_limit[w]
        target = min(source, limit)
        if limit < p[w]:                                  # outlet open: dump towards the accumulator
            p[w] = max(p[w] - min(p[w] * decay, down), limit)
            mode = RELEASE
        elif target > p[w]:                               # inlet open: build from the master cylinder or pump
            up = (brakes.active_build_rate_Pa_per_s if active > p_mc else brakes.build_rate_Pa_per_s) * h
            p[w] = min(p[w] + min((source - p[w]) * decay, up), target)
            mode = APPLY
        elif source < p[w]:                               # inlet open, the driver releases: back to p_mc
            p[w] += max((source - p[w]) * decay, -down)
            mode = APPLY
        else:
            mode = HOLD
        if valves is not None:
            valves[w] = mode


def _positive(doc: dict, key: str, src: str) -> float:
    v = doc.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise ModelError(f"{src}: field '{key}' must be a positive number, got {v!r}")
    return float(v)


def load_brake_system(name_or_path, wheel_names) -> BrakeSystem:
    """The brake system of a vehicle from ``resources/brakes/<name>.json`` or a file path, its per-wheel
    arrays in the order of ``wheel_names`` (each wheel must be listed in the file's ``wheels``)."""
    p = Path(name_or_path)
    if p.suffix != ".json":
        p = resource_path("brakes", f"{name_or_path}.json")
    src = str(p)
    doc = read_json(p, "brake system")
    mc = doc.get("master_cylinder")
    if not isinstance(mc, dict):
        raise ModelError(f"{src}: field 'master_cylinder' must be an object")
    calipers = doc.get("calipers")
    wheels = doc.get("wheels")
    if not isinstance(calipers, dict) or not calipers:
        raise ModelError(f"{src}: field 'calipers' must be an object of named calipers")
    if not isinstance(wheels, dict):
        raise ModelError(f"{src}: field 'wheels' must map each wheel name to a caliper name")
    gains = {}
    for cname, c in calipers.items():
        if not isinstance(c, dict):
            raise ModelError(f"{src}: calipers.{cname} must be an object")
        where = f"{src}: calipers.{cname}"
        area = math.pi / 4.0 * _positive(c, "piston_diameter_m", where) ** 2
        gains[cname] = 2.0 * _positive(c, "pad_friction", where) * area * _positive(c, "effective_radius_m", where)
    k = []
    for w in wheel_names:
        if w not in wheels:
            raise ModelError(f"{src}: field 'wheels' has no entry for wheel '{w}' (the vehicle's wheels: "
                             f"{', '.join(wheel_names)})")
        if wheels[w] not in gains:
            raise ModelError(f"{src}: wheels.{w} names caliper {wheels[w]!r}; calipers: {', '.join(gains)}")
        k.append(gains[wheels[w]])
    hyd = doc.get("hydraulics")
    if not isinstance(hyd, dict):
        raise ModelError(f"{src}: field 'hydraulics' must be an object")
    where = f"{src}: hydraulics"
    return BrakeSystem(
        name=str(doc.get("name", p.stem)), wheel_names=tuple(wheel_names), torque_gain_Nm_per_Pa=np.array(k),
        pedal_ratio=_positive(mc, "pedal_ratio", f"{src}: master_cylinder"),
        booster_gain=_positive(mc, "booster_gain", f"{src}: master_cylinder"),
        master_cylinder_area_m2=math.pi / 4.0 * _positive(mc, "bore_m", f"{src}: master_cylinder") ** 2,
        max_pressure_Pa=_positive(mc, "max_pressure_Pa", f"{src}: master_cylinder"),
        time_constant_s=_positive(hyd, "time_constant_s", where),
        build_rate_Pa_per_s=_positive(hyd, "build_rate_Pa_per_s", where),
        release_rate_Pa_per_s=_positive(hyd, "release_rate_Pa_per_s", where),
        active_build_rate_Pa_per_s=_positive(hyd, "active_build_rate_Pa_per_s", where),
        description=str(doc.get("description", "")))
