"""Build one FMU from a slave script: stage, run the pythonfmu builder in a subprocess, post-process.

``build_fmu(script, dest_dir)`` starts a fresh Python process (pythonfmu imports the slave by module
name through ``sys.modules``; a long-lived process would reuse stale code) that

1. stages a clean copy of the package (no ``__pycache__``, no tests, no data) under the name
   ``_fmu_vehicle_<digest>``, where ``<digest>`` is :func:`source_digest` of the sources; the imports of
   the package and of the slave script are rewritten to that name, and the slave script is staged as
   ``<script>_<digest>.py``. Every FMU therefore brings and uses its own code: FMUs built from different
   sources run side by side in one process, each with its own modules (``fmi/embedding.py``), and FMUs of
   one build share one copy. ``fmi/build_info.json`` records the version, the digest and the Python/numba
   versions (-> deterministic GUID, staleness test, compiled-code check),
2. stages the data the slave declares in ``RESOURCES`` plus ``extra_resources``, keeping their paths
   relative to the resources folder (so ``Path(self.resources)/"powertrain"/...`` works in the FMU
   exactly like ``fmu_vehicle.paths.resource_path("powertrain", ...)`` in the repository),
3. writes ``requirements.txt`` with the third-party distributions the slave and the shipped package
   can import (static scan with ``modulefinder``; specifiers from pyproject.toml), for
   ``pythonfmu deploy``,
4. runs ``FmuBuilder.build_FMU`` (with ``canGetAndSetFMUstate``/``canSerializeFMUstate`` when the
   slave implements ``_state``/``_restore``) and ``post_process.patch_fmu``, which also puts the FMU binary
   chosen by ``binary`` in place (:data:`BINARIES`).

The finished FMU is copied into ``dest_dir`` under a temporary name and renamed, so the output folder
never holds a half-written FMU.  Failures raise ``BuildError`` with one line naming the script.
FMUs whose model is numba-compiled carry their kernels compiled for a portable CPU target (``_add_compiled_code``),
so that a first instance on a fresh machine starts in seconds instead of compiling for a minute.

See docs/fmus.md §1 and docs/fmu_hosts.md.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import hashlib
import json
import modulefinder
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path
from typing import Iterable

from fmu_vehicle.errors import FmuVehicleError
from fmu_vehicle.paths import resources_dir
from fmu_vehicle.util import CHILD_HANG_GUARD_S, atomic_write

PACKAGE_DIR = Path(__file__).resolve().parents[1]
REPO_DIR = PACKAGE_DIR.parent
SCRIPT_PATTERN = re.compile(r"^fmu_vehicle_[a-z0-9_]+\.py$")
PACKAGE_PREFIX = "_fmu_vehicle_"
"""Name of the package copy inside an FMU: this prefix + the first DIGEST_CHARS of the source digest."""
DIGEST_CHARS = 12
RESERVED = {"fmu_vehicle", "pythonfmu", "requirements.txt", "slavemodule.txt"}
STAGE_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "tests", ".pytest_cache",
                                      "build_info.json", "*.fmu", ".*")
NOT_BUILT = ("fmi/host",)
"""Package folders no FMU uses (the C test host): neither shipped nor part of the source digest."""
NOT_SHIPPED = ("resources", *NOT_BUILT)
"""Package folders not copied into an FMU's package copy: the data (an FMU ships only the data its slave
declares, in its own resources folder) and NOT_BUILT."""
_IMPORT = re.compile(r"^(\s*(?:from|import)\s+)fmu_vehicle(?=[.\s])", re.M)
ERROR_TAG = "BUILD-ERROR: "
BINARIES = ("fmu_vehicle", "pythonfmu")
"""The FMU binaries a build can ship: ``fmu_vehicle``, this package's own FMI 2.0 library
(``fmi/wrapper/fmi2_python.c``, linux64), or ``pythonfmu``, pythonfmu's export library (linux64 and win64)."""
BINARY_VARIABLE = "FMU_VEHICLE_FMU_BINARY"
"""Environment variable naming the binary :func:`default_binary` gives (one of BINARIES)."""


