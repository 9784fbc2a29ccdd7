"""The write lock: one process writes a warehouse at a time.

:func:`write_lock` takes an exclusive ``flock`` on ``<warehouse>/.lock``, waiting up
to a timeout, then fails with a message naming the process that holds it (the lock
file says its pid). Readers take no lock: they read committed files only.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from ofc_stats.warehouse.errors import WarehouseLockedError

LOCK_FILE = ".lock"


@contextlib.contextmanager
def write_lock(root: Path, timeout: float) -> Iterator[None]:
    """Hold the exclusive write lock of the warehouse at ``root`` for the block.

    Raises:
        WarehouseLockedError: another process kept the lock for ``timeout`` seconds.
    """
    root.mkdir(parents=True, exist_ok=True)
    handle = open(root / LOCK_FILE, "a+")  # noqa: SIM115 - held for the block
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EACCES):
                handle.close()
                raise
            if time.monotonic() >= deadline:
                holder = handle.read().strip() if handle.seek(0) == 0 else ""
                handle.close()
                raise WarehouseLockedError(
                    f"warehouse {root} is busy: another ofc-stats process "
                    f"({holder or 'unknown'}) is writing; try again when it finishes"
                ) from None
            time.sleep(0.1)
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}\n")
    handle.flush()
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()
