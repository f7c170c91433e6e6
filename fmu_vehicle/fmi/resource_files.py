"""Data files named by FMU String parameters (``road``, ``tire_file``, ``powertrain_file``).

Rule: a file parameter names a file inside the FMU's resources folder (relative path, optionally
inside one of the folders ``search``).  Absolute paths and paths that leave the resources folder
(``..``, or a symbolic link pointing out of it; the check is made on the fully resolved path) are
refused unless the Boolean parameter ``allow_external_files`` is true.  A host therefore cannot make
the FMU read arbitrary files of the machine it runs on by setting a parameter.

Messages name the parameter and the file, never the file's content: a loader's error text has its
quoted parts (values, lines, keys read from the file) replaced by ``'...'`` (``scrub``) and is cut.

See docs/fmus.md §1 and docs/fmu_robustness.md.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from ..errors import ModelError
from .messages import clip, short

ALLOW_PARAMETER = "allow_external_files"
MAX_NAME = 4096       # characters of a file parameter
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


def scrub(text: str) -> str:
    """``text`` with every quoted part replaced by '...' and cut (no file content reaches a log)."""
    return clip(_QUOTED.sub("'...'", " ".join(text.split())), 300)


def resolve_file(value: str, parameter: str, resources: Path, *, search: tuple[str, ...] = (),
                 allow_external: bool = False) -> Path:
    """The file named by String parameter ``parameter`` = ``value`` (rules in the module doc)."""
    root = Path(resources).resolve()
    path = Path(value)
    if "\x00" in value or not value.strip() or len(value) > MAX_NAME:
        raise ModelError(f"parameter '{parameter}' = {short(value)}: not a file name")
    if path.is_absolute():
        candidates = [path]
    else:
        candidates = [root / path, *(root / folder / path for folder in search)]
    for candidate in candidates:
        try:
            resolved = candidate.resolve()
            inside = resolved == root or root in resolved.parents
            if not inside and not allow_external:
                raise ModelError(f"parameter '{parameter}' = {short(value)}: the file is outside the FMU "
                                 f"resources; set parameter '{ALLOW_PARAMETER}' = true to allow other files")
            if resolved.is_file():
                return resolved
        except OSError as exc:
            raise ModelError(f"parameter '{parameter}' = {short(value)}: not a usable file name "
                             f"({type(exc).__name__})") from None
    raise ModelError(f"parameter '{parameter}' = {short(value)}: no such file in the FMU resources"
                     + (f" (also looked in {', '.join(search)}/)" if search else ""))


def load_file(value: str, parameter: str, resources: Path, loader: Callable[[Path], object], *,
              search: tuple[str, ...] = (), allow_external: bool = False):
    """``loader(path)`` of the file named by the parameter; its errors are scrubbed (module doc)."""
    path = resolve_file(value, parameter, resources, search=search, allow_external=allow_external)
    try:
        return loader(path)
    except ModelError as exc:
        raise ModelError(f"parameter '{parameter}' = {short(value)}: file {path.name} is not valid: "
                         f"{scrub(str(exc))}") from None
    except (OSError, ValueError, UnicodeError) as exc:
        raise ModelError(f"parameter '{parameter}' = {short(value)}: file {path.name} cannot be read "
                         f"({type(exc).__name__})") from None
