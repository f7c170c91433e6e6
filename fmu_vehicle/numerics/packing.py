"""A namedtuple of arrays and numbers handed to compiled code as one buffer, for calls made once per step.

numba hands a namedtuple argument over member by member: every call from Python unboxes each array (type
checks, shape and strides copied out of the ``ndarray`` object) and passes the flattened fields (for a
vehicle's ``model`` and ``data``: about 140 arrays, some 570 machine words). Measured on the half car, that is
about 2.7 us per call whatever the call then does, against about 20 us for an RK4 step: nothing for a run
that makes one call per 500 steps, an eighth of the cost for a stepping FMU that makes one per step.

:func:`packed` writes the value once, as numba lays it out in memory (the fields of each array: data
pointer, shape, strides, ...; no reference counting: the arrays' meminfo is null), into an ``int64``
buffer, and returns it with the value's numba type. A kernel takes (buffer, type) instead of the value and
reads it back with :func:`packed_value`, which is a load from the buffer: the call then unboxes one small
array. A packed kernel only unpacks and calls the kernel that takes the namedtuples: the same RK4 loop
reading the fields out of the unpacked value inside its own body measured ~2 us per step slower than when
it receives them as arguments. The buffer holds the addresses of the arrays' memory, not references:
whoever keeps a buffer keeps the value it was made from (:class:`PackedCall` does), and a value is packed
again when it is replaced. Values are namedtuples, so the arrays in them are never replaced, only written
in place.

The same cost comes back inside compiled code: a call from one kernel to another that is not inlined passes
each namedtuple member by member (some 1,200 machine words for a vehicle's ``model`` and ``data``), about
0.4 us per call measured, whatever the callee does. A loop that calls a derivative thousands of times
therefore passes pointers instead: :func:`by_ref` stores the value once in the calling kernel's frame and
gives its address, :func:`deref` in the callee loads it back, and the callee reads only the members it uses
(the loops of ``fmu_vehicle.integrators``, docs/integrators.md "Calls by reference").

With numba disabled (``NUMBA_DISABLE_JIT=1``), :func:`packed` returns the value itself and
:func:`packed_value` hands it back, as do :func:`by_ref` and :func:`deref`: the same kernels run as plain
Python.
"""
from __future__ import annotations

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic, overload

from .jit import entry_point, njit

JIT_DISABLED = bool(numba.config.DISABLE_JIT)


@intrinsic
def _store(typingctx, value, buf):
    """Store ``value`` into the memory of the array ``buf`` in numba's layout of its type."""
    def codegen(context, builder, signature, args):
        val, arr = args
        ptr = context.make_array(signature.args[1])(context, builder, arr).data
        builder.store(val, builder.bitcast(ptr, context.get_value_type(signature.args[0]).as_pointer()))
        return context.get_dummy_value()
    return types.void(value, buf), codegen


@intrinsic
def _load(typingctx, buf, typeref):
    """The value of type ``typeref.instance_type`` stored in the memory of the array ``buf``."""
    ty = typeref.instance_type

    def codegen(context, builder, signature, args):
        ptr = context.make_array(signature.args[0])(context, builder, args[0]).data
        return builder.load(builder.bitcast(ptr, context.get_value_type(ty).as_pointer()))
    return ty(buf, typeref), codegen


@njit
def _pack(value, buf):
    # compiled without NRT (jit.njit): the arrays are unboxed with a null meminfo and a borrowed parent
    _store(value, buf)


