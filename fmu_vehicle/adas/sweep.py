"""Catalogue sweeps on dask.distributed: every run of a catalogue on a cluster, one CSV row per run.

    sweep(catalogue, "results.csv", workers=2)          a LocalCluster of 2 worker processes, 1 thread each
    sweep(catalogue, "results.csv", scheduler="tcp://host:8786")   an existing cluster

The catalogue's system file (SSP) is read once, here, with its FMUs taken from the folder of built FMUs
(``fmu_dir``, built if missing); its components may also name FMUs of their own next to the system file.
Each worker process extracts each FMU once (its own copies, kept for the process's life) and instantiates
fresh FMU instances per run from a fresh copy of the system, which the catalogue's protocol
(``fmu_vehicle.adas.protocols``) and then the run's ``component.variable`` parameters set up.  A run's result
thus depends on its parameters only, never on which worker ran it or what ran before: a sweep on N workers
writes the same rows, to the last digit, as one on 1 worker.

Rows: ``run``, ``index``, the run's parameters, ``status`` (ok | error), ``error`` (one line), the KPIs of
the system (``fmu_vehicle.adas.kpis``).  A run that fails (bad parameter, a component failing) is recorded with
its error while the others go on.  Faults of the cluster are survived: a worker that dies is replaced (its
nanny) and its run given to another worker by the scheduler, a task that raised outside the run is retried
(``RETRIES``), runs whose futures a dropped scheduler connection cancelled are submitted again
(``RESUBMITS``); what remains ends the sweep with 'dask: ...' (``dask_message``), the journal kept.

Resume: each finished run is appended at once, as one JSON line (written and fsynced), to the journal
``.<results name>.journal`` next to the results; its first line ties it to the catalogue (digest).  A sweep
started again with an existing journal skips the runs it holds.  When all runs are done the CSV (sorted by
run index) and the summary plot are written atomically and the journal removed.
"""
from __future__ import annotations

import atexit
import copy
import json
import logging
import math
import os
import shutil
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fmu_vehicle.adas import kpis as K
from fmu_vehicle.adas.catalogue import Catalogue, Run
from fmu_vehicle.adas.protocols import KMH, PROTOCOLS, platoon_cars
from fmu_vehicle.cosim.system import System, split_component_variable
from fmu_vehicle.errors import ModelError, SimulationError
from fmu_vehicle.plotting import new_figure, save_figure
from fmu_vehicle.util import atomic_write

#: KPI columns per protocol, in CSV order.
KPI_COLUMNS = {
    "ccr": ("collision", "impact_speed_kmh", "impact_time_s", "test_end_reached", "euroncap_score",
            "euroncap_verdict", "min_ttc_s",
            "max_decel_m_per_s2", "aeb_activated", "aeb_onset_ttc_s", "ego_speed_at_aeb_kmh"),
    "acc": ("collision", "impact_speed_kmh", "min_ttc_s", "min_time_headway_s", "steady_time_gap_s",
            "max_decel_m_per_s2", "max_decel_2s_m_per_s2", "max_jerk_1s_m_per_s3", "acc_decel_ok", "acc_jerk_ok",
            "acc_time_gap_ok", "aeb_activated", "final_speed_m_per_s", "final_gap_m", "stopped_behind_lead",
            "max_speed_after_stop_m_per_s"),
    "platoon": ("collision", "min_gap_m", "min_time_headway_s", "string_gain", "string_stable",
                "peak_accel_0_m_per_s2", "max_decel_m_per_s2"),
    "ride": ("aw_z_m_per_s2", "aw_x_m_per_s2", "av_m_per_s2", "vdv_z_m_per_s1_75", "vdv_x_m_per_s1_75", "crest_z",
             "crest_x", "comfort", "mean_speed_kmh"),
    "sine_with_dwell": ("passed", "failed", "amplitude_deg", "bos_s", "cos_s", "speed_at_bos_km_h",
                        "peak_yaw_rate_deg_s", "yaw_rate_ratio_1s_pct", "yaw_rate_ratio_1_75s_pct",
                        "yaw_rate_1s_pass", "yaw_rate_1_75s_pass", "lateral_displacement_m",
                        "lateral_displacement_applies", "lateral_displacement_pass", "lateral_displacement_ground_m",
                        "heading_change_deg", "esc_activated"),
    "braking": ("stopping_distance_m", "ideal_distance_m", "ratio", "distance_ok", "speed_at_onset_m_s",
                "stopping_time_s", "mean_deceleration_m_s2", "slip_band_fraction", "heading_change_deg",
                "max_abs_heading_deviation_deg", "max_yaw_rate_rad_s", "yaw_rate_bound_ratio", "abs_activated"),
    "launch": ("speed_end_m_s", "mean_acceleration_m_s2", "heading_change_deg", "slip_band_fraction", "slip_max",
               "tcs_activated"),
    "steering_impulse": ("damping_ratio", "frequency_hz", "log_decrement", "n_extrema", "theta_peak_deg",
                         "mean_speed_kmh"),
}

