"""How an FMU's Python code lives in its host process: its own package copy and kernels, and the corrections
pythonfmu's export library needs.

The FMUs ship this package's own binary (``fmi/wrapper/fmi2_python.c``) unless built with
``binary="pythonfmu"``. What each needs from the Python side:

* **Stale package location** (both binaries). FMPy deletes an FMU's extraction folder after a simulation; an
  instance of the same FMU built later in the same process imports nothing anew (the modules are cached) and
  would look for not-yet-imported submodules in the deleted folder when the package copy was unpacked there
  (the fallback when no per-user folder can be written). :func:`point_package_at` re-points the cached package
  at the new instance's copy, which has identical content (the package name carries a hash of its sources, see
  ``fmu_vehicle.fmi.build``). FMUs of different builds use differently named packages and never share code.
  :func:`settle_instance` also has the instance adopt the compiled kernels its FMU ships.

The package's own binary needs nothing else: it puts the resources folder on ``sys.path`` only while it imports
the slave module, imports the script once per process (no re-execution, no reference released that it did not
take), uses a Python host's interpreter without touching its shutdown, and in a non-Python host finalizes the
interpreter it started from an exit handler it registers after each instantiation and terminate.

pythonfmu's binary (0.7.0) needs three corrections, made here and in the build's prologue:

* **Shutdown.** It keeps its interpreter state in a static ``std::shared_ptr`` and also clears it from a
  library destructor (``finalizePythonInterpreter``). At process exit the C++ runtime destroys the static
  first, then the library destructor assigns to the destroyed object and releases the freed control block
  again: heap corruption, seen as ``corrupted double-linked list`` aborts of Python hosts after their results
  are written. In a non-Python host the same static destructor is where it finalizes the interpreter it
  started (``Py_Finalize`` on its worker thread) -- but by then the exit handlers of every library loaded
  after the FMU (scipy's C++ extensions among them) have already run, and finalizing the modules that use
  them crashes (SIGSEGV in ``Py_FinalizeEx``).

  :func:`finalize_at_exit` registers the binary's own exported ``finalizePythonInterpreter`` as a C exit
  handler (``__cxa_atexit``). Exit handlers run in reverse order of registration, so a handler registered
  after the model's imports runs *before* the handlers of the libraries those imports loaded: the interpreter
  state is released (and, in a non-Python host, Python finalized) while everything it needs is intact, and
  the later static destructor and library destructor find an empty pointer and do nothing. Calling it twice is
  harmless (the second call finds the pointer empty), so it is registered again at ``terminate`` to run
  before anything loaded while stepping. The library is pinned (``RTLD_NODELETE``) so that the handler
  never points into an unloaded binary.

* **sys.path.** It inserts the FMU's ``resources`` folder at ``sys.path[0]`` on every instantiation and
  never removes it. :func:`restore_sys_path` removes that entry once the slave module and its package are
  imported (later imports of the package's submodules go through the package's own ``__path__``).

* **The script's namespace.** At every instantiation it executes the slave script again in the namespace of
  the module it imported, and releases one reference to that namespace (the module's ``__dict__``) that it
  never took. A script whose namespace nothing else references (no function or method defined in it keeps it
  as its globals) then has its namespace freed while the module still uses it, and the next garbage
  collection crashes the host (seen with a slave script of two assignments and a class without methods:
  SIGSEGV in ``visit_decref`` on the module's freed dict). The build's prologue for that binary calls
  :func:`keep_namespace` at every execution of the script, which keeps one reference for the process
  lifetime: at least as many as the binary releases.

See docs/fmu_hosts.md.
"""
from __future__ import annotations

import ctypes
import functools
import importlib
import os
import sys
from pathlib import Path

_PINNED: dict[str, ctypes.CDLL] = {}
"""Handles of the FMU binaries loaded in this process, by path (pinned and kept open for the process lifetime)."""


