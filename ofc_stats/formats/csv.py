"""Spreadsheet CSV for home games (``.csv``): one row per player per hand.

Columns are named in a header row, in any order, in any case; extra columns are
ignored. A hand is a run of consecutive rows with the same ``hand_id`` (and
``site``). Required: ``hand_id``, ``started_at``, ``player``, ``top``, ``middle``,
``bottom`` (cards separated by spaces). Optional, with defaults for what a home
game's sheet leaves out: ``site`` (``home``), ``variant`` (``pineapple``),
``table`` (``main``), ``seat`` (the row's place in its hand: 1, 2, ...),
``fantasyland`` (false), ``points``, and every other canonical field
(docs/formats.md has the table).

A file's last hand is stored once the file goes on past it (the next hand's rows),
or once it shows whole at the end of the file: two rows or more, and, where the sheet
records points, every row's, summing to zero. Otherwise it waits, as a half-written
row does (``truncated``, read again once the file grows), so that a hand cut between
two player rows is never stored short.

Spreadsheet habits are tolerated: a UTF-8 BOM or UTF-16 ("Unicode text" export),
CRLF, ``;`` or tab separators, quoted fields (with separators or line breaks inside),
``TRUE``/``yes``/``1``/``x`` booleans, ``+4`` and ``4.0`` integers, blank rows.
Records are found with numpy over the bytes (a line break inside quotes does not end
a row) and parsed by ``polars.read_csv``.
"""

from __future__ import annotations

import csv as stdlib_csv
import functools
from collections.abc import Iterable, Iterator, Sequence
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.engine.rules import Row, Variant
from ofc_stats.formats import BATCH_HANDS, Format
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.card_lists import card_lists
from ofc_stats.formats.reading import (
    FALSE_WORDS,
    TRUE_WORDS,
    TRUNCATED,
    RawHands,
    ReadBatch,
    SplitFile,
    Units,
    empty_problems,
    encoding_reasons,
    file_index,
    first_error,
    line_in_file,
    parse_bool,
    parse_files,
    parse_int_in,
    problem_rows,
    read_batches,
    split_file,
    with_errors,
)
from ofc_stats.formats.streaming import (
    CHUNK_BYTES,
    ByteSource,
    Positions,
    TextChunk,
    decode_head,
    string_buffers,
    strings_between,
)
from ofc_stats.formats.writing import check_writable, decimal_text, local_time_text

QUOTE = ord('"')
REQUIRED = ("hand_id", "started_at", "player", "top", "middle", "bottom")
HAND_COLUMNS = ("site", "hand_id", "started_at", "table", "variant", "ruleset", "button_seat",
                "point_value", "currency")
SEAT_COLUMNS = ("seat", "player", "top", "middle", "bottom", "fantasyland", "fl_cards",
                "discards", "points", "royalties", "starting_stack", "collected", "money")
COLUMNS = (*HAND_COLUMNS, *SEAT_COLUMNS)
# Other names a sheet may give a column (after lower-casing, spaces and dashes as _).
ALIASES = {
    "hand": "hand_id", "id": "hand_id", "time": "started_at", "start": "started_at",
    "date": "started_at", "name": "player", "in_fantasyland": "fantasyland", "fl": "fantasyland",
    "reported_points": "points", "reported_royalties": "royalties", "button": "button_seat",
    "front": "top", "back": "bottom", "mid": "middle", "game": "variant",
    "reported_money": "money", "stack": "starting_stack",
}
# The rows split off a chunk (Units.frame), as parse takes them: every column's text,
# then the record's field count, the header's width, its line, hand and text.
UNIT_ROWS_SCHEMA = pl.Schema({**dict.fromkeys(COLUMNS, pl.String()), "_fields": pl.Int64(),
                              "_width": pl.Int64(), "line": pl.Int64(), "unit": pl.Int64(),
                              "text": pl.String()})
# Built once: building an expression costs more than running it on a small sheet.
NOT_BLANK = pl.sum_horizontal(pl.col(COLUMNS).is_not_null()) > 0
_HAND_KEY = pl.concat_str([pl.col("site").fill_null(""), pl.col("hand_id").fill_null("")],
                          separator="\x1f")
