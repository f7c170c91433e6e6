"""The linearization of the full cars (``manoeuvres.linearization``, ``modes``, ``linear_report``, ``fmu-vehicle
linearize``; docs/linearization.md): the steady states, the linear model's response to a 0.5 deg steering
step against the nonlinear run's, the finite differences and the neutral states, the modes beside the
single-track model's and why they differ, and the command's files and errors."""
from __future__ import annotations

import json
import math
from functools import cache

import numpy as np
import pytest

from fmu_vehicle.manoeuvres import linearization as lin_mod
from fmu_vehicle.manoeuvres.linear_report import linear_report
from fmu_vehicle.manoeuvres.modes import YAW_SIDESLIP, modes, single_track_modes, yaw_sideslip
from fmu_vehicle.manoeuvres.single_track import G
from fmu_vehicle.manoeuvres.vehicle_model import single_track_of
from fmu_vehicle.tire import tir
from fmu_vehicle.vehicle import Vehicle

SPEED = 80.0 / 3.6
CASES = [("fullcar14", 0.0), ("fullcar14", 0.4), ("midsize14", 0.0), ("midsize14", 0.4)]


@cache
def _vehicle(name):
    return Vehicle.load(name)


@pytest.fixture(scope="module")
def reports():
    """report(name, ay_g): the linear report of the command's defaults (0.5 deg step over 3 s), made once."""
    return cache(lambda name, ay_g: linear_report(_vehicle(name), SPEED, ay_g * G))


@pytest.mark.parametrize("name, ay_g", CASES)
def test_linear_step_response_equals_the_nonlinear_run(reports, name, ay_g):
    """A 0.5 deg steering-wheel step from the steady state: over 3 s the linear model's yaw rate and lateral
    acceleration deviate from the nonlinear run's (RK4, 1 ms, the same instants) by at most 1 % of the peak
    response in the turn and 0.01 % on the straight run, as do the sideslip and roll angle; the responses are
    large enough to mean something."""
    check = reports(name, ay_g).check
    assert check["duration_s"] == 3.0 and check["step_rad"] == pytest.approx(math.radians(0.5))
    assert check["t"][-1] == pytest.approx(3.0)
    bound = 0.01 if ay_g else 1e-4      # straight: the second-order terms vanish by symmetry
    for output in ("chassis.yaw_rate", "chassis.ay", "chassis.sideslip", "chassis.roll"):
        assert check["error"][output] <= bound, (output, check["error"])
    assert np.max(np.abs(check["nonlinear"]["chassis.yaw_rate"])) > 2e-3       # rad/s
    assert np.max(np.abs(check["nonlinear"]["chassis.ay"])) > 0.04            # m/s^2


@pytest.mark.parametrize("name, ay_g", CASES)
def test_the_operating_point_is_a_steady_state(reports, name, ay_g):
    """The speed and lateral acceleration asked for, the reduced derivative zero, a circle ay = v r (chassis axes,
    1 %), and the derivatives' columns of the neutral coordinates zero: the model is well posed without them."""
    report = reports(name, ay_g)
    op, lin = report.op, report.linear
    assert op.outputs["chassis.vx"] == pytest.approx(SPEED, abs=1e-9)
    assert op.outputs["chassis.ay"] == pytest.approx(ay_g * G, abs=1e-9)
    car = _vehicle(name)
    red = lin_mod.ReducedSystem(car, car.system(lin_mod.FLAT), op.y)
    g, _ = red.evaluate(red.state(op.y), op.inputs)
    assert np.max(np.abs(g)) < 1e-7
    r = op.outputs["chassis.yaw_rate"]
    assert op.outputs["chassis.ay"] == pytest.approx(SPEED * r, rel=0.01, abs=1e-12)
    if ay_g == 0.0:
        assert abs(op.steering_wheel_angle_rad) < 1e-9 and abs(op.outputs["chassis.roll"]) < 1e-12
    else:
        assert op.steering_wheel_angle_rad > 0.3 and op.outputs["chassis.roll"] > 0.01   # steers left, rolls out
    assert set(lin.dropped) >= {"chassis.x", "chassis.y", "chassis.yaw", "FL.spin", "RR.spin"}
    assert max(lin.neutral_coupling.values()) < 1e-8, lin.neutral_coupling
    assert lin.fd_check < 1e-4
    assert len(lin.state_names) == lin.A.shape[0] == 29 and lin.B.shape == (29, 5) and lin.C.shape == (7, 29)


