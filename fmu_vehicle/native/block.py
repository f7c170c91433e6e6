"""Native block FMUs: the FMUs whose Python slave is a ``fmi.block.BlockSlave`` (LeadVehicle, Powertrain,
Controller), built with their two kernels compiled to machine code and a generic FMI 2.0 layer in C
(``c/fmi2_block.c``), no Python on the host.

:func:`export` builds one:

1. the parameter values: the slave's variable table with its start values, changed by ``settings``
   (``native.fmu.parameter_values``: errors name the parameter), and from them the kernels' parameter array
   ``p`` (``Block.parameter_array``, as the Python FMU makes it at initialization);
2. the kernels ``Block.init`` and ``Block.step`` as two numba ``cfunc`` s (:func:`block_cfuncs`: the arrays'
   lengths are compile-time constants) compiled in a child process for the portable CPU with the package's
   kernel cache (their IR cached: :func:`kernel_ir`), their LLVM IR emitted as object code (``emit.cached_object_code``, symbols
   :data:`BLOCK_SYMBOLS`) and linked with ``c/fmi2_block.c`` (which carries ``c/runtime.c``'s stand-ins for
   numba's error paths) per platform, exporting only ``fmi2*``;
3. ``fv_block_config.h`` (:func:`config_header`): the variable table (value reference = position in the slave's
   Var table), where each variable lives (``y``, ``u``, ``p``, or fixed at export), ``p`` at export, the sizes
   and the step budget;
4. ``modelDescription.xml`` from the same Var table (``native.fmu.model_description``: names, units, ranges,
   enumerations and the ModelStructure of the Python FMU; the parameters fixed at export say so in their
   description).

Settable until initialization ends: the Real parameters the kernels read from ``p`` (``Block.parameters``), those
of variability tunable at any time (the Controller's ``acc.set_speed``); every input at any time. The other parameters (an Enumeration, a String of points or a file name, ...) are fixed
at export: their own value is accepted, another refused naming them. See docs/native.md §10.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import pickle
import sys
import tempfile
import uuid
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import ModelError
from ..fmi.block import BlockSlave, block_inputs, block_outputs
from ..fmi.registry import slave_script
from ..fmi.slave_base import SlaveBase
from ..paths import resources_dir
from ..util import atomic_write
from .emit import (C_DIR, FMI_EXPORTS, LIBC_SYMBOLS, TARGETS, WINDOWS_SYMBOLS, NativeBuildError, _ir_cache_dir, _run,
                   _store_ir, _touch, cached_object_code, check_symbols, check_versions, ir_child, link, runtime_symbols,
                   undefined_symbols, usable_targets)

BLOCK_C = C_DIR / "fmi2_block.c"
BLOCK_FMUS = ("LeadVehicle", "Powertrain", "Controller")
"""The block FMUs with a native build (their slaves are ``fmi.block.BlockSlave`` s)."""
BLOCK_SYMBOLS = {"init": "fv_block_init_raw", "step": "fv_block_step_raw"}
"""The object's symbol of each kernel (``emit.object_code``), called by ``c/fmi2_block.c``."""
K_OUTPUT, K_INPUT, K_PARAMETER, K_FIXED, K_TUNABLE = range(5)
"""Where ``c/fmi2_block.c`` finds a variable: ``y``, ``u``, ``p`` (settable until initialization ends, or at any time:
K_TUNABLE, a parameter of variability tunable), or fixed at export."""
_TYPES = {"Real": 0, "Integer": 1, "Boolean": 2, "String": 3}
FIXED_NOTE = " (native build: fixed at export)"
"""Added to the description of a parameter the native FMU takes only at export."""


