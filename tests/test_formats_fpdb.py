"""fpdb-3's OFC hands: its capture envelope and its database's hand object, as fpdb-3
writes them (the shipped fixtures) and as the simulator's hands written in its shape;
variants, seats, streets, Fantasyland; earlier ofc-stats exports; the writer checked
by a loader of fpdb-3's documented shape."""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from ofc_stats.engine.cards import card_codes
from ofc_stats.formats import Format, get_writer
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.fpdb import READER
from ofc_stats.formats.fpdb_writer import envelope_texts, raw_json_lines
from ofc_stats.simulate import SimulationConfig, simulate
from tests.fpdb3_loader import ShapeError, load_envelope, load_hand
from tests.test_formats_common import assert_problem, read_all, read_batches, write

FIXTURES = Path(__file__).parent / "fixtures" / "fpdb3"
ENVELOPE = (FIXTURES / "hand_777001.json").read_text()
RAW_JSON = (FIXTURES / "HttpOFCHands.rawJson.json").read_text()


def raw_hand() -> dict[str, Any]:
    """The fixture's hand object, to edit."""
    data: dict[str, Any] = json.loads(RAW_JSON)
    return data


def clean_hand() -> dict[str, Any]:
    """The fixture's hand with rounds that hold together: each player lays the first
    cards of their rows (1, 2, 2), then, two rounds later, the rest."""
    hand = raw_hand()
    first = {"top": 1, "middle": 2, "bottom": 2}
    rounds = []
    for part in (0, 1):
        for player in hand["players"]:
            placed = {row: player[row][:count] if part == 0 else player[row][count:]
                      for row, count in first.items()}
            rounds.append({"round": len(rounds) + 1, "step_num": part + 1,
                           "player": player["name"], "dealt": [], "discarded": [],
                           "placed": placed, "active": []})
    hand["rounds"] = rounds
    return hand


def hand(hand_id: str, **fields: Any) -> dict[str, Any]:
    """A hand object of fpdb-3's shape (its rounds holding together), ``site`` first."""
    record = {"site": "SealsWithClubs", **clean_hand(), "hand_id": hand_id}
    record.update(fields)
    return record


def lines(*hands: dict[str, Any]) -> bytes:
    return ("\n".join(json.dumps(hand) for hand in hands) + "\n").encode()


def simulated(hands: int = 400, seed: int = 5, **config: Any) -> CanonicalBatch:
    """Realistic hands: the simulator's sessions, Fantasyland and faults included."""
    return CanonicalBatch.concat(list(simulate(SimulationConfig(
        seed=seed, hands=hands, tables=config.pop("tables", 4), **config))))


# -- fpdb-3's own output ------------------------------------------------------------


@pytest.mark.parametrize("text", [ENVELOPE, RAW_JSON], ids=["envelope", "rawJson"])
def test_the_fixture_reads_as_fpdb_3_recorded_it(text: str) -> None:
    assert READER.sniff(text.encode()) >= 90
    batch = read_all(Format.FPDB, text.encode())
    hand = batch.hands.row(0, named=True)
    assert (hand["site"], hand["hand_id"], hand["table"], hand["variant"]) == (
        "SealsWithClubs", "777001", "ofc-table", "pineapple")
    assert hand["started_at"] == dt.datetime(2026, 12, 1, 7, 59, 52, 124781, tzinfo=dt.UTC)
    assert hand["utc_offset_minutes"] == 0
    assert hand["button_seat"] is None
    alice, bob = batch.seats.rows(named=True)
    assert (alice["player"], alice["seat"], bob["player"], bob["seat"]) == ("alice", 0, "bob", 1)
    assert (alice["top"], alice["middle"], alice["bottom"]) == (
        "2c 2d 2h", "2s 3c 3d 3h 3s", "4c 4d 4h 4s 5c")
    # points_settled are the reported points; points_breakdown's rows the royalties.
    assert (alice["reported_points"], bob["reported_points"]) == (5, -5)
    assert (alice["reported_royalties"], bob["reported_royalties"]) == (2 + 3 + 4, 0)
    assert (alice["collected"], bob["collected"]) == (Decimal(5), Decimal(0))
    assert alice["starting_stack"] == Decimal(100)
    assert not alice["in_fantasyland"]
    assert not bob["in_fantasyland"]
    # Its rounds place 2d, 2h, 2s and 3c twice (a snapshot moved them between rows): a
    # problem, and the hand is kept with its final boards, without those streets.
    assert hand["has_streets"] is False
    assert batch.streets.is_empty()
    problem = assert_problem(batch.problems, "streets", "8 cards placed twice in the streets",
                             line=1, hand_id="777001")
    assert "2d: seat 0 street 1 middle, seat 0 street 2 top" in problem["reason"]
    assert "stored without them" in problem["reason"]


