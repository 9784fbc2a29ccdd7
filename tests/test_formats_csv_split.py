"""The CSV reader's bulk steps equal a plain reading: records and fields found on the
positions of quotes and separators, cards split on the space, yes/no words looked up,
disagreeing rows found row to row (tests/test_streaming.py: a chunk's UTF-8 checked in
place)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ofc_stats.formats import Format
from ofc_stats.formats import csv as csv_format
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.card_lists import card_lists
from ofc_stats.formats.csv import field_counts, outside_quotes
from ofc_stats.formats.reading import parse_bool
from tests.test_formats_common import read_all

# Bytes of spreadsheet text: cells, separators, quotes, line breaks, white space
# (ASCII and beyond), and letters beyond ASCII that are not white space.
PIECES = ["a", "7", " ", ",", ";", '"', "\n", "\r\n", "\t", "é", "\u00a0", "\u3000"]


def plain_reading(text: bytes, separator: int) -> tuple[list[int], list[int]]:
    """Byte by byte: the line breaks outside quotes, and the separators outside quotes."""
    inside = False
    breaks, separators = [], []
    for position, byte in enumerate(text):
        if byte == ord('"'):
            inside = not inside
        elif not inside and byte == ord("\n"):
            breaks.append(position)
        elif not inside and byte == separator:
            separators.append(position)
    return breaks, separators


def records(text: bytes, breaks: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the records: each through its line break, a last one without."""
    ends = [b + 1 for b in breaks]
    if len(text) > (ends[-1] if ends else 0):
        ends.append(len(text))
    return (np.array([0, *ends[:-1]], dtype=np.int64)[:len(ends)],
            np.array(ends, dtype=np.int64))


def positions(text: bytes, byte: int) -> np.ndarray:
    return np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == byte).astype(np.int64)


@given(st.lists(st.sampled_from(PIECES), max_size=80), st.sampled_from([",", ";"]))
def test_records_and_fields_are_those_of_a_byte_by_byte_reading(pieces: list[str],
                                                                separator: str) -> None:
    text = "".join(pieces).encode()
    breaks, separators = plain_reading(text, ord(separator))
    quotes = positions(text, ord('"'))
    assert outside_quotes(quotes, positions(text, ord("\n"))).tolist() == breaks
    found = outside_quotes(quotes, positions(text, ord(separator)))
    assert found.tolist() == separators
    starts, ends = records(text, breaks)
    expected = [sum(start <= s < end for s in separators) + 1
                for start, end in zip(starts, ends, strict=True)]
    assert field_counts(found, starts, ends).tolist() == expected


CARD_TEXTS = ["Ah Kd", "Jh 4s 6h", "Ah", "", " Ah", "Ah ", "Ah  Kd", "Ah,Kd", '["Ah","Kd"]',
              "Ah\tKd", "Q\u2660 10h", "Ah\u00a0Kd", "[]", " ", None]


@given(st.lists(st.sampled_from(CARD_TEXTS), min_size=1, max_size=12))
def test_card_lists_split_on_the_space_equal_the_regular_expression(
        cells: list[str | None]) -> None:
    frame = pl.DataFrame({"top": pl.Series(cells, dtype=pl.String)})
    [lists] = csv_format.card_list_columns(frame, ["top"])
    assert lists.to_list() == frame.select(card_lists("top")).to_series().to_list()


@given(st.lists(st.sampled_from(["true", "false", "yes", "no", "TRUE", " x ", "0", "1",
                                 "maybe", "", None]), min_size=1, max_size=12))
def test_yes_no_words_read_as_the_lenient_reading_does(cells: list[str | None]) -> None:
    frame = pl.DataFrame({"fantasyland": pl.Series(cells, dtype=pl.String)})
    value, error = csv_format._parse_bool_in(frame, "fantasyland")
    old_value, old_error = parse_bool("fantasyland")
    assert frame.select(value, error.alias("e")).rows() == frame.select(
        old_value, old_error.alias("e")).rows()


