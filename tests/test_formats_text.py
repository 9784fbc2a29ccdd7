"""Room-style text histories: the documented example, tolerated habits, real damage."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import polars as pl
import pytest

from ofc_stats.formats import Format, FormatWriteError
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.samples import sample_hands
from ofc_stats.formats.text import READER, WRITER
from tests.test_formats_common import assert_problem, read_all, read_batches, write

EXAMPLE = """\
Home Game Hand #2026-03-01-0042: Pineapple OFC (0.25 EUR per point) - 2026-03-01 20:15:00 +01:00
Table 'kitchen' Seat #2 is the button
Seat 1: Ivey (150 in chips)
Seat 2: Hellmuth (150 in chips)
Hellmuth is in Fantasyland (14 cards)
*** STREET 1 ***
Dealt to Ivey [6s Td Ts 3h 3d]
Ivey: top [6s], middle [Td Ts], bottom [3h 3d]
Dealt to Hellmuth [Ah Kd Qd 9h 9d 5h 5d 4c Ks Js 9s 8s 7s Ac]
Hellmuth: top [Ah Kd Qd], middle [9h 9d 5h 5d 4c], bottom [Ks Js 9s 8s 7s]
Hellmuth: discards [Ac]
*** STREET 2 ***
Dealt to Ivey [6c 9c 2c]
Ivey: top [6c], middle [9c]
Ivey: discards [2c]
*** STREET 3 ***
Dealt to Ivey [Qs 3s Jh]
Ivey: middle [Qs], bottom [3s]
Ivey: discards [Jh]
*** STREET 4 ***
Dealt to Ivey [8c 2h Kh]
Ivey: middle [8c], bottom [2h]
Ivey: discards [Kh]
*** STREET 5 ***
Dealt to Ivey [4h 2d 7d]
Ivey: top [4h], bottom [2d]
Ivey: discards [7d]
*** SUMMARY ***
Seat 1: Ivey [6s 6c 4h] [Td Ts 9c Qs 8c] [3h 3d 3s 2h 2d] discards [2c Jh Kh 7d] won 4 points \
(royalties 7)
Seat 2: Hellmuth [Ah Kd Qd] [9h 9d 5h 5d 4c] [Ks Js 9s 8s 7s] discards [Ac] lost 4 points \
(royalties 4) collected 1.5
"""
EXAMPLE_LINES = EXAMPLE.count("\n")


def hand(hand_id: str, text: str = EXAMPLE) -> str:
    return text.replace("#2026-03-01-0042", f"#{hand_id}")


def three(middle: str) -> bytes:
    """Hands h1, h2 (``middle``, the example changed) and h3, a blank line apart."""
    return "\n".join([hand("h1"), hand("h2", middle), hand("h3")]).encode()


def test_the_documented_example_reads_completely() -> None:
    batch = read_all(Format.TEXT, EXAMPLE.encode())
    assert batch.problems.is_empty()
    row = batch.hands.row(0, named=True)
    assert (row["site"], row["hand_id"], row["table"], row["variant"]) == (
        "Home Game", "2026-03-01-0042", "kitchen", "pineapple")
    assert row["started_at"] == dt.datetime(2026, 3, 1, 19, 15, tzinfo=dt.UTC)
    assert (row["utc_offset_minutes"], row["button_seat"]) == (60, 2)
    assert (row["point_value"], row["currency"]) == (Decimal("0.25"), "EUR")
    ivey, hellmuth = batch.seats.rows(named=True)
    assert (ivey["top"], ivey["middle"], ivey["bottom"]) == (
        "6s 6c 4h", "Td Ts 9c Qs 8c", "3h 3d 3s 2h 2d")
    assert (ivey["discards"], ivey["reported_points"], ivey["reported_royalties"]) == (
        "2c Jh Kh 7d", 4, 7)
    assert (hellmuth["in_fantasyland"], hellmuth["fl_cards"], hellmuth["reported_points"]) == (
        True, 14, -4)
    assert (hellmuth["starting_stack"], hellmuth["collected"]) == (Decimal(150), Decimal("1.5"))
    streets = batch.streets
    assert streets.height == 13 + 4 + 14
    assert streets.filter(streets["seat"] == 2)["street"].unique().to_list() == [1]
    assert streets.filter(streets["street"] == 2)["card"].len() == 3


@pytest.mark.parametrize(
    ("old", "new", "kind", "reason"),
    [
        ("[Ah Kd Qd] [9h", "[Ah Kd Zz] [9h", "card", "bad card 'Zz' (seat 2 top)"),
        ("[Ah Kd Qd] [9h", "[Ah Kd Qd Jd] [9h", "row size", "seat 2 top has 4 cards (holds 3)"),
        ("2026-03-01 20:15:00", "2026-02-30 20:15:00", "timestamp", "bad timestamp"),
        ("[Ah Kd Qd] [9h", "[Ah Kd 6s] [9h", "duplicate card",
         "duplicate card 6s (seat 1 top, seat 2 top)"),
        ("Pineapple OFC", "Badugi", "variant", "unknown variant 'Badugi'"),
        ("Ivey: discards [Jh]", "Ivey mucks", "syntax", "cannot read 'Ivey mucks'"),
        ("Seat 2: Hellmuth [Ah", "Seat 3: Hellmuth [Ah", "syntax",
         "seat 2 (Hellmuth) has no summary line"),
        ("Table 'kitchen' Seat #2 is the button\n", "", "syntax", "no Table line"),
        ("Dealt to Ivey [6c 9c 2c]", "Dealt to Ivey [6c 9c 2c 5c]", "syntax",
         "dealt [6c 9c 2c 5c] but placed and discarded [6c 9c 2c]"),
        ("Ivey: top [6c], middle [9c]", "Dwan: top [6c], middle [9c]", "syntax",
         "street 2 names 'Dwan', who has no seat"),
        ("*** SUMMARY ***", "*** RESULTS ***", "syntax", "cannot read '*** RESULTS ***'"),
    ],
)
def test_a_bad_hand_is_set_aside_and_the_hands_around_it_import(
        old: str, new: str, kind: str, reason: str) -> None:
    assert old in EXAMPLE
    changed = EXAMPLE.replace(old, new, 1)
    batch = read_all(Format.TEXT, three(changed))
    assert batch.hands["hand_id"].to_list() == ["h1", "h3"]
    assert batch.seats.height == 4
    start = EXAMPLE_LINES + 2  # h2 starts after h1 and a blank line
    if "Ivey mucks" in reason:  # the line is named by its number in the file
        reason = f"line {start + EXAMPLE[:EXAMPLE.index(old)].count(chr(10))}: {reason}"
    assert_problem(batch.problems, kind, reason, line=start, hand_id="h2")
    assert batch.problems.height == 1


def test_crlf_bom_blank_lines_and_text_outside_hands() -> None:
    text = ("Exported by HomeGameApp 2.1\n\n" + hand("h1") + "\n\n\n" + hand("h2")
            + "\n-- end of session --\n\n")
    data = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode()
    batch = read_all(Format.TEXT, data)
    assert batch.hands["hand_id"].to_list() == ["h1", "h2"]
    second = 3 + EXAMPLE_LINES + 3
    assert batch.hands["source_line"].to_list() == [3, second]
    assert batch.seats["bottom"].to_list()[0] == "3h 3d 3s 2h 2d"  # no stray \r
    assert batch.problems["kind"].to_list() == ["syntax", "syntax"]
    assert_problem(batch.problems.head(1), "syntax", "text outside any hand", line=1)
    end = assert_problem(batch.problems.tail(1), "syntax", "text outside any hand",
                         line=second + EXAMPLE_LINES + 1)
    assert end["raw"] == "-- end of session --"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_with_a_bom_reads_like_utf8(encoding: str) -> None:
    text = "\n".join([hand("h1"), hand("h2").replace("Hellmuth", "Zoë")])
    data = (text if encoding == "utf-16" else "\ufeff" + text).encode(encoding)
    batches = read_batches(Format.TEXT, data, chunk_bytes=1024)
    batch = batches[0].batch
    assert batch.problems.is_empty()
    assert batch.seats["player"].to_list() == ["Ivey", "Hellmuth", "Ivey", "Zoë"]
    assert batches[-1].end_offset == len(data)


def test_undecodable_bytes_spoil_only_their_hand() -> None:
    data = three(EXAMPLE.replace("kitchen", "cafX")).replace(b"cafX", b"caf\xe9")
    batch = read_all(Format.TEXT, data)
    assert batch.hands["hand_id"].to_list() == ["h1", "h3"]
    offset = data.index(b"\xe9")
    assert_problem(batch.problems, "encoding", f"not valid UTF-8 at byte offset {offset}",
                   line=EXAMPLE_LINES + 2)


@pytest.mark.parametrize("cut", [40, EXAMPLE.index("*** SUMMARY"), -30, -1])
def test_a_half_written_last_hand_is_truncated_and_not_counted(cut: int) -> None:
    complete = (hand("h1") + "\n").encode()
    data = complete + hand("h2")[:cut].encode()
    batches = read_batches(Format.TEXT, data)
    batch = batches[-1].batch
    assert batch.hands["hand_id"].to_list() == ["h1"]
    assert_problem(batch.problems, "truncated", "ends inside this hand",
                   line=EXAMPLE_LINES + 2)
    key_written = "#h2: " in hand("h2")[:cut]
    assert batch.problems.filter(pl.col("kind") == "truncated")["hand_id"].to_list() == [
        "h2" if key_written else None]
    assert batches[-1].end_offset == len(complete)


def test_a_last_hand_without_its_final_line_break_waits() -> None:
    # "collected 1.5" cut to "collected 1." still looks whole: only the line break
    # tells a finished last line from a cut one.
    complete = (hand("h1") + "\n").encode()
    data = complete + hand("h2").rstrip("\n").encode()
    batches = read_batches(Format.TEXT, data)
    assert batches[0].batch.hands["hand_id"].to_list() == ["h1"]
    assert batches[-1].end_offset == len(complete)
    assert read_all(Format.TEXT, data + b"\n").hands.height == 2


def test_the_writer_refuses_what_the_layout_cannot_hold() -> None:
    hands = sample_hands(3, 2, seed=1)
    bad = hands.seats.with_columns(
        hands.seats["player"].set(hands.seats["seat"] == 2, "two\nlines"))
    with pytest.raises(FormatWriteError, match="cannot hold player 'two"):
        WRITER.write([CanonicalBatch(hands.hands, bad, hands.streets, hands.problems)],
                     io.BytesIO())


def test_written_hands_look_like_the_example() -> None:
    written = write(Format.TEXT, [read_all(Format.TEXT, EXAMPLE.encode())]).decode()
    assert written == EXAMPLE


def test_sniff() -> None:
    assert READER.sniff(EXAMPLE.encode()) >= 90
    assert READER.sniff(b"\n\nPokerStars Hand #1: Hold'em No Limit") >= 50
    assert READER.sniff(b'{"format": "ofc-hh"}') == 0
