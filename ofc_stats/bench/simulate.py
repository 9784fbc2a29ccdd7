"""``ofc-stats bench simulate``: the simulator, hands into canonical batches in memory."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from ofc_stats.simulate import Simulation, SimulationConfig
from ofc_stats.util.memory import peak_memory_mb


@dataclass(frozen=True)
class SimulationBenchmark:
    """What one ``bench simulate`` run measured."""
    hands: int
    tables: int
    boards: int
    street_rows: int
    seconds: float
    hands_per_second: float
    fantasyland_share: float
    peak_memory_mb: float

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


def benchmark_simulation(hands: int = 1_000_000, tables: int | None = None, seed: int = 0
                         ) -> SimulationBenchmark:
    """Simulate ``hands`` hands into canonical batches (every variant) and time it."""
    config = SimulationConfig(seed=seed, hands=hands, tables=tables)
    started = time.perf_counter()
    boards = street_rows = fantasyland = 0
    simulation = Simulation(config)
    for batch in simulation:
        boards += batch.seats.height
        street_rows += batch.streets.height
        fantasyland += int(batch.seats["in_fantasyland"].sum())
    seconds = time.perf_counter() - started
    return SimulationBenchmark(
        hands=simulation.hands_written, tables=config.table_count, boards=boards,
        street_rows=street_rows, seconds=seconds,
        hands_per_second=simulation.hands_written / seconds,
        fantasyland_share=fantasyland / max(boards, 1),
        peak_memory_mb=peak_memory_mb())
