"""Elementary functions of the compiled kernels, written with IEEE basic operations only.

Why: numba lowers ``math.sin`` and friends to calls of the platform's libm (glibc on Linux, the C runtime on
Windows), and two libms differ in the last bit for some arguments. The Newton iteration of the position
problem and the closed loops amplify such bits (the win64 native library differed from the Linux one by up to
3.5e-11 of an output's magnitude, docs/native.md §5). Every kernel therefore calls the functions of this
module instead: they use ``+ - * /``, ``sqrt`` (correctly rounded by IEEE 754 on every platform), ``abs``,
``copysign``, ``min``/``max``, conversions between float and int (exact or truncating) and integer arithmetic, with
no fused multiply-add (numba compiles without fast-math, so LLVM contracts nothing). Not even ``math.floor``,
``math.frexp`` or ``math.ldexp``: the first is a libm call on baseline x86-64, the other two lower to helpers of
numba's own (``numba_frexp``), which a native library does not have; :func:`_frexp` and :func:`_scale` do their
work with multiplications by powers of two. The same sequence of correctly rounded operations
gives the same bits on every x86-64 (and any IEEE 754) machine: the in-process JIT, the Linux native library
and the Windows DLL compute identical values by construction. Every function also runs as plain Python
(``NUMBA_DISABLE_JIT=1``, ``f.py_func``) with the same bits: Python floats are the same doubles, and the integer
arithmetic of the huge-argument reduction stays below 2**63.

Accuracy: every function is faithfully rounded (error below 1 ulp) on the arguments the tests draw
(tests/test_elementary.py: random arguments per range, against numpy's 80-bit long double; the measured
maxima are quoted in each docstring). They are not correctly rounded: results differ from glibc's in the last
bit for a small fraction of arguments (which is the point: they are the same everywhere).

Coefficients: each polynomial approximates a smooth function ``g`` of the squared reduced argument on the
reduced range, interpolated at Chebyshev nodes in 60-digit arithmetic and rounded to doubles:
``build_scripts/elementary_coefficients.py`` derives and prints them (the number of terms is the smallest whose
interpolation error is below 2**-60 of ``g``). The constants (pieces of pi/2, ln 2, the bits of 2/pi) come
from 450-digit mpmath values, computed the same way (see :data:`TWO_OVER_PI_LIMBS`).

Only fmu_vehicle.numerics.jit (and numpy) is imported: every layer of the package may use this module. The tables
indexed at run time (the bits of 2/pi, 2**(j/32), the powers of two of :func:`_frexp`) are numpy arrays, which
numba compiles into constant data read by one load; a tuple indexed by a variable compiles into a switch over
all its entries at every use (Payne & Hanek's 16 lookups were 3,000 instructions in every kernel that calls
sin, cos or tan).
"""
from __future__ import annotations

import math

import numpy as np

from .jit import njit

INF = math.inf
NAN = math.nan
TINY = 7.450580596923828e-09        # 2**-27: below, x**3/6 is less than half an ulp of x

# ---- constants ----------------------------------------------------------------------------------------
PIO2_HI = 1.5707963267948966        # pi/2 rounded to double
PIO2_LO = 6.123233995736766e-17     # pi/2 - PIO2_HI
PI_HI = 3.141592653589793
PI_LO = 1.2246467991473532e-16
PIO4_HI = 0.7853981633974483
PIO4_LO = 3.061616997868383e-17
TWO_OVER_PI = 0.6366197723675814

# pi/2 as P1 + ... + P7: P1..P6 have at most 21 significant bits each (so k * Pi is exact for |k| < 2**32),
# P7 is the double nearest the rest. Total 179 bits: the error of k*pi/2 is below 2**-147 for |k| < 2**32.
CW1 = 1.570796012878418
CW2 = 3.139164164167596e-07
CW3 = 6.22337468017542e-14
CW4 = -2.5082791584901525e-20
CW5 = 3.521561362568105e-27
CW6 = -1.4973851116957393e-33
CW7 = 2.0683656956646287e-40
CW3T = 6.223372171896613e-14        # pi/2 - CW1 - CW2 rounded (error 8.5e-32): the short path's third piece
MEDIUM = 4294967296.0               # 2**32: the Cody & Waite reduction serves |x| below, Payne & Hanek above
PIO2_1 = 1.5707963267341256         # pi/2 to 33 bits: k * PIO2_1 exact for |k| < 2**20
PIO2_1T = 6.077100506506192e-11     # pi/2 - PIO2_1 rounded (error 3.5e-27)
SHIFTER = 6755399441055744.0        # 1.5 * 2**52: (y + SHIFTER) - SHIFTER rounds y (|y| < 2**51) to an integer

TWO_OVER_PI_LIMBS = np.array((
    0, 0, 10680707, 7228996, 1387004, 2578385, 16069853, 12639074, 9804092, 4427841, 16666979, 11263675,
    12935607, 2387514, 4345298, 14681673, 3074569, 13734428, 16653803, 1880361, 10960616, 8533493, 3062596,
    8710556, 7349940, 6258241, 3772886, 3769171, 3798172, 8675211, 12450088, 3874808, 9961438, 366607,
    15675153, 9132554, 7151469, 3571407, 2607881, 12013382, 4155038, 6285869, 7677882, 13102053, 15825725,
    473591, 9065106, 15363067, 6271263, 9264392, 5636912, 4652155, 7056368, 13614112, 10155062), dtype=np.int64)
"""The binary digits of 2/pi in 24-bit limbs, most significant first, after two zero limbs (so a window may
start up to 48 bits before the binary point): ``floor(2/pi * 2**(24*53))`` split into limbs, from mpmath at 450
digits. 1272 bits: enough for any double (exponent up to 1023, plus 192 bits of window)."""

