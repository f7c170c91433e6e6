"""The second car, ``midsize14`` (resources/vehicles/README.md, "The mid-size car"): a 1.55 t passenger car of
the same model kind as ``fullcar14``. It passes the generic checks of the shipped vehicles (lever-rule axle
loads, the reference's accelerations with every stop engaged, the drawing's dimensions), understeers by the
ISO 4138 constant-radius run within the 1.5-3 deg/g of a typical passenger car and rolls by 4-6 deg/g (its
anti-roll bars; the closed-form roll model agrees), and its brake file locks the
front and rear wheels at about the same pressure at 1 g.

The checks reuse the helpers of the generic tests (test_vehicle_closed_form, test_vehicle_reference,
test_vehicle_drawing); their numbers here are this car's.
"""
from __future__ import annotations

import numpy as np
import pytest

from fmu_vehicle.control.closed_loop import OpenLoopDriver, run
from fmu_vehicle.control.hydraulics import PA_PER_BAR, load_brake_system
from fmu_vehicle.manoeuvres.runs import constant_radius
from fmu_vehicle.manoeuvres.single_track import G as G_STANDARD
from fmu_vehicle.manoeuvres.steady_state import LINEAR_AY_MAX_M_S2, LINEAR_AY_MIN_M_S2, ConstantRadiusRun
from fmu_vehicle.manoeuvres.vehicle_model import roll_model_of, single_track_of
from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire.contact import OUT_FZ
from fmu_vehicle.tire.tir import P_CZ, P_R0
from fmu_vehicle.vehicle import Vehicle, vehicle_names
from fmu_vehicle.vehicle.drawing import draw_vehicle
from fmu_vehicle.vehicle.dynamics import vehicle_rhs
from reference.closed_form import G, mass_points
from vehicle_files import PNG_MAGIC, file_dimensions
from reference.vehicle_checks import check_vehicle, stop_coverage

NAME = "midsize14"


@pytest.fixture(scope="module")
def car():
    return Vehicle.load(NAME)


def at_rest(car, settle_s=3.0):
    """(tire loads Fz per wheel [N], whole-vehicle centre of mass [m], wheel-centre x per wheel [m]) at rest
    on the flat road: ``settle_s`` [s] from the start state at v0 = 0, so that the tires' transient slips have
    cancelled the longitudinal offset of the Pacejka (2006) tire (PHX1, PHX2: about -170 N at zero slip, which
    the start state leaves in), then checked to be at rest."""
    sim = car.simulator("flat", v0=0.0)
    sim.advance(settle_s)
    system = sim.system
    ydot = np.zeros_like(sim.y)
    assert vehicle_rhs(0.0, sim.y, system.model, system.data, ydot) >= 0
    assert np.abs(ydot).max() < 1e-3 and abs(sim.outputs()["chassis.vx"]) < 1e-4
    pts = mass_points(system.mech)
    com = sum(m * g for m, g in pts) / sum(m for m, _ in pts)
    d = system.data.mech
    xc = np.array([(d.o[b] + d.A[b] @ c0)[0] for b, c0 in zip(car.w_body, car.w_center0)])
    return system.data.contact[:, OUT_FZ].copy(), com, xc


def test_midsize14_is_shipped_with_the_full_cars_topology(car):
    """Listed with the shipped vehicles, not one of the paper's (no paper_model), and the same mechanism as
    fullcar14: 32 relative coordinates + the rack, 18 closure equations, 14 DOF, 14 bodies with mass + 12
    removed rods; front-wheel driven, front steered; 1547.6 kg (chassis 1400 kg + 2 x 39.3 kg front + 2 x
    34.5 kg rear corners)."""
    assert NAME in vehicle_names() and car.spec.paper_model is None
    full = Vehicle.load("fullcar14")
    for c in (car, full):
        m = c.mech
        assert (m.model.n - m.model.ndrv, m.model.ndrv, m.model.m, m.n_dof) == (32, 1, 18, 14)
    assert (len(car.mech.spec.bodies), len(car.mech.spec.rods)) == (14, 12)
    assert car.mech.independent_names == full.mech.independent_names
    assert car.total_mass_kg == pytest.approx(1547.6, abs=1e-9)
    assert [w.driven for w in car.spec.wheels] == [True, True, False, False]
    assert car.spec.steering.corners == ("FL", "FR")


