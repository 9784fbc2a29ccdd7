"""Hand-history formats: one module per format behind a common interface.

Every format module defines a :class:`FormatReader` (bytes in, canonical batches
out, streaming, never stopping at a bad hand) and a :class:`FormatWriter`
(canonical batches out as bytes), and registers them here. :func:`sniff` tells the
formats apart from a file's first bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import BinaryIO, Protocol

from ofc_stats.canonical import CanonicalBatch
from ofc_stats.errors import OfcStatsError

BATCH_HANDS = 20_000
SNIFF_BYTES = 64 * 1024


class Format(StrEnum):
    """The formats ofc-stats reads and writes, valued as on the command line."""

    JSONL = "jsonl"
    TEXT = "text"
    CSV = "csv"
    FPDB = "fpdb"


class UnknownFormatError(OfcStatsError):
    """A file whose format cannot be told from its first bytes."""


@dataclass(frozen=True)
class ReadBatch:
    """One batch of a file read, with how far into the file it got.

    ``end_offset`` is the byte offset in the (decompressed) input just after the last
    complete hand of this batch: reading again from there yields only new hands, so
    a file that grows (a live session appending) can be imported incrementally.
    """

    batch: CanonicalBatch
    end_offset: int


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


class FormatWriter(Protocol):
    """Writes one format."""

    format: Format

    def write(self, batches: Iterable[CanonicalBatch], stream: BinaryIO) -> int:
        """Write every hand of ``batches`` to ``stream``; return how many were written."""
        ...
