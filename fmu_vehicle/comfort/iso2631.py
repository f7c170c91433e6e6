"""Whole-body vibration by ISO 2631-1:1997: frequency weightings Wk (vertical) and Wd (horizontal), the
frequency-weighted RMS acceleration, the vibration dose value and the crest factor.

Weightings (ISO 2631-1 Annex A), as the product of four analogue transfer functions in s = j 2 pi f,
with w_i = 2 pi f_i:

    band limiting, high pass   Hh(s) = s^2 / (s^2 + w1 s / Q1 + w1^2)
    band limiting, low pass    Hl(s) = w2^2 / (s^2 + w2 s / Q1 + w2^2),              Q1 = 1/sqrt(2)
    a-v transition             Ht(s) = (1 + s / w3) / (1 + s / (Q4 w4) + s^2 / w4^2)
    upward step                Hs(s) = (1 + s / (Q5 w5) + s^2 / w5^2) / (1 + s / (Q6 w6) + s^2 / w6^2) (w5 / w6)^2
                                     = (s^2 + w5 s / Q5 + w5^2) / (s^2 + w6 s / Q6 + w6^2)   (gain (f5/f6)^2 -> 1)

    Wk: f1 0.4, f2 100, f3 12.5, f4 12.5 Hz, Q4 0.63, f5 2.37 Hz, Q5 0.91, f6 3.35 Hz, Q6 0.91
    Wd: f1 0.4, f2 100, f3 2.0,  f4 2.0 Hz,  Q4 0.63, no upward step (Hs = 1)

Discrete implementation: each factor is mapped to a second-order section by the bilinear transform
(``scipy.signal.bilinear_zpk``) at an internal rate of at least ``MIN_INTERNAL_RATE_HZ``: a signal sampled
slower is first upsampled by an integer factor with ``scipy.signal.resample_poly`` and the weighted signal
is taken back at the input's instants.  At 5 kHz the bilinear frequency warping moves 80 Hz by 0.1 % (the
analogue frequency seen at f is fs/pi tan(pi f/fs)), so the digital gain stays within 1 % of the analogue one
across the one-third-octave bands 0.5 to 80 Hz (checked in the tests).  The filter starts at rest; the
high pass at 0.4 Hz needs a few seconds to settle, so callers skip an initial transient (``skip_s``).

Quantities (ISO 2631-1 §6): a_w = sqrt(mean(a_w(t)^2)) [m/s^2], VDV = (integral a_w(t)^4 dt)^(1/4)
[m/s^1.75], crest factor = max |a_w(t)| / a_w [1]; the total value a_v = sqrt(sum (k_i a_wi)^2) with the
comfort multiplying factors k = 1 for the seat surface (§8.2.2).  Likely comfort reactions (Annex C, for
public transport; the bands overlap in the standard, this module reports the band whose lower bound a_v
reaches): < 0.315 not uncomfortable, 0.315 a little, 0.5 fairly, 0.8 uncomfortable, 1.25 very, > 2 m/s^2
extremely uncomfortable.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fmu_vehicle.errors import ModelError

MIN_INTERNAL_RATE_HZ = 5000.0
"""Internal sampling rate floor [Hz] of the digital weighting filters (see the module docstring)."""


@dataclass(frozen=True)
class Weighting:
    """Parameters of one ISO 2631-1 frequency weighting (frequencies in Hz; f5 = None: no upward step)."""

    name: str
    f1: float
    f2: float
    f3: float
    f4: float
    q4: float
    f5: float | None = None
    q5: float | None = None
    f6: float | None = None
    q6: float | None = None


Q1 = 1.0 / math.sqrt(2.0)
WEIGHTINGS = {
    "Wk": Weighting("Wk", 0.4, 100.0, 12.5, 12.5, 0.63, 2.37, 0.91, 3.35, 0.91),
    "Wd": Weighting("Wd", 0.4, 100.0, 2.0, 2.0, 0.63),
}
COMFORT_BANDS = ((0.315, "not uncomfortable"), (0.5, "a little uncomfortable"), (0.8, "fairly uncomfortable"),
                 (1.25, "uncomfortable"), (2.0, "very uncomfortable"), (math.inf, "extremely uncomfortable"))
"""(upper bound of a_v [m/s^2], reaction): the first entry whose bound exceeds a_v (ISO 2631-1 Annex C)."""


def _weighting(name: str) -> Weighting:
    if name not in WEIGHTINGS:
        raise ModelError(f"ISO 2631 weighting {name!r}: must be one of {', '.join(WEIGHTINGS)}")
    return WEIGHTINGS[name]


def analog_sections(name: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The weighting's analogue factors as (b, a) polynomial pairs in s (highest power first)."""
    w = _weighting(name)
    w1, w2, w3, w4 = (2.0 * math.pi * f for f in (w.f1, w.f2, w.f3, w.f4))
    sections = [
        (np.array([1.0, 0.0, 0.0]), np.array([1.0, w1 / Q1, w1 * w1])),                 # high pass
        (np.array([0.0, 0.0, w2 * w2]), np.array([1.0, w2 / Q1, w2 * w2])),             # low pass
        (np.array([0.0, 1.0 / w3, 1.0]), np.array([1.0 / w4 ** 2, 1.0 / (w.q4 * w4), 1.0])),   # a-v transition
    ]
    if w.f5 is not None:
        w5, w6 = 2.0 * math.pi * w.f5, 2.0 * math.pi * w.f6
        sections.append((np.array([1.0, w5 / w.q5, w5 * w5]), np.array([1.0, w6 / w.q6, w6 * w6])))  # upward step
    return sections


