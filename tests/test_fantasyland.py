"""Fantasyland followed across hands at a table, against a history worked by hand."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ofc_stats.analysis.fantasyland import FL_ERRORS
from ofc_stats.analysis.score import score_warehouse
from tests.builders import (
    ENTRY_QQ,
    ENTRY_QQ_2,
    NOTHING_1,
    NOTHING_2,
    TRIPS_TOP,
    Hand,
    Seat,
)
from tests.builders import store as store_hands

CAROL = ("2h 3h 4d", "5h 5d 7h 7d 9d", "Ad Kd Qd 6d 3d")  # shares no card with the others

# (hand, minute, seats) for a pineapple table: FL entry QQ+ with 14 cards, stay on
# trips top or quads+ bottom, 14 again after a stay.
HISTORY = [
    ("t1-0001", 0, [Seat("alice", ENTRY_QQ), Seat("bob", NOTHING_2)]),
    ("t1-0002", 1, [Seat("alice", NOTHING_1, True, 14), Seat("bob", ENTRY_QQ_2)]),
    ("t1-0003", 2, [Seat("alice", TRIPS_TOP), Seat("bob", ENTRY_QQ_2)]),
    ("t1-0004", 3, [Seat("alice", TRIPS_TOP, True, 16), Seat("bob", NOTHING_2)]),
    ("t1-0005", 4, [Seat("alice", ENTRY_QQ, True, 14), Seat("bob", NOTHING_2, True, 14)]),
    ("t1-0006", 5, [Seat("alice", ENTRY_QQ), Seat("bob", NOTHING_2)]),
    # t1-0007 is missing from the history
    ("t1-0008", 7, [Seat("alice", NOTHING_1, True, 14), Seat("bob", NOTHING_2)]),
    ("t1-0009", 8, [Seat("alice", ENTRY_QQ), Seat("bob", NOTHING_2),
                    Seat("carol", CAROL, True, 14)]),
    ("t1-0010", 9, [Seat("bob", NOTHING_2), Seat("carol", CAROL)]),
    ("t1-0011", 200, [Seat("bob", NOTHING_2), Seat("carol", CAROL, True, 14)]),
]

# Only transitions with Fantasyland on one side are checked, plus one row per gap.
EXPECTED = {
    ("t1-0002", "alice"): "ok",
    # bob's QQ in 0002 earned Fantasyland; the record shows none.
    ("t1-0003", "bob"): "fl_missing",
    # alice entered with trips: 14 cards in pineapple, the record says 16. bob's 0004 is
    # right if he really played 0003 in Fantasyland (QQ does not stay): no second error.
    ("t1-0004", "alice"): "fl_cards", ("t1-0004", "bob"): "after_error",
    # alice stayed on trips (14 again); bob is in Fantasyland for nothing.
    ("t1-0005", "alice"): "ok", ("t1-0005", "bob"): "fl_unearned",
    # t1-0007 is missing: alice's Fantasyland in 0008 cannot be checked.
    ("t1-0008", "alice"): "gap", ("t1-0008", None): "gap",
    ("t1-0009", "carol"): "fl_unearned",
    # alice earned Fantasyland in 0009 and left.
    ("t1-0010", "alice"): "left_in_fantasyland",
    # three hours later: a new session, nothing to check.
    ("t1-0011", "carol"): "break",
}


def transitions(tmp_path: Path) -> pl.DataFrame:
    hands = [Hand(hand_id, seats, minute=minute) for hand_id, minute, seats in HISTORY]
    warehouse = store_hands(tmp_path, hands[:5], hands[5:])  # two ingest batches
    summary = score_warehouse(warehouse)
    assert summary.fl_errors == 4
    return warehouse.scan("fl_transitions").collect()


def test_every_transition_gets_the_hand_worked_status(tmp_path: Path) -> None:
    found = transitions(tmp_path)
    statuses = {(row["hand_id"], row["player"]): row["status"]
                for row in found.iter_rows(named=True)}
    assert statuses == EXPECTED


def test_errors_explain_themselves(tmp_path: Path) -> None:
    found = transitions(tmp_path).filter(pl.col("status").is_in(FL_ERRORS)).sort("hand_id")
    assert found.select("hand_id", "player", "expected_fl", "expected_cards", "recorded_fl",
                        "recorded_cards").rows() == [
        ("t1-0003", "bob", True, 14, False, None),
        ("t1-0004", "alice", True, 14, True, 16),
        ("t1-0005", "bob", False, None, True, 14),
        ("t1-0009", "carol", None, None, True, 14),
    ]
    assert found["reason"].to_list() == [
        "bob earned Fantasyland in t1-0002 (14 cards due) but played t1-0003 outside it",
        "alice was dealt 16 cards in Fantasyland in t1-0004, 14 due after t1-0003",
        "bob played t1-0005 in Fantasyland, but t1-0004 did not enter Fantasyland",
        "carol joined the table in Fantasyland in t1-0009",
    ]


def test_several_players_in_fantasyland_at_once_and_a_clean_chain(tmp_path: Path) -> None:
    hands = [
        Hand("t2-1", [Seat("alice", TRIPS_TOP), Seat("bob", ENTRY_QQ_2)], table="t2"),
        Hand("t2-2", [Seat("alice", TRIPS_TOP, True, 14), Seat("bob", NOTHING_2, True, 14)],
             table="t2", minute=1),
        Hand("t2-3", [Seat("alice", NOTHING_1, True, 14), Seat("bob", NOTHING_2)],
             table="t2", minute=2, variant="pineapple"),
        Hand("t2-4", [Seat("alice", NOTHING_1), Seat("bob", NOTHING_2)], table="t2",
             minute=3),
    ]
    warehouse = store_hands(tmp_path, hands)
    assert score_warehouse(warehouse).fl_errors == 0
    found = warehouse.scan("fl_transitions").collect()
    assert found.select("hand_id", "player", "status").sort("hand_id", "player").rows() == [
        ("t2-2", "alice", "ok"), ("t2-2", "bob", "ok"), ("t2-3", "alice", "ok")]
