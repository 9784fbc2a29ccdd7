"""``ofc-stats bench spark``: the warehouse's scoring on Spark, on 1 and 2 cores, against
the local pipeline on the same hands.

A warehouse of random deals is built once (``ofc_stats.bench``). ``ofc-stats score``
scores it as a real process (the local pipeline: its two scoring threads, then the
Fantasyland pass); then, for each master, a fresh process starts Spark, warms it up
on a small slice, and times the same work: the seats Parquet files read, scored
(:func:`ofc_stats.spark.score_seats`), ``player_hands`` and ``matchups`` written as
Parquet, then Fantasyland followed from them and written. Run as
``python -m ofc_stats.spark.benchmark WAREHOUSE MASTER OUTPUT`` it is one such process.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ofc_stats.bench.data import build_benchmark_warehouse
from ofc_stats.bench.processes import run_json

WARM_UP_HANDS = 2_000


def tree_cpu_seconds() -> float:
    """CPU seconds (user and system) of this process and every process below it (the
    JVM, its Python workers), living or waited for; 0 where /proc is not there.

    On a shared machine the wall clock says how busy the others kept it; the CPU time
    says what the work itself cost."""
    processes: dict[int, tuple[int, float]] = {}
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: state, ppid, ..., utime (12th), stime, cutime, cstime.
        cpu = sum(int(value) for value in fields[11:15]) / ticks
        processes[int(entry.name)] = (int(fields[1]), cpu)
    mine = {os.getpid()}
    grew = True
    while grew:
        below = {pid for pid, (parent, _) in processes.items() if parent in mine} - mine
        grew = bool(below)
        mine |= below
    return sum(processes[pid][1] for pid in mine if pid in processes)
DRIVER_MEMORY = "6g"


@dataclass(frozen=True)
class SparkRun:
    """One master's timings (its own process)."""

    master: str
    cores: int
    start_seconds: float  # the session and a warm-up job on a small slice (not counted)
    cpu_seconds: float  # CPU time of the timed work: the JVM and Python workers, all cores
    score_seconds: float  # seats read, scored, player_hands and matchups written
    transitions_seconds: float  # Fantasyland followed and written
    player_hands: int
    transitions: int

    @property
    def seconds(self) -> float:
        """Scoring and Fantasyland, as ``ofc-stats score`` does both."""
        return self.score_seconds + self.transitions_seconds

    @property
    def player_hands_per_second(self) -> float:
        """Player-hands scored and followed per second."""
        return self.player_hands / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return {**asdict(self), "seconds": self.seconds,
                "player_hands_per_second": self.player_hands_per_second}


@dataclass(frozen=True)
class SparkBenchmark:
    """Spark on each master against the local pipeline, on the same hands."""

    hands: int
    player_hands: int
    build_seconds: float
    local_seconds: float  # ``ofc-stats score``: scoring and Fantasyland
    local_transitions_seconds: float  # of it, the Fantasyland pass
    local_cpu_seconds: float  # its CPU time, every thread
    runs: list[SparkRun] = field(default_factory=list)

    @property
    def local_player_hands_per_second(self) -> float:
        """The local pipeline's throughput."""
        return self.player_hands / self.local_seconds if self.local_seconds else 0.0

    def speedup(self, run: SparkRun) -> float:
        """How much faster ``run`` is than the first (one core)."""
        return self.runs[0].seconds / run.seconds if run.seconds else 0.0

    def ratio_to_local(self, run: SparkRun) -> float:
        """``run``'s throughput over the local pipeline's (1 = as fast)."""
        return self.local_seconds / run.seconds if run.seconds else 0.0

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return {
            "hands": self.hands, "player_hands": self.player_hands,
            "build_seconds": self.build_seconds, "local_seconds": self.local_seconds,
            "local_transitions_seconds": self.local_transitions_seconds,
            "local_cpu_seconds": self.local_cpu_seconds,
            "local_player_hands_per_second": self.local_player_hands_per_second,
            "runs": [{**run.as_dict(), "speedup": self.speedup(run),
                      "ratio_to_local": self.ratio_to_local(run)} for run in self.runs],
        }


