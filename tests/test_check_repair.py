"""A damaged warehouse is diagnosed and repaired: every command names the broken file
and points at ``check``; ``check`` finds it; ``repair`` mends it, and the next ingest
stores again exactly what was lost."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from ofc_stats.analysis.repair import repair_warehouse
from ofc_stats.analysis.score import score_warehouse
from ofc_stats.cli import app
from ofc_stats.ingest import ingest
from ofc_stats.warehouse import LOG_DIR, QUARANTINE_DIR, PendingFile, Warehouse
from ofc_stats.warehouse.check import check_warehouse
from ofc_stats.warehouse.log import write_checkpoint
from tests.conftest import SAMPLE_DATA

ROOT = Path(__file__).resolve().parent.parent
# Every command that reads results, and the writers.
READERS = [["stats"], ["audit", "--format", "csv"], ["query", "leaderboard"],
           ["query", "SELECT count(*) FROM hands"], ["report", "--out", "{out}/r.html"]]
WRITERS = [["score"], ["ingest", str(SAMPLE_DATA)]]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_data/ ingested and scored: copied by each test, then damaged."""
    root = tmp_path_factory.mktemp("whole") / "warehouse"
    ingest([SAMPLE_DATA], root, commit_hands=500, batch_hands=250)
    score_warehouse(Warehouse.open(root))
    return root


@pytest.fixture
def warehouse(whole: Path, tmp_path: Path) -> Warehouse:
    shutil.copytree(whole, tmp_path / "warehouse")
    return Warehouse.open(tmp_path / "warehouse")


def hand_keys(warehouse: Warehouse) -> pl.DataFrame:
    return warehouse.scan("hands").select("site", "hand_id").collect()


def run(args: list[str], warehouse: Warehouse, tmp_path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*(a.format(out=tmp_path) for a in args), "-w",
                                      str(warehouse.root)])
    return result.exit_code, result.stderr


def assert_every_command_names(warehouse: Warehouse, tmp_path: Path, broken: str,
                               commands: list[list[str]]) -> None:
    for args in commands:
        code, errors = run(args, warehouse, tmp_path)
        assert code == 5, (args, errors)
        lines = errors.strip().splitlines()
        assert len(lines) == 1, (args, errors)
        assert broken in lines[0], (args, errors)
        assert "ofc-stats check" in lines[0]
        assert "internal" not in lines[0]
        assert "JSONDecodeError" not in lines[0]


def test_a_whole_warehouse_checks_whole(warehouse: Warehouse) -> None:
    report = check_warehouse(warehouse, deep=True)
    assert report.whole, report.errors
    keys = hand_keys(warehouse)
    assert report.hands == keys.height == keys.unique().height > 0
    result = CliRunner().invoke(app, ["check", "-w", str(warehouse.root)])
    assert result.exit_code == 0
    assert "the warehouse is whole" in result.stdout


def test_a_deleted_file_is_named_by_every_command_and_repaired(
        warehouse: Warehouse, tmp_path: Path) -> None:
    before = hand_keys(warehouse)
    gone = warehouse.state().table_files("seats")[0]
    (warehouse.root / gone.path).unlink()
    assert_every_command_names(warehouse, tmp_path, gone.path, READERS + WRITERS)
    # check says what and where; exit 5.
    result = CliRunner().invoke(app, ["check", "-w", str(warehouse.root)])
    assert result.exit_code == 5
    assert f"missing: {gone.path}" in result.stdout
    # repair: the hands of that file are taken out whole, their files marked.
    report = repair_warehouse(warehouse)
    assert report.lost == [gone.path]
    assert 0 < report.hands_removed < before.height
    assert not report.read_again_all
    assert report.read_again
    assert check_warehouse(warehouse).whole
    assert hand_keys(warehouse).height == before.height - report.hands_removed
    # Re-ingesting the sources stores exactly what was lost.
    summary = ingest([SAMPLE_DATA], warehouse)
    assert summary.hands_stored == report.hands_removed
    after = hand_keys(warehouse)
    assert after.sort(after.columns).equals(before.sort(before.columns))
    assert check_warehouse(warehouse, deep=True).whole
    # The rejects of the files read again are there once, as before.
    rejects = warehouse.scan("rejects").collect()
    assert rejects.height == rejects.unique().height == 4


