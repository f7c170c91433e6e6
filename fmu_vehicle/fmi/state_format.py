"""FMU states as plain data: a versioned, self-describing byte format that cannot execute code.

A saved state is a ``SavedState``: a JSON-able header (model name, GUID, the fixed parameters it was
made with, the FMI variable values, the life-cycle phase and time) plus a *tree* holding the model's
own snapshot, where numpy arrays are replaced by ``{"$array": i}`` references into a list of arrays.
Only these node kinds exist in a tree::

    null | true/false | integer | float (NaN/inf allowed) | string | [node, ...] | {"key": node, ...}
    {"$tuple": [node, ...]}      a Python tuple
    {"$array": i}                array i of the state (dtype float64, int64 or bool; C order)

Serialized layout (all integers little-endian)::

    MAGIC (16 bytes, b"FMUVEHICLE-STATE")
    uint32  format version (FORMAT_VERSION)
    uint64  header length H [bytes]
    H bytes header: UTF-8 JSON object {"header": {...}, "tree": node, "arrays": [{"dtype", "shape"}, ...]}
    payload: the arrays' raw bytes, one after the other, exactly as many as their dtypes and shapes need

Reading checks the magic, the version, every length and every node; nothing in the bytes is ever
called, imported or evaluated (no pickle).  Whether a well-formed state fits an instance (same model,
GUID, fixed parameters, tree shape) is decided by the slave base when the state is restored.

See docs/fmu_robustness.md.
"""
from __future__ import annotations

import json
import math
import struct
import sys
from dataclasses import dataclass, field
from typing import Any

MAGIC = b"FMUVEHICLE-STATE"
FORMAT_VERSION = 1
MAX_HEADER_BYTES = 64 * 1024 * 1024       # far above any real state; guards against absurd lengths
MAX_DEPTH = 32                             # nesting of a model tree
ARRAY_DTYPES = {"<f8": 8, "<i8": 8, "|b1": 1}
_PREFIX = struct.Struct("<16sIQ")


class StateFormatError(ValueError):
    """The bytes are not an FMU state of this package (the message says what is wrong)."""


def _numpy():
    """numpy if the FMU's model already uses it (FMUs without arrays in their state never import it,
    so that their requirements stay pure Python)."""
    np = sys.modules.get("numpy")
    if np is None:
        raise StateFormatError("the state holds arrays, but this FMU's model has none")
    return np


@dataclass
class SavedState:
    """A state in memory: ``header`` (JSON-able dict), ``tree`` (node, see module doc), ``arrays``."""

    header: dict
    tree: Any = None
    arrays: list = field(default_factory=list)


# ---------------------------------------------------------------------- Python objects <-> tree
def to_tree(obj: Any, arrays: list, depth: int = 0) -> Any:
    """``obj`` as a tree node; numpy arrays are copied into ``arrays`` (numpy scalars become Python ones)."""
    if depth > MAX_DEPTH:
        raise StateFormatError("model state nested too deeply")
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, tuple):
        return {"$tuple": [to_tree(x, arrays, depth + 1) for x in obj]}
    if isinstance(obj, list):
        return [to_tree(x, arrays, depth + 1) for x in obj]
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, str) or k.startswith("$"):
                raise StateFormatError(f"model state key {k!r}: keys must be strings not starting with '$'")
            out[k] = to_tree(v, arrays, depth + 1)
        return out
    kind = type(obj).__module__.split(".")[0]
    if kind == "numpy":
        np = _numpy()
        if isinstance(obj, np.ndarray):
            arr = np.ascontiguousarray(obj)
            if arr.dtype.str not in ARRAY_DTYPES:
                arr = arr.astype(np.float64 if arr.dtype.kind == "f" else
                                 np.int64 if arr.dtype.kind in "iu" else np.bool_)
            arrays.append(arr.copy())
            return {"$array": len(arrays) - 1}
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            return float(obj)
    raise StateFormatError(f"model state holds a {type(obj).__name__}, not plain data")


def from_tree(node: Any, arrays: list) -> Any:
    """Inverse of ``to_tree`` (arrays are copied, so a state can be restored any number of times)."""
    if isinstance(node, list):
        return [from_tree(x, arrays) for x in node]
    if isinstance(node, dict):
        if "$tuple" in node:
            return tuple(from_tree(x, arrays) for x in node["$tuple"])
        if "$array" in node:
            return arrays[node["$array"]].copy()
        return {k: from_tree(v, arrays) for k, v in node.items()}
    return node


def check_tree(node: Any, n_arrays: int, depth: int = 0) -> None:
    """Raise ``StateFormatError`` unless ``node`` uses only the node kinds of the module doc."""
    if depth > MAX_DEPTH:
        raise StateFormatError("model state nested too deeply")
    if node is None or isinstance(node, (bool, int, float, str)):
        return
    if isinstance(node, list):
        for x in node:
            check_tree(x, n_arrays, depth + 1)
        return
    if isinstance(node, dict):
        if "$tuple" in node:
            if len(node) != 1 or not isinstance(node["$tuple"], list):
                raise StateFormatError("malformed tuple node")
            check_tree(node["$tuple"], n_arrays, depth + 1)
            return
        if "$array" in node:
            i = node["$array"]
            if len(node) != 1 or type(i) is not int or not 0 <= i < n_arrays:
                raise StateFormatError("malformed array reference")
            return
        for k, v in node.items():
            if k.startswith("$"):
                raise StateFormatError(f"unknown node tag {k[:20]!r}")
            check_tree(v, n_arrays, depth + 1)
        return
    raise StateFormatError(f"unexpected {type(node).__name__} in the model state")


