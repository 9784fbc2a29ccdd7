"""DuckDB over the warehouse: views, named queries, read-only SQL.

Views are made from the committed file lists (never a glob, so a half-finished
import is never seen): one base view per warehouse table (``hands``, ``seats``,
``streets``, ``rejects``, ``imports``, ``fl_transitions``, and ``scored_player_hands``,
``scored_matchups`` and ``scored_fl_review`` holding every scoring), then the views in
``sql/views/*.sql`` (``player_hands``, ``matchups``, ``player_sessions``, ``sessions``,
``fl_review``, ...). The named queries in ``sql/queries/*.sql`` run against them with
``$name`` parameters.

:func:`connect` gives an in-memory DuckDB connection with the views, always in step
with the warehouse. :func:`refresh_database` also writes ``<warehouse>/ofc.duckdb``
with the same views (paths absolute) for DuckDB's own CLI, notebooks and desktop
SQL tools; ``ingest`` and ``score`` refresh it after every run.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from ofc_stats.duckdb_connection import open_duckdb
from ofc_stats.errors import OfcStatsError
from ofc_stats.warehouse import Warehouse, WarehouseState

DATABASE_FILE = "ofc.duckdb"
# The table of ofc.duckdb naming the warehouse folder and commit its views were made for.
DATABASE_SOURCE_TABLE = "_ofc_stats_source"
ALLOWED_STATEMENTS = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
DEFAULT_SESSION_GAP_MINUTES = 30
NOTHING_SCORED = ("no scored hands in the warehouse: run 'ofc-stats score' "
                  "(after 'ofc-stats ingest') first")

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


class QueryError(OfcStatsError):
    """A query DuckDB rejected, a refused writing statement, or a bad parameter."""

    exit_code = 2


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


def _sql_folder() -> Any:
    return resources.files("ofc_stats") / "sql"


@cache
def report_sql(name: str) -> str:
    """The text of ``sql/report/<name>.sql``."""
    text: str = (_sql_folder() / "report" / f"{name}.sql").read_text(encoding="utf-8")
    return text


_PARAM = re.compile(r"^--\s*param:\s*(\w+)\s+(\w+)(?:\s+(.+?))?\s*$")


@cache
def named_queries() -> dict[str, NamedQuery]:
    """The named queries, by name, parsed from their header comments."""
    queries = {}
    for entry in sorted((_sql_folder() / "queries").iterdir(), key=lambda e: e.name):
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


def _view_files() -> list[str]:
    folder = _sql_folder() / "views"
    return [entry.read_text(encoding="utf-8")
            for entry in sorted(folder.iterdir(), key=lambda e: e.name)
            if entry.name.endswith(".sql")]


@cache
def table_schemas() -> dict[str, pl.Schema]:
    """The schema of every base view, for tables the warehouse does not hold yet."""
    from ofc_stats.canonical import HANDS_SCHEMA, PROBLEMS_SCHEMA, SEATS_SCHEMA, STREETS_SCHEMA
    from ofc_stats.fantasyland import FL_TRANSITIONS_SCHEMA
    from ofc_stats.fantasyland_review import FL_REVIEW_SCHEMA
    from ofc_stats.ingest import IMPORTS_SCHEMA
    from ofc_stats.warehouse_scoring import scored_schemas

    player_hands, matchups = scored_schemas()
    return {"hands": HANDS_SCHEMA, "seats": SEATS_SCHEMA, "streets": STREETS_SCHEMA,
            "rejects": PROBLEMS_SCHEMA, "imports": IMPORTS_SCHEMA,
            "fl_transitions": FL_TRANSITIONS_SCHEMA, "scored_player_hands": player_hands,
            "scored_matchups": matchups, "scored_fl_review": FL_REVIEW_SCHEMA}


def _quoted_list(paths: list[Path]) -> str:
    return "[" + ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths) + "]"


def create_views(connection: duckdb.DuckDBPyConnection, warehouse: Warehouse,
                 state: WarehouseState | None = None) -> None:
    """Create (or replace) every view in ``connection`` from the committed files."""
    state = state or warehouse.state()
    root = warehouse.root.resolve()
    for view, table in BASE_VIEWS.items():
        paths = [root / f.path for f in state.table_files(table)]
        if paths:
            source = f"read_parquet({_quoted_list(paths)}, union_by_name = true)"
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


def connect(warehouse: Warehouse, *, session_gap_minutes: int | None = None
            ) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the warehouse's views."""
    connection = open_duckdb(threads=os.cpu_count() or 2)
    create_views(connection, warehouse)
    connection.execute(f"SET VARIABLE session_gap_minutes = "
                       f"{int(session_gap_minutes or DEFAULT_SESSION_GAP_MINUTES)}")
    return connection


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


