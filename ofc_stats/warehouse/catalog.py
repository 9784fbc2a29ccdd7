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
import re
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
# The table of ofc.duckdb naming every object ofc-stats made there (the rest is yours).
DATABASE_OBJECTS_TABLE = "_ofc_stats_objects"

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


# A reject is resolved once its hand was stored whole after all: the same (site,
# hand_id), or a hand read from the same file and line (a half-written hand, read again
# once complete). Conflicts and whole files are never resolved so (ofc_stats.analysis
# .audit applies the same rule).
UNRESOLVABLE_KINDS = ("conflict", "file", "format")
RESOLVED_REJECTS = f"""
SELECT r.*, coalesce(r.kind NOT IN {UNRESOLVABLE_KINDS} AND (
    EXISTS (SELECT 1 FROM hands h WHERE h.site = r.site AND h.hand_id = r.hand_id)
    OR EXISTS (SELECT 1 FROM hands h WHERE h.source_file = r.file AND h.source_line = r.line)),
    FALSE) AS resolved
FROM {{source}} r
"""


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
        if view == "rejects":
            connection.execute(f"CREATE OR REPLACE VIEW rejects AS {RESOLVED_REJECTS}"
                               .replace("{source}", source))
            continue
        connection.execute(f'CREATE OR REPLACE VIEW "{view}" AS SELECT * FROM {source}')
    for text in _view_files():
        connection.execute(text)


def our_objects() -> list[str]:
    """The names of the objects ofc-stats makes in ``ofc.duckdb`` (views and tables)."""
    views = [name for text in _view_files()
             for name in re.findall(r"CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+\"?(\w+)", text,
                                    re.IGNORECASE)]
    return [*BASE_VIEWS, *views, *(f"_empty_{view}" for view in BASE_VIEWS),
            DATABASE_SOURCE_TABLE, DATABASE_OBJECTS_TABLE]


def _carry_over(connection: duckdb.DuckDBPyConnection, previous: Path) -> bool | None:
    """Copy everything of the previous ``ofc.duckdb`` into the new one (the user's own
    tables with their rows, views, macros, sequences, types, schemas), then drop what
    an earlier ofc-stats made there and this one no longer makes: ofc-stats replaces
    its own objects and never drops another's.

    Returns:
        False if the previous file is open for writing in another program (then it must
        stay as it is: what that program writes would be lost), None if it is no DuckDB
        database, else True.
    """
    here = connection.execute("SELECT current_database()").fetchone()
    assert here is not None
    try:
        connection.execute("ATTACH ? AS _previous (READ_ONLY)", [str(previous)])
    except duckdb.Error as error:
        if "lock" in str(error).lower():
            return False
        return None  # not a database any more: nothing of it can be carried over
    try:
        connection.execute(f'COPY FROM DATABASE _previous TO "{here[0]}"')
        had_record = connection.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE database_name = '_previous' "
            "AND schema_name = 'main' AND table_name = ?", [DATABASE_OBJECTS_TABLE]).fetchone()
        made_before = ([row[0] for row in connection.execute(
            f"SELECT name FROM _previous.main.{DATABASE_OBJECTS_TABLE}").fetchall()]
                       if had_record and had_record[0] else [])
    finally:
        connection.execute("DETACH _previous")
    current = set(our_objects())
    for name in made_before:
        if name in current:
            continue
        kind = connection.execute(
            "SELECT CASE WHEN EXISTS (SELECT 1 FROM duckdb_views() WHERE schema_name = 'main' "
            "AND view_name = $name AND NOT internal) THEN 'VIEW' WHEN EXISTS (SELECT 1 FROM "
            "duckdb_tables() WHERE schema_name = 'main' AND table_name = $name) THEN 'TABLE' "
            "END", {"name": name}).fetchone()
        if kind and kind[0]:
            connection.execute(f'DROP {kind[0]} IF EXISTS main."{name}"')
    return True


def refresh_database(warehouse: Warehouse) -> Path | None:
    """Write ``<warehouse>/ofc.duckdb`` with the current views; return its path.

    The file is built beside and renamed over the old one, so a DuckDB session that
    has the old file open keeps working (the files its views name are kept a day
    after a commit removes them: ``KEEP_REMOVED_SECONDS``). Everything of the old
    file ofc-stats did not make (your tables, views, macros) is carried over
    (:func:`_carry_over`). It records the warehouse folder and commit its views were
    made for (:func:`database_is_current`) and the objects it made. Returns None (and
    changes nothing) if the file cannot be written, or the old one is open for writing
    in another program (what that program writes would be lost); an old file that is
    no DuckDB database any more is moved to ``_quarantine/``.
    """
    target = warehouse.root / DATABASE_FILE
    temporary = warehouse.root / f".tmp-{os.getpid()}-{DATABASE_FILE}"
    temporary.unlink(missing_ok=True)
    try:
        connection = open_duckdb(str(temporary))
        try:
            carried = _carry_over(connection, target) if target.exists() else True
            if carried is False:
                raise OSError(f"{target} is open for writing in another program")
            if carried is None:
                warehouse.quarantine(target)
            state = warehouse.state()
            create_views(connection, warehouse, state)
            connection.execute(
                f"CREATE OR REPLACE TABLE {DATABASE_SOURCE_TABLE} AS "
                "SELECT $root AS warehouse, $commit AS commit_id",
                {"root": str(warehouse.root.resolve()), "commit": state.commit})
            connection.execute(
                f"CREATE OR REPLACE TABLE {DATABASE_OBJECTS_TABLE} AS "
                "SELECT unnest($names) AS name", {"names": our_objects()})
            connection.execute("CHECKPOINT")
        finally:
            connection.close()
        os.replace(temporary, target)
    except (duckdb.Error, OSError):
        temporary.unlink(missing_ok=True)
        (warehouse.root / f"{temporary.name}.wal").unlink(missing_ok=True)
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
