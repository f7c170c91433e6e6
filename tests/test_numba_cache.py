"""The numba cache folder (fmu_vehicle/__init__.py): keyed by the package sources, old ones pruned."""
import os
import subprocess
import sys
import time
from pathlib import Path
from timeouts import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[1]


def test_cache_folder_per_source_and_pruning_of_idle_ones(tmp_path):
    root = tmp_path / "fmu_vehicle"
    ages_h = {"numba-recent": 1, "numba-2days": 48, "numba-3days": 72, "numba-5days": 120}
    for name, hours in ages_h.items():
        (root / name / "sub").mkdir(parents=True)
        (root / name / "sub" / "x.nbi").write_bytes(b"index")
        t = time.time() - hours * 3600.0
        os.utime(root / name, (t, t))
    (root / "fmus").mkdir()
    os.utime(root / "fmus", (0.0, 0.0))
    env = {k: v for k, v in os.environ.items() if k != "FMU_VEHICLE_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", "import fmu_vehicle; print(fmu_vehicle.CACHE_DIR)"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=HANG_GUARD_S, check=True)
    current = Path(out.stdout.strip())
    assert current.parent == root and current.name.startswith("numba-") and current.is_dir()
    assert time.time() - current.stat().st_mtime < 60.0
    # kept: the current one, the two most recently used others, and anything that is not a numba cache;
    # deleted: the older ones idle for more than a day
    assert sorted(p.name for p in root.iterdir()) == sorted(["fmus", current.name, "numba-recent", "numba-2days"])
    # an explicit FMU_VEHICLE_CACHE_DIR is used as is and nothing is pruned
    env["FMU_VEHICLE_CACHE_DIR"] = str(tmp_path / "mine")
    out = subprocess.run([sys.executable, "-c", "import fmu_vehicle; print(fmu_vehicle.CACHE_DIR)"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=HANG_GUARD_S, check=True)
    assert out.stdout.strip() == str(tmp_path / "mine")
    assert (root / "numba-2days").is_dir()
