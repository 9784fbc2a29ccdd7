"""The DuckDB catalogue of the warehouse: a view over each table, the derived views, ofc.duckdb.

Views are made from the committed file lists (never a glob, so a half-finished
import is never seen): one base view per warehouse table (``hands``, ``seats``,
``streets``, ``rejects``, ``imports``, ``fl_transitions``, and ``scored_player_hands``,
``scored_matchups`` and ``scored_fl_review`` holding every scoring), then the views in
``sql/views/*.sql`` (``player_hands``, ``matchups``, ``player_sessions``, ``sessions``,
``fl_review``, ...). A table the
warehouse does not hold yet is an empty one of its schema, so every query binds.

:func:`create_views` makes them on any connection (``ofc_stats.db.connect`` gives an
in-memory one, always in step with the warehouse). :func:`refresh_database` writes
``<warehouse>/ofc.duckdb`` with the same views (paths absolute) for DuckDB's own CLI,
notebooks and desktop SQL tools; ``ingest``, ``score`` and ``review`` refresh it after every run.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import polars as pl

from ofc_stats.util.duckdb_connection import open_duckdb
from ofc_stats.util.sql_files import sql_folder
from ofc_stats.warehouse.log import TableFile, WarehouseState
from ofc_stats.warehouse.schemas import TABLE_SCHEMAS
from ofc_stats.warehouse.store import Warehouse

DATABASE_FILE = "ofc.duckdb"
# The table of ofc.duckdb naming the warehouse folder and commit its views were made for.
DATABASE_SOURCE_TABLE = "_ofc_stats_source"

# Base views: view name -> (warehouse table, scored partitions included).
BASE_VIEWS = {
    "hands": "hands",
    "seats": "seats",
    "streets": "streets",
    "rejects": "rejects",
    "imports": "imports",
    "fl_transitions": "fl_transitions",
    "scored_player_hands": "player_hands",
    "scored_matchups": "matchups",
    "scored_fl_review": "fl_review",
}


def _view_files() -> list[str]:
    folder = sql_folder() / "views"
    return [entry.read_text(encoding="utf-8")
            for entry in sorted(folder.iterdir(), key=lambda e: e.name)
            if entry.name.endswith(".sql")]


def table_schemas() -> dict[str, pl.Schema]:
    """The schema of every base view, for tables the warehouse does not hold yet."""
    return {view: TABLE_SCHEMAS[table] for view, table in BASE_VIEWS.items()}


def _quoted_list(paths: list[Path]) -> str:
    return "[" + ", ".join(_quoted_text(str(p)) for p in paths) + "]"


def _read(root: Path, files: list[TableFile]) -> str:
    # Not hive-partitioned: a scoring's folder holds its name made safe for a path
    # (``scoring=thursday_home_game``), which would replace the name the rows carry.
    return (f"read_parquet({_quoted_list([root / f.path for f in files])}, "
            "union_by_name = true, hive_partitioning = false)")


def _table_source(root: Path, files: list[TableFile]) -> str:
    """The rows of a table's committed files; a partitioned table's (the scorings)
    with the partition's name from the commit log, one scan per partition, so that a
    filter on ``scoring`` skips every other partition's files unread."""
    partitions: dict[str, list[TableFile]] = {}
    for table_file in files:
        if table_file.partition is None:
            return _read(root, files)
        partitions.setdefault(table_file.partition, []).append(table_file)
    return "(" + " UNION ALL BY NAME ".join(
        f"SELECT * REPLACE ({_quoted_text(name)} AS scoring) FROM {_read(root, part)}"
        for name, part in partitions.items()) + ")"


def _quoted_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def create_views(connection: duckdb.DuckDBPyConnection, warehouse: Warehouse,
                 state: WarehouseState | None = None) -> None:
    """Create (or replace) every view in ``connection`` from the committed files."""
    state = state or warehouse.state()
    root = warehouse.root.resolve()
    for view, table in BASE_VIEWS.items():
        files = state.table_files(table)
        if files:
            source = _table_source(root, files)
        else:
            # An empty table of the right shape, so every query still binds.
            empty = table_schemas()[view].to_frame()
            connection.register("_empty_frame", empty)
            connection.execute(f"CREATE OR REPLACE TABLE _empty_{view} AS "
                               "SELECT * FROM _empty_frame")
            connection.unregister("_empty_frame")
            source = f"_empty_{view}"
        connection.execute(f'CREATE OR REPLACE VIEW "{view}" AS SELECT * FROM {source}')
    for text in _view_files():
        connection.execute(text)


def refresh_database(warehouse: Warehouse) -> Path | None:
    """Write ``<warehouse>/ofc.duckdb`` with the current views; return its path.

    The file is built beside and renamed over the old one, so a DuckDB session that
    has the old file open keeps working. It records the warehouse folder and commit
    its views were made for (:func:`database_is_current`). Returns None (and changes
    nothing) if the file cannot be written.
    """
    target = warehouse.root / DATABASE_FILE
    temporary = warehouse.root / f".tmp-{os.getpid()}-{DATABASE_FILE}"
    temporary.unlink(missing_ok=True)
    try:
        connection = open_duckdb(str(temporary))
        try:
            state = warehouse.state()
            create_views(connection, warehouse, state)
            connection.execute(
                f"CREATE OR REPLACE TABLE {DATABASE_SOURCE_TABLE} AS "
                "SELECT $root AS warehouse, $commit AS commit_id",
                {"root": str(warehouse.root.resolve()), "commit": state.commit})
            connection.execute("CHECKPOINT")
        finally:
            connection.close()
        os.replace(temporary, target)
    except (duckdb.Error, OSError):
        temporary.unlink(missing_ok=True)
        return None
    return target


def database_is_current(warehouse: Warehouse) -> bool:
    """Whether ``<warehouse>/ofc.duckdb`` holds the views of the warehouse as it is:
    made in this folder (its paths are absolute: a warehouse moved or copied needs new
    ones) at its latest commit (a run killed between its commit and the refresh
    leaves them behind)."""
    try:
        connection = duckdb.connect(str(warehouse.root / DATABASE_FILE), read_only=True)
        try:
            row = connection.execute(
                f"SELECT warehouse, commit_id FROM {DATABASE_SOURCE_TABLE}").fetchone()
        finally:
            connection.close()
    except duckdb.Error:  # missing, unreadable, or written before the record was kept
        return False
    return row == (str(warehouse.root.resolve()), warehouse.state().commit)
