"""ABS on the full car (fullcar14, hydraulic brakes fullcar14, 600 N pedal = the master cylinder's 180 bar run-out,
well above the about 110 bar that locks every wheel on dry asphalt): stopping distance against the mu-limited
ideal and its repeatability over pedal onsets 1 ms apart, the slip against the tire's own peak slip, the slip band,
steerability, split-friction yaw, a deliberately broken slip controller, tuning errors and the state saved and
restored bit for bit."""
import math

import numpy as np
import pytest

from fmu_vehicle.control.abs import AntiLock
from fmu_vehicle.control.closed_loop import controlled_vehicle, sensors_from
from fmu_vehicle.control.ecu import ChassisController, load_tuning
from fmu_vehicle.control.hydraulics import load_brake_system
from fmu_vehicle.driver.profile import SteeringProfile
from fmu_vehicle.errors import ModelError
from fmu_vehicle.control import braking
from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire.pacejka import mf_fx0
from fmu_vehicle.tire.tir import read_tir
from fmu_vehicle.vehicle import Vehicle

ONLY_ABS = {"esc": False, "tcs": False}
STEER = SteeringProfile([0.0, 0.5, 0.8], [0.0, 0.0, math.radians(60.0)])   # 60 deg left during the stop


@pytest.fixture(scope="module")
def car():
    return Vehicle.load("fullcar14")


@pytest.fixture(scope="module")
def brakes(car):
    return load_brake_system("fullcar14", car.wheel_names)


@pytest.fixture(scope="module")
def cv(car, brakes):
    return controlled_vehicle(car, brakes)


def abs_unit(cv, **abs_tuning):
    tuning = load_tuning()
    tuning["abs"].update(abs_tuning)
    return ChassisController(cv, tuning, enabled=ONLY_ABS)


@pytest.fixture(scope="module")
def dry_stop(car, brakes, cv):
    return braking.straight_braking(car, brakes, abs_unit(cv), mu=1.0)


def test_stopping_distance_on_dry_road_within_108_percent_of_ideal(car, brakes, dry_stop):
    """From 100 km/h on mu = 1.0: with ABS 39.9 m from the brake onset (ideal v^2/(2 g) = 39.3 m, ratio 1.015);
    locked wheels slide at the tire's locked friction 0.77 and need 51.6 m (ratio 1.31)."""
    _, k = dry_stop
    assert k["speed_at_onset_m_s"] == pytest.approx(100 / 3.6, abs=0.05)
    assert k["ideal_distance_m"] == pytest.approx(39.27, abs=0.05)
    assert k["ratio"] <= 1.08
    assert k["ratio"] > 0.93                          # no more than the tire's peak friction (1.0-1.09)
    _, locked = braking.straight_braking(car, brakes, None, mu=1.0)
    assert locked["ratio"] == pytest.approx(1.31, abs=0.02)
    assert locked["stopping_distance_m"] - k["stopping_distance_m"] > 10.0


def peak_slip(car, cv, mu: float) -> float:
    """The brake slip (> 0) of the front tire's force peak at its static load on a road of friction mu, from the
    tire model itself (Magic Formula Fx0 on a 1e-5 grid)."""
    fz = 0.5 * cv.mass_kg * braking.G * cv.b_m / (cv.a_m + cv.b_m)
    p = read_tir(resource_path("tires", car.spec.wheels[0].tire_file)).to_array()
    kappa = np.linspace(-0.5, 0.0, 50001)
    return -float(kappa[np.argmin([mf_fx0(p, fz, k, mu) for k in kappa])])


ONSETS_S = {mu: braking.BRAKE_AT_S + 0.001 * np.arange(10) for mu in (0.3, 0.8, 1.0)}
"""Pedal onsets 1 ms apart per friction: the unit samples every 10 ms, so 10 onsets put the onset at every phase
of its sampling once (the engineer's measurement ran 20 on each friction: the same spread)."""


@pytest.fixture(scope="module")
def onset_series(car, brakes, cv):
    """mu -> (stopping-distance ratios, front slip medians) of full ABS stops from 100 km/h at ``ONSETS_S[mu]``
    (one unit, one process: about 2 s a stop on mu 0.3, under 1 s on 0.8 and 1.0)."""
    unit = abs_unit(cv)
    out = {}
    for mu in (0.3, 0.8, 1.0):
        ratios, medians = [], []
        for t_on in ONSETS_S[mu]:
            _, k = braking.straight_braking(car, brakes, unit, mu=mu, brake_at_s=float(t_on))
            ratios.append(k["ratio"])
            medians.append([k[f"{w}.slip_median"] for w, front in zip(car.wheel_names, cv.front) if front])
        out[mu] = np.array(ratios), -np.array(medians)
    return out


