"""``ofc-stats bench report``: the HTML report of a scored warehouse, overview and one player."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ofc_stats.bench.data import build_benchmark_warehouse
from ofc_stats.bench.processes import run_json


@dataclass(frozen=True)
class ReportBenchmark:
    """What one report benchmark run measured (each report ran in its own process)."""
    hands: int
    player_hands: int
    players: int
    build_seconds: float
    score_seconds: float
    overview_seconds: float  # write_report's own clock, for every player
    overview_bytes: int
    overview_peak_memory_mb: float
    player_seconds: float  # the same for one player's report
    player_bytes: int
    player_peak_memory_mb: float

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


def benchmark_report(hands: int = 1_000_000, players: int = 3, player_pool: int = 12,
                     seed: int = 0) -> ReportBenchmark:
    """Build and score a warehouse of random deals, then time ``ofc-stats report`` on it,
    the overview and one player's report, each as a real process (its own peak memory)."""
    with tempfile.TemporaryDirectory(prefix="ofc-bench-") as folder:
        root = Path(folder) / "warehouse"
        started = time.perf_counter()
        build_benchmark_warehouse(root, hands * players, players, seed=seed,
                                  player_pool=player_pool, with_hands=True)
        built = time.perf_counter() - started
        scored = run_json("score", "--warehouse", str(root))
        overview = run_json("report", "--warehouse", str(root),
                             "--out", str(Path(folder) / "overview.html"))
        player = run_json("report", "--warehouse", str(root), "--player", "player-0",
                           "--out", str(Path(folder) / "player-0.html"))
    return ReportBenchmark(
        hands=hands, player_hands=int(scored["player_hands"]),
        players=int(overview["players"]), build_seconds=built,
        score_seconds=float(scored["seconds"]),
        overview_seconds=float(overview["seconds"]), overview_bytes=int(overview["bytes"]),
        overview_peak_memory_mb=float(overview["peak_memory_mb"]),
        player_seconds=float(player["seconds"]), player_bytes=int(player["bytes"]),
        player_peak_memory_mb=float(player["peak_memory_mb"]),
    )
