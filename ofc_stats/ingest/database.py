"""Importing fpdb-3's SQLite database: only the rows added since the last import.

A database is told by its first bytes (:attr:`Source.database
<ofc_stats.ingest.sources.Source.database>`) and read in place by
:func:`~ofc_stats.formats.fpdb_database.read_database`, never as a stream. Its
manifest rows count ``HttpOFCHands`` ids, not bytes: ``end_offset`` is the highest
``id`` imported (the high-water mark) and ``content_hash`` the SHA-256 of that row's
``rawJson``. The next import reads the rows above the mark, once the row at the mark
is checked to be the one imported (a database replaced by another, whose ids start
again, is read from the start: its hands already stored count as duplicates). The
size and modification time say nothing here (a WAL-mode database grows in its
``-wal`` file first), so the database itself is asked whether it has new rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from ofc_stats.formats.fpdb_database import (
    connect_read_only,
    high_water,
    read_database,
    row_digest,
)
from ofc_stats.ingest.manifest import FileRun, ImportStatus, LastImport
from ofc_stats.ingest.reading import Sink


@dataclass(frozen=True)
class DatabasePlan:
    """Where an import of a database starts, and whether there is anything to read."""

    start: int  # read the rows with an id above this
    top: int  # the highest id now
    message: str | None = None  # why it is read again from the start, if it is

    @property
    def unchanged(self) -> bool:
        """No row was added since the last import."""
        return self.start == self.top and self.message is None


def plan_import(path: str, last: LastImport | None) -> DatabasePlan:
    """Where to start reading the database at ``path``, given its last import.

    Raises:
        FpdbDatabaseError, DatabaseBusyError: as :func:`connect_read_only`.
    """
    connection = connect_read_only(path)
    try:
        top = high_water(connection, path)
        start = last.end_offset if last is not None and last.status != ImportStatus.FAILED else 0
        if start <= 0:
            return DatabasePlan(0, top)
        if top < start:
            return DatabasePlan(0, top, f"its rows end at id {top:,}, before id {start:,} "
                                "where the last import stopped (another database?): read "
                                "again from the start")
        digest = row_digest(connection, start, path)
        if digest is not None and last is not None and last.content_hash not in (None, digest):
            return DatabasePlan(0, top, f"row {start:,}, where the last import stopped, "
                                "changed since (another database?): read again from the start")
        # A row gone from the mark is a hand fpdb-3 captured again (deleted, then
        # inserted with a new id, read as a new row).
        return DatabasePlan(start, top)
    finally:
        connection.close()


def read_database_source(run: FileRun, sink: Sink, *, batch_hands: int) -> None:
    """Read the rows of ``run``'s database above ``run.start_offset``, in batches each
    handed to ``sink``; ``run`` follows the id read up to and that row's digest.

    Raises:
        FpdbDatabaseError, DatabaseBusyError: the database cannot be read (any more).
    """
    path = str(run.source.path)
    digests = connect_read_only(path)
    try:
        for read in read_database(path, run.source.name, after_id=run.start_offset,
                                  batch_hands=batch_hands):
            sink.accept(read.batch, {run.source.name: run})
            run.end_offset = max(run.end_offset, read.end_offset)
            run.digest = row_digest(digests, run.end_offset, path)
            run.dirty = True
            sink.batch_done(run.source.name)
    finally:
        digests.close()
    run.status = ImportStatus.COMPLETE
    run.dirty = True
