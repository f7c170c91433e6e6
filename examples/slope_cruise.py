"""Example 3: cruise control up the paper's 16.5 deg slope (Dai et al. 2022 §4.2), a hill start.

Controller (cruise mode, 15 m/s, 1 m/s^2), Powertrain and VehicleLV (internal tires) on the slope, Gauss-Seidel
at 1 ms.  From rest the car rolls back until the torque converter's torque builds up, then climbs; at 15 m/s
the 29 % grade takes nearly full throttle.  Writes ``slope_cruise.{ssp,csv,png}`` to ``dist/examples/``.

    python examples/slope_cruise.py
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from fmu_vehicle.fmi.build_cache import ensure_fmus  # noqa: E402
from fmu_vehicle.scenarios.half_car import ScenarioRun, run_scenario, slope_cruise  # noqa: E402
from fmu_vehicle.paths import dist_dir  # noqa: E402


def main(duration: float = 30.0, out_dir: str | Path | None = None, fmu_dir: str | Path | None = None,
         progress: bool = True) -> ScenarioRun:
    """Run the example for ``duration`` [s]; FMUs from ``fmu_dir`` (built there if needed, default dist/fmus)."""
    fmus = ensure_fmus(["VehicleLV", "Powertrain", "Controller"], fmu_dir, log=print)
    run = run_scenario(slope_cruise(fmus, duration=duration), out_dir or dist_dir() / "examples", progress=progress)
    r = run.result
    x, vx = r["vehicle.chassis.x"] - r["vehicle.chassis.x"][0], r["vehicle.chassis.vx"]     # x from the start
    print(f"{run.scenario.title}, {duration:g} s: roll-back {max(0.0, -x.min()):.2f} m, "
          f"speed {vx[-1]:.2f} m/s, distance {x[-1]:.1f} m, gear {r['powertrain.transmission.gear'][-1]}, "
          f"max front slip {np.abs(r['vehicle.wheel_front.slip']).max():.3f}")
    print(f"wrote {run.csv}, {run.plot} and {run.ssp}")
    return run


if __name__ == "__main__":
    main()