# A hand is a run of rows with the same key: numbered 0, 1, ... in row order.
HAND_NUMBER = (((_HAND_KEY.shift(1) != _HAND_KEY).fill_null(True).cum_sum() - 1)
               .cast(pl.Int64).alias("unit"))
DEFAULT_SITE = "home"
DEFAULT_VARIANT = Variant.PINEAPPLE
DEFAULT_TABLE = "main"


def column_name(header: str) -> str:
    """The canonical name of a header cell (``"Hand ID"`` is ``hand_id``).

    >>> column_name(" Hand ID"), column_name("FL"), column_name("Notes")
    ('hand_id', 'fantasyland', 'notes')
    """
    name = "_".join(header.strip().strip('"').lower().replace("-", " ").split())
    return ALIASES.get(name, name)


@functools.lru_cache(maxsize=64)
def _cell_exprs(names: tuple[str, ...]) -> tuple[pl.Expr, ...]:
    """Each canonical column from the cells of a sheet with these header names (the
    first column of a name counts; unknown columns are ignored). Cached: the sheets of
    a folder share a header, and building the expressions costs more than running
    them on a small sheet."""
    position = {name: i for i, name in reversed(list(enumerate(names)))}
    return tuple(pl.col(f"_c{position[name]}").str.strip_chars().alias(name)
                 if name in position else pl.lit(None, pl.String).alias(name)
                 for name in COLUMNS)


def separator_of(header_line: str) -> str:
    """The separator a header line uses: the most frequent of ``,`` ``;`` and tab."""
    counts = {sep: header_line.count(sep) for sep in (",", ";", "\t")}
    return max(counts, key=lambda sep: (counts[sep], sep == ","))


def outside_quotes(quotes: Positions, positions: Positions) -> Positions:
    """The ``positions`` outside quotes: after an even number of the quote bytes at
    ``quotes`` (sorted positions; a record starts outside quotes)."""
    if not len(quotes):
        return positions
    outside: Positions = positions[np.searchsorted(quotes, positions) % 2 == 0]
    return outside


def field_counts(separators: Positions, starts: Positions, ends: Positions) -> Positions:
    """Fields in each record ``data[start:end]`` (records one after the other), from
    the positions of the separators outside quotes: those in the record, plus one.

    On the separators' positions: a count before each record boundary, not a running
    count over every byte.
    """
    return (np.searchsorted(separators, ends) - np.searchsorted(separators, starts)
            + 1).astype(np.int64)


# Bytes a card token (reading.CARD_TOKEN) never holds, but for the space, and every
# byte of a character beyond ASCII (it may be white space): a column without them,
# cards separated by single spaces, is split on the space alone.
_NOT_PLAIN = np.zeros(256, dtype=np.bool_)
_NOT_PLAIN[[9, 10, 11, 12, 13, *b',[]"']] = True
_NOT_PLAIN[0x80:] = True
_SPACE = ord(" ")


def card_list_columns(rows: pl.DataFrame, names: Sequence[str]) -> list[pl.Series]:
    """:func:`~ofc_stats.formats.reading.card_lists` of each column of ``names``.

    A column whose every cell is cards separated by single spaces (a sheet's usual
    cell, ``Jh 4s 6h``) is split on the space, a literal split; any other column takes
    the regular expression, which costs four times the split.
    """
    lists = []
    for name in names:
        column = rows[name]
        offsets, data = string_buffers(column)
        text = data[int(offsets[0]):int(offsets[-1])]
        lengths = np.diff(offsets)
        filled = lengths > 0
        first, last = offsets[:-1][filled], offsets[1:][filled] - 1
        spaces = text == _SPACE
        plain = not (bool(_NOT_PLAIN[text].any()) or bool((spaces[1:] & spaces[:-1]).any())
                     or bool((data[first] == _SPACE).any())
                     or bool((data[last] == _SPACE).any())
                     or bool((~filled & column.is_not_null().to_numpy()).any()))
        lists.append(column.str.split(" ") if plain
                     else rows.select(card_lists(name)).to_series())
    return lists


def _parse_bool_in(frame: pl.DataFrame, column: str) -> tuple[pl.Expr, pl.Expr]:
    """:func:`~ofc_stats.formats.reading.parse_bool` for ``frame``'s column, or a plain
    look-up where every value is a yes/no word as it is written (``true``, ``false``):
    the lenient reading's string steps cost more than the rest of a seat's parse."""
    words = pl.col(column).is_in([*TRUE_WORDS, *FALSE_WORDS])
    if frame.select((words | pl.col(column).is_null()).all()).item():
        return (pl.when(pl.col(column).is_not_null()).then(pl.col(column).is_in(TRUE_WORDS)),
                pl.lit(None, pl.String))
    return parse_bool(column)


