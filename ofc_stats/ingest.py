"""Ingest: hand-history files, folders and archives into the Parquet warehouse, once.

:func:`ingest` finds the sources (:mod:`ofc_stats.sources`), reads each with its
format's reader (:mod:`ofc_stats.formats`), drops hands already stored, reports
conflicting copies, and commits hands, seats, streets, rejects and the import
manifest together in batches (:class:`ofc_stats.warehouse.Warehouse`), so that a
kill at any moment leaves whole batches and a manifest that says how far each file
got. The guarantees and the manifest are described in ``docs/ingest.md``.

Dedupe stays cheap as the warehouse grows: every stored hand has a 64-bit key of
its ``(site, hand_id)``, a 64-bit prefix of its content hash and fingerprints of the
details the content hash leaves out (reported points and royalties, stakes, button)
in the small ``hand_keys`` table, loaded once per run into sorted numpy arrays; a
batch is checked with ``searchsorted``. A key that matches with different content is
checked exactly against the stored hand before it is called a conflict; one that
matches with the same content is a conflict if a detail both copies record differs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import itertools
import os
import time
import uuid
import zipfile
from collections import Counter, deque
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, BinaryIO, cast

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats import formats
from ofc_stats.canonical import (
    HANDS_SCHEMA,
    MONEY,
    PROBLEMS_SCHEMA,
    SEATS_SCHEMA,
    STREETS_SCHEMA,
    CanonicalBatch,
    board_list_expr,
    content_hash,
)
from ofc_stats.cards import card_names_expr
from ofc_stats.errors import OfcStatsError
from ofc_stats.formats import SNIFF_BYTES, FileGroupReader, Format, UnknownFormatError
from ofc_stats.formats.reading import BATCH_BYTES, PARSE_THREADS, SplitFile
from ofc_stats.formats.streaming import ARCHIVE_ERRORS, string_buffers
from ofc_stats.sources import (
    ByteCounter,
    Compression,
    OpenArchive,
    PrefixHashingStream,
    Source,
    find_files,
    list_sources,
    open_source,
    read_head,
)
from ofc_stats.upgrade import upgrade_warehouse
from ofc_stats.warehouse import PendingFile, Warehouse, default_warehouse

COMMIT_HANDS = 25_000  # hands per commit: bounds memory and what a kill can lose
COMMIT_BYTES = 96 * 1024 * 1024  # or this much pending data, whichever comes first
# Files up to this size are read whole and parsed with others in one batch: a batch's
# fixed cost (tens of milliseconds) dwarfs a small file's own (one file per session),
# and groups of files are parsed side by side where one file alone would use one core.
# A file found to hold more than a batch of hands is read in batches instead.
SMALL_FILE_BYTES = 16 << 20
GROUP_BYTES = BATCH_BYTES  # a group is parsed once this much is split, at the latest
# Groups being parsed (each on its own thread) while the next files are split.
GROUPS_IN_FLIGHT = PARSE_THREADS
# Hands per reader batch: a reader's peak memory grows with it (JSON Lines, measured:
# about 0.65 GB at 5,000, 0.85 GB at 10,000, 1.2 GB at 20,000), its speed hardly.
READ_BATCH_HANDS = 10_000
COMPACT_SMALL_FILES = 16  # compact a table once it has this many small files...
COMPACT_SMALL_ROWS = 200_000  # ...of fewer rows than this,
COMPACT_TARGET_ROWS = 1_000_000  # into files of about this many (bounds its memory)
LOCK_TIMEOUT = 30.0
DEBUG_ENV = "OFC_STATS_DEBUG"  # set: a reader's own bug raises instead of a reject

TABLES = ("hands", "seats", "streets", "rejects", "hand_keys", "imports")

HAND_KEYS_SCHEMA = pl.Schema({
    "key": pl.UInt64(),  # hash_strings(site + "\x1f" + hand_id)
    "content": pl.UInt64(),  # the first 64 bits of content_hash
    # Fingerprints of what content_hash leaves out (see hand_keys): null when the hand
    # does not record that detail, never 0.
    "points": pl.UInt64(),  # the seats' reported_points
    "royalties": pl.UInt64(),  # the seats' reported_royalties
    "stakes": pl.UInt64(),  # point_value with currency
    "button": pl.UInt64(),  # button_seat
})
# The detail columns of hand_keys, as a conflict's reason names them.
DETAILS = {"points": "reported points", "royalties": "reported royalties",
           "stakes": "stakes", "button": "button seat"}

IMPORTS_SCHEMA = pl.Schema({
    "import_id": pl.String(),
    "commit_id": pl.Int64(),
    "imported_at": pl.Datetime("us", "UTC"),
    "file": pl.String(),
    "path": pl.String(),
    "member": pl.String(),
    "compression": pl.String(),
    "format": pl.String(),
    "size": pl.Int64(),
    "mtime": pl.Datetime("ns", "UTC"),
    "start_offset": pl.Int64(),
    "end_offset": pl.Int64(),
    "content_hash": pl.String(),
    "status": pl.String(),
    "hands_read": pl.Int64(),
    "hands_stored": pl.Int64(),
    "duplicates": pl.Int64(),
    "conflicts": pl.Int64(),
    "rejected": pl.Int64(),
    "message": pl.String(),
})


class ImportStatus(StrEnum):
    """How far an import of one file got, as stored in ``imports.status``."""

    PARTIAL = "partial"  # more of the file to read (a later commit, or a resumed run)
    COMPLETE = "complete"  # read to its end
    FAILED = "failed"  # its content cannot be read (unknown format, corrupt archive)


class IngestError(OfcStatsError):
    """A request ingest cannot carry out."""


class UnknownFormatOptionError(IngestError, ValueError):
    """A forced ``--format`` that is not one of the formats."""

    exit_code = 2


class RejectedHandsError(IngestError):
    """Strict mode: the import finished, but something was rejected or conflicted."""

    exit_code = 4

    def __init__(self, summary: IngestSummary) -> None:
        self.summary = summary
        super().__init__(f"{summary.problem_text()} (strict mode)")


class _PrefixChangedError(Exception):
    """A grown file no longer starts with the bytes imported last time."""


@dataclass(frozen=True)
class IngestProgress:
    """A snapshot of a running ingest, for progress bars."""

    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    hands_read: int
    hands_stored: int
    seconds: float
    current: str | None


ProgressCallback = Callable[[IngestProgress], None]


@dataclass(frozen=True)
class IngestSummary:
    """What one ingest did. ``as_dict()`` gives the ``--json`` output."""

    warehouse: str
    files: int  # sources considered (files, and each member of a zip)
    files_read: int  # read this time (new, grown or changed)
    files_unchanged: int  # already imported completely and unchanged: not read
    files_failed: int  # unreadable, corrupt or of an unknown format (in rejects)
    files_ignored: int  # in folders, skipped for a suffix that is not a history's
    bytes_read: int
    hands_read: int  # good hands the readers produced
    hands_stored: int
    duplicates: int
    conflicts: int
    rejected: int  # rejects rows written, conflicts excluded
    problems_by_kind: dict[str, int]
    commits: int
    files_compacted: int
    seconds: float

    @property
    def hands_per_second(self) -> float:
        """Hands read per second of the whole run."""
        return self.hands_read / self.seconds if self.seconds > 0 else 0.0

    @property
    def megabytes_per_second(self) -> float:
        """Megabytes (10^6) read from disk per second."""
        return self.bytes_read / 1e6 / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        """Plain values, for JSON output."""
        values = asdict(self)
        values["hands_per_second"] = round(self.hands_per_second, 1)
        values["megabytes_per_second"] = round(self.megabytes_per_second, 2)
        return values

    def report(self) -> str:
        """The summary as a few lines of text."""
        details = [f"{self.files_read:,} read", f"{self.files_unchanged:,} unchanged"]
        if self.files_failed:
            details.append(f"{self.files_failed:,} failed")
        if self.files_ignored:
            details.append(f"{self.files_ignored:,} ignored: not history files")
        head = (f"ingested {_count(self.files, 'file')} ({', '.join(details)}) into "
                f"{self.warehouse} in {self.seconds:.2f} s")
        if self.files_read == 0:
            return f"{head}\n  nothing new: every file is as it was when last imported"
        return (
            f"{head}\n"
            f"  {_count(self.hands_stored, 'hand')} stored, "
            f"{_count(self.duplicates, 'duplicate')}, {_count(self.conflicts, 'conflict')}, "
            f"{self.rejected:,} rejected (of {_count(self.hands_read, 'good hand')} read)\n"
            f"  {self.hands_per_second:,.0f} hands/s, {self.megabytes_per_second:,.1f} MB/s "
            f"({self.bytes_read / 1e6:,.1f} MB read, {_count(self.commits, 'commit')})"
        )

    def problem_text(self) -> str | None:
        """One line about what was set aside, or None when nothing was."""
        total = self.rejected + self.conflicts
        if total == 0:
            return None
        kinds = ", ".join(f"{kind} {count}" for kind, count in
                          sorted(self.problems_by_kind.items(), key=lambda item: -item[1]))
        return f"{_count(total, 'problem')} set aside in the warehouse's rejects table ({kinds})"


def _count(number: int, noun: str) -> str:
    """``1 hand``, ``2,500 hands``."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


