"""Native OFC JSON Lines (``.jsonl``), version 1: one hand per line.

Each line is one JSON object tagged ``"format": "ofc-hh", "version": 1``; the
JSON Schema is ``ofc_stats/formats/ofc-hand-v1.schema.json`` and docs/formats.md
has a full example. It carries every field of the canonical records, streets
included, so it is the format to export to and to archive in.

Reading is vectorised. The lines of a batch go to pyarrow's JSON reader with the
full typed schema (numbers, booleans, card lists as lists of strings): it takes the
lines that are exactly that shape, as they are written. Any other line (a number
written as text, a card list as one string, a null card, an escape, malformed JSON)
makes pyarrow refuse the block it is in; the block is halved until the lines it
refuses are found, and those go to DuckDB's JSON reader in one query (every scalar
as text, card lists as their JSON text), which reads them leniently and says why a
line is bad. Both give the raw frames :func:`ofc_stats.formats.canonical.normalise`
checks, and a line reads the same either way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.json as pa_json  # type: ignore[import-untyped]

from ofc_stats.engine.rules import Row
from ofc_stats.formats import BATCH_HANDS, Format
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.card_lists import with_card_lists
from ofc_stats.formats.reading import (
    TRUNCATED,
    RawHands,
    ReadBatch,
    SplitFile,
    Units,
    empty_problems,
    first_error,
    parse_bool,
    parse_files,
    parse_int_in,
    problem_rows,
    read_batches,
    set_aside,
    split_file,
    street_actions,
    with_errors,
    without_undecodable,
)
from ofc_stats.formats.streaming import (
    CHUNK_BYTES,
    ByteSource,
    TextChunk,
    decode_head,
    string_buffers,
)
from ofc_stats.formats.writing import (
    card_list,
    decimal_text,
    local_time_text,
    street_entries,
    write_json_lines,
)
from ofc_stats.util.duckdb_connection import duckdb_cursor

DECODE_SLICE_BYTES = 1 << 20  # text per record batch DuckDB decodes (see decode_json)

FORMAT_TAG = "ofc-hh"
VERSION = 1

_TEXT = "VARCHAR"
# Every leaf as text: numbers are checked by casting (JSON 1.5 is not seat 1) and a
# card list arrives as its JSON text, or as a string when written "Ah Kd Qd".
_STRUCTURE = json.dumps({
    "format": _TEXT, "version": _TEXT, "site": _TEXT, "hand_id": _TEXT, "table": _TEXT,
    "started_at": _TEXT, "variant": _TEXT, "ruleset": _TEXT, "button_seat": _TEXT,
    "point_value": _TEXT, "currency": _TEXT,
    "players": [{
        "seat": _TEXT, "name": _TEXT, "top": _TEXT, "middle": _TEXT, "bottom": _TEXT,
        "in_fantasyland": _TEXT, "fl_cards": _TEXT, "discards": _TEXT,
        "reported_points": _TEXT, "reported_royalties": _TEXT, "starting_stack": _TEXT,
        "collected": _TEXT, "reported_money": _TEXT,
    }],
    "streets": [{
        "street": _TEXT, "seat": _TEXT, "dealt": _TEXT,
        "placed": {"top": _TEXT, "middle": _TEXT, "bottom": _TEXT}, "discarded": _TEXT,
    }],
})


def hands_query(structure: str) -> str:
    """SQL giving ``valid`` and ``hand`` (``structure`` applied to an object) for each
    ``text`` of a table ``lines``.

    Each text is parsed once: json_valid (a second parse) only where the transform gave
    nothing (malformed JSON, which TRY turns into null, or not an object).
    """
    return f"""
SELECT CASE WHEN hand IS NULL THEN json_valid(text) ELSE TRUE END AS valid, hand
FROM (SELECT text, CASE WHEN starts_with(text, '{{')
                        THEN TRY(json_transform(text, '{structure}')) END AS hand
      FROM lines)
