"""``ofc-stats bench stats``: the per-player summary over a scored warehouse."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ofc_stats.analysis.score import score_warehouse
from ofc_stats.bench.data import build_benchmark_warehouse
from ofc_stats.db import player_stats
from ofc_stats.warehouse import Warehouse


@dataclass(frozen=True)
class StatsBenchmark:
    """The per-player summary timed over a scored warehouse of random deals."""
    player_hands: int
    players: int
    prepare_seconds: float
    first_seconds: float  # views created on a fresh connection, then the query
    best_seconds: float  # best of the repeated runs

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


def benchmark_stats(player_hands: int = 10_000_000, repeats: int = 3,
                    seed: int = 0) -> StatsBenchmark:
    """Build and score a warehouse of random deals, then time ``ofc-stats stats``'s query."""
    with tempfile.TemporaryDirectory(prefix="ofc-bench-") as folder:
        root = Path(folder) / "warehouse"
        started = time.perf_counter()
        build_benchmark_warehouse(root, player_hands, seed=seed)
        warehouse = Warehouse.open(root)
        score_warehouse(warehouse)
        prepared = time.perf_counter() - started
        timings = []
        for _ in range(max(1, repeats)):
            started = time.perf_counter()
            summary = player_stats(warehouse)
            timings.append(time.perf_counter() - started)
    return StatsBenchmark(player_hands=int(summary["hands"].sum()), players=summary.height,
                          prepare_seconds=prepared, first_seconds=timings[0],
                          best_seconds=min(timings))
