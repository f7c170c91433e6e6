"""Key performance indicators of one run, computed from its recorded signals (SI in, units in the names out).

Longitudinal (``following_kpis``), from the bumper gap d [m], ego and lead speeds [m/s], ego acceleration
[m/s^2] at uniform instants:

    collision            d <= 0 at some instant; impact_time_s, the first such instant (linear interpolation)
    impact_speed_kmh     relative speed v_ego - v_lead at impact [km/h] (0 without contact)
    min_ttc_s            min d / (v_ego - v_lead) while closing faster than 0.1 m/s, before impact
    min_time_headway_s   min d / v_ego while v_ego > 1 m/s and the lead moves (> 0.5 m/s), before impact
    max_decel_m_per_s2   max of -a over 0.1 s moving averages (the chassis acceleration carries the
                         pitch and bump vibration of the body, which no occupant feels as braking)
    max_decel_2s_m_per_s2  ISO 15622: the largest average deceleration over any 2 s, (v(t) - v(t+2)) / 2 s
    max_jerk_1s_m_per_s3   ISO 15622: the largest average rate of change of the acceleration over any 1 s,
                         |a(t+1) - a(t)| / 1 s with a the 0.5 s moving average (the average keeps body pitch
                         and bump vibration out; it reads a ramp shorter than 1.5 s as a lower jerk)
    acc_limits_ok        ISO 15622 ACC stage (rows without AEB): max_decel_2s <= 3.5 m/s^2, the 1 s jerk at
                         each instant <= J(v) (5 m/s^3 below 5 m/s, 35/6 - v/6 from 5 to 20 m/s, 2.5 above),
                         and the time headway >= TAU_MIN_S while following

Euro NCAP AEB car-to-car (``euroncap_score``): no contact -> score 1, "avoided"; otherwise the score of the
first band whose relative impact speed bound [km/h] exceeds the impact speed (the protocol's impact-speed
bands, given per catalogue), "mitigated" if > 0 else "not mitigated".

String stability (``string_stability``): for each follower i the peak |acceleration| (0.5 s moving
average) after ``t_from``; gain_i = peak_i / peak_(i-1) (vehicle 0 = the lead); the platoon's gain is the
largest, string stable when <= 1.
"""
from __future__ import annotations

import math

import numpy as np

KMH_PER_M_PER_S = 3.6
TAU_MIN_S = 0.8
"""ISO 15622 minimum selectable steady-state time gap [s]."""
ACC_DECEL_LIMIT = 3.5
"""ISO 15622 bound on the ACC's average automatic deceleration over 2 s [m/s^2] (above 20 m/s)."""


def iso15622_jerk_limit(v) -> np.ndarray:
    """ISO 15622 ACC jerk limit [m/s^3] at speed v [m/s]."""
    v = np.asarray(v, dtype=float)
    return np.where(v <= 5.0, 5.0, np.where(v >= 20.0, 2.5, 35.0 / 6.0 - v / 6.0))


