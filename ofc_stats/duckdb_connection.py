"""DuckDB connections, opened the one way every part of ofc-stats needs them."""

from __future__ import annotations

import duckdb


def open_duckdb(database: str = ":memory:", **config: str | int | bool
                ) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection that never draws a progress bar.

    DuckDB draws one on stdout for any query running longer than two seconds, and
    stdout carries our results (``--json``, ``query`` output, CSV).
    """
    connection = duckdb.connect(database, config=config)
    connection.execute("SET enable_progress_bar = false")  # a client setting, not config
    return connection
