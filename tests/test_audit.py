"""`ofc-stats audit`: mis-scored hands, broken Fantasyland chains, impossible boards."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from ofc_stats.analysis.audit import NotScoredError, audit_warehouse
from ofc_stats.analysis.score import score_warehouse
from ofc_stats.formats.canonical import problems_frame
from ofc_stats.warehouse import PendingFile
from tests.builders import ENTRY_QQ, NOTHING_1, NOTHING_2, Hand, Seat, store


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
