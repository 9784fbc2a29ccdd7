"""``ofc-stats stats``: the per-player summary, and an explanation when it is empty.

:func:`player_stats` runs the named query ``player_summary``; when nothing is scored,
or the player or variant asked for is not among the scored hands, it says so
(:class:`StatsScopeError`) and names the closest players (:func:`closest_names_hint`,
which the report uses too). :func:`fantasyland_review_stats` runs
``fantasyland_review``, the per-player summary of ``ofc-stats review``.
"""

from __future__ import annotations

import duckdb
import polars as pl

from ofc_stats.analysis.coverage import score_first
from ofc_stats.db.queries import query_warehouse, report_sql
from ofc_stats.db.sql import QueryError, connect, run_sql
from ofc_stats.engine.rules import Variant
from ofc_stats.formats.canonical import variant_named
from ofc_stats.warehouse import Warehouse

NOTHING_STORED = "no hands in the warehouse: run 'ofc-stats ingest' first"
NOTHING_SCORED = ("no scored hands in the warehouse: run 'ofc-stats score' "
                  "(after 'ofc-stats ingest') first")


class StatsScopeError(QueryError):
    """``stats`` asked about something the scored hands do not hold (nothing scored,
    an unknown player or variant)."""


def player_stats(warehouse: Warehouse, *, player: str | None = None,
                 variant: str | None = None, since: str | None = None,
                 min_hands: int | None = None, score: bool = True) -> pl.DataFrame:
    """The per-player summary (``sql/queries/player_summary.sql``).

    With ``score``, the hands not scored yet are scored first
    (:func:`ofc_stats.analysis.coverage.score_first`; call it yourself to know how
    many were, or are still left out). An empty result is explained rather than
    returned when nothing is scored or the player or variant is not in the scored
    hands (:class:`StatsScopeError`, naming the closest players); other filters
    (``since``, ``min_hands``) may leave it empty.
    """
    if score:
        score_first(warehouse)
    if variant is not None:
        variant = variant_named(variant)  # "Joker Ultimate", "2-7": as histories write them
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
    connection = connect(warehouse)
    try:
        known = run_sql(connection, "SELECT DISTINCT player, variant FROM player_hands")
        if known.is_empty():
            if not warehouse.state().table_files("hands"):
                raise StatsScopeError(NOTHING_STORED)
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
