"""Machine code of a system's C entry points (``step``), linked into a shared library without Python.

Steps (:func:`build_library`):

1. LLVM IR: the entry points are compiled by numba in a child process for the portable CPU
   (``jit.PORTABLE_CPU``), and the IR of each ``cfunc``'s code library is read with
   ``cfunc._library.get_llvm_str()``: after finalization it holds the wrapper and every kernel it reaches,
   linked in. The child uses the package's kernel cache (:func:`kernel_cache_dir`; its entries are keyed by
   the CPU they were compiled for, so the portable ones sit beside a developer's native ones): a kernel
   loaded from it brings, beside its object code, the bitcode numba keeps for linking into callers, so the IR
   is the same text as from a fresh compile, and an export after another one, after the test suite (which
   compiles for the portable CPU) or after an edit compiles only the kernels whose sources or types changed.
2. Object code: llvmlite parses the IR of both entry points into one module, renames the two wrappers to
   :data:`ENTRY_SYMBOLS`, gives every other definition internal linkage (nothing else is exported, so two
   libraries never clash), sets the target triple and data layout, and emits a relocatable object for
   ``x86_64-unknown-linux-gnu`` (position-independent) or ``x86_64-w64-windows-gnu`` for the CPU
   ``jit.PORTABLE_CPU`` (baseline x86-64, SSE2: runs on any 64-bit x86 host).
3. Symbol check: every symbol the object leaves undefined must be an exactly rounded libm/libc function
   (:data:`LIBC_SYMBOLS`: no sin, exp, ..., whose last bits differ between C runtimes; plus
   :data:`WINDOWS_SYMBOLS` for win64) or one that ``c/runtime.c`` defines (its
   stand-ins for numba's Python error paths, read from the compiled runtime with ``nm``): anything else
   fails the build with :class:`NativeBuildError` naming the symbols.
4. Link: ``cc -shared -fPIC`` (or ``x86_64-w64-mingw32-gcc -shared``) of the object and ``c/runtime.c``
   with libm only.

What this relies on of numba's internals, pinned in ``numerics.numba_compat.PINNED`` (a build with other versions is refused;
the native tests compare the library with the JIT bit for bit, so an upgrade that changes them is caught
before the pins are moved): ``numba_compat.cfunc_llvm_ir``, ``cfunc.native_name`` (the wrapper's symbol),
the array struct layout read by ``layout``, and the set of error-path symbols the IR declares.

See docs/native.md §3.
"""
from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

from ..errors import FmuVehicleError
from ..numerics.numba_compat import PINNED, cfunc_llvm_ir, version_mismatches

C_DIR = Path(__file__).resolve().parent / "c"
RUNTIME_C = C_DIR / "runtime.c"
"""The C runtime linked into every native library (stand-ins for numba's error paths, images, entry points)."""

ENTRY_SYMBOLS = {"advance": "fv_advance_raw", "final": "fv_final_raw", "prepare": "fv_prepare_raw",
                 "start": "fv_start_raw", "equilibrium": "fv_equilibrium_raw",
                 "repartition": "fv_repartition_raw", "advance_abm4": "fv_advance_abm4_raw",
                 "advance_bdf2": "fv_advance_bdf2_raw", "advance_rk4e": "fv_advance_rk4e_raw",
                 "evaluate": "fv_evaluate_raw"}
"""Symbol of each ``step`` entry point in the object (``step.step_cfuncs``, then ``step.integrator_cfuncs``
and ``step.evaluate_cfunc``);
``c/runtime.c`` wraps them as fv_advance, fv_final, ..., fv_advance_abm4, ..."""

LIBC_SYMBOLS = frozenset("""
    sqrt fabs floor ceil trunc round rint nearbyint fmod remainder copysign fmin fmax ldexp frexp modf
    memset memcpy memmove
""".split())
"""Functions of libm/libc the code may call (LLVM lowers its math intrinsics and memset to them): only those
whose result IEEE 754 defines exactly (correctly rounded or exact), which every C runtime computes alike. The
transcendental functions (sin, atan2, exp, pow, ...) are not among them: each platform's libm rounds them its
own way in the last bit, so the kernels call ``fmu_vehicle.numerics.elementary`` instead, and a stray ``math.sin`` in a
kernel fails the build here (:data:`TRANSCENDENTAL` names them in the message)."""

TRANSCENDENTAL = frozenset("""
    sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 log log2 log10 log1p
    pow cbrt hypot erf erfc tgamma lgamma sincos fma
""".split())
"""libm functions the step object may not call (:data:`LIBC_SYMBOLS`)."""

