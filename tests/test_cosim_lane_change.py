"""The ISO 3888-1 double lane change co-simulation (Vehicle.fmu + Driver.fmu, internal tires or four Tire.fmu on
Project Chrono's wheel interface), written as .ssp and run by our master and by OSP libcosim.

Acceptance: the external tires (Gauss-Seidel, 1 ms) against the internal tires at the end of the run: lateral
position within 0.05 m, yaw within 0.01 rad (the Jacobi error is reported beside it); libcosim's Jacobi run of
the same .ssp equals ours to 1e-9.
"""
from __future__ import annotations

import numpy as np
import pytest

from fmu_vehicle.cosim import read_ssp, run_system
from fmu_vehicle.scenarios.full_car import double_lane_change, lane_change_metrics
from fmu_vehicle.scenarios.half_car import run_scenario

from libcosim_runner import run_libcosim

NAMES = ("Vehicle", "Driver", "Tire")


@pytest.fixture(scope="module")
def fmus(registered_fmus):
    return {n: registered_fmus[n] for n in NAMES}


@pytest.fixture(scope="module")
def runs(fmus, tmp_path_factory):
    out = tmp_path_factory.mktemp("lane_change")
    res = {}
    for tires in ("internal", "external"):
        sc = double_lane_change(fmus, tires=tires)
        res[tires] = run_scenario(sc, out / tires, progress=False)
    sc = double_lane_change(fmus, tires="external")
    res["jacobi"] = run_system(read_ssp(res["external"].ssp), sc.experiment(read_ssp(res["external"].ssp),
                                                                            scheme="jacobi"), progress=False)
    return res


def test_external_tires_follow_the_internal_tires(runs):
    ri, re, rj = runs["internal"].result, runs["external"].result, runs["jacobi"]
    dy = abs(re.final("vehicle.chassis.y") - ri.final("vehicle.chassis.y"))
    dyaw = abs(re.final("vehicle.chassis.yaw") - ri.final("vehicle.chassis.yaw"))
    dy_j = abs(rj.final("vehicle.chassis.y") - ri.final("vehicle.chassis.y"))
    dyaw_j = abs(rj.final("vehicle.chassis.yaw") - ri.final("vehicle.chassis.yaw"))
    print(f"\nfinal |dy| Gauss-Seidel {dy:.4g} m, Jacobi {dy_j:.4g} m; |dyaw| Gauss-Seidel {dyaw:.4g} rad, "
          f"Jacobi {dyaw_j:.4g} rad")
    assert dy <= 0.05 and dyaw <= 0.01
    # the whole trajectory, not just the end point
    assert np.max(np.abs(re["vehicle.chassis.y"] - ri["vehicle.chassis.y"])) < 0.05
    assert np.isfinite(dy_j) and np.isfinite(dyaw_j)


def test_both_runs_drive_the_track(runs):
    for tires in ("internal", "external"):
        k = lane_change_metrics(runs[tires].result)
        assert k["completed"] and k["gates_passed"] == k["gates_total"], (tires, k)
        assert k["max_path_error_m"] < 0.5, (tires, k)
        assert 3.0 < k["peak_ay_m_s2"] < 9.0, (tires, k)
        y = runs[tires].result["vehicle.chassis.y"]
        assert y.max() > 3.0                      # it did change lanes (3.5 m lane offset)


def test_libcosim_runs_the_ssp_like_our_jacobi_master(runs):
    """The whole manoeuvre in libcosim (its fixed-step algorithm is Jacobi) against our Jacobi run."""
    pytest.importorskip("libcosimpy")
    ours = runs["jacobi"]
    n = len(ours.t) - 1
    signals = ("vehicle.chassis.y", "vehicle.chassis.yaw", "vehicle.wheel_FL.tire_fy", "vehicle.wheel_FR.tire_fz")
    theirs = run_libcosim(runs["external"].ssp, n, 1_000_000, signals)
    for s in signals:
        steps, values = theirs[s]
        assert steps[-1] == n
        np.testing.assert_allclose(values, ours[s][steps], rtol=1e-9, atol=1e-9 * max(1.0, np.max(np.abs(values))))
