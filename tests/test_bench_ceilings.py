"""The benchmarks print each figure beside its ceiling measured in the same run."""

import json

import pytest
from typer.testing import CliRunner

from ofc_stats.bench.ceilings import projected_speedup, projection_text, serial_share
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
    assert 0 <= figures["serial_share"] <= 1


def test_amdahls_law_from_one_core_and_two() -> None:
    # Twice as fast on two cores: nothing serial; no faster: all of it.
    assert serial_share(10.0, 5.0, 2) == 0
    assert serial_share(10.0, 10.0, 2) == 1
    assert serial_share(10.0, 12.0, 2) == 1  # slower on two (a loaded machine): clamped
    assert serial_share(0.0, 5.0, 2) == 0  # not measured
    share = serial_share(10.0, 6.0, 2)
    assert share == pytest.approx(0.2)
    assert projected_speedup(share, 2) == pytest.approx(10 / 6)
    assert projected_speedup(share, 64) == pytest.approx(1 / (0.2 + 0.8 / 64))
    assert projection_text(10.0, 6.0, 2) == (
        "20% of it did not speed up: Amdahl's law gives 4.0x on 16 cores, 4.7x on 64")
