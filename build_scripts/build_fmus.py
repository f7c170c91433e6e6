"""Build the registered FMUs: ``python build_scripts/build_fmus.py [--out dist/fmus] [names...]``.

Prints one line per FMU; on error prints one line and exits with code 2 (FMUs are written
atomically, so the output folder never holds a half-written file).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fmu_vehicle.errors import FmuVehicleError  # noqa: E402
from fmu_vehicle.fmi.build import build_fmu  # noqa: E402
from fmu_vehicle.fmi.registry import FMUS, slave_script  # noqa: E402
from fmu_vehicle.paths import dist_dir  # noqa: E402

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=dist_dir() / "fmus", help="output folder (default: dist/fmus)")
    parser.add_argument("names", nargs="*", help=f"FMUs to build (default: all of {', '.join(FMUS)})")
    args = parser.parse_args(argv)
    try:
        for name in args.names or list(FMUS):
            path = build_fmu(slave_script(name), args.out)
            print(f"{name}: {path} ({path.stat().st_size // 1024} kB)")
    except FmuVehicleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
