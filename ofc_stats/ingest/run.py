"""One ingest run: :func:`ingest`, and the run that ties the stages of an import together.

:func:`ingest` finds the sources (:mod:`~ofc_stats.ingest.sources`) and, inside the
warehouse's write lock, runs them in order: a file unchanged since its last import
is skipped (:mod:`~ofc_stats.ingest.manifest`); a small file is split and parsed with
others (:mod:`~ofc_stats.ingest.grouping`), a big one read in batches
(:mod:`~ofc_stats.ingest.reading`); each batch's hands are sorted into new hands,
duplicates and conflicts (:mod:`~ofc_stats.ingest.dedupe`,
:mod:`~ofc_stats.ingest.conflicts`) and the new ones queued for the next commit
(:mod:`~ofc_stats.ingest.commits`), so that a kill at any moment leaves whole batches
and a manifest that says how far each file got. The guarantees and the manifest are
described in ``docs/ingest.md``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ofc_stats import formats
from ofc_stats.formats import SNIFF_BYTES, Format, UnknownFormatError
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.fpdb_database import DatabaseBusyError, FpdbDatabaseError, is_database
from ofc_stats.formats.reading import PARSE_THREADS
from ofc_stats.ingest.commits import COMMIT_HANDS, Committer, compact_tables
from ofc_stats.ingest.conflicts import unresolved_rejects
from ofc_stats.ingest.database import plan_import, read_database_source
from ofc_stats.ingest.dedupe import kept_hands, sort_batch
from ofc_stats.ingest.errors import RejectedHandsError, UnknownFormatOptionError
from ofc_stats.ingest.grouping import FileGroups
from ofc_stats.ingest.keys import HandIndex, rebuild_hand_keys
from ofc_stats.ingest.manifest import (
    FileRun,
    ImportStatus,
    LastImport,
    add_per_file,
    load_manifest,
    misread,
    run_named,
    unchanged,
)
from ofc_stats.ingest.progress import ProgressCallback, ProgressReporter, Tally
from ofc_stats.ingest.reading import (
    CONTENT_ERRORS,
    DEBUG_ENV,
    PrefixChangedError,
    failure_kind,
    failure_reason,
    file_reject,
    read_source,
)
from ofc_stats.ingest.sources import (
    ByteCounter,
    Compression,
    OpenArchive,
    Source,
    find_sources,
    list_sources,
    read_head,
)
from ofc_stats.ingest.summary import EXAMPLES, IngestSummary, counted
from ofc_stats.warehouse import Warehouse, default_warehouse
from ofc_stats.warehouse.catalog import database_is_current, refresh_database
from ofc_stats.warehouse.schemas import HAND_KEYS_SCHEMA, HANDS_SCHEMA
from ofc_stats.warehouse.upgrade import upgrade_warehouse

# Hands per reader batch: a reader's peak memory grows with it, its speed hardly (100 k
# hands with every street, peak of the ingest process: JSON Lines 0.62 GiB at 5,000 and
# 0.81 at 10,000, text 0.67 and 0.98, CPU time within a few percent).
# The batches in flight (one a core, formats.reading.PARSE_THREADS) hold about 10,000
# hands together: 5,000 each on two cores, 1,250 on eight.
READ_BATCH_HANDS = max(1_000, 10_000 // PARSE_THREADS)
LOCK_TIMEOUT = 30.0


@dataclass
class LiveView:
    """What a watch keeps between its imports: the keys of the stored hands, as of
    commit ``seen_commit``, and how long to wait for the write lock at each commit."""

    index: HandIndex
    seen_commit: int
    lock_timeout: float

    @classmethod
    def load(cls, warehouse: Warehouse, lock_timeout: float) -> LiveView:
        """The warehouse's stored hands now."""
        # The commit first: keys read after it may be newer (then the next commit sees
        # an ingest it already knows of, and reads again), never older.
        commit = warehouse.state().commit
        index = HandIndex(warehouse.scan("hand_keys", schema=HAND_KEYS_SCHEMA).collect())
        return cls(index, commit, lock_timeout)