def default_binary() -> str:
    """The FMU binary of a build that names none: ``$FMU_VEHICLE_FMU_BINARY``, else ``fmu_vehicle`` where it can
    be compiled (Linux, a C compiler, this Python's headers: ``wrapper.library.can_compile``), else ``pythonfmu``
    (prebuilt, no compiler needed)."""
    from fmu_vehicle.fmi.wrapper.library import can_compile
    name = os.environ.get(BINARY_VARIABLE) or ("fmu_vehicle" if can_compile() else "pythonfmu")
    if name not in BINARIES:
        raise BuildError(f"{BINARY_VARIABLE}={name!r}: not one of {', '.join(BINARIES)}")
    return name


class BuildError(FmuVehicleError):
    """An FMU could not be built (bad slave script, builder or post-processing failure)."""


def build_fmu(slave_script: Path, dest_dir: Path, extra_resources: Iterable[Path] = (),
              binary: str | None = None) -> Path:
    """Build ``<MODEL_NAME>.fmu`` from ``slave_script`` into ``dest_dir`` and return its path.

    slave_script     ``fmu_vehicle/fmi/slaves/fmu_vehicle_<name>.py`` (unique module name)
    dest_dir         output folder (created); an existing FMU of the same name is replaced atomically
    extra_resources  files/folders shipped besides the slave's ``RESOURCES``; paths inside
                     ``<repo>/resources`` keep their relative path, others land at the top level
    binary           the FMU binary, one of :data:`BINARIES` (None: :func:`default_binary`)
    """
    binary = binary or default_binary()
    if binary not in BINARIES:
        raise BuildError(f"{Path(slave_script).name}: unknown FMU binary {binary!r} (one of {', '.join(BINARIES)})")
    slave_script = Path(slave_script).resolve()
    if not slave_script.is_file():
        raise BuildError(f"{slave_script}: slave script not found")
    if not SCRIPT_PATTERN.match(slave_script.name):
        raise BuildError(f"{slave_script}: slave scripts must be named fmu_vehicle_<name>.py "
                         f"(pythonfmu imports the slave by module name, so each FMU needs its own)")
    dest_dir = Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fmu_vehicle_build_") as work:
        code = ("import sys; sys.path.insert(0, sys.argv[1]); "
                "from fmu_vehicle.fmi.build import _worker; sys.exit(_worker(sys.argv[2:]))")
        args = [sys.executable, "-c", code, str(REPO_DIR), str(slave_script), work, binary,
                *(str(Path(p).resolve()) for p in extra_resources)]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        proc = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=CHILD_HANG_GUARD_S)
        if proc.returncode != 0:
            tagged = [line[len(ERROR_TAG):] for line in proc.stderr.splitlines() if line.startswith(ERROR_TAG)]
            detail = tagged[-1] if tagged else (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise BuildError(f"{slave_script.name}: {detail}")
        built = Path(proc.stdout.strip().splitlines()[-1])
        if "numba" in shipped_requirements(built):
            _add_compiled_code(built)
        final = dest_dir / built.name

        def install(tmp):
            shutil.copyfile(built, tmp)
            os.chmod(tmp, 0o644)

        atomic_write(final, install, mode=None)
    return final


# ---------------------------------------------------------------------- worker (fresh process)
def _worker(argv: list[str]) -> int:
    """Subprocess entry: ``<script> <workdir> <binary> [resources...]``; prints the built FMU path."""
    try:
        script, work, binary, extra = Path(argv[0]), Path(argv[1]), argv[2], [Path(p) for p in argv[3:]]
        print(_build_here(script, work, extra, binary))
        return 0
    except Exception as exc:  # one line for the parent
        message = " ".join(f"{type(exc).__name__}: {exc}".split()) if not isinstance(exc, FmuVehicleError) \
            else " ".join(str(exc).split())
        print(ERROR_TAG + message, file=sys.stderr)
        return 2


def package_files() -> dict[str, Path]:
    """'<rel>' -> file for every file of the package a build reads: the code it stages and every data file
    below ``resources/`` (STAGE_IGNORE applied, NOT_BUILT left out)."""
    files = {}
    skip = {PACKAGE_DIR / rel for rel in NOT_BUILT}
    for folder, dirs, names in os.walk(PACKAGE_DIR):
        ignored = STAGE_IGNORE(folder, dirs + names)
        dirs[:] = sorted(d for d in dirs if d not in ignored and Path(folder) / d not in skip)
        for name in names:
            if name not in ignored:
                path = Path(folder) / name
                files[path.relative_to(PACKAGE_DIR).as_posix()] = path
    return files


def source_digest() -> str:
    """SHA-1 (hex) of every file a build reads (:func:`package_files`, names and contents) and the package
    version: equal digests give identical FMUs."""
    from fmu_vehicle.fmi.version import package_version

    h = hashlib.sha1(package_version().encode())
    for rel, path in sorted(package_files().items()):
        h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _rename_imports(text: str, package: str) -> str:
    """``from fmu_vehicle... import`` / ``import fmu_vehicle...`` statements rewritten to ``package``."""
    return _IMPORT.sub(lambda m: m.group(1) + package, text)


PROLOGUE = """\
# Added by the build (fmu_vehicle/fmi/embedding.py, fmu_vehicle/fmi/build.py): the package's code travels as
# one archive next to this script; it is unpacked once per machine into a per-user folder keyed by the
# archive's members (next to this script when no such folder can be written) and imported from there. If an
# earlier FMU of this build imported the package from a folder that is gone, the package is pointed at this
# copy.
import os as _os, sys as _sys
def _package_folder(here, name):
    import hashlib, shutil, tempfile, zipfile
    if _os.path.isdir(_os.path.join(here, name)):
        return here
    with zipfile.ZipFile(_os.path.join(here, name + ".zip")) as archive:
        members = sorted((i.filename, i.CRC, i.file_size) for i in archive.infolist())
        key = hashlib.sha1(repr(members).encode()).hexdigest()[:12]
        cache = _os.environ.get("XDG_CACHE_HOME") or _os.path.join(_os.path.expanduser("~"), ".cache")
        root = _os.path.join(cache, "fmu_vehicle", "packages")
        folder = _os.path.join(root, name + "-" + key)
        try:
            if not _os.path.isdir(_os.path.join(folder, name)):
                _os.makedirs(root, exist_ok=True)
                tmp = tempfile.mkdtemp(prefix=".unpacking-", dir=root)
                archive.extractall(tmp)
                try:
                    _os.rename(tmp, folder)
                except OSError:         # another process unpacked it first
                    shutil.rmtree(tmp, ignore_errors=True)
            if _os.path.isfile(_os.path.join(folder, name, "__init__.py")):
                return folder
        except OSError:
            pass
        archive.extractall(here)
        return here
if "{alias}" not in _sys.modules:      # imported from the folder, which then leaves sys.path again
    _folder = _package_folder(_os.path.dirname(_os.path.abspath(__file__)), "{alias}")
    _sys.path.insert(0, _folder)
    try:
        import {alias}
    finally:
        _sys.path.remove(_folder)
elif not _os.path.isdir(_sys.modules["{alias}"].__path__[0]):
    from {alias}.fmi.embedding import point_package_at as _point_package_at
    _point_package_at("{alias}", _package_folder(_os.path.dirname(_os.path.abspath(__file__)), "{alias}"))
"""

BINARY_PROLOGUE = {
    "fmu_vehicle": """\
# The entry of the FMU binary (fmu_vehicle/fmi/wrapper/instance.py).
from {alias}.fmi.wrapper.instance import fmi2_instance
""",
    "pythonfmu": """\
# One reference to this script's namespace is kept per execution (pythonfmu's binary releases one it does not
# own at each instantiation).
from {alias}.fmi.embedding import keep_namespace as _keep_namespace
_keep_namespace(globals())
""",
}
"""What the prologue adds for each FMU binary."""


REEXECUTION_GUARD = """\
# Added by the build (see fmu_vehicle/fmi/build.py, _with_prologue): the script's own code, its imports
# included, runs only when the module is imported. pythonfmu's binary executes the script again at every
# instantiation (a fresh dictionary for its names) and keeps a list of the MRO of every class it finds there
# for good, so every class defined or imported anew would stay in memory for the process lifetime; it gets the
# classes of the imported module instead.
if globals() is locals():
{body}
else:
    locals().update({{_k: _v for _k, _v in globals().items() if isinstance(_v, type) and _v.__module__ == __name__}})
"""


def _indented(code: str) -> str:
    """``code`` indented by four spaces, except the continuation lines of multi-line strings."""
    import io
    import tokenize
    inside: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
            inside.update(range(tok.start[0] + 1, tok.end[0] + 1))
    return "".join(line if i in inside or not line.strip() else "    " + line
                   for i, line in enumerate(code.splitlines(keepends=True), start=1))


def _with_prologue(script: str, alias: str, binary: str) -> str:
    """``script`` with PROLOGUE and the ``binary``'s part of it (BINARY_PROLOGUE) inserted before its first import.
    For pythonfmu's binary, which executes the script again at every instantiation, everything from that import
    on runs only at the module's import (``REEXECUTION_GUARD``).  The guard starts at the first import, not at
    the first import of the package: a class a re-execution imports (``from pathlib import Path``) is a class
    among its names, and that binary would keep the list of its MRO (and their repr strings) for every
    instance.  A ``from __future__`` import stays first."""
    if re.search(rf"^(?:from|import)\s+{alias}\b", script, re.M) is None:
        raise BuildError("the slave script does not import the fmu_vehicle package")
    match = re.search(r"^(?:from|import)\s+(?!__future__\b)", script, re.M)
    head = script[:match.start()] + PROLOGUE.format(alias=alias) + BINARY_PROLOGUE[binary].format(alias=alias)
    if binary != "pythonfmu":
        return head + script[match.start():]
    return head + REEXECUTION_GUARD.format(body=_indented(script[match.start():]).rstrip("\n"))


def _stage_package(stage: Path, digest: str) -> str:
    """Copy the package's code into ``stage/<alias>`` with its imports renamed; returns the alias."""
    alias = PACKAGE_PREFIX + digest[:DIGEST_CHARS]
    package = stage / alias
    skip = {PACKAGE_DIR / rel for rel in NOT_SHIPPED}

    def ignore(folder, names):
        return set(STAGE_IGNORE(folder, names)) | {n for n in names if Path(folder) / n in skip}

    shutil.copytree(PACKAGE_DIR, package, ignore=ignore)
    if not (package / "__init__.py").exists():
        (package / "__init__.py").write_text('"""fmu_vehicle (copy shipped inside an FMU)."""\n')
    for path in package.rglob("*.py"):
        path.write_text(_rename_imports(path.read_text(), alias))
    return alias


def _build_here(script: Path, work: Path, extra: list[Path], binary: str) -> Path:
    from fmu_vehicle.fmi.version import package_version

    stage = work / "stage"
    stage.mkdir(parents=True)
    digest = source_digest()
    version = package_version()
    alias = _stage_package(stage, digest)
    import numba
    (stage / alias / "fmi" / "build_info.json").write_text(json.dumps({
        "version": version, "sources": digest, "python": platform.python_version(),
        "numba": numba.__version__, "binary": binary}) + "\n")
    staged_script = stage / f"{script.stem}_{digest[:DIGEST_CHARS]}.py"
    staged_script.write_text(_with_prologue(_rename_imports(script.read_text(), alias), alias, binary))

    # the staged package ships no data of its own: a slave that reads data files at import (start values)
    # reads the checkout's here, and its FMU resources folder inside the FMU
    os.environ["FMU_VEHICLE_RESOURCES"] = str(resources_dir().resolve())
    slave_cls = _load_slave_class(staged_script, alias)
    probe_resources = _stage_resources(slave_cls, extra, work / "res")
    slave_cls(instance_name="build_probe", resources=str(probe_resources))   # must work without a host

    from pythonfmu import FmuBuilder
    from pythonfmu import __version__ as pythonfmu_version
    from fmu_vehicle.fmi.post_process import patch_fmu

    package = stage / alias
    requirements = stage / "requirements.txt"
    requirements.write_text("".join(f"{line}\n" for line in _requirements(_imports(staged_script, stage),
                                                                            alias)))

    project_files = [_package_archive(package), requirements, *sorted(probe_resources.iterdir())]
    options = {}
    if slave_cls.supports_state():
        options = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}
    out = work / "out"
    fmu = Path(FmuBuilder.build_FMU(staged_script, dest=out, project_files=project_files, **options))
    structure = getattr(slave_cls, "STRUCTURE", None)
    if structure is None:
        raise BuildError(f"{script.name}: slave class {slave_cls.__name__} declares no STRUCTURE (which outputs "
                         f"depend on which inputs: fmu_vehicle.fmi.variables.Structure)")
    binaries = None
    tool = f"PythonFMU {pythonfmu_version}"
    if binary == "fmu_vehicle":
        from fmu_vehicle.fmi.wrapper.library import export_library
        binaries = {f"binaries/linux64/{slave_cls.MODEL_NAME}.so": export_library().read_bytes()}
        tool = f"PythonFMU {pythonfmu_version} slave API, fmu_vehicle FMI binary"
    patch_fmu(fmu, slave_cls.VARIABLES, structure, binaries=binaries, root_attrs={
        "version": version,
        "generationTool": f"fmu_vehicle {version} ({tool})",
        "copyright": f"fmu_vehicle developers, {slave_cls.LICENSE} license",
        "author": slave_cls.AUTHOR,
        "license": slave_cls.LICENSE,
        "description": slave_cls.DESCRIPTION,
    })
    return fmu


