"""Random road profiles with the ISO 8608 displacement PSD, by the sum of harmonics with random phases.

ISO 8608 classifies roads by the displacement power spectral density (one-sided, in m^3 = m^2 per cycle/m)

    Gd(n) = Gd(n0) * (n / n0)^-2,    n0 = 0.1 cycles/m,

with class geometric means Gd(n0) = 16e-6 m^3 for class A, multiplied by 4 per class up to H
(B 64e-6, C 256e-6, ..., H 262144e-6), so the RMS height doubles from one class to the next.

The profile over one period L = length_m is

    h(x) = sum_k A_k cos(2 pi n_k x + phi_k),   n_k = k / L,   A_k = sqrt(2 Gd(n_k) dn),   dn = 1 / L,

for every n_k inside the waveband [n_lo, n_hi] (default 0.011 to 2.83 cycles/m, the ISO 8608 band of
wavelengths from about 91 m down to 0.35 m), with phases phi_k drawn uniformly in [0, 2 pi) by
``numpy.random.default_rng(seed)`` in increasing k; the same seed gives the same road. The heights and the
exact slopes dh/dx = -sum_k 2 pi n_k A_k sin(...) are evaluated at the grid nodes x_j = j * dx_m with an
inverse real FFT (the same sum, exactly, at the nodes), then shifted so h(0) = 0. Its variance over a
period is sum_k A_k^2 / 2 ~= integral of Gd over the waveband.

``Iso8608TwoTrackRoad`` adds a right track with the same amplitudes and phases phi_k + delta_k, whose random
lags delta_k give the expected cross-spectral density gamma(n) Gd(n) of a left-right coherence model
gamma (``isotropic_coherence``: an isotropic road, Kamash and Robson 1978), as a two-track road.

See docs/road.md §6.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from .arrays import MAX_TABLE_POINTS
from .base import TabulatedRoad, check_finite, check_mu, check_positive
from .two_track import HALF_TREAD_M, TwoTrackRoad

N0_CYCLES_PER_M = 0.1
"""Reference spatial frequency n0 of ISO 8608 [cycles/m]."""

GD_N0_M3 = {cls: 16e-6 * 4.0 ** k for k, cls in enumerate("ABCDEFGH")}
"""Geometric mean Gd(n0) [m^3] of each ISO 8608 road class."""

DEFAULT_WAVEBAND = (0.011, 2.83)
"""Spatial-frequency band [cycles/m] of the generated harmonics (wavelengths 91 m to 0.35 m)."""


def iso8608_psd(n, road_class: str):
    """Displacement PSD Gd(n) = Gd(n0) (n/n0)^-2 [m^3] of an ISO 8608 class at spatial frequency n [cycles/m]."""
    return GD_N0_M3[road_class] * (np.asarray(n, dtype=np.float64) / N0_CYCLES_PER_M) ** -2


def harmonic_tables(k, amplitudes, phases, length_m: float, n_cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Heights [m] and slopes [-] of h(x) = sum A_k cos(2 pi k x / L + phi_k) at the nodes x_j = j L / n_cells,
    j = 0..n_cells, by inverse real FFTs, shifted so h(0) = 0 (the node at L repeats the one at 0)."""
    # irfft(C, N)_j = (2/N) sum_k Re(C_k e^{2 pi i k j / N}); C_k = N A_k e^{i phi_k} / 2 gives the harmonic sum at x_j
    spectrum = np.zeros(n_cells // 2 + 1, dtype=np.complex128)
    spectrum[k] = 0.5 * n_cells * amplitudes * np.exp(1j * phases)
    heights = np.fft.irfft(spectrum, n=n_cells)
    slopes = np.fft.irfft(spectrum * (2j * np.pi * np.arange(spectrum.size) / length_m), n=n_cells)
    return np.append(heights, heights[0]) - heights[0], np.append(slopes, slopes[0])


def isotropic_coherence(n, separation_m: float):
    """Coherence gamma(n) [-] of two parallel tracks separation_m [m] apart on an isotropic road with the
    ISO 8608 spectrum Gd ~ n^-2 (Kamash and Robson 1978, "The application of isotropy in road surface
    modelling"): gamma = G_LR(n) / Gd(n) = z K_1(z), z = 2 pi n separation_m, with K_1 the modified Bessel
    function of the second kind; gamma(0) = 1 and gamma falls to 0.42 at z = 1.5 and 0.03 at z = 4.5.

    Derivation (docs/road.md §6): an isotropic surface whose tracks have Gd(n) ~ n^-w has the 2-D spectrum
    S(kappa) ~ kappa^-(w+1); the cross-spectral density of two tracks at lateral distance b is the integral
    of S(sqrt(n^2 + m^2)) cos(2 pi m b) over the lateral wavenumber m, which for w = 2 is (4 pi b / n) K_1(2 pi n b)
    against 2 / n^2 for b = 0.
    """
    import scipy.special        # here: importing it costs every process that loads a road 0.1 s
    z = 2.0 * np.pi * np.asarray(n, dtype=np.float64) * float(separation_m)
    with np.errstate(invalid="ignore"):
        gamma = z * scipy.special.k1(z)
    return np.where(z == 0.0, 1.0, gamma)


def independent_coherence(n, separation_m: float):
    """Coherence 0 at every n: left and right tracks with independent phases."""
    return np.zeros(np.shape(n))


COHERENCE_MODELS = {"isotropic": isotropic_coherence, "independent": independent_coherence}
"""Left-right coherence models of ``Iso8608TwoTrackRoad``: name -> gamma(n [cycles/m], separation [m])."""


def _check_class(road_class) -> str:
    name = str(road_class).strip().upper() if isinstance(road_class, str) else None
    if name not in GD_N0_M3:
        raise ModelError(f"Iso8608Road: road_class must be one of {', '.join(GD_N0_M3)}, got {road_class!r}")
    return name


class Iso8608Road(TabulatedRoad):
    """ISO 8608 random road of class 'A'..'H' from x = 0 to length_m [m], tabulated every dx_m [m].

    See the module docstring for the method. The table's nodes hold the exact heights and slopes of the
    harmonic sum; between nodes both are interpolated linearly; beyond 0 and length_m the road holds
    h = 0 (the profile is periodic, so h(length_m) = h(0) = 0) with zero slope. dx_m must resolve the
    shortest wavelength: dx_m < 1 / (2 n_hi).
    """

    def __init__(self, road_class: str = "C", seed: int = 1, length_m: float = 1000.0, dx_m: float = 0.05,
                 waveband=DEFAULT_WAVEBAND, mu: float = 1.0):
        owner = "Iso8608Road"
        self.road_class = _check_class(road_class)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ModelError(f"{owner}: seed must be a non-negative integer, got {seed!r}")
        self.seed = int(seed)
        length = check_positive(length_m, "length_m", owner)
        dx_max = check_positive(dx_m, "dx_m", owner)
        try:
            n_lo, n_hi = (float(v) for v in waveband)
        except (TypeError, ValueError):
            raise ModelError(f"{owner}: waveband must be two numbers (n_lo, n_hi) in cycles/m, got {waveband!r}") from None
        if not (np.isfinite(n_lo) and np.isfinite(n_hi) and 0.0 < n_lo < n_hi):
            raise ModelError(f"{owner}: waveband must satisfy 0 < n_lo < n_hi cycles/m, got {waveband!r}")
        if dx_max >= 0.5 / n_hi:
            raise ModelError(f"{owner}: dx_m = {dx_max:g} m does not resolve the shortest wavelength 1/n_hi = "
                             f"{1.0 / n_hi:g} m; need dx_m < {0.5 / n_hi:g} m")
        n_cells = int(np.ceil(length / dx_max * (1.0 - 1e-9)))
        if n_cells + 1 > MAX_TABLE_POINTS:
            raise ModelError(f"{owner}: length_m / dx_m = {n_cells} cells exceeds {MAX_TABLE_POINTS}; "
                             "shorten the road or use a larger dx_m")
        dx = length / n_cells
        k = np.arange(int(np.ceil(n_lo * length - 1e-9)), int(np.floor(n_hi * length + 1e-9)) + 1)
        k = k[k >= 1]
        if k.size == 0:
            raise ModelError(f"{owner}: no harmonic k/length_m falls in the waveband {n_lo:g}-{n_hi:g} cycles/m; "
                             f"length_m = {length:g} m is too short")
        self.length_m = length
        self.waveband = (n_lo, n_hi)
        self.frequencies = k / length
        self.amplitudes = np.sqrt(2.0 * iso8608_psd(self.frequencies, self.road_class) / length)
        self.n_cells = n_cells
        self.harmonics = k
        self._rng = np.random.default_rng(self.seed)       # Iso8608TwoTrackRoad draws the right track's lags next
        self.phases = self._rng.uniform(0.0, 2.0 * np.pi, size=k.size)
        h_table, s_table = harmonic_tables(k, self.amplitudes, self.phases, length, n_cells)
        super().__init__(check_mu(mu, owner), 0.0, dx, h_table, s_table)

    @property
    def rms_m(self) -> float:
        """RMS height about the mean over one period, sqrt(sum A_k^2 / 2) [m]."""
        return float(np.sqrt(0.5 * np.sum(self.amplitudes ** 2)))

    def describe(self) -> str:
        n_lo, n_hi = self.waveband
        return (f"ISO 8608 class {self.road_class} road: Gd(n0) {GD_N0_M3[self.road_class]:.3g} m^3, seed {self.seed}, "
                f"length {self.length_m:g} m, dx {self.dx:.4g} m, band {n_lo:g}-{n_hi:g} cycles/m, "
                f"RMS {1e3 * self.rms_m:.2f} mm, mu {self.mu:g}")


class Iso8608TwoTrackRoad(TwoTrackRoad):
    """Left and right ISO 8608 tracks of class 'A'..'H' with a left-right coherence model, as a two-track road.

    The left track is the ``Iso8608Road`` of the same parameters and seed (identical heights). The right
    track has the same harmonics n_k and amplitudes A_k (so each track alone has the class's spectrum) and
    the phases phi_k + delta_k, with delta_k ~ N(0, sigma_k^2), sigma_k^2 = -2 ln gamma(n_k), drawn from the
    same generator after the left phases: E[cos delta_k] = gamma(n_k) and E[sin delta_k] = 0, so the
    expected cross-spectral density of the tracks is gamma(n) Gd(n) (a real coherence gamma, as for an
    isotropic road). ``coherence`` names the model of ``COHERENCE_MODELS`` (default "isotropic", Kamash and
    Robson 1978); the track separation is y_left_m - y_right_m. Between and beyond the tracks as
    ``TwoTrackRoad``; both tracks start at h = 0 and are held beyond 0 and length_m.
    """

    def __init__(self, road_class: str = "C", seed: int = 1, length_m: float = 1000.0, dx_m: float = 0.05,
                 waveband=DEFAULT_WAVEBAND, mu: float = 1.0, y_left_m: float = HALF_TREAD_M,
                 y_right_m: float = -HALF_TREAD_M, coherence: str = "isotropic"):
        owner = "Iso8608TwoTrackRoad"
        if coherence not in COHERENCE_MODELS:
            raise ModelError(f"{owner}: coherence must be one of {', '.join(COHERENCE_MODELS)}, got {coherence!r}")
        separation = check_finite(y_left_m, "y_left_m", owner) - check_finite(y_right_m, "y_right_m", owner)
        if separation <= 0.0:
            raise ModelError(f"{owner}: y_left_m ({y_left_m:g} m) must be greater than y_right_m ({y_right_m:g} m); "
                             "y points left (ISO 8855)")
        left = Iso8608Road(road_class, seed, length_m, dx_m, waveband, mu)
        self.coherence_model = coherence
        self.gamma = np.clip(COHERENCE_MODELS[coherence](left.frequencies, separation), 1e-300, 1.0)
        self.phase_lags = np.sqrt(-2.0 * np.log(self.gamma)) * left._rng.standard_normal(left.phases.size)
        heights, slopes = harmonic_tables(left.harmonics, left.amplitudes, left.phases + self.phase_lags,
                                          left.length_m, left.n_cells)
        right = TabulatedRoad(left.mu, 0.0, left.dx, heights, slopes)
        super().__init__(left, right, y_left_m, y_right_m, mu=left.mu)
        self.road_class, self.seed, self.length_m, self.waveband = left.road_class, left.seed, left.length_m, left.waveband

    def coherence(self, n):
        """Model coherence gamma(n) [-] between the tracks at spatial frequency n [cycles/m]."""
        return COHERENCE_MODELS[self.coherence_model](n, self.y_left_m - self.y_right_m)

    def describe(self) -> str:
        return (f"{self.left.describe().replace('road:', 'two-track road:', 1)}; tracks at y = {self.y_left_m:g} m "
                f"(left) and {self.y_right_m:g} m (right), {self.coherence_model} left-right coherence")
