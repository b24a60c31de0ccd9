"""pqfast's errors and their codes: what callers branch on instead of message text.

Every pqfast.FormatError / MemoryLimitError has a ``code``: the native
``ErrorCode``'s stable name (``include/pqfast/status.h``, set by the binding's
exception translator), or the one Python code gave it here. An error raised by
Python code without one has ``code`` None.
"""

from __future__ import annotations

from ._pqfast import FormatError, MemoryLimitError

INVALID_ARGUMENT = "invalid argument"
TRUNCATED = "truncated"
CORRUPT = "corrupt"
UNSUPPORTED = "unsupported"
LIMIT_EXCEEDED = "limit exceeded"
IO_ERROR = "I/O error"
MEMORY_LIMIT = "memory limit"
CODES = (INVALID_ARGUMENT, TRUNCATED, CORRUPT, UNSUPPORTED, LIMIT_EXCEEDED, IO_ERROR, MEMORY_LIMIT)


def column_list(columns) -> list | None:
    """``columns=`` of a read as a list of names (None: every column). A
    str is refused, not taken for the list of its letters (``"id"`` read
    columns ``i`` and ``d``); a dict (pyarrow's expressions) too."""
    if columns is None:
        return None
    if isinstance(columns, dict):
        raise format_error("invalid argument: columns takes a list of column names (expressions are not supported)")
    if isinstance(columns, (str, bytes)):
        raise format_error(f"invalid argument: columns takes a list of column names, not a {type(columns).__name__} "
                           f"(columns=[{columns!r}] reads that one column)")
    return list(columns)


def batch_size_of(n) -> int:
    """``batch_size=`` of a scan or ``iter_batches``: a positive count of rows."""
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise format_error(f"invalid argument: batch_size must be a positive number of rows, not {n!r}")
    return int(n)


def format_error(message: str, code: str | None = INVALID_ARGUMENT, column: str | None = None) -> FormatError:
    """A FormatError with its code and, when its message names the column it
    is about, that column (``.column``: callers add the name only when absent)."""
    e = FormatError(message)
    e.code = code
    if column is not None:
        e.column = column
    return e


def code_of(e: BaseException) -> str | None:
    return getattr(e, "code", None)


def reworded(e: BaseException, message: str) -> BaseException:
    """An error of e's type with another message (e.g. the file's name in
    front), keeping its code and column."""
    out = type(e)(message)
    for attr in ("code", "column"):
        if attr in getattr(e, "__dict__", {}):
            setattr(out, attr, e.__dict__[attr])
    return out


__all__ = ["FormatError", "MemoryLimitError", "format_error", "code_of", "reworded", *[
    "INVALID_ARGUMENT", "TRUNCATED", "CORRUPT", "UNSUPPORTED", "LIMIT_EXCEEDED", "IO_ERROR", "MEMORY_LIMIT"]]