ARCHIVE_TIME = (2020, 1, 1, 0, 0, 0)
"""Time stamp of every member of a package archive (the same sources give the same bytes)."""


def _package_archive(package: Path) -> Path:
    """``package`` (the staged copy) as one archive ``<alias>.zip`` beside it, members ``<alias>/...``.

    A host extracts the whole FMU at every run (FMPy's ``simulate_fmu`` does), and writing the ~120 files of
    the package cost 20-50 ms per run on this project's machine; the slave script's prologue (PROLOGUE)
    unpacks the archive once per machine instead."""
    archive = package.with_suffix(".zip")
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for path in sorted(package.rglob("*")):
            if path.is_file():
                info = zipfile.ZipInfo(path.relative_to(package.parent).as_posix(), ARCHIVE_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                z.writestr(info, path.read_bytes())
    return archive


def _load_slave_class(script: Path, package: str):
    """The single concrete SlaveBase subclass (of ``package``'s copy) defined in ``script``."""
    sys.path.insert(0, str(script.parent))
    module = importlib.import_module(script.stem)
    base = importlib.import_module(f"{package}.fmi.slave_base").SlaveBase
    classes = [obj for _, obj in inspect.getmembers(module, inspect.isclass)
               if issubclass(obj, base) and not inspect.isabstract(obj)]
    leaves = [c for c in classes if not any(o is not c and issubclass(o, c) for o in classes)]
    if len(leaves) != 1:
        raise BuildError(f"{script}: expected exactly one concrete SlaveBase subclass, "
                         f"found {[c.__name__ for c in leaves]}")
    return leaves[0]


def _stage_resources(slave_cls, extra: list[Path], dest: Path) -> Path:
    """Copy the slave's RESOURCES (relative to <repo>/resources) and ``extra`` into ``dest``."""
    root = resources_dir().resolve()
    dest.mkdir(parents=True)
    sources = [root / rel for rel in slave_cls.RESOURCES] + list(extra)
    for src in sources:
        src = Path(src).resolve()
        if not src.exists():
            raise BuildError(f"{src}: resource of {slave_cls.MODEL_NAME} not found")
        rel = src.relative_to(root) if src.is_relative_to(root) else Path(src.name)
        if rel.parts[0] in RESERVED:
            raise BuildError(f"{src}: resource name '{rel.parts[0]}' is reserved in the FMU resources")
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, target, ignore=STAGE_IGNORE, dirs_exist_ok=True)
        else:
            shutil.copy2(src, target)
    return dest


