"""The Parquet warehouse: layout, atomic commits, a commit log, locking, compaction.

A warehouse is a folder of Parquet datasets (``hands/``, ``seats/``, ...), one
sub-folder per table, optionally split by a partition value (``player_hands/
scoring=pineapple/``). Which files make up a table is decided by the commit log
in ``_log/``: each commit is one small JSON file naming the files it adds and
removes, written last and atomically. So

- a Parquet file is written under a temporary name, flushed and renamed into place
  before any commit names it: no reader ever sees half a file;
- a commit is all-or-nothing: a kill before its log file is renamed into place
  leaves only unreferenced files, which the next writer deletes;
- readers build the table's file list from the log, never from a folder listing.

Only one process writes at a time: :meth:`Warehouse.writing` takes an exclusive
lock on ``.lock``, waiting up to a timeout, then failing with a clear message.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ofc_stats.errors import OfcStatsError

ENV_WAREHOUSE = "OFC_STATS_WAREHOUSE"
DEFAULT_WAREHOUSE = Path("warehouse")
LOG_DIR = "_log"
LOCK_FILE = ".lock"
CHECKPOINT_EVERY = 100  # commits between checkpoints of the full file list
LOG_FORMAT = 1


class WarehouseError(OfcStatsError):
    """The warehouse is missing, locked by another writer, or inconsistent."""


class WarehouseLockedError(WarehouseError):
    """Another process holds the warehouse's write lock."""

    exit_code = 3


def default_warehouse() -> Path:
    """``$OFC_STATS_WAREHOUSE`` if set, else ``./warehouse``."""
    return Path(os.environ.get(ENV_WAREHOUSE, str(DEFAULT_WAREHOUSE)))


@dataclass(frozen=True)
class TableFile:
    """One committed Parquet file of a table."""

    table: str
    path: str  # relative to the warehouse root, with "/" separators
    partition: str | None
    rows: int


@dataclass
class WarehouseState:
    """The committed contents of a warehouse: the files of every table."""

    commit: int = 0
    files: dict[str, TableFile] = field(default_factory=dict)  # by path

    def table_files(self, table: str, partition: str | None = None) -> list[TableFile]:
        """Files of ``table`` (of one partition, if given), in commit order."""
        return [f for f in self.files.values() if f.table == table
                and (partition is None or f.partition == partition)]

    def partitions(self, table: str) -> list[str]:
        """Partition values present in ``table``."""
        return sorted({f.partition for f in self.files.values()
                       if f.table == table and f.partition is not None})

    def apply(self, commit: Mapping[str, Any]) -> None:
        """Replay one commit record."""
        for path in commit.get("remove", []):
            self.files.pop(path, None)
        for entry in commit.get("add", []):
            self.files[entry["path"]] = TableFile(
                entry["table"], entry["path"], entry.get("partition"), int(entry["rows"]))
        self.commit = int(commit["id"])


