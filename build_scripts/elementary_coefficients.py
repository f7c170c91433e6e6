"""Derive the polynomial coefficients of ``fmu_vehicle/elementary.py`` (run: ``python3 build_scripts/elementary_coefficients.py``).

Each kernel approximates a smooth even function ``g(z)`` of ``z = r*r`` on ``[0, zmax]``, where ``r`` is the reduced
argument. ``g`` is interpolated at Chebyshev nodes in 60-digit arithmetic (``mpmath.chebyfit``: Chebyshev
interpolation, within a small factor of the minimax polynomial), converted to monomial coefficients and rounded to
the nearest double. The number of terms is the smallest whose interpolation error (on 2001 points of the interval) is
below ``2**-60`` of ``min |g|`` there; the error with the coefficients rounded to doubles (printed) is then
about ``2**-54`` of ``g``, i.e. of its leading coefficient's rounding, which the kernels multiply by ``r**3`` or ``z``
(below a third of the result). The script prints the tuples pasted into the module and each one's error.
"""
import mpmath as mp

mp.mp.dps = 60

PI = mp.pi
LN2 = mp.log(2)


def _g_sin(z):          # sin(r) = r + r**3 * g(r**2)
    r = mp.sqrt(z)
    return (mp.sin(r) - r) / r**3 if z > 1e-30 else mp.mpf(-1) / 6 + z / 120


def _g_cos(z):          # cos(r) = 1 - z/2 + z**2 * g(z)
    return (mp.cos(mp.sqrt(z)) - 1 + z / 2) / z**2 if z > 1e-30 else mp.mpf(1) / 24 - z / 720


def _g_tan(z):          # tan(r) = r + r**3 * g(r**2)
    r = mp.sqrt(z)
    return (mp.tan(r) - r) / r**3 if z > 1e-30 else mp.mpf(1) / 3 + 2 * z / 15


def _g_atan(z):         # atan(t) = t + t**3 * g(t**2)
    t = mp.sqrt(z)
    return (mp.atan(t) - t) / t**3 if z > 1e-30 else mp.mpf(-1) / 3 + z / 5


def _g_asin(z):         # asin(s) = s + s**3 * g(s**2)
    s = mp.sqrt(z)
    return (mp.asin(s) - s) / s**3 if z > 1e-30 else mp.mpf(1) / 6 + 3 * z / 40


def _g_tanh(z):         # tanh(x) = x + x**3 * g(x**2)
    x = mp.sqrt(z)
    return (mp.tanh(x) - x) / x**3 if z > 1e-30 else mp.mpf(-1) / 3 + 2 * z / 15


def _g_exp(z):          # r*coth(r/2) = 2 + z * g(z)
    r = mp.sqrt(z)
    return (r * mp.coth(r / 2) - 2) / z if z > 1e-30 else mp.mpf(1) / 6 - z / 360


def _g_log(z):          # log((1+s)/(1-s)) = 2s + s**3 * g(s**2)
    s = mp.sqrt(z)
    return (mp.log((1 + s) / (1 - s)) - 2 * s) / s**3 if z > 1e-30 else mp.mpf(2) / 3 + 2 * z / 5


SQRT2 = mp.sqrt(2)
KERNELS = {
    "SIN": (_g_sin, (PI / 4) ** 2),
    "COS": (_g_cos, (PI / 4) ** 2),
    "TAN": (_g_tan, (PI / 4) ** 2),
    "ATAN": (_g_atan, (mp.mpf(7) / 16) ** 2),
    "ASIN": (_g_asin, mp.mpf(1) / 4),
    "TANH": (_g_tanh, mp.mpf("0.55") ** 2),
    "EXP": (_g_exp, (LN2 / 2) ** 2 * mp.mpf("1.0001")),
    "LOG": (_g_log, ((SQRT2 - 1) / (SQRT2 + 1)) ** 2 * mp.mpf("1.0001")),
}


def horner(coefs, z):
    acc = mp.mpf(0)
    for c in reversed(coefs):
        acc = acc * z + c
    return acc


def fit(g, zmax):
    gmin = min(abs(g(zmax * k / 200)) for k in range(201))
    for n in range(3, 30):
        poly, _ = mp.chebyfit(g, [0, zmax], n, error=True)
        exact = list(reversed(poly))                          # lowest degree first
        coefs = [float(c) for c in exact]                     # rounded to doubles
        pts = [zmax * k / 2000 for k in range(2001)]
        fit_err = max(abs(horner(exact, z) - g(z)) for z in pts)
        if fit_err < gmin * mp.mpf(2) ** -60:
            err = max(abs(horner([mp.mpf(c) for c in coefs], z) - g(z)) for z in pts)
            return coefs, float(err / gmin)
    raise RuntimeError("no fit")


if __name__ == "__main__":
    for name, (g, zmax) in KERNELS.items():
        coefs, rel = fit(g, zmax)
        print(f"{name} = ({', '.join(repr(c) for c in coefs)})  # {len(coefs)} terms, rel. error {rel:.1e}")
