"""Validation and conversion of raw hands into canonical records."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import polars as pl
import pytest

from ofc_stats.formats.canonical import CanonicalBatch, normalise, problems_frame
from ofc_stats.warehouse.schemas import (
    HANDS_SCHEMA,
    PROBLEM_KINDS,
    PROBLEMS_SCHEMA,
    SEATS_SCHEMA,
    STREETS_SCHEMA,
)

IVEY = ("6s 6c 4h", "Td Ts 9c Qs 8c", "3h 3d 3s 2h 2d")
HELLMUTH = ("Ah Kd Qd", "9h 9d 5h 5d 4c", "Ks Js 9s 8s 7s")


def raw_hand(record: int, **fields: object) -> dict[str, object]:
    hand: dict[str, object] = {
        "record": record, "line": record * 10 + 1, "raw": f"raw text {record}",
        "site": "home", "hand_id": f"h{record}", "table": "kitchen",
        "started_at": "2026-03-01T20:15:00+01:00", "variant": "pineapple",
        "point_value": "0.25",
    }
    hand.update(fields)
    return hand


def raw_seat(record: int, seat: int, player: str, rows: tuple[str, str, str],
             **fields: object) -> dict[str, object]:
    top, middle, bottom = (row.split() for row in rows)
    return {"record": record, "seat": seat, "player": player, "top": top, "middle": middle,
            "bottom": bottom, **fields}


def run(hands: list[dict[str, object]], seats: list[dict[str, object]],
        streets: list[dict[str, object]] | None = None) -> CanonicalBatch:
    return normalise(pl.DataFrame(hands), pl.DataFrame(seats),
                     pl.DataFrame(streets) if streets else None, "session.jsonl")


def test_a_good_hand_becomes_canonical_records() -> None:
    batch = run([raw_hand(0, button_seat=2, currency="EUR")],
                [raw_seat(0, 1, "Ivey", IVEY, discards=["2c", "7d"], reported_points=4),
                 raw_seat(0, 2, "Hellmuth", HELLMUTH, in_fantasyland=True, fl_cards=14)],
                [{"record": 0, "seat": 1, "street": 1, "action": "place", "row": "top",
                  "card": "6s"},
                 {"record": 0, "seat": 1, "street": 2, "action": "discard", "row": None,
                  "card": "2c"}])
    assert batch.problems.is_empty()
    hand = batch.hands.row(0, named=True)
    assert hand["started_at"] == dt.datetime(2026, 3, 1, 19, 15, tzinfo=dt.UTC)
    assert hand["utc_offset_minutes"] == 60
    assert hand["point_value"] == Decimal("0.25")
    assert (hand["players"], hand["has_streets"], hand["button_seat"]) == (2, True, 2)
    assert (hand["source_file"], hand["source_line"]) == ("session.jsonl", 1)
    assert len(hand["content_hash"]) == 32
    ivey, hellmuth = batch.seats.rows(named=True)
    assert (ivey["top_1"], ivey["top_2"], ivey["top_3"]) == (19, 16, 10)
    assert (ivey["top"], ivey["discards"], ivey["reported_points"]) == ("6s 6c 4h", "2c 7d", 4)
    assert (hellmuth["in_fantasyland"], hellmuth["fl_cards"]) == (True, 14)
    assert batch.streets.select("action", "row", "card", "action_order").rows() == [
        ("place", "top", 19, 0), ("discard", None, 0, 1)]
    assert batch.hands.schema == HANDS_SCHEMA
    assert batch.seats.schema == SEATS_SCHEMA
    assert batch.streets.schema == STREETS_SCHEMA


@pytest.mark.parametrize(
    ("text", "utc", "offset"),
    [
        ("2026-03-01T20:15:00+01:00", dt.datetime(2026, 3, 1, 19, 15), 60),
        ("2026-03-01T20:15:00.250-05:30", dt.datetime(2026, 3, 2, 1, 45, 0, 250_000), -330),
        ("2026-03-01T20:15:00Z", dt.datetime(2026, 3, 1, 20, 15), 0),
        ("2026-03-01 20:15", dt.datetime(2026, 3, 1, 20, 15), None),  # naive: taken as UTC
        ("2026-03-01T20:15:00+0200", dt.datetime(2026, 3, 1, 18, 15), 120),
    ],
)
def test_timestamps_are_stored_in_utc_with_the_original_offset(
        text: str, utc: dt.datetime, offset: int | None) -> None:
    batch = run([raw_hand(0, started_at=text)],
                [raw_seat(0, 1, "Ivey", IVEY), raw_seat(0, 2, "Hellmuth", HELLMUTH)])
    hand = batch.hands.row(0, named=True)
    assert hand["started_at"] == utc.replace(tzinfo=dt.UTC)
    assert hand["utc_offset_minutes"] == offset


@pytest.mark.parametrize(
    ("hand_fields", "seat_changes", "kind", "reason"),
    [
        ({"error": "unterminated string"}, {}, "syntax", "unterminated string"),
        ({"hand_id": None}, {}, "missing field", "missing hand_id"),
        ({"table": ""}, {}, "missing field", "missing table"),
        ({"variant": "omaha"}, {}, "variant", "unknown variant 'omaha'"),
        ({"started_at": "yesterday"}, {}, "timestamp", "bad timestamp 'yesterday'"),
        ({"started_at": "2026-02-30T10:00:00Z"}, {}, "timestamp", "bad timestamp"),
        ({"point_value": "1,5"}, {}, "money", "bad point value '1,5'"),
        ({}, {"top": ["Ah", "Kd", "Zz"]}, "card", "bad card 'Zz' (seat 2 top)"),
        ({}, {"top": ["Ah", "Kd", "Xj"]}, "card", "joker 'Xj' (seat 2 top)"),
        ({}, {"middle": ["9h", "9d", "5h", "5d", "4c", "3c"]}, "row size",
         "wrong row size: seat 2 middle has 6 cards (holds 5)"),
        ({}, {"top": ["Ah", "Kd", "6s"]}, "duplicate card",
         "duplicate card 6s (seat 1 top, seat 2 top)"),
        ({}, {"discards": ["3h"]}, "duplicate card", "duplicate card 3h"),
        ({}, {"seat": 1}, "seat", "two players in the same seat"),
        ({}, {"player": "Ivey"}, "seat", "the same player in two seats"),
    ],
)
def test_bad_hands_are_set_aside_with_a_precise_reason(
        hand_fields: dict[str, object], seat_changes: dict[str, object], kind: str,
        reason: str) -> None:
    second = raw_seat(1, 2, "Hellmuth", HELLMUTH)
    second.update(seat_changes)
    batch = run([raw_hand(0), raw_hand(1, **hand_fields), raw_hand(2)],
                [raw_seat(0, 1, "Ivey", IVEY), raw_seat(0, 2, "Hellmuth", HELLMUTH),
                 raw_seat(1, 1, "Ivey", IVEY), second,
                 raw_seat(2, 1, "Ivey", IVEY), raw_seat(2, 2, "Hellmuth", HELLMUTH)])
    assert batch.hands["hand_id"].to_list() == ["h0", "h2"]  # the good hands around it
    assert batch.seats["hand_id"].to_list() == ["h0", "h0", "h2", "h2"]
    problem = batch.problems.row(0, named=True)
    assert batch.problems.height == 1
    assert problem["kind"] == kind
    assert problem["kind"] in PROBLEM_KINDS
    assert reason in problem["reason"]
    assert (problem["file"], problem["line"], problem["raw"]) == (
        "session.jsonl", 11, "raw text 1")
    assert batch.problems.schema == PROBLEMS_SCHEMA


@pytest.mark.parametrize(("variant", "players", "ok"),
                         [("classic", 4, True), ("pineapple", 4, False), ("classic", 1, False)])
def test_player_counts_follow_the_variant(variant: str, players: int, ok: bool) -> None:
    deck = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
    boards = [(" ".join(deck[i:i + 3]), " ".join(deck[i + 3:i + 8]), " ".join(deck[i + 8:i + 13]))
              for i in range(0, 52, 13)]
    seats = [raw_seat(0, seat + 1, f"p{seat}", boards[seat]) for seat in range(players)]
    batch = run([raw_hand(0, variant=variant)], seats)
    assert batch.hands.height == int(ok)
    if not ok:
        assert batch.problems["kind"].to_list() == ["players"]


def test_an_incomplete_board_is_kept_for_the_scorer_to_flag() -> None:
    batch = run([raw_hand(0)], [raw_seat(0, 1, "Ivey", ("6s 6c", *IVEY[1:])),
                                raw_seat(0, 2, "Hellmuth", HELLMUTH)])
    assert batch.problems.is_empty()
    assert batch.seats.select("top_1", "top_2", "top_3").row(0) == (19, 16, -1)
    assert batch.seats["top"].to_list()[0] == "6s 6c"


def test_variant_names_and_card_spellings_are_normalised() -> None:
    batch = run([raw_hand(0, variant="Progressive Pineapple")],
                [raw_seat(0, 1, "Ivey", ("6♠ 6♣ 4♥", "10d ts 9C Qs 8c", IVEY[2])),
                 raw_seat(0, 2, "Hellmuth", HELLMUTH)])
    assert batch.hands["variant"].to_list() == ["progressive"]
    assert batch.seats["top"].to_list()[0] == "6s 6c 4h"
    assert batch.seats["middle"].to_list()[0] == "Td Ts 9c Qs 8c"


def test_content_hash_is_stable_and_ignores_reported_figures() -> None:
    seats = [raw_seat(0, 1, "Ivey", IVEY), raw_seat(0, 2, "Hellmuth", HELLMUTH)]
    base = run([raw_hand(0)], seats).hands["content_hash"][0]
    # A fixed value: changing what the identity covers breaks every stored warehouse.
    assert base == run([raw_hand(0)], seats).hands["content_hash"][0]
    reported = [dict(seat, reported_points=9) for seat in seats]
    assert run([raw_hand(0, point_value="5")], reported).hands["content_hash"][0] == base
    moved = [seats[0], raw_seat(0, 2, "Hellmuth", ("Ah Kd Qd", HELLMUTH[2], HELLMUTH[1]))]
    assert run([raw_hand(0)], moved).hands["content_hash"][0] != base


def test_problems_outside_hands_use_the_same_schema() -> None:
    frame = problems_frame("broken.txt", [
        {"line": 40, "kind": "truncated", "reason": "file ends inside a hand", "raw": "Hand #"}])
    assert frame.schema == PROBLEMS_SCHEMA
    assert frame.row(0) == ("broken.txt", 40, None, None, "truncated",
                            "file ends inside a hand", "Hand #")


def test_concat_and_empty_batches() -> None:
    empty = CanonicalBatch.empty()
    assert empty.hands.schema == HANDS_SCHEMA
    both = CanonicalBatch.concat([empty, empty])
    assert both.seats.is_empty()


# --- the rooms' other games: jokers, two decks, 2-7, money -------------------------------

JOKER_BOARD = ("Xj 3d 2c", "6h 6c 6d 7d 8d", "Tc Jc Qc Kc Joker")


@pytest.mark.parametrize(
    ("variant", "seats", "kind", "reason"),
    [
        ("joker-pineapple", [JOKER_BOARD, HELLMUTH], None, None),
        ("pineapple", [JOKER_BOARD, HELLMUTH], "card", "in a variant without jokers"),
        ("joker-ultimate", [JOKER_BOARD, ("JK 3h 4h", "7h 7c Qs 4s 5s", "Jh 9h 8h 2h Ah")],
         "duplicate card", "3 jokers (seat 1 top, seat 2 top, seat 1 bottom): more than"),
        ("double-deck", [IVEY, IVEY], None, None),
        ("double-deck", [IVEY, IVEY, ("6s 7c 8h", "Jd Js 9h Qh 8d", "As Ad Ac Kd Kh")],
         "duplicate card", "duplicate card 6s (seat 1 top, seat 2 top, seat 3 top)"),
        ("classic", [IVEY, IVEY], "duplicate card", "duplicate card"),
    ],
)
def test_jokers_and_two_decks_are_checked_as_their_deck_allows(
        variant: str, seats: list[tuple[str, str, str]], kind: str | None,
        reason: str | None) -> None:
    batch = run([raw_hand(0, variant=variant)],
                [raw_seat(0, seat, f"p{seat}", rows) for seat, rows in enumerate(seats, 1)])
    if kind is None:
        assert batch.problems.is_empty(), batch.problems.to_dicts()
        assert batch.hands["variant"].to_list() == [variant]
        return
    assert batch.problems.select("kind").to_series().to_list() == [kind]
    assert reason in batch.problems["reason"][0]


@pytest.mark.parametrize(("written", "variant"), [
    ("Joker Ultimate Pineapple OFC", "joker-ultimate"), ("2-7 Pineapple OFC", "deuce-to-seven"),
    ("ofcp_27", "deuce-to-seven"), ("Double Deck OFC", "double-deck"),
    ("double deck pineapple", "double-deck-pineapple"), ("joker progressive", "joker-progressive"),
])
def test_the_new_games_names(written: str, variant: str) -> None:
    batch = run([raw_hand(0, variant=written)],
                [raw_seat(0, 1, "Ivey", IVEY), raw_seat(0, 2, "Hellmuth", HELLMUTH)])
    assert batch.hands["variant"].to_list() == [variant]


def test_double_deck_seats_up_to_eight_players() -> None:
    boards = [("2c 3c 4c", "5c 6c 7c 8c 9c", "Tc Jc Qc Kc Ac"),
              ("2d 3d 4d", "5d 6d 7d 8d 9d", "Td Jd Qd Kd Ad"),
              ("2h 3h 4h", "5h 6h 7h 8h 9h", "Th Jh Qh Kh Ah"),
              ("2s 3s 4s", "5s 6s 7s 8s 9s", "Ts Js Qs Ks As")] * 2
    seats = [raw_seat(0, seat, f"p{seat}", rows) for seat, rows in enumerate(boards, 1)]
    assert run([raw_hand(0, variant="double-deck")], seats).problems.is_empty()
    ninth = [*seats, raw_seat(0, 9, "p9", IVEY)]
    problems = run([raw_hand(0, variant="double-deck")], ninth).problems
    assert problems["reason"].to_list() == ["9 players in a double-deck hand (allowed 2-8)"]


def test_reported_money_is_kept_exact() -> None:
    batch = run([raw_hand(0)], [raw_seat(0, 1, "Ivey", IVEY, starting_stack="150.5",
                                         reported_money="-12.25"),
                                raw_seat(0, 2, "Hellmuth", HELLMUTH, reported_money=12.25)])
    assert batch.seats["reported_money"].to_list() == [Decimal("-12.25"), Decimal("12.25")]


@pytest.mark.parametrize(("fields", "reason"), [
    ({"starting_stack": "lots"}, "bad money 'lots' (seat 1 starting_stack)"),
    ({"reported_money": "1,50"}, "bad money '1,50' (seat 1 reported_money)"),
    ({"collected": "NaN"}, "bad money 'NaN' (seat 1 collected)"),
    ({"starting_stack": "-5"}, "negative stack '-5' (seat 1)"),
])
def test_money_a_seat_records_must_be_money(fields: dict[str, object], reason: str) -> None:
    batch = run([raw_hand(0)], [raw_seat(0, 1, "Ivey", IVEY, **fields),
                                raw_seat(0, 2, "Hellmuth", HELLMUTH)])
    assert batch.problems.select("kind", "reason").rows() == [("money", reason)]