def test_straight_run_decouples_the_lateral_from_the_longitudinal_and_vertical_states(reports):
    """Left-right symmetry at the straight run: the lateral states (v, yaw rate, roll) and the steering act on
    neither the speed nor the heave and pitch, and those not on the lateral states, to first order: each cross
    entry of A and B, times a typical size of its state or input, is below 1e-6 of its row's sum of such terms
    (in the 0.4 g turn they are not)."""
    car = _vehicle("fullcar14")
    for ay_g, bound in ((0.0, 1e-6), (0.4, None)):
        lin = reports("fullcar14", ay_g).linear
        s = {n: k for k, n in enumerate(lin.state_names)}
        size = lin_mod.ReducedSystem(car, car.system(lin_mod.FLAT), lin.op.y).sizes(lin.x_op)
        row = np.abs(lin.A) @ size
        lateral = [s[n] for n in ("chassis.v", "chassis.yaw.rate", "chassis.roll", "chassis.roll.rate")]
        symmetric = [s[n] for n in ("chassis.u", "chassis.z", "chassis.pitch", "chassis.z.rate", "chassis.pitch.rate")]
        cross = max(max(np.max(np.abs(lin.A[i, lateral]) * size[lateral]) / row[i] for i in symmetric),
                    max(np.max(np.abs(lin.A[i, symmetric]) * size[symmetric]) / row[i] for i in lateral),
                    max(abs(lin.B[i, 0]) * 0.01 / row[i] for i in symmetric))
        if bound is None:
            assert cross > 1e-3
        else:
            assert cross < bound


@pytest.mark.parametrize("name, ay_g", CASES)
def test_modes_are_stable_and_named_beside_the_single_track_model(reports, name, ay_g):
    """All modes but the speed's (neutral with a held torque) are damped; one yaw/sideslip pair, roll and two
    pitch/bounce modes below 2.5 Hz, four wheel hops near 10-15 Hz; the single-track modes are those of
    ``single_track_of`` at the same speed, and its counterpart is the yaw/sideslip pair."""
    report = reports(name, ay_g)
    found = report.modes
    assert abs(found[0].eigenvalue) < 0.05 and found[0].name == "longitudinal"
    assert all(m.damping_ratio > 0.1 for m in found[1:])
    names = [m.name for m in found if m.natural_frequency_hz < 2.5]
    assert names.count(YAW_SIDESLIP) == 1 and names.count("roll") == 1 and names.count("pitch/bounce") == 2
    hops = [m for m in found if m.family == "wheel hop"]
    assert len(hops) == 4 and all(9.0 < m.natural_frequency_hz < 15.0 for m in hops)
    st = single_track_of(_vehicle(name))
    assert sorted(m.eigenvalue for m in report.single_track_modes) == \
        pytest.approx(sorted(v for v in st.eigenvalues(SPEED) if v.imag >= 0.0), abs=1e-9)
    (pair,) = report.yaw_sideslip
    assert pair.name == YAW_SIDESLIP and pair.eigenvalue.imag > 0.0


def _yaw_pair(car, ay_g=0.0):
    op = lin_mod.operating_point(car, SPEED, ay_g * G)
    lin = lin_mod.linearize(car, op)
    (pair,) = yaw_sideslip(modes(lin.A, lin.state_names))
    return pair


