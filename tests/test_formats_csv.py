"""Home-game CSV sheets: spreadsheet habits tolerated, real damage set aside."""

from __future__ import annotations

import datetime as dt
import io

import polars as pl
import pytest

from ofc_stats.formats import Format, FormatWriteError
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.csv import READER, CsvReader
from ofc_stats.formats.samples import sample_hands
from tests.test_formats_common import assert_problem, read_all, read_batches, write

HEADER = "hand_id,started_at,table,player,seat,top,middle,bottom,fantasyland,points"
EXAMPLE = f"""\
{HEADER}
h1,2026-03-01 20:15:00+01:00,kitchen,Ivey,1,6s 6c 4h,Td Ts 9c Qs 8c,3h 3d 3s 2h 2d,no,4
h1,2026-03-01 20:15:00+01:00,kitchen,Hellmuth,2,Ah Kd Qd,9h 9d 5h 5d 4c,Ks Js 9s 8s 7s,yes,-4
"""
ROWS = (
    "{id},2026-03-01 20:15:00+01:00,kitchen,Ivey,1,6s 6c 4h,Td Ts 9c Qs 8c,3h 3d 3s 2h 2d,no,4\n"
    "{id},2026-03-01 20:15:00+01:00,kitchen,Hellmuth,2,Ah Kd Qd,9h 9d 5h 5d 4c,Ks Js 9s 8s 7s,"
    "yes,-4\n")


def sheet(*hands: str, header: str = HEADER) -> bytes:
    return (header + "\n" + "".join(hands)).encode()


def rows(hand_id: str, old: str = "", new: str = "") -> str:
    return ROWS.format(id=hand_id).replace(old, new, 1) if old else ROWS.format(id=hand_id)


def test_the_documented_example_reads_with_defaults() -> None:
    batch = read_all(Format.CSV, EXAMPLE.encode())
    assert batch.problems.is_empty()
    row = batch.hands.row(0, named=True)
    assert (row["site"], row["variant"], row["table"], row["players"]) == (
        "home", "pineapple", "kitchen", 2)
    assert row["started_at"] == dt.datetime(2026, 3, 1, 19, 15, tzinfo=dt.UTC)
    assert batch.seats["in_fantasyland"].to_list() == [False, True]
    assert batch.seats["reported_points"].to_list() == [4, -4]
    assert batch.hands["source_line"].to_list() == [2]


def test_spreadsheet_habits_are_tolerated() -> None:
    # Columns in another order and case, an extra column, quoted fields holding the
    # separator and a line break, TRUE/1 booleans, +4 and 4.0, no seat, no table,
    # blank rows, a BOM and CRLF.
    header = "Notes,Player,Hand ID,Top,Middle,Bottom,FL,Points,Started At,Variant"
    body = (
        '"first hand, late",Ivey,h1,"6s,6c,4h",Td Ts 9c Qs 8c,3h 3d 3s 2h 2d,FALSE,+4,'
        "2026-03-01 20:15,classic\n"
        '"two\nlines",Hellmuth,h1,Ah Kd Qd,9h 9d 5h 5d 4c,Ks Js 9s 8s 7s,TRUE,-4.0,'
        "2026-03-01 20:15,classic\n"
        ",,,,,,,,,\n\n"
        "x,Ivey,h2,6s 6c 4h,Td Ts 9c Qs 8c,3h 3d 3s 2h 2d,0,1,2026-03-01 20:20,classic\n"
        "x,Hellmuth,h2,Ah Kd Qd,9h 9d 5h 5d 4c,Ks Js 9s 8s 7s,1,-1,2026-03-01 20:20,classic\n"
    )
    data = b"\xef\xbb\xbf" + (header + "\n" + body).replace("\n", "\r\n").encode()
    batch = read_all(Format.CSV, data)
    assert batch.problems.is_empty(), batch.problems.to_dicts()
    assert batch.hands["hand_id"].to_list() == ["h1", "h2"]
    assert batch.hands["table"].to_list() == ["main", "main"]
    assert batch.hands["variant"].to_list() == ["classic", "classic"]
    assert batch.hands["source_line"].to_list() == [2, 7]
    assert batch.seats["seat"].to_list() == [1, 2, 1, 2]
    assert batch.seats["top"].to_list()[0] == "6s 6c 4h"
    assert batch.seats["in_fantasyland"].to_list() == [False, True, False, True]
    assert batch.seats["reported_points"].to_list() == [4, -4, 1, -1]


@pytest.mark.parametrize(("separator", "encoding"), [(";", "utf-8"), ("\t", "utf-16")])
def test_other_separators_and_unicode_text_exports(separator: str, encoding: str) -> None:
    text = EXAMPLE.replace(",", separator).replace("Ivey", "Zoë")
    batch = read_all(Format.CSV, text.encode(encoding))
    assert batch.problems.is_empty()
    assert batch.seats["player"].to_list() == ["Zoë", "Hellmuth"]


def test_site_and_variant_defaults_can_be_chosen() -> None:
    reader = CsvReader(site="club", variant="classic", table="t9")
    no_table = EXAMPLE.replace("table,", "").replace("kitchen,", "")
    batch = next(reader.read(io.BytesIO(no_table.encode()), "sheet.csv")).batch
    assert batch.hands.select("site", "variant", "table").row(0) == ("club", "classic", "t9")


