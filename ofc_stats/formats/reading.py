"""What every reader shares: the batch loop, and helpers to build raw frames.

A reader works in two steps. Its parser first *splits* each
:class:`~ofc_stats.formats.streaming.TextChunk` into units (hands, one text each),
cheaply and chunk by chunk, finding where hands start and end; the damage it sees on
the way (undecodable bytes, a half-written last hand) becomes problems. Once about
``batch_hands`` units are gathered, it *parses* them all at once into the raw frames
:func:`ofc_stats.formats.canonical.normalise` takes (see its module doc), which checks them in
bulk. :func:`read_batches` drives the two steps and yields
:class:`ReadBatch` objects; doing the heavy work per batch, not per
chunk, keeps the fixed cost of each vectorised step small.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.engine.rules import Row
from ofc_stats.formats.canonical import MAX_RAW_CHARS, CanonicalBatch, normalise
from ofc_stats.formats.card_lists import list_card_tokens, with_card_lists
from ofc_stats.formats.dealt import dealt_mismatch
from ofc_stats.formats.streaming import (
    ByteSource,
    Positions,
    TextChunk,
    string_buffers,
    strings_between,
)
from ofc_stats.util.cores import available_cores
from ofc_stats.warehouse.schemas import PROBLEMS_SCHEMA

TRUNCATED = "the file ends inside this hand (half-written?); read again once complete"
# Files parsed together (parse_files) are told apart by the high bits of each unit's
# line number (or byte offset) while in one batch.
FILE_SHIFT = 40
# Batches parsed at once while the next are split (read_batches): one a core, up to 8
# (the splitting, on one thread, keeps up with about that many).
PARSE_THREADS = min(8, available_cores())
# A batch also ends after this much text (and the rest of its chunk): what parsing holds
# follows the bytes, and hands differ in size (four players, Fantasyland, fpdb's JSON).
# The text in flight stays at about 24 MiB however many batches are (fpdb-3's hands,
# 10 KB each, stop at it: 100 k of them peak at 0.82 GiB, 0.90 at 32 MiB).
BATCH_BYTES = max(4 << 20, (24 << 20) // PARSE_THREADS)


@dataclass(frozen=True)
class ReadBatch:
    """One batch of a file read, with how far into the file it got.

    ``end_offset`` is the byte offset in the (decompressed) input just after the last
    complete hand of this batch: reading again from there yields only new hands, so
    a file that grows (a live session appending) can be imported incrementally.
    """

    batch: CanonicalBatch
    end_offset: int


def file_index(line: str = "line") -> pl.Expr:
    """Which of the files parsed together a line number belongs to (0 for one file)."""
    return pl.col(line) // (1 << FILE_SHIFT)


def line_in_file(line: str = "line") -> pl.Expr:
    """A line number (or byte offset) within its own file."""
    return pl.col(line) % (1 << FILE_SHIFT)


TRUE_WORDS = ("true", "yes", "y", "1", "t", "x")
FALSE_WORDS = ("false", "no", "n", "0", "f", "")


@dataclass(frozen=True)
class Units:
    """The hands split off the start of one chunk.

    ``frame`` has one row per hand: ``line`` (where it starts), ``text`` (its source
    text) and whatever else the parser keeps; or, with a ``unit`` column numbering
    ``units`` hands 0, 1, ..., several rows per hand (a CSV hand's rows).
    ``problems`` (``PROBLEMS_SCHEMA``) are stretches set aside while splitting.
    ``consumed`` is the bytes of ``chunk.data`` they took, and ``end_offset`` the
    source offset just after the last complete one (a half-written hand at the end of
    the stream is not complete).
    """

    frame: pl.DataFrame
    problems: pl.DataFrame
    consumed: int
    end_offset: int
    units: int | None = None

    @property
    def hands(self) -> int:
        """Hands in ``frame``."""
        return self.units if self.units is not None else self.frame.height

    @property
    def count(self) -> int:
        """Hands and stretches split off."""
        return self.hands + self.problems.height

    def only(self, lines: pl.Series) -> Units:
        """Just the hands starting at ``lines``, without the problems."""
        if self.units is None:
            return dataclasses.replace(self, frame=self.frame.filter(
                pl.col("line").is_in(lines.implode())), problems=self.problems.clear())
        # A hand of several rows (a CSV hand) starts at its first row's line.
        kept = self.frame.filter(pl.col("line").min().over("unit").is_in(lines.implode()))
        return dataclasses.replace(
            self, frame=kept.with_columns(pl.col("unit").rank("dense").cast(pl.Int64) - 1),
            problems=self.problems.clear(), units=kept["unit"].n_unique())


@dataclass(frozen=True)
class RawHands:
    """The raw frames of a batch of units, keyed by ``record`` (the unit's row), and
    problems the parser reports itself (e.g. a format version it does not read)."""

    hands: pl.DataFrame
    seats: pl.DataFrame
    streets: pl.DataFrame | None
    problems: pl.DataFrame


class Parser(Protocol):
    """A format's two steps (see the module doc)."""

    def split(self, chunk: TextChunk, limit: int) -> Units:
        """The hands at the start of ``chunk``, at most ``limit`` of them."""
        ...

    def parse(self, units: pl.DataFrame) -> RawHands:
        """Raw frames of a batch of units (``frame`` rows, ``record`` numbering hands)."""
        ...


def _split_chunks(source: ByteSource, parser: Parser, limit: Callable[[], int], file: str
                  ) -> Iterator[Units]:
    """The units ``parser`` splits off each chunk of ``source`` (at most ``limit()``).

    Lines too long to be a hand, which ``source`` skipped, come with the next units as
    ``too large`` problems (with units of no hand at the end). A stream that breaks
    part-way (a damaged archive) raises once the units split before the damage are
    given.
    """
    pending: list[pl.DataFrame] = []
    last: Units | None = None
    while (chunk := source.next_chunk()) is not None:
        pending.extend(_too_large(source, file))
        units = parser.split(chunk, limit())
        source.consume(chunk, units.consumed)
        if units.consumed:
            if pending:
                units = dataclasses.replace(units, problems=pl.concat([units.problems,
                                                                       *pending]))
                pending = []
            last = units
            yield units
    pending.extend(_too_large(source, file))
    if pending:
        offset, line = source.position
        empty = (last.frame.clear() if last is not None else parser.split(
            TextChunk(b"", offset, line, True, np.zeros(0, dtype=np.int64), source.encoding),
            0).frame)
        yield Units(empty, pl.concat(pending), 0, offset,
                    units=0 if "unit" in empty.columns else None)


def _too_large(source: ByteSource, file: str) -> list[pl.DataFrame]:
    """The lines ``source`` skipped as too long, as ``too large`` problems."""
    return [problem_rows(file, [skipped.line], "too large", skipped.reason, [skipped.head])
            for skipped in source.take_oversized()]


def read_batches(source: ByteSource, parser: Parser, file: str, batch_hands: int
                 ) -> Iterator[ReadBatch]:
    """Run ``parser`` over ``source``; yield canonical batches of about ``batch_hands``
    (fewer where they would hold more than ``BATCH_BYTES``).

    Splitting is sequential (a parser carries state from chunk to chunk); the batches
    are parsed on ``PARSE_THREADS`` threads while the next ones are split, and given
    in order (:func:`parse_in_batches`).
    """
    return parse_in_batches(lambda limit: _split_chunks(source, parser, limit, file), parser,
                            file, batch_hands)


def parse_in_batches(split: Callable[[Callable[[], int]], Iterator[Units]], parser: Parser,
                     file: str, batch_hands: int) -> Iterator[ReadBatch]:
    """Gather the units ``split`` gives into batches of about ``batch_hands`` (fewer
    where they would hold more than ``BATCH_BYTES``) and parse them.

    ``split(limit)`` yields units, asking ``limit()`` how many more hands the current
    batch takes. The batches are parsed on ``PARSE_THREADS`` threads while the next
    units are split (or fetched), and given in order. Parsing is polars, numpy and
    DuckDB work that releases the GIL, so a batch a thread uses every core; one more
    waits, split, so that a thread done with its batch starts the next at once instead
    of while this thread splits it (and the caller stores the last). At most that
    many are held at once.
    """
    batch_hands = max(1, batch_hands)
    with ThreadPoolExecutor(max_workers=PARSE_THREADS, thread_name_prefix="ofc-parse") as pool:
        in_flight: deque[tuple[Future[CanonicalBatch], int]] = deque()

        def parse_later(parts: list[Units]) -> None:
            in_flight.append((pool.submit(assemble, parts, parser, file), parts[-1].end_offset))

        def parsed() -> ReadBatch:
            batch, end_offset = in_flight.popleft()
            return ReadBatch(batch.result(), end_offset)

        parts: list[Units] = []
        count = size = 0
        units_split = split(lambda: batch_hands - count)
        while True:
            try:
                units = next(units_split, None)
            except Exception:
                # The stream broke (a damaged archive): first the hands read before it.
                if parts:
                    parse_later(parts)
                while in_flight:
                    yield parsed()
                raise
            if units is None:
                break
            parts.append(units)
            count += units.count
            size += units.consumed
            if count >= batch_hands or size >= BATCH_BYTES:
                parse_later(parts)
                parts, count, size = [], 0, 0
            while in_flight and (len(in_flight) > PARSE_THREADS or in_flight[0][0].done()):
                yield parsed()
        if parts:
            parse_later(parts)
        while in_flight:
            yield parsed()


def assemble(parts: Sequence[Units], parser: Parser, file: str) -> CanonicalBatch:
    """Parse and normalise the units of several chunks as one batch."""
    frames, shift = [], 0
    for part in parts:
        # ``record`` numbers the hands of the whole batch.
        record = (pl.col("unit") if "unit" in part.frame.columns else pl.int_range(pl.len()))
        frames.append(part.frame.select((record + shift).cast(pl.Int64).alias("record"),
                                        pl.all().exclude("unit")))
        shift += part.hands
    # One chunk: polars 2.1 panicked ("i < self.len()") in normalise's checks on the
    # frames of a group of 21 small files, one chunk each; rechunked, it does not.
    frame = pl.concat(frames, how="vertical_relaxed", rechunk=True)
    found = [part.problems for part in parts]
    batch = CanonicalBatch.empty()
    if frame.height:
        raw = parser.parse(frame)
        found.append(raw.problems)
        if raw.hands.height:
            batch = normalise(raw.hands, raw.seats, raw.streets, file)
    problems = (pl.concat([batch.problems, *found])
                .with_columns(pl.col("raw").str.strip_chars_end("\r\n"))
                .sort("line", nulls_last=True, maintain_order=True))
    return CanonicalBatch(batch.hands, batch.seats, batch.streets, problems)


@dataclass(frozen=True)
class SplitFile:
    """A whole file split into units, to be parsed with others (:func:`parse_files`)."""

    file: str
    parts: list[Units]
    end_offset: int | None  # just after its last complete hand; None if it has none
    failure: Exception | None = None  # the stream broke after ``parts`` (damaged archive)

    @property
    def hands(self) -> int:
        """Hands split off (complete ones, and stretches set aside)."""
        return sum(part.count for part in self.parts)


def split_file(source: ByteSource, parser: Parser, file: str, max_hands: int | None = None
               ) -> SplitFile:
    """Split every hand of ``source`` off (a small file: all of it is held at once).

    With ``max_hands``, it stops once it has more: a file with more hands than that is
    read in batches instead, and splitting the rest would be wasted.

    A stream that breaks part-way gives the hands before the damage and the failure.
    """
    parts: list[Units] = []
    failure = None
    limit = (1 << FILE_SHIFT) if max_hands is None else max_hands + 1
    count = 0

    def remaining() -> int:  # asked before each chunk: the hands split so far count
        return limit - count

    try:
        for units in _split_chunks(source, parser, remaining, file):
            parts.append(units)
            count += units.count
            if count >= limit:
                break
    except Exception as error:
        failure = error
    return SplitFile(file, parts, parts[-1].end_offset if parts else None, failure)


def parse_files(files: Sequence[SplitFile], parser: Parser) -> CanonicalBatch:
    """Parse and normalise the units of several whole files as one batch.

    Each vectorised step has a fixed cost per batch of several milliseconds; a folder
    of small files (one per session) pays it once per group, not once per file.
    ``parser`` is one for no file in particular: every hand and problem is given back
    its own file and line.
    """
    parts: list[Units] = []
    for index, split in enumerate(files):
        offset = index << FILE_SHIFT
        parts.extend(dataclasses.replace(
            part, frame=part.frame.with_columns(pl.col("line") + offset),
            problems=part.problems.with_columns(pl.col("line") + offset))
            for part in split.parts)
    batch = assemble(parts, parser, "")
    names = {index: split.file for index, split in enumerate(files)}

    def own_file(frame: pl.DataFrame, file: str, line: str) -> pl.DataFrame:
        return frame.with_columns(
            file_index(line).replace_strict(names, return_dtype=pl.String)
            .fill_null(pl.col(file)).alias(file),
            line_in_file(line).alias(line))

    return CanonicalBatch(own_file(batch.hands, "source_file", "source_line"), batch.seats,
                          batch.streets, own_file(batch.problems, "file", "line"))


def problem_rows(file: str, line: pl.Series | Sequence[int] | Positions, kind: str,
                 reason: pl.Series | Sequence[str] | str, raw: pl.Series | Sequence[str],
                 site: pl.Series | None = None, hand_id: pl.Series | None = None
                 ) -> pl.DataFrame:
    """Problems found by a parser, in ``PROBLEMS_SCHEMA`` (vectorised over rows)."""
    lines = pl.Series("line", line, dtype=pl.Int64)
    n = len(lines)
    reasons = (pl.Series("reason", [reason] * n, dtype=pl.String) if isinstance(reason, str)
               else pl.Series("reason", reason, dtype=pl.String))
    return pl.DataFrame({
        "file": pl.Series("file", [file] * n, dtype=pl.String),
        "line": lines,
        "site": site if site is not None else pl.Series("site", [None] * n, dtype=pl.String),
        "hand_id": (hand_id if hand_id is not None
                    else pl.Series("hand_id", [None] * n, dtype=pl.String)),
        "kind": pl.Series("kind", [kind] * n, dtype=pl.String),
        "reason": reasons,
        "raw": pl.Series("raw", raw, dtype=pl.String).str.slice(0, MAX_RAW_CHARS),
    }, schema=PROBLEMS_SCHEMA)


_NO_PROBLEMS = PROBLEMS_SCHEMA.to_frame()


def empty_problems() -> pl.DataFrame:
    """No problems, in ``PROBLEMS_SCHEMA``."""
    # Built from the schema each time it cost 0.1 ms, and a small file asks several times.
    return _NO_PROBLEMS.clear()


def containing_unit(starts: Positions, positions: Positions) -> Positions:
    """Index of the unit (hand, line) holding each position; units start at ``starts``."""
    return np.searchsorted(starts, positions, side="right").astype(np.int64) - 1


def encoding_reasons(chunk: TextChunk, starts: Positions, ends: Positions
                     ) -> dict[int, str]:
    """Why each unit (``data[start:end]``) holding undecodable bytes is bad, by index."""
    bad = chunk.bad
    if not len(bad) or not len(starts):
        return {}
    units = containing_unit(starts, bad)
    inside = (units >= 0) & (bad < ends[np.maximum(units, 0)])
    bad, units = bad[inside], units[inside]
    first = np.unique(units, return_index=True)
    offsets = chunk.offsets(bad[first[1]])
    what = "UTF-16" if chunk.encoding != "utf-8" else "UTF-8"
    # Runs only for the rare units with undecodable bytes.
    return {int(unit): f"bytes that are not valid {what} at byte offset {int(offset)}"
            for unit, offset in zip(first[0], offsets, strict=True) if unit >= 0}


def without_undecodable(chunk: TextChunk, units: pl.DataFrame, starts: Positions,
                        ends: Positions, file: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``units`` (one row per unit, with ``line`` and ``text``; unit i spans
    ``data[starts[i]:ends[i]]``) without those holding undecodable bytes, and an
    ``encoding`` problem for each of those."""
    undecodable = encoding_reasons(chunk, starts, ends)
    if not undecodable:
        return units, empty_problems()
    numbered = units.with_row_index("_unit")
    is_bad = pl.col("_unit").is_in(list(undecodable))
    bad = numbered.filter(is_bad)
    problems = problem_rows(
        file, bad["line"], "encoding",
        bad["_unit"].replace_strict(undecodable, return_dtype=pl.String), bad["text"])
    return numbered.filter(~is_bad).drop("_unit"), problems


def parse_int(column: str, name: str | None = None) -> tuple[pl.Expr, pl.Expr]:
    """(value, error) for a text column that must hold an integer if present."""
    # Spreadsheets write +4, and whole numbers as 4.0: accepted; 4.5 is not.
    text = (pl.col(column).cast(pl.String).str.strip_chars().str.strip_prefix("+")
            .str.strip_suffix(".0"))
    value = text.cast(pl.Int64, strict=False)
    error = pl.when(text.is_not_null() & (text != "") & value.is_null()).then(
        pl.format(f"bad {name or column} '{{}}'", pl.col(column)))
    return value, error


def parse_int_in(frame: pl.DataFrame, column: str, name: str | None = None
                 ) -> tuple[pl.Expr, pl.Expr]:
    """:func:`parse_int` for ``frame``'s column, or a plain cast where it is enough.

    The lenient reading's string steps cost 0.2 s per million values, and nearly
    every value is a plain integer: the cast gives the same value for those.
    """
    plain = pl.col(column).cast(pl.Int64, strict=False)
    if not frame.select((plain.is_null() & pl.col(column).is_not_null()).any()).item():
        return plain, pl.lit(None, pl.String)
    return parse_int(column, name)


def parse_bool(column: str, name: str | None = None) -> tuple[pl.Expr, pl.Expr]:
    """(value, error) for a text column holding a yes/no value if present.

    ``true``/``yes``/``y``/``1``/``x`` and ``false``/``no``/``n``/``0``/empty, any case.
    """
    text = pl.col(column).str.strip_chars().str.to_lowercase()
    value = (pl.when(text.is_in(TRUE_WORDS)).then(True)
             .when(text.is_in(FALSE_WORDS)).then(False))
    error = pl.when(text.is_not_null() & value.is_null()).then(
        pl.format(f"bad {name or column} '{{}}' (expected true or false)", pl.col(column)))
    return value, error


def first_error(errors: Sequence[pl.Expr]) -> pl.Expr:
    """The first non-null error of several."""
    return pl.coalesce(list(errors)) if errors else pl.lit(None, pl.String)


def with_errors(hands: pl.DataFrame, *found: pl.DataFrame) -> pl.DataFrame:
    """``hands`` with each record's first error of ``found`` (record, error, and
    optionally its ``kind``: a problem kind other than ``syntax``, such as ``card``)
    merged in, as ``error`` and ``error_kind``."""
    errors = pl.concat([frame.select(
        "record", pl.col("error").cast(pl.String),
        (pl.col("kind") if "kind" in frame.columns else pl.lit(None)).cast(pl.String)
        .alias("kind")) for frame in found]).filter(pl.col("error").is_not_null())
    if errors.is_empty():
        return hands
    first = errors.group_by("record", maintain_order=True).agg(
        pl.col("error").first().alias("_found"), pl.col("kind").first().alias("_kind"))
    own_kind = pl.col("error_kind") if "error_kind" in hands.columns else pl.lit(None,
                                                                                 pl.String)
    return (hands.join(first, on="record", how="left", maintain_order="left")
            .with_columns(pl.when(pl.col("error").is_not_null()).then(own_kind)
                          .otherwise(pl.col("_kind")).alias("error_kind"),
                          pl.coalesce("error", "_found").alias("error"))
            .drop("_found", "_kind"))


def set_aside(raw: RawHands, records: pl.Series, problems: pl.DataFrame) -> RawHands:
    """``raw`` without the hands of ``records``, which become ``problems``."""
    if records.is_empty():
        return raw
    keep = ~pl.col("record").is_in(records.implode())
    return RawHands(
        hands=raw.hands.filter(keep), seats=raw.seats.filter(keep),
        streets=raw.streets.filter(keep) if raw.streets is not None else None,
        problems=pl.concat([raw.problems, problems]))


_COLUMN_BREAK = 0x1F  # between the card lists of one entry while splitting
# A card's action and row by its kind (the column it came from: top, middle, bottom,
# discarded); gathered, cheaper than mapping each row's kind.
_ACTION_OF_KIND = pl.Series("action", ["place", "place", "place", "discard"])
_ROW_OF_KIND = pl.Series("row", [*(row.value for row in Row), None], dtype=pl.String)
# Bytes between cards of space-separated lists (not ``clean``); lists' JSON text is
# read by the byte classes below.
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[ord(" "), _COLUMN_BREAK]] = True


# Byte classes of lists' JSON text, and which class may follow which: an ASCII list
# of non-empty cards ["Ah","Kd"], or a text of cards with no white space, commas,
# brackets or quotes (the column break ends each text).
_CARD, _OPEN, _CLOSE, _COMMA, _QUOTE, _BREAK, _OTHER = range(7)
_CLASS = np.full(256, _OTHER, dtype=np.uint8)  # white space, bytes of non-ASCII text
_CLASS[[c for c in range(0x21, 0x7F)]] = _CARD
_CLASS[[ord("["), ord("]"), ord(","), ord('"'), _COLUMN_BREAK]] = [
    _OPEN, _CLOSE, _COMMA, _QUOTE, _BREAK]
_FOLLOWS = np.zeros(64, dtype=bool)  # by 8 * class before + class after
for _before, _afters in ((_BREAK, (_OPEN, _CARD, _BREAK)), (_OPEN, (_QUOTE, _CLOSE)),
                         (_CLOSE, (_BREAK,)), (_COMMA, (_QUOTE,)),
                         (_QUOTE, (_CARD, _COMMA, _CLOSE)), (_CARD, (_CARD, _QUOTE, _BREAK))):
    _FOLLOWS[[8 * _before + after for after in _afters]] = True


def _list_classes(codes: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8] | None:
    """The byte classes of lists' JSON text (after a leading break), or None unless
    each text has one of the two shapes of ``_FOLLOWS``, every quote opening or
    closing an element: then the byte runs read the texts exactly as the column by
    column splits do (which keep a JSON list's elements whole, and split other texts
    on Unicode white space, commas, brackets and quotes)."""
    classes = np.concatenate((np.array([_BREAK], dtype=np.uint8), _CLASS[codes]))
    if not _FOLLOWS[(classes[:-1] << 3) | classes[1:]].all():
        return None
    quotes = np.flatnonzero(classes == _QUOTE)  # never first or last: a break is
    before, after = classes[quotes - 1], classes[quotes + 1]
    opens = ((before == _OPEN) | (before == _COMMA)) & (after == _CARD)
    closes = (before == _CARD) & ((after == _COMMA) | (after == _CLOSE))
    return classes if bool((opens | closes).all()) else None


def _card_tokens_by_column(entries: pl.DataFrame, columns: Sequence[str], *, clean: bool = True
                ) -> tuple[pl.Series, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """:func:`card_tokens` by polars string splits, column by column: the reading
    that defines what a card is, kept for texts the byte runs would read otherwise."""
    if clean:  # lists' JSON text: split each column, then all of an entry's lists at once
        lists = with_card_lists(entries.select(columns), columns)
        counts = lists.select(pl.col(name).list.len().fill_null(0).cast(pl.Int64)
                              for name in columns).to_numpy()
        tokens = lists.select(pl.concat_list([pl.col(name).fill_null([]) for name in columns])
                              .explode(empty_as_null=False)).to_series()
        # Tokens run row by row, each row's columns in turn: repeat each (row, column)
        # by its count.
        rows, width = counts.shape
        row = np.repeat(np.arange(rows, dtype=np.int64), counts.sum(axis=1))
        column = np.repeat(np.tile(np.arange(width, dtype=np.int64), rows), counts.ravel())
        return tokens.alias("card"), row, column
    joined = pl.concat_str([pl.col(name).fill_null("") for name in columns],
                           separator=f" {chr(_COLUMN_BREAK)} ")
    pieces = entries.select(joined.str.split(" ").alias("piece"))["piece"]
    counts = pieces.list.len().cast(pl.Int64).to_numpy()
    tokens = pieces.explode(empty_as_null=False)
    row = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    breaks = (tokens == chr(_COLUMN_BREAK)).to_numpy()
    before = np.cumsum(breaks) - breaks
    column = before - np.repeat(before[np.cumsum(counts) - counts], counts) if len(counts) \
        else before
    keep = ~breaks & (tokens != "").to_numpy()
    return (tokens.filter(pl.Series(keep)).alias("card"), row[keep],
            column[keep].astype(np.int64))


def card_tokens(entries: pl.DataFrame, columns: Sequence[str], *, clean: bool = True
                ) -> tuple[pl.Series, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every card of several card-list columns, split in one pass.

    Returns the card strings, and for each the row of ``entries`` it came from and
    the column (index into ``columns``), in row then column order. ``clean``: the
    text may be a list's JSON text (``["Ah","Kd"]``) or use commas; else cards are
    separated by spaces only.

    An entry's lists are joined into one text, and the cards found as runs of bytes
    with numpy: splitting each column's text with polars took twice as long. Texts the
    runs could read differently (see :func:`_list_classes`) go the slow way.
    """
    if entries.is_empty():
        nothing = np.zeros(0, dtype=np.int64)
        return pl.Series("card", [], dtype=pl.String), nothing, nothing
    if any(isinstance(entries.schema[name], pl.List) for name in columns):
        # Decoded lists (JSON read with types): no text to split.
        return list_card_tokens(with_card_lists(entries.select(columns), columns), columns)
    joined = entries.select(pl.concat_str(
        [*(pl.col(name).fill_null("") for name in columns), pl.lit("")],
        separator=chr(_COLUMN_BREAK)))  # ends each entry: no card runs on to the next
    offsets, buffer = string_buffers(joined.to_series())
    data = buffer[:int(offsets[-1])].tobytes()
    codes = np.frombuffer(data, dtype=np.uint8)
    first = int(offsets[0])  # where the first entry starts (a sliced array)
    width = len(columns)
    break_at = np.flatnonzero(codes[first:] == _COLUMN_BREAK) + first
    if len(break_at) != len(entries) * width:  # a text holds the break byte itself
        return _card_tokens_by_column(entries, columns, clean=clean)
    if clean:
        classes = _list_classes(codes[first:])
        if classes is None:
            return _card_tokens_by_column(entries, columns, clean=clean)
        in_card = np.zeros(len(codes), dtype=bool)
        in_card[first:] = classes[1:] == _CARD
    else:
        in_card = ~_SPACE[codes]
        in_card[:first] = False
    edges = np.diff(in_card.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    # Each entry holds exactly ``width`` breaks: the breaks before a card tell its
    # entry and column.
    row, column = np.divmod(np.searchsorted(break_at, starts), width)
    tokens = strings_between(data, starts, ends).alias("card")
    return tokens, row, column


def street_actions(entries: pl.DataFrame, seats: pl.DataFrame, *, clean: bool = True
                   ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Raw streets (one row per card placed or discarded) from street entries.

    ``entries``: ``record``, ``street``, ``seat`` (text), ``dealt``?, ``top``,
    ``middle``, ``bottom``, ``discarded`` (card list text), one row per street and
    player, in order. Returns the raw streets (in each entry: top, middle, bottom,
    then discards) and (``record``, ``error``) rows for entries that do not hold
    together: a street or seat that is not a number, a seat no player sits in, dealt
    cards other than those placed and discarded.
    """
    numbers, errors_of = [], []
    for name in ("street", "seat"):
        if entries.schema[name].is_integer():  # already numbers (the text format)
            numbers.append(pl.col(name))
            continue
        value, error = parse_int_in(entries, name)
        numbers.append(value.alias(name))
        errors_of.append(error)
    if "dealt" not in entries.columns:
        entries = entries.with_columns(pl.lit(None, pl.String).alias("dealt"))
    checked = entries.select(
        "record", *numbers,
        first_error([*errors_of,
                     pl.when(pl.col("street").is_null() | pl.col("seat").is_null())
                     .then(pl.lit("a street entry needs its street and seat"))]).alias("_error"),
    )
    kinds = [*(row.value for row in Row), "discarded", "dealt"]
    tokens, entry, kind = card_tokens(entries, kinds, clean=clean)
    placed = kind < 4
    entry_placed, kind_placed = entry[placed], kind[placed]
    actions = pl.DataFrame([
        pl.Series("record", checked["record"].to_numpy()[entry_placed]),
        checked["seat"].gather(entry_placed), checked["street"].gather(entry_placed),
        _ACTION_OF_KIND.gather(kind_placed), _ROW_OF_KIND.gather(kind_placed),
        tokens.filter(pl.Series(placed)),
    ])
    unknown_seat = (checked.filter(pl.col("seat").is_not_null())
                    .join(seats.select("record", "seat"), on=["record", "seat"], how="anti")
                    .select("record", pl.format("street {} names seat {}, where no player sits",
                                                pl.col("street"), pl.col("seat"))
                            .alias("error")))
    where = pl.format("street {} seat {}: ", pl.col("street").fill_null("?"),
                      pl.col("seat").fill_null("?"))
    errors = pl.concat([
        checked.filter(pl.col("_error").is_not_null()).select(
            "record", pl.concat_str([where, "_error"]).alias("error")),
        unknown_seat,
        dealt_mismatch(entries, checked, tokens, entry, kind),
    ], how="diagonal")
    return actions, errors