WINDOWS_SYMBOLS = frozenset({"__chkstk", "___chkstk_ms", "_fltused"})
"""Symbols of mingw's support library a Windows object may reference (stack probes of large frames)."""


class Target(NamedTuple):
    """A platform the library is built for."""
    name: str        # FMI platform folder
    triple: str      # LLVM target triple
    cc: str          # C compiler driver that links the library
    nm: str          # nm that reads its objects
    suffix: str      # shared library file suffix


TARGETS = {
    "linux64": Target("linux64", "x86_64-unknown-linux-gnu", "cc", "nm", ".so"),
    "win64": Target("win64", "x86_64-w64-windows-gnu", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-nm", ".dll"),
}


class NativeBuildError(FmuVehicleError):
    """A native library cannot be built (missing tool, unexpected symbols, other numba version)."""


def check_versions() -> None:
    """Refuse numba/llvmlite versions other than ``numba_compat.PINNED``."""
    bad = version_mismatches()
    if bad:
        raise NativeBuildError("native builds rely on numba internals checked for "
                               + ", ".join(f"{k} {v}" for k, v in PINNED.items()) + "; installed: "
                               + ", ".join(f"{k} {v}" for k, v in bad.items()))


def missing_tools(target: Target) -> list[str]:
    """The programs ``target``'s build needs that are not on PATH."""
    return [tool for tool in (target.cc, target.nm) if shutil.which(tool) is None]


def usable_targets(fmu: str, targets, log) -> list[str]:
    """The names of ``targets`` (``TARGETS`` keys) whose tools are installed; each other one is logged (``log``)
    with what is missing, and if none is left NativeBuildError names the platforms (``fmu`` names the build)."""
    usable = []
    for name in targets:
        missing = missing_tools(TARGETS[name])
        if missing:
            log(f"{fmu}: no {name} binary ({', '.join(missing)} not found; on Debian: apt-get install "
                f"gcc-mingw-w64-x86-64)")
        else:
            usable.append(name)
    if not usable:
        raise NativeBuildError(f"{fmu}: no platform can be built ({', '.join(targets)}): the C compilers are missing")
    return usable


# ---- 1. LLVM IR ------------------------------------------------------------------------------------------
def entry_ir(model_type, data_type, shape, methods=()) -> tuple[dict, dict]:
    """({entry: IR text}, {entry: wrapper symbol}) of the ``step`` entry points (``step_cfuncs``, and the
    advance of each integrator in ``methods``: ``step.integrator_cfuncs``, entry ``advance_<method>``),
    compiled in this process (which must compile for the portable CPU: :func:`fresh_ir`)."""
    from ..numerics.shared import shared_modules
    from .step import evaluate_cfunc, integrator_cfuncs, step_cfuncs
    funcs = dict(zip(ENTRY_SYMBOLS, step_cfuncs(model_type, data_type, shape)))
    funcs.update({f"advance_{m}": f for m, f in integrator_cfuncs(model_type, data_type, shape, methods).items()})
    funcs["evaluate"] = evaluate_cfunc(model_type, data_type, shape)
    irs = {k: cfunc_llvm_ir(f) for k, f in funcs.items()}
    names = {k: f.native_name for k, f in funcs.items()}
    for text in list(irs.values()):         # the kernels they reach through their one compiled copy, once each
        for symbol, (ir, name) in shared_modules(text).items():
            irs[symbol], names[symbol] = ir, name
    return irs, names


def fresh_ir(model_type, data_type, shape, modules=(), methods=()) -> tuple[dict, dict]:
    """:func:`entry_ir` computed in a child process for the portable CPU target, with the package's kernel
    cache (:func:`kernel_cache_dir`); ``modules`` are imported there first (those that attach a model type's
    compiled passes, e.g. ``fmu_vehicle.vehicle.dynamics``); ``methods``: the integrators besides RK4 whose
    entry points it holds too. The first time, takes as long as compiling the system's kernels (minutes)."""
    return fresh_irs([(model_type, data_type, shape)], modules, methods)[0]


def ir_key(model_type, data_type, shape, methods=()) -> str:
    """What the IR of the entry points for these types and sizes depends on, hashed: the sources behind the
    types (``jit.types_key``: the vehicle's passes and everything they import), the sources of ``step.py`` and
    what it imports (the integrators, the stepping kernels, packing), the types' text, the sizes, the
    integrators carried besides RK4 (``methods``), the numba and llvmlite versions and the CPU target."""
    import hashlib
    from ..numerics import jit
    parts = (jit.types_key((model_type, data_type)), jit.source_key(Path(__file__).with_name("step.py")),
             str(model_type), str(data_type), repr(tuple(int(v) for v in shape)),
             *(metadata.version(d) for d in PINNED), jit.PORTABLE_CPU, *_methods(methods))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def _ir_cache_dir() -> Path | None:
    from ..numerics.cache import cache_dir
    return None if cache_dir() is None else Path(cache_dir()) / "native-ir"


def kernel_cache_dir() -> Path | None:
    """The kernel cache of the export's child: this copy's own (``fmu_vehicle.CACHE_DIR``, where the child's
    entries are those compiled for the portable CPU: module docstring, step 1); None when it caches nothing."""
    from ..numerics.cache import cache_dir
    return None if cache_dir() is None else Path(cache_dir())


def _methods(methods) -> tuple[str, ...]:
    """The integrators of ``methods`` that have entry points of their own (RK4's is always there), in
    ``step.INTEGRATOR_ENTRIES`` order."""
    from .step import INTEGRATOR_ENTRIES
    return tuple(m for m in INTEGRATOR_ENTRIES if m in methods)


def fresh_irs(entries, modules=(), methods=()) -> list[tuple[dict, dict]]:
    """:func:`fresh_ir` of several (model type, data type, shape) in one child process: systems of the same
    types (a half car and a full car) compile their kernels once. The IR is kept in the kernel cache folder
    under :func:`ir_key` (an export of the same sources and sizes compiles nothing); only the entries not
    found there are compiled. ``methods``: the integrators besides RK4 carried (:func:`entry_ir`)."""
    entries = list(entries)
    methods = _methods(methods)
    cache = _ir_cache_dir()
    keys = [ir_key(m, d, s, methods) for m, d, s in entries]
    found = {}
    for i, key in enumerate(keys):
        folder = cache / key if cache is not None else None
        if folder is not None and (folder / "names.json").is_file():
            names = json.loads((folder / "names.json").read_text())
            found[i] = ({k: (folder / f"{k}.ll").read_text() for k in names}, names)
            _touch(folder)
    todo = [i for i in range(len(entries)) if i not in found]
    if todo:
        for i, result in zip(todo, _compile_irs([entries[i] for i in todo], modules, methods)):
            found[i] = result
            if cache is not None:
                _store_ir(cache / keys[i], *result)
    return [found[i] for i in range(len(entries))]


IR_KEEP_DAYS = 7
"""Cached IR entries unused for this many days are deleted when another entry is stored."""


def _touch(folder: Path) -> None:
    try:
        os.utime(folder)
    except OSError:
        pass


def _prune(folder: Path, keep: Path) -> None:
    """Delete the entries of the cache folder ``folder`` (files or folders) but ``keep`` unused for
    :data:`IR_KEEP_DAYS` days (OSError passes to the caller)."""
    import time
    for old in folder.iterdir():
        if old != keep and time.time() - old.stat().st_mtime > IR_KEEP_DAYS * 86400.0:
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.unlink(missing_ok=True)


def _store_ir(folder: Path, irs: dict, names: dict) -> None:
    """Write one entry's IR into the cache (all files, then names.json last: a reader sees all or nothing)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for k, text in irs.items():
            (folder / f"{k}.ll").write_text(text)
        tmp = folder / f"names.json.{os.getpid()}"
        tmp.write_text(json.dumps(names))
        os.replace(tmp, folder / "names.json")
        _prune(folder.parent, keep=folder)
    except OSError:
        pass                    # a read-only cache: the next export compiles again


def _compile_irs(entries, modules, methods=()) -> list[tuple[dict, dict]]:
    """The entry points' IR of ``entries`` compiled in one child process (:func:`fresh_irs`)."""
    return ir_child("fmu_vehicle.native.emit", (list(modules), [(m, d, tuple(s)) for m, d, s in entries], methods),
                    len(entries), "compiling the entry points")


def ir_child(module: str, request, count: int, what: str) -> list[tuple[dict, dict]]:
    """Run ``python -m module <request.pkl> <folder>`` for the portable CPU with the package's kernel cache and
    read back the ``count`` IR sets it wrote: ``{name: IR text}`` from ``<name>-<i>.ll`` and the names from
    ``names-<i>.json``. A failing child raises NativeBuildError starting with ``what``."""
    from ..numerics.jit import PORTABLE_CPU
    from ..util import compiling_child_env
    with tempfile.TemporaryDirectory(prefix="fv_native_ir_") as tmp:
        path = Path(tmp) / "request.pkl"
        path.write_bytes(pickle.dumps(request))
        kernels = kernel_cache_dir() or Path(tmp) / "cache"
        env = compiling_child_env(kernels, NUMBA_CPU_NAME=PORTABLE_CPU, NUMBA_CPU_FEATURES="")
        proc = subprocess.run([sys.executable, "-m", module, str(path), tmp], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise NativeBuildError(f"{what} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
        out = []
        for i in range(count):
            names = json.loads((Path(tmp) / f"names-{i}.json").read_text())
            out.append(({k: (Path(tmp) / f"{k}-{i}.ll").read_text() for k in names}, names))
        return out


def _child(request: str, out: str) -> None:
    """The child process of :func:`fresh_irs`."""
    import importlib
    modules, entries, methods = pickle.loads(Path(request).read_bytes())
    for m in modules:
        importlib.import_module(m)
    from numba.core import config
    if config.CPU_NAME != os.environ.get("NUMBA_CPU_NAME"):
        raise NativeBuildError(f"numba compiles for {config.CPU_NAME!r}, not the portable CPU")
    for i, (model_type, data_type, shape) in enumerate(entries):
        irs, names = entry_ir(model_type, data_type, shape, methods)
        for k, text in irs.items():
            (Path(out) / f"{k}-{i}.ll").write_text(text)
        (Path(out) / f"names-{i}.json").write_text(json.dumps(names))


# ---- 2. object code --------------------------------------------------------------------------------------
def object_code(irs: dict, names: dict, target: Target, entries: dict = ENTRY_SYMBOLS) -> bytes:
    """A relocatable object for ``target`` holding the entry points ``names`` (renamed as ``entries`` says:
    :data:`ENTRY_SYMBOLS` for a system's step, ``native.block.BLOCK_SYMBOLS`` for a block's kernels) of the IR
    modules ``irs`` and everything they call (module docstring)."""
    import llvmlite.binding as llvm
    from ..numerics.jit import PORTABLE_CPU
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    tm = llvm.Target.from_triple(target.triple).create_target_machine(
        cpu=PORTABLE_CPU, features="", opt=2, reloc="pic", codemodel="default")
    module = None
    shared = [entry for entry in irs if entry not in entries]
    for entry, text in irs.items():
        mod = llvm.parse_assembly(text)
        fn = mod.get_function(names[entry])
        if entry in entries:
            fn.name = entries[entry]
            fn.visibility = "hidden"            # called by c/runtime.c's fv_advance/fv_final, not exported
        else:                                   # a shared kernel (numerics.shared): defines the symbol the
            fn.name = entry                     # entry points' modules declare
            fn.linkage = llvm.Linkage.external
        # everything but the entry point internal: the modules of several entry points share kernels
        for g in (*mod.functions, *mod.global_variables):
            if not g.is_declaration and g.name != fn.name:
                g.linkage = llvm.Linkage.internal
        if module is None:
            module = mod
        else:
            module.link_in(mod)
    for symbol in shared:                       # linked: not exported from the library either
        module.get_function(symbol).linkage = llvm.Linkage.internal
    module.triple = target.triple
    module.data_layout = str(tm.target_data)
    module.verify()
    return tm.emit_object(module)


def cached_object_code(irs: dict, names: dict, target: Target, entries: dict = ENTRY_SYMBOLS) -> bytes:
    """:func:`object_code`, kept in the kernel cache folder (``native-obj/``) under a hash of the IR, the entry
    points' names, the target, the pinned versions and this module's source: the object of IR exported before
    (an FMU's FMI 2.0 and FMI 3.0 builds, the tests' several builds of one vehicle) is emitted once (15-20 s
    each on a busy 2-core machine). Entries unused for :data:`IR_KEEP_DAYS` days are deleted when another is
    stored."""
    import hashlib
    from ..numerics import jit
    from ..numerics.cache import cache_dir
    h = hashlib.sha256()
    for part in (*(f"{k}\0{irs[k]}\0{names[k]}\0{entries.get(k, '')}" for k in sorted(irs)), target.triple,
                 jit.PORTABLE_CPU,
                 *(metadata.version(d) for d in PINNED), jit.source_key(Path(__file__))):
        h.update(part.encode() + b"\0")
    folder = None if cache_dir() is None else Path(cache_dir()) / "native-obj"
    path = None if folder is None else folder / f"{h.hexdigest()[:32]}-{target.name}.o"
    if path is not None and path.is_file():
        _touch(path)
        return path.read_bytes()
    obj = object_code(irs, names, target, entries)
    if path is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}")
            tmp.write_bytes(obj)
            os.replace(tmp, path)               # a reader sees all or nothing
            _prune(folder, keep=path)
        except OSError:
            pass                                # a read-only cache: the next build emits again
    return obj


# ---- 3. symbols ------------------------------------------------------------------------------------------
def _nm(target: Target, path, *flags) -> set[str]:
    out = subprocess.run([target.nm, *flags, str(path)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def undefined_symbols(obj, target: Target) -> set[str]:
    """The symbols the object file ``obj`` uses but does not define (``nm -u``)."""
    return _nm(target, obj, "-u")


RUNTIME_DEFINES = ("FV_MODEL_WORDS", "FV_DATA_WORDS", "FV_N_STATES", "FV_N_OUTPUTS", "FV_N_KEY")
"""The ``-D`` constants of ``c/runtime.c``, in ``step.StepShape`` order."""


def method_defines(methods) -> list[str]:
    """``-DFV_HAS_<METHOD>`` for each integrator of ``methods`` with an entry point of its own: what
    ``c/runtime.c`` and ``c/fmi2_native.c`` wrap and call."""
    return [f"-DFV_HAS_{m.upper()}" for m in _methods(methods)]


def carried_methods(irs: dict) -> tuple[str, ...]:
    """The integrators besides RK4 whose entry points the IR modules ``irs`` (:func:`entry_ir`) hold."""
    return _methods([k[len("advance_"):] for k in irs if k.startswith("advance_")])


def runtime_object(target: Target, shape, out_dir, exported: bool = True, c_flags=(), methods=()) -> Path:
    """``c/runtime.c`` compiled for ``target`` and the sizes ``shape`` (``step.StepShape``) into ``out_dir``,
    with the wrappers of the entry points of ``methods`` (:func:`method_defines`); only its ``FV_API``
    functions are visible outside the library, and with ``exported`` False (a native FMU, whose FMI layer
    calls them inside the library) none of them. ``c_flags`` are added to the compiler's (e.g.
    ``-fsanitize=address,undefined`` for a test build)."""
    obj = Path(out_dir) / f"runtime-{target.name}.o"
    defines = [f"-D{k}={int(v)}" for k, v in zip(RUNTIME_DEFINES, shape)] + method_defines(methods)
    private = [] if exported else ["-DFV_STEP_PRIVATE"]
    _run([target.cc, "-c", "-O2", "-fPIC", "-fvisibility=hidden", "-std=c11", "-Wall", "-Wextra", "-Werror",
          *defines, *private, *c_flags, "-o", str(obj), str(RUNTIME_C)])
    return obj


def runtime_symbols(runtime_obj, target: Target) -> set[str]:
    """The symbols the compiled runtime defines."""
    return _nm(target, runtime_obj, "--defined-only")


def check_symbols(undefined: set, allowed: set, what: str) -> None:
    """Fail with the names of the ``undefined`` symbols outside ``allowed``."""
    bad = sorted(s for s in undefined if s not in allowed)
    libm = [s for s in bad if s in TRANSCENDENTAL]
    if libm:
        raise NativeBuildError(f"{what} calls the platform's libm for {', '.join(libm)}: its last bits differ "
                               "between C runtimes; call fmu_vehicle.numerics.elementary's function instead "
                               "(docs/native.md §5)")
    if bad:
        raise NativeBuildError(f"{what} needs symbols neither libm nor the native runtime provides: "
                               f"{', '.join(bad)} (compiled code that allocates, calls Python or an unlisted "
                               "library function cannot run without Python)")


# ---- 4. link ---------------------------------------------------------------------------------------------
def _run(cmd) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise NativeBuildError(f"{' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")


OLD_GLIBC_VERSIONS = ("exp",)
"""libm functions whose default symbol version is newer than glibc 2.17 (exp@GLIBC_2.29: the same function
without the SVID error wrapper). On linux64 the link wraps them (``--wrap``), and ``c/runtime.c`` calls their
glibc 2.2.5 version, which computes the same values: the library then loads on glibc 2.17 and later."""


FMI_EXPORTS = "fmi2*"
"""The only symbols a native FMU's library exports (:func:`link` with ``exports``)."""

FMI3_EXPORTS = "fmi3*"
"""The only symbols the library of a native FMI 3.0 FMU exports (its FMI 2.0 layer inside is hidden)."""


def link(objects, target: Target, out, exports: str | None = None, c_flags=()) -> Path:
    """The shared library ``out`` of the ``objects`` (the step's, the runtime's, ...), linked with libm only.
    ``exports`` (a glob such as :data:`FMI_EXPORTS`): on linux64 a version script makes every other symbol
    local and ``-Bsymbolic`` binds the library's calls to its own functions, so that a host loading two
    native FMUs with ``RTLD_GLOBAL`` (or one under ``LD_PRELOAD`` of another) never makes one call the
    other's code; on win64 a DLL exports only its ``dllexport`` functions anyway. ``c_flags``: as for
    :func:`runtime_object` (a sanitizer's runtime is linked with them)."""
    extra = ["-static-libgcc"] if target.name == "win64" else [f"-Wl,--wrap={f}" for f in OLD_GLIBC_VERSIONS]
    if exports is not None and target.name == "linux64":
        script = Path(out).with_suffix(".map")
        script.write_text(f"{{\n  global: {exports};\n  local: *;\n}};\n")
        extra += [f"-Wl,--version-script={script}", "-Wl,-Bsymbolic"]
    _run([target.cc, "-shared", "-fPIC", *c_flags, "-o", str(out), *map(str, objects), *extra, "-lm"])
    return Path(out)


def build_library(irs: dict, names: dict, shape, target: Target, out_dir, stem: str = "fv_step",
                  extra_objects=(), exports: str | None = None, c_flags=()) -> Path:
    """Steps 2-4 (module docstring) for ``target`` and the entry points' sizes ``shape`` (``step.StepShape``):
    ``out_dir/<stem><suffix>``, with the object files beside it; ``extra_objects`` are linked in too (the FMI
    layer of a native FMU). ``exports`` None: the runtime's ``fv_*`` functions are exported (a step library);
    else only the symbols it matches (a native FMU: :data:`FMI_EXPORTS`, :func:`link`). Raises
    :class:`NativeBuildError` if a tool is missing or a symbol is not provided. ``c_flags``: the C compiler's
    and linker's extra flags (:func:`runtime_object`)."""
    check_versions()
    missing = missing_tools(target)
    if missing:
        raise NativeBuildError(f"building for {target.name} needs {', '.join(missing)} (not found on PATH)")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    obj = out_dir / f"{stem}-{target.name}.o"
    obj.write_bytes(cached_object_code(irs, names, target))
    rt = runtime_object(target, shape, out_dir, exported=exports is None, c_flags=c_flags,
                        methods=carried_methods(irs))
    allowed = LIBC_SYMBOLS | runtime_symbols(rt, target) | (WINDOWS_SYMBOLS if target.name == "win64" else set())
    check_symbols(undefined_symbols(obj, target), allowed, f"the step object for {target.name}")
    return link([obj, rt, *extra_objects], target, out_dir / f"{stem}{target.suffix}", exports, c_flags)


if __name__ == "__main__":
    _child(*sys.argv[1:3])


def build_for_system(system, n_states: int, out_dir, targets=("linux64",), stem: str = "fv_step") -> dict:
    """Everything a native host needs for ``system`` (a model/data pair with ``output_names``, e.g. a
    ``VehicleSystem``) with ``n_states`` states, in ``out_dir``: the library per target name in ``targets``
    (``TARGETS``), ``image.bin`` (``layout.Image`` of the system's current model and data) and ``fields.json``
    (the step's sizes, the output names and ``Image.field_table``). Returns {name: path}; compiles the kernels
    from scratch once (minutes)."""
    from .layout import make_image
    from .step import pack_system
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    p = pack_system(system, n_states)
    image = make_image(system.model, p.model_buf, p.model_type, system.data, p.data_buf, p.data_type)
    paths = {"image": out_dir / "image.bin", "fields": out_dir / "fields.json"}
    paths["image"].write_bytes(image.to_bytes())
    paths["fields"].write_text(json.dumps({"shape": p.shape._asdict(), "outputs": list(system.output_names),
                                           **image.field_table()}, indent=1))
    irs, names = fresh_ir(p.model_type, p.data_type, p.shape, [type(system).__module__])
    for name in targets:
        paths[name] = build_library(irs, names, p.shape, TARGETS[name], out_dir, stem)
    return paths