ROAD_MU = {"flat": 1.0, "low_mu": 0.3, "split_mu": 0.6}
"""The friction of the ideal stop (split friction: the mean of the two sides) and, as ``ROAD_MU_HIGH``, the highest
friction under the car, of the roads the braking catalogues use."""
ROAD_MU_HIGH = {"flat": 1.0, "low_mu": 0.3, "split_mu": 1.0}


def _chassis_kpis(protocol: str, scenario, result, settings: dict) -> dict:
    """KPIs of the chassis-control protocols (system ``chassis``): the functions of ``manoeuvres.sine_with_dwell``
    and ``control.braking`` on the recorded signals."""
    from fmu_vehicle.control import braking as B
    from fmu_vehicle.fmi.chassis_parameters import FULLCAR14, WHEELS

    t = result.time
    veh = {q: result[f"vehicle.chassis.{q}"] for q in ("x", "y", "yaw", "vx", "ay", "yaw_rate")}
    if protocol == "sine_with_dwell":
        from fmu_vehicle.manoeuvres import sine_with_dwell as swd
        row = swd.swd_criteria(t, result["robot.steering_wheel_angle"], veh["yaw_rate"], veh["ay"],
                               A_rad=math.radians(float(settings["A_deg"])), x=veh["x"], y=veh["y"], yaw=veh["yaw"],
                               vx=veh["vx"], zero_before=swd.STEER_START_S)
        row["esc_activated"] = bool(np.max(result["chassis_control.esc.active"]) > 0.5)
        return row
    params = scenario.system.component("chassis_control").parameters
    radius = [params.get(f"vehicle.wheel_radius_{'front' if w.startswith('F') else 'rear'}",
                         FULLCAR14[f"wheel_radius_{'front' if w.startswith('F') else 'rear'}_m"]) for w in WHEELS]
    road = str(settings.get("road", "flat" if protocol == "braking" else "split_mu"))
    if protocol == "braking":
        pressures = np.array([result[f"chassis_control.brakes.pressure_{w}"] for w in WHEELS])
        out = B.stopping_kpis(t, veh["x"], veh["y"], veh["vx"], pressures, ROAD_MU[road])
        out["distance_ok"] = bool(out["ratio"] <= float(settings.get("ratio_max", 1.10)))
        out.update(B.heading_kpis(t, veh["yaw"], veh["yaw_rate"], out["brake_onset_s"]))
        out["yaw_rate_bound_ratio"] = B.yaw_rate_bound_ratio(veh["yaw_rate"], veh["vx"], ROAD_MU_HIGH[road])
        signals = {"chassis.vx": veh["vx"], **{f"wheel_{w}.omega": result[f"vehicle.wheel_{w}.omega"] for w in WHEELS},
                   **{f"abs.phase_{w}": result[f"chassis_control.abs.phase_{w}"] for w in WHEELS}}
        out["slip_band_fraction"] = B.abs_slip_kpis(signals, WHEELS, radius)["slip_band_fraction"]
        out["abs_activated"] = bool(np.max(result["chassis_control.abs.active"]) > 0.5)
        return out
    driven = [i for i, w in enumerate(WHEELS) if params.get(f"vehicle.driven_{w}", FULLCAR14["driven"][i])]
    v_min = float(params.get("tcs.slip_speed_min_m_s", settings.get("slip_speed_min_m_s", 3.0)))
    slips = [B.slip_of(result[f"vehicle.wheel_{WHEELS[i]}.omega"], veh["vx"], radius[i], v_min) for i in driven]
    out = B.launch_kpis(t, veh["vx"], veh["yaw"], slips)
    out["tcs_activated"] = bool(np.max(result["chassis_control.tcs.active"]) > 0.5)
    return out