def _fsync_directory(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every filesystem allows it
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` is either absent or complete."""
    temporary = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    _fsync_directory(path.parent)


# zstd at its fastest level: twice as fast to write as the default level, files ~30%
# larger; the warehouse is written once and read often, by DuckDB mostly.
PARQUET_COMPRESSION_LEVEL = 1


# Tables the scorer writes at millions of rows a second: their min/max statistics cost
# a fifth of the write and rarely prune (their files are not sorted by what queries
# filter on); null counts are kept.
WITHOUT_RANGE_STATISTICS = frozenset({"player_hands", "matchups"})


def atomic_write_parquet(frame: pl.DataFrame, path: Path, *,
                         range_statistics: bool = True) -> None:
    """Write ``frame`` as Parquet (zstd) under a temporary name, then rename it."""
    temporary = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    statistics: bool | dict[str, bool] = True if range_statistics else {
        "min": False, "max": False, "distinct_count": False, "null_count": True}
    frame.write_parquet(temporary, compression="zstd",
                        compression_level=PARQUET_COMPRESSION_LEVEL, statistics=statistics)
    with open(temporary, "rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, path)


@dataclass(frozen=True)
class PendingFile:
    """A frame to add to a table in the next commit."""

    table: str
    frame: pl.DataFrame
    partition: str | None = None

    def write(self, path: Path) -> None:
        """Write the frame to ``path`` as a file of its table."""
        atomic_write_parquet(self.frame, path,
                             range_statistics=self.table not in WITHOUT_RANGE_STATISTICS)


@dataclass(frozen=True)
class StagedFile:
    """A file written by :meth:`Warehouse.stage`, not yet committed."""

    table: str
    path: str
    partition: str | None
    rows: int


class Warehouse:
    """A warehouse folder. Read with :meth:`scan`; write inside :meth:`writing`."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._lock_handle: Any = None

    # -- opening ------------------------------------------------------------------

    @classmethod
    def open(cls, root: Path | str | None = None, *, create: bool = False) -> Warehouse:
        """Open a warehouse; create the folder on first use when ``create``.

        Raises:
            WarehouseError: the folder does not exist (and ``create`` is false), or it
                is not a warehouse.
        """
        warehouse = cls(root if root is not None else default_warehouse())
        log = warehouse.root / LOG_DIR
        if not log.is_dir():
            if not create:
                raise WarehouseError(
                    f"no warehouse at {warehouse.root} (run 'ofc-stats ingest' first)")
            if warehouse.root.exists() and any(
                    p for p in warehouse.root.iterdir() if not p.name.startswith(".")):
                raise WarehouseError(
                    f"{warehouse.root} exists and is not an ofc-stats warehouse")
            log.mkdir(parents=True, exist_ok=True)
        return warehouse

    # -- reading ------------------------------------------------------------------

    def state(self) -> WarehouseState:
        """The committed state, replayed from the latest checkpoint and later commits."""
        log = self.root / LOG_DIR
        # A writer killed mid-commit leaves a ".tmp-..." log file: never a commit.
        names = sorted(p.name for p in log.glob("[0-9]*.json"))
        checkpoints = [n for n in names if n.endswith(".checkpoint.json")]
        state = WarehouseState()
        start = 0
        if checkpoints:
            data = json.loads((log / checkpoints[-1]).read_text())
            for entry in data["files"]:
                state.files[entry["path"]] = TableFile(
                    entry["table"], entry["path"], entry.get("partition"), int(entry["rows"]))
            state.commit = start = int(data["id"])
        for name in names:
            if name.endswith(".checkpoint.json"):
                continue
            commit_id = int(name.split(".")[0])
            if commit_id > start:
                state.apply(json.loads((log / name).read_text()))
        return state

    def files(self, table: str, partition: str | None = None) -> list[Path]:
        """Absolute paths of the committed files of a table."""
        return [self.root / f.path for f in self.state().table_files(table, partition)]

    def scan(self, table: str, partition: str | None = None,
             schema: pl.Schema | None = None) -> pl.LazyFrame:
        """The committed rows of a table as a lazy frame (empty with ``schema`` if none)."""
        paths = self.files(table, partition)
        if not paths:
            return (schema or pl.Schema()).to_frame().lazy()
        return pl.scan_parquet(paths)

    def commits(self) -> list[dict[str, Any]]:
        """Every commit record still in the log, oldest first (for `ofc-stats` status)."""
        log = self.root / LOG_DIR
        return [json.loads(p.read_text()) for p in sorted(log.glob("[0-9]*.json"))
                if not p.name.endswith(".checkpoint.json")]

    # -- writing ------------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self, timeout: float = 30.0) -> Iterator[Warehouse]:
        """Hold the exclusive write lock (waiting up to ``timeout`` seconds).

        On entry, files left by an interrupted writer (never committed) are removed.

        Raises:
            WarehouseLockedError: another process kept the lock for ``timeout`` seconds.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        handle = open(self.root / LOCK_FILE, "a+")  # noqa: SIM115 - held for the block
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
                        f"warehouse {self.root} is busy: another ofc-stats process "
                        f"({holder or 'unknown'}) is writing; try again when it finishes"
                    ) from None
                time.sleep(0.1)
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        self._lock_handle = handle
        try:
            self.remove_orphans()
            yield self
        finally:
            self._lock_handle = None
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()

    def _require_lock(self) -> None:
        if self._lock_handle is None:
            raise WarehouseError("internal: writing to the warehouse without its lock")

    def remove_orphans(self) -> list[Path]:
        """Delete Parquet and temporary files that no commit references."""
        self._require_lock()
        referenced = {self.root / path for path in self.state().files}
        removed = []
        for path in self.root.rglob("*"):
            if not path.is_file() or LOG_DIR in path.relative_to(self.root).parts[:1]:
                continue
            if path.name.startswith(".tmp-") or (path.suffix == ".parquet"
                                                 and path not in referenced):
                path.unlink(missing_ok=True)
                removed.append(path)
        for temporary in (self.root / LOG_DIR).glob(".tmp-*"):
            temporary.unlink(missing_ok=True)
        return removed

    def new_path(self, table: str, partition: str | None = None) -> Path:
        """A fresh file name in a table's folder, for a file written by another engine
        (DuckDB ``COPY``); write it under a ``.tmp-`` name and rename it there, then
        :meth:`adopt` it."""
        folder = self.root / table
        if partition is not None:
            folder = folder / partition_folder(partition)
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{uuid.uuid4().hex}.parquet"

    def adopt(self, table: str, path: Path, rows: int, partition: str | None = None
              ) -> StagedFile:
        """A complete file at ``path`` (from :meth:`new_path`) as a staged file."""
        self._require_lock()
        return StagedFile(table, path.relative_to(self.root).as_posix(), partition, rows)

    def stage(self, pending: PendingFile) -> StagedFile | None:
        """Write one file now, to be named by a later :meth:`commit` (``staged=``).

        Until that commit the file is invisible, and an orphan if the writer dies.
        Lets a long job write many files with bounded memory and commit them at once.
        """
        self._require_lock()
        if pending.frame.is_empty():
            return None
        path = self.new_path(pending.table, pending.partition)
        pending.write(path)
        return StagedFile(pending.table, path.relative_to(self.root).as_posix(),
                          pending.partition, pending.frame.height)

    def commit(self, adds: Sequence[PendingFile], removes: Sequence[Path | str] = (),
               *, action: str, meta: Mapping[str, Any] | None = None,
               staged: Sequence[StagedFile] = ()) -> int:
        """Write ``adds`` as new Parquet files and commit them, the ``staged`` files and
        the ``removes`` at once.

        Returns:
            The new commit's id.
        """
        self._require_lock()
        state = self.state()
        commit_id = state.commit + 1
        token = uuid.uuid4().hex[:8]
        added = [{"table": f.table, "partition": f.partition, "path": f.path, "rows": f.rows}
                 for f in staged]
        for number, pending in enumerate(adds):
            if pending.frame.is_empty():
                continue
            folder = self.root / pending.table
            if pending.partition is not None:
                folder = folder / partition_folder(pending.partition)
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{commit_id:09d}-{token}-{number:04d}.parquet"
            pending.write(path)
            added.append({"table": pending.table, "partition": pending.partition,
                          "path": path.relative_to(self.root).as_posix(),
                          "rows": pending.frame.height})
        removed = [Path(p).relative_to(self.root).as_posix() if Path(p).is_absolute()
                   else str(p) for p in removes]
        record = {"format": LOG_FORMAT, "id": commit_id, "action": action,
                  "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                  "add": added, "remove": removed, "meta": dict(meta or {})}
        log = self.root / LOG_DIR
        atomic_write_bytes(log / f"{commit_id:012d}.json",
                           json.dumps(record, indent=1, default=str).encode())
        if commit_id % CHECKPOINT_EVERY == 0:
            self._checkpoint(commit_id)
        # Removed files stay on disk until the next writer's orphan sweep, so a reader
        # that listed them a moment ago can still finish.
        return commit_id

    def _checkpoint(self, commit_id: int) -> None:
        state = self.state()
        files = [{"table": f.table, "path": f.path, "partition": f.partition, "rows": f.rows}
                 for f in state.files.values()]
        atomic_write_bytes(self.root / LOG_DIR / f"{commit_id:012d}.checkpoint.json",
                           json.dumps({"id": commit_id, "files": files}).encode())

    def compact(self, table: str, *, target_rows: int = 2_000_000,
                small_rows: int = 200_000) -> int:
        """Merge a table's small files (per partition) into files of ~``target_rows``.

        Returns:
            How many files were merged away (0: nothing to do).
        """
        self._require_lock()
        state = self.state()
        partitions: list[str | None] = [None, *state.partitions(table)]
        adds: list[PendingFile] = []
        removes: list[str] = []
        for partition in partitions:
            small = [f for f in state.table_files(table, partition)
                     if f.rows < small_rows and f.partition == partition]
            if len(small) < 2:
                continue
            group: list[TableFile] = []
            for table_file in [*small, None]:
                if table_file is not None:
                    group.append(table_file)
                full = sum(f.rows for f in group) >= target_rows
                if group and (full or table_file is None) and len(group) > 1:
                    frame = pl.read_parquet([self.root / f.path for f in group])
                    adds.append(PendingFile(table, frame, partition))
                    removes.extend(f.path for f in group)
                    group = []
                elif full:
                    group = []
        if not removes:
            return 0
        self.commit(adds, removes, action="compact", meta={"table": table})
        return len(removes)


def partition_folder(value: str) -> str:
    """The folder name of a partition value (``scoring=<value>``, made path-safe)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in value)
    return f"scoring={safe}"