@pytest.mark.parametrize("mu, ratio_max", [(0.3, 1.15), (0.8, 1.08), (1.0, 1.08)])
def test_abs_stops_repeatably_near_the_ideal_and_near_the_tires_peak_slip(car, cv, onset_series, mu, ratio_max):
    """ISO 21994-style stops from 100 km/h, the pedal onset moved in 1 ms steps over the unit's 10 ms sampling
    period on each friction: every stop within
    ratio_max x v^2/(2 mu g) (measured: mu 0.3 0.973-0.974, 0.8 0.999-1.000, 1.0 1.015-1.016) and the distances
    within 2 % of each other (measured: under 0.2 %); the front wheels' median slip (from their first release,
    v_x >= 5 m/s) within +-50 % of the slip at which the tire's own force peaks at that friction (4.7 %, 12.6 %,
    15.8 %; measured 4.2 %, 11.2 %, 13.9 %). The former phase-cycle ABS spread 1.09-1.22 on mu 0.3 with a
    front-slip median of 15 %."""
    ratios, medians = onset_series[mu]
    assert np.all(ratios <= ratio_max), ratios
    assert np.all(ratios > 0.9), ratios                # not beyond the tire's peak friction
    assert (ratios.max() - ratios.min()) / ratios.min() < 0.02, ratios
    peak = peak_slip(car, cv, mu)
    assert peak == pytest.approx(0.158 * mu, rel=0.05)    # the peak slip grows with the friction
    assert np.all(np.abs(medians / peak - 1.0) < 0.5), (medians, peak)


def test_low_friction_stop_with_abs(car, brakes, cv):
    """From 100 km/h on mu = 0.3: with ABS 127.4 m (ideal 130.9 m, ratio 0.974: the tire's peak friction is
    0.31-0.32 there), every wheel's slip in the band after its first release; locked wheels need 195.6 m
    (ratio 1.49)."""
    _, on = braking.straight_braking(car, brakes, abs_unit(cv), mu=0.3)
    _, off = braking.straight_braking(car, brakes, None, mu=0.3)
    assert on["ratio"] < 1.0
    assert off["ratio"] == pytest.approx(1.49, abs=0.03)
    assert on["slip_band_fraction"] >= 0.98
    assert all(on[f"{w}.abs_cycled"] == 1.0 for w in car.wheel_names)


def test_every_wheel_slip_stays_in_band_after_first_cycle(car, dry_stop):
    """Every wheel comes under control, and after its first release (while v_x >= 5 m/s) at least 98 % of the
    1 ms samples of its slip (omega r_e - v_x)/v_x lie in the band -0.30 .. +0.05, and none below -0.35 (no lock;
    without ABS every wheel locks, slip -1). The wheels hold, dump and build under control."""
    res, k = dry_stop
    for w in car.wheel_names:
        assert k[f"{w}.abs_cycled"] == 1.0, w
        assert k[f"{w}.slip_band_fraction"] >= 0.98, (w, k[f"{w}.slip_band_fraction"])
        assert k[f"{w}.slip_min"] > -0.35, (w, k[f"{w}.slip_min"])
    phases = np.array([res[f"abs.phase_{w}"] for w in car.wheel_names])
    assert {0, 1, 2, 3} <= set(np.unique(phases).astype(int))       # every phase is used
    modes = np.array([res[f"ecu.mode_{w}"] for w in car.wheel_names])
    assert {0, 1, 2} <= set(np.unique(modes).astype(int))           # the valves build, hold and dump


def test_the_valves_realise_the_pressure_limit_below_the_drivers_pressure(car, dry_stop):
    """Under control each wheel's pressure follows ABS's limit (the outlet valve dumps at up to 2 bar per 1 ms
    step towards a limit set at the sample: never more than 10 bar above it, mostly on it), far below the
    driver's 180 bar, and the friction estimate settles at the road's friction (1.0 dry, the tire's peak
    1.03-1.07)."""
    res, _ = dry_stop
    late = (res.time > 0.8) & (res["chassis.vx"] > 5.0)
    for w in car.wheel_names:
        limit, p = res[f"abs.pressure_limit_{w}"][late], res[f"brakes.pressure_{w}"][late]
        assert np.all(p <= limit + 10e5), w
        assert np.median(np.abs(p - limit)) < 1e5, w
        assert np.max(p) < 0.8 * res["brakes.master_cylinder_pressure"][late].min(), w
    mu = res["abs.friction_estimate"][late]
    assert 0.9 < np.median(mu) < 1.1


def test_steering_changes_heading_with_abs_not_with_locked_wheels(car, brakes, cv):
    """60 deg steering-wheel angle to the left during the stop: with ABS the car turns left by about 21 deg;
    with locked front wheels the steering has no effect in its direction (the car ends 9 deg to the right)."""
    _, on = braking.straight_braking(car, brakes, abs_unit(cv), steer=STEER)
    _, off = braking.straight_braking(car, brakes, None, steer=STEER)
    assert on["heading_change_deg"] > 15.0
    assert off["heading_change_deg"] < 2.0
    assert on["max_yaw_rate_rad_s"] > 0.15


