"""``fmu-vehicle demo``: the main demonstration run (ACC stop-and-go over the bumps with six FMUs) with a
summary, CSV, plot and its SSP."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .arguments import output_dir
from .progress import build_notice


def add_parser(subparsers):
    d = subparsers.add_parser("demo", help="the main demonstration run with a summary and a plot")
    d.add_argument("--out", default="dist/demo", help="output folder (default dist/demo)")
    d.add_argument("--quiet", "-q", action="store_true")
    return d


def run(a) -> int:
    """Example 2, ACC stop-and-go over the bumps with six FMUs: build the FMUs into dist/fmus if missing or
    stale, run the co-simulation (SSP written to and read from --out), print the summary and whether the ego
    ended stopped behind the stopped lead (exit 1 if not), write CSV and plot."""
    from ..fmi.build_cache import ensure_fmus
    from ..scenarios.half_car import (FMU_NAMES, acc_stop_and_go, following_metrics, format_following, format_stop,
                                      run_scenario, stop_check)
    say = (lambda message: None) if a.quiet else print
    output_dir(a.out, "--out")
    fmus = {}
    for name in FMU_NAMES:
        fmus.update(ensure_fmus([name], log=lambda line, name=name: say(line + build_notice(name))))
    scenario = acc_stop_and_go(fmus)
    say(f"{scenario.title}: {scenario.system.stop_time:g} s at {scenario.system.step_size * 1e3:g} ms")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    # the run writes into a folder of its own inside --out; its files (SSP, CSV, plot) are moved into --out
    # only when it finished, so an interrupted or failed run leaves nothing behind (nor a half set of files)
    with tempfile.TemporaryDirectory(prefix=".demo-", dir=out) as staging:
        finished = run_scenario(scenario, Path(staging), progress=not a.quiet)
        written = []
        for path in (finished.ssp, finished.csv, finished.plot):
            os.replace(path, out / Path(path).name)
            written.append(out / Path(path).name)
    print(f"{scenario.name}, {len(scenario.system.components)} FMUs, {finished.result.time[-1]:g} s:")
    print(format_following(following_metrics(finished.result)))
    check = stop_check(finished.result)
    print(format_stop(check))
    print(f"wrote {written[2]}, {written[1]} and {written[0]}")
    return 0 if check["stopped_behind"] else 1
