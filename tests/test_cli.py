"""The command line, through CliRunner and once as a real process."""

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from ofc_stats.cli import app

runner = CliRunner()


def test_bench_prints_throughput_and_memory() -> None:
    result = runner.invoke(app, ["bench", "scoring", "--deals", "20000", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["player_hands"] == 60_000
    assert figures["player_hands_per_second"] > 0
    assert figures["peak_memory_mb"] > 0
    assert 0.3 < figures["fouled_share"] < 0.95  # random placement fouls often
    # One joker per board against the same two-player boards without it.
    assert figures["joker_player_hands"] == 40_000
    assert figures["joker_player_hands_per_second"] > 0
    assert figures["joker_ratio"] > 0
    text = runner.invoke(app, ["bench", "scoring", "--deals", "2000"]).stdout
    assert "one joker on every board" in text
    assert "of the joker-free speed" in text
    plain = runner.invoke(app, ["bench", "scoring", "--deals", "2000", "--no-jokers"]).stdout
    assert "joker" not in plain


def test_rules_lists_presets_and_shows_one() -> None:
    listing = runner.invoke(app, ["rules"])
    assert listing.exit_code == 0
    assert [line.split()[0] for line in listing.stdout.splitlines()[2:]] == [
        "classic", "pineapple", "progressive", "ultimate", "joker-pineapple",
        "joker-progressive", "joker-ultimate", "double-deck", "double-deck-pineapple",
        "deuce-to-seven"]  # under the table's head: preset, rules
    assert listing.stdout.split()[:2] == ["preset", "rules"]
    shown = runner.invoke(app, ["rules", "progressive", "--json"])
    assert json.loads(shown.stdout)["fantasyland"]["entry"] == {
        "QQ": 14, "KK": 15, "AA": 16, "222": 16}


def test_errors_are_one_line_on_stderr_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("scoring = '9-9'")
    result = runner.invoke(app, ["rules", str(bad)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("ofc-stats: error: ")
    assert "Traceback" not in result.stderr


def test_real_process_runs_as_module() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "ofc_stats", "bench", "scoring", "--deals", "5000",
         "--players", "4"],
        capture_output=True, text=True, check=False, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "4-player deals" in completed.stdout
    assert "M player-hands/s" in completed.stdout
