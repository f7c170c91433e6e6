"""Native (Python-free) builds of a system's compiled step.

A system's RK4 communication step (``integrators.rk4.rk4_advance``, the kernel every stepper calls) is made a
plain C entry point (:mod:`.step`), its (model, data) buffers a position-independent image (:mod:`.layout`),
and the entry point's machine code a shared library for Linux x86-64 or Windows x64 linked with a small C
runtime that stands in for numba's Python error paths (:mod:`.emit`, ``c/runtime.c``). The library needs
neither Python nor numba on the host; it runs the same kernels as the package (the same LLVM IR), so its
results equal the JIT's bit for bit on the same libm. See docs/native.md.
"""
