"""Analysis of scored hands on Spark: Fantasyland across hands, the per-player summary.

Both run the project's own SQL. Fantasyland chains are per table, so
:func:`fantasyland_transitions` shuffles the scored boards by (site, table) and runs
the local DuckDB query (``ofc_stats.fantasyland.TRANSITIONS_SQL``) over each
partition's tables, whole. :func:`player_stats` is an aggregate over every hand of a
player, wherever it is: Spark SQL runs the named query ``player_summary`` itself
(``sql/queries/player_summary.sql``, the one ``ofc-stats stats`` runs).
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Iterable, Iterator

import polars as pl
import pyarrow as pa  # type: ignore[import-untyped]
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ofc_stats.analysis.fantasyland import (
    DEFAULT_BREAK_MINUTES,
    DUCKDB_MEMORY_LIMIT,
    transitions_sql,
)
from ofc_stats.db.queries import named_queries
from ofc_stats.spark.frames import arrow_batches, arrow_schema, from_arrow, spark_schema
from ofc_stats.util.duckdb_connection import open_duckdb
from ofc_stats.warehouse.schemas import DEFAULT_SCORING, FL_TRANSITIONS_SCHEMA

TABLE_KEY = ["site", "table"]
# What the transitions query reads of each board.
FL_COLUMNS = ["site", "hand_id", "table", "started_at", "player", "in_fantasyland",
              "fl_cards", "fl_qualifies_entry", "fl_entry_cards", "fl_qualifies_stay",
              "fl_stay_cards"]


def _default_scoring(player_hands: DataFrame, scoring: str | None) -> DataFrame:
    if scoring is not None and "scoring" in player_hands.columns:
        return player_hands.where(F.col("scoring") == scoring)
    return player_hands


def _partition_transitions(batches: Iterable[pa.RecordBatch], *, break_minutes: int,
                           schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The transitions of the tables of one partition (each table whole in it)."""
    parts = [from_arrow(batch) for batch in batches]
    parts = [part for part in parts if part.height]
    if not parts:
        return
    boards = pl.concat(parts, rechunk=True)
    connection = open_duckdb(memory_limit=DUCKDB_MEMORY_LIMIT, threads=1,
                             preserve_insertion_order=False)
    try:
        connection.register("partition_player_hands", boards)
        result = connection.sql(transitions_sql("partition_player_hands",
                                                break_minutes=break_minutes)).pl()
    finally:
        connection.close()
    rows = result.with_columns(pl.col("started_at").dt.convert_time_zone("UTC")).cast(
        dict(FL_TRANSITIONS_SCHEMA))
    yield from arrow_batches(rows.select(list(FL_TRANSITIONS_SCHEMA)), schema)


def fantasyland_transitions(player_hands: DataFrame, *,
                            break_minutes: int = DEFAULT_BREAK_MINUTES,
                            scoring: str | None = DEFAULT_SCORING,
                            partitions: int | None = None) -> DataFrame:
    """The ``fl_transitions`` rows of scored boards, as ``ofc-stats score`` stores them.

    Args:
        player_hands: ``player_hands`` rows (:func:`ofc_stats.spark.score_seats`, or
            the warehouse's Parquet).
        break_minutes: idle minutes after which a table's next hand is a new sitting.
        scoring: the scoring whose rows are followed, where ``player_hands`` holds a
            ``scoring`` column (None: every row).
        partitions: partitions of the shuffle by table; a partition's tables are
            followed in one task's memory (DuckDB spills past its limit).
    """
    boards = _default_scoring(player_hands, scoring).select(*FL_COLUMNS)
    shuffled = (boards.repartition(partitions, *TABLE_KEY) if partitions
                else boards.repartition(*TABLE_KEY))
    struct = spark_schema(FL_TRANSITIONS_SCHEMA)
    mapper = functools.partial(_partition_transitions, break_minutes=int(break_minutes),
                               schema=arrow_schema(struct))
    return shuffled.mapInArrow(mapper, struct)


_PARAMETER = re.compile(r"\$(\w+)")
_RELATION = re.compile(r"\bFROM\s+player_hands\b", re.IGNORECASE)


def player_stats(spark: SparkSession, player_hands: DataFrame, *,
                 player: str | None = None, variant: str | None = None,
                 since: str | None = None, min_hands: int | None = None,
                 scoring: str | None = DEFAULT_SCORING) -> DataFrame:
    """The per-player summary of ``ofc-stats stats`` (the named query
    ``player_summary``), computed by Spark SQL over ``player_hands`` rows.

    The filters are the command's: ``player``, ``variant``, ``since`` (ISO 8601 date
    or time, UTC unless it says otherwise), ``min_hands``. Rates come out as doubles,
    as DuckDB gives them.

    Raises:
        QueryError: a filter value of the wrong type (``since`` not a time).
    """
    query = named_queries()["player_summary"]
    values = {key: str(value) for key, value in
              {"player": player, "variant": variant, "since": since,
               "min_hands": min_hands}.items() if value is not None}
    bound = query.bind(values)
    view = f"ofc_stats_player_hands_{uuid.uuid4().hex}"
    _default_scoring(player_hands, scoring).createOrReplaceTempView(view)
    text = _RELATION.sub(f"FROM {view}", _PARAMETER.sub(r":\1", query.sql)).strip()
    summary = spark.sql(text.removesuffix(";"), args=bound)
    return summary.select(*(F.col(field.name).cast(T.DoubleType()).alias(field.name)
                            if isinstance(field.dataType, T.DecimalType) else F.col(field.name)
                            for field in summary.schema.fields))
