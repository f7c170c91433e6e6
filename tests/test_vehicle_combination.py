"""A vehicle of several units (docs/articulated.md §6): the sedan with a caravan (``sedan_caravan``).

* The file builds the combination the design note describes: the caravan hangs from the sedan's chassis by a
  spherical joint (no closure equation added), and its data are the linear reference's ``CAR_CARAVAN``
  caravan (mass, centre of mass and axle behind the hitch, hitch overhang, yaw inertia).
* Static equilibrium on flat ground: the tire loads per axle equal the lever rule. For the caravan, moments
  about the hitch: F_t = sum_i m_i g (x_h - x_i) / (x_h - x_t), nose load N = m_2 g - F_t; for the car, moments
  about its rear contact points: F_f = (m_1 g (x_1 - x_r) + N (x_h - x_r)) / (x_f - x_r), F_r = m_1 g + N - F_f.
  Every x is a horizontal position at the equilibrium (the bodies' centres of mass, each removed rod's weight
  at its two ends in the shares the engine uses, the hitch point, the mean contact point of each axle).
* The combination's accelerations equal the independent Cartesian reference at random states (the coupling's
  three angles random too), to 1e-9 relative.
* A steady turn: the per-unit signals (``caravan.*``) and the articulation angle against the linear
  towing-unit-with-trailer model built from the same data.
* What is not supported is refused with a message naming it.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.manoeuvres.single_track_trailer import CAR_CARAVAN
from fmu_vehicle.tire.contact import OUT_FORCE, OUT_FZ, OUT_POINT
from fmu_vehicle.vehicle.loader import load_vehicle_spec, vehicle_file_data
from fmu_vehicle.vehicle.vehicle import Vehicle
from unit_masses import unit_masses
from reference.vehicle_checks import TRAVELS, check_coupling_forces, check_vehicle

G = 9.81




def test_the_file_builds_the_caravan_of_the_linear_reference(combination):
    car = combination
    spec = car.spec
    (unit,) = spec.units
    assert (unit.name, unit.towing, unit.coupling) == ("caravan", "chassis", "ball")
    assert unit.coordinates == ("caravan.yaw", "caravan.pitch", "caravan.roll")
    assert unit.corners == ("TL", "TR")
    alone = Vehicle.load("fullcar14")
    m, m0 = car.mech.model, alone.mech.model
    # one spherical joint (3 coordinates) and two five-link corners (7 coordinates, 5 rods each): 7 more DOF
    # (n counts the steering rack's driven coordinate too)
    assert (m.n, m.m, m.ni) == (m0.n + 3 + 14, m0.m + 10, m0.ni + 3 + 4)
    assert (m.n, m.m, m.ni) == (50, 28, 21)
    # the sedan is fullcar14's, body for body (the engine orders the tree's bodies itself)
    for name, i in alone.mech.info.body_index.items():
        j = car.mech.info.body_index[name]
        assert m.mass[j] == m0.mass[i] and np.array_equal(m.com0[j], m0.com0[i])
        assert np.array_equal(m.inertia0[j], m0.inertia0[i]) and np.array_equal(m.axis0[j], m0.axis0[i])
    # the caravan's data against the preset (one source: the preset's numbers)
    k = car.mech.body("caravan")
    members = m.on_path[:, k]
    masses, xs = unit_masses(m, None, members)
    hitch_x = unit.coupling_point_m[0]
    rear_x = min(w.center_m[0] for w in spec.wheels if w.chassis_body == "chassis")
    axle_x = spec.wheel("TL").center_m[0]
    assert masses.sum() == pytest.approx(CAR_CARAVAN.m2_kg, abs=1e-9)
    assert hitch_x - (masses @ xs) / masses.sum() == pytest.approx(CAR_CARAVAN.trailer_com_m, abs=1e-4)
    assert hitch_x - axle_x == pytest.approx(CAR_CARAVAN.trailer_axle_m, abs=1e-12)
    assert rear_x - hitch_x == pytest.approx(CAR_CARAVAN.hitch_m - CAR_CARAVAN.b_m, abs=1e-12)
    # yaw inertia of the whole caravan about its centre of mass (bodies; rods as their end masses + own)
    com = (masses @ xs) / masses.sum()
    izz = 0.0
    for i in np.flatnonzero(members):
        g = m.com0[i]
        izz += m.inertia0[i][2, 2] + m.mass[i] * ((g[0] - com) ** 2 + g[1] ** 2)
    assert izz == pytest.approx(CAR_CARAVAN.i2_kg_m2, rel=0.01)


def test_equilibrium_axle_loads_follow_the_lever_rule(combination):
    car = combination
    system = car.system()
    car.initial_state(system, v0=0.0)
    m, d = car.mech.model, system.data.mech
    fz = system.data.contact[:, OUT_FZ]
    px = system.data.contact[:, OUT_POINT]
    fx = system.data.contact[:, OUT_FORCE]
    total = car.total_mass_kg * G
    assert fz.sum() == pytest.approx(total, rel=1e-6)
    assert np.abs(fx).max() < 1e-3 * total              # flat road at rest: the loads are vertical
    assert d.z[car.mech.coordinate("caravan.yaw")] == 0.0   # held: a standing combination's articulation
    idx = {w: car.wheel_index(w) for w in car.wheel_names}
    axle = {name: [idx[a], idx[b]] for name, (a, b) in
            {"front": ("FL", "FR"), "rear": ("RL", "RR"), "caravan": ("TL", "TR")}.items()}
    load = {name: fz[ws].sum() for name, ws in axle.items()}
    x = {name: px[ws].mean() for name, ws in axle.items()}
    k = car.mech.body("caravan")
    members = m.on_path[:, k]
    hitch = d.o[k] + d.A[k] @ np.asarray(car.spec.units[0].coupling_point_m)
    m2, x2 = unit_masses(m, d, members)
    m1, x1 = unit_masses(m, d, ~members)
    assert m2.sum() + m1.sum() == pytest.approx(car.total_mass_kg, rel=1e-12)
    lever_caravan = G * m2 @ (hitch[0] - x2) / (hitch[0] - x["caravan"])
    nose = G * m2.sum() - lever_caravan
    xc1 = (m1 @ x1) / m1.sum()
    lever_front = (G * m1.sum() * (xc1 - x["rear"]) + nose * (hitch[0] - x["rear"])) / (x["front"] - x["rear"])
    lever_rear = G * m1.sum() + nose - lever_front
    rel = {"caravan": load["caravan"] / lever_caravan - 1.0, "front": load["front"] / lever_front - 1.0,
           "rear": load["rear"] / lever_rear - 1.0}
    print("axle loads [N]", load, "lever rule", lever_front, lever_rear, lever_caravan, "nose", nose, rel)
    for name, r in rel.items():
        assert abs(r) < 1e-3, (name, r)
    # the nose load is about the preset's (6 % of the caravan's weight), and the hitch loads the car's rear axle
    assert 0.05 < nose / (G * m2.sum()) < 0.08
    alone = Vehicle.load("fullcar14")
    s0 = alone.system()
    alone.initial_state(s0, v0=0.0)
    f0 = s0.data.contact[:, OUT_FZ]
    assert load["rear"] - f0[2:].sum() > nose      # the nose load and the pitch moment it brings both unload the front
    assert load["front"] < f0[:2].sum()


def test_combination_matches_the_cartesian_reference(combination):
    """The caravan's joint at random angles: yaw +-0.3 rad, pitch and roll +-0.03 rad about the equilibrium."""
    check_vehicle(combination, TRAVELS, n=4, seed=7,
                  ranges={"caravan.yaw": 0.3, "caravan.pitch": 0.03, "caravan.roll": 0.03})


