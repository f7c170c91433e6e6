"""Plots a person would rather look at than read (matplotlib, Agg backend)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .util import atomic_save  # noqa: E402


def plot_vehicle_result(res, path, title: str = "", reference=None, label: str = "fmu_vehicle"):
    """Seed-001 Fig. 9 style: x, vx, z, vz, pitch, pitch rate against time (3 x 2 panels).

    ``reference`` may be a list of (label, SimResult) to overlay.
    """
    panels = [("chassis.x", "x [m]"), ("chassis.vx", "vx [m/s]"), ("chassis.z", "z [m]"),
              ("chassis.vz", "vz [m/s]"), ("chassis.pitch", "pitch [rad]"), ("chassis.pitch_rate", "pitch rate [rad/s]")]
    fig, axes = plt.subplots(3, 2, figsize=(11, 8), sharex=True)
    runs = [(label, res)] + list(reference or [])
    for ax, (name, ylabel) in zip(axes.flat, panels):
        for lab, r in runs:
            ax.plot(r.t, r.values[name], label=lab, lw=1.2)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    if len(runs) > 1:
        axes[0, 0].legend(fontsize=8)
    fig.suptitle(title or res.meta.get("vehicle", ""))
    fig.tight_layout()
    atomic_save(path, lambda p: fig.savefig(p, dpi=110, format="png"))
    plt.close(fig)


def plot_paper_maneuver(runs, path, title: str):
    """Road-axes chassis states of several variants (list of (label, t, axes dict)), seed Fig. 9/11 style."""
    panels = [("x_m", "x [m]"), ("vx_m_per_s", "vx [m/s]"), ("z_m", "z [m]"), ("vz_m_per_s", "vz [m/s]"),
              ("pitch_rad", "pitch [rad]"), ("pitch_rate_rad_per_s", "pitch rate [rad/s]")]
    fig, axes = plt.subplots(3, 2, figsize=(11, 8), sharex=True)
    for ax, (key, ylabel) in zip(axes.flat, panels):
        for label, t, data in runs:
            ax.plot(t, data[key], label=label, lw=1.1)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    atomic_save(path, lambda p: fig.savefig(p, dpi=110, format="png"))
    plt.close(fig)
