"""Example 2 (the ``fmu-vehicle demo`` run): adaptive cruise control in stop-and-go traffic over the bumps.

Six FMUs: LeadVehicle (pulls away, cruises at 16 m/s, brakes at 2.5 m/s^2 to a stop), Controller (full-speed-
range ACC that stops and holds behind it, with time-to-collision emergency braking, 10 ms), Powertrain (engine map, torque converter, 6-speed automatic,
open differential), two Tire FMUs and VehicleLV with external tires, all on the bumpy road, Gauss-Seidel at
1 ms (order lead, controller, powertrain, tires, vehicle; see fmu_vehicle/scenarios/half_car.py for the wiring).
Writes ``acc_stop_and_go.{ssp,csv,png}`` to ``dist/examples/`` and prints min gap, min time gap, min TTC,
peak pitch, RMS vertical acceleration and where the ego came to rest.

    python examples/acc_stop_and_go.py
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fmu_vehicle.fmi.build_cache import ensure_fmus  # noqa: E402
from fmu_vehicle.scenarios.half_car import (ACC_DURATION_S, FMU_NAMES, ScenarioRun, acc_stop_and_go,  # noqa: E402
                                         following_metrics, format_following, format_stop, run_scenario,
                                         stop_check)
from fmu_vehicle.paths import dist_dir  # noqa: E402


def main(duration: float = ACC_DURATION_S, out_dir: str | Path | None = None, fmu_dir: str | Path | None = None,
         progress: bool = True, output_interval: float = 0.01) -> ScenarioRun:
    """Run the example for ``duration`` [s], recording every ``output_interval`` [s]; FMUs from ``fmu_dir``
    (built there if needed, default dist/fmus).  Returns the run; ``run.metrics`` holds the summary."""
    fmus = ensure_fmus(FMU_NAMES, fmu_dir, log=print)
    run = run_scenario(acc_stop_and_go(fmus, duration=duration), out_dir or dist_dir() / "examples",
                       progress=progress, output_interval=output_interval)
    run.metrics = following_metrics(run.result)
    print(f"{run.scenario.title}, {duration:g} s:")
    print(format_following(run.metrics))
    print(format_stop(stop_check(run.result)))
    print(f"wrote {run.csv}, {run.plot} and {run.ssp}")
    return run


if __name__ == "__main__":
    main()