def packed(value):
    """(buffer, numba type) of ``value`` (a namedtuple of arrays, numbers and namedtuples): the buffer holds
    the value as compiled code lays it out, read back in a kernel by :func:`packed_value`. The arrays must
    outlive the buffer. With numba disabled: (value, None)."""
    if JIT_DISABLED:
        return value, None
    from .numba_compat import cpu_target_context
    ty = numba.typeof(value)
    ctx = cpu_target_context()
    nbytes = ctx.get_abi_sizeof(ctx.get_value_type(ty))
    buf = np.zeros(-(-nbytes // 8), dtype=np.int64)
    _pack.compile((ty, numba.typeof(buf)))(value, buf)      # (the value's type found once: ~1.5 ms each)
    return buf, ty


def packed_value(buf, ty):
    """The value :func:`packed` made ``(buf, ty)`` of (in plain Python, ``buf`` is the value itself)."""
    return buf


@overload(packed_value, inline="always")
def _packed_value(buf, ty):
    return lambda buf, ty: _load(buf, ty)


@intrinsic
def _by_ref(typingctx, value):
    """A pointer to a copy of ``value`` in the calling function's frame (stored once, at the call)."""
    def codegen(context, builder, signature, args):
        ptr = cgutils.alloca_once(builder, context.get_data_type(signature.args[0]))
        context.pack_value(builder, signature.args[0], args[0], ptr)     # (a bool member is a byte in memory)
        return ptr
    return types.CPointer(value)(value), codegen


@intrinsic
def _deref(typingctx, ref):
    """The value ``ref`` points to. Where numba counts references (NRT on), the loaded value's arrays gain
    the reference the caller will release; kernels here run without NRT (``jit.njit``)."""
    def codegen(context, builder, signature, args):
        value = context.unpack_value(builder, signature.return_type, args[0])
        if context.enable_nrt:
            context.nrt.incref(builder, signature.return_type, value)
        return value
    return ref.dtype(ref), codegen


def _identity(value):
    return value


@intrinsic
def _member_ref(typingctx, ref, name):
    """A reference to the member ``name`` (a string constant) of the namedtuple ``ref`` refers to: the address
    of that member inside the referenced value (nothing is copied)."""
    if not isinstance(ref, types.CPointer) or not isinstance(name, types.StringLiteral):
        return None
    index = ref.dtype.fields.index(name.literal_value)
    member = ref.dtype.types[index]

    def codegen(context, builder, signature, args):
        return builder.gep(args[0], [context.get_constant(types.int32, 0), context.get_constant(types.int32, index)],
                           inbounds=True)
    return types.CPointer(member)(ref, name), codegen


def _member_python(value, name):
    return getattr(value, name)


member_ref = _member_python if JIT_DISABLED else _member_ref
"""``member_ref(ref, "name")``: a reference to ``deref(ref).name`` without copying it (the member's address in
the referenced value); in plain Python the member itself."""


by_ref = _identity if JIT_DISABLED else _by_ref
"""``by_ref(value)``: a reference to ``value`` (a namedtuple of arrays) that compiled calls take instead of the
value (module docstring); valid in the kernel that made it and in what that kernel calls. In plain Python:
``value``. (Called directly, not through an inlined overload: numba 0.6x computed wrong results when the
engine's inlined passes used a value that an ``inline="always"`` overload returned.)"""

deref = _identity if JIT_DISABLED else _deref
"""``deref(ref)``: the value :data:`by_ref` made ``ref`` of (in plain Python, ``ref`` is the value itself)."""


class PackedCall:
    """``kernel(*packed(model), *packed(data), *rest)`` for ``system``'s (model, data), called as
    ``call(system, *rest)``: what a stepper calls once per step (see the module docstring). The buffers
    are made at the first call and again whenever the system's model or data object is another one;
    they keep the objects they were made from. The first call fixes the types of ``rest`` (pass floats
    as floats)."""

    __slots__ = ("kernel", "model", "data", "head", "call")

    def __init__(self, kernel):
        self.kernel = kernel
        self.model = self.data = self.head = self.call = None

    def __call__(self, system, *rest):
        if system.model is not self.model or system.data is not self.data:
            self.model, self.data = system.model, system.data
            self.head = (*packed(self.model), *packed(self.data))
            self.call = entry_point(self.kernel, *self.head, *rest)
        return self.call(*self.head, *rest)
