"""`ofc-stats score` and `ofc-stats audit` through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ofc_stats.cli import app
from tests.builders import ENTRY_QQ, NOTHING_1, NOTHING_2, Hand, Seat, store

runner = CliRunner()


def build(tmp_path: Path) -> Path:
    store(tmp_path, [
        Hand("c-1", [Seat("alice", ENTRY_QQ, reported_points=15),
                     Seat("bob", NOTHING_2, reported_points=-15)]),
        # alice earned Fantasyland in c-1 but plays c-2 outside it; bob is mis-scored.
        Hand("c-2", [Seat("alice", NOTHING_1, reported_points=1),
                     Seat("bob", NOTHING_2, reported_points=-1)], minute=1),
    ])
    return tmp_path


def test_score_then_audit_find_both_problems(tmp_path: Path) -> None:
    root = build(tmp_path)
    scored = runner.invoke(app, ["score", "--warehouse", str(root), "--json"])
    assert scored.exit_code == 0, scored.output
    summary = json.loads(scored.stdout)
    assert (summary["hands"], summary["player_hands"], summary["fl_errors"]) == (2, 4, 1)
    assert 0 < summary["transitions_seconds"] < summary["seconds"]  # its share of the run

    audited = runner.invoke(app, ["audit", "--warehouse", str(root), "--format", "json"])
    assert audited.exit_code == 0, audited.output
    report = json.loads(audited.stdout)
    assert [(f["kind"], f["hand_id"]) for f in report["findings"]] == [
        ("points", "c-2"), ("fl_missing", "c-2")]
    assert {(s["kind"], s["count"]) for s in report["summary"]} == {
        ("points", 1), ("fl_missing", 1)}

    failing = runner.invoke(app, ["audit", "-w", str(root), "--fail-on-mismatch"])
    assert failing.exit_code == 1
    assert "fl_missing" in failing.stdout
    assert "alice earned Fantasyland in c-1" in failing.stdout

    csv = runner.invoke(app, ["audit", "-w", str(root), "--format", "csv"])
    assert csv.stdout.splitlines()[0].startswith("kind,severity,site,table,hand_id")
    assert len(csv.stdout.splitlines()) == 3
    assert sorted(csv.stderr.splitlines()) == ["summary: 1 fl_missing (error) at home",
                                               "summary: 1 points (error) at home"]


def test_score_reads_the_warehouse_from_the_environment(tmp_path: Path) -> None:
    root = build(tmp_path)
    result = runner.invoke(app, ["score"], env={"OFC_STATS_WAREHOUSE": str(root)})
    assert result.exit_code == 0, result.output
    assert "scored 2 hands (4 player-hands, 2 matchups)" in result.stdout
    assert "transitions checked, 1 break the rules" in result.stdout


def test_missing_warehouse_is_a_one_line_error(tmp_path: Path) -> None:
    for command in (["score"], ["audit"]):
        result = runner.invoke(app, [*command, "--warehouse", str(tmp_path / "nowhere")])
        assert result.exit_code == 5  # no warehouse: not the code of a failed audit
        assert result.stderr.startswith("ofc-stats: error: no warehouse at")
        assert result.stderr.count("\n") == 1


def test_unknown_ruleset_is_a_one_line_error(tmp_path: Path) -> None:
    root = build(tmp_path)
    result = runner.invoke(app, ["score", "-w", str(root), "--ruleset", "omaha"])
    assert result.exit_code == 2
    assert "unknown ruleset 'omaha'" in result.stderr