def test_the_envelope_and_the_database_object_are_the_same_hand() -> None:
    envelope = read_all(Format.FPDB, ENVELOPE.encode())
    row = read_all(Format.FPDB, RAW_JSON.encode())
    assert envelope.hands["content_hash"].to_list() == row.hands["content_hash"].to_list()
    assert_frame_equal(envelope.seats, row.seats)


def test_the_rounds_counter_is_not_the_street() -> None:
    # alice's rounds are her streets 1 and 2, though fpdb-3 numbers them 1 and 3 (bob's
    # are 2 and 4).
    batch = read_all(Format.FPDB, lines(clean_hand()))
    assert batch.problems.is_empty(), batch.problems.to_dicts()
    streets = batch.streets.group_by("seat", "street").agg(pl.len()).sort("seat", "street")
    assert streets.rows() == [(0, 1, 5), (0, 2, 8), (1, 1, 5), (1, 2, 8)]
    assert batch.hands["has_streets"].to_list() == [True]


# -- the simulator's hands in fpdb-3's shapes ----------------------------------------


def comparable(batch: CanonicalBatch) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """What fpdb-3's shapes carry (UTC times; no stakes, money won, button or ruleset;
    the hand object says Pineapple for Progressive and Ultimate)."""
    variant = pl.col("variant").replace({"progressive": "pineapple", "ultimate": "pineapple"})
    hands = batch.hands.drop("ruleset", "button_seat", "point_value", "currency",
                             "utc_offset_minutes", "content_hash", "source_file",
                             "source_line").with_columns(variant).sort("site", "hand_id")
    seats = (batch.seats.drop("point_value", "reported_money", strict=False)
             .with_columns(variant).sort("site", "hand_id", "seat"))
    return hands, seats, batch.streets.sort("site", "hand_id", "action_order")


@pytest.fixture(scope="module")
def realistic() -> CanonicalBatch:
    batch = simulated(600, seed=8)
    assert batch.seats["in_fantasyland"].sum() > 10
    assert set(batch.hands["variant"]) == {"classic", "pineapple", "progressive", "ultimate"}
    return batch


@pytest.mark.parametrize("layout", ["lines", "lines in small chunks", "list", "envelopes"])
def test_simulated_hands_read_back_in_every_shape(realistic: CanonicalBatch, layout: str
                                                  ) -> None:
    if layout == "envelopes":  # one file each in fpdb-3; a stream of them here
        data = ("\n".join(json.dumps(json.loads(text), indent=2) for text in
                          envelope_texts(realistic)["text"]) + "\n").encode()
    else:
        texts = raw_json_lines(realistic).to_list()
        data = ("[\n" + ",\n".join(texts) + "\n]" if layout == "list"
                else "\n".join(texts) + "\n").encode()
    small = layout == "lines in small chunks"
    read = read_all(Format.FPDB, data, chunk_bytes=1 << 16 if small else None,
                    batch_hands=70 if small else 20_000)
    assert read.problems.is_empty(), read.problems.to_dicts()[:3]
    hands, seats, streets = comparable(read)
    want_hands, want_seats, want_streets = comparable(realistic)
    if layout == "envelopes":
        # The envelope names SwC's game: Progressive survives there.
        assert read.hands.filter(pl.col("hand_id").is_in(realistic.hands.filter(
            pl.col("variant") == "progressive")["hand_id"].implode()))["variant"].unique(
        ).to_list() == ["progressive"]
        hands = hands.with_columns(pl.col("variant").replace({"progressive": "pineapple"}))
        seats = seats.with_columns(pl.col("variant").replace({"progressive": "pineapple"}))
    assert_frame_equal(hands, want_hands)
    # Fantasyland, its card count and the discards come back from the streets.
    assert_frame_equal(seats, want_seats)
    assert_frame_equal(streets, want_streets)


