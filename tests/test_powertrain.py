"""Powertrain: shift schedule, full-load torque identity, engine braking, idle, data checks, FMU == model."""
import json
import math

import numpy as np
import pytest

from fmu_vehicle.errors import ModelError
from fmu_vehicle.paths import resource_path
from fmu_vehicle.powertrain import Powertrain, load_powertrain

from fmi_support import simulate_in_child

DATA_FILE = resource_path("powertrain", "suv_diesel_6at.json")
R_WHEEL = 0.4672          # m, tire radius the data is laid out for
MASS = 2500.0             # kg
G = 9.81


@pytest.fixture(scope="module")
def data():
    return load_powertrain(DATA_FILE)


def steady(pt, seconds=4.0, h=1e-3):
    for _ in range(int(round(seconds / h))):
        pt.step(h)
    return pt


def test_full_throttle_torque_is_map_times_ratios_times_efficiency(data):
    for gear, v in ((1, 0.0), (1, 5.0), (2, 15.0), (5, 40.0)):
        w = v / R_WHEEL
        pt = Powertrain(data, throttle=1.0, omega_left=w, omega_right=w)
        assert pt.gear == gear
        steady(pt)
        ratio = data.gear_ratios[gear - 1]
        sr = pt.speed_ratio
        tr = np.interp(sr, data.tc_speed_ratio, data.tc_torque_ratio)
        t_map = np.interp(pt.engine_speed, data.engine_speed, data.full_load_torque)
        eta = data.gearbox_efficiency * data.final_drive_efficiency
        expected = t_map * tr * ratio * data.final_drive_ratio * eta
        # steady state: pump torque = engine torque = full-load map
        assert pt.torque_left + pt.torque_right == pytest.approx(expected, rel=1e-9)
        assert pt.engine_speed < data.max_speed      # below the fuel cut-off: pure map value
    # stall (wheels held): torque ratio 2.0 of the converter multiplies the map
    pt = steady(Powertrain(data, throttle=1.0))
    assert pt.speed_ratio == 0.0
    stall_rpm = pt.engine_speed * 30 / math.pi
    assert 1900 < stall_rpm < 2200                   # stall speed set by K(0) = 85 rpm/sqrt(N m)
    assert (pt.engine_speed / (85 * math.pi / 30)) ** 2 == pytest.approx(
        np.interp(pt.engine_speed, data.engine_speed, data.full_load_torque), rel=1e-9)


def test_open_differential_splits_equally(data):
    pt = Powertrain(data, throttle=0.6, omega_left=20.0, omega_right=26.0)
    steady(pt, 1.0)
    assert pt.torque_left == pt.torque_right > 0
    # the mean wheel speed drives the converter turbine
    ratio = data.gear_ratios[pt.gear - 1]
    assert pt.speed_ratio == pytest.approx(23.0 * ratio * data.final_drive_ratio / pt.engine_speed, rel=1e-12)


def test_engine_braking_and_idle(data):
    w = 20.0 / R_WHEEL
    pt = steady(Powertrain(data, throttle=0.0, omega_left=w, omega_right=w))
    assert pt.speed_ratio > 1.0 and pt.engine_torque_out < 0       # overrun: wheels drive the engine
    eta = data.gearbox_efficiency * data.final_drive_efficiency
    i_total = data.gear_ratios[pt.gear - 1] * data.final_drive_ratio
    assert pt.torque_left + pt.torque_right == pytest.approx(pt.turbine_torque * i_total / eta, rel=1e-12)
    assert pt.torque_left < 0
    idle = steady(Powertrain(data, throttle=0.0))                   # standing, in gear, brake held
    assert data.idle_speed - data.idle_droop < idle.engine_speed < data.idle_speed
    assert idle.torque_left > 0                                     # creep torque


def test_shifts_follow_the_schedule_with_hysteresis(data):
    throttle = 0.5
    pt = Powertrain(data, throttle=throttle)
    h, rate = 1e-3, 15.0           # output-shaft speed ramps at 15 rad/s^2 (thresholds > 2 s apart)
    ramp = [i * h * rate for i in range(int(round(240.0 / rate / h)))]
    ups, downs = [], []
    for w_out in ramp + ramp[::-1]:
        w = w_out / data.final_drive_ratio
        pt.omega_left = pt.omega_right = w
        before = pt.gear
        pt.step(h)
        if pt.gear > before:
            ups.append((before, w_out))
        elif pt.gear < before:
            downs.append((before, w_out))
    assert [g for g, _ in ups] == [1, 2, 3, 4, 5]
    assert [g for g, _ in downs] == [6, 5, 4, 3, 2]
    for gear, w_out in ups:
        threshold = np.interp(throttle, data.shift_throttle, data.upshift_speed[gear - 1])
        assert 0 < w_out - threshold <= rate * h + 1e-9          # first step above the up line
    for gear, w_out in downs:
        threshold = np.interp(throttle, data.shift_throttle, data.downshift_speed[gear - 2])
        assert 0 < threshold - w_out <= rate * h + 1e-9
        assert threshold < np.interp(throttle, data.shift_throttle, data.upshift_speed[gear - 2])  # hysteresis
    # during a shift the ratio blends linearly over shift_time
    pt = Powertrain(data, throttle=1.0, omega_left=11.0 / R_WHEEL, omega_right=11.0 / R_WHEEL)
    pt.omega_left = pt.omega_right = 12.5 / R_WHEEL
    pt.step(1e-3)
    assert pt.gear == 2
    pt.step(data.shift_time / 2 - 1e-3)
    assert pt.gear_ratio() == pytest.approx(0.5 * (data.gear_ratios[0] + data.gear_ratios[1]), rel=1e-9)