def run_master(warehouse_root: Path, master: str, output: Path) -> SparkRun:
    """Time the warehouse's scoring on Spark with ``master``, in this process."""
    from pyspark.sql import functions as F

    from ofc_stats.spark.analysis import fantasyland_transitions
    from ofc_stats.spark.pipeline import dataset_path, write_datasets
    from ofc_stats.spark.scoring import score_seats
    from ofc_stats.spark.session import spark_session
    from ofc_stats.warehouse import Warehouse
    from ofc_stats.warehouse.schemas import DEFAULT_SCORING

    started = time.perf_counter()
    spark = spark_session(master, app_name="ofc-stats bench", config={
        "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
        "spark.driver.memory": DRIVER_MEMORY})
    spark.sparkContext.setLogLevel("ERROR")
    seats = spark.read.parquet(*(str(path) for path in
                                 Warehouse.open(warehouse_root).files("seats")))
    warm = score_seats(seats.where(F.col("hand_id").isin(
        [f"b-{number}" for number in range(WARM_UP_HANDS)])))
    warm.players.count()
    start_seconds = time.perf_counter() - started

    started, cpu = time.perf_counter(), tree_cpu_seconds()
    scored = score_seats(seats)
    write_datasets(output, {"player_hands": scored.players, "matchups": scored.matchups})
    score_seconds = time.perf_counter() - started

    started = time.perf_counter()
    players = spark.read.parquet(dataset_path(str(output), "player_hands", DEFAULT_SCORING))
    write_datasets(output, {"fl_transitions": fantasyland_transitions(players, scoring=None)})
    transitions_seconds = time.perf_counter() - started
    cpu_seconds = tree_cpu_seconds() - cpu
    run = SparkRun(cpu_seconds=cpu_seconds,
        master=master, cores=spark.sparkContext.defaultParallelism,
        start_seconds=start_seconds, score_seconds=score_seconds,
        transitions_seconds=transitions_seconds, player_hands=int(players.count()),
        transitions=int(spark.read.parquet(dataset_path(str(output), "fl_transitions"))
                        .count()))
    spark.stop()
    return run


def benchmark_spark(hands: int = 1_000_000, masters: Sequence[str] = ("local[1]", "local[2]"),
                    seed: int = 0) -> SparkBenchmark:
    """Build a warehouse of ``hands`` random three-player deals, score it locally, then
    on Spark with each master (each in its own process)."""
    with tempfile.TemporaryDirectory(prefix="ofc-bench-spark-") as folder:
        root = Path(folder) / "warehouse"
        started = time.perf_counter()
        build_benchmark_warehouse(root, hands * 3, 3, seed=seed, with_hands=True)
        built = time.perf_counter() - started
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        local = run_json("score", "--warehouse", str(root))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        local_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        runs = []
        for number, master in enumerate(masters):
            completed = subprocess.run(
                [sys.executable, "-m", "ofc_stats.spark.benchmark", str(root), master,
                 str(Path(folder) / f"spark-{number}")],
                capture_output=True, text=True, check=False)
            if completed.returncode != 0:
                raise RuntimeError(f"Spark benchmark on {master} failed: "
                                   f"{completed.stderr.strip()[-2000:]}")
            values: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
            runs.append(SparkRun(**{key: values[key] for key in SparkRun.__dataclass_fields__}))
    return SparkBenchmark(
        hands=hands, player_hands=int(local["player_hands"]), build_seconds=built,
        local_seconds=float(local["seconds"]),
        local_transitions_seconds=float(local["transitions_seconds"]),
        local_cpu_seconds=local_cpu, runs=runs)


if __name__ == "__main__":
    result = run_master(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]))
    print(json.dumps(result.as_dict()))
