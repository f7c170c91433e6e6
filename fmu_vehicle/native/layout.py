"""Position-independent images of packed (model, data) buffers, and their relocation.

``packing.packed`` writes a namedtuple as numba lays it out: every array member is a struct of machine words

    meminfo, parent, nitems, itemsize, data, shape[ndim], strides[ndim]

(``ARRAY_*`` word indices below), where ``data`` is the address of the array's memory in this process. A
native library needs the same buffers in another process: :func:`make_image` finds every array's struct in the
two buffers by walking the value's numba type alongside its LLVM layout (offsets from LLVM's data layout,
checked against the words actually stored), copies the arrays' bytes into one blob, and writes an
:class:`Image`:

* ``words``: the model buffer then the data buffer (int64), with every array's ``data`` word replaced by
  the offset [bytes] of its memory in the blob, and ``meminfo``/``parent`` zeroed (no reference counting, no
  Python object);
* ``relocs``: the positions in ``words`` of those ``data`` words;
* ``blob``: the arrays' bytes. Arrays whose memory overlaps (views of one array, in the model or the data or
  both) are copied once as one segment, so writes through one view stay visible through the other, as in the
  original. Each segment starts at an offset congruent to its original address modulo 8 (so 8-byte
  alignment is kept); empty arrays point at offset 0.

Rebuilding in any language: copy the blob to memory at an 8-byte aligned address ``base``, copy ``words``,
add ``base`` to ``words[i]`` for every ``i`` in ``relocs``; the model buffer is the first ``model_words``
words, the data buffer the rest (``c/runtime.c`` ``fv_instance_new``; :func:`rebuild` with numpy).

File format (:meth:`Image.to_bytes`, little-endian, every section 8-byte aligned)::

    char    magic[8] = "FVIMAGE1"
    int64   model_words, data_words, n_relocs, blob_bytes
    int64   words[model_words + data_words]
    int64   relocs[n_relocs]
    uint8   blob[blob_bytes]

``Image.fields`` names every array ((model|data).<field path>, dtype, shape, struct position, blob offset)
and ``Image.scalars`` every number (path, type, byte): what a C layer needs to find e.g. ``data.inputs``
(:meth:`Image.field_table`).

See docs/native.md §2.
"""
from __future__ import annotations

import ctypes
import struct
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba.core import types

MAGIC = b"FVIMAGE1"
HEADER = struct.Struct("<8s4q")
"""The file header: magic, model_words, data_words, n_relocs, blob_bytes."""

ARRAY_MEMINFO, ARRAY_PARENT, ARRAY_NITEMS, ARRAY_ITEMSIZE, ARRAY_DATA, ARRAY_SHAPE = range(6)
"""Word indices in numba's array struct (``ARRAY_SHAPE`` + ndim is the first stride)."""


class ArrayField(NamedTuple):
    """One array member of a packed value: its dotted path, its struct's first word in ``Image.words``,
    the array, and (once the image is made) its memory's offset in the blob [bytes]."""
    path: str
    word: int
    array: np.ndarray
    offset: int = 0


class ScalarField(NamedTuple):
    """One number of a packed value: its dotted path, its byte in ``Image.words`` (its bytes as numba
    stores it: int64 and float64 take a word, a boolean one byte) and its numba type's name."""
    path: str
    byte: int
    type: str


