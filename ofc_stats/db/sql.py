"""Running SQL over the warehouse: a connection with every view, and the read-only guard.

:func:`connect` gives an in-memory DuckDB connection with the warehouse's views
(:mod:`ofc_stats.warehouse.catalog`), under the default scoring or a what-if.
:func:`run_sql` runs reading statements only, unless told otherwise: ``EXPLAIN
ANALYZE`` runs what it explains, so it is judged by that, and a PIVOT over values from
the data (DuckDB makes it a MULTI statement that may write) is refused. Of several
statements the last one's result is returned; a reading statement before it, whose
result would be lost, is refused.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import cache

import duckdb
import polars as pl

from ofc_stats.analysis.score import resolve_scoring
from ofc_stats.errors import ExitCode, OfcStatsError
from ofc_stats.util.duckdb_connection import open_duckdb
from ofc_stats.util.sql_files import sql_folder
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.catalog import create_views

ALLOWED_STATEMENTS = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
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
            scoring: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the warehouse's views.

    Args:
        warehouse: the warehouse.
        session_gap_minutes: minutes between hands that start a new session.
        scoring: the scoring ``player_hands``, ``matchups`` and the views over them
            show: a stored scoring, or a ruleset scored before (see
            :func:`~ofc_stats.analysis.score.resolve_scoring`); None: the default.
    """
    chosen = resolve_scoring(warehouse, scoring)
    connection = open_duckdb(threads=os.cpu_count() or 2)
    create_views(connection, warehouse)
    connection.execute(f"SET VARIABLE session_gap_minutes = "
                       f"{int(session_gap_minutes or DEFAULT_SESSION_GAP_MINUTES)}")
    connection.execute(f"SET VARIABLE scoring = {_literal(chosen)}")
    return connection


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
    if statement.type not in ALLOWED_STATEMENTS:
        return statement.type.name
    if statement.type is duckdb.StatementType.EXPLAIN:
        inner = _EXPLAIN_PREFIX.sub("", statement.query, count=1)
        try:
            explained = duckdb.extract_statements(inner)
        except duckdb.Error:
            return statement.type.name  # cannot tell what it explains: refuse
        kinds = [kind for s in explained if (kind := _writing_kind(s)) is not None]
        return f"EXPLAIN {kinds[0]}" if kinds else None
    return None


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _one_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return " ".join(lines[:2]) if lines else type(error).__name__
