"""The benchmarks print each figure beside its ceiling measured in the same run."""

import json

from typer.testing import CliRunner

from ofc_stats.cli import app

runner = CliRunner()


def test_bench_scoring_measures_strings_in_against_codes() -> None:
    result = runner.invoke(app, ["bench", "scoring", "--deals", "3000", "--string-deals",
                                 "2000", "--no-jokers", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["string_player_hands"] == 6_000
    assert figures["string_player_hands_per_second"] > 0
    assert figures["string_codes_player_hands_per_second"] > 0
    assert figures["string_ratio"] == (figures["player_hands_per_second"]
                                       / figures["string_player_hands_per_second"])
    assert figures["polars_threads"] >= 1
    text = runner.invoke(app, ["bench", "scoring", "--deals", "2000", "--no-jokers"]).stdout
    assert "score_boards with card strings in (2,000 player-hands" not in text
    assert "score_boards with card strings in (6,000 player-hands" in text
    skipped = runner.invoke(app, ["bench", "scoring", "--deals", "2000", "--no-jokers",
                                  "--string-deals", "0"]).stdout
    assert "card strings" not in skipped


def test_bench_score_measures_the_score_against_duckdb_copying_its_seats() -> None:
    result = runner.invoke(app, ["bench", "score", "--player-hands", "3000", "--cores",
                                 "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["player_hands"] == 3_000
    assert len(figures["copy_seconds"]) == 2
    assert all(seconds > 0 for seconds in figures["copy_seconds"])
    assert figures["copy_ratio"] == figures["score_seconds"] / (
        sum(figures["copy_seconds"]) / 2)
    assert figures["cores"] >= 1
    for name in ("one_core_score_seconds", "all_cores_score_seconds",
                 "one_core_copy_seconds", "all_cores_copy_seconds"):
        assert figures[name] > 0, name
    assert figures["score_speedup"] > 0
    assert figures["copy_speedup"] > 0
    text = runner.invoke(app, ["bench", "score", "--player-hands", "300"]).stdout
    assert "DuckDB copying the seats to Parquet" in text
    assert "the score takes" in text
    assert "on 1 core" not in text
