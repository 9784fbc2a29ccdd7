"""Native ofc-hh JSON Lines: the example of docs/formats.md, and real kinds of damage."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
from decimal import Decimal
from importlib import resources

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from ofc_stats.engine.rules import Variant
from ofc_stats.formats import Format, jsonl
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.jsonl import READER
from tests.test_formats_common import assert_problem, read_all, read_batches

IVEY = {"seat": 1, "name": "Ivey", "top": ["6s", "6c", "4h"],
        "middle": ["Td", "Ts", "9c", "Qs", "8c"], "bottom": ["3h", "3d", "3s", "2h", "2d"]}
HELLMUTH = {"seat": 2, "name": "Hellmuth", "top": ["Ah", "Kd", "Qd"],
            "middle": ["9h", "9d", "5h", "5d", "4c"], "bottom": ["Ks", "Js", "9s", "8s", "7s"]}


def hand(hand_id: str = "h1", **fields: object) -> dict[str, object]:
    record: dict[str, object] = {
        "format": "ofc-hh", "version": 1, "site": "home", "hand_id": hand_id,
        "table": "kitchen", "started_at": "2026-03-01T20:15:00+01:00", "variant": "pineapple",
        "players": [dict(IVEY), dict(HELLMUTH)],
    }
    record.update(fields)
    return record


def lines(*records: dict[str, object] | str, end: str = "\n") -> bytes:
    return end.join(r if isinstance(r, str) else json.dumps(r) for r in records).encode() \
        + end.encode()


EXAMPLE = {
    "format": "ofc-hh", "version": 1, "site": "home", "hand_id": "2026-03-01-0042",
    "table": "kitchen", "started_at": "2026-03-01T20:15:00+01:00", "variant": "pineapple",
    "button_seat": 2, "point_value": "0.25", "currency": "EUR",
    "players": [
        {**IVEY, "discards": ["2c", "Jh", "Kh", "7d"], "reported_points": 4,
         "reported_royalties": 7},
        {**HELLMUTH, "in_fantasyland": True, "fl_cards": 14, "discards": ["Ac"],
         "reported_points": -4, "reported_royalties": 4},
    ],
    "streets": [
        {"street": 1, "seat": 1, "placed": {"top": ["6s"], "middle": ["Td", "Ts"],
                                             "bottom": ["3h", "3d"]}},
        {"street": 1, "seat": 2, "dealt": ["Ah", "Kd", "Qd", "9h", "9d", "5h", "5d", "4c", "Ks",
                                           "Js", "9s", "8s", "7s", "Ac"],
         "placed": {"top": ["Ah", "Kd", "Qd"], "middle": ["9h", "9d", "5h", "5d", "4c"],
                    "bottom": ["Ks", "Js", "9s", "8s", "7s"]}, "discarded": ["Ac"]},
        {"street": 2, "seat": 1, "dealt": ["6c", "9c", "2c"],
         "placed": {"top": ["6c"], "middle": ["9c"]}, "discarded": ["2c"]},
        {"street": 3, "seat": 1, "placed": {"middle": ["Qs"], "bottom": ["3s"]},
         "discarded": ["Jh"]},
        {"street": 4, "seat": 1, "placed": {"middle": ["8c"], "bottom": ["2h"]},
         "discarded": ["Kh"]},
        {"street": 5, "seat": 1, "placed": {"top": ["4h"], "bottom": ["2d"]},
         "discarded": ["7d"]},
    ],
}


def test_the_documented_example_reads_completely() -> None:
    batch = read_all(Format.JSONL, lines(EXAMPLE))
    assert batch.problems.is_empty()
    hand_row = batch.hands.row(0, named=True)
    assert hand_row["started_at"] == dt.datetime(2026, 3, 1, 19, 15, tzinfo=dt.UTC)
    assert (hand_row["utc_offset_minutes"], hand_row["button_seat"]) == (60, 2)
    assert (hand_row["point_value"], hand_row["currency"]) == (Decimal("0.25"), "EUR")
    assert (hand_row["players"], hand_row["has_streets"]) == (2, True)
    ivey, hellmuth = batch.seats.rows(named=True)
    assert (ivey["top"], ivey["bottom"], ivey["discards"]) == (
        "6s 6c 4h", "3h 3d 3s 2h 2d", "2c Jh Kh 7d")
    assert (hellmuth["in_fantasyland"], hellmuth["fl_cards"], hellmuth["reported_points"]) == (
        True, 14, -4)
    streets = batch.streets
    assert streets.height == 13 + 4 + 14
    assert streets.filter(streets["seat"] == 2)["street"].unique().to_list() == [1]
    assert streets.filter(streets["action"] == "discard")["row"].null_count() == 5


def test_the_example_matches_the_published_json_schema() -> None:
    # Beside the JSON Lines reader, as the package ships it.
    schema_file = resources.files("ofc_stats.formats") / "ofc-hand-v1.schema.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert schema["properties"]["format"]["const"] == "ofc-hh"
    assert schema["properties"]["version"]["const"] == 1
    missing = set(schema["required"]) - set(EXAMPLE)
    assert not missing
    assert set(EXAMPLE) <= set(schema["properties"])
    player = schema["$defs"]["player"]
    for seat in EXAMPLE["players"]:  # type: ignore[attr-defined]
        assert set(player["required"]) <= set(seat) <= set(player["properties"])
    assert schema["properties"]["variant"]["enum"] == [variant.value for variant in Variant]
    card = schema["$defs"]["card"]["pattern"].replace("(?i:", "(?:")
    assert all(re.match(card, text, re.IGNORECASE) for text in ("Xj", "JK", "Joker", "10d"))
    assert {"reported_money", "starting_stack"} <= set(player["properties"])


@pytest.mark.parametrize(
    ("bad", "kind", "reason"),
    [
        (hand("h2", players=[IVEY, {**HELLMUTH, "top": ["Ah", "Kd", "Zz"]}]), "card",
         "bad card 'Zz' (seat 2 top)"),
        (hand("h2", players=[IVEY, {**HELLMUTH, "top": ["Ah", "Kd", "Qd", "Jd"]}]),
         "row size", "seat 2 top has 4 cards (holds 3)"),
        (hand("h2", started_at="2026-02-30T10:00:00Z"), "timestamp", "bad timestamp"),
        (hand("h2", players=[IVEY, {**HELLMUTH, "top": ["6s", "Kd", "Qd"]}]),
         "duplicate card", "duplicate card 6s (seat 1 top, seat 2 top)"),
        (hand("h2", variant="badugi"), "variant", "unknown variant 'badugi'"),
        (hand("h2", version=2), "version", "version '2' is not supported"),
        (hand("h2", format="ofc-hh2"), "version", "format 'ofc-hh2' is not supported"),
        (hand("h2", version="one"), "version", "version 'one' is not supported"),
        (hand("h2", players=[IVEY, {**HELLMUTH, "seat": 1.5}]), "syntax", "bad seat '1.5'"),
        (hand("h2", players=[IVEY, {k: v for k, v in HELLMUTH.items() if k != "bottom"}]),
         "syntax", "seat 2: missing bottom"),
        (hand("h2", players="Ivey, Hellmuth"), "syntax", "players must be a list"),
        (hand("h2", streets=[{"street": 1, "seat": 9, "placed": {"top": ["6s"]}}]), "syntax",
         "street 1 names seat 9"),
        (hand("h2", streets=[{"street": 2, "seat": 1, "dealt": ["6s", "2c", "3c"],
                              "placed": {"top": ["6s"]}, "discarded": ["2c"]}]),
         "syntax", "dealt [6s 2c 3c] but placed and discarded [6s 2c]"),
        ('{"format": "ofc-hh", "version": 1, "site": "home", "hand_id": "h2",,}', "syntax",
         "invalid JSON"),
        ('["ofc-hh", 1]', "syntax", "a line must hold one JSON object"),
    ],
)
def test_a_bad_hand_is_set_aside_and_the_hands_around_it_import(
        bad: dict[str, object] | str, kind: str, reason: str) -> None:
    batch = read_all(Format.JSONL, lines(hand("h1"), bad, hand("h3")))
    assert batch.hands["hand_id"].to_list() == ["h1", "h3"]
    assert batch.seats.height == 4
    problem = assert_problem(batch.problems, kind, reason, line=2)
    assert batch.problems.height == 1
    if isinstance(bad, dict) and kind not in ("syntax",):
        assert problem["hand_id"] == "h2"


def test_crlf_bom_and_blank_lines_are_tolerated() -> None:
    data = b"\xef\xbb\xbf" + lines(hand("h1"), "", "   ", hand("h2"), end="\r\n") + b"\r\n\r\n"
    batch = read_all(Format.JSONL, data)
    assert batch.problems.is_empty()
    assert batch.hands["hand_id"].to_list() == ["h1", "h2"]
    assert batch.hands["source_line"].to_list() == [1, 4]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_with_a_bom_reads_like_utf8(encoding: str) -> None:
    text = lines(hand("h1", table="Zoë's"), hand("h2")).decode()
    data = text.encode(encoding)
    if encoding != "utf-16":  # the plain codec writes its own BOM
        data = ("\ufeff" + text).encode(encoding)
    batches = read_batches(Format.JSONL, data)
    batch = batches[0].batch
    assert batch.problems.is_empty()
    assert batch.hands["table"].to_list() == ["Zoë's", "kitchen"]
    assert batches[-1].end_offset == len(data)


def test_undecodable_bytes_spoil_only_their_hand() -> None:
    data = lines(hand("h1"), hand("h2", table="cafX"), hand("h3"))
    broken = data.replace(b'"cafX"', b'"caf\xe9"')
    batch = read_all(Format.JSONL, broken)
    assert batch.hands["hand_id"].to_list() == ["h1", "h3"]
    offset = broken.index(b"\xe9")
    assert_problem(batch.problems, "encoding", f"not valid UTF-8 at byte offset {offset}",
                   line=2)


def test_a_half_written_last_line_is_truncated_and_not_counted() -> None:
    complete = lines(hand("h1"), hand("h2"))
    data = complete + json.dumps(hand("h3")).encode()[:80]
    batches = read_batches(Format.JSONL, data)
    batch = batches[0].batch
    assert batch.hands["hand_id"].to_list() == ["h1", "h2"]
    assert_problem(batch.problems, "truncated", "ends inside this hand", line=3)
    truncated = batch.problems.filter(pl.col("kind") == "truncated")
    assert truncated.select("site", "hand_id").rows() == [("home", "h3")]
    assert batches[-1].end_offset == len(complete)


def test_a_complete_last_line_without_newline_counts() -> None:
    data = lines(hand("h1")) + json.dumps(hand("h2")).encode()
    batches = read_batches(Format.JSONL, data)
    assert batches[0].batch.hands["hand_id"].to_list() == ["h1", "h2"]
    assert batches[-1].end_offset == len(data)


def test_leniencies_cards_as_text_numbers_as_strings_and_unknown_keys() -> None:
    lenient = hand("h1", button_seat="2", point_value=0.5, note="ignored",
                   players=[{**IVEY, "seat": "1", "top": "6s 6c 4h", "in_fantasyland": "yes"},
                            {**HELLMUTH, "middle": ["9♥", "9d", "5h", "5d", "4c"]}])
    batch = read_all(Format.JSONL, lines(lenient))
    assert batch.problems.is_empty()
    assert batch.seats["top"].to_list() == ["6s 6c 4h", "Ah Kd Qd"]
    assert batch.seats["in_fantasyland"].to_list() == [True, False]
    assert batch.hands["button_seat"].to_list() == [2]
    assert batch.hands["point_value"].to_list() == [Decimal("0.5")]


def test_a_line_with_only_the_required_fields_reads_as_version_1() -> None:
    bare = {k: v for k, v in hand("h1").items() if k not in ("format", "version")}
    assert READER.sniff(lines(bare)) > 50  # told apart from the other formats still
    batch = read_all(Format.JSONL, lines(bare))
    assert batch.problems.is_empty()
    assert batch.hands["hand_id"].to_list() == ["h1"]


def test_sniff_rates_native_lines_high() -> None:
    assert READER.sniff(lines(hand("h1"))) >= 90
    assert READER.sniff(b"Hand #1: ...") == 0


def test_streets_placing_a_card_twice_are_set_aside_and_the_hand_kept() -> None:
    # One deck is dealt: a card placed (or discarded) twice in the streets cannot be;
    # the final boards can still be scored, so the hand is stored without streets.
    twice = hand("h2", streets=[
        {"street": 1, "seat": 1, "placed": {"top": ["6s"], "middle": ["Td", "Ts"]}},
        {"street": 2, "seat": 1, "placed": {"top": ["6c"]}, "discarded": ["Td"]},
        {"street": 1, "seat": 2, "placed": {"bottom": ["Ks", "6s"]}}])
    batch = read_all(Format.JSONL, lines(EXAMPLE, twice))
    assert batch.hands.select("hand_id", "has_streets").rows() == [
        ("2026-03-01-0042", True), ("h2", False)]
    assert set(batch.streets["hand_id"]) == {"2026-03-01-0042"}
    problem = assert_problem(batch.problems, "streets", "2 cards placed twice in the streets",
                             line=2, hand_id="h2")
    assert "(6s: seat 1 street 1 top, seat 2 street 1 bottom)" in problem["reason"]


def test_a_seat_number_past_what_is_stored_is_a_seat_problem() -> None:
    far = hand("h2", players=[{**IVEY, "seat": 300}, dict(HELLMUTH)])
    batch = read_all(Format.JSONL, lines(far, hand("h3")))
    assert batch.hands["hand_id"].to_list() == ["h3"]
    assert_problem(batch.problems, "seat", "seat 300 is not a seat number (-128 to 127)",
                   line=1, hand_id="h2")


# Values a field may be given instead of its own: the typed decode refuses the lines
# holding most of them, and the lenient reading must then say the same as it would.
ODD_VALUES = st.sampled_from([
    None, 0, 1, 2, -1, 1.5, 1.0, 2**70, "1", " 2", "+3", "x", "", True, False, "yes", [],
    {}, ["Ah"], ["Ah", "Kd"], "Ah Kd", [None], [1], ["A\"h"], ["10d"], [""], {"top": ["Ah"]},
])
LINE_DAMAGE = st.sampled_from([
    "none", "truncate", "garbage", "minus zero", "escape", "bom", "duplicate", "null", "array",
    "two objects", "spaces",
])


def _change_field(record: dict[str, object], draw: st.DrawFn) -> None:
    """One field of ``record`` given an odd value, or left out."""
    where = draw(st.sampled_from(["hand", "player", "street", "placed", "list"]))
    players = record.get("players")
    streets = record.get("streets")
    if where == "hand":
        key = draw(st.sampled_from(["format", "version", "site", "hand_id", "button_seat",
                                    "point_value", "players", "streets", "extra"]))
        record[key] = draw(ODD_VALUES)
    elif where == "player" and isinstance(players, list) and players:
        player = players[draw(st.integers(0, len(players) - 1))]
        key = draw(st.sampled_from(["seat", "name", "top", "middle", "bottom", "in_fantasyland",
                                    "fl_cards", "discards", "reported_points", "extra"]))
        if isinstance(player, dict) and draw(st.booleans()):
            player[key] = draw(ODD_VALUES)
        elif isinstance(player, dict):
            player.pop(key, None)
    elif where in ("street", "placed") and isinstance(streets, list) and streets:
        entry = streets[draw(st.integers(0, len(streets) - 1))]
        if not isinstance(entry, dict):
            return
        key = draw(st.sampled_from(["street", "seat", "dealt", "discarded", "placed"]))
        target = entry["placed"] if where == "placed" and isinstance(
            entry.get("placed"), dict) else entry
        target[draw(st.sampled_from(["top", "middle", "bottom"])) if target is not entry
               else key] = draw(ODD_VALUES)
    elif where == "list" and isinstance(players, list):
        record["players"] = draw(st.sampled_from([[None, *players], [], players[:1]]))


def _damaged(record: dict[str, object], draw: st.DrawFn) -> str:
    """``record`` with a few fields changed (or none), written with one kind of damage."""
    record = json.loads(json.dumps(record))
    for _ in range(draw(st.integers(0, 3))):
        _change_field(record, draw)
    text = json.dumps(record, separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])))
    damage = draw(LINE_DAMAGE)
    if damage == "truncate":
        text = text[:draw(st.integers(1, len(text) - 1))]
    elif damage == "garbage":
        text += draw(st.sampled_from(["x", ",", "]", " null", "}"]))
    elif damage == "minus zero":
        text = text.replace('"seat": 1', '"seat": -0').replace('"seat":1', '"seat":-0')
    elif damage == "escape":
        text = (text.replace("Ivey", "I\\u0076ey").replace('"Ah"', '"\\u0041h"')
                .replace('"Qs"', '"Q\\"s"'))
    elif damage == "bom":
        text = "\ufeff" + text
    elif damage == "duplicate":
        text = text.replace('"site"', '"site": "again", "site"', 1)
    elif damage == "null":
        text = "null"
    elif damage == "array":
        text = f"[{text}]"
    elif damage == "two objects":
        text = f"{text} {text}"
    elif damage == "spaces":
        text = f"  {text}\t"
    return text


@st.composite
def damaged_files(draw: st.DrawFn) -> bytes:
    """A file of good hands and a few damaged ones (enough lines that the typed
    decode halves its blocks to find the bad ones)."""
    count = draw(st.integers(1, 70))
    bad = set(draw(st.lists(st.integers(0, count - 1), max_size=6)))
    texts = []
    for number in range(count):
        record = dict(EXAMPLE if number % 3 else hand(), hand_id=f"h{number}")
        texts.append(_damaged(record, draw) if number in bad else json.dumps(record))
    return ("\n".join(texts) + draw(st.sampled_from(["\n", ""]))).encode()


def _read_with(data: bytes, *, typed: bool) -> CanonicalBatch:
    from ofc_stats.formats.jsonl import JsonLinesParser
    from ofc_stats.formats.reading import read_batches as read_with_parser
    from ofc_stats.formats.streaming import ByteSource

    return CanonicalBatch.concat([read.batch for read in read_with_parser(
        ByteSource(io.BytesIO(data)), JsonLinesParser("hands.jsonl", typed=typed),
        "hands.jsonl", 25)])


def _with(changes: dict[str, object], players: dict[str, object] | None = None) -> str:
    record = json.loads(json.dumps({**EXAMPLE, **changes}))
    record["players"][0].update(players or {})
    return json.dumps(record)


# Lines the typed decode must leave to the lenient reading (null cards, an escaped
# quote in a card), and one it may take (a seat written -0 beside an error quoting it).
LEFT_TO_THE_LENIENT_READING = "\n".join([
    _with({"hand_id": "n1"}, {"top": ["6s", None, "4h"]}),
    _with({"hand_id": "n2", "streets": [{"street": 1, "seat": 1, "placed": {"top": [None]}}]}),
    _with({"hand_id": "e1"}, {"top": ["6s", 'A"h', "4h"]}),
    _with({"hand_id": "z1"}, {"top": None}).replace('"seat": 1', '"seat": -0'),
    *(_with({"hand_id": f"g{number}"}) for number in range(20)),
]).encode()


@settings(max_examples=60, deadline=None)
@given(data=damaged_files())
@example(data=LEFT_TO_THE_LENIENT_READING)
def test_the_typed_decode_reads_every_line_as_the_lenient_reading_does(data: bytes) -> None:
    typed, lenient = _read_with(data, typed=True), _read_with(data, typed=False)
    for table in ("hands", "seats", "streets", "problems"):
        assert_frame_equal(getattr(typed, table), getattr(lenient, table))


@pytest.mark.parametrize("slice_bytes", [1, 64, 1 << 20])
def test_decoding_in_slices_keeps_every_row_in_its_place(
        slice_bytes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """DuckDB decodes a batch's record batches on several threads; the rows come back
    in their order (the parse joins them to the lines by position), whatever the
    slices and the lengths of the texts."""
    monkeypatch.setattr(jsonl, "DECODE_SLICE_BYTES", slice_bytes)
    texts = [json.dumps({"n": index, "pad": "x" * (index * 7 % 301)})
             for index in range(30_000)]
    decoded = jsonl.decode_json(pl.DataFrame({"text": texts}),
                                "SELECT CAST(json_extract(text, '$.n') AS BIGINT) AS n "
                                "FROM lines")
    assert decoded["n"].to_list() == list(range(30_000))
