"""fpdb-3's OFC hands (``.json``): what the open-source fpdb-3 tracker writes.

fpdb-3 records OFC from SwC Poker's client traffic, in two shapes this reader reads
(and earlier ofc-stats exports, see :mod:`~ofc_stats.formats.fpdb_hands`):

- the capture envelope it writes to disk as ``hand_<id>.json``, pretty-printed, one
  hand per file: ``players`` without rows, ``steps`` (snapshots; the last holds the
  final boards), ``game_type``, ``ofc_variant``, ``ofc_rounds``, ``ofc_result``;
- the hand object of its database (``HttpOFCHands.rawJson``), one per line or in a
  JSON list::

    {"hand_id": 777001, "site": "SealsWithClubs", "table_id": "ofc-table",
     "timestamp": "2026-12-01T07:59:52.124781Z",
     "variant": {"family": "ofc", "variant": "ofcp", "pineapple": true,
                 "deuce_to_seven": false, "rows": {...}, "hand_py_importable": false},
     "players": [{"name": "alice", "seat_idx": 0, "starting_stack": "100.0",
                  "top": ["2c", "2d", "2h"], "middle": [...], "bottom": [...],
                  "active": [], "points": "5", "collected": "5"}, ...],
     "rounds": [{"round": 1, "step_num": 1, "player": "alice", "dealt": [],
                 "placed": {"top": ["2c"], ...}, "layout": {...}, "discarded": [], ...}],
     "result": {"points_settled": {"alice": 5, "bob": -5},
                "points_breakdown": {"alice": {"lines": 1, "top_royalty": 2, ...}},
                "rows": {...}, "collections": [...]},
     "validation": {...}, "raw_refs": [...]}

fpdb-3's SQLite database itself is read by :mod:`~ofc_stats.formats.fpdb_database`
(ingest tells it by its first bytes). The writer writes the database's hand object,
one per line (:mod:`~ofc_stats.formats.fpdb_writer`).

Hands are cut out of the bytes with numpy (brackets counted outside strings), so a
list on a single line streams like any other file; a file of one object a line is
cut by its lines, as JSON Lines are. Each hand's text then goes to DuckDB's JSON
reader as in :mod:`ofc_stats.formats.jsonl`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.formats import BATCH_HANDS, Format
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.fpdb_hands import (
    STRUCTURE,
    decode_query,
    raw_hand_columns,
    raw_seats,
    with_variant,
)
from ofc_stats.formats.fpdb_writer import raw_json_lines
from ofc_stats.formats.jsonl import decode_json, hands_query, split_lines, syntax_errors
from ofc_stats.formats.reading import (
    TRUNCATED,
    RawHands,
    ReadBatch,
    SplitFile,
    Units,
    empty_problems,
    first_error,
    parse_files,
    problem_rows,
    read_batches,
    split_file,
    with_errors,
    without_undecodable,
)
from ofc_stats.formats.streaming import (
    CHUNK_BYTES,
    NEWLINE,
    ByteSource,
    TextChunk,
    decode_head,
)
from ofc_stats.formats.writing import write_json_lines

SQLITE_MAGIC = b"SQLite format 3\x00"
_QUERY = decode_query(hands_query(STRUCTURE))
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


def _line_bounds(array: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64]
                 ) -> npt.NDArray[np.int64]:
    """The position of each line's last byte but its line break (start - 1 if blank)."""
    last = np.append(starts[1:], len(array)).astype(np.int64) - 1
    for byte in (NEWLINE, ord("\r")):
        inside = last >= starts
        last = np.where(inside & (array[np.maximum(last, 0)] == byte), last - 1, last)
    return last


def one_object_per_line(chunk: TextChunk) -> bool:
    """Whether every non-blank line of ``chunk`` starts with ``{`` and ends with ``}``
    (nothing around them but the line break: a pretty-printed object, or one indented
    in a list, has lines of other shapes)."""
    starts = chunk.line_starts()
    if not len(starts):
        return False
    array = chunk.array
    last = _line_bounds(array, starts)
    filled = last >= starts
    return bool(filled.any() and (array[starts[filled]] == ord("{")).all()
                and (array[last[filled]] == ord("}")).all())


def _lines_of_objects(head: bytes) -> bool:
    """Whether a file's first line is one whole object (then it is read in whole lines)."""
    first = decode_head(head).split("\n", 1)[0].strip()
    return first.startswith("{") and first.endswith("}")


def objects_in(text: str) -> list[str] | None:
    """The objects of ``text`` if it holds several side by side (``{...} {...}``, only
    white space and commas between them), else None.

    Rare path: a line read as one hand that is not valid JSON.
    """
    array = np.frombuffer(text.encode(), dtype=np.uint8)
    position, step, depth = bracket_depths(array, 0)
    if not len(position) or (depth < 0).any() or depth[-1] != 0:
        return None
    starts = position[(step == 1) & (depth == 1)]
    ends = position[(step == -1) & (depth == 0)] + 1
    if len(starts) < 2 or (array[starts] != ord("{")).any():
        return None
    gaps = np.concatenate((array[:starts[0]], array[ends[-1]:],
                           *(array[end:start] for end, start in zip(ends[:-1], starts[1:],
                                                                     strict=True))))
    if not _BETWEEN[gaps].all():
        return None
    data = text.encode()
    return [data[start:end].decode() for start, end in zip(starts, ends, strict=True)]


