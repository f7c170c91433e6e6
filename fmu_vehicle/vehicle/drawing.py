"""A picture of a vehicle from its data: side and top views of its bodies, joints, rods, springs and wheels
at the design configuration (all joint coordinates zero), with its main dimensions (docs/vehicle.md §1).

Everything drawn is read from the assembled vehicle (``Vehicle.spec``): the joints' points, the removed
rods' and spring-dampers' end points and the bodies' centres of mass are global positions at the design
configuration [m] (ISO 8855: x forward, y left, z up; origin on the ground below the front wheel centre),
the wheel centres from the vehicle file and the tire radii from the tire files. The dimensions annotated:

    wheelbase      = max x_wheel - min x_wheel                                  [m]
    track          = y_left - y_right of the front wheel centres; a half car (one side only) is drawn
                     with its mirror image in mind: track = 2 |y_wheel|         [m]
    tire radius    = UNLOADED_RADIUS of the tire files (R0)                     [m]
    CoM height     = z of the chassis body's centre of mass (design configuration, tires undeflected) [m]
    CoM behind the front axle = x_front wheel - x_chassis CoM                   [m]

``draw_vehicle`` returns them, so that what the picture says can be checked against the vehicle file.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..plotting import new_figure, save_figure
from ..tire.models import unloaded_radius

TIRE_DRAW_WIDTH_M = 0.3
"""Width of a tire in the top view when its file gives no WIDTH [m] (drawing only)."""


def vehicle_dimensions(vehicle) -> dict[str, float]:
    """The dimensions the picture annotates (module docstring), in SI units, from ``vehicle``'s data. A
    combination (towed units, docs/articulated.md §6) is refused: the wheelbase and track here are one unit's."""
    vehicle.spec.refuse_combination("dimensions and drawings of")
    centers = np.array([w.center_m for w in vehicle.spec.wheels], dtype=float)
    radii = np.array([unloaded_radius(p) for p in vehicle.tire_p], dtype=float)
    front_x = centers[:, 0].max()
    front = centers[np.isclose(centers[:, 0], front_x)]
    ys = front[:, 1]
    track = float(ys.max() - ys.min()) if ys.max() > 0.0 > ys.min() else float(2.0 * np.abs(ys).max())
    chassis = _body(vehicle, vehicle.spec.chassis_body)
    return {"wheelbase_m": float(front_x - centers[:, 0].min()),
            "track_m": track,
            "tire_radius_m": float(radii.max()),
            "com_height_m": float(chassis.com_m[2]),
            "com_behind_front_axle_m": float(front_x - chassis.com_m[0]),
            "mass_kg": float(vehicle.total_mass_kg)}


def _body(vehicle, name):
    return next(b for b in vehicle.spec.mechanism.bodies if b.name == name)


def _parts(vehicle) -> dict[str, list[np.ndarray]]:
    """Body name -> the global points where it is attached (joints, rods, spring-dampers) [m]."""
    mech = vehicle.spec.mechanism
    points: dict[str, list[np.ndarray]] = {b.name: [] for b in mech.bodies}
    for j in mech.joints:
        for body in (j.parent, j.child):
            if body in points and j.type != "free" and j.type != "planar":
                points[body].append(np.asarray(j.point_m, float))
    for element in list(mech.rods) + list(mech.spring_dampers):
        for body, point in ((element.body_a, element.point_a_m), (element.body_b, element.point_b_m)):
            if body in points:
                points[body].append(np.asarray(point, float))
    return points


