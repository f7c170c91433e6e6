"""The compiled coordinate partition (fmu_vehicle.multibody.partition) against LAPACK: Jacobi singular values
equal numpy's SVD, and the choice (pivoted QR, the preferred coordinates kept within a condition-number factor,
driven coordinates left out, redundant or locked closure equations refused) equals the one made with
SciPy's pivoted QR (LAPACK dgeqp3) and numpy's condition numbers, on random matrices built to hit every branch."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.linalg

import fmu_vehicle
from fmu_vehicle.errors import ModelError
from fmu_vehicle.multibody import Mechanism, choose_partition
from fmu_vehicle.multibody.partition import PREFERRED_COND_FACTOR, singular_values


def lapack_partition(phiz, preferred=None, driven=()):
    """The partition rule of docs/formulation.md §8 written with LAPACK (the independent reference)."""
    m, n = phiz.shape
    free = [j for j in range(n) if j not in set(driven)]
    sub = phiz[:, free]
    sv = np.linalg.svd(sub, compute_uv=False) if sub.size else np.zeros(1)
    rank = int(np.sum(sv > 1e-9 * max(sv[0], 1e-300)))
    if rank < m:
        sv_all = np.linalg.svd(phiz, compute_uv=False)
        if driven and int(np.sum(sv_all > 1e-9 * max(sv_all[0], 1e-300))) == m:
            raise ModelError("locked")
        raise ModelError(f"redundant (rank {rank})")
    order = [free[p] for p in scipy.linalg.qr(sub, pivoting=True, mode="economic")[2][:m]]
    pref = [j for j in preferred or () if j in free]
    if pref:
        cand = [j for j in free if j not in pref]
        if len(cand) >= m:
            dep = [cand[p] for p in scipy.linalg.qr(phiz[:, cand], pivoting=True, mode="economic")[2][:m]]
            if np.linalg.cond(phiz[:, dep]) <= PREFERRED_COND_FACTOR * np.linalg.cond(phiz[:, order]):
                order = dep
    return np.array(sorted(set(free) - set(order)), dtype=np.int64)


def outcome(fn, *args):
    try:
        return fn(*args)
    except ModelError as e:
        return "locked" if "lock" in str(e) else "redundant"


def test_jacobi_singular_values_equal_lapacks():
    rng = np.random.default_rng(7)
    for rows, cols in ((5, 5), (9, 4), (3, 6), (18, 18)):
        a = rng.standard_normal((rows, cols)) * np.logspace(0, -8, cols)      # graded: kappa about 1e8
        b = np.zeros((max(rows, cols), cols))
        b[:rows] = a
        sv = np.zeros(cols)
        singular_values(b, rows, cols, sv)
        want = np.linalg.svd(a, compute_uv=False)
        got = np.sort(sv)[::-1][:want.size]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14 * want[0])


def test_the_partition_equals_the_lapack_rule_on_random_jacobians():
    rng = np.random.default_rng(3)
    kinds = {"ok": 0, "preferred kept": 0, "preferred dropped": 0, "redundant": 0, "locked": 0}
    for trial in range(1500):
        m = int(rng.integers(1, 7))
        n = m + int(rng.integers(1, 6))
        phiz = rng.standard_normal((m, n))
        if trial % 4 == 0 and m > 1:
            phiz[1] = 2.0 * phiz[0]                                          # redundant closure equations
        driven = [int(rng.integers(0, n))] if trial % 3 == 0 and n - m > 1 else []
        if driven and trial % 2 == 0 and m > 1:                              # the free columns span m - 1
            rest = [j for j in range(n) if j != driven[0]]                   # dimensions: the driven one locks
            phiz[:, rest] = rng.standard_normal((m, m - 1)) @ rng.standard_normal((m - 1, len(rest)))
        free = [j for j in range(n) if j not in driven]
        preferred = None
        if trial % 2:
            preferred = [int(j) for j in rng.choice(free, size=len(free) - m, replace=False)]
            if trial % 5 == 1:
                phiz[:, [j for j in free if j not in preferred][0]] *= 1e-6    # the preferred block ill-conditioned
        want = outcome(lapack_partition, phiz, preferred, driven)
        got = outcome(choose_partition, phiz, preferred, driven)
        if isinstance(want, str) or isinstance(got, str):
            assert got == want, (trial, got, want)
            kinds[want] += 1
            continue
        assert np.array_equal(got, want), (trial, got, want)
        if preferred is None:
            kinds["ok"] += 1
        else:
            kinds["preferred kept" if set(preferred) <= set(got.tolist()) else "preferred dropped"] += 1
    assert min(kinds.values()) >= 20, kinds                                  # every branch taken many times


def test_the_shipped_mechanisms_and_cars_keep_their_design_partitions():
    from fmu_vehicle.vehicle import Vehicle
    folder = Path(fmu_vehicle.__file__).parent / "resources" / "mechanisms"
    mechs = {p.name: Mechanism.from_file(p) for p in sorted(folder.glob("*.json"))}
    mechs.update({name: Vehicle.load(name).mech for name in ("halfcar7", "fullcar14")})
    assert len(mechs) >= 8
    for path, mech in mechs.items():
        want = lapack_partition(mech.data.phiz, mech.preferred, mech.model.drv.tolist())
        assert np.array_equal(mech.independent_names, [mech.coordinate_names[j] for j in want]), path


def test_choose_partition_names_redundant_closures():
    phiz = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0]])
    with pytest.raises(ModelError, match=r"the 2 loop-closure equations are redundant \(rank 1\)"):
        choose_partition(phiz)
