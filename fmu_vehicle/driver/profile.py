"""Open-loop steering-wheel input as a piecewise-linear table of time against steering-wheel angle.

``SteeringProfile.parse("0:0,0.5:0,0.7:40,6:40")`` reads ``time [s]:steering-wheel angle [deg]`` pairs
separated by commas (the form ``fmu-vehicle simulate --steer`` takes). Between breakpoints the angle is
linear in time; before the first it is the first value, after the last it is held at the last value.
Positive angles steer left (ISO 8855: a positive steering-wheel angle turns the vehicle towards +y).

    angle(t) = d_i + (d_{i+1} - d_i) (t - t_i) / (t_{i+1} - t_i)      for t_i <= t < t_{i+1}
    rate(t)  = (d_{i+1} - d_i) / (t_{i+1} - t_i)                      (right-continuous, 0 outside)

Described in docs/handling.md §2.
"""
from __future__ import annotations

import math

import numpy as np

from fmu_vehicle.errors import ModelError


class SteeringProfile:
    """Steering-wheel angle against time, linear between breakpoints, held after the last one.

    times_s      strictly increasing breakpoint times [s] (at least one)
    angles_rad   steering-wheel angles at the breakpoints [rad], + = left
    """

    def __init__(self, times_s, angles_rad, *, name: str = "steering profile"):
        t = np.asarray(times_s, dtype=float).ravel()
        d = np.asarray(angles_rad, dtype=float).ravel()
        if t.size == 0:
            raise ModelError(f"{name}: no breakpoints")
        if t.size != d.size:
            raise ModelError(f"{name}: {t.size} times but {d.size} angles")
        for k, (tk, dk) in enumerate(zip(t, d)):
            if not math.isfinite(tk):
                raise ModelError(f"{name}: breakpoint {k + 1} has a time that is not a finite number ({tk!r})")
            if not math.isfinite(dk):
                raise ModelError(f"{name}: breakpoint {k + 1} has an angle that is not a finite number ({dk!r})")
        bad = np.flatnonzero(np.diff(t) <= 0.0)
        if bad.size:
            k = int(bad[0])
            raise ModelError(f"{name}: times must increase strictly, but breakpoint {k + 2} (t = {t[k + 1]:g} s) "
                             f"does not come after breakpoint {k + 1} (t = {t[k]:g} s)")
        self.name = name
        self._t = t
        self._d = d
        self._slope = np.diff(d) / np.diff(t) if t.size > 1 else np.zeros(0)

    # ------------------------------------------------------------------ construction

    @classmethod
    def parse(cls, text: str, *, name: str = "--steer") -> "SteeringProfile":
        """Read ``"t0:deg0,t1:deg1,..."`` (time [s]:steering-wheel angle [deg], + = left).

        Raises ModelError naming the offending item for an empty text, an item without exactly one
        ``:``, a value that is not a finite number, or times that do not increase strictly."""
        times, angles = parse_pairs(text, name, "angle_deg", "e.g. '0:0,1:30'")
        return cls(times, np.radians(angles), name=name)

    # ------------------------------------------------------------------ evaluation

    @property
    def breakpoints(self) -> np.ndarray:
        """The breakpoint times [s] (a copy)."""
        return self._t.copy()

    @property
    def angles(self) -> np.ndarray:
        """The steering-wheel angles at the breakpoints [rad] (a copy)."""
        return self._d.copy()

    def angle(self, t):
        """Steering-wheel angle [rad] at time(s) ``t`` [s]: linear between breakpoints, held outside."""
        out = np.interp(np.asarray(t, dtype=float), self._t, self._d)
        return float(out) if np.ndim(out) == 0 else out

    def rate(self, t):
        """Steering-wheel rate [rad/s] at time(s) ``t``: the slope of the segment containing t, with
        segments closed on the left (t_i <= t < t_{i+1}); 0 before the first and from the last breakpoint."""
        tt = np.asarray(t, dtype=float)
        i = np.searchsorted(self._t, tt, side="right") - 1
        inside = (i >= 0) & (i < self._t.size - 1)
        out = np.where(inside, self._slope[np.clip(i, 0, max(self._slope.size - 1, 0))] if self._slope.size
                       else 0.0, 0.0)
        return float(out) if np.ndim(out) == 0 else out

    def __call__(self, t):
        return self.angle(t)

    def __repr__(self) -> str:
        pairs = ",".join(f"{t:g}:{math.degrees(d):g}" for t, d in zip(self._t, self._d))
        return f"SteeringProfile.parse({pairs!r})"


def parse_pairs(text: str, name: str, value_label: str = "value", example: str = "") -> tuple[list, list]:
    """Read ``"t0:v0,t1:v1,..."`` into (times [s], values): the breakpoint text of the steering profiles and of
    the Robot FMU's tables. Raises ModelError naming ``name`` and the offending item for an empty text, an item
    without exactly one ``:`` or a value that is not a finite number (the caller checks the order of times)."""
    if text is None or not str(text).strip():
        raise ModelError(f"{name}: empty table; expected 'time_s:{value_label},...' {example}".rstrip())
    times, values = [], []
    for k, item in enumerate(str(text).split(","), start=1):
        item = item.strip()
        parts = item.split(":")
        if not item or len(parts) != 2:
            raise ModelError(f"{name}: item {k} {item!r} is not 'time_s:{value_label}'")
        for label, part, out in (("time", parts[0], times), (value_label.split("_")[0], parts[1], values)):
            try:
                value = float(part)
            except ValueError:
                raise ModelError(f"{name}: item {k} {item!r}: the {label} {part.strip()!r} is not a number") \
                    from None
            if not math.isfinite(value):
                raise ModelError(f"{name}: item {k} {item!r}: the {label} is not a finite number")
            out.append(value)
    return times, values