class _Ingestion:
    """One ingest run (inside the warehouse's write lock): the sources in order, and
    where their batches go (the :class:`~ofc_stats.ingest.reading.Sink` of reading
    and grouping)."""

    def __init__(self, warehouse: Warehouse, forced: Format | None, *,
                 progress: ProgressCallback | None, commit_hands: int, batch_hands: int,
                 started: float, live: LiveView | None = None) -> None:
        self.warehouse = warehouse
        self.forced = forced
        self.batch_hands = batch_hands
        self.counter = ByteCounter()
        self.tally = Tally()
        self.report = ProgressReporter(progress, self.tally, self.counter, started)
        self.runs: list[FileRun] = []  # files with rows for the next manifest
        self.archives = OpenArchive(self.counter)  # the zip whose members are being read
        self.groups = FileGroups(self, self.counter, self.archives, batch_hands)
        # Live (a watch): no lock held for the run; half-written last hands wait.
        self.hold_tails = live is not None
        if live is None:
            self.upgraded = upgrade_warehouse(warehouse)  # files rewritten
            rebuild_hand_keys(warehouse)
            self.committer = Committer(warehouse, commit_hands)
            self.index = HandIndex(warehouse.scan("hand_keys", schema=HAND_KEYS_SCHEMA).collect())
        else:
            self.upgraded = 0
            self.committer = Committer(warehouse, commit_hands, lock_timeout=live.lock_timeout,
                                       seen_commit=live.seen_commit)
            self.index = live.index
        self.manifest = load_manifest(warehouse)

    # -- files ------------------------------------------------------------------------

    def run(self, files: Sequence[Path]) -> None:
        """Ingest ``files`` in order, then commit what is pending."""
        tally = self.tally
        tally.files_total = len(files)
        for file in files:
            with contextlib.suppress(OSError):
                tally.bytes_total += file.stat().st_size
        self.report(None)
        for file in files:
            before = self.counter.count
            try:
                sources = list_sources(file)
            except (OSError, zipfile.BadZipFile) as error:
                self._file_failed(file, error)
                sources = []
            else:
                tally.files_total += len(sources) - 1
            read_before = tally.files_read
            for source in sources:
                self._ingest_source(source)
                tally.files_done += 1
                self.report(source.name)
            if tally.files_read > read_before:
                # An archive's members share its bytes: count the file once, whole.
                with contextlib.suppress(OSError):
                    self.counter.count = max(self.counter.count,
                                             before + file.stat().st_size)
            self.report(None)
        self.groups.flush()
        self._commit()
        self.committer.wait()

    def _file_failed(self, file: Path, error: BaseException) -> None:
        """A file that could not even be opened or listed (a corrupt zip directory)."""
        compression = (Compression.ZIP if isinstance(error, zipfile.BadZipFile)
                       else Compression.NONE)
        try:
            status = file.stat()
            source = Source(file, None, compression, status.st_size, status.st_mtime_ns)
        except OSError:
            source = Source(file, None, compression, 0, 0)
        run = FileRun(source, None, 0, 0, None)
        self.runs.append(run)
        self.fail(run, error)
        self.tally.files_done += 1

    def _ingest_source(self, source: Source) -> None:
        last = self.manifest.get(source.name)
        if source.database:
            self._ingest_database(source, last)
            return
        if misread(source, last, self.forced, self.archives):
            last = None  # read from the start, sniffed
        if unchanged(source, last, self.forced):
            self.tally.files_unchanged += 1
            return
        self.tally.files_read += 1
        same_format = last is not None and (self.forced is None or last.format == self.forced)
        fmt = self.forced or (last.format if last is not None and same_format else None)
        start, expected = 0, None
        if (last is not None and same_format and last.end_offset > 0
                and last.content_hash is not None):
            start, expected = last.end_offset, last.content_hash
        run = FileRun(source, fmt, start, start, None)
        self.runs.append(run)
        if run.format is None and not self._sniff(run):
            return
        if start == 0 and self.groups.add(run):
            return
        self.groups.flush()  # files stay in order: the first copy of a hand is kept
        try:
            self._read(run, start, expected)
        except PrefixChangedError:
            run.start_offset = run.end_offset = 0
            run.message = (f"the first {start:,} bytes changed since the last import: "
                           "read again from the start")
            run.format = self.forced
            if run.format is None and not self._sniff(run):
                return
            self._read(run, 0, None)

    def _ingest_database(self, source: Source, last: LastImport | None) -> None:
        """fpdb-3's SQLite database: the rows added since its last import."""
        if unchanged(source, last, self.forced) and last is not None and (
                last.status == ImportStatus.FAILED):
            self.tally.files_unchanged += 1  # not fpdb-3's database, and still the same
            return
        run = FileRun(source, str(Format.FPDB), 0, 0, None)
        if self.forced not in (None, Format.FPDB) or source.compression is not Compression.NONE:
            self.tally.files_read += 1
            self.runs.append(run)
            why = ("inside an archive: unpack it to import it"
                   if source.compression is not Compression.NONE
                   else f"read as fpdb-3's, not as {self.forced}")
            self._reject_file(run, "format", f"{source.name}: an SQLite database, {why}")
            run.status = ImportStatus.FAILED
            self.tally.files_failed += 1
            return
        try:
            plan = plan_import(str(source.path), last)
            if last is not None and plan.unchanged:
                self.tally.files_unchanged += 1
                return
            self.tally.files_read += 1
            self.runs.append(run)
            run.start_offset = run.end_offset = plan.start
            run.digest = last.content_hash if last is not None and plan.start else None
            run.message = plan.message
            read_database_source(run, self, batch_hands=self.batch_hands)
        except DatabaseBusyError as error:  # tried again next time
            if run not in self.runs:
                self.tally.files_read += 1
                self.runs.append(run)
            self._reject_file(run, "file", str(error))
            self.tally.files_failed += 1
        except FpdbDatabaseError as error:  # not fpdb-3's, or damaged: until it changes
            if run not in self.runs:
                self.tally.files_read += 1
                self.runs.append(run)
            self._reject_file(run, "format", str(error))
            run.status = ImportStatus.FAILED
            self.tally.files_failed += 1

    def _sniff(self, run: FileRun) -> bool:
        """Set ``run.format`` from the source's first bytes; False if there is nothing to read."""
        try:
            head = read_head(run.source, SNIFF_BYTES, self.archives)
            if not head:  # an empty file (a session just opened): nothing yet
                run.status = ImportStatus.COMPLETE
                run.digest = hashlib.sha256(b"").hexdigest()
                return False
            if is_database(head):  # packed: sqlite3 reads a database only as a file
                self._reject_file(run, "format", f"{run.source.name}: an SQLite database, "
                                  "inside an archive: unpack it to import it")
                run.status = ImportStatus.FAILED
                self.tally.files_failed += 1
                return False
            run.format = str(formats.sniff(head, run.source.inner_name))
        except UnknownFormatError as error:
            self._reject_file(run, "format", str(error))
            run.status = ImportStatus.FAILED
            self.tally.files_failed += 1
            return False
        except Exception as error:
            self.fail(run, error)
            return False
        return True

    def _read(self, run: FileRun, start: int, expected: str | None) -> None:
        """Read ``run``'s source from ``start``; ``expected``: the hash of the bytes before."""
        read_source(run, start, expected, self, counter=self.counter, archives=self.archives,
                    batch_hands=self.batch_hands)

    def read_alone(self, run: FileRun) -> None:
        """Read a file from its start, by itself (a group that failed to parse)."""
        self._read(run, 0, None)

    def fail(self, run: FileRun, error: BaseException) -> None:
        """Set a file aside that could not be read (any more), with the reason."""
        if (os.environ.get(DEBUG_ENV) and not isinstance(error, (OSError, *CONTENT_ERRORS))):
            raise error
        reason, content = failure_reason(error, run.source)
        if run.end_offset > 0:
            reason += f" (after byte {run.end_offset:,} of its content)"
        self._reject_file(run, failure_kind(error), reason)
        self.tally.files_failed += 1
        if content:
            run.status = ImportStatus.FAILED

    def _reject_file(self, run: FileRun, kind: str, reason: str) -> None:
        self.committer.pending.rejects.append(file_reject(run.source.name, kind, reason))
        run.rejected += 1
        run.message = reason
        run.dirty = True
        self.tally.rejected += 1
        self.tally.kinds[kind] += 1
        self.tally.note_problems([(run.source.name, None, kind, reason)])

    # -- hands ------------------------------------------------------------------------

    def accept(self, batch: CanonicalBatch, runs: Mapping[str, FileRun]) -> None:
        """Queue a batch's new hands; count duplicates; report problems and conflicts.

        ``runs``: the files the batch's hands and problems come from, by name.
        """
        tally, pending = self.tally, self.committer.pending
        problems = batch.problems
        if self.hold_tails and not problems.is_empty():
            # A half-written last hand of a live file: read again once it is complete.
            tails = problems["kind"] == "truncated"
            for name in problems["file"].filter(tails).unique():
                run_named(runs, name).held = True
            problems = problems.filter(~tails)
        if not problems.is_empty():
            pending.rejects.append(problems)
            add_per_file(runs, problems["file"], "rejected")
            tally.rejected += problems.height
            tally.kinds.update(problems["kind"].to_list())
            tally.note_problems(problems.head(EXAMPLES).select(
                "file", "line", "kind", "reason").iter_rows())
        hands = batch.hands
        add_per_file(runs, hands["source_file"], "hands_read")
        tally.hands_read += hands.height
        if hands.is_empty():
            return
        sorting = sort_batch(batch, self.index, self._stored_copies)
        duplicates = int(sorting.duplicates.sum())
        conflicts = int(sorting.conflicts.sum())
        add_per_file(runs, hands["source_file"].filter(pl.Series(sorting.duplicates)),
                     "duplicates")
        add_per_file(runs, hands["source_file"].filter(pl.Series(sorting.conflicts)),
                     "conflicts")
        tally.duplicates += duplicates
        tally.conflicts += conflicts
        if conflicts:
            tally.kinds["conflict"] += conflicts
            pending.rejects.extend(sorting.rejects)
        found = kept_hands(batch, sorting)
        if found is None:
            return
        kept, keys = found
        if not kept.unresolved.is_empty():
            # The later copies are conflicts already; their first copies go too.
            rows = unresolved_rejects(kept.unresolved, hands.filter(sorting.new))
            pending.rejects.append(rows)
            add_per_file(runs, rows["file"], "conflicts")
            tally.conflicts += rows.height
            tally.kinds["conflict"] += rows.height
        if kept.streets_dropped:
            message = (f"{counted(kept.streets_dropped, 'hand')} stored without "
                       "streets: copies in one batch could not be told apart")
            for name in hands["source_file"].filter(pl.Series(sorting.later_copies)).unique():
                run_named(runs, name).message = message
        if kept.hands.is_empty():
            return
        self.index.add(keys)
        pending.add(kept.hands, kept.seats, kept.streets, keys)
        add_per_file(runs, kept.hands["source_file"], "hands_stored")
        tally.hands_stored += kept.hands.height

    def _stored_copies(self, ids: pl.DataFrame) -> pl.DataFrame:
        """The stored hands (committed, or pending in this run) with these (site, hand_id)."""
        columns = ["site", "hand_id", "content_hash", "source_file", "source_line"]
        ids = ids.unique()
        parts = [frame.select(columns).join(ids, on=["site", "hand_id"], how="semi")
                 for frame in (*self.committer.pending.hands, *self.committer.in_flight_hands)]
        parts.append(self.warehouse.scan("hands", schema=HANDS_SCHEMA).select(columns)
                     .join(ids.lazy(), on=["site", "hand_id"], how="semi").collect())
        return pl.concat(parts).unique(["site", "hand_id"], keep="first", maintain_order=True)

    # -- commits ----------------------------------------------------------------------

    def batch_done(self, current: str | None) -> None:
        """After a batch: report progress, and commit once enough is pending."""
        self.report(current)
        if self.committer.due():
            self._commit()

    def _commit(self) -> None:
        if self.committer.commit(self.runs):
            self.runs = [run for run in self.runs if run.status is ImportStatus.PARTIAL]

    def close(self) -> None:
        """Finish the commit in flight (also when interrupted: it is whole or absent).

        A group still being parsed then is dropped: none of its files was committed,
        so the next run reads them.
        """
        try:
            self.committer.wait()
        finally:
            self.groups.close()
            self.committer.close()
            self.archives.close()