def test_the_writer_writes_what_fpdb_3_reads(realistic: CanonicalBatch) -> None:
    seats = realistic.seats.sort("site", "hand_id", "seat")
    texts = raw_json_lines(realistic).to_list()
    loaded = [load_hand(text) for text in texts]  # raises on any deviation from the shape
    players = [player for hand in loaded for player in hand.players]
    assert [hand.hand_id for hand in loaded] == realistic.hands["hand_id"].to_list()
    assert [hand.variant for hand in loaded] == realistic.hands["variant"].replace_strict(
        {"classic": "ofc", "pineapple": "ofcp", "progressive": "ofcp", "ultimate": "ofcp"}
    ).to_list()
    by_seat = seats.select("player", "top", "middle", "bottom", "reported_points",
                           "reported_royalties", "discards", "in_fantasyland")
    assert [(p.name, " ".join(p.top), " ".join(p.middle), " ".join(p.bottom), int(p.points),
             p.royalties, " ".join(p.discards) or None, p.first_placed == 13)
            for p in players] == by_seat.rows()
    assert all(re.search(r'"(?:[2-9JQKA]|10)[cdhs]"', text) for text in texts)
    assert not any(re.search(r'"T[cdhs]"', text) for text in texts)  # tens as 10h


def test_the_envelope_writer_writes_what_fpdb_3_reads(realistic: CanonicalBatch) -> None:
    envelopes = envelope_texts(realistic)
    loaded = [load_envelope(text) for text in envelopes["text"]]
    seats = realistic.seats.sort("site", "hand_id", "seat")
    assert [(p.name, " ".join(p.top), int(p.points)) for hand in loaded for p in hand.players
            ] == seats.select("player", "top", "reported_points").rows()
    games = {hand.hand_id: hand.game_type for hand in loaded}
    variants = dict(realistic.hands.select("hand_id", "variant").iter_rows())
    assert {(variants[hand_id], game) for hand_id, game in games.items()} == {
        ("classic", "OFC"), ("pineapple", "OFC/P"), ("progressive", "OFC/P Progressive"),
        ("ultimate", "OFC/P Variant")}


@pytest.mark.parametrize("damage", [
    ("active", True, "must be a list"),
    ("points", 5, "must be text"),
    ("top", ["Th", "9c", "2d"], "not a card as SwC writes one"),
])
def test_the_loader_refuses_what_fpdb_3_cannot_read(damage: tuple[str, object, str]) -> None:
    # It takes what fpdb-3 wrote; earlier ofc-stats exports wrote "active": true, which
    # fpdb-3's loader cannot list, and points as numbers.
    assert [p.name for p in load_hand(RAW_JSON).players] == ["alice", "bob"]
    assert load_envelope(ENVELOPE).game_type == "OFC/P Variant"
    key, value, message = damage
    hand = raw_hand()
    hand["players"][0][key] = value
    with pytest.raises(ShapeError, match=message):
        load_hand(json.dumps(hand))
    hand = raw_hand()
    hand["result"]["points_settled"] = 5
    with pytest.raises(ShapeError, match="object of integers"):
        load_hand(json.dumps(hand))


# -- variants, seats, cards -----------------------------------------------------------