def moving_average(x: np.ndarray, n: int) -> np.ndarray:
    """Centred moving average over n samples (shorter windows at the ends)."""
    if n <= 1:
        return np.asarray(x, dtype=float)
    c = np.concatenate([[0.0], np.cumsum(x, dtype=float)])
    i = np.arange(len(x))
    lo = np.clip(i - n // 2, 0, len(x))
    hi = np.clip(lo + n, 0, len(x))
    lo = np.clip(hi - n, 0, None)
    return (c[hi] - c[lo]) / (hi - lo)


def samples(t: np.ndarray, seconds: float) -> int:
    """Number of rows of the uniform instants t [s] that span ``seconds`` (at least 1)."""
    return max(1, int(round(seconds / float(np.mean(np.diff(t)))))) if len(t) > 1 else 1


def following_kpis(t, gap, v_ego, v_lead, a_ego, aeb=None, *, following_from: float = 0.0) -> dict:
    """KPIs of a following or approach run (see the module docstring). ``aeb``: per row, AEB active
    (excluded from the ACC-limit checks); ``following_from`` [s]: headway and ACC checks start there."""
    t, gap, v, vl, a = (np.asarray(x, dtype=float) for x in (t, gap, v_ego, v_lead, a_ego))
    aeb = np.zeros(len(t), bool) if aeb is None else np.asarray(aeb, bool)
    hit = np.flatnonzero(gap <= 0.0)
    out: dict = {"collision": bool(hit.size)}
    end = len(t)
    if hit.size:
        k = int(hit[0])
        end = k
        if k > 0:
            w = gap[k - 1] / (gap[k - 1] - gap[k])
            out["impact_time_s"] = float(t[k - 1] + w * (t[k] - t[k - 1]))
            rel = (v[k - 1] - vl[k - 1]) + w * ((v[k] - vl[k]) - (v[k - 1] - vl[k - 1]))
        else:
            out["impact_time_s"] = float(t[0])
            rel = v[0] - vl[0]
        out["impact_speed_kmh"] = float(max(rel, 0.0) * KMH_PER_M_PER_S)
    else:
        out["impact_time_s"] = math.nan
        out["impact_speed_kmh"] = 0.0
    pre = slice(0, max(end, 1))
    closing = v[pre] - vl[pre]
    with np.errstate(divide="ignore", invalid="ignore"):
        ttc = np.where(closing > 0.1, gap[pre] / closing, np.inf)
        following = (v[pre] > 1.0) & (vl[pre] > 0.5) & (t[pre] >= following_from)
        headway = np.where(following, gap[pre] / v[pre], np.inf)
    out["min_ttc_s"] = float(ttc.min()) if ttc.size else math.inf
    out["min_time_headway_s"] = float(headway.min()) if headway.size else math.inf
    a01 = moving_average(a, samples(t, 0.1))
    out["max_decel_m_per_s2"] = float(max(-a01[pre].min(), 0.0))
    n2, n1 = samples(t, 2.0), samples(t, 1.0)
    acc_rows = ~aeb & (t >= following_from)
    if len(t) > n2:
        d2 = (v[:-n2] - v[n2:]) / (t[n2:] - t[:-n2])
        ok2 = acc_rows[:-n2] & acc_rows[n2:]
        out["max_decel_2s_m_per_s2"] = float(max(d2[ok2].max(), 0.0)) if ok2.any() else 0.0
    else:
        out["max_decel_2s_m_per_s2"] = math.nan
    a05 = moving_average(a, samples(t, 0.5))
    if len(t) > n1:
        j1 = np.abs(a05[n1:] - a05[:-n1]) / (t[n1:] - t[:-n1])
        ok1 = acc_rows[:-n1] & acc_rows[n1:]
        out["max_jerk_1s_m_per_s3"] = float(j1[ok1].max()) if ok1.any() else 0.0
        jerk_ok = bool(np.all(j1[ok1] <= iso15622_jerk_limit(v[:-n1][ok1]) + 1e-9))
    else:
        out["max_jerk_1s_m_per_s3"], jerk_ok = math.nan, False
    out["acc_decel_ok"] = bool(out["max_decel_2s_m_per_s2"] <= ACC_DECEL_LIMIT)
    out["acc_jerk_ok"] = jerk_ok
    out["acc_time_gap_ok"] = bool(out["min_time_headway_s"] >= TAU_MIN_S)
    out["aeb_activated"] = bool(aeb.any())
    return out


def euroncap_score(collision: bool, impact_speed_kmh: float, bands) -> tuple[float, str]:
    """(score in [0, 1], verdict) by impact-speed bands [(bound_kmh, score), ...] in increasing bounds."""
    if not collision:
        return 1.0, "avoided"
    for bound, score in bands:
        if impact_speed_kmh < float(bound):
            return float(score), "mitigated" if score > 0 else "not mitigated"
    return 0.0, "not mitigated"


def stop_kpis(gap, v_ego, v_lead) -> dict:
    """How the run ends: final speed [m/s], final gap [m], and stopped (< 0.2 m/s) behind a stopped lead."""
    out = {"final_speed_m_per_s": float(v_ego[-1]), "final_gap_m": float(gap[-1])}
    out["stopped_behind_lead"] = bool(abs(v_ego[-1]) < 0.2 and abs(v_lead[-1]) < 0.2 and gap[-1] > 0.0)
    return out


def string_stability(t, lead_v, follower_v, *, t_from: float = 0.0) -> dict:
    """Peak |a| of the lead and each follower after ``t_from`` [s] and the string-stability gain."""
    t = np.asarray(t, dtype=float)
    n = samples(t, 0.5)
    keep = t >= t_from
    peaks = []
    for v in [lead_v, *follower_v]:
        a = np.gradient(np.asarray(v, dtype=float), t)
        peaks.append(float(np.abs(moving_average(a, n))[keep].max()))
    gains = [peaks[i] / peaks[i - 1] if peaks[i - 1] > 0 else math.inf for i in range(1, len(peaks))]
    out = {f"peak_accel_{i}_m_per_s2": p for i, p in enumerate(peaks)}
    out["string_gain"] = float(max(gains))
    out["string_stable"] = bool(out["string_gain"] <= 1.0)
    return out
