"""SQL over the warehouse: DuckDB connections with every view, named queries, read-only SQL.

>>> from ofc_stats.db import connect, query_warehouse, player_stats, named_queries
"""

from ofc_stats.db.queries import (
    DATABASE_FILE,
    DEFAULT_SESSION_GAP_MINUTES,
    NOTHING_SCORED,
    NamedQuery,
    QueryError,
    QueryParam,
    StatsScopeError,
    closest_names_hint,
    connect,
    create_views,
    database_is_current,
    named_queries,
    player_stats,
    query_warehouse,
    refresh_database,
    report_sql,
    run_named,
    run_sql,
    table_schemas,
)

__all__ = [
    "DATABASE_FILE",
    "DEFAULT_SESSION_GAP_MINUTES",
    "NOTHING_SCORED",
    "NamedQuery",
    "QueryError",
    "QueryParam",
    "StatsScopeError",
    "closest_names_hint",
    "connect",
    "create_views",
    "database_is_current",
    "named_queries",
    "player_stats",
    "query_warehouse",
    "refresh_database",
    "report_sql",
    "run_named",
    "run_sql",
    "table_schemas",
]