def test_a_lost_hands_file_sends_every_source_back(warehouse: Warehouse) -> None:
    before = hand_keys(warehouse)
    gone = warehouse.state().table_files("hands")[0]
    (warehouse.root / gone.path).unlink()
    report = repair_warehouse(warehouse)
    assert report.read_again_all
    assert check_warehouse(warehouse).whole
    ingest([SAMPLE_DATA], warehouse)
    after = hand_keys(warehouse)
    assert after.sort(after.columns).equals(before.sort(before.columns))
    rejects = warehouse.scan("rejects").collect()
    assert rejects.height == 4


def test_a_garbage_log_entry_is_named_and_repaired(warehouse: Warehouse, tmp_path: Path
                                                   ) -> None:
    before = hand_keys(warehouse)
    entry = warehouse.root / LOG_DIR / "000000000002.json"
    entry.write_text('{"id": 2, "add": [')
    assert_every_command_names(warehouse, tmp_path, "_log/000000000002.json",
                               READERS + WRITERS)
    report = repair_warehouse(warehouse)
    # An ingest commit: its files are named after it, so it is rebuilt whole.
    assert any("with the 6 files its commit wrote" in action for action in report.actions)
    assert (warehouse.root / QUARANTINE_DIR / LOG_DIR / entry.name).is_file()
    assert check_warehouse(warehouse).whole
    after = hand_keys(warehouse)
    assert after.sort(after.columns).equals(before.sort(before.columns))
    assert ingest([SAMPLE_DATA], warehouse).hands_stored == 0


def test_a_lost_commit_that_cannot_be_rebuilt_reads_every_source_again(
        warehouse: Warehouse) -> None:
    before = hand_keys(warehouse)
    last = warehouse.state().commit
    score_commit = next(c["id"] for c in warehouse.commits() if c["action"] == "score")
    (warehouse.root / LOG_DIR / f"{score_commit:012d}.json").unlink()
    with pytest.raises(Exception, match=f"commit {score_commit} is missing"):
        warehouse.state()
    report = repair_warehouse(warehouse)
    assert report.read_again_all
    assert report.rescore
    assert warehouse.state().commit == last + 1
    ingest([SAMPLE_DATA], warehouse)
    after = hand_keys(warehouse)
    assert after.sort(after.columns).equals(before.sort(before.columns))
    result = CliRunner().invoke(app, ["stats", "-w", str(warehouse.root), "--format", "csv"])
    assert result.exit_code == 0, result.stderr
    assert pl.read_csv(result.stdout.encode())["hands"].sum() > 0


def test_a_corrupt_parquet_file_is_named_and_quarantined(warehouse: Warehouse,
                                                         tmp_path: Path) -> None:
    damaged = warehouse.state().table_files("hands")[-1]
    path = warehouse.root / damaged.path
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # cut short, as a full disk or crash would
    assert_every_command_names(warehouse, tmp_path, damaged.path, READERS)
    findings = check_warehouse(warehouse).errors
    assert [f.kind for f in findings] == ["unreadable"]
    report = repair_warehouse(warehouse)
    assert report.lost == [damaged.path]
    assert (warehouse.root / QUARANTINE_DIR / damaged.path).is_file()
    assert check_warehouse(warehouse).whole


