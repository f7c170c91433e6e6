"""Driver.fmu: the path follower behind FMI. Through FMPy (child processes, the FMU's own package copy): the
outputs equal the Python PathFollower fed the same inputs with the same sample-and-hold (lane change with an
offset, a CSV path with tuning parameters changed); a kinematic bicycle driven by the FMU follows the ISO 3888-1
path (signs and units end to end); rollback, serialization and reset are bit-identical; bad input is refused
naming the variable; the vehicle start values are fullcar14's as manoeuvres.runs computes them."""
from __future__ import annotations

import json
import math
import zipfile

import numpy as np
import pytest
from fmpy.validation import validate_fmu
from lxml import etree

from fmu_vehicle.driver.path import Path as DriverPath
from fmu_vehicle.driver.path_follower import PathFollower, load_driver_params
from fmu_vehicle.fmi.driver_parameters import FULLCAR14, VEHICLE
from fmu_vehicle.fmi.slaves.fmu_vehicle_driver import OUTPUTS, TUNING
from fmu_vehicle.manoeuvres.lane_change import lane_change_path
from fmu_vehicle.paths import resource_path

from fmu_cases import BAD_INPUT_HARNESS, DISCARD, STATE_HARNESS, assert_refused, assert_state_bit_identical
from fmi_support import run_child

OUTPUT_NAMES = list(OUTPUTS)
INPUT_NAMES = ("chassis.x", "chassis.y", "chassis.yaw", "chassis.vx", "target_speed")
VEHICLE_VALUES = {name: FULLCAR14[key] for name, (key, *_r) in VEHICLE.items()}
LANE_CHANGE_X0 = 60.0          # m: path.x_offset that puts the built-in path's first point (x = -60 m) at x = 0


@pytest.fixture(scope="module")
def fmu(registered_fmus):
    return registered_fmus["Driver"]


# ------------------------------------------------------------------------------------------ the Python reference

def follower(path: DriverPath, **tuning) -> PathFollower:
    """The Python follower with the FMU's default vehicle (fullcar14) and driver file, ``tuning`` overrides."""
    vehicle = {key: FULLCAR14[key] for key in ("wheelbase_m", "steering_ratio", "mass_kg", "wheel_radius_m")}
    return PathFollower(path, load_driver_params(**vehicle, **tuning), 0.0)


def shifted(path: DriverPath, dx: float, dy: float) -> DriverPath:
    """``path`` translated by (dx, dy): heading and curvature unchanged."""
    return DriverPath(path.x + dx, path.y + dy, path.heading, path.curvature, closed=path.closed, name=path.name)


def reference_rows(f: PathFollower, inputs: list[dict], step_ms: int, period_ms: int) -> tuple[list, list[int]]:
    """Outputs after initialization and after every step j (start t_j = j h) of ``f`` driven as the FMU must:
    a command at t0 = 0 and at the first step start at or after each multiple k T, k >= 1, held in between.
    Step j samples when a multiple of T lies in (t_{j-1}, t_j] (integer milliseconds, no rounding)."""
    h = step_ms * 1e-3

    def command(t, u):
        f.speed = u["target_speed"]
        swa, torque = f.command(t, u["chassis.x"], u["chassis.y"], u["chassis.yaw"], u["chassis.vx"])
        last = f.last
        return (swa, torque, min(max(torque / (9000.0 * 0.4672), 0.0), 1.0), min(max(-torque / 14000.0, 0.0), 1.0),
                last["lateral_error_m"], last["heading_error_rad"], last["s_m"])

    held = command(0.0, inputs[0])
    rows, sampled = [held], []
    for j, u in enumerate(inputs):
        if j > 0 and (step_ms * j) // period_ms > (step_ms * (j - 1)) // period_ms:
            held = command(j * h, u)
            sampled.append(j)
        rows.append(held)
    return rows, sampled


def input_sequence(n: int, h: float, x0: float = 0.0) -> list[dict]:
    """Inputs at the step starts t = j h: a car weaving about the path, its speed and the target speed swinging
    so that the speed error changes sign (drive and brake)."""
    rows = []
    for j in range(n):
        t = j * h
        rows.append({"chassis.x": x0 + 16.0 * t + 0.2 * math.sin(3.0 * t),
                     "chassis.y": 0.2 + 0.4 * math.sin(2.0 * math.pi * 0.7 * t),
                     "chassis.yaw": 0.08 * math.sin(2.0 * math.pi * 0.5 * t + 0.3),
                     "chassis.vx": 16.0 + 1.5 * math.sin(2.0 * math.pi * 0.4 * t),
                     "target_speed": 16.0 + 2.0 * math.sin(2.0 * math.pi * 1.0 * t)})
    return rows