# ---------------------------------------------------------------------------------------- one run (worker side)

_FMU_COPIES: dict[tuple, Path] = {}


def _cleanup() -> None:
    for folder in _FMU_COPIES.values():
        shutil.rmtree(folder, ignore_errors=True)


atexit.register(_cleanup)


def worker_fmus(fmus: dict) -> dict:
    """This process's extracted copy of each FMU (extracted on first use, kept for the process's life)."""
    from fmpy import extract

    out = {}
    for name, path in fmus.items():
        st = os.stat(path)
        key = (str(Path(path).resolve()), st.st_mtime_ns, st.st_size)
        if key not in _FMU_COPIES:
            _FMU_COPIES[key] = Path(extract(str(path)))
        out[name] = _FMU_COPIES[key]
    return out


def _work_dir() -> Path:
    folder = Path(tempfile.gettempdir()) / f"fmu_vehicle_sweep_{os.getpid()}"
    folder.mkdir(exist_ok=True)
    return folder


def run_kpis(protocol: str, scenario, result, settings: dict, scoring: dict) -> dict:
    """The KPIs of one finished run (see KPI_COLUMNS and ``fmu_vehicle.adas.kpis``)."""
    from fmu_vehicle.scenarios.half_car import FRONT_BUMPER_FROM_COM_M, REAR_BUMPER_FROM_COM_M

    t = result.time
    if protocol in ("ccr", "acc"):
        gap = result["lead.x"] - result["vehicle.chassis.x"] - FRONT_BUMPER_FROM_COM_M
        v, vl, a = result["vehicle.chassis.vx"], result["lead.vx"], result["vehicle.chassis.ax"]
        aeb = result["controller.aeb_active"] > 0.5
        out = K.following_kpis(t, gap, v, vl, a, aeb, following_from=float(settings.get("following_from_s", 0.0)))
        if protocol == "ccr":
            # the protocol's end of test: contact, or the ego down to the target's speed
            out["test_end_reached"] = bool(out["collision"] or v[-1] <= vl[-1] + 1e-3)
            out["euroncap_score"], out["euroncap_verdict"] = K.euroncap_score(
                out["collision"], out["impact_speed_kmh"], scoring.get("bands_kmh", []))
            if not out["test_end_reached"]:
                out["euroncap_score"], out["euroncap_verdict"] = math.nan, "not ended"
            on = np.flatnonzero(aeb)
            out["aeb_onset_ttc_s"] = float(result["controller.ttc"][on[0]]) if on.size else math.nan
            out["ego_speed_at_aeb_kmh"] = float(v[on[0]] / KMH) if on.size else math.nan
            return out
        out.update(K.stop_kpis(gap, v, vl))
        window = (t >= float(settings.get("steady_from_s", math.inf))) & (v > 1.0)
        out["steady_time_gap_s"] = float(np.mean(gap[window] / v[window])) if window.any() else math.nan
        stop_t = float(settings.get("stopped_after_s", math.inf))
        after = t >= stop_t
        out["max_speed_after_stop_m_per_s"] = float(np.abs(v[after]).max()) if after.any() else math.nan
        return out
    if protocol == "platoon":
        cars = platoon_cars(scenario.system)
        gaps, heads = [], []
        for k, car in enumerate(cars, 1):
            lead_x = result["lead.x"] if k == 1 else result[f"{cars[k - 2]}.chassis.x"] - REAR_BUMPER_FROM_COM_M
            lead_v = result["lead.vx"] if k == 1 else result[f"{cars[k - 2]}.chassis.vx"]
            gap = lead_x - result[f"{car}.chassis.x"] - FRONT_BUMPER_FROM_COM_M
            v_car = result[f"{car}.chassis.vx"]
            f = K.following_kpis(t, gap, v_car, lead_v, np.gradient(v_car, t),
                                 following_from=float(settings.get("following_from_s", 0.0)))
            gaps.append(float(gap.min()))
            heads.append(f["min_time_headway_s"])
        s = K.string_stability(t, result["lead.vx"], [result[f"{c}.chassis.vx"] for c in cars],
                               t_from=float(settings.get("perturbation_from_s", 0.0)))
        half_second = K.samples(t, 0.5)       # the 0.5 s average of dv/dt, as in string_stability
        decel = max(-float(K.moving_average(np.gradient(result[f"{c}.chassis.vx"], t), half_second).min())
                    for c in cars)
        return {"collision": bool(min(gaps) <= 0.0), "min_gap_m": min(gaps), "min_time_headway_s": min(heads),
                "string_gain": s["string_gain"], "string_stable": s["string_stable"],
                "peak_accel_0_m_per_s2": s["peak_accel_0_m_per_s2"], "max_decel_m_per_s2": decel}
    if protocol == "ride":
        from fmu_vehicle.comfort.iso2631 import ride_comfort
        out = ride_comfort(t, vertical=result["vehicle.chassis.az"], longitudinal=result["vehicle.chassis.ax"],
                           skip_s=float(settings.get("skip_s", 2.0)))
        out["mean_speed_kmh"] = float(np.mean(result["vehicle.chassis.vx"]) / KMH)
        return out
    if protocol in ("sine_with_dwell", "braking", "launch"):
        return _chassis_kpis(protocol, scenario, result, settings)
    if protocol == "steering_impulse":
        return _impulse_kpis(result, settings)
    raise ModelError(f"no KPIs for protocol {protocol!r}")


