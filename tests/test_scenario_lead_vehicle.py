"""Lead vehicle: exact piecewise-quadratic positions, parsing errors, FMU == Python model."""
import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.traffic import LeadVehicle, parse_speed_profile

from fmi_support import simulate_in_child

PROFILE = "0:20,5:20,8:8,12:8"


def test_positions_are_exact_areas_under_the_speed_profile():
    lead = LeadVehicle(parse_speed_profile(PROFILE), x0=50.0)
    # 0-5 s: 20 m/s -> 100 m; 5-8 s: trapezoid (20+8)/2*3 = 42 m; after 12 s: 8 m/s
    expected = {0.0: (50.0, 20.0, 0.0), 5.0: (150.0, 20.0, -4.0), 6.5: (150.0 + 20 * 1.5 - 2.0 * 1.5 ** 2, 14.0, -4.0),
                8.0: (192.0, 8.0, 0.0), 12.0: (224.0, 8.0, 0.0), 20.0: (288.0, 8.0, 0.0)}
    for t, (x, v, a) in expected.items():
        lead.set_time(t)
        assert (lead.x, lead.vx, lead.ax) == pytest.approx((x, v, a), abs=1e-12)


def test_stepping_equals_closed_form_and_start_time_offset():
    profile = parse_speed_profile("2:10, 4:0")        # constant 10 m/s before 2 s, stops at 4 s
    lead = LeadVehicle(profile, x0=-3.0, t0=1.0)
    for _ in range(4000):
        lead.step(1e-3)                               # to t = 5 s
    assert lead.t == pytest.approx(5.0, abs=1e-9)
    assert lead.x == pytest.approx(-3.0 + 10.0 * 1.0 + 10.0, abs=1e-9)   # 1 s at 10 m/s + braking area 10 m
    assert (lead.vx, lead.ax) == (0.0, 0.0)


@pytest.mark.parametrize("text, reason", [
    ("", "empty"), ("0:20,5", "entry 2 '5'"), ("0:20,x:3", "entry 2 'x:3'"), ("0:20,0:10", "strictly increasing"),
    ("0:-1", "speed must be >= 0"), ("0:nan", "finite"),
])
def test_bad_profiles_name_the_parameter_and_entry(text, reason):
    with pytest.raises(ModelError, match="speed_profile") as info:
        parse_speed_profile(text)
    assert reason in str(info.value)


def test_fmu_equals_python_model(companion_fmus, tmp_path):
    start = {"speed_profile_points": "0:20,5:20,8:8,12:8,14:12.5", "x0": 12.5}
    res = simulate_in_child(companion_fmus["LeadVehicle"], tmp_path, stop_time=15.0, start_values=start)
    lead = LeadVehicle(parse_speed_profile(start["speed_profile_points"]), start["x0"], 0.0)
    rows = [(lead.x, lead.vx, lead.ax)]
    for t0, t1 in zip(res["time"][:-1], res["time"][1:]):
        lead.set_time(t0)
        lead.step(t1 - t0)
        rows.append((lead.x, lead.vx, lead.ax))
    expected = np.array(rows)
    got = np.column_stack([res["x"], res["vx"], res["ax"]])
    assert len(res) == 15001
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