EQUAL_CHILD = """
fmu = Fmu(INPUTS['fmu'])
vrs = [fmu.vr[n] for n in INPUTS['outputs']]
RESULT = {}
for label, case in INPUTS['cases'].items():
    f = fmu.new(label, init=False, start=case['start'])
    f.enterInitializationMode()
    for name, value in case['inputs'][0].items():
        f.setReal([fmu.vr[name]], [value])
    f.exitInitializationMode()
    rows = [tuple(f.getReal(vrs))]
    h = case['h']
    for j, u in enumerate(case['inputs']):
        for name, value in u.items():
            f.setReal([fmu.vr[name]], [value])
        assert do_step(f, j * h, h) == 0, MESSAGES[-3:]
        rows.append(tuple(f.getReal(vrs)))
    f.terminate()
    f.freeInstance()
    RESULT[label] = rows
"""

#: label -> (FMU start values, Python path, Python tuning overrides, step [ms], sample period [ms])
EQUAL_CASES = {
    "lane_change": ({"path.x_offset": LANE_CHANGE_X0},
                    lambda: shifted(lane_change_path(FULLCAR14["width_m"]), LANE_CHANGE_X0, 0.0), {}, 3, 10),
    "csv_tuned": ({"path": "lane_shift", "path.y_offset": -0.2, "sample_period": 0.005, "preview_time": 0.6,
                   "steering_wheel_angle_max": 3.0, "speed_kp": 3.0},
                  lambda: shifted(DriverPath.from_csv(resource_path("paths", "lane_shift.csv")), 0.0, -0.2),
                  {"preview_time_s": 0.6, "steering_wheel_angle_max_deg": math.degrees(3.0), "speed_kp_1_per_s": 3.0},
                  2, 5),
}
N_EQUAL = 300
#: (step [ms], sample period [ms]) -> the first four steps that sample (reference_rows)
FIRST_SAMPLES = {(3, 10): [4, 7, 10, 14], (2, 5): [3, 5, 8, 10]}


@pytest.fixture(scope="module")
def equal_runs(fmu, tmp_path_factory):
    cases = {label: {"start": start, "h": step_ms * 1e-3, "inputs": input_sequence(N_EQUAL, step_ms * 1e-3)}
             for label, (start, _path, _tuning, step_ms, _period) in EQUAL_CASES.items()}
    return cases, run_child(EQUAL_CHILD, tmp_path_factory.mktemp("driver_equal"), fmu=str(fmu),
                            outputs=OUTPUT_NAMES, cases=cases)


@pytest.mark.parametrize("label", list(EQUAL_CASES))
def test_fmu_equals_the_python_follower_with_sample_and_hold(equal_runs, label):
    """The FMU's outputs after initialization and after each of 300 steps equal PathFollower.command called at
    t0 and at the first step start at or after each multiple of sample_period (3 ms steps on 10 ms: samples at
    12, 21, 30, 42 ... ms; 2 ms steps on 5 ms, a CSV path shifted by -0.2 m and three tuning parameters
    changed), the command held in between."""
    cases, got = equal_runs
    _start, make_path, tuning, step_ms, period_ms = EQUAL_CASES[label]
    expected, sampled = reference_rows(follower(make_path(), **tuning), cases[label]["inputs"], step_ms, period_ms)
    assert sampled[:4] == FIRST_SAMPLES[step_ms, period_ms]
    assert len(sampled) == (N_EQUAL - 1) * step_ms // period_ms          # multiples of T in (0, t_last]
    got_rows = np.array(got[label])
    exp_rows = np.array(expected)
    assert got_rows.shape == exp_rows.shape == (N_EQUAL + 1, len(OUTPUT_NAMES))
    assert np.max(np.abs(got_rows - exp_rows)) <= 1e-12
    held = [j for j in range(1, N_EQUAL + 1) if j - 1 not in sampled]
    assert all(tuple(got_rows[j]) == tuple(got_rows[j - 1]) for j in held)        # held between samples
    col = {name: got_rows[:, i] for i, name in enumerate(OUTPUT_NAMES)}
    assert col["throttle"].max() > 0.05 and col["brake"].max() > 0.05                # both signs of torque
    assert np.ptp(col["steering_wheel_angle"]) > 0.5 and np.ptp(col["lateral_error"]) > 0.3