def objects_split(units: pl.DataFrame, decoded: pl.DataFrame) -> pl.DataFrame | None:
    """``units`` with each invalid one that holds several objects side by side split
    into them (each keeping its line, records numbered again), or None if none does."""
    invalid = units.filter(~decoded["valid"])
    pieces = {record: found for record, text in invalid.select("record", "text").iter_rows()
              if (found := objects_in(text)) is not None}
    if not pieces:
        return None
    texts = pl.DataFrame({"record": list(pieces), "pieces": list(pieces.values())},
                         schema={"record": pl.Int64, "pieces": pl.List(pl.String)})
    split = (units.join(texts, on="record", how="left", maintain_order="left")
             .with_columns(pl.coalesce("pieces", pl.concat_list("text")).alias("text"))
             .drop("pieces").explode("text"))
    return split.with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("record"))


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
        """Whole hand objects; an unfinished last one waits for more data.

        Between hands, a chunk of whole lines each holding one object (fpdb-3's hand
        objects one per line, as the writer writes them) is split by its lines, as
        JSON Lines are: counting brackets over every byte took a third of the read.
        """
        if (self.level == 0 and self.depth == 0 and self.byte_offsets is not True
                and chunk.data.endswith(b"\n") and one_object_per_line(chunk)):
            # Hands on lines of their own are told by line (as the brackets would), and
            # a line holding several objects side by side is split by parse.
            self.byte_offsets = False
            return split_lines(chunk, limit, self.file)
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
        if not decoded["valid"].all() and (split := objects_split(units, decoded)) is not None:
            units, decoded = split, decode_json(split, _QUERY)
        frame = pl.concat([units, decoded.select("hand").unnest("hand"),
                           decoded.select("flags", "settled", "breakdown", "boards")],
                          how="horizontal")
        frame = frame.with_columns(syntax_errors(units, decoded, "a hand").alias("error"))
        frame = with_variant(frame)
        hands = frame.select(
            *raw_hand_columns(), pl.col("_variant").alias("variant"),
            first_error([
                pl.col("error"), pl.col("_variant_error"),
                pl.when(pl.col("error").is_null() & pl.col("players").is_null()).then(
                    pl.lit("players must be a list of players")),
            ]).alias("error"),
        )
        seats, seat_errors, streets = raw_seats(frame, hands.select("record", "variant"))
        return RawHands(with_errors(hands, seat_errors), seats, streets, empty_problems())


class FpdbReader:
    """Reads fpdb-3 OFC exports (see the module doc)."""

    format = Format.FPDB

    def __init__(self, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.chunk_bytes = chunk_bytes

    def sniff(self, head: bytes) -> int:
        """Confidence that ``head`` starts an fpdb-3 OFC export (or its database)."""
        if head.startswith(SQLITE_MAGIC):
            return 100  # read by path: ofc_stats.formats.fpdb_database
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
        source.whole_lines = _lines_of_objects(source.file_head)
        if source.file_head.startswith(SQLITE_MAGIC):
            yield _database_as_stream(file)
            return
        parser = FpdbParser(file, source.file_head)
        if start_offset:  # resuming between two hands of the list
            parser.depth = parser.level
        yield from read_batches(source, parser, file, batch_hands)

    def split_file(self, stream: BinaryIO, file: str, max_hands: int | None = None
                   ) -> SplitFile:
        """Every hand of a whole (small) file, cut out (by its own layout) but not parsed."""
        source = ByteSource(stream, 0, self.chunk_bytes, whole_lines=False)
        source.whole_lines = _lines_of_objects(source.file_head)
        return split_file(source, FpdbParser(file, source.file_head), file, max_hands)

    def parse_files(self, files: Sequence[SplitFile]) -> CanonicalBatch:
        """The hands of several split files, parsed as one batch."""
        return parse_files(files, FpdbParser("", b""))


def _database_as_stream(file: str) -> ReadBatch:
    """fpdb-3's database handed over as a stream (a Spark job's file contents, say):
    one problem for the file, not pages of binary read as JSON."""
    problem = problem_rows(file, [0], "format",
                           "an SQLite database (fpdb-3's): it is read in place from its "
                           "path (ofc-stats ingest), not as a stream",
                           [SQLITE_MAGIC.rstrip(b"\x00").decode()])
    empty = CanonicalBatch.empty()
    return ReadBatch(CanonicalBatch(empty.hands, empty.seats, empty.streets, problem), 0)


class FpdbWriter:
    """Writes hands as fpdb-3's database keeps them (``rawJson``), one per line."""

    format = Format.FPDB

    def write(self, batches: Iterable[CanonicalBatch], stream: BinaryIO) -> int:
        """Write every hand of ``batches`` to ``stream``; return how many were written."""
        return write_json_lines(batches, stream, raw_json_lines)


READER = FpdbReader()
WRITER = FpdbWriter()
