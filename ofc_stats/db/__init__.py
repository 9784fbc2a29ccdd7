"""SQL over the warehouse: DuckDB connections with every view, named queries, read-only SQL.

:mod:`~ofc_stats.db.sql` (:func:`connect`, :func:`run_sql` and its read-only guard,
the report's SQL), :mod:`~ofc_stats.db.queries` (the named queries of ``sql/queries``),
:mod:`~ofc_stats.db.scope` (why an answer is empty), :mod:`~ofc_stats.db.stats`
(:func:`player_stats`, the Fantasyland review's :func:`fantasyland_review_stats`) and
:mod:`~ofc_stats.db.hand` (one hand in full). The views themselves and the
``ofc.duckdb`` file are the warehouse's catalogue (:mod:`ofc_stats.warehouse.catalog`).

>>> from ofc_stats.db import connect, query_warehouse, player_stats, named_queries
"""

from ofc_stats.db.queries import (
    NamedQuery,
    QueryParam,
    named_queries,
    query_warehouse,
    run_named,
)
from ofc_stats.db.scope import (
    NOTHING_SCORED,
    NothingScoredError,
    StatsScopeError,
    closest_names_hint,
    explain_empty,
)
from ofc_stats.db.sql import (
    DEFAULT_SESSION_GAP_MINUTES,
    QueryError,
    connect,
    report_sql,
    run_sql,
)
from ofc_stats.db.stats import fantasyland_points, fantasyland_review_stats, player_stats

__all__ = [
    "DEFAULT_SESSION_GAP_MINUTES",
    "NOTHING_SCORED",
    "NamedQuery",
    "NothingScoredError",
    "QueryError",
    "QueryParam",
    "StatsScopeError",
    "closest_names_hint",
    "connect",
    "explain_empty",
    "fantasyland_points",
    "fantasyland_review_stats",
    "named_queries",
    "player_stats",
    "query_warehouse",
    "report_sql",
    "run_named",
    "run_sql",
]