def _imports(script: Path, stage: Path) -> set[str]:
    """Top-level names of modules the script and the shipped package can import, found statically.

    ``modulefinder`` scans the script and, transitively, the staged ``fmu_vehicle`` modules it reaches
    (including imports inside functions); with a search path of only the script folder and the stage,
    every stdlib/third-party import stays unresolved and is reported in ``badmodules``.
    """
    finder = modulefinder.ModuleFinder(path=[str(script.parent), str(stage)])
    finder.run_script(str(script))
    return {name.split(".")[0] for name in finder.badmodules}


RUNTIME_OPTIONAL = {"matplotlib", "tqdm", "pycrg"}
"""Modules the shipped package imports only inside functions an FMU does not need: plotting and progress
bars (matplotlib alone is about 50 MB), and the OpenCRG reader (a road from an OpenCRG file needs pycrg
installed beside the FMU; without it the road parameter is refused with the pip command that installs it).
Left out of its requirements."""


def _requirements(imported: set[str], alias: str) -> list[str]:
    """Requirement lines for the third-party distributions among ``imported`` (module names).

    Specifiers come from pyproject.toml; undeclared distributions that another selected one already
    requires (e.g. llvmlite for numba) are left to pip.
    """
    top = {name.split(".")[0] for name in imported}
    top -= set(sys.stdlib_module_names) | {"fmu_vehicle", alias, "pythonfmu"} | RUNTIME_OPTIONAL
    mapping = importlib.metadata.packages_distributions()
    dists = sorted({d for name in top if not name.startswith("_") for d in mapping.get(name, [])},
                   key=str.lower)
    declared = {}
    pyproject = REPO_DIR / "pyproject.toml"
    if pyproject.is_file():
        for spec in tomllib.loads(pyproject.read_text())["project"].get("dependencies", []):
            name = re.split(r"[<>=!~ \[;]", spec, maxsplit=1)[0]
            declared[_normalize(name)] = spec
    needed_by_others = set()
    for dist in dists:
        for req in importlib.metadata.requires(dist) or []:
            if "extra ==" not in req:
                needed_by_others.add(_normalize(re.split(r"[<>=!~ \[;(]", req, maxsplit=1)[0]))
    lines = []
    for dist in dists:
        if _normalize(dist) == "pythonfmu" or (_normalize(dist) in needed_by_others and
                                               _normalize(dist) not in declared):
            continue
        lines.append(declared.get(_normalize(dist), f"{dist}>={importlib.metadata.version(dist)}"))
    return lines


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def shipped_package_file(fmu: Path, rel: str) -> bytes:
    """The bytes of ``rel`` (a path inside the package copy, e.g. ``fmi/build_info.json``) in the package
    archive the FMU ``fmu`` ships (``resources/<alias>.zip``, see :func:`_package_archive`); KeyError if absent."""
    import io
    with zipfile.ZipFile(fmu) as outer:
        names = [n for n in outer.namelist() if re.fullmatch(rf"resources/{PACKAGE_PREFIX}[0-9a-f]+\.zip", n)]
        if len(names) != 1:
            raise KeyError(f"{Path(fmu).name}: no package archive resources/{PACKAGE_PREFIX}*.zip")
        alias = names[0][len("resources/"):-len(".zip")]
        with zipfile.ZipFile(io.BytesIO(outer.read(names[0]))) as inner:
            return inner.read(f"{alias}/{rel}")


