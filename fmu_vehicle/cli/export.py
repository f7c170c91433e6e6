"""``fmu-vehicle export --native``: native vehicle FMUs (the compiled model and an FMI layer in C, no Python
on the host), every parameter but a user's road file settable until initialization ends
(:mod:`fmu_vehicle.native.fmu`); FMI 2.0 Co-Simulation, or FMI 3.0 with ``--fmi-version 3`` (written to
``<out>/fmi3/``)."""
from __future__ import annotations

from ..errors import ModelError


def add_parser(subparsers):
    e = subparsers.add_parser("export", help="build native vehicle FMUs: the compiled model and an FMI layer in C, "
                              "no Python on the host (linux64, and win64 with mingw); every parameter but dt fixed "
                              "at export")
    e.add_argument("fmus", nargs="*", metavar="FMU",
                   help="VehicleLV, Vehicle, VehicleCombination and/or TractorSemitrailer (default all four)")
    e.add_argument("--native", action="store_true", help="build the native FMUs (required: the only kind this "
                   "command builds)")
    e.add_argument("--set", action="append", metavar="NAME=VALUE", help="a parameter's value, fixed in the FMU "
                   "(e.g. --set v0=15 --set road=flat); repeatable")
    e.add_argument("--out", default="dist/native", help="output folder (default dist/native)")
    e.add_argument("--fmi-version", type=int, choices=(2, 3), default=2,
                   help="2 (default): FMI 2.0 Co-Simulation into OUT; 3: FMI 3.0 Co-Simulation into OUT/fmi3 (the "
                        "same file names, the same numbers)")
    e.add_argument("--platform", nargs="+", choices=("linux64", "win64"), default=["linux64", "win64"],
                   help="platforms (default both; win64 needs x86_64-w64-mingw32-gcc, left out with a message "
                        "where it is missing)")
    return e


def run(a) -> int:
    from ..native.fmu import NATIVE_FMUS, export
    if not a.native:
        raise ModelError("export: only native FMUs are exported by this command (--native); the Python FMUs are "
                         "built with python build_scripts/build_fmus.py")
    settings = {}
    for item in a.set or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ModelError(f"--set {item!r}: expected NAME=VALUE, e.g. --set v0=15")
        settings[name.strip()] = value.strip()
    for fmu in a.fmus or NATIVE_FMUS:
        path = export(fmu, a.out, settings=settings, targets=tuple(a.platform), log=print, fmi_version=a.fmi_version)
        print(f"{path} written")
    return 0
