"""What the package uses of numba's and llvmlite's internals (not their documented API), in one place.

Each function here names the internal it relies on. A numba or llvmlite upgrade is checked against this module
(the cache classes here subclass numba's caching internals; the policy they apply is ``jit.CACHE_POLICY``); the
native builds refuse versions other than :data:`PINNED`, on which the native tests compare the libraries with the
JIT bit for bit.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import llvmlite.binding as ll
from numba.core import caching, cgutils
from numba.core.dispatcher import Dispatcher

PINNED = {"numba": "0.68.1", "llvmlite": "0.50.0"}
"""The numba and llvmlite versions whose internals this package was written and tested against."""


def function_address(cres) -> int:
    """Address of the machine code of a compile result's function in numba's internal calling convention
    (``CompileResult.library.get_pointer_to_function(fndesc.llvm_func_name)``)."""
    return cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)


def function_name(cres) -> str:
    """The LLVM name of a compile result's function (``fndesc.llvm_func_name``)."""
    return cres.fndesc.llvm_func_name


def add_symbol(name: str, address: int) -> None:
    """Enter ``address`` under ``name`` in the symbol table LLVM resolves loaded code against."""
    ll.add_symbol(name, address)


def add_reload_hook(context, hook) -> None:
    """Have ``hook()`` run before the code of the function being lowered is loaded from the disk cache
    (numba's ``CodeLibrary._reload_init``, pickled with the cache entry; a caller that links this function's
    library inherits its hooks: :func:`keep_reload_hooks`)."""
    keep_reload_hooks()
    context.active_code_library._reload_init.add(hook)


_KEPT = False


def keep_reload_hooks() -> None:
    """Make a library loaded from the disk cache keep the reload hooks of its entry
    (``CompileResult._rebuild`` runs them but leaves the rebuilt library's ``_reload_init`` empty). A caller
    compiled later links that library and copies its hooks into its own cache entry; without them, the
    caller's entry, loaded in a fresh process, would not register the shared kernels it calls
    (``numerics.shared``) and its calls would jump to an unresolved address."""
    global _KEPT
    if _KEPT:
        return
    from numba.core.compiler import CompileResult
    rebuild = CompileResult._rebuild.__func__

    def _rebuild(cls, target_context, libdata, fndesc, env, signature, objectmode, lifted, typeann, reload_init,
                 referenced_envs):
        cr = rebuild(cls, target_context, libdata, fndesc, env, signature, objectmode, lifted, typeann,
                     reload_init, referenced_envs)
        if reload_init:
            cr.library._reload_init.update(reload_init)
        return cr

    CompileResult._rebuild = classmethod(_rebuild)
    _KEPT = True


def call_declared(context, builder, name, restype, argtys, values):
    """Emit a call of the function ``name``, declared (not defined) in the module being built, with numba's
    internal calling convention for ``restype(*argtys)``; an error status returned by it propagates as from a
    linked call (``BaseContext.call_internal`` with a symbol of our own instead of the callee's fndesc)."""
    fnty = context.call_conv.get_function_type(restype, argtys)
    fn = cgutils.get_or_insert_function(builder.module, fnty, name)
    status, res = context.call_conv.call_function(builder, fn, restype, argtys, values)
    with cgutils.if_unlikely(builder, status.is_error):
        context.call_conv.return_status_propagate(builder, status)
    return res


def library_ir(cres) -> str:
    """LLVM IR of a compile result's library with its callees linked in, whether compiled in this process or
    loaded from the disk cache (a cached entry keeps that module's bitcode: ``_get_module_for_linking``)."""
    return str(cres.library._get_module_for_linking())


def _python_twin(kernel):
    """The Python-callable twin of an :class:`InlineKernel`: the same function compiled by numba with its
    wrappers (made on the first call from Python)."""
    twin = kernel.__dict__.get("_fv_twin")
    if twin is None:
        import numba
        from numba.core.caching import NullCache
        options = {k: v for k, v in kernel.targetoptions.items()
                   if k not in ("forceinline", "no_cpython_wrapper", "no_cfunc_wrapper", "nopython")}
        # ``cache`` is a decorator argument, not a target option: without it here the twin was compiled
        # again in every process (about 2 s for ``factor_dependent`` at each vehicle's construction)
        options["cache"] = not isinstance(kernel._cache, NullCache)
        twin = kernel.__dict__["_fv_twin"] = kernel._fv_decorate(numba.njit(**options)(kernel.py_func))
    return twin


def inline_kernel(dispatcher, decorate):
    """``dispatcher`` (compiled with ``forceinline``, ``no_cpython_wrapper`` and ``no_cfunc_wrapper``) turned into
    an :class:`InlineKernel`; ``decorate`` is applied to its Python-callable twin (``jit._keyed``)."""
    from numba.core.registry import CPUDispatcher
    if type(dispatcher) is not CPUDispatcher:
        return dispatcher
    global InlineKernel
    if InlineKernel is None:
        class _InlineKernel(CPUDispatcher):
            """A kernel that compiled callers inline at the LLVM level and that has no code of its own for calls
            from Python (numba's wrappers cost more to compile than a small pass itself). A call from Python goes
            to its twin compiled with the wrappers (``_python_twin``); ``compile`` gives that twin's entry."""

            def __call__(self, *args, **kwargs):
                return _python_twin(self)(*args, **kwargs)

            def python_entry(self, sig):
                return _python_twin(self).compile(sig)

        InlineKernel = _InlineKernel
    dispatcher.__class__ = InlineKernel
    dispatcher._fv_decorate = decorate
    return dispatcher