def test_split_mu_yaw_rate_below_the_spin_bound_with_abs(car, brakes, cv):
    """ISO 14512, steering wheel held straight: without ABS the car spins (peak yaw rate -1.6 rad/s, heading
    -86 deg, sideslip 88 deg), its yaw rate far above mu_high g / v; with ABS (rear select-low, yaw-moment
    build-up limiting and the high-friction wheels held at the slip set-point of the mean friction) it stays
    below 0.4 of that bound (0.29) and turns 9 deg; with a counter-steering driver the heading stays within
    10 deg (9.4 deg, bound ratio 0.33: the driver's 0.2 s late counter-steer adds yaw of its own)."""
    _, on = braking.split_mu_braking(car, brakes, abs_unit(cv))
    _, off = braking.split_mu_braking(car, brakes, None)
    assert off["yaw_rate_bound_ratio"] > 1.5 and abs(off["heading_change_deg"]) > 60.0
    assert off["max_abs_sideslip_deg"] > 45.0
    assert on["yaw_rate_bound_ratio"] < 0.4
    assert abs(on["max_yaw_rate_rad_s"]) < 0.16 and abs(on["heading_change_deg"]) < 12.0
    assert on["max_abs_sideslip_deg"] < 3.0 and on["stopped"] == 1.0
    _, driven = braking.split_mu_braking(car, brakes, abs_unit(cv), driver=braking.CounterSteerDriver())
    assert driven["max_abs_heading_deviation_deg"] < 10.0
    assert driven["yaw_rate_bound_ratio"] < 0.5


def test_yaw_moment_limiting_slows_the_split_mu_yaw_build_up(car, brakes, cv):
    """Yaw-moment build-up limiting gives the driver time: in the first 0.5 s after the brake onset the peak yaw
    rate is 0.037 rad/s with it and 0.058 rad/s without (t_ym = 0); the heading after 1 s and the peak yaw rate
    of the whole stop (0.127 against 0.131 rad/s) are lower too."""
    runs = {}
    for t_ym in (1.0, 0.0):
        res, k = braking.split_mu_braking(car, brakes, abs_unit(cv, yaw_moment_limit_time_s=t_ym))
        k0 = braking.brake_onset_index(res.time, [res[f"brakes.pressure_{w}"] for w in car.wheel_names])
        t0 = res.time[k0]
        early = (res.time >= t0) & (res.time <= t0 + 0.5)
        k1 = int(np.searchsorted(res.time, t0 + 1.0))
        runs[t_ym] = (float(np.abs(res["chassis.yaw_rate"][early]).max()),
                      math.degrees(abs(res["chassis.yaw"][k1] - res["chassis.yaw"][k0])), abs(k["max_yaw_rate_rad_s"]))
    on, off = runs[1.0], runs[0.0]
    assert on[0] < 0.75 * off[0]
    assert on[1] < off[1]
    assert on[2] < off[2]


def test_broken_slip_controller_fails_the_stopping_criterion(car, brakes, cv):
    """The slip controller's gains with their signs flipped (less pressure the less the wheel slips): once under
    control the wheels are dumped to nothing and the car does not stop within 5 s (11 m/s left), so the
    stopping-distance criterion fails."""
    unit = abs_unit(cv)
    anti_lock = next(f for f in unit.functions if f.name == "abs")
    anti_lock.k_p, anti_lock.k_i = -anti_lock.k_p, -anti_lock.k_i
    with pytest.raises(ModelError, match="does not stop"):
        braking.straight_braking(car, brakes, unit, mu=1.0, duration=5.0)


def test_braking_in_turn_keeps_the_circle_better_with_abs(car, brakes, cv):
    """ISO 7975 on R = 100 m at 5 m/s^2 nominal (4.4 m/s^2 reached): braking with the steering wheel held, ABS
    keeps the path within 0.6 m of the circle 1 s after the onset (0.3 m), locked wheels drift 1.6 m outward
    and lose 5.0 deg of heading against the circle (ABS: 0.8 deg)."""
    _, on = braking.braking_in_turn(car, brakes, abs_unit(cv))
    _, off = braking.braking_in_turn(car, brakes, None)
    assert on["yaw_rate_at_onset_rad_s"] == pytest.approx(0.196, abs=0.01)
    assert abs(on["path_deviation_m"]) < 0.6
    assert off["path_deviation_m"] > 1.2
    assert abs(on["heading_deviation_deg"]) < abs(off["heading_deviation_deg"]) - 2.0


