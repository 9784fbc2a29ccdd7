"""`ofc-stats audit`: mis-scored hands, broken Fantasyland chains, impossible boards."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from ofc_stats.analysis.audit import NotScoredError, audit_warehouse
from ofc_stats.analysis.score import score_warehouse
from ofc_stats.formats.canonical import problems_frame
from ofc_stats.warehouse import PendingFile
from tests.builders import (
    ENTRY_QQ,
    NOTHING_1,
    NOTHING_2,
    Hand,
    Seat,
    store,
    to_layout_before_money,
)


def test_reported_points_and_royalties_that_disagree_are_found_with_boards(
        tmp_path: Path) -> None:
    hands = [
        # Right: ENTRY_QQ scoops NOTHING_2, 6 + royalties 9 (QQ 7, straight 2).
        Hand("g-1", [Seat("alice", ENTRY_QQ, reported_points=15, reported_royalties=9),
                     Seat("bob", NOTHING_2, reported_points=-15, reported_royalties=0)]),
        # A room that forgot the scoop bonus; and one that forgot the straight royalty.
        Hand("g-2", [Seat("alice", ENTRY_QQ, True, 14, reported_points=12,
                          reported_royalties=7),
                     Seat("bob", NOTHING_2, reported_points=-12, reported_royalties=0)],
             minute=1),
        Hand("g-3", [Seat("alice", NOTHING_1), Seat("bob", NOTHING_2)], minute=2),
    ]
    warehouse = store(tmp_path, hands)
    score_warehouse(warehouse)
    report = audit_warehouse(warehouse)
    errors = report.findings.filter(pl.col("severity") == "error")
    assert errors.select("kind", "hand_id", "player").rows() == [
        ("points", "g-2", "alice, bob"), ("royalties", "g-2", "alice")]
    points = errors.row(0, named=True)
    assert (points["ours"], points["reported"]) == ("alice +15, bob -15", "alice +12, bob -12")
    assert points["boards"] == ("alice: Qs Qh 2s / Ks Kh 4s 4h 3s / 9s 8h 7s 6h 5s; "
                                "bob: 2c 3c 4c / 8c 8d 6c 7c 9c / Tc Td Jc Jd Qc")
    assert report.summary.select("kind", "site", "count").rows() == [
        ("points", "home", 1), ("royalties", "home", 1)]
    assert report.errors == 2


def test_impossible_boards_from_rejects_and_from_the_scorer(tmp_path: Path) -> None:
    short = ("Qs Qh", *ENTRY_QQ[1:])
    warehouse = store(tmp_path, [Hand("g-1", [Seat("alice", short), Seat("bob", NOTHING_2)])])
    with warehouse.writing():
        warehouse.commit([PendingFile("rejects", problems_frame("night.txt", [
            {"line": 12, "site": "home", "hand_id": "g-9", "kind": "duplicate card",
             "reason": "duplicate card 6s (seat 1 top, seat 2 top)", "raw": "..."},
            {"line": 40, "kind": "truncated", "reason": "file ends inside a hand"}]))],
            action="ingest")
    score_warehouse(warehouse)
    findings = audit_warehouse(warehouse).findings
    assert findings.select("kind", "hand_id", "detail", "source").rows() == [
        ("impossible", "g-1", "incomplete board (top has 2 of 3)", None),
        ("impossible", "g-9", "duplicate card 6s (seat 1 top, seat 2 top)", "night.txt:12"),
    ]


def test_audit_scores_what_is_not_scored_first(tmp_path: Path) -> None:
    hands = [Hand("g-1", [Seat("alice", ENTRY_QQ), Seat("bob", NOTHING_2)])]
    unscored = store(tmp_path / "unscored", hands)
    with pytest.raises(NotScoredError, match="run 'ofc-stats score' first"):
        audit_warehouse(unscored, score=False)
    report = audit_warehouse(unscored)
    assert report.coverage is not None
    assert report.coverage.scored_now == 1
    assert report.coverage.complete


def test_money_the_room_paid_is_checked_against_the_table_stakes_cap(tmp_path: Path) -> None:
    # ENTRY_QQ scoops NOTHING_2 for 15 points at $1: bob sat with $10, so he pays $10.
    def hand(hand_id: str, alice: str, bob: str, minute: int) -> Hand:
        return Hand(hand_id, [Seat("alice", ENTRY_QQ, starting_stack="100", reported_money=alice),
                              Seat("bob", NOTHING_2, starting_stack="10", reported_money=bob)],
                    minute=minute, extra={"point_value": "1", "currency": "USD"})

    warehouse = store(tmp_path, [hand("g-1", "10", "-10", 0),
                                 hand("g-2", "15", "-15", 1),  # the room ignored the cap
                                 hand("g-3", "10.00", "-10.00", 2)])
    score_warehouse(warehouse)
    scored = warehouse.scan("player_hands", "default").sort("hand_id", "seat").collect()
    assert scored.select("hand_id", "money_capped", "capped").rows()[:2] == [
        ("g-1", Decimal(10), True), ("g-1", Decimal(-10), True)]
    errors = audit_warehouse(warehouse).findings.filter(pl.col("kind") == "money")
    assert errors.select("hand_id", "player", "ours", "reported").rows() == [
        ("g-2", "alice, bob", "alice +10.00, bob -10.00", "alice +15.00, bob -15.00")]


def test_a_warehouse_from_before_money_is_upgraded_and_scored(tmp_path: Path) -> None:
    warehouse = store(tmp_path, [Hand("g-1", [Seat("alice", ENTRY_QQ, starting_stack="5"),
                                              Seat("bob", NOTHING_2, starting_stack="5")],
                                      extra={"point_value": "0.5"})])
    to_layout_before_money(warehouse)
    score_warehouse(warehouse)
    seats = warehouse.scan("seats").collect()
    assert seats["point_value"].to_list() == [Decimal("0.5")] * 2
    assert seats["reported_money"].null_count() == 2
    scored = warehouse.scan("player_hands", "default").sort("seat").collect()
    assert scored["money"].to_list() == [Decimal("7.5"), Decimal("-7.5")]
    assert scored["money_capped"].to_list() == [Decimal(5), Decimal(-5)]


def test_a_warehouse_two_layouts_old_is_upgraded_in_one_rewrite(tmp_path: Path) -> None:
    from tests.builders import to_nested_board_layout

    warehouse = store(tmp_path, [Hand("g-1", [Seat("alice", ENTRY_QQ), Seat("bob", NOTHING_2)],
                                      extra={"point_value": "2"})])
    to_layout_before_money(warehouse)
    to_nested_board_layout(warehouse)  # the board as one column, and no money columns
    before = len(warehouse.commits())
    score_warehouse(warehouse)
    upgrades = [c for c in warehouse.commits()[before:] if c.get("action") == "upgrade"]
    assert len(upgrades) == 1
    seats = warehouse.scan("seats").collect()
    assert "cards" not in seats.columns
    assert seats["point_value"].to_list() == [Decimal(2)] * 2
    scored = warehouse.scan("player_hands", "default").sort("seat").collect()
    assert scored["money"].to_list() == [Decimal(30), Decimal(-30)]


@pytest.mark.parametrize(("numbers", "gaps"), [
    # Lost six hands of 17, one at a time: more steps of two than of one, but it holds
    # most of the numbers it spans (steps 1.6 on average), so every jump is a gap.
    ([1, 2, 4, 5, 7, 8, 10, 12, 13, 15, 17], [4, 7, 10, 12, 15, 17]),
    # Steps of two and three: a counter other tables share, not hands lost.
    ([1, 3, 6, 8, 11, 13, 16, 18, 21, 23, 26], []),
    # A busy room's counter, which stepped by one once.
    ([1, 5, 6, 12, 20, 23, 30, 38, 41, 50, 57], []),
    # Mostly steps of one: its own counter, which jumped once, far (a long jump counts
    # as ten in the average, and the median says it anyway).
    ([1, 2, 3, 4, 5, 6, 900, 901, 902, 903, 904], [900]),
])
def test_a_long_table_tells_its_own_numbering_from_its_steps(
        tmp_path: Path, numbers: list[int], gaps: list[int]) -> None:
    warehouse = store(tmp_path, [Hand(f"g-{number:03d}", [Seat("alice", NOTHING_1),
                                                           Seat("bob", NOTHING_2)],
                                      minute=float(number)) for number in numbers])
    score_warehouse(warehouse)
    findings = audit_warehouse(warehouse).findings.filter(pl.col("kind") == "gap")
    assert findings["hand_id"].to_list() == [f"g-{number:03d}" for number in gaps]
