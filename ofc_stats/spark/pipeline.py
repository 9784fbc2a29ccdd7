"""The pipeline on Spark end to end: histories in, a warehouse's datasets out.

:func:`spark_score` is what ``ofc-stats spark score`` runs: read the histories
(:func:`ofc_stats.spark.read_histories`), score every hand
(:func:`ofc_stats.spark.score_seats`), follow Fantasyland from hand to hand
(:func:`ofc_stats.spark.fantasyland_transitions`) and write every table as a Parquet
dataset in the warehouse's layout (:func:`write_datasets`), which
:func:`ofc_stats.landing.land_datasets` makes a warehouse.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ofc_stats.analysis.fantasyland import FL_ERRORS
from ofc_stats.engine.rules import Ruleset
from ofc_stats.errors import ExitCode, OfcStatsError
from ofc_stats.spark.analysis import fantasyland_transitions
from ofc_stats.spark.histories import read_histories
from ofc_stats.spark.scoring import score_seats
from ofc_stats.spark.session import parallelism
from ofc_stats.warehouse import partition_folder
from ofc_stats.warehouse.schemas import DEFAULT_SCORING

# zstd at its fastest level, as the warehouse writes its own files.
PARQUET_COMPRESSION = "zstd"
SHUFFLE_BYTES = 64 << 20


class SparkOutputError(OfcStatsError):
    """An output folder that already exists (Spark never writes over one)."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True)
class SparkScoreSummary:
    """What one ``spark score`` run wrote."""

    output: str
    scoring: str
    files: int
    ignored: int
    hands: int
    duplicates: int
    conflicts: int
    rejected: int
    player_hands: int
    matchups: int
    transitions: int
    fl_errors: int
    seconds: float

    @property
    def hands_per_second(self) -> float:
        """Hands read, scored and written per second of the whole run."""
        return self.hands / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return {**asdict(self), "hands_per_second": round(self.hands_per_second, 1)}


def dataset_path(output: str, table: str, scoring: str | None = None) -> str:
    """Where a table's dataset goes under ``output`` (a path or a URI)."""
    base = f"{output.rstrip('/')}/{table}"
    return base if scoring is None else f"{base}/{partition_folder(scoring)}"


def write_datasets(output: str | Path, tables: Mapping[str, DataFrame],
                   scoring: str = DEFAULT_SCORING) -> None:
    """Write each table as a Parquet dataset in the warehouse's layout under ``output``
    (``player_hands`` and ``matchups`` under ``scoring=<name>/``, with the ``scoring``
    column in the files, as the warehouse stores them).

    Raises:
        SparkOutputError: a dataset's folder exists already.
    """
    target = str(output)
    for table, frame in tables.items():
        partition = scoring if table in ("player_hands", "matchups") else None
        path = dataset_path(target, table, partition)
        try:
            (frame.write.mode("errorifexists").option("compression", PARQUET_COMPRESSION)
             .option("parquet.compression.codec.zstd.level", "1").parquet(path))
        except AnalysisException as error:
            if "PATH_ALREADY_EXISTS" in str(error) or "already exists" in str(error):
                raise SparkOutputError(f"{path} exists already: write to a new folder"
                                       ) from None
            raise


def _rows(spark: SparkSession, path: str) -> int:
    return int(spark.read.parquet(path).count())


def spark_score(spark: SparkSession, inputs: Sequence[str], output: str | Path, *,
                fmt: str = "auto", ruleset: str | Path | Ruleset | None = None,
                partitions: int | None = None) -> SparkScoreSummary:
    """Read, score and follow every hand of ``inputs`` on Spark; write the warehouse's
    tables as Parquet datasets under ``output`` (a new folder, local or any URI).

    Args:
        spark: the session.
        inputs: history files, folders and globs.
        output: where the datasets go.
        fmt: ``auto`` or a format to force.
        ruleset: None for the ``default`` scoring (each variant's preset, then
            Fantasyland across hands), or a ruleset to force (a what-if).
        partitions: partitions of the shuffles (by hand, by table).
    """
    started = time.perf_counter()
    target = str(output)
    histories = read_histories(spark, inputs, fmt, partitions=partitions)
    # The shuffles by hand and by table: a partition per 64 MiB of histories, at least
    # one per core.
    shuffle = partitions or max(parallelism(spark), -(-histories.bytes // SHUFFLE_BYTES))
    scored = score_seats(histories.seats, ruleset, partitions=shuffle)
    try:
        write_datasets(target, {"hands": histories.hands, "seats": histories.seats,
                                "streets": histories.streets, "rejects": histories.rejects,
                                "player_hands": scored.players, "matchups": scored.matchups},
                       scoring=scored.scoring)
        transitions = fl_errors = 0
        if scored.scoring == DEFAULT_SCORING:
            players = spark.read.parquet(dataset_path(target, "player_hands", DEFAULT_SCORING))
            write_datasets(target, {"fl_transitions": fantasyland_transitions(
                players, scoring=None, partitions=shuffle)})
            followed = spark.read.parquet(dataset_path(target, "fl_transitions"))
            transitions = int(followed.count())
            fl_errors = int(followed.where(F.col("status").isin(*FL_ERRORS)).count())
        duplicates = int(histories.duplicates.count())
    finally:
        histories.unpersist()
    rejects = spark.read.parquet(dataset_path(target, "rejects"))
    conflicts = int(rejects.where(F.col("kind") == "conflict").count())
    return SparkScoreSummary(
        output=target, scoring=scored.scoring, files=histories.files,
        ignored=histories.ignored, hands=_rows(spark, dataset_path(target, "hands")),
        duplicates=duplicates, conflicts=conflicts,
        rejected=int(rejects.count()) - conflicts,
        player_hands=_rows(spark, dataset_path(target, "player_hands", scored.scoring)),
        matchups=_rows(spark, dataset_path(target, "matchups", scored.scoring)),
        transitions=transitions, fl_errors=fl_errors,
        seconds=time.perf_counter() - started)