def test_a_missing_file_comes_back_from_the_quarantine(warehouse: Warehouse) -> None:
    wanted = warehouse.state().table_files("streets")[0]
    target = warehouse.root / QUARANTINE_DIR / wanted.path
    target.parent.mkdir(parents=True)
    shutil.move(warehouse.root / wanted.path, target)
    report = repair_warehouse(warehouse)
    assert report.restored == [wanted.path]
    assert not report.lost
    assert not report.read_again
    assert not report.rescore
    assert check_warehouse(warehouse, deep=True).whole


def test_a_garbage_checkpoint_is_passed_over_and_mended(warehouse: Warehouse,
                                                        tmp_path: Path) -> None:
    with warehouse.writing():
        write_checkpoint(warehouse.root, warehouse.head)
    checkpoint = next((warehouse.root / LOG_DIR).glob("*.checkpoint.json"))
    checkpoint.write_text("garbage")
    code, errors = run(["query", "SELECT count(*) AS n FROM hands", "--format", "csv"],
                       warehouse, tmp_path)
    assert code == 0, errors
    assert [f.kind for f in check_warehouse(warehouse).findings
            if f.severity != "info"] == ["checkpoint"]
    assert repair_warehouse(warehouse).changed
    assert json.loads(checkpoint.read_text())["id"] == warehouse.state().commit
    assert not [f for f in check_warehouse(warehouse).findings if f.severity != "info"]


def test_hands_stored_twice_are_found_and_stored_once_again(warehouse: Warehouse) -> None:
    # As an earlier version's two writers left them: a commit repeating hands.
    before = hand_keys(warehouse)
    state = warehouse.state()
    with warehouse.writing():
        copies = [PendingFile(table, pl.read_parquet(warehouse.root / state.table_files(
            table)[0].path).head(50 if table == "hands" else 0)) for table in ("hands",)]
        seats = pl.read_parquet([warehouse.root / f.path for f in state.table_files("seats")])
        copied = copies[0].frame.select("site", "hand_id")
        copies.append(PendingFile("seats", seats.join(copied, on=["site", "hand_id"],
                                                      how="semi")))
        warehouse.commit(copies, action="ingest")
    report = check_warehouse(warehouse)
    assert [f.kind for f in report.errors] == ["keys"]
    assert "50 hands are stored more than once" in report.errors[0].detail
    repaired = repair_warehouse(warehouse)
    assert repaired.hands_removed == 50
    assert repaired.rescore
    assert check_warehouse(warehouse).whole
    ingest([SAMPLE_DATA], warehouse)
    after = hand_keys(warehouse)
    assert after.height == after.unique().height == before.height


@pytest.mark.slow
def test_a_damaged_warehouse_is_named_by_the_real_command(warehouse: Warehouse) -> None:
    (warehouse.root / warehouse.state().table_files("hands")[0].path).unlink()
    result = subprocess.run([sys.executable, "-m", "ofc_stats", "stats", "-w",
                             str(warehouse.root)], cwd=ROOT, capture_output=True, text=True,
                            check=False)
    assert result.returncode == 5
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert "is missing" in result.stderr
    assert "ofc-stats check" in result.stderr


def test_repair_drops_the_fantasyland_review_with_the_scores(warehouse: Warehouse) -> None:
    from ofc_stats.analysis.fantasyland_review import REVIEW_TABLE, review_warehouse

    review_warehouse(warehouse)
    reviewed = warehouse.scan(REVIEW_TABLE, "default").select("site", "hand_id", "seat").collect()
    assert reviewed.height > 0
    (warehouse.root / warehouse.state().table_files("hands")[0].path).unlink()
    report = repair_warehouse(warehouse)
    assert report.rescore
    # Reviews of hands no longer stored are not kept beside them.
    assert not warehouse.state().table_files(REVIEW_TABLE)
    ingest([SAMPLE_DATA], warehouse)
    review_warehouse(warehouse)
    again = warehouse.scan(REVIEW_TABLE, "default").select("site", "hand_id", "seat").collect()
    assert again.height == again.unique().height == reviewed.height
    assert check_warehouse(warehouse).whole
