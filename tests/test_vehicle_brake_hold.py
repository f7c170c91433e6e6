"""One brake law for the vehicle (the bristle element of ``tire.brake``): a car held by its brakes on the
16.5 degree slope stands still, where a smooth-sign brake law creeps downhill."""
import numpy as np
import pytest

from fmu_vehicle.vehicle import Vehicle


@pytest.mark.parametrize("name", ["halfcar7", "fullcar14"])
def test_braked_car_stays_put_on_the_16_5_degree_slope(name):
    car = Vehicle.load(name)
    sim = car.simulator("slope16_5", v0=0.0, x0=40.0)
    for w in car.wheel_names:
        sim.set_input(w, torque_brake=3000.0)
    xs = []
    for _ in range(140):                    # 14 s: the fore-aft rocking on the tires decays slowly
        sim.advance(0.1)
        xs.append(sim.outputs()["chassis.x"])
    out = sim.outputs()
    xs = np.array(xs)
    assert abs(xs[-1] - xs[0]) < 0.05               # it settled on its tires within centimetres
    assert np.ptp(xs[-20:]) < 1e-5                  # and stands still over the last 2 s (no creep)
    assert abs(out["chassis.vx"]) < 1e-5
    for w in car.wheel_names:
        assert abs(out[f"wheel_{w}.omega_rel"]) < 1e-4
        assert 0.0 < abs(out[f"wheel_{w}.torque_brake_applied"]) < 3000.0     # held, not sliding