def same_shape(node: Any, template: Any, arrays: list, template_arrays: list, path: str = "model") -> str | None:
    """None if tree ``node`` has the structure of ``template`` (the instance's own snapshot), else where
    it differs: same dict keys, list/tuple lengths, array dtypes and shapes, scalar kinds (a None on
    either side matches any node: optional slots such as 'no previous input yet')."""
    if node is None or template is None:
        return None
    if isinstance(template, dict) and "$array" in template:
        if not (isinstance(node, dict) and "$array" in node):
            return f"{path}: an array expected"
        a, b = arrays[node["$array"]], template_arrays[template["$array"]]
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{path}: array {a.dtype}{list(a.shape)} where {b.dtype}{list(b.shape)} is expected"
        return None
    if isinstance(template, dict):
        if not isinstance(node, dict) or set(node) != set(template):
            return f"{path}: other entries than expected"
        for k in template:
            problem = same_shape(node[k], template[k], arrays, template_arrays, f"{path}.{k}")
            if problem:
                return problem
        return None
    if isinstance(template, list):
        if not isinstance(node, list) or len(node) != len(template):
            return f"{path}: a list of {len(template)} expected"
        for i, (a, b) in enumerate(zip(node, template)):
            problem = same_shape(a, b, arrays, template_arrays, f"{path}[{i}]")
            if problem:
                return problem
        return None
    kinds = (bool, int, float, str)
    kind_t = next(k for k in kinds if isinstance(template, k))
    if type(node) is not kind_t and not (kind_t is float and type(node) is int):
        return f"{path}: a {kind_t.__name__} expected"
    return None


def arrays_finite(arrays: list) -> bool:
    """True if every float array holds only finite numbers."""
    if not arrays:
        return True
    np = _numpy()
    return all(a.dtype.kind != "f" or bool(np.isfinite(a).all()) for a in arrays)


# ---------------------------------------------------------------------- bytes
def dump(state: SavedState) -> bytes:
    """The serialized bytes of ``state`` (layout in the module doc)."""
    meta = [{"dtype": a.dtype.str, "shape": list(a.shape)} for a in state.arrays]
    head = json.dumps({"header": state.header, "tree": state.tree, "arrays": meta},
                      separators=(",", ":")).encode("utf-8")
    return b"".join([_PREFIX.pack(MAGIC, FORMAT_VERSION, len(head)), head, *(a.tobytes() for a in state.arrays)])


def load(data: bytes) -> SavedState:
    """Parse bytes written by ``dump``; raises ``StateFormatError`` naming the first problem."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise StateFormatError("not a byte string")
    data = bytes(data)
    if len(data) < _PREFIX.size:
        raise StateFormatError(f"{len(data)} bytes is too short for an FMU state")
    magic, version, n_head = _PREFIX.unpack_from(data)
    if magic != MAGIC:
        raise StateFormatError("not an fmu_vehicle FMU state (wrong magic bytes)")
    if version != FORMAT_VERSION:
        raise StateFormatError(f"state format version {version}, this FMU reads version {FORMAT_VERSION}")
    if n_head > min(MAX_HEADER_BYTES, len(data) - _PREFIX.size):
        raise StateFormatError(f"header length {n_head} does not fit the {len(data)} bytes given")
    try:
        doc = json.loads(data[_PREFIX.size:_PREFIX.size + n_head].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise StateFormatError(f"header is not valid JSON ({type(exc).__name__})") from None
    if not isinstance(doc, dict) or set(doc) != {"header", "tree", "arrays"} or not isinstance(doc["header"], dict) \
            or not isinstance(doc["arrays"], list):
        raise StateFormatError("header does not have the entries header/tree/arrays")
    offset = _PREFIX.size + n_head
    sizes = []
    for i, meta in enumerate(doc["arrays"]):
        if not isinstance(meta, dict) or meta.get("dtype") not in ARRAY_DTYPES or not isinstance(meta.get("shape"), list) \
                or len(meta["shape"]) > 4 or not all(type(n) is int and 0 <= n <= 1 << 31 for n in meta["shape"]):
            raise StateFormatError(f"array {i}: bad dtype or shape")
        sizes.append(ARRAY_DTYPES[meta["dtype"]] * math.prod(meta["shape"]))
    if offset + sum(sizes) != len(data):
        raise StateFormatError(f"payload has {len(data) - offset} bytes, the arrays need {sum(sizes)}")
    check_tree(doc["tree"], len(sizes))
    arrays = []
    if sizes:
        np = _numpy()
        for meta, size in zip(doc["arrays"], sizes):
            arrays.append(np.frombuffer(data, dtype=np.dtype(meta["dtype"]), count=size // ARRAY_DTYPES[meta["dtype"]],
                                        offset=offset).reshape(meta["shape"]).copy())
            offset += size
    return SavedState(doc["header"], doc["tree"], arrays)


@dataclass
class RejectedState:
    """What ``fmi2DeSerializeFMUstate`` returns for bytes that are not a valid state (``reason``);
    setting it is refused with that reason (the deserializer itself cannot report an error)."""

    reason: str
