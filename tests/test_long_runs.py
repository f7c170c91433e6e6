"""Long runs: any distance from the origin, progress in chunks, Ctrl-C keeps the rows so far,
and an FMU instantiated, run and freed many times in one process."""
import signal

import numpy as np
import pytest

from fmi_support import run_child

from fmu_vehicle.vehicle import Vehicle

pytestmark = pytest.mark.slow


def _bump_road(x0: float) -> dict:
    return {"type": "speed_bumps", "dx_m": 0.002,
            "bumps": [{"start_x_m": x0 + 30.0, "width_m": 0.5, "height_m": 0.06},
                      {"start_x_m": x0 + 110.0, "width_m": 0.5, "height_m": 0.06}]}


@pytest.mark.parametrize("vehicle", ["halfcar7", "fullcar14"])
def test_100_km_from_the_origin_the_dynamics_are_those_near_it(vehicle):
    # 5 s at 28 m/s: two bumps, and the engine's origin follows the car past 100 m (re-based once)
    car = Vehicle.load(vehicle)
    runs = {x0: car.simulate(_bump_road(x0), 5.0, v0=28.0, x0=x0, dt=1e-3) for x0 in (0.0, 1e6)}
    near, far = runs[0.0], runs[1e6]
    assert far.meta["x_origin"] > 1e6 + 100.0                            # it was re-based on the way
    assert far.t[-1] == near.t[-1] == 5.0
    assert np.max(far["constraint_residual"]) < 1e-8
    for name in ("chassis.z", "chassis.pitch"):
        assert np.max(np.abs(far[name] - near[name])) < 1e-9, name
    assert np.max(np.abs((far["chassis.x"] - 1e6) - near["chassis.x"])) < 1e-6
    assert np.ptp(near["chassis.z"]) > 5e-3                              # the bumps did excite the car


def test_position_problem_converges_far_from_the_origin_without_rebasing():
    # the engine alone (no re-basing): the Newton tolerance has a floor at the rounding of |r|
    from fmu_vehicle.multibody.constraints import solve_positions
    from fmu_vehicle.multibody.mechanism import POSITION_MAXIT, POSITION_TOL
    car = Vehicle.load("halfcar7")
    system = car.system({"type": "flat"})
    car.initial_state(system, 0.0, 0.0)
    d = system.data.mech
    d.z[car.chassis_coords[0]] += 1e6
    assert solve_positions(car.mech.model, d, POSITION_TOL, POSITION_MAXIT) >= 0
    assert d.stats[1] < 1e-8


class _InterruptAfter:
    """Wraps an OdeSystem; raises SIGINT at the third chunk boundary (as a Ctrl-C would)."""

    def __init__(self, system):
        self._system, self.calls = system, 0

    def __getattr__(self, name):
        return getattr(self._system, name)

    def rebase(self, y):
        self.calls += 1
        if self.calls == 3:
            signal.raise_signal(signal.SIGINT)
        return self._system.rebase(y)


def test_ctrl_c_stops_between_chunks_with_the_rows_so_far():
    from fmu_vehicle.integrators import RK4
    from fmu_vehicle.integrators.base import Interrupted
    car = Vehicle.load("halfcar7")
    system = car.system("flat")
    y0 = car.initial_state(system, 10.0)
    system = _InterruptAfter(system)
    before = signal.getsignal(signal.SIGINT)    # SIG_IGN in a job started in the background by a shell
    with pytest.raises(Interrupted) as info:
        RK4(chunk=100).run(system, y0, 0.0, 10.0, 1e-3)
    stop = info.value
    assert len(stop.times) == 301 and stop.times[-1] == pytest.approx(0.3)   # 3 chunks + the end state
    assert stop.outputs.shape[0] == 301 and np.all(np.isfinite(stop.outputs))
    assert signal.getsignal(signal.SIGINT) is before                          # handler restored


def test_cli_writes_the_rows_so_far_on_ctrl_c(tmp_path, monkeypatch):
    from fmu_vehicle import cli
    from fmu_vehicle.vehicle.vehicle import VehicleSystem
    calls = {"n": 0}
    original = VehicleSystem.rebase

    def rebase(self, y):
        calls["n"] += 1
        if calls["n"] == 2:
            signal.raise_signal(signal.SIGINT)
        return original(self, y)

    monkeypatch.setattr(VehicleSystem, "rebase", rebase)
    out = tmp_path / "run.csv"
    assert cli.main(["simulate", "--duration", "20", "--v0", "5", "--output", str(out), "--quiet"]) == 130
    rows = out.read_text().splitlines()
    assert len(rows) == 1 + 1001 and rows[-1].startswith("1,")                # 2 chunks of 500 steps + end