@pytest.mark.parametrize(("variant", "game", "expected"), [
    ({"variant": "ofc", "pineapple": False}, None, "classic"),
    ({"variant": "ofcp", "pineapple": True}, None, "pineapple"),
    ({"variant": "ofcp", "pineapple": True}, "OFC/P Progressive", "progressive"),
    ({"variant": "ofcp", "pineapple": True}, "poker (type 75)", "progressive"),
    ({"variant": "ofcp", "pineapple": True}, "OFC/P Variant", "pineapple"),
    ({"variant": "ofc", "pineapple": True}, None, "pineapple"),  # earlier exports
    ({"variant": "progressive", "pineapple": True}, None, "progressive"),
    ({"variant": "Ultimate Pineapple"}, None, "ultimate"),
    ("pineapple", None, "pineapple"),
])
def test_variants(variant: object, game: str | None, expected: str) -> None:
    hand = raw_hand()
    hand["variant"] = variant
    if game is not None:
        hand["game_type"] = game
    assert read_all(Format.FPDB, lines(hand)).hands["variant"].to_list() == [expected]


@pytest.mark.parametrize("lowball", [
    {"variant": {"variant": "ofcp_27", "pineapple": True, "deuce_to_seven": True}},
    {"variant": {"variant": "ofcp", "pineapple": True, "deuce_to_seven": True}},
    {"game_type": "OFC/P 2-7"},
])
def test_deuce_to_seven_is_read_as_the_2_7_game(lowball: dict[str, Any]) -> None:
    other = raw_hand()
    other["hand_id"] = 777002
    hand = {**raw_hand(), **lowball}
    batch = read_all(Format.FPDB, lines(other, hand))
    assert batch.hands.sort("hand_id").select("hand_id", "variant").rows() == [
        ("777001", "deuce-to-seven"), ("777002", "pineapple")]
    assert set(batch.problems["kind"]) <= {"streets"}  # none of kind variant


def test_deuce_to_seven_is_written_as_swc_s_ofcp_27() -> None:
    batch = simulated(120, seed=9, tables=2, variants=("deuce-to-seven",))
    loaded = [load_hand(line) for line in raw_json_lines(batch)]
    assert {hand.variant for hand in loaded} == {"ofcp_27"}
    assert {json.loads(text)["game_type"] for text in envelope_texts(batch)["text"]} == {
        "OFC/P 2-7"}
    read = read_all(Format.FPDB, write(Format.FPDB, [batch]))
    assert read.problems.is_empty(), read.problems.to_dicts()[:3]
    assert_frame_equal(comparable(read)[1], comparable(batch)[1])


def test_seats_follow_the_players_order_when_fpdb_3_has_none() -> None:
    hand = raw_hand()  # a native capture has no seat numbers
    hand["players"] = hand["players"][::-1]
    for player in hand["players"]:
        player["seat_idx"] = None
    seats = read_all(Format.FPDB, lines(hand)).seats
    assert seats.select("seat", "player").rows() == [(0, "bob"), (1, "alice")]


def test_empty_slots_and_tens_as_swc_writes_them() -> None:
    envelope = json.loads(ENVELOPE)
    final = envelope["steps"][-1]["placed"]
    final["alice"]["top"] = ["10c", "--", "10d"]  # a board cut short: two of three
    final["bob"]["top"] = ["10h", "10s", "5s"]
    batch = read_all(Format.FPDB, json.dumps(envelope).encode())
    alice, bob = batch.seats.rows(named=True)
    assert (alice["top"], bob["top"]) == ("Tc Td", "Th Ts 5s")
    assert alice["top_3"] == -1  # stored as it is; the scorer counts it as fouled