def test_midsize14_static_loads_follow_the_lever_rule_and_its_picture_its_file(car, tmp_path):
    """At rest: the tires carry the weight, split by the lever rule about the whole vehicle's centre of mass
    (to 1e-3, as test_vehicle_closed_form checks the paper's cars); 61.8 % on the front axle (4693 N per
    front, 2898 N per rear tire), the centre of mass 0.546 m above the road and 1.032 m behind the front
    wheel centres, left and right equal. The drawing annotates the file's 2.70 m wheelbase, 1.56 m track and
    0.313 m tire radius."""
    fz, com, xc = at_rest(car)
    W = car.total_mass_kg * G
    x_f, x_r = xc[:2].mean(), xc[2:].mean()
    assert fz.sum() == pytest.approx(W, rel=1e-3)
    assert fz[:2].sum() == pytest.approx(W * (com[0] - x_r) / (x_f - x_r), rel=1e-3)
    np.testing.assert_allclose(fz[[0, 2]], fz[[1, 3]], rtol=1e-9)
    assert fz[:2].sum() / W == pytest.approx(0.618, abs=2e-3)
    assert fz[0] == pytest.approx(4693.0, abs=5.0) and fz[2] == pytest.approx(2898.0, abs=5.0)
    assert com[2] == pytest.approx(0.546, abs=2e-3) and x_f - com[0] == pytest.approx(1.032, abs=2e-3)
    dims = draw_vehicle(car, tmp_path / "midsize14.png")
    expected = file_dimensions(resource_path("vehicles", f"{NAME}.json"))
    for key, value in expected.items():
        assert dims[key] == pytest.approx(value, abs=1e-12), key
    assert (dims["wheelbase_m"], dims["track_m"], dims["tire_radius_m"]) == pytest.approx((2.70, 1.56, 0.313))
    assert (tmp_path / "midsize14.png").read_bytes()[:8] == PNG_MAGIC


# suspension travels [m] from the design position: +0.095 m passes the bump clearances (0.054 m front, 0.087 m
# rear), -0.09 m the rebound clearances (0.067 m), 0 and 0.02 m engage neither
TRAVELS = (0.0, 0.095, -0.09, 0.02)


def test_midsize14_accelerations_match_the_reference(car):
    """At random states around the moving equilibrium the engine's accelerations are the independent
    Newton-Euler reference's (1e-9, test_vehicle_reference), every spring's bump and rebound stops engaged in
    some state and free in another."""
    seen = check_vehicle(car, TRAVELS, n=8, seed=sum(map(ord, NAME)))
    for spring, (bump, rebound, free) in stop_coverage(car, seen).items():
        assert bump and rebound and free, spring


def test_midsize14_understeers_and_rolls_like_a_passenger_car_by_iso4138(car):
    """ISO 4138 constant-radius run (100 m circle, 5 m/s rising at 0.1 m/s^2, the path follower;
    ``manoeuvres.runs.constant_radius``): the understeer gradient is 1.97 deg/g (2.20 before the anti-roll
    bars), inside the 1.5-3 deg/g of a typical passenger car (fullcar14: 0.8 deg/g). Its linear single-track
    model (static axle loads, the tire's cornering stiffness at those loads) gives 0.82 deg/g; the rest is the
    multibody car's roll steer (the rear toeing in as it moves into bump: the bars, taking roll, take some of
    it), lateral load transfer onto the concave K_y(F_z) and the tires' aligning moments. Single-track
    constants: a = 1.007 m, b = 1.695 m, C_f = 101.9 kN/rad, C_r = 71.5 kN/rad, I_z = 2859 kg m^2, i_s = 15.48.
    The body's roll gradient over the same range, 5.62 deg/g (7.94 without the bars), is within the 4-6 deg/g
    of a passenger car and 5 % of the closed-form roll model (``roll_model_of``: 5.48 deg/g)."""
    st = single_track_of(car)
    assert st.wheelbase_m == pytest.approx(2.702, abs=1e-3)
    assert (st.a_m, st.b_m) == pytest.approx((1.007, 1.695), abs=1e-3)
    assert (st.cf_N_per_rad, st.cr_N_per_rad) == pytest.approx((101.9e3, 71.5e3), rel=2e-3)
    assert st.yaw_inertia_kg_m2 == pytest.approx(2859.0, abs=1.0)
    assert st.steering_ratio == pytest.approx(15.48, abs=0.01)
    assert st.understeer_gradient_deg_per_g == pytest.approx(0.82, abs=0.01)
    res, ug = constant_radius(car)
    assert 1.5 <= ug["understeer_gradient_deg_per_g"] <= 3.0
    assert ug["understeer_gradient_deg_per_g"] == pytest.approx(1.97, abs=0.05)
    k = res.t > ConstantRadiusRun().settle_s
    ay, roll = np.abs(res["chassis.ay"][k]), res["chassis.roll"][k]
    fit = (ay >= LINEAR_AY_MIN_M_S2) & (ay <= LINEAR_AY_MAX_M_S2)
    model = roll_model_of(car)
    gradient = np.degrees(np.polyfit(ay[fit], roll[fit], 1)[0]) * G_STANDARD          # [deg/g]
    print(f"understeer {ug['understeer_gradient_deg_per_g']:.3f} deg/g, roll {gradient:.3f} deg/g "
          f"(closed form {model.roll_gradient_deg_per_g:.3f})")
    assert 4.0 <= gradient <= 6.0 and gradient == pytest.approx(model.roll_gradient_deg_per_g, rel=0.05)
    assert ug["n_points"] > 10_000 and ug["ay_range_m_s2"][1] > 3.9
    assert ug["rms_residual_rad"] < 5e-4 and abs(ug["intercept_rad"]) < 2e-3
    assert res["constraint_residual"].max() < 1e-9


