"""Named queries: the ``sql/queries/*.sql`` files, their parameters, and running them.

Each file's first comment line describes it, and ``-- param: name TYPE [default |
required]`` lines declare its ``$name`` parameters. :func:`query_warehouse` runs a
named query or SQL against a warehouse's views (read-only, :mod:`ofc_stats.db.sql`).
The report's SQL (``sql/report/*.sql``) is read by :func:`report_sql`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import duckdb
import polars as pl

from ofc_stats.db.sql import QueryError, connect, run_sql
from ofc_stats.util.sql_files import sql_folder
from ofc_stats.warehouse import Warehouse


@dataclass(frozen=True)
class QueryParam:
    """A named query's parameter: ``$name`` in its SQL."""

    name: str
    type: str  # VARCHAR, INTEGER, DOUBLE, TIMESTAMPTZ, DATE
    default: str | None
    required: bool

    def convert(self, text: str) -> object:
        """A command-line value as the Python value DuckDB binds."""
        try:
            if self.type in ("INTEGER", "BIGINT"):
                return int(text)
            if self.type == "DOUBLE":
                return float(text)
            if self.type in ("TIMESTAMPTZ", "TIMESTAMP", "DATE"):
                moment = dt.datetime.fromisoformat(text)
                return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
        except ValueError:
            raise QueryError(f"parameter {self.name}: {text!r} is not a {self.type}") from None
        return text


@dataclass(frozen=True)
class NamedQuery:
    """One ``sql/queries/<name>.sql`` file."""

    name: str
    description: str
    params: tuple[QueryParam, ...]
    sql: str

    def bind(self, values: Mapping[str, str]) -> dict[str, object]:
        """Every declared parameter's value: given, default or NULL."""
        known = {param.name for param in self.params}
        unknown = sorted(set(values) - known)
        if unknown:
            raise QueryError(f"query {self.name} has no parameter {', '.join(unknown)} "
                             f"(it takes: {', '.join(sorted(known)) or 'none'})")
        bound: dict[str, object] = {}
        for param in self.params:
            text = values.get(param.name, param.default)
            if text is None and param.required:
                raise QueryError(f"query {self.name} needs --param {param.name}=...")
            bound[param.name] = None if text is None else param.convert(text)
        return bound


@cache
def report_sql(name: str) -> str:
    """The text of ``sql/report/<name>.sql``."""
    text: str = (sql_folder() / "report" / f"{name}.sql").read_text(encoding="utf-8")
    return text


_PARAM = re.compile(r"^--\s*param:\s*(\w+)\s+(\w+)(?:\s+(.+?))?\s*$")


@cache
def named_queries() -> dict[str, NamedQuery]:
    """The named queries, by name, parsed from their header comments."""
    queries = {}
    for entry in sorted((sql_folder() / "queries").iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".sql"):
            continue
        text = entry.read_text(encoding="utf-8")
        lines = text.splitlines()
        description = lines[0].removeprefix("--").strip()
        params = []
        for line in lines[1:]:
            match = _PARAM.match(line)
            if not line.startswith("--"):
                break
            if match:
                name, kind, rest = match.groups()
                required = rest == "required"
                params.append(QueryParam(name, kind.upper(), None if required else rest,
                                         required))
        name = entry.name.removesuffix(".sql")
        queries[name] = NamedQuery(name, description, tuple(params), text)
    return queries


def run_named(connection: duckdb.DuckDBPyConnection, name: str,
              values: Mapping[str, str] | None = None) -> pl.DataFrame:
    """Run a named query with ``values`` for its parameters (text, converted by type)."""
    query = named_queries().get(name)
    if query is None:
        raise QueryError(f"no query named {name!r}; 'ofc-stats query --list' shows them")
    # Shipped SQL, read-only by review; a PIVOT over values taken from the data (the
    # head-to-head matrix) is a MULTI statement, which typed SQL may not run.
    return run_sql(connection, query.sql, query.bind(values or {}), allow_write=True)


def query_warehouse(warehouse: Warehouse, sql_or_name: str,
                    values: Mapping[str, str] | None = None, *, allow_write: bool = False,
                    session_gap_minutes: int | None = None) -> pl.DataFrame:
    """Run a named query (if ``sql_or_name`` names one) or SQL against a warehouse."""
    connection = connect(warehouse, session_gap_minutes=session_gap_minutes)
    try:
        if sql_or_name in named_queries():
            return run_named(connection, sql_or_name, values)
        if values:
            raise QueryError("--param goes with a named query; write values into your SQL")
        return run_sql(connection, sql_or_name, allow_write=allow_write)
    finally:
        connection.close()


