"""The package's numba entry point: ``njit`` with an on-disk cache keyed by what each kernel depends on.

numba keys its cache on a function's absolute source path and modification time, so a copy of the
package (an FMU extracted into a fresh temporary folder) would recompile everything (about a minute), and
its stamp covers the function's own file only, while a kernel inlines or calls functions and freezes
module-level constants of other modules: a stale cache would silently run old code. Here:

* :func:`_cache_folder` files the cache of every kernel of this package under
  ``cache.cache_dir()/<package folder>/<module>-<key>``, where the key is :func:`source_key` of its module
  (also numba's stamp of the index): a hash of
  the module's own source and of the sources of every package module it imports, transitively (a static
  import graph read with ``ast``; imports inside functions count too; ``from p import n`` depends on the
  submodule ``p.n`` if there is one, else on ``p``). numba code can only reach what its module imports,
  so an edit elsewhere (the command line, co-simulation, a module no kernel imports) recompiles nothing,
  and an edit of ``tire/pacejka.py`` recompiles the tire and vehicle kernels but not the multibody engine.
  The package's root ``__init__.py`` is left out of every key: it holds nothing a kernel reads. Each key
  has its own folder, so checkouts or branches whose copies of a module differ keep their compiled code side
  by side (and a process never reads a data file another process is writing for other sources); folders of
  other keys of a module unused for a day are deleted, except the two most recently used. Constants a module
  computes at import from data files (not Python sources) are not part of any key.
* A kernel's compiled code also depends on the types it is compiled for: the integrator loops call the
  system's passes through ``integrators.base.system_rhs``, an overload resolved from the model's type
  (``VehicleModel.rhs``, attached in ``vehicle/dynamics.py``), and the integrator modules import no system.
  The package's function cache (``numba_compat.keyed_cache``) therefore adds to each cache entry's index key
  :func:`types_key` of its signature: the source keys of the modules that define the classes appearing in the
  argument types (namedtuples, recursively through tuples and arrays) and of the modules of the compiled functions those
  classes carry as attributes (``VehicleModel.rhs`` -> ``vehicle/dynamics.py``). An edit of
  ``vehicle/dynamics.py`` thus recompiles the RK4 loop for vehicles, not the loop for other systems. At most
  :data:`KEEP_PER_SIGNATURE` entries of one signature with different type keys are kept per index (two
  checkouts alternating share the folder without unbounded growth). The overloads themselves are not
  cached (their closure holds a dispatcher pickled with a random id: their entries never matched).

Any copy of the same sources reuses the cache (the key reads sources, never paths or times).
``cache.cache_dir()`` is a folder per package name (an FMU's copy is renamed, so it has its own) and
Python/numba version, chosen at the first kernel's decoration. Import ``njit`` from here in every hot module.

Engine functions that take the ``(model, data)`` namedtuples are declared ``njit(inline="always")``: numba
passes a tuple argument flattened into its members' fields (about 690 machine words for model + data), so each
call that is not inlined pushes all of them on the stack. Such a kernel is inlined by LLVM, not by numba: it
is compiled once per process (and cached) with ``forceinline`` (LLVM's ``alwaysinline``) and without numba's
wrappers for calls from Python, and every compiled caller links and inlines its machine-level IR. numba's own
IR-level inlining copied and re-typed each callee at every call site, and left LLVM one function with hundreds
of copies of the namedtuples to split apart (SROA): the vehicle's derivative took minutes to compile that way.
A call of such a kernel from Python goes to a twin compiled with the wrappers (``numerics.numba_compat.
inline_kernel``). Large passes called from many kernels are reached through their one compiled copy instead
(``numerics.shared``). A call from Python unboxes every array of model and data, ~2.7 us per call: calls made
once per step go through ``fmu_vehicle.numerics.packing``.
"""
from __future__ import annotations

import ast
import hashlib
import os
import re
import sys
from pathlib import Path

import numba
from numba.core import types as nbtypes
from numba.core.dispatcher import Dispatcher

from .numba_compat import CachePolicy, inline_kernel, install_cache_policy, keep_reload_hooks, keyed_cache

_PKG = Path(__file__).resolve().parent.parent          # the package folder (fmu_vehicle or an FMU's renamed copy)
_ROOT_INIT = _PKG / "__init__.py"
_IMPORTS: dict[Path, frozenset] = {}
_KEYS: dict[Path, str] = {}

JIT_DISABLED = bool(numba.config.DISABLE_JIT)
if not JIT_DISABLED:
    keep_reload_hooks()         # before any kernel is loaded from the cache (numerics.shared)

