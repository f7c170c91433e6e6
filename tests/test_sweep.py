"""Catalogue sweeps on dask.distributed with the real FMUs: a small CCRs catalogue on a LocalCluster of 2
worker processes writes the same file, byte for byte, as on 1; a run with a bad parameter is recorded with
its error while the others go on; an interrupted sweep resumes from its journal without redoing runs; the
shipped catalogues load and their SSP system files are what ``fmu_vehicle.adas.systems`` writes; a
``component.variable`` parameter reaches the FMU; errors name the file and the field."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fmu_vehicle.adas import sweep as S
from fmu_vehicle.adas.catalogue import catalogue_names, load_catalogue
from fmu_vehicle.adas.kpis import euroncap_score
from fmu_vehicle.adas.systems import SYSTEMS, write_systems
from fmu_vehicle.cosim.ssp import read_ssp
from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import resource_path


BANDS = [[5, 1.0], [15, 0.75], [30, 0.5], [40, 0.25]]
SMALL = {
    "name": "small-ccrs",
    "description": "CCRs at 20 and 40 km/h and one run with an impossible speed",
    "system": str(resource_path("scenarios", "ccr.ssd")),
    "protocol": "ccr",
    "parameters": {"v_target_kmh": 0.0, "ttc0_s": 4.0},
    "grid": {"v_vut_kmh": [20, -5, 40]},
    "scoring": {"bands_kmh": BANDS},
    "plot": {"x": "v_vut_kmh", "y": "impact_speed_kmh"},
}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    path = tmp_path_factory.mktemp("cat") / "small-ccrs.json"
    path.write_text(json.dumps(SMALL))
    return load_catalogue(str(path))


@pytest.fixture(scope="module")
def two_and_one(small, scenario_fmus, tmp_path_factory):
    out = tmp_path_factory.mktemp("sweeps")
    fmu_dir = Path(scenario_fmus["VehicleLV"]).parent
    two = S.sweep(small, out / "two.csv", workers=2, fmu_dir=fmu_dir, progress=False, log=lambda m: None)
    one = S.sweep(small, out / "one.csv", workers=1, fmu_dir=fmu_dir, progress=False, log=lambda m: None)
    return two, one


def test_two_workers_write_what_one_writes(two_and_one):
    two, one = two_and_one
    assert two.csv.read_bytes() == one.csv.read_bytes()
    assert two.ran == one.ran == 3 and two.plot.stat().st_size > 10_000
    assert two.worker_cpu == one.worker_cpu == "generic"          # the FMUs' shipped code, nothing compiled
    assert not S.journal_path(two.csv).exists()                       # removed once the CSV is complete


def test_rows_and_kpis(two_and_one):
    """One row per run in catalogue order.  At 20 and 40 km/h toward a stationary target the AEB (TTC
    threshold 1.5 s, full brake) stops the car: no contact, score 1; it triggers at the first controller sample
    below 1.5 s TTC (closing at v, the TTC falls by the 10 ms sample period per sample), at the
    test speed (within the 1 km/h speed tolerance: the driver's torque holds it) and the brake reaches the
    tire's friction limit, 7.5-10 m/s^2 on the dry flat road (mu 1)."""
    rows = two_and_one[0].rows
    assert [r["run"] for r in rows] == ["small-ccrs-0000", "small-ccrs-0001", "small-ccrs-0002"]
    ok = [rows[0], rows[2]]
    for row, v in zip(ok, (20, 40)):
        assert row["status"] == "ok" and row["v_vut_kmh"] == v
        assert row["collision"] is False and row["impact_speed_kmh"] == 0.0
        assert (row["euroncap_score"], row["euroncap_verdict"]) == (1.0, "avoided") and row["test_end_reached"]
        # the first 10 ms sample below 1.5 s: TTC falls at about 1 s/s (a little faster while the car under test
        # still gains speed: 1.49 - 2e-5 s was seen), so within 1.5 samples of the threshold
        assert row["aeb_activated"] and 1.485 <= row["aeb_onset_ttc_s"] < 1.5
        assert row["min_ttc_s"] < 1.5
        assert abs(row["ego_speed_at_aeb_kmh"] - v) < 1.0
        assert 7.5 < row["max_decel_m_per_s2"] < 10.0
    bad = rows[1]
    assert bad["status"] == "error" and "v_vut_kmh must be > 0" in bad["error"]


def test_failed_run_in_csv(two_and_one):
    lines = two_and_one[0].csv.read_text().splitlines()
    header = lines[0].split(",")
    assert header[:7] == ["run", "index", "v_target_kmh", "ttc0_s", "v_vut_kmh", "status", "error"]
    assert "impact_speed_kmh" in header and len(lines) == 4
    assert lines[2].split(",")[5] == "error"


def test_interrupted_sweep_resumes(small, two_and_one, scenario_fmus, tmp_path):
    """A journal holding run 0 (as an interrupted sweep leaves it, its last line cut) makes the sweep compute
    runs 1 and 2 only, and the file equals the uninterrupted one."""
    one = two_and_one[1]
    out = tmp_path / "resumed.csv"
    journal = S.journal_path(out)
    row0 = {k: v for k, v in one.rows[0].items() if k not in ("run", "index", *small.parameters, "v_vut_kmh")}
    journal.write_text(json.dumps({"catalogue": small.name, "digest": small.digest()}) + "\n"
                       + json.dumps({"index": 0, "row": row0}) + "\n" + '{"index": 1, "ro')
    res = S.sweep(small, out, workers=1, fmu_dir=Path(scenario_fmus["VehicleLV"]).parent, progress=False,
                  log=lambda m: None)
    assert res.ran == 2
    assert out.read_bytes() == one.csv.read_bytes()
    other = tmp_path / "other.csv"
    S.journal_path(other).write_text(json.dumps({"catalogue": "x", "digest": "0"}) + "\n")
    with pytest.raises(ModelError, match="journal of another catalogue"):
        S.sweep(small, other, workers=1, progress=False, log=lambda m: None)
    assert not other.exists()


SURVIVE = {**SMALL, "name": "survive-ccrs", "description": "CCRs at 20-45 km/h, disturbed mid-sweep",
           "grid": {"v_vut_kmh": [20, 25, 30, 35, 40, 45]}}


def _drop_clients(dask_scheduler, keep):
    """On the scheduler: abort the connection of every client but ``keep`` (the sweep's client reconnects)."""
    dropped = []
    for client_id, stream in list(dask_scheduler.client_comms.items()):
        if client_id not in (keep, "fire-and-forget"):
            stream.comm.abort()
            dropped.append(client_id)
    return dropped


def _journal_rows(out: Path) -> int:
    journal = S.journal_path(out)
    return max(0, len(journal.read_text().splitlines()) - 1) if journal.exists() else 0


def test_a_sweep_survives_a_killed_worker_and_a_dropped_connection(scenario_fmus, tmp_path):
    """On a real cluster of 2 worker processes (nannies): once the first run is in the journal, the process of a
    worker that is running a run is killed (SIGKILL); once another run is in, the scheduler aborts the sweep's
    client connection, which cancels every pending future.  The scheduler reschedules the killed worker's
    task, its nanny starts a replacement (numba's CPU target pinned by the sweep's worker plugin, so it loads
    the same shipped kernels), and the sweep submits the cancelled runs again: every run finishes 'ok' and the
    file equals, byte for byte, an undisturbed sweep's on the same cluster."""
    import logging
    import os
    import signal
    import threading
    import time

    from distributed import Client, LocalCluster

    path = tmp_path / "survive-ccrs.json"
    path.write_text(json.dumps(SURVIVE))
    cat = load_catalogue(str(path))
    fmu_dir = Path(scenario_fmus["VehicleLV"]).parent
    quiet_out, disturbed_out = tmp_path / "quiet.csv", tmp_path / "disturbed.csv"
    seen: dict = {}

    def disturb(c: Client):
        try:
            while _journal_rows(disturbed_out) < 1:
                time.sleep(0.05)
            busy = [w for w, keys in c.processing().items() if keys]
            seen["busy"] = bool(busy)
            victim = (busy or list(c.scheduler_info()["workers"]))[0]
            seen["killed"] = c.run(os.getpid, workers=[victim])[victim]
            os.kill(seen["killed"], signal.SIGKILL)
            while _journal_rows(disturbed_out) < 2:
                time.sleep(0.05)
            seen["dropped"] = c.run_on_scheduler(_drop_clients, keep=c.id)
            seen["rows_at_drop"] = _journal_rows(disturbed_out)
        except Exception as e:           # reported by the assertions below
            seen["error"] = repr(e)

    environ = dict(os.environ)        # distributed sets MALLOC_TRIM_THRESHOLD_, ... in the process of a cluster
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=logging.CRITICAL) as cluster, Client(cluster) as c:
            where = {"scheduler": cluster.scheduler_address, "fmu_dir": fmu_dir, "progress": False,
                     "log": lambda m: None}
            quiet = S.sweep(cat, quiet_out, **where)
            thread = threading.Thread(target=disturb, args=(c,), daemon=True)
            thread.start()
            disturbed = S.sweep(cat, disturbed_out, **where)
            thread.join(timeout=600)
            c.wait_for_workers(2, timeout=300)
            pids = set(c.run(os.getpid).values())
    finally:
        for key in set(os.environ) - set(environ):
            del os.environ[key]
        os.environ.update(environ)
    assert "error" not in seen, seen
    assert seen["busy"] and seen["killed"] not in pids, seen          # a running worker died, a new one joined
    assert len(seen["dropped"]) == 1 and seen["rows_at_drop"] < len(cat.runs()), seen
    assert disturbed.resubmitted >= 1                                  # the cancelled runs went out again
    assert disturbed.failed == quiet.failed == 0 and len(disturbed.rows) == len(cat.runs())
    assert disturbed.csv.read_bytes() == quiet.csv.read_bytes()
    assert disturbed.worker_cpu == "generic"