"""


_QUERY = hands_query(_STRUCTURE)

_CARDS = pa.list_(pa.string())
# The typed shape of a hand (docs/formats.md): what pyarrow decodes directly. Keys it
# does not name are ignored, as DuckDB's transform ignores them.
TYPED_SCHEMA = pa.schema([
    ("format", pa.string()), ("version", pa.int64()), ("site", pa.string()),
    ("hand_id", pa.string()), ("table", pa.string()), ("started_at", pa.string()),
    ("variant", pa.string()), ("ruleset", pa.string()), ("button_seat", pa.int64()),
    ("point_value", pa.string()), ("currency", pa.string()),
    ("players", pa.list_(pa.struct([
        ("seat", pa.int64()), ("name", pa.string()), ("top", _CARDS), ("middle", _CARDS),
        ("bottom", _CARDS), ("in_fantasyland", pa.bool_()), ("fl_cards", pa.int64()),
        ("discards", _CARDS), ("reported_points", pa.int64()),
        ("reported_royalties", pa.int64()), ("starting_stack", pa.string()),
        ("collected", pa.string()), ("reported_money", pa.string()),
    ]))),
    ("streets", pa.list_(pa.struct([
        ("street", pa.int64()), ("seat", pa.int64()), ("dealt", _CARDS),
        ("placed", pa.struct([(row.value, _CARDS) for row in Row])), ("discarded", _CARDS),
    ]))),
])
TYPED_PARSE_OPTIONS = pa_json.ParseOptions(explicit_schema=TYPED_SCHEMA,
                                           unexpected_field_behavior="ignore")
# Blocks of fewer lines than this that pyarrow refuses are not halved again: their
# lines go to DuckDB.
_SMALLEST_BLOCK = 16
_HAND_FIELDS = ("site", "hand_id", "table", "started_at", "variant", "ruleset",
                "point_value", "currency")


def split_lines(chunk: TextChunk, limit: int, file: str) -> Units:
    """Units of one non-blank line each, at most ``limit`` (for JSON Lines formats).

    A last line without a newline at the end of the stream that is not valid JSON is
    a half-written hand: a ``truncated`` problem, left out of ``end_offset``. Lines
    with undecodable bytes are ``encoding`` problems.
    """
    lines = chunk.lines().with_columns(pl.col("text").str.strip_chars()).filter(
        pl.col("text") != "")
    consumed = len(chunk.data)
    if lines.height > limit:
        lines = lines.head(limit)
        consumed = int(lines["end"][-1])
    end_offset = int(chunk.offsets(np.array([consumed]))[0])
    problems = [empty_problems()]
    if (chunk.at_eof and not chunk.data.endswith(b"\n") and lines.height
            and int(lines["end"][-1]) == len(chunk.data) and not _is_json(lines["text"][-1])):
        last = lines.tail(1)
        end_offset = int(chunk.offsets(last["pos"].to_numpy())[0])
        # The hand's key, if the part written holds it.
        key = [last["text"].str.extract(rf'"{name}"\s*:\s*"([^"\\]*)"', 1).alias(name)
               for name in ("site", "hand_id")]
        problems.append(problem_rows(file, last["line"], "truncated", TRUNCATED, last["text"],
                                     *key))
        lines = lines.head(-1)
    lines, undecodable = without_undecodable(chunk, lines, lines["pos"].to_numpy(),
                                             lines["end"].to_numpy(), file)
    problems.append(undecodable)
    return Units(lines.select("line", "text"), pl.concat(problems), consumed, end_offset)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def decode_json(lines: pl.DataFrame, query: str) -> pl.DataFrame:
    """Run ``query`` (over a table ``lines`` with a ``text`` column) in DuckDB.

    A connection of its own (microseconds to open): batches are parsed on several
    threads, and what a connection registers is its own. DuckDB takes the rows a
    record batch at a time, so batches of about ``DECODE_SLICE_BYTES`` of text keep
    its parsed documents small (yyjson's are several times the text): ingesting
    100 k fpdb-3 hands peaked at 710-740 MiB instead of 900-960, at the same CPU.
    """
    texts = lines.select("text").to_arrow()
    rows = max(1, min(2048, DECODE_SLICE_BYTES * texts.num_rows
                      // max(1, _text_bytes(texts["text"]))))
    connection = duckdb_cursor()
    try:
        connection.register("lines", pa.Table.from_batches(texts.to_batches(
            max_chunksize=rows), schema=texts.schema))
        result: pl.DataFrame = connection.sql(query).pl()
        return result
    finally:
        connection.close()


def _text_bytes(column: pa.ChunkedArray) -> int:
    """Bytes of text in a string column (its data buffers, views' inline bytes aside)."""
    return sum(buffer.size for chunk in column.chunks for buffer in chunk.buffers()[2:]
               if buffer is not None) or 16 * len(column)


def json_error(text: str) -> str:
    """Why ``text`` is not valid JSON, in Python's words (rare path: bad lines only)."""
    try:
        json.loads(text)
    except ValueError as error:
        message = str(error).split(": line 1 column")[0]
        where = getattr(error, "colno", None)
        return f"invalid JSON: {message}" + (f" at column {where}" if where else "")
    return "invalid JSON"


def syntax_errors(units: pl.DataFrame, decoded: pl.DataFrame, what: str) -> pl.Series:
    """One error (or null) per unit: invalid JSON, or JSON that is not an object."""
    invalid = units.filter(~decoded["valid"])
    # Python's parser says where each invalid unit breaks: runs for bad units only.
    reasons = {record: json_error(text) for record, text in invalid.select(
        "record", "text").iter_rows()}
    return (pl.DataFrame({"record": units["record"], "valid": decoded["valid"],
                          "object": decoded["hand"].is_not_null()})
            .select(pl.when(~pl.col("valid")).then(
                pl.col("record").replace_strict(reasons, default=None, return_dtype=pl.String))
                .when(~pl.col("object"))
                .then(pl.lit(f"{what} must hold one JSON object (a hand)")))
            .to_series())


def typed_candidates(units: pl.DataFrame) -> pl.Series:
    """Which lines pyarrow's typed decode may take: one object on the line, with no
    escape (DuckDB's text of a card list keeps it, so the cards read would differ)."""
    text = pl.col("text")
    return units.select(text.str.starts_with("{") & text.str.ends_with("}")
                        & ~text.str.contains("\\", literal=True)).to_series()


def _null_cards(table: pa.Table) -> bool:
    """Whether a decoded card list holds a null (DuckDB's text reads it as the card
    ``null``)."""
    for chunk in table.column("players").chunks:
        players = chunk.values
        if any(players.field(name).values.null_count for name in (
                *(row.value for row in Row), "discards")):
            return True
    for chunk in table.column("streets").chunks:
        streets = chunk.values
        placed = streets.field("placed")
        if any(list_array.values.null_count for list_array in (
                streets.field("dealt"), streets.field("discarded"),
                *(placed.field(row.value) for row in Row))):
            return True
    return False


def _typed_block(data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64], start: int,
                 stop: int) -> pa.Table | None:
    """Lines ``start:stop`` decoded with the typed schema, or None if pyarrow refuses
    any of them (or reads other than one hand a line)."""
    block = pa.py_buffer(data[offsets[start]:offsets[stop]])
    try:
        table = pa_json.read_json(pa.BufferReader(block), parse_options=TYPED_PARSE_OPTIONS)
    except pa.ArrowException:
        return None
    if table.num_rows != stop - start or _null_cards(table):
        return None
    return table


def _typed_blocks(data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64], start: int,
                  stop: int) -> list[tuple[int, int, pa.Table]]:
    """The blocks of lines ``start:stop`` pyarrow takes, in order.

    A block it refuses is halved, down to ``_SMALLEST_BLOCK`` lines. The blocks refused
    may hold twice the bytes of all the lines, no more (one bad line costs about that):
    with bad lines everywhere, the blocks left go to the lenient reading rather than
    being decoded again and again.
    """
    budget = 2 * int(offsets[stop] - offsets[start])
    taken: list[tuple[int, int, pa.Table]] = []
    pending = [(start, stop)]
    while pending:
        first, last = pending.pop()
        table = _typed_block(data, offsets, first, last)
        if table is not None:
            taken.append((first, last, table))
            continue
        budget -= int(offsets[last] - offsets[first])
        if last - first >= _SMALLEST_BLOCK and budget > 0:
            middle = (first + last) // 2
            pending += [(middle, last), (first, middle)]  # the first half next
    return taken