@pytest.mark.parametrize(
    ("old", "new", "kind", "reason"),
    [
        ("Ah Kd Qd", "Ah Kd Zz", "card", "bad card 'Zz' (seat 2 top)"),
        ("Ah Kd Qd", "Ah Kd Qd Jd", "row size", "seat 2 top has 4 cards (holds 3)"),
        ("2026-03-01 20:15:00+01:00,kitchen,Ivey", "01/03/2026 8pm,kitchen,Ivey", "syntax",
         "the rows of this hand disagree on started_at"),
        ("Ah Kd Qd", "Ah Kd 6s", "duplicate card", "duplicate card 6s (seat 1 top, seat 2 top)"),
        ("kitchen,Hellmuth", "garden,Hellmuth", "syntax",
         "the rows of this hand disagree on table"),
        (",yes,-4", ",maybe,-4", "syntax", "bad fantasyland 'maybe'"),
        (",yes,-4", ",yes,-4,extra", "syntax", "11 fields but the header has 10"),
        ("Hellmuth,2", "Hellmuth,1", "seat", "two players in the same seat"),
    ],
)
def test_a_bad_hand_is_set_aside_and_the_hands_around_it_import(
        old: str, new: str, kind: str, reason: str) -> None:
    batch = read_all(Format.CSV, sheet(rows("h1"), rows("h2", old, new), rows("h3")))
    assert batch.hands["hand_id"].to_list() == ["h1", "h3"]
    assert_problem(batch.problems, kind, reason, line=4, hand_id="h2")
    assert batch.problems.height == 1


def test_a_bad_date_on_every_row_is_a_timestamp_problem() -> None:
    bad = rows("h2").replace("2026-03-01 20:15:00+01:00", "01/03/2026 8pm")
    batch = read_all(Format.CSV, sheet(rows("h1"), bad))
    assert_problem(batch.problems, "timestamp", "bad timestamp '01/03/2026 8pm'", line=4)


def test_a_hand_whose_rows_are_apart_is_refused_the_second_time() -> None:
    first, second = rows("h1").splitlines(keepends=True)
    batch = read_all(Format.CSV, sheet(first, rows("h2"), second, rows("h3")))
    assert batch.hands["hand_id"].to_list() == ["h2", "h3"]
    assert_problem(batch.problems, "syntax", "rows must be together", line=5, hand_id="h1")


def test_a_missing_required_column_is_one_problem_for_the_file() -> None:
    data = sheet(rows("h1"), header=HEADER.replace("bottom", "back row"))
    batch = read_all(Format.CSV, data)
    assert batch.hands.is_empty()
    assert_problem(batch.problems, "missing field", "the header lacks bottom", line=1)
    assert batch.problems.height == 1


def test_a_last_row_without_its_line_break_is_truncated() -> None:
    complete = sheet(rows("h1"))
    data = complete + rows("h2").rstrip("\n").encode()
    batches = read_batches(Format.CSV, data)
    assert batches[0].batch.hands["hand_id"].to_list() == ["h1"]
    assert_problem(batches[-1].batch.problems, "truncated", "ends inside this hand", line=4)
    assert batches[-1].end_offset == len(complete)


def test_undecodable_bytes_spoil_only_their_hand() -> None:
    data = sheet(rows("h1"), rows("h2", "kitchen,Ivey", "cafX,Ivey"), rows("h3"))
    broken = data.replace(b"cafX", b"caf\xe9")
    batch = read_all(Format.CSV, broken)
    assert batch.hands["hand_id"].to_list() == ["h1", "h3"]
    offset = broken.index(b"\xe9")
    assert_problem(batch.problems, "encoding", f"not valid UTF-8 at byte offset {offset}",
                   line=4)


def test_sniff_needs_the_required_columns() -> None:
    assert READER.sniff(EXAMPLE.encode()) >= 90
    assert READER.sniff(b"name,score\nann,3\n") == 0


def test_names_with_separators_quotes_and_line_breaks_round_trip() -> None:
    hands = sample_hands(12, 3, seed=5)
    names = ['Zoë, "the" cat', "two\nlines", "semi;colon", "[x]"]
    seats = hands.seats.with_columns(pl.Series(
        "player", [f"{names[i % 4]} {i}" for i in range(hands.seats.height)]))
    batch = CanonicalBatch(hands.hands, seats, hands.streets, hands.problems)
    back = read_all(Format.CSV, write(Format.CSV, [batch]))
    assert back.problems.is_empty()
    assert back.seats["player"].to_list() == seats["player"].to_list()


def test_the_writer_refuses_outer_spaces_it_could_not_read_back() -> None:
    hands = sample_hands(3, 2, seed=1)
    seats = hands.seats.with_columns(pl.col("player") + " ")
    with pytest.raises(FormatWriteError, match="cannot hold player 'Ivey '"):
        write(Format.CSV, [CanonicalBatch(hands.hands, seats, hands.streets, hands.problems)])
