"""The tractor-semitrailer (resources/vehicles/tractor_semitrailer.json): beam axles, dual tires, a fifth wheel.

* Dual tires: two Magic Formula tires side by side on one wheel give, at twice the load, exactly twice one
  tire's forces and moments (tire.tir.side_by_side), over slips, camber and the transient states.
* The file: 12 wheels, 32 DOF (tractor chassis 6, three axles x (heave, roll, two spins), fifth wheel yaw and
  pitch, three trailer axles x 4), the knuckles' steer angles dependent on the rack through the tie rods.
* Static equilibrium on flat ground: the tire loads carry the weight, and each unit's loads balance its
  weight's moment (the semitrailer about the kingpin, the tractor with the kingpin load), from which the
  front axle's load follows by the lever rule with the tandem's load centre (a tandem on independent springs
  shares its load by the springs' stiffness, so that centre is measured, not assumed).
* The accelerations against the independent Cartesian reference at random states (beam axles in heave and
  roll, the fifth wheel articulated, the rack moving).
* Beam-axle kinematics: heave moves both wheel centres alike, roll tilts the axle about its roll centre, the
  rack steers both knuckles with the inner wheel turned further (Ackermann from the steering arms).
* A variant from JSON alone: a two-axle semitrailer on dual tires.
"""
import json

import numpy as np
import pytest

from unit_masses import unit_masses
from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire.contact import OUT_FZ, OUT_POINT
from fmu_vehicle.tire.models import CONTACT_OUT_N, contact, params, read_tire, tires_side_by_side
from fmu_vehicle.vehicle.vehicle import Vehicle
from reference.vehicle_checks import check_coupling_forces, check_vehicle

G = 9.81
TRUCK_TIRE = "goodyear_335_65R22_5.tir"


@pytest.fixture(scope="module")
def truck():
    return Vehicle.load("tractor_semitrailer")


def test_dual_tires_are_two_tires_at_twice_the_load():
    """The same wheel motion (so the same deflection: each tire of the pair carries the single tire's load)
    through the single tire and the pair: forces and moments double, the contact point, slips and relaxation
    lengths stay. A slip state beyond the peak, camber, a slope and low speed are among the cases. Equal to
    1e-5 of the load (forces and moments) and 1e-5 relative (the rest), not to the last bit: the Magic Formula
    kernels keep their divisors away from zero by an absolute 0.1 N (pacejka_combined.EPS_Y and the
    longitudinal EPS_X), about 2e-6 of a truck tire's C D (measured: 1.3e-6 of the load on an Fx beyond its
    peak, 2e-5 relative on an aligning moment of 5 N m, 1e-4 N m)."""
    single = params(read_tire(resource_path("tires", TRUCK_TIRE)))
    pair = params(tires_side_by_side(read_tire(resource_path("tires", TRUCK_TIRE)), 2))
    assert pair[1] == 2 * single[1]
    cases = [  # (centre z [m], velocity [m/s], spin rate [rad/s] about the axis, dh/dx, dh/dy, kappa', q)
        (0.47, (20.0, 0.3, 0.0), 40.0, (0.0, 1.0, 0.0), 0.0, 0.0, 0.02, 0.03),
        (0.465, (15.0, -1.0, 0.1), 25.0, (0.0, np.cos(0.05), np.sin(0.05)), 0.02, -0.03, -0.3, -0.15),
        (0.48, (0.5, 0.05, 0.0), 0.8, (0.0, 1.0, 0.0), 0.0, 0.0, 0.1, 0.01),
    ]
    for z, vel, om, axis, dhdx, dhdy, kap, q in cases:
        out1, out2 = np.zeros(CONTACT_OUT_N), np.zeros(CONTACT_OUT_N)
        args = (1.0, np.array([0.0, 0.0, z]), np.array(vel), om * np.array(axis), np.array(axis), 0.0, dhdx, dhdy, 1.0, kap, q)
        contact(0, single, args[0], *args[1:], out1)
        contact(0, pair, args[0], *args[1:], out2)
        assert out1[OUT_FZ] > 1e4
        for k in range(CONTACT_OUT_N):
            if k in FORCE_SLOTS:     # within 1e-5 of the pair's load [N, or N m per m of the tire's radius]
                assert abs(out2[k] - 2.0 * out1[k]) < 1e-5 * out2[OUT_FZ], (k, out1[k], out2[k])
            else:
                assert out2[k] == pytest.approx(out1[k], rel=1e-5, abs=1e-12), (k, out1[k], out2[k])