# ------------------------------------------------------------------------------------------ the path choice

PATH_X0 = 60.0
"""x [m] where the car starts in the path-choice runs: 0.9 s later it is at 74 m, where the shipped paths differ
(lane_shift has shifted by 3.5 m at 70 m, truck_lane_change starts its shift at 60 m, the built-in ISO 3888-1 path
is in its second lane change)."""


def _shipped(name: str) -> DriverPath:
    """The Python path of Driver.fmu's path option ``name``."""
    from fmu_vehicle.fmi.driver_parameters import LANE_CHANGE
    if name == LANE_CHANGE:
        return lane_change_path(FULLCAR14["width_m"])
    return DriverPath.from_csv(resource_path("paths", f"{name}.csv"))


@pytest.fixture(scope="module")
def path_runs(fmu, tmp_path_factory):
    """The FMU run with each option of its path enumeration, and with a user's path_file next to the option
    lane_shift (the file wins): 300 steps of 3 ms, the driver at 10 ms, the car weaving from x = PATH_X0."""
    from fmu_vehicle.fmi.driver_parameters import SHIPPED_PATHS
    folder = tmp_path_factory.mktemp("driver_paths")
    own = folder / "own_path.csv"
    truck = _shipped("truck_lane_change")
    own.write_text("x_m,y_m\n" + "".join(f"{float(x)!r},{float(y) - 1.0!r}\n"
                                          for x, y in zip(truck.x[::50], truck.y[::50])))
    inputs = input_sequence(N_EQUAL, 3e-3, x0=PATH_X0)
    cases = {name: {"start": {"path": name}, "h": 3e-3, "inputs": inputs} for name in SHIPPED_PATHS}
    cases["own_file"] = {"start": {"path": "lane_shift", "path_file": str(own), "allow_external_files": True},
                         "h": 3e-3, "inputs": inputs}
    got = run_child(EQUAL_CHILD, folder, fmu=str(fmu), outputs=OUTPUT_NAMES, cases=cases)
    expected = {name: DriverPath.from_csv(own) if name == "own_file" else _shipped(name) for name in cases}
    return inputs, got, expected


def test_each_path_option_drives_its_shipped_path(path_runs):
    """Each item of the path enumeration (set by fmi2SetInteger) gives the outputs of the Python follower on that
    shipped path, to 1e-12; the paths differ where the car is, and so do the lateral errors (by metres); a user's
    path_file replaces the option."""
    inputs, got, expected = path_runs
    assert list(got) == ["iso3888_1_double_lane_change", "lane_shift", "truck_lane_change", "own_file"]
    error = {}
    for name, rows in got.items():
        reference, _sampled = reference_rows(follower(expected[name]), inputs, 3, 10)
        np.testing.assert_allclose(np.array(rows), np.array(reference), rtol=0.0, atol=1e-12, err_msg=name)
        error[name] = np.array(rows)[:, OUTPUT_NAMES.index("lateral_error")]
    names = list(got)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert np.max(np.abs(error[a] - error[b])) > 0.5, (a, b)
    # the car weaves about y = 0.2 m: on lane_shift (3.5 m to the left by then) it is about 3.3 m right of the path
    assert np.mean(error["lane_shift"]) < -3.0 < np.mean(error["truck_lane_change"])
    # the user's file is the truck path 1 m to the right: the error is about 1 m more to the left
    assert np.mean(error["own_file"] - error["truck_lane_change"]) == pytest.approx(1.0, abs=0.05)


# ------------------------------------------------------------------------------------------ closed loop

CLOSED_LOOP_CHILD = """
V = INPUTS['vehicle']
fmu = Fmu(INPUTS['fmu'])
f = fmu.new('loop', init=False, start=INPUTS['start'])
vr = fmu.vr
h, speed = INPUTS['h'], INPUTS['speed']
x, y, yaw, v = 0.0, 0.0, 0.0, INPUTS['v0']
def set_inputs():
    f.setReal([vr['chassis.x'], vr['chassis.y'], vr['chassis.yaw'], vr['chassis.vx'], vr['target_speed']],
              [x, y, yaw, v, speed])
f.enterInitializationMode()
set_inputs()
f.exitInitializationMode()
track, k = [], 0
out = [vr[n] for n in ('steering_wheel_angle', 'wheel_torque', 'lateral_error')]
while x < INPUTS['x_end']:
    set_inputs()
    assert do_step(f, k * h, h) == 0, MESSAGES[-3:]
    swa, torque, e = f.getReal(out)
    track.append((k * h, x, y, yaw, v, swa, torque, e))
    # kinematic bicycle over [t, t + h] with the command held (explicit Euler)
    delta = swa / V['vehicle.steering_ratio']
    x, y, yaw, v = (x + h * v * math.cos(yaw), y + h * v * math.sin(yaw),
                    yaw + h * v * math.tan(delta) / V['vehicle.wheelbase'],
                    v + h * torque / (V['vehicle.mass'] * V['vehicle.wheel_radius']))
    k += 1
f.terminate()
f.freeInstance()
RESULT = np.array(track)
"""