def test_kickdown_downshifts_at_full_throttle(data):
    w = 15.0 / R_WHEEL
    pt = Powertrain(data, throttle=0.2, omega_left=w, omega_right=w)
    assert pt.gear == 4
    pt.throttle = 1.0
    pt.step(1e-3)
    assert pt.gear == 3


def test_data_reaches_30_m_per_s_and_holds_15_m_per_s_on_grades(data):
    """Steady full-load wheel force exceeds the resistance of a 2.5 t SUV (c_r = 0.012, CdA = 1.0 m^2)."""
    def max_force(v):
        w = v / R_WHEEL
        pt = steady(Powertrain(data, throttle=1.0, omega_left=w, omega_right=w), 2.0)
        return (pt.torque_left + pt.torque_right) / R_WHEEL

    drag = 0.5 * 1.2 * 1.0
    assert max_force(30.0) > 0.012 * MASS * G + drag * 30.0 ** 2 + 0.05 * MASS * G   # still 5 % grade ability
    for grade in (0.10, 0.20):
        theta = math.atan(grade)
        need = MASS * G * (math.sin(theta) + 0.012 * math.cos(theta)) + drag * 15.0 ** 2
        assert max_force(15.0) > need


def test_bad_data_names_file_and_field(tmp_path, data):
    doc = json.loads(DATA_FILE.read_text())
    doc["transmission"]["gear_ratios"] = [4.0, 2.0, 2.5, 1.0, 0.8, 0.7]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(ModelError, match=r"bad\.json: field 'transmission\.gear_ratios': .*decreasing"):
        load_powertrain(bad)
    del doc["engine"]
    bad.write_text(json.dumps(doc))
    with pytest.raises(ModelError, match=r"bad\.json: missing field 'engine\.speed_rpm'"):
        load_powertrain(bad)


def test_fmu_equals_python_model(companion_fmus, tmp_path, data):
    sig = np.array([(0.0, 0.0, 0.0, 0.0), (0.5, 0.0, 0.0, 0.0), (1.0, 1.0, 5.0, 5.5), (4.0, 0.7, 50.0, 52.0),
                    (6.0, 0.0, 40.0, 40.0), (8.0, 0.3, 30.0, 30.0)],
                   dtype=[("time", float), ("throttle", float), ("wheel_left.omega", float),
                          ("wheel_right.omega", float)])
    names = ["throttle", "wheel_left.omega", "wheel_right.omega", "wheel_left.torque_drive",
             "wheel_right.torque_drive", "engine.speed", "engine.torque", "torque_converter.speed_ratio",
             "transmission.gear"]
    res = simulate_in_child(companion_fmus["Powertrain"], tmp_path, stop_time=8.0, input_signals=sig,
                            outputs=names)
    # recorded inputs at row i+1 are the ones applied during the step ending there
    pt = Powertrain(data, 1e-3, res["throttle"][0], res["wheel_left.omega"][0], res["wheel_right.omega"][0])
    rows = [(pt.torque_left, pt.torque_right, pt.engine_speed, pt.engine_torque_out, pt.speed_ratio, pt.gear)]
    for i in range(len(res) - 1):
        pt.throttle = res["throttle"][i + 1]
        pt.omega_left, pt.omega_right = res["wheel_left.omega"][i + 1], res["wheel_right.omega"][i + 1]
        pt.step(res["time"][i + 1] - res["time"][i])
        rows.append((pt.torque_left, pt.torque_right, pt.engine_speed, pt.engine_torque_out, pt.speed_ratio,
                     pt.gear))
    got = np.column_stack([res[n] for n in names[3:]])
    assert len(res) == 8001 and set(res["transmission.gear"]) >= {1, 2, 3}
    np.testing.assert_allclose(got, np.array(rows), rtol=0, atol=1e-12)