def fmu_build_info(fmu: Path) -> dict:
    """The ``build_info.json`` an FMU of this package ships, plus ``slave_module`` (its slavemodule.txt)."""
    info = json.loads(shipped_package_file(fmu, "fmi/build_info.json"))
    with zipfile.ZipFile(fmu) as archive:
        info["slave_module"] = archive.read("resources/slavemodule.txt").decode().strip()
    return info


def shipped_requirements(fmu: Path) -> dict[str, str]:
    """Distribution name -> requirement line of the FMU's ``resources/requirements.txt``."""
    with zipfile.ZipFile(fmu) as archive:
        return {re.split(r"[<>=!~ \[;]", line, maxsplit=1)[0]: line
                for line in archive.read("resources/requirements.txt").decode().split()}


def portable_cache_dir(fmu: Path) -> Path:
    """Per-user folder of the kernels compiled for the portable CPU target from the sources ``fmu`` ships
    (keyed by its package copy and by the Python and numba versions): a rebuild of the same sources reuses it."""
    info = fmu_build_info(fmu)
    key = f"{info['sources'][:DIGEST_CHARS]}-py{info['python']}-numba{info['numba']}"
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "fmu_vehicle"
    return root / f"portable-{key}"


BUILD_LOCK = "build.lock"
"""Lock file in a portable kernel folder (:func:`portable_cache_dir`) that builds hold while they fill and
archive it."""


