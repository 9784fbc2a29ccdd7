"""ofc-stats ingest as users run it: the CLI, real processes, kills and concurrency."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from ofc_stats.bench.ceilings import DECODERS, decode_seconds, store_seconds
from ofc_stats.bench.ingest import read_alone, write_files, write_format
from ofc_stats.cli import app
from ofc_stats.formats import Format, get_writer
from ofc_stats.formats.samples import sample_hands
from ofc_stats.ingest import ingest
from ofc_stats.warehouse import Warehouse
from tests.test_ingest import assert_consistent, hand, lines, table

runner = CliRunner()


def history(path: Path, *hand_ids: str, bad: str | None = None) -> Path:
    hands = [hand(hand_id) for hand_id in hand_ids]
    if bad is not None:
        hands.append(hand(bad, variant="omaha"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(lines(*hands))
    return path


def sessions(folder: Path, files: int, hands: int) -> int:
    """``files`` JSON Lines files of ``hands`` hands each; returns the total."""
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(files):
        with open(folder / f"session-{number}.jsonl", "wb") as stream:
            get_writer(Format.JSONL).write([sample_hands(hands, 3, seed=100 + number)], stream)
    return files * hands


# -- in process ---------------------------------------------------------------------------


def test_ingest_prints_a_summary_and_exits_0(tmp_path: Path) -> None:
    path = history(tmp_path / "a.jsonl", "h1", "h2")
    result = runner.invoke(app, ["ingest", str(path), "--warehouse", str(tmp_path / "wh")])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ingested 1 file (1 read, 0 unchanged) into ")
    assert "  2 good hands read: 2 stored, 0 duplicates, 0 conflicts\n" in result.stdout
    assert "hands/s" in result.stdout
    assert result.stderr == ""
    again = runner.invoke(app, ["ingest", str(path), "-w", str(tmp_path / "wh")])
    assert again.stdout.splitlines()[1:] == [
        "  nothing new: every file is as it was when last imported"]


def test_score_after_the_import(tmp_path: Path) -> None:
    path = history(tmp_path / "a.jsonl", "h1", "h2")
    result = runner.invoke(app, ["ingest", str(path), "-w", str(tmp_path / "wh"), "--score"])
    assert result.exit_code == 0, result.output
    assert "2 good hands read: 2 stored" in result.stdout
    assert "scored 2 hands (4 player-hands" in result.stdout
    strict = runner.invoke(app, ["ingest", str(path), "--watch", "--strict"])
    assert strict.exit_code == 2
    assert "ofc-stats: error: --strict: does not go with --watch" in strict.stderr


def test_a_terminal_gets_a_progress_bar_on_stderr(tmp_path: Path) -> None:
    path = history(tmp_path / "a.jsonl", "h1", "h2")
    result = runner.invoke(app, ["ingest", str(path), "-w", str(tmp_path / "wh")],
                           env={"TTY_COMPATIBLE": "1", "COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "1/1 files" in result.stderr
    assert "hands/s" in result.stderr
    assert result.stdout.startswith("ingested 1 file")  # the summary stays plain


def test_rejects_warn_but_exit_0_unless_strict(tmp_path: Path) -> None:
    path = history(tmp_path / "a.jsonl", "h1", bad="h2")
    result = runner.invoke(app, ["ingest", str(path), "-w", str(tmp_path / "wh")])
    assert result.exit_code == 0
    assert result.stderr == ("ofc-stats: warning: 1 problem set aside in the warehouse's "
                             "rejects table (variant 1); see docs/ingest.md\n"
                             f"  {path}:2: variant: unknown variant 'omaha'\n")
    other = history(tmp_path / "b.jsonl", "h3", bad="h4")
    strict = runner.invoke(app, ["ingest", str(other), "-w", str(tmp_path / "wh"), "--strict"])
    assert strict.exit_code == 4
    assert "1 good hand read: 1 stored" in strict.stdout  # the good hand is stored all the same
    assert strict.stderr.splitlines()[-1] == (
        "ofc-stats: error: 1 problem set aside in the warehouse's rejects table "
        "(variant 1) (strict mode)")
    clean = history(tmp_path / "c.jsonl", "h5")
    assert runner.invoke(app, ["ingest", str(clean), "-w", str(tmp_path / "wh"),
                               "--strict"]).exit_code == 0


def test_json_output_is_the_summary(tmp_path: Path) -> None:
    path = history(tmp_path / "a.jsonl", "h1", "h2", bad="h3")
    result = runner.invoke(app, ["ingest", str(path), "-w", str(tmp_path / "wh"), "--json"])
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert (summary["hands_stored"], summary["rejected"], summary["files"]) == (2, 1, 1)
    assert summary["problems_by_kind"] == {"variant": 1}
    assert summary["warehouse"] == str(tmp_path / "wh")


@pytest.mark.parametrize(("arguments", "code", "message"), [
    (["missing.jsonl"], 2, "ofc-stats: error: no such file or folder: missing.jsonl"),
    (["*.nothing"], 2, "ofc-stats: error: no files match *.nothing"),
    ([".", "--format", "xml"], 2, "ofc-stats: error: unknown format 'xml'"),
])
def test_user_errors_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  arguments: list[str], code: int, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["ingest", *arguments])
    assert result.exit_code == code
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1
    assert result.stdout == ""


def test_the_warehouse_defaults_to_the_environment_then_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    history(tmp_path / "in" / "a.jsonl", "h1")
    monkeypatch.setenv("OFC_STATS_WAREHOUSE", str(tmp_path / "from-env"))
    assert runner.invoke(app, ["ingest", "in"]).exit_code == 0
    assert table(tmp_path / "from-env", "hands").height == 1
    monkeypatch.delenv("OFC_STATS_WAREHOUSE")
    assert runner.invoke(app, ["ingest", "in", "--json"]).exit_code == 0
    assert table(tmp_path / "warehouse", "hands").height == 1


def test_a_busy_warehouse_fails_clearly_after_waiting(tmp_path: Path) -> None:
    path = history(tmp_path / "a.jsonl", "h1")
    warehouse = Warehouse.open(tmp_path / "wh", create=True)
    with warehouse.writing():
        started = time.monotonic()
        result = runner.invoke(app, ["ingest", str(path), "-w", str(tmp_path / "wh"),
                                     "--wait", "0.3"])
        waited = time.monotonic() - started
    assert result.exit_code == 3
    assert "busy: another ofc-stats process" in result.stderr
    assert waited >= 0.3
    assert table(tmp_path / "wh", "hands").is_empty()


def test_ingesting_the_warehouse_folder_itself_reads_nothing_from_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    history(tmp_path / "a.jsonl", "h1")
    assert runner.invoke(app, ["ingest", "."]).exit_code == 0
    second = runner.invoke(app, ["ingest", ".", "--json"])
    assert json.loads(second.stdout)["files"] == 1  # not the warehouse's Parquet files


def test_bench_ingest_measures_each_format(tmp_path: Path) -> None:
    result = runner.invoke(app, ["bench", "ingest", "--hands", "400", "--format", "jsonl",
                                 "--json"])
    assert result.exit_code == 0, result.output
    [figures] = json.loads(result.stdout)
    assert (figures["format"], figures["hands"]) == ("jsonl", 400)
    assert figures["hands_per_second"] > 0
    assert figures["megabytes_per_second"] > 0
    assert figures["cpu_seconds"] > 0
    assert figures["peak_memory_mb"] > 0
    assert figures["duplicate_hands_per_second"] > 0
    # The stack's decoder on the same file, three times, and the ingest against it.
    assert figures["decoder"] == "pyarrow.json decoding"
    assert len(figures["decode_seconds"]) == 3
    assert min(figures["decode_seconds"]) > 0
    assert figures["ceiling_ratio"] == pytest.approx(
        sorted(figures["decode_seconds"])[1] / figures["seconds"])
    assert figures["one_core_seconds"] == 0
    assert figures["speedup"] == 0
    # Both warm: the process ingested a small file of the same format first.
    assert figures["warmup_seconds"] > 0
    # The decoder again, storing what it decoded: the least an ingest that keeps it does.
    assert len(figures["store_seconds"]) == 3
    assert figures["stored_ceiling_ratio"] == pytest.approx(
        sorted(figures["store_seconds"])[1] / figures["seconds"])


def test_bench_ingest_measures_each_size_on_one_core_and_on_all() -> None:
    result = runner.invoke(app, ["bench", "ingest", "--hands", "150", "--hands", "300",
                                 "--format", "csv", "--cores"])
    assert result.exit_code == 0, result.output
    assert re.search(r"csv +150 hands.*\n.*polars.read_csv of the same bytes: [\d.]+ s, "
                     r"[\d.]+ s and [\d.]+ s; the ingest runs at [\d.]+x the decoder's speed "
                     r"\(target 0.6x; both warm: the process first ingested 200 hands, in "
                     r"[\d.]+ s\)", result.stdout)
    assert "csv    300 hands" in result.stdout
    assert len(re.findall(r"on 1 core: the ingest [\d.]+ s \(peak [\d,]+ MiB\), the "
                          r"decoder [\d.]+ s; on \d+: [\d.]+x and [\d.]+x", result.stdout)) == 2


def test_bench_ingest_refuses_an_unknown_format_in_one_line() -> None:
    result = runner.invoke(app, ["bench", "ingest", "--hands", "10", "--format", "nope"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "ofc-stats: error: unknown format 'nope' (one of jsonl, text, csv, fpdb)")


@pytest.mark.parametrize("fmt", list(Format))
def test_each_ceiling_decodes_the_whole_file(tmp_path: Path, fmt: Format) -> None:
    path = tmp_path / f"hands.{fmt}"
    write_format(fmt, path, 40)
    decoded = DECODERS[fmt][1](path)
    # A row a hand, a row a seat (CSV), or a row a line (text).
    expected = {Format.CSV: 3 * 40, Format.TEXT: len(path.read_text().splitlines())}
    assert decoded == expected.get(fmt, 40)
    assert decode_seconds(fmt, path) > 0
    # Storing: one Parquet file of what was decoded (removed once timed).
    stored = tmp_path / "stored.parquet"
    assert DECODERS[fmt][1](path, stored) == decoded
    assert pl.scan_parquet(stored).select(pl.len()).collect().item() == decoded
    assert store_seconds(fmt, path, stored) > 0
    assert not stored.exists()


def test_bench_ingest_measures_a_folder_of_small_files(tmp_path: Path) -> None:
    result = runner.invoke(app, ["bench", "ingest", "--hands", "200", "--files", "40",
                                 "--format", "text", "--json"])
    assert result.exit_code == 0, result.output
    [figures] = json.loads(result.stdout)
    assert (figures["format"], figures["hands"], figures["files"]) == ("text", 200, 40)
    assert figures["hands_per_second"] > 0
    assert figures["duplicate_hands_per_second"] > 0
    plain = runner.invoke(app, ["bench", "ingest", "--hands", "30", "--files", "3",
                                "--format", "jsonl"])
    assert "30 hands in 3 files" in plain.stdout
    assert re.search(r"ingested in [\d.]+ s \(CPU [\d.]+ s\)", plain.stdout)


# -- real processes -----------------------------------------------------------------------


def run_cli(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ofc_stats", *arguments], cwd=cwd,
                          capture_output=True, text=True, check=False, timeout=300)


def test_a_real_process_ingests_and_never_shows_a_traceback(tmp_path: Path) -> None:
    history(tmp_path / "in" / "a.jsonl", "h1", "h2", bad="h3")
    (tmp_path / "in" / "noise.txt").write_bytes(bytes(range(256)) * 40)
    (tmp_path / "in" / "broken.jsonl.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    (tmp_path / "in" / "empty.csv").write_bytes(b"")
    completed = run_cli("ingest", str(tmp_path / "in"), "-w", str(tmp_path / "wh"))
    assert completed.returncode == 0, completed.stderr
    assert "2 good hands read: 2 stored" in completed.stdout
    assert "1 broken hand and 2 files (unreadable or not histories) set aside" in (
        completed.stdout)
    assert "Traceback" not in completed.stderr
    assert completed.stderr.startswith("ofc-stats: warning: 3 problems set aside")
    kinds = sorted(table(tmp_path / "wh", "rejects")["kind"])
    assert kinds == ["file", "format", "variant"]


PARTIAL_INGEST = """
import sys
from ofc_stats.ingest import ingest
ingest([sys.argv[1]], sys.argv[2], commit_hands=150, batch_hands=50)
"""


@pytest.mark.slow
def test_a_killed_ingest_leaves_whole_batches_and_resumes_exactly_once(tmp_path: Path) -> None:
    total = sessions(tmp_path / "in", files=4, hands=900)
    log = tmp_path / "wh" / "_log"
    process = subprocess.Popen([sys.executable, "-c", PARTIAL_INGEST, str(tmp_path / "in"),
                                str(tmp_path / "wh")], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if log.is_dir() and len(list(log.glob("[0-9]*.json"))) >= 4:
            break
        time.sleep(0.002)
    assert process.poll() is None, f"finished before it was killed: {process.communicate()}"
    os.kill(process.pid, signal.SIGKILL)  # no chance to clean up
    _, errors = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL, errors

    assert_consistent(tmp_path / "wh")
    stored = table(tmp_path / "wh", "hands").height
    assert 0 < stored < total
    summary = ingest([tmp_path / "in"], tmp_path / "wh")
    assert summary.duplicates == 0  # resumed where each file's last commit stopped
    assert summary.hands_stored == total - stored
    assert table(tmp_path / "wh", "hands").height == total
    assert table(tmp_path / "wh", "rejects").is_empty()
    assert_consistent(tmp_path / "wh")
    referenced = {str(path) for path in Warehouse.open(tmp_path / "wh").files("hands")}
    assert {str(p) for p in (tmp_path / "wh" / "hands").glob("*.parquet")} == referenced


@pytest.mark.slow
def test_two_ingests_started_together_store_everything_once(tmp_path: Path) -> None:
    total = sessions(tmp_path / "in", files=2, hands=400)
    command = [sys.executable, "-m", "ofc_stats", "ingest", str(tmp_path / "in"),
               "-w", str(tmp_path / "wh"), "--json"]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    outputs = [process.communicate(timeout=300) for process in (first, second)]
    assert [process.returncode for process in (first, second)] == [0, 0], outputs
    summaries = [json.loads(stdout) for stdout, _ in outputs]
    assert sorted(s["hands_stored"] for s in summaries) == [0, total]
    assert sorted(s["files_unchanged"] for s in summaries) == [0, 2]
    assert sum(s["duplicates"] for s in summaries) == 0
    assert table(tmp_path / "wh", "hands").height == total
    assert_consistent(tmp_path / "wh")


@pytest.mark.parametrize("fmt", ["csv", "fpdb"])
def test_the_benchmark_reads_a_folder_alone_the_way_ingest_groups_it(
        tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ofc_stats.ingest.run.READ_BATCH_HANDS", 25)  # several groups
    written = write_files(fmt, tmp_path / "in", hands=120, files=12)
    one_big = write_format(fmt, tmp_path / "big", hands=30, seed=1)
    monkeypatch.setattr("ofc_stats.ingest.grouping.SMALL_FILE_BYTES",
                        (tmp_path / "big").stat().st_size - 1)
    files = [*sorted((tmp_path / "in").iterdir()), tmp_path / "big"]
    assert read_alone(files) == written + one_big == 150
    # Two formats, their files interleaved: each format's small files grouped apart.
    other = "jsonl" if fmt == "csv" else "csv"
    write_files(other, tmp_path / "other", hands=40, files=4, seed=2)
    mixed = [path for pair in zip(files[:4], sorted((tmp_path / "other").iterdir()),
                                  strict=True) for path in pair]
    assert read_alone(mixed) == 4 * 10 + 40