KEEP_PER_SIGNATURE = 3
"""Cache entries of one function and signature kept for different :func:`types_key` (older ones dropped)."""


def _module_file(parts) -> Path | None:
    """The file of the package module at ``parts`` (names below the package), or None."""
    if not parts:
        return _ROOT_INIT
    base = _PKG.joinpath(*parts)
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


_IMPORT_LINE = re.compile(rb"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import\b|import[ \t]+\w)", re.M)


def import_statements(source: bytes) -> list:
    """The import statements (``ast.Import``/``ast.ImportFrom`` nodes) of a module's source.

    Each line that begins (after any indentation) with ``import x`` or ``from x import`` is parsed alone,
    continued over a parenthesized name list or backslash continuations: about ten times faster than
    parsing the whole module, which every process did for each of the package's modules on its first
    import (0.8 s of an FMU's start). A line inside a string that looks like an import adds a dependency too
    many (a recompile too many, never a stale kernel). If a candidate does not parse alone, the whole module
    is parsed instead. Not found: an import after other code on its line (``if x: import y``); the package has
    none (tests/test_numba_cache_keys.py compares this with a whole-module parse for every module).
    """
    nodes = []
    for match in _IMPORT_LINE.finditer(source):
        start = match.start()
        end = source.find(b"\n", start)
        end = len(source) if end < 0 else end
        if b"(" in source[start:end] and b")" not in source[start:end]:
            close = source.find(b")", start)
            end = len(source) if close < 0 else close + 1
        while source[start:end].rstrip().endswith(b"\\") and end < len(source):
            nxt = source.find(b"\n", end + 1)
            end = len(source) if nxt < 0 else nxt
        try:
            tree = ast.parse(source[start:end].strip())
        except (SyntaxError, ValueError):
            return _all_imports(ast.parse(source))
        nodes.extend(_all_imports(tree))
    return nodes


