"""``unit_masses``: the masses of one unit of a vehicle combination and where they sit (no tests here), for the
tests of the combinations' mass bookkeeping (test_vehicle_combination.py, test_tractor_semitrailer.py)."""
import numpy as np


def unit_masses(mech_model, data, members):
    """(masses [kg], horizontal x of their centres [m]) of the bodies flagged in ``members`` and the removed rods
    with both ends among them (each rod's weight at its ends: ``rod_w`` [kg], the rod's mass split between
    them), at the workspace's state (``data`` None: the design configuration, every body frame the global one)."""
    if data is None:
        n = mech_model.n
        data = type("Design", (), {"g": mech_model.com0, "o": np.zeros((n, 3)), "A": np.tile(np.eye(3), (n, 1, 1))})
    ms, xs = [], []
    for i in np.flatnonzero(members):
        if mech_model.mass[i] > 0.0:
            ms.append(mech_model.mass[i])
            xs.append(data.g[i, 0])
    for k in range(mech_model.nrod):
        a, b = mech_model.rod_a[k], mech_model.rod_b[k]
        if members[a] and members[b]:
            for end, body, p in ((0, a, mech_model.rod_pa[k]), (1, b, mech_model.rod_pb[k])):
                ms.append(mech_model.rod_w[k, end])
                xs.append((data.o[body] + data.A[body] @ p)[0])
    return np.array(ms), np.array(xs)
