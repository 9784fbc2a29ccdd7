"""What every format shares: round trips, streaming, resuming, and the registry.

The per-format files (``test_formats_<format>.py``) hold each reader's damage tests;
they import the helpers below.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from ofc_stats.formats import (
    Format,
    FormatReader,
    ReadBatch,
    UnknownFormatError,
    get_reader,
    get_writer,
)
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.reading import (
    _card_tokens_by_column,
    card_tokens,
    parse_int,
    parse_int_in,
)
from ofc_stats.formats.samples import sample_hands
from ofc_stats.warehouse.schemas import PROBLEM_KINDS, PROBLEMS_SCHEMA

# What each format cannot carry, left out of its round-trip comparison.
NOT_CARRIED: dict[Format, dict[str, tuple[str, ...]]] = {
    Format.JSONL: {},
    Format.TEXT: {},
    Format.CSV: {"streets": ("*",), "hands": ("has_streets",)},
    # fpdb-3 writes times in UTC, and its hand object cannot tell Progressive or
    # Ultimate from Pineapple: they read back as Pineapple (the content hash, which
    # covers the variant, follows). It has no stakes and no net money per seat.
    Format.FPDB: {"hands": ("ruleset", "button_seat", "point_value", "currency",
                            "utc_offset_minutes", "content_hash"),
                  "seats": ("point_value", "reported_money")},
}
SOURCE_COLUMNS = ("source_file", "source_line")
FPDB_VARIANTS = {"progressive": "pineapple", "ultimate": "pineapple"}


def reader_for(fmt: Format, chunk_bytes: int | None = None) -> FormatReader:
    """The registered reader, or a fresh one reading ``chunk_bytes`` at a time."""
    reader = get_reader(fmt)
    return type(reader)(chunk_bytes=chunk_bytes) if chunk_bytes else reader  # type: ignore[call-arg]


def read_batches(fmt: Format, data: bytes, *, chunk_bytes: int | None = None,
                 batch_hands: int = 20_000, start_offset: int = 0,
                 name: str = "hands.txt") -> list[ReadBatch]:
    return list(reader_for(fmt, chunk_bytes).read(
        io.BytesIO(data), name, batch_hands=batch_hands, start_offset=start_offset))


def read_all(fmt: Format, data: bytes, **options: object) -> CanonicalBatch:
    """Every batch of reading ``data``, as one batch."""
    return CanonicalBatch.concat([b.batch for b in read_batches(fmt, data, **options)])  # type: ignore[arg-type]


def write(fmt: Format, batches: Iterable[CanonicalBatch]) -> bytes:
    stream = io.BytesIO()
    get_writer(fmt).write(batches, stream)
    return stream.getvalue()


def comparable(batch: CanonicalBatch, fmt: Format, table: str) -> pl.DataFrame:
    frame: pl.DataFrame = getattr(batch, table)
    if fmt is Format.FPDB and "variant" in frame.columns:
        frame = frame.with_columns(pl.col("variant").replace(FPDB_VARIANTS))
    dropped = NOT_CARRIED[fmt].get(table, ())
    if table == "hands":
        dropped = (*dropped, *SOURCE_COLUMNS)
    return frame.drop([c for c in dropped if c in frame.columns])


def assert_same_hands(expected: CanonicalBatch, actual: CanonicalBatch, fmt: Format) -> None:
    assert actual.problems.is_empty(), actual.problems.to_dicts()[:3]
    for table in ("hands", "seats", "streets"):
        if NOT_CARRIED[fmt].get(table) == ("*",):
            assert actual.streets.is_empty()
            continue
        assert_frame_equal(comparable(expected, fmt, table), comparable(actual, fmt, table))


def assert_problem(problems: pl.DataFrame, kind: str, reason: str, *, line: int | None = None,
                   hand_id: str | None = None, file: str = "hands.txt") -> dict[str, object]:
    """The one problem of ``kind`` whose reason contains ``reason``, checked in full."""
    assert problems.schema == PROBLEMS_SCHEMA
    matching = problems.filter((pl.col("kind") == kind)
                               & pl.col("reason").str.contains(reason, literal=True))
    assert matching.height == 1, problems.select("line", "kind", "reason").to_dicts()
    problem = matching.row(0, named=True)
    assert problem["kind"] in PROBLEM_KINDS
    assert problem["file"] == file
    if line is not None:
        assert problem["line"] == line
    if hand_id is not None:
        assert problem["hand_id"] == hand_id
    assert problem["raw"]
    return problem


IMPLEMENTED = list(Format)


@pytest.fixture(scope="module")
def pineapple() -> CanonicalBatch:
    return sample_hands(120, 3, seed=7)


@pytest.mark.parametrize("fmt", IMPLEMENTED)
@pytest.mark.parametrize(("variant", "players"), [
    ("pineapple", 3), ("classic", 4), ("progressive", 2), ("ultimate", 3),
    ("joker-ultimate", 3), ("joker-pineapple", 2), ("double-deck", 6),
    ("double-deck-pineapple", 5), ("deuce-to-seven", 3)])
def test_round_trip_keeps_every_field_the_format_carries(
        fmt: Format, variant: str, players: int) -> None:
    hands = sample_hands(120, players, variant=variant, seed=players)
    assert hands.problems.is_empty()
    assert hands.seats["in_fantasyland"].any()
    assert hands.streets.height
    data = write(fmt, [hands])
    assert_same_hands(hands, read_all(fmt, data), fmt)


@pytest.mark.parametrize("fmt", IMPLEMENTED)
def test_writing_several_batches_reads_back_as_one(fmt: Format,
                                                   pineapple: CanonicalBatch) -> None:
    halves = [pineapple.hands.head(50), pineapple.hands.tail(70)]
    parts = [CanonicalBatch(h, pineapple.seats.join(h.select("site", "hand_id"),
                                                    on=["site", "hand_id"], how="semi"),
                            pineapple.streets.join(h.select("site", "hand_id"),
                                                   on=["site", "hand_id"], how="semi"),
                            pineapple.problems) for h in halves]
    assert get_writer(fmt).write(parts, io.BytesIO()) == 120
    assert_same_hands(pineapple, read_all(fmt, write(fmt, parts)), fmt)


@pytest.mark.parametrize("fmt", IMPLEMENTED)
def test_small_chunks_read_exactly_like_one_big_read(fmt: Format,
                                                     pineapple: CanonicalBatch) -> None:
    data = write(fmt, [pineapple])
    whole = read_all(fmt, data)
    for chunk_bytes, batch_hands in [(500, 20_000), (4096, 17), (1 << 20, 64)]:
        batches = read_batches(fmt, data, chunk_bytes=chunk_bytes, batch_hands=batch_hands)
        assert all(b.batch.hands.height <= batch_hands for b in batches)
        chunked = CanonicalBatch.concat([b.batch for b in batches])
        for table in ("hands", "seats", "streets"):
            assert_frame_equal(getattr(whole, table), getattr(chunked, table))
        offsets = [b.end_offset for b in batches]
        assert offsets == sorted(offsets)
        assert offsets[-1] == len(data)


@pytest.mark.parametrize("fmt", IMPLEMENTED)
def test_a_batch_ends_after_batch_bytes_of_text_whatever_its_hand_count(
        fmt: Format, monkeypatch: pytest.MonkeyPatch) -> None:
    from ofc_stats.formats import reading

    data = write(fmt, [sample_hands(300, 3, seed=5)])  # past the first chunk's 64 KiB
    whole = read_all(fmt, data)
    monkeypatch.setattr(reading, "BATCH_BYTES", 32768)
    batches = read_batches(fmt, data, chunk_bytes=1024, batch_hands=20_000)
    # Each batch stops at the chunk that takes it past 32 KiB (one batch without the cap).
    spans = np.diff([0, *(b.end_offset for b in batches)])
    assert len(spans) > 2
    assert (spans[:-1] >= 32768).all()
    chunked = CanonicalBatch.concat([b.batch for b in batches])
    for table in ("hands", "seats", "streets"):
        assert_frame_equal(getattr(whole, table), getattr(chunked, table))


@pytest.mark.parametrize("fmt", IMPLEMENTED)
def test_splitting_a_whole_file_stops_past_max_hands(fmt: Format,
                                                     pineapple: CanonicalBatch) -> None:
    data = write(fmt, [pineapple])
    reader = reader_for(fmt, chunk_bytes=1024)
    whole = reader.split_file(io.BytesIO(data), "f", max_hands=None)  # type: ignore[attr-defined]
    assert whole.hands == pineapple.hands.height
    cut = reader.split_file(io.BytesIO(data), "f", max_hands=10)  # type: ignore[attr-defined]
    assert cut.hands == 11  # one past the limit: the caller then reads it in batches


@pytest.mark.parametrize("fmt", IMPLEMENTED)
def test_resuming_at_any_end_offset_reads_the_rest_exactly(
        fmt: Format, pineapple: CanonicalBatch) -> None:
    data = write(fmt, [pineapple])
    whole = read_all(fmt, data)
    batches = read_batches(fmt, data, chunk_bytes=2048, batch_hands=45)
    seen = 0
    for batch in batches[:-1]:
        seen += batch.batch.hands.height
        rest = read_all(fmt, data, start_offset=batch.end_offset)
        assert_frame_equal(rest.hands, whole.hands.slice(seen))
        assert_frame_equal(rest.seats, whole.seats.slice(seen * 3))


@pytest.mark.parametrize("fmt", IMPLEMENTED)
def test_a_file_growing_hand_by_hand_imports_each_hand_once(
        fmt: Format, pineapple: CanonicalBatch) -> None:
    data = write(fmt, [pineapple])
    whole = read_all(fmt, data)
    cut = len(data) * 2 // 3
    first = read_batches(fmt, data[:cut])  # the last hand is half-written
    offset = first[-1].end_offset
    assert offset < cut
    truncated = CanonicalBatch.concat([b.batch for b in first]).problems
    assert truncated["kind"].to_list() == ["truncated"]
    rest = read_all(fmt, data, start_offset=offset)
    hand_ids = (pl.concat([CanonicalBatch.concat([b.batch for b in first]).hands["hand_id"],
                           rest.hands["hand_id"]]))
    assert hand_ids.to_list() == whole.hands["hand_id"].to_list()
    # Lines stay those of the whole file after resuming.
    assert rest.hands["source_line"].to_list() == whole.hands["source_line"].tail(
        rest.hands.height).to_list()


class BreakingStream(io.RawIOBase):
    """A stream that fails after ``good`` bytes, like a damaged archive."""

    def __init__(self, data: bytes, good: int) -> None:
        super().__init__()
        self.data, self.good, self.position = data, good, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self.position >= self.good:
            raise OSError("damaged here")
        size = min(len(buffer), self.good - self.position)
        buffer[:size] = self.data[self.position:self.position + size]
        self.position += size
        return size


@pytest.mark.parametrize("fmt", IMPLEMENTED)
def test_batches_parsed_side_by_side_come_in_order_and_before_the_damage(
        fmt: Format, pineapple: CanonicalBatch) -> None:
    # Batches are parsed on threads while the next are split: many small batches
    # in flight must still arrive in file order, and all of them before the error.
    data = write(fmt, [pineapple])
    whole = read_all(fmt, data)
    batches: list[ReadBatch] = []
    with pytest.raises(OSError, match="damaged here"):
        batches.extend(reader_for(fmt, chunk_bytes=1024).read(
            BreakingStream(data, len(data) * 3 // 4), "cut", batch_hands=3))  # type: ignore[arg-type]
    assert len(batches) > 4
    offsets = [b.end_offset for b in batches]
    assert offsets == sorted(offsets)
    read = CanonicalBatch.concat([b.batch for b in batches])
    assert 0 < read.hands.height < whole.hands.height
    assert_frame_equal(read.hands.drop("source_file"),
                       whole.hands.head(read.hands.height).drop("source_file"))
    rest = read_all(fmt, data, start_offset=offsets[-1])  # the last offset is exact
    assert_frame_equal(rest.hands, whole.hands.slice(read.hands.height))


@pytest.mark.parametrize("fmt", IMPLEMENTED)
def test_an_empty_file_has_no_hands(fmt: Format) -> None:
    assert read_batches(fmt, b"") == []
    assert read_all(fmt, b"\n\n").hands.is_empty()


def test_registry_knows_every_format() -> None:
    for fmt in Format:
        assert get_reader(fmt).format is fmt
        assert get_writer(fmt.value).format is fmt
    with pytest.raises(UnknownFormatError, match="unknown format 'xml'"):
        get_reader("xml")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(
    ["4", "+4", " 4", "4.0", "04", "-3", "", "4.5", "x", "1e3", "+", "12 "]),
    st.integers(-10**6, 10**6).map(str)), max_size=12))
def test_the_plain_cast_shortcut_reads_integers_as_the_lenient_parse_does(
        texts: list[str | None]) -> None:
    frame = pl.DataFrame({"n": texts}, schema={"n": pl.String})
    lenient = frame.select(*(expr.alias(name) for expr, name in zip(
        parse_int("n"), ("value", "error"), strict=True)))
    shortcut = frame.select(*(expr.alias(name) for expr, name in zip(
        parse_int_in(frame, "n"), ("value", "error"), strict=True)))
    assert_frame_equal(shortcut, lenient)


_CARD_TEXTS = st.one_of(
    st.none(),
    st.lists(st.sampled_from(["Ah", "Kd", "10d", "Xx", "é9", "", "5c 4c", "Ah,Kd", 'A"h']),
             max_size=4).map(lambda cards: json.dumps(cards, separators=(",", ":"))),
    st.lists(st.sampled_from(["Ah", "Kd", "10d", "é9"]), max_size=4).map(" ".join),
    st.text(alphabet='AhKd2 ,[]"\t\u00a0\x1f', max_size=10),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_CARD_TEXTS, _CARD_TEXTS), max_size=6), st.booleans(),
       st.integers(0, 2))
def test_card_runs_read_every_text_as_the_column_by_column_splits_do(
        rows: list[tuple[str | None, str | None]], clean: bool, offset: int) -> None:
    frame = pl.DataFrame(rows, schema={"a": pl.String, "b": pl.String}, orient="row")
    frame = pl.concat([frame, frame.slice(offset)], rechunk=False)  # several chunks
    fast = card_tokens(frame, ["a", "b"], clean=clean)
    exact = _card_tokens_by_column(frame, ["a", "b"], clean=clean)
    assert fast[0].to_list() == exact[0].to_list()
    assert fast[1].tolist() == exact[1].tolist()
    assert fast[2].tolist() == exact[2].tolist()
