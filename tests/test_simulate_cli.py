"""``ofc-stats simulate`` and ``ofc-stats bench simulate`` through CliRunner and a process."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc_stats.cli import app
from ofc_stats.simulate import FaultKind
from ofc_stats.simulate.files import (
    EXTENSIONS,
    FAULTS_FILE,
    MANIFEST_FILE,
    SAMPLE_DATA_CONFIG,
    SAMPLE_GAMES_CONFIG,
    read_faults,
)

runner = CliRunner()
SAMPLE_DATA = Path(__file__).resolve().parent.parent / "sample_data"


def test_simulate_writes_files_and_ground_truth(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", "--out", str(tmp_path), "--hands", "800",
                                 "--tables", "2", "--variant", "pineapple", "--variant",
                                 "classic", "--seed", "7", "--faults", "gap=2,mis-scored=1"])
    assert result.exit_code == 0, result.output
    assert re.search(r"wrote 798 hands of site ofc-sim-[0-9a-f]{6} to 2 files", result.stdout)
    assert "2 gap" in result.stdout
    assert "1 mis-scored" in result.stdout
    faults = read_faults(tmp_path / FAULTS_FILE)
    assert sorted(fault.kind.value for fault in faults) == ["gap", "gap", "mis-scored"]
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == [MANIFEST_FILE, "aldebaran.jsonl", "betelgeuse.jsonl", FAULTS_FILE]
    variants = {json.loads(line)["variant"] for path in tmp_path.glob("*.jsonl")
                for line in path.read_text().splitlines()}
    assert variants == {"pineapple", "classic"}


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    outputs = []
    for run in ("a", "b"):
        folder = tmp_path / run
        result = runner.invoke(app, ["simulate", "--out", str(folder), "--hands", "300",
                                     "--seed", "3", "--faults", "all", "--gzip"])
        assert result.exit_code == 0, result.output
        outputs.append({path.name: path.read_bytes() for path in folder.iterdir()})
    assert outputs[0] == outputs[1]
    assert any(name.endswith(".jsonl.gz") for name in outputs[0])


def test_bad_options_are_one_line_errors(tmp_path: Path) -> None:
    for options in (["--faults", "bogus"], ["--format", "xml"], ["--variant", "razz"]):
        result = runner.invoke(app, ["simulate", "--out", str(tmp_path), *options])
        assert result.exit_code == 2, (options, result.output)
        assert result.stderr.startswith("ofc-stats: error: ")
        assert result.stderr.count("\n") == 1
        assert "Traceback" not in result.output


def test_bench_simulate_prints_throughput_and_memory() -> None:
    result = runner.invoke(app, ["bench", "simulate", "--hands", "3000", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["hands"] == 3000
    assert figures["hands_per_second"] > 0
    assert figures["peak_memory_mb"] > 0
    assert figures["boards"] >= 6000
    assert 0 < figures["fantasyland_share"] < 0.2


def test_sample_data_is_committed_and_matches_its_command() -> None:
    faults = read_faults(SAMPLE_DATA / FAULTS_FILE)
    counts = {kind: sum(fault.kind is kind for fault in faults) for kind in FaultKind}
    assert counts == {kind: SAMPLE_DATA_CONFIG.faults.get(kind, 0)
                      + SAMPLE_GAMES_CONFIG.faults.get(kind, 0) for kind in FaultKind}
    files = {path.name for path in SAMPLE_DATA.iterdir()}
    assert "broken_hands.jsonl" in files
    assert sum(path.stat().st_size for path in SAMPLE_DATA.iterdir()) < 3 * 1024 * 1024
    assert {fault.file for fault in faults if fault.file} <= files


def test_sample_data_regenerates_identically(tmp_path: Path) -> None:
    present = {path.name.split(".")[1] for path in SAMPLE_DATA.glob("*.gz")}
    formats = [fmt.value for fmt, suffix in EXTENSIONS.items() if suffix[1:] in present]
    result = runner.invoke(app, ["simulate", "--sample-data", str(tmp_path),
                                 *(f"--format={fmt}" for fmt in formats)])
    assert result.exit_code == 0, result.output
    committed = {path.name: path.read_bytes() for path in SAMPLE_DATA.iterdir()
                 if not path.name.endswith(".md")}
    regenerated = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    stale = "sample_data/ is stale: run `ofc-stats simulate --sample-data sample_data`"
    assert regenerated.keys() == committed.keys(), stale
    assert regenerated == committed, stale


def test_real_process_simulates(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "ofc_stats", "simulate", "--out", str(tmp_path), "--hands",
         "200", "--seed", "1"], capture_output=True, text=True, check=False, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "wrote 200 hands" in completed.stdout


def test_simulations_of_other_seeds_never_share_a_hand(tmp_path: Path) -> None:
    from ofc_stats.ingest import ingest

    for seed in (1, 2):
        result = runner.invoke(app, ["simulate", "--out", str(tmp_path / f"s{seed}"),
                                     "--hands", "600", "--seed", str(seed)])
        assert result.exit_code == 0, result.output
    again = runner.invoke(app, ["simulate", "--out", str(tmp_path / "again"), "--hands",
                                "600", "--seed", "1"])
    sites = {json.loads(path.read_text().splitlines()[0])["site"]
             for folder in ("s1", "s2", "again") for path in (tmp_path / folder).glob("*.jsonl")}
    assert len(sites) == 2  # one room per simulation; the same settings, the same room
    assert re.search(r"site ofc-sim-[0-9a-f]{6}", again.stdout)
    summary = ingest([tmp_path / "s1", tmp_path / "s2"], tmp_path / "wh")
    assert (summary.hands_stored, summary.conflicts, summary.duplicates) == (1200, 0, 0)
    repeated = ingest([tmp_path / "again"], tmp_path / "wh")
    assert (repeated.hands_stored, repeated.conflicts, repeated.duplicates) == (0, 0, 600)


def test_a_second_simulation_replaces_the_first_and_says_so(tmp_path: Path) -> None:
    first = runner.invoke(app, ["simulate", "--out", str(tmp_path), "--hands", "900",
                                "--tables", "3", "--seed", "4"])
    assert first.exit_code == 0
    assert first.stderr == ""
    second = runner.invoke(app, ["simulate", "--out", str(tmp_path), "--hands", "400",
                                 "--seed", "5", "--faults", "gap=1"])
    assert second.exit_code == 0, second.output
    assert second.stderr.startswith(f"ofc-stats: note: {tmp_path} held the simulation of "
                                    "seed 4 (900 hands, site ofc-sim-")
    assert "3 files); replaced by this one" in second.stderr
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == [MANIFEST_FILE, "aldebaran.jsonl", "betelgeuse.jsonl", FAULTS_FILE]
    assert [fault.kind.value for fault in read_faults(tmp_path / FAULTS_FILE)] == ["gap"]


def test_every_format_gets_hands(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", "--out", str(tmp_path), "--hands", "4000",
                                 "--format", "all"])
    assert result.exit_code == 0, result.output
    suffixes = {path.name.split(".", 1)[1] for path in tmp_path.iterdir()
                if path.name not in (FAULTS_FILE, MANIFEST_FILE)}
    assert suffixes == {suffix.lstrip(".") for suffix in EXTENSIONS.values()}
    assert "wrote 4,000 hands" in result.stdout
    assert "to 4 files" in result.stdout


@pytest.mark.parametrize(("options", "message"), [
    (["--format", "all", "--tables", "2"], "4 formats need at least 4 tables (tables take "
                                           "the formats in turn); --tables is 2"),
    (["--format", "all", "--hands", "3"], "4 formats need at least 4 tables (tables take "
                                          "the formats in turn); 3 hands make at most 3 "
                                          "tables"),
    (["--players", "3"], "--players 3 is out of range: it must be at least 4"),
    (["--players", "200000"], "--players 200000 is out of range: it must be at most 100000"),
])
def test_simulate_refuses_what_it_cannot_do(tmp_path: Path, options: list[str],
                                            message: str) -> None:
    result = runner.invoke(app, ["simulate", "--out", str(tmp_path), *options])
    assert result.exit_code == 2
    assert result.stderr == f"ofc-stats: error: {message}\n"