# the force-like slots of the contact output (tire.contact.OUT_*): forces, moments and the slip rates that
# are a force over a stiffness do not: dκ'/dt and dq/dt are kinematic and stay
FORCE_SLOTS = {0, 1, 2, 6, 7, 8, 22, 23, 33, 34, 35}


def test_dual_tires_refuse_a_bad_field(tmp_path):
    data = json.loads(resource_path("vehicles", "tractor_semitrailer.json").read_text())
    data["corners"][2]["dual"] = "yes"
    p = tmp_path / "t.json"
    p.write_text(json.dumps(data))
    with pytest.raises(ModelError, match="field 'dual' must be true or false"):
        Vehicle.load(p)


def test_the_file_builds_a_6x4_tractor_with_a_tri_axle_semitrailer(truck):
    m = truck.mech
    assert truck.wheel_names == ("FL", "FR", "RL1", "RR1", "RL2", "RR2", "TL1", "TR1", "TL2", "TR2", "TL3", "TR3")
    assert m.n_dof == 32 and m.model.n == 35
    assert [u.name for u in truck.spec.units] == ["semitrailer"]
    assert truck.spec.units[0].coordinates == ("semitrailer.yaw", "semitrailer.pitch")     # rigid in roll
    assert {w.name for w in truck.spec.wheels if w.driven} == {"RL1", "RR1", "RL2", "RR2"}
    # 10 t tractor chassis + 20 t trailer chassis + axles (581, 717 x 2, 500 x 3), knuckles 2 x 82.7,
    # wheels 2 x 120 + 4 x 254.7 (dual) + 6 x 134.7, tie rods 2 x 5
    assert truck.total_mass_kg == pytest.approx(30000 + 581 + 1434 + 1500 + 165.4 + 240 + 1018.8 + 808.2 + 10)
    # dual tires: the drive axles' tire data is the pair's
    single = params(read_tire(resource_path("tires", TRUCK_TIRE)))
    for w in truck.wheel_names:
        scale = 2.0 if w.startswith("R") else 1.0
        assert truck.tire_p[truck.wheel_index(w)][1] == scale * single[1]