def test_dask_faults_are_named_as_such():
    """The error that ended a sweep, a closed comm of dask's (an OSError), reads 'dask: ...', never as a
    file-system error; a KilledWorker and a cancelled future are dask faults too."""
    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker
    from distributed.utils import CancelledError

    e = CommClosedError("in <TCP (closed) Scheduler Broadcast local=tcp://127.0.0.1:1 remote=tcp://127.0.0.1:2>: "
                        "Stream is closed")
    assert S.dask_message(e) == ("dask: CommClosedError: in <TCP (closed) Scheduler Broadcast "
                                 "local=tcp://127.0.0.1:1 remote=tcp://127.0.0.1:2>: Stream is closed")
    assert S.dask_message(CancelledError()) == "dask: CancelledError"
    assert all(isinstance(x, S.dask_faults()) for x in (e, CancelledError(), KilledWorker("k", None, 3)))


def test_shipped_catalogues_load():
    """The catalogues the protocols ask for, with their grids: CCRs 10-50 km/h in 5 km/h steps (9 runs),
    CCRm 30-80 (11), CCRb 2 headways x 2 decelerations (4), ISO 15622 five cases, the platoon three time
    gaps, ride comfort 4 road classes x 3 speeds; the AEB design sweep 5 trigger thresholds x 15 speeds."""
    expected = {"euroncap-ccrs": 9, "euroncap-ccrm": 11, "euroncap-ccrb": 4, "iso15622-acc": 5,
                "platoon-string-stability": 3, "ride-comfort-iso8608": 12, "aeb-ttc-threshold": 75}
    assert set(expected) <= set(catalogue_names())
    for name, n in expected.items():
        assert len(load_catalogue(name).runs()) == n, name
    ccrs = load_catalogue("euroncap-ccrs").runs()
    assert [r.parameters["v_vut_kmh"] for r in ccrs] == list(range(10, 55, 5))
    assert all(r.parameters["ttc0_s"] == 4.0 and r.parameters["v_target_kmh"] == 0.0 for r in ccrs)