def _impulse_kpis(result, settings: dict) -> dict:
    """KPIs of the steering impulse (system ``combination``): the damping of the towed unit's articulation angle
    after the pulse (``manoeuvres.articulated.yaw_damping``, logarithmic decrement of the free decay: the first
    ``manoeuvres.combination.FORCED_EXTREMA`` extrema left out, as the Python manoeuvre does; NaN with fewer than
    two more extrema), its largest magnitude [deg] and the mean forward speed of the car [km/h]."""
    from fmu_vehicle.adas.protocols import ARTICULATION_OUTPUTS, impulse_duration_s
    from fmu_vehicle.manoeuvres.articulated import yaw_damping
    from fmu_vehicle.manoeuvres.combination import FORCED_EXTREMA, PULSE_START_S
    t, theta = result.t, result[ARTICULATION_OUTPUTS[0]]
    try:
        out = yaw_damping(t, theta, t_from=PULSE_START_S + impulse_duration_s(settings.get("pulse_s")),
                          skip=FORCED_EXTREMA)
    except ModelError:
        out = {"damping_ratio": math.nan, "frequency_hz": math.nan, "log_decrement": math.nan, "n_extrema": 0}
    return {**{k: out[k] for k in ("damping_ratio", "frequency_hz", "log_decrement", "n_extrema")},
            "theta_peak_deg": float(np.degrees(np.max(np.abs(theta)))),
            "mean_speed_kmh": float(np.mean(result["vehicle.chassis.vx"]) / KMH)}


def component_parameter(system: System, name: str) -> tuple[str, str] | None:
    """``(component, variable)`` when ``name`` is 'component.variable' for a component of ``system``, else None."""
    return split_component_variable((c.name for c in system.components), name)


def scenario_of(protocol: str, system: System, params: dict):
    """The run's scenario on this process's FMU copies: a fresh copy of ``system``, set up by the protocol
    and then by the ``component.variable`` parameters; (Scenario, on_step)."""
    system = copy.deepcopy(system)
    copies = worker_fmus({c.name: c.source for c in system.components})
    for comp in system.components:
        comp.source = copies[comp.name]
    extra = {"work_dir": _work_dir()} if protocol == "ride" else {}
    scenario, on_step = PROTOCOLS[protocol](system, **params, **extra)
    for name, value in params.items():
        target = component_parameter(system, name)
        if target is not None:
            system.component(target[0]).parameters[target[1]] = value
    return scenario, on_step


