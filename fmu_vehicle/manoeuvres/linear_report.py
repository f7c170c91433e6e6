"""What ``fmu-vehicle linearize`` computes and writes: a vehicle's steady state, its linear model and modes, the
single-track model's modes beside them and the check of the linear against the nonlinear step response
(:func:`linear_report`), the files of a report (:func:`report_files`) and its summary (:func:`summary`, which
the command writes as ``<stem>_summary.json``):

* ``<stem>.npz`` and ``<stem>.mat`` (NumPy, and MATLAB through ``scipy.io.savemat``): A, B, C, D, B_rate,
  D_rate, the state, input and output names (MATLAB: cell arrays), the operating point (x_op, u_op, y_op,
  speed_m_s, ay_m_s2, steering_wheel_angle_rad), the eigenvalues with damping ratios, natural frequencies and
  mode names, the single-track model's eigenvalues, the states left out;
* ``<stem>.png``: the pole map with the single-track poles marked, and the step check;
* the summary: the operating point, the checks of the differences, every mode and the single-track
  comparison.

Described in docs/linearization.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .linearization import LinearModel, OperatingPoint, linearize, operating_point, step_check
from .modes import Mode, modes as modes_of, single_track_modes, table, yaw_sideslip
from .plots import plot_modes
from .single_track import G, SingleTrack
from .vehicle_model import single_track_of

STEP_DEG = 0.5
"""Steering-wheel step of the check [deg]."""
CHECK_S = 3.0
"""Duration of the step check [s]."""


@dataclass(frozen=True)
class LinearReport:
    """The results of :func:`linear_report`."""
    op: OperatingPoint
    linear: LinearModel
    modes: list
    single_track: SingleTrack
    single_track_modes: list
    check: dict | None

    @property
    def yaw_sideslip(self) -> list[Mode]:
        """The full model's counterparts of the single-track model's modes (``modes.yaw_sideslip``)."""
        return yaw_sideslip(self.modes)


def linear_report(car, speed_m_s: float, ay_m_s2: float = 0.0, *, step_deg: float | None = STEP_DEG,
                  check_s: float = CHECK_S, progress=None) -> LinearReport:
    """Steady state (``linearization.operating_point``), linear model (``linearize``), its modes, the
    single-track model of the same vehicle (``vehicle_model.single_track_of``) at the same speed, and the step
    check (``step_check``, a steering-wheel step of ``step_deg`` over ``check_s`` [s]; None: no check).
    ``progress(text)`` is told what is being done."""
    def say(text):
        if progress is not None:
            progress(text)

    op = operating_point(car, speed_m_s, ay_m_s2, progress=progress)
    say("linear model: central differences of the vehicle's derivative")
    lin = linearize(car, op)
    st = single_track_of(car)
    check = None
    if step_deg is not None:
        say(f"check: nonlinear run of {check_s:g} s after a {step_deg:g} deg steering step")
        check = step_check(car, lin, math.radians(step_deg), check_s)
    return LinearReport(op, lin, modes_of(lin.A, lin.state_names), st, single_track_modes(st, speed_m_s), check)


def report_stem(vehicle: str, speed_kmh: float, ay_g: float) -> str:
    """The files' common name: ``<vehicle>_<speed>kmh_<ay>g``."""
    return f"{vehicle}_{speed_kmh:g}kmh_{ay_g:g}g"


def arrays(report: LinearReport) -> dict:
    """The arrays of the .npz and .mat files (module docstring), names as keys."""
    lin, op = report.linear, report.op
    return {"A": lin.A, "B": lin.B, "C": lin.C, "D": lin.D, "B_rate": lin.B_rate, "D_rate": lin.D_rate,
            "state_names": list(lin.state_names), "input_names": list(lin.input_names),
            "output_names": list(lin.output_names), "x_op": lin.x_op, "u_op": lin.u_op, "y_op": lin.y_op,
            "speed_m_s": op.speed_m_s, "ay_m_s2": op.ay_m_s2, "steering_wheel_angle_rad": op.steering_wheel_angle_rad,
            "eigenvalues": np.array([m.eigenvalue for m in report.modes]),
            "damping_ratio": np.array([m.damping_ratio for m in report.modes]),
            "natural_frequency_hz": np.array([m.natural_frequency_hz for m in report.modes]),
            "mode_names": [m.name for m in report.modes],
            "single_track_eigenvalues": np.array([m.eigenvalue for m in report.single_track_modes]),
            "dropped_states": list(lin.dropped), "vehicle": op.vehicle}


def summary(report: LinearReport) -> dict:
    """The summary (module docstring): numbers, strings, lists and dicts."""
    op, lin = report.op, report.linear
    pick = ("chassis.vx", "chassis.ay", "chassis.yaw_rate", "chassis.sideslip", "chassis.roll")
    out = {"vehicle": op.vehicle,
           "operating_point": {"speed_m_s": op.speed_m_s, "ay_m_s2": op.ay_m_s2, "ay_g": op.ay_m_s2 / G,
                               "steering_wheel_angle_rad": op.steering_wheel_angle_rad,
                               "drive_torque_N_m": op.drive_torque_N_m, "newton_iterations": op.iterations,
                               **{name: op.outputs[name] for name in pick}},
           "states": list(lin.state_names), "inputs": list(lin.input_names), "outputs": list(lin.output_names),
           "dropped_states": lin.dropped, "fd_check": lin.fd_check, "neutral_coupling": lin.neutral_coupling,
           "modes": table(report.modes),
           "yaw_sideslip": {"vehicle": table(report.yaw_sideslip), "single_track": table(report.single_track_modes)}}
    if report.check is not None:
        out["step_check"] = {"step_deg": math.degrees(report.check["step_rad"]),
                             "duration_s": report.check["duration_s"], "error": report.check["error"]}
    return out


def report_files(report: LinearReport, stem: str) -> list[tuple[str, object]]:
    """[(file name, write(path))] of a report: ``<stem>.npz``, ``.mat`` and ``.png``."""
    from scipy.io import savemat
    data = arrays(report)
    mat = {k: (np.array(v, dtype=object) if isinstance(v, list) else v) for k, v in data.items()}
    op = report.op
    title = (f"{op.vehicle} at {op.speed_m_s * 3.6:g} km/h, a_y = {op.ay_m_s2 / G:.3g} g: modes of the linear "
             "model and the single-track model's")
    return [(f"{stem}.npz", lambda path: np.savez(path, **{k: np.asarray(v) for k, v in data.items()})),
            (f"{stem}.mat", lambda path: savemat(path, mat)),
            (f"{stem}.png", lambda path: plot_modes(path, report.modes, report.single_track_modes, report.check,
                                                    title=title))]