def test_equilibrium_loads_balance_each_unit(truck):
    system = truck.system()
    truck.initial_state(system, v0=0.0)
    mm, d = truck.mech.model, system.data.mech
    fz = system.data.contact[:, OUT_FZ]
    px = system.data.contact[:, OUT_POINT]            # x of the application point [m]
    assert fz.sum() == pytest.approx(truck.total_mass_kg * G, rel=1e-9)
    k = truck.mech.body("semitrailer")
    trailer = mm.on_path[:, k]
    kingpin = (d.o[k] + d.A[k] @ np.asarray(truck.spec.units[0].coupling_point_m))[0]
    m2, x2 = unit_masses(mm, d, trailer)
    m1, x1 = unit_masses(mm, d, ~trailer)
    assert m1.sum() + m2.sum() == pytest.approx(truck.total_mass_kg, rel=1e-12)
    wi = {w: truck.wheel_index(w) for w in truck.wheel_names}
    tw = [wi[w] for w in truck.wheel_names if w.startswith("T")]
    front, tandem = [wi["FL"], wi["FR"]], [wi[w] for w in ("RL1", "RR1", "RL2", "RR2")]
    # the semitrailer about the kingpin: its axles carry its weight's moment; the rest rests on the fifth wheel
    trailer_axles = G * m2 @ (kingpin - x2) / (kingpin - (fz[tw] @ px[tw]) / fz[tw].sum())
    assert fz[tw].sum() / trailer_axles - 1.0 == pytest.approx(0.0, abs=1e-9)
    kingpin_load = G * m2.sum() - fz[tw].sum()
    # the tractor: the front axle by the lever rule about the tandem's load centre, with the kingpin load
    xt = (fz[tandem] @ px[tandem]) / fz[tandem].sum()
    xf = (fz[front] @ px[front]) / fz[front].sum()
    lever_front = (G * m1 @ (x1 - xt) + kingpin_load * (kingpin - xt)) / (xf - xt)
    print(f"front {fz[front].sum():.1f} N (lever rule {lever_front:.1f}), tandem {fz[tandem].sum():.1f} N, "
          f"trailer {fz[tw].sum():.1f} N, kingpin {kingpin_load:.1f} N ({kingpin_load / (G * m2.sum()):.3f} of "
          f"the trailer's weight), tandem load centre {xt:.3f} m")
    assert fz[front].sum() / lever_front - 1.0 == pytest.approx(0.0, abs=1e-9)
    # the numbers of the data: front axle about 6.8 t (66.9 kN), kingpin 42.9 kN (0.196 of the semitrailer's
    # weight: its centre of mass 1.6 m ahead of its axles' middle, 7.6 m behind the kingpin)
    assert 6.5e4 < fz[front].sum() < 7.0e4 and 0.18 < kingpin_load / (G * m2.sum()) < 0.21
    # a standing combination: the articulation is held at zero, the loads symmetric left-right
    assert d.z[truck.mech.coordinate("semitrailer.yaw")] == 0.0
    assert np.allclose(fz[0::2], fz[1::2], rtol=1e-9)


RANGES = {"semitrailer.yaw": 0.4, "semitrailer.pitch": 0.03,
          **{f"{a}.heave": 0.04 for a in ("front", "drive1", "drive2", "trailer1", "trailer2", "trailer3")},
          **{f"{a}.roll": 0.04 for a in ("front", "drive1", "drive2", "trailer1", "trailer2", "trailer3")}}
"""Half ranges of the random states' coordinates about the moving equilibrium [rad, m]."""


def test_matches_the_cartesian_reference(truck):
    check_vehicle(truck, (), n=4, seed=31, ranges=RANGES)


def test_coupling_force_matches_the_reference_and_carries_the_kingpin_load(truck):
    """The fifth wheel's force on the semitrailer (outputs semitrailer.coupling_fx/fy/fz, unit axes): at random
    states equal to the reference's Newton's law of the semitrailer (its own accelerations and tire loads)
    to 1e-9 of its weight; at rest it carries the kingpin load of the lever rule (42.9 kN) and pulls nothing."""
    largest = check_coupling_forces(truck, n=4, seed=32, ranges=RANGES)
    assert largest > 1e4
    sim = truck.simulator("flat", v0=0.0)
    o = sim.outputs()
    fz = sim.system.data.contact[:, OUT_FZ]
    tw = [truck.wheel_index(c) for c in truck.spec.units[0].corners]
    k = truck.mech.body("semitrailer")
    mm = truck.mech.model
    m2, _x2 = unit_masses(mm, None, mm.on_path[:, k])
    assert o["semitrailer.coupling_fz"] == pytest.approx(G * m2.sum() - fz[tw].sum(), rel=1e-5)
    # vertical and pulling nothing in the road's axes: in the semitrailer's own axes (it stands pitched nose up
    # by 2.3 mrad) the vertical kingpin load has 98 N along x
    f = sim.system.mech.data.A[k] @ [o[f"semitrailer.coupling_f{a}"] for a in "xyz"]
    assert abs(f[0]) < 1e-3 * f[2] and abs(f[1]) < 1e-6
    assert o["semitrailer.coupling_fx"] == pytest.approx(sim.system.mech.data.A[k][2, 0] * f[2], rel=1e-2)


