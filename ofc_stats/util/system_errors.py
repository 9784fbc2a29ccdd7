"""The system's own errors, wherever a library wrapped them.

polars writes ``... underlying IO error: No space left on device (os error 28)`` into
a ``ComputeError``, DuckDB ``... "errno":"28"`` into an ``IOException``; both are the
file system refusing, not a bug. :func:`system_error` finds the ``OSError`` inside,
so that disk full, permission denied and a read-only file system each end in one
clear line (:func:`describe_system_error`).
"""

from __future__ import annotations

import errno
import os
import re

# How each library writes an errno into its messages.
_ERRNO_PATTERNS = (re.compile(r"\(os error (\d+)\)"), re.compile(r'"errno"\s*:\s*"?(\d+)'),
                   re.compile(r"\[Errno (\d+)\]"))
_STRERRORS = {os.strerror(code).lower(): code for code in (
    errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS, errno.EIO)}
_FILE_IN_MESSAGE = re.compile(r'(?:file|File) \\?"([^"\\]+)\\?"')

FULL = (errno.ENOSPC, errno.EDQUOT)
DENIED = (errno.EACCES, errno.EPERM)


def system_error(error: BaseException, path: str | os.PathLike[str] | None = None
                 ) -> OSError | None:
    """The ``OSError`` (with its errno and file, where known) an error stands for, or
    None if it is not the system refusing."""
    if isinstance(error, OSError) and error.errno is not None:
        return error
    text = str(error)
    code = None
    for pattern in _ERRNO_PATTERNS:
        found = pattern.search(text)
        if found:
            code = int(found.group(1))
            break
    if code is None:
        lowered = text.lower()
        code = next((number for message, number in _STRERRORS.items() if message in lowered),
                    None)
    if code is None:
        return None
    named = _FILE_IN_MESSAGE.search(text)
    filename = os.fspath(path) if path is not None else (named.group(1) if named else None)
    return OSError(code, os.strerror(code), filename)


def describe_system_error(error: OSError) -> str:
    """One line for the system refusing: disk full, permission denied, read-only."""
    where = f" {error.filename}" if error.filename else ""
    if error.errno in FULL:
        return (f"no space left on the device writing{where}: nothing of the step that "
                "failed was committed; free some space and run again")
    if error.errno in DENIED:
        return f"permission denied:{where or ' a file'} (check who owns it and its mode)"
    if error.errno == errno.EROFS:
        return (f"read-only file system:{where or ' a file'} cannot be written (reading "
                "commands still work on a read-only warehouse)")
    return f"{error.strerror or error}{':' + where if where else ''}"
