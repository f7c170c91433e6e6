"""``fmu-vehicle doctor``: whether FMUs run on this machine: what a host needs (the Python packages an FMU
requires, the shared libpython), then each FMU in the C host and in FMPy; exit 1 if a problem was found."""
from __future__ import annotations

import sys
from pathlib import Path

from ..errors import ModelError
from .arguments import count


def add_parser(subparsers):
    c = subparsers.add_parser("doctor", help="check that FMUs run on this machine: in a C host (as Simulink, "
                              "Dymola or OMSimulator load them) and in FMPy; exit code 1 if a problem was found")
    c.add_argument("fmus", nargs="+", metavar="FMU", help="FMU files (e.g. dist/fmus/*.fmu)")
    c.add_argument("--runs", type=count, default=3, help="C host runs per FMU (default 3); each must exit 0")
    c.add_argument("--steps", type=count, default=1000, help="1 ms steps per run (default 1000)")
    return c


def _fmu_file(path) -> Path:
    """An FMU file that can be checked: a zip archive with a modelDescription.xml and the requirements.txt
    this package's FMUs ship (``fmi.build.shipped_requirements``)."""
    import zipfile
    p = Path(path)
    if not p.is_file():
        raise ModelError(f"FMU: no such file {p}")
    try:
        with zipfile.ZipFile(p) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError) as e:
        raise ModelError(f"FMU: {p} is not an FMU (not a zip archive: {e})") from None
    for member in ("modelDescription.xml", "resources/requirements.txt"):
        if member not in names:
            raise ModelError(f"FMU: {p} is not an FMU of this package (it has no {member})")
    return p


def run(a) -> int:
    """Check that a host machine can run FMUs: what a host needs, then each FMU in the C host and in FMPy."""
    import importlib.metadata
    import tempfile

    from ..fmi.build import shipped_requirements
    from ..fmi.hosts import build_host, check_fmu, libpython
    fmus = [_fmu_file(fmu) for fmu in a.fmus]
    print(f"Python {sys.version.split()[0]} at {sys.executable}")
    print(f"shared libpython for non-Python hosts: {libpython()} (the FMU binary links it; on another machine "
          f"LD_LIBRARY_PATH names its folder)")
    ok = True
    with tempfile.TemporaryDirectory(prefix="fmu_vehicle_host_") as work:
        host = build_host(Path(work) / "fmi2_host")
        for fmu in fmus:
            for name, req in shipped_requirements(fmu).items():
                try:
                    found = importlib.metadata.version(name)
                except importlib.metadata.PackageNotFoundError:
                    found = None
                ok &= found is not None
                print(f"{fmu.name}: requires {req}: " + (f"installed {found}" if found else "MISSING (pip install it)"))
            report = check_fmu(fmu, runs=a.runs, host=host, n_steps=a.steps)
            for line in report.lines():
                print(line)
            ok &= report.ok
    return 0 if ok else 1