class CsvParser:
    """Splits CSV records into hands and parses them (one parser per read)."""

    def __init__(self, file: str, file_head: bytes, site: str, variant: str,
                 table: str) -> None:
        self.file = file
        self.defaults = {"site": site, "variant": variant, "table": table}
        header_line = file_head.decode().split("\n", 1)[0].rstrip("\r")
        self.header_line = header_line
        self.separator = separator_of(header_line)
        # One line per file: the standard library reads it in microseconds, where a
        # polars read costs half a millisecond (a folder may hold thousands of sheets).
        cells = (next(stdlib_csv.reader([header_line], delimiter=self.separator))
                 if header_line.strip() else [])
        self.names = [column_name(cell) for cell in cells]
        self.missing = [name for name in REQUIRED if name not in self.names]
        self.cell_exprs = _cell_exprs(tuple(self.names))
        self.reported_missing = False

    def split(self, chunk: TextChunk, limit: int) -> Units:
        """Hands of whole records; the last hand waits for more rows unless at the end."""
        if self.missing:
            return self._unreadable(chunk)
        data = chunk.data
        # Quote bytes are few (none in most sheets): work on their positions.
        quotes = np.flatnonzero(chunk.array == QUOTE)
        # A line break ends a record unless it is inside quotes.
        closed = (outside_quotes(quotes, chunk.newlines) + 1).astype(np.int64)
        body = 0
        if chunk.first_line == 1:  # the file's first record is the header
            body = int(closed[0]) if len(closed) else len(data)
        ends = closed[closed > body]
        last_end = int(ends[-1]) if len(ends) else body
        open_tail = chunk.at_eof and bool(data[last_end:].strip())
        if open_tail:  # a last record without its line break
            ends = np.append(ends, len(data)).astype(np.int64)
        # No record yet: a sheet holding only its header (a session just opened).
        starts = (np.concatenate(([body], ends[:-1])) if len(ends) else ends).astype(np.int64)
        rows = self._rows(chunk, quotes, starts, ends).filter(NOT_BLANK).with_columns(HAND_NUMBER)
        # Hands are numbered 0, 1, ... in row order: each hand's rows are found with
        # numpy (a folder may hold thousands of small sheets, each split on its own).
        unit = rows["unit"].to_numpy()
        first_rows = np.flatnonzero(np.diff(unit, prepend=-1))  # each hand's first row
        hands = len(first_rows)
        # The last hand may go on in the next chunk, unless the stream ends here.
        take = min(hands if chunk.at_eof else max(0, hands - 1), limit)
        row_starts = rows["_start"].to_numpy()
        if take < hands:
            consumed = int(row_starts[first_rows[take]])
            taken = rows.head(int(first_rows[take]))
        else:
            consumed = len(data) if chunk.at_eof else body
            taken = rows
        end_offset = int(chunk.offsets(np.array([consumed]))[0])
        span_rows = first_rows[:take]
        span_starts = row_starts[span_rows]
        span_ends = rows["_end"].to_numpy()[np.append(first_rows[1:], len(unit))[:take] - 1]
        span_lines = rows["line"].to_numpy()[span_rows]
        texts = strings_between(data, span_starts, span_ends)
        problems = [empty_problems()]
        gone: list[int] = []
        if chunk.at_eof and take == hands and take:
            # The file may end inside its last hand: in its last row (a row without its
            # line break), or between two of its rows. What may be cut waits, read again
            # once the file goes on: the unfinished row's hand (its key may be cut too,
            # so the hand before it is checked as well), or a last hand not whole.
            held = take - 1 if open_tail else take
            if held > 0 and not _looks_whole(
                    taken.slice(int(first_rows[held - 1]),
                                int(first_rows[held] - first_rows[held - 1])
                                if held < take else None)):
                held -= 1
            if held < take:
                problems.append(problem_rows(
                    self.file, span_lines[held:held + 1], "truncated", TRUNCATED,
                    [data[int(span_starts[held]):].decode()]))
                end_offset = int(chunk.offsets(span_starts[held:held + 1])[0])
                gone.extend(range(held, take))
        undecodable = encoding_reasons(chunk, span_starts, span_ends)
        if undecodable:
            bad = np.array(sorted(undecodable), dtype=np.int64)
            problems.append(problem_rows(self.file, span_lines[bad], "encoding",
                                         [undecodable[int(u)] for u in bad], texts.gather(bad)))
            gone.extend(undecodable)
        # The hand's text goes on its first row only.
        first_row = np.zeros(taken.height, dtype=np.bool_)
        first_row[span_rows] = True
        rows = taken.with_columns(pl.when(pl.Series(first_row))
                                  .then(texts.gather(unit[:taken.height])).alias("text"))
        if gone:
            rows = rows.filter(~pl.col("unit").is_in(gone)).with_columns(
                pl.col("unit").rank("dense").cast(pl.Int64) - 1)
        return Units(rows.select(UNIT_ROWS_SCHEMA.names()), pl.concat(problems), consumed,
                     end_offset, units=take - len(set(gone)))

    def _rows(self, chunk: TextChunk, quotes: np.ndarray, starts: np.ndarray, ends: np.ndarray
              ) -> pl.DataFrame:
        """The records between ``starts`` and ``ends`` as rows of (stripped) text cells
        (``quotes``: the positions of the chunk's quote bytes)."""
        extra = {"_fields": pl.Int64, "_width": pl.Int64, "_start": pl.Int64, "_end": pl.Int64,
                 "line": pl.Int64}
        if not len(starts):
            return pl.DataFrame(schema={**{name: pl.String for name in COLUMNS}, **extra})
        width = len(self.names)
        separators = outside_quotes(quotes, np.flatnonzero(chunk.array == ord(self.separator)))
        fields = field_counts(separators, starts, ends)
        # polars takes the number of columns from the first row, which may be blank or
        # wider than the header: a first row of empty fields as wide as the widest
        # record sets it (and is dropped).
        columns = max(width, int(fields.max()))
        first_row = (self.separator * (columns - 1) + "\n").encode()
        cells = pl.read_csv(first_row + chunk.data[int(starts[0]):int(ends[-1])],
                            has_header=False, new_columns=[f"_c{i}" for i in range(columns)],
                            separator=self.separator, infer_schema=False,
                            truncate_ragged_lines=True, raise_if_empty=False).slice(1)
        if cells.height != len(starts):  # polars keeps blank lines as empty rows
            raise AssertionError(f"{cells.height} CSV rows from {len(starts)} records")
        return cells.select(
            *self.cell_exprs,
            pl.Series("_fields", fields),
            # The header's width rides on each row: files parsed together differ.
            pl.lit(width, pl.Int64).alias("_width"),
            pl.Series("_start", starts), pl.Series("_end", ends),
            pl.Series("line", chunk.line_numbers(starts)),
        )

    def _unreadable(self, chunk: TextChunk) -> Units:
        problems = [empty_problems()]
        if not self.reported_missing:
            self.reported_missing = True
            found = ", ".join(self.names) or "nothing"
            problems.append(problem_rows(
                self.file, [1], "missing field",
                f"the header lacks {', '.join(self.missing)} (required: "
                f"{', '.join(REQUIRED)}; found {found})", [self.header_line]))
        end = int(chunk.offsets(np.array([len(chunk.data)]))[0])
        return Units(UNIT_ROWS_SCHEMA.to_frame(), pl.concat(problems), len(chunk.data), end,
                     units=0)

    def parse(self, units: pl.DataFrame) -> RawHands:
        """Hands from the runs of rows, seats from the rows.

        A hand's rows are consecutive (``record`` numbers them in row order): the hand
        is its first row, and its rows agree unless one differs from the row before.
        """
        defaults = [pl.col(name).fill_null(value).alias(name)
                    for name, value in self.defaults.items()]
        rows = units.with_columns(defaults)
        record = rows["record"].to_numpy()
        first_row = np.flatnonzero(np.diff(record, prepend=record[0] - 1 if len(record) else 0))
        hand_level = [name for name in HAND_COLUMNS if name != "hand_id"]
        hands = rows[first_row].select(
            "record", "line", pl.col("text").alias("raw"), "hand_id", *hand_level)
        button, button_error = parse_int_in(hands, "button_seat")
        # Within a file (files parsed together are told apart by the line's high bits):
        # a hand in two files is a copy, which ingest keeps once.
        in_file = [pl.col("site"), pl.col("hand_id"), file_index()]
        repeated = pl.struct(in_file).is_duplicated() & (
            pl.struct(in_file).cum_count().over(in_file) > 1)
        hands = hands.select(
            "record", "line", "raw", "site", "hand_id", "table", "started_at", "variant",
            "ruleset", "point_value", "currency", button.alias("button_seat"),
            first_error([
                *_disagreements(rows, hand_level), button_error,
                pl.when(repeated).then(pl.lit(
                    "this hand's rows continue after other hands' rows (a hand's rows must "
                    "be together)")),
            ]).alias("error"),
        )
        seats, errors = self._seats(rows, record, first_row)
        return RawHands(with_errors(hands, errors), seats, None, empty_problems())

    def _seats(self, rows: pl.DataFrame, record: npt.NDArray[np.int64],
               first_row: npt.NDArray[np.int64]) -> tuple[pl.DataFrame, pl.DataFrame]:
        seat, seat_error = parse_int_in(rows, "seat")
        fl_cards, fl_error = parse_int_in(rows, "fl_cards")
        points, points_error = parse_int_in(rows, "points")
        royalties, royalties_error = parse_int_in(rows, "royalties")
        in_fl, in_fl_error = _parse_bool_in(rows, "fantasyland")
        # A seat the sheet leaves out is the row's place in its hand: 1, 2, ...
        place = np.arange(1, len(record) + 1, dtype=np.int64) - np.repeat(
            first_row, np.diff(np.append(first_row, len(record))))
        seats = rows.select(
            "record", pl.coalesce(seat, pl.lit(pl.Series(place))).alias("seat"),
            "player", *(pl.lit(cards) for cards in card_list_columns(
                rows, [*(row.value for row in Row), "discards"])),
            in_fl.alias("in_fantasyland"), fl_cards.alias("fl_cards"),
            points.alias("reported_points"),
            royalties.alias("reported_royalties"), "starting_stack", "collected",
            pl.col("money").alias("reported_money"), "line", "_fields", "_width",
            first_error([
                pl.when(pl.col("_fields") > pl.col("_width")).then(pl.lit("")),
                seat_error, in_fl_error, fl_error, points_error, royalties_error,
            ]).alias("_error"),
        )
        # The reasons are written out for the rows that have one only (usually none).
        failed = seats.filter(pl.col("_error").is_not_null())
        errors = failed.select("record", pl.concat_str([
            pl.format("line {}: ", line_in_file()),
            pl.when(pl.col("_error") == "").then(pl.format(
                "{} fields but the header has {}", "_fields", "_width"))
            .otherwise(pl.col("_error"))]).alias("error"))
        return seats.drop("line", "_fields", "_width", "_error"), errors