@pytest.mark.parametrize("name", ["fullcar14", "midsize14"])
def test_without_relaxation_aligning_moment_camber_thrust_and_roll_the_yaw_mode_is_the_single_track_models(
        reports, name):
    """What the single-track model leaves out, taken out of the vehicle (docs/linearization.md): the tires'
    relaxation lengths scaled by 0.01, no aligning moment (LTR = LRES = 0) and no camber thrust (LGAY = 0), roll
    held by anti-roll bars of 5 MN m/rad. At 80 km/h straight the yaw/sideslip pair then has the single-track
    model's natural frequency within 5 % and damping ratio within 0.01; as shipped it is 25-45 % above it and
    less damped."""
    st = single_track_modes(single_track_of(_vehicle(name)), SPEED)[0]
    full = reports(name, 0.0).yaw_sideslip[0]
    assert 1.25 < full.natural_frequency_hz / st.natural_frequency_hz < 1.45
    assert full.damping_ratio < st.damping_ratio - 0.05
    bars = {"front": {"roll_stiffness_N_m_per_rad": 5e6}, "rear": {"roll_stiffness_N_m_per_rad": 5e6}}
    car = Vehicle.load(name, overrides={"anti_roll_bars": bars})
    car.tire_p[:, tir.P_LSGAL] *= 0.01
    car.tire_p[:, tir.P_LSGKP] *= 0.01
    car.tire_p[:, [tir.P_LTR, tir.P_LRES, tir.P_LGAY]] = 0.0
    bare = _yaw_pair(car)
    assert bare.natural_frequency_hz == pytest.approx(st.natural_frequency_hz, rel=0.05)
    assert bare.damping_ratio == pytest.approx(st.damping_ratio, abs=0.01)


def test_the_command_writes_loadable_npz_mat_and_a_plot(reports, tmp_path, capsys):
    """``fmu-vehicle linearize`` writes <stem>.npz, .mat (scipy.io.loadmat), .png and _summary.json with the
    linear model of the Python API, and prints the modes and the check."""
    from scipy.io import loadmat

    from fmu_vehicle.cli import main
    assert main(["linearize", "--vehicle", "midsize14", "--speed-kmh", "80", "--ay-g", "0.4", "--out",
                 str(tmp_path), "--quiet"]) == 0
    stem = tmp_path / "midsize14_80kmh_0.4g"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"midsize14_80kmh_0.4g{s}" for s in (".npz", ".mat", ".png", "_summary.json"))
    ref = reports("midsize14", 0.4).linear
    with np.load(f"{stem}.npz") as npz:
        assert np.array_equal(npz["A"], ref.A) and np.array_equal(npz["D"], ref.D)
        assert list(npz["state_names"]) == list(ref.state_names)
        assert list(npz["input_names"])[0] == "steering_wheel_angle"
        assert float(npz["ay_m_s2"]) == pytest.approx(0.4 * G)
        assert npz["eigenvalues"].dtype.kind == "c"
    mat = loadmat(f"{stem}.mat")
    assert np.array_equal(mat["A"], ref.A) and mat["B"].shape == ref.B.shape and mat["C"].shape == ref.C.shape
    assert [str(c[0]) for c in mat["output_names"].ravel()] == list(ref.output_names)
    assert [str(c[0]) for c in mat["state_names"].ravel()] == list(ref.state_names)
    assert (tmp_path / "midsize14_80kmh_0.4g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((tmp_path / "midsize14_80kmh_0.4g_summary.json").read_text())
    assert summary["step_check"]["error"]["chassis.yaw_rate"] <= 0.01
    assert summary["yaw_sideslip"]["vehicle"][0]["mode"] == YAW_SIDESLIP
    out = capsys.readouterr().out
    assert "single-track: yaw/sideslip" in out and "step check" in out


@pytest.mark.parametrize("args, option", [
    (["--speed-kmh", "-5"], "--speed-kmh"),
    (["--ay-g", "nan"], "--ay-g"),
    (["--ay-g", "3"], "--ay-g"),                       # beyond the tires' grip: no steady state
    (["--vehicle", "halfcar7"], "--vehicle"),
    (["--step-deg", "0"], "--step-deg"),
])
def test_a_bad_option_is_one_error_naming_it_and_writes_nothing(tmp_path, capsys, args, option):
    from fmu_vehicle.cli import main
    out = tmp_path / "out"
    assert main(["linearize", *args, "--out", str(out), "--no-check", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fmu-vehicle: error:") and option in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists() or not any(out.iterdir())
