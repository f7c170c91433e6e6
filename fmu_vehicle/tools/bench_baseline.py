"""Same-sitting speed comparison with another commit (``fmu-vehicle bench --baseline REF``).

A speed change on a shared, noisy machine is only believable when both versions are timed in one sitting,
interleaved: a load that comes and goes then hits both alike. :func:`run_baseline` extracts the commit REF of
the repository this package is run from (``git archive``; kept under ``dist/bench-baseline/<sha>`` and
reused), gives it its own kernel cache (its own ``XDG_CACHE_HOME``, so neither side loads the other's machine
code), and times each vehicle and fixed-step method on the bumpy road in fresh interpreters, baseline and
working tree alternating (B W, W B, B W, ...). Each child (a function of :mod:`.children`, the working tree's
file run against that side's package) calls its own checkout's ``bench.time_vehicle`` once (a warm-up run,
then one timed run), so each side runs its own code end to end. The result of a side is the best of its
``repeats`` children; the ratio is working tree over baseline (below 1: the working tree is faster). With
``passes``, each vehicle's evaluation is also timed pass by pass (``bench.time_passes``, where the baseline
has it) in the same alternation. With ``fmu`` (a vehicle FMU of the working tree, e.g.
``dist/fmus/VehicleLV.fmu``), the baseline builds its own FMU of the same registry name (its
``fmi.build_cache.ensure_fmus``, into ``dist/bench-baseline/<sha>/fmus``) and both FMUs run the bumpy road
through ``fmpy.simulate_fmu`` at a 1 ms communication step in the same alternation (``children.fmu_run`` with
the same start values, ``bench.bumpy_road_start``): the FMU path as a host sees it, each side with its own
package and kernels.

The first run of a new baseline compiles its kernels (minutes: the children say so on the terminal).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from ..errors import ModelError
from ..util import CHILD_HANG_GUARD_S, atomic_write
from . import bench

_PKG = Path(__file__).resolve().parents[1]

def repository_root() -> Path:
    """The git work tree this package is run from (its parent folder), or ModelError."""
    root = _PKG.parent
    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if out.returncode != 0 or Path(out.stdout.strip()).resolve() != root.resolve():
        raise ModelError(f"--baseline: fmu_vehicle is not run from a git checkout ({root}); a baseline commit "
                         "can only be taken from one")
    return root


def resolve_commit(root: Path, ref: str) -> str:
    """The full hash of commit ``ref`` in the repository at ``root``, or ModelError naming it."""
    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                         capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.strip():
        raise ModelError(f"--baseline: '{ref}' is not a commit of {root}")
    return out.stdout.strip()


def baseline_checkout(root: Path, sha: str, work: Path) -> Path:
    """``work/<sha>/src``: the commit's ``fmu_vehicle`` package, extracted once (atomically) and reused, with
    the top-level ``resources`` folder of commits that kept their data files there (the package finds it
    beside itself)."""
    dest = work / sha / "src"
    if (dest / "fmu_vehicle" / "__init__.py").is_file():
        return dest
    work.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{sha[:12]}-", dir=work))
    try:
        archive = staging / "src.tar"
        top = subprocess.run(["git", "-C", str(root), "ls-tree", "--name-only", sha], capture_output=True,
                             text=True).stdout.split()
        paths = ["fmu_vehicle"] + (["resources"] if "resources" in top else [])
        with open(archive, "wb") as stream:
            out = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", sha, *paths],
                                 stdout=stream, stderr=subprocess.PIPE, text=False)
        if out.returncode != 0:
            raise ModelError(f"--baseline: git archive of {sha[:12]} failed: "
                             f"{out.stderr.decode(errors='replace').strip()}")
        (staging / "src").mkdir()
        with tarfile.open(archive) as tar:
            tar.extractall(staging / "src", filter="data")
        archive.unlink()
        (work / sha).mkdir(exist_ok=True)
        os.replace(staging / "src", dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest


def _child(src: Path, env: dict, child: str, *args: str):
    """Run the function ``child`` of :mod:`.children` (this checkout's file) with ``src`` first on the path, so
    that it runs that side's package; its last stdout line is JSON, returned here. The child's stderr (compile
    notices, progress) goes to this terminal."""
    out = subprocess.run(bench.child_command(child, *args), cwd=src, env=dict(env, PYTHONPATH=str(src)),
                         stdout=subprocess.PIPE, text=True, timeout=CHILD_HANG_GUARD_S)
    if out.returncode != 0:
        raise ModelError(f"--baseline: a timing run of {src} failed (exit {out.returncode}): see the messages above")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _sides(root: Path, sha: str, work: Path) -> dict:
    """{"baseline": (src, env), "work": (src, env)}: the baseline with its own XDG_CACHE_HOME and no
    inherited kernel-cache variables; the working tree with this process's environment."""
    base_env = {k: v for k, v in os.environ.items()
                if k not in ("NUMBA_CACHE_DIR", "FMU_VEHICLE_CACHE_DIR", "NUMBA_DISABLE_JIT", "PYTHONPATH")}
    base_env["XDG_CACHE_HOME"] = str(work / sha / "cache")
    work_env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", "PYTHONPATH")}
    return {"baseline": (baseline_checkout(root, sha, work), base_env), "work": (root, work_env)}


def _order(repeat: int) -> tuple[str, str]:
    """B W, W B, B W, ...: neither side always runs right after the other's warm-up."""
    return ("baseline", "work") if repeat % 2 == 0 else ("work", "baseline")


def run_baseline(ref: str, vehicles, specs, out: Path, *, repeats: int = 3, duration: float = 20.0,
                 passes: bool = False, fmu: Path | None = None, work: Path = Path("dist/bench-baseline"),
                 cold_compile=()) -> dict:
    """Time the working tree against commit ``ref`` in one sitting (module docstring). ``specs``: (method,
    step [s]) pairs of fixed-step methods; ``fmu``: the working tree's vehicle FMU, also timed against the
    baseline's own build of it. Writes the JSON report to ``out``, prints a Markdown table and returns the
    report: per vehicle and method each side's best wall time [s] and µs per evaluation, and ratio = work /
    baseline; with ``fmu`` the same for the FMU (``fmu`` in the report, µs per 1 ms communication step). With
    ``cold_compile`` (vehicle names), only the cold compile of each (``bench.time_cold_compile``: a fresh process
    with an empty kernel cache per side, the sides alternating) is compared, not the run times."""
    root = repository_root()
    sha = resolve_commit(root, ref)
    if fmu is not None:
        _check_work_fmu(Path(fmu))
    work = Path(work).resolve()                          # absolute: the children run in their checkouts
    sides = _sides(root, sha, work)
    rows = []
    if cold_compile:
        report = {"baseline_commit": sha, "baseline_ref": ref, "repeats": repeats,
                  "cold_compile": [_cold_row(sides, name, repeats) for name in cold_compile]}
        atomic_write(out, lambda stream: stream.write(json.dumps(report, indent=2) + "\n"))
        return report
    for name in vehicles:
        for integrator, dt in specs:
            args = (name, integrator, repr(dt), repr(duration))
            row = {"vehicle": name, "integrator": integrator, "dt_s": dt, "simulated_s": duration,
                   **_best(sides, repeats, "time_vehicle", {"baseline": args, "work": args})}
            rows.append(row)
            print(_line(row), flush=True)
    report = {"baseline_commit": sha, "baseline_ref": ref, "repeats": repeats, "results": rows}
    if fmu is not None:
        report["fmu"] = _fmu_row(sides, Path(fmu).resolve(), work / sha / "fmus", repeats, duration)
    if passes:
        report["passes_ns"] = {name: _passes(sides, name, repeats) for name in vehicles}
    atomic_write(out, lambda stream: stream.write(json.dumps(report, indent=2) + "\n"))
    print(markdown_table(report), flush=True)
    return report


def _best(sides: dict, repeats: int, child: str, args: dict, key: str = "wall_s") -> dict:
    """{"baseline": best child, "work": best child, "ratio": work / baseline} of ``child`` run ``repeats``
    times per side in alternation with that side's ``args[side]``, compared by the child's ``key`` [s]."""
    best: dict[str, dict] = {}
    for r in range(repeats):
        for side in _order(r):
            src, env = sides[side]
            t = _child(src, env, child, *args[side])
            if side not in best or t[key] < best[side][key]:
                best[side] = t
    return {"baseline": best["baseline"], "work": best["work"], "ratio": best["work"][key] / best["baseline"][key]}


def _cold_row(sides: dict, name: str, repeats: int) -> dict:
    """The cold compile of ``name`` on both sides, alternating (best of ``repeats``; each side's
    ``bench.time_cold_compile`` in its own checkout, with an empty kernel cache every time)."""
    row = {"vehicle": name, **_best(sides, repeats, "time_cold_compile", {"baseline": (name,), "work": (name,)},
                                    key="seconds")}
    print(f"{name:<18} cold compile: baseline {row['baseline']['seconds']:.1f} s, working tree "
          f"{row['work']['seconds']:.1f} s, ratio {row['ratio']:.3f}", flush=True)
    return row


def _check_work_fmu(fmu: Path) -> None:
    """ModelError unless ``fmu`` is an FMU of this package's registry built from the working tree's sources
    (the baseline builds the FMU of the same name): checked before anything is timed."""
    from ..fmi.build_cache import fmu_is_current
    from ..errors import FmuVehicleError
    from ..fmi.registry import slave_script
    try:
        script = slave_script(fmu.stem)
    except FmuVehicleError as exc:
        raise ModelError(f"--fmu: {fmu}: {exc}") from None
    if not fmu_is_current(fmu, script):
        raise ModelError(f"--fmu: {fmu} was not built from the working tree's sources (rebuild it, e.g. "
                         "fmu-vehicle demo rebuilds dist/fmus): the comparison would time other code")


def _fmu_row(sides: dict, fmu: Path, folder: Path, repeats: int, duration: float) -> dict:
    """The working tree's vehicle FMU ``fmu`` and the baseline's build of the FMU of the same registry name
    (built into ``folder`` by the baseline's own ``ensure_fmus``, reused while current), each run
    ``duration`` s of the bumpy road through FMPy at a 1 ms communication step in alternating children."""
    name = fmu.stem
    src, env = sides["baseline"]
    print(f"--baseline: the baseline's {name} FMU (built into {folder} if missing or stale; minutes)", flush=True)
    base_fmu = Path(_child(src, env, "ensure_fmu", name, str(folder)))
    args = {side: (str(path), json.dumps(bench.bumpy_road_start(path)), repr(duration), "1")
            for side, path in (("baseline", base_fmu), ("work", fmu))}
    row = {"fmu": name, "simulated_s": duration, "communication_step_s": 1e-3, "baseline_fmu": str(base_fmu),
           "work_fmu": str(fmu), **_best(sides, repeats, "fmu_run", args, key="seconds")}
    steps = round(duration / 1e-3)
    for side in ("baseline", "work"):      # children.fmu_run's report: "seconds" (the run), "fixed_seconds"
        t = row[side]
        t.update(wall_s=t["seconds"], steps=steps, us_per_step=t["seconds"] / steps * 1e6)
    print(f"{name}.fmu through FMPy, {duration:g} s at 1 ms: baseline {row['baseline']['wall_s']:.3f} s, working "
          f"tree {row['work']['wall_s']:.3f} s, ratio {row['ratio']:.3f}", flush=True)
    return row


def _passes(sides: dict, name: str, repeats: int) -> dict:
    """{pass: {"baseline": ns, "work": ns, "ratio": work/baseline}} (best per side over ``repeats``
    alternating children); a pass the baseline does not time has baseline None."""
    best: dict[str, dict] = {"baseline": {}, "work": {}}
    missing = False
    for r in range(repeats):
        for side in _order(r):
            src, env = sides[side]
            got = _child(src, env, "time_passes", name)
            if got is None:
                missing = True
                continue
            for k, ns in got.items():
                best[side][k] = min(ns, best[side].get(k, ns))
    if missing:
        print(f"{name}: the baseline has no pass-by-pass timing (bench.time_passes)", flush=True)
    return {k: {"baseline": best["baseline"].get(k), "work": ns,
                "ratio": ns / best["baseline"][k] if k in best["baseline"] else None}
            for k, ns in best["work"].items()}


def _line(row: dict) -> str:
    b, w = row["baseline"], row["work"]
    return (f"{row['vehicle']:<18} {row['integrator']}@{row['dt_s'] * 1e3:g}ms {row['simulated_s']:g} s: "
            f"baseline {b['wall_s']:.3f} s ({b['us_per_evaluation']:.2f} us/eval), working tree "
            f"{w['wall_s']:.3f} s ({w['us_per_evaluation']:.2f} us/eval), ratio {row['ratio']:.3f}")


def markdown_table(report: dict) -> str:
    """The comparison as Markdown: one row per vehicle and method, then the passes if timed."""
    lines = [f"Baseline {report['baseline_ref']} ({report['baseline_commit'][:12]}) and the working tree, "
             f"one sitting, alternating, best of {report['repeats']}:", "",
             "| vehicle | method | baseline [s] | working tree [s] | ratio | baseline [µs/eval] | "
             "working tree [µs/eval] |", "|---|---|---|---|---|---|---|"]
    for r in report["results"]:
        b, w = r["baseline"], r["work"]
        lines.append(f"| {r['vehicle']} | {r['integrator']} {r['dt_s'] * 1e3:g} ms | {b['wall_s']:.3f} | "
                     f"{w['wall_s']:.3f} | {r['ratio']:.3f} | {b['us_per_evaluation']:.2f} | "
                     f"{w['us_per_evaluation']:.2f} |")
    if "fmu" in report:
        r = report["fmu"]
        b, w = r["baseline"], r["work"]
        lines += ["", f"The vehicle FMU through FMPy, {r['simulated_s']:g} s of the bumpy road at a 1 ms communication "
                  "step:", "", "| FMU | baseline [s] | working tree [s] | ratio | baseline [µs/step] | "
                  "working tree [µs/step] |", "|---|---|---|---|---|---|",
                  f"| {r['fmu']} | {b['wall_s']:.3f} | {w['wall_s']:.3f} | {r['ratio']:.3f} | "
                  f"{b['us_per_step']:.2f} | {w['us_per_step']:.2f} |"]
    for name, table in report.get("passes_ns", {}).items():
        lines += ["", f"{name}, ns per call of each pass:", "", "| pass | baseline | working tree | ratio |",
                  "|---|---|---|---|"]
        for k, v in table.items():
            base = "-" if v["baseline"] is None else f"{v['baseline']:.0f}"
            ratio = "-" if v["ratio"] is None else f"{v['ratio']:.3f}"
            lines.append(f"| {k} | {base} | {v['work']:.0f} | {ratio} |")
    return "\n".join(lines)