def _disagreements(rows: pl.DataFrame, names: Sequence[str]) -> list[pl.Expr]:
    """Per hand (the first rows of ``rows``' records), the error of each of ``names``
    its rows disagree on (a row differs from the row before it in the same hand)."""
    same_hand = pl.col("record") == pl.col("record").shift(1)
    differs = rows.select(pl.any_horizontal(
        (same_hand & pl.col(name).ne_missing(pl.col(name).shift(1))).fill_null(False)
        for name in names).any()).item()
    if not differs:  # nearly always: then no text is built
        return []
    counts = rows.group_by("record", maintain_order=True).agg(
        pl.col(name).n_unique().alias(f"_{name}") for name in names)
    return [pl.when(pl.lit(counts[f"_{name}"]) > 1).then(pl.lit(
        f"the rows of this hand disagree on {name}")) for name in names]


def _looks_whole(rows: pl.DataFrame) -> bool:
    """Whether the rows of a file's last hand show the hand whole: at least two players,
    and, where the sheet records points, every row's, summing to zero (every hand's
    points do). A sheet without points cannot show a hand cut between two rows."""
    if rows.height < 2:
        return False
    points = (rows["points"].str.strip_chars().str.strip_prefix("+").str.strip_suffix(".0")
              .cast(pl.Int64, strict=False))
    if points.is_null().all():
        return True
    return bool(points.is_not_null().all()) and int(points.sum()) == 0