def decode_typed(units: pl.DataFrame) -> tuple[pl.DataFrame, npt.NDArray[np.bool_]]:
    """The lines pyarrow decodes with the typed schema (``record``, ``line``, ``text``
    and the hand's fields), and which of ``units`` they are.

    The lines are decoded in one call (pyarrow's threads); where pyarrow refuses a
    line, its block is halved until the refused lines are found. A line of another
    format or version is left to the lenient reading, which words the message.
    """
    candidate = typed_candidates(units).to_numpy()
    taken = np.zeros(units.height, dtype=bool)
    candidates = _rows(units, candidate)
    if candidates.is_empty():
        return candidates, taken
    offsets, data = string_buffers(candidates["text"] + "\n")
    blocks = _typed_blocks(data, offsets, 0, candidates.height)
    if not blocks:
        return candidates.clear(), taken
    rows = np.zeros(candidates.height, dtype=bool)
    for start, stop, _ in blocks:
        rows[start:stop] = True
    decoded = pl.from_arrow(pa.concat_tables([table for _, _, table in blocks]))
    assert isinstance(decoded, pl.DataFrame)
    frame = pl.concat([_rows(candidates, rows), decoded], how="horizontal")
    tagged = frame.select((pl.col("format").is_null() | (pl.col("format") == FORMAT_TAG))
                          & (pl.col("version").is_null() | (pl.col("version") == VERSION))
                          ).to_series().to_numpy()
    rows[rows] = tagged
    taken[np.flatnonzero(candidate)[rows]] = True
    return _rows(frame, tagged), taken


