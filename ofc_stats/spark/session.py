"""A Spark session set up the way ofc-stats' Spark functions expect."""

from __future__ import annotations

import os
import sys

from pyspark.sql import SparkSession

APP_NAME = "ofc-stats"
# Settings every session gets unless the caller (spark-submit, a cluster's defaults)
# set them already: times in UTC, Parquet timestamps as microseconds (what polars and
# DuckDB read as UTC instants; Spark's default INT96 is a legacy encoding), and one
# polars thread per task, as Spark gives each task one core.
SESSION_DEFAULTS = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.executorEnv.POLARS_MAX_THREADS": "1",
}

SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"


def spark_session(master: str | None = None, app_name: str = APP_NAME,
                  config: dict[str, str] | None = None) -> SparkSession:
    """The active Spark session, or a new one.

    Args:
        master: ``local[*]``, ``local[2]``, ``spark://host:7077``, ``yarn``...; None
            keeps what spark-submit or the cluster says (``local[*]`` when nothing does).
        app_name: the application's name in Spark's UI.
        config: more settings (``{"spark.executor.memory": "4g"}``).
    """
    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    if master is None or master.startswith("local"):
        # Local workers run this Python (with ofc-stats), not whatever python3 is first
        # on the PATH.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    for key, value in {**SESSION_DEFAULTS, **(config or {})}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    context = session.sparkContext
    if (str(context.master).startswith("local")
            and not context.getConf().contains(SHUFFLE_PARTITIONS)):
        # Spark's 200 shuffle partitions suit a cluster: on one machine each costs a
        # Python task's fixed overhead for a sliver of the data.
        session.conf.set(SHUFFLE_PARTITIONS, str(2 * context.defaultParallelism))
    return session


def parallelism(spark: SparkSession) -> int:
    """The cores Spark runs tasks on (Spark Connect, which has no SparkContext to ask:
    its shuffle partitions)."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except AttributeError:  # Spark Connect
        return int(spark.conf.get(SHUFFLE_PARTITIONS) or 200)