def _wheel_centres(truck, values):
    """Wheel centres [m] (nw, 3) at the design configuration with ``values`` {coordinate: value} set."""
    m = truck.mech
    pos = {name: 0.0 for name in m.independent_names}
    pos[truck.spec.steering.rack_coordinate] = 0.0
    pos.update(values)
    m.assemble(pos, {name: 0.0 for name in m.independent_names}, steps=10)
    d = m.data
    return np.array([d.o[b] + d.A[b] @ (np.asarray(c)) for b, c in zip(truck.w_body, truck.w_center0)])


def test_beam_axle_kinematics(truck):
    m = truck.mech
    d = m.data
    c0 = _wheel_centres(truck, {})
    fl, fr = truck.wheel_index("FL"), truck.wheel_index("FR")
    c = _wheel_centres(truck, {"drive1.heave": 0.05})
    moved = c - c0
    i, j = truck.wheel_index("RL1"), truck.wheel_index("RR1")
    assert moved[i] == pytest.approx([0.0, 0.0, 0.05], abs=1e-12) and moved[j] == pytest.approx(moved[i], abs=1e-12)
    others = [k for k in range(truck.n_wheels) if k not in (i, j)]
    assert np.abs(moved[others]).max() < 1e-12
    # roll about the x axis through the roll centre, r = 0.2 m above the wheel centres: the left wheel (half
    # track h out, r below the axis) rises by h sin(phi) + r (1 - cos(phi)) and swings out by r sin(phi)
    # - h (1 - cos(phi)); the right wheel drops by h sin(phi) - r (1 - cos(phi))
    phi = 0.03
    c = _wheel_centres(truck, {"trailer2.roll": phi})
    i, j = truck.wheel_index("TL2"), truck.wheel_index("TR2")
    h, r = 1.0325, 0.2
    assert c[i] - c0[i] == pytest.approx([0.0, r * np.sin(phi) - h * (1 - np.cos(phi)),
                                          h * np.sin(phi) + r * (1 - np.cos(phi))], abs=1e-12)
    assert c[j, 2] - c0[j, 2] == pytest.approx(-h * np.sin(phi) + r * (1 - np.cos(phi)), abs=1e-12)
    # the rack steers both front knuckles (rack to the right, -y: a left turn), the inner (left) one further
    rack = truck.spec.steering.rack_coordinate
    m.assemble({**{n: 0.0 for n in m.independent_names}, rack: -0.03}, {n: 0.0 for n in m.independent_names},
               steps=10)
    left, right = (float(d.z[m.coordinate(f"{w}.steer")]) for w in ("FL", "FR"))
    print(f"rack -30 mm: knuckles {np.degrees(left):.3f} / {np.degrees(right):.3f} deg")
    assert left > right > 0.0                    # kingpin axes point up: + about them is a left turn
    assert 0.12 < right < left < 0.2             # about 0.03 m / 0.2 m steering arm
    assert truck.spec.steering.rack_gain_m_per_rad < 0


def test_a_two_axle_semitrailer_on_dual_tires_is_a_json_change(tmp_path, truck):
    """A variant file: the semitrailer's axles replaced by two (a list replaces the unit's corners), on dual
    tires; nothing else written."""
    base = json.loads(resource_path("vehicles", "tractor_semitrailer.json").read_text())
    corners = [dict(c, dual=True) for c in base["units"][0]["corners"] if not c["axle"].endswith("3")]
    variant = {"extends": str(resource_path("vehicles", "tractor_semitrailer.json")), "name": "tandem_trailer",
               "units": {"semitrailer": {"corners": corners}}}
    p = tmp_path / "tandem_trailer.json"
    p.write_text(json.dumps(variant))
    car = Vehicle.load(p)
    assert car.wheel_names[-4:] == ("TL1", "TR1", "TL2", "TR2") and car.mech.n_dof == 28
    system = car.system()
    car.initial_state(system, v0=0.0)
    fz = system.data.contact[:, OUT_FZ]
    assert fz.sum() == pytest.approx(car.total_mass_kg * G, rel=1e-9)
    # the trailer's axles moved forward on average (centre -11.575 m instead of -12.23 m): more of its weight
    # on them, less on the kingpin than with three axles
    full = truck.system()
    truck.initial_state(full, v0=0.0)
    assert fz[-4:].sum() > full.data.contact[6:, OUT_FZ].sum()


