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

See docs/road.md §6.
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from .arrays import MAX_TABLE_POINTS
from .base import TabulatedRoad, check_mu, check_positive

N0_CYCLES_PER_M = 0.1
"""Reference spatial frequency n0 of ISO 8608 [cycles/m]."""

GD_N0_M3 = {cls: 16e-6 * 4.0 ** k for k, cls in enumerate("ABCDEFGH")}
"""Geometric mean Gd(n0) [m^3] of each ISO 8608 road class."""

DEFAULT_WAVEBAND = (0.011, 2.83)
"""Spatial-frequency band [cycles/m] of the generated harmonics (wavelengths 91 m to 0.35 m)."""


def iso8608_psd(n, road_class: str):
    """Displacement PSD Gd(n) = Gd(n0) (n/n0)^-2 [m^3] of an ISO 8608 class at spatial frequency n [cycles/m]."""
    return GD_N0_M3[road_class] * (np.asarray(n, dtype=np.float64) / N0_CYCLES_PER_M) ** -2


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
        self.phases = np.random.default_rng(self.seed).uniform(0.0, 2.0 * np.pi, size=k.size)
        # irfft(C, N)_j = (2/N) sum_k Re(C_k e^{2 pi i k j / N}); C_k = N A_k e^{i phi_k} / 2 gives the harmonic sum at x_j
        spectrum = np.zeros(n_cells // 2 + 1, dtype=np.complex128)
        spectrum[k] = 0.5 * n_cells * self.amplitudes * np.exp(1j * self.phases)
        heights = np.fft.irfft(spectrum, n=n_cells)
        slopes = np.fft.irfft(spectrum * (2j * np.pi * np.arange(spectrum.size) / length), n=n_cells)
        h_table = np.append(heights, heights[0]) - heights[0]
        s_table = np.append(slopes, slopes[0])
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
