"""The fpdb-3 OFC export (``.json``): the JSON the open-source fpdb-3 tracker keeps.

One hand is one object::

    {"site": "PokerStars", "hand_id": "254871230017", "table_id": "Hydra II",
     "timestamp": "2026-03-01T20:15:00+01:00",
     "variant": {"variant": "ofc", "pineapple": true, "deuce_to_seven": false},
     "players": [{"name": "Ivey", "seat_idx": 1, "starting_stack": 150.5,
                  "top": ["6s", "6c", "4h"], "middle": [...], "bottom": [...],
                  "active": true, "points": 4, "collected": 1.0}, ...],
     "rounds": [{"round": 1, "player": "Ivey", "dealt": [...],
                 "placed": {"top": ["6s"], "middle": [], "bottom": []},
                 "discarded": []}, ...],
     "result": {"points_settled": 4}}

A file holds one such object, a JSON list of them (pretty-printed or on one line),
or JSON Lines. The flags map to variants: ``deuce_to_seven`` is 2-7 Pineapple (SwC's
OFC/P 2-7, its middle row scored as lowball); ``pineapple`` turns plain OFC into
Pineapple; ``variant`` may also name ``progressive``, ``ultimate`` or any variant
JSON Lines accepts (``joker-ultimate``, ``double-deck``, ...). Players with
``"active": false`` were not dealt in and are left out. A ``timestamp`` may be
ISO 8601 or Unix seconds (or milliseconds). ofc-stats also reads and writes
``in_fantasyland``, ``fl_cards``, ``royalties``, ``discards`` and ``money`` (the net
money the room paid) on a player, which fpdb-3 does not have.

Hands are cut out of the bytes with numpy (brackets counted outside strings), so a
list on a single line streams like any other file; each hand's text then goes to
DuckDB's JSON reader as in :mod:`ofc_stats.formats.jsonl`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.engine.rules import Row, Variant
from ofc_stats.formats import BATCH_HANDS, Format
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.jsonl import decode_json, hands_query, syntax_errors
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
    split_file,
    street_actions,
    with_card_lists,
    with_errors,
    without_undecodable,
)
from ofc_stats.formats.streaming import CHUNK_BYTES, ByteSource, TextChunk, decode_head
from ofc_stats.formats.writing import (
    card_list,
    decimal_text,
    local_time_text,
    street_entries,
    write_json_lines,
)

_TEXT = "VARCHAR"
_STRUCTURE = json.dumps({
    "site": _TEXT, "hand_id": _TEXT, "table_id": _TEXT, "timestamp": _TEXT, "variant": _TEXT,
    "players": [{
        "name": _TEXT, "seat_idx": _TEXT, "starting_stack": _TEXT, "top": _TEXT,
        "middle": _TEXT, "bottom": _TEXT, "active": _TEXT, "points": _TEXT,
        "collected": _TEXT, "in_fantasyland": _TEXT, "fl_cards": _TEXT, "royalties": _TEXT,
        "discards": _TEXT, "money": _TEXT,
    }],
    "rounds": [{
        "round": _TEXT, "player": _TEXT, "dealt": _TEXT,
        "placed": {"top": _TEXT, "middle": _TEXT, "bottom": _TEXT}, "discarded": _TEXT,
    }],
})
_FLAGS = json.dumps({"variant": _TEXT, "pineapple": _TEXT, "deuce_to_seven": _TEXT})
_QUERY = f"""
SELECT valid, hand,
       CASE WHEN starts_with(hand.variant, '{{')
            THEN json_transform(hand.variant, '{_FLAGS}') END AS flags