class StatsScopeError(QueryError):
    """``stats`` asked about something the scored hands do not hold (nothing scored,
    an unknown player or variant)."""


def player_stats(warehouse: Warehouse, *, player: str | None = None,
                 variant: str | None = None, since: str | None = None,
                 min_hands: int | None = None) -> pl.DataFrame:
    """The per-player summary (``sql/queries/player_summary.sql``).

    An empty result is explained rather than returned when nothing is scored or the
    player or variant is not in the scored hands (:class:`StatsScopeError`, naming
    the closest players); other filters (``since``, ``min_hands``) may leave it empty.
    """
    values = {key: str(value) for key, value in
              {"player": player, "variant": variant, "since": since,
               "min_hands": min_hands}.items() if value is not None}
    frame = query_warehouse(warehouse, "player_summary", values)
    if frame.is_empty():
        _explain_empty_stats(warehouse, player, variant)
    return frame


def fantasyland_review_stats(warehouse: Warehouse, *, player: str | None = None,
                             variant: str | None = None, since: str | None = None,
                             scoring: str | None = None,
                             min_hands: int | None = None) -> pl.DataFrame:
    """The Fantasyland review per player (``sql/queries/fantasyland_review.sql``) of the
    reviews stored by ``ofc-stats review``; empty when none is in scope."""
    values = {key: str(value) for key, value in
              {"player": player, "variant": variant, "since": since, "scoring": scoring,
               "min_hands": min_hands}.items() if value is not None}
    return query_warehouse(warehouse, "fantasyland_review", values)


def fantasyland_points(warehouse: Warehouse) -> float | None:
    """The average points a Fantasyland hand earns in the default scoring (None: no
    Fantasyland hand scored): what RULES.md section 12 suggests a stay is worth."""
    frame = query_warehouse(warehouse, "SELECT avg(points) AS points FROM player_hands "
                                       "WHERE in_fantasyland")
    value = frame["points"][0]
    return None if value is None else float(value)


def _explain_empty_stats(warehouse: Warehouse, player: str | None,
                         variant: str | None) -> None:
    from ofc_stats.rules import Variant

    connection = connect(warehouse)
    try:
        known = run_sql(connection, "SELECT DISTINCT player, variant FROM player_hands")
        if known.is_empty():
            raise StatsScopeError(NOTHING_SCORED)
        if variant is not None and variant not in set(known["variant"]):
            variants = ", ".join(v.value for v in Variant)
            played = ", ".join(sorted(set(known["variant"])))
            raise StatsScopeError(f"no scored hands of variant {variant!r} (variants: "
                                  f"{variants}; in this warehouse: {played})")
        if player is not None and player not in set(known["player"]):
            raise StatsScopeError(f"no player named {player!r} in the scored hands"
                                  f"{closest_names_hint(connection, 'player', player)}")
    finally:
        connection.close()


def closest_names_hint(connection: duckdb.DuckDBPyConnection, kind: str, name: str) -> str:
    """``"; did you mean 'a', 'b' or 'c'?"`` naming the scored players (``kind``
    ``player``) or tables closest to ``name`` (``sql/report/known_names.sql``), or ""."""
    sql = report_sql("known_names")
    values = {"player": name if kind == "player" else None,
              "table": name if kind == "table" else None}
    close = run_sql(connection, sql, values).filter(pl.col("kind") == kind)
    if close.is_empty():
        return ""
    quoted = [repr(found) for found in close["name"]]
    alternatives = (", ".join(quoted[:-1]) + " or " if len(quoted) > 1 else "") + quoted[-1]
    return f"; did you mean {alternatives}?"
