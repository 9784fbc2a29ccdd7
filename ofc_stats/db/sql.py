"""Running SQL over the warehouse: a connection with every view, and the read-only guard.

:func:`connect` gives an in-memory DuckDB connection with the warehouse's views
(:mod:`ofc_stats.warehouse.catalog`). :func:`run_sql` runs reading statements only,
unless told otherwise: ``EXPLAIN ANALYZE`` runs what it explains, so it is judged by
that, and a PIVOT over values from the data (DuckDB makes it a MULTI statement that
may write) is refused.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import duckdb
import polars as pl

from ofc_stats.errors import OfcStatsError
from ofc_stats.util.duckdb_connection import open_duckdb
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.catalog import create_views

ALLOWED_STATEMENTS = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
DEFAULT_SESSION_GAP_MINUTES = 30


class QueryError(OfcStatsError):
    """A query DuckDB rejected, a refused writing statement, or a bad parameter."""

    exit_code = 2


def connect(warehouse: Warehouse, *, session_gap_minutes: int | None = None
            ) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the warehouse's views.

    Raises:
        WarehouseDamagedError: a file the log names is missing or damaged.
    """
    state = warehouse.state()
    warehouse.require_whole(state)
    connection = open_duckdb(threads=os.cpu_count() or 2)
    create_views(connection, warehouse, state)
    connection.execute(f"SET VARIABLE session_gap_minutes = "
                       f"{int(session_gap_minutes or DEFAULT_SESSION_GAP_MINUTES)}")
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


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _one_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return " ".join(lines[:2]) if lines else type(error).__name__