def test_kinematic_bicycle_driven_by_the_fmu_follows_the_lane_change(fmu, tmp_path):
    """A kinematic bicycle with fullcar14's wheelbase and steering ratio, x' = v cos(yaw), y' = v sin(yaw),
    yaw' = v tan(delta_sw / i_s) / L, v' = wheel_torque / (m r_w), starting 0.3 m right of the path at
    50 km/h below a 60 km/h target, driven through the FMU (5 ms steps, the driver at 10 ms) along the ISO
    3888-1 centre line: it converges and then stays within 0.3 m of the path through both lane changes, and
    reaches the target speed. A wrong sign of the steering, yaw or lateral error or a unit error diverges."""
    speed = 60.0 / 3.6
    width = FULLCAR14["width_m"]
    lane = lane_change_path(width)
    path = shifted(lane, LANE_CHANGE_X0, 0.3)            # the car starts 0.3 m right of the path's start
    x_end = float(path.x[-1]) - 10.0
    track = run_child(CLOSED_LOOP_CHILD, tmp_path, fmu=str(fmu), vehicle=VEHICLE_VALUES, h=5e-3, speed=speed,
                      v0=50.0 / 3.6, x_end=x_end, start={"path.x_offset": LANE_CHANGE_X0, "path.y_offset": 0.3})
    t, x, y, yaw, v, swa, torque, e_fmu = track.T
    s, e = path.project(x, y)
    assert x[-1] > x_end - 1.0 and s[-1] > 200.0
    assert abs(e[0] + 0.3) < 1e-12                                     # started right of the path
    settled = t > 2.0                                                  # the run-in is 60 m (about 4 s)
    assert np.max(np.abs(e[settled])) < 0.3
    assert np.max(np.abs(e)) < 0.31                                    # no overshoot of the initial offset
    gates = (x - LANE_CHANGE_X0 > 15.0) & (x - LANE_CHANGE_X0 < 70.0)
    assert np.max(y[gates]) > 3.5                                      # the lane change really happened
    assert np.max(np.abs(swa)) > 0.5 and np.min(swa) < 0.0 < np.max(swa)
    assert abs(v[-1] - speed) < 0.1
    assert np.max(np.abs(e_fmu[settled])) < 0.3


# ------------------------------------------------------------------------------------------ state

STATE_CHILD = """
H = 1e-3
drv = Fmu(INPUTS['fmu'])
START = INPUTS['start']
def drive(k):
    t = k * H
    return {'chassis.x': 16.0 * t, 'chassis.y': 0.3 * math.sin(2.0 * math.pi * 0.8 * t),
            'chassis.yaw': 0.05 * math.sin(2.0 * math.pi * 0.8 * t + 0.5),
            'chassis.vx': 16.0 + math.sin(2.0 * math.pi * 0.5 * t),
            'target_speed': 16.0 + 2.0 * math.sin(2.0 * math.pi * t)}
def other(k):
    t = k * H
    return {'chassis.x': 10.0 * t, 'chassis.y': -0.5, 'chassis.yaw': 0.0, 'chassis.vx': 10.0, 'target_speed': 12.0}
RESULT = check_state(drv, drive, 1500, 777, start=START, other_drive=other,
                     other_start={**START, 'path.y_offset': 0.5}, restore_start=START)
"""


