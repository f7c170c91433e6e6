"""The command line's parser and argument checks: a parser whose usage errors are one line, the argument
types of the options (finite, positive and whole numbers) and the checks of output paths made before a run."""
from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from ..errors import FmuVehicleError, ModelError


class UsageError(FmuVehicleError):
    """A command line that argparse refused (its message, one line)."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line ``fmu-vehicle: error: ...`` (raised, printed by main)."""

    def error(self, message):
        raise UsageError(f"{self.prog.split(' ', 1)[-1] + ': ' if ' ' in self.prog else ''}{message}")


def output_file(path, option: str) -> Path:
    """An output file path that can be written: not a folder, its folder a folder (created later)."""
    p = Path(path)
    if p.is_dir():
        raise ModelError(f"{option}: {p} is a directory, expected a file name")
    for parent in p.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise ModelError(f"{option}: cannot create {p}: {parent} is not a directory")
            if not os.access(parent, os.W_OK):
                raise ModelError(f"{option}: cannot create {p}: {parent} is not writable")
            break
    return p


def output_dir(path, option: str) -> Path:
    """An output folder path: an existing folder or one that can be created."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ModelError(f"{option}: {p} is not a directory")
    if not p.exists():
        output_file(p, option)
    elif not os.access(p, os.W_OK):
        raise ModelError(f"{option}: {p} is not writable")
    return p


def plot_file(path, option: str) -> Path:
    """An output file path for a plot: writable (:func:`output_file`) with a suffix matplotlib can write."""
    p = output_file(path, option)
    from matplotlib.backend_bases import FigureCanvasBase
    formats = FigureCanvasBase.get_supported_filetypes()
    if p.suffix.lstrip(".").lower() not in formats:
        raise ModelError(f"{option}: cannot write a plot as {p.name!r}; use one of "
                         f"{', '.join('.' + f for f in sorted(formats))}")
    return p


def _number(text: str, positive: bool) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(v) or (positive and v <= 0):
        raise argparse.ArgumentTypeError(f"must be a {'positive' if positive else 'finite'} number, got {text}")
    return v


def count(text: str) -> int:
    """Argument type: a whole number >= 1."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {v}")
    return v


def positive(text: str) -> float:
    """Argument type: a finite number > 0."""
    return _number(text, True)


def finite(text: str) -> float:
    """Argument type: a finite number."""
    return _number(text, False)