def fmu_binary(resources: str | os.PathLike, model_identifier: str) -> Path:
    """Path of the FMU's Linux binary next to its ``resources`` folder."""
    return Path(resources).resolve().parent / "binaries" / "linux64" / f"{model_identifier}.so"


def loaded_binary(resources: str | os.PathLike | None, model_identifier: str) -> ctypes.CDLL | None:
    """The FMU's binary when this process has loaded it (pinned, ``RTLD_NODELETE``, and kept open), else None
    (outside Linux, or a slave instantiated directly from Python, e.g. at build time)."""
    if not sys.platform.startswith("linux") or not resources:
        return None
    path = str(fmu_binary(resources, model_identifier))
    lib = _PINNED.get(path)
    if lib is None:
        try:   # only a binary that is already loaded; pin it so that it is never unloaded before exit
            lib = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_NOLOAD | os.RTLD_NODELETE)
        except OSError:
            return None
        _PINNED[path] = lib
    return lib


def finalize_at_exit(resources: str | os.PathLike | None, model_identifier: str) -> bool:
    """Register the FMU binary's ``finalizePythonInterpreter`` as a C exit handler (see the module docstring).

    Does nothing (returns False) when the binary is not loaded in this process (:func:`loaded_binary`) or does
    not export the function (this package's own binary, which orders its exit itself).
    """
    lib = loaded_binary(resources, model_identifier)
    handler = getattr(lib, "finalizePythonInterpreter", None) if lib is not None else None
    if handler is None:
        return False
    return _cxa_atexit()(ctypes.cast(handler, ctypes.c_void_p), None, None) == 0


@functools.cache
def _cxa_atexit():
    """The C library's ``__cxa_atexit`` through ctypes, made once per process (a library handle made at every
    call kept about 120 bytes of ctypes objects per instantiation and per terminate)."""
    register = ctypes.CDLL(None).__cxa_atexit
    register.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    register.restype = ctypes.c_int
    return register


_NAMESPACES: list[dict] = []
"""One reference to a slave script's namespace per execution of the script (see the module docstring)."""


def keep_namespace(namespace: dict) -> None:
    """Keep a reference to ``namespace`` (a slave script's ``globals()``) for the process lifetime."""
    _NAMESPACES.append(namespace)


def restore_sys_path(resources: str | os.PathLike | None) -> None:
    """Remove the entries equal to ``resources`` that the FMU binary put on ``sys.path``."""
    if not resources:
        return
    entry = os.fspath(resources)
    sys.path[:] = [p for p in sys.path if p != entry]


def point_package_at(package_name: str, resources: str | os.PathLike | None) -> None:
    """Re-point the imported package ``package_name`` (and its imported sub-packages) at the copy below
    ``resources`` when the folder it was imported from no longer exists."""
    package = sys.modules.get(package_name)
    if package is None or not resources:
        return
    old_root = Path(package.__path__[0])
    new_root = Path(resources) / package_name
    if old_root.is_dir() or not new_root.is_dir():
        return
    prefix = package_name + "."
    for name, module in list(sys.modules.items()):
        if name == package_name or name.startswith(prefix):
            rel = Path(*name.split(".")[1:])
            if getattr(module, "__path__", None) is not None:
                module.__path__ = [str(new_root / rel)]
    sys.path_importer_cache.pop(str(old_root), None)


def settle_instance(package_name: str, resources: str | os.PathLike | None, model_identifier: str) -> bool:
    """Everything above a new slave instance needs when it runs inside its FMU binary (returns True then): the
    package re-pointed, the compiled kernels its FMU ships adopted into the package's cache (``adopt_fmu_cache``)
    and, in pythonfmu's binary, the exit handler and ``sys.path`` corrected.

    A slave instantiated from plain Python (a script, a test, pythonfmu's builder) is left alone.
    """
    if loaded_binary(resources, model_identifier) is None:
        return False
    finalize_at_exit(resources, model_identifier)
    restore_sys_path(resources)
    point_package_at(package_name, resources)
    importlib.import_module(f"{package_name}.numerics.cache").adopt_fmu_cache(resources)
    return True
