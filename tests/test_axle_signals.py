"""Signals per axle (signal scope ``axle``, ``loader.vehicle_axles``, ``dynamics.axle_quantities``).

* Which corners form an axle: the shipped vehicles' (named by the corners' field ``axle``), the names made from
  the corner names when the field is absent, and the errors for a one-sided or repeated axle.
* The outputs: in a left turn of the tractor-semitrailer (beam axles) and the sedan (independent corners) each
  axle's load, forces and heave are its two wheels' outputs summed or averaged, its roll is the beam axle's roll
  joint angle, and the body's roll toward the outside of the turn gives a negative roll and load transfer.
* At rest with the sedan's body mass moved 0.1 m to the left, the axles' load transfers carry the moment
  m g 0.1 m about the x axis.
"""
from types import SimpleNamespace

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.vehicle import Vehicle
from fmu_vehicle.vehicle.loader import _axle_name, vehicle_axles
from fmu_vehicle.vehicle.signals import FULL_VEHICLE, LONGITUDINAL_VERTICAL

G = 9.81


@pytest.mark.parametrize("name, axles", [
    ("halfcar7", ()),
    ("fullcar14", (("front", "FL", "FR"), ("rear", "RL", "RR"))),
    ("sedan_caravan", (("front", "FL", "FR"), ("rear", "RL", "RR"), ("caravan", "TL", "TR"))),
    ("tractor_semitrailer", (("front", "FL", "FR"), ("drive1", "RL1", "RR1"), ("drive2", "RL2", "RR2"),
                             ("trailer1", "TL1", "TR1"), ("trailer2", "TL2", "TR2"), ("trailer3", "TL3", "TR3"))),
])
def test_the_shipped_vehicles_axles(name, axles):
    car = Vehicle.load(name)
    assert tuple((a.name, a.left, a.right) for a in car.spec.axles) == axles
    got = [n for n in car.output_names if n.startswith("axle_")]
    assert got == [f"axle_{a[0]}.{r.name}" for a in axles for r in FULL_VEHICLE.axle_outputs]
    assert not LONGITUDINAL_VERTICAL.axle_outputs


def test_axles_without_the_field_are_named_from_their_corners():
    assert [_axle_name(a, b) for a, b in (("FL", "FR"), ("RL1", "RR1"), ("front_left", "front_right"),
                                          ("left", "right"))] == ["F", "R1", "front", ""]
    unnamed = {f"corners.{w}.axle": "" for w in ("FL", "FR", "RL", "RR")}
    car = Vehicle.load("fullcar14", overrides=unnamed)
    assert [(a.name, a.left, a.right) for a in car.spec.axles] == [("F", "FL", "FR"), ("R", "RL", "RR")]


def _corner(name, side, x, body="chassis", axle=""):
    return SimpleNamespace(name=name, side=side, center_m=(x, 0.8 if side == "left" else -0.8, 0.5),
                           chassis_body=body, axle=axle)


@pytest.mark.parametrize("corners, words", [
    ([_corner("FL", "left", 0.0, axle="a"), _corner("FR", "right", 0.0)], "axle 'a' needs one left and one right"),
    ([_corner("FL", "left", 0.0, axle="a"), _corner("FR", "right", 0.0, axle="a"),
      _corner("RL", "left", -3.0, axle="a"), _corner("RR", "right", -3.0, axle="a")], "axle 'a' needs one left"),
    ([_corner("TL", "left", -5.0, axle="t"), _corner("TR", "right", -5.0, body="trailer", axle="t")],
     "of one unit"),
    ([_corner("left", "left", 0.0), _corner("right", "right", 0.0)], "give both a field 'axle'"),
    ([_corner("FL", "left", 0.0, axle="R"), _corner("FR", "right", 0.0, axle="R"),
      _corner("RL", "left", -3.0), _corner("RR", "right", -3.0)], "repeated: R"),
])
def test_bad_axles_are_refused_naming_the_corners(corners, words):
    with pytest.raises(ModelError, match=words):
        vehicle_axles(corners, "car.json")


def test_corners_apart_or_on_other_units_form_no_axle():
    corners = [_corner("FL", "left", 0.0), _corner("FR", "right", 0.2), _corner("TL", "left", -5.0),
               _corner("TR", "right", -5.0, body="trailer")]
    assert vehicle_axles(corners, "car.json") == ()


def _turn(name, swa, v0, seconds):
    """A simulator after ``seconds`` of a left turn at ``v0`` [m/s] with the steering-wheel angle ``swa`` [rad]
    on flat ground."""
    car = Vehicle.load(name)
    sim = car.simulator("flat", v0=v0)
    for _ in range(int(round(seconds / 0.05))):
        sim.set_steering(swa)
        sim.advance(0.05)
    return car, sim


