"""Running SQL over the warehouse: a sandboxed connection with every view, and the guard.

:func:`connect` gives an in-memory DuckDB connection with the warehouse's views
(:mod:`ofc_stats.warehouse.catalog`), under the default scoring or a what-if,
sandboxed with DuckDB's own controls: external access off (no file, URL or directory
but the warehouse's committed Parquet files, ``allowed_paths``), no extension loaded
or installed on demand, and the configuration locked so that no statement can turn
any of it back on. :func:`run_sql` runs reading statements only, unless told
otherwise: ``EXPLAIN ANALYZE`` runs what it explains, so it is judged by that, and a
PIVOT over values from the data (DuckDB makes it a MULTI statement that may write) is
refused. Even told otherwise, a statement that writes a file (``COPY``, ``EXPORT``,
``ATTACH``, ...) is refused: the warehouse's own files are the only ones the sandbox
opens, and ``--allow-write`` must never write them. Of several statements the last
one's result is returned; a reading statement before it, whose result would be lost,
is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

import duckdb
import polars as pl

from ofc_stats.analysis.score import resolve_scoring
from ofc_stats.errors import ExitCode, OfcStatsError
from ofc_stats.util.cores import available_cores
from ofc_stats.util.duckdb_connection import open_duckdb
from ofc_stats.util.sql_files import sql_folder
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.catalog import create_views

ALLOWED_STATEMENTS = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
# SET VARIABLE changes nothing but the connection's variables (docs/sql.md's session
# gap): allowed; the configuration itself is locked.
_SET_VARIABLE = re.compile(r"^\s*(?:SET|RESET)\s+VARIABLE\b", re.IGNORECASE)
# What even --allow-write refuses: statements that read or write files or databases,
# or load code. (The sandbox refuses every other path; these would reach the
# warehouse's own files, which it must open to read them.)
FILE_STATEMENTS = {duckdb.StatementType.COPY, duckdb.StatementType.COPY_DATABASE,
                   duckdb.StatementType.EXPORT, duckdb.StatementType.ATTACH,
                   duckdb.StatementType.DETACH, duckdb.StatementType.LOAD,
                   duckdb.StatementType.EXTENSION,
                   # a prepared statement can be any of those, run by EXECUTE
                   duckdb.StatementType.PREPARE, duckdb.StatementType.EXECUTE}
DEFAULT_SESSION_GAP_MINUTES = 30


class QueryError(OfcStatsError):
    """A query DuckDB rejected, a refused writing statement, or a bad parameter."""

    exit_code = ExitCode.USAGE


@cache
def report_sql(name: str) -> str:
    """The text of ``sql/report/<name>.sql`` (the report's datasets and helpers)."""
    text: str = (sql_folder() / "report" / f"{name}.sql").read_text(encoding="utf-8")
    return text


def connect(warehouse: Warehouse, *, session_gap_minutes: int | None = None,
            scoring: str | None = None,
            settings: Mapping[str, str | int | bool] | None = None
            ) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the warehouse's views, sandboxed
    (:func:`sandbox`).

    Args:
        warehouse: the warehouse.
        session_gap_minutes: minutes between hands that start a new session.
        scoring: the scoring ``player_hands``, ``matchups`` and the views over them
            show: a stored scoring, or a ruleset scored before (see
            :func:`~ofc_stats.analysis.score.resolve_scoring`); None: the default.
        settings: DuckDB configuration to set first (once it is locked, none can be
            changed).

    Raises:
        WarehouseDamagedError: a file the log names is missing or damaged.
    """
    state = warehouse.state()
    warehouse.require_whole(state)
    chosen = resolve_scoring(warehouse, scoring)
    config: dict[str, str | int | bool] = {"threads": available_cores(), **(settings or {})}
    connection = open_duckdb(":memory:", **config, autoload_known_extensions=False,
                             autoinstall_known_extensions=False)
    create_views(connection, warehouse, state)
    root = warehouse.root.resolve()
    sandbox(connection, [root / f.path for f in state.files.values()])
    connection.execute(f"SET VARIABLE session_gap_minutes = "
                       f"{int(session_gap_minutes or DEFAULT_SESSION_GAP_MINUTES)}")
    connection.execute(f"SET VARIABLE scoring = {_literal(chosen)}")
    return connection


def sandbox(connection: duckdb.DuckDBPyConnection, paths: list[Path]) -> None:
    """Let ``connection`` open ``paths`` and nothing else, for good: no other file,
    folder, URL or database, no extension loaded or installed on demand, and its
    configuration locked (no ``SET`` can undo it)."""
    allowed = "[" + ", ".join("'" + str(path).replace("'", "''") + "'" for path in paths) + "]"
    connection.execute(f"SET allowed_paths = {allowed}")
    connection.execute("SET enable_external_access = false")
    connection.execute("SET autoload_known_extensions = false")
    connection.execute("SET autoinstall_known_extensions = false")
    connection.execute("SET lock_configuration = true")


def run_sql(connection: duckdb.DuckDBPyConnection, sql: str,
            params: Mapping[str, object] | None = None, *, allow_write: bool = False
            ) -> pl.DataFrame:
    """Run SQL; only reading statements unless ``allow_write``.

    Raises:
        QueryError: DuckDB's own message, on one line; or a refused writing statement.
    """
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as error:
        raise QueryError(_one_line(error)) from None
    if not statements:
        raise QueryError("no SQL statement to run")
    if not allow_write:
        refused = [kind for s in statements if (kind := _writing_kind(s)) is not None]
        if refused:
            raise QueryError(
                f"refused: {refused[0]} statements can change files; queries are read-only "
                "(use --allow-write to run them on a scratch database)")
    else:
        touching = [kind for s in statements if (kind := _file_kind(s)) is not None]
        if touching:
            raise QueryError(
                f"refused: {touching[0]} statements can read or write files; --allow-write "
                "runs statements on a scratch in-memory database only, and never writes "
                "the warehouse's files")
    lost = [number for number, statement in enumerate(statements[:-1], start=1)
            if statement.type in ALLOWED_STATEMENTS]
    if lost:
        raise QueryError(
            f"{len(statements)} statements given, and statement {lost[0]} is a "
            f"{statements[lost[0] - 1].type.name} whose result would be lost: a query "
            "returns the result of its last statement only; run them one at a time")
    try:
        for statement in statements[:-1]:
            connection.execute(statement)
        relation = connection.sql(statements[-1], params=dict(params) if params else None)
        if relation is None:
            return pl.DataFrame()
        # Polars cannot take DuckDB's INTERVAL (Arrow's month-day-nano): as durations.
        intervals = [name for name, kind in zip(relation.columns, relation.types, strict=True)
                     if str(kind) == "INTERVAL"]
        if intervals:
            relation = relation.project(", ".join(
                f"epoch_us({_quoted(name)})::BIGINT AS {_quoted(name)}" if name in intervals
                else _quoted(name) for name in relation.columns))
        frame: pl.DataFrame = relation.pl().with_columns(
            pl.col(name).cast(pl.Duration("us")) for name in intervals)
        # DuckDB sums integers into HUGEINT (a 38-digit decimal here): back to Int64;
        # and it names UTC "Etc/UTC".
        return frame.with_columns(
            *(pl.col(name).cast(pl.Int64) for name, dtype in frame.schema.items()
              if isinstance(dtype, pl.Decimal) and dtype.scale == 0),
            *(pl.col(name).dt.convert_time_zone("UTC") for name, dtype in frame.schema.items()
              if isinstance(dtype, pl.Datetime) and dtype.time_zone == "Etc/UTC"))
    except duckdb.Error as error:
        raise QueryError(_one_line(error)) from None


_EXPLAIN_PREFIX = re.compile(r"^\s*EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?:\([^)]*\)\s*)?",
                             re.IGNORECASE)


def _writing_kind(statement: duckdb.Statement) -> str | None:
    """The kind of a statement a read-only query must refuse, or None if it only reads.

    ``EXPLAIN ANALYZE`` runs the statement it explains, so an EXPLAIN is judged by
    the statement inside it.
    """
    if statement.type is duckdb.StatementType.MULTI:
        # What DuckDB makes of a PIVOT whose columns come from the data (it may wrap
        # a COPY or CREATE): refused; a PIVOT with an IN list of values is a SELECT.
        return "MULTI (a PIVOT without an IN list of values)"
    if statement.type is duckdb.StatementType.SET and _SET_VARIABLE.match(statement.query):
        return None
    if statement.type not in ALLOWED_STATEMENTS:
        return statement.type.name
    return _explained_kind(statement, _writing_kind)


def _file_kind(statement: duckdb.Statement) -> str | None:
    """The kind of a statement that touches files (refused even with --allow-write),
    or None; an EXPLAIN by what it explains."""
    if statement.type in FILE_STATEMENTS:
        return statement.type.name
    return _explained_kind(statement, _file_kind)


def _explained_kind(statement: duckdb.Statement,
                    judge: Callable[[duckdb.Statement], str | None]) -> str | None:
    """For an EXPLAIN, what ``judge`` says of the statement it explains (refused if
    that cannot be told); None for any other statement."""
    if statement.type is not duckdb.StatementType.EXPLAIN:
        return None
    inner = _EXPLAIN_PREFIX.sub("", statement.query, count=1)
    try:
        explained = duckdb.extract_statements(inner)
    except duckdb.Error:
        return statement.type.name  # cannot tell what it explains: refuse
    kinds = [kind for s in explained if (kind := judge(s)) is not None]
    return f"EXPLAIN {kinds[0]}" if kinds else None


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _one_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return " ".join(lines[:2]) if lines else type(error).__name__
