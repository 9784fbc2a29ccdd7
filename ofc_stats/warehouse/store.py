"""The Parquet warehouse: its layout, and :class:`Warehouse`, the way to read and write it.

A warehouse is a folder of Parquet datasets (``hands/``, ``seats/``, ...), one
sub-folder per table, optionally split by a partition value (``player_hands/
scoring=pineapple/``). Which files make up a table is decided by the commit log
in ``_log/``: each commit is one small JSON file naming the files it adds and
removes, created last and exclusively. So

- a Parquet file is written under a temporary name, flushed and renamed into place
  before any commit names it: no reader ever sees half a file;
- a commit is all-or-nothing: a kill before its log entry exists leaves only
  unreferenced files, which the next writer sets aside in ``_quarantine/``;
- a commit is a compare-and-swap: it is made only as the next commit after the last
  one its writer saw, and only while the writer's lock is still its own, so two
  writers can never write two histories (the second is refused);
- readers build the table's file list from the log, never from a folder listing;
- a file is deleted only once the log says it was removed, and a day after that
  (``KEEP_REMOVED_SECONDS``), so that a DuckDB session opened on an earlier state
  can still read it.

Only one process writes at a time: :meth:`Warehouse.writing` takes an exclusive
lock on ``.lock``, waiting up to a timeout, then failing with a clear message. The
parts: atomic files (:mod:`~ofc_stats.warehouse.files`), the commit log
(:mod:`~ofc_stats.warehouse.log`), the lock (:mod:`~ofc_stats.warehouse.lock`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ofc_stats.warehouse.errors import (
    WarehouseConflictError,
    WarehouseDamagedError,
    WarehouseError,
)
from ofc_stats.warehouse.files import atomic_write_parquet, parquet_problem
from ofc_stats.warehouse.lock import WriteLock, write_lock
from ofc_stats.warehouse.log import (
    LOG_DIR,
    LOG_FORMAT,
    TableFile,
    WarehouseState,
    load_entry,
    log_names,
    read_commits,
    read_commits_after,
    read_history,
    read_state,
    state_digest,
    write_checkpoint,
    write_commit,
)
from ofc_stats.warehouse.schemas import TABLE_SCHEMAS

ENV_WAREHOUSE = "OFC_STATS_WAREHOUSE"
DEFAULT_WAREHOUSE = Path("warehouse")
QUARANTINE_DIR = "_quarantine"  # files no commit names, set aside (never deleted)
# Per scoring, what ``score`` has scored (ofc_stats.analysis.score keeps it).
SCORINGS_FILE = "scorings.json"
# A file a commit removed (compacted away, rescored) is deleted this long after.
KEEP_REMOVED_SECONDS = 24 * 3600


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
        self._lock: WriteLock | None = None
        self._head = 0

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
        """The committed state, replayed from the latest checkpoint and later commits.

        Raises:
            WarehouseDamagedError: the log cannot be read (naming the entry).
        """
        return read_state(self.root)

    def files(self, table: str, partition: str | None = None) -> list[Path]:
        """Absolute paths of the committed files of a table.

        Raises:
            WarehouseDamagedError: a file the log names is not there.
        """
        paths = [self.root / f.path for f in self.state().table_files(table, partition)]
        for path in paths:
            if not path.is_file():
                raise WarehouseDamagedError(f"{path} is missing", str(path))
        return paths

    def scan(self, table: str, partition: str | None = None,
             schema: pl.Schema | None = None) -> pl.LazyFrame:
        """The committed rows of a table as a lazy frame (empty with ``schema`` if none)."""
        paths = self.files(table, partition)
        if not paths:
            return (schema or pl.Schema()).to_frame().lazy()
        return pl.scan_parquet(paths)

    def require_whole(self, state: WarehouseState | None = None) -> None:
        """Check, cheaply, that every file the log names is there and looks like
        Parquet (its marks at both ends): the commands do before they read or write,
        so that a damaged warehouse says so, naming the file, instead of a wrong
        number or a library's error (``ofc-stats check`` looks closer).

        Raises:
            WarehouseDamagedError: the log cannot be read, or a file is missing or
                damaged.
        """
        state = state if state is not None else self.state()
        for table_file in state.files.values():
            path = self.root / table_file.path
            problem = parquet_problem(path, footer=False)
            if problem is not None:
                raise WarehouseDamagedError(f"{path} {problem}", str(path))

    def commits(self) -> list[dict[str, Any]]:
        """Every commit record still in the log, oldest first (for `ofc-stats` status)."""
        return read_commits(self.root)

    def commits_after(self, commit_id: int) -> list[dict[str, Any]]:
        """The commit records after ``commit_id``, oldest first."""
        return read_commits_after(self.root, commit_id)

    # -- writing ------------------------------------------------------------------

    @contextlib.contextmanager
    def writing(self, timeout: float = 30.0, *, prepare: bool = True) -> Iterator[Warehouse]:
        """Hold the exclusive write lock (waiting up to ``timeout`` seconds).

        On entry (``prepare``), a checkpoint the log disagrees with is written again,
        and files left by an interrupted writer are swept (:meth:`sweep`). Without
        ``prepare`` (``repair``, on a log that may not read), nothing is read:
        :meth:`adopt_head` says where the log stands.

        Raises:
            WarehouseLockedError: another process kept the lock for ``timeout`` seconds.
            WarehouseDamagedError: the log cannot be read, or a file it names is missing.
        """
        with write_lock(self.root, timeout) as lock:
            self._lock = lock
            try:
                if prepare:
                    state = self.state()
                    self._head = state.commit
                    self.require_whole(state)
                    if state.notes:
                        self.mend_checkpoints()
                    self.sweep()
                yield self
            finally:
                self._lock = None

    @property
    def head(self) -> int:
        """The last commit this writer saw or made."""
        return self._head

    def adopt_head(self, commit: int) -> None:
        """Take ``commit`` as the last commit (``repair``, which reads the log itself)."""
        self._require_lock()
        self._head = commit

    def _require_lock(self) -> WriteLock:
        if self._lock is None:
            raise WarehouseError("internal: writing to the warehouse without its lock")
        return self._lock

    def mend_checkpoints(self) -> list[int]:
        """Write again every checkpoint that cannot be read or disagrees with the log
        (the log, replayed, is the truth); returns their ids."""
        self._require_lock()
        commits, checkpoints = log_names(self.root)
        state = WarehouseState()
        mended = []
        for commit_id in sorted(commits):
            state.apply(load_entry(self.root, commits[commit_id]))
            if commit_id in checkpoints:
                listed = _checkpoint_files(self.root, checkpoints[commit_id])
                if listed is None or state_digest(listed) != state.digest():
                    write_checkpoint(self.root, commit_id, state)
                    mended.append(commit_id)
        return mended

    def sweep(self) -> Sweep:
        """Set aside what no commit holds: files the log never named (an interrupted
        writer's) go to ``_quarantine/``, never deleted; files a commit removed are
        deleted once ``KEEP_REMOVED_SECONDS`` have passed since; half-written
        ``.tmp-`` files are deleted."""
        self._require_lock()
        history = read_history(self.root)
        if set(self.state().files) != set(history.live):
            # A checkpoint that the log disagrees with, in a log that records no
            # digests to catch it (written by an earlier version): the log is the truth.
            self.mend_checkpoints()
        referenced = set(history.live)
        now = time.time()
        swept = Sweep()
        for table in TABLE_SCHEMAS:
            folder = self.root / table
            if not folder.is_dir():
                continue
            for path in sorted(folder.rglob("*")):
                if not path.is_file() or path.is_symlink():
                    continue
                relative = path.relative_to(self.root).as_posix()
                if path.name.startswith(".tmp-"):
                    path.unlink(missing_ok=True)
                    swept.deleted.append(relative)
                elif relative in referenced or path.suffix != ".parquet":
                    continue
                elif relative in history.removed:
                    if now - history.removed[relative] >= KEEP_REMOVED_SECONDS:
                        path.unlink(missing_ok=True)
                        swept.deleted.append(relative)
                    else:
                        swept.kept.append(relative)
                elif relative not in history.named:
                    swept.quarantined.append(self.quarantine(path))
        for folder in (self.root, self.root / LOG_DIR):
            for temporary in folder.glob(".tmp-*"):
                if temporary.is_file():
                    temporary.unlink(missing_ok=True)
        return swept

    def quarantine(self, path: Path) -> str:
        """Move a file of the warehouse into ``_quarantine/`` (same relative path; a
        number added if one is there already); returns where it went, relative."""
        relative = path.relative_to(self.root)
        target = self.root / QUARANTINE_DIR / relative
        number = 1
        while target.exists():
            target = self.root / QUARANTINE_DIR / relative.with_name(
                f"{relative.name}.{number}")
            number += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(path, target)
        except OSError:  # another file system: copy, then remove
            shutil.copy2(path, target)
            path.unlink()
        return target.relative_to(self.root).as_posix()

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
               staged: Sequence[StagedFile] = (), commit_id: int | None = None) -> int:
        """Write ``adds`` as new Parquet files and commit them, the ``staged`` files and
        the ``removes`` at once, as the commit after :attr:`head` (``commit_id``, if
        given, must be that one).

        Returns:
            The new commit's id.

        Raises:
            WarehouseLockLostError: the write lock is no longer this process's.
            WarehouseConflictError: another process committed since this one last did.
        """
        lock = self._require_lock()
        lock.verify()
        state = self.state()
        if state.commit != self._head:
            raise self._conflict(state.commit)
        new_id = self._head + 1
        if commit_id is not None and commit_id != new_id:
            raise WarehouseError(f"internal: commit {commit_id} asked for, {new_id} is next")
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
            path = folder / f"{new_id:09d}-{token}-{number:04d}.parquet"
            pending.write(path)
            added.append({"table": pending.table, "partition": pending.partition,
                          "path": path.relative_to(self.root).as_posix(),
                          "rows": pending.frame.height})
        removed = [Path(p).relative_to(self.root).as_posix() if Path(p).is_absolute()
                   else str(p) for p in removes]
        record: dict[str, Any] = {
            "format": LOG_FORMAT, "id": new_id, "action": action,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "add": added, "remove": removed, "meta": dict(meta or {})}
        after = WarehouseState(state.commit, dict(state.files))
        after.apply(record)
        record["state"] = after.digest()
        lock.verify()  # once more, right before the swap
        try:
            write_commit(self.root, record)
        except FileExistsError:
            raise self._conflict(new_id) from None
        self._head = new_id
        # Removed files stay on disk a day (KEEP_REMOVED_SECONDS), so a reader that
        # listed them a moment ago, or a DuckDB session on ofc.duckdb, can still finish.
        return new_id

    def _conflict(self, found: int) -> WarehouseConflictError:
        return WarehouseConflictError(
            f"another process committed to warehouse {self.root} (commit {found}) while "
            f"this one was writing after commit {self._head}: this commit was refused and "
            "nothing of it is in the warehouse (what was committed before is whole). Run "
            "again once no other ofc-stats process is writing, and 'ofc-stats check'")

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


@dataclass
class Sweep:
    """What :meth:`Warehouse.sweep` did (paths relative to the warehouse)."""

    deleted: list[str] = field(default_factory=list)
    quarantined: list[str] = field(default_factory=list)  # where each went
    kept: list[str] = field(default_factory=list)  # removed, kept for readers a while


def _checkpoint_files(root: Path, name: str) -> list[TableFile] | None:
    """The files a checkpoint lists; None if it cannot be read."""
    try:
        return [TableFile(e["table"], e["path"], e.get("partition"), int(e["rows"]))
                for e in load_entry(root, name)["files"]]
    except (WarehouseDamagedError, KeyError, TypeError, ValueError):
        return None


def partition_folder(value: str) -> str:
    """The folder name of a partition value (``scoring=<value>``, made path-safe)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in value)
    return f"scoring={safe}"