def test_rollback_serialization_reset_and_interleaving_are_bit_identical(fmu, tmp_path):
    """State saved at 0.777 s, between two samples of a 5 ms driver (the next at 0.780 s): rollback, twice from
    one state object, serialized into an initialized and into an instantiated instance, fmi2Reset and two
    instances stepped interleaved all continue bit for bit (the follower's integrals, last yaw, path hint and
    the next sample instant are in the state)."""
    r = run_child(STATE_HARNESS + STATE_CHILD, tmp_path, fmu=str(fmu),
                  start={"path.x_offset": LANE_CHANGE_X0, "sample_period": 0.005})
    assert_state_bit_identical(r, other_differs=True)
    assert r["at_save"] == r["full"][776]
    assert r["ref"][0] == r["ref"][1] == r["ref"][2] == r["full"][775]   # the 0.775 s command held ...
    assert r["ref"][3] != r["ref"][2]                                  # ... until the sample at 0.780 s


# ------------------------------------------------------------------------------------------ bad input

BAD_CHILD = """
drv = Fmu(INPUTS['fmu'])
one, bad_driver = INPUTS['one_point'], INPUTS['bad_driver']
case(drv, 'nan_input', actions=[('step', 0.0, 1e-3), ('set', 'Real', 'chassis.x', math.nan), ('step', 1e-3, 1e-3),
                                ('set', 'Real', 'chassis.x', 0.0), ('step', 1e-3, 1e-3)])
case(drv, 'speed_range', actions=[('set', 'Real', 'target_speed', -1.0), ('step', 0.0, 1e-3)])
case(drv, 'missing_path', start={'path_file': 'paths/none.csv'}, actions=[('step', 0.0, 1e-3)])
case(drv, 'one_point_path', start={'path_file': one, 'allow_external_files': True}, actions=[('step', 0.0, 1e-3)])
case(drv, 'external_path', start={'path_file': one}, actions=[('step', 0.0, 1e-3)])
case(drv, 'zero_sample_period', start={'sample_period': 0.0}, actions=[('step', 0.0, 1e-3)])
case(drv, 'nan_parameter', start={'preview_time': math.nan}, actions=[('step', 0.0, 1e-3)])
case(drv, 'missing_driver', start={'driver_file': 'drivers/none.json'}, actions=[('step', 0.0, 1e-3)])
case(drv, 'driver_not_json', start={'driver_file': 'paths/lane_shift.csv'}, actions=[('step', 0.0, 1e-3)])
case(drv, 'bad_driver', start={'driver_file': bad_driver, 'allow_external_files': True},
     actions=[('step', 0.0, 1e-3)])
case(drv, 'width_range', start={'vehicle.width': 3.5}, actions=[('step', 0.0, 1e-3)])
case(drv, 'csv_path_ok', start={'path_file': 'lane_shift.csv'}, actions=[('step', 0.0, 1e-3)])
RESULT = BAD
"""


@pytest.fixture(scope="module")
def bad(fmu, tmp_path_factory):
    folder = tmp_path_factory.mktemp("driver_bad")
    one = folder / "one_point.csv"
    one.write_text("x_m,y_m\n0.0,0.0\n")
    bad_driver = folder / "bad_driver.json"
    bad_driver.write_text(json.dumps({"type": "PathFollower", "preview_time_s": -1.0}))
    return run_child(BAD_INPUT_HARNESS + BAD_CHILD, folder, fmu=str(fmu), one_point=str(one),
                     bad_driver=str(bad_driver))


@pytest.mark.parametrize("case, statuses, words", [
    ("nan_input", [0, DISCARD, 0], ["input 'chassis.x'", "nan"]),
    ("speed_range", [DISCARD], ["input 'target_speed'", "below min"]),
    ("missing_path", [DISCARD], ["parameter 'path_file'", "none.csv", "no such file"]),
    ("one_point_path", [DISCARD], ["parameter 'path_file'", "one_point.csv", "at least 2 points"]),
    ("external_path", [DISCARD], ["parameter 'path_file'", "outside the FMU resources"]),
    ("zero_sample_period", [DISCARD], ["parameter 'sample_period'", "below min"]),
    ("nan_parameter", [DISCARD], ["parameter 'preview_time'", "not finite"]),
    ("missing_driver", [DISCARD], ["parameter 'driver_file'", "none.json"]),
    ("driver_not_json", [DISCARD], ["parameter 'driver_file'", ".json file"]),
    ("bad_driver", [DISCARD], ["parameter 'driver_file'", "preview_time_s must be positive"]),
    ("width_range", [DISCARD], ["parameter 'vehicle.width'", "above max"]),
])
def test_bad_input_is_refused_with_a_message_naming_the_variable(bad, case, statuses, words):
    assert_refused(bad[case], statuses, words)