def _check_sums(car, out):
    for a in car.spec.axles:
        L, R = (f"wheel_{w}." for w in (a.left, a.right))
        ax = f"axle_{a.name}."
        fl, fr = out[L + "tire_fz"], out[R + "tire_fz"]
        assert out[ax + "load"] == fl + fr
        assert out[ax + "fx"] == out[L + "tire_fx"] + out[R + "tire_fx"]
        assert out[ax + "fy"] == out[L + "tire_fy"] + out[R + "tire_fy"]
        assert out[ax + "load_transfer"] == pytest.approx((fl - fr) / (fl + fr), rel=1e-14)
        assert out[ax + "heave"] == pytest.approx(0.5 * (out[L + "travel"] + out[R + "travel"]), rel=1e-14)


def test_a_turn_of_the_tractor_semitrailer_beam_axles():
    """2 s into a left turn at 15 m/s: each axle's outputs are its wheels' summed; the roll is the beam axle's
    roll joint angle (the line through the wheel centres turns with the axle) and its heave the heave slide's
    (to the second order of the roll about the roll centre 0.2 m above the wheel centres); the bodies roll to
    the right, so each axle rolls left side down relative to its chassis and its right wheel is the more
    loaded. The steered front axle's wheel centres are on knuckles: the line through them tilts from the axle's
    by 3e-7 rad with the knuckles steered apart (Ackermann)."""
    car, sim = _turn("tractor_semitrailer", 1.0, 15.0, 2.0)
    sim.refresh()                   # the outputs of the coordinates the workspace holds
    out = sim.outputs()
    _check_sums(car, out)
    z = sim.system.data.mech.z
    for a in car.spec.axles:
        ax = f"axle_{a.name}."
        roll = z[car.mech.coordinate(f"{a.name}.roll")]
        heave = z[car.mech.coordinate(f"{a.name}.heave")]
        print(f"{a.name}: load {out[ax + 'load']:.0f} N, transfer {out[ax + 'load_transfer']:.3f}, roll "
              f"{np.degrees(roll):.3f} deg, heave {heave * 1e3:.2f} mm")
        # the steered axle's wheel centres sit on knuckles: steering them (inner wheel further) tilts their line
        steered = a.left in car.spec.steering.corners
        assert out[ax + "roll"] == pytest.approx(roll, abs=1e-5 if steered else 1e-12)
        assert out[ax + "heave"] == pytest.approx(heave, abs=0.2 * roll ** 2 + 1e-12)
        assert roll < -1e-3 and out[ax + "load_transfer"] < -0.05
    # the loads carry the whole weight (the turn is steady: vertical accelerations near zero)
    total = sum(out[f"axle_{a.name}.load"] for a in car.spec.axles)
    assert total == pytest.approx(car.total_mass_kg * G, rel=2e-3)


def test_a_turn_of_the_sedan_independent_corners():
    """The sedan 3 s into a left turn at 20 m/s (about 4 m/s^2): the sums; the body rolls right, so each axle's
    line through its wheel centres rolls left side down relative to the body (the right wheel further in bump
    than the left) and its right wheel carries more."""
    car, sim = _turn("fullcar14", 1.0, 20.0, 3.0)
    out = sim.outputs()
    _check_sums(car, out)
    assert out["chassis.ay"] > 2.0
    for a in car.spec.axles:
        ax = f"axle_{a.name}."
        L, R = (f"wheel_{w}." for w in (a.left, a.right))
        track = 2 * 1.1967
        assert out[R + "travel"] > out[L + "travel"]
        assert out[ax + "roll"] == pytest.approx((out[L + "travel"] - out[R + "travel"]) / track, rel=0.05)
        assert out[ax + "roll"] < 0.0 and out[ax + "load_transfer"] < -0.05


def test_a_lateral_offset_at_rest_is_carried_by_the_load_transfers():
    """The sedan at rest with its chassis centre of mass 0.1 m to the left: sum over the axles of
    (Fz_L - Fz_R) t / 2 = m_chassis g 0.1 m (moments about the x axis through the middle of the contacts; the
    contact points move by the tires' camber and deflection, hence 2 %)."""
    base = Vehicle.load("fullcar14")
    com = list(base.spec.data["chassis"]["com_m"])
    car = Vehicle.load("fullcar14", overrides={"chassis.com_m": [com[0], com[1] + 0.1, com[2]]})
    sim = car.simulator("flat", v0=0.0)
    sim.advance(0.01)
    out = sim.outputs()
    m_chassis = car.spec.data["chassis"]["mass_kg"]
    track = 2 * 1.1967
    moment = sum(out[f"axle_{a.name}.load_transfer"] * out[f"axle_{a.name}.load"] * track / 2
                 for a in car.spec.axles)
    print(f"moment {moment:.1f} N m, m g dy {m_chassis * G * 0.1:.1f} N m")
    assert moment == pytest.approx(m_chassis * G * 0.1, rel=0.02)
    assert all(out[f"axle_{a.name}.load_transfer"] > 0.0 for a in car.spec.axles)


@pytest.mark.parametrize("value", [["front"], "front.left", 3])
def test_a_bad_axle_field_is_refused_naming_the_corner(value):
    with pytest.raises(ModelError, match=r"corners\[0\] 'FL': field 'axle' must be a name without '\.'"):
        Vehicle.load("fullcar14", overrides={"corners.FL.axle": value})
