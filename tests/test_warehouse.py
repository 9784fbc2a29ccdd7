"""The warehouse's commit log, atomicity, locking and compaction."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import polars as pl
import pytest

from ofc_stats.warehouse import (
    QUARANTINE_DIR,
    PendingFile,
    Warehouse,
    WarehouseError,
    WarehouseLockedError,
    store,
)
from ofc_stats.warehouse.log import CHECKPOINT_EVERY
from ofc_stats.warehouse.schemas import TABLE_SCHEMAS


def frame(start: int, rows: int) -> pl.DataFrame:
    return pl.DataFrame({"n": range(start, start + rows)})


def test_open_requires_a_warehouse_unless_creating(tmp_path: Path) -> None:
    with pytest.raises(WarehouseError, match="no warehouse at"):
        Warehouse.open(tmp_path / "wh")
    warehouse = Warehouse.open(tmp_path / "wh", create=True)
    assert (warehouse.root / "_log").is_dir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(WarehouseError, match="is not an ofc-stats warehouse"):
        Warehouse.open(tmp_path / "other", create=True)


def test_commits_add_and_remove_files_atomically(tmp_path: Path) -> None:
    warehouse = Warehouse.open(tmp_path, create=True)
    with warehouse.writing():
        first = warehouse.commit([PendingFile("hands", frame(0, 3)),
                                  PendingFile("seats", frame(0, 6))], action="ingest")
        warehouse.commit([PendingFile("hands", frame(3, 2)),
                          PendingFile("player_hands", frame(0, 4), "pineapple")],
                         action="ingest")
    assert first == 1
    assert warehouse.scan("hands").collect()["n"].to_list() == [0, 1, 2, 3, 4]
    assert warehouse.scan("player_hands", "pineapple").collect().height == 4
    assert warehouse.state().partitions("player_hands") == ["pineapple"]
    assert not list(tmp_path.rglob(".tmp-*"))
    assert warehouse.scan("streets", schema=pl.Schema({"n": pl.Int64})).collect().height == 0


def test_uncommitted_files_are_invisible_and_swept(tmp_path: Path) -> None:
    warehouse = Warehouse.open(tmp_path, create=True)
    with warehouse.writing():
        warehouse.commit([PendingFile("hands", frame(0, 3))], action="ingest")
    # A writer killed after writing a file but before its commit leaves an orphan.
    orphan = tmp_path / "hands" / "000000002-dead-0000.parquet"
    frame(99, 1).write_parquet(orphan)
    (tmp_path / "hands" / ".tmp-half-written.parquet").write_bytes(b"PAR1 half")
    assert warehouse.scan("hands").collect().height == 3
    with warehouse.writing():
        pass
    # Set aside, never deleted: no commit ever named it.
    assert not orphan.exists()
    assert (tmp_path / QUARANTINE_DIR / "hands" / orphan.name).is_file()
    assert not (tmp_path / "hands" / ".tmp-half-written.parquet").exists()


def _hold_lock(root: str, seconds: float, started: multiprocessing.synchronize.Event) -> None:
    with Warehouse(root).writing():
        started.set()
        time.sleep(seconds)


def test_a_second_writer_waits_then_fails_clearly(tmp_path: Path) -> None:
    Warehouse.open(tmp_path, create=True)
    started = multiprocessing.get_context("fork").Event()
    holder = multiprocessing.get_context("fork").Process(
        target=_hold_lock, args=(str(tmp_path), 3.0, started))
    holder.start()
    try:
        assert started.wait(10)
        with pytest.raises(WarehouseLockedError, match="busy: another ofc-stats process"), \
                Warehouse(tmp_path).writing(timeout=0.5):
            pass
        with Warehouse(tmp_path).writing(timeout=10):  # waits for the holder to finish
            pass
    finally:
        holder.join()


def test_checkpoints_keep_replay_short_and_equal(tmp_path: Path) -> None:
    warehouse = Warehouse.open(tmp_path, create=True)
    with warehouse.writing():
        for n in range(CHECKPOINT_EVERY + 3):
            warehouse.commit([PendingFile("hands", frame(n, 1))], action="ingest")
    assert list((tmp_path / "_log").glob("*.checkpoint.json"))
    state = warehouse.state()
    assert state.commit == CHECKPOINT_EVERY + 3
    assert sorted(warehouse.scan("hands").collect()["n"].to_list()) == list(
        range(CHECKPOINT_EVERY + 3))


def test_compaction_merges_small_files_without_changing_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    warehouse = Warehouse.open(tmp_path, create=True)
    with warehouse.writing():
        for n in range(12):
            warehouse.commit([PendingFile("hands", frame(n * 10, 10)),
                              PendingFile("player_hands", frame(n, 1), "classic")],
                             action="ingest")
        before = sorted(warehouse.scan("hands").collect()["n"].to_list())
        merged = warehouse.compact("hands", target_rows=50)
        assert warehouse.compact("player_hands") == 12
    assert merged == 12
    assert len(warehouse.files("hands")) == 3  # 50 + 50 + 20 rows
    assert sorted(warehouse.scan("hands").collect()["n"].to_list()) == before
    assert len(warehouse.files("player_hands", "classic")) == 1
    with warehouse.writing():  # the merged-away files stay a while, for readers...
        pass
    assert len(list((tmp_path / "hands").glob("*.parquet"))) == 15
    monkeypatch.setattr(store, "KEEP_REMOVED_SECONDS", 0)
    with warehouse.writing():  # ...then the next writer deletes them
        pass
    assert len(list((tmp_path / "hands").glob("*.parquet"))) == 3
    assert not (tmp_path / QUARANTINE_DIR).exists()


def test_every_table_has_its_schema_from_the_one_place(sample_warehouse: Warehouse) -> None:
    """What ingest, score and the Fantasyland pass write is what
    ofc_stats.warehouse.schemas says (score writes its scoring and ruleset labels as
    categories: text to every reader)."""
    for table, schema in TABLE_SCHEMAS.items():
        assert sample_warehouse.files(table), table
        stored = sample_warehouse.scan(table).collect_schema()
        as_text = {name: pl.String() if dtype == pl.Categorical else dtype
                   for name, dtype in stored.items()}
        assert as_text == dict(schema), table
