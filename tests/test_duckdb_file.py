"""External DuckDB sessions on ``ofc.duckdb``: your own objects survive every refresh,
a session opened before a compaction goes on reading, a file open for writing elsewhere
is left alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from ofc_stats.ingest import ingest
from ofc_stats.simulate import SimulationConfig
from ofc_stats.simulate.files import write_simulation
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.catalog import DATABASE_FILE, our_objects

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def histories(tmp_path: Path) -> list[Path]:
    """Three rooms' histories, ingested one after another."""
    folders = []
    for number in range(3):
        folder = tmp_path / f"room{number}"
        write_simulation(SimulationConfig(seed=number, hands=200, tables=1,
                                          site=f"room{number}"), folder, "jsonl")
        folders.append(folder)
    return folders


def test_your_own_objects_survive_every_refresh(tmp_path: Path, histories: list[Path]
                                                ) -> None:
    warehouse = tmp_path / "warehouse"
    ingest([histories[0]], warehouse)
    database = warehouse / DATABASE_FILE
    with duckdb.connect(str(database)) as mine:
        mine.execute("CREATE SCHEMA notes")
        mine.execute("CREATE TABLE notes.tags (hand_id VARCHAR PRIMARY KEY, tag VARCHAR)")
        mine.execute("INSERT INTO notes.tags SELECT hand_id, 'seen' FROM hands LIMIT 5")
        mine.execute("CREATE MACRO twice(x) AS x * 2")
        mine.execute("CREATE VIEW per_site AS SELECT site, twice(count(*)) AS n FROM hands "
                     "GROUP BY site")
    ingest([histories[1]], warehouse)  # a refresh, with new files
    with duckdb.connect(str(database), read_only=True) as reader:
        assert reader.execute("SELECT count(*) FROM notes.tags").fetchone() == (5,)
        assert sorted(reader.execute("SELECT site, n FROM per_site").fetchall()) == [
            ("room0", 400), ("room1", 400)]  # your view, over the refreshed one
        made = {row[0] for row in reader.execute("SELECT name FROM _ofc_stats_objects")
                .fetchall()}
    assert made == set(our_objects())
    assert "per_site" not in made
    assert "tags" not in made


def test_a_session_opened_before_a_compaction_goes_on_reading(
        tmp_path: Path, histories: list[Path]) -> None:
    warehouse = Warehouse.open(tmp_path / "warehouse", create=True)
    ingest([histories[0]], warehouse, commit_hands=10, batch_hands=10, compact=False)
    files_before = len(warehouse.state().table_files("hands"))
    assert files_before >= 16
    session = duckdb.connect(str(warehouse.root / DATABASE_FILE), read_only=True)
    try:
        assert session.execute("SELECT count(*) FROM hands").fetchone() == (200,)
        ingest([histories[1]], warehouse)  # compacts the small files away
        assert len(warehouse.state().table_files("hands")) < files_before
        ingest([histories[2]], warehouse)  # the next writer's sweep
        # The files its views name were removed by a commit, and are kept a day.
        assert session.execute("SELECT count(*) FROM hands").fetchone() == (200,)
    finally:
        session.close()
    with duckdb.connect(str(warehouse.root / DATABASE_FILE), read_only=True) as fresh:
        assert fresh.execute("SELECT count(*) FROM hands").fetchone() == (600,)


def test_a_file_open_for_writing_elsewhere_is_left_as_it_is(
        tmp_path: Path, histories: list[Path]) -> None:
    warehouse = tmp_path / "warehouse"
    ingest([histories[0]], warehouse)
    database = warehouse / DATABASE_FILE
    writer = subprocess.Popen(
        [sys.executable, "-c", "import sys, time, duckdb\n"
         "c = duckdb.connect(sys.argv[1])\nc.execute('CREATE TABLE mine AS SELECT 42 AS n')\n"
         "c.execute('CHECKPOINT')\nprint('open', flush=True)\nsys.stdin.readline()\n"
         "c.execute('INSERT INTO mine VALUES (43)')\nc.close()", str(database)],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None
        assert writer.stdin is not None
        assert writer.stdout.readline().strip() == "open"
        ingest([histories[1]], warehouse)  # cannot refresh now: the file stays its
        writer.stdin.write("go\n")
        writer.stdin.flush()
        assert writer.wait(30) == 0
    finally:
        writer.kill()
        writer.communicate()
    ingest([histories[1]], warehouse)  # nothing new; the stale file is refreshed now
    with duckdb.connect(str(database), read_only=True) as reader:
        assert sorted(reader.execute("SELECT n FROM mine").fetchall()) == [(42,), (43,)]
        assert reader.execute("SELECT count(*) FROM hands").fetchone() == (400,)