def test_hitch_force_matches_the_reference(combination):
    """The ball hitch's force on the caravan (outputs caravan.coupling_f*) at random states equals the
    reference's Newton's law of the caravan (its bodies, its five-link corners' rods, its tire loads) to 1e-9
    of the caravan's weight; at rest it carries the nose load (813 N, 6.4 % of the caravan's weight)."""
    assert check_coupling_forces(combination, n=4, seed=9, ranges={"caravan.yaw": 0.3, "caravan.pitch": 0.03,
                                                                   "caravan.roll": 0.03}) > 100.0
    o = combination.simulator("flat", v0=0.0).outputs()
    assert o["caravan.coupling_fz"] == pytest.approx(813.3, abs=0.5)


def _write(tmp_path, data):
    p = tmp_path / "combo.json"
    p.write_text(json.dumps(data))
    return p


def test_refusals_name_what_is_not_supported(tmp_path):
    base = vehicle_file_data("sedan_caravan")
    # a vehicle file given by path still finds the shipped suspension and tire files (resources/)
    cases = [
        (lambda d: d["units"][0]["corners"][0].update(steered=True), "steered corners on a towed unit"),
        (lambda d: d["couplings"][0].update(type="pintle"), "field 'type' must be one of ball, fifth_wheel"),
        (lambda d: d["couplings"][0].update(towing="dolly"), "field 'towing' must name the towing unit"),
        (lambda d: d["couplings"][0].update(roll_stiffness_N_m_per_rad=1e5), "a ball coupling has no roll stiffness"),
        (lambda d: d["units"][0]["corners"][0].update(name="FL"), "repeated: FL"),
        (lambda d: d.pop("couplings"), "one coupling per towed unit"),
        (lambda d: d["chassis"].update(template="planar"), "towed units need a towing chassis with the 'free'"),
    ]
    for change, message in cases:
        data = json.loads(json.dumps(base))
        change(data)
        with pytest.raises(ModelError, match=message.replace("(", r"\(").replace(")", r"\)")):
            load_vehicle_spec(_write(tmp_path, data))