class CsvReader:
    """Reads home-game CSV sheets (see the module doc).

    Args:
        chunk_bytes: bytes read at a time.
        site, variant, table: what hands get when the sheet has no such column.
    """

    format = Format.CSV

    def __init__(self, chunk_bytes: int = CHUNK_BYTES, *, site: str = DEFAULT_SITE,
                 variant: str = DEFAULT_VARIANT, table: str = DEFAULT_TABLE) -> None:
        self.chunk_bytes = chunk_bytes
        self.site, self.variant, self.table = site, str(variant), table

    def sniff(self, head: bytes) -> int:
        """Confidence that ``head`` starts a CSV sheet of hands."""
        lines = decode_head(head).lstrip().splitlines()
        if not lines:
            return 0
        names = {column_name(cell) for cell in lines[0].replace(";", ",").replace(
            "\t", ",").split(",")}
        found = len(names & set(REQUIRED))
        if found == len(REQUIRED):
            return 90
        return 40 if found >= 3 else 0

    def read(self, stream: BinaryIO, file: str, *, batch_hands: int = BATCH_HANDS,
             start_offset: int = 0) -> Iterator[ReadBatch]:
        """Stream the hands of ``stream`` from ``start_offset`` on (see FormatReader)."""
        source = ByteSource(stream, start_offset, self.chunk_bytes)
        parser = CsvParser(file, source.file_head, self.site, self.variant, self.table)
        yield from read_batches(source, parser, file, batch_hands)

    def split_file(self, stream: BinaryIO, file: str, max_hands: int | None = None
                   ) -> SplitFile:
        """Every hand of a whole (small) file, split off (by its own header) but not parsed."""
        source = ByteSource(stream, 0, self.chunk_bytes)
        parser = CsvParser(file, source.file_head, self.site, self.variant, self.table)
        return split_file(source, parser, file, max_hands)

    def parse_files(self, files: Sequence[SplitFile]) -> CanonicalBatch:
        """The hands of several split files, parsed as one batch (their rows carry what
        parsing needs of each file's header)."""
        return parse_files(files, CsvParser("", b"", self.site, self.variant, self.table))