def _walk(nbtype, lltype, value, byte, path, target_data, out, scalars):
    """Append an :class:`ArrayField` to ``out`` for every array in ``value`` (numba type ``nbtype``, LLVM type
    ``lltype``) stored at ``byte`` in its buffer, a :class:`ScalarField` to ``scalars`` for every number."""
    if isinstance(nbtype, types.Array):
        if byte % 8:
            raise ValueError(f"{path}: array struct at byte {byte}, not word aligned")
        out.append(ArrayField(path, byte // 8, value))
    elif isinstance(nbtype, (types.Number, types.Boolean)):
        scalars.append(ScalarField(path, byte, str(nbtype)))
    elif isinstance(nbtype, types.BaseTuple):
        names = getattr(value, "_fields", None) or [str(i) for i in range(len(nbtype.types))]
        for i, (sub, name) in enumerate(zip(nbtype.types, names)):
            if isinstance(lltype, ir.ArrayType):                     # [n x T]: a homogeneous tuple
                off, sub_ll = i * lltype.element.get_abi_size(target_data), lltype.element
            else:                                                    # {T1, T2, ...}
                off, sub_ll = lltype.get_element_offset(target_data, i), lltype.elements[i]
            _walk(sub, sub_ll, value[i], byte + off, f"{path}.{name}", target_data, out, scalars)
    else:
        raise TypeError(f"{path}: a packed value may hold arrays, numbers, booleans and tuples, not {nbtype}")


def array_fields(value, nbtype, buf, prefix: str, first_word: int = 0) -> tuple[list, list]:
    """The arrays (:class:`ArrayField`) and numbers (:class:`ScalarField`) of ``value`` packed as ``(buf,
    nbtype)`` (``packing.packed``), with their positions (+ ``first_word``); checks each array struct against
    the array (data address, size, shape, strides) and each int64/float64 against the value's number."""
    from ..numerics.numba_compat import cpu_target_context
    ctx = cpu_target_context()
    out: list[ArrayField] = []
    scalars: list[ScalarField] = []
    _walk(nbtype, ctx.get_value_type(nbtype), value, 0, prefix, ctx.target_data, out, scalars)
    for f in scalars:
        if f.type in ("int64", "float64"):
            got = buf[f.byte // 8:f.byte // 8 + 1].view(np.dtype(f.type))[0] if f.byte % 8 == 0 else None
            want = _leaf(value, f.path)
            if got is None or not (got == want or (got != got and want != want)):
                raise ValueError(f"{f.path}: the packed buffer holds {got} at byte {f.byte}, the value {want}")
    checked = []
    for f in out:
        a, w = f.array, f.word
        nd = a.ndim
        expect = [a.size, a.itemsize, a.ctypes.data, *a.shape, *a.strides]
        got = [int(v) for v in buf[w + ARRAY_NITEMS:w + ARRAY_SHAPE + 2 * nd]]
        if got != expect:
            raise ValueError(f"{f.path}: the packed struct at word {w} holds {got}, the array {expect} "
                             "(numba's array layout is not the one this module reads)")
        checked.append(f._replace(word=w + first_word))
    return checked, [f._replace(byte=f.byte + 8 * first_word) for f in scalars]


def _leaf(value, path):
    """The member of ``value`` at the dotted ``path`` (its first component names ``value`` itself)."""
    for name in path.split(".")[1:]:
        value = getattr(value, name) if hasattr(value, "_fields") else value[int(name)]
    return value


def _extent(a: np.ndarray) -> tuple[int, int]:
    """[lo, hi) byte addresses of the memory array ``a`` reaches (it has at least one element)."""
    lo = hi = a.ctypes.data
    for n, s in zip(a.shape, a.strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi + a.itemsize


class Image(NamedTuple):
    """A position-independent (model, data) pair (module docstring)."""
    model_words: int
    words: np.ndarray         # int64 (model_words + data_words,)
    relocs: np.ndarray        # int64 positions in words
    blob: bytes
    fields: tuple             # ArrayField per array, offset = its memory in the blob [bytes]
    scalars: tuple = ()       # ScalarField per number

    @property
    def data_words(self) -> int:
        return self.words.size - self.model_words

    def to_bytes(self) -> bytes:
        """The image file (module docstring)."""
        head = HEADER.pack(MAGIC, self.model_words, self.data_words, self.relocs.size, len(self.blob))
        return (head + self.words.astype("<i8").tobytes() + self.relocs.astype("<i8").tobytes() + self.blob)

    @classmethod
    def from_bytes(cls, raw: bytes) -> "Image":
        """Read an image file (without the field table, which the file does not hold)."""
        magic, nm, nd, nr, nb = HEADER.unpack_from(raw)
        if magic != MAGIC:
            raise ValueError(f"not a native step image (magic {magic!r}, expected {MAGIC!r})")
        p = HEADER.size
        words = np.frombuffer(raw, "<i8", nm + nd, p).astype(np.int64)
        p += 8 * (nm + nd)
        relocs = np.frombuffer(raw, "<i8", nr, p).astype(np.int64)
        p += 8 * nr
        if len(raw) != p + nb:
            raise ValueError(f"native step image: {len(raw)} bytes, its header says {p + nb}")
        return cls(nm, words, relocs, bytes(raw[p:]), (), ())

    def field(self, path: str) -> ArrayField:
        for f in self.fields:
            if f.path == path:
                return f
        raise KeyError(f"no array '{path}' in the image; arrays: {', '.join(f.path for f in self.fields)}")

    def scalar(self, path: str) -> ScalarField:
        for f in self.scalars:
            if f.path == path:
                return f
        raise KeyError(f"no number '{path}' in the image; numbers: {', '.join(f.path for f in self.scalars)}")

    def field_table(self) -> dict:
        """JSON-ready: every array (path, dtype, shape, strides [bytes], struct word, the word of its data
        pointer, blob offset [bytes]) and every number (path, numba type, byte in the words)."""
        return {"arrays": [{"path": f.path, "dtype": f.array.dtype.str, "shape": list(f.array.shape),
                            "strides": list(f.array.strides), "word": f.word, "data_word": f.word + ARRAY_DATA,
                            "offset": f.offset} for f in self.fields],
                "scalars": [{"path": f.path, "type": f.type, "byte": f.byte} for f in self.scalars]}


def make_image(model, model_buf, model_type, data, data_buf, data_type) -> Image:
    """The :class:`Image` of the packed pair (the buffers and types of ``packing.packed(model)`` and
    ``packing.packed(data)``), made from the arrays' current contents."""
    nm = int(model_buf.size)
    model_arrays, model_scalars = array_fields(model, model_type, model_buf, "model")
    data_arrays, data_scalars = array_fields(data, data_type, data_buf, "data", nm)
    fields = model_arrays + data_arrays
    words = np.concatenate([model_buf, data_buf]).astype(np.int64)
    spans = sorted((*_extent(f.array), i) for i, f in enumerate(fields) if f.array.size)
    segments = []                                   # [lo, hi, members]
    for lo, hi, i in spans:
        if segments and lo < segments[-1][1]:       # overlaps the last: the same memory, one segment
            segments[-1][1] = max(segments[-1][1], hi)
            segments[-1][2].append(i)
        else:
            segments.append([lo, hi, [i]])
    blob = bytearray(8)                             # offset 0: where empty arrays point
    offsets = [0] * len(fields)
    for lo, hi, members in segments:
        start = -(-len(blob) // 8) * 8 + lo % 8
        blob.extend(bytes(start - len(blob)))
        blob.extend(ctypes.string_at(lo, hi - lo))
        for i in members:
            offsets[i] = start + fields[i].array.ctypes.data - lo
    blob.extend(bytes(-len(blob) % 8))
    relocs = []
    for i, f in enumerate(fields):
        words[f.word + ARRAY_MEMINFO] = 0
        words[f.word + ARRAY_PARENT] = 0
        words[f.word + ARRAY_DATA] = offsets[i]
        relocs.append(f.word + ARRAY_DATA)
    fields = tuple(f._replace(offset=o) for f, o in zip(fields, offsets))
    return Image(nm, words, np.array(relocs, dtype=np.int64), bytes(blob), fields,
                 tuple(model_scalars + data_scalars))


class Rebuilt(NamedTuple):
    """An image rebuilt in this process: the two buffers and the memory they point into (keep it alive)."""
    model_buf: np.ndarray
    data_buf: np.ndarray
    memory: np.ndarray

    def array(self, image: Image, path: str) -> np.ndarray:
        """The rebuilt array at ``path`` (a numpy view of ``memory``)."""
        f = image.field(path)
        return np.ndarray(f.array.shape, f.array.dtype, self.memory.data, f.offset, f.array.strides)


def rebuild(image: Image) -> Rebuilt:
    """The buffers of ``image`` over a fresh copy of its blob (what ``fv_instance_new`` does in C)."""
    raw = np.zeros(len(image.blob) + 64, dtype=np.uint8)
    start = -raw.ctypes.data % 64                                       # 64-byte aligned, like numpy's
    memory = raw[start:start + len(image.blob)]
    memory[:] = np.frombuffer(image.blob, dtype=np.uint8)
    words = image.words.copy()
    words[image.relocs] += memory.ctypes.data
    return Rebuilt(words[:image.model_words], words[image.model_words:], memory)
