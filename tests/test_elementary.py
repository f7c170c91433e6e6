"""fmu_vehicle.numerics.elementary: the kernels' own sin, cos, tan, atan, atan2, asin, exp, log, tanh and hypot.

Each is compared with numpy on 80-bit long doubles (64-bit mantissa: 11 bits more than a double, so the
reference's own error is below 1/1000 ulp of the double result) on random arguments per range, including the
reduction boundaries, huge and subnormal arguments. The error is measured in ulps of the double result
(the spacing of doubles at the reference's magnitude) and must stay below 1 (faithful rounding). The compiled
function and its plain-Python ``py_func`` must give the same bits (the functions are sequences of IEEE
operations, so NUMBA_DISABLE_JIT=1 and every native build compute the same values).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_vehicle.numerics import elementary as em

L = np.longdouble
pytestmark = pytest.mark.skipif(np.finfo(L).nmant < 63, reason="needs 80-bit long double for the reference")

N = 4000
RNG_SEED = 20261128


def ulps(got, ref):
    """|got - ref| in units of the spacing of doubles at |ref| (ref a long double array)."""
    got = np.asarray(got, dtype=float)
    spacing = np.spacing(np.abs(ref.astype(float))).astype(L)
    spacing = np.maximum(spacing, L(2.0) ** -1074)
    return np.abs(got.astype(L) - ref) / spacing


def vec(f, *args):
    return np.array([f(*a) for a in zip(*args)], dtype=float)


def _uniform(rng, a, b, n=N):
    return rng.uniform(a, b, n)


def _logspace(rng, a, b, n=N):
    return np.copysign(10.0 ** rng.uniform(a, b, n), rng.uniform(-1, 1, n))


def _around(rng, centres, width, n=N):
    c = rng.choice(np.asarray(centres, dtype=float), n)
    return c + rng.uniform(-width, width, n) * np.maximum(np.abs(c), 1.0)


def _ranges(name, rng):
    pio4 = [k * math.pi / 4 for k in range(-40, 41)]
    trig = {
        "small": _uniform(rng, -math.pi / 4, math.pi / 4),
        "tiny": _logspace(rng, -320, -3),
        "moderate": _uniform(rng, -20.0, 20.0),
        "quadrant boundaries": _around(rng, pio4, 1e-9),
        "large": _uniform(rng, -1e6, 1e6),
        "wheel angles up to 1e9": _uniform(rng, -1e9, 1e9),
        "near 2**32 (reduction switch)": _around(rng, [-2.0 ** 32, 2.0 ** 32], 1e-6),
        "huge": _logspace(rng, 9.5, 308.2),
    }
    return {
        "sin": trig, "cos": trig, "tan": trig,
        "atan": {"small": _uniform(rng, -0.5, 0.5), "moderate": _uniform(rng, -4.0, 4.0),
                 "breakpoints": _around(rng, [-2.4375, -1.1875, -0.6875, -0.4375, 0.4375, 0.6875, 1.1875, 2.4375],
                                        1e-6),
                 "tiny": _logspace(rng, -320, -3), "large": _logspace(rng, 0, 308)},
        "asin": {"small": _uniform(rng, -0.5, 0.5), "all": _uniform(rng, -1.0, 1.0),
                 "near 1": np.copysign(1.0 - 10.0 ** rng.uniform(-16, -1, N), rng.uniform(-1, 1, N)),
                 "tiny": _logspace(rng, -320, -3)},
        "exp": {"small": _uniform(rng, -1.0, 1.0), "all": _uniform(rng, -708.0, 709.7),
                "tiny": _logspace(rng, -320, -5), "near overflow": _uniform(rng, 700.0, 709.78)},
        "log": {"near 1": 1.0 + _uniform(rng, -0.3, 0.3), "all": 10.0 ** rng.uniform(-307, 308, N),
                "subnormal": 10.0 ** rng.uniform(-323, -308, N), "1 +- tiny": 1.0 + _logspace(rng, -15, -5)},
        "tanh": {"small": _uniform(rng, -0.55, 0.55), "moderate": _uniform(rng, -3.0, 3.0),
                 "large": _uniform(rng, -25.0, 25.0), "tiny": _logspace(rng, -320, -3)},
    }[name]


REFERENCE = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "atan": np.arctan, "asin": np.arcsin, "exp": np.exp,
             "log": np.log, "tanh": np.tanh}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_each_function_is_faithful_on_every_range(name):
    rng = np.random.default_rng(RNG_SEED + sorted(REFERENCE).index(name))
    f = getattr(em, name)
    worst = {}
    for label, x in _ranges(name, rng).items():
        err = ulps(vec(f, x), REFERENCE[name](x.astype(L)))
        worst[label] = (float(err.max()), float(x[np.argmax(err)]))
    bad = {k: v for k, v in worst.items() if not v[0] < 1.0}
    assert not bad, f"{name}: max error >= 1 ulp: {bad}"


def test_atan2_and_hypot_are_faithful_in_every_quadrant():
    rng = np.random.default_rng(RNG_SEED + 100)
    for scale in (1.0, 1e-3, 1e150, 1e-160, 1e300):
        y = rng.uniform(-1, 1, N) * scale
        x = rng.uniform(-1, 1, N) * scale * 10.0 ** rng.uniform(-3, 3, N)
        yl, xl = y.astype(L), x.astype(L)
        e = ulps(vec(em.atan2, y, x), np.arctan2(yl, xl))
        assert e.max() < 1.0, (scale, e.max(), y[np.argmax(e)], x[np.argmax(e)])
        e = ulps(vec(em.hypot, y, x), np.hypot(yl, xl))
        assert e.max() < 1.0, (scale, e.max(), y[np.argmax(e)], x[np.argmax(e)])


def test_special_values():
    inf, nan = math.inf, math.nan
    same = lambda a, b: (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    cases = [
        (em.sin, (0.0,), 0.0), (em.sin, (-0.0,), -0.0), (em.sin, (inf,), nan), (em.sin, (nan,), nan),
        (em.cos, (0.0,), 1.0), (em.cos, (-inf,), nan), (em.tan, (-0.0,), -0.0), (em.tan, (inf,), nan),
        (em.atan, (-0.0,), -0.0), (em.atan, (inf,), math.pi / 2), (em.atan, (-inf,), -math.pi / 2),
        (em.atan, (nan,), nan), (em.asin, (1.0,), math.pi / 2), (em.asin, (-1.0,), -math.pi / 2),
        (em.asin, (1.0000000000000002,), nan), (em.asin, (-0.0,), -0.0),
        (em.exp, (0.0,), 1.0), (em.exp, (-inf,), 0.0), (em.exp, (inf,), inf), (em.exp, (710.0,), inf),
        (em.exp, (-746.0,), 0.0), (em.exp, (nan,), nan), (em.exp, (-740.0,), math.exp(-740.0)),
        (em.log, (1.0,), 0.0), (em.log, (0.0,), -inf), (em.log, (-0.0,), -inf), (em.log, (-1.0,), nan),
        (em.log, (inf,), inf), (em.log, (nan,), nan), (em.log, (5e-324,), math.log(5e-324)),
        (em.tanh, (-0.0,), -0.0), (em.tanh, (inf,), 1.0), (em.tanh, (-inf,), -1.0), (em.tanh, (nan,), nan),
        (em.tanh, (30.0,), 1.0),
        (em.atan2, (0.0, -0.0), math.pi), (em.atan2, (-0.0, -0.0), -math.pi), (em.atan2, (-0.0, 0.0), -0.0),
        (em.atan2, (0.0, 1.0), 0.0), (em.atan2, (1.0, 0.0), math.pi / 2), (em.atan2, (-1.0, -0.0), -math.pi / 2),
        (em.atan2, (inf, inf), math.pi / 4), (em.atan2, (inf, -inf), 3 * math.pi / 4),
        (em.atan2, (-1.0, -inf), -math.pi), (em.atan2, (1.0, inf), 0.0), (em.atan2, (nan, 1.0), nan),
        (em.hypot, (inf, nan), inf), (em.hypot, (nan, 1.0), nan), (em.hypot, (3.0, 4.0), 5.0),
        (em.hypot, (1e308, 1e308), math.hypot(1e308, 1e308)), (em.hypot, (5e-324, 5e-324), math.hypot(5e-324, 5e-324)),
        (em.sin, (1e300,), math.sin(1e300)), (em.cos, (1.7976931348623157e308,), math.cos(1.7976931348623157e308)),
    ]
    bad = []
    for f, args, want in cases:
        for g in (f, f.py_func):
            got = g(*args)
            if not same(got, want):
                bad.append(f"{f.__name__}{args} = {got!r}, want {want!r}")
    assert not bad, "\n".join(bad)


def test_sincos_is_sin_and_cos():
    rng = np.random.default_rng(RNG_SEED + 200)
    for x in np.concatenate([rng.uniform(-10, 10, 500), _logspace(rng, -5, 300, 500)]):
        s, c = em.sincos(x)
        assert (s, c) == (em.sin(x), em.cos(x)), x


def test_compiled_and_plain_python_give_the_same_bits():
    """The compiled function and its py_func (what NUMBA_DISABLE_JIT=1 runs) agree bit for bit: the same IEEE
    operations in the same order, no FMA, no libm."""
    rng = np.random.default_rng(RNG_SEED + 300)
    args = {
        "sin": [np.concatenate([rng.uniform(-10, 10, 300), _logspace(rng, -300, 300, 300)])],
        "cos": [np.concatenate([rng.uniform(-10, 10, 300), _logspace(rng, -300, 300, 300)])],
        "tan": [np.concatenate([rng.uniform(-10, 10, 300), _logspace(rng, -300, 300, 300)])],
        "atan": [_logspace(rng, -10, 10, 600)], "asin": [rng.uniform(-1, 1, 600)],
        "exp": [rng.uniform(-745, 709, 600)], "log": [10.0 ** rng.uniform(-320, 308, 600)],
        "tanh": [rng.uniform(-25, 25, 600)],
        "atan2": [rng.uniform(-5, 5, 600), rng.uniform(-5, 5, 600)],
        "hypot": [_logspace(rng, -300, 300, 600), _logspace(rng, -300, 300, 600)],
    }
    for name, a in args.items():
        f = getattr(em, name)
        compiled = vec(f, *a)
        plain = vec(f.py_func, *a)
        assert np.array_equal(compiled.view(np.int64), plain.view(np.int64)), name


def test_the_measure_can_fail():
    """The error measure sees a one-ulp change (so a broken coefficient would fail the tests above)."""
    x = np.linspace(0.1, 0.7, 100)
    exact = np.sin(x.astype(L))
    shifted = np.nextafter(vec(em.sin, x), np.inf)
    assert ulps(shifted, exact).max() > 1.0
    assert ulps(vec(math.sin, x), exact).max() < 1.0


def test_kernels_call_no_libm_transcendental():
    """The package's compiled kernels call this module, not math.sin & co. (what numba lowers to the platform's
    libm): no ``math.<transcendental>(`` inside a function compiled with njit/cfunc in the package."""
    import ast
    from pathlib import Path
    names = {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp", "expm1", "log",
             "log1p", "log2", "log10", "pow", "hypot", "erf", "erfc", "gamma", "lgamma"}
    numpy_names = {"sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "exp",
                   "expm1", "log", "log1p", "log2", "log10", "power", "hypot"}
    integer_powers = {"ratio ** (MAX_ITERATIONS - 1 - it)"}   # float ** int: numba multiplies (no pow call)
    package = Path(em.__file__).resolve().parent
    bad = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "elementary.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            if not any("jit" in ast.unparse(d) or "cfunc" in ast.unparse(d) for d in node.decorator_list):
                continue
            for n in ast.walk(node):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and (
                        (n.value.id == "math" and n.attr in names) or
                        (n.value.id in ("np", "numpy") and n.attr in numpy_names)):
                    bad.append(f"{path.relative_to(package)}:{n.lineno} {node.name}: {n.value.id}.{n.attr}")
                if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and not (
                        isinstance(n.right, ast.Constant) and isinstance(n.right.value, int)) and \
                        ast.unparse(n) not in integer_powers:
                    bad.append(f"{path.relative_to(package)}:{n.lineno} {node.name}: ** {ast.unparse(n.right)}")
    assert not bad, "\n".join(bad)
