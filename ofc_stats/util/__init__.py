"""Small helpers every stage may use: DuckDB connections, peak memory."""