def test_midsize14_brakes_lock_front_and_rear_at_about_the_same_pressure(car):
    """The brake file loads for the car's wheels. At 1 g on mu = 1 the axle loads are the static ones plus
    the transfer m g h / L (h the centre-of-mass height at rest, L the wheelbase), and a wheel locks when its
    brake torque reaches mu F_z r_l (r_l = R0 - F_z / c_z, the loaded radius): front 6228 N, rear 1364 N per
    wheel, locking at 96 and 99 bar, both in 90-110 bar and below the 180 bar run-out; the driver needs 196 N
    on the pedal for 100 bar."""
    brakes = load_brake_system(NAME, car.wheel_names)
    assert brakes.wheel_names == ("FL", "FR", "RL", "RR")
    fz, com, xc = at_rest(car)
    transfer = car.total_mass_kg * G * com[2] / (xc[:2].mean() - xc[2:].mean())
    fz_1g = fz + np.array([0.5, 0.5, -0.5, -0.5]) * transfer
    assert fz_1g == pytest.approx([6228.0, 6228.0, 1364.0, 1364.0], abs=5.0)
    lock_torque = fz_1g * (car.tire_p[:, P_R0] - fz_1g / car.tire_p[:, P_CZ])
    lock_bar = lock_torque / brakes.torque_gain_Nm_per_Pa / PA_PER_BAR
    assert lock_bar == pytest.approx([96.0, 96.0, 99.1, 99.1], abs=0.5)
    assert np.all((90.0 <= lock_bar) & (lock_bar <= 110.0)) and np.ptp(lock_bar) < 5.0
    assert brakes.max_pressure_Pa / PA_PER_BAR == 180.0
    assert brakes.pedal_force_for(100.0 * PA_PER_BAR) == pytest.approx(196.0, abs=1.0)


def test_midsize14_brakes_lock_the_front_axle_first_below_0_8_g(car):
    """Braking rate z (deceleration / g) with the file's fixed front/rear split: the utilised adhesion of an
    axle f = (its share of the brake force) z W / (its load at z), loads = static + z m g h / L. The front's
    is above the rear's for 0.15 <= z <= 0.8 (the ordering UN Regulation 13-H, Annex 5, asks of a passenger
    car: the front axle locks first), and the two meet near 1 g (the split, 81.7 % front, is the ideal one
    there)."""
    brakes = load_brake_system(NAME, car.wheel_names)
    fz, com, xc = at_rest(car)
    W = car.total_mass_kg * G
    transfer = W * com[2] / (xc[:2].mean() - xc[2:].mean())
    force_gain = brakes.torque_gain_Nm_per_Pa / (car.tire_p[:, P_R0] - fz / car.tire_p[:, P_CZ])    # [N/Pa]
    share_front = force_gain[:2].sum() / force_gain.sum()
    assert share_front == pytest.approx(0.817, abs=0.002)
    z = np.linspace(0.15, 0.8, 14)
    front = share_front * z * W / (fz[:2].sum() + z * transfer)
    rear = (1.0 - share_front) * z * W / (fz[2:].sum() - z * transfer)
    assert np.all(front > rear)
    f1, r1 = (share_front * W / (fz[:2].sum() + transfer), (1.0 - share_front) * W / (fz[2:].sum() - transfer))
    assert f1 == pytest.approx(r1, rel=0.05)


def test_midsize14_pedal_ramp_locks_its_wheels_at_the_tires_grip(car):
    """A pedal ramp from 0 to 400 N over 3 s from 100 km/h on the dry road (mu = 1), without a controller
    (``control.closed_loop.run``): the car decelerates beyond 1 g (the Pacejka (2006) tire's
    longitudinal peak is about 1.2) and the wheels lock (slip beyond 0.2) at 116 bar (rear) and 127 bar
    (front), left and right together: beyond the 1 g of the sizing the rear, whose load falls with the
    deceleration, locks first (below 0.8 g the front would: the test above)."""
    brakes = load_brake_system(NAME, car.wheel_names)
    res = run(car, "flat", 3.0, OpenLoopDriver(pedal_force_N=[(0.0, 0.0), (3.0, 400.0)]), brakes, v0=100 / 3.6)
    lock_bar = {}
    for w in car.wheel_names:
        k = int(np.argmax(np.abs(res[f"wheel_{w}.slip"]) > 0.2))
        assert k > 0, w
        lock_bar[w] = res[f"brakes.pressure_{w}"][k] / PA_PER_BAR
    assert lock_bar["FL"] == pytest.approx(lock_bar["FR"], abs=1e-9)
    assert lock_bar["RL"] == pytest.approx(lock_bar["RR"], abs=1e-9)
    assert lock_bar["FL"] == pytest.approx(126.9, abs=1.0) and lock_bar["RL"] == pytest.approx(116.1, abs=1.0)
    assert -res["chassis.ax"].min() > 1.1 * G
