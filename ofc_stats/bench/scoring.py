"""``ofc-stats bench scoring``: the scoring engine alone, on random deals in memory."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ofc_stats.bench.data import random_deals
from ofc_stats.engine.boards import BATCH_BOARDS
from ofc_stats.engine.rules import Ruleset, get_ruleset
from ofc_stats.engine.scoring import compile_rules, score_batch
from ofc_stats.util.memory import peak_memory_mb


@dataclass(frozen=True)
class ScoringBenchmark:
    """What one scoring benchmark run measured."""

    deals: int
    players: int
    ruleset: str
    player_hands: int
    seconds: float
    player_hands_per_second: float
    deals_per_second: float
    fouled_share: float
    generate_seconds: float
    peak_memory_mb: float

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


def benchmark_scoring(deals: int = 2_000_000, players: int = 3,
                      ruleset: str | Path | Ruleset = "pineapple",
                      batch_boards: int = BATCH_BOARDS, seed: int = 0) -> ScoringBenchmark:
    """Score ``deals`` random deals in batches and time the scoring alone.

    The deals are generated first (timed separately); the clock then runs over
    :func:`score_batch` for every batch, per-pair results included.
    """
    rules_ = get_ruleset(ruleset)
    rules = compile_rules(rules_)
    started = time.perf_counter()
    cards = random_deals(deals, players, seed)
    generated = time.perf_counter() - started

    total = deals * players
    boards_per_batch = min(max(1, batch_boards // players), deals) * players

    def score(first: int) -> int:
        batch = np.ascontiguousarray(cards[:, first:first + boards_per_batch])
        starts = np.arange(0, batch.shape[1] + 1, players, dtype=np.int64)
        boards, _ = score_batch(batch, starts, rules)
        return int(boards.fouled.sum())

    # Warm up: the first batches also pay for the look-up tables and the allocator
    # growing its heap (page faults), once per process.
    for _ in range(4):
        score(0)
    fouled = 0
    started = time.perf_counter()
    for first in range(0, total, boards_per_batch):
        fouled += score(first)
    seconds = time.perf_counter() - started
    return ScoringBenchmark(
        deals=deals, players=players, ruleset=rules_.name, player_hands=total,
        seconds=seconds, player_hands_per_second=total / seconds,
        deals_per_second=deals / seconds, fouled_share=fouled / total,
        generate_seconds=generated, peak_memory_mb=peak_memory_mb(),
    )


