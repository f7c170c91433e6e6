"""Example 4: a platoon of three vehicles behind a lead vehicle, each following the one ahead.

Per vehicle VehicleLV (internal tires), Powertrain and Controller (ACC + AEB); vehicle 1 follows the
LeadVehicle, vehicle k the rear bumper of vehicle k-1 (an SSP linear transformation of its chassis.x).
Stop-and-go on the bumpy road, master step 2 ms (the vehicles integrate at 1 ms inside), controllers at
10 ms.  Writes ``platoon_3.{ssp,csv,png}`` to ``dist/examples/`` and prints each vehicle's min gap and time gap.

    python examples/platoon.py
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from fmu_vehicle.fmi.build_cache import ensure_fmus  # noqa: E402
from fmu_vehicle.scenarios.half_car import ScenarioRun, platoon, run_scenario  # noqa: E402
from fmu_vehicle.paths import dist_dir  # noqa: E402


def main(duration: float = 20.0, out_dir: str | Path | None = None, fmu_dir: str | Path | None = None,
         progress: bool = True, n: int = 3) -> ScenarioRun:
    """Run the example for ``duration`` [s] with ``n`` vehicles; FMUs from ``fmu_dir`` (built if needed)."""
    fmus = ensure_fmus(["VehicleLV", "Powertrain", "Controller", "LeadVehicle"], fmu_dir, log=print)
    run = run_scenario(platoon(fmus, n=n, duration=duration), out_dir or dist_dir() / "examples", progress=progress)
    r = run.result
    print(f"{run.scenario.title}, {duration:g} s:")
    for k in range(1, n + 1):
        car = f"vehicle_{k}"
        time_gap = r[f"{car}.time_gap"]
        tg = f"{np.nanmin(time_gap):.2f} s" if np.any(np.isfinite(time_gap)) else "n/a (below 1 m/s)"
        print(f"  {car}: min gap {r[f'{car}.gap'].min():.2f} m, min time gap {tg}, "
              f"final speed {r[f'{car}.chassis.vx'][-1]:.2f} m/s")
    print(f"wrote {run.csv}, {run.plot} and {run.ssp}")
    return run


if __name__ == "__main__":
    main()
