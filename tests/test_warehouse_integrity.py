"""One writer always: commits are a compare-and-swap on the log, the lock knows its
holder, a bad checkpoint deletes nothing, and what no commit names is set aside."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from ofc_stats.ingest import ingest
from ofc_stats.simulate import SimulationConfig
from ofc_stats.simulate.files import write_simulation
from ofc_stats.warehouse import (
    LOCK_FILE,
    LOG_DIR,
    QUARANTINE_DIR,
    PendingFile,
    Warehouse,
    WarehouseConflictError,
    WarehouseLockedError,
    WarehouseLockLostError,
)
from ofc_stats.warehouse.lock import LockIdentity
from ofc_stats.warehouse.log import entry_name, write_checkpoint, write_commit

ROOT = Path(__file__).resolve().parent.parent
# ingest as a real process, committing often (the race needs commits to race).
INGEST = ("import sys; from ofc_stats.ingest import ingest; "
          "ingest(sys.argv[1:-1], sys.argv[-1], commit_hands=1000, batch_hands=500)")


def frame(start: int, rows: int) -> pl.DataFrame:
    return pl.DataFrame({"n": range(start, start + rows)})


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("race") / "histories"
    write_simulation(SimulationConfig(seed=5, hands=12_000, tables=6), folder, "jsonl")
    return folder


def _start_ingest(histories: Path, warehouse: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", INGEST, str(histories), str(warehouse)],
                            cwd=ROOT, stderr=subprocess.PIPE, text=True)


def _wait_for_commits(warehouse: Path, count: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        log = warehouse / LOG_DIR
        if log.is_dir() and len(list(log.glob("[0-9]*.json"))) >= count:
            return
        time.sleep(0.005)


def stored_keys(warehouse: Path) -> pl.DataFrame:
    return Warehouse.open(warehouse).scan("hands").select("site", "hand_id").collect()


def delete_the_lock_mid_ingest(histories: Path, warehouse: Path, commits: int
                               ) -> list[tuple[int, str]]:
    """Start an ingest; once it has made ``commits`` commits, delete its .lock (it
    looks stale) and start a second ingest of the same files; wait for both and
    return their exit codes and error output."""
    first = _start_ingest(histories, warehouse)
    _wait_for_commits(warehouse, commits, first)
    (warehouse / LOCK_FILE).unlink(missing_ok=True)
    second = _start_ingest(histories, warehouse)
    errors = [process.communicate(timeout=300)[1] for process in (first, second)]
    return [(process.returncode, text) for process, text in zip((first, second), errors,
                                                                 strict=True)]


@pytest.mark.slow
@pytest.mark.parametrize("commits", [1, 3, 6])
def test_deleting_the_lock_mid_ingest_never_stores_a_hand_twice(
        tmp_path: Path, histories: Path, commits: int) -> None:
    warehouse = tmp_path / "warehouse"
    runs = delete_the_lock_mid_ingest(histories, warehouse, commits)
    for code, errors in runs:  # each finished, or was refused cleanly
        assert code == 0 or ("WarehouseLockLostError" in errors
                             or "WarehouseConflictError" in errors), errors
    keys = stored_keys(warehouse)
    assert keys.height == keys.unique().height  # no (site, hand_id) twice, ever
    # Nothing lost either: what the two left undone, a third run finishes.
    ingest([histories], warehouse)
    keys = stored_keys(warehouse)
    assert keys.height == keys.unique().height == 12_000


def test_a_commit_is_refused_unless_it_is_the_next_one(tmp_path: Path) -> None:
    warehouse = Warehouse.open(tmp_path, create=True)
    with warehouse.writing():
        warehouse.commit([PendingFile("hands", frame(0, 3))], action="ingest")
        # Another writer (one that ignored the lock) makes commit 2 meanwhile.
        write_commit(tmp_path, {"id": 2, "action": "ingest", "add": [], "remove": []})
        with pytest.raises(WarehouseConflictError, match=r"commit 2.*refused"):
            warehouse.commit([PendingFile("hands", frame(3, 3))], action="ingest")
    assert warehouse.state().commit == 2
    assert warehouse.scan("hands").collect().height == 3
    # The log entry itself cannot be made twice: creating it is exclusive.
    with pytest.raises(FileExistsError):
        write_commit(tmp_path, {"id": 2, "action": "ingest", "add": [], "remove": []})


def test_the_lock_carries_its_holders_identity_and_is_checked(tmp_path: Path) -> None:
    warehouse = Warehouse.open(tmp_path, create=True)
    with warehouse.writing():
        holder = LockIdentity.parse((tmp_path / LOCK_FILE).read_text())
        assert holder is not None
        assert holder.pid == os.getpid()
        assert holder.host
        assert holder.started
        assert len(holder.token) == 32
        # Deleted: the next commit is refused.
        (tmp_path / LOCK_FILE).unlink()
        with pytest.raises(WarehouseLockLostError, match="was deleted"):
            warehouse.commit([PendingFile("hands", frame(0, 1))], action="ingest")
    with warehouse.writing():
        # Replaced by another process's lock file.
        other = LockIdentity(1, "elsewhere", "2026-01-01T00:00:00+00:00", "0" * 32)
        replacement = tmp_path / "replacement"
        replacement.write_text(other.text())
        os.replace(replacement, tmp_path / LOCK_FILE)
        with pytest.raises(WarehouseLockLostError, match="now names pid 1 on host elsewhere"):
            warehouse.commit([PendingFile("hands", frame(0, 1))], action="ingest")
    assert warehouse.state().commit == 0
    assert not list((tmp_path / "hands").glob("*.parquet"))


def test_a_busy_warehouse_names_its_writer(tmp_path: Path) -> None:
    Warehouse.open(tmp_path, create=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from ofc_stats.warehouse import Warehouse\n"
         "with Warehouse(sys.argv[1]).writing():\n print('held', flush=True); time.sleep(30)",
         str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(WarehouseLockedError,
                           match=rf"pid {holder.pid} on host .*do not delete \.lock"), \
                Warehouse(tmp_path).writing(timeout=0.2):
            pass
    finally:
        holder.kill()
        holder.communicate()


def _ingested(tmp_path: Path) -> Warehouse:
    histories = tmp_path / "histories"
    write_simulation(SimulationConfig(seed=3, hands=3000, tables=3), histories, "jsonl")
    ingest([histories], tmp_path / "warehouse", commit_hands=200, batch_hands=100,
           compact=False)
    return Warehouse.open(tmp_path / "warehouse")


def _parquet_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*.parquet")
            if QUARANTINE_DIR not in p.parts}


@pytest.mark.parametrize("digests", [True, False])
def test_a_checkpoint_that_parses_but_is_wrong_deletes_nothing(
        tmp_path: Path, digests: bool) -> None:
    warehouse = _ingested(tmp_path)
    root = warehouse.root
    state = warehouse.state()
    hands = warehouse.scan("hands").collect().height
    files = _parquet_files(root)
    assert len(files) > 60
    # A checkpoint at the last commit listing 6 files only.
    write_checkpoint(root, state.commit)
    checkpoint = root / LOG_DIR / f"{state.commit:012d}.checkpoint.json"
    data = json.loads(checkpoint.read_text())
    data["files"] = data["files"][:6]
    checkpoint.write_text(json.dumps(data))
    if not digests:  # as a log written before commits recorded their state
        for entry in (root / LOG_DIR).glob("[0-9]*[0-9].json"):
            record = json.loads(entry.read_text())
            record.pop("state", None)
            entry.write_text(json.dumps(record))
    else:  # readers pass over it at once
        assert warehouse.scan("hands").collect().height == hands
    more = tmp_path / "more"
    write_simulation(SimulationConfig(seed=4, hands=300, tables=1, site="other"), more, "jsonl")
    ingest([more], warehouse, compact=False)
    assert files <= _parquet_files(root)  # not one file deleted
    assert not (root / QUARANTINE_DIR).exists()
    assert warehouse.scan("hands").collect().height == hands + 300
    assert len(json.loads(checkpoint.read_text())["files"]) == len(state.files)  # mended


def test_files_no_commit_names_are_quarantined_not_deleted(tmp_path: Path) -> None:
    warehouse = Warehouse.open(tmp_path, create=True)
    with warehouse.writing():
        warehouse.commit([PendingFile("hands", frame(0, 3))], action="ingest")
    stray = tmp_path / "seats" / "000000007-feedbeef-0000.parquet"
    stray.parent.mkdir()
    frame(0, 2).write_parquet(stray)
    notes = tmp_path / "hands" / "notes.txt"  # not a warehouse file: left alone
    notes.write_text("mine")
    with warehouse.writing() as writing:
        swept = writing.sweep()
    assert swept.quarantined == []  # the first sweep, on entry, did it already
    assert (tmp_path / QUARANTINE_DIR / "seats" / stray.name).is_file()
    assert notes.read_text() == "mine"
    # The same name again: kept beside the first, numbered.
    frame(0, 2).write_parquet(stray)
    with warehouse.writing():
        pass
    assert (tmp_path / QUARANTINE_DIR / "seats" / f"{stray.name}.1").is_file()
    shutil.rmtree(tmp_path / QUARANTINE_DIR)


def test_log_entries_are_named_by_commit(tmp_path: Path) -> None:
    warehouse = Warehouse.open(tmp_path, create=True)
    with warehouse.writing():
        warehouse.commit([PendingFile("hands", frame(0, 3))], action="ingest")
    record = json.loads((tmp_path / LOG_DIR / entry_name(1)).read_text())
    assert record["state"]["files"] == 1
