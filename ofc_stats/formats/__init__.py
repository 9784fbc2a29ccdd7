"""Hand-history formats: one module per format behind a common interface.

Every format module defines a :class:`FormatReader` (bytes in, canonical batches
out, streaming, never stopping at a bad hand) and a :class:`FormatWriter`
(canonical batches out as bytes), and registers them here. :func:`sniff` tells the
formats apart from a file's first bytes.

>>> sniff(b'{"format": "ofc-hh", "version": 1, "site": "home"}')
<Format.JSONL: 'jsonl'>
>>> get_reader("text").format, get_writer(Format.CSV).format
(<Format.TEXT: 'text'>, <Format.CSV: 'csv'>)
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Sequence
from enum import StrEnum
from pathlib import PurePath
from typing import BinaryIO, Protocol, runtime_checkable

from ofc_stats.errors import ExitCode, OfcStatsError
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.reading import ReadBatch as ReadBatch  # exported here, as before
from ofc_stats.formats.reading import SplitFile

BATCH_HANDS = 20_000
SNIFF_BYTES = 64 * 1024
# A reader must be at least this sure (0-100) for sniff() to pick its format.
SNIFF_CONFIDENCE = 50


class Format(StrEnum):
    """The formats ofc-stats reads and writes, valued as on the command line."""

    JSONL = "jsonl"
    TEXT = "text"
    CSV = "csv"
    FPDB = "fpdb"


# The suffix a file of each format usually has; they only break ties in sniff().
FORMAT_SUFFIXES: dict[str, Format] = {
    ".jsonl": Format.JSONL,
    ".ndjson": Format.JSONL,
    ".txt": Format.TEXT,
    ".csv": Format.CSV,
    ".json": Format.FPDB,
}
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zip")

_MODULES = {Format.JSONL: "jsonl", Format.TEXT: "text", Format.CSV: "csv",
            Format.FPDB: "fpdb"}


class UnknownFormatError(OfcStatsError):
    """A file whose format cannot be told from its first bytes."""

    exit_code = ExitCode.USAGE


class FormatWriteError(OfcStatsError, ValueError):
    """A hand holding a value the format cannot write faithfully (a name with a line
    break in a text format, say)."""

    exit_code = ExitCode.USAGE


class FormatReader(Protocol):
    """Reads one format. Implementations live in ``ofc_stats.formats.<format>``."""

    format: Format

    def sniff(self, head: bytes) -> int:
        """Confidence 0-100 that ``head`` (a file's first bytes) is this format."""
        ...

    def read(self, stream: BinaryIO, file: str, *, batch_hands: int = BATCH_HANDS,
             start_offset: int = 0) -> Iterator[ReadBatch]:
        """Stream the hands from ``start_offset`` on, in batches of about ``batch_hands``.

        Bad hands become problem rows in the batches; the reader never raises for bad
        input. Memory is bounded by the batch, not the file.
        """
        ...


@runtime_checkable
class FileGroupReader(FormatReader, Protocol):
    """A reader that can also parse many small files as one batch (ingest groups the
    files of a folder of sessions: the fixed cost of a batch is paid once per group)."""

    def split_file(self, stream: BinaryIO, file: str, max_hands: int | None = None
                   ) -> SplitFile:
        """Every hand of a whole file, split off but not parsed (with ``max_hands``,
        it stops once it has more than that)."""
        ...

    def parse_files(self, files: Sequence[SplitFile]) -> CanonicalBatch:
        """The hands of several split files as one batch; each hand and problem keeps
        its file and line."""
        ...


class FormatWriter(Protocol):
    """Writes one format."""

    format: Format

    def write(self, batches: Iterable[CanonicalBatch], stream: BinaryIO) -> int:
        """Write every hand of ``batches`` to ``stream``; return how many were written."""
        ...


def _format(fmt: Format | str) -> Format:
    try:
        return Format(str(fmt).strip().lower())
    except ValueError:
        known = ", ".join(Format)
        raise UnknownFormatError(f"unknown format {str(fmt)!r} (one of {known})") from None


def get_reader(fmt: Format | str) -> FormatReader:
    """The reader of a format (a :class:`Format` or its name, e.g. ``"jsonl"``).

    Raises:
        UnknownFormatError: not a format's name.
    """
    module = importlib.import_module(f"ofc_stats.formats.{_MODULES[_format(fmt)]}")
    reader: FormatReader = module.READER
    return reader


def get_writer(fmt: Format | str) -> FormatWriter:
    """The writer of a format (a :class:`Format` or its name, e.g. ``"text"``).

    Raises:
        UnknownFormatError: not a format's name.
    """
    module = importlib.import_module(f"ofc_stats.formats.{_MODULES[_format(fmt)]}")
    writer: FormatWriter = module.WRITER
    return writer


def format_of_name(name: str) -> Format | None:
    """The format a file name's suffix suggests (``.jsonl.gz`` is JSONL), if any."""
    path = PurePath(name.lower())
    while path.suffix in COMPRESSION_SUFFIXES:
        path = path.with_suffix("")
    return FORMAT_SUFFIXES.get(path.suffix)


def sniff(head: bytes, name: str = "") -> Format:
    """The format of a file from its first bytes (:data:`SNIFF_BYTES` is plenty).

    Every reader rates ``head``; the most confident wins, and the suffix of ``name``
    only breaks ties. A file holding nothing but white space takes the format its
    suffix names.

    Raises:
        UnknownFormatError: no reader is confident; the message names the file.
    """
    from ofc_stats.formats.streaming import decode_head

    scores = {fmt: get_reader(fmt).sniff(head) for fmt in Format}
    suggested = format_of_name(name)
    best = max(scores.values())
    if best < SNIFF_CONFIDENCE:
        if suggested is not None and not decode_head(head).strip():
            return suggested
        where = f"{name}: " if name else ""
        first = decode_head(head[:200]).strip().splitlines()
        start = f" (it starts with {first[0][:60]!r})" if first else " (it is empty)"
        raise UnknownFormatError(
            f"{where}not a hand history ofc-stats can read{start}; formats: "
            + ", ".join(Format))
    tied = [fmt for fmt, score in scores.items() if score == best]
    return suggested if suggested in tied else tied[0]
