"""Named queries: the ``sql/queries/*.sql`` files, their parameters, and running them.

Each file's first comment line describes it, and ``-- param: name TYPE [default |
required]`` lines declare its ``$name`` parameters. :func:`query_warehouse` runs a
named query or SQL against a warehouse's views (read-only, :mod:`ofc_stats.db.sql`),
under the default scoring or a what-if. A name that is no query, a parameter a query
does not take and a value of the wrong type are errors with the closest names and the
forms accepted; a named query that finds nothing for a player or variant the scored
hands do not hold says so (:mod:`ofc_stats.db.scope`). The report's SQL
(``sql/report/*.sql``) is read by :func:`report_sql`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

import duckdb
import polars as pl

from ofc_stats.db.scope import explain_empty
from ofc_stats.db.sql import QueryError, connect, run_sql
from ofc_stats.formats.canonical import variant_named
from ofc_stats.util.moments import parse_moment
from ofc_stats.util.sql_files import sql_folder
from ofc_stats.util.suggest import did_you_mean
from ofc_stats.warehouse import Warehouse


@dataclass(frozen=True)
class QueryParam:
    """A named query's parameter: ``$name`` in its SQL."""

    name: str
    type: str  # VARCHAR, INTEGER, DOUBLE, TIMESTAMPTZ, DATE
    default: str | None
    required: bool

    def convert(self, value: object) -> object:
        """A command-line value (text; other values pass as they are) as the Python
        value DuckDB binds."""
        if not isinstance(value, str):
            return value
        option = f"--param {self.name}"
        if self.type in ("TIMESTAMPTZ", "TIMESTAMP", "DATE"):
            return parse_moment(value, option)
        try:
            if self.type in ("INTEGER", "BIGINT"):
                return int(value)
            if self.type == "DOUBLE":
                return float(value)
        except ValueError:
            kind = "a whole number" if self.type != "DOUBLE" else "a number"
            raise QueryError(f"{option} {value!r} is not {kind} (e.g. {option}="
                             f"{self.default or 100})") from None
        return value

    def describe(self) -> str:
        """``min_hands (integer, default 1)``, ``player (varchar, required)``."""
        kind = {"TIMESTAMPTZ": "date or time", "TIMESTAMP": "date or time",
                "DATE": "date", "INTEGER": "whole number", "BIGINT": "whole number",
                "DOUBLE": "number", "VARCHAR": "text"}.get(self.type, self.type.lower())
        extra = (", required" if self.required
                 else f", default {self.default}" if self.default else "")
        return f"{self.name} ({kind}{extra})"


@dataclass(frozen=True)
class NamedQuery:
    """One ``sql/queries/<name>.sql`` file."""

    name: str
    description: str
    params: tuple[QueryParam, ...]
    sql: str

    def bind(self, values: Mapping[str, object]) -> dict[str, object]:
        """Every declared parameter's value: given, default or NULL."""
        known = [param.name for param in self.params]
        unknown = sorted(set(values) - set(known))
        takes = ", ".join(param.describe() for param in self.params) or "none"
        if unknown:
            raise QueryError(f"query {self.name} has no parameter {', '.join(unknown)}"
                             f"{did_you_mean(unknown[0], known)} (it takes: {takes})")
        bound: dict[str, object] = {}
        for param in self.params:
            value = values.get(param.name, param.default)
            if value is None and param.required:
                raise QueryError(f"query {self.name} needs --param {param.name}=... "
                                 f"(it takes: {takes})")
            bound[param.name] = None if value is None else param.convert(value)
        return bound


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


def unknown_query(name: str, views: Iterable[str] = ()) -> QueryError:
    """The error for a name that is no named query, with the closest ones (and the way
    to read a view of that name)."""
    if name in views:
        return QueryError(f"no query named {name!r}, but a view: ofc-stats query "
                          f"'FROM {name}' reads it ('ofc-stats query --list' shows the "
                          "named queries)")
    return QueryError(f"no query named {name!r}{did_you_mean(name, named_queries())} "
                      "('ofc-stats query --list' shows them)")


_NAME = re.compile(r"[A-Za-z_][\w-]*")


def run_named(connection: duckdb.DuckDBPyConnection, name: str,
              values: Mapping[str, object] | None = None) -> pl.DataFrame:
    """Run a named query with ``values`` for its parameters (text, converted by type)."""
    query = named_queries().get(name)
    if query is None:
        raise unknown_query(name)
    # Shipped SQL, read-only by review; a PIVOT over values taken from the data (the
    # head-to-head matrix) is a MULTI statement, which typed SQL may not run.
    return run_sql(connection, query.sql, query.bind(values or {}), allow_write=True)


def query_warehouse(warehouse: Warehouse, sql_or_name: str,
                    values: Mapping[str, object] | None = None, *, allow_write: bool = False,
                    session_gap_minutes: int | None = None, scoring: str | None = None,
                    given_as: str = "--param ") -> pl.DataFrame:
    """Run a named query (if ``sql_or_name`` names one) or SQL against a warehouse,
    under the default scoring or the stored scoring ``scoring`` names.

    ``given_as``: how the named query's values were given (``--param `` for ``--param
    player``, ``--`` for ``--player``), for the message when a name is unknown.

    Raises:
        QueryError: an unknown query name (a single word DuckDB cannot parse), an
            unknown or ill-typed parameter, SQL DuckDB rejects, or a refused statement;
            a named query that found nothing because a player or variant it was given
            is not in the scored hands (with the closest names).
        NotScoredError: a named query found nothing and nothing is scored.
    """
    connection = connect(warehouse, session_gap_minutes=session_gap_minutes, scoring=scoring)
    try:
        if sql_or_name in named_queries():
            if values and isinstance(values.get("variant"), str):
                # "Joker Ultimate", "2-7": the variant as histories write it
                values = {**values, "variant": variant_named(str(values["variant"]))}
            frame = run_named(connection, sql_or_name, values)
            if frame.is_empty() and values:
                explain_empty(connection, values, given_as)
            return frame
        if _NAME.fullmatch(sql_or_name.strip()) and not _parses(sql_or_name):
            views = run_sql(connection, "SELECT view_name FROM duckdb_views() "
                                        "WHERE NOT internal")["view_name"].to_list()
            raise unknown_query(sql_or_name.strip(), views)
        if values:
            raise QueryError("--param goes with a named query; write values into your SQL")
        return run_sql(connection, sql_or_name, allow_write=allow_write)
    finally:
        connection.close()


def _parses(sql: str) -> bool:
    try:
        duckdb.extract_statements(sql)
    except duckdb.Error:
        return False
    return True