LN2_HI = 0.6931471805598903         # ln 2 to 42 bits: k * LN2_HI exact for |k| < 2**11 (log)
LN2_LO = 5.497923018708371e-14      # ln 2 - LN2_HI
INV_LN2_32 = 46.16624130844683      # 32/ln 2
LN2_32_HI = 0.021660849392446835    # ln(2)/32 to 36 bits: k * LN2_32_HI exact for |k| < 2**17 (exp)
LN2_32_LO = 5.145609244655338e-14   # ln(2)/32 - LN2_32_HI (error 3.1e-30)
EXP_MAX = 709.782712893384          # exp(x) overflows above (log of the largest double, rounded)
EXP_MIN = -745.1332191019412        # exp(x) rounds to 0 below (log of 2**-1075)

ATAN_HALF_HI, ATAN_HALF_LO = 0.4636476090008061, 2.2698777452961687e-17
ATAN_ONE_HI, ATAN_ONE_LO = 0.7853981633974483, 3.061616997868383e-17
ATAN_1_5_HI, ATAN_1_5_LO = 0.982793723247329, 1.3903311031230998e-17

# ---- polynomial coefficients (build_scripts/elementary_coefficients.py), lowest degree first -------------
SIN = (-0.16666666666666666, 0.008333333333333331, -0.00019841269841265065, 2.7557319219339167e-06,
       -2.5052106232447578e-08, 1.6058531618986147e-10, -7.586697117706918e-13)
"""sin(r) = r + r**3 * SIN(r*r) on |r| <= pi/4."""
COS = (0.041666666666666664, -0.0013888888888888887, 2.4801587301584645e-05, -2.7557319221402824e-07,
       2.087675579108042e-09, -1.1470460887609959e-11, 4.7458719020432915e-14)
"""cos(r) = 1 - r*r/2 + r**4 * COS(r*r) on |r| <= pi/4."""
TAN = (0.3333333333333333, 0.1333333333333333, 0.05396825396825739, 0.021869488535945333, 0.008863235536666618,
       0.003592127904586003, 0.0014558360808616011, 0.0005900123768090772, 0.0002392251447003839,
       9.646731043883386e-05, 4.082526637007093e-05, 1.1960438466926999e-05, 1.389698425984296e-05,
       -7.458507877852155e-06, 1.0451411691118068e-05, -5.1042247388101344e-06, 1.8388127719564272e-06)
"""tan(r) = r + r**3 * TAN(r*r) on |r| <= pi/4."""
ATAN = (-0.3333333333333333, 0.1999999999999997, -0.14285714285705997, 0.11111111110153861,
        -0.09090909033322568, 0.07692305624498978, -0.06666618822057546, 0.05881607126271881,
        -0.05255135806213889, 0.04701887666736345, -0.04037615888958563, 0.029171962357654856,
        -0.012516453095688529)
"""atan(t) = t + t**3 * ATAN(t*t) on |t| <= 7/16."""
ASIN = (0.16666666666666666, 0.07499999999999991, 0.0446428571428834, 0.030381944441363808, 0.02237215927967998,
        0.017352757477819787, 0.013965009932053607, 0.011549086612987425, 0.009792751320201996,
        0.008135829925501657, 0.00879500607648843, 0.000380853033290726, 0.022553563638202982,
        -0.024020544918554605, 0.030718768995191097)
"""asin(s) = s + s**3 * ASIN(s*s) on |s| <= 1/2."""
TANH = (-0.3333333333333333, 0.1333333333333331, -0.05396825396822037, 0.021869488534073906, -0.0088632354631468,
        0.0035921267699626346, -0.001455819097151351, 0.0005899052969492733, -0.0002384727248015252,
        9.455133052924858e-05, -3.372080112046316e-05, 7.874274345344419e-06)
"""tanh(x) = x + x**3 * TANH(x*x) on |x| <= 0.55."""
EXPR = (0.5, 0.16666666666581323, 0.041666666666559986, 0.008333362430989848, 0.0013888925260947679)
"""exp(r) - 1 = r + r*r * EXPR(r) on |r| <= ln(2)/64 (a polynomial in r itself: exp is not even)."""
EXP_TH = np.array((1.0, 1.0218971486541166, 1.0442737824274138, 1.0671404006768237, 1.0905077326652577,
          1.1143867425958924,
          1.1387886347566916, 1.1637248587775775, 1.189207115002721, 1.215247359980469, 1.241857812073484,
          1.2690509571917332, 1.2968395546510096, 1.3252366431597413, 1.3542555469368927, 1.383909881963832,
          1.4142135623730951, 1.4451808069770467, 1.4768261459394993, 1.5091644275934228, 1.5422108254079407,
          1.5759808451078865, 1.6104903319492543, 1.645755478153965, 1.681792830507429, 1.718619298122478,
          1.7562521603732995, 1.7947090750031072, 1.8340080864093424, 1.8741676341103, 1.9152065613971474,
          1.9571441241754002))
"""2**(j/32) rounded to doubles, j = 0 .. 31 (the table of :func:`_exp_core`)."""
EXP_TL = np.array((0.0, 5.109225028973444e-17, 8.551889705537965e-17, -7.899853966841582e-17,
          -3.046782079812471e-17,
          1.0410278456845571e-16, 8.912812676025408e-17, 3.8292048369240935e-17, 3.982015231465646e-17,
          -7.712630692681488e-17, 4.658027591836937e-17, 2.667932131342186e-18, 2.5382502794888315e-17,
          -2.8587312100388614e-17, 7.70094837980299e-17, -6.770511658794786e-17, -9.667293313452913e-17,
          -3.0237581349939873e-17, -3.483994556892796e-17, -1.016455327754295e-16, 7.949834809697621e-17,
          -1.0136916471278304e-17, 2.4707192569797888e-17, -1.0125679913674773e-16, 8.199010020581497e-17,
          -1.851380418263111e-17, 2.960140695448873e-17, 1.8227458427912087e-17, 3.283107224245627e-17,
          -6.122763413004143e-17, -1.0619946056195963e-16, 8.960767791036668e-17))