FROM ({hands_query(_STRUCTURE)})
"""
PLAIN_OFC = ("", "ofc", "classic", "regular", "open face chinese", "chinese", "classic ofc")
# Outside hands a JSON container holds only these: white space, commas, brackets.
_BETWEEN = np.zeros(256, dtype=bool)
_BETWEEN[[ord(c) for c in " \t\r\n,[]"]] = True
_BRACKET = np.zeros(256, dtype=bool)
_BRACKET[[ord(c) for c in "{}[]"]] = True
_QUOTE, _BACKSLASH = ord('"'), ord("\\")


def unescaped_quotes(array: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """Positions of the quotes that open or close JSON strings."""
    quotes = np.flatnonzero(array == _QUOTE)
    after = quotes[(quotes > 0) & (array[np.maximum(quotes - 1, 0)] == _BACKSLASH)]
    if not len(after):
        return quotes.astype(np.int64)
    # A quote after an odd run of backslashes is escaped. Loops over the longest
    # run (a few), not over quotes.
    run = np.zeros(len(after), dtype=np.int64)
    position = after - 1
    going = np.ones(len(after), dtype=bool)
    while going.any():
        going &= (position >= 0) & (array[np.maximum(position, 0)] == _BACKSLASH)
        run += going
        position -= 1
    return np.setdiff1d(quotes, after[run % 2 == 1]).astype(np.int64)


def bracket_depths(array: npt.NDArray[np.uint8], base: int
                   ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                              npt.NDArray[np.int64]]:
    """Brackets outside JSON strings: positions, steps (+1 opens, -1 closes) and the
    depth after each, counting from ``base``."""
    quotes = unescaped_quotes(array)
    brackets = np.flatnonzero(_BRACKET[array])
    structural = brackets[np.searchsorted(quotes, brackets) % 2 == 0].astype(np.int64)
    step = np.where((array[structural] == ord("{")) | (array[structural] == ord("[")),
                    1, -1).astype(np.int64)
    return structural, step, base + np.cumsum(step)


class FpdbParser:
    """Cuts fpdb hands out of a JSON object, list or JSON Lines file; parses them."""

    def __init__(self, file: str, file_head: bytes) -> None:
        self.file = file
        self.level = 1 if file_head.lstrip().startswith(b"[") else 0  # depth of hands
        self.depth = 0  # depth at the start of the next chunk
        self.byte_offsets: bool | None = None  # hands located by byte offset, not line

    def where(self, chunk: TextChunk, positions: npt.NDArray[np.int64]
              ) -> npt.NDArray[np.int64]:
        """Line numbers of positions, or byte offsets for hands sharing a line."""
        return chunk.offsets(positions) if self.byte_offsets else chunk.line_numbers(positions)

    def split(self, chunk: TextChunk, limit: int) -> Units:
        """Whole hand objects; an unfinished last one waits for more data."""
        data = chunk.data
        position, step, depth = bracket_depths(chunk.array, self.depth)
        opens = position[(step == 1) & (depth == self.level + 1)]
        closes = position[(step == -1) & (depth == self.level)] + 1
        take = min(len(closes), limit)
        unfinished = take == len(closes) < len(opens)
        if take < len(opens) and not (unfinished and chunk.at_eof):
            consumed = int(opens[take])  # the next hand starts there
        else:
            consumed = len(data)
        if self.byte_offsets is None and len(opens) > 1:
            lines = chunk.line_numbers(opens[:2])
            self.byte_offsets = bool(lines[0] == lines[1])  # a list on one line
        starts, ends = opens[:take], closes[:take]
        frame = pl.DataFrame({"line": self.where(chunk, starts), "pos": starts, "end": ends})
        frame = frame.with_columns(chunk.texts(starts, ends).alias("text"))
        checked = int(opens[take]) if unfinished and chunk.at_eof else consumed
        problems = [empty_problems(), self._stray(chunk, starts, ends, checked)]
        end_offset = int(chunk.offsets(np.array([consumed]))[0])
        if unfinished and chunk.at_eof:
            start = opens[take:take + 1]
            problems.append(problem_rows(self.file, self.where(chunk, start), "truncated",
                                         TRUNCATED, chunk.texts(start, np.array([len(data)]))))
            end_offset = int(chunk.offsets(start)[0])
        frame, undecodable = without_undecodable(chunk, frame, starts, ends, self.file)
        problems.append(undecodable)
        before = position < consumed
        if before.any():
            self.depth = int(depth[before][-1])
        return Units(frame.select("line", "text"), pl.concat(problems), consumed, end_offset)

    def _stray(self, chunk: TextChunk, starts: npt.NDArray[np.int64],
               ends: npt.NDArray[np.int64], consumed: int) -> pl.DataFrame:
        """A problem for the first text between hands that is not JSON punctuation."""
        # The bytes between hands (hands do not overlap): usually a few per hand, so
        # only they are looked at; where they are many (text that is no hand), a mask
        # over the chunk (a byte per byte, not the positions' eight) finds them.
        gap_starts = np.concatenate(([0], np.minimum(ends, consumed)))
        gap_ends = np.concatenate((np.minimum(starts, consumed), [consumed]))
        lengths = np.maximum(gap_ends - gap_starts, 0)
        if int(lengths.sum()) <= consumed // 16:
            first_of_gap = np.cumsum(lengths) - lengths
            between = (np.repeat(gap_starts - first_of_gap, lengths)
                       + np.arange(int(lengths.sum()), dtype=np.int64))
            stray = between[~_BETWEEN[chunk.array[between]]]
        else:
            covered = np.zeros(consumed + 1, dtype=np.int8)
            covered[starts] = 1
            covered[ends] -= 1
            outside = np.cumsum(covered[:consumed], dtype=np.int8) == 0
            stray = np.flatnonzero(outside & ~_BETWEEN[chunk.array[:consumed]])
        if not len(stray):
            return empty_problems()
        first = stray[:1].astype(np.int64)
        following = starts[starts > first[0]]
        end = np.array([following[0] if len(following) else consumed], dtype=np.int64)
        return problem_rows(self.file, self.where(chunk, first), "syntax",
                            "text between hands that is not part of any hand",
                            chunk.texts(first, end))

    def parse(self, units: pl.DataFrame) -> RawHands:
        """Decode the hands in one DuckDB query and map fpdb's fields to raw frames."""
        decoded = decode_json(units, _QUERY)
        flags = decoded["flags"].struct
        frame = pl.concat([units, decoded.select("hand").unnest("hand")], how="horizontal")
        frame = frame.with_columns(
            syntax_errors(units, decoded, "a hand").alias("error"),
            flags.field("variant").alias("_flag_variant"),
            flags.field("pineapple").alias("pineapple"),
            flags.field("deuce_to_seven").alias("deuce_to_seven"))
        seats, seat_errors = _raw_seats(frame)
        streets, street_errors = _raw_streets(frame, seats)
        # "variant" is an object of flags, or (leniently) a plain name.
        named = pl.coalesce(pl.col("_flag_variant"), pl.when(
            ~pl.col("variant").str.starts_with("{")).then(pl.col("variant")))
        plain = named.fill_null("").str.strip_chars().str.to_lowercase().is_in(PLAIN_OFC)
        pineapple, pineapple_error = parse_bool("pineapple")
        lowball, lowball_error = parse_bool("deuce_to_seven")
        hands = frame.select(
            "record", "line", pl.col("text").alias("raw"), "site", "hand_id",
            pl.col("table_id").alias("table"), _timestamp().alias("started_at"),
            # SwC's OFC/P 2-7 (variant ofcp_27): the deuce-to-seven flag decides.
            pl.when(lowball.fill_null(False)).then(pl.lit(Variant.DEUCE_TO_SEVEN.value))
            .when(plain).then(pl.when(pineapple.fill_null(False))
                              .then(pl.lit(Variant.PINEAPPLE.value))
                              .otherwise(pl.lit(Variant.CLASSIC.value)))
            .otherwise(named).alias("variant"),
            first_error([
                pl.col("error"), pineapple_error, lowball_error,
                pl.when(pl.col("error").is_null() & pl.col("players").is_null()).then(
                    pl.lit("players must be a list of players")),
            ]).alias("error"),
        )
        hands = with_errors(hands, seat_errors, street_errors)
        return RawHands(hands, seats, streets, empty_problems())