def test_braking_in_a_turn_with_weak_trailer_brakes_jackknifes(truck):
    """80 km/h in a turn at 2 m/s^2, then every wheel braked in proportion to its static load for 4 m/s^2
    (manoeuvres.combination.braking_in_turn), the semitrailer's brakes intact or at 10 %. Intact, the
    articulation angle moves by about half a degree and settles (measured -1.25 -> -1.83 deg over 3 s); with
    weak trailer brakes the semitrailer pushes the tractor's rear out through the fifth wheel, the drive axles
    (braked and cornering) saturate and the tractor folds into the turn: the articulation grows without
    bound (measured -10.9 deg after 3 s, still accelerating), the jackknife of a semitrailer truck braked in a
    turn with its trailer brakes at 10 %."""
    from fmu_vehicle.manoeuvres.combination import braking_in_turn
    out = {f: braking_in_turn(truck, f, ay_m_s2=2.0, decel_m_s2=4.0) for f in (1.0, 0.1)}
    (res1, k1), (res2, k2) = out[1.0], out[0.1]
    print({f: (round(np.degrees(k["theta_turn_rad"]), 3), round(np.degrees(k["theta_peak_rad"]), 3),
               round(k["decel_mean_m_s2"], 3)) for f, (_r, k) in out.items()})
    assert k1["theta_turn_rad"] == k2["theta_turn_rad"] < 0.0          # the same turn: the trailer outside
    assert abs(k1["theta_change_rad"]) < np.radians(1.5)
    assert k2["theta_change_rad"] < 10 * k1["theta_change_rad"] and k2["theta_peak_rad"] < np.radians(-8.0)
    rate1, rate2 = (np.gradient(r["semitrailer.articulation"], r.t)[-1] for r in (res1, res2))
    assert abs(rate1) < np.radians(0.5) and rate2 < np.radians(-5.0)    # deg/s at the end: settled / folding
    assert k1["decel_mean_m_s2"] > k2["decel_mean_m_s2"] > 2.0


def test_trailer_yaw_damping_falls_with_speed_and_rises_with_kingpin_load(truck, tmp_path):
    """A steering-wheel impulse (manoeuvres.combination.impulse_run), the damping ratio of the articulation's
    decay: falls with speed (measured 0.231 at 80 km/h, 0.019 at 120 km/h: Chrono's trailer carries its
    centre of mass only 1.6 m ahead of its axles, a tail-heavy load, and snakes above about 126 km/h), and
    rises when the same load sits 2 m further forward (a variant file: more load on the kingpin)."""
    from fmu_vehicle.manoeuvres.combination import impulse_run
    z80 = impulse_run(truck, 80 / 3.6)[1]["damping_ratio"]
    z120 = impulse_run(truck, 120 / 3.6)[1]["damping_ratio"]
    base = json.loads(resource_path("vehicles", "tractor_semitrailer.json").read_text())
    com = base["units"][0]["chassis"]["com_m"]
    variant = {"extends": str(resource_path("vehicles", "tractor_semitrailer.json")), "name": "load_forward",
               "units": {"semitrailer": {"chassis": {"com_m": [com[0] + 2.0, com[1], com[2]]}}}}
    p = tmp_path / "load_forward.json"
    p.write_text(json.dumps(variant))
    forward = Vehicle.load(p)
    z120f = impulse_run(forward, 120 / 3.6)[1]["damping_ratio"]
    print(f"damping ratio: 80 km/h {z80:.4f}, 120 km/h {z120:.4f}; load 2 m forward, 120 km/h {z120f:.4f}")
    assert 0.15 < z80 < 0.3 and -0.05 < z120 < 0.08 and z120f > z120 + 0.05


