"""ISO 8608 left and right tracks: the isotropic coherence model, the sample coherence of generated tracks
against it, each track's ISO spectrum, reproducibility and the loader keys."""
import numpy as np
import pytest
import scipy.integrate
import scipy.signal

from fmu_vehicle.errors import ModelError
from fmu_vehicle.road import Iso8608Road, Iso8608TwoTrackRoad, isotropic_coherence, iso8608_psd, load_road

TREAD_M = 2 * 1.1967
HALF_OCTAVES = 0.011 * 2.0 ** (np.arange(0, 9) / 2)        # 0.011 .. 0.176 cycles/m


def test_isotropic_coherence_is_the_isotropic_surface_integral():
    """gamma(n) = int S(sqrt(n^2+m^2)) cos(2 pi m b) dm / int S(sqrt(n^2+m^2)) dm with S ~ kappa^-3, the 2-D
    spectrum of an isotropic road whose tracks have Gd ~ n^-2."""
    for n in (0.01, 0.05, 0.1, 0.3):
        for b in (1.0, TREAD_M):
            cross = scipy.integrate.quad(lambda m: (n * n + m * m) ** -1.5, 0.0, np.inf, weight="cos", wvar=2 * np.pi * b)[0]
            auto = scipy.integrate.quad(lambda m: (n * n + m * m) ** -1.5, 0.0, np.inf)[0]
            assert isotropic_coherence(n, b) == pytest.approx(cross / auto, rel=1e-6)
    assert isotropic_coherence(0.0, TREAD_M) == 1.0
    gamma = isotropic_coherence(np.linspace(0.001, 3.0, 300), TREAD_M)
    assert np.all(np.diff(gamma) < 0) and gamma[-1] < 1e-15 and np.all(gamma >= 0)


def band_coherence(road, nperseg=65536):
    """Per half-octave band: sample coherence Re(sum Pxy) / sqrt(sum Pxx sum Pyy), its imaginary part,
    the model's PSD-weighted mean over the same bins, and each track's mean PSD over ISO's."""
    fs = 1.0 / road.dx
    left, right = road.left.h_table[:-1], road.right.h_table[:-1]
    n, pxy = scipy.signal.csd(left, right, fs=fs, nperseg=nperseg)
    _, pxx = scipy.signal.welch(left, fs=fs, nperseg=nperseg)
    _, pyy = scipy.signal.welch(right, fs=fs, nperseg=nperseg)
    rows = []
    for lo, hi in zip(HALF_OCTAVES[:-1], HALF_OCTAVES[1:]):
        band = (n >= lo) & (n < hi)
        norm = np.sqrt(pxx[band].sum() * pyy[band].sum())
        gd = iso8608_psd(n[band], road.road_class)
        rows.append((pxy[band].real.sum() / norm, pxy[band].imag.sum() / norm,
                     np.sum(road.coherence(n[band]) * gd) / gd.sum(), pxx[band].mean() / gd.mean(),
                     pyy[band].mean() / gd.mean()))
    return np.array(rows)


@pytest.mark.parametrize("seed", [3, 4])
def test_sample_coherence_matches_the_isotropic_model(seed):
    road = Iso8608TwoTrackRoad("C", seed=seed, length_m=26214.4, dx_m=0.05)
    rows = band_coherence(road)
    real, imag, model, psd_left, psd_right = rows.T
    assert model[0] > 0.9 and model[-1] < 0.3                 # the bands cover the fall of the coherence
    np.testing.assert_allclose(real, model, rtol=0, atol=0.05)
    assert np.max(np.abs(imag)) < 0.07
    np.testing.assert_allclose(psd_left, 1.0, atol=0.1)
    np.testing.assert_allclose(psd_right, 1.0, atol=0.1)
    # a model that does not hold would be caught: independent tracks, or identical ones
    assert np.max(np.abs(real - 0.0)) > 0.5 and np.max(np.abs(real - 1.0)) > 0.5


def test_independent_tracks_have_no_coherence():
    road = Iso8608TwoTrackRoad("B", seed=6, length_m=26214.4, dx_m=0.05, coherence="independent")
    real, imag, model, _, _ = band_coherence(road).T
    assert np.all(model == 0.0)
    assert np.max(np.abs(real)) < 0.1 and np.max(np.abs(imag)) < 0.1


def test_right_track_has_the_iso_spectrum_in_octave_bands():
    """As test_road_iso8608 checks a 1-D road: Welch PSD of the right track within 15 % per octave."""
    road = Iso8608TwoTrackRoad("C", seed=7, length_m=3276.8, dx_m=0.05)
    n, psd = scipy.signal.welch(road.right.h_table[:-1], fs=1.0 / road.dx, nperseg=16384)
    edges = 0.02 * 2.0 ** np.arange(8)
    for lo, hi in zip(edges[:-1], edges[1:]):
        band = (n >= lo) & (n < hi)
        assert 0.85 < psd[band].mean() / iso8608_psd(n[band], "C").mean() < 1.15, (lo, hi)
    # same harmonics and amplitudes as the left track: equal variance over the period
    assert road.right.h_table[:-1].std() == pytest.approx(road.left.h_table[:-1].std(), rel=1e-10)


def test_left_track_is_the_1d_road_and_seed_reproduces():
    a = Iso8608TwoTrackRoad("C", seed=11, length_m=300.0)
    b = Iso8608TwoTrackRoad("C", seed=11, length_m=300.0)
    c = Iso8608TwoTrackRoad("C", seed=12, length_m=300.0)
    one = Iso8608Road("C", seed=11, length_m=300.0)
    assert np.array_equal(a.left.h_table, one.h_table)
    assert np.array_equal(a.to_arrays().h_table, b.to_arrays().h_table)
    assert np.array_equal(a.to_arrays().s_table, b.to_arrays().s_table)
    assert not np.allclose(a.right.h_table, c.right.h_table)
    assert not np.allclose(a.left.h_table, a.right.h_table)
    x = np.linspace(0.0, 300.0, 777)
    np.testing.assert_allclose(a.height(x, 1.1967), one.height(x), rtol=0, atol=1e-14)      # hR + 1 (hL - hR)
    np.testing.assert_allclose(a.height(x, -1.1967), a.right.height(x), rtol=0, atol=1e-15)


def test_loader_keys():
    road = load_road({"type": "iso8608", "road_class": "B", "seed": 2, "length_m": 200.0, "coherence": "isotropic",
                      "y_left_m": 0.75, "y_right_m": -0.75})
    assert isinstance(road, Iso8608TwoTrackRoad)
    assert (road.y_left_m, road.y_right_m) == (0.75, -0.75)
    assert road.coherence(0.1) == pytest.approx(isotropic_coherence(0.1, 1.5))
    assert "isotropic" in road.describe() and " m" in road.describe() and "mu" in road.describe()
    assert isinstance(load_road({"type": "iso8608", "length_m": 200.0}), Iso8608Road)
    with pytest.raises(ModelError, match="road_class must be one of"):
        Iso8608TwoTrackRoad("Z")