"""2**(j/32) - EXP_TH[j] rounded: the table as double-doubles."""
LOGC = (0.6666666666666666, 0.3999999999999999, 0.28571428571435364, 0.22222222219857288, 0.181818185938676,
        0.1538457511576662, 0.1333563938635947, 0.11688107586595922, 0.1188214271262732)
"""log((1+s)/(1-s)) = 2s + s**3 * LOGC(s*s) on |s| <= (sqrt 2 - 1)/(sqrt 2 + 1)."""


# ---- the polynomials in Estrin's form ------------------------------------------------------------------
# Estrin's scheme pairs the coefficients (c0 + z c1), (c2 + z c3), ... and combines the pairs with z**2,
# z**4, ...: the same number of operations as Horner's form, but a dependency chain of about log2(n) steps
# instead of n, which is what a kernel waits for (the Magic Formula's atan -> atan -> sin is one chain).
# Each polynomial is the small tail of its function (t + t**3 * P(t*t)), so the few ulps of P that Estrin's
# order may add are scaled down by t**2 (the measured errors are in the docstrings and the tests).
@njit(inline="always")
def _tan_poly(z):
    """TAN(z) in Estrin's form."""
    z2 = z * z
    z4 = z2 * z2
    z8 = z4 * z4
    return (((TAN[0] + z * TAN[1]) + z2 * (TAN[2] + z * TAN[3]))
            + z4 * ((TAN[4] + z * TAN[5]) + z2 * (TAN[6] + z * TAN[7]))
            + z8 * (((TAN[8] + z * TAN[9]) + z2 * (TAN[10] + z * TAN[11]))
                    + z4 * ((TAN[12] + z * TAN[13]) + z2 * (TAN[14] + z * TAN[15]))
                    + z8 * TAN[16]))


@njit(inline="always")
def _atan_poly(z):
    """ATAN(z) in Estrin's form."""
    z2 = z * z
    z4 = z2 * z2
    z8 = z4 * z4
    return (((ATAN[0] + z * ATAN[1]) + z2 * (ATAN[2] + z * ATAN[3]))
            + z4 * ((ATAN[4] + z * ATAN[5]) + z2 * (ATAN[6] + z * ATAN[7]))
            + z8 * (((ATAN[8] + z * ATAN[9]) + z2 * (ATAN[10] + z * ATAN[11])) + z4 * ATAN[12]))


@njit(inline="always")
def _tanh_poly(z):
    """TANH(z) in Estrin's form."""
    z2 = z * z
    z4 = z2 * z2
    z8 = z4 * z4
    return (((TANH[0] + z * TANH[1]) + z2 * (TANH[2] + z * TANH[3]))
            + z4 * ((TANH[4] + z * TANH[5]) + z2 * (TANH[6] + z * TANH[7]))
            + z8 * ((TANH[8] + z * TANH[9]) + z2 * (TANH[10] + z * TANH[11])))


@njit(inline="always")
def _asin_poly(z):
    """ASIN(z) in Estrin's form."""
    z2 = z * z
    z4 = z2 * z2
    z8 = z4 * z4
    return (((ASIN[0] + z * ASIN[1]) + z2 * (ASIN[2] + z * ASIN[3]))
            + z4 * ((ASIN[4] + z * ASIN[5]) + z2 * (ASIN[6] + z * ASIN[7]))
            + z8 * (((ASIN[8] + z * ASIN[9]) + z2 * (ASIN[10] + z * ASIN[11]))
                    + z4 * ((ASIN[12] + z * ASIN[13]) + z2 * ASIN[14])))


