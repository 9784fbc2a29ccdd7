"""``ofc-stats bench score``: scoring a warehouse of random deals, end to end into Parquet."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ofc_stats.bench.data import build_benchmark_warehouse
from ofc_stats.bench.processes import run_json


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

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


def benchmark_warehouse_scoring(player_hands: int = 10_000_000, players: int = 3,
                                seed: int = 0) -> WarehouseScoringBenchmark:
    """Build a warehouse of random deals, then time ``ofc-stats score`` on it as a real
    process (its own peak memory, without the build's)."""
    with tempfile.TemporaryDirectory(prefix="ofc-bench-") as folder:
        root = Path(folder) / "warehouse"
        started = time.perf_counter()
        # With the hands table, as ingest leaves it: the Fantasyland pass orders it.
        files = build_benchmark_warehouse(root, player_hands, players, seed=seed,
                                          with_hands=True)
        built = time.perf_counter() - started
        summary = run_json("score", "--warehouse", str(root))
    return WarehouseScoringBenchmark(
        player_hands=int(summary["player_hands"]), seats_files=files, build_seconds=built,
        score_seconds=float(summary["seconds"]),
        player_hands_per_second=float(summary["player_hands_per_second"]),
        peak_memory_mb=float(summary["peak_memory_mb"]),
        fl_transitions=int(summary["transitions"]),
        fl_seconds=float(summary["transitions_seconds"]),
    )