def test_fantasyland_is_told_by_a_whole_board_laid_at_once() -> None:
    hand = clean_hand()
    alice = hand["players"][0]
    board = [*alice["top"], *alice["middle"], *alice["bottom"]]
    bob = [entry for entry in hand["rounds"] if entry["player"] == "bob"]

    def fantasyland(dealt: list[str], discarded: list[str]) -> dict[str, Any]:
        # alice is dealt her cards at once (a snapshot of them), then lays all 13.
        return {**hand, "rounds": [
            {"round": 1, "player": "alice", "dealt": dealt, "placed": {}, "discarded": []},
            bob[0],
            {"round": 3, "player": "alice", "dealt": [], "discarded": discarded,
             "placed": {"top": alice["top"], "middle": alice["middle"],
                        "bottom": alice["bottom"]}}, bob[1]]}

    seen = read_all(Format.FPDB, lines(fantasyland([*board, "Ks", "Kh"], ["Ks", "Kh"])))
    assert seen.problems.is_empty(), seen.problems.to_dicts()
    row = seen.seats.row(0, named=True)
    assert (row["in_fantasyland"], row["fl_cards"], row["discards"]) == (True, 15, "Ks Kh")
    assert not seen.seats.row(1, named=True)["in_fantasyland"]
    assert seen.streets.filter(pl.col("seat") == 0)["street"].unique().to_list() == [1]
    unseen = read_all(Format.FPDB, lines(fantasyland([], [])))  # discards not captured
    assert unseen.seats.select("in_fantasyland", "fl_cards").row(0) == (True, None)
    classic = fantasyland([], [])
    classic["variant"] = {"variant": "ofc", "pineapple": False}
    assert read_all(Format.FPDB, lines(classic)).seats["fl_cards"][0] == 13


def test_earlier_ofc_stats_exports_still_read() -> None:
    # "active": true/false, points_settled a number, rounds numbered by street, and
    # ofc-stats' own extensions on a player.
    old = {
        "site": "PokerStars", "hand_id": "h1", "table_id": "Hydra II",
        "timestamp": "2026-03-01T20:15:00+01:00",
        "variant": {"variant": "ofc", "pineapple": True, "deuce_to_seven": False},
        "players": [
            {"name": "Ivey", "seat_idx": 1, "starting_stack": 150.5, "top": ["6s", "6c", "4h"],
             "middle": ["Td", "Ts", "9c", "Qs", "8c"], "bottom": ["3h", "3d", "3s", "2h", "2d"],
             "active": True, "points": 4, "collected": 1, "royalties": 7,
             "in_fantasyland": False, "discards": ["2c"]},
            {"name": "Hellmuth", "seat_idx": 2, "top": ["Ah", "Kd", "Qd"],
             "middle": ["9h", "9d", "5h", "5d", "4c"], "bottom": ["Ks", "Js", "9s", "8s", "7s"],
             "active": True, "points": -4, "in_fantasyland": True, "fl_cards": 14},
            {"name": "Dwan", "seat_idx": 3, "top": [], "middle": [], "bottom": [],
             "active": False}],
        "rounds": [
            {"round": 1, "player": "Ivey", "dealt": ["6s", "Td", "Ts", "3h", "3d"],
             "placed": {"top": ["6s"], "middle": ["Td", "Ts"], "bottom": ["3h", "3d"]},
             "discarded": []},
            {"round": 2, "player": "Ivey", "dealt": ["6c", "9c", "2c"],
             "placed": {"top": ["6c"], "middle": ["9c"], "bottom": []}, "discarded": ["2c"]}],
        "result": {"points_settled": 4}}
    batch = read_all(Format.FPDB, json.dumps(old, indent=2).encode())
    assert batch.problems.is_empty(), batch.problems.to_dicts()
    ivey, hellmuth = batch.seats.rows(named=True)
    assert (ivey["seat"], ivey["reported_points"], ivey["reported_royalties"],
            ivey["starting_stack"], ivey["collected"]) == (1, 4, 7, Decimal("150.5"), 1)
    assert (hellmuth["in_fantasyland"], hellmuth["fl_cards"]) == (True, 14)
    assert batch.hands["started_at"][0] == dt.datetime(2026, 3, 1, 19, 15, tzinfo=dt.UTC)
    assert batch.streets.group_by("street").agg(pl.len()).sort("street").rows() == [
        (1, 5), (2, 3)]


# -- containers and damage ------------------------------------------------------------


def numbered_hands(count: int) -> list[dict[str, Any]]:
    """The fixture's hand ``count`` times, numbered 1, 2, ..."""
    hands = []
    for number in range(1, count + 1):
        hand = raw_hand()
        hand["hand_id"] = number
        hands.append(hand)
    return hands


