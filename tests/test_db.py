"""The DuckDB layer: views in step with the warehouse, named queries, read-only SQL."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from ofc_stats.analysis.fantasyland_review import review_warehouse
from ofc_stats.analysis.score import score_warehouse
from ofc_stats.cli import app
from ofc_stats.db import QueryError, named_queries, query_warehouse
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.catalog import DATABASE_FILE
from tests.builders import ENTRY_QQ, ENTRY_QQ_2, NOTHING_1, NOTHING_2, TRIPS_TOP, Hand, Seat, store

runner = CliRunner()
BOARDS_1 = [ENTRY_QQ, NOTHING_1, TRIPS_TOP]
BOARDS_2 = [NOTHING_2, ENTRY_QQ_2]


def hands(count: int, start: int = 0, minute_step: float = 2.0) -> list[Hand]:
    # alice's QQ in d-000 earns Fantasyland: she plays d-001 in it.
    return [Hand(f"d-{i:03d}", [Seat("alice", BOARDS_1[i % 3], in_fantasyland=i == 1,
                                     fl_cards=14 if i == 1 else None),
                                Seat("bob", BOARDS_2[i % 2])],
                 minute=i * minute_step, extra={"point_value": "0.5", "currency": "EUR"})
            for i in range(start, start + count)]


@pytest.fixture
def scored(tmp_path: Path) -> Path:
    warehouse = store(tmp_path, hands(12))
    score_warehouse(warehouse)
    review_warehouse(warehouse)
    return tmp_path


def test_views_follow_the_warehouse_and_the_duckdb_file_opens_elsewhere(scored: Path) -> None:
    from ofc_stats.warehouse import Warehouse

    warehouse = Warehouse.open(scored)
    assert query_warehouse(warehouse, "SELECT count(*) AS n FROM player_hands")["n"][0] == 24
    store(scored, hands(3, start=12))  # more hands, not yet scored
    assert query_warehouse(warehouse, "SELECT count(*) AS n FROM hands")["n"][0] == 15
    assert query_warehouse(warehouse, "SELECT count(*) AS n FROM player_hands")["n"][0] == 24
    score_warehouse(warehouse)
    with duckdb.connect(str(scored / DATABASE_FILE), read_only=True) as connection:
        names = {row[0] for row in connection.execute("SHOW TABLES").fetchall()}
        assert {"hands", "seats", "player_hands", "matchups", "sessions",
                "fl_transitions", "fl_review", "rejects", "imports"} <= names
        count = connection.execute("SELECT count(*) FROM player_hands").fetchone()
        assert count == (30,)


def test_matchups_view_shows_each_pair_from_both_sides(scored: Path) -> None:
    from ofc_stats.warehouse import Warehouse

    frame = query_warehouse(Warehouse.open(scored), "SELECT player, sum(points) AS points "
                            "FROM matchups GROUP BY player ORDER BY player")
    alice, bob = frame["points"].to_list()
    assert alice == -bob
    assert alice != 0


def test_sessions_split_on_the_configured_gap(tmp_path: Path) -> None:

    warehouse = store(tmp_path, hands(6, minute_step=20))  # 20 minutes between hands
    score_warehouse(warehouse)
    per_player = "SELECT count(*) AS sessions FROM sessions WHERE player = 'alice'"
    assert query_warehouse(warehouse, per_player)["sessions"][0] == 1  # default gap 30
    assert query_warehouse(warehouse, per_player, session_gap_minutes=21)[
        "sessions"][0] == 1
    assert query_warehouse(warehouse, per_player, session_gap_minutes=19)[
        "sessions"][0] == 6
    money = query_warehouse(warehouse, "SELECT money, points FROM sessions", session_gap_minutes=60)
    assert money["money"].to_list()[0] * 2 == money["points"].to_list()[0]


@pytest.mark.parametrize("sql", [
    "CREATE TABLE x AS SELECT 1",
    "COPY (SELECT 1) TO 'out.csv'",
    "DROP VIEW hands",
    "INSERT INTO hands SELECT * FROM hands",
    "SELECT 1; DELETE FROM hands",
    "ATTACH 'other.db'",
    # EXPLAIN ANALYZE runs what it explains
    "EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO 'out.parquet' (FORMAT parquet)",
    "explain analyse (format json) DELETE FROM hands",
    "EXPLAIN ANALYZE SELECT 1; EXPLAIN ANALYZE DROP VIEW hands",
    # a PIVOT over values from the data is a MULTI statement, which may wrap a COPY
    "COPY (PIVOT matchups ON opponent USING sum(points)) TO 'out.csv'",
    "PIVOT matchups ON opponent USING sum(points) GROUP BY player",
])
def test_writing_statements_are_refused(scored: Path, sql: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from ofc_stats.warehouse import Warehouse

    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    hands = query_warehouse(Warehouse.open(scored), "SELECT count(*) AS n FROM hands")
    with pytest.raises(QueryError, match=r"refused: .* statements can change files"):
        query_warehouse(Warehouse.open(scored), sql)
    assert list(here.iterdir()) == []
    assert query_warehouse(Warehouse.open(scored), "SELECT count(*) AS n FROM hands").equals(
        hands)


@pytest.mark.parametrize("sql", ["EXPLAIN SELECT * FROM hands",
                                 "EXPLAIN ANALYZE SELECT count(*) FROM hands",
                                 "explain (format json) select 1"])
def test_explaining_a_query_is_allowed(scored: Path, sql: str) -> None:
    from ofc_stats.warehouse import Warehouse

    assert query_warehouse(Warehouse.open(scored), sql).height >= 1


def test_sql_errors_are_duckdb_messages_on_one_line(scored: Path) -> None:
    result = runner.invoke(app, ["query", "SELECT nope FROM hands", "-w", str(scored)])
    assert result.exit_code == 2
    assert result.stderr.startswith("ofc-stats: error: Binder Error")
    assert result.stderr.count("\n") == 1
    refused = runner.invoke(app, ["query", "DROP VIEW hands", "-w", str(scored)])
    assert refused.exit_code == 2
    assert "refused: DROP statements" in refused.stderr


def test_every_named_query_has_a_description_and_runs(scored: Path) -> None:
    from ofc_stats.warehouse import Warehouse

    warehouse = Warehouse.open(scored)
    for name, query in named_queries().items():
        assert query.description, name
        values = {p.name: "alice" for p in query.params if p.required}
        frame = query_warehouse(warehouse, name, values)
        assert frame.height > 0, name
    listing = runner.invoke(app, ["query", "--list"])
    assert listing.exit_code == 0
    for name in named_queries():
        assert name in listing.stdout


def test_named_query_parameters(scored: Path) -> None:
    result = runner.invoke(app, ["query", "win_rates", "-p", "player=alice", "--format", "json",
                                 "-w", str(scored)])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [row["player"] for row in rows] == ["alice"]
    assert rows[0]["ci95_low"] <= rows[0]["points_per_hand"] <= rows[0]["ci95_high"]
    assert float(rows[0]["money"]) == rows[0]["points"] / 2
    bad = runner.invoke(app, ["query", "win_rates", "-p", "colour=red", "-w", str(scored)])
    assert bad.exit_code == 2
    assert "has no parameter colour" in bad.stderr
    missing = runner.invoke(app, ["query", "hand_list", "-w", str(scored)])
    assert "needs --param player" in missing.stderr
    wrong_type = runner.invoke(app, ["query", "leaderboard", "-p", "limit=many",
                                     "-w", str(scored)])
    assert wrong_type.stderr == ("ofc-stats: error: --param limit 'many' is not a whole "
                                 "number (e.g. --param limit=20)\n")


def test_query_writes_parquet_and_csv_files(scored: Path, tmp_path: Path) -> None:
    target = tmp_path / "hands.parquet"
    result = runner.invoke(app, ["query", "SELECT * FROM player_hands", "--format", "parquet",
                                 "--out", str(target), "-w", str(scored)])
    assert result.exit_code == 0, result.output
    assert pl.read_parquet(target).height == 24
    csv = runner.invoke(app, ["query", "leaderboard", "--format", "csv", "-w", str(scored)])
    assert csv.stdout.splitlines()[0] == "rank,player,hands,points,points_per_hand,foul_pct,tables"


@pytest.mark.parametrize(("options", "message"), [
    (["leaderboard", "-p", "limit"], "--param: 'limit' is not KEY=VALUE"),
    (["leaderboard", "--format", "parquet"], "needs --out FILE"),
    (["leaderboard", "--out", "result.txt"], "cannot tell a format from 'result.txt'"),
    (["leaderboard", "--out", "result.table"], "cannot tell a format from 'result.table'"),
    (["leaderboard", "--format", "table", "--out", "result.csv"], "--out goes with"),
])
def test_usage_mistakes_are_usage_errors_not_bugs(scored: Path, options: list[str],
                                                  message: str) -> None:
    result = runner.invoke(app, ["query", *options, "-w", str(scored)])
    assert result.exit_code == 2
    assert message in result.stderr
    assert "internal error" not in result.stderr


def test_the_out_suffix_picks_the_format(scored: Path, tmp_path: Path) -> None:
    for suffix, read in ((".parquet", pl.read_parquet), (".csv", pl.read_csv),
                         (".json", pl.read_json)):
        target = tmp_path / f"leaders{suffix}"
        result = runner.invoke(app, ["query", "leaderboard", "--out", str(target),
                                     "-w", str(scored)])
        assert result.exit_code == 0, result.output
        assert sorted(read(target)["player"].to_list()) == ["alice", "bob"]


def test_intervals_and_nested_values_come_out_in_every_format(scored: Path) -> None:
    from ofc_stats.warehouse import Warehouse

    sql = ("SELECT player, ended_at - started_at AS length, [1, 2] AS numbers, "
           "{'a': 1, 'b': ['x']} AS record FROM sessions ORDER BY player LIMIT 1")
    frame = query_warehouse(Warehouse.open(scored), sql)
    assert frame.schema["length"] == pl.Duration("us")
    csv = runner.invoke(app, ["query", sql, "--format", "csv", "-w", str(scored)])
    assert csv.exit_code == 0, csv.output
    header, row = csv.stdout.splitlines()
    assert header == "player,length,numbers,record"
    assert row.startswith("alice,PT")
    assert row.endswith(',"[1,2]","{""a"":1,""b"":[""x""]}"')
    for output in ("json", "table"):
        result = runner.invoke(app, ["query", sql, "--format", output, "-w", str(scored)])
        assert result.exit_code == 0, result.output


def test_stats_explains_an_empty_answer(scored: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    Warehouse.open(empty, create=True)
    nothing = runner.invoke(app, ["stats", "-w", str(empty)])
    assert nothing.exit_code == 6, nothing.output  # nothing scored has a code of its own
    assert "no hands in the warehouse: run 'ofc-stats ingest'" in nothing.stderr
    cases = [
        (["--player", "ALICE", "-w", str(scored)], "did you mean 'alice'?"),
        (["--player", "alicia", "-w", str(scored)], "did you mean 'alice'?"),
        (["--player", "zed", "-w", str(scored)], "no player named 'zed' in the scored hands\n"),
        (["--variant", "holdem", "-w", str(scored)],
         "--variant: no scored hands of variant 'holdem'"),
    ]
    for options, message in cases:
        result = runner.invoke(app, ["stats", *options])
        assert result.exit_code == 2, (options, result.output)
        assert message in result.stderr, (options, result.stderr)
    later = runner.invoke(app, ["stats", "--since", "2099-01-01", "-w", str(scored)])
    assert later.exit_code == 0
    assert "no player matches these filters" in later.stderr


def test_stats_command_shows_sample_sizes(scored: Path) -> None:
    result = runner.invoke(app, ["stats", "--format", "json", "-w", str(scored)])
    assert result.exit_code == 0, result.output
    rows = {row["player"]: row for row in json.loads(result.stdout)}
    assert rows["alice"]["hands"] == 12
    assert rows["alice"]["non_fl_hands"] + rows["alice"]["fl_hands"] == 12
    assert rows["alice"]["points"] == -rows["bob"]["points"]
    only = runner.invoke(app, ["stats", "--player", "bob", "--min-hands", "5",
                               "--format", "csv", "-w", str(scored)])
    assert len(only.stdout.splitlines()) == 2
    table = runner.invoke(app, ["stats", "-w", str(scored)])
    assert "points_per_hand" in table.stdout
    assert "alice" in table.stdout


def test_ingest_keeps_the_duckdb_file_in_step(tmp_path: Path) -> None:
    from ofc_stats.ingest import ingest

    data = Path(__file__).parent.parent / "sample_data"
    warehouse = tmp_path / "warehouse"

    def stored_hands() -> object:
        with duckdb.connect(str(warehouse / DATABASE_FILE), read_only=True) as connection:
            return connection.execute("SELECT count(*) FROM hands").fetchone()

    first = ingest([data / "hadar.jsonl.gz"], warehouse)
    assert stored_hands() == (first.hands_stored,)  # before any score
    second = ingest([data / "betelgeuse.txt.gz"], warehouse)
    assert second.hands_stored > 0
    assert stored_hands() == (first.hands_stored + second.hands_stored,)


def test_no_connection_draws_duckdbs_progress_bar_on_stdout(scored: Path) -> None:
    # DuckDB draws it on stdout for queries over two seconds, into `--json` output.
    from ofc_stats.db import connect
    from ofc_stats.util.duckdb_connection import open_duckdb
    from ofc_stats.warehouse import Warehouse

    for connection in (open_duckdb(), connect(Warehouse.open(scored))):
        assert connection.execute(
            "SELECT current_setting('enable_progress_bar')").fetchone() == (False,)


def test_duckdb_cursors_share_a_database_but_not_what_they_register() -> None:
    from ofc_stats.util.duckdb_connection import duckdb_cursor

    first, second = duckdb_cursor(), duckdb_cursor()
    first.register("lines", pl.DataFrame({"text": ["a"]}))
    second.register("lines", pl.DataFrame({"text": ["b", "c"]}))
    assert first.execute("SELECT count(*) FROM lines").fetchone() == (1,)
    assert second.execute("SELECT count(*) FROM lines").fetchone() == (2,)
    first.close()
    assert second.execute("SELECT count(*) FROM lines").fetchone() == (2,)
    assert second.execute("SELECT current_setting('enable_progress_bar')").fetchone() == (False,)
    second.close()