def test_fifth_wheel_joints(tmp_path):
    """A fifth wheel without roll stiffness is a universal joint (yaw, pitch); with it, a spherical joint and a
    rotational spring-damper on the roll."""
    base = vehicle_file_data("sedan_caravan")
    data = json.loads(json.dumps(base))
    data["couplings"][0]["type"] = "fifth_wheel"
    spec = load_vehicle_spec(_write(tmp_path, data))
    assert spec.units[0].coordinates == ("caravan.yaw", "caravan.pitch")
    j = next(j for j in spec.mechanism.joints if j.child == "caravan")
    assert j.type == "universal"
    rigid = Vehicle.load(_write(tmp_path, data))
    data["couplings"][0].update(roll_stiffness_N_m_per_rad=2e6, roll_damping_N_m_s_per_rad=1e4)
    spec = load_vehicle_spec(_write(tmp_path, data))
    (rsd,) = [e for e in spec.mechanism.rotational_spring_dampers if e.coordinate == "caravan.roll"]
    assert (rsd.stiffness_N_m_per_rad, rsd.damping_N_m_s_per_rad) == (2e6, 1e4)
    # the combination is left-right symmetric: at rest no coupling carries a roll moment, so a fifth wheel
    # rigid in roll stands on the same tire loads as the ball hitch (one DOF fewer: 20 against 21)
    assert rigid.mech.n_dof == 20
    loads = []
    for car in (rigid, Vehicle.load("sedan_caravan")):
        system = car.system()
        car.initial_state(system, v0=0.0)
        loads.append(system.data.contact[:, OUT_FZ].copy())
    np.testing.assert_allclose(loads[0], loads[1], rtol=1e-9)