# A hand on one line is about 3,900 bytes: chunks of one line, of two, and of all.
@pytest.mark.parametrize("chunk_bytes", [700, 9_000, 1 << 20])
@pytest.mark.parametrize("layout", [
    "pretty list", "one-line list", "list of lines", "json lines", "crlf lines", "objects",
    "lines around a pretty object", "blank lines"])
def test_every_container_reads_the_same_hands(layout: str, chunk_bytes: int) -> None:
    hands = numbered_hands(5)
    compact = [json.dumps(h) for h in hands]
    data = {
        "pretty list": json.dumps(hands, indent=2),
        "one-line list": json.dumps(hands),
        # Each hand a line of its own, the last one "{...}" as any line of hands is,
        # but inside the list.
        "list of lines": "[\n" + ",\n".join(compact) + "\n]\n",
        "json lines": "\n".join(compact) + "\n",
        "crlf lines": "\r\n".join(compact) + "\r\n",
        "objects": "\n".join(json.dumps(h, indent=1) for h in hands),
        # Read by lines until the pretty-printed one, which spans chunks.
        "lines around a pretty object": "\n".join(
            [*compact[:2], json.dumps(hands[2], indent=1), *compact[3:]]) + "\n",
        "blank lines": "\n\n".join(compact) + "\n\n",
    }[layout].encode()
    batches = read_batches(Format.FPDB, data, chunk_bytes=chunk_bytes, batch_hands=2)
    assert [h for b in batches for h in b.batch.hands["hand_id"].to_list()] == [
        "1", "2", "3", "4", "5"]
    assert batches[-1].end_offset == len(data)
    assert all(set(b.batch.problems["kind"]) <= {"streets"} for b in batches)
    found = [line for b in batches for line in b.batch.hands["source_line"].to_list()]
    starts = [m.start() for m in re.finditer(rb'\{\s*"hand_id"', data)]
    if layout == "one-line list":  # a list on one line: hands are found by byte offset
        assert found == starts
    else:
        assert found == [data.count(b"\n", 0, start) + 1 for start in starts]


@pytest.mark.parametrize(("edit", "kind", "reason"), [
    (lambda hand: hand["players"][1].update(top=["Ah", "Kd", "Zz"]), "card", "bad card 'Zz'"),
    (lambda hand: hand["players"][1].update(top=["2c", "5h", "5s"]), "duplicate card",
     "duplicate card 2c"),
    (lambda hand: hand.update(timestamp="yesterday"), "timestamp", "bad timestamp 'yesterday'"),
    (lambda hand: hand["rounds"][0].update(player="Dwan"), "syntax",
     "a round names 'Dwan', who is not an active player"),
    (lambda hand: hand["players"][0].update(seat_idx="first"), "syntax", "bad seat_idx 'first'"),
    (lambda hand: hand["result"]["points_settled"].update(alice="five"), "syntax",
     "bad points 'five'"),
])
def test_a_bad_hand_in_a_list_is_set_aside(edit: Any, kind: str, reason: str) -> None:
    good = [raw_hand(), raw_hand()]
    good[0]["hand_id"], good[1]["hand_id"] = 1, 3
    bad = copy.deepcopy(raw_hand())
    bad["hand_id"] = 2
    edit(bad)
    items = [json.dumps(hand, indent=1) for hand in (good[0], bad, good[1])]
    text = "[\n" + ",\n".join(items) + "\n]\n"
    batch = read_all(Format.FPDB, text.encode())
    assert batch.hands["hand_id"].to_list() == ["1", "3"]
    line = text.count("\n", 0, text.index(items[1])) + 1
    assert_problem(batch.problems.filter(pl.col("kind") != "streets"), kind, reason, line=line)


@pytest.mark.parametrize("separator", ["", " ", ",", "\t,\t"])
def test_objects_sharing_a_line_are_each_read(separator: str) -> None:
    first, second, third = (json.dumps(h) for h in numbered_hands(3))
    for data in ((first + separator + second + "\n" + third + "\n").encode(),
                 (third + "\n" + first + separator + second + "\n").encode()):
        batch = read_all(Format.FPDB, data)
        assert batch.problems.filter(pl.col("kind") != "streets").is_empty()
        lines = dict(zip(batch.hands["hand_id"], batch.hands["source_line"], strict=True))
        assert lines["1"] == lines["2"] == 1 + data.startswith(third.encode())
    # At the end of the file without a newline, as a writer leaves them.
    batch = read_all(Format.FPDB, (first + separator + second).encode())
    assert sorted(batch.hands["hand_id"]) == ["1", "2"]


