"""The run KPIs on signals whose answers are known in closed form: an impact at a known time and speed,
time-to-collision and headway, the ISO 15622 2 s deceleration and 1 s jerk with their limits, the
string-stability gain of sinusoidal speed perturbations."""
import math

import numpy as np
import pytest

from fmu_vehicle.adas.kpis import following_kpis, iso15622_jerk_limit, moving_average, string_stability

T = np.round(np.arange(0.0, 10.0 + 1e-9, 0.01), 10)      # 10 ms rows, as the catalogue systems record


def test_impact_time_and_speed_are_interpolated():
    """Ego at 10 m/s toward a stopped lead 30.05 m ahead: contact at 3.005 s, between two rows (the gap is
    linear, so the interpolation finds it exactly), at 36 km/h.  The last row before it, 3.00 s, has a gap
    of 0.05 m: TTC 0.005 s.  No headway: the lead does not move."""
    v = np.full_like(T, 10.0)
    gap = 30.05 - 10.0 * T
    k = following_kpis(T, gap, v, np.zeros_like(T), np.zeros_like(T))
    assert k["collision"] and k["impact_time_s"] == pytest.approx(3.005, abs=1e-9)
    assert k["impact_speed_kmh"] == pytest.approx(36.0, abs=1e-9)
    assert k["min_ttc_s"] == pytest.approx(0.005, abs=1e-9)
    assert math.isinf(k["min_time_headway_s"]) and k["max_decel_m_per_s2"] == 0.0


def test_no_contact_headway_and_ttc():
    """Ego at 20 m/s, 30 m behind a lead at 15 m/s that speeds up to 20 m/s at 2 s: the gap shrinks to
    30 - 5 * 2 = 20 m and stays.  The last closing row is 1.99 s (gap 20.05 m, TTC 4.01 s); the headway
    ends at 20 m / 20 m/s = 1 s."""
    vl = np.where(T < 2.0, 15.0, 20.0)
    gap = 30.0 - 5.0 * np.minimum(T, 2.0)
    k = following_kpis(T, gap, np.full_like(T, 20.0), vl, np.zeros_like(T))
    assert not k["collision"] and k["impact_speed_kmh"] == 0.0 and math.isnan(k["impact_time_s"])
    assert k["min_ttc_s"] == pytest.approx(4.01, abs=1e-9)
    assert k["min_time_headway_s"] == pytest.approx(1.0, abs=1e-9)
    assert k["acc_time_gap_ok"]


@pytest.mark.parametrize("v0, jerk, a_max, decel_ok, jerk_ok", [
    (25.0, 2.0, 3.0, True, True),      # within both limits
    (25.0, 3.0, 4.5, False, False),    # 3 m/s^3 > 2.5 above 20 m/s; 4.5 m/s^2 > 3.5
    (15.0, 3.0, 4.5, False, True),     # from 15 m/s down the jerk limit is 35/6 - v/6 >= 3.33 m/s^3
])
def test_iso15622_deceleration_and_jerk(v0, jerk, a_max, decel_ok, jerk_ok):
    """Braking onset with constant jerk j for 1.5 s up to a_max, then steady until the car stops: the 2 s
    average deceleration is a_max (a 2 s window inside the steady part), and the 1 s jerk (of the 0.5 s
    moving average) is j (a 1 s window inside the ramp, clear of the average's 0.25 s half-width).  The
    ACC checks: <= 3.5 m/s^2 and <= J(v) from iso15622_jerk_limit at the speed at each window's start."""
    a = -np.minimum(jerk * T, a_max)
    v = v0 + np.concatenate([[0.0], np.cumsum((a[1:] + a[:-1]) / 2 * 0.01)])
    keep = v > 0.5
    t, v, a = T[keep], v[keep], a[keep]
    k = following_kpis(t, np.full_like(t, 50.0), v, np.full_like(t, 30.0), a)
    assert t[-1] > a_max / jerk + 2.0
    assert k["max_decel_2s_m_per_s2"] == pytest.approx(a_max, abs=1e-6)
    assert k["max_decel_m_per_s2"] == pytest.approx(a_max, abs=1e-9)
    assert k["max_jerk_1s_m_per_s3"] == pytest.approx(jerk, rel=1e-6)
    assert (k["acc_decel_ok"], k["acc_jerk_ok"]) == (decel_ok, jerk_ok)


def test_jerk_limit_line():
    """5 m/s^3 up to 5 m/s, 2.5 from 20 m/s, the line 35/6 - v/6 between (ISO 15622)."""
    np.testing.assert_allclose(iso15622_jerk_limit([0.0, 5.0, 12.5, 20.0, 40.0]), [5.0, 5.0, 3.75, 2.5, 2.5])


def test_string_stability_gain_of_sinusoids():
    """Speeds 10 + A_i sin(w t): accelerations A_i w cos(w t); with one frequency the moving average and the
    finite differences scale every vehicle alike, so the gain is max(A_i / A_(i-1)) = max(0.8, 0.9) = 0.9."""
    t = np.arange(0.0, 20.0, 0.01)
    w = 2 * np.pi * 0.2
    lead, f1, f2 = (10.0 + amp * np.sin(w * t) for amp in (1.0, 0.8, 0.72))
    s = string_stability(t, lead, [f1, f2], t_from=5.0)
    assert s["string_gain"] == pytest.approx(0.9, rel=1e-6) and s["string_stable"]
    # A w times the 0.5 s moving average's gain at 0.2 Hz, sin(pi f T) / (pi f T) = 0.984
    x = np.pi * 0.2 * 0.5
    assert s["peak_accel_0_m_per_s2"] == pytest.approx(w * np.sin(x) / x, rel=1e-3)
    s = string_stability(t, lead, [f1, 10.0 + 0.9 * np.sin(w * t)], t_from=5.0)
    assert s["string_gain"] == pytest.approx(0.9 / 0.8, rel=1e-6) and not s["string_stable"]


def test_moving_average_is_centred_and_exact_on_lines():
    x = np.arange(100.0)
    np.testing.assert_allclose(moving_average(x, 5)[2:-2], x[2:-2])
