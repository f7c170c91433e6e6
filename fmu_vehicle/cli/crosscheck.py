"""``fmu-vehicle crosscheck``: the FMI Cross-Check results of every FMU (``fmi.crosscheck``): the FMU, input
and reference CSVs, options and a ReadMe per model."""
from __future__ import annotations

from .arguments import output_dir
from .progress import build_notice


def add_parser(subparsers):
    x = subparsers.add_parser("crosscheck", help="FMI Cross-Check results of every FMU: the FMU, input and "
                              "reference CSVs, options and a ReadMe under fmus/2.0/cs/linux64/fmu_vehicle/"
                              "<version>/<Model>/")
    x.add_argument("--out", default="dist/crosscheck", help="output folder (default dist/crosscheck)")
    x.add_argument("--fmu-dir", default=None, help="where the FMUs are built or reused (default dist/fmus)")
    x.add_argument("--quiet", action="store_true", help="no progress output")
    return x


def run(a) -> int:
    """The FMI Cross-Check folders of every FMU (``fmi.crosscheck``): the FMUs built into --fmu-dir (default
    dist/fmus) if missing or stale, each run through FMPy, the whole set written under --out or nothing."""
    from ..fmi.build_cache import ensure_fmus
    from ..fmi.crosscheck import CASES, write_crosscheck
    say = (lambda message: None) if a.quiet else print
    output_dir(a.out, "--out")
    if a.fmu_dir is not None:
        output_dir(a.fmu_dir, "--fmu-dir")
    fmus = {}
    for name in CASES:
        fmus.update(ensure_fmus([name], a.fmu_dir, log=lambda line, name=name: say(line + build_notice(name))))
    folder = write_crosscheck(a.out, fmus, log=say)
    print(f"wrote {folder}: {', '.join(sorted(fmus))}")
    return 0
