"""The paper's manoeuvres (Dai, Pan et al. 2022 §4) and the comparison with its Tables 2 and 4.

Axes: the paper reports the chassis state in road-aligned axes: x along the road (displacement from
the start), z the height of the chassis reference point (here the design CoM) normal to the road, pitch
relative to the road (ISO 8855 sign: + nose down). On the flat/bumpy road these are the global
values; on the 16.5 deg slope the global results are rotated by the grade angle.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from ..paths import resource_path
from ..plotting import Panel, plot_panels
from ..results import Result
from ..vehicle.loader import load_vehicle_spec, vehicle_names

QUANTITIES = ("x_m", "vx_m_per_s", "z_m", "vz_m_per_s", "pitch_rad", "pitch_rate_rad_per_s")
UNITS = ("m", "m/s", "m", "m/s", "rad", "rad/s")
"""Units of QUANTITIES."""
#: Acceptance bands of the comparison with the paper's tables: x within 1.5 %, vx within 1 %, z within
#: 10 mm, pitch within 0.01 rad (vz and the pitch rate end near zero, where a relative band means nothing).
TOLERANCES = {"x_m": ("rel", 0.015), "vx_m_per_s": ("rel", 0.01), "z_m": ("abs", 0.010), "pitch_rad": ("abs", 0.01)}


@dataclass(frozen=True)
class Maneuver:
    key: str                 # "bumpy_road" | "sloping_road"
    road: str                # shipped road name
    v0: float                # [m/s]
    drive_torque: float      # front wheel drive torque [N m]
    duration: float          # [s]
    grade_rad: float         # road grade used for the road-aligned axes [rad]


MANEUVERS = {
    "bumpy_road": Maneuver("bumpy_road", "bumpy", 20.0, 300.0, 5.0, 0.0),
    "sloping_road": Maneuver("sloping_road", "slope16_5", 15.0, 1550.0, 5.0, math.radians(16.5)),
}
#: Road-axes chassis states of a manoeuvre, as the paper's Figs. 9 and 11 show them (3 x 2 panels).
PANELS = (Panel("x [m]", (("x", "x_m"),)), Panel("vx [m/s]", (("vx", "vx_m_per_s"),)),
          Panel("z [m]", (("z", "z_m"),)), Panel("vz [m/s]", (("vz", "vz_m_per_s"),)),
          Panel("pitch [rad]", (("pitch", "pitch_rad"),)),
          Panel("pitch rate [rad/s]", (("pitch rate", "pitch_rate_rad_per_s"),)))


def paper_results() -> dict:
    return json.loads(resource_path("reference", "paper_results.json").read_text())


def paper_variants() -> dict[str, str]:
    """Shipped vehicle name -> the paper's model key (the vehicle file's ``paper_model``), for every vehicle
    whose model the paper reports in the final-state tables of both manoeuvres."""
    maneuvers = paper_results()["maneuvers"]
    reported = set.intersection(*(set(maneuvers[key][_table(key)]) for key in MANEUVERS))
    models = {name: load_vehicle_spec(name).paper_model for name in vehicle_names()}
    return {name: model for name, model in models.items() if model in reported}


def _table(maneuver: str) -> str:
    return "final_state_table2" if maneuver == "bumpy_road" else "final_state_table4"


VARIANTS = paper_variants()
"""Vehicle name -> paper model key of the vehicles the paper's tables cover (from the vehicle files)."""


def paper_final_state(maneuver: str, model_key: str) -> dict:
    return paper_results()["maneuvers"][maneuver][_table(maneuver)][model_key]


def global_xz_velocity(res):
    """Global x and z velocity of the chassis centre of mass [m/s] from chassis.vx, .vy, .vz (chassis axes,
    every vehicle kind): v_global = Rz(yaw) Ry(pitch) Rx(roll) v (the half car: vy = roll = yaw = 0)."""
    zero = np.zeros_like(res["chassis.vx"])
    col = lambda name: res[name] if name in res.names else zero
    vx, vy, vz = res["chassis.vx"], col("chassis.vy"), res["chassis.vz"]
    r, p, y = col("chassis.roll"), res["chassis.pitch"], col("chassis.yaw")
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    gx = cy * cp * vx + (cy * sp * sr - sy * cr) * vy + (cy * sp * cr + sy * sr) * vz
    gz = -sp * vx + cp * sr * vy + cp * cr * vz
    return gx, gz


def road_axes(res, vehicle, grade_rad: float) -> dict:
    """Chassis histories in road-aligned axes (x from the start along the road, z normal height), of the
    chassis centre of mass (chassis.x, chassis.z: its global position)."""
    c, s = math.cos(grade_rad), math.sin(grade_rad)
    xa = res["chassis.x"]
    za = res["chassis.z"]
    vx, vz = global_xz_velocity(res)
    return {
        "x_m": (xa - xa[0]) * c + (za - za[0]) * s,
        "vx_m_per_s": vx * c + vz * s,
        "z_m": -xa * s + za * c,            # height above the road plane through the origin
        "vz_m_per_s": -vx * s + vz * c,
        "pitch_rad": res["chassis.pitch"] + grade_rad,
        "pitch_rate_rad_per_s": res["chassis.pitch_rate"].copy(),
    }


def run_maneuver(vehicle, maneuver: Maneuver, *, dt=1e-3, integrator="rk4", progress=False):
    """Simulate one manoeuvre; returns (Result, road-axes dict)."""
    driven = [w.name for w in vehicle.spec.wheels if w.driven]
    res = vehicle.simulate(maneuver.road, maneuver.duration, dt=dt, v0=maneuver.v0,
                           drive_torque={w: maneuver.drive_torque for w in driven},
                           integrator=integrator, progress=progress)
    return res, road_axes(res, vehicle, maneuver.grade_rad)


def compare(axes: dict, paper: dict) -> list[tuple]:
    """Rows (quantity, ours, paper, difference, relative or absolute, within tolerance or None)."""
    rows = []
    for q in QUANTITIES:
        ours = float(axes[q][-1])
        ref = float(paper[q])
        diff = ours - ref
        tol = TOLERANCES.get(q)
        if tol is None:
            ok = None
        elif tol[0] == "rel":
            ok = abs(diff) <= tol[1] * abs(ref)
        else:
            ok = abs(diff) <= tol[1]
        rows.append((q, ours, ref, diff, tol, ok))
    return rows


def format_table(title: str, rows: list[tuple]) -> str:
    lines = [title, f"  {'quantity':<22}{'ours':>12}{'paper':>12}{'difference':>13}  band"]
    for q, ours, ref, diff, tol, ok in rows:
        band = "" if tol is None else (f"±{tol[1]:.1%}" if tol[0] == "rel" else f"±{tol[1]:g}")
        mark = "" if ok is None else ("ok" if ok else "OUT")
        lines.append(f"  {q:<22}{ours:>12.5g}{ref:>12.5g}{diff:>+13.4g}  {band:<7}{mark}")
    return "\n".join(lines)


def road_axes_result(t, axes: dict) -> Result:
    """The road-axes histories of :func:`road_axes` at times ``t`` [s] as a Result (columns QUANTITIES)."""
    return Result.from_columns(t, QUANTITIES, UNITS, np.column_stack([axes[q] for q in QUANTITIES]))


def plot_maneuver(runs: list[tuple[str, Result]], path, title: str):
    """Road-axes chassis states of several vehicles [(label, road_axes_result)] in PANELS, atomically."""
    return plot_panels(path, runs, PANELS, title=title, columns=2)
