"""``fmu-vehicle sweep``: every run of a scenario catalogue on dask.distributed, one CSV row of KPIs per run
and a summary plot; an interrupted sweep keeps its finished runs in a journal the same command resumes from."""
from __future__ import annotations

import sys
from pathlib import Path

from ..errors import ModelError
from .arguments import count, output_file


def add_parser(subparsers):
    w = subparsers.add_parser("sweep", help="run a scenario catalogue (resources/scenarios) on dask.distributed, "
                                            "KPIs per run into a CSV, a summary plot")
    w.add_argument("catalogue", help="catalogue name (euroncap-ccrs, ...) or .json file")
    where = w.add_mutually_exclusive_group()
    where.add_argument("--workers", type=count, help="local worker processes (default: one per core, at most "
                                                     "one per run)")
    where.add_argument("--scheduler", metavar="ADDRESS", help="use the dask scheduler at ADDRESS "
                                                              "(e.g. tcp://host:8786) instead of local workers")
    w.add_argument("--output", "-o", default="results.csv", help="results CSV (default results.csv); the plot "
                                                                 "goes next to it as .png")
    w.add_argument("--fmu-dir", help="folder of the FMUs (default dist/fmus, built if missing or stale)")
    w.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    return w


def run(a) -> int:
    """Every run of a scenario catalogue on dask.distributed; one CSV row per run and a summary plot."""
    from ..adas.catalogue import load_catalogue
    from ..adas.sweep import sweep
    cat = load_catalogue(a.catalogue)
    out = output_file(a.output, "--output")
    if out.suffix.lower() != ".csv":
        raise ModelError(f"--output: expected a .csv file name, got {out.name!r}")
    if a.fmu_dir is not None and not Path(a.fmu_dir).is_dir():
        raise ModelError(f"--fmu-dir: {a.fmu_dir} is not a directory")
    say = (lambda message: None) if a.quiet else print
    n = len(cat.runs())
    where = f"scheduler {a.scheduler}" if a.scheduler else f"{a.workers or 'one per core,'} local worker process(es)"
    say(f"{cat.name}: {n} runs of the {cat.protocol} protocol on the system {cat.system.name}, on {where}")
    try:
        res = sweep(cat, out, workers=a.workers, scheduler=a.scheduler, fmu_dir=a.fmu_dir, progress=not a.quiet,
                    log=say)
    except KeyboardInterrupt:
        from ..adas.sweep import journal_path
        journal = journal_path(out)
        kept = max(0, len(journal.read_text().splitlines()) - 1) if journal.exists() else 0
        print(f"fmu-vehicle: interrupted: no {out.name} written" + (
            f"; {kept} finished run(s) kept in {journal}: the same command resumes from them" if kept else ""),
            file=sys.stderr)
        return 130
    print(f"{cat.name}: {len(res.rows)} runs ({res.ran} now, {len(res.rows) - res.ran} from the journal), "
          f"{res.failed} failed, {res.wall_s:.1f} s wall ({res.runs_s:.1f} s of runs after the workers started) -> "
          f"{res.csv}" + (f", {res.plot}" if res.plot else ""))
    return 0 if res.failed == 0 else 1
