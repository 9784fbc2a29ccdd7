"""The commit protocol: what ingest has accepted goes into the warehouse in whole commits.

A commit holds the new hands, seats, streets, rejects and hand keys accepted since
the last one and the manifest rows of every file touched, all at once
(:meth:`ofc_stats.warehouse.Warehouse.commit`), so a kill at any moment leaves whole
commits and a manifest that says how far each file got. One is due every
``commit_hands`` new hands or ``COMMIT_BYTES`` of pending frames (what a kill can lose
at most, and what memory holds). Its Parquet files are written on a thread while the
next batches are read; commits are written one at a time, in order, and the manifest
rows name the commit they are in.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ofc_stats.ingest.errors import IngestError
from ofc_stats.ingest.manifest import FileRun, imports_frame
from ofc_stats.warehouse import PendingFile, Warehouse
from ofc_stats.warehouse.schemas import (
    HAND_KEYS_SCHEMA,
    HANDS_SCHEMA,
    IMPORTS_SCHEMA,
    PROBLEMS_SCHEMA,
    SEATS_SCHEMA,
    STREETS_SCHEMA,
)

COMMIT_HANDS = 25_000  # hands per commit: bounds memory and what a kill can lose
COMMIT_BYTES = 96 * 1024 * 1024  # or this much pending data, whichever comes first
COMPACT_SMALL_FILES = 16  # compact a table once it has this many small files...
COMPACT_SMALL_ROWS = 200_000  # ...of fewer rows than this,
COMPACT_TARGET_ROWS = 1_000_000  # into files of about this many (bounds its memory)

TABLES = ("hands", "seats", "streets", "rejects", "hand_keys", "imports")


@dataclass
class PendingFrames:
    """Frames waiting for the next commit."""

    hands: list[pl.DataFrame] = field(default_factory=list)
    seats: list[pl.DataFrame] = field(default_factory=list)
    streets: list[pl.DataFrame] = field(default_factory=list)
    rejects: list[pl.DataFrame] = field(default_factory=list)
    keys: list[pl.DataFrame] = field(default_factory=list)
    hand_count: int = 0
    size: int = 0

    def add(self, hands: pl.DataFrame, seats: pl.DataFrame, streets: pl.DataFrame,
            keys: pl.DataFrame) -> None:
        """Queue new hands with their seats, streets and hand_keys rows."""
        self.hands.append(hands)
        self.seats.append(seats)
        self.streets.append(streets)
        self.keys.append(keys)
        self.hand_count += hands.height
        self.size += int(hands.estimated_size() + seats.estimated_size()
                         + streets.estimated_size())

    def clear(self) -> None:
        """Forget every frame (they are being committed)."""
        for frames in (self.hands, self.seats, self.streets, self.rejects, self.keys):
            frames.clear()
        self.hand_count = self.size = 0


class ConcurrentIngestError(IngestError):
    """Another process stored hands since this run looked at the warehouse: what this
    run read was sorted against a stale list of stored hands, so it is not committed
    (the files are read again from where their committed imports stopped)."""


class Committer:
    """Commits a run's pending frames in the background, one commit at a time.

    By default the caller holds the warehouse's write lock for the whole run. With
    ``lock_timeout`` the committer takes the lock for each commit only (a watch: other
    commands may write in between). It then commits only if no other ingest committed
    since ``seen_commit`` (the commit the run's view of stored hands reflects), raising
    :class:`ConcurrentIngestError` otherwise; other writers' commits (scores,
    compactions) are fine.
    """

    def __init__(self, warehouse: Warehouse, commit_hands: int = COMMIT_HANDS, *,
                 lock_timeout: float | None = None, seen_commit: int | None = None) -> None:
        self.warehouse = warehouse
        self.commit_hands = commit_hands
        self.import_id = uuid.uuid4().hex
        self.pending = PendingFrames()
        self.commits = 0
        self.lock_timeout = lock_timeout
        self.seen_commit = warehouse.state().commit if seen_commit is None else seen_commit
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ofc-commit")
        self.in_flight: Future[None] | None = None
        # The hands of the commit being written: stored, for dedupe, not yet readable.
        self.in_flight_hands: list[pl.DataFrame] = []

    def due(self) -> bool:
        """Whether enough hands or bytes are pending for a commit."""
        return (self.pending.hand_count >= self.commit_hands
                or self.pending.size >= COMMIT_BYTES)

    def commit(self, runs: Sequence[FileRun]) -> bool:
        """Commit the pending frames and the manifest rows of every file touched
        (``runs`` whose ``dirty`` is set); False if there was nothing to commit.

        The Parquet files are written by a background thread while the next batches
        are read; one commit at a time, in order (the previous one is waited for first).
        """
        dirty = [run for run in runs if run.dirty]
        if not dirty and self.pending.hand_count == 0 and not self.pending.rejects:
            return False
        self.wait()
        now = dt.datetime.now(dt.UTC)
        # The commit's id is known once the lock is held: rows say 0 until then.
        imports = imports_frame([run.manifest_row(self.import_id, 0, now) for run in dirty])
        frames = {"hands": (list(self.pending.hands), HANDS_SCHEMA),
                  "seats": (list(self.pending.seats), SEATS_SCHEMA),
                  "streets": (list(self.pending.streets), STREETS_SCHEMA),
                  "rejects": (list(self.pending.rejects), PROBLEMS_SCHEMA),
                  "hand_keys": (list(self.pending.keys), HAND_KEYS_SCHEMA),
                  "imports": ([imports], IMPORTS_SCHEMA)}
        meta = {"import_id": self.import_id, "hands": self.pending.hand_count,
                "files": [run.source.name for run in dirty]}
        self.in_flight_hands = frames["hands"][0]
        self.in_flight = self._writer.submit(self._write, frames, meta)
        self.commits += 1
        for run in dirty:
            run.written()
        self.pending.clear()
        return True

    def _write(self, frames: dict[str, tuple[list[pl.DataFrame], pl.Schema]],
               meta: dict[str, Any]) -> None:
        if self.lock_timeout is None:
            self._commit_locked(frames, meta)
            return
        with self.warehouse.writing(timeout=self.lock_timeout):
            foreign = [record["id"] for record in self.warehouse.commits_after(self.seen_commit)
                       if record.get("action") == "ingest"
                       and record.get("meta", {}).get("import_id") != self.import_id]
            if foreign:
                raise ConcurrentIngestError(
                    f"another ingest committed hands meanwhile (commit {foreign[0]}): "
                    "reading again")
            self._commit_locked(frames, meta)

    def _commit_locked(self, frames: dict[str, tuple[list[pl.DataFrame], pl.Schema]],
                       meta: dict[str, Any]) -> None:
        # The next after the last commit this writer saw (under a lock held for the whole
        # run, the last it made): any other commit in between refuses this one.
        expected = self.warehouse.head + 1
        parts, schema = frames["imports"]
        frames["imports"] = ([frame.with_columns(pl.lit(expected, pl.Int64).alias("commit_id"))
                              for frame in parts], schema)
        adds = [PendingFile(table, _concat(parts, schema))
                for table, (parts, schema) in frames.items()]
        # The manifest rows name the commit: it is made as that one, or refused.
        self.seen_commit = self.warehouse.commit(adds, action="ingest", meta=meta,
                                                 commit_id=expected)

    def wait(self) -> None:
        """Wait for the commit being written (re-raising its error, if any)."""
        if self.in_flight is not None:
            future, self.in_flight = self.in_flight, None
            future.result()
            self.in_flight_hands = []

    def close(self) -> None:
        """Stop the writer thread (after the commit in flight, if any, is written)."""
        self._writer.shutdown(wait=True)


def compact_tables(warehouse: Warehouse) -> int:
    """Merge the small files of tables that have accumulated many (after a run)."""
    merged = 0
    for table in TABLES:
        small = [f for f in warehouse.state().table_files(table)
                 if f.rows < COMPACT_SMALL_ROWS]
        if len(small) >= COMPACT_SMALL_FILES:
            merged += warehouse.compact(table, target_rows=COMPACT_TARGET_ROWS,
                                        small_rows=COMPACT_SMALL_ROWS)
    return merged


def _concat(frames: list[pl.DataFrame], schema: pl.Schema) -> pl.DataFrame:
    # No rechunk: the Parquet writer takes the chunks as they are, without a copy.
    return pl.concat(frames, how="vertical", rechunk=False) if frames else schema.to_frame()