def _disagreements_by_count(rows: pl.DataFrame, names: list[str]) -> list[pl.Expr]:
    counts = rows.group_by("record", maintain_order=True).agg(
        pl.col(name).n_unique().alias(f"_{name}") for name in names)
    return [pl.when(pl.lit(counts[f"_{name}"]) > 1).then(pl.lit(
        f"the rows of this hand disagree on {name}")) for name in names]


HEADERS = ["hand_id", "started_at", "Table", "player", " Seat ", "top", "middle", "bottom",
           "fantasyland", "points", "notes"]
DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
PLAYERS = ["Ivey", "Zoë", "Hellmuth", "Ana-María", "Negreanu"]
# A cell's usual text first; then what a sheet may hold instead, now and then.
ODD_CELLS = {
    "hand_id": [" h9 ", ""],
    "started_at": ["2026-03-01T20:15:00Z", "yesterday"],
    "Table": ["kitchen ", "\u00a0garden", '"back, room"', ""],
    "player": [" Hellmuth", "Ivey\u3000", '"Ivey"', ""],
    " Seat ": ["+3", "4.0", "x", ""],
    "fantasyland": ["yes", "TRUE", " x ", "maybe", ""],
    "points": ["+4", "4.0", "4.5", ""],
    "notes": ["x", "a;b", ""],
}
CARD_GAPS = [" ", " ", " ", " ", "  ", ",", "\t", "\u00a0"]


@st.composite
def sheets(draw: st.DrawFn) -> bytes:
    separator = draw(st.sampled_from([",", ";"]))
    line_break = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [separator.join(HEADERS)]
    for hand in range(draw(st.integers(1, 5))):
        deck = draw(st.permutations(DECK))
        players = draw(st.permutations(PLAYERS))
        for seat in range(draw(st.integers(1, 3))):
            dealt = deck[13 * seat:13 * seat + 13]
            rows = []
            for cards in (dealt[:3], dealt[3:8], dealt[8:]):
                text = draw(st.sampled_from(CARD_GAPS)).join(cards)
                if draw(st.integers(0, 5)) == 0:  # padded, quoted, or short
                    text = draw(st.sampled_from([f" {text}", f"{text} ", f'"{text}"',
                                                 text[3:], "10h " + text[3:]]))
                rows.append(text)
            cells = {"hand_id": f"h{hand}", "started_at": "2026-03-01 20:15:00+01:00",
                     "Table": "kitchen", "player": players[seat], " Seat ": str(seat + 1),
                     "top": rows[0], "middle": rows[1], "bottom": rows[2],
                     "fantasyland": draw(st.sampled_from(["no", "true", "false"])),
                     "points": "0", "notes": ""}
            for name in draw(st.lists(st.sampled_from(list(ODD_CELLS)), max_size=2)):
                cells[name] = draw(st.sampled_from(ODD_CELLS[name]))
            extra = draw(st.sampled_from(["", "", "", separator + "more"]))
            lines.append(separator.join(cells[name] for name in HEADERS) + extra)
            if draw(st.integers(0, 9)) == 0:
                lines.append("")  # a blank row
    return (line_break.join(lines) + line_break).encode()


@pytest.mark.slow
@given(sheets())
def test_a_sheet_reads_as_with_every_old_step(data: bytes) -> None:
    batch = read_all(Format.CSV, data)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(csv_format, "card_list_columns", lambda rows, names: [
            rows.select(card_lists(name)).to_series() for name in names])
        patched.setattr(csv_format, "_parse_bool_in", lambda rows, name: parse_bool(name))
        patched.setattr(csv_format, "_disagreements", _disagreements_by_count)
        old = read_all(Format.CSV, data)
    _assert_same(batch, old)


def _assert_same(batch: CanonicalBatch, old: CanonicalBatch) -> None:
    for name in ("hands", "seats", "streets", "problems"):
        assert getattr(batch, name).equals(getattr(old, name)), name
