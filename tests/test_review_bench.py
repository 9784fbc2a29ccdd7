"""``ofc-stats bench review`` on a small scale: it measures what it says it does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc_stats.bench.review import benchmark_review, build_simulated_history
from ofc_stats.cli import app

runner = CliRunner()


@pytest.mark.slow
def test_the_benchmark_times_each_card_count_and_a_whole_review() -> None:
    result = runner.invoke(app, ["bench", "review", "--per-count", "6", "--hands", "400",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [row["cards"] for row in data["by_cards"]] == [13, 14, 15, 16, 17]
    for row in data["by_cards"]:
        assert row["hands"] == 6
        assert row["seconds"] > 0
        assert row["floor_seconds"] > 0
        assert 0 < row["pairs_examined_per_hand"] < row["settings_per_hand"]
    assert data["history_hands"] == 400
    assert data["fantasyland_hands"] == sum(data["fantasyland_by_cards"].values()) > 0
    assert 0 < data["solve_seconds"] <= data["review_seconds"]


def test_an_existing_warehouse_is_reviewed_as_a_copy(tmp_path: Path) -> None:
    root = tmp_path / "warehouse"
    stored = build_simulated_history(root, 200, seed=3)
    before = sorted(path.name for path in root.rglob("*"))
    result = benchmark_review(per_count=0, warehouse=root)
    assert (result.history_hands, result.history_source) == (stored, str(root))
    assert result.fantasyland_hands > 0
    assert sorted(path.name for path in root.rglob("*")) == before  # left as it was
    text = runner.invoke(app, ["bench", "review", "--per-count", "0", "-w", str(root)])
    assert text.exit_code == 0, text.output
    assert f"review of {root} history ({stored:,} hands" in text.stdout