def _sheet(batch: CanonicalBatch) -> pl.DataFrame:
    hands = batch.hands.select(
        "site", "hand_id", local_time_text().alias("started_at"), "table", "variant",
        "ruleset", "button_seat", decimal_text("point_value").alias("point_value"),
        "currency")
    seats = batch.seats.sort("site", "hand_id", "seat", maintain_order=True).select(
        "site", "hand_id", "seat", "player", "top", "middle", "bottom",
        pl.col("in_fantasyland").alias("fantasyland"), "fl_cards", "discards",
        pl.col("reported_points").alias("points"),
        pl.col("reported_royalties").alias("royalties"),
        decimal_text("starting_stack").alias("starting_stack"),
        decimal_text("collected").alias("collected"),
        decimal_text("reported_money").alias("money"))
    return hands.join(seats, on=["site", "hand_id"], how="inner",
                      maintain_order="left").select(COLUMNS)


def check_csv(batch: CanonicalBatch) -> None:
    """Refuse values that would not read back: cells are trimmed when read.

    Raises:
        FormatWriteError: naming the value and the hand.
    """
    def padded(name: str) -> tuple[pl.Expr, str]:
        return (pl.col(name).str.strip_chars() != pl.col(name),
                "cells are read without outer spaces")

    check_writable(batch.hands, {name: padded(name) for name in ("site", "hand_id", "table")},
                   "csv")
    check_writable(batch.seats, {"player": padded("player")}, "csv")


class CsvWriter:
    """Writes the CSV sheet: a header, then one row per player per hand."""

    format = Format.CSV

    def write(self, batches: Iterable[CanonicalBatch], stream: BinaryIO) -> int:
        """Write every hand of ``batches`` to ``stream``; return how many were written.

        Raises:
            FormatWriteError: a name or id with outer spaces (see check_csv).
        """
        written = 0
        for batch in batches:
            if batch.hands.is_empty():
                continue
            check_csv(batch)
            _sheet(batch).write_csv(stream, include_header=not written)
            written += batch.hands.height
        return written


READER = CsvReader()
WRITER = CsvWriter()
