"""The manifest of imports: how far each file got, and whether to read it again.

Every commit adds an ``imports`` row for each file it holds hands or problems of: the
segment read since the file's last row (:class:`FileRun`), with the file's size and
mtime, the offsets read, a SHA-256 of its bytes up to the last complete hand, the
counts and a status (:class:`ImportStatus`). The next run skips a file imported
completely and unchanged (:func:`unchanged`), reads a grown file from where the last
import stopped (once its first bytes are checked to be the ones imported), and reads
again a file read in a format its head does not show (:func:`misread`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import polars as pl

from ofc_stats import formats
from ofc_stats.formats import SNIFF_BYTES, Format
from ofc_stats.ingest.sources import OpenArchive, Source, path_text, read_head
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.schemas import IMPORTS_SCHEMA


class ImportStatus(StrEnum):
    """How far an import of one file got, as stored in ``imports.status``."""

    PARTIAL = "partial"  # more of the file to read (a later commit, or a resumed run)
    COMPLETE = "complete"  # read to its end
    FAILED = "failed"  # its content cannot be read (unknown format, corrupt archive)


@dataclass
class FileRun:
    """One source's progress in this run, and its counts since the last manifest row."""

    source: Source
    format: str | None
    start_offset: int
    end_offset: int
    digest: str | None
    status: ImportStatus = ImportStatus.PARTIAL
    message: str | None = None
    hands_read: int = 0
    hands_stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    rejected: int = 0
    dirty: bool = True
    held: bool = False  # a half-written last hand was left for the next read (a watch)

    def manifest_row(self, import_id: str, commit_id: int, now: dt.datetime
                     ) -> dict[str, Any]:
        """The ``imports`` row of this segment, for commit ``commit_id``.

        A file read to its end but for a half-written last hand that was held back is
        ``partial``: the next ingest reads it again from there (and reports the hand
        as truncated if it is still half-written)."""
        status = (ImportStatus.PARTIAL if self.held and self.status is ImportStatus.COMPLETE
                  else self.status)
        return {
            "import_id": import_id, "commit_id": commit_id, "imported_at": now,
            "file": self.source.name, "path": path_text(self.source.path),
            "member": self.source.member, "compression": str(self.source.compression),
            "format": self.format, "size": self.source.size,
            "mtime": self.source.mtime_ns, "start_offset": self.start_offset,
            "end_offset": self.end_offset, "content_hash": self.digest,
            "status": str(status), "hands_read": self.hands_read,
            "hands_stored": self.hands_stored, "duplicates": self.duplicates,
            "conflicts": self.conflicts, "rejected": self.rejected, "message": self.message,
        }

    def written(self) -> None:
        """A manifest row now covers everything so far: start a new segment."""
        self.start_offset = self.end_offset
        self.hands_read = self.hands_stored = self.duplicates = 0
        self.conflicts = self.rejected = 0
        self.message = None
        self.dirty = False


@dataclass(frozen=True)
class LastImport:
    """The latest manifest row of a source."""

    format: str | None
    size: int
    mtime_ns: int
    end_offset: int
    content_hash: str | None
    status: str
    hands_read: int = 0
    rejected: int = 0


def load_manifest(warehouse: Warehouse) -> dict[str, LastImport]:
    """The latest manifest row of every file imported so far, by name."""
    rows = (warehouse.scan("imports", schema=IMPORTS_SCHEMA)
            .sort("commit_id").unique("file", keep="last").collect())
    return {row["file"]: LastImport(
        row["format"], row["size"], row["mtime"], row["end_offset"],
        row["content_hash"], row["status"], row["hands_read"] or 0, row["rejected"] or 0)
        for row in rows.with_columns(pl.col("mtime").cast(pl.Int64)).iter_rows(named=True)}


def unchanged(source: Source, last: LastImport | None, forced: Format | None) -> bool:
    """Whether ``source`` was imported completely (or failed) and is as it was then:
    not read again. A forced format other than the last import's reads it again."""
    return (last is not None
            and last.status in (ImportStatus.COMPLETE, ImportStatus.FAILED)
            and (last.size, last.mtime_ns) == (source.size, source.mtime_ns)
            and (forced is None or last.format == forced))


def misread(source: Source, last: LastImport | None, forced: Format | None,
            archives: OpenArchive) -> bool:
    """Whether the last import read no hand, only problems, in a format the file's
    head does not show (a wrong ``--format``): then ``auto`` reads it again."""
    if (forced is not None or last is None or last.hands_read or not last.rejected
            or last.format is None):
        return False
    try:
        return str(formats.sniff(read_head(source, SNIFF_BYTES, archives),
                                 source.inner_name)) != last.format
    except Exception:  # unreadable or unknown: reading it again will say so
        return False


def imports_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """Manifest rows (:meth:`FileRun.manifest_row`) as an ``imports`` frame."""
    frame = pl.DataFrame(rows, schema_overrides={"mtime": pl.Int64}, strict=False)
    return frame.select(
        pl.col(name).cast(pl.Datetime("ns", "UTC")) if name == "mtime"
        else pl.col(name).cast(dtype) for name, dtype in IMPORTS_SCHEMA.items())


def run_named(runs: Mapping[str, FileRun], name: str | None) -> FileRun:
    """The run of a file name (any run for a name none has: counts are never lost)."""
    run = runs.get(name) if name is not None else None
    return run if run is not None else next(iter(runs.values()))


def add_per_file(runs: Mapping[str, FileRun], files: pl.Series, counter: str) -> None:
    """Add to each run's ``counter`` the rows of ``files`` (file names) naming it."""
    if files.is_empty():
        return
    counts = ([(next(iter(runs)), files.len())] if len(runs) == 1
              else files.value_counts().iter_rows())
    for name, count in counts:
        run = run_named(runs, name)
        setattr(run, counter, getattr(run, counter) + int(count))


def read_again_rows(imports: pl.LazyFrame, files: set[str] | None, commit_id: int,
                    message: str) -> pl.DataFrame:
    """``imports`` rows that send files back to the start: the next ingest reads them
    again whole, whatever they held (the hands still stored count as duplicates).

    Args:
        imports: the manifest (``imports`` rows) naming the files.
        files: the files (by name, as ``imports.file``); None for every file.
        commit_id: the commit the rows go in.
        message: why, for ``imports.message``.
    """
    latest = imports.sort("commit_id").unique("file", keep="last").collect()
    if files is not None:
        latest = latest.filter(pl.col("file").is_in(sorted(files)))
    now = dt.datetime.now(dt.UTC)
    return latest.with_columns(
        pl.lit(None, pl.String).alias("import_id"), pl.lit(commit_id, pl.Int64).alias("commit_id"),
        pl.lit(now).cast(IMPORTS_SCHEMA["imported_at"]).alias("imported_at"),
        pl.lit(-1, pl.Int64).alias("size"),
        pl.lit(0, pl.Int64).cast(IMPORTS_SCHEMA["mtime"]).alias("mtime"),
        pl.lit(0, pl.Int64).alias("start_offset"), pl.lit(0, pl.Int64).alias("end_offset"),
        pl.lit(None, pl.String).alias("content_hash"),
        pl.lit(str(ImportStatus.PARTIAL)).alias("status"),
        *(pl.lit(0, pl.Int64).alias(name) for name in (
            "hands_read", "hands_stored", "duplicates", "conflicts", "rejected")),
        pl.lit(message).alias("message"),
    ).select(list(IMPORTS_SCHEMA)).cast(IMPORTS_SCHEMA)