def _rows(frame: pl.DataFrame, keep: npt.NDArray[np.bool_]) -> pl.DataFrame:
    """``frame`` where ``keep``; nearly always every row, so no copy then."""
    return frame if keep.all() else frame.filter(pl.Series(keep))


class JsonLinesParser:
    """Splits and parses an ofc-hh JSON Lines file (one parser per read).

    ``typed``: decode the lines pyarrow takes with the typed schema (see the module
    doc); without it, every line takes the lenient reading.
    """

    def __init__(self, file: str, *, typed: bool = True) -> None:
        self.file = file
        self.typed = typed

    def split(self, chunk: TextChunk, limit: int) -> Units:
        """One unit per non-blank line."""
        return split_lines(chunk, limit, self.file)

    def parse(self, units: pl.DataFrame) -> RawHands:
        """Decode the lines (typed where pyarrow takes them, the rest in one DuckDB
        query) and flatten them into raw frames."""
        parts = []
        rest = units
        if self.typed:
            typed, taken = decode_typed(units)
            if typed.height:
                parts.append(self._raw_hands(typed.with_columns(
                    pl.lit(None, pl.String).alias("error"),
                    pl.col("version").cast(pl.String))))
                rest = _rows(units, ~taken)
        if rest.height or not parts:
            parts.append(self._lenient(rest))
        return parts[0] if len(parts) == 1 else _merged(parts)

    def _lenient(self, units: pl.DataFrame) -> RawHands:
        """Every leaf read as text by DuckDB: checked by casting, bad JSON explained."""
        decoded = decode_json(units, _QUERY)
        frame = pl.concat([units, decoded.select("hand").unnest("hand")], how="horizontal")
        return self._raw_hands(frame.with_columns(
            syntax_errors(units, decoded, "a line").alias("error")))

    def _raw_hands(self, frame: pl.DataFrame) -> RawHands:
        hands, seats, streets = _raw_frames(frame)
        raw = RawHands(hands, seats, streets, empty_problems())
        version = frame.filter(pl.col("error").is_null()).select(
            "record", "line", "text", "site", "hand_id", _version_error().alias("reason")
        ).filter(pl.col("reason").is_not_null())
        return set_aside(raw, version["record"], problem_rows(
            self.file, version["line"], "version", version["reason"], version["text"],
            version["site"], version["hand_id"]))


def _merged(parts: Sequence[RawHands]) -> RawHands:
    """Raw frames of several sets of records as one, in record order."""
    def joined(frames: list[pl.DataFrame]) -> pl.DataFrame:
        return pl.concat(frames, how="diagonal_relaxed").sort("record", maintain_order=True)

    streets = [part.streets for part in parts if part.streets is not None]
    return RawHands(joined([part.hands for part in parts]),
                    joined([part.seats for part in parts]),
                    joined(streets) if streets else None,
                    pl.concat([part.problems for part in parts]))


