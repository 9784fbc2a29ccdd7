"""Why an answer is empty: nothing scored, or a player, variant or table the scored
hands do not hold (with the closest names).

``stats``, the report and the named queries call this when they find nothing, so an
unknown name is an error that suggests the names meant, never an empty table.
"""

from __future__ import annotations

from collections.abc import Mapping

import duckdb
import polars as pl

from ofc_stats.db.sql import QueryError, report_sql, run_sql
from ofc_stats.engine.rules import Variant
from ofc_stats.errors import NotScoredError
from ofc_stats.util.suggest import alternatives, did_you_mean, hint

NOTHING_STORED = "no hands in the warehouse: run 'ofc-stats ingest' first"
NOTHING_SCORED = ("no scored hands in the warehouse: run 'ofc-stats score' "
                  "(after 'ofc-stats ingest') first")


class StatsScopeError(QueryError):
    """An answer asked about something the scored hands do not hold (an unknown
    player, table or variant)."""


class NothingScoredError(NotScoredError):
    """Nothing is scored (under the scoring asked for)."""


def explain_empty(connection: duckdb.DuckDBPyConnection, values: Mapping[str, object],
                  option: str = "--") -> None:
    """Raise the error a user can act on when a query with these parameter values
    (``player``, ``variant``, ``table``; others are ignored) found nothing; return if
    the names are all known (the other filters left nothing).

    ``option`` is how the values were given (``--`` for ``--player``, ``--param `` for
    ``--param player``), for the message.

    Raises:
        NothingScoredError: no hand is scored.
        StatsScopeError: naming the unknown value and the closest known ones.
    """
    known = run_sql(connection, "SELECT DISTINCT player, variant, \"table\" FROM player_hands")
    if known.is_empty():
        stored = run_sql(connection, "SELECT count(*) AS n FROM hands")["n"][0]
        raise NothingScoredError(NOTHING_SCORED if stored else NOTHING_STORED)
    variant = values.get("variant")
    if isinstance(variant, str) and variant not in set(known["variant"]):
        variants = [v.value for v in Variant]
        played = ", ".join(sorted(set(known["variant"])))
        raise StatsScopeError(f"{option}variant: no scored hands of variant {variant!r} "
                              f"(variants: {alternatives(variants)}; in this warehouse: "
                              f"{played}){did_you_mean(variant, variants)}")
    for kind in ("player", "table"):
        name = values.get(kind)
        if isinstance(name, str) and name not in set(known[kind]):
            raise StatsScopeError(f"no {kind} named {name!r} in the scored hands"
                                  f"{closest_names_hint(connection, kind, name)}")


def closest_names_hint(connection: duckdb.DuckDBPyConnection, kind: str, name: str) -> str:
    """``"; did you mean 'a', 'b' or 'c'?"`` naming the scored players (``kind``
    ``player``) or tables closest to ``name`` (``sql/report/known_names.sql``), or ""."""
    sql = report_sql("known_names")
    values = {"player": name if kind == "player" else None,
              "table": name if kind == "table" else None}
    close = run_sql(connection, sql, values).filter(pl.col("kind") == kind)
    return hint(close["name"].to_list())