def test_catalogue_errors_name_file_and_field(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**SMALL, "protocol": "rocket"}))
    with pytest.raises(ModelError, match=r"bad.json: field 'protocol' = 'rocket'"):
        load_catalogue(str(bad))
    bad.write_text(json.dumps({**SMALL, "system": "rocket.ssd"}))
    with pytest.raises(ModelError, match=r"bad.json: field 'system' = 'rocket.ssd': no such file"):
        load_catalogue(str(bad))
    bad.write_text(json.dumps({**SMALL, "grid": {"v_vut_kmh": []}}))
    with pytest.raises(ModelError, match=r"field 'grid.v_vut_kmh'"):
        load_catalogue(str(bad))
    with pytest.raises(ModelError, match="no shipped catalogue"):
        load_catalogue("no-such-catalogue")


def test_euroncap_bands():
    """No contact scores 1; with contact the first band whose bound exceeds the impact speed."""
    assert euroncap_score(False, 0.0, BANDS) == (1.0, "avoided")
    assert euroncap_score(True, 4.9, BANDS) == (1.0, "mitigated")
    assert euroncap_score(True, 14.0, BANDS) == (0.75, "mitigated")
    assert euroncap_score(True, 39.9, BANDS) == (0.25, "mitigated")
    assert euroncap_score(True, 45.0, BANDS) == (0.0, "not mitigated")
    assert math.isclose(euroncap_score(True, 29.99, BANDS)[0], 0.5)


