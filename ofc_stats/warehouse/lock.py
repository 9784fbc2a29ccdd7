"""The write lock: one process writes a warehouse at a time, and knows if it still does.

:func:`write_lock` takes an exclusive ``flock`` on ``<warehouse>/.lock``, waiting up
to a timeout, then fails with a message naming the process that holds it. The lock
file holds the holder's identity (:class:`LockIdentity`: pid, host, the process's
start time and a random token), so that a writer can check, before each commit, that
the lock is still its own (:meth:`WriteLock.verify`): a ``.lock`` deleted or replaced
while it writes (it looked stale; a second writer then took a new one) ends in a clean
refusal instead of two writers committing side by side. Readers take no lock: they
read committed files only.

The operating system releases an ``flock`` when its process ends, however it ends, so
a lock is never stale: a ``.lock`` left by a killed writer is simply taken by the next.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import fcntl
import json
import os
import socket
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

from ofc_stats.warehouse.errors import WarehouseLockedError, WarehouseLockLostError

LOCK_FILE = ".lock"


def _process_start() -> str:
    """When this process started (UTC, ISO 8601): with the pid, it names one process
    even after the pid is reused. From ``/proc`` where there is one, else now."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[19])  # field 22, starttime, in clock ticks since boot
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
        started = boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        started = time.time()
    return dt.datetime.fromtimestamp(started, dt.UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class LockIdentity:
    """Who holds a warehouse's write lock, as its ``.lock`` file records."""

    pid: int
    host: str
    started: str  # the process's start time, UTC
    token: str  # random: this hold of the lock, whatever the pid

    @classmethod
    def mine(cls) -> LockIdentity:
        """A new identity for this process."""
        return cls(os.getpid(), socket.gethostname(), _process_start(), uuid.uuid4().hex)

    def text(self) -> str:
        """The ``.lock`` file's content."""
        return json.dumps(asdict(self)) + "\n"

    @classmethod
    def parse(cls, text: str) -> LockIdentity | None:
        """The identity a ``.lock`` file holds; None if it holds none (empty, or an
        older version's ``pid N`` line)."""
        try:
            data = json.loads(text)
            return cls(int(data["pid"]), str(data["host"]), str(data["started"]),
                       str(data["token"]))
        except (ValueError, KeyError, TypeError):
            return None

    def describe(self) -> str:
        """``pid 123 on host h, started 2026-03-01T20:15:00+00:00``."""
        return f"pid {self.pid} on host {self.host}, started {self.started}"


class WriteLock:
    """The write lock held: its file, kept open (the ``flock`` lives on it), and identity."""

    def __init__(self, root: Path, handle: IO[str], identity: LockIdentity) -> None:
        self.root = root
        self.path = root / LOCK_FILE
        self._handle = handle
        self.identity = identity

    def verify(self) -> None:
        """Check that ``.lock`` is still this process's lock file, with its identity.

        Raises:
            WarehouseLockLostError: the file was deleted or replaced (another process
                may be writing the warehouse now), or rewritten by someone else.
        """
        mine = os.fstat(self._handle.fileno())
        try:
            there = os.stat(self.path)
        except FileNotFoundError:
            raise self._lost("was deleted") from None
        if (there.st_dev, there.st_ino) != (mine.st_dev, mine.st_ino):
            holder = _holder_of(self.path)
            raise self._lost("was replaced" + (f" (it now names {holder.describe()})"
                                               if holder else ""))
        self._handle.seek(0)
        if LockIdentity.parse(self._handle.read()) != self.identity:
            raise self._lost("was overwritten")

    def _lost(self, what: str) -> WarehouseLockLostError:
        return WarehouseLockLostError(
            f"the lock file {self.path} {what} while this process ({self.identity.describe()})"
            " was writing: it stopped without committing more (what it committed before is"
            " whole). Another process may be writing the warehouse; never delete .lock "
            "(the lock of a process that ended is released by itself). Run "
            "'ofc-stats check' once no ofc-stats process is writing")

    def release(self) -> None:
        """Release the lock (the file stays: deleting it could split a waiting writer
        from the next one)."""
        fcntl.flock(self._handle, fcntl.LOCK_UN)
        self._handle.close()


def _holder_of(path: Path) -> LockIdentity | None:
    try:
        return LockIdentity.parse(path.read_text())
    except OSError:
        return None


def _holder_text(handle: IO[str]) -> str:
    handle.seek(0)
    text = handle.read().strip()
    identity = LockIdentity.parse(text)
    if identity is not None:
        return identity.describe()
    return text or "unknown"


@contextlib.contextmanager
def write_lock(root: Path, timeout: float) -> Iterator[WriteLock]:
    """Hold the exclusive write lock of the warehouse at ``root`` for the block.

    Raises:
        WarehouseLockedError: another process kept the lock for ``timeout`` seconds.
        OSError: the lock file cannot be opened (a read-only warehouse, permissions).
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
                holder = _holder_text(handle)
                handle.close()
                raise WarehouseLockedError(
                    f"warehouse {root} is busy: another ofc-stats process ({holder}) is "
                    "writing; try again when it finishes (its lock goes when the process "
                    "does: do not delete .lock)") from None
            time.sleep(0.1)
    identity = LockIdentity.mine()
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(identity.text())
        handle.flush()
    except OSError:
        handle.close()
        raise
    lock = WriteLock(root, handle, identity)
    try:
        yield lock
    finally:
        lock.release()