def _timestamp() -> pl.Expr:
    """ISO 8601 text as is; Unix seconds (or milliseconds) as UTC text."""
    text = pl.col("timestamp").str.strip_chars()
    number = text.cast(pl.Float64, strict=False)
    micros = (pl.when(number.abs() > 1e11).then(number * 1_000).otherwise(number * 1_000_000)
              .round(0).cast(pl.Int64, strict=False))
    epoch = pl.from_epoch(micros, time_unit="us").dt.strftime("%Y-%m-%dT%H:%M:%S%.6f")
    return pl.when(number.is_not_null()).then(epoch).otherwise(text)


def _raw_seats(frame: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    players = (frame.select("record", "players").filter(pl.col("players").is_not_null())
               .explode("players").filter(pl.col("players").is_not_null())
               .unnest("players"))
    players = with_card_lists(players, [*(row.value for row in Row), "discards"])
    active, active_error = parse_bool("active")
    seat, seat_error = parse_int_in(players, "seat_idx")
    points, points_error = parse_int_in(players, "points")
    royalties, royalties_error = parse_int_in(players, "royalties")
    fl_cards, fl_error = parse_int_in(players, "fl_cards")
    in_fl, in_fl_error = parse_bool("in_fantasyland")
    playing = players.filter(active.fill_null(True) | active_error.is_not_null())
    seats = playing.select(
        "record", seat.alias("seat"), pl.col("name").alias("player"),
        *(pl.col(row.value) for row in Row),
        in_fl.alias("in_fantasyland"), fl_cards.alias("fl_cards"),
        "discards", points.alias("reported_points"),
        royalties.alias("reported_royalties"), "starting_stack", "collected",
        pl.col("money").alias("reported_money"),
        pl.concat_str([pl.format("player '{}': ", pl.col("name").fill_null("?")), first_error([
            active_error, seat_error, points_error, royalties_error, fl_error, in_fl_error,
            *(pl.when(pl.col(row.value).is_null()).then(pl.lit(f"missing {row.value}"))
              for row in Row),
        ])]).alias("error"),
    )
    return seats.drop("error"), seats.select("record", "error")


def _raw_streets(frame: pl.DataFrame, seats: pl.DataFrame
                 ) -> tuple[pl.DataFrame | None, pl.DataFrame]:
    rounds = (frame.select("record", "rounds").filter(pl.col("rounds").is_not_null())
              .explode("rounds").filter(pl.col("rounds").is_not_null())
              .unnest("rounds"))
    if rounds.is_empty():
        return None, pl.DataFrame(schema={"record": pl.Int64, "error": pl.String})
    number, number_error = parse_int_in(rounds, "round")
    # fpdb may count rounds from 0; streets count from 1.
    first = number.min().over("record")
    entries = rounds.select(
        "record", pl.col("player"),
        (number + pl.when(first == 0).then(1).otherwise(0)).cast(pl.String).alias("street"),
        number_error.alias("_number_error"), "dealt",
        *(pl.col("placed").struct.field(row.value).alias(row.value) for row in Row),
        "discarded",
    ).join(seats.select("record", "player", pl.col("seat").cast(pl.String)),
           on=["record", "player"], how="left", maintain_order="left")
    actions, errors = street_actions(entries.filter(pl.col("seat").is_not_null()), seats)
    unknown = entries.select("record", first_error([
        pl.col("_number_error"),
        pl.when(pl.col("seat").is_null()).then(pl.format(
            "round {} names '{}', who is not an active player", "street", "player")),
    ]).alias("error"))
    return actions, pl.concat([errors, unknown])


class FpdbReader:
    """Reads fpdb-3 OFC exports (see the module doc)."""

    format = Format.FPDB

    def __init__(self, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.chunk_bytes = chunk_bytes

    def sniff(self, head: bytes) -> int:
        """Confidence that ``head`` starts an fpdb-3 OFC export."""
        text = decode_head(head).lstrip()
        if not text.startswith(("{", "[")):
            return 0
        keys = sum(f'"{key}"' in text for key in ("table_id", "seat_idx", "rounds",
                                                   "deuce_to_seven", "timestamp"))
        if keys >= 2:
            return 90
        if '"format"' not in text and '"hand_id"' in text and '"players"' in text:
            return 60  # a hand in JSON, fpdb's or not: the file's suffix decides
        return 55 if text.startswith("[") else 0

    def read(self, stream: BinaryIO, file: str, *, batch_hands: int = BATCH_HANDS,
             start_offset: int = 0) -> Iterator[ReadBatch]:
        """Stream the hands of ``stream`` from ``start_offset`` on (see FormatReader)."""
        source = ByteSource(stream, start_offset, self.chunk_bytes, whole_lines=False)
        parser = FpdbParser(file, source.file_head)
        if start_offset:  # resuming between two hands of the list
            parser.depth = parser.level
        yield from read_batches(source, parser, file, batch_hands)

    def split_file(self, stream: BinaryIO, file: str, max_hands: int | None = None
                   ) -> SplitFile:
        """Every hand of a whole (small) file, cut out (by its own layout) but not parsed."""
        source = ByteSource(stream, 0, self.chunk_bytes, whole_lines=False)
        return split_file(source, FpdbParser(file, source.file_head), file, max_hands)

    def parse_files(self, files: Sequence[SplitFile]) -> CanonicalBatch:
        """The hands of several split files, parsed as one batch."""
        return parse_files(files, FpdbParser("", b""))


# Each variant as fpdb's flags: (variant, pineapple, deuce_to_seven).
_VARIANTS = {
    **{variant.value: (variant.value, variant.pineapple_deal, False) for variant in Variant},
    Variant.CLASSIC.value: ("ofc", False, False), Variant.PINEAPPLE.value: ("ofc", True, False),
    Variant.DEUCE_TO_SEVEN.value: ("ofcp_27", True, True),
}


def _records(batch: CanonicalBatch) -> pl.Series:
    keys = ["site", "hand_id"]
    seats = batch.seats.sort(*keys, "seat", maintain_order=True)
    players = seats.group_by(keys, maintain_order=True).agg(
        pl.struct(
            pl.col("player").alias("name"), pl.col("seat").alias("seat_idx"),
            pl.col("starting_stack").cast(pl.Float64).alias("starting_stack"),
            *(card_list(row.value).alias(row.value) for row in Row),
            pl.lit(True).alias("active"), pl.col("reported_points").alias("points"),
            pl.col("collected").cast(pl.Float64).alias("collected"),
            "in_fantasyland", "fl_cards", pl.col("reported_royalties").alias("royalties"),
            pl.when(pl.col("discards").is_not_null()).then(card_list("discards"))
            .alias("discards"),
            decimal_text("reported_money").alias("money"),
        ).alias("players"),
        pl.col("reported_points").clip(lower_bound=0).sum().alias("_settled"),
    )
    rounds = (street_entries(batch.streets)
              .join(seats.select(*keys, "seat", "player"), on=[*keys, "seat"], how="left",
                    maintain_order="left")
              .group_by(keys, maintain_order=True)
              .agg(pl.struct(pl.col("street").alias("round"), "player", "dealt",
                             pl.struct(*(row.value for row in Row)).alias("placed"),
                             "discarded").alias("rounds")))
    frame = (batch.hands.drop("players")
             .join(players, on=keys, how="left", maintain_order="left")
             .join(rounds, on=keys, how="left", maintain_order="left"))
    flags = pl.col("variant").replace_strict({k: v[0] for k, v in _VARIANTS.items()},
                                             return_dtype=pl.String)
    pineapple = pl.col("variant").replace_strict({k: v[1] for k, v in _VARIANTS.items()},
                                                 return_dtype=pl.Boolean)
    lowball = pl.col("variant").replace_strict({k: v[2] for k, v in _VARIANTS.items()},
                                               return_dtype=pl.Boolean)
    record = pl.struct(
        "site", "hand_id", pl.col("table").alias("table_id"),
        local_time_text().alias("timestamp"),
        pl.struct(flags.alias("variant"), pineapple.alias("pineapple"),
                  lowball.alias("deuce_to_seven")).alias("variant"),
        "players", pl.col("rounds").fill_null([]),
        pl.struct(pl.col("_settled").alias("points_settled")).alias("result"),
    )
    return (frame.select(record.struct.json_encode().alias("line"))["line"]
            .str.replace_all(r',"(?:fl_cards|royalties|discards|points|starting_stack|'
                             r'collected|money)":null', ""))


class FpdbWriter:
    """Writes fpdb-3 style hand objects, one per line (JSON Lines)."""

    format = Format.FPDB

    def write(self, batches: Iterable[CanonicalBatch], stream: BinaryIO) -> int:
        """Write every hand of ``batches`` to ``stream``; return how many were written."""
        return write_json_lines(batches, stream, _records)


READER = FpdbReader()
WRITER = FpdbWriter()
