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


def test_shipped_kernels_are_adopted_and_an_unreadable_compression_is_skipped(tmp_path, monkeypatch):
    """An FMU's kernel archive (LZMA members, fmi.build.KERNEL_COMPRESSION) is copied into the cache folder
    as it is; where this Python cannot decompress it (built without lzma: zipfile raises RuntimeError),
    nothing is copied and nothing is raised: the kernels are compiled at their first use instead."""
    import zipfile

    from fmu_vehicle.numerics import cache
    from fmu_vehicle.fmi.build import KERNEL_COMPRESSION
    shipped = tmp_path / "numba_cache"
    shipped.mkdir()
    members = {"fmu_vehicle/a.nbi": b"index" * 100, "fmu_vehicle/a.1.nbc": bytes(range(256)) * 40}
    with zipfile.ZipFile(shipped / cache.SHIPPED_KERNELS, "w", compression=KERNEL_COMPRESSION) as z:
        for name, data in members.items():
            z.writestr(name, data)
    cache._adopt_shipped_cache(shipped, tmp_path / "cache")
    assert {p.relative_to(tmp_path / "cache").as_posix(): p.read_bytes()
            for p in (tmp_path / "cache").rglob("*") if p.is_file()} == members

    def no_lzma(self, name, pwd=None):
        raise RuntimeError("Compression requires the (missing) lzma module")
    monkeypatch.setattr(zipfile.ZipFile, "read", no_lzma)
    cache._adopt_shipped_cache(shipped, tmp_path / "other")
    assert not (tmp_path / "other").exists() or not any((tmp_path / "other").rglob("*.nb*"))
