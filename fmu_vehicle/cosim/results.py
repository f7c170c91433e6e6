"""Co-simulation results: a structured numpy array with units, CSV writing/reading and plots.

Columns are ``time`` [s] and ``component.variable``. CSV layout (readable by ``numpy.genfromtxt(names=True)``
and ``pandas.read_csv(comment='#')``)::

    time,plant.x,plant.v
    # units: s,m,m/s
    0,1,0
    ...
"""
from __future__ import annotations

import csv
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from fmu_vehicle.errors import ModelError

UNITS_PREFIX = "# units: "


@dataclass
class Result:
    """Recorded signals of one run.

    data      structured array, field 'time' [s] then 'component.variable' (float64, int32 or bool)
    units     column name -> unit string ('' when the FMU declares none)
    messages  log lines captured from the FMUs: '[component] STATUS category: message'
    """

    data: np.ndarray
    units: dict[str, str] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)

    @property
    def names(self) -> tuple[str, ...]:
        """Column names, 'time' first."""
        return self.data.dtype.names

    @property
    def time(self) -> np.ndarray:
        """Time column [s]."""
        return self.data["time"]

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.data[name]
        except (KeyError, ValueError):
            raise KeyError(f"no recorded variable '{name}' (recorded: {', '.join(self.names)})") from None

    def __len__(self) -> int:
        return len(self.data)

    def to_csv(self, path: str | os.PathLike) -> Path:
        """Write the result as CSV (header line, units line, one row per time), atomically."""
        names = self.names

        def write(stream):
            writer = csv.writer(stream, lineterminator="\n")
            writer.writerow(names)
            stream.write(UNITS_PREFIX + ",".join(self.units.get(n, "") for n in names) + "\n")
            columns = [self.data[n] for n in names]
            for i in range(len(self.data)):
                writer.writerow([_format(col[i]) for col in columns])

        return atomic_write(path, write, mode="w")

    def plot(self, path: str | os.PathLike, variables: Iterable[str] | None = None) -> Path:
        """Plot variables over time (one panel each) into an image file (format from the suffix), atomically.

        Uses matplotlib's Agg canvas directly, so no GUI backend is touched.
        """
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        path = Path(path)
        variables = [n for n in self.names if n != "time"] if variables is None else list(variables)
        for name in variables:
            self[name]
        if not variables:
            raise ModelError(f"{path}: nothing to plot")
        fig = Figure(figsize=(8.0, 1.8 + 1.6 * len(variables)), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(len(variables), 1, sharex=True, squeeze=False)[:, 0]
        for ax, name in zip(axes, variables):
            ax.plot(self.time, self.data[name], drawstyle="default", linewidth=1.0)
            unit = self.units.get(name, "")
            ax.set_ylabel(f"{name} [{unit}]" if unit else name)
            ax.grid(True, alpha=0.3)
        axes[-1].set_xlabel("time [s]")
        fmt = path.suffix.lstrip(".") or "png"
        return atomic_write(path, lambda stream: fig.savefig(stream, format=fmt), mode="wb")


def read_csv(path: str | os.PathLike) -> Result:
    """Read a CSV written by :meth:`Result.to_csv` (all columns as float64)."""
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read: {exc}") from exc
    header = next(csv.reader(lines[:1]), [])
    body, units = lines[1:], []
    if body and body[0].startswith(UNITS_PREFIX):
        units, body = body[0][len(UNITS_PREFIX):].split(","), body[1:]
    rows = [row for row in csv.reader(body) if row]
    if not header or header[0] != "time":
        raise ModelError(f"{path}: first column must be 'time', got {header[:1]}")
    values = np.array([[float(x) for x in row] for row in rows], dtype=float).reshape(-1, len(header))
    data = np.empty(len(values), dtype=[(n, "f8") for n in header])
    for i, name in enumerate(header):
        data[name] = values[:, i]
    return Result(data=data, units=dict(zip(header, units)) if units else {})


def atomic_write(path: str | os.PathLike, write: Callable, mode: str = "w") -> Path:
    """Call ``write(stream)`` on a temporary file next to ``path``, then rename it onto ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **({"newline": ""} if "b" not in mode else {})) as stream:
            write(stream)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _format(value) -> str:
    """Shortest text that reads back to the same value (bools as 0/1)."""
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (np.integer, int)):
        return str(int(value))
    return repr(float(value))
