"""fpdb-3's SQLite database, imported in place: only new rows, read-only, while a writer
holds it; fpdb-3's own rows and the simulator's hands in its table layout."""

from __future__ import annotations

import gzip
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from ofc_stats.analysis.audit import audit_warehouse
from ofc_stats.analysis.score import score_warehouse
from ofc_stats.formats import fpdb_database
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.fpdb_database import TABLES, read_database, write_database
from ofc_stats.formats.fpdb_writer import raw_json_lines
from ofc_stats.ingest import ingest
from ofc_stats.simulate import Simulation, SimulationConfig, parse_faults
from ofc_stats.warehouse import Warehouse
from tests.test_audit_simulated import expected_findings, found_errors

FIXTURES = Path(__file__).parent / "fixtures" / "fpdb3"


def fixture_rows(name: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = json.loads((FIXTURES / f"{name}.rows.json").read_text())
    return rows


def fixture_database(path: Path, journal: str = "delete") -> Path:
    """fpdb-3's database holding its one OFC hand, row for row as fpdb-3 stored it."""
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA journal_mode = {journal}")
        for statement in TABLES:
            connection.execute(statement)
        for table in ("HttpOFCHands", "HttpOFCPlayers", "HttpOFCRounds"):
            for row in fixture_rows(table):
                if table == "HttpOFCHands":
                    row = {**row, "rawJson": (FIXTURES / "HttpOFCHands.rawJson.json").read_text()}
                connection.execute(
                    f"INSERT INTO {table} ({', '.join(row)}) VALUES "
                    f"({', '.join('?' for _ in row)})", list(row.values()))
    return path


def hands_of(seed: int, hands: int, *, site: str = "ofc-sim") -> list[CanonicalBatch]:
    # Classic and Pineapple: fpdb-3's hand object cannot say Progressive or Ultimate.
    config = SimulationConfig(seed=seed, hands=hands, tables=3, site=site,
                              variants=("classic", "pineapple"), batch_hands=150)
    return list(Simulation(config))


def stored(warehouse: Path) -> pl.DataFrame:
    return Warehouse.open(warehouse).scan("hands").collect()


def test_the_tables_are_fpdb_3s(tmp_path: Path) -> None:
    database = fixture_database(tmp_path / "fpdb.db3")
    with sqlite3.connect(database) as connection:
        for table in ("HttpOFCHands", "HttpOFCPlayers", "HttpOFCRounds"):
            columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
            assert columns == list(fixture_rows(table)[0])


def test_fpdb_3s_own_database_imports_scores_and_audits(tmp_path: Path) -> None:
    database = fixture_database(tmp_path / "fpdb.db3", journal="wal")
    summary = ingest([database], tmp_path / "wh")
    assert (summary.files_read, summary.hands_stored, summary.problems_by_kind) == (
        1, 1, {"streets": 1})  # its rounds move cards between rows: stored without them
    warehouse = Warehouse.open(tmp_path / "wh")
    hand = stored(tmp_path / "wh").row(0, named=True)
    assert (hand["hand_id"], hand["source_file"], hand["source_line"]) == (
        "777001", str(database), 1)  # the row's id
    assert score_warehouse(warehouse).hands == 1
    # audit checks SwC's scoring: it settled alice +5 with royalties 2, 3, 4; the rules
    # give her a scoop and 40 in royalties over bob's fouled board.
    findings = audit_warehouse(warehouse).findings.filter(pl.col("hand_id") == "777001")
    assert set(findings.select("kind", "ours", "reported").iter_rows()) == {
        ("points", "alice +46, bob -46", "alice +5, bob -5"),
        ("royalties", "alice +40, bob 0", "alice +9, bob 0")}


@pytest.mark.slow
def test_simulated_hands_in_fpdb_3s_database_are_audited_exactly(tmp_path: Path) -> None:
    config = SimulationConfig(seed=21, hands=3000, tables=4, variants=("classic", "pineapple"),
                              faults=parse_faults("mis-scored=3,fl-missing=2,fl-unearned=2,"
                                                  "fl-cards=2,gap=2"))
    simulation = Simulation(config)
    database = tmp_path / "fpdb.db3"
    assert write_database(simulation, database) == simulation.hands_written
    summary = ingest([database], tmp_path / "wh")
    assert summary.hands_stored == simulation.hands_written
    assert summary.rejected == 0
    warehouse = Warehouse.open(tmp_path / "wh")
    score_warehouse(warehouse)
    expected = expected_findings(list(simulation.faults))
    assert len(expected) == 9
    assert found_errors(warehouse) == expected


def test_deuce_to_seven_hands_in_fpdb_3s_database_are_scored_and_audited(
        tmp_path: Path) -> None:
    # SwC's OFC/P 2-7 (ofcp_27) is scored under the deuce-to-seven preset, its middle
    # row as lowball, and the room's mis-scored hands are found.
    config = SimulationConfig(seed=23, hands=400, tables=2, variants=("deuce-to-seven",),
                              faults=parse_faults("mis-scored=2"))
    simulation = Simulation(config)
    database = tmp_path / "fpdb.db3"
    assert write_database(simulation, database) == simulation.hands_written
    summary = ingest([database], tmp_path / "wh")
    assert (summary.hands_stored, summary.rejected) == (simulation.hands_written, 0)
    assert "variant" not in summary.problems_by_kind
    warehouse = Warehouse.open(tmp_path / "wh")
    assert score_warehouse(warehouse).hands == simulation.hands_written
    scored = warehouse.scan("player_hands", "default").collect()
    assert set(scored["variant"]) == {"deuce-to-seven"}
    assert found_errors(warehouse) == expected_findings(list(simulation.faults))


def test_a_growing_database_imports_only_the_new_rows(tmp_path: Path) -> None:
    first, second = hands_of(3, 450)[:2], hands_of(3, 450)[2:]
    database = tmp_path / "fpdb.db3"
    write_database(first, database)
    before = sum(batch.hands.height for batch in first)
    assert ingest([database], tmp_path / "wh").hands_stored == before
    write_database(second, database)  # fpdb-3 went on capturing
    grown = ingest([database], tmp_path / "wh")
    added = sum(batch.hands.height for batch in second)
    assert (grown.files_read, grown.hands_read, grown.hands_stored, grown.duplicates) == (
        1, added, added, 0)
    again = ingest([database], tmp_path / "wh")
    assert (again.files_unchanged, again.hands_read) == (1, 0)
    imports = Warehouse.open(tmp_path / "wh").scan("imports").sort("commit_id").collect()
    assert imports.select("start_offset", "end_offset", "status").rows() == [
        (0, before, "complete"), (before, before + added, "complete")]
    # A hand captured again is deleted and inserted with a new id: read, a duplicate.
    write_database([first[0].with_hands(first[0].hands.head(1))], database)
    recaptured = ingest([database], tmp_path / "wh")
    assert (recaptured.hands_read, recaptured.duplicates) == (1, 1)
    assert stored(tmp_path / "wh").height == before + added


def test_a_wal_database_grows_in_its_wal_file_and_still_imports(tmp_path: Path) -> None:
    database = tmp_path / "fpdb.db3"
    batches = hands_of(4, 300)
    with sqlite3.connect(database) as connection:
        connection.execute("PRAGMA journal_mode = wal")
    write_database(batches[:1], database)
    holder = sqlite3.connect(database)  # as fpdb-3 keeps it open: the WAL stays
    holder.execute("SELECT count(*) FROM HttpOFCHands").fetchone()
    try:
        ingest([database], tmp_path / "wh")
        write_database(batches[1:], database)
        assert Path(f"{database}-wal").stat().st_size > 0
        grown = ingest([database], tmp_path / "wh")
        assert grown.hands_stored == sum(batch.hands.height for batch in batches[1:])
    finally:
        holder.close()


@pytest.fixture
def busy_database(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[
        tuple[Path, sqlite3.Connection, int, int]]:
    """A database with hands, and a second connection in the middle of writing one more
    (its transaction open, not committed)."""
    journal, begin = request.param
    database = tmp_path / "fpdb.db3"
    with sqlite3.connect(database) as connection:
        connection.execute(f"PRAGMA journal_mode = {journal}")
    batches = hands_of(5, 300)
    write_database(batches[:-1], database)
    committed = sum(batch.hands.height for batch in batches[:-1])
    writer = sqlite3.connect(database, isolation_level=None, timeout=0)
    writer.execute(f"BEGIN {begin}")
    for hand_id, line in zip(batches[-1].hands["hand_id"], raw_json_lines(batches[-1]),
                             strict=True):
        writer.execute("INSERT INTO HttpOFCHands (site, siteHandNo, rawJson) VALUES (?, ?, ?)",
                       ("ofc-sim", hand_id, line))
    try:
        yield database, writer, committed, batches[-1].hands.height
    finally:
        writer.close()


@pytest.mark.parametrize("busy_database", [("delete", "IMMEDIATE"), ("wal", "IMMEDIATE"),
                                           ("wal", "EXCLUSIVE")], indirect=True,
                         ids=["rollback journal", "wal", "wal exclusive"])
def test_a_database_a_writer_holds_still_reads(
        tmp_path: Path, busy_database: tuple[Path, sqlite3.Connection, int, int]) -> None:
    database, writer, committed, pending = busy_database
    summary = ingest([database], tmp_path / "wh")
    assert (summary.hands_stored, summary.rejected) == (committed, 0)  # the committed rows
    writer.execute("COMMIT")  # the writer was not kept from committing either
    assert ingest([database], tmp_path / "wh").hands_stored == pending
    assert stored(tmp_path / "wh").height == committed + pending


@pytest.mark.parametrize("busy_database", [("delete", "EXCLUSIVE")], indirect=True,
                         ids=["rollback journal exclusive"])
def test_a_database_locked_for_longer_than_the_read_waits_is_read_next_time(
        tmp_path: Path, busy_database: tuple[Path, sqlite3.Connection, int, int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Only an exclusive lock keeps a rollback-journal database from readers (a commit
    # being written): the read waits, then gives up for this time, never for good.
    database, writer, committed, pending = busy_database
    monkeypatch.setattr(fpdb_database, "BUSY_TIMEOUT", 0.2)
    locked = ingest([database], tmp_path / "wh")
    assert (locked.hands_stored, locked.files_failed, locked.problems_by_kind) == (
        0, 1, {"file": 1})
    reason = Warehouse.open(tmp_path / "wh").scan("rejects").collect()["reason"][0]
    assert "locked by a writer" in reason
    writer.execute("COMMIT")
    assert ingest([database], tmp_path / "wh").hands_stored == committed + pending


def test_the_database_is_only_read(tmp_path: Path) -> None:
    database = tmp_path / "fpdb.db3"
    write_database(hands_of(6, 150), database)
    before = (hashlib.sha256(database.read_bytes()).hexdigest(), database.stat().st_mtime_ns)
    ingest([database], tmp_path / "wh")
    ingest([database], tmp_path / "wh")
    assert (hashlib.sha256(database.read_bytes()).hexdigest(),
            database.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fpdb.db3", "wh"]  # no journal


def test_a_database_replaced_by_another_is_read_from_the_start(tmp_path: Path) -> None:
    database = tmp_path / "fpdb.db3"
    write_database(hands_of(7, 300), database)
    ingest([database], tmp_path / "wh")
    database.unlink()
    fresh = hands_of(8, 150, site="another-room")
    write_database(fresh, database)  # a new fpdb-3 database: ids start again
    again = ingest([database], tmp_path / "wh")
    assert again.hands_stored == sum(batch.hands.height for batch in fresh)
    message = (Warehouse.open(tmp_path / "wh").scan("imports").sort("commit_id").collect()
               ["message"][-1])
    assert "read again from the start" in message


def test_rows_that_are_not_hands_are_set_aside_with_their_id(tmp_path: Path) -> None:
    database = tmp_path / "fpdb.db3"
    write_database(hands_of(9, 60), database)
    with sqlite3.connect(database) as connection:
        good = connection.execute("SELECT count(*) FROM HttpOFCHands").fetchone()[0]
        connection.execute("INSERT INTO HttpOFCHands (site, siteHandNo, rawJson) "
                           "VALUES ('x', 'bad-1', ?)", (b'{"hand_id": "bad-1", \xff}',))
        connection.execute("INSERT INTO HttpOFCHands (site, siteHandNo, rawJson) "
                           "VALUES ('x', 'bad-2', NULL)")
    read = CanonicalBatch.concat([batch.batch for batch in read_database(database)])
    assert read.hands.height == good
    problems = read.problems.sort("line").select("line", "kind").rows()
    assert problems == [(good + 1, "encoding"), (good + 2, "syntax")]
    assert "not valid UTF-8 at byte 21" in read.problems.sort("line")["reason"][0]


def test_other_databases_and_archives_are_told_apart(tmp_path: Path) -> None:
    other = tmp_path / "other.db3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    packed = tmp_path / "fpdb.db3.gz"
    database = tmp_path / "fpdb.db3"
    write_database(hands_of(10, 60), database)
    packed.write_bytes(gzip.compress(database.read_bytes()))
    database.unlink()
    summary = ingest([tmp_path], tmp_path / "wh")  # a folder walk takes .db3 files
    assert (summary.files_read, summary.files_failed, summary.hands_stored) == (2, 2, 0)
    reasons = sorted(Warehouse.open(tmp_path / "wh").scan("rejects").collect()["reason"])
    assert "without fpdb-3's HttpOFCHands table" in reasons[1]
    assert "inside an archive: unpack it" in reasons[0]
    assert ingest([tmp_path], tmp_path / "wh").files_unchanged == 2  # until they change
