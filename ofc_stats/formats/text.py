"""Room-style text histories (``.txt``): hands as poker rooms print them.

The layout follows the hand histories rooms such as PokerStars write: a header
line naming the site, hand, game, stakes and time; the table and button; the
seats; who plays in Fantasyland; each street's cards dealt and placed; and a
summary with every final board and result. Hands are separated by blank lines::

    Home Game Hand #2026-03-01-0042: Pineapple OFC (0.25 EUR per point) - 2026-03-01 20:15:00 +01:00
    Table 'kitchen' Seat #2 is the button
    Seat 1: Ivey
    Seat 2: Hellmuth
    Hellmuth is in Fantasyland (14 cards)
    *** STREET 1 ***
    Dealt to Ivey [6s Td Ts 3h 3d]
    Ivey: top [6s], middle [Td Ts], bottom [3h 3d]
    ...
    *** SUMMARY ***
    Seat 1: Ivey [6s 6c 4h] [Td Ts 9c Qs 8c] [3h 3d 3s 2h 2d] won 4 points (royalties 7)
    Seat 2: Hellmuth [Ah Kd Qd] [9h 9d 5h 5d 4c] [Ks Js 9s 8s 7s] lost 4 points (royalties 4)

docs/formats.md gives the full grammar. Reading splits a chunk into hands at
header lines (cheap), then parses a batch of hands at once: every line is
classified by its prefix and section, and each kind is matched by one regular
expression over all its lines (polars), never line by line in Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import BinaryIO

import numpy as np
import polars as pl

from ofc_stats.engine.rules import Row, Variant
from ofc_stats.formats import BATCH_HANDS, Format
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.reading import (
    TRUNCATED,
    RawHands,
    ReadBatch,
    SplitFile,
    Units,
    empty_problems,
    first_error,
    line_in_file,
    parse_files,
    parse_int,
    problem_rows,
    read_batches,
    split_file,
    street_actions,
    with_errors,
    without_undecodable,
)
from ofc_stats.formats.streaming import CHUNK_BYTES, ByteSource, TextChunk, decode_head
from ofc_stats.formats.writing import (
    check_writable,
    decimal_text,
    local_time_text,
    street_entries,
)

HEADER = (r"^(?P<site>\S.*?) Hand #(?P<hand_id>\S+): (?P<variant>[^\[(]+?)"
          r"(?: \[(?P<ruleset>[^\]]*)\])?"
          r"(?: \((?P<point_value>\S+?)(?: (?P<currency>[^\s)]+))? per point\))?"
          r" - (?P<started_at>\d{4}[-/]\d{2}[-/]\d{2}[ T]\d{2}:\d{2}.*)$")
HEADER_START = r"^\S.*? Hand #\S+: "
HEADER_KEY = r"^(?P<site>\S.*?) Hand #(?P<hand_id>\S+): "
TABLE = r"^Table '(?P<table>.*)'(?: Seat #(?P<button_seat>\d+) is the button)?$"
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+?)(?: \((?P<starting_stack>-?[\d.]+) in chips\))?$"
FANTASYLAND = r"^(?P<player>.+) is in Fantasyland(?: \((?P<fl_cards>\d+) cards\))?$"
STREET = r"^\*\*\* STREET (\d+) \*\*\*$"
SUMMARY = "*** SUMMARY ***"
SUMMARY_SEAT = (r"^Seat (?P<seat>\d+): (?P<player>.+?) \[(?P<top>[^\]]*)\]"
                r" \[(?P<middle>[^\]]*)\] \[(?P<bottom>[^\]]*)\]"
                r"(?: discards \[(?P<discards>[^\]]*)\])?"
                r"(?: (?P<result>won|lost) (?P<points>\d+) points?)?"
                r"(?: \(royalties (?P<royalties>-?\d+)\))?"
                r"(?: collected (?P<collected>-?[\d.]+))?"
                r"(?: net (?P<money>[+-]?[\d.]+))?$")
VARIANT_LABELS = {
    Variant.CLASSIC: "Classic OFC",
    Variant.PINEAPPLE: "Pineapple OFC",
    Variant.PROGRESSIVE: "Progressive Pineapple OFC",
    Variant.ULTIMATE: "Ultimate Pineapple OFC",
    Variant.JOKER_PINEAPPLE: "Joker Pineapple OFC",
    Variant.JOKER_PROGRESSIVE: "Joker Progressive Pineapple OFC",
    Variant.JOKER_ULTIMATE: "Joker Ultimate Pineapple OFC",
    Variant.DOUBLE_DECK: "Double Deck OFC",
    Variant.DOUBLE_DECK_PINEAPPLE: "Double Deck Pineapple OFC",
    Variant.DEUCE_TO_SEVEN: "2-7 Pineapple OFC",
}
_SUMMARY_SEAT = re.compile(SUMMARY_SEAT)

# Sections of a hand: 0 before the first street, n on street n, -1 in the summary.
_HEADER_SECTION, _SUMMARY_SECTION = 0, -1


def is_complete(text: str) -> bool:
    """Whether the last hand of a stream is whole: it ends with a line break after a
    summary line per seat. Without the final line break, the last line may have been
    cut between two of its optional parts and still look whole.

    Only the last hand of a stream is checked this way, once: plain Python.
    """
    if not text.rstrip(" \t").endswith("\n"):
        return False
    lines = [line.rstrip("\r") for line in text.split("\n")]
    if SUMMARY not in lines:
        return False
    cut = lines.index(SUMMARY)
    seated = sum(line.startswith("Seat ") for line in lines[:cut])
    results = sum(bool(_SUMMARY_SEAT.match(line)) for line in lines[cut + 1:])
    return seated > 0 and results == seated


class TextParser:
    """Splits a text history at header lines and parses batches of hands."""

    def __init__(self, file: str) -> None:
        self.file = file

    def split(self, chunk: TextChunk, limit: int) -> Units:
        """Hands from each header line to the next; the last waits for more data."""
        lines = chunk.lines()
        starts = lines.filter(pl.col("text").str.contains(" Hand #", literal=True))
        starts = starts.filter(pl.col("text").str.contains(HEADER_START))
        problems = [empty_problems()]
        lead = lines.filter(pl.col("pos") < (starts["pos"][0] if starts.height else len(
            chunk.data)))
        count = 0
        if lead.height and (lead["text"].str.strip_chars() != "").any():
            problems.append(problem_rows(
                self.file, lead["line"].head(1), "syntax",
                "text outside any hand (a hand starts with a line like "
                "'Site Hand #id: Pineapple OFC - 2026-03-01 20:15:00')",
                [lead["text"].str.join("\n").item()]))
            count = 1
        hand_starts = starts["pos"].to_numpy()
        hand_ends = np.append(hand_starts[1:], len(chunk.data)).astype(np.int64)
        complete = len(hand_starts) if chunk.at_eof else max(0, len(hand_starts) - 1)
        take = min(complete, max(0, limit - count))
        consumed = int(hand_ends[take - 1]) if take else (
            int(lead["end"][-1]) if count and lead.height else 0)
        if not len(hand_starts) and chunk.at_eof:
            consumed = len(chunk.data)
        frame = starts.head(take).select("line", "pos").with_columns(
            pl.Series("end", hand_ends[:take]))
        frame = frame.with_columns(chunk.texts(hand_starts[:take], hand_ends[:take])
                                   .alias("text"))
        end_offset = int(chunk.offsets(np.array([consumed]))[0])
        if take and chunk.at_eof and take == len(hand_starts) and not is_complete(
                frame["text"][-1]):
            last = frame.tail(1)
            header = last["text"].str.extract_groups(HEADER_KEY)  # the hand's key
            problems.append(problem_rows(self.file, last["line"], "truncated", TRUNCATED,
                                         last["text"], header.struct.field("site"),
                                         header.struct.field("hand_id")))
            end_offset = int(chunk.offsets(last["pos"].to_numpy())[0])
            frame = frame.head(-1)
        frame, undecodable = without_undecodable(chunk, frame, frame["pos"].to_numpy(),
                                                 frame["end"].to_numpy(), self.file)
        problems.append(undecodable)
        return Units(frame.select("line", "text"), pl.concat(problems), consumed, end_offset)

    def parse(self, units: pl.DataFrame) -> RawHands:
        """Classify every line of the batch, match each kind at once, build raw frames."""
        lines = _classified_lines(units)
        header = _matched(lines, "header", HEADER)
        table = _matched(lines, "table", TABLE)
        seats = _matched(lines, "seat", SEAT)
        fantasyland = _matched(lines, "fantasyland", FANTASYLAND)
        street_lines = _street_lines(lines)
        summary = _matched(lines, "summary", SUMMARY_SEAT)

        raw_seats, seat_errors = _raw_seats(seats, summary, fantasyland)
        raw_streets, street_errors = _raw_streets(street_lines, raw_seats)
        button, button_error = parse_int("button_seat")
        hands = (
            units.select("record", "line", pl.col("text").alias("raw"))
            .join(header.select("record", "site", "hand_id", "variant", "ruleset",
                                "point_value", "currency", "started_at"),
                  on="record", how="left", maintain_order="left")
            .join(table.select("record", "table", "button_seat", pl.lit(True).alias("_table")),
                  on="record", how="left", maintain_order="left")
            .join(_line_errors(lines, [header, table, seats, fantasyland, street_lines,
                                       summary]),
                  on="record", how="left", maintain_order="left")
            .join(_sections(lines), on="record", how="left", maintain_order="left")
        )
        hands = hands.select(
            "record", "line", "raw", "site", "hand_id", "table",
            pl.col("started_at").str.replace_all("/", "-"),
            pl.col("variant").str.replace(r"(?i)^ofc |\s+ofc$", ""), "ruleset",
            pl.when(pl.col("point_value") != "?").then(pl.col("point_value"))
            .alias("point_value"), "currency", button.alias("button_seat"),
            first_error([
                pl.col("error"),
                pl.when(pl.col("site").is_null()).then(pl.lit(
                    "the first line is not a header like 'Site Hand #id: Pineapple OFC - "
                    "2026-03-01 20:15:00'")),
                pl.when(pl.col("_table").is_null()).then(pl.lit("no Table line")),
                pl.when(pl.col("_tables") > 1).then(pl.lit("two Table lines")),
                pl.when(pl.col("_summaries") == 0).then(pl.lit(
                    "no *** SUMMARY *** section (the hand is cut short)")),
                pl.when(pl.col("_summaries") > 1).then(pl.lit("two *** SUMMARY *** sections")),
                button_error,
            ]).alias("error"),
        )
        hands = with_errors(hands, seat_errors, street_errors)
        # Lines after a hand's summary that are no part of it: reported, the hand kept.
        trailing = (lines.filter(pl.col("kind") == "trailing")
                    .group_by("record", maintain_order=True)
                    .agg(pl.col("line").first(), pl.col("text").str.join("\n")))
        problems = problem_rows(self.file, trailing["line"], "syntax",
                                "text outside any hand", trailing["text"])
        return RawHands(hands, raw_seats, raw_streets, problems)


def _classified_lines(units: pl.DataFrame) -> pl.DataFrame:
    """Every line of every hand: ``record``, ``line`` (number), ``text``, ``section``
    and ``kind`` (header, table, seat, fantasyland, street, summary-mark, dealt,
    place, discard, summary, blank or unknown).

    Kinds come from cheap prefix and suffix tests; each kind's pattern is matched
    later, on its own lines only.
    """
    split = units.select("record", "line", pl.col("text").str.split("\n"))
    counts = split["text"].list.len().cast(pl.Int64).to_numpy()
    starts = np.cumsum(counts) - counts
    index = np.arange(int(counts.sum())) - np.repeat(starts, counts)
    lines = (split.explode("text", empty_as_null=False)
             .with_columns(pl.Series("index", index))
             .with_columns((pl.col("line") + pl.col("index")).alias("line"),
                           pl.col("text").str.strip_chars_end("\r")))
    text = pl.col("text")
    lines = lines.with_columns(
        (pl.col("index") == 0).alias("_first"),
        text.str.contains(r"^\s*$").alias("_blank"),
        text.str.starts_with("*** ").alias("_marker"),
        text.str.starts_with("Seat ").alias("_seat"),
    )
    # "*** STREET 3 ***" is street 3; literal strips, cheaper than a pattern.
    street = (text.str.strip_prefix("*** STREET ").str.strip_suffix(" ***")
              .cast(pl.Int64, strict=False))
    lines = lines.with_columns(pl.when(pl.col("_marker")).then(street).alias("_street"))
    section = (pl.when(pl.col("_first")).then(_HEADER_SECTION)
               .when(pl.col("_street").is_not_null()).then(pl.col("_street"))
               .when(text == SUMMARY).then(_SUMMARY_SECTION)
               .forward_fill())
    lines = lines.with_columns(section.alias("section"))
    in_header = pl.col("section") == _HEADER_SECTION
    in_summary = pl.col("section") == _SUMMARY_SECTION
    kind = (
        pl.when(pl.col("_first")).then(pl.lit("header"))
        .when(pl.col("_blank")).then(pl.lit("blank"))
        .when(pl.col("_street").is_not_null()).then(pl.lit("street"))
        .when(text == SUMMARY).then(pl.lit("summary-mark"))
        .when(pl.col("_marker")).then(pl.lit("unknown"))
        .when(in_header & text.str.starts_with("Table '")).then(pl.lit("table"))
        .when(in_header & pl.col("_seat")).then(pl.lit("seat"))
        .when(in_header & (text.str.ends_with(" is in Fantasyland")
                           | text.str.ends_with(" cards)"))).then(pl.lit("fantasyland"))
        .when(in_summary & pl.col("_seat")).then(pl.lit("summary"))
        .when(in_summary).then(pl.lit("trailing"))
        .when(~in_header & ~in_summary & text.str.ends_with("]"))
        .then(pl.lit("street-line"))
        .otherwise(pl.lit("unknown"))
    )
    return lines.with_columns(kind.alias("kind")).drop(
        "_first", "_blank", "_marker", "_seat", "_street")


def _street_lines(lines: pl.DataFrame) -> pl.DataFrame:
    """The street lines with their parts: ``player`` and the card text of ``dealt``,
    ``top``, ``middle``, ``bottom`` and ``discarded`` (null where a line has none),
    and ``matched``: whether the line is exactly one of the three layouts.

    Literal splits, not regular expressions, each on its own kind of line: there
    are dozens of these lines a hand.
    """
    subset = lines.filter(pl.col("kind") == "street-line").select(
        "record", "line", "section", "text")
    text = pl.col("text")
    is_dealt = text.str.starts_with("Dealt to ")
    is_discard = text.str.contains(": discards [", literal=True)
    subset = subset.with_columns(is_dealt.alias("_dealt"), is_discard.alias("_discard"))
    empty = pl.lit(None, pl.String)
    dealt = subset.filter("_dealt").with_columns(
        text.str.strip_prefix("Dealt to ").str.splitn(" [", 2).alias("_parts"))
    dealt = dealt.select(
        "record", "line", "section", "text",
        pl.col("_parts").struct.field("field_0").alias("player"),
        *(empty.alias(row.value) for row in Row), empty.alias("discarded"),
        pl.col("_parts").struct.field("field_1").str.strip_suffix("]").alias("dealt"))
    discards = subset.filter(~pl.col("_dealt") & pl.col("_discard")).with_columns(
        text.str.splitn(": discards [", 2).alias("_parts"))
    discards = discards.select(
        "record", "line", "section", "text",
        pl.col("_parts").struct.field("field_0").alias("player"),
        *(empty.alias(row.value) for row in Row),
        pl.col("_parts").struct.field("field_1").str.strip_suffix("]").alias("discarded"),
        empty.alias("dealt"))
    places = subset.filter(~pl.col("_dealt") & ~pl.col("_discard")).with_columns(
        text.str.splitn(": ", 2).alias("_parts"))
    rest = pl.col("_parts").struct.field("field_1")
    places = places.select(
        "record", "line", "section", "text",
        pl.col("_parts").struct.field("field_0").alias("player"),
        *(rest.str.splitn(f"{row.value} [", 2).struct.field("field_1").str.splitn("]", 2)
          .struct.field("field_0").alias(row.value) for row in Row),
        empty.alias("discarded"), empty.alias("dealt"), rest.alias("_rest"))
    # A placement line must read back exactly as it is written.
    rebuilt = pl.concat_str([pl.format(f"{row.value} [{{}}]", pl.col(row.value)) for row in Row],
                            separator=", ", ignore_nulls=True)
    places = places.with_columns(
        (pl.col("_rest").is_not_null() & (pl.col("_rest") != "")
         & (rebuilt == pl.col("_rest"))).fill_null(False).alias("matched")).drop("_rest")
    return (pl.concat([
        dealt.with_columns((pl.col("player").is_not_null() & pl.col("dealt").is_not_null())
                           .alias("matched")),
        discards.with_columns((pl.col("player").is_not_null()
                               & pl.col("discarded").is_not_null()).alias("matched")),
        places,
    ]).sort("line"))  # line numbers grow through the whole batch


def _matched(lines: pl.DataFrame, kind: str, pattern: str) -> pl.DataFrame:
    """The lines of one kind with the named groups of ``pattern`` as columns, plus
    ``matched``: whether the line fits (its first group, always present, is set)."""
    subset = lines.filter(pl.col("kind") == kind)
    names = re.compile(pattern).groupindex
    fields = sorted(names, key=names.__getitem__)
    groups = subset["text"].str.extract_groups(pattern).struct.unnest().select(fields)
    return pl.concat([subset, groups], how="horizontal").with_columns(
        pl.col(fields[0]).is_not_null().alias("matched"))


def _line_errors(lines: pl.DataFrame, matched: list[pl.DataFrame]) -> pl.DataFrame:
    """``record``, ``error``: the first line of each hand that fits no pattern."""
    bad = pl.concat([lines.filter(pl.col("kind") == "unknown").select("record", "line", "text"),
                     *(frame.filter(~pl.col("matched")).select("record", "line", "text")
                       for frame in matched)]).sort("record", "line")
    return bad.group_by("record", maintain_order=True).agg(
        pl.format("line {}: cannot read '{}'", line_in_file(), pl.col("text").str.slice(0, 80))
        .first().alias("error"))


def _sections(lines: pl.DataFrame) -> pl.DataFrame:
    """``record``, ``_tables``, ``_summaries``: how many of each a hand has."""
    return lines.group_by("record").agg(
        (pl.col("kind") == "table").sum().alias("_tables"),
        (pl.col("kind") == "summary-mark").sum().alias("_summaries"))


def _raw_seats(seats: pl.DataFrame, summary: pl.DataFrame, fantasyland: pl.DataFrame
               ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Raw seats: seat lines joined with their summary line and Fantasyland line."""
    seat, _ = parse_int("seat")
    points = pl.col("points").cast(pl.Int64, strict=False)
    seated = seats.filter("matched").select(
        "record", seat.alias("seat"), "player", "starting_stack")
    results = summary.filter("matched").select(
        "record", seat.alias("seat"), pl.col("player").alias("_summary_player"),
        *(pl.col(row.value).str.extract_all(r"\S+").alias(row.value) for row in Row),
        pl.col("discards").str.extract_all(r"\S+"),
        pl.when(pl.col("result") == "lost").then(-points).otherwise(points)
        .alias("reported_points"),
        pl.col("royalties").cast(pl.Int64, strict=False).alias("reported_royalties"),
        "collected", pl.col("money").alias("reported_money"),
    )
    flagged = fantasyland.filter("matched").select(
        "record", "player", pl.lit(True).alias("in_fantasyland"),
        pl.col("fl_cards").cast(pl.Int64, strict=False))
    joined = (seated.join(results, on=["record", "seat"], how="left", maintain_order="left")
              .join(flagged.unique(["record", "player"], keep="first"),
                    on=["record", "player"], how="left", maintain_order="left")
              .with_columns(pl.col("in_fantasyland").fill_null(False)))
    errors = pl.concat([
        joined.select("record", first_error([
            pl.when(pl.col("_summary_player").is_null()).then(
                pl.format("seat {} ({}) has no summary line", "seat", "player")),
            pl.when(pl.col("_summary_player") != pl.col("player")).then(
                pl.format("the summary gives seat {} to '{}', not '{}'", "seat",
                          "_summary_player", "player")),
        ]).alias("error")),
        results.join(seated, on=["record", "seat"], how="anti").select(
            "record", pl.format("the summary names seat {}, where no player sits", "seat")
            .alias("error")),
        flagged.join(seated, on=["record", "player"], how="anti").select(
            "record", pl.format("'{}' is in Fantasyland but has no seat", "player")
            .alias("error")),
        results.filter(pl.struct("record", "seat").is_duplicated()).select(
            "record", pl.format("two summary lines for seat {}", "seat").alias("error")),
    ])
    return joined.drop("_summary_player"), errors