def test_vehicle_fmu_drives_from_100_km(all_fmus, tmp_path):
    from fmu_vehicle.fmi.roads import SHIPPED_ROADS
    r = run_child("""
        res = simulate_fmu(INPUTS['fmu'], stop_time=8.0, output_interval=0.01,
                           start_values={'x0': 999900.0, 'v0': 28.0, 'road': INPUTS['flat']},
                           output=['chassis.x', 'chassis.z', 'constraint_residual'])
        RESULT = {k: res[k] for k in res.dtype.names}
        """, tmp_path / "far", fmu=str(all_fmus["VehicleLV"]), flat=SHIPPED_ROADS.index("flat") + 1)
    assert r["time"][-1] == pytest.approx(8.0)
    assert r["chassis.x"][-1] > 999900.0 + 8 * 27.0                     # re-based twice on the way
    assert np.max(r["constraint_residual"]) < 1e-8 and np.all(np.isfinite(r["chassis.z"]))


def test_200_instantiate_run_free_cycles_do_not_grow_memory(all_fmus, tmp_path):
    r = run_child("""
        import gc
        def rss_mb():
            with open('/proc/self/statm') as f:
                return int(f.read().split()[1]) * 4096 / 2**20
        fmu = Fmu(INPUTS['fmu'])
        def cycle(i):
            f = fmu.new(f'cycle{i}')
            for k in range(10):
                f.doStep(k * 1e-3, 1e-3)
            f.getReal([fmu.vr['engine.speed']])
            f.terminate()
            f.freeInstance()
        for i in range(20):
            cycle(i)
        gc.collect()
        before = rss_mb()
        for i in range(200):
            cycle(i)
        gc.collect()
        RESULT = {'growth_mb': rss_mb() - before}
        """, tmp_path / "cycles", fmu=str(all_fmus["Powertrain"]))
    assert r["growth_mb"] < 5.0, r


def test_a_vehicle_starts_afresh_after_a_run_that_diverged():
    """RK4 at 50 ms blows up on the bumpy road (the position problem stops converging at 0.3 s) and leaves
    the shared mechanism workspace at a configuration assembly cannot start from; a normal run leaves the
    wheels turned and may leave another partition. The next initial_state on the same vehicle is the first
    one, bit for bit, and a run from it is a fresh vehicle's run."""
    from fmu_vehicle.errors import SimulationError
    from fmu_vehicle.integrators import integrate
    car = Vehicle.load("halfcar7")
    system = car.system("bumpy")
    y0 = car.initial_state(system, 20.0)
    with pytest.raises(SimulationError, match="position problem"):
        integrate(system, y0, 2.0, 50e-3)
    assert np.array_equal(car.initial_state(system, 20.0), y0)
    _, _, y_end = integrate(system, car.initial_state(system, 20.0), 0.3, 1e-3)
    assert np.array_equal(car.initial_state(system, 20.0), y0)
    fresh = Vehicle.load("halfcar7")
    fresh_system = fresh.system("bumpy")
    _, _, fresh_end = integrate(fresh_system, fresh.initial_state(fresh_system, 20.0), 0.3, 1e-3)
    assert np.array_equal(y_end, fresh_end) and abs(y_end[0] - 6.0) < 0.1     # 20 m/s for 0.3 s


def test_ctrl_c_on_demo_leaves_nothing_in_its_folder(scenario_fmus, tmp_path, monkeypatch, capsys):
    """Ctrl-C once the demo's SSP is written and read back (before the co-simulation): exit 130, one line,
    and the output folder is as it was (the .ssp was left behind)."""
    from fmu_vehicle import cli
    from fmu_vehicle.fmi import build_cache
    from fmu_vehicle.scenarios import half_car as scenarios
    from pathlib import Path

    monkeypatch.setattr(build_cache, "default_fmu_dir", lambda: Path(scenario_fmus["VehicleLV"]).parent)
    original = scenarios.read_ssp

    def read_then_ctrl_c(*args, **kwargs):
        system = original(*args, **kwargs)
        signal.raise_signal(signal.SIGINT)
        return system

    monkeypatch.setattr(scenarios, "read_ssp", read_then_ctrl_c)
    out = tmp_path / "demo"
    out.mkdir()
    (out / "notes.txt").write_text("kept")
    before = signal.signal(signal.SIGINT, signal.default_int_handler)    # SIG_IGN in a background job
    try:
        assert cli.main(["demo", "--out", str(out), "-q"]) == 130
    finally:
        signal.signal(signal.SIGINT, before)
    assert capsys.readouterr().err.splitlines() == ["fmu-vehicle: interrupted"]
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
