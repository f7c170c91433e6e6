"""Derive the polynomial coefficients of ``fmu_vehicle/numerics/elementary.py`` (run: ``python3 build_scripts/elementary_coefficients.py``).

Each kernel approximates a smooth even function ``g(z)`` of ``z = r*r`` on ``[0, zmax]``, where ``r`` is the reduced
argument (exp's kernel: a function of ``r`` itself on ``[-ln(2)/64, ln(2)/64]``, its error weighted by the ``r**2``
it is multiplied with). ``g`` is interpolated at Chebyshev nodes in 60-digit arithmetic (``mpmath.chebyfit``: Chebyshev
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


def _g_expr(r):         # exp(r) - 1 = r + r**2 * g(r) (a function of r itself, on [-ln(2)/64, ln(2)/64])
    return (mp.exp(r) - 1 - r) / r**2 if abs(r) > 1e-30 else mp.mpf(1) / 2 + r / 6


def _g_log(z):          # log((1+s)/(1-s)) = 2s + s**3 * g(s**2)
    s = mp.sqrt(z)
    return (mp.log((1 + s) / (1 - s)) - 2 * s) / s**3 if z > 1e-30 else mp.mpf(2) / 3 + 2 * z / 5


SQRT2 = mp.sqrt(2)
EXP_R = LN2 / 64 * mp.mpf("1.0001")
KERNELS = {                                      # g, interval, weight: the largest factor g is multiplied by
    "SIN": (_g_sin, 0, (PI / 4) ** 2, 1),        # relative to the result (1 where g's error is taken alone)
    "COS": (_g_cos, 0, (PI / 4) ** 2, 1),
    "TAN": (_g_tan, 0, (PI / 4) ** 2, 1),
    "ATAN": (_g_atan, 0, (mp.mpf(7) / 16) ** 2, 1),
    "ASIN": (_g_asin, 0, mp.mpf(1) / 4, 1),
    "TANH": (_g_tanh, 0, mp.mpf("0.55") ** 2, 1),
    "EXPR": (_g_expr, -EXP_R, EXP_R, EXP_R ** 2),
    "LOG": (_g_log, 0, ((SQRT2 - 1) / (SQRT2 + 1)) ** 2 * mp.mpf("1.0001"), 1),
}


def horner(coefs, z):
    acc = mp.mpf(0)
    for c in reversed(coefs):
        acc = acc * z + c
    return acc


def fit(g, lo, hi, weight):
    pts = [lo + (hi - lo) * k / 2000 for k in range(2001)]
    gmin = min(abs(g(z)) for z in pts[::10])
    for n in range(3, 30):
        poly, _ = mp.chebyfit(g, [lo, hi], n, error=True)
        exact = list(reversed(poly))                          # lowest degree first
        coefs = [float(c) for c in exact]                     # rounded to doubles
        fit_err = max(abs(horner(exact, z) - g(z)) for z in pts)
        if fit_err * weight < gmin * mp.mpf(2) ** -60:
            err = max(abs(horner([mp.mpf(c) for c in coefs], z) - g(z)) for z in pts)
            return coefs, float(err / gmin)
    raise RuntimeError("no fit")


def exp_constants():
    """32/ln 2, ln(2)/32 in two pieces (the first with 36 bits) and the table 2**(j/32) as double-doubles."""
    l32 = LN2 / 32
    scale = mp.mpf(2) ** 41                                   # ln(2)/32 is in [2**-6, 2**-5): 36 bits
    hi = mp.floor(l32 * scale) / scale
    th = [float(mp.mpf(2) ** (mp.mpf(j) / 32)) for j in range(32)]
    tl = [float(mp.mpf(2) ** (mp.mpf(j) / 32) - mp.mpf(t)) for j, t in zip(range(32), th)]
    print(f"INV_LN2_32 = {float(32 / LN2)!r}\nLN2_32_HI = {float(hi)!r}\nLN2_32_LO = {float(l32 - hi)!r}")
    print(f"EXP_TH = ({', '.join(repr(t) for t in th)})")
    print(f"EXP_TL = ({', '.join(repr(t) for t in tl)})")


if __name__ == "__main__":
    for name, (g, lo, hi, weight) in KERNELS.items():
        coefs, rel = fit(g, lo, hi, weight)
        print(f"{name} = ({', '.join(repr(c) for c in coefs)})  # {len(coefs)} terms, rel. error {rel:.1e}")
    exp_constants()