def draw_vehicle(vehicle, path: str | os.PathLike, dpi: float = 110) -> dict[str, float]:
    """Draw ``vehicle`` (a :class:`fmu_vehicle.vehicle.Vehicle`) in side view (x-z) and top view (x-y) and
    write the picture to ``path`` (format by suffix, png by default). Returns the dimensions annotated
    (:func:`vehicle_dimensions`)."""
    from matplotlib.patches import Circle, Rectangle

    dims = vehicle_dimensions(vehicle)
    spec = vehicle.spec
    mech = spec.mechanism
    parts = _parts(vehicle)
    chassis = spec.chassis_body
    wheels = {w.body: w for w in spec.wheels}
    centers = np.array([w.center_m for w in spec.wheels], dtype=float)
    radii = np.array([unloaded_radius(p) for p in vehicle.tire_p], dtype=float)
    widths = [float(t.sections.get("DIMENSION", {}).get("WIDTH", TIRE_DRAW_WIDTH_M)) for t in spec.tires]

    fig = new_figure(11.0, 8.8)
    side, top = fig.subplots(2, 1, height_ratios=(1.0, 1.25))
    views = ((side, (0, 2), "z [m]", "side view (from the left)"), (top, (0, 1), "y [m] (+ left)", "top view"))
    for ax, (i, k), ylabel, title in views:
        ax.set_aspect("equal")
        ax.set_xlabel("x [m] (+ forward)")
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=11, loc="left")
        ax.grid(True, linewidth=0.3, alpha=0.5)
        chassis_pts = np.array(parts[chassis] + [_body(vehicle, chassis).com_m])
        lo, hi = chassis_pts[:, [i, k]].min(axis=0), chassis_pts[:, [i, k]].max(axis=0)
        ax.add_patch(Rectangle(tuple(lo), *(hi - lo), facecolor="0.85", edgecolor="0.55", zorder=0,
                               label="chassis (box around its attachment points)" if ax is side else None))
        for body in mech.bodies:
            if body.name == chassis or body.name in wheels:
                continue
            pts = parts[body.name]
            com = np.asarray(body.com_m, float)
            for p in pts:
                ax.plot([com[i], p[i]], [com[k], p[k]], color="tab:blue", linewidth=1.6, zorder=3)
        for rod in mech.rods:
            a, b = rod.point_a_m, rod.point_b_m
            ax.plot([a[i], b[i]], [a[k], b[k]], color="tab:orange", linewidth=1.2, zorder=3)
        for sd in mech.spring_dampers:
            a, b = sd.point_a_m, sd.point_b_m
            ax.plot([a[i], b[i]], [a[k], b[k]], color="tab:green", linewidth=3.0, alpha=0.7, zorder=2)
        for j in mech.joints:
            if j.type in ("free", "planar"):
                continue
            ax.plot(j.point_m[i], j.point_m[k], "o", color="k" if not j.cut else "tab:red", markersize=3, zorder=4)
        com = _body(vehicle, chassis).com_m
        ax.plot(com[i], com[k], marker="o", markersize=11, markerfacecolor="white", markeredgecolor="k", zorder=5)
        ax.plot(com[i], com[k], marker="+", markersize=11, color="k", zorder=6)
        for c, r, w in zip(centers, radii, widths):
            if ax is side:
                ax.add_patch(Circle((c[0], c[2]), r, fill=False, edgecolor="k", linewidth=1.5, zorder=1))
            else:
                ax.add_patch(Rectangle((c[0] - r, c[1] - w / 2.0), 2.0 * r, w, facecolor="0.55", alpha=0.45,
                                       edgecolor="k", zorder=1))
    # legend entries (proxies)
    side.plot([], [], color="tab:blue", linewidth=1.6, label="bodies (centre of mass to attachments)")
    side.plot([], [], color="tab:orange", linewidth=1.2, label="removed rods")
    side.plot([], [], color="tab:green", linewidth=3.0, alpha=0.7, label="spring-dampers")
    side.plot([], [], "o", color="k", markersize=3, label="joints")
    side.plot([], [], "o", color="tab:red", markersize=3, label="cut joints")
    side.plot([], [], marker="o", markersize=9, markerfacecolor="white", markeredgecolor="k", linestyle="",
              label="chassis centre of mass")

    x_front, x_rear = centers[:, 0].max(), centers[:, 0].min()
    r0 = dims["tire_radius_m"]
    side.axhline(0.0, color="0.4", linewidth=1.0, zorder=0)
    arrow = dict(arrowstyle="<->", color="k", linewidth=1.0, shrinkA=0, shrinkB=0)
    y_wb = -0.25
    side.annotate("", (x_rear, y_wb), (x_front, y_wb), arrowprops=arrow)
    side.text((x_front + x_rear) / 2.0, y_wb - 0.06, f"wheelbase {dims['wheelbase_m']:.4f} m", ha="center",
              va="top", fontsize=10)
    x_com, z_com = float(_body(vehicle, chassis).com_m[0]), dims["com_height_m"]
    side.annotate("", (x_com, 0.0), (x_com, z_com), arrowprops=arrow)
    side.text(x_com + 0.08, z_com / 2.0, f"CoM height\n{z_com:.4f} m", va="center", fontsize=10)
    side.annotate("", (x_com, z_com + 0.55), (x_front, z_com + 0.55), arrowprops=arrow)
    side.text((x_com + x_front) / 2.0, z_com + 0.6, f"CoM {dims['com_behind_front_axle_m']:.3f} m behind the front axle",
              ha="center", va="bottom", fontsize=10)
    front_c = centers[np.argmax(centers[:, 0])]
    side.annotate("", (front_c[0] + r0, front_c[2]), (front_c[0], front_c[2]), arrowprops=arrow)
    side.text(front_c[0] + r0 + 0.06, front_c[2], f"tire radius\n{r0:.4f} m", va="center", fontsize=10)
    side.set_xlim(x_rear - r0 - 0.5, x_front + r0 + 1.3)
    side.set_ylim(-0.5, max(1.6, z_com + 0.9))
    fig.legend(loc="outside lower center", fontsize=9, ncol=3, frameon=False)

    ys = centers[:, 1]
    y_left = ys.max()
    y_right = ys.min() if ys.min() < 0.0 else -y_left
    x_tr = x_front + r0 + 0.3
    top.annotate("", (x_tr, y_right), (x_tr, y_left), arrowprops=arrow)
    top.text(x_tr + 0.08, 0.0, f"track\n{dims['track_m']:.4f} m", va="center", fontsize=10)
    if ys.min() >= 0.0:
        top.axhline(0.0, color="0.4", linewidth=0.8, linestyle="--")
        top.text(x_rear, -0.15, "centre line: a half car is the left side of a symmetric vehicle", fontsize=9,
                 va="top")
    top.set_xlim(x_rear - r0 - 0.5, x_front + r0 + 1.3)
    top.set_ylim(min(y_right, -0.3) - 0.45, y_left + 0.45)
    fig.suptitle(f"{spec.name}: {dims['mass_kg']:.0f} kg, {len(spec.wheels)} wheels, design configuration "
                 f"(tires touching the road, undeflected)", fontsize=12)
    save_figure(fig, Path(path), dpi=dpi)
    return dims
