"""Frames between Spark and polars: types, Arrow batches, and hands kept whole.

Spark hands a Python function (``mapInArrow``) the rows of one partition as a stream
of Arrow record batches of at most ``spark.sql.execution.arrow.maxRecordsPerBatch``
rows, cut wherever that count falls. :func:`map_whole_groups` shuffles the rows so
that each group (a hand, a table) lives in one partition, sorted, and re-cuts the
stream between groups, so that the local functions always see whole hands, in
batches of about ``batch_rows``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import pyarrow as pa  # type: ignore[import-untyped]
from pyspark.sql import DataFrame
from pyspark.sql import types as T
from pyspark.sql.pandas.types import to_arrow_schema

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

# Rows handed to a local function at once (about as many as the local scorer's batch).
BATCH_ROWS = 1 << 16

FrameWork = Callable[[pl.DataFrame], pl.DataFrame]


def spark_type(dtype: pl.DataType) -> T.DataType:
    """The Spark type that holds a polars type (categories as text)."""
    simple: dict[type[pl.DataType], T.DataType] = {
        pl.String: T.StringType(), pl.Categorical: T.StringType(), pl.Enum: T.StringType(),
        pl.Boolean: T.BooleanType(), pl.Int8: T.ByteType(), pl.Int16: T.ShortType(),
        pl.Int32: T.IntegerType(), pl.Int64: T.LongType(), pl.UInt8: T.ShortType(),
        pl.UInt16: T.IntegerType(), pl.UInt32: T.LongType(), pl.Float32: T.FloatType(),
        pl.Float64: T.DoubleType(), pl.Date: T.DateType(), pl.Binary: T.BinaryType(),
    }
    if isinstance(dtype, pl.Datetime):
        return T.TimestampType()
    if isinstance(dtype, pl.Decimal):
        return T.DecimalType(dtype.precision or 38, dtype.scale or 0)
    if isinstance(dtype, pl.List):
        return T.ArrayType(spark_type(_instance(dtype.inner)))
    if isinstance(dtype, pl.Struct):
        return T.StructType([T.StructField(field.name, spark_type(_instance(field.dtype)))
                             for field in dtype.fields])
    for kind, spark in simple.items():
        if isinstance(dtype, kind):
            return spark
    raise TypeError(f"no Spark type for polars {dtype}")


def _instance(dtype: PolarsDataType) -> pl.DataType:
    """A polars type given as its class (``pl.String``) or an instance."""
    return dtype if isinstance(dtype, pl.DataType) else dtype()


def spark_schema(schema: pl.Schema | dict[str, pl.DataType]) -> T.StructType:
    """A polars schema as a Spark ``StructType`` (every field nullable)."""
    return T.StructType([T.StructField(name, spark_type(dtype), True)
                         for name, dtype in schema.items()])


def arrow_schema(schema: T.StructType) -> pa.Schema:
    """The Arrow schema Spark expects of batches of ``schema`` (times in UTC)."""
    return to_arrow_schema(schema, timezone="UTC", prefers_large_types=True)


def from_arrow(batch: pa.RecordBatch | pa.Table) -> pl.DataFrame:
    """An Arrow batch from Spark as a polars frame, times in UTC (Spark sends them in
    the session's time zone)."""
    frame = pl.from_arrow(batch)
    assert isinstance(frame, pl.DataFrame)
    zoned = [name for name, dtype in frame.schema.items()
             if isinstance(dtype, pl.Datetime) and dtype.time_zone not in (None, "UTC")]
    naive = [name for name, dtype in frame.schema.items()
             if isinstance(dtype, pl.Datetime) and dtype.time_zone is None]
    return frame.with_columns(
        *(pl.col(name).dt.convert_time_zone("UTC") for name in zoned),
        *(pl.col(name).dt.replace_time_zone("UTC") for name in naive))


def to_arrow(frame: pl.DataFrame, schema: pa.Schema) -> pa.Table:
    """A polars frame as an Arrow table of exactly ``schema`` (its columns, in order)."""
    plain = frame.select(
        pl.col(name).cast(pl.String) if isinstance(frame.schema[name], (pl.Enum, pl.Categorical))
        else pl.col(name) for name in schema.names)
    return plain.to_arrow(compat_level=pl.CompatLevel.oldest()).cast(schema)


def arrow_batches(frame: pl.DataFrame, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """``frame`` as Arrow record batches of ``schema``."""
    if frame.height:
        yield from to_arrow(frame, schema).to_batches()


def to_polars(frame: DataFrame) -> pl.DataFrame:
    """A (small) Spark DataFrame collected as polars, times in UTC."""
    return from_arrow(frame.toArrow())


def split_last_group(frame: pl.DataFrame, keys: Sequence[str]
                     ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``frame`` (sorted by ``keys``) as its whole groups and the rows of its last
    group, which may go on in the next batch."""
    last = frame.select(keys).tail(1)
    in_last = frame.select(pl.all_horizontal(
        pl.col(key).eq_missing(last[key][0]) for key in keys)).to_series()
    start = int(in_last.arg_true()[0])
    return frame.head(start), frame.slice(start)


def whole_groups(batches: Iterable[pa.RecordBatch], keys: Sequence[str],
                 batch_rows: int) -> Iterator[pl.DataFrame]:
    """Re-cut a partition's batches (sorted by ``keys``) into frames of whole groups,
    each of about ``batch_rows`` rows or more (a group is never split)."""
    pending: list[pl.DataFrame] = []
    rows = 0
    for batch in batches:
        frame = from_arrow(batch)
        if not frame.height:
            continue
        pending.append(frame)
        rows += frame.height
        if rows >= batch_rows:
            head, carry = split_last_group(pl.concat(pending, rechunk=True), keys)
            if head.height:
                yield head
            pending, rows = [carry], carry.height
    if rows:
        yield pl.concat(pending, rechunk=True)


def _map_groups(batches: Iterable[pa.RecordBatch], *, keys: Sequence[str], work: FrameWork,
                schema: pa.Schema, batch_rows: int) -> Iterator[pa.RecordBatch]:
    for frame in whole_groups(batches, keys, batch_rows):
        yield from arrow_batches(work(frame), schema)


def map_whole_groups(frame: DataFrame, keys: Sequence[str], order: Sequence[str],
                     work: FrameWork, schema: pl.Schema, *, batch_rows: int = BATCH_ROWS,
                     partitions: int | None = None) -> DataFrame:
    """Run a local frame function over a Spark DataFrame, each group of ``keys`` whole.

    The rows are shuffled by ``keys`` (into ``partitions`` partitions, or Spark's
    ``spark.sql.shuffle.partitions``), sorted by ``keys`` then ``order`` within each
    partition, and handed to ``work`` as polars frames of whole groups.

    Args:
        frame: the input rows.
        keys: the columns that make a group (a hand: ``site``, ``hand_id``).
        order: columns that order the rows within a group (a hand's seats).
        work: a picklable function from a polars frame of whole groups to the output
            rows (it runs on the executors).
        schema: the polars schema of ``work``'s output.
        batch_rows: rows per call of ``work`` (at least: a group is never split).
        partitions: partitions of the shuffle.
    """
    struct = spark_schema(schema)
    shuffled = (frame.repartition(partitions, *keys) if partitions
                else frame.repartition(*keys))
    ordered = shuffled.sortWithinPartitions(*keys, *order)
    mapper = functools.partial(_map_groups, keys=tuple(keys), work=work,
                               schema=arrow_schema(struct), batch_rows=max(1, batch_rows))
    return ordered.mapInArrow(mapper, struct)


def combined_schema(parts: dict[str, pl.Schema], meta: dict[str, pl.DataType] | None = None
                    ) -> pl.Schema:
    """The schema of one pass that yields several tables: ``_kind`` (which part a row
    belongs to, numbered in the order of ``parts``), the ``meta`` columns rows of any
    part may carry, and one struct column per part (null on the other parts' rows)."""
    return pl.Schema({"_kind": pl.Int8(), **(meta or {}),
                      **{name: pl.Struct(schema) for name, schema in parts.items()}})


def tagged_batches(frame: pl.DataFrame, part: str, schema: pa.Schema
                   ) -> Iterator[pa.RecordBatch]:
    """Rows of one part of a combined pass (:func:`combined_schema`, as Arrow): the
    part's struct filled from ``frame``'s columns, the meta columns ``frame`` has, nulls
    elsewhere."""
    if not frame.height:
        return
    rows = frame.height
    structs = [field.name for field in schema if pa.types.is_struct(field.type)]
    columns: list[pa.Array] = []
    for field in schema:
        if field.name == "_kind":
            columns.append(pa.array(np.full(rows, structs.index(part), dtype=np.int8)))
        elif field.name == part:
            inner = to_arrow(frame, pa.schema(list(field.type)))
            columns.append(pa.StructArray.from_arrays(
                [inner.column(index).combine_chunks() for index in range(inner.num_columns)],
                fields=list(field.type)))
        elif field.name in frame.columns and field.name not in structs:
            columns.append(to_arrow(frame.select(field.name), pa.schema([field]))
                           .column(0).combine_chunks())
        else:
            columns.append(pa.nulls(rows, field.type))
    yield pa.RecordBatch.from_arrays(columns, schema=schema)
