"""One figure per manoeuvre: ISO 7401 step steer, ISO 4138 constant radius, ISO 3888-1 double lane change
and the suspension kinematics sweep; damping against speed, the articulation angle and paths, and braking in
a turn of articulated vehicles (docs/articulated.md §4 and §7); the pole map of a linearized vehicle
(docs/linearization.md). Drawn on matplotlib's Agg canvas and written atomically through
``fmu_vehicle.plotting`` (the format follows the file suffix). Units are on every axis; the KPIs and the
standards' limits are drawn and written into the figure. Described in docs/handling.md §10.
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from fmu_vehicle.plotting import fit_title, new_figure, save_figure

from .lane_change import DoubleLaneChange, body_corners, iso3888_1_layout
from .steady_state import G, LINEAR_AY_MAX_M_S2, LINEAR_AY_MIN_M_S2


def _ms(value: float) -> str:
    return "n/a" if not math.isfinite(value) else f"{value:.3f} s"


def plot_step_steer(path: str | os.PathLike, t, steering_wheel_angle, yaw_rate, ay, metrics: dict, *,
                    title: str = "ISO 7401 step steer") -> Path:
    """Steering-wheel angle, yaw rate and lateral acceleration against time, with t50, the steady-state
    levels, the 90 % levels, the response and peak response times (``metrics`` of
    :func:`fmu_vehicle.manoeuvres.step_steer.step_steer_metrics`)."""
    t = np.asarray(t, dtype=float)
    fig = new_figure(8.0, 7.0)
    axes = fig.subplots(3, 1, sharex=True)
    t50 = metrics["t50_s"]
    axes[0].plot(t, np.degrees(steering_wheel_angle), lw=1.2)
    axes[0].axhline(math.degrees(metrics["steering_wheel_angle_rad"]), ls=":", c="k", lw=0.8)
    axes[0].set_ylabel("steering-wheel angle [deg]")
    for ax, key, values, scale, unit, label in (
            (axes[1], "yaw_rate", yaw_rate, math.degrees(1.0), "deg/s", "yaw rate"),
            (axes[2], "ay", ay, 1.0, "m/s^2", "lateral acceleration")):
        m = metrics[key]
        ax.plot(t, np.asarray(values) * scale, lw=1.2)
        ax.axhline(m["steady_state"] * scale, ls=":", c="k", lw=0.8, label="steady state")
        ax.axhline(0.9 * m["steady_state"] * scale, ls="--", c="tab:gray", lw=0.8, label="90 %")
        ax.axvline(t50 + m["response_time_s"], c="tab:green", lw=0.8, label="response time")
        if math.isfinite(m["peak_response_time_s"]):
            ax.axvline(t50 + m["peak_response_time_s"], c="tab:red", lw=0.8, label="peak")
        ax.set_ylabel(f"{label} [{unit}]")
        gain_unit = "1/s" if key == "yaw_rate" else "(m/s^2)/rad"
        ax.text(0.99, 0.05, f"response {_ms(m['response_time_s'])}, peak {_ms(m['peak_response_time_s'])}, "
                f"overshoot {m['overshoot_pct']:.1f} %, gain {m['gain']:.4g} {gain_unit}",
                transform=ax.transAxes, ha="right", va="bottom", fontsize=8)
        if key == "ay" and "ay_target_m_s2" in metrics:
            ax.axhline(math.copysign(metrics["ay_target_m_s2"], m["steady_state"]), c="tab:purple", lw=0.8,
                       label=f"target ({metrics['ay_miss_pct']:+.1f} %)")
        ax.legend(fontsize=7, loc="center right")
    for ax in axes:
        ax.axvline(t50, c="tab:orange", lw=0.8)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time [s]")
    fig.suptitle(fit_title(f"{title} (t50 = {t50:.3f} s: 50 % of the steering input)", fig.get_figwidth(), 12))
    return save_figure(fig, path)


def plot_constant_radius(path: str | os.PathLike, ay, steering_wheel_angle, steering_ratio: float,
                         wheelbase: float, radius_m: float, result: dict, *,
                         title: str = "ISO 4138 steady-state circular driving, constant radius") -> Path:
    """Road-wheel angle delta_sw / i_s against lateral acceleration with the Ackermann angle L/R, the fitted
    line over the linear range and the understeer gradient (``result`` of
    :func:`fmu_vehicle.manoeuvres.steady_state.understeer_gradient`)."""
    ay = np.asarray(ay, dtype=float)
    sign = 1.0 if np.median(ay) >= 0.0 else -1.0
    a = sign * ay
    delta = np.degrees(sign * np.asarray(steering_wheel_angle, dtype=float) / steering_ratio)
    fig = new_figure(8.0, 5.0)
    ax = fig.subplots()
    lo, hi = result["ay_range_m_s2"]
    use = (a >= lo) & (a <= hi)
    ax.plot(a, delta, lw=0.8, alpha=0.35, c="tab:blue", label="run")
    ax.plot(a[use], delta[use], ".", ms=1.5, c="tab:blue", label="fitted samples")
    fit = np.linspace(0.0, max(a.max(), hi), 50)
    slope, ack = result["understeer_gradient_rad_per_m_s2"], wheelbase / abs(radius_m)
    ax.plot(fit, np.degrees(ack + result["intercept_rad"] + slope * fit), "--", lw=1.0, label="linear fit")
    ax.axhline(math.degrees(ack), c="k", ls=":", lw=0.8, label=f"Ackermann L/R = {math.degrees(ack):.3f} deg")
    ax.axvspan(LINEAR_AY_MIN_M_S2, LINEAR_AY_MAX_M_S2, color="tab:green", alpha=0.08, label="fit range")
    ax.set_xlabel("lateral acceleration [m/s^2]")
    ax.set_ylabel("steering-wheel angle / steering ratio [deg]")
    ax.text(0.02, 0.95, f"understeer gradient {slope:.3e} rad/(m/s^2) = "
            f"{result['understeer_gradient_deg_per_g']:.2f} deg/g\nfit over {lo:.2f} .. {hi:.2f} m/s^2, "
            f"R = {abs(radius_m):g} m", transform=ax.transAxes, va="top", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.suptitle(fit_title(title, fig.get_figwidth(), 12))
    return save_figure(fig, path)


def plot_lane_change(path: str | os.PathLike, t, x, y, yaw, ay, kpis: dict, vehicle_width: float, *,
                     track: DoubleLaneChange | None = None, yaw_rate=None, centre_line=None,
                     front_m: float = 0.0, rear_m: float = 0.0,
                     title: str = "ISO 3888-1 double lane change") -> Path:
    """Ground track with the cone lines, cones and the body outline every few metres; lateral acceleration
    and yaw rate against x; the KPIs (``kpis`` of :func:`fmu_vehicle.manoeuvres.lane_change.lane_change_kpis`)."""
    t, x, y, yaw, ay = (np.asarray(a, dtype=float) for a in (t, x, y, yaw, ay))
    track = track or iso3888_1_layout(vehicle_width)
    r = np.gradient(np.unwrap(yaw), t) if yaw_rate is None else np.asarray(yaw_rate, dtype=float)
    fig = new_figure(10.0, 8.0)
    ax0, ax1, ax2 = fig.subplots(3, 1, sharex=True, gridspec_kw={"height_ratios": [2.0, 1.0, 1.0]})
    for gate in track.gates:
        for yl in (gate.y_left, gate.y_right):
            ax0.plot([gate.x_start, gate.x_end], [yl, yl], c="tab:orange", lw=1.0)
    cones = np.array([(cx, cy) for cx, cy, _ in track.cones()])
    ax0.plot(cones[:, 0], cones[:, 1], "^", c="tab:orange", ms=5, label="cones")
    if centre_line is not None:
        ax0.plot(centre_line.x, centre_line.y, c="k", ls=":", lw=0.8, label="centre line")
    ax0.plot(x, y, c="tab:blue", lw=1.2, label="reference point")
    if front_m or rear_m:
        for k in range(0, x.size, max(1, x.size // 40)):
            cx, cy = body_corners(x[k:k + 1], y[k:k + 1], yaw[k:k + 1], vehicle_width, front_m, rear_m)
            order = [0, 1, 3, 2, 0]
            ax0.plot(cx[order, 0], cy[order, 0], c="tab:blue", lw=0.4, alpha=0.5)
    ax0.set_ylabel("y [m]")
    ax0.set_xlim(-10.0, track.end_x + 10.0)
    ax0.legend(fontsize=7, loc="lower right")
    summary = (f"gates passed {kpis['gates_passed']}/{kpis['gates_total']}, cones hit "
             f"{kpis['cones_hit']}, max path error {kpis['max_path_error_m']:.3f} m, peak |a_y| "
             f"{kpis['peak_ay_m_s2']:.2f} m/s^2, peak |r| {math.degrees(kpis['peak_yaw_rate_rad_s']):.1f} deg/s")
    ax1.plot(x, ay, lw=1.0)
    ax1.axhline(G, c="k", ls=":", lw=0.6)
    ax1.axhline(-G, c="k", ls=":", lw=0.6)
    ax1.set_ylabel("lateral acceleration [m/s^2]")
    ax2.plot(x, np.degrees(r), lw=1.0)
    ax2.set_ylabel("yaw rate [deg/s]")
    ax2.set_xlabel("x [m] (0 = entry of section 1)")
    for ax in (ax0, ax1, ax2):
        ax.grid(True, alpha=0.3)
        for gate in track.gates:
            ax.axvspan(gate.x_start, gate.x_end, color="tab:orange", alpha=0.05)
    fig.suptitle(fit_title(title, fig.get_figwidth(), 10) + "\n" + fit_title(summary, fig.get_figwidth(), 10),
                 fontsize=10)
    return save_figure(fig, path)


def plot_kinematics(path: str | os.PathLike, table, *, title: str | None = None) -> Path:
    """Toe and camber against wheel travel and (if swept) rack travel, with the gradients at the design
    position (a :class:`fmu_vehicle.manoeuvres.kinematics.KinematicsTable`)."""
    columns = 2 if table.rack is not None else 1
    fig = new_figure(5.0 * columns + 1.0, 6.0)
    axes = np.atleast_2d(fig.subplots(2, columns, squeeze=False))
    g = table.gradients_deg_per_m
    panels = [(0, table.wheel, "wheel travel [mm]", ("bump_steer", "camber_change"))]
    if table.rack is not None:
        panels.append((1, table.rack, "rack travel [mm]", ("toe_per_rack", "camber_per_rack")))
    for col, sweep, xlabel, keys in panels:
        for row, (values, label, key) in enumerate(((sweep.toe_deg, "toe [deg]", keys[0]),
                                                    (sweep.camber_deg, "camber [deg]", keys[1]))):
            ax = axes[row, col]
            ax.plot(1000.0 * sweep.travel_m, values, "o-", ms=2.5, lw=1.0)
            ax.axvline(0.0, c="k", lw=0.6, ls=":")
            ax.set_ylabel(label)
            ax.set_xlabel(xlabel)
            ax.grid(True, alpha=0.3)
            ax.text(0.02, 0.95, f"{key.replace('_', ' ')} at 0: {g[key] / 1000.0:.4f} deg/mm",
                    transform=ax.transAxes, va="top", fontsize=8)
    fig.suptitle(fit_title(title or f"Suspension kinematics: {table.name}", fig.get_figwidth(), 12))
    return save_figure(fig, path)


def plot_sine_with_dwell(path: str | os.PathLike, runs, *,
                         title: str = "Sine with dwell (UN R140 Annex 3, FMVSS 126 S7)") -> Path:
    """The sine-with-dwell runs of one amplitude overlaid (e.g. ESC off and on): steering-wheel angle, yaw rate
    with the first peak after the steering reversal and the 35 % and 20 % limits at COS + 1.0 s and
    COS + 1.75 s, and the lateral displacement (a_y integrated twice from BOS) with the 1.83 m limit at
    BOS + 1.07 s. ``runs``: dicts with ``label``, ``t`` [s], ``steering_wheel_angle`` [rad], ``yaw_rate``
    [rad/s], ``ay`` [m/s^2] and ``row`` (their :func:`~fmu_vehicle.manoeuvres.sine_with_dwell.swd_criteria`)."""
    from .sine_with_dwell import (DISPLACEMENT_MIN_M, DISPLACEMENT_TIME_S, YAW_RATE_CHECKS,
                                  lateral_displacement_series)

    fig = new_figure(9.0, 9.0)
    ax0, ax1, ax2 = fig.subplots(3, 1, sharex=True)
    for k, run in enumerate(runs):
        colour, row = f"C{k}", run["row"]
        t = np.asarray(run["t"], dtype=float)
        s = 1.0 if row["direction"] == "counter-clockwise" else -1.0
        verdict = "pass" if row["passed"] else f"FAIL: {row['failed']}"
        ax0.plot(t, np.degrees(run["steering_wheel_angle"]), c=colour, lw=1.2, label=run["label"])
        ax1.plot(t, np.degrees(run["yaw_rate"]), c=colour, lw=1.2,
                 label=f"{run['label']}: {row['yaw_rate_ratio_1s_pct']:.1f} %, {row['yaw_rate_ratio_1_75s_pct']:.1f} %"
                       f" ({verdict})")
        peak = -s * row["peak_yaw_rate_deg_s"]
        ax1.axhline(peak, c=colour, ls=":", lw=0.8)
        for after, limit in YAW_RATE_CHECKS:
            tc = row["cos_s"] + after
            ax1.axvline(tc, c="k", ls="--", lw=0.6)
            ax1.plot([tc - 0.12, tc + 0.12], [peak * limit / 100.0] * 2, c=colour, lw=2.0)
            ax1.annotate(f"{limit:g} %", (tc + 0.14, peak * limit / 100.0), fontsize=7, va="center", color=colour)
            ax1.plot([tc], [float(np.interp(tc, t, np.degrees(run["yaw_rate"])))], "o", ms=4, c=colour)
        tt, y = lateral_displacement_series(t, run["ay"], row["bos_s"])
        keep = tt <= row["cos_s"]                  # the steer; afterwards the double integral drifts off
        ax2.plot(tt[keep], s * y[keep], c=colour, lw=1.2,
                 label=f"{run['label']}: {row['lateral_displacement_m']:.2f} m at BOS + {DISPLACEMENT_TIME_S:g} s"
                       + ("" if row["lateral_displacement_applies"] else " (criterion applies from 5 A)"))
        tb = row["bos_s"] + DISPLACEMENT_TIME_S
        ax2.axvline(tb, c="k", ls="--", lw=0.6)
        ax2.plot([tb], [row["lateral_displacement_m"]], "o", ms=4, c=colour)
    if runs:
        row = runs[0]["row"]
        for ax in (ax0, ax1, ax2):
            ax.axvline(row["bos_s"], c="tab:gray", lw=0.6)
            ax.axvline(row["cos_s"], c="tab:gray", lw=0.6)
        ax0.annotate("BOS", (row["bos_s"], 0.0), fontsize=7, xytext=(2, 2), textcoords="offset points")
        ax0.annotate("COS", (row["cos_s"], 0.0), fontsize=7, xytext=(2, 2), textcoords="offset points")
        title = f"{title}: {row['amplitude_deg']:.1f} deg = {row['amplitude_A']:.2f} A ({row['direction']})"
    ax2.axhline(DISPLACEMENT_MIN_M, c="tab:red", lw=0.8, label=f"{DISPLACEMENT_MIN_M:g} m")
    ax0.set_ylabel("steering-wheel angle [deg]")
    ax1.set_ylabel("yaw rate [deg/s]")
    ax2.set_ylabel("lateral displacement [m]\n(in the first lobe's direction)")
    ax2.set_xlabel("time [s]")
    for ax in (ax0, ax1, ax2):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
    fig.suptitle(fit_title(title, fig.get_figwidth(), 12))
    return save_figure(fig, path)


def plot_abs_braking(path: str | os.PathLike, t, vx, wheel_speeds: dict, pressures: dict, *, kpis: dict | None = None,
                     title: str = "ABS braking") -> Path:
    """ABS cycling: per wheel (one row each) the wheel speed omega r_e against the vehicle speed v_x [m/s], and
    the wheel's brake pressure [bar] on a second axis. ``wheel_speeds`` and ``pressures`` map a wheel name to its
    series (omega r_e [m/s], p [Pa]); ``kpis`` (e.g. of :func:`fmu_vehicle.control.braking.straight_braking`)
    are written into the title when given."""
    t, vx = np.asarray(t, dtype=float), np.asarray(vx, dtype=float)
    names = list(wheel_speeds)
    fig = new_figure(9.0, 2.2 * len(names) + 1.0)
    axes = np.atleast_1d(fig.subplots(len(names), 1, sharex=True))
    for ax, w in zip(axes, names):
        ax.plot(t, vx, c="k", lw=1.0, label="vehicle speed v_x")
        ax.plot(t, np.asarray(wheel_speeds[w], dtype=float), c="tab:blue", lw=0.9, label=f"wheel speed {w}")
        ax.set_ylabel("speed [m/s]")
        ax.grid(True, alpha=0.3)
        ax2 = ax.twinx()
        ax2.plot(t, np.asarray(pressures[w], dtype=float) / 1e5, c="tab:red", lw=0.8, label=f"brake pressure {w}")
        ax2.set_ylabel("pressure [bar]", color="tab:red")
        lines = ax.get_lines() + ax2.get_lines()
        ax.legend(lines, [ln.get_label() for ln in lines], fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time [s]")
    text = title
    if kpis and "stopping_distance_m" in kpis:
        text += (f": stopping distance {kpis['stopping_distance_m']:.1f} m, ideal {kpis['ideal_distance_m']:.1f} m "
                 f"(ratio {kpis['ratio']:.3f})")
    fig.suptitle(fit_title(text, fig.get_figwidth(), 11), fontsize=11)
    return save_figure(fig, path)


def plot_damping_vs_speed(path: str | os.PathLike, speeds_m_s, damping_ratio, *, critical_speed_m_s: float | None = None,
                          runs=None, title: str = "Trailer yaw damping against speed") -> Path:
    """Damping ratio of the snaking mode against speed [km/h] (e.g. ``TrailerCombination.damping_vs_speed``),
    the critical speed marked where given; ``runs``: optional (speeds [m/s], damping ratios, label) of
    measured points (e.g. ISO 9815 steering-impulse runs analysed by
    :func:`fmu_vehicle.manoeuvres.articulated.yaw_damping`)."""
    v = np.asarray(speeds_m_s, dtype=float) * 3.6
    fig = new_figure(8.0, 5.0)
    ax = fig.subplots()
    ax.plot(v, np.asarray(damping_ratio, dtype=float), lw=1.2, label="linear model")
    for k, (vs, zs, label) in enumerate(runs or ()):
        ax.plot(np.asarray(vs, dtype=float) * 3.6, zs, "o", ms=4, c=f"C{k + 1}", label=label)
    ax.axhline(0.0, c="k", lw=0.8)
    text = title
    if critical_speed_m_s is not None and math.isfinite(critical_speed_m_s):
        ax.axvline(critical_speed_m_s * 3.6, c="tab:red", ls="--", lw=1.0,
                   label=f"critical speed {critical_speed_m_s * 3.6:.1f} km/h")
        text += f": critical speed {critical_speed_m_s * 3.6:.1f} km/h"
    ax.set_xlabel("speed [km/h]")
    ax.set_ylabel("damping ratio of the snaking mode [-]")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    fig.suptitle(fit_title(text, fig.get_figwidth(), 12))
    return save_figure(fig, path)


def plot_articulation(path: str | os.PathLike, t, theta, front_xy, trailer_xy, *, kpis: dict | None = None,
                      title: str = "Articulated vehicle: articulation angle and paths", equal_axes: bool = True) -> Path:
    """Articulation angle [deg] against time, and the ground paths of the towing unit's front axle and the
    trailer's axle (equal axes unless ``equal_axes`` is False: a lane change of 2 m over 150 m is then
    visible); ``kpis`` (e.g. of :func:`fmu_vehicle.manoeuvres.articulated.offtracking_from_paths` or
    ``rearward_amplification``) are written into the title: every numeric entry, name = value."""
    t, theta = np.asarray(t, dtype=float), np.asarray(theta, dtype=float)
    fig = new_figure(11.0, 5.0)
    ax0, ax1 = fig.subplots(1, 2)
    ax0.plot(t, np.degrees(theta), lw=1.2)
    ax0.set_xlabel("time [s]")
    ax0.set_ylabel("articulation angle (trailer - towing unit) [deg]")
    ax0.grid(True, alpha=0.3)
    ax1.plot(*front_xy, lw=1.2, label="front axle (towing unit)")
    ax1.plot(*trailer_xy, lw=1.2, label="trailer axle")
    if equal_axes:
        ax1.set_aspect("equal", adjustable="datalim")
    ax1.set_xlabel("x [m]")
    ax1.set_ylabel("y [m]")
    ax1.grid(True, alpha=0.3)
    ax1.legend(fontsize=8, loc="best")
    text = title
    if kpis:
        text += ": " + ", ".join(f"{k} = {v:.4g}" for k, v in kpis.items()
                                 if isinstance(v, (int, float)) and not isinstance(v, bool))
    fig.suptitle(fit_title(text, fig.get_figwidth(), 11), fontsize=11)
    return save_figure(fig, path)


def plot_braking_in_turn(path: str | os.PathLike, runs, t_brake: float, *,
                         title: str = "Braking in a turn") -> Path:
    """Articulation angle [deg] and the towing unit's forward speed [km/h] against time for each run, braking
    from ``t_brake`` [s] on (marked); ``runs``: (label, t, theta [rad], vx [m/s], t_peak [s], theta_peak [rad])
    each (e.g. of :func:`fmu_vehicle.manoeuvres.combination.braking_in_turn` with several trailer brake
    factors), the peak articulation marked."""
    fig = new_figure(9.0, 6.5)
    ax0, ax1 = fig.subplots(2, 1, sharex=True)
    for k, (label, t, theta, vx, t_peak, theta_peak) in enumerate(runs):
        ax0.plot(t, np.degrees(theta), lw=1.2, c=f"C{k}", label=f"{label}: peak {math.degrees(theta_peak):.2f} deg")
        ax0.plot([t_peak], [math.degrees(theta_peak)], "o", ms=4, c=f"C{k}")
        ax1.plot(t, np.asarray(vx, dtype=float) * 3.6, lw=1.2, c=f"C{k}", label=label)
    ax0.set_ylabel("articulation angle (trailer - towing unit) [deg]")
    ax1.set_ylabel("forward speed of the towing unit [km/h]")
    ax1.set_xlabel("time [s]")
    for ax in (ax0, ax1):
        ax.axvline(t_brake, c="k", ls=":", lw=0.8)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    fig.suptitle(fit_title(f"{title} (brakes from {t_brake:g} s)", fig.get_figwidth(), 11), fontsize=11)
    return save_figure(fig, path)


def plot_modes(path: str | os.PathLike, modes, single_track_modes, check: dict | None = None, *,
               title: str = "modes", zoom_1_s: float = 15.0) -> Path:
    """Pole map of a linear vehicle model: every eigenvalue (``modes``: :class:`fmu_vehicle.manoeuvres.modes.Mode`,
    one per complex pair, drawn with its conjugate) and the single-track model's (crosses), the whole map and a
    zoom to |Re|, |Im| <= ``zoom_1_s`` [1/s] with the modes named there; with ``check`` (of
    :func:`fmu_vehicle.manoeuvres.linearization.step_check`) the yaw-rate and lateral-acceleration deviations of
    the linear and the nonlinear model after the steering step, with the largest difference."""
    rows = 2 if check is not None else 1
    fig = new_figure(11.0, 4.6 * rows)
    axes = fig.subplots(rows, 2, squeeze=False)
    families = sorted({m.family for m in modes})
    colours = {n: f"C{k % 10}" for k, n in enumerate(families)}
    for k, ax in enumerate(axes[0]):
        for m in modes:
            ax.plot([m.eigenvalue.real] * 2, [m.eigenvalue.imag, -m.eigenvalue.imag], "o", ms=5, mfc="none",
                    c=colours[m.family], label=m.family)
        for m in single_track_modes:
            ax.plot([m.eigenvalue.real] * 2, [m.eigenvalue.imag, -m.eigenvalue.imag], "x", ms=8, c="k",
                    label="single-track model")
        ax.axvline(0.0, c="k", lw=0.6)
        ax.axhline(0.0, c="k", lw=0.6)
        ax.set_xlabel("real part [1/s]")
        ax.set_ylabel("imaginary part [rad/s]")
        ax.grid(True, alpha=0.3)
        if k == 1:
            ax.set_xlim(-zoom_1_s, 0.1 * zoom_1_s)
            ax.set_ylim(-zoom_1_s, zoom_1_s)
            placed = []
            for m in modes:
                lam = m.eigenvalue
                if abs(lam.real) <= zoom_1_s and abs(lam.imag) <= zoom_1_s:
                    near = sum(abs(lam - other) < 0.1 * zoom_1_s for other in placed)   # stack close labels
                    placed.append(lam)
                    ax.annotate(f"{m.name}\nzeta {m.damping_ratio:.2f}, {m.natural_frequency_hz:.2f} Hz",
                                (lam.real, lam.imag), fontsize=7, xytext=(4, 4 - 22 * near), textcoords="offset points")
            ax.set_title(f"zoom: |Re|, |Im| <= {zoom_1_s:g}", fontsize=9)
        else:
            handles, labels = ax.get_legend_handles_labels()
            unique = dict(zip(labels, handles))
            ax.legend(unique.values(), unique.keys(), fontsize=6, loc="upper left")
            ax.set_title("all modes (o) and the single-track model's (x)", fontsize=9)
    if check is not None:
        t = check["t"]
        for ax, (name, scale, label) in zip(axes[1], (("chassis.yaw_rate", math.degrees(1.0), "yaw rate [deg/s]"),
                                                      ("chassis.ay", 1.0, "lateral acceleration [m/s^2]"))):
            ax.plot(t, check["nonlinear"][name] * scale, lw=1.4, label="nonlinear")
            ax.plot(t, check["linear"][name] * scale, "--", lw=1.2, label="linear")
            ax.set_xlabel("time [s]")
            ax.set_ylabel(f"{label}, deviation")
            ax.set_title(f"{math.degrees(check['step_rad']):g} deg steering step: largest difference "
                         f"{100.0 * check['error'][name]:.2g} % of the peak", fontsize=9)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(fit_title(title, fig.get_figwidth(), 11), fontsize=11)
    return save_figure(fig, path)
