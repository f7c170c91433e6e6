"""``numerics.shared``: a kernel called through its one compiled copy, not linked into its caller.

The caller's code declares the callee's symbol instead of holding a copy of it; the result is the same as a
linked call; a caller loaded from the disk cache in a fresh process finds the callee (the reload hook of its
cache entry registers it); the vehicle's integrator loop and equilibrium hold no copy of the derivative.
"""
import json
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

from fmu_vehicle.numerics import numba_compat, shared

MODULE = textwrap.dedent('''
    import numba
    from fmu_vehicle.numerics import shared


    @numba.njit(cache=True)
    def weighted_sum(x, a):
        s = 0.0
        for i in range(a.size):
            s += a[i] * x
        return s


    @numba.njit(cache=True)
    def through_symbol(a):
        t = 0.0
        for k in range(3):
            t += shared.call(weighted_sum, float(k) + 0.5, a)
        return t


    @numba.njit(cache=True)
    def outer(a):
        # links through_symbol's library: its cache entry must carry through_symbol's reload hook, also when
        # through_symbol itself was loaded from the cache when outer was compiled
        return 2.0 * through_symbol(a)


    @numba.njit(cache=True)
    def linked(a):
        t = 0.0
        for k in range(3):
            t += weighted_sum(float(k) + 0.5, a)
        return t
''')

CHILD = textwrap.dedent('''
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import shared_demo
    a = np.arange(5.0) ** 1.5
    if sys.argv[2:] == ["outer"]:
        print(json.dumps({"outer": shared_demo.outer(a), "hits": sum(shared_demo.outer.stats.cache_hits.values())}))
        sys.exit(0)
    stats = getattr(shared_demo.through_symbol, "stats", None)       # (none with NUMBA_DISABLE_JIT=1)
    print(json.dumps({"through_symbol": shared_demo.through_symbol(a), "linked": shared_demo.linked(a),
                      "hits": sum(stats.cache_hits.values()) if stats else 0}))
''')

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="compiled calls need numba's compiler")


def _child(folder, env=None, *args):
    out = subprocess.run([sys.executable, "-c", CHILD, str(folder), *args], capture_output=True, text=True,
                         env=dict(os.environ, **(env or {})))
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_caller_loaded_from_the_cache_finds_its_callee(tmp_path):
    (tmp_path / "shared_demo.py").write_text(MODULE)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = _child(tmp_path, env)
    second = _child(tmp_path, env)              # a fresh process: the caller is loaded, not compiled
    expected = sum((k + 0.5) * (np.arange(5.0) ** 1.5).sum() for k in range(3))
    assert first["hits"] == 0 and second["hits"] == 1
    for r in (first, second):
        assert r["through_symbol"] == r["linked"]           # the same code, reached by a symbol: the same bits
        assert r["through_symbol"] == pytest.approx(expected, rel=1e-15)


def test_a_caller_of_a_cached_caller_registers_the_callee_too(tmp_path):
    """outer links through_symbol, loaded from the cache when outer is compiled; outer's own cache entry, loaded in
    a third process (nothing compiled there), must still register weighted_sum before its code is loaded."""
    (tmp_path / "shared_demo.py").write_text(MODULE)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = _child(tmp_path, env)                       # compiles through_symbol (and linked)
    compiled = _child(tmp_path, env, "outer")           # through_symbol from the cache, outer compiled
    loaded = _child(tmp_path, env, "outer")             # outer from the cache
    assert compiled["hits"] == 0 and loaded["hits"] == 1
    assert compiled["outer"] == loaded["outer"] == 2.0 * first["through_symbol"]


def test_the_caller_declares_the_callee_instead_of_holding_it(tmp_path, monkeypatch):
    (tmp_path / "shared_demo.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    import shared_demo
    a = np.ones(3)
    assert shared_demo.through_symbol(a) == shared_demo.linked(a) == 13.5       # 3 (0.5 + 1.5 + 2.5)
    sig = (numba.typeof(a),)
    callee = shared_demo.weighted_sum.overloads[(numba.float64, numba.typeof(a))]
    symbol = shared.symbol_name(shared_demo.weighted_sum, (numba.float64, numba.typeof(a)))
    via_symbol = numba_compat.library_ir(shared_demo.through_symbol.overloads[sig])
    via_link = numba_compat.library_ir(shared_demo.linked.overloads[sig])
    own = numba_compat.function_name(callee)
    assert shared.declared_symbols(via_symbol) == [symbol]
    assert "define" in via_link and own in via_link              # numba's linked call: a copy of the callee
    assert own not in via_symbol                                   # here: only the declaration of the symbol
    modules = shared.shared_modules(via_symbol)
    assert list(modules) == [symbol] and modules[symbol][1] == own and own in modules[symbol][0]


def test_plain_python_calls_the_kernel(tmp_path):
    """With NUMBA_DISABLE_JIT=1 the same code runs uncompiled: call(kernel, *args) is kernel(*args)."""
    (tmp_path / "shared_demo.py").write_text(MODULE)
    r = _child(tmp_path, {"NUMBA_DISABLE_JIT": "1"})
    assert r["through_symbol"] == r["linked"] and r["hits"] == 0