KERNEL_COMPRESSION = zipfile.ZIP_LZMA
"""Compression of the members of the shipped kernel archive: LZMA makes the compiled-code FMUs about 15 %
smaller than deflate (Vehicle.fmu 9.37 -> 7.98 MB, Tire.fmu 9.73 -> 8.30 MB; machine code compresses well and
every cached entry point carries its own copy of the kernels it calls), which keeps them under the 10 MB an
FMU may have in the FMI cross-check repository, for about 0.4 s more once per machine when an instance adopts
them. A Python built without ``lzma`` cannot read
them and compiles the model instead (``fmu_vehicle._adopt_shipped_cache``)."""


def _add_compiled_code(fmu: Path) -> None:
    """Compile the FMU's kernels for the portable CPU target and ship them in ``resources/numba_cache/``
    (one archive, ``kernels.zip``).

    A short run of the FMU in a fresh process, with numba's target set to ``jit.PORTABLE_CPU`` and its cache
    pointed at :func:`portable_cache_dir`, compiles (or, for sources built before, finds) every kernel the
    model uses; the FMU then carries that cache, and an instance on a machine with the same Python and numba
    versions loads it instead of compiling (``numerics.cache.shipped_cache_usable``).

    The inline kernels' own entries (``jit.LINK_ONLY``) stay out: they serve only to compile callers, and the
    callers are shipped compiled (2.4 of 6.0 MB of VehicleLV's archive when they were shipped).

    One archive, not a folder of about a hundred files: a host extracts the whole FMU at every run (FMPy's
    ``simulate_fmu`` does), and writing those files cost about 70 ms per run, while the package reads them
    only once per machine (it copies them into the per-user cache). The archive is stored uncompressed in the
    FMU; its members are compressed with LZMA (:data:`KERNEL_COMPRESSION`).

    Builds that share the folder (the same sources built by two processes at once, e.g. test workers) take
    turns under a lock file in it (``filelock``): the second finds the kernels the first compiled, and no
    build archives a folder another one is writing (numba writes ``<file>.tmp.<id>`` and renames it).
    """
    from filelock import FileLock

    from fmu_vehicle.numerics.cache import SHIPPED_CACHE, SHIPPED_KERNELS
    from fmu_vehicle.numerics.jit import LINK_ONLY, PORTABLE_CPU

    cache = portable_cache_dir(fmu)
    cache.mkdir(parents=True, exist_ok=True)
    with FileLock(cache / BUILD_LOCK), tempfile.TemporaryDirectory(prefix="fmu_vehicle_cache_") as work:
        warm_up_fmu(fmu, env={"FMU_VEHICLE_CACHE_DIR": str(cache), "NUMBA_CPU_NAME": PORTABLE_CPU})
        packed = Path(work) / SHIPPED_KERNELS
        with zipfile.ZipFile(packed, "w", compression=KERNEL_COMPRESSION) as inner:
            for path in sorted(cache.rglob("*")):
                if path.is_file() and path.name != BUILD_LOCK and ".tmp" not in path.name \
                        and f"{LINK_ONLY}." not in path.name:
                    inner.write(path, path.relative_to(cache).as_posix())
        with zipfile.ZipFile(fmu, "a", compression=zipfile.ZIP_STORED) as archive:
            archive.write(packed, f"resources/{SHIPPED_CACHE}/{SHIPPED_KERNELS}")


def warm_up_fmu(fmu_path: Path, stop_time: float = 2e-3, env: dict | None = None) -> float:
    """Simulate ``fmu_path`` briefly with FMPy in a fresh process from a temporary folder (with ``env`` added
    to the environment); returns seconds.  Raises BuildError with the child's last line if the run fails.
    """
    import time
    code = ("import sys; from fmpy import simulate_fmu; "
            "simulate_fmu(sys.argv[1], stop_time=float(sys.argv[2]), output_interval=float(sys.argv[2]) / 2)")
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, **(env or {})}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fmu_vehicle_warm_") as work:
        proc = subprocess.run([sys.executable, "-c", code, str(Path(fmu_path).resolve()), repr(stop_time)],
                              cwd=work, env=env, capture_output=True, text=True, timeout=CHILD_HANG_GUARD_S)
    if proc.returncode != 0:
        detail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise BuildError(f"{Path(fmu_path).name}: warm-up run failed: {detail}")
    return time.perf_counter() - start
