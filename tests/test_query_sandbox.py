"""The query sandbox: a query sees the warehouse and nothing else, by DuckDB's own
controls, and ``--allow-write`` never writes the warehouse's files."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc_stats.cli import app
from ofc_stats.db import QueryError, query_warehouse
from ofc_stats.warehouse import Warehouse

READS_OUTSIDE = [
    "SELECT * FROM read_text('/etc/shadow')",
    "SELECT content FROM read_text('/proc/self/environ')",
    "SELECT * FROM glob('/root/.*')",
    "SELECT * FROM read_blob('/etc/hostname')",
    "SELECT * FROM read_csv('/etc/passwd', sep = ':')",
    "SELECT * FROM sniff_csv('/etc/passwd')",
    "SELECT * FROM read_csv('https://example.com/hands.csv')",  # would autoinstall httpfs
    "SELECT * FROM 's3://bucket/hands.parquet'",
]


@pytest.fixture
def warehouse(sample_warehouse: Warehouse, tmp_path: Path) -> Warehouse:
    shutil.copytree(sample_warehouse.root, tmp_path / "warehouse")
    return Warehouse.open(tmp_path / "warehouse")


def fingerprint(root: Path) -> dict[str, str]:
    return {path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("sql", READS_OUTSIDE)
@pytest.mark.parametrize("allow_write", [False, True])
def test_a_query_reads_nothing_but_the_warehouse(warehouse: Warehouse, sql: str,
                                                 allow_write: bool) -> None:
    with pytest.raises(QueryError, match="Permission Error: Cannot access file"):
        query_warehouse(warehouse, sql, allow_write=allow_write)


@pytest.mark.parametrize("sql", [
    "SET enable_external_access = true",
    "RESET lock_configuration",
    "SET allowed_directories = ['/']",
    "SET autoinstall_known_extensions = true",
])
def test_the_sandbox_cannot_be_undone(warehouse: Warehouse, sql: str) -> None:
    with pytest.raises(QueryError, match="the configuration has been locked"):
        query_warehouse(warehouse, f"{sql}; SELECT 1", allow_write=True)
    with pytest.raises(QueryError, match="refused: SET"):
        query_warehouse(warehouse, sql)


def test_allow_write_never_writes_the_warehouse(warehouse: Warehouse) -> None:
    root = warehouse.root.resolve()
    target = root / warehouse.state().table_files("hands")[0].path
    before = fingerprint(root)
    attempts = [
        f"COPY (SELECT 1 AS n) TO '{target}'",
        f"COPY (SELECT 1 AS n) TO '{target}' (USE_TMP_FILE false)",
        f"COPY (SELECT 1 AS n) TO '{root}/hands/new.parquet'",
        f"EXPLAIN ANALYZE COPY (SELECT 1 AS n) TO '{target}' (USE_TMP_FILE false)",
        f"PREPARE p AS COPY (SELECT 1 AS n) TO '{target}' (USE_TMP_FILE false); EXECUTE p",
        f"EXPORT DATABASE '{root}/hands'",
        f"ATTACH '{target}' AS hijack",
        f"ATTACH '{root}/ofc.duckdb' AS hijack",
        "INSTALL httpfs",
        "LOAD httpfs",
    ]
    for sql in attempts:
        with pytest.raises(QueryError, match=r"refused|Permission Error"):
            query_warehouse(warehouse, sql, allow_write=True)
    assert fingerprint(root) == before
    # What --allow-write is for still works: a scratch database in memory.
    frame = query_warehouse(warehouse, "CREATE TABLE mine AS SELECT player, count(*) AS n "
                            "FROM player_hands GROUP BY player; SELECT sum(n) AS n FROM mine",
                            allow_write=True)
    assert frame["n"][0] > 0
    assert fingerprint(root) == before


def test_the_views_and_named_queries_work_in_the_sandbox(warehouse: Warehouse) -> None:
    runner = CliRunner()
    for args in (["query", "leaderboard", "--format", "csv"],
                 ["query", "SET VARIABLE session_gap_minutes = 45; "
                  "SELECT count(*) AS n FROM sessions", "--format", "csv"],
                 ["query", "head_to_head_matrix", "--format", "csv"], ["stats"]):
        result = runner.invoke(app, [*args, "-w", str(warehouse.root)])
        assert result.exit_code == 0, (args, result.output)