def _version_error() -> pl.Expr:
    # Both tags are optional (a line without them is read as version 1); a line that
    # names another format or version is set aside, so a future version is never misread.
    version = pl.col("version").str.strip_chars().cast(pl.Float64, strict=False)
    expected = f'"format": "{FORMAT_TAG}", "version": {VERSION}'
    return (
        pl.when(pl.col("format").is_not_null() & (pl.col("format") != FORMAT_TAG))
        .then(pl.format(f"format '{{}}' is not supported (this reader reads {expected})",
                        pl.col("format")))
        .when(pl.col("version").is_not_null() & ((version != VERSION) | version.is_null()))
        .then(pl.format(f"version '{{}}' is not supported (this reader reads {expected})",
                        pl.col("version")))
    )


def _raw_frames(frame: pl.DataFrame
                ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None]:
    """Raw hands, seats and streets out of decoded lines."""
    button, button_error = parse_int_in(frame, "button_seat")
    seats, seat_errors = _raw_seats(frame)
    streets, street_errors = _raw_streets(frame, seats)
    hands = frame.select(
        "record", "line", pl.col("text").alias("raw"),
        *(pl.col(name) for name in _HAND_FIELDS), button.alias("button_seat"),
        first_error([
            pl.col("error"),
            pl.when(pl.col("error").is_null() & pl.col("players").is_null()).then(pl.lit(
                "players must be a list of seats")),
            pl.when(pl.col("streets").is_null() & pl.col("text").str.contains(
                '"streets"', literal=True) & pl.col("error").is_null()).then(
                pl.lit("streets must be a list of street entries")),
            button_error,
        ]).alias("error"),
    )
    hands = with_errors(hands, seat_errors, street_errors)
    return hands, seats, streets


