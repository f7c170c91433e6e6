"""``fmu-vehicle bench`` runs end to end on a tiny duration and writes its JSON report.

No timing is asserted (the benchmark is the measure); the report's numbers must be consistent with
each other: real-time factor = simulated / wall time, us per evaluation = wall / (4 steps + 1), and
the ratios to the paper and to the uncompiled path follow from the stored times; the cold compile time is
reported.
"""
import json

import pytest

from fmu_vehicle.cli import main


def test_bench_writes_a_consistent_report(tmp_path, capsys):
    out = tmp_path / "bench.json"
    # --no-cold-compile: the cold compile (a fresh process compiling every kernel, over a minute) is left to
    # real bench runs, to keep the suite under its time budget; tests/test_numba_cache_keys.py compiles cold
    assert main(["bench", "--vehicles", "halfcar7", "--repeats", "1", "--duration", "0.02", "--no-cold-compile",
                 "--out", str(out)]) == 0
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
    printed = capsys.readouterr().out
    assert "| halfcar7 | rk4 | 16 / 9 / 7 |" in printed and "| halfcar7 | reference | 16 / 9 / 7 |" in printed
    assert f"wrote {out}" in printed
    assert "cold_compile" not in report and "cold compile:" not in printed

# bad options of ``bench`` (and of every other subcommand) are tested in test_cli.py