def warm_up(protocol: str, system: System, params: dict) -> tuple[float, str]:
    """Prepare this worker before the timed runs: extract its FMU copies and run the first variant for ten
    master steps (imports, shared libraries and the compiled vehicle model loaded).  Returns the time [s]
    and the CPU target of the compiled code numba runs in this process ('generic': the FMUs' shipped code)."""
    from numba.core import config

    from fmu_vehicle.cosim.master import run_system

    t0 = time.perf_counter()
    try:
        scenario, _ = scenario_of(protocol, system, params)
        run_system(scenario.system, scenario.experiment(stop_time=scenario.system.step_size * 10), progress=False)
    except Exception:                 # the real run reports it
        pass
    return time.perf_counter() - t0, str(config.CPU_NAME or "native")


def run_one(protocol: str, system: System, params: dict, settings: dict, scoring: dict) -> dict:
    """Set up and run one variant on this process's FMU copies; the row's status, error and KPIs."""
    from fmu_vehicle.cosim.master import run_system

    try:
        scenario, on_step = scenario_of(protocol, system, params)
        result = run_system(scenario.system, scenario.experiment(), progress=False, on_step=on_step)
        row = run_kpis(protocol, scenario, result, {**settings, **params}, scoring)
        return {"status": "ok", "error": "", **row}
    except Exception as e:                        # recorded in the row; the sweep goes on
        return {"status": "error", "error": f"{type(e).__name__}: {' '.join(str(e).split())}"}


# ---------------------------------------------------------------------------------------- the sweep (client side)

@dataclass
class SweepResult:
    catalogue: Catalogue
    csv: Path
    plot: Path | None
    rows: list[dict]
    ran: int            # runs computed now (the others came from the journal)
    wall_s: float       # cluster start, worker warm-up and runs
    runs_s: float       # the runs alone (from the warmed-up workers' first submission to the last result)
    worker_cpu: str = ""    # CPU target of the workers' compiled code ('generic': the FMUs' shipped code)
    resubmitted: int = 0    # runs submitted again after the cluster lost their task (``RESUBMITS``)

    @property
    def failed(self) -> int:
        return sum(1 for r in self.rows if r.get("status") != "ok")


def journal_path(out: Path) -> Path:
    return out.parent / f".{out.name}.journal"


def _read_journal(path: Path, digest: str) -> dict[int, dict]:
    done: dict[int, dict] = {}
    if not path.exists():
        return done
    lines = path.read_text().splitlines()
    try:
        head = json.loads(lines[0]) if lines else {}
    except json.JSONDecodeError:
        head = {}
    if head.get("digest") != digest:
        raise ModelError(f"{path}: journal of another catalogue or variant set; delete it or choose another "
                         f"output file")
    for line in lines[1:]:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:          # a line cut by the interruption: that run is redone
            continue
        done[int(entry["index"])] = entry["row"]
    return done


def _append(path: Path, entry: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(entry, allow_nan=True) + "\n")
        f.flush()
        os.fsync(f.fileno())


def columns(cat: Catalogue) -> list[str]:
    params: list[str] = []
    for run in cat.runs():
        params += [k for k in run.parameters if k not in params]
    return ["run", "index", *params, "status", "error", *KPI_COLUMNS[cat.protocol]]


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(float(value))          # a NumPy float's repr names its type
    text = str(value)
    return f'"{text}"' if ("," in text or '"' in text) else text


def write_csv(path: Path, cols: list[str], rows: list[dict]) -> Path:
    """The results table: header ``cols``, one line per row, atomically."""
    def write(stream):
        stream.write(",".join(cols) + "\n")
        for row in rows:
            stream.write(",".join(_cell(row.get(c)) for c in cols) + "\n")

    return atomic_write(path, write)


