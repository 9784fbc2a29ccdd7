"""SQL over the warehouse: DuckDB connections with every view, named queries, read-only SQL.

:mod:`~ofc_stats.db.sql` (:func:`connect`, :func:`run_sql` and its read-only guard),
:mod:`~ofc_stats.db.queries` (the named queries of ``sql/queries``, the report's SQL)
and :mod:`~ofc_stats.db.stats` (:func:`player_stats`, the Fantasyland review's
:func:`fantasyland_review_stats`). The views themselves and the
``ofc.duckdb`` file are the warehouse's catalogue (:mod:`ofc_stats.warehouse.catalog`).

>>> from ofc_stats.db import connect, query_warehouse, player_stats, named_queries
"""

from ofc_stats.db.queries import (
    NamedQuery,
    QueryParam,
    named_queries,
    query_warehouse,
    report_sql,
    run_named,
)
from ofc_stats.db.sql import DEFAULT_SESSION_GAP_MINUTES, QueryError, connect, run_sql
from ofc_stats.db.stats import (
    NOTHING_SCORED,
    StatsScopeError,
    closest_names_hint,
    fantasyland_points,
    fantasyland_review_stats,
    player_stats,
)

__all__ = [
    "DEFAULT_SESSION_GAP_MINUTES",
    "NOTHING_SCORED",
    "NamedQuery",
    "QueryError",
    "QueryParam",
    "StatsScopeError",
    "closest_names_hint",
    "connect",
    "fantasyland_points",
    "fantasyland_review_stats",
    "named_queries",
    "player_stats",
    "query_warehouse",
    "report_sql",
    "run_named",
    "run_sql",
]
