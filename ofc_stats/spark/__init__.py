"""ofc-stats on Apache Spark: the same readers, scorer and queries over DataFrames.

Needs the ``spark`` extra (``pip install 'ofc-stats[spark]'``: PySpark 4, and Java
17 on the machine). See docs/spark.md.
"""

from ofc_stats.errors import SparkUnavailableError

try:
    import pyspark  # noqa: F401
except ImportError as error:  # pragma: no cover - the base install
    raise SparkUnavailableError(
        "ofc-stats' Spark functions need PySpark: pip install 'ofc-stats[spark]' "
        "(and Java 17)") from error

from ofc_stats.spark.analysis import fantasyland_transitions, player_stats
from ofc_stats.spark.histories import SparkHistories, read_histories
from ofc_stats.spark.pipeline import SparkScoreSummary, spark_score, write_datasets
from ofc_stats.spark.scoring import ScoredSeats, score_boards, score_matchups, score_seats
from ofc_stats.spark.session import spark_session

__all__ = [
    "ScoredSeats",
    "SparkHistories",
    "SparkScoreSummary",
    "fantasyland_transitions",
    "player_stats",
    "read_histories",
    "score_boards",
    "score_matchups",
    "score_seats",
    "spark_score",
    "spark_session",
    "write_datasets",
]