def _raw_streets(street_lines: pl.DataFrame, seats: pl.DataFrame
                 ) -> tuple[pl.DataFrame | None, pl.DataFrame]:
    """Raw streets from the street lines: one entry per run of a player's lines."""
    lines = street_lines.filter("matched")
    if lines.is_empty():
        return None, pl.DataFrame(schema={"record": pl.Int64, "error": pl.String})
    rows = [row.value for row in Row]
    # A player's lines on a street follow each other: a new run starts at a change.
    changed = ((pl.col("record") != pl.col("record").shift(1))
               | (pl.col("section") != pl.col("section").shift(1))
               | (pl.col("player") != pl.col("player").shift(1))).fill_null(True)
    lines = lines.with_columns(changed.cum_sum().alias("_entry"))
    has_places = pl.any_horizontal(*(pl.col(row).is_not_null() for row in rows))
    merged = lines.group_by("_entry", maintain_order=True).agg(
        pl.col("record").first(), pl.col("section").first().alias("street"),
        pl.col("player").first(),
        *(pl.col(name).drop_nulls().first() for name in (*rows, "discarded", "dealt")),
        has_places.sum().alias("_places"), pl.col("discarded").is_not_null().sum()
        .alias("_discards"), pl.col("dealt").is_not_null().sum().alias("_dealt"),
    )
    with_seats = merged.join(seats.select("record", "player", pl.col("seat").cast(pl.String)),
                             on=["record", "player"], how="left", maintain_order="left")
    actions, errors = street_actions(with_seats.filter(pl.col("seat").is_not_null()), seats,
                                     clean=False)
    problems = pl.concat([
        with_seats.select("record", first_error([
            pl.when(pl.col("seat").is_null()).then(
                pl.format("street {} names '{}', who has no seat", "street", "player")),
            pl.when((pl.col("_places") > 1) | (pl.col("_discards") > 1) | (pl.col("_dealt") > 1))
            .then(pl.format("'{}' has two lines of the same kind on street {}", "player",
                            "street")),
        ]).alias("error")).filter(pl.col("error").is_not_null()),
        errors,
    ], how="diagonal")
    return actions, problems


