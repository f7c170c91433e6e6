"""Command line: ``fmu-vehicle simulate | manoeuvre | linearize | reproduce-paper | demo | sweep | ssp | bench | crosscheck | info``.

Errors in the user's input (options included) print one line ``fmu-vehicle: error: ...`` and exit with
code 2; output paths are checked before a run, and output files are written only when the run succeeded,
all of them or none (atomically, never half-written).

One module per command, each with ``add_parser(subparsers)`` (its options; returns its parser) and
``run(args) -> int`` (the exit code); :data:`COMMANDS` lists them in the order the help shows them.
"""
from __future__ import annotations

import sys

from ..errors import FmuVehicleError
from . import (bench, crosscheck, demo, doctor, export, info, linearize, manoeuvre, reproduce_paper, simulate,
               ssp, sweep)
from .arguments import OneLineParser

COMMANDS = (simulate, manoeuvre, linearize, reproduce_paper, demo, sweep, ssp, bench, export, doctor, crosscheck, info)
"""The command modules, in the order of ``fmu-vehicle --help``."""


def build_parser() -> OneLineParser:
    """The parser of every command; ``func`` of the parsed arguments is the command's ``run``."""
    p = OneLineParser(prog="fmu-vehicle", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub).set_defaults(func=command.run)
    return p


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split())


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] in (["demo"], ["crosscheck"]):
            # before anything defines a compiled function (the parser imports the integrators): the FMUs these
            # commands run in this process then load the kernels they ship instead of compiling them for this
            # CPU (docs/fmu_hosts.md)
            from ..numerics.jit import pin_portable_cpu
            pin_portable_cpu()
        a = build_parser().parse_args(argv)     # the parser imports numba and scipy: an interrupt lands here too
        return a.func(a)
    except FmuVehicleError as e:
        print(f"fmu-vehicle: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except OSError as e:       # e.g. an output that cannot be written after all (disk full, permissions)
        print(f"fmu-vehicle: error: {e.filename or 'file system'}: {_one_line(e.strerror or e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fmu-vehicle: interrupted", file=sys.stderr)
        return 130
