"""Readers of results score what is not scored first, or say plainly how many stored
hands their numbers leave out: never a silent half."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from ofc_stats.analysis import coverage
from ofc_stats.analysis.audit import audit_warehouse
from ofc_stats.analysis.coverage import unscored_hands
from ofc_stats.analysis.score import score_warehouse
from ofc_stats.cli import app
from ofc_stats.db import player_stats
from ofc_stats.ingest import ingest
from ofc_stats.report import write_report
from ofc_stats.simulate import SimulationConfig, parse_faults
from ofc_stats.simulate.files import write_simulation
from ofc_stats.warehouse import Warehouse

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def two_rooms(tmp_path: Path) -> tuple[Warehouse, int]:
    """Room one ingested and scored; room two (with mis-scored hands) ingested only."""
    for site, seed in (("one", 1), ("two", 2)):
        write_simulation(SimulationConfig(seed=seed, hands=600, tables=2, site=site,
                                          faults=parse_faults("mis-scored=2")),
                         tmp_path / site, "jsonl")
    warehouse = Warehouse.open(tmp_path / "warehouse", create=True)
    ingest([tmp_path / "one"], warehouse)
    score_warehouse(warehouse)
    second = ingest([tmp_path / "two"], warehouse).hands_stored
    return warehouse, second


def test_audit_scores_the_new_room_first(two_rooms: tuple[Warehouse, int]) -> None:
    warehouse, second = two_rooms
    assert unscored_hands(warehouse).unscored == second
    report = audit_warehouse(warehouse)
    assert report.coverage is not None
    assert report.coverage.scored_now == second
    assert report.coverage.complete
    points = report.findings.filter(pl.col("kind") == "points")
    assert sorted(set(points["site"])) == ["one", "two"]  # the new room's faults too
    assert unscored_hands(warehouse).unscored == 0


def test_stats_and_report_cover_every_stored_hand(two_rooms: tuple[Warehouse, int],
                                                   tmp_path: Path) -> None:
    warehouse, _ = two_rooms
    stored = warehouse.scan("hands").select(pl.len()).collect().item()
    summary = write_report(warehouse, out=tmp_path / "r.html")
    assert summary.hands == stored
    assert summary.unscored == 0
    assert summary.scored_first > 0
    frame = player_stats(warehouse)
    seats = warehouse.scan("seats").select(pl.len()).collect().item()
    assert frame["hands"].sum() == seats


def test_readers_say_plainly_what_they_leave_out_when_they_cannot_score(
        two_rooms: tuple[Warehouse, int], monkeypatch: pytest.MonkeyPatch) -> None:
    warehouse, second = two_rooms
    monkeypatch.setattr(coverage, "SCORE_FIRST_WAIT", 0.2)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from ofc_stats.warehouse import Warehouse\n"
         "with Warehouse(sys.argv[1]).writing():\n print('held', flush=True); time.sleep(60)",
         str(warehouse.root)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        report = audit_warehouse(warehouse)
        assert report.coverage is not None
        assert report.coverage.unscored == second
        assert "another process is writing" in str(report.coverage.reason)
        runner = CliRunner()
        for command in (["audit", "--format", "csv"], ["stats", "--format", "csv"],
                        ["report", "--out", str(warehouse.root.parent / "r.html")],
                        ["query", "leaderboard", "--format", "csv"]):
            result = runner.invoke(app, [*command, "-w", str(warehouse.root)])
            assert result.exit_code == 0, (command, result.output)
            stored = second * 2
            assert (f"warning: {second:,} of {stored:,} stored hands are not scored"
                    in result.stderr), (command, result.stderr)
    finally:
        holder.kill()
        holder.communicate()


def test_query_says_so_and_never_scores(two_rooms: tuple[Warehouse, int]) -> None:
    warehouse, second = two_rooms
    result = CliRunner().invoke(app, ["query", "SELECT count(*) AS n FROM player_hands",
                                      "--format", "csv", "-w", str(warehouse.root)])
    assert result.exit_code == 0, result.output
    assert f"{second:,} of {second * 2:,} stored hands are not scored" in result.stderr
    assert "ofc-stats score" in result.stderr
    assert unscored_hands(warehouse).unscored == second  # still: query wrote nothing
