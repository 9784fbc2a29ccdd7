"""``ingest --watch``: keep importing history files while they are being written.

:func:`watch` looks at its paths again and again and imports the files that appeared
or changed since it last read them (:func:`~ofc_stats.ingest.run.ingest_live`): a grown
file from where its import stopped, a half-written last hand once it is complete,
fpdb-3's database from the rows added. Each import commits in small batches and holds
the warehouse's write lock only while committing, so ``score``, ``query`` and
``report`` run meanwhile; another ingest storing hands in between makes the import
start over from what is committed (never a hand twice).

When to look again: on Linux the watch asks the kernel (inotify, through the C
library with ``ctypes``; no compiled code of ours) to wake it as soon as a file in a
watched folder changes, and looks every ``interval`` seconds all the same (inotify
does not see writes over a network share, and has a per-user limit of watches);
elsewhere it looks every ``interval`` seconds. What it looks at is the same either
way: each file's size and modification time (and a ``-wal`` file's beside it: a
WAL-mode SQLite database grows there first), so a missed event costs at most one
interval. A CSV sheet is read once it has kept its size for one look, as the CSV
reader imports its last hand as soon as its line is complete.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import datetime as dt
import errno
import os
import select
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ofc_stats.formats import Format
from ofc_stats.ingest.commits import ConcurrentIngestError
from ofc_stats.ingest.keys import rebuild_hand_keys
from ofc_stats.ingest.run import LOCK_TIMEOUT, READ_BATCH_HANDS, LiveView, ingest_live
from ofc_stats.ingest.sources import SourceError, find_files
from ofc_stats.ingest.summary import IngestSummary, counted
from ofc_stats.warehouse import Warehouse, WarehouseLockedError, default_warehouse
from ofc_stats.warehouse.upgrade import upgrade_warehouse

WATCH_INTERVAL = 1.0  # seconds between looks without a wake-up
WATCH_COMMIT_HANDS = 5_000  # hands per commit while watching: new hands show soon
SETTLE_SECONDS = 0.05  # after a wake-up, for the writer to finish what it is writing
# inotify(7): the events that mean a file in a watched folder may have new content.
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_TO, _IN_CREATE, _IN_NONBLOCK, _IN_CLOEXEC = 0x80, 0x100, 0o4000, 0o2000000
_WATCH_MASK = _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_TO | _IN_CREATE


class Wakeup:
    """Waits for the next look: woken early by inotify where the system has it.

    ``kind`` is ``"inotify"`` or ``"polling"`` (no inotify here, or it failed: out of
    watches, say).
    """

    def __init__(self, use_inotify: bool = True) -> None:
        self._fd = -1
        self._libc: ctypes.CDLL | None = None
        self._watched: set[Path] = set()
        if use_inotify:
            with contextlib.suppress(OSError, AttributeError):
                libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
                fd = int(libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC))
                if fd >= 0:
                    self._fd, self._libc = fd, libc

    @property
    def kind(self) -> str:
        """How the watch is woken."""
        return "inotify" if self._fd >= 0 else "polling"

    def watch(self, folders: Iterable[Path]) -> None:
        """Be woken by changes in these folders too (already watched ones are kept)."""
        if self._libc is None:
            return
        for folder in folders:
            if folder in self._watched:
                continue
            handle = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _WATCH_MASK)
            if handle < 0:
                if ctypes.get_errno() == errno.ENOSPC:  # the user's watches ran out
                    self.close()
                    return
                continue  # gone already, or unreadable: polling still looks
            self._watched.add(folder)

    def wait(self, timeout: float) -> bool:
        """Sleep up to ``timeout`` seconds; True if a change woke it earlier."""
        if self._fd < 0:
            time.sleep(timeout)
            return False
        ready, _, _ = select.select([self._fd], [], [], timeout)
        if not ready:
            return False
        time.sleep(SETTLE_SECONDS)
        self._drain()
        return True

    def _drain(self) -> None:
        with contextlib.suppress(BlockingIOError, InterruptedError):
            while os.read(self._fd, 65536):
                pass

    def close(self) -> None:
        """Stop using inotify (waits become plain sleeps)."""
        if self._fd >= 0:
            os.close(self._fd)
        self._fd, self._libc = -1, None
        self._watched.clear()


Signature = tuple[int, int, int, int]  # size, mtime, and the same of a "-wal" beside it


def _signature(path: Path) -> Signature | None:
    """What says a file changed: its size and mtime, and those of its ``-wal`` file."""
    try:
        status = path.stat()
    except OSError:
        return None
    try:
        wal = Path(f"{path}-wal").stat()
        extra = (wal.st_size, wal.st_mtime_ns)
    except OSError:
        extra = (0, 0)
    return (status.st_size, status.st_mtime_ns, *extra)


@dataclass
class WatchSummary:
    """What a watch did until it stopped."""

    imports: int = 0  # imports that read something
    hands_stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    rejected: int = 0
    retries: int = 0  # imports started over (another writer committed hands, or kept the lock)
    wakeup: str = "polling"
    seconds: float = 0.0
    last_error: str | None = None


@dataclass
class _Files:
    """The files the watch knows: their signature when last read, and at the last look."""

    read: dict[Path, Signature] = field(default_factory=dict)
    looked: dict[Path, Signature | None] = field(default_factory=dict)

    def changed(self, files: Sequence[Path]) -> tuple[list[Path], dict[Path, Signature]]:
        """The files to read now, and their signatures."""
        now = {path: _signature(path) for path in files}
        due, signatures = [], {}
        for path, signature in now.items():
            if signature is None or signature == self.read.get(path):
                continue
            # A CSV sheet's last hand is imported as soon as its line ends: wait until
            # the sheet kept its size for one look, so a hand is not cut between rows.
            if path.suffix.lower() == ".csv" and self.looked.get(path) != signature:
                continue
            due.append(path)
            signatures[path] = signature
        self.looked = now
        return due, signatures


def _find(paths: Sequence[str | Path], warehouse: Warehouse) -> list[Path]:
    """The files the paths name now (a path gone since the start names none)."""
    found: list[Path] = []
    for path in paths:
        with contextlib.suppress(SourceError):
            found.extend(find_files([path], exclude=warehouse.root)[0])
    return list(dict.fromkeys(found))


def _folders(paths: Sequence[str | Path], files: Iterable[Path]) -> set[Path]:
    """The folders whose changes wake the watch: those named, and those holding files."""
    folders = {Path(path).resolve() for path in paths if Path(path).is_dir()}
    folders.update(path.parent for path in files)
    folders.update(Path(path).resolve().parent for path in paths if Path(path).is_file())
    return folders


def watch(paths: Sequence[str | Path], warehouse: Path | str | Warehouse | None = None, *,
          fmt: Format | str = "auto", interval: float = WATCH_INTERVAL,
          on_import: Callable[[IngestSummary], None] | None = None,
          on_retry: Callable[[str], None] | None = None,
          on_start: Callable[[str], None] | None = None,
          stop: threading.Event | None = None, lock_timeout: float = LOCK_TIMEOUT,
          commit_hands: int = WATCH_COMMIT_HANDS, batch_hands: int = READ_BATCH_HANDS,
          use_inotify: bool = True) -> WatchSummary:
    """Import ``paths`` now, then again whenever their files change, until stopped.

    Args:
        paths: files, folders (walked recursively) and globs, as :func:`ingest` takes.
        warehouse: the warehouse (created on first use), or None for the default.
        fmt: ``auto`` or a format to force.
        interval: seconds between looks (inotify wakes the watch sooner).
        on_import: called with each import's summary (an import that read something).
        on_retry: called with the reason when an import starts over.
        on_start: called once the watch runs, with how it is woken (``inotify`` or
            ``polling``).
        stop: set it to end the watch (from another thread); Ctrl-C ends it too.
        lock_timeout: seconds each commit waits for the write lock.
        commit_hands: new hands per commit.
        batch_hands: hands per reader batch.
        use_inotify: False to poll only.

    Returns:
        What the watch did. It returns after the commit in flight when stopped
        (KeyboardInterrupt included): every import is whole or absent.

    Raises:
        SourceError: a path that names nothing when the watch starts.
        WarehouseError: the warehouse is busy when it starts, or invalid.
    """
    started = time.perf_counter()
    find_files(paths)  # every path must name something to start with
    store = (warehouse if isinstance(warehouse, Warehouse)
             else Warehouse.open(warehouse if warehouse is not None else default_warehouse(),
                                 create=True))
    with store.writing(timeout=lock_timeout):
        upgrade_warehouse(store)
        rebuild_hand_keys(store)
    wakeup = Wakeup(use_inotify)
    summary = WatchSummary(wakeup=wakeup.kind)
    known = _Files()
    live: LiveView | None = None
    stop = stop or threading.Event()
    if on_start is not None:
        on_start(wakeup.kind)
    try:
        while not stop.is_set():
            files = _find(paths, store)
            wakeup.watch(_folders(paths, files))
            due, signatures = known.changed(files)
            if due:
                try:
                    live = live or LiveView.load(store, lock_timeout)
                    result = ingest_live(store, due, live, fmt=fmt, commit_hands=commit_hands,
                                         batch_hands=batch_hands)
                except (ConcurrentIngestError, WarehouseLockedError,
                        FileNotFoundError) as error:
                    # Another writer committed, kept the lock, or merged away a file being
                    # read: what the watch knew of the stored hands may be stale. Reload.
                    live = None
                    summary.retries += 1
                    summary.last_error = str(error)
                    if on_retry is not None:
                        on_retry(str(error))
                else:
                    known.read.update(signatures)
                    if result.files_read or result.rejected or result.conflicts:
                        _add(summary, result)
                        if on_import is not None:
                            on_import(result)
            summary.wakeup = wakeup.kind
            if not stop.is_set():
                wakeup.wait(interval)
    except KeyboardInterrupt:
        pass  # the import in flight was closed (whole or absent) on the way out
    finally:
        wakeup.close()
        summary.seconds = time.perf_counter() - started
    return summary


def _add(summary: WatchSummary, result: IngestSummary) -> None:
    summary.imports += 1
    summary.hands_stored += result.hands_stored
    summary.duplicates += result.duplicates
    summary.conflicts += result.conflicts
    summary.rejected += result.rejected


def import_line(result: IngestSummary, at: dt.datetime | None = None) -> str:
    """One line for an import: when, what was read and what became of it."""
    at = at or dt.datetime.now()
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(
        result.problems_by_kind.items(), key=lambda item: -item[1]) if kind != "conflict")
    problems = f": {kinds}" if kinds else ""
    return (f"{at:%H:%M:%S} imported {counted(result.hands_stored, 'new hand')} from "
            f"{counted(result.files_read, 'file')} ({counted(result.duplicates, 'duplicate')}, "
            f"{counted(result.conflicts, 'conflict')}, {result.rejected:,} set aside"
            f"{problems}) in {result.seconds:.2f} s")
