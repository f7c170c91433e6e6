"""Recorded signals of one run, for the vehicle simulation and the co-simulation master alike.

A :class:`Result` holds a NumPy structured array ``data``: field ``time`` [s] first, then one field per
signal (float64; the co-simulation also records int32 and bool), with ``units`` (field -> unit text, ''
when none is declared), ``meta`` (what the run was: vehicle, integrator, step, ...), ``messages`` (log lines
of the FMUs) and ``panels`` (the default plot layout).  ``Result.from_columns(times, names, units, values,
meta)`` builds one from a time vector and a 2-D value matrix.

CSV (:meth:`Result.to_csv`, read back exactly by :func:`read_csv`): one row per time, every value as the
shortest text that reads back to the same number (bools as 0/1), written atomically.  The units go either
in a comment line (``units="line"``, the default) or into the header as ``name [unit]`` (``units="header"``,
one header line, as spreadsheets and the command line want it)::

    units="line"                       units="header"
    time,plant.x,plant.v               time [s],plant.x [m],plant.v [m/s]
    # units: s,m,m/s                   0,1,0
    0,1,0                              ...

The "line" layout reads with ``numpy.genfromtxt(names=True)`` and ``pandas.read_csv(comment='#')``.
"""
from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from .errors import ModelError
from .plotting import Panel, plot_panels
from .util import atomic_write

__all__ = ["Panel", "Result", "read_csv", "UNITS_PREFIX"]

UNITS_PREFIX = "# units: "
"""Start of the units line of the "line" CSV layout."""
_HEADER_UNIT = re.compile(r"^(.*\S) \[([^\[\]]*)\]$")


@dataclass(eq=False)
class Result:
    """Recorded signals of one run.

    data      structured array, field 'time' [s] then one field per signal (float64, int32 or bool)
    units     field name -> unit string ('' or absent when there is none)
    meta      information about the run (e.g. vehicle, integrator, dt, interrupted)
    messages  log lines captured from the FMUs: '[component] STATUS category: message'
    panels    default plot layout of :meth:`plot` (empty: one panel per signal)
    """

    data: np.ndarray
    units: dict[str, str] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)
    panels: tuple[Panel, ...] = ()

    def __post_init__(self) -> None:
        names = getattr(getattr(self.data, "dtype", None), "names", None)
        if not names or names[0] != "time":
            raise ModelError(f"Result.data: expected a structured array whose first field is 'time', "
                             f"got fields {names}")

    @classmethod
    def from_columns(cls, times, names: Sequence[str], units: Mapping[str, str] | Sequence[str], values,
                     meta: dict | None = None, *, messages: list[str] | None = None,
                     panels: Iterable[Panel] = ()) -> "Result":
        """A result from ``times`` [s] (n), signal ``names`` (m), their ``units`` (a sequence in the order of
        ``names`` or a mapping name -> unit) and the n x m float matrix ``values`` (row k at times[k])."""
        names = list(names)
        times = np.asarray(times, dtype=float)
        values = np.asarray(values, dtype=float)
        if times.ndim != 1:
            raise ModelError(f"Result.from_columns: times must be one-dimensional, got shape {times.shape}")
        if values.shape != (len(times), len(names)):
            raise ModelError(f"Result.from_columns: values must have shape (times, names) = "
                             f"({len(times)}, {len(names)}), got {values.shape}")
        if len(set(names)) != len(names) or "time" in names:
            dup = next(n for n in names if n == "time" or names.count(n) > 1)
            raise ModelError(f"Result.from_columns: names: '{dup}' is 'time' or listed twice")
        if not isinstance(units, Mapping):
            units = list(units)
            if len(units) != len(names):
                raise ModelError(f"Result.from_columns: units: {len(units)} units for {len(names)} names")
            units = dict(zip(names, units))
        data = np.empty(len(times), dtype=[("time", "f8")] + [(n, "f8") for n in names])
        data["time"] = times
        for k, name in enumerate(names):
            data[name] = values[:, k]
        return cls(data, {"time": "s", **{n: str(units.get(n, "")) for n in names}}, dict(meta or {}),
                   list(messages or []), tuple(panels))

    # ------------------------------------------------------------------------------------------ access
    @property
    def names(self) -> tuple[str, ...]:
        """Field names, 'time' first."""
        return self.data.dtype.names

    @property
    def time(self) -> np.ndarray:
        """Time column [s]."""
        return self.data["time"]

    t = time

    @property
    def values(self) -> dict[str, np.ndarray]:
        """Every signal but time: name -> its column."""
        return {n: self.data[n] for n in self.names[1:]}

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.data[name]
        except (KeyError, ValueError):
            raise KeyError(f"no recorded variable '{name}' (recorded: {', '.join(self.names)})") from None

    def __contains__(self, name) -> bool:
        return name in self.names

    def __len__(self) -> int:
        return len(self.data)

    def final(self, name: str) -> float:
        """Last value of ``name``."""
        return float(self[name][-1])

    def with_columns(self, columns: Mapping[str, tuple]) -> "Result":
        """A copy with extra float columns {name: (values, unit)} appended."""
        if not columns:
            return self
        clash = [n for n in columns if n in self.names]
        if clash:
            raise ModelError(f"Result.with_columns: '{clash[0]}' is already recorded")
        data = np.empty(len(self.data), dtype=self.data.dtype.descr + [(name, "f8") for name in columns])
        for name in self.names:
            data[name] = self.data[name]
        units = dict(self.units)
        for name, (values, unit) in columns.items():
            data[name] = values
            units[name] = unit
        return Result(data, units, dict(self.meta), list(self.messages), self.panels)

    # ------------------------------------------------------------------------------------------ output
    def to_csv(self, path: str | os.PathLike, *, units: str = "line") -> Path:
        """Write the result as CSV atomically, units in a comment line (``units="line"``) or in the header
        as ``name [unit]`` (``units="header"``); see the module docstring. Returns the path."""
        if units not in ("line", "header"):
            raise ModelError(f"to_csv: units must be 'line' or 'header', got {units!r}")
        names = self.names
        unit = [self.units.get(n, "") for n in names]
        header = io.StringIO()
        if units == "line":
            csv.writer(header, lineterminator="\n").writerow(names)
            header.write(UNITS_PREFIX + ",".join(unit) + "\n")
        else:
            csv.writer(header, lineterminator="\n").writerow([f"{n} [{u}]" if u else n for n, u in zip(names, unit)])
        columns = [_texts(self.data[n]) for n in names]

        def write(stream):
            stream.write(header.getvalue())
            stream.writelines(",".join(row) + "\n" for row in zip(*columns))

        return atomic_write(path, write, mode="w")

    def plot(self, path: str | os.PathLike, variables: Iterable[str] | None = None, *, title: str = "",
             panels: Sequence[Panel] | None = None, columns: int | None = None,
             overlay: Sequence[tuple[str, "Result"]] = (), label: str = "") -> Path:
        """Plot into an image file (format from the suffix), atomically; returns the path.

        Panels: ``panels`` if given, else one per name in ``variables``, else this result's ``panels``, else one
        per signal. ``columns`` of panels side by side (default 1 up to three panels, else 2). ``overlay``:
        further (label, Result) runs drawn in the same panels (this one labelled ``label``). Title: ``title``,
        else ``meta["vehicle"]`` if any."""
        if panels is None:
            if variables is None and self.panels:
                panels = self.panels
            else:
                names = [n for n in self.names if n != "time"] if variables is None else list(variables)
                panels = [Panel(f"{n} [{self.units[n]}]" if self.units.get(n) else n, ((n, n),)) for n in names]
        panels = tuple(panels)
        if columns is None:
            columns = 1 if len(panels) <= 3 else 2
        runs = [(label or str(self.meta.get("vehicle", "")), self)] + list(overlay)
        return plot_panels(path, runs, panels, title=title or str(self.meta.get("vehicle", "")), columns=columns)