def _as_format(fmt: Format | str | None) -> Format | None:
    if fmt is None or str(fmt).lower() == "auto":
        return None
    try:
        return Format(str(fmt).lower())
    except ValueError:
        choices = ", ".join(["auto", *(f.value for f in Format)])
        raise UnknownFormatOptionError(f"unknown format {fmt!r} (choose from {choices})"
                                       ) from None


def ingest(paths: Iterable[str | Path], warehouse: Path | str | Warehouse | None = None,
           fmt: Format | str = "auto", strict: bool = False,
           progress: ProgressCallback | None = None, *, lock_timeout: float = LOCK_TIMEOUT,
           commit_hands: int = COMMIT_HANDS, batch_hands: int = READ_BATCH_HANDS,
           compact: bool = True, follow_links: bool = False) -> IngestSummary:
    """Import hand-history files, folders, globs and archives into a warehouse.

    Every new hand is stored once, keyed by (site, hand_id); a file imported before
    is skipped, or read from where the last import stopped if it grew. Bad hands and
    unreadable files go to the ``rejects`` table; the good hands around them import.

    Args:
        paths: files, folders (walked recursively), globs; ``.gz .bz2 .xz .zip`` too.
        warehouse: the warehouse folder (created on first use), a :class:`Warehouse`,
            or None for ``$OFC_STATS_WAREHOUSE`` or ``./warehouse``.
        fmt: ``auto`` (sniff each file) or a :class:`Format` to force.
        strict: raise :class:`RejectedHandsError` at the end (after committing) if
            anything was rejected or conflicted.
        progress: called with an :class:`IngestProgress` after each batch and file.
        lock_timeout: seconds to wait for another writer to finish.
        commit_hands: new hands per commit (and what a kill can lose at most).
        batch_hands: hands per reader batch.
        compact: merge small files once tables have many.
        follow_links: in folders, follow links that lead out of them (else skipped,
            and counted).

    Returns:
        What was read, stored, skipped and set aside.

    Raises:
        SourceError: a path that does not exist, a glob that matches nothing, or a
            path that is no regular file or folder (a named pipe, a device).
        UnknownFormatOptionError: ``fmt`` is not a format.
        WarehouseError: the warehouse is busy (after ``lock_timeout``) or invalid.
        RejectedHandsError: ``strict`` and something was set aside.
    """
    started = time.perf_counter()
    forced = _as_format(fmt)
    store = (warehouse if isinstance(warehouse, Warehouse)
             else Warehouse.open(warehouse if warehouse is not None else default_warehouse(),
                                 create=True))
    found = find_sources(paths, exclude=store.root, follow_links=follow_links)
    files, ignored = found.files, found.ignored
    with store.writing(timeout=lock_timeout):
        run = _Ingestion(store, forced, progress=progress, commit_hands=commit_hands,
                         batch_hands=batch_hands, started=started)
        try:
            run.run(files)
        finally:
            run.close()
        compacted = compact_tables(store) if compact else 0
        commits = run.committer.commits
        if commits or compacted or run.upgraded or not database_is_current(store):
            refresh_database(store)  # ofc.duckdb's views list the committed files
    summary = _summary(run, store, ignored, commits, compacted, started, found.links_skipped)
    if strict and summary.problem_text() is not None:
        raise RejectedHandsError(summary)
    return summary