def test_trailer_variants_are_json_changes(tmp_path):
    """A variant of the shipped combination, by ``extends`` and the unit and corner names alone: another tire on
    the caravan, then a tandem caravan (a second axle 0.8 m behind the first, 300 kg more). Both stand on flat
    ground with the tire loads summing to the combination's weight; the tandem's two axles share the caravan's
    load and together carry about the single axle's share of a heavier caravan."""
    from fmu_vehicle.paths import resource_path
    shipped = resource_path("vehicles", "sedan_caravan.json")
    tire = {"tire": "pacejka2006_205_60R15.tir"}
    other_tire = _write(tmp_path, {"extends": str(shipped), "name": "caravan_other_tire",
                                   "units": {"caravan": {"corners": {"TL": tire, "TR": tire}}}})
    car = Vehicle.load(other_tire)
    base = Vehicle.load("sedan_caravan")
    tl, fl = car.wheel_index("TL"), car.wheel_index("FL")
    assert not np.array_equal(car.tire_p[tl], base.tire_p[tl])          # the caravan's tire changed ...
    np.testing.assert_array_equal(car.tire_p[fl], base.tire_p[fl])      # ... the car's did not
    assert car.spec.data["units"][0]["corners"][0]["suspension"] == "five_link_rear.json"   # merged, not replaced

    corners = vehicle_file_data("sedan_caravan")["units"][0]["corners"]
    second = json.loads(json.dumps(corners))
    for c in second:
        c["name"] += "2"
        c["axle"] = "caravan2"
        c["wheel_center_m"][0] -= 0.8
    chassis = {"mass_kg": 1486.0, "com_m": [-9.2844, 0.0, 0.9]}
    tandem = _write(tmp_path, {"extends": str(shipped), "name": "caravan_tandem",
                               "units": {"caravan": {"chassis": chassis, "corners": corners + second}}})
    car = Vehicle.load(tandem)
    assert car.spec.units[0].corners == ("TL", "TR", "TL2", "TR2")
    assert [a.name for a in car.spec.axles] == ["front", "rear", "caravan", "caravan2"]
    loads = {}
    for name, c in (("single", base), ("tandem", car)):
        system = c.system()
        c.initial_state(system, v0=0.0)
        fz = system.data.contact[:, OUT_FZ]
        assert fz.sum() == pytest.approx(c.total_mass_kg * G, rel=1e-6), name
        loads[name] = {w: fz[c.wheel_index(w)] for w in c.wheel_names}
    t = loads["tandem"]
    first, rear = t["TL"] + t["TR"], t["TL2"] + t["TR2"]
    assert first > 0.2 * (first + rear) and rear > 0.2 * (first + rear)
    assert first + rear > loads["single"]["TL"] + loads["single"]["TR"]        # the heavier caravan
    with pytest.raises(ModelError, match="units: unknown unit 'trailer'; valid: caravan"):
        load_vehicle_spec(_write(tmp_path, {"extends": str(shipped), "units": {"trailer": {}}}))
    with pytest.raises(ModelError, match=r"units.caravan.corners: unknown corner 'XX'; valid: TL, TR"):
        load_vehicle_spec(_write(tmp_path, {"extends": str(shipped), "units": {"caravan": {"corners": {"XX": {}}}}}))


def test_single_unit_files_have_no_units():
    for name in ("halfcar7", "fullcar14"):
        spec = load_vehicle_spec(name)
        assert spec.units == () and {w.chassis_body for w in spec.wheels} == {"chassis"}