def sweep(cat: Catalogue, out: str | os.PathLike, *, workers: int | None = None, scheduler: str | None = None,
          fmu_dir: str | os.PathLike | None = None, progress: bool = True, plot: bool = True,
          log=print) -> SweepResult:
    """Run every variant of ``cat`` on dask.distributed and write ``out`` (CSV) and ``out`` with .png."""
    from fmu_vehicle.fmi.build_cache import ensure_fmus
    from fmu_vehicle.scenarios.half_car import FMU_NAMES
    from fmu_vehicle.cosim.ssp import read_ssp

    out = Path(out)
    runs = cat.runs()
    journal = journal_path(out)
    digest = cat.digest()
    done = _read_journal(journal, digest)
    todo = [r for r in runs if r.index not in done]
    if done:
        log(f"resuming: {len(done)} of {len(runs)} runs already in {journal}")
    from fmu_vehicle.adas.systems import ssd_fmu_names
    names = ssd_fmu_names(cat.system) if cat.system.suffix == ".ssd" else FMU_NAMES
    built = ensure_fmus(names, fmu_dir, log=log)
    system = read_ssp(cat.system, fmu_dir=Path(next(iter(built.values()))).parent)
    for run in runs:
        for name in run.parameters:
            if "." in name and component_parameter(system, name) is None:
                raise ModelError(f"catalogue {cat.path}: parameter '{name}': the system {cat.system.name} has no "
                                 f"such component (components: {', '.join(c.name for c in system.components)})")
    fresh = not journal.exists()
    if fresh:
        journal.parent.mkdir(parents=True, exist_ok=True)
        _append(journal, {"catalogue": cat.name, "digest": digest})
    t0 = time.perf_counter()
    runs_s, cpus, resubmitted = 0.0, "", 0
    if todo:
        try:
            runs_s, cpus, resubmitted = _run_on_dask(cat, system, todo, journal, done, workers=workers,
                                                     scheduler=scheduler, progress=progress)
        except BaseException:
            if fresh and not done:          # nothing finished: leave no journal behind
                journal.unlink(missing_ok=True)
            raise
    wall = time.perf_counter() - t0
    rows = [{"run": r.run_id, "index": r.index, **r.parameters, **done[r.index]} for r in runs]
    csv = write_csv(out, columns(cat), rows)
    png = summary_plot(cat, rows, out.with_suffix(".png")) if plot and cat.plot else None
    journal.unlink(missing_ok=True)
    return SweepResult(cat, csv, png, rows, len(todo), wall, runs_s, cpus, resubmitted)


RETRIES = 2
"""dask's ``retries`` of every run's task: how often the scheduler runs a task again whose run raised on the
worker (``run_one`` itself records a failing run in its row, so what is left is a task that could not run:
its function or arguments not unpickled on the worker, or the worker's own error)."""

RESUBMITS = 3
"""How often a run whose task dask lost is submitted again: its future cancelled (the client's connection to
the scheduler dropped, which cancels every pending future) or its communication closed.  A task whose worker
died is rescheduled by the scheduler itself (``distributed.scheduler.allowed-failures`` times, 3 by default)
and only then reported as ``KilledWorker``: that run is recorded as failed, like any run that fails."""


def dask_faults() -> tuple[type, ...]:
    """The exceptions of dask's client calls that say the cluster lost something, not that a run failed:
    a closed comm or stream (``CommClosedError`` and tornado's ``StreamClosedError`` are OSErrors), a
    cancelled future, a timeout, a worker killed while running the task."""
    from distributed.client import ClosedClientError
    from distributed.scheduler import KilledWorker
    from distributed.utils import CancelledError
    return OSError, TimeoutError, CancelledError, KilledWorker, ClosedClientError


def dask_message(e: BaseException) -> str:
    """One line for a dask fault: 'dask: <type>: <text>' (never taken for a file-system error)."""
    text = " ".join(str(e).split())
    return f"dask: {type(e).__name__}" + (f": {text}" if text else "")