def test_ride_comfort_doubles_from_one_road_class_to_the_next(scenario_fmus):
    """ISO 8608 classes A and B (same seed, so the same harmonics and phases) differ by a factor 4 in
    displacement PSD, i.e. 2 in every harmonic's amplitude; the half car is linear at these amplitudes
    (its tires never lift off), so every weighted RMS and VDV doubles to within 1 %.  The crest factor, a
    ratio, does not change.  At 36 km/h on class A the chassis sees Wk-weighted RMS 0.05-0.15 m/s^2, which
    ISO 2631-1 Annex C calls not uncomfortable (< 0.315 m/s^2)."""
    system = read_ssp(resource_path("scenarios", "ride.ssd"), fmu_dir=Path(scenario_fmus["VehicleLV"]).parent)
    rows = [S.run_one("ride", system, {"road_class": c, "speed_kmh": 36, "duration_s": 8.0, "seed": 1},
                      {"skip_s": 2.0}, {}) for c in "AB"]
    a, b = rows
    assert a["status"] == b["status"] == "ok", (a.get("error"), b.get("error"))
    for key in ("aw_z_m_per_s2", "aw_x_m_per_s2", "vdv_z_m_per_s1_75"):
        assert b[key] / a[key] == pytest.approx(2.0, rel=0.01), key
    assert b["crest_z"] == pytest.approx(a["crest_z"], rel=0.01)
    assert 0.05 < a["aw_z_m_per_s2"] < 0.15 and a["comfort"] == "not uncomfortable"
    assert a["mean_speed_kmh"] == pytest.approx(36.0, abs=1.0)


def test_cli_errors_are_one_line(tmp_path, capsys):
    from fmu_vehicle.cli import main
    for argv, needle in ((["sweep", "no-such-catalogue", "-o", str(tmp_path / "r.csv")], "no shipped catalogue"),
                         (["sweep", "euroncap-ccrs", "--workers", "0"], "--workers"),
                         (["sweep", "euroncap-ccrs", "--workers", "2", "--scheduler", "tcp://x:1"], "not allowed"),
                         (["sweep", "euroncap-ccrs", "-o", str(tmp_path / "r.txt")], "expected a .csv")):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("fmu-vehicle: error:") and needle in err and "\n" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_sweep_leaves_the_environment_as_it_was(two_and_one):
    """distributed sets MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS, ... in the process that starts a cluster;
    the sweep restores os.environ so later child processes do not inherit them (with
    MALLOC_TRIM_THRESHOLD_=65536 the FMU state-harness child of test_fmi_state aborts)."""
    import os
    assert "MALLOC_TRIM_THRESHOLD_" not in os.environ and "__DASK_PARENT_PID" not in os.environ


def test_shipped_system_files_are_generated(scenario_fmus, registered_fmus, tmp_path):
    """resources/scenarios/*.ssd are what fmu_vehicle.adas.systems writes from the built FMUs (regenerate
    with ``python -m fmu_vehicle.adas.systems``), every shipped catalogue names one of them, and each reads
    back with its FMUs from the FMU folder, in Gauss-Seidel order."""
    fmus = {**scenario_fmus, **{n: registered_fmus[n] for n in ("Vehicle", "ChassisControl", "Robot", "Driver",
                                                                "VehicleCombination", "TractorSemitrailer")}}
    written = write_systems(fmus, tmp_path)
    for path in written:
        assert path.read_bytes() == resource_path("scenarios", path.name).read_bytes(), path.name
    assert {load_catalogue(n).system.name for n in catalogue_names()} <= {f"{s}.ssd" for s in SYSTEMS}
    ccr = read_ssp(resource_path("scenarios", "ccr.ssd"), fmu_dir=Path(scenario_fmus["VehicleLV"]).parent)
    assert [c.name for c in ccr.components] == ["lead", "controller", "vehicle"]
    assert ccr.component("vehicle").source == Path(scenario_fmus["VehicleLV"]).resolve()