def read_csv(path: str | os.PathLike) -> Result:
    """Read a CSV written by :meth:`Result.to_csv` (either layout; every column as float64)."""
    path = Path(path)
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read: {exc}") from exc
    header = next(csv.reader(lines[:1]), [])
    body, units = lines[1:], None
    if body and body[0].startswith(UNITS_PREFIX):
        units, body = body[0][len(UNITS_PREFIX):].split(","), body[1:]
    else:
        split = [_HEADER_UNIT.match(h) for h in header]
        units = [m.group(2) if m else "" for m in split]
        header = [m.group(1) if m else h for m, h in zip(split, header)]
    if not header or header[0] != "time":
        raise ModelError(f"{path}: first column must be 'time', got {header[:1]}")
    if len(units) != len(header):
        raise ModelError(f"{path}: the units line has {len(units)} entries for {len(header)} columns")
    rows = [row for row in csv.reader(body) if row]
    try:
        values = np.array([[float(x) for x in row] for row in rows], dtype=float).reshape(-1, len(header))
    except ValueError as exc:
        raise ModelError(f"{path}: every row must hold {len(header)} numbers: {exc}") from None
    data = np.empty(len(values), dtype=[(n, "f8") for n in header])
    for i, name in enumerate(header):
        data[name] = values[:, i]
    return Result(data=data, units=dict(zip(header, units)))


def _texts(column: np.ndarray) -> list[str]:
    """Shortest text that reads back to the same value, per entry (bools as 0/1, whole numbers without ".0")."""
    if column.dtype == np.bool_:
        return ["1" if v else "0" for v in column.tolist()]
    if np.issubdtype(column.dtype, np.integer):
        return [str(v) for v in column.tolist()]
    texts = [repr(v) for v in column.astype(float).tolist()]
    return [t[:-2] if t.endswith(".0") else t for t in texts]
