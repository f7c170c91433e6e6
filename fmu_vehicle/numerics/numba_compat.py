"""What the package uses of numba's and llvmlite's internals (not their documented API), in one place.

Each function here names the internal it relies on. A numba or llvmlite upgrade is checked against this module
(and ``fmu_vehicle.numerics.jit``'s cache classes, which subclass numba's caching internals); the native builds refuse
versions other than :data:`PINNED`, on which the native tests compare the libraries with the JIT bit for bit.
"""
from __future__ import annotations

import llvmlite.binding as ll
from numba.core import cgutils

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