def test_component_parameters_reach_the_fmus(small, scenario_fmus, tmp_path):
    """A catalogue parameter 'component.variable' sets that FMU parameter after the protocol: the AEB's TTC
    threshold at 2 s makes it engage at the first sample below 2 s (1.5 s by default); a parameter naming
    no component of the system stops the sweep before any run, naming the parameter."""
    fmu_dir = Path(scenario_fmus["VehicleLV"]).parent
    system = read_ssp(small.system, fmu_dir=fmu_dir)
    row = S.run_one("ccr", system, {"v_vut_kmh": 30.0, "controller.aeb.ttc_on": 2.0}, {}, {"bands_kmh": BANDS})
    assert row["status"] == "ok" and 1.98 <= row["aeb_onset_ttc_s"] < 2.0
    assert system.component("controller").parameters.get("aeb.ttc_on") is None     # the run worked on a copy
    path = tmp_path / "typo.json"
    path.write_text(json.dumps({**SMALL, "parameters": {**SMALL["parameters"], "controler.aeb.ttc_on": 2.5}}))
    with pytest.raises(ModelError, match=r"parameter 'controler.aeb.ttc_on': the system ccr.ssd has no such"):
        S.sweep(load_catalogue(str(path)), tmp_path / "typo.csv", workers=1, fmu_dir=fmu_dir, progress=False,
                log=lambda m: None)
    assert not (tmp_path / "typo.csv").exists() and not S.journal_path(tmp_path / "typo.csv").exists()


@pytest.mark.slow
def test_ctrl_c_on_a_sweep_is_one_line_and_writes_no_csv(scenario_fmus, tmp_path):
    """Ctrl-C in a terminal reaches every process of the group: the command and its dask workers. Sent once
    the first run is in the journal: exit 130, one stderr line (no traceback of the workers or of dask;
    it printed about 4 KB of them), no results CSV or plot, the finished runs kept in the journal for a
    resume."""
    import os
    import signal
    import subprocess
    import sys
    import time

    cat = tmp_path / "long-ccrs.json"
    cat.write_text(json.dumps({**SMALL, "name": "long-ccrs", "grid": {"v_vut_kmh": list(range(20, 82, 4))}}))
    out = tmp_path / "res.csv"
    journal = S.journal_path(out)
    proc = subprocess.Popen([sys.executable, "-m", "fmu_vehicle", "sweep", str(cat), "--workers", "2", "-q",
                             "--fmu-dir", str(Path(scenario_fmus["VehicleLV"]).parent), "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            # a test run in a background job ignores SIGINT, and the child would inherit that
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    while proc.poll() is None and not (journal.exists() and len(journal.read_text().splitlines()) >= 2):
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate()
    assert proc.returncode == 130, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fmu-vehicle: interrupted: no res.csv written; "), err
    assert "kept in" in lines[0] and str(journal) in lines[0]
    assert not out.exists() and not out.with_suffix(".png").exists()
    assert len(journal.read_text().splitlines()) >= 2


def test_the_ctrl_c_noise_of_a_pending_client_call_is_silenced_during_shutdown():
    """distributed's ``sync`` queues a cancel callback when Ctrl-C lands in the main thread; if the call it
    waits for has not started on the event loop yet, the callback raises NameError and tornado logs it with a
    traceback (a sweep printed that above its one-line message). Reproduced here without a cluster: the loop
    is held busy, the main thread interrupted while it waits. The record reaches a handler normally and
    nothing does inside the sweep's shutdown silencer."""
    import logging
    import os
    import signal
    import threading

    from distributed.utils import LoopRunner, sync

    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    async def never_started():
        return 1

    def interrupted_call(loop):
        gate = threading.Event()
        loop.add_callback(gate.wait)                       # the loop thread is busy until the gate opens
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()   # wakes the main thread's wait
        with pytest.raises(KeyboardInterrupt):
            sync(loop, never_started)
        done = threading.Event()
        gate.set()
        loop.add_callback(done.set)                         # after the queued cancel callback
        assert done.wait(60)

    handler = Keep()
    logging.getLogger("tornado.application").addHandler(handler)
    runner = LoopRunner(asynchronous=False)
    runner.start()
    level = logging.getLogger("tornado.application").level
    sigint = signal.signal(signal.SIGINT, signal.default_int_handler)   # a background job ignores SIGINT
    try:
        interrupted_call(runner.loop)
        assert any(r.exc_info and r.exc_info[0] is NameError for r in records), records
        records.clear()
        with S._silenced(*S.CTRL_C_NOISE):
            interrupted_call(runner.loop)
        assert records == []
        assert logging.getLogger("tornado.application").level == level      # restored after
    finally:
        signal.signal(signal.SIGINT, sigint)
        runner.stop()
        logging.getLogger("tornado.application").removeHandler(handler)
