"""``ofc-stats bench score``: scoring a warehouse of random deals, end to end into Parquet,
against DuckDB copying the same ``seats`` table to Parquet in the same run."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ofc_stats.bench.ceilings import ratio, serial_share
from ofc_stats.bench.data import build_benchmark_warehouse
from ofc_stats.bench.processes import one_core, run_json
from ofc_stats.util.cores import available_cores
from ofc_stats.util.duckdb_connection import open_duckdb
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.files import PARQUET_COMPRESSION_LEVEL


@dataclass(frozen=True)
class WarehouseScoringBenchmark:
    """What one warehouse scoring benchmark run measured (the score ran in its own process)."""
    player_hands: int
    seats_files: int
    build_seconds: float
    score_seconds: float
    player_hands_per_second: float
    peak_memory_mb: float
    fl_transitions: int
    fl_seconds: float  # of score_seconds: following Fantasyland across hands
    # DuckDB copying the seats table to Parquet, same compression, twice (the machine's
    # load moves; their mean is the ceiling).
    copy_seconds: tuple[float, ...] = ()
    cores: int = 0  # the cores the score and the copy above had
    # With --cores: the same score again (--rescore) on one core and on all, and the copy.
    one_core_score_seconds: float = 0.0
    all_cores_score_seconds: float = 0.0
    one_core_copy_seconds: float = 0.0
    all_cores_copy_seconds: float = 0.0

    @property
    def copy_ratio(self) -> float:
        """The score's time over DuckDB's copy of its input (target: at most 3)."""
        copies = len(self.copy_seconds)
        return ratio(self.score_seconds, sum(self.copy_seconds) / copies if copies else 0.0)

    @property
    def score_speedup(self) -> float:
        """Score on all cores over one core (0: not measured)."""
        return ratio(self.one_core_score_seconds, self.all_cores_score_seconds)

    @property
    def copy_speedup(self) -> float:
        """DuckDB's copy on all cores over one core (0: not measured)."""
        return ratio(self.one_core_copy_seconds, self.all_cores_copy_seconds)

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return {**asdict(self), "copy_ratio": self.copy_ratio,
                "score_speedup": self.score_speedup, "copy_speedup": self.copy_speedup,
                "serial_share": serial_share(self.one_core_score_seconds,
                                             self.all_cores_score_seconds, self.cores)}


def copy_seats_seconds(root: Path, threads: int | None = None) -> float:
    """Seconds DuckDB takes to copy every ``seats`` file of the warehouse at ``root`` into
    one Parquet file, compressed as the warehouse compresses (zstd, same level)."""
    files = [str(path) for path in Warehouse.open(root).files("seats")]
    with tempfile.TemporaryDirectory(prefix="ofc-bench-copy-", dir=root.parent) as folder:
        connection = open_duckdb()
        try:
            if threads is not None:
                connection.execute(f"SET threads = {int(threads)}")
            started = time.perf_counter()
            connection.execute(
                f"COPY (SELECT * FROM read_parquet(?)) TO '{Path(folder) / 'seats.parquet'}' "
                f"(FORMAT parquet, COMPRESSION zstd, "
                f"COMPRESSION_LEVEL {PARQUET_COMPRESSION_LEVEL})", [files])
            return time.perf_counter() - started
        finally:
            connection.close()


def benchmark_warehouse_scoring(player_hands: int = 10_000_000, players: int = 3,
                                seed: int = 0, cores: bool = False
                                ) -> WarehouseScoringBenchmark:
    """Build a warehouse of random deals, then time ``ofc-stats score`` on it as a real
    process (its own peak memory, without the build's), then DuckDB copying its seats to
    Parquet, twice. With ``cores``, score again (``--rescore``) pinned to one
    core and free on all, and copy on one thread and on all."""
    with tempfile.TemporaryDirectory(prefix="ofc-bench-") as folder:
        root = Path(folder) / "warehouse"
        started = time.perf_counter()
        # With the hands table, as ingest leaves it: the Fantasyland pass orders it.
        files = build_benchmark_warehouse(root, player_hands, players, seed=seed,
                                          with_hands=True)
        built = time.perf_counter() - started
        summary = run_json("score", "--warehouse", str(root))
        # After the score: a child process inherits its parent's peak memory so far.
        copies = (copy_seats_seconds(root), copy_seats_seconds(root))
        spread = {}
        if cores:
            pin = one_core()
            spread = {
                "one_core_score_seconds": float(run_json(
                    "score", "--warehouse", str(root), "--rescore", pin=pin)["seconds"]),
                "all_cores_score_seconds": float(run_json(
                    "score", "--warehouse", str(root), "--rescore")["seconds"]),
                "one_core_copy_seconds": copy_seats_seconds(root, threads=1),
                "all_cores_copy_seconds": copy_seats_seconds(root),
            }
    return WarehouseScoringBenchmark(
        player_hands=int(summary["player_hands"]), seats_files=files, build_seconds=built,
        score_seconds=float(summary["seconds"]),
        player_hands_per_second=float(summary["player_hands_per_second"]),
        peak_memory_mb=float(summary["peak_memory_mb"]),
        fl_transitions=int(summary["transitions"]),
        fl_seconds=float(summary["transitions_seconds"]),
        copy_seconds=copies,
        cores=available_cores(),
        **spread,
    )