def _run_on_dask(cat: Catalogue, system: System, todo: list[Run], journal: Path, done: dict, *, workers,
                 scheduler, progress: bool) -> tuple[float, str, int]:
    """Run ``todo`` on the cluster, journal each row as it arrives; returns the time of the runs [s], the
    workers' CPU targets and how many runs were submitted again (``RESUBMITS``).  A fault of the cluster
    that the resubmissions do not overcome raises SimulationError 'dask: ...' (the finished runs stay in the
    journal)."""
    from dask.distributed import Client, LocalCluster, as_completed
    from distributed.scheduler import KilledWorker
    from tqdm import tqdm

    from fmu_vehicle.adas.dask_workers import PortableCpu

    faults = dask_faults()
    cluster = None
    environ = dict(os.environ)      # distributed sets MALLOC_TRIM_THRESHOLD_, OMP_NUM_THREADS, ... in this process
    try:
        if scheduler:
            client = Client(scheduler, timeout="20s")
        else:
            n = workers or min(os.cpu_count() or 1, len(todo))
            with _workers_ignore_ctrl_c():
                # the workers log nothing below CRITICAL: a failed run reaches the table through its future, and
                # a Ctrl-C'd cluster's workers would otherwise report their heartbeats to the closed scheduler.
                # A worker process that dies is started again by its nanny (LocalCluster's default).
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                                       silence_logs=logging.CRITICAL)
            client = Client(cluster)
    except (OSError, RuntimeError, TimeoutError, ValueError) as e:
        if cluster is not None:
            cluster.close()
        _restore_environ(environ)
        where = f"the dask scheduler at {scheduler!r}" if scheduler else "a local dask cluster"
        raise SimulationError(f"could not connect to {where}: {' '.join(str(e).split())}") from None

    def lost(e: BaseException, what: str):
        kept = f"; {len(done)} finished run(s) kept in {journal}: the same command resumes from them" if done else ""
        return SimulationError(f"{dask_message(e)} ({what}){kept}")

    def submit(run: Run):
        try:
            return client.submit(run_one, cat.protocol, system, run.parameters, cat.kpi, cat.scoring, pure=False,
                                 retries=RETRIES, key=f"{run.run_id}-{os.getpid()}-{time.time_ns()}")
        except faults as e:
            raise lost(e, f"submitting run {run.run_id}") from None

    try:
        try:
            # on every worker, a later replacement included, before it imports this module (whose imports define
            # compiled functions, which fixes numba's CPU target): the FMUs then load the kernels they ship
            # instead of compiling them in every worker
            client.register_plugin(PortableCpu())
            # a worker lost during the warm-up is no reason to stop: its replacement warms up at its first run
            warm = client.run(warm_up, cat.protocol, system, todo[0].parameters, on_error="return")
        except faults as e:
            raise lost(e, "starting the workers") from None
        t0 = time.perf_counter()
        attempts: dict[int, int] = {}
        futures = {submit(run): run for run in todo}
        pending = as_completed(futures)
        bar = tqdm(total=len(todo), desc=cat.name, unit="run", disable=not progress)
        for future in pending:
            run = futures.pop(future)
            try:
                row = future.result()
            except KilledWorker as e:            # the run's task took its worker down at every try
                row = {"status": "error", "error": dask_message(e)}
            except faults as e:
                attempts[run.index] = attempts.get(run.index, 0) + 1
                if attempts[run.index] > RESUBMITS:
                    raise lost(e, f"run {run.run_id}, submitted {RESUBMITS + 1} times") from None
                again = submit(run)
                futures[again] = run
                pending.add(again)
                continue
            except Exception as e:               # the task could not run
                row = {"status": "error", "error": f"{type(e).__name__}: {' '.join(str(e).split())}"}
            done[run.index] = row
            _append(journal, {"index": run.index, "row": row})
            bar.update(1)
        bar.close()
        cpus = ",".join(sorted({w[1] for w in warm.values() if isinstance(w, tuple)}))
        return time.perf_counter() - t0, cpus, len(attempts)
    except KeyboardInterrupt:
        # Ctrl-C: the cluster goes down with its runs cut short; what is logged about them is noise
        with _silenced(*CTRL_C_NOISE):
            client.close()
            if cluster is not None:
                cluster.close()
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
        _restore_environ(environ)


# Loggers that report a Ctrl-C'd cluster's shutdown: distributed's own, and tornado's callback errors. The
# latter logs a NameError traceback when the interrupt lands before a pending client call has started
# (distributed.utils.sync's cancel callback reads a variable not yet assigned); the cancel is queued on the
# event loop before the shutdown calls, so silencing both loggers while the cluster closes covers it.
CTRL_C_NOISE = ("distributed", "tornado.application")