def slave_class(fmu: str) -> type:
    """The ``BlockSlave`` class of the FMU ``fmu`` (its slave script, ``fmi.registry``)."""
    if fmu not in BLOCK_FMUS:
        raise ModelError(f"no native block build of {fmu!r}; native block FMUs: {', '.join(BLOCK_FMUS)}")
    script = slave_script(fmu)
    spec = importlib.util.spec_from_file_location(f"fmu_vehicle_native_block_{fmu}", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = [c for c in vars(module).values() if isinstance(c, type) and issubclass(c, BlockSlave)
             and getattr(c, "MODEL_NAME", "") == fmu]
    if len(found) != 1:
        raise ModelError(f"{script.name}: no BlockSlave named {fmu!r}")
    return found[0]


def block_cfuncs(block, sizes):
    """(init, step): ``numba.cfunc`` s of the block's kernels over C arrays of the lengths ``sizes`` = (n_p, n_s,
    n_u, n_y)::

        int64 init(double *p, double *s, double *u, double *y, double t0)
        int64 step(double *p, double *s, double *u, double *y, double t, double h)
    """
    from numba import carray, cfunc, types
    f64p = types.CPointer(types.float64)
    n_p, n_s, n_u, n_y = (int(n) for n in sizes)
    init, step = block.init, block.step

    def c_init(p, s, u, y, t0):
        return init(carray(p, n_p), carray(s, n_s), carray(u, n_u), carray(y, n_y), t0)

    def c_step(p, s, u, y, t, h):
        return step(carray(p, n_p), carray(s, n_s), carray(u, n_u), carray(y, n_y), t, h)

    return (cfunc(types.int64(f64p, f64p, f64p, f64p, types.float64))(c_init),
            cfunc(types.int64(f64p, f64p, f64p, f64p, types.float64, types.float64))(c_step))


def ir_key(fmu: str, sizes) -> str:
    """What the IR of a block's kernels depends on, hashed: the sources of its slave script and everything it
    imports (the model's kernels), of this module, the arrays' lengths, the numba and llvmlite versions and the
    CPU target."""
    from importlib import metadata
    from ..numerics import jit
    from ..numerics.numba_compat import PINNED
    parts = ("block", fmu, jit.source_key(slave_script(fmu)), jit.source_key(Path(__file__)),
             repr(tuple(int(n) for n in sizes)), *(metadata.version(d) for d in PINNED), jit.PORTABLE_CPU)
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def kernel_ir(fmu: str, sizes) -> tuple[dict, dict]:
    """({entry: IR text}, {entry: wrapper symbol}) of the block's two cfuncs (:func:`block_cfuncs`) and the shared
    kernels they reach, compiled in a child process for the portable CPU with the package's kernel cache (about
    7 s), and kept in the native IR cache under :func:`ir_key` (``emit.fresh_irs``'s folder): an export of
    unchanged sources and sizes compiles nothing."""
    return kernel_irs([(fmu, sizes)])[0]


def kernel_irs(requests) -> list[tuple[dict, dict]]:
    """:func:`kernel_ir` of each (fmu, sizes) of ``requests``; those not in the cache are compiled in one child
    process (most of a child's seconds are its imports)."""
    requests = [(fmu, tuple(int(n) for n in sizes)) for fmu, sizes in requests]
    cache = _ir_cache_dir()
    folders = [None if cache is None else cache / f"block-{ir_key(fmu, sizes)}" for fmu, sizes in requests]
    found = {}
    for i, folder in enumerate(folders):
        if folder is not None and (folder / "names.json").is_file():
            names = json.loads((folder / "names.json").read_text())
            _touch(folder)
            found[i] = ({k: (folder / f"{k}.ll").read_text() for k in names}, names)
    todo = [i for i in range(len(requests)) if i not in found]
    if todo:
        for i, result in zip(todo, _compile_irs([requests[i] for i in todo])):
            found[i] = result
            if folders[i] is not None:
                _store_ir(folders[i], *result)
    return [found[i] for i in range(len(requests))]


def _compile_irs(requests) -> list[tuple[dict, dict]]:
    """:func:`kernel_irs` of ``requests`` compiled in one child process."""
    return ir_child("fmu_vehicle.native.block", list(requests), len(requests),
                    f"{', '.join(fmu for fmu, _ in requests)}: compiling the blocks' kernels")


def _child(request: str, out: str) -> None:
    """The child process of :func:`kernel_irs`."""
    import os
    from numba.core import config
    from ..numerics.numba_compat import cfunc_llvm_ir
    from ..numerics.shared import shared_modules
    if config.CPU_NAME != os.environ.get("NUMBA_CPU_NAME"):
        raise NativeBuildError(f"numba compiles for {config.CPU_NAME!r}, not the portable CPU")
    for i, (fmu, sizes) in enumerate(pickle.loads(Path(request).read_bytes())):
        funcs = dict(zip(BLOCK_SYMBOLS, block_cfuncs(slave_class(fmu).BLOCK, sizes)))
        irs = {k: cfunc_llvm_ir(f) for k, f in funcs.items()}
        names = {k: f.native_name for k, f in funcs.items()}
        for text in list(irs.values()):
            for symbol, (ir, name) in shared_modules(text).items():
                irs[symbol], names[symbol] = ir, name
        for k, text in irs.items():
            (Path(out) / f"{k}-{i}.ll").write_text(text)
        (Path(out) / f"names-{i}.json").write_text(json.dumps(names))


def variable_rows(cls, table) -> list[tuple]:
    """(type, kind, index, start, min, max, string) of every variable of the exported Var ``table``, in order."""
    inputs = {name: i for i, name in enumerate(block_inputs(table))}
    outputs = {name: i for i, name in enumerate(block_outputs(table))}
    rows = []
    for v in table:
        lo = -math.inf if v.min is None else v.min
        hi = math.inf if v.max is None else v.max
        start = v.item_value(v.start) if v.type == "Enumeration" else v.start
        type_ = "Integer" if v.type == "Enumeration" else v.type    # an Enumeration: an Integer holding its item value
        if v.causality == "output":
            rows.append((type_, K_OUTPUT, outputs[v.name], 0.0, lo, hi, ""))
        elif v.causality == "input":
            if v.name not in inputs:
                raise ModelError(f"native block FMU: the input {v.name!r} is not Real")
            rows.append((type_, K_INPUT, inputs[v.name], start, lo, hi, ""))
        elif v.name in cls.BLOCK.parameters:
            kind = K_TUNABLE if v.variability == "tunable" else K_PARAMETER
            rows.append((type_, kind, cls.BLOCK.parameters[v.name], start, lo, hi, ""))
        else:
            rows.append((type_, K_FIXED, 0, start if type_ != "String" else 0.0, lo, hi,
                         start if type_ == "String" else ""))
    return rows


def _c_string(text) -> str:
    """``text`` as a C string literal: any character outside printable ASCII, a quote or a backslash as an octal
    escape (a String parameter's value is a user's text)."""
    out = []
    for ch in str(text):
        out.append(f"\\{ord(ch):03o}" if ord(ch) < 0x20 or ch in '"\\' or ord(ch) > 0x7e else ch)
    return '"' + "".join(out) + '"'


def config_header(cls, guid: str, table, p0) -> str:
    """``fv_block_config.h`` for ``c/fmi2_block.c`` (its comment lists what it defines)."""
    from .fmu import _c_number
    sizes = (len(p0), cls.BLOCK.n_state, len(block_inputs(table)), len(block_outputs(table)))
    step_vr = -1 if cls.INTERNAL_STEP is None else [v.name for v in table].index(cls.INTERNAL_STEP)
    lines = [f"#define FV_MODEL_IDENTIFIER {_c_string(cls.MODEL_NAME)}", f"#define FV_GUID {_c_string(guid)}",
             *(f"#define FV_N_{k} {n}" for k, n in zip("PSUY", sizes)),
             "static const double FV_P0[" + str(max(1, len(p0))) + "] = {"
             + ", ".join(_c_number(x) for x in (list(p0) or [0.0])) + "};",
             f"#define FV_STEP_VR {step_vr}", f"#define FV_MAX_SUBSTEPS {int(SlaveBase.MAX_SUBSTEPS)}",
             f"#define FV_N_VARS {len(table)}", "static const fv_var FV_VARS[FV_N_VARS] = {"]
    for v, (type_, kind, index, start, lo, hi, string) in zip(table, variable_rows(cls, table)):
        lines.append(f"    {{{_TYPES[type_]}, {kind}, {index}, {_c_number(float(start))}, {_c_number(lo)}, "
                     f"{_c_number(hi)}, {_c_string(string)}, {_c_string(v.name)}}},")
    return "\n".join([*lines, "};"]) + "\n"


def exported_table(cls, values: dict) -> list:
    """The FMU's Var table with every parameter's start value set to its export value (``values``), and
    :data:`FIXED_NOTE` added to the description of those fixed at export."""
    return [replace(v, start=values[v.name],
                    description=v.description + ("" if v.name in cls.BLOCK.parameters else FIXED_NOTE))
            if v.causality == "parameter" else v for v in cls.VARIABLES]


def parameter_array(cls, values: dict) -> np.ndarray:
    """The kernels' ``p`` for the parameter ``values``, as the Python FMU makes it (``Block.parameter_array`` with
    the package's resources folder); checks that each settable parameter sits where ``Block.parameters`` says."""
    p = np.ascontiguousarray(cls.BLOCK.parameter_array(values, str(resources_dir())), dtype=np.float64)
    for name, index in cls.BLOCK.parameters.items():
        if not (0 <= index < p.size and p[index] == values[name]):
            raise ModelError(f"{cls.MODEL_NAME}: parameter {name!r} is not at p[{index}] of the block's parameters")
    return p


def _prepared(fmu: str, settings: dict | None):
    """(slave class, parameter values, ``p`` at export, exported Var table, the arrays' lengths) of an export."""
    from .fmu import parameter_values
    cls = slave_class(fmu)
    values = parameter_values(cls.VARIABLES, settings)
    p0 = parameter_array(cls, values)
    table = exported_table(cls, values)
    return cls, values, p0, table, (p0.size, cls.BLOCK.n_state, len(block_inputs(table)), len(block_outputs(table)))


def export_many(requests, dest_dir, **options) -> list[Path]:
    """:func:`export` of each (fmu, settings) of ``requests`` into ``dest_dir`` (``options``: export's keywords),
    the kernels of all compiled in one child process first (:func:`kernel_irs`: about 7 s saved per FMU)."""
    kernel_irs([(fmu, _prepared(fmu, settings)[4]) for fmu, settings in requests])
    return [export(fmu, dest_dir, settings=settings, **options) for fmu, settings in requests]


def export(fmu: str, dest_dir, *, settings: dict | None = None, targets=("linux64", "win64"),
           log=lambda message: None, c_flags=()) -> Path:
    """Build the native ``<fmu>.fmu`` (``fmu`` in :data:`BLOCK_FMUS`) into ``dest_dir`` with the parameter
    ``settings`` (module docstring); platforms in ``targets`` whose tools are missing are left out (logged), and
    if none is left NativeBuildError names the missing tools. Returns the FMU's path; nothing is written on
    failure. ``c_flags``: added to the C compiler's and linker's flags (a sanitizer build)."""
    from .fmu import model_description
    check_versions()
    usable = usable_targets(fmu, targets, log)
    cls, values, p0, table, sizes = _prepared(fmu, settings)
    guid = str(uuid.uuid5(uuid.NAMESPACE_URL, "fmu_vehicle-native-block:" + hashlib.sha256(
        p0.tobytes() + repr((fmu, sorted(values.items(), key=str), ir_key(fmu, sizes), BLOCK_C.read_bytes())).encode()
    ).hexdigest()))
    description = f"{cls.DESCRIPTION} (native build: compiled model, no Python on the host)"
    xml = model_description(fmu, guid, description, table, cls.STRUCTURE)
    log(f"{fmu}: compiling the block's kernels for a generic x86-64 CPU")
    irs, names = kernel_ir(fmu, sizes)
    dest_dir = Path(dest_dir)
    with tempfile.TemporaryDirectory(prefix="fv_native_block_") as tmp:
        tmp = Path(tmp)
        (tmp / "fv_block_config.h").write_text(config_header(cls, guid, table, p0))
        binaries = {}
        for name in usable:
            target = TARGETS[name]
            out_dir = tmp / name
            out_dir.mkdir()
            layer = out_dir / f"fmi2_block-{name}.o"
            _run([target.cc, "-c", "-O2", "-fPIC", "-fvisibility=hidden", "-std=c11", "-Wall", "-Wextra", "-Werror",
                  "-DFV_STEP_PRIVATE", *c_flags, f"-I{tmp}", f"-I{C_DIR}", "-o", str(layer), str(BLOCK_C)])
            kernels = out_dir / f"{fmu}-{name}.o"
            kernels.write_bytes(cached_object_code(irs, names, target, BLOCK_SYMBOLS))
            allowed = LIBC_SYMBOLS | runtime_symbols(layer, target) | (WINDOWS_SYMBOLS if name == "win64" else set())
            check_symbols(undefined_symbols(kernels, target), allowed, f"{fmu}'s kernels for {name}")
            binaries[name] = link([kernels, layer], target, out_dir / f"{fmu}{target.suffix}", FMI_EXPORTS, c_flags)
            log(f"{fmu}: {name} binary {binaries[name].stat().st_size // 1024} kB")
        dest_dir.mkdir(parents=True, exist_ok=True)
        path = dest_dir / f"{fmu}.fmu"

        def write(stream):
            with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as z:
                z.writestr("modelDescription.xml", xml)
                for name, lib in binaries.items():
                    z.write(lib, f"binaries/{name}/{fmu}{TARGETS[name].suffix}")

        atomic_write(path, write, mode="wb")
    return path


if __name__ == "__main__":
    _child(*sys.argv[1:3])
