"""``ofc-stats bench formats``: every format written and read back, figures printed."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from ofc_stats.bench.formats import benchmark_formats
from ofc_stats.cli import app
from ofc_stats.formats import Format

runner = CliRunner()


def test_the_benchmark_reads_back_every_hand_of_every_format() -> None:
    result = benchmark_formats(hands=150, players=3, streets=True, batch_hands=64)
    # fpdb-3's database is measured beside its files.
    assert [row.format for row in result.formats] == [*(fmt.value for fmt in Format),
                                                      "fpdb-db"]
    for row in result.formats:
        assert (row.hands, row.problems) == (150, 0)
        assert row.read_hands_per_second > 0
        assert row.read_megabytes_per_second > 0
        assert row.read_peak_memory_mb > 0
    # Against the stack's own parse of the same JSON, where there is one.
    ratios = {row.format: row.ceiling_ratio for row in result.formats}
    assert ratios["text"] is None
    assert all(ratios[name] is not None and ratios[name] > 0  # type: ignore[operator]
               for name in ("jsonl", "fpdb", "fpdb-db"))


def test_bench_formats_prints_figures_per_format() -> None:
    plain = runner.invoke(app, ["bench", "formats", "--hands", "100", "--no-streets",
                                "--format", "text", "--format", "csv"])
    assert plain.exit_code == 0, plain.output
    lines = plain.stdout.splitlines()
    assert "100 3-player pineapple hands (boards only)" in lines[0]
    assert [line.split()[0] for line in lines[1:3]] == ["text", "csv"]
    assert all("hands/s" in line and "MiB" in line for line in lines[1:3])
    as_json = runner.invoke(app, ["bench", "formats", "--hands", "60", "--players", "2",
                                  "--variant", "classic", "--format", "jsonl", "--json"])
    figures = json.loads(as_json.stdout)
    assert (figures["players"], figures["variant"], figures["streets"]) == (2, "classic", True)
    assert figures["formats"][0]["hands"] == 60


def test_an_unknown_format_is_one_line_on_stderr() -> None:
    result = runner.invoke(app, ["bench", "formats", "--hands", "10", "--format", "xml"])
    assert result.exit_code == 2
    assert result.stderr.startswith("ofc-stats: error: unknown format 'xml'")
    assert result.stderr.count("\n") == 1
