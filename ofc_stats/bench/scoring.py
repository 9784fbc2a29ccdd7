"""``ofc-stats bench scoring``: the scoring engine alone, on random deals in memory."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from ofc_stats.bench.data import random_deals
from ofc_stats.engine.boards import BATCH_BOARDS
from ofc_stats.engine.cards import JOKER
from ofc_stats.engine.rules import Ruleset, get_ruleset
from ofc_stats.engine.scoring import RuleTables, compile_rules, score_batch
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
    # The same kind of deals with one joker on every board, against themselves without
    # it (two players: a hand holds at most the deck's two jokers).
    joker_ruleset: str = ""
    joker_player_hands: int = 0
    joker_player_hands_per_second: float = 0.0
    joker_free_player_hands_per_second: float = 0.0

    @property
    def joker_ratio(self) -> float:
        """Speed with one joker per board over the joker-free speed (same deals)."""
        if not self.joker_free_player_hands_per_second:
            return 0.0
        return self.joker_player_hands_per_second / self.joker_free_player_hands_per_second

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return {**asdict(self), "joker_ratio": self.joker_ratio}


def _time_scoring(cards: np.ndarray, players: int, rules: RuleTables, batch_boards: int
                  ) -> tuple[float, int]:
    """Seconds to score ``cards`` (deals of ``players`` boards) batch by batch, after a
    warm-up, and how many boards fouled."""
    total = cards.shape[1]
    boards_per_batch = min(max(1, batch_boards // players), total // players) * players

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
    return time.perf_counter() - started, fouled


def benchmark_scoring(deals: int = 2_000_000, players: int = 3,
                      ruleset: str | Path | Ruleset = "pineapple",
                      batch_boards: int = BATCH_BOARDS, seed: int = 0,
                      jokers: bool = True) -> ScoringBenchmark:
    """Score ``deals`` random deals in batches and time the scoring alone.

    The deals are generated first (timed separately); the clock then runs over
    :func:`score_batch` for every batch, per-pair results included. With ``jokers``,
    ``deals`` two-player deals are also scored under ``joker-pineapple`` twice: as
    dealt, and with one card of every board turned into a joker (resolved as RULES.md
    section 9 says), so that the two speeds compare on the same boards.
    """
    rules_ = get_ruleset(ruleset)
    rules = compile_rules(rules_)
    started = time.perf_counter()
    cards = random_deals(deals, players, seed)
    generated = time.perf_counter() - started

    total = deals * players
    seconds, fouled = _time_scoring(cards, players, rules, batch_boards)
    result = ScoringBenchmark(
        deals=deals, players=players, ruleset=rules_.name, player_hands=total,
        seconds=seconds, player_hands_per_second=total / seconds,
        deals_per_second=deals / seconds, fouled_share=fouled / total,
        generate_seconds=generated, peak_memory_mb=peak_memory_mb(),
    )
    if not jokers:
        return result
    del cards
    joker_rules = compile_rules(get_ruleset("joker-pineapple"))
    plain = random_deals(deals, 2, seed + 1)
    with_joker = plain.copy()
    rng = np.random.default_rng(seed + 2)
    with_joker[rng.integers(0, 13, plain.shape[1]), np.arange(plain.shape[1])] = JOKER
    plain_seconds, _ = _time_scoring(plain, 2, joker_rules, batch_boards)
    joker_seconds, _ = _time_scoring(with_joker, 2, joker_rules, batch_boards)
    boards = plain.shape[1]
    return replace(result, joker_ruleset="joker-pineapple", joker_player_hands=boards,
                   joker_player_hands_per_second=boards / joker_seconds,
                   joker_free_player_hands_per_second=boards / plain_seconds,
                   peak_memory_mb=peak_memory_mb())
