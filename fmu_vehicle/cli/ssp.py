"""``fmu-vehicle ssp``: each shipped scenario system (resources/scenarios/*.ssd) as a self-contained .ssp
archive with its FMUs inside."""
from __future__ import annotations

from pathlib import Path

from ..errors import ModelError
from .arguments import output_dir
from .progress import build_notice


def add_parser(subparsers):
    x = subparsers.add_parser("ssp", help="write each shipped scenario system (resources/scenarios/*.ssd) as a "
                                          "self-contained .ssp archive with its FMUs inside")
    x.add_argument("names", nargs="*", metavar="NAME", help="systems to write, by file stem (default: every "
                                                             "shipped system)")
    x.add_argument("--out", default="dist/ssp", help="output folder (default dist/ssp)")
    x.add_argument("--fmu-dir", help="folder of the FMUs (default dist/fmus, built if missing or stale)")
    x.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    return x


def run(a) -> int:
    """Each shipped scenario system as a self-contained .ssp archive with its FMUs inside (built if missing or
    stale); names are checked before anything is built, archives are written atomically."""
    from ..adas.systems import system_file, write_archives
    for name in a.names:
        system_file(name)                       # an unknown name fails before any build
    out = output_dir(a.out, "--out")
    if a.fmu_dir is not None and not Path(a.fmu_dir).is_dir():
        raise ModelError(f"--fmu-dir: {a.fmu_dir} is not a directory")

    def say(line: str) -> None:
        if not a.quiet:       # ensure_fmus says "building <folder>/<Name>.fmu (missing|stale)"
            built = line.split(" ", 2)[1] if line.startswith("building ") else ""
            print(line + (build_notice(Path(built).stem) if built.endswith(".fmu") else ""))

    write_archives(a.names or None, out, a.fmu_dir, log=say)
    return 0
