"""``fmu-vehicle bench`` runs end to end on a tiny duration and writes its JSON report.

No timing is asserted (the benchmark is the measure); the report's numbers must be consistent with
each other: real-time factor = simulated / wall time, us per evaluation = wall / (4 steps + 1), and
the ratios to the paper and to the uncompiled path follow from the stored times; the cold compile time is
reported.
"""
import json
import subprocess
import sys

import pytest

from fmu_vehicle.cli import main
from timeouts import HANG_GUARD_S
from fmi_support import session_fmus


def test_bench_writes_a_consistent_report(tmp_path):
    """The command as a user runs it, in its own process. (In the test process, where this is often the
    first test to compile the package's kernels, CPython 3.11 at pytest's call depth can map and unmap a
    16 KB frame-stack chunk on nearly every Python call numba's compiler makes: about 20 million page
    faults, 250 s instead of 90 s.)"""
    out = tmp_path / "bench.json"
    # --no-cold-compile: the cold compile (a fresh process compiling every kernel, over a minute) is left to
    # real bench runs, to keep the suite under its time budget; tests/test_numba_cache_keys.py compiles cold.
    # --no-stability: the ladder has its own test below
    run = subprocess.run([sys.executable, "-m", "fmu_vehicle", "bench", "--vehicles", "halfcar7", "--repeats", "1",
                          "--duration", "0.02", "--no-cold-compile", "--no-stability", "--passes", "--out", str(out)],
                         capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert run.returncode == 0, run.stderr
    report = json.loads(out.read_text())
    r, ref = report["results"]
    assert (r["integrator"], ref["integrator"]) == ("rk4", "reference")
    # the adaptive reference: its own evaluation count, no uncompiled comparison
    assert ref["evaluations"] > 10
    assert ref["us_per_evaluation"] == pytest.approx(ref["wall_s"] / ref["evaluations"] * 1e6)
    assert "speedup_vs_uncompiled" not in ref and ref["simulated_s"] == 0.02
    assert (r["vehicle"], r["coordinates"], r["constraints"], r["dof"]) == ("halfcar7", 16, 9, 7)
    assert r["simulated_s"] == 0.02 and r["dt_s"] == 1e-3 and r["wall_s"] > 0.0
    assert r["real_time_factor"] == pytest.approx(r["simulated_s"] / r["wall_s"])
    assert r["evaluations"] == 4 * 20 + 1 and r["us_per_evaluation"] == pytest.approx(r["wall_s"] / (4 * 20 + 1) * 1e6)
    assert r["paper_cpu_s"] > 0.0
    assert r["speedup_vs_paper"] == pytest.approx(r["paper_cpu_s"] / 20.0 / (r["wall_s"] / r["simulated_s"]))
    assert r["uncompiled_us_per_evaluation"] > 0.0
    assert r["speedup_vs_uncompiled"] == pytest.approx(r["uncompiled_us_per_evaluation"] / r["us_per_evaluation"])
    printed = run.stdout
    assert "| halfcar7 | rk4 | 16 / 9 / 7 |" in printed and "| halfcar7 | reference | 16 / 9 / 7 |" in printed
    assert f"wrote {out}" in printed
    assert "cold_compile" not in report and "cold compile:" not in printed
    # --passes: every pass of one evaluation, ns per call, in the report and as a table
    from fmu_vehicle.tools.pass_timing import PASSES
    passes = report["passes_ns"]["halfcar7"]
    assert list(passes) == list(PASSES) and all(0.0 < ns < 1e6 for ns in passes.values())
    assert "| pass | halfcar7 [ns] | ratio |" in printed and "| forward_dynamics: add_rods | " in printed
    # ... and the mass matrix's structure beside the evaluation's time per wheel
    assert report["structure"] == {"halfcar7": {"coordinates": 16, "shared": 3, "wheels": 2, "m_shared": 87,
                                                "m_rest": 75}}
    assert f"| halfcar7 | 2 | 16 | 3 | 87 | 75 | {passes['vehicle_rhs'] / 2:.0f} | 1.00 |" in printed


def test_mass_matrix_structure_counts_the_chassis_rows_and_columns():
    """The full car's M has 6 chassis rows and columns over 33 coordinates, the half car's 3 over 16: 360 of
    its 527 possibly non-zero entries are in them against 87 of 162 (4.1 times for twice the corners: why
    the passes that read M grow faster than the corners, docs/formulation.md §9). The tractor-semitrailer's
    shared chain is its tractor's 6 chassis coordinates (the fifth wheel is a child beside the corners')."""
    from fmu_vehicle.tools.bench import mass_matrix_structure
    half, full = mass_matrix_structure("halfcar7"), mass_matrix_structure("fullcar14")
    assert (half["shared"], half["m_shared"], half["m_rest"]) == (3, 87, 75)
    assert (full["coordinates"], full["shared"], full["wheels"]) == (33, 6, 4)
    # every shared coordinate couples with every coordinate: its row and column are full
    n, k = full["coordinates"], full["shared"]
    assert full["m_shared"] == 2 * k * n - k * k == 360 and full["m_rest"] == 167
    assert mass_matrix_structure("tractor_semitrailer")["shared"] == 6

# bad options of ``bench`` (and of every other subcommand) are tested in test_cli.py


def test_bench_steps_stability_ladder_and_fastest_within(tmp_path, capsys):
    """``--integrators NAME@STEPms`` times a method at its own step; each fixed-step method gets the largest
    stable step of the ladder (2 s of the bumpy road: both axles cross the first bump). On halfcar7 RK4 is
    stable up to 10 ms and its slip mode blows up at 12.5 ms, ABM4 (smaller stability region) up to 2.5 ms,
    BDF2 (A-stable) at every rung up to 50 ms. ``fastest_within`` names the fastest run within
    max(2 x RK4's final error, 1e-6) that is not above its method's stable step."""
    from fmu_vehicle.tools.bench import ERROR_FLOOR, FINAL_STATE, STABILITY_STEPS_S
    out = tmp_path / "bench.json"
    assert main(["bench", "--vehicles", "halfcar7", "--repeats", "1", "--duration", "0.02", "--no-cold-compile",
                 "--no-uncompiled", "--integrators", "rk4", "abm4@2ms", "bdf2@4ms", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    rk4, abm4, bdf2 = report["results"]
    assert (abm4["integrator"], abm4["label"], abm4["dt_s"]) == ("abm4", "abm4@2ms", 2e-3)
    assert (bdf2["integrator"], bdf2["label"], bdf2["dt_s"]) == ("bdf2", "bdf2@4ms", 4e-3)
    assert rk4["label"] == "rk4" and rk4["evaluations"] == 4 * 20 + 1
    assert abm4["evaluations"] == 1 + 3 * 4 + 7 * 2         # 10 steps: RK4 start-up, then PECE
    ladders = {r["integrator"]: r["stability"] for r in (rk4, abm4, bdf2)}
    assert (ladders["rk4"]["largest_stable_step_s"], ladders["rk4"]["first_unstable_step_s"]) == (10e-3, 12.5e-3)
    assert (ladders["abm4"]["largest_stable_step_s"], ladders["abm4"]["first_unstable_step_s"]) == (2.5e-3, 4e-3)
    assert (ladders["bdf2"]["largest_stable_step_s"], ladders["bdf2"]["first_unstable_step_s"]) == (50e-3, None)
    assert [r["dt_s"] for r in ladders["bdf2"]["rungs"]] == list(STABILITY_STEPS_S)
    # stable rungs stay well inside the 10 % band, the first unstable one leaves it by far (a blow-up)
    assert all(r["deviation"] < 0.06 for r in ladders["bdf2"]["rungs"] + ladders["rk4"]["rungs"][:-1])
    assert ladders["rk4"]["rungs"][-1]["deviation"] > 0.5
    f, = report["fastest_within"]
    bound = {k: max(2 * rk4["final_error"][k], ERROR_FLOOR) for k in FINAL_STATE}
    assert f["bound"] == pytest.approx(bound)
    within = [r["label"] for r in (rk4, abm4, bdf2) if all(r["final_error"][k] <= bound[k] for k in FINAL_STATE)]
    assert f["within"] == within and "rk4" in within
    best = min((r for r in (rk4, abm4, bdf2) if r["label"] in within), key=lambda r: r["wall_s"])
    assert f["fastest"] == best["label"] and f["wall_over_rk4"] == pytest.approx(best["wall_s"] / rk4["wall_s"])
    printed = capsys.readouterr().out
    assert "| halfcar7 | abm4@2ms | 16 / 9 / 7 |" in printed and "| 10 ms (12.5 ms not) |" in printed
    assert "| 50 ms (largest tried) |" in printed and "halfcar7: fastest within max(2 x rk4's" in printed


def _git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True)


def test_bench_baseline_times_another_commit_in_the_same_sitting(tmp_path, tmp_path_factory):
    """``bench --baseline HEAD --fmu VehicleLV.fmu``: the commit is extracted into the work folder with its own
    kernel cache and timed in fresh processes alternating with the working tree; the report holds each side's
    best wall time and the ratio, for the vehicle and for the FMU through FMPy against the baseline's own
    build of it. The baseline's cache is seeded with hard links to this checkout's kernels and its FMU folder
    with this session's VehicleLV FMU (the same sources give the same keys and digest) so that the test
    neither compiles nor builds them cold."""
    import os
    import shutil
    from pathlib import Path

    import fmu_vehicle
    from fmu_vehicle.tools.bench_baseline import _order
    from fmu_vehicle.tools.pass_timing import PASSES
    repo = Path(fmu_vehicle.__file__).resolve().parents[1]
    head = _git("-C", str(repo), "rev-parse", "HEAD")
    if head.returncode != 0:
        pytest.skip(f"{repo} is not a git checkout: --baseline needs one")
    sha = head.stdout.strip()
    work = tmp_path / "dist" / "bench-baseline"
    if fmu_vehicle.CACHE_DIR and not os.environ.get("FMU_VEHICLE_CACHE_DIR"):
        seeded = work / sha / "cache" / "fmu_vehicle" / Path(fmu_vehicle.CACHE_DIR).name
        shutil.copytree(fmu_vehicle.CACHE_DIR, seeded, copy_function=os.link,
                        ignore=shutil.ignore_patterns("*.lock"))
    fmu = session_fmus(["VehicleLV"], tmp_path_factory.getbasetemp())["VehicleLV"]
    (work / sha / "fmus").mkdir(parents=True)
    os.link(fmu, work / sha / "fmus" / fmu.name)
    out = tmp_path / "baseline.json"
    run = subprocess.run([sys.executable, "-m", "fmu_vehicle", "bench", "--baseline", "HEAD", "--vehicles", "halfcar7",
                          "--integrators", "rk4", "reference", "--repeats", "1", "--duration", "0.02", "--passes",
                          "--fmu", str(fmu), "--out", str(out)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=HANG_GUARD_S)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["baseline_commit"] == sha and report["baseline_ref"] == "HEAD"
    assert (work / sha / "src" / "fmu_vehicle" / "__init__.py").is_file()
    assert not (work / sha / "src" / "dist").exists()      # the baseline's cache is the work folder's, not its own
    (row,) = report["results"]                    # the adaptive reference is not compared
    assert (row["vehicle"], row["integrator"], row["dt_s"], row["simulated_s"]) == ("halfcar7", "rk4", 1e-3, 0.02)
    for side in ("baseline", "work"):
        r = row[side]
        assert r["evaluations"] == 4 * 20 + 1 and r["coordinates"] == 16 and r["wall_s"] > 0.0
        assert r["us_per_evaluation"] == pytest.approx(r["wall_s"] / r["evaluations"] * 1e6)
    assert row["ratio"] == pytest.approx(row["work"]["wall_s"] / row["baseline"]["wall_s"])
    passes = report["passes_ns"]["halfcar7"]
    assert list(passes) == list(PASSES)
    for v in passes.values():
        assert 0.0 < v["baseline"] < 1e6 and 0.0 < v["work"] < 1e6
        assert v["ratio"] == pytest.approx(v["work"] / v["baseline"])
    row = report["fmu"]
    assert (row["fmu"], row["simulated_s"], row["communication_step_s"]) == ("VehicleLV", 0.02, 1e-3)
    assert row["work_fmu"] == str(fmu) and row["baseline_fmu"] == str(work / sha / "fmus" / fmu.name)
    for side in ("baseline", "work"):
        r = row[side]
        assert r["steps"] == 20 and r["wall_s"] > 0.0
        assert r["us_per_step"] == pytest.approx(r["wall_s"] / 20 * 1e6)
    assert row["ratio"] == pytest.approx(row["work"]["wall_s"] / row["baseline"]["wall_s"])
    assert "| VehicleLV |" in run.stdout
    assert "| halfcar7 | rk4 1 ms |" in run.stdout and f"({sha[:12]})" in run.stdout
    assert [_order(r) for r in range(3)] == [("baseline", "work"), ("work", "baseline"), ("baseline", "work")]


def test_bench_step_steer_of_a_combination():
    """The bench's step steer of a combination steers by its towing unit's single-track model (a combination
    has none of its own): the tractor-semitrailer turns left at its 4 m/s^2 angle (the default run covers every
    shipped vehicle, the combinations included)."""
    from fmu_vehicle.tools.bench import time_step_steer
    r = time_step_steer("tractor_semitrailer", duration=2.0, repeats=1)
    assert r["vehicle"] == "tractor_semitrailer" and r["wall_s"] > 0.0 and r["final_yaw_rate_rad_s"] > 0.05
