"""The one plotting path: time histories of one or more results as a grid of panels, written atomically.

Every plot of the package goes through :func:`plot_panels` (``Result.plot``, the scenario plots, the
paper comparison) and every figure is written by :func:`save_figure` (also the sweep summary).  Figures
are drawn on matplotlib's Agg canvas directly, so importing this module touches no GUI backend and no
global matplotlib state; matplotlib itself is imported only when a figure is drawn.
"""
from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .errors import ModelError
from .util import atomic_write


@dataclass(frozen=True)
class Panel:
    """One subplot: y label, the (legend label, column) pairs drawn in it, optional y limits."""

    ylabel: str
    lines: tuple[tuple[str, str], ...]
    ylim: tuple[float, float] | None = None


UNIT_TEXT = {"m/s2": "m/s^2", "rad/s2": "rad/s^2", "m/s3": "m/s^3", "N.m": "N m", "-": "1", "": "1"}
"""Unit spellings of a plot label: the signal tables' FMI spelling (``m/s2``, ``N.m``) as text reads it
(``m/s^2``, ``N m``, the spelling of the docs and docstrings) and one spelling, ``1``, of a dimensionless
quantity (the tables' spelling; ``-`` is written ``1``)."""
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")


def unit_text(unit: str) -> str:
    """The plot spelling of ``unit`` (:data:`UNIT_TEXT`; other units unchanged; each part of a list such
    as ``N m, N`` in turn)."""
    return ", ".join(UNIT_TEXT.get(part.strip(), part.strip()) for part in unit.split(","))


def axis_label(label: str) -> str:
    """``label`` with every unit in square brackets in its plot spelling (:func:`unit_text`)."""
    return _BRACKETS.sub(lambda m: f"[{unit_text(m.group(1))}]", label)


def fit_title(title: str, width_in: float, fontsize: float) -> str:
    """``title`` broken into lines that fit a figure ``width_in`` [in] wide at ``fontsize`` [pt] (an average
    character of the default sans-serif font is taken as 0.6 of the font size, a little wider than it is)."""
    chars = max(20, int(width_in * 72.0 / (0.6 * fontsize)))
    return "\n".join(textwrap.wrap(title, chars)) or title


def new_figure(width_in: float, height_in: float):
    """A matplotlib Figure with its own Agg canvas (constrained layout)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width_in, height_in), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig, path: str | os.PathLike, dpi: float = 100) -> Path:
    """Write ``fig`` to ``path`` atomically, in the format of the file suffix (png when there is none)."""
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower() or "png"
    return atomic_write(path, lambda stream: fig.savefig(stream, format=fmt, dpi=dpi), mode="wb")


def plot_panels(path: str | os.PathLike, runs: Sequence[tuple[str, object]], panels: Sequence[Panel], *,
                title: str = "", columns: int = 1, dpi: float = 100) -> Path:
    """Plot ``panels`` (``columns`` side by side, shared time axis) of one or more runs into ``path``.

    runs    [(run label, result)]: each result gives ``result.time`` [s] and ``result[column]``; with
            several runs every panel line is drawn once per run (overlay, labelled by the run)
    Every column is looked up before anything is drawn, so an unknown one raises the result's KeyError
    and no file is written.
    """
    path = Path(path)
    if not panels:
        raise ModelError(f"{path}: nothing to plot")
    if columns < 1:
        raise ValueError(f"plot_panels: columns must be >= 1, got {columns!r}")
    series = [[[(run_label, line_label, result.time, result[column]) for run_label, result in runs]
               for line_label, column in panel.lines] for panel in panels]
    rows = -(-len(panels) // columns)
    fig = new_figure(8.0 if columns == 1 else 6.0 * columns, 1.2 + (1.6 if columns == 1 else 2.1) * rows)
    axes = fig.subplots(rows, columns, sharex=True, squeeze=False)
    for ax, panel, lines in zip(axes.flat, panels, series):
        labelled = 0
        for per_run in lines:
            for run_label, line_label, t, y in per_run:
                label = " ".join(text for text in ((run_label if len(runs) > 1 else ""),
                                                   (line_label if len(panel.lines) > 1 else "")) if text)
                ax.plot(t, y, label=label or None, linewidth=1.0)
                labelled += bool(label)
        ax.set_ylabel(axis_label(panel.ylabel))
        if panel.ylim is not None:
            ax.set_ylim(*panel.ylim)
        ax.grid(True, alpha=0.3)
        if labelled > 1:
            ax.legend(fontsize=7, loc="best")
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    if title:
        fig.suptitle(fit_title(title, fig.get_figwidth(), 10), fontsize=10)
    return save_figure(fig, path, dpi)
