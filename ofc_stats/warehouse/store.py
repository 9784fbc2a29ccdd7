"""The Parquet warehouse: its layout, and :class:`Warehouse`, the way to read and write it.

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
lock on ``.lock``, waiting up to a timeout, then failing with a clear message. The
parts: atomic files (:mod:`~ofc_stats.warehouse.files`), the commit log
(:mod:`~ofc_stats.warehouse.log`), the lock (:mod:`~ofc_stats.warehouse.lock`).
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ofc_stats.warehouse.errors import WarehouseError
from ofc_stats.warehouse.files import atomic_write_parquet
from ofc_stats.warehouse.lock import write_lock
from ofc_stats.warehouse.log import (
    LOG_DIR,
    LOG_FORMAT,
    TableFile,
    WarehouseState,
    read_commits,
    read_commits_after,
    read_state,
    write_commit,
)

ENV_WAREHOUSE = "OFC_STATS_WAREHOUSE"
DEFAULT_WAREHOUSE = Path("warehouse")


def default_warehouse() -> Path:
    """``$OFC_STATS_WAREHOUSE`` if set, else ``./warehouse``."""
    return Path(os.environ.get(ENV_WAREHOUSE, str(DEFAULT_WAREHOUSE)))


# Tables the scorer writes at millions of rows a second: their min/max statistics cost
# a fifth of the write and rarely prune (their files are not sorted by what queries
# filter on); null counts are kept.
WITHOUT_RANGE_STATISTICS = frozenset({"player_hands", "matchups"})


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
        self._locked = False

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
        return read_state(self.root)

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
        return read_commits(self.root)

    def commits_after(self, commit_id: int) -> list[dict[str, Any]]:
        """The commit records after ``commit_id``, oldest first."""
        return read_commits_after(self.root, commit_id)

    # -- writing ------------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self, timeout: float = 30.0) -> Iterator[Warehouse]:
        """Hold the exclusive write lock (waiting up to ``timeout`` seconds).

        On entry, files left by an interrupted writer (never committed) are removed.

        Raises:
            WarehouseLockedError: another process kept the lock for ``timeout`` seconds.
        """
        with write_lock(self.root, timeout):
            self._locked = True
            try:
                self.remove_orphans()
                yield self
            finally:
                self._locked = False

    def _require_lock(self) -> None:
        if not self._locked:
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
        write_commit(self.root, record)
        # Removed files stay on disk until the next writer's orphan sweep, so a reader
        # that listed them a moment ago can still finish.
        return commit_id

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
