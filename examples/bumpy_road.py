"""Example 1: the vehicle FMU alone on the paper's bumpy road (Dai et al. 2022 §4.1).

VehicleLV.fmu with its internal Magic Formula tires: 20 m/s, a constant 300 N m on the front wheel (the
start value of the input ``wheel_front.torque_drive``), five 60 mm arc bumps, 5 s at a 1 ms step.  Writes
``bumpy_road_internal_tires.{ssp,csv,png}`` to ``dist/examples/`` and prints the final chassis state.

    python examples/bumpy_road.py
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fmu_vehicle.fmi.build_cache import ensure_fmus  # noqa: E402
from fmu_vehicle.scenarios.half_car import ScenarioRun, bumpy_road, run_scenario  # noqa: E402
from fmu_vehicle.paths import dist_dir  # noqa: E402


def main(duration: float = 5.0, out_dir: str | Path | None = None, fmu_dir: str | Path | None = None,
         progress: bool = True) -> ScenarioRun:
    """Run the example for ``duration`` [s]; FMUs from ``fmu_dir`` (built there if needed, default dist/fmus)."""
    fmus = ensure_fmus(["VehicleLV"], fmu_dir, log=print)
    run = run_scenario(bumpy_road(fmus, duration=duration), out_dir or dist_dir() / "examples", progress=progress)
    r = run.result
    final = {name: r[f"vehicle.chassis.{name}"][-1] for name in ("x", "vx", "z", "pitch")}
    print(f"{run.scenario.title}, {duration:g} s: x {final['x']:.3f} m, vx {final['vx']:.3f} m/s, "
          f"z {final['z']:.4f} m, pitch {final['pitch']:.4f} rad")
    print(f"wrote {run.csv}, {run.plot} and {run.ssp}")
    return run


if __name__ == "__main__":
    main()
