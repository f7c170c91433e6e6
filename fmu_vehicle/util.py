"""Small helpers shared across the package: the one way a data file is read (:func:`read_json`) and written
atomically, the one time limit of a child process and the environment of a child that compiles the package's
kernels."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Callable, Iterable

from .errors import ModelError

CHILD_HANG_GUARD_S = 3600.0
"""The time limit of every child process the package or its tests start (FMU builds and warm-up runs, C-host
and FMPy runs, bench children) [s]: a guard against a child that hangs, never a speed limit. A child that
compiles numba kernels cold takes minutes on a busy 2-core machine (over 15 min was seen under a load of 9),
so nothing may fail only because the machine is slow."""


def compiling_child_env(cache_dir, **extra) -> dict:
    """The environment of a child process that imports this copy of the package and compiles its kernels
    (``NUMBA_DISABLE_JIT`` left out) into the kernel cache ``cache_dir``, with ``extra`` variables added."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1])] +
                                        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return {**env, "FMU_VEHICLE_CACHE_DIR": str(cache_dir), **extra}


def fixed(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals for a printed summary, never "-0.000" (a value that rounds to zero
    prints as 0)."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


MAX_JSON_DEPTH = 100
"""The deepest nesting of arrays and objects :func:`read_json` takes (the shipped data files nest at most 6
deep): a deeper document is refused before any reader recurses over it."""


def json_depth(value) -> int:
    """How deep arrays and objects nest in a parsed JSON ``value`` (0 for a number or string, 1 for ``[]``),
    found without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            todo.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _text_depth(text: str) -> int:
    """How deep brackets and braces nest in JSON ``text``, outside its strings (for a document json cannot
    parse because it nests too deeply)."""
    deepest = depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def read_json(path, what: str):
    """The JSON document in ``path``, a ``what`` file (e.g. "road", "tuning"): the one reader of the package's
    data files. A file that cannot be read, is not valid JSON or nests arrays and objects deeper than
    :data:`MAX_JSON_DEPTH` raises ModelError naming the file (and the line and column of the error, or how deep
    it nests): a document nested 100,000 deep used to escape as a bare RecursionError of the json module."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ModelError(f"{path}: cannot read {what} file ({e.strerror or e})") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise ModelError(f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        value, depth = None, _text_depth(text)
    else:
        depth = json_depth(value)
    if depth > MAX_JSON_DEPTH:
        raise ModelError(f"{path}: {what} file nested {depth} deep (at most {MAX_JSON_DEPTH} levels of arrays and "
                         f"objects)")
    return value


def atomic_write(path, write: Callable, mode: str | None = "w") -> Path:
    """Write ``path`` all-or-nothing: a reader sees the old file or the complete new one, never a part.

    ``write`` gets a temporary file beside ``path`` (same folder, so the final rename is atomic): an open
    stream when ``mode`` is "w" (text, newlines as given) or "wb" (binary), or the temporary path itself
    when ``mode`` is None (for writers that open the file themselves, e.g. ``zipfile`` or ``shutil``).
    The file is renamed onto ``path`` only when ``write`` returned; on any exception it is removed and
    the exception propagates. The folder of ``path`` is created. The file gets the permissions of a file
    made by ``open``: 0666 minus the process's umask (0644 under umask 022). Returns ``path``."""
    return atomic_write_all([(path, write)], mode)[0]


def atomic_write_all(writers: Iterable[tuple], mode: str | None = "w") -> list[Path]:
    """[(path, write)]: as :func:`atomic_write` for each, but all of them or none. Every ``write`` fills a
    temporary file beside its target; only when all succeeded are they renamed into place, otherwise no
    target is touched and every temporary file is removed."""
    done: list[tuple[Path, str]] = []
    permissions = 0o666 & ~_umask()
    try:
        for path, write in writers:
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            # the target's suffix stays last: writers that choose a format by suffix see the right one
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".tmp{path.suffix}", dir=path.parent)
            done.append((path, tmp))
            if mode is None:
                os.close(fd)
                write(tmp)
            else:
                with os.fdopen(fd, mode, **({} if "b" in mode else {"newline": ""})) as stream:
                    write(stream)
        for path, tmp in done:
            os.chmod(tmp, permissions)          # mkstemp made it 0600 whatever the umask
            os.replace(tmp, path)
    finally:
        for _, tmp in done:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return [path for path, _ in done]


def _umask() -> int:
    """The process's file-mode creation mask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