# -- keys -------------------------------------------------------------------------

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_ALL_BITS = np.uint64(0xFFFFFFFFFFFFFFFF)
_SEED = np.uint64(0x6F66632D73746174)  # "ofc-stat"


def _mix(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """splitmix64's finaliser (wrapping uint64 arithmetic)."""
    values = values ^ (values >> np.uint64(30))
    values = values * _MIX_1
    values = values ^ (values >> np.uint64(27))
    values = values * _MIX_2
    return values ^ (values >> np.uint64(31))


def hash_strings(texts: pl.Series) -> npt.NDArray[np.uint64]:
    """A stable 64-bit hash of each string, vectorised over the Arrow buffers.

    The UTF-8 bytes are read 8 at a time (little-endian words) and mixed with
    splitmix64's finaliser, seeded with the length. Being our own definition, the
    values never change with a library version (they are stored in ``hand_keys``).

    >>> hex(int(hash_strings(pl.Series(["home\\x1fh1"]))[0]))
    '0x1b9491adbca5d389'
    """
    offsets, data = string_buffers(texts.cast(pl.String).fill_null(""))
    count = len(offsets) - 1
    starts = offsets[:-1]
    lengths = np.diff(offsets)
    hashes = _mix(lengths.astype(np.uint64) * _GOLDEN + _SEED)
    if count == 0:
        return hashes
    longest = int(lengths.max())
    padded = np.zeros(int(offsets[-1]) + 8, dtype=np.uint8)
    padded[:len(data[:offsets[-1]])] = data[:offsets[-1]]
    # Element i of this view is the little-endian word of bytes i..i+7.
    words = np.ndarray(buffer=padded, dtype="<u8", shape=(len(padded) - 7,), strides=(1,))
    for word in range(0, longest, 8):
        active = lengths > word
        remaining = np.minimum(lengths[active] - word, 8).astype(np.uint64)
        masks = np.where(remaining >= 8, _ALL_BITS,
                         (np.uint64(1) << (remaining * np.uint64(8))) - np.uint64(1))
        values = words[starts[active] + word] & masks
        hashes[active] = _mix(hashes[active] ^ values)
    return hashes


def _fingerprints(values: npt.NDArray[np.uint64], recorded: npt.NDArray[np.bool_]
                  ) -> pl.Series:
    """Mixed ``values`` as a UInt64 series: null where not ``recorded``, else never 0
    (0 stands for "not recorded" in :class:`HandIndex`)."""
    mixed = np.maximum(_mix(values ^ _SEED), np.uint64(1))
    return pl.Series(mixed, dtype=pl.UInt64).set(pl.Series(~recorded), None)


def _seat_hand_rows(hands: pl.DataFrame, seats: pl.DataFrame) -> npt.NDArray[np.int64]:
    """For each row of ``seats``, the row of its hand in ``hands`` (-1: none).

    Copies of a hand in one batch share (site, hand_id): only the seats' position tells
    them apart, so seats listed hand by hand in the hands' order (as a reader's batch
    lists them) are matched by position; otherwise by (site, hand_id), which needs
    every hand to be there once.
    """
    players = hands["players"].cast(pl.Int64).fill_null(0).to_numpy()
    if int(players.sum()) == seats.height:
        rows = np.repeat(np.arange(hands.height, dtype=np.int64), players)
        if (seats["hand_id"] == hands["hand_id"].gather(rows)).all() and (
                seats["site"] == hands["site"].gather(rows)).all():
            return rows
    ids = ["site", "hand_id"]
    if hands.select(pl.struct(ids).is_duplicated().any()).item():
        raise IngestError("internal: the seats of a hand repeated in a batch are not "
                          "listed hand by hand")
    return (seats.select(ids)
            .join(hands.select(ids).with_row_index("_row"), on=ids, how="left",
                  maintain_order="left")
            ["_row"].cast(pl.Int64).fill_null(-1).to_numpy())


def _seat_fingerprints(seats: pl.DataFrame, column: str, hand_rows: npt.NDArray[np.int64],
                       hands: int) -> pl.Series:
    """Per hand, a fingerprint of one integer column of its seats (null if no seat has
    a value). Each seat's number and value are mixed, then summed over the hand's seats:
    the seats' order does not matter, which seat has which value does."""
    mine = hand_rows >= 0
    rows = hand_rows[mine]
    values = seats[column].filter(pl.Series(mine))
    known = values.is_not_null().to_numpy()
    numbers = seats["seat"].filter(pl.Series(mine)).cast(pl.Int64).to_numpy().view(np.uint64)
    amounts = values.cast(pl.Int64).fill_null(0).to_numpy().view(np.uint64)
    mixed = _mix(_mix(numbers * _GOLDEN + known.astype(np.uint64)) ^ amounts)
    sums = np.zeros(hands, dtype=np.uint64)
    np.add.at(sums, rows, mixed)
    recorded = np.bincount(rows, weights=known, minlength=hands) > 0
    return _fingerprints(sums, recorded)


def hand_keys(hands: pl.DataFrame, seats: pl.DataFrame) -> pl.DataFrame:
    """The ``hand_keys`` rows (``HAND_KEYS_SCHEMA``) of ``hands``, given their ``seats``.

    ``seats`` holds the hands' seats listed hand by hand in the order of ``hands`` (as
    in a reader's batch), or in any order if no hand is in ``hands`` twice. The
    fingerprints are fixed definitions (our own mixing of the values: they are stored
    in every warehouse), null where the hand does not record the detail: points and
    royalties when no seat has them, stakes without a point value or currency, the
    button when unknown. A point value counts exactly, in millionths (its scale).
    """
    identity = hands.select(pl.concat_str(["site", "hand_id"], separator="\x1f")).to_series()
    hand_rows = _seat_hand_rows(hands, seats)
    point_value = hands["point_value"].cast(MONEY)
    millionths = (point_value * 1_000_000).cast(pl.Int64).fill_null(0).to_numpy().view(np.uint64)
    currency = hands["currency"]
    stakes = _mix(millionths ^ (point_value.is_not_null().to_numpy().astype(np.uint64)
                                * _GOLDEN)) ^ hash_strings(currency)
    button = hands["button_seat"].cast(pl.Int64).fill_null(0).to_numpy().view(np.uint64)
    return pl.DataFrame([
        pl.Series("key", hash_strings(identity), dtype=pl.UInt64),
        hands["content_hash"].str.slice(0, 16).str.to_integer(
            base=16, dtype=pl.UInt64, strict=False).fill_null(0).alias("content"),
        _seat_fingerprints(seats, "reported_points", hand_rows, hands.height).alias("points"),
        _seat_fingerprints(seats, "reported_royalties", hand_rows, hands.height
                           ).alias("royalties"),
        _fingerprints(stakes, (point_value.is_not_null() | currency.is_not_null()).to_numpy()
                      ).alias("stakes"),
        _fingerprints(button, hands["button_seat"].is_not_null().to_numpy()).alias("button"),
    ])


def detail_matrix(keys: pl.DataFrame) -> npt.NDArray[np.uint64]:
    """The detail fingerprints of a ``hand_keys`` frame, one column per ``DETAILS``
    entry, 0 where not recorded."""
    return keys.select(pl.col(name).fill_null(0) for name in DETAILS).to_numpy(
        order="c").astype(np.uint64, copy=False).reshape(keys.height, len(DETAILS))


def differing_details(mine: npt.NDArray[np.uint64], theirs: npt.NDArray[np.uint64]
                      ) -> npt.NDArray[np.int64]:
    """Per row, a bit per ``DETAILS`` entry that both record and that differs."""
    differ = (mine != 0) & (theirs != 0) & (mine != theirs)
    masks: npt.NDArray[np.int64] = differ.astype(np.int64) @ (
        np.int64(1) << np.arange(len(DETAILS), dtype=np.int64))
    return masks


def _detail_names(mask: int) -> str:
    """``reported points``, ``stakes and button seat``, ... for a differing_details bit mask."""
    names = [name for bit, name in enumerate(DETAILS.values()) if mask >> bit & 1]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# A differing_details mask as text, for every mask.
_DETAIL_TEXT = {mask: _detail_names(mask) for mask in range(1, 1 << len(DETAILS))}


class HandIndex:
    """The keys of every stored hand, as sorted numpy arrays, growing during a run."""

    MAX_PARTS = 8

    def __init__(self, keys: pl.DataFrame) -> None:
        # Per part, sorted by key: the keys, content keys and detail_matrix rows.
        self._parts: list[tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64],
                                npt.NDArray[np.uint64]]] = []
        self.add(keys)

    def __len__(self) -> int:
        return sum(len(part) for part, _, _ in self._parts)

    def add(self, keys: pl.DataFrame) -> None:
        """Add hands (a ``hand_keys`` frame)."""
        if keys.is_empty():
            return
        self._parts.append(self._sorted(keys))
        if len(self._parts) > self.MAX_PARTS:
            details = np.concatenate([d for _, _, d in self._parts])
            self._parts = [self._sorted(pl.DataFrame({
                "key": np.concatenate([k for k, _, _ in self._parts]),
                "content": np.concatenate([c for _, c, _ in self._parts]),
                **{name: details[:, column] for column, name in enumerate(DETAILS)}}))]

    @staticmethod
    def _sorted(keys: pl.DataFrame) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64],
                                             npt.NDArray[np.uint64]]:
        ordered = keys.sort("key")  # polars sorts on every core
        return ordered["key"].to_numpy(), ordered["content"].to_numpy(), detail_matrix(ordered)

    def lookup(self, keys: npt.NDArray[np.uint64]) -> tuple[
            npt.NDArray[np.bool_], npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
        """For each key: whether a stored hand has it, and that hand's content key and
        detail fingerprints (a detail_matrix row)."""
        found = np.zeros(len(keys), dtype=bool)
        contents = np.zeros(len(keys), dtype=np.uint64)
        details = np.zeros((len(keys), len(DETAILS)), dtype=np.uint64)
        for part_keys, part_contents, part_details in self._parts:
            where = np.minimum(np.searchsorted(part_keys, keys), len(part_keys) - 1)
            hit = (part_keys[where] == keys) & ~found
            contents[hit] = part_contents[where[hit]]
            details[hit] = part_details[where[hit]]
            found |= hit
        return found, contents, details


# -- one file's import ---------------------------------------------------------------


@dataclass
class _FileRun:
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

    def manifest_row(self, import_id: str, commit_id: int, now: dt.datetime
                     ) -> dict[str, Any]:
        return {
            "import_id": import_id, "commit_id": commit_id, "imported_at": now,
            "file": self.source.name, "path": str(self.source.path),
            "member": self.source.member, "compression": str(self.source.compression),
            "format": self.format, "size": self.source.size,
            "mtime": self.source.mtime_ns, "start_offset": self.start_offset,
            "end_offset": self.end_offset, "content_hash": self.digest,
            "status": str(self.status), "hands_read": self.hands_read,
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
class _GroupedFile:
    """A small file split whole, waiting to be parsed with others."""

    run: _FileRun
    reader: FileGroupReader
    split: SplitFile
    digest: str | None  # of its bytes up to the end of its last complete hand


@dataclass(frozen=True)
class _LastImport:
    """The latest manifest row of a source."""

    format: str | None
    size: int
    mtime_ns: int
    end_offset: int
    content_hash: str | None
    status: str
    hands_read: int = 0
    rejected: int = 0


@dataclass
class _Pending:
    """Frames waiting for the next commit."""

    hands: list[pl.DataFrame] = field(default_factory=list)
    seats: list[pl.DataFrame] = field(default_factory=list)
    streets: list[pl.DataFrame] = field(default_factory=list)
    rejects: list[pl.DataFrame] = field(default_factory=list)
    keys: list[pl.DataFrame] = field(default_factory=list)
    hand_count: int = 0
    size: int = 0

    def clear(self) -> None:
        for frames in (self.hands, self.seats, self.streets, self.rejects, self.keys):
            frames.clear()
        self.hand_count = self.size = 0


# Errors that mean a file's *content* cannot be read (corrupt archive data): the file
# is marked failed and skipped until it changes. An OSError with an errno is the
# system refusing (permissions, I/O): the next run tries again.
_CONTENT_ERRORS: tuple[type[BaseException], ...] = (*ARCHIVE_ERRORS, UnicodeError)


def _describe(error: BaseException, source: Source) -> tuple[str, bool]:
    """A reason for a file that could not be read, and whether its content is at fault."""
    what = {Compression.GZIP: "gzip", Compression.BZIP2: "bzip2", Compression.XZ: "xz",
            Compression.ZIP: "zip"}.get(source.compression)
    text = str(error) or type(error).__name__
    if isinstance(error, OSError) and error.errno is not None:
        return f"cannot read the file: {error.strerror or text}", False
    if isinstance(error, (*_CONTENT_ERRORS, OSError)):
        kind = f"corrupt {what} archive" if what else "unreadable data"
        return f"{kind}: {text}", True
    return f"the reader failed: {type(error).__name__}: {text} (please report this)", False


class _Ingestion:
    """The state of one ingest run (inside the warehouse's write lock)."""

    def __init__(self, warehouse: Warehouse, forced: Format | None, *,
                 progress: ProgressCallback | None, commit_hands: int, batch_hands: int,
                 started: float) -> None:
        self.warehouse = warehouse
        self.forced = forced
        self.progress = progress
        self.commit_hands = commit_hands
        self.batch_hands = batch_hands
        self.started = started
        self.import_id = uuid.uuid4().hex
        self.counter = ByteCounter()
        self.pending = _Pending()
        self.runs: list[_FileRun] = []
        self.kinds: Counter[str] = Counter()
        self.commits = 0
        self.committer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ofc-commit")
        self.in_flight: Future[None] | None = None
        self.in_flight_hands: list[pl.DataFrame] = []
        self.files_total = 0
        self.files_done = 0
        self.bytes_total = 0
        self.files_read = self.files_unchanged = self.files_failed = 0
        self.hands_read = self.hands_stored = self.duplicates = self.conflicts = 0
        self.rejected = 0
        self.archives = OpenArchive(self.counter)  # the zip whose members are being read
        self.group: list[_GroupedFile] = []  # small files split, not yet parsed
        # The groups being parsed while the next files are split (_read_group), oldest
        # first.
        self.group_pool = ThreadPoolExecutor(max_workers=GROUPS_IN_FLIGHT,
                                             thread_name_prefix="ofc-parse-group")
        self.parsing: deque[tuple[list[_GroupedFile], Future[CanonicalBatch]]] = deque()
        self.group_hands = self.group_bytes = 0
        self.upgraded = upgrade_warehouse(self.warehouse)  # files rewritten
        self._ensure_hand_keys()
        self.next_commit = warehouse.state().commit + 1
        self.index = HandIndex(warehouse.scan("hand_keys", schema=HAND_KEYS_SCHEMA).collect())
        self.manifest = self._load_manifest()

    # -- start ------------------------------------------------------------------------

    def _ensure_hand_keys(self) -> None:
        """Rebuild ``hand_keys`` if it does not match ``hands`` (written by an older tool:
        missing rows, or without the detail fingerprints), from ``hands`` and ``seats``."""
        state = self.warehouse.state()
        key_files = state.table_files("hand_keys")
        stored = sum(f.rows for f in state.table_files("hands"))
        if stored == sum(f.rows for f in key_files) and all(
                set(HAND_KEYS_SCHEMA) <= set(pl.read_parquet_schema(self.warehouse.root / f.path))
                for f in key_files):
            return
        seats = self.warehouse.scan("seats", schema=SEATS_SCHEMA).select(
            "site", "hand_id", "seat", "reported_points", "reported_royalties")
        staged = []
        for hands_file in state.table_files("hands"):  # one file at a time: bounded memory
            hands = pl.read_parquet(self.warehouse.root / hands_file.path, columns=[
                "site", "hand_id", "content_hash", "players", "point_value", "currency",
                "button_seat"])
            own_seats = seats.join(hands.lazy().select("site", "hand_id"),
                                   on=["site", "hand_id"], how="semi").collect()
            staged.append(self.warehouse.stage(
                PendingFile("hand_keys", hand_keys(hands, own_seats))))
        self.warehouse.commit([], [f.path for f in key_files], action="rebuild hand_keys",
                              staged=[f for f in staged if f is not None])

    def _load_manifest(self) -> dict[str, _LastImport]:
        rows = (self.warehouse.scan("imports", schema=IMPORTS_SCHEMA)
                .sort("commit_id").unique("file", keep="last").collect())
        return {row["file"]: _LastImport(
            row["format"], row["size"], row["mtime"], row["end_offset"],
            row["content_hash"], row["status"], row["hands_read"] or 0, row["rejected"] or 0)
            for row in rows.with_columns(pl.col("mtime").cast(pl.Int64)).iter_rows(named=True)}

    # -- files ------------------------------------------------------------------------

    def run(self, files: Sequence[Path]) -> None:
        self.files_total = len(files)
        for file in files:
            with contextlib.suppress(OSError):
                self.bytes_total += file.stat().st_size
        self._report(None)
        for file in files:
            before = self.counter.count
            try:
                sources = list_sources(file)
            except (OSError, zipfile.BadZipFile) as error:
                self._file_failed(file, error)
                sources = []
            else:
                self.files_total += len(sources) - 1
            read_before = self.files_read
            for source in sources:
                self._ingest_source(source)
                self.files_done += 1
                self._report(source.name)
            if self.files_read > read_before:
                # An archive's members share its bytes: count the file once, whole.
                with contextlib.suppress(OSError):
                    self.counter.count = max(self.counter.count,
                                             before + file.stat().st_size)
            self._report(None)
        self._read_group()
        self._commit()
        self.wait_for_commit()

    def _file_failed(self, file: Path, error: BaseException) -> None:
        """A file that could not even be opened or listed (a corrupt zip directory)."""
        compression = (Compression.ZIP if isinstance(error, zipfile.BadZipFile)
                       else Compression.NONE)
        try:
            status = file.stat()
            source = Source(file, None, compression, status.st_size, status.st_mtime_ns)
        except OSError:
            source = Source(file, None, compression, 0, 0)
        run = _FileRun(source, None, 0, 0, None)
        self.runs.append(run)
        self._fail(run, error)
        self.files_done += 1

    def _unchanged(self, source: Source, last: _LastImport | None) -> bool:
        return (last is not None
                and last.status in (ImportStatus.COMPLETE, ImportStatus.FAILED)
                and (last.size, last.mtime_ns) == (source.size, source.mtime_ns)
                and (self.forced is None or last.format == self.forced))

    def _misread(self, source: Source, last: _LastImport | None) -> bool:
        """Whether the last import read no hand, only problems, in a format the file's
        head does not show (a wrong ``--format``): then ``auto`` reads it again."""
        if (self.forced is not None or last is None or last.hands_read or not last.rejected
                or last.format is None):
            return False
        try:
            return str(formats.sniff(read_head(source, SNIFF_BYTES, self.archives),
                                     source.inner_name)) != last.format
        except Exception:  # unreadable or unknown: reading it again will say so
            return False

    def _ingest_source(self, source: Source) -> None:
        last = self.manifest.get(source.name)
        if self._misread(source, last):
            last = None  # read from the start, sniffed
        if self._unchanged(source, last):
            self.files_unchanged += 1
            return
        self.files_read += 1
        same_format = last is not None and (self.forced is None or last.format == self.forced)
        fmt = self.forced or (last.format if last is not None and same_format else None)
        start, expected = 0, None
        if (last is not None and same_format and last.end_offset > 0
                and last.content_hash is not None):
            start, expected = last.end_offset, last.content_hash
        run = _FileRun(source, fmt, start, start, None)
        self.runs.append(run)
        if run.format is None and not self._sniff(run):
            return
        if start == 0 and self._group_small_file(run):
            return
        self._read_group()  # files stay in order: the first copy of a hand is kept
        try:
            self._read(run, start, expected)
        except _PrefixChangedError:
            run.start_offset = run.end_offset = 0
            run.message = (f"the first {start:,} bytes changed since the last import: "
                           "read again from the start")
            run.format = self.forced
            if run.format is None and not self._sniff(run):
                return
            self._read(run, 0, None)

    def _sniff(self, run: _FileRun) -> bool:
        """Set ``run.format`` from the source's first bytes; False if there is nothing to read."""
        try:
            head = read_head(run.source, SNIFF_BYTES, self.archives)
            if not head:  # an empty file (a session just opened): nothing yet
                run.status = ImportStatus.COMPLETE
                run.digest = hashlib.sha256(b"").hexdigest()
                return False
            run.format = str(formats.sniff(head, run.source.inner_name))
        except UnknownFormatError as error:
            self._reject_file(run, "format", str(error))
            run.status = ImportStatus.FAILED
            self.files_failed += 1
            return False
        except Exception as error:
            self._fail(run, error)
            return False
        return True

    def _group_small_file(self, run: _FileRun) -> bool:
        """Split a small file read whole and keep it for :meth:`_read_group`; False if it
        is not one (too big, or in a format read file by file)."""
        source = run.source
        size = source.content_size
        if size is None:  # gz, bz2, xz: judged by the packed size, the content ~10x it
            size = source.size * 16
        reader = formats.get_reader(Format(str(run.format)))
        if size > SMALL_FILE_BYTES or not isinstance(reader, FileGroupReader):
            return False
        counted = self.counter.count
        try:
            with open_source(source, self.counter, self.archives) as raw:
                stream = PrefixHashingStream(raw)
                split = reader.split_file(cast(BinaryIO, stream), source.name,
                                          max_hands=self.batch_hands)
                end_offset = split.end_offset or 0
                stream.advance(end_offset)
                digest = stream.digest()
        except Exception as error:
            self._fail(run, error)
            return True
        if split.hands > self.batch_hands:  # more than a batch: read it in batches
            self.counter.count = counted
            return False
        self.group.append(_GroupedFile(run, reader, split, digest))
        self.group_hands += split.hands
        self.group_bytes += end_offset
        if self.group_hands >= self.batch_hands or self.group_bytes >= GROUP_BYTES:
            self._read_group(later=True)
        return True

    def _read_group(self, *, later: bool = False) -> None:
        """Parse the small files kept so far (each format's together) and accept them.

        With ``later``, the group is parsed on a thread while the next files are split
        (``GROUPS_IN_FLIGHT`` at most); groups are accepted in file order all the same.
        """
        items, self.group = self.group, []
        self.group_hands = self.group_bytes = 0
        if items:
            self.parsing.append((items, self.group_pool.submit(self._parse_group, items)))
        while self.parsing and (not later or len(self.parsing) > GROUPS_IN_FLIGHT
                                or self.parsing[0][1].done()):
            self._accept_group(*self.parsing.popleft())

    def _accept_group(self, items: list[_GroupedFile], parsed: Future[CanonicalBatch]) -> None:
        """Accept a parsed group.

        A hand held by several files of the group is accepted copy by copy in file
        order (a batch cannot tell copies' seats and streets apart, and the first copy
        in file order is the one kept): the group's other hands go in one batch, then
        each round of copies is parsed again from its source text and accepted.
        """
        try:
            batch = parsed.result()
        except Exception:
            # Readers do not raise for bad input; should one, each file is read alone,
            # so that the failure is told per file.
            for item in items:
                counted = self.counter.count  # its bytes were counted when split
                self._read(item.run, 0, None)
                self.counter.count = counted
            return
        runs = {item.run.source.name: item.run for item in items}
        ids = ["site", "hand_id"]
        order = {item.run.source.name: index for index, item in enumerate(items)}
        copies = (batch.hands.select(*ids, "source_file", "source_line")
                  .with_columns(pl.col("source_file").replace_strict(order, return_dtype=pl.Int64)
                                .alias("_order"))
                  .filter(pl.col("_order").n_unique().over(ids) > 1))
        if copies.is_empty():
            self._accept(batch, runs)
        else:
            shared = copies.select(ids).unique()
            others = [frame.join(shared, on=ids, how="anti", maintain_order="left")
                      for frame in (batch.hands, batch.seats, batch.streets)]
            self._accept(CanonicalBatch(others[0], others[1], others[2], batch.problems), runs)
            rounds = copies.with_columns(
                (pl.col("_order").rank("dense").over(ids) - 1).alias("_round"))
            for _, copy_round in rounds.group_by("_round", maintain_order=True):
                self._accept(self._parse_group(items, copy_round), runs)
        for item in items:
            item.run.end_offset = item.split.end_offset or 0
            item.run.digest = item.digest
            item.run.dirty = True
            if item.split.failure is None:
                item.run.status = ImportStatus.COMPLETE
            else:  # its hands before the damage are in; the damage is reported
                self._fail(item.run, item.split.failure)
        self._report(None)
        self._commit_if_due()

    @staticmethod
    def _parse_group(items: Sequence[_GroupedFile], only: pl.DataFrame | None = None
                     ) -> CanonicalBatch:
        """The hands of grouped files as one batch (each format parsed together); with
        ``only`` (``source_file``, ``source_line`` rows), just those hands, and no
        problems of the files' splitting (reported with the rest of the group)."""
        splits: dict[str, tuple[FileGroupReader, list[SplitFile]]] = {}
        for item in items:
            split = item.split
            if only is not None:
                lines = only.filter(pl.col("source_file") == split.file)["source_line"]
                if lines.is_empty():
                    continue
                split = dataclasses.replace(split, parts=[part.only(lines)
                                                          for part in split.parts])
            splits.setdefault(str(item.run.format), (item.reader, []))[1].append(split)
        return CanonicalBatch.concat([reader.parse_files(files)
                                      for reader, files in splits.values()])

    def _read(self, run: _FileRun, start: int, expected: str | None) -> None:
        """Read ``run``'s source from ``start``; ``expected``: the hash of the bytes before."""
        reader = formats.get_reader(Format(str(run.format)))
        with open_source(run.source, self.counter, self.archives) as raw:
            stream = PrefixHashingStream(raw, check_offset=start)
            batches = reader.read(cast(BinaryIO, stream), run.source.name,
                                  batch_hands=self.batch_hands, start_offset=start)
            verified = expected is None
            try:
                while True:
                    try:
                        read_batch = next(batches)
                    except StopIteration:
                        break
                    except Exception as error:
                        if not verified and stream.check_digest != expected:
                            raise _PrefixChangedError from error
                        self._fail(run, error)
                        return
                    if not verified:
                        if stream.check_digest != expected:
                            raise _PrefixChangedError
                        verified = True
                    stream.advance(read_batch.end_offset)
                    self._accept(read_batch.batch, {run.source.name: run})
                    run.end_offset = max(run.end_offset, read_batch.end_offset)
                    run.digest = stream.digest()
                    run.dirty = True
                    self._report(run.source.name)
                    self._commit_if_due()
            finally:
                if isinstance(batches, Generator):
                    batches.close()
            if not verified and stream.check_digest != expected:
                raise _PrefixChangedError
            if run.digest is None and stream.mark == run.end_offset:
                run.digest = stream.digest()
        run.status = ImportStatus.COMPLETE
        run.dirty = True

    def _fail(self, run: _FileRun, error: BaseException) -> None:
        if (os.environ.get(DEBUG_ENV) and not isinstance(error, (OSError, *_CONTENT_ERRORS))):
            raise error
        reason, content = _describe(error, run.source)
        if run.end_offset > 0:
            reason += f" (after byte {run.end_offset:,} of its content)"
        self._reject_file(run, "file", reason)
        self.files_failed += 1
        if content:
            run.status = ImportStatus.FAILED

    def _reject_file(self, run: _FileRun, kind: str, reason: str) -> None:
        frame = pl.DataFrame([{"file": run.source.name, "line": None, "site": None,
                               "hand_id": None, "kind": kind, "reason": reason,
                               "raw": None}], schema=PROBLEMS_SCHEMA)
        self.pending.rejects.append(frame)
        run.rejected += 1
        run.message = reason
        run.dirty = True
        self.rejected += 1
        self.kinds[kind] += 1

    # -- hands ------------------------------------------------------------------------

    def _accept(self, batch: CanonicalBatch, runs: Mapping[str, _FileRun]) -> None:
        """Queue a batch's new hands; count duplicates; report problems and conflicts.

        ``runs``: the files the batch's hands and problems come from, by name.
        """
        problems = batch.problems
        if not problems.is_empty():
            self.pending.rejects.append(problems)
            _add_per_file(runs, problems["file"], "rejected")
            self.rejected += problems.height
            self.kinds.update(problems["kind"].to_list())
        hands = batch.hands
        _add_per_file(runs, hands["source_file"], "hands_read")
        self.hands_read += hands.height
        if hands.is_empty():
            return
        keys = hand_keys(hands, batch.seats)
        key_values = keys["key"].to_numpy()
        content_values = keys["content"].to_numpy()
        details = detail_matrix(keys)
        found, stored_content, stored_details = self.index.lookup(key_values)
        suspect = found & (stored_content != content_values)
        # The same content, but a detail it leaves out (points, stakes...) differs.
        changed = np.where(found & ~suspect, differing_details(details, stored_details), 0)
        stored = None
        if suspect.any() or changed.any():
            stored = self._stored_copies(
                hands.filter(suspect | (changed > 0)).select("site", "hand_id"))
        if stored is not None and suspect.any():
            # A key with other content: a conflict if the stored hand really has this
            # (site, hand_id), else two keys colliding (then this hand is new).
            really = (hands.select("site", "hand_id")
                      .join(stored.select("site", "hand_id", pl.lit(True).alias("_stored")),
                            on=["site", "hand_id"], how="left", maintain_order="left")
                      ["_stored"].fill_null(False).to_numpy())
            found &= ~suspect | really
            suspect &= really
        first = hands.select(pl.struct("site", "hand_id").is_first_distinct()).to_series()
        first_copy = first.to_numpy()
        new = ~found & first_copy
        later_copy = ~found & ~first_copy
        conflict_mask = suspect | (changed > 0)
        duplicate_mask = found & ~conflict_mask
        conflict_parts = []
        if stored is not None and conflict_mask.any():
            conflict_parts.append(self._conflicts(hands.filter(conflict_mask),
                                                  changed[conflict_mask], stored, "stored",
                                                  batch))
        if later_copy.any():
            firsts = hands.filter(new).select(
                "site", "hand_id", pl.col("content_hash").alias("_first_hash"),
                pl.col("source_file").alias("_first_file"),
                pl.col("source_line").alias("_first_line"),
                pl.Series("_first_row", np.flatnonzero(new)))
            joined = (hands.select("site", "hand_id", "content_hash")
                      .join(firsts, on=["site", "hand_id"], how="left", maintain_order="left"))
            same = (joined["content_hash"] == joined["_first_hash"]).fill_null(False).to_numpy()
            first_rows = joined["_first_row"].fill_null(0).to_numpy()
            copy_changed = np.where(later_copy & same,
                                    differing_details(details, details[first_rows]), 0)
            duplicate_mask |= later_copy & same & (copy_changed == 0)
            differing = later_copy & ~(same & (copy_changed == 0))
            conflict_mask |= differing
            if differing.any():
                earlier = firsts.rename({"_first_hash": "content_hash",
                                         "_first_file": "source_file",
                                         "_first_line": "source_line"})
                conflict_parts.append(self._conflicts(hands.filter(differing),
                                                      copy_changed[differing], earlier,
                                                      "read", batch))
        duplicates = int(duplicate_mask.sum())
        conflicts = int(conflict_mask.sum())
        _add_per_file(runs, hands["source_file"].filter(pl.Series(duplicate_mask)), "duplicates")
        _add_per_file(runs, hands["source_file"].filter(pl.Series(conflict_mask)), "conflicts")
        self.duplicates += duplicates
        self.conflicts += conflicts
        if conflicts:
            self.kinds["conflict"] += conflicts
            self.pending.rejects.extend(conflict_parts)
        if not new.any():
            return
        if new.all():  # the usual first import: every hand is new, no joins needed
            accepted, seats, streets = hands, batch.seats, batch.streets
        else:
            kept = batch.with_hands(hands.filter(new))
            accepted, seats, streets = kept.hands, kept.seats, kept.streets
        if later_copy.any():
            resolved = _first_copies(accepted, seats, streets,
                                     hands.filter(~found).select("site", "hand_id"))
            accepted, seats, streets = resolved.hands, resolved.seats, resolved.streets
            if not resolved.unresolved.is_empty():
                self._unresolved(resolved.unresolved, hands.filter(new), runs)
            if resolved.streets_dropped:
                message = (f"{_count(resolved.streets_dropped, 'hand')} stored without "
                           "streets: copies in one batch could not be told apart")
                for name in hands["source_file"].filter(pl.Series(later_copy)).unique():
                    _run_named(runs, name).message = message
        if accepted.is_empty():
            return
        if accepted.height == hands.height:
            accepted_keys = keys
        elif accepted.height == int(new.sum()):
            accepted_keys = keys.filter(pl.Series(new))
        else:  # copies that could not be told apart were dropped
            accepted_keys = hand_keys(accepted, seats)
        self.index.add(accepted_keys)
        self.pending.hands.append(accepted)
        self.pending.seats.append(seats)
        self.pending.streets.append(streets)
        self.pending.keys.append(accepted_keys)
        self.pending.hand_count += accepted.height
        self.pending.size += int(accepted.estimated_size() + seats.estimated_size()
                                 + streets.estimated_size())
        _add_per_file(runs, accepted["source_file"], "hands_stored")
        self.hands_stored += accepted.height

    def _unresolved(self, ids: pl.DataFrame, firsts: pl.DataFrame,
                    runs: Mapping[str, _FileRun]) -> None:
        """Reject the first copies of hands whose differing copies in one batch could not
        be told apart (the later copies are already counted as conflicts)."""
        rows = (firsts.join(ids, on=["site", "hand_id"], how="semi", maintain_order="left")
                .select(pl.col("source_file").alias("file"), pl.col("source_line").alias("line"),
                        "site", "hand_id", pl.lit("conflict").alias("kind"),
                        pl.lit("different copies of this hand in one stretch of the file "
                               "could not be told apart: none was stored").alias("reason"),
                        pl.lit(None, pl.String).alias("raw"))
                .cast(PROBLEMS_SCHEMA))
        self.pending.rejects.append(rows)
        _add_per_file(runs, rows["file"], "conflicts")
        self.conflicts += rows.height
        self.kinds["conflict"] += rows.height

    def _stored_copies(self, ids: pl.DataFrame) -> pl.DataFrame:
        """The stored hands (committed, or pending in this run) with these (site, hand_id)."""
        columns = ["site", "hand_id", "content_hash", "source_file", "source_line"]
        ids = ids.unique()
        parts = [frame.select(columns).join(ids, on=["site", "hand_id"], how="semi")
                 for frame in (*self.pending.hands, *self.in_flight_hands)]
        parts.append(self.warehouse.scan("hands", schema=HANDS_SCHEMA).select(columns)
                     .join(ids.lazy(), on=["site", "hand_id"], how="semi").collect())
        return pl.concat(parts).unique(["site", "hand_id"], keep="first", maintain_order=True)

    def _conflicts(self, incoming: pl.DataFrame, details: npt.NDArray[np.int64],
                   kept: pl.DataFrame, verb: str, batch: CanonicalBatch) -> pl.DataFrame:
        """A ``conflict`` reject for each incoming hand, naming the copy that was kept.

        ``details``: per incoming hand, the differing_details mask of a copy with the
        same content; 0 for a copy with different content.
        """
        kept = kept.select("site", "hand_id", pl.col("content_hash").alias("_kept_hash"),
                           pl.col("source_file").alias("_kept_file"),
                           pl.col("source_line").alias("_kept_line"))
        # Seats as text for the raw column, where the batch holds one copy of the hand.
        single = incoming.select("site", "hand_id").filter(
            ~pl.struct("site", "hand_id").is_in(
                batch.hands.filter(pl.struct("site", "hand_id").is_duplicated())
                .select(pl.struct("site", "hand_id")).to_series().implode()))
        seat_text = seat_lines(batch.seats.join(single, on=["site", "hand_id"], how="semi"))
        return conflict_rejects(
            incoming.with_columns(pl.Series("_details", details, dtype=pl.Int64),
                                  pl.lit(verb).alias("_verb"))
            .join(kept, on=["site", "hand_id"], how="left", maintain_order="left")
            .join(seat_text, on=["site", "hand_id"], how="left", maintain_order="left"))

    # -- commits --------------------------------------------------------------------

    def _commit_if_due(self) -> None:
        """Commit once enough hands or bytes are pending."""
        if self.pending.hand_count >= self.commit_hands or self.pending.size >= COMMIT_BYTES:
            self._commit()

    def _commit(self) -> None:
        """Commit the pending frames and the manifest rows of every file touched.

        The Parquet files are written by a background thread while the next batches
        are read; one commit at a time, in order (the previous one is waited for first).
        """
        dirty = [run for run in self.runs if run.dirty]
        if not dirty and self.pending.hand_count == 0 and not self.pending.rejects:
            return
        self.wait_for_commit()
        commit_id = self.next_commit
        now = dt.datetime.now(dt.UTC)
        imports = _imports_frame([run.manifest_row(self.import_id, commit_id, now)
                                  for run in dirty])
        frames = {"hands": (list(self.pending.hands), HANDS_SCHEMA),
                  "seats": (list(self.pending.seats), SEATS_SCHEMA),
                  "streets": (list(self.pending.streets), STREETS_SCHEMA),
                  "rejects": (list(self.pending.rejects), PROBLEMS_SCHEMA),
                  "hand_keys": (list(self.pending.keys), HAND_KEYS_SCHEMA),
                  "imports": ([imports], IMPORTS_SCHEMA)}
        meta = {"import_id": self.import_id, "hands": self.pending.hand_count,
                "files": [run.source.name for run in dirty]}
        self.in_flight_hands = frames["hands"][0]
        self.in_flight = self.committer.submit(self._write_commit, frames, meta, commit_id)
        self.next_commit += 1
        self.commits += 1
        for run in dirty:
            run.written()
        self.runs = [run for run in self.runs if run.status is ImportStatus.PARTIAL]
        self.pending.clear()

    def _write_commit(self, frames: dict[str, tuple[list[pl.DataFrame], pl.Schema]],
                      meta: dict[str, Any], expected: int) -> None:
        adds = [PendingFile(table, _concat(parts, schema))
                for table, (parts, schema) in frames.items()]
        committed = self.warehouse.commit(adds, action="ingest", meta=meta)
        if committed != expected:  # the manifest rows name the commit: they must agree
            raise IngestError(f"internal: commit {committed} written as {expected}")

    def wait_for_commit(self) -> None:
        """Wait for the commit being written (re-raising its error, if any)."""
        if self.in_flight is not None:
            future, self.in_flight = self.in_flight, None
            future.result()
            self.in_flight_hands = []

    def close(self) -> None:
        """Finish the commit in flight (also when interrupted: it is whole or absent).

        A group still being parsed then is dropped: none of its files was committed,
        so the next run reads them.
        """
        try:
            self.wait_for_commit()
        finally:
            self.group_pool.shutdown(wait=True, cancel_futures=True)
            self.committer.shutdown(wait=True)
            self.archives.close()

    def compact(self) -> int:
        """Merge the small files of tables that have accumulated many (after the run)."""
        merged = 0
        for table in TABLES:
            small = [f for f in self.warehouse.state().table_files(table)
                     if f.rows < COMPACT_SMALL_ROWS]
            if len(small) >= COMPACT_SMALL_FILES:
                merged += self.warehouse.compact(table, target_rows=COMPACT_TARGET_ROWS,
                                                 small_rows=COMPACT_SMALL_ROWS)
        return merged

    def _report(self, current: str | None) -> None:
        if self.progress is None:
            return
        self.progress(IngestProgress(
            files_done=self.files_done, files_total=self.files_total,
            bytes_done=min(self.counter.count, self.bytes_total),
            bytes_total=self.bytes_total, hands_read=self.hands_read,
            hands_stored=self.hands_stored, seconds=time.perf_counter() - self.started,
            current=current))


def _run_named(runs: Mapping[str, _FileRun], name: str | None) -> _FileRun:
    """The run of a file name (any run for a name none has: counts are never lost)."""
    run = runs.get(name) if name is not None else None
    return run if run is not None else next(iter(runs.values()))


def _add_per_file(runs: Mapping[str, _FileRun], files: pl.Series, counter: str) -> None:
    """Add to each run's ``counter`` the rows of ``files`` (file names) naming it."""
    if files.is_empty():
        return
    counts = ([(next(iter(runs)), files.len())] if len(runs) == 1
              else files.value_counts().iter_rows())
    for name, count in counts:
        run = _run_named(runs, name)
        setattr(run, counter, getattr(run, counter) + int(count))


def _concat(frames: list[pl.DataFrame], schema: pl.Schema) -> pl.DataFrame:
    # No rechunk: the Parquet writer takes the chunks as they are, without a copy.
    return pl.concat(frames, how="vertical", rechunk=False) if frames else schema.to_frame()


def _imports_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    frame = pl.DataFrame(rows, schema_overrides={"mtime": pl.Int64}, strict=False)
    return frame.select(
        pl.col(name).cast(pl.Datetime("ns", "UTC")) if name == "mtime"
        else pl.col(name).cast(dtype) for name, dtype in IMPORTS_SCHEMA.items())


def seat_lines(seats: pl.DataFrame, keys: Sequence[str] = ("site", "hand_id")
               ) -> pl.DataFrame:
    """``keys`` and ``_seats``: each hand's seats (grouped by ``keys``) as one line of
    text, ``seat 1 alice (fantasyland): Ah Kd Qs / ... / ...``, a conflict's raw text."""
    return (
        seats.sort(*keys, "seat")
        .group_by(*keys, maintain_order=True)
        .agg(pl.format("seat {} {}{}: {} / {} / {}", "seat", "player",
                       pl.when(pl.col("in_fantasyland")).then(pl.lit(" (fantasyland)"))
                       .otherwise(pl.lit("")),
                       pl.col("top").fill_null(""), pl.col("middle").fill_null(""),
                       pl.col("bottom").fill_null("")).str.join("; ").alias("_seats"))
    )


def conflict_rejects(conflicts: pl.DataFrame) -> pl.DataFrame:
    """The ``rejects`` rows (``PROBLEMS_SCHEMA``) of copies of hands that conflict with
    the copy kept.

    ``conflicts`` holds, per rejected copy, its ``source_file``, ``source_line``,
    ``site``, ``hand_id``, ``content_hash``, ``variant``, ``table`` and ``started_at``;
    the kept copy's ``_kept_hash``, ``_kept_file`` and ``_kept_line``; ``_details``,
    the differing_details mask (0: the content differs); ``_verb``, ``stored`` (the
    kept copy was stored before) or ``read`` (read earlier in the same batch); and
    ``_seats``, the copy's seats as text (:func:`seat_lines`) or null.
    """
    kept_copy = (pl.when(pl.col("_verb") == "stored").then(pl.lit("the stored copy"))
                 .otherwise(pl.lit("the earlier copy")))
    details = pl.col("_details").replace_strict(_DETAIL_TEXT, default=None,
                                                return_dtype=pl.String)
    return (
        conflicts.select(
            pl.col("source_file").alias("file"), pl.col("source_line").alias("line"),
            "site", "hand_id", pl.lit("conflict").alias("kind"),
            pl.when(details.is_null()).then(pl.format(
                "hand {} of {} was already {} from {} line {} with different content "
                "(content hash {} there, {} here): the copy already there was kept",
                "hand_id", "site", "_verb", "_kept_file", "_kept_line",
                pl.col("_kept_hash").str.slice(0, 12), pl.col("content_hash").str.slice(0, 12)))
            .otherwise(pl.format(
                "hand {} of {} was already {} from {} line {} with the same players and "
                "boards, but this copy differs from {} in its {}: the copy already there "
                "was kept", "hand_id", "site", "_verb", "_kept_file", "_kept_line",
                kept_copy, details)).alias("reason"),
            pl.concat_str([
                pl.format("{} {} {} at {}", "variant", pl.col("table"), "hand_id",
                          pl.col("started_at").dt.strftime("%Y-%m-%dT%H:%M:%SZ")),
                pl.col("_seats")], separator=": ", ignore_nulls=True).alias("raw"),
        )
        .cast(PROBLEMS_SCHEMA)
    )


@dataclass(frozen=True)
class _Resolved:
    """The first copies of hands repeated in a batch (see :func:`_first_copies`)."""

    hands: pl.DataFrame
    seats: pl.DataFrame
    streets: pl.DataFrame
    unresolved: pl.DataFrame  # (site, hand_id) of hands whose seats could not be found
    streets_dropped: int


def _first_copies(hands: pl.DataFrame, seats: pl.DataFrame, streets: pl.DataFrame,
                  all_ids: pl.DataFrame) -> _Resolved:
    """Seats and streets of only the first copy of hands that appear twice in a batch.

    Canonical seats and streets name their hand by (site, hand_id) alone, so copies in
    one batch share them. Identical copies (the usual case: a file holding a hand
    twice) are resolved in bulk by keeping one of each distinct row. Copies that
    differ (rare: a conflict inside one batch) go through a per-hand loop that finds
    the seats whose content hash is the first copy's, then the street actions that
    fit those seats; a hand whose streets cannot be told apart keeps its boards and
    loses its streets (``has_streets`` false, counted in ``streets_dropped``).
    """
    ids = ["site", "hand_id"]
    repeated = all_ids.filter(pl.struct(ids).is_duplicated()).unique()
    if repeated.is_empty():
        return _Resolved(hands, seats, streets, repeated, 0)
    seat_copies = seats.join(repeated, on=ids, how="semi").unique(maintain_order=True)
    street_copies = streets.join(repeated, on=ids, how="semi").unique(maintain_order=True)
    # Identical copies leave one distinct row per seat and per street action.
    seats_per_hand = seat_copies.group_by(ids).agg(
        pl.len().alias("_rows"), pl.col("seat").n_unique().alias("_seats"))
    ambiguous = pl.concat([
        seats_per_hand.join(hands.select(*ids, "players"), on=ids, how="left")
        .filter((pl.col("_rows") != pl.col("_seats"))
                | (pl.col("_seats") != pl.col("players").cast(pl.UInt32)))
        .select(ids),
        street_copies.group_by(*ids, "action_order").len()
        .filter(pl.col("len") > 1).select(ids),
    ]).unique()
    simple = repeated.join(ambiguous, on=ids, how="anti")
    seat_parts = [seats.join(repeated, on=ids, how="anti", maintain_order="left"),
                  seat_copies.join(simple, on=ids, how="semi", maintain_order="left")]
    street_parts = [streets.join(repeated, on=ids, how="anti", maintain_order="left"),
                    street_copies.join(simple, on=ids, how="semi", maintain_order="left")]
    no_streets: list[tuple[str, str]] = []
    unresolved: list[tuple[str, str]] = []
    for hand in hands.join(ambiguous, on=ids, how="semi").iter_rows(named=True):
        key = (pl.col("site") == hand["site"]) & (pl.col("hand_id") == hand["hand_id"])
        chosen = _matching_seats(hand, seat_copies.filter(key))
        if chosen is None:
            unresolved.append((hand["site"], hand["hand_id"]))
            continue
        seat_parts.append(chosen)
        fitting = _fitting_streets(chosen, street_copies.filter(key))
        if fitting is None:
            no_streets.append((hand["site"], hand["hand_id"]))
        else:
            street_parts.append(fitting)
    gone = pl.DataFrame(unresolved, schema={"site": pl.String, "hand_id": pl.String},
                        orient="row")
    hands = hands.join(gone, on=ids, how="anti", maintain_order="left")
    if no_streets:
        hands = hands.with_columns(
            pl.when(pl.struct(ids).is_in(
                pl.DataFrame(no_streets, schema=gone.schema, orient="row")
                .select(pl.struct(ids)).to_series().implode()))
            .then(pl.lit(False)).otherwise(pl.col("has_streets")).alias("has_streets"))
    return _Resolved(hands, pl.concat(seat_parts), pl.concat(street_parts), gone,
                     len(no_streets))


MAX_SEAT_COMBINATIONS = 4096


def _matching_seats(hand: dict[str, Any], candidates: pl.DataFrame) -> pl.DataFrame | None:
    """The seats among ``candidates`` whose content hash is the hand's, or None."""
    by_seat = candidates.partition_by("seat", maintain_order=True)
    players = int(hand["players"])
    if len(by_seat) == players and all(part.height == 1 for part in by_seat):
        return candidates  # identical copies: one row per seat
    options = []
    for seat_numbers in itertools.combinations(range(len(by_seat)), players):
        for rows in itertools.product(*(range(by_seat[s].height) for s in seat_numbers)):
            options.append([(s, r) for s, r in zip(seat_numbers, rows, strict=True)])
            if len(options) >= MAX_SEAT_COMBINATIONS:
                break
    if not options:
        return None
    seats = pl.concat([by_seat[s].slice(r, 1).with_columns(pl.lit(number).alias("record"))
                       for number, option in enumerate(options) for s, r in option])
    hands = pl.DataFrame({key: [hand[key]] * len(options) for key in
                          ("site", "hand_id", "table", "started_at", "variant")},
                         schema_overrides={"started_at": pl.Datetime("us", "UTC")}
                         ).with_row_index("record").with_columns(pl.col("record").cast(pl.Int64))
    hashes = content_hash(hands, seats.with_columns(pl.col("record").cast(pl.Int64)))
    matches = np.flatnonzero((hashes == hand["content_hash"]).to_numpy())
    if len(matches) == 0:
        return None
    return seats.filter(pl.col("record") == int(matches[0])).drop("record")


def _fitting_streets(seats: pl.DataFrame, streets: pl.DataFrame) -> pl.DataFrame | None:
    """The street rows of one hand that fit its chosen seats (one per action), or None."""
    if streets.is_empty():
        return streets
    if streets["action_order"].n_unique() == streets.height:
        return streets  # identical copies
    boards = seats.select(
        "seat", board_list_expr().alias("cards"),
        pl.col("discards").fill_null(""))
    joined = streets.join(boards, on="seat", how="inner", maintain_order="left")
    row_cards = (pl.when(pl.col("row") == "top").then(pl.col("cards").list.slice(0, 3))
                 .when(pl.col("row") == "middle").then(pl.col("cards").list.slice(3, 5))
                 .otherwise(pl.col("cards").list.slice(8, 5)))
    fits = joined.filter(
        pl.when(pl.col("action") == "discard")
        .then(pl.col("discards").str.split(" ").list.contains(card_names_expr(pl.col("card"))))
        .otherwise(row_cards.list.contains(pl.col("card"))))
    counts = fits.group_by("action_order").len()
    if (counts["len"] != 1).any() or counts.height != streets["action_order"].n_unique():
        return None
    return fits.select(streets.columns)


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
           compact: bool = True) -> IngestSummary:
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

    Returns:
        What was read, stored, skipped and set aside.

    Raises:
        SourceError: a path that does not exist or a glob that matches nothing.
        UnknownFormatOptionError: ``fmt`` is not a format.
        WarehouseError: the warehouse is busy (after ``lock_timeout``) or invalid.
        RejectedHandsError: ``strict`` and something was set aside.
    """
    from ofc_stats.db import database_is_current, refresh_database

    started = time.perf_counter()
    forced = _as_format(fmt)
    store = (warehouse if isinstance(warehouse, Warehouse)
             else Warehouse.open(warehouse if warehouse is not None else default_warehouse(),
                                 create=True))
    files, ignored = find_files(paths, exclude=store.root)
    with store.writing(timeout=lock_timeout):
        run = _Ingestion(store, forced, progress=progress, commit_hands=commit_hands,
                         batch_hands=batch_hands, started=started)
        try:
            run.run(files)
        finally:
            run.close()
        compacted = run.compact() if compact else 0
        if run.commits or compacted or run.upgraded or not database_is_current(store):
            refresh_database(store)  # ofc.duckdb's views list the committed files
    summary = IngestSummary(
        warehouse=str(store.root), files=run.files_total, files_read=run.files_read,
        files_unchanged=run.files_unchanged, files_failed=run.files_failed,
        files_ignored=ignored, bytes_read=run.counter.count, hands_read=run.hands_read,
        hands_stored=run.hands_stored, duplicates=run.duplicates, conflicts=run.conflicts,
        rejected=run.rejected, problems_by_kind=dict(run.kinds), commits=run.commits,
        files_compacted=compacted, seconds=time.perf_counter() - started)
    if strict and summary.problem_text() is not None:
        raise RejectedHandsError(summary)
    return summary