def test_low_speed_offtracking_on_a_12_5_m_circle(truck, tmp_path):
    """3 m/s (speed held by the drive axles), the steering wheel turned until the front axle's centre runs on
    a 12.5 m circle and held for 90 s (about two laps; manoeuvres.combination.low_speed_turn): the middle
    trailer axle's centre runs on a smaller, concentric circle. Their difference, the steady offtracking,
    against the closed form of the no-slip geometry (articulated.offtracking_closed_form) with the tractor's
    wheelbase to its tandem's middle (4.78 m), the fifth wheel 0.14 m ahead of it and the kingpin 7.59 m
    ahead of the trailer's axle group's middle: within 10 % (measured 3.67 m against 3.79 m, 3.2 % less: the
    tandems' tires scrub, which the no-slip geometry does not know). The command line writes the plot."""
    from fmu_vehicle.cli import main
    from fmu_vehicle.manoeuvres.combination import low_speed_turn, offtracking_geometry
    assert offtracking_geometry(truck) == pytest.approx({"wheelbase_m": 4.78, "hitch_behind_rear_axle_m": -0.14,
                                                         "trailer_axle_m": 7.59}, abs=1e-12)
    res, k = low_speed_turn(truck, 12.5)
    print(k)
    assert abs(k["front_radius_m"] - 12.5) < 0.05 and abs(res["chassis.vx"][-1] - 3.0) < 0.2
    assert k["centre_offset_m"] < 1e-3                              # steady: the two circles concentric
    assert 0.9 < k["ratio"] < 1.0 and k["offtracking_m"] == pytest.approx(3.67, abs=0.05)
    assert k["max_offtracking_m"] > k["offtracking_m"]              # the swept path of the turn-in is wider
    assert main(["manoeuvre", "offtracking", "--vehicle", "tractor_semitrailer", "--quiet", "--out",
                 str(tmp_path)]) == 0
    assert (tmp_path / "offtracking.png").stat().st_size > 10_000
    summary = json.loads((tmp_path / "offtracking_summary.json").read_text())
    assert summary["kpis"]["offtracking_m"] == pytest.approx(k["offtracking_m"], rel=1e-12)


def test_steady_state_circular_driving_understeers():
    """ISO 14792 constant radius (manoeuvres.runs.constant_radius, the path follower on a 100 m circle, the
    speed raised until 3 m/s^2): the tractor's steering-wheel angle over its steering ratio against lateral
    acceleration, its slope the understeer gradient with the tractor's own wheelbase and ratio. Measured
    4.0 deg/g (a loaded tractor-semitrailer: some 2-6 deg/g), the angle at low lateral acceleration near the
    tractor's Ackermann angle L/R (2.74 deg: 4.78 m over 100 m)."""
    from fmu_vehicle.manoeuvres.runs import constant_radius
    from fmu_vehicle.manoeuvres.steady_state import ConstantRadiusRun
    truck = Vehicle.load("tractor_semitrailer")
    res, ug = constant_radius(truck, ConstantRadiusRun(radius_m=100.0, ay_end_m_s2=3.0))
    print(ug)
    assert 3.0 < ug["understeer_gradient_deg_per_g"] < 5.0 and ug["ay_range_m_s2"][1] > 2.9
    assert ug["ackermann_rad"] == pytest.approx(4.78 / 100.0, rel=0.01)
    assert abs(ug["intercept_rad"]) < 0.1 * ug["ackermann_rad"]
