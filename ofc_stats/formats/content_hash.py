"""The content hash: what makes a hand *that* hand, the same in every format."""

from __future__ import annotations

import threading

import duckdb
import polars as pl

from ofc_stats.util.duckdb_connection import duckdb_cursor

_local = threading.local()


def _duckdb() -> duckdb.DuckDBPyConnection:
    """This thread's DuckDB connection (opening one costs more than hashing a batch)."""
    connection: duckdb.DuckDBPyConnection | None = getattr(_local, "connection", None)
    if connection is None:
        connection = _local.connection = duckdb_cursor()
    return connection


def content_hash(hands: pl.DataFrame, seats: pl.DataFrame) -> pl.Series:
    """md5 of what makes a hand *that* hand, aligned with ``hands`` (by ``record``).

    The identity is the site, id, table, start time, variant and each seat's number,
    player, Fantasyland flag and final board: what every format records. Reported
    points, stakes and streets are left out so that two formats of the same hand
    agree (ingest compares points, stakes and button apart, where both copies have
    them: ``ofc_stats.ingest.hand_keys``). md5 (via DuckDB, vectorised) is stable
    across library versions, unlike polars' own hash.
    """
    seat_text = (
        seats.select("record", "seat", pl.concat_str(
            [pl.col("seat").cast(pl.String), "player", pl.col("in_fantasyland").cast(pl.String),
             "top", "middle", "bottom"], separator="|").alias("text"))
        .sort("record", "seat")
        .group_by("record", maintain_order=True)
        .agg(pl.col("text").str.join(";"))
    )
    identity = hands.join(seat_text, on="record", how="left").select(
        "record",
        pl.concat_str([pl.col("site"), pl.col("hand_id"), pl.col("table"),
                       pl.col("started_at").dt.strftime("%Y-%m-%dT%H:%M:%S%.6f"),
                       pl.col("variant"), pl.col("text").fill_null("")],
                      separator="\x1f").alias("identity"),
    )
    connection = _duckdb()
    connection.register("identity", identity)
    try:
        hashed = connection.sql(
            "SELECT record, md5(identity) AS content_hash FROM identity").pl()
    finally:
        connection.unregister("identity")
    return hands.select("record").join(hashed, on="record", how="left",
                                       maintain_order="left")["content_hash"]