def _raw_seats(frame: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    players = (frame.select("record", "players").filter(pl.col("players").is_not_null())
               .explode("players").filter(pl.col("players").is_not_null())
               .unnest("players"))
    players = with_card_lists(players, [*(row.value for row in Row), "discards"])
    seat, seat_error = parse_int_in(players, "seat")
    fl_cards, fl_cards_error = parse_int_in(players, "fl_cards")
    points, points_error = parse_int_in(players, "reported_points")
    royalties, royalties_error = parse_int_in(players, "reported_royalties")
    in_fl, in_fl_error = (
        (pl.col("in_fantasyland"), pl.lit(None, pl.String))
        if players.schema["in_fantasyland"] == pl.Boolean else parse_bool("in_fantasyland"))
    where = pl.format("seat {}: ", pl.col("seat").fill_null("?"))
    missing = [pl.when(pl.col(row.value).is_null()).then(pl.lit(f"missing {row.value}"))
               for row in Row]
    seats = players.select(
        "record", seat.alias("seat"), pl.col("name").alias("player"),
        *(pl.col(row.value) for row in Row),
        in_fl.alias("in_fantasyland"), fl_cards.alias("fl_cards"),
        "discards", points.alias("reported_points"),
        royalties.alias("reported_royalties"), "starting_stack", "collected",
        "reported_money",
        pl.concat_str([where, first_error([
            seat_error, *missing, in_fl_error, fl_cards_error, points_error,
            royalties_error])]).alias("error"),
    )
    return seats.drop("error"), seats.select("record", "error")


def _raw_streets(frame: pl.DataFrame, seats: pl.DataFrame
                 ) -> tuple[pl.DataFrame | None, pl.DataFrame]:
    entries = (frame.select("record", "streets").filter(pl.col("streets").is_not_null())
               .explode("streets").filter(pl.col("streets").is_not_null())
               .unnest("streets"))
    if entries.is_empty():
        return None, pl.DataFrame(schema={"record": pl.Int64, "error": pl.String})
    return street_actions(entries.select(
        "record", "street", "seat", "dealt",
        *(pl.col("placed").struct.field(row.value).alias(row.value) for row in Row),
        pl.col("discarded")), seats)


class JsonLinesReader:
    """Reads ofc-hh JSON Lines (see the module doc)."""

    format = Format.JSONL

    def __init__(self, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.chunk_bytes = chunk_bytes

    def sniff(self, head: bytes) -> int:
        """Confidence that ``head`` starts an ofc-hh JSON Lines file."""
        text = decode_head(head).lstrip()
        if not text.startswith("{"):
            return 0
        first = text.split("\n", 1)[0]
        if f'"{FORMAT_TAG}"' in first and '"format"' in first:
            return 95
        if '"players"' in first and '"hand_id"' in first and '"seat_idx"' not in first:
            return 60
        return 10

    def read(self, stream: BinaryIO, file: str, *, batch_hands: int = BATCH_HANDS,
             start_offset: int = 0) -> Iterator[ReadBatch]:
        """Stream the hands of ``stream`` from ``start_offset`` on (see FormatReader)."""
        source = ByteSource(stream, start_offset, self.chunk_bytes)
        yield from read_batches(source, JsonLinesParser(file), file, batch_hands)

    def split_file(self, stream: BinaryIO, file: str, max_hands: int | None = None
                   ) -> SplitFile:
        """Every hand of a whole (small) file, split off but not parsed."""
        return split_file(ByteSource(stream, 0, self.chunk_bytes), JsonLinesParser(file), file,
                          max_hands)

    def parse_files(self, files: Sequence[SplitFile]) -> CanonicalBatch:
        """The hands of several split files, parsed as one batch."""
        return parse_files(files, JsonLinesParser(""))


def _json_lines(batch: CanonicalBatch) -> pl.Series:
    hands, seats = batch.hands, batch.seats
    players = (
        seats.sort("site", "hand_id", "seat", maintain_order=True)
        .group_by("site", "hand_id", maintain_order=True)
        .agg(pl.struct(
            "seat", pl.col("player").alias("name"),
            *(card_list(row.value).alias(row.value) for row in Row),
            "in_fantasyland", "fl_cards",
            pl.when(pl.col("discards").is_not_null()).then(card_list("discards"))
            .alias("discards"),
            "reported_points", "reported_royalties",
            decimal_text("starting_stack").alias("starting_stack"),
            decimal_text("collected").alias("collected"),
            decimal_text("reported_money").alias("reported_money"),
        ).alias("players"))
    )
    streets = (
        street_entries(batch.streets)
        .group_by("site", "hand_id", maintain_order=True)
        .agg(pl.struct("street", "seat",
                       pl.struct(*(_unless_empty(row.value) for row in Row)).alias("placed"),
                       _unless_empty("discarded")).alias("streets"))
    )
    frame = (hands.drop("players")
             .join(players, on=["site", "hand_id"], how="left", maintain_order="left")
             .join(streets, on=["site", "hand_id"], how="left", maintain_order="left"))
    record = pl.struct(
        pl.lit(FORMAT_TAG).alias("format"), pl.lit(VERSION).alias("version"),
        "site", "hand_id", "table", local_time_text().alias("started_at"), "variant",
        "ruleset", "button_seat", decimal_text("point_value").alias("point_value"),
        "currency", "players", "streets",
    )
    # Optional keys with no value are left out rather than written as null. A JSON
    # string never holds an unescaped quote, so the pattern only meets keys.
    return (frame.select(record.struct.json_encode().alias("line"))["line"]
            .str.replace_all(r',"[a-z_]+":null', "")
            .str.replace_all(r'\{"[a-z_]+":null,', "{")
            .str.replace_all(r'\{"[a-z_]+":null\}', "{}"))


def _unless_empty(column: str) -> pl.Expr:
    """A list column, null where the list is empty (the key is then left out)."""
    return pl.when(pl.col(column).list.len() > 0).then(pl.col(column)).alias(column)


class JsonLinesWriter:
    """Writes ofc-hh JSON Lines: one hand per line, every canonical field."""

    format = Format.JSONL

    def write(self, batches: Iterable[CanonicalBatch], stream: BinaryIO) -> int:
        """Write every hand of ``batches`` to ``stream``; return how many were written."""
        return write_json_lines(batches, stream, _json_lines)


READER = JsonLinesReader()
WRITER = JsonLinesWriter()