def _summary(run: _Ingestion, store: Warehouse, ignored: int, commits: int, compacted: int,
             started: float, links_skipped: int = 0) -> IngestSummary:
    tally = run.tally
    return IngestSummary(
        warehouse=str(store.root), files=tally.files_total, files_read=tally.files_read,
        files_unchanged=tally.files_unchanged, files_failed=tally.files_failed,
        files_ignored=ignored, links_skipped=links_skipped,
        bytes_read=run.counter.count, hands_read=tally.hands_read,
        hands_stored=tally.hands_stored, duplicates=tally.duplicates,
        conflicts=tally.conflicts, rejected=tally.rejected,
        problems_by_kind=dict(tally.kinds), commits=commits, files_compacted=compacted,
        seconds=time.perf_counter() - started, examples=list(tally.examples))


def ingest_live(store: Warehouse, files: Sequence[Path], live: LiveView, *,
                fmt: Format | str = "auto", commit_hands: int = COMMIT_HANDS,
                batch_hands: int = READ_BATCH_HANDS) -> IngestSummary:
    """One import of a watch: ``files`` read without the write lock, which is taken
    for each commit only (and for merging small files after the last).

    A half-written last hand is held back (the file's import stays ``partial``) rather
    than rejected: the file is still being written. ``live`` is updated with the hands
    stored.

    Raises:
        ConcurrentIngestError: another ingest stored hands meanwhile; nothing more of
            this import is committed (reload ``live`` and import again).
        WarehouseLockedError: the lock stayed busy at a commit (likewise).
    """
    started = time.perf_counter()
    run = _Ingestion(store, _as_format(fmt), progress=None, commit_hands=commit_hands,
                     batch_hands=batch_hands, started=started, live=live)
    try:
        run.run(files)
    finally:
        run.close()
    live.seen_commit = run.committer.seen_commit
    commits, compacted = run.committer.commits, 0
    if commits:
        with store.writing(timeout=live.lock_timeout):
            others = [record for record in store.commits_after(live.seen_commit)
                      if record.get("action") == "ingest"]
            compacted = compact_tables(store)
            refresh_database(store)  # ofc.duckdb's views list the committed files
            if not others:  # else the next commit finds that ingest and reads again
                live.seen_commit = store.state().commit
    return _summary(run, store, 0, commits, compacted, started)
