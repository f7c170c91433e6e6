"""ISO 8608 random roads: PSD, RMS, class ordering, seed reproducibility."""
import numpy as np
import pytest
import scipy.signal

from fmu_vehicle.errors import ModelError
from fmu_vehicle.road import Iso8608Road, iso8608_psd
from fmu_vehicle.road.iso8608 import GD_N0_M3


def test_class_means():
    assert GD_N0_M3["A"] == 16e-6 and GD_N0_M3["C"] == 256e-6 and GD_N0_M3["H"] == pytest.approx(262144e-6)
    assert iso8608_psd(0.1, "B") == pytest.approx(64e-6) and iso8608_psd(0.2, "B") == pytest.approx(16e-6)


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_welch_psd_matches_iso_spectrum(seed):
    # 3.3 km profile, Welch with 819 m Hann segments (9 averages, 0.0012 cycles/m resolution)
    road = Iso8608Road("C", seed=seed, length_m=3276.8, dx_m=0.05)
    n, psd = scipy.signal.welch(road.h_table[:-1], fs=1.0 / road.dx, nperseg=16384)
    edges = 0.02 * 2.0 ** np.arange(8)                      # octave bands 0.02 .. 2.56 cycles/m
    for lo, hi in zip(edges[:-1], edges[1:]):
        band = (n >= lo) & (n < hi)
        ratio = psd[band].mean() / iso8608_psd(n[band], "C").mean()
        assert 0.85 < ratio < 1.15, (lo, hi, ratio)
    band = (n > 0.02) & (n < 2.5)
    exponent = np.polyfit(np.log(n[band]), np.log(psd[band]), 1)[0]
    assert exponent == pytest.approx(-2.0, abs=0.05)
    # outside the waveband there is (next to) nothing: leakage only
    assert psd[(n > 4.0)].max() < 1e-6 * iso8608_psd(4.0, "C")


def test_rms_equals_parseval_sum_and_band_integral():
    road = Iso8608Road("C", seed=2, length_m=2000.0)
    heights = road.h_table[:-1]
    assert heights.std() == pytest.approx(road.rms_m, rel=1e-10)                   # Parseval on the grid
    n_lo, n_hi = road.waveband
    assert road.rms_m ** 2 == pytest.approx(np.sum(iso8608_psd(road.frequencies, "C")) / 2000.0, rel=1e-12)
    # the sum is a rectangle rule of int Gd dn with dn = 1/L; for Gd ~ n^-2 its relative error is about
    # dn / (2 n_lo) = 1 / (2 L n_lo) = 2.3 % here
    integral = GD_N0_M3["C"] * 0.1 ** 2 * (1 / n_lo - 1 / n_hi)
    assert road.rms_m ** 2 == pytest.approx(integral, rel=1.0 / (2000.0 * n_lo))


def test_class_ordering_doubles_rms():
    rms = {c: Iso8608Road(c, seed=4, length_m=500.0).h_table.std() for c in "ABCD"}
    assert rms["C"] == pytest.approx(2.0 * rms["B"], rel=1e-12)
    assert rms["B"] == pytest.approx(2.0 * rms["A"], rel=1e-12)
    assert rms["D"] == pytest.approx(4.0 * rms["B"], rel=1e-12)


def test_seed_reproduces_and_changes_profile():
    a = Iso8608Road("C", seed=11, length_m=300.0)
    b = Iso8608Road("C", seed=11, length_m=300.0)
    c = Iso8608Road("C", seed=12, length_m=300.0)
    assert np.array_equal(a.h_table, b.h_table) and np.array_equal(a.s_table, b.s_table)
    assert not np.allclose(a.h_table, c.h_table)


def test_table_slopes_are_exact_derivatives_and_ends_hold():
    road = Iso8608Road("B", seed=3, length_m=200.0, dx_m=0.01)
    x = road.x0 + road.dx * np.arange(len(road.h_table))
    # harmonic sum evaluated directly at some nodes
    j = np.array([0, 17, 5000, len(x) - 1])
    phase = 2 * np.pi * road.frequencies[None, :] * x[j, None] + road.phases[None, :]
    h0 = np.sum(road.amplitudes * np.cos(road.phases))
    np.testing.assert_allclose(road.h_table[j], np.sum(road.amplitudes * np.cos(phase), axis=1) - h0, atol=1e-12)
    slope = -np.sum(2 * np.pi * road.frequencies * road.amplitudes * np.sin(phase), axis=1)
    np.testing.assert_allclose(road.s_table[j], slope, atol=1e-11)
    assert road.height(0.0) == 0.0 and road.height(-5.0) == 0.0 and road.height(250.0) == pytest.approx(0.0, abs=1e-15)
    assert road.slope(-5.0) == 0.0 and road.slope(250.0) == 0.0


@pytest.mark.parametrize("kwargs, match", [
    ({"road_class": "Z"}, "road_class must be one of A, B, C"),
    ({"dx_m": 0.2}, "does not resolve the shortest wavelength"),
    ({"length_m": 0.2}, "no harmonic"),
    ({"seed": -1}, "seed"),
    ({"seed": 1.5}, "seed"),
    ({"waveband": (2.0, 1.0)}, "0 < n_lo < n_hi"),
    ({"mu": -0.1}, "mu"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ModelError, match=match):
        Iso8608Road(**kwargs)