def test_a_shipped_csv_path_is_found_in_the_paths_folder(bad):
    assert bad["csv_path_ok"]["statuses"] == [0] and bad["csv_path_ok"]["message"] is None


# ------------------------------------------------------------------------------------------ the FMU file

def test_fmu_validates_and_ships_its_data_and_requirements(fmu):
    assert validate_fmu(str(fmu)) == []
    with zipfile.ZipFile(fmu) as z:
        root = etree.fromstring(z.read("modelDescription.xml"))
        names = set(z.namelist())
        requirements = {line.split(">")[0].split("=")[0]
                        for line in z.read("resources/requirements.txt").decode().split()}
    assert {"resources/drivers/preview_driver.json", "resources/paths/lane_shift.csv"} <= names
    # scipy: the spline of a CSV path; llvmlite: the shared kernels' symbols (fmu_vehicle.numerics)
    assert requirements == {"llvmlite", "numba", "numpy", "scipy"}
    cs = root.find("CoSimulation")
    assert cs.get("canGetAndSetFMUstate") == cs.get("canSerializeFMUstate") == "true"
    variables = {sv.get("name"): sv for sv in root.find("ModelVariables")}
    assert {n for n, sv in variables.items() if sv.get("causality") == "output"} == set(OUTPUTS)
    assert {n for n, sv in variables.items() if sv.get("causality") == "input"} == set(INPUT_NAMES)
    for sv in variables.values():
        assert sv.get("description"), sv.get("name")
    start = {n: float(sv[0].get("start")) for n, sv in variables.items() if sv[0].tag == "Real" and sv[0].get("start")}
    driver = json.loads(resource_path("drivers", "preview_driver.json").read_text())
    for name, row in TUNING.items():                                  # start values: the driver file's
        assert start[name] == pytest.approx(driver[row.field] * row.factor, rel=1e-15), name
    assert start["steering_wheel_angle_max"] == pytest.approx(math.radians(540.0), rel=1e-15)
    assert {n: start[n] for n in VEHICLE} == pytest.approx(VEHICLE_VALUES, rel=1e-15)


def test_vehicle_start_values_are_fullcar14_as_the_manoeuvres_compute_them():
    """wheelbase, steering ratio, mass (single_track_of: a static solve), mean free tire radius and overall width
    of fullcar14, as manoeuvres.runs.driver_for and vehicle_width compute them, to 1e-6 relative."""
    from fmu_vehicle.manoeuvres.runs import vehicle_width
    from fmu_vehicle.manoeuvres.vehicle_model import single_track_of
    from fmu_vehicle.vehicle import Vehicle

    car = Vehicle.load("fullcar14")
    st = single_track_of(car)
    computed = {"vehicle.wheelbase": st.wheelbase_m, "vehicle.steering_ratio": st.steering_ratio,
                "vehicle.mass": st.mass_kg, "vehicle.wheel_radius": float(np.mean(car.tire_p[:, 0])),
                "vehicle.width": vehicle_width(car)}
    assert VEHICLE_VALUES == pytest.approx(computed, rel=1e-6)
    from fmu_vehicle.fmi.slaves.fmu_vehicle_driver import Driver
    starts = {v.name: v.start for v in Driver.VARIABLES if v.name in computed}
    assert starts == pytest.approx(computed, rel=1e-6)


def test_follower_state_round_trip_continues_bit_identically():
    """PathFollower.get_state/set_state (Python level): a follower restored mid-run into a fresh follower on the
    same path continues with the same commands as the original, bit for bit; a snapshot with a hint beyond the
    path is refused."""
    path = lane_change_path(FULLCAR14["width_m"])
    inputs = input_sequence(200, 0.01, x0=-60.0)
    a, b = follower(path), follower(path)
    for j, u in enumerate(inputs[:120]):
        a.speed = u["target_speed"]
        a.command(j * 0.01, u["chassis.x"], u["chassis.y"], u["chassis.yaw"], u["chassis.vx"])
    state = a.get_state()
    b.set_state(json.loads(json.dumps(state)))                         # through plain data
    for j, u in enumerate(inputs[120:], start=120):
        a.speed = b.speed = u["target_speed"]
        args = (j * 0.01, u["chassis.x"], u["chassis.y"], u["chassis.yaw"], u["chassis.vx"])
        assert a.command(*args) == b.command(*args)
        assert a.last == b.last
    from fmu_vehicle.errors import ModelError
    with pytest.raises(ModelError, match="hint"):
        b.set_state({**state, "hint": path.x.size})