def test_steady_turn_articulation_against_the_linear_reference(combination):
    """15 m/s on a flat road, a steering-wheel angle of 0.3 rad ramped in over 1 s and held (about 1 m/s^2 of
    lateral acceleration), the speed held by a proportional drive torque on the front wheels. After 8 s the
    articulation angle (the output ``caravan.articulation``, the coordinate ``caravan.yaw``) is steady (it settles within about 5 s) and negative in a left turn
    (the caravan points to the outside of the turn). Against the linear model
    (``manoeuvres.single_track_trailer``) built from the same data (``manoeuvres.combination.linear_reference``:
    the sedan alone's ``single_track_of``, the caravan's mass, centre of mass, axle and yaw inertia from its
    bodies, which are ``CAR_CARAVAN``'s, C_t the caravan tires' cornering stiffness at their static loads in the
    combination):

    * theta per yaw rate (the trailer's kinematics and its axle's slip) within 5 % (measured 1.8 %);
    * theta per steering-wheel angle within 15 % (measured 9 %: the multibody car's yaw-rate gain is 7 % below
      the linear car's, from what the single-track model leaves out: roll steer, load transfer, the nose
      load's shift of the axle loads)."""
    from fmu_vehicle.manoeuvres.combination import linear_reference

    car = combination
    assert tuple(n for n in car.output_names if n.startswith("caravan.")) == tuple(f"caravan.{n}" for n in ("articulation", "articulation_rate", "x", "y",
                                                                    "vx", "vy", "yaw_rate", "yaw", "roll", "ay",
                                                                    "coupling_fx", "coupling_fy", "coupling_fz"))
    v0, sw, h = 15.0, 0.3, 0.01
    sim = car.simulator(v0=v0, dt=1e-3)
    k = car.mech.coordinate("caravan.yaw")
    rows = []
    for i in range(800):
        t = (i + 1) * h
        sim.set_steering(sw * min(1.0, t / 1.0))
        torque = 400.0 * (v0 - sim.outputs()["chassis.vx"]) + 60.0
        for w in ("FL", "FR"):
            sim.set_input(w, torque_drive=torque)
        sim.advance(h)
        o = sim.outputs()
        assert o["caravan.articulation"] == sim.system.data.mech.z[k]
        rows.append((o["chassis.vx"], o["chassis.yaw_rate"], o["chassis.ay"], o["caravan.articulation"],
                     o["caravan.yaw_rate"], o["caravan.vx"], o["caravan.articulation_rate"],
                     o["caravan.yaw"] - o["chassis.yaw"], o["caravan.ay"], o["caravan.roll"], o["chassis.roll"]))
    rows = np.array(rows)
    vx, r, ay, theta, r2, vx2, theta_rate, dyaw, ay2, roll2, roll1 = rows[-100:].mean(axis=0)
    # the caravan's own heading, roll and lateral acceleration: its heading differs from the car's by the
    # articulation (up to the car's roll and pitch, second order), its centre of mass turns at the same rate
    # at nearly the same speed (ay = vx r), and it rolls to the outside of the turn as the car does
    print(f"caravan yaw - chassis yaw {dyaw:.6f} rad (articulation {theta:.6f}), ay {ay2:.4f} m/s2 (chassis {ay:.4f}, "
          f"vx r {vx2 * r2:.4f}), roll {roll2:.5f} rad (chassis {roll1:.5f})")
    assert abs(dyaw - theta) < 0.02 * abs(theta)
    assert abs(ay2 / (vx2 * r2) - 1.0) < 0.01 and abs(ay2 / ay - 1.0) < 0.03
    assert roll2 * roll1 > 0.0 and abs(roll2) > 1e-3
    assert np.all(np.abs(rows[:, 7]) < 0.5)                   # continued against the car's yaw: no jump by 2 pi
    # steady: both units turn at the same rate about the vertical, their centres of mass at nearly the same speed
    # (radii of about 230 m differing by centimetres; measured +4e-4); each yaw rate is about its own body z axis, which the car's roll of about 1.4 deg tilts
    # (1 - cos 0.025 = 3e-4, measured 3.1e-4)
    assert abs(r2 / r - 1.0) < 1e-3 and abs(theta_rate) < 1e-6 and abs(vx2 / vx - 1.0) < 1e-3
    assert np.ptp(rows[-300:, 3]) < 1e-3 * abs(theta)          # steady
    assert abs(vx - v0) < 0.1 and 0.8 < ay < 1.2 and r > 0.0 and theta < 0.0
    lin = linear_reference(car)
    ss = lin.steady_state(vx)
    per_r, per_r_lin = theta / r, ss["theta"] / ss["yaw_rate"]
    print(f"theta {theta:.5f} rad, r {r:.5f} rad/s, ay {ay:.3f} m/s2; theta/r {per_r:.4f} s (linear {per_r_lin:.4f}, "
          f"kinematic {lin.kinematic_articulation_per_curvature_m() / vx:.4f}); theta/sw {theta / sw:.4f} "
          f"(linear {ss['theta']:.4f}); r/sw {r / sw:.4f} (linear {ss['yaw_rate']:.4f})")
    assert abs(per_r / per_r_lin - 1.0) < 0.05
    assert abs((theta / sw) / ss["theta"] - 1.0) < 0.15


def test_single_unit_tools_refuse_a_combination(combination):
    from fmu_vehicle.manoeuvres.vehicle_model import single_track_of
    from fmu_vehicle.vehicle.drawing import vehicle_dimensions

    with pytest.raises(ModelError, match="single_track_of a combination .*caravan.* not supported yet"):
        single_track_of(combination)
    with pytest.raises(ModelError, match="drawings of a combination .*caravan.* not supported yet"):
        vehicle_dimensions(combination)