def _all_imports(tree) -> list:
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def _imports(path: Path) -> frozenset:
    """Files of the package modules ``path`` imports (anywhere in it, statically), without the root __init__."""
    if path in _IMPORTS:
        return _IMPORTS[path]
    here = list(path.relative_to(_PKG).parent.parts)    # the module's package (__package__)
    found = set()
    try:
        statements = import_statements(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        statements = []
    for node in statements:
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == _PKG.name:
                    for k in range(1, len(parts) + 1):       # import a.b.c runs a, a.b, a.b.c
                        found.add(_module_file(parts[1:k]))
        elif isinstance(node, ast.ImportFrom):
            mod = node.module.split(".") if node.module else []
            if node.level:
                if node.level - 1 > len(here):
                    continue
                mod = here[:len(here) - (node.level - 1)] + mod
            elif mod and mod[0] == _PKG.name:
                mod = mod[1:]
            else:
                continue
            for alias in node.names:        # from p import n: the submodule p.n, or a name of p
                sub = _module_file(mod + [alias.name]) if alias.name != "*" else None
                found.add(sub if sub is not None else _module_file(mod))
    found.discard(None)
    found.discard(_ROOT_INIT)
    found.discard(path)
    _IMPORTS[path] = result = frozenset(found)
    return result


def dependencies(path) -> list[Path]:
    """``path`` (a package module's file) and the files of every package module it imports, transitively
    (sorted; the root ``__init__.py`` excluded)."""
    path = Path(path).resolve()
    seen, todo = {path}, [path]
    while todo:
        for dep in _imports(todo.pop()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return sorted(seen)


def source_key(path) -> str:
    """sha1 of the sources of ``path`` and of its :func:`dependencies` (their package paths and bytes)."""
    path = Path(path).resolve()
    if path not in _KEYS:
        h = hashlib.sha1()
        for dep in dependencies(path):
            h.update(dep.relative_to(_PKG).as_posix().encode() + b"\0")
            h.update(hashlib.sha1(dep.read_bytes()).digest())
        _KEYS[path] = h.hexdigest()
    return _KEYS[path]


def _package_file(obj) -> Path | None:
    """The file of the package module that defines the class or compiled function ``obj``, or None."""
    if isinstance(obj, staticmethod):
        obj = obj.__func__
    if isinstance(obj, Dispatcher):
        file = obj.py_func.__code__.co_filename
    elif isinstance(obj, type):
        file = getattr(sys.modules.get(obj.__module__), "__file__", None)
    else:
        return None
    if not file:
        return None
    try:
        path = Path(file).resolve()
        path.relative_to(_PKG)
    except (OSError, ValueError):
        return None
    return path


def _type_files(ty, found: set, seen: dict) -> None:
    """Collect into ``found`` the package files behind the numba type ``ty`` (see :func:`types_key`)."""
    if id(ty) in seen:
        return
    seen[id(ty)] = ty                            # kept alive: a freed temporary's id could be reused
    if isinstance(ty, (tuple, list)):
        for t in ty:
            _type_files(t, found, seen)
        return
    if isinstance(ty, type):
        path = _package_file(ty)
        if path is not None:
            found.add(path)
            for attr in vars(ty).values():        # the compiled passes a class carries (VehicleModel.rhs)
                path = _package_file(attr)
                if path is not None:
                    found.add(path)
        return
    if isinstance(ty, Dispatcher):
        path = _package_file(ty)
        if path is not None:
            found.add(path)
        return
    if not isinstance(ty, nbtypes.Type):
        return
    for name in ("instance_class", "types", "dtype", "dispatcher", "key"):
        try:
            sub = getattr(ty, name, None)
        except Exception:                        # some types compute these lazily and may refuse
            continue
        if sub is not None and sub is not ty:
            _type_files(sub, found, seen)


def types_key(sig) -> str:
    """Hash of the :func:`source_key` of the package modules behind the types of ``sig`` (a signature or a
    tuple of argument types): the modules defining the classes in them and the compiled functions those
    classes carry as attributes. '' when none."""
    tys = (*sig.args, sig.return_type) if hasattr(sig, "args") else sig
    found: set = set()
    _type_files(tys, found, {})
    if not found:
        return ""
    h = hashlib.sha1()
    for path in sorted(found):
        h.update(source_key(path).encode())
    return h.hexdigest()


KEY_CHARS = 16
"""Hex digits of :func:`source_key` in the name of a module's cache folder."""
_USED: set = set()


def _use_and_prune(folder: Path) -> None:
    """Mark ``folder`` (``<module>-<key>``) used now and delete the folders of other keys of the same module
    (``cache._prune_caches``). Once per folder and process; errors are ignored (the cache is an optimization)."""
    from .cache import _prune_caches
    if folder in _USED:
        return
    _USED.add(folder)
    stem = folder.name[:-(KEY_CHARS + 1)]
    try:
        os.utime(folder)
    except OSError:
        return

    def other_key(d: Path) -> bool:
        key = d.name[len(stem) + 1:]
        return len(key) == KEY_CHARS and all(c in "0123456789abcdef" for c in key)
    _prune_caches(folder.parent, folder, f"{stem}-*", other_key)


def _cache_folder(py_file) -> str | None:
    """The cache folder of the kernels defined in ``py_file``: ``cache.cache_dir()/<package folder>/<module>-<source
    key>``; None for a file outside this package or without a disk cache."""
    from .cache import cache_dir
    root = cache_dir()
    if not root:
        return None
    try:
        rel = Path(py_file).resolve().relative_to(_PKG)
    except ValueError:
        return None
    return os.path.join(root, *rel.parent.parts, f"{rel.stem}-{source_key(py_file)[:KEY_CHARS]}")


LINK_ONLY = ".link"
"""Added to the file names of an inline kernel's own cache entries (``njit(inline="always")``: code without
numba's wrappers, which only a caller compiled later links in). Code loaded from the cache never needs them, so
an FMU leaves them out (``fmi.build._add_compiled_code``)."""

CACHE_POLICY = CachePolicy(folder=_cache_folder, on_use=lambda folder: _use_and_prune(Path(folder)), stamp=source_key,
                           signature_key=types_key, keep_per_signature=KEEP_PER_SIGNATURE, link_only_suffix=LINK_ONLY)
"""How this package's kernels are cached (module docstring), handed to numba through ``numba_compat``."""
install_cache_policy(CACHE_POLICY)


def _keyed(dispatcher, tag: str = "", link_only: bool = False):
    """``dispatcher`` with the package's function cache (:data:`CACHE_POLICY`) in place of numba's (if it caches);
    ``tag`` tells its entries apart from those of another dispatcher of the same function (an inline kernel's
    Python twin, which has numba's wrappers, and the kernel, which has none: ``link_only``)."""
    return keyed_cache(dispatcher, CACHE_POLICY, tag, link_only)


PORTABLE_CPU = "generic"
"""LLVM CPU name of the code an FMU ships (baseline x86-64: runs on any x86-64 machine)."""


def use_portable_target() -> str | None:
    """Inside an FMU built for this interpreter (``cache.built_for_this_interpreter``; also one that
    ships no kernels itself: a vehicle FMU of the same build may bring them later, ``adopt_fmu_cache``),
    compile for and load the portable CPU target, so the kernels compiled at build time are found in the
    cache; returns a message to log when the code will be compiled here instead (None when the shipped code
    is used).

    numba fixes its CPU target when it first compiles or loads code in a process; a host that already did
    so (natively) gets native code, compiled now and cached per user. ``FMU_VEHICLE_NATIVE=1`` asks for
    native code (faster once compiled; the first instance compiles for about a minute).
    """
    from .cache import built_for_this_interpreter
    if not built_for_this_interpreter(_PKG):
        return None if not (_PKG / "fmi" / "build_info.json").is_file() else (
            "the compiled code shipped in this FMU is for another Python or numba version: compiling the "
            "model for this machine (about a minute, cached for later instances)")
    if os.environ.get("FMU_VEHICLE_NATIVE") == "1":
        return "FMU_VEHICLE_NATIVE=1: compiling the model for this CPU (about a minute once, then cached)"
    if not pin_portable_cpu():
        return ("numba in this process already compiles for the native CPU: compiling the model for it "
                "(about a minute once, then cached)")
    return None


def pin_portable_cpu() -> bool:
    """Make numba compile for and load the portable CPU target in this process, if it has not fixed its
    target yet (it does so when the first compiled function is defined); True if the target is the portable
    one.  A host process that will run FMUs of this package calls it before importing compiled code, so
    that the FMUs load the kernels they ship instead of compiling them natively.  Does nothing when
    ``FMU_VEHICLE_NATIVE=1`` asks for native code."""
    from numba.core import config, registry

    if "_toplevel_target_context" not in registry.cpu_target.__dict__ and os.environ.get("FMU_VEHICLE_NATIVE") != "1":
        config.CPU_NAME, config.CPU_FEATURES = PORTABLE_CPU, ""
    return config.CPU_NAME == PORTABLE_CPU


def njit(*args, allocates: bool = False, **kwargs):
    """``numba.njit`` with ``cache=True`` and without numba's runtime (NRT) reference counting by default.

    Hot kernels allocate nothing, so they are compiled with ``_nrt=False``: with NRT every array reaching
    a compiled function (each member of the ``model``/``data`` namedtuples, about 90 arrays, on every
    call, and every view such as ``data.tmp[k]``) costs an atomic increment and decrement of its
    reference count, which took about 95 % of a vehicle derivative evaluation when measured. A kernel that
    creates arrays declares ``allocates=True`` (numba refuses to compile an allocation without NRT).
    Cached entries are keyed by the sources the kernel depends on (module docstring). Runs uncompiled with
    NUMBA_DISABLE_JIT=1.
    """
    kwargs.setdefault("cache", True)
    kwargs.setdefault("_nrt", bool(allocates))
    inline = kwargs.get("inline") == "always"
    if inline:
        del kwargs["inline"]
        kwargs.update(forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
    kwargs.setdefault("forceinline", False)     # set, so that a callee never inherits its caller's

    def finish(dispatcher):
        dispatcher = _keyed(dispatcher, link_only=inline)
        return inline_kernel(dispatcher, lambda twin: _keyed(twin, ":python")) if inline and not JIT_DISABLED \
            else dispatcher

    if args and callable(args[0]):
        return finish(numba.njit(*args, **kwargs))
    decorator = numba.njit(*args, **kwargs)
    return lambda func: finish(decorator(func))


def entry_point(dispatcher, *args):
    """The compiled entry point of ``dispatcher`` for the types of ``args`` (loaded from the cache or
    compiled now), or the plain function when numba is disabled.

    Calling it skips the dispatcher's per-call type resolution, which for the nested namedtuples of a
    vehicle costs about 7 us (unboxing them then costs about 2.7 us more per call: what a stepper calls
    once per step takes them packed, ``fmu_vehicle.numerics.packing``). Every later call must pass arguments of
    exactly these types.
    """
    if not isinstance(dispatcher, numba.core.dispatcher.Dispatcher):
        return dispatcher
    sig = tuple(dispatcher.typeof_pyval(a) for a in args)
    python_entry = getattr(dispatcher, "python_entry", None)       # an inline kernel: its twin's entry
    return python_entry(sig) if python_entry is not None else dispatcher.compile(sig)


COMPILE_NOTICE: str | None = use_portable_target()
"""Why the model will be compiled in this process although it runs from an FMU that ships compiled code
(None: the shipped code is used, or this is not an FMU). Logged by the FMU at initialization."""
