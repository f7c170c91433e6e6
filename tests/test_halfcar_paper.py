"""The 7-DOF half car against the paper's Tables 2 and 4 (Dai, Pan et al. 2022, Real-Time Modeling of
Vehicle's Longitudinal-Vertical Dynamics in ADAS Applications), equilibrium, frequencies."""
import math

import numpy as np
import pytest

from fmu_vehicle.tools.paper import MANEUVERS, VARIANTS, paper_final_state, run_maneuver
from fmu_vehicle.tire.tir import P_KZ
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.dynamics import vehicle_rhs
from paper_bands import outside_bands


@pytest.fixture(scope="module")
def cars():
    return {v: Vehicle.load(v) for v in VARIANTS}


README_ROWS = {"bumpy_road": "bumpy road", "sloping_road": "16.5° slope"}
"""The first words of each manoeuvre's rows in the README's table "Reproducing the paper"."""
README_COLUMNS = ("x_m", "vx_m_per_s", "z_m", "pitch_rad")
README_VARIANTS = ("halfcar7", "halfcar7_forkarm")
"""The variants of that table (those `fmu-vehicle reproduce-paper` prints)."""


def readme_final_state(maneuver: str, variant: str) -> dict[str, str]:
    """Our final state as the README's table "Reproducing the paper" prints it: quantity -> the number before
    the paper's value in parentheses, as written."""
    from fmu_vehicle.paths import REPO_DIR
    section = (REPO_DIR / "README.md").read_text(encoding="utf-8").split("## Reproducing the paper")[1]
    for line in section.split("\n## ")[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith(README_ROWS[maneuver]) and cells[1] == variant:
            return {q: cell.split("(")[0].strip() for q, cell in zip(README_COLUMNS, cells[2:])}
    raise AssertionError(f"README: no row for {maneuver} / {variant} in 'Reproducing the paper'")


@pytest.mark.parametrize("maneuver", list(MANEUVERS))
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_final_state_matches_paper(cars, variant, maneuver):
    """Within the bands of the paper's tables, and the README's table shows these numbers (to its digits)."""
    res, axes = run_maneuver(cars[variant], MANEUVERS[maneuver])
    bad = outside_bands(axes, paper_final_state(maneuver, VARIANTS[variant]), maneuver, MANEUVERS[maneuver].v0)
    assert not bad, bad
    if variant not in README_VARIANTS:
        return
    for q, written in readme_final_state(maneuver, variant).items():
        digits = len(written.split(".")[1]) if "." in written else 0
        assert abs(float(axes[q][-1]) - float(written)) <= 0.5 * 10.0 ** -digits + 1e-9, (q, axes[q][-1], written)


def test_static_equilibrium_flat_road(cars):
    """No torque on a flat road: the car stays at rest (< 1e-6 m/s after 3 s), loads sum to the weight."""
    car = cars["halfcar7"]
    res = car.simulate("flat", 3.0, v0=0.0)
    for name in ("chassis.vx", "chassis.vz"):
        assert abs(res.final(name)) < 1e-6, name
    assert abs(res.final("chassis.pitch_rate")) < 1e-6
    weight = car.total_mass_kg * 9.81
    loads = res.final("wheel_front.tire_fz") + res.final("wheel_rear.tire_fz")
    assert loads == pytest.approx(weight, rel=1e-3)
    # lever rule about the CoM: (m_chassis b / L + m_front parts) / M = (1127 x 2.158 / 4.158 + 59) / 1243
    # = 0.518 on the front axle (design positions; the rest pitch moves it by < 1e-3)
    assert res.final("wheel_front.tire_fz") / weight == pytest.approx(0.518, abs=1e-3)


def _spring_motion_ratio(car, corner, eps=1e-5):
    """d(spring compression)/d(wheel centre height in the chassis frame) from the model's kinematics."""
    system = car.system("flat")
    y = car.initial_state(system)
    m = system.mech
    w = car.wheel_index(corner)
    k = list(m.data.indep).index(m.coordinate(car.spec.wheels[w].travel_coordinate))
    ydot = np.zeros_like(y)
    vals = []
    for s in (-1, 1):
        yy = y.copy()
        yy[k] += s * eps
        vehicle_rhs(0.0, yy, system.model, system.data, ydot)
        L = m.data.sd_len[car.w_spring[w]]
        A, o = m.data.A[car.chassis], m.data.o[car.chassis]
        c = m.data.o[car.w_body[w]] + m.data.A[car.w_body[w]] @ car.w_center0[w]
        vals.append((L, (A.T @ (c - o))[2]))
    (L1, z1), (L2, z2) = vals
    return -(L2 - L1) / (z2 - z1)


def test_bounce_and_pitch_frequencies(cars):
    """Small free oscillations (dampers off): the model's two lowest vertical modes within 5 % of the
    classical 2-DOF bounce/pitch estimate from the same parameters (spring rate x motion ratio^2 in
    series with the tire, chassis mass and pitch inertia, CoM position)."""
    car = Vehicle.load("halfcar7", overrides={
        "corners.front.suspension_overrides.damper.damping_N_s_per_m": 0.0,
        "corners.rear.suspension_overrides.damper.damping_N_s_per_m": 0.0})
    car.tire_p[:, P_KZ] = 0.0
    system = car.system("flat")
    y = car.initial_state(system)
    m = system.mech
    ni = m.n_dof
    names = ["chassis.z", "chassis.pitch", "front.travel", "rear.travel"]
    idx = [list(m.data.indep).index(m.coordinate(n)) for n in names]
    ydot = np.zeros_like(y)
    J = np.zeros((4, 4))
    h = 1e-6
    for j, kj in enumerate(idx):
        cols = []
        for s in (-1, 1):
            yy = y.copy()
            yy[kj] += s * h
            vehicle_rhs(0.0, yy, system.model, system.data, ydot)
            cols.append(ydot[[ni + k for k in idx]].copy())
        J[:, j] = (cols[1] - cols[0]) / (2 * h)
    w2, vec = np.linalg.eig(-J)
    order = np.argsort(w2.real)
    f_model = np.sqrt(w2.real[order[:2]]) / (2 * math.pi)
    modes = vec[:, order[:2]].real
    # linear estimate
    spec = car.spec
    chassis = next(b for b in spec.mechanism.bodies if b.name == "chassis")
    kt = car.tire_p[:, 2]
    k_eff = []
    for w, corner in enumerate(("front", "rear")):
        data = spec.data["corners"][w]
        import json
        from fmu_vehicle.paths import resource_path
        ks = json.loads(resource_path("vehicles", "suspensions", data["suspension"]).read_text())["spring"]["stiffness_N_per_m"]
        wheel_rate = ks * _spring_motion_ratio(car, corner) ** 2
        k_eff.append(1.0 / (1.0 / wheel_rate + 1.0 / kt[w]))
    kf, kr = k_eff
    a = chassis.com_m[0] - car.w_center0[0, 0]   # < 0: CoM behind the front axle
    b = chassis.com_m[0] - car.w_center0[1, 0]   # > 0
    K = np.array([[kf + kr, kf * a + kr * b], [kf * a + kr * b, kf * a * a + kr * b * b]])
    M = np.diag([chassis.mass_kg, chassis.inertia_kg_m2[1, 1]])
    f_est = np.sort(np.sqrt(np.linalg.eigvals(np.linalg.solve(M, K)).real)) / (2 * math.pi)
    assert 0.5 < f_est[0] < 3.0 and 0.5 < f_est[1] < 3.0      # sprung-mass modes of a car, 1-2 Hz
    assert f_model == pytest.approx(f_est, rel=0.05)
    # the two modes are the chassis modes (not wheel hop): chassis z or pitch dominates each
    for k in range(2):
        v = modes[:, k] / np.abs(modes[:, k]).max()
        assert max(abs(v[0]), abs(v[1]) * 2.0) > 0.5


@pytest.mark.slow
def test_rk4_agrees_with_adaptive_reference(cars):
    """RK4 vs DOP853 (rtol 1e-9) on the bumpy road over 5 s: at 1 ms 1 cm in x and 1e-4 rad in pitch, at
    0.25 ms 1 mm in x. The arc bumps' slope jumps at their edges make a fixed-step method first order in
    x over each edge (the 1 ms error, a few mm, changes sign and size with small changes of the suspension
    geometry); the finer step shows that RK4 converges to the reference's answer."""
    car = cars["halfcar7"]
    man = MANEUVERS["bumpy_road"]
    r1, _ = run_maneuver(car, man)
    r2, _ = run_maneuver(car, man, integrator="reference")
    r4, _ = run_maneuver(car, man, dt=2.5e-4)
    assert abs(r1.final("chassis.x") - r2.final("chassis.x")) < 1e-2
    assert abs(r4.final("chassis.x") - r2.final("chassis.x")) < 1e-3
    assert abs(r1.final("chassis.pitch") - r2.final("chassis.pitch")) < 1e-4
