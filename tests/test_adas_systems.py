"""The catalogue systems (the shipped SSP files with the real FMUs, set up by their protocols): the ISO 15622
stop-and-go case (stop behind the stopped lead, hold, restart when it pulls away) and the Euro NCAP CCR set-up
(start at TTC 4 s, speed held, AEB only)."""
from __future__ import annotations

import numpy as np
import pytest

from pathlib import Path

from fmu_vehicle.adas.protocols import KMH, acc, ccr
from fmu_vehicle.cosim.master import run_system
from fmu_vehicle.scenarios.half_car import FRONT_BUMPER_FROM_COM_M
from fmu_vehicle.cosim.ssp import read_ssp
from fmu_vehicle.paths import resource_path


STOP_AND_GO = "0:0,1:0,7:12,10:12,14.8:0,25:0,31:12,45:12"
"""The lead: 2 m/s^2 to 12 m/s, 3 s cruise, 2.5 m/s^2 to a stop at 14.8 s, 10.2 s standing, 2 m/s^2 back to
12 m/s at 31 s (the iso15622-acc catalogue's stop_and_go case)."""


def shipped_system(stem: str, fmus: dict):
    """resources/scenarios/<stem>.ssd with its FMUs from the folder of ``fmus``."""
    return read_ssp(resource_path("scenarios", f"{stem}.ssd"), fmu_dir=Path(fmus["VehicleLV"]).parent)


@pytest.fixture(scope="module")
def stop_and_go(scenario_fmus):
    scenario, _ = acc(shipped_system("acc", scenario_fmus), lead_profile=STOP_AND_GO, time_gap_s=1.8,
                      duration_s=38.0)
    return run_system(scenario.system, scenario.experiment(), progress=False)


def test_stops_holds_and_restarts(stop_and_go):
    """The ego comes to rest about 5 s after the lead (it had dropped back while the lead braked, and its
    stopping law closes the remaining gap at up to 1 m/s^2 towards the 5 m standstill distance, within 1 m
    of which it stops), stays held (< 0.2 m/s) while the lead stands, leaves only after the lead pulls away
    at 25 s, and follows it back towards 12 m/s; ACC alone (no AEB), never closer than 2 m."""
    r = stop_and_go
    t, v, held = r.time, r["vehicle.chassis.vx"], r["controller.held"] > 0.5
    gap = r["lead.x"] - r["vehicle.chassis.x"] - FRONT_BUMPER_FROM_COM_M
    stop = int(np.argmax(held))
    assert held.any() and 14.8 < t[stop] < 24.0
    assert gap[stop] == pytest.approx(5.0, abs=1.0)
    standing = (t > t[stop]) & (t < 25.0)
    assert held[standing].all() and np.abs(v[standing]).max() < 0.2
    release = int(np.argmax(~held & (t > t[stop])))
    assert 25.0 < t[release] < 27.0                     # the lead moves off at 25 s
    # the lead is back at 12 m/s from 31 s; 7 s later the ego is within 1 m/s of it and still closing up
    # (the gap loop's time constant, (k_gap tau + k_speed) / k_gap = 5.4 s at the default gains)
    assert 11.0 < v[-1] < 12.2 and v[-1] > v[t > 36.0][0]
    assert not (r["controller.aeb_active"] > 0.5).any() and gap.min() > 2.0


def test_acc_stage_respects_iso15622_limits(stop_and_go):
    """The commanded acceleration never goes below -3.5 m/s^2, and it changes per 10 ms sample by no more
    than the jerk limit at the speed the controller saw (5 m/s^3 below 5 m/s, at most that above)."""
    r = stop_and_go
    a = r["controller.accel_command"]
    assert a.min() >= -3.5 - 1e-12
    assert np.abs(np.diff(a)).max() <= 5.0 * 0.01 * (1 + 1e-9)


def test_ccr_starts_at_ttc_4s_and_only_the_aeb_brakes(scenario_fmus):
    """CCRm at 60 km/h behind a 20 km/h target: the gap at t = 0 is 4 s x 40 km/h = 44.4 m; the speed stays
    within 1 km/h of 60 km/h until the AEB engages (the driver's drive torque against the coast-down), the
    controller does not brake before; the AEB brakes without release until the ego is down to the target's
    speed (mode "aeb"), where the run ends (the protocol's end of test, before stop_time), without contact."""
    scenario, on_step = ccr(shipped_system("ccr", scenario_fmus), v_vut_kmh=60.0, v_target_kmh=20.0)
    r = run_system(scenario.system, scenario.experiment(), progress=False, on_step=on_step)
    gap = r["lead.x"] - r["vehicle.chassis.x"] - FRONT_BUMPER_FROM_COM_M
    assert gap[0] == pytest.approx(4.0 * 40.0 * KMH, abs=1e-9)
    aeb = r["controller.aeb_active"] > 0.5
    first = int(np.argmax(aeb))
    assert aeb.any() and r["controller.brake"][:first].max() == 0.0
    assert np.abs(r["vehicle.chassis.vx"][:first] / KMH - 60.0).max() < 1.0
    assert aeb[first:-1].all()
    assert r["vehicle.chassis.vx"][-1] <= r["lead.vx"][-1] + 1e-3 and gap.min() > 0.0
    assert r.time[-1] < scenario.system.stop_time