def test_a_line_of_hands_cut_short_after_a_brace_waits_for_the_rest() -> None:
    first, second = (json.dumps(h) for h in numbered_hands(2))
    cut = second.index("]}") + 2  # the part written ends with "}" as a whole hand does
    data = (first + "\n" + second[:cut]).encode()
    batches = read_batches(Format.FPDB, data)
    assert [h for b in batches for h in b.batch.hands["hand_id"].to_list()] == ["1"]
    assert_problem(batches[-1].batch.problems, "truncated", "ends inside this hand", line=2)
    assert batches[-1].end_offset == len(first) + 1
    # Once it is complete, reading on from there gives the second hand alone.
    whole = (first + "\n" + second + "\n").encode()
    resumed = read_all(Format.FPDB, whole, start_offset=len(first) + 1)
    assert resumed.hands["hand_id"].to_list() == ["2"]
    assert resumed.hands["source_line"].to_list() == [2]


def test_a_line_of_bad_json_among_hands_is_set_aside_alone() -> None:
    first, second, third = (json.dumps(h) for h in numbered_hands(3))
    data = (first + "\n" + second.replace('"players"', '"players" "', 1) + "\n" + third
            + "\n").encode()
    batch = read_all(Format.FPDB, data, chunk_bytes=9_000)
    assert batch.hands["hand_id"].to_list() == ["1", "3"]
    assert_problem(batch.problems, "syntax", "invalid JSON", line=2)


def test_invalid_json_and_a_list_cut_short() -> None:
    text = json.dumps([raw_hand(), raw_hand()], indent=1)
    cut = text.rindex('"players"') + 40
    batches = read_batches(Format.FPDB, text[:cut].encode())
    assert batches[0].batch.hands["hand_id"].to_list() == ["777001"]
    assert_problem(batches[-1].batch.problems, "truncated", "ends inside this hand")
    assert batches[-1].end_offset == text.index("},\n {") + 4  # where the second starts
    broken = read_all(Format.FPDB, b'{"site": "SealsWithClubs", "hand_id": 1 "players": []}\n')
    assert_problem(broken.problems, "syntax", "invalid JSON")


def test_text_between_hands_is_reported() -> None:
    data = (json.dumps(raw_hand()) + "\n# exported 2026-03-01\n" + json.dumps(raw_hand())
            + "\n").encode()
    batch = read_all(Format.FPDB, data)
    assert_problem(batch.problems, "syntax", "text between hands", line=2)


def test_sniff_and_the_writer_registered(realistic: CanonicalBatch) -> None:
    assert READER.sniff(b"SQLite format 3\x00" + bytes(84)) == 100  # its database
    assert READER.sniff(b'{"format": "ofc-hh", "version": 1}') == 0
    data = write(Format.FPDB, [realistic])
    assert READER.sniff(data[:65536]) >= 90
    assert data == b"".join(line.encode() + b"\n" for line in raw_json_lines(realistic))
    assert get_writer("fpdb").format is Format.FPDB


def test_card_codes_read_swc_tens() -> None:
    assert card_codes(pl.Series(["10h", "Th"])).to_list()[0] == card_codes(
        pl.Series(["Th"])).to_list()[0]


def test_a_database_read_as_a_stream_is_one_problem(tmp_path: Path) -> None:
    from ofc_stats.formats.fpdb_database import write_database

    write_database([simulated(20, seed=3)], tmp_path / "fpdb.db3")
    batch = read_all(Format.FPDB, (tmp_path / "fpdb.db3").read_bytes(), name="fpdb.db3")
    assert batch.hands.is_empty()
    assert_problem(batch.problems, "format", "read in place from its path", file="fpdb.db3")