class _silenced:
    """Context: the named loggers drop every record (level above CRITICAL); their levels are restored after."""

    def __init__(self, *names: str):
        self.loggers = [logging.getLogger(n) for n in names]

    def __enter__(self):
        self.levels = [lg.level for lg in self.loggers]
        for lg in self.loggers:
            lg.setLevel(logging.CRITICAL + 1)
        return self

    def __exit__(self, *exc):
        for lg, level in zip(self.loggers, self.levels):
            lg.setLevel(level)
        return False


class _workers_ignore_ctrl_c:
    """Context: SIGINT ignored while local worker processes are started, so that they inherit the ignore (a
    Python process started with SIGINT ignored keeps it so): a Ctrl-C in the terminal, which reaches every
    process of its group, interrupts only this process, which then shuts the cluster down, instead of
    every worker printing its own KeyboardInterrupt traceback. Nothing changes outside the main thread
    (where signal handlers cannot be set)."""

    def __enter__(self):
        import signal
        import threading
        self.before = None
        if threading.current_thread() is threading.main_thread():
            self.before = signal.signal(signal.SIGINT, signal.SIG_IGN)
        return self

    def __exit__(self, *exc):
        import signal
        if self.before is not None:
            signal.signal(signal.SIGINT, self.before)
        return False


def _restore_environ(environ: dict) -> None:
    """Put os.environ back as it was: the variables distributed leaves behind (e.g. MALLOC_TRIM_THRESHOLD_)
    would reach every later child process of the caller."""
    for key in set(os.environ) - set(environ):
        del os.environ[key]
    os.environ.update(environ)


# ---------------------------------------------------------------------------------------- summary plot

def _num(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def summary_plot(cat: Catalogue, rows: list[dict], path: Path) -> Path:
    """``plot.y`` (one KPI or a list) against ``plot.x``, one line per value of ``plot.series``."""
    spec = cat.plot
    ys = spec["y"] if isinstance(spec.get("y"), list) else [spec.get("y")]
    x, series = spec["x"], spec.get("series")
    fig = new_figure(7.0, 2.0 + 2.4 * len(ys))
    axes = fig.subplots(len(ys), 1, sharex=True, squeeze=False)[:, 0]
    groups: dict = {}
    for row in rows:
        groups.setdefault(row.get(series) if series else None, []).append(row)
    # a text parameter (e.g. a case name) on x: one position per value, in run order, labelled with it
    categories = list(dict.fromkeys(str(r[x]) for r in rows)) if all(
        isinstance(r[x], str) and math.isnan(_num(r[x])) for r in rows) else None

    def xs(group):
        return [categories.index(str(r[x])) if categories else _num(r[x]) for r in group]

    for ax, y in zip(axes, ys):
        for key, group in groups.items():
            ok = [r for r in group if r.get("status") == "ok"]
            label = f"{series} = {key}" if series else None
            ax.plot(xs(ok), [_num(r.get(y)) for r in ok], "o-" if categories is None else "o", label=label)
            bad = [r for r in group if r.get("status") != "ok"]
            if bad:
                ax.plot(xs(bad), [0.0] * len(bad), "rx", label="failed run")
        if categories:
            ax.set_xticks(range(len(categories)), categories)
        values = [_num(r.get(y)) for r in rows if r.get("status") == "ok"]
        finite = [v for v in values if math.isfinite(v)]
        if finite and min(finite) >= 0.0:            # non-negative KPIs from 0 (all zero: 0 to 1)
            ax.set_ylim(bottom=0.0, top=None if max(finite) > 0.0 else 1.0)
        ax.set_ylabel(spec.get("labels", {}).get(y, y))
        ax.grid(True, alpha=0.3)
        if series or any(r.get("status") != "ok" for r in rows):
            ax.legend(fontsize=7)
    axes[-1].set_xlabel(spec.get("labels", {}).get(x, x))
    fig.suptitle(textwrap.fill(f"{cat.name}: {cat.description}", 100), fontsize=9)
    return save_figure(fig, path, dpi=100)
