"""Short, safe text for FMI log messages: values and exceptions never flood a host's log.

A host may set a 1 MB string or a huge file path; an exception may carry a whole file's content.
Every value or exception text that goes into an FMU message passes through ``short`` or
``describe_exception``, which keep at most ``LIMIT`` characters and say how much was cut.

See docs/fmu_robustness.md.
"""
from __future__ import annotations

LIMIT = 120           # characters of one value or exception text in a message
MESSAGE_LIMIT = 2000  # characters of one whole log message


def clip(text: str, limit: int = LIMIT) -> str:
    """``text`` cut to ``limit`` characters, with the number of characters left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


def short(value) -> str:
    """``repr(value)`` cut to ``LIMIT`` characters (never raises)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return clip(text)


def describe_exception(exc: BaseException) -> str:
    """One line: exception type, cut message, and the innermost source line of the traceback."""
    where = ""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        code = tb.tb_frame.f_code
        where = f" (in {code.co_name}, {code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno})"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {clip(text)}{where}"