class TextReader:
    """Reads room-style text histories (see the module doc)."""

    format = Format.TEXT

    def __init__(self, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.chunk_bytes = chunk_bytes

    def sniff(self, head: bytes) -> int:
        """Confidence that ``head`` starts a room-style text history."""
        for line in decode_head(head).splitlines()[:20]:
            if not line.strip():
                continue
            if re.match(HEADER, line.rstrip("\r")):
                return 90
            if re.match(HEADER_START, line):
                return 70
            return 0
        return 0

    def read(self, stream: BinaryIO, file: str, *, batch_hands: int = BATCH_HANDS,
             start_offset: int = 0) -> Iterator[ReadBatch]:
        """Stream the hands of ``stream`` from ``start_offset`` on (see FormatReader)."""
        source = ByteSource(stream, start_offset, self.chunk_bytes)
        yield from read_batches(source, TextParser(file), file, batch_hands)

    def split_file(self, stream: BinaryIO, file: str, max_hands: int | None = None
                   ) -> SplitFile:
        """Every hand of a whole (small) file, split off but not parsed."""
        return split_file(ByteSource(stream, 0, self.chunk_bytes), TextParser(file), file,
                          max_hands)

    def parse_files(self, files: Sequence[SplitFile]) -> CanonicalBatch:
        """The hands of several split files, parsed as one batch."""
        return parse_files(files, TextParser(""))


def _bracketed(column: str) -> pl.Expr:
    return pl.format("[{}]", pl.col(column).list.join(" "))


def _hand_texts(batch: CanonicalBatch) -> pl.Series:
    hands, seats = batch.hands, batch.seats
    keys = ["site", "hand_id"]
    money = pl.when(pl.col("point_value").is_not_null() | pl.col("currency").is_not_null()).then(
        pl.format(" ({}{} per point)", decimal_text("point_value").fill_null("?"),
                  pl.when(pl.col("currency").is_not_null())
                  .then(pl.lit(" ") + pl.col("currency")).otherwise(pl.lit(""))))
    header = pl.concat_str([
        pl.col("site"), pl.lit(" Hand #"), pl.col("hand_id"), pl.lit(": "),
        pl.col("variant").replace_strict({v.value: label for v, label in
                                          VARIANT_LABELS.items()}, return_dtype=pl.String),
        pl.when(pl.col("ruleset").is_not_null()).then(pl.format(" [{}]", "ruleset"))
        .otherwise(pl.lit("")),
        money.fill_null(""), pl.lit(" - "), local_time_text(" "),
    ])
    table = pl.concat_str([
        pl.format("Table '{}'", "table"),
        pl.when(pl.col("button_seat").is_not_null())
        .then(pl.format(" Seat #{} is the button", "button_seat")).otherwise(pl.lit("")),
    ])
    ordered = seats.sort(*keys, "seat", maintain_order=True)
    seat_lines = ordered.group_by(keys, maintain_order=True).agg(
        pl.concat_str([
            pl.format("Seat {}: {}", "seat", "player"),
            pl.when(pl.col("starting_stack").is_not_null())
            .then(pl.format(" ({} in chips)", decimal_text("starting_stack")))
            .otherwise(pl.lit("")),
        ]).str.join("\n").alias("_seats"),
        pl.when(pl.col("in_fantasyland")).then(pl.concat_str([
            pl.col("player"), pl.lit(" is in Fantasyland"),
            pl.when(pl.col("fl_cards").is_not_null())
            .then(pl.format(" ({} cards)", "fl_cards")).otherwise(pl.lit("")),
        ])).drop_nulls().str.join("\n").alias("_fantasyland"),
        pl.concat_str([
            pl.format("Seat {}: {} [{}] [{}] [{}]", "seat", "player", "top", "middle",
                      "bottom"),
            pl.when(pl.col("discards").is_not_null())
            .then(pl.format(" discards [{}]", "discards")).otherwise(pl.lit("")),
            pl.when(pl.col("reported_points") >= 0)
            .then(pl.format(" won {} points", "reported_points"))
            .when(pl.col("reported_points") < 0)
            .then(pl.format(" lost {} points", -pl.col("reported_points")))
            .otherwise(pl.lit("")),
            pl.when(pl.col("reported_royalties").is_not_null())
            .then(pl.format(" (royalties {})", "reported_royalties")).otherwise(pl.lit("")),
            pl.when(pl.col("collected").is_not_null())
            .then(pl.format(" collected {}", decimal_text("collected")))
            .otherwise(pl.lit("")),
            pl.when(pl.col("reported_money") > 0)
            .then(pl.format(" net +{}", decimal_text("reported_money")))
            .when(pl.col("reported_money").is_not_null())
            .then(pl.format(" net {}", decimal_text("reported_money")))
            .otherwise(pl.lit("")),
        ]).str.join("\n").alias("_summary"),
    )
    streets = _street_sections(batch.streets, seats)
    frame = (hands.join(seat_lines, on=keys, how="left", maintain_order="left")
             .join(streets, on=keys, how="left", maintain_order="left"))
    return frame.select(pl.concat_str([
        header, pl.lit("\n"), table, pl.lit("\n"), pl.col("_seats"),
        pl.when(pl.col("_fantasyland") != "").then(pl.lit("\n") + pl.col("_fantasyland"))
        .otherwise(pl.lit("")),
        pl.when(pl.col("_streets").is_not_null()).then(pl.lit("\n") + pl.col("_streets"))
        .otherwise(pl.lit("")),
        pl.lit(f"\n{SUMMARY}\n"), pl.col("_summary"), pl.lit("\n"),
    ]).alias("text"))["text"]


def _street_sections(streets: pl.DataFrame, seats: pl.DataFrame) -> pl.DataFrame:
    """``site``, ``hand_id``, ``_streets``: every street's lines of each hand."""
    keys = ["site", "hand_id"]
    if streets.is_empty():
        return pl.DataFrame(schema={"site": pl.String, "hand_id": pl.String,
                                    "_streets": pl.String})
    entries = street_entries(streets).join(seats.select(*keys, "seat", "player"),
                                           on=[*keys, "seat"], how="left",
                                           maintain_order="left")
    placed = [pl.when(pl.col(row.value).list.len() > 0)
              .then(pl.format(f"{row.value} {{}}", _bracketed(row.value))) for row in Row]
    lines = entries.select(
        *keys, "street",
        pl.concat_str([
            pl.format("Dealt to {} {}", "player", _bracketed("dealt")),
            pl.when(pl.any_horizontal(*(pl.col(r.value).list.len() > 0 for r in Row)))
            .then(pl.format("{}: {}", "player",
                            pl.concat_str(placed, separator=", ", ignore_nulls=True))),
            pl.when(pl.col("discarded").list.len() > 0)
            .then(pl.format("{}: discards {}", "player", _bracketed("discarded"))),
        ], separator="\n", ignore_nulls=True).alias("_lines"),
    )
    per_street = lines.group_by(*keys, "street", maintain_order=True).agg(
        pl.col("_lines").str.join("\n"))
    return per_street.group_by(keys, maintain_order=True).agg(
        pl.format("*** STREET {} ***\n{}", "street", "_lines").str.join("\n")
        .alias("_streets"))


class TextWriter:
    """Writes room-style text histories, one blank line between hands."""

    format = Format.TEXT

    def write(self, batches: Iterable[CanonicalBatch], stream: BinaryIO) -> int:
        """Write every hand of ``batches`` to ``stream``; return how many were written.

        Raises:
            FormatWriteError: a name or id this layout cannot hold (see check_text).
        """
        written = 0
        for batch in batches:
            if batch.hands.is_empty():
                continue
            check_text(batch)
            texts = _hand_texts(batch)
            # Each hand ends with a line break; a blank line separates hands.
            stream.write((("\n" if written else "") + texts.str.join("\n").item()).encode())
            written += texts.len()
        return written


def check_text(batch: CanonicalBatch) -> None:
    """Refuse values the text layout cannot hold faithfully.

    Raises:
        FormatWriteError: naming the value and the hand.
    """
    line_break = r"[\r\n]"
    check_writable(batch.hands, {
        "site": (pl.col("site").str.contains(r"[\r\n]| Hand #|^\s"),
                 "a site must be one line, not start with a space, and not hold ' Hand #'"),
        "hand_id": (pl.col("hand_id").str.contains(r"\s"), "a hand id must not hold spaces"),
        "table": (pl.col("table").str.contains(line_break), "one line only"),
        "ruleset": (pl.col("ruleset").str.contains(r"[\r\n\]]"), "no ']' or line breaks"),
        "currency": (pl.col("currency").str.contains(r"[\s)]"), "no spaces or ')'"),
    }, "text")
    check_writable(batch.seats, {
        "player": (pl.col("player").str.contains(r"[\r\n\[\]]| Hand #|: ")
                   | (pl.col("player").str.strip_chars() != pl.col("player")),
                   "a name must be one line, without outer spaces, '[', ']' or ': '"),
    }, "text")


READER = TextReader()
WRITER = TextWriter()