def test_tuning_errors_name_the_key(cv):
    tuning = load_tuning()["abs"]
    for key, bad in (("peak_slip_per_friction", -0.1), ("wheel_decel_hold_m_s2", "x"), ("friction_max", 0.0)):
        with pytest.raises(ModelError, match=f"abs.{key}"):
            AntiLock(cv, {**tuning, key: bad})
    missing = dict(tuning)
    del missing["speed_min_m_s"]
    with pytest.raises(ModelError, match="abs.speed_min_m_s"):
        AntiLock(cv, missing)


def test_state_round_trip_continues_bit_identically(car, brakes, cv):
    """A split-mu ABS stop's sensor samples replayed through the unit: saved at the middle (every phase in use),
    restored into a fresh unit, the rest of the run gives bit-identical commands and diagnostics."""
    res, _ = braking.split_mu_braking(car, brakes, abs_unit(cv), duration=3.0)
    every = 10                                          # 10 ms samples of the 1 ms rows
    names = res.names
    samples = []
    for k in range(0, len(res), every):
        out = {n: res[n][k] for n in names if n.startswith(("wheel_", "chassis."))}
        samples.append(sensors_from(out, cv, float(res.time[k]), float(res["driver.steering_wheel_angle"][k]),
                                    float(res["brakes.master_cylinder_pressure"][k]), 0.0,
                                    [res[f"brakes.pressure_{w}"][k] for w in car.wheel_names]))

    def play(unit, seq):
        rows = []
        for s in seq:
            c = unit.sample(s)
            rows.append(np.concatenate([c.pressure_limit, c.active_pressure, [c.drive_torque_factor],
                                        unit.output_values()]))
        return np.array(rows)

    a = abs_unit(cv)
    a.reset()
    whole = play(a, samples)
    half = len(samples) // 2
    b = abs_unit(cv)
    b.reset()
    play(b, samples[:half])
    state = b.get_state()
    anti_lock = next(f for f in b.functions if f.name == "abs")
    assert np.any(anti_lock.state[:cv.n_wheels] != 0.0)  # wheels are mid-cycle
    c = abs_unit(cv)
    c.reset()
    c.set_state(state)
    assert np.array_equal(c.get_state(), state)
    rest = play(c, samples[half:])
    assert np.array_equal(rest, whole[half:])
    with pytest.raises(ModelError, match="state must have"):
        c.set_state(state[:-1])


def test_plot_abs_braking_writes_the_figure(car, cv, dry_stop, tmp_path):
    """Wheel speeds omega r_e against v_x and the pressures in bar, one row per wheel, as a PNG."""
    from fmu_vehicle.manoeuvres.plots import plot_abs_braking
    res, k = dry_stop
    speeds = {w: res[f"wheel_{w}.omega"] * cv.radius_m[i] for i, w in enumerate(car.wheel_names)}
    pressures = {w: res[f"brakes.pressure_{w}"] for w in car.wheel_names}
    out = plot_abs_braking(tmp_path / "abs.png", res.time, res["chassis.vx"], speeds, pressures, kpis=k)
    assert out.exists() and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20000


def test_kpis_on_known_series():
    """Pure KPI functions on synthetic series: a constant deceleration of mu g from the pressure onset gives
    ratio 1 (1e-3); the onset is the first sample with 1 bar on any wheel; a steady circle's yaw rate a_y / v
    gives the bound ratio a_y / (mu g); the first cycle ends where the phase first leaves 2."""
    dt, v0, mu = 1e-3, 100 / 3.6, 0.8
    t = np.arange(0.0, 5.0, dt)
    t0 = 0.3
    a = mu * braking.G
    v = np.where(t < t0, v0, np.maximum(v0 - a * (t - t0), 0.0))
    x = np.concatenate([[0.0], np.cumsum(0.5 * (v[1:] + v[:-1]) * dt)])
    p = np.where(t >= t0, 50e5, 0.0) * np.ones((4, 1))
    p[:, int(round(t0 / dt)) - 1] = 0.5e5
    k = braking.stopping_kpis(t, x, np.zeros_like(t), v, p, mu)
    assert k["brake_onset_s"] == pytest.approx(t0, abs=1e-9)
    assert k["ratio"] == pytest.approx(1.0, rel=1e-3)
    assert k["mean_deceleration_m_s2"] == pytest.approx(a, rel=1e-3)
    with pytest.raises(ModelError, match="never brakes"):
        braking.stopping_kpis(t, x, 0 * t, v, 0 * p, mu)
    speed, ay = np.full(100, 20.0), 4.0
    assert braking.yaw_rate_bound_ratio(np.full(100, ay / 20.0), speed, 1.0) == pytest.approx(ay / braking.G)
    assert braking.first_cycle_end_index([0, 0, 1, 2, 2, 3, 4, 2, 3]) == 5
    assert braking.first_cycle_end_index([0, 1, 4]) is None
