"""Reading one source: from where its last import stopped, its failures set aside.

A source is read with its format's reader in batches of whole hands, each handed to
the run (a :class:`Sink`) as it comes; its :class:`~ofc_stats.ingest.manifest.FileRun`
follows how far it got and the SHA-256 of the bytes read so far. A grown file is read
from its last end offset once the bytes before it hash as they did
(:class:`PrefixChangedError` if not: the run reads it again from the start). A file
that cannot be read, or breaks part-way, keeps the hands read before and becomes a
``file`` row in ``rejects`` (:func:`failure_reason` says why and whether its content
is at fault).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import BinaryIO, Protocol, cast

import polars as pl

from ofc_stats import formats
from ofc_stats.formats import Format
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.streaming import ARCHIVE_ERRORS, HandTooLargeError
from ofc_stats.ingest.manifest import FileRun, ImportStatus
from ofc_stats.ingest.sources import (
    ByteCounter,
    Compression,
    OpenArchive,
    PrefixHashingStream,
    Source,
    open_source,
)
from ofc_stats.warehouse.schemas import PROBLEMS_SCHEMA

DEBUG_ENV = "OFC_STATS_DEBUG"  # set: a reader's own bug raises instead of a reject

# Errors that mean a file's *content* cannot be read (corrupt archive data): the file
# is marked failed and skipped until it changes. An OSError with an errno is the
# system refusing (permissions, I/O): the next run tries again.
CONTENT_ERRORS: tuple[type[BaseException], ...] = (*ARCHIVE_ERRORS, UnicodeError,
                                                   HandTooLargeError)


class PrefixChangedError(Exception):
    """A grown file no longer starts with the bytes imported last time."""


class Sink(Protocol):
    """Where the batches of the sources read go: the ingest run."""

    def accept(self, batch: CanonicalBatch, runs: Mapping[str, FileRun]) -> None:
        """Take a batch of the files ``runs`` (by name)."""
        ...

    def batch_done(self, current: str | None) -> None:
        """After a batch (of the file ``current``): report progress, commit if due."""
        ...

    def fail(self, run: FileRun, error: BaseException) -> None:
        """Set a file that could not be read (any more) aside."""
        ...

    def read_alone(self, run: FileRun) -> None:
        """Read a file from its start, by itself."""
        ...


def failure_reason(error: BaseException, source: Source) -> tuple[str, bool]:
    """A reason for a file that could not be read, and whether its content is at fault."""
    what = {Compression.GZIP: "gzip", Compression.BZIP2: "bzip2", Compression.XZ: "xz",
            Compression.ZIP: "zip"}.get(source.compression)
    # A file name that is not UTF-8 stays readable (and storable) in the reason.
    text = (str(error) or type(error).__name__).encode("utf-8", "surrogateescape").decode(
        "utf-8", "backslashreplace")
    if isinstance(error, HandTooLargeError):
        return text, True
    if isinstance(error, OSError) and error.errno is not None:
        return f"cannot read the file: {error.strerror or text}", False
    if isinstance(error, (*CONTENT_ERRORS, OSError)):
        kind = f"corrupt {what} archive" if what else "unreadable data"
        return f"{kind}: {text}", True
    return f"the reader failed: {type(error).__name__}: {text} (please report this)", False


def failure_kind(error: BaseException) -> str:
    """The ``rejects`` kind of a file set aside as a whole for ``error``."""
    return "too large" if isinstance(error, HandTooLargeError) else "file"


def file_reject(file: str, kind: str, reason: str) -> pl.DataFrame:
    """The ``rejects`` row of a file set aside as a whole."""
    return pl.DataFrame([{"file": file, "line": None, "site": None, "hand_id": None,
                          "kind": kind, "reason": reason, "raw": None}],
                        schema=PROBLEMS_SCHEMA)


def read_source(run: FileRun, start: int, expected: str | None, sink: Sink, *,
                counter: ByteCounter, archives: OpenArchive, batch_hands: int) -> None:
    """Read ``run``'s source from ``start`` in batches, each handed to ``sink``.

    Args:
        run: the source and its progress, updated batch by batch.
        start: the offset to read from (where the last import stopped, or 0).
        expected: the SHA-256 of the source's bytes before ``start`` (None: from 0).
        sink: takes each batch, then reports and commits if due; is told a failure.
        counter, archives: the run's byte counter and open zip archive.
        batch_hands: hands per reader batch.

    Raises:
        PrefixChangedError: the bytes before ``start`` are not the ones imported.
    """
    reader = formats.get_reader(Format(str(run.format)))
    with open_source(run.source, counter, archives) as raw:
        stream = PrefixHashingStream(raw, check_offset=start)
        batches = reader.read(cast(BinaryIO, stream), run.source.name,
                              batch_hands=batch_hands, start_offset=start)
        verified = expected is None
        try:
            while True:
                try:
                    read_batch = next(batches)
                except StopIteration:
                    break
                except Exception as error:
                    if not verified and stream.check_digest != expected:
                        raise PrefixChangedError from error
                    sink.fail(run, error)
                    return
                if not verified:
                    if stream.check_digest != expected:
                        raise PrefixChangedError
                    verified = True
                stream.advance(read_batch.end_offset)
                sink.accept(read_batch.batch, {run.source.name: run})
                run.end_offset = max(run.end_offset, read_batch.end_offset)
                run.digest = stream.digest()
                run.dirty = True
                sink.batch_done(run.source.name)
        finally:
            if isinstance(batches, Generator):
                batches.close()
        if not verified and stream.check_digest != expected:
            raise PrefixChangedError
        if run.digest is None and stream.mark == run.end_offset:
            run.digest = stream.digest()
    run.status = ImportStatus.COMPLETE
    run.dirty = True