InlineKernel = None
"""The class of :func:`inline_kernel`'s dispatchers (made on first use: it subclasses numba's CPU dispatcher)."""


def version_mismatches() -> dict[str, str]:
    """{distribution: installed version} of numba and llvmlite where it differs from :data:`PINNED`: the one
    version check (the native builds refuse to run with any mismatch, ``native.emit.check_versions``)."""
    from importlib import metadata
    return {name: metadata.version(name) for name in PINNED if metadata.version(name) != PINNED[name]}


def cpu_target_context():
    """numba's CPU target context (``numba.core.registry.cpu_target.target_context``): the LLVM value types and
    data layout numba gives its types (struct layouts of packed values, ``packing``, ``native.layout``)."""
    from numba.core.registry import cpu_target
    return cpu_target.target_context


def cfunc_llvm_ir(cfunc) -> str:
    """The LLVM IR of a finalized ``numba.cfunc``'s code library: its C wrapper and every kernel it reaches
    (``CFunc._library.get_llvm_str()``)."""
    return cfunc._library.get_llvm_str()


class CachePolicy(NamedTuple):
    """Where and under which keys a package's kernels are cached (``jit.CACHE_POLICY``)."""
    folder: Callable        # folder(py_file) -> the cache folder of the kernels defined in py_file, or None
    on_use: Callable        # on_use(folder): called once the folder is known to be usable
    stamp: Callable         # stamp(py_file) -> str: the index's validity stamp (replaces numba's file time)
    signature_key: Callable  # signature_key(sig) -> str: added to each entry's index key
    keep_per_signature: int  # entries of one signature that differ only by signature_key, kept per index
    link_only_suffix: str    # added to the file names of an inline kernel's own entries


def install_cache_policy(policy: CachePolicy) -> None:
    """Have numba file the cache of every function ``policy.folder`` accepts there, stamped by
    ``policy.stamp`` (a locator class first in ``caching.CacheImpl._locator_classes``; once per policy)."""
    if any(getattr(cls, "policy", None) is policy for cls in caching.CacheImpl._locator_classes):
        return

    class PolicyLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        def __init__(self, py_func, py_file, folder: str):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = folder

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return policy.stamp(self._py_file)

        @classmethod
        def from_function(cls, py_func, py_file):
            folder = policy.folder(py_file)
            if folder is None:
                return None
            self = cls(py_func, py_file, folder)
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            policy.on_use(folder)
            return self

    PolicyLocator.policy = policy
    caching.CacheImpl._locator_classes.insert(0, PolicyLocator)


class _PolicyFunctionCache(caching.FunctionCache):
    """numba's function cache with ``policy.signature_key`` of the signature in each entry's index key, at most
    ``policy.keep_per_signature`` entries that differ only by it, and (``link_only``) its files named with
    ``policy.link_only_suffix``."""

    def __init__(self, py_func, policy: CachePolicy, tag: str = "", link_only: bool = False):
        super().__init__(py_func)
        self._policy = policy
        self._tag = tag
        if link_only:
            self._cache_file = caching.IndexDataCacheFile(self._cache_path,
                                                          self._impl.filename_base + policy.link_only_suffix,
                                                          self._impl.locator.get_source_stamp())

    def _index_key(self, sig, codegen):
        return (*super()._index_key(sig, codegen), self._policy.signature_key(sig) + self._tag)

    def _save_overload(self, sig, data):
        if self._enabled and self._impl.check_cachable(data):
            key = self._index_key(sig, data.codegen)
            keep = self._policy.keep_per_signature
            try:
                index = self._cache_file._load_index()
                others = [k for k in index if k[:-1] == key[:-1] and k != key]
                if len(others) >= keep:
                    for k in others[:len(others) - keep + 1]:
                        del index[k]               # its data file name is free again: overwritten later
                    self._cache_file._save_index(index)
            except Exception:                      # an unreadable index: numba's save starts a new one
                pass
        super()._save_overload(sig, data)


def keyed_cache(dispatcher, policy: CachePolicy, tag: str = "", link_only: bool = False):
    """``dispatcher`` with a cache that applies ``policy`` in place of numba's (if it caches: ``dispatcher._cache``
    is numba's plain ``FunctionCache``); ``tag`` tells its entries apart from those of another dispatcher of the
    same function, ``link_only`` names its files apart."""
    if isinstance(dispatcher, Dispatcher) and type(dispatcher._cache) is caching.FunctionCache:
        dispatcher._cache = _PolicyFunctionCache(dispatcher.py_func, policy, tag, link_only)
    return dispatcher
