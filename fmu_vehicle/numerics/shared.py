"""Calls between compiled kernels that reach the callee's one compiled copy instead of copying it in.

numba compiles a call from one kernel to another by linking the callee's LLVM module into the caller's and
optimizing the result again as a whole. For a small helper that is what one wants (LLVM may inline it). For
the vehicle's derivative it meant that every kernel calling it (each integrator's loop, the output pass's
callers, the static equilibrium's Newton iteration and its helpers, the native step's entry points) carried
and re-optimized its own copy of the whole derivative: a dozen copies of the largest piece of code in the
package, each costing LLVM as much time as the first, and each stored again in the disk cache.

:func:`call` ``(kernel, *args)`` instead emits a plain call to a symbol of its own (:func:`symbol_name`) that
the caller's module only declares:

* when the caller is compiled, ``kernel`` is compiled (or loaded from its cache) for the argument types, once
  per process, and its machine code's address is entered into LLVM's symbol table under that name
  (``llvmlite.binding.add_symbol``), where the caller's code is linked against it when it is loaded;
* the caller's cache entry carries a reload hook (numba runs those before it loads a cached entry's code) that
  does the same, so a caller loaded from the disk cache finds the callee whether or not it was compiled in this
  process;
* the call itself uses numba's internal calling convention, exactly as a linked call would, so an exception
  raised in the callee propagates, and the arguments are passed as numba passes them (a ``packing.by_ref``
  reference is one pointer; a namedtuple passed by value is flattened into its members, which is why the hot
  callers pass references).

LLVM cannot inline across such a call. Use it where a callee is large and called per evaluation from many
kernels, so that the call's few nanoseconds are nothing beside the body it avoids copying: the systems'
derivative, output and switching passes (``integrators.base``) and the static equilibrium's evaluations.

The native libraries (``fmu_vehicle.native``) are built from the LLVM IR of their entry points; those IR
modules declare the symbols of their shared callees, whose IR :func:`shared_modules` gives (from the compile
or from the disk cache), so that the native build links each callee once as well.

With numba disabled (``NUMBA_DISABLE_JIT=1``), :func:`call` is ``kernel(*args)``.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import re

import numba
from numba.core import cgutils, types
from numba.extending import intrinsic

from . import numba_compat as nc

JIT_DISABLED = bool(numba.config.DISABLE_JIT)
if not JIT_DISABLED:
    nc.keep_reload_hooks()      # before any cache entry is loaded: callers inherit the hooks of what they link

SYMBOL_PREFIX = "fmu_vehicle.shared."
"""Start of every shared kernel's symbol (the LLVM IR of a caller declares it)."""

_SYMBOLS: dict[str, tuple] = {}
"""symbol -> (dispatcher, argument types, address) of every shared kernel registered in this process."""


def symbol_name(dispatcher, argtys) -> str:
    """The symbol a caller declares for ``dispatcher`` compiled for the numba types ``argtys``: the kernel's
    package, module and name and a digest of the types (a package copied into an FMU under another name keeps
    its kernels apart)."""
    fn = dispatcher.py_func
    digest = hashlib.sha1(f"{fn.__module__}.{fn.__qualname__}{tuple(argtys)}".encode()).hexdigest()[:16]
    return f"{SYMBOL_PREFIX}{fn.__module__}.{fn.__qualname__}.{digest}"


def register(dispatcher, argtys):
    """Compile ``dispatcher`` for ``argtys`` (or load it from its cache) and enter its address under
    :func:`symbol_name`; returns (compile result, symbol)."""
    argtys = tuple(argtys)
    dispatcher.compile(argtys)
    cres = dispatcher.overloads[argtys]
    name = symbol_name(dispatcher, argtys)
    address = nc.function_address(cres)
    known = _SYMBOLS.get(name)
    if known is None or known[2] != address:
        nc.add_symbol(name, address)
        _SYMBOLS[name] = (dispatcher, argtys, address)
    return cres, name


def _reregister(module: str, qualname: str, argtys) -> None:
    """The reload hook of a caller's cache entry: :func:`register` the kernel ``module.qualname``."""
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    register(obj, argtys)


@intrinsic
def _call(typingctx, kernel, *args):
    """``kernel(*args)`` through the kernel's shared symbol (module docstring)."""
    dispatcher = kernel.dispatcher
    argtys = tuple(args)
    cres, name = register(dispatcher, argtys)
    restype = cres.signature.return_type
    fn = dispatcher.py_func
    hook = functools.partial(_reregister, fn.__module__, fn.__qualname__, argtys)

    def codegen(context, builder, signature, llargs):
        values = cgutils.unpack_tuple(builder, llargs[1], len(argtys))
        nc.add_reload_hook(context, hook)
        return nc.call_declared(context, builder, name, restype, argtys, values)

    return restype(kernel, types.StarArgTuple.from_types(argtys)), codegen


def _call_python(kernel, *args):
    return kernel(*args)


call = _call_python if JIT_DISABLED else _call
"""``call(kernel, *args)``: ``kernel(*args)`` from compiled code through the kernel's one compiled copy
(module docstring); ``kernel`` is a ``jit.njit`` function given by name (a global of the caller)."""

_DECLARED = re.compile(r"^declare [^@]*@\"?(" + re.escape(SYMBOL_PREFIX) + r"[^\"(]+)\"?\(", re.M)


def declared_symbols(ir: str) -> list[str]:
    """The shared kernels' symbols the LLVM IR text ``ir`` declares."""
    return sorted(set(_DECLARED.findall(ir)))


def shared_modules(ir: str) -> dict[str, tuple[str, str]]:
    """{symbol: (LLVM IR of the kernel's module, the kernel's own function name in it)} of every shared kernel
    ``ir`` reaches, directly or through other shared kernels (each registered in this process)."""
    found: dict[str, tuple[str, str]] = {}
    todo = declared_symbols(ir)
    while todo:
        name = todo.pop()
        if name in found:
            continue
        if name not in _SYMBOLS:
            raise KeyError(f"shared kernel {name} is not registered in this process")
        dispatcher, argtys, _ = _SYMBOLS[name]
        cres = dispatcher.overloads[argtys]
        text = nc.library_ir(cres)
        found[name] = (text, nc.function_name(cres))
        todo.extend(declared_symbols(text))
    return found