# ---- exact building blocks ---------------------------------------------------------------------------
@njit(inline="always")
def two_sum(a, b):
    """(s, e) with s = fl(a + b) and s + e = a + b exactly (Knuth's branch-free TwoSum, 6 operations)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit(inline="always")
def two_prod(a, b):
    """(p, e) with p = fl(a * b) and p + e = a * b exactly, without FMA (Dekker's product with Veltkamp's
    splitting into 26-bit halves; valid while |a|, |b| < 2**995 and no partial product underflows)."""
    c = 134217729.0 * a
    ah = c - (c - a)
    al = a - ah
    c = 134217729.0 * b
    bh = c - (c - b)
    bl = b - bh
    p = a * b
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl



TWO60 = 1.152921504606847e+18       # 2**60
TWOM60 = 8.673617379884035e-19      # 2**-60
TWO54 = 1.8014398509481984e+16      # 2**54
TWOM62 = 2.168404344971009e-19      # 2**-62
POW2_UP = np.array((1.3407807929942597e+154, 1.157920892373162e+77, 3.402823669209385e+38, 1.8446744073709552e+19,
           4294967296.0, 65536.0, 256.0, 16.0, 4.0, 2.0))
"""2**512, 2**256, ..., 2**1: the binary search of :func:`_frexp`."""
POW2_DOWN = np.array((7.458340731200207e-155, 8.636168555094445e-78, 2.938735877055719e-39, 5.421010862427522e-20,
             2.3283064365386963e-10, 1.52587890625e-05, 0.00390625, 0.0625, 0.25, 0.5))
"""2**-512, ..., 2**-1."""


@njit(inline="always")
def _scale(y, k):
    """y * 2**k for an integer k with one rounding at most (as C's ``ldexp``), from multiplications by
    powers of two only (numba lowers ``math.ldexp`` to a helper of its own, which a native build has not):
    |k| <= 60 by 2**k = float(1 << k) (exact), else in steps of 2**+-60 ordered so that only the last step can
    leave the normal range (the subnormal range spans 52 binades)."""
    if 0 <= k <= 60:
        return y * float(1 << k)
    if -62 <= k < 0:
        return y * float(1 << (k + 62)) * TWOM62
    if k > 0:
        y *= float(1 << (k % 60))
        k -= k % 60
        while k > 0:
            y *= TWO60
            k -= 60
        return y
    r = (-k) % 60
    y = y * float(1 << (62 - r)) * TWOM62
    k += r
    while k < 0:
        y *= TWOM60
        k += 60
    return y


@njit(inline="always")
def _frexp(x):
    """(m, e) with x = m * 2**e, m in [1/2, 1), for a finite x > 0 (as C's ``frexp``; numba lowers
    ``math.frexp`` to a helper of its own): subnormals first scaled by 2**54, then a binary search over the
    exponent by exact multiplications with 2**+-512, ..., 2**+-1 (ten comparisons)."""
    e = 0
    if x < 2.2250738585072014e-308:
        x *= TWO54
        e = -54
    if x >= 1.0:
        for i in range(10):
            if x >= POW2_UP[i]:
                x *= POW2_DOWN[i]
                e += 512 >> i
        return x * 0.5, e + 1
    for i in range(10):
        if x < POW2_DOWN[i]:
            x *= POW2_UP[i]
            e -= 512 >> i
    return x, e

# ---- argument reduction for sin, cos, tan ------------------------------------------------------------
@njit
def _reduce_huge(ax):
    """Payne & Hanek reduction of a finite ``ax >= 2**32``: (n, rh, rl) with ax = n*pi/2 + rh + rl,
    |rh + rl| <= pi/4 (about), n modulo 4 only.

    ``ax = M * 2**E`` with the integer ``M < 2**53`` (:func:`_frexp`). ``ax * 2/pi`` modulo 8 needs only the bits of
    2/pi from weight ``2**(2-E)`` on: a window ``W`` of 192 of them (:data:`TWO_OVER_PI_LIMBS`) gives
    ``ax * 2/pi = M*W * 2**-189 (mod 8)`` up to less than ``2**-130``. ``M*W mod 2**192`` is formed exactly in
    24-bit limbs with integer arithmetic (every partial sum below 2**56), its top three bits are n, the rest
    the fraction f, taken towards the nearest integer, converted to a double-double and multiplied by pi/2 in
    double-double. The result's absolute error is below 2**-110, relative to ``r`` below 2**-50 for every
    double (whose reduced arguments are at least about 2**-61)."""
    m, e = _frexp(ax)
    big = int(m * 9007199254740992.0)             # M, 53 bits
    ex = e - 53                                   # ax = M * 2**ex, ex >= -20
    m0 = big & 0xFFFFFF
    m1 = (big >> 24) & 0xFFFFFF
    m2 = big >> 48
    a = ex - 2 + 48                               # first window bit, counted from 1 in the padded limbs
    i0 = (a - 1) // 24
    sh = (a - 1) - 24 * i0
    # the window's limbs u0 (most significant) .. u7
    u0 = ((TWO_OVER_PI_LIMBS[i0] << sh) | (TWO_OVER_PI_LIMBS[i0 + 1] >> (24 - sh))) & 0xFFFFFF
    u1 = ((TWO_OVER_PI_LIMBS[i0 + 1] << sh) | (TWO_OVER_PI_LIMBS[i0 + 2] >> (24 - sh))) & 0xFFFFFF
    u2 = ((TWO_OVER_PI_LIMBS[i0 + 2] << sh) | (TWO_OVER_PI_LIMBS[i0 + 3] >> (24 - sh))) & 0xFFFFFF
    u3 = ((TWO_OVER_PI_LIMBS[i0 + 3] << sh) | (TWO_OVER_PI_LIMBS[i0 + 4] >> (24 - sh))) & 0xFFFFFF
    u4 = ((TWO_OVER_PI_LIMBS[i0 + 4] << sh) | (TWO_OVER_PI_LIMBS[i0 + 5] >> (24 - sh))) & 0xFFFFFF
    u5 = ((TWO_OVER_PI_LIMBS[i0 + 5] << sh) | (TWO_OVER_PI_LIMBS[i0 + 6] >> (24 - sh))) & 0xFFFFFF
    u6 = ((TWO_OVER_PI_LIMBS[i0 + 6] << sh) | (TWO_OVER_PI_LIMBS[i0 + 7] >> (24 - sh))) & 0xFFFFFF
    u7 = ((TWO_OVER_PI_LIMBS[i0 + 7] << sh) | (TWO_OVER_PI_LIMBS[i0 + 8] >> (24 - sh))) & 0xFFFFFF
    # u0 is the most significant limb; product limbs q0 (least) .. q7 of M*W mod 2**192
    q0 = m0 * u7
    q1 = m0 * u6 + m1 * u7
    q2 = m0 * u5 + m1 * u6 + m2 * u7
    q3 = m0 * u4 + m1 * u5 + m2 * u6
    q4 = m0 * u3 + m1 * u4 + m2 * u5
    q5 = m0 * u2 + m1 * u3 + m2 * u4
    q6 = m0 * u1 + m1 * u2 + m2 * u3
    q7 = m0 * u0 + m1 * u1 + m2 * u2
    q1 += q0 >> 24
    q0 &= 0xFFFFFF
    q2 += q1 >> 24
    q1 &= 0xFFFFFF
    q3 += q2 >> 24
    q2 &= 0xFFFFFF
    q4 += q3 >> 24
    q3 &= 0xFFFFFF
    q5 += q4 >> 24
    q4 &= 0xFFFFFF
    q6 += q5 >> 24
    q5 &= 0xFFFFFF
    q7 += q6 >> 24
    q6 &= 0xFFFFFF
    q7 &= 0xFFFFFF
    n = q7 >> 21                                  # integer part modulo 8
    top = q7 & 0x1FFFFF                           # 21 fraction bits
    if top >= 0x100000:                           # fraction >= 1/2: round n up, take 1 - fraction
        n += 1
        # 2**189 - fraction = (ones' complement) + 1, the carry of the +1 running up the limbs
        q0 = 0x1000000 - q0
        carry = q0 >> 24
        q0 &= 0xFFFFFF
        q1 = 0xFFFFFF - q1 + carry
        carry = q1 >> 24
        q1 &= 0xFFFFFF
        q2 = 0xFFFFFF - q2 + carry
        carry = q2 >> 24
        q2 &= 0xFFFFFF
        q3 = 0xFFFFFF - q3 + carry
        carry = q3 >> 24
        q3 &= 0xFFFFFF
        q4 = 0xFFFFFF - q4 + carry
        carry = q4 >> 24
        q4 &= 0xFFFFFF
        q5 = 0xFFFFFF - q5 + carry
        carry = q5 >> 24
        q5 &= 0xFFFFFF
        q6 = 0xFFFFFF - q6 + carry
        carry = q6 >> 24
        q6 &= 0xFFFFFF
        top = 0x1FFFFF - top + carry
        sign = -1.0
    else:
        sign = 1.0
    # f = top*2**-21 + q6*2**-45 + ... ; three exact partial sums of 45/48/48 bits, then a double-double
    fa = float(top) * 4.76837158203125e-07 + float(q6) * 2.842170943040401e-14
    fb = float(q5) * 1.6940658945086007e-21 + float(q4) * 1.0097419586828951e-28
    fc = float(q3) * 6.018531076210112e-36 + float(q2) * 3.587324068671532e-43
    fh, fl = two_sum(fa, fb)
    fl += fc
    fh, fl = two_sum(fh, fl)
    ph, pl = two_prod(fh, PIO2_HI)
    pl += fh * PIO2_LO + fl * PIO2_HI
    rh, rl = two_sum(ph, pl)
    return n & 3, sign * rh, sign * rl


@njit(inline="always")
def _reduce(x):
    """(n, rh, rl) with x = n*pi/2 + rh + rl, |rh| <= pi/4 (about; n taken modulo 4), for finite x.

    |x| < 1e6 (|k| < 2**20), first the shortest path (as in fdlibm's medium case): k = x*2/pi rounded to the
    nearest integer by adding and subtracting SHIFTER (no conversion on the dependency chain),
    r = x - k*PIO2_1 (exact: the product has at most 53 bits, the difference is exact by Sterbenz's lemma),
    w = k*PIO2_1T rounded, rh = r - w, rl = (r - rh) - w: absolute error below |k| * 1.03e-26 (w's rounding and
    PIO2_1T's), below 2**-61 of r when |rh| >= |k| * 2.5e-8 (else the paths below: about 2 % of the arguments
    near 1e6, fewer below).
    |x| < 2048 (k < 1304), else first a short path: x - k*CW1 exact, minus k*CW2 (exact) by TwoSum, minus
    k*CW3T rounded (CW3T = the rest of pi/2): absolute error below 2**-87, taken when the result is at least
    2**-20 (almost always; else the long path below).
    |x| < 2**32: Cody & Waite (1980) with pi/2 in seven pieces (:data:`CW1` ...): k = round(x * 2/pi),
    ``x - k*CW1`` is exact (Sterbenz), the next five products are exact and are subtracted with TwoSum, whose
    errors accumulate in the low part, and ``k*CW7`` is rounded: the error of rh + rl is below 2**-115 in
    absolute terms, below 2**-55 of r for the smallest reduced argument of a double in this range. Above,
    :func:`_reduce_huge`."""
    ax = abs(x)
    if ax < 1.0e6:                                    # shortest path: pi/2 in two pieces
        k = (x * TWO_OVER_PI + SHIFTER) - SHIFTER
        r = x - k * PIO2_1
        w = k * PIO2_1T
        y = r - w
        if abs(y) >= abs(k) * 2.5e-08:
            return int(k) & 3, y, (r - y) - w
    return _reduce_slow(x, ax)


@njit
def _reduce_slow(x, ax):
    """:func:`_reduce` for the arguments its shortest path does not take (|x| >= 1e6, or a deep cancellation):
    a function of its own, not inlined, so that every caller of sin, cos and tan carries one copy of it."""
    if ax < 2048.0:                                   # short path: pi/2 in three pieces, if no deep cancellation
        k = float(int(x * TWO_OVER_PI + math.copysign(0.5, x)))   # nearest (ties away from 0)
        hi = x - k * CW1
        y, e = two_sum(hi, -(k * CW2))
        if abs(y) >= 9.5367431640625e-07:            # 2**-20: the error below, 2**-87, is < 2**-67 of r
            lo = e - k * CW3T
            rh = y + lo
            return int(k) & 3, rh, (y - rh) + lo
    if ax < MEDIUM:
        k = float(int(x * TWO_OVER_PI + math.copysign(0.5, x)))
        hi = x - k * CW1
        hi, lo = two_sum(hi, -(k * CW2))
        hi, e = two_sum(hi, -(k * CW3))
        lo += e
        hi, e = two_sum(hi, -(k * CW4))
        lo += e
        hi, e = two_sum(hi, -(k * CW5))
        lo += e
        hi, e = two_sum(hi, -(k * CW6))
        lo += e
        lo -= k * CW7
        rh, rl = two_sum(hi, lo)
        return int(k) & 3, rh, rl
    n, rh, rl = _reduce_huge(ax)
    if x < 0.0:
        return (-n) & 3, -rh, -rl
    return n, rh, rl


@njit(inline="always")
def _sin_k(x, y):
    """sin(x + y) for |x| <= pi/4 (about), |y| <= ulp(x): x + x**3*SIN(x*x) + y*(1 - x*x/2)."""
    z = x * x
    z2 = z * z
    p = (SIN[1] + z * SIN[2]) + z2 * (SIN[3] + z * SIN[4]) + z2 * z2 * (SIN[5] + z * SIN[6])
    return x + ((y - 0.5 * z * y) + z * x * (SIN[0] + z * p))


@njit(inline="always")
def _cos_k(x, y):
    """cos(x + y) for |x| <= pi/4 (about), |y| <= ulp(x): w = 1 - x*x/2 rounded, plus its rounding error
    ``(1 - w) - x*x/2`` (exact), plus x**4*COS(x*x) - x*y."""
    z = x * x
    z2 = z * z
    q = ((COS[0] + z * COS[1]) + z2 * (COS[2] + z * COS[3])) + z2 * z2 * ((COS[4] + z * COS[5]) + z2 * COS[6])
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + (z * z * q - x * y))


@njit
def sin(x):
    """sin(x) for any double x; |x| <= pi/4 directly, else reduced by :func:`_reduce` (exact enough for any
    finite x) and evaluated by the sine or cosine kernel of the quadrant. Polynomials: :data:`SIN`, :data:`COS`.
    sin(+-0) = +-0, sin(+-inf) = sin(nan) = nan. Faithfully rounded; measured max error 0.6 ulp (tests)."""
    ax = abs(x)
    if ax <= PIO4_HI:
        if ax < TINY:                                 # sin(x) = x - x**3/6 rounds to x (and keeps -0)
            return x
        return _sin_k(x, 0.0)
    if not ax < INF:
        return x - x
    n, rh, rl = _reduce(x)
    if n == 0:
        return _sin_k(rh, rl)
    if n == 1:
        return _cos_k(rh, rl)
    if n == 2:
        return -_sin_k(rh, rl)
    return -_cos_k(rh, rl)


@njit
def cos(x):
    """cos(x) for any double x, as :func:`sin` (the quadrant shifted by one). cos(+-0) = 1,
    cos(+-inf) = cos(nan) = nan. Faithfully rounded; measured max error 0.6 ulp (tests)."""
    ax = abs(x)
    if ax <= PIO4_HI:
        return _cos_k(x, 0.0)
    if not ax < INF:
        return x - x
    n, rh, rl = _reduce(x)
    if n == 0:
        return _cos_k(rh, rl)
    if n == 1:
        return -_sin_k(rh, rl)
    if n == 2:
        return -_cos_k(rh, rl)
    return _sin_k(rh, rl)


@njit
def sincos(x):
    """(sin(x), cos(x)) with one reduction: the same bits as :func:`sin` and :func:`cos`."""
    ax = abs(x)
    if ax <= PIO4_HI:
        return _sin_k(x, 0.0), _cos_k(x, 0.0)
    if not ax < INF:
        return x - x, x - x
    n, rh, rl = _reduce(x)
    s = _sin_k(rh, rl)
    c = _cos_k(rh, rl)
    if n == 0:
        return s, c
    if n == 1:
        return c, -s
    if n == 2:
        return -s, -c
    return -c, s


@njit(inline="always")
def _tan_k(x, y, odd):
    """tan(x + y) (odd False) or -1/tan(x + y) (odd True) for |x| <= pi/4 (about), |y| <= ulp(x).

    |x| >= 0.6744: with w = pi/4 - |x| (|w| <= 0.11; pi/4 as a double-double), tan(|x|) = 1 - 2 tan(w)/(1 + tan(w))
    and -1/tan(|x|) = -(1 + 2 tan(w)/(1 - tan(w))), so the polynomial's tail stays below 0.5 % of its result.
    Else t = x + tail, tail = x**3*TAN(x*x) + y*(1 + x*x); in the odd quadrants -1/t with t as a double-double
    (Fast2Sum) and the reciprocal corrected by its exact residual (Dekker's product)."""
    sgn = 1.0
    near = abs(x) >= 0.6744
    if near:
        if x < 0.0:
            x = -x
            y = -y
            sgn = -1.0
        x = (PIO4_HI - x) + (PIO4_LO - y)
        y = 0.0
    z = x * x
    tail = z * x * _tan_poly(z) + y * (1.0 + z)
    th = x + tail
    if near:
        if odd:
            return -sgn * (1.0 + 2.0 * th / (1.0 - th))
        return sgn * (1.0 - 2.0 * th / (1.0 + th))
    if not odd:
        return th
    tl = tail - (th - x)
    q = 1.0 / th
    ph, pl = two_prod(q, th)
    e = (1.0 - ph) - pl - q * tl
    return -(q + q * e)


@njit
def tan(x):
    """tan(x) for any double x: the reduction of :func:`sin`, then the kernel :data:`TAN` on |r| <= pi/4 (and
    -1/tan(r) in the odd quadrants). tan(+-0) = +-0, tan(+-inf) = tan(nan) = nan. Faithfully rounded;
    measured max error in the tests."""
    ax = abs(x)
    if ax <= PIO4_HI:
        if ax < TINY:                                 # tan(x) = x + x**3/3 rounds to x (and keeps -0)
            return x
        return _tan_k(x, 0.0, False)
    if not ax < INF:
        return x - x
    n, rh, rl = _reduce(x)
    return _tan_k(rh, rl, (n & 1) == 1)


# ---- inverse trigonometric ----------------------------------------------------------------------------
@njit(inline="always")
def _atan_pos(ax, corr):
    """(bh, tail) with atan(ax + corr) = bh + tail, bh = atan(c) rounded (0 to pi/2) and |tail| <= 0.45, for
    ax >= 0 (not nan), |corr| <= ulp(ax): reduced to |t| <= 7/16 by
    atan(ax) = atan(c) + atan((ax - c)/(1 + c*ax)) with c = 0, 1/2, 1, 3/2 or infinity (c = infinity:
    pi/2 + atan(-1/ax)); atan(c) as a double-double; atan(t) = t + t**3*ATAN(t*t). ``corr`` enters as
    corr/(1 + ax*ax) (the derivative)."""
    if ax < 0.4375:
        t = ax
        bh = 0.0
        bl = 0.0
    elif ax < 0.6875:
        t = (2.0 * ax - 1.0) / (2.0 + ax)
        bh = ATAN_HALF_HI
        bl = ATAN_HALF_LO
    elif ax < 1.1875:
        t = (ax - 1.0) / (ax + 1.0)
        bh = ATAN_ONE_HI
        bl = ATAN_ONE_LO
    elif ax < 2.4375:
        t = (ax - 1.5) / (1.0 + 1.5 * ax)
        bh = ATAN_1_5_HI
        bl = ATAN_1_5_LO
    else:
        t = -1.0 / ax
        bh = PIO2_HI
        bl = PIO2_LO
    z = t * t
    p = _atan_poly(z)
    low = z * t * p + bl
    if corr != 0.0:
        low += corr / (1.0 + ax * ax)
    return bh, t + low


@njit(inline="always")
def atan(x):
    """atan(x) for any double x (:func:`_atan_pos` of |x|, sign restored). atan(+-0) = +-0,
    atan(+-inf) = +-pi/2, atan(nan) = nan. Faithfully rounded; measured max error in the tests."""
    if x != x:
        return x + x
    bh, tail = _atan_pos(abs(x), 0.0)
    return math.copysign(bh + tail, x)


@njit
def atan2(y, x):
    """atan2(y, x) with C99's special cases (zeros' signs, infinities; nan if either is nan). Otherwise the
    quotient q = |y|/|x| is formed as a double-double (its rounding error from Dekker's exact product, the
    operands first scaled by a power of two into [2**-500, 2**500] where needed), then
    :func:`_atan_pos`, then the quadrant (pi - a with pi as a double-double). Faithfully rounded; measured max
    error in the tests."""
    if x != x or y != y:
        return x + y
    ax = abs(x)
    ay = abs(y)
    xneg = math.copysign(1.0, x) < 0.0
    if ay == 0.0:
        return math.copysign(PI_HI, y) if xneg else y
    if ax == 0.0:
        return math.copysign(PIO2_HI, y)
    if ax == INF:
        if ay == INF:
            a = 3.0 * PIO4_HI if xneg else PIO4_HI
        else:
            a = PI_HI if xneg else 0.0
        return math.copysign(a, y)
    if ay == INF:
        return math.copysign(PIO2_HI, y)
    big = max(ax, ay)
    if big > 3.273390607896142e+150:                  # 2**500
        ax *= 2.409919865102884e-181                  # 2**-600
        ay *= 2.409919865102884e-181
    elif min(ax, ay) < 3.054936363499605e-151:        # 2**-500
        ax *= 4.149515568880993e+180                  # 2**600
        ay *= 4.149515568880993e+180
    q = ay / ax
    corr = 0.0
    if 3.054936363499605e-151 < q < 3.273390607896142e+150 and ax < 3.273390607896142e+150 and \
            ax > 3.054936363499605e-151:
        ph, pl = two_prod(q, ax)
        corr = ((ay - ph) - pl) / ax
    bh, tail = _atan_pos(q, corr)
    if xneg:                                          # pi - atan(q), pi - bh as a double-double
        sh, sl = two_sum(PI_HI, -bh)
        return math.copysign(sh + ((sl + PI_LO) - tail), y)
    return math.copysign(bh + tail, y)


@njit
def asin(x):
    """asin(x) for |x| <= 1 (nan outside, and for nan). |x| < 1/2: x + x**3*ASIN(x*x). Else, with
    z = (1 - |x|)/2 (exact) and s = sqrt(z): asin(|x|) = pi/2 - 2*asin(s), asin(s) by the same polynomial;
    below |x| = 0.975 the cancellation against pi/2 is avoided by splitting s = sh + c (sh with 26 bits, so
    sh*sh is exact; c = (z - sh*sh)/(s + sh)) and subtracting 2*sh from pi/4 exactly. asin(+-0) = +-0,
    asin(+-1) = +-pi/2. Faithfully rounded; measured max error in the tests."""
    ax = abs(x)
    if not ax <= 1.0:
        return NAN
    if ax < 0.5:
        z = x * x
        p = _asin_poly(z)
        return x + x * z * p
    z = (1.0 - ax) * 0.5
    s = math.sqrt(z)
    p = _asin_poly(z)
    p = s * z * p                                      # asin(s) = s + p
    if ax >= 0.975:
        a = PIO2_HI - (2.0 * (s + p) - PIO2_LO)
    else:
        c0 = 134217729.0 * s
        sh = c0 - (c0 - s)
        c = (z - sh * sh) / (s + sh)
        p2 = 2.0 * p - (PIO2_LO - 2.0 * c)
        a = PIO4_HI - (p2 - (PIO4_HI - 2.0 * sh))
    return math.copysign(a, x)


# ---- exponential, logarithm, hyperbolic ----------------------------------------------------------------
@njit(inline="always")
def _exp_core(x):
    """(y, yl, m) with exp(x) = (y + yl) * 2**m, y in [0.98, 2.02], |yl| <= ulp(y)/2, for EXP_MIN <= x <= EXP_MAX
    (Tang's table method): k = x*32/ln 2 rounded to the nearest integer (SHIFTER), k = 32 m + j,
    r = (x - k*LN2_32_HI) - k*LN2_32_LO (the first difference exact), |r| <= ln(2)/64,
    exp(x) = 2**m * 2**(j/32) * exp(r) with 2**(j/32) = EXP_TH[j] + EXP_TL[j] and exp(r) - 1 = q = r + r*r*EXPR(r):
    y + yl = EXP_TH[j] + (EXP_TL[j] + EXP_TH[j]*q) by Fast2Sum. Error of y + yl below 0.02 ulp of y."""
    kf = (x * INV_LN2_32 + SHIFTER) - SHIFTER
    r = (x - kf * LN2_32_HI) - kf * LN2_32_LO
    z = r * r
    q = r + z * ((EXPR[0] + r * EXPR[1]) + z * (EXPR[2] + r * EXPR[3]) + z * z * EXPR[4])
    k = int(kf)
    th = EXP_TH[k & 31]
    lo = EXP_TL[k & 31] + th * q
    y = th + lo
    return y, (th - y) + lo, k >> 5


@njit
def exp(x):
    """exp(x): the table method of :func:`_exp_core` (its y, rounded once), and the exact scaling by 2**m
    (:func:`_scale`; results below 2**-1022 are rounded a second time there, so
    subnormal results may be off by one unit of the subnormal spacing more). exp(nan) = nan, exp(+inf) = inf,
    exp(-inf) = 0, overflow (x > EXP_MAX) gives inf and underflow (x < EXP_MIN) 0. Faithfully rounded for normal
    results; measured max error in the tests."""
    if x != x:
        return x + x
    if x > EXP_MAX:
        return INF
    if x < EXP_MIN:
        return 0.0
    if abs(x) < 3.725290298461914e-09:                 # 2**-28: exp(x) = 1 + x to within 2**-57
        return 1.0 + x
    y, _yl, m = _exp_core(x)
    return _scale(y, m)


@njit
def log(x):
    """Natural logarithm: x = 2**e * m with m in [sqrt(1/2), sqrt 2) (:func:`_frexp`), f = m - 1 (exact),
    s = f/(2 + f), log(1 + f) = 2s + s**3*LOGC(s*s) = f - s*(f - s*s*LOGC(s*s)),
    plus e*ln 2 in two pieces. log(1) = 0, log(+-0) = -inf, log(x < 0) = nan, log(inf) = inf, log(nan) = nan.
    Faithfully rounded; measured max error in the tests."""
    if not x > 0.0:
        if x == 0.0:
            return -INF
        return NAN                      # negative or nan
    if x == INF:
        return x
    m, e = _frexp(x)
    if m < 0.7071067811865476:
        m *= 2.0
        e -= 1
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    z2 = z * z
    z4 = z2 * z2
    r = z * (((LOGC[0] + z * LOGC[1]) + z2 * (LOGC[2] + z * LOGC[3]))
             + z4 * ((LOGC[4] + z * LOGC[5]) + z2 * (LOGC[6] + z * LOGC[7])) + z4 * z4 * LOGC[8])
    k = float(e)
    return k * LN2_HI + (f - (s * (f - r) - k * LN2_LO))


@njit
def tanh(x):
    """tanh(x): |x| <= 0.55: x + x**3*TANH(x*x); else 1 - 2/(exp(2|x|) + 1) with :func:`exp`'s core, sign
    restored; +-1 from |x| >= 22 (tanh(22) rounds to 1). tanh(+-0) = +-0, tanh(+-inf) = +-1, tanh(nan) = nan.
    Above 0.55 in double-double: exp(2|x|) + 1 with the rounding error of :func:`_exp_core`'s last step,
    the quotient corrected by its exact residual, 1 - q by TwoSum.
    Faithfully rounded; measured max error in the tests."""
    if x != x:
        return x + x
    ax = abs(x)
    if ax < TINY:                                     # tanh(x) = x - x**3/3 rounds to x (and keeps -0)
        return x
    if ax <= 0.55:
        z = x * x
        p = _tanh_poly(z)
        return x + x * z * p
    if ax >= 22.0:
        return math.copysign(1.0, x)
    y, yl, k = _exp_core(2.0 * ax)                    # exp(2|x|) = (y + yl) * 2**k
    sc = _scale(1.0, k)
    s, sl = two_sum(y * sc, 1.0)                      # exp(2|x|) + 1 as a double-double
    sl += yl * sc
    q = 2.0 / s                                       # 2/(s + sl) as q + ql
    ph, pl = two_prod(q, s)
    ql = ((2.0 - ph) - pl - q * sl) / s
    h, hl = two_sum(1.0, -q)
    return math.copysign(h + (hl - ql), x)


@njit
def hypot(x, y):
    """sqrt(x*x + y*y) without undue overflow or underflow: operands scaled by a power of two into
    [2**-500, 2**500] where needed, the sum of squares as a double-double (Dekker's products), its square
    root corrected once by the exact residual. hypot(+-inf, anything) = inf (also with nan), else nan if either
    is nan. Faithfully rounded (nearly correctly); measured max error in the tests."""
    ax = abs(x)
    ay = abs(y)
    if ax == INF or ay == INF:
        return INF
    if ax != ax or ay != ay:
        return ax + ay
    a = max(ax, ay)
    b = min(ax, ay)
    if b == 0.0:
        return a
    if a > 1.152921504606847e+18 * b:                  # b/a < 2**-60: a + b rounds as hypot does
        return a + b
    scale = 1.0
    if a > 3.273390607896142e+150:
        a *= 2.409919865102884e-181
        b *= 2.409919865102884e-181
        scale = 4.149515568880993e+180
    elif b < 3.054936363499605e-151:
        a *= 4.149515568880993e+180
        b *= 4.149515568880993e+180
        scale = 2.409919865102884e-181
    a2, a2e = two_prod(a, a)
    b2, b2e = two_prod(b, b)
    s, se = two_sum(a2, b2)
    se += a2e + b2e
    h = math.sqrt(s)
    hh, hhe = two_prod(h, h)
    d = ((s - hh) - hhe) + se
    h = h + d / (2.0 * h)
    return h * scale