def weighting_sos(name: str, fs: float) -> np.ndarray:
    """Second-order sections of the digital weighting at sampling rate fs [Hz] (bilinear transform)."""
    from scipy.signal import bilinear, tf2sos

    if not (fs > 0 and math.isfinite(fs)):
        raise ModelError(f"ISO 2631 weighting: sampling rate must be a positive number of Hz, got {fs!r}")
    rows = []
    for b, a in analog_sections(name):
        bz, az = bilinear(b, a, fs)
        rows.append(tf2sos(bz, az)[0])
    return np.array(rows)


def internal_factor(fs: float) -> int:
    """Integer upsampling factor that brings fs [Hz] to at least MIN_INTERNAL_RATE_HZ."""
    return max(1, math.ceil(MIN_INTERNAL_RATE_HZ / fs - 1e-9))


def weighted(signal, fs: float, name: str) -> np.ndarray:
    """The frequency-weighted acceleration a_w(t) [m/s^2] of ``signal`` [m/s^2] sampled at fs [Hz], at the
    input's instants (filtered at fs * internal_factor(fs), see the module docstring)."""
    from scipy.signal import resample_poly, sosfilt

    x = np.asarray(signal, dtype=np.float64)
    if x.ndim != 1 or x.size < 2 or not np.all(np.isfinite(x)):
        raise ModelError("ISO 2631 weighting: expected a 1-D signal of at least 2 finite samples")
    k = internal_factor(fs)
    up = resample_poly(x, k, 1) if k > 1 else x
    return sosfilt(weighting_sos(name, fs * k), up)[::k]


def rms(aw) -> float:
    """Frequency-weighted RMS a_w [m/s^2]."""
    return float(np.sqrt(np.mean(np.square(aw))))


def vdv(aw, fs: float) -> float:
    """Vibration dose value (sum a_w^4 / fs)^(1/4) [m/s^1.75] (rectangle rule)."""
    return float(np.sum(np.asarray(aw) ** 4) / fs) ** 0.25


def crest_factor(aw) -> float:
    """max |a_w| / a_w [1]."""
    r = rms(aw)
    return float(np.max(np.abs(aw)) / r) if r > 0 else math.nan


def comfort_reaction(a_v: float) -> str:
    """ISO 2631-1 Annex C likely reaction to the total value a_v [m/s^2] (see COMFORT_BANDS)."""
    return next(label for bound, label in COMFORT_BANDS if a_v < bound)


def ride_comfort(time, vertical=None, longitudinal=None, lateral=None, skip_s: float = 0.0) -> dict:
    """ISO 2631-1 evaluation of accelerations [m/s^2] sampled at the uniform instants ``time`` [s]: Wk on the
    vertical, Wd on the horizontal axes.  The first ``skip_s`` seconds of the weighted signals (filter
    transient) are left out.  Returns per given axis ``aw_<axis>_m_per_s2``, ``vdv_<axis>_m_per_s1_75``,
    ``crest_<axis>``; ``av_m_per_s2`` (total, k = 1) and ``comfort`` (Annex C reaction)."""
    t = np.asarray(time, dtype=np.float64)
    if t.ndim != 1 or t.size < 3:
        raise ModelError("ISO 2631 ride comfort: time must be a 1-D array of at least 3 instants")
    dt = np.diff(t)
    if not np.all(dt > 0) or np.ptp(dt) > 1e-6 * dt.mean():
        raise ModelError("ISO 2631 ride comfort: the samples must be uniformly spaced in time")
    fs = 1.0 / dt.mean()
    keep = t >= t[0] + skip_s
    if keep.sum() < 2:
        raise ModelError(f"ISO 2631 ride comfort: skip_s = {skip_s} s leaves no samples of the {t[-1] - t[0]:g} s")
    out, total = {}, 0.0
    for axis, sig, name in (("z", vertical, "Wk"), ("x", longitudinal, "Wd"), ("y", lateral, "Wd")):
        if sig is None:
            continue
        aw = weighted(sig, fs, name)[keep]
        a = rms(aw)
        out[f"aw_{axis}_m_per_s2"] = a
        out[f"vdv_{axis}_m_per_s1_75"] = vdv(aw, fs)
        out[f"crest_{axis}"] = crest_factor(aw)
        total += a * a
    out["av_m_per_s2"] = math.sqrt(total)
    out["comfort"] = comfort_reaction(out["av_m_per_s2"])
    return out
