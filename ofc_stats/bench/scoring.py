"""``ofc-stats bench scoring``: the scoring engine alone, on random deals in memory."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import polars as pl

from ofc_stats.bench.ceilings import ratio
from ofc_stats.bench.data import random_deals
from ofc_stats.engine.boards import (
    BATCH_BOARDS,
    boards_table_from_codes,
    card_frame,
    card_frame_arrays,
    score_arrays,
    score_boards,
)
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
    # The public API on the same kind of deals: score_boards with card strings in, and
    # the same assembly of result tables from card codes (the warehouse's columns).
    string_player_hands: int = 0
    string_player_hands_per_second: float = 0.0
    string_codes_player_hands_per_second: float = 0.0
    polars_threads: int = 0

    @property
    def string_ratio(self) -> float:
        """Scorer core speed on codes over ``score_boards`` speed with strings in."""
        return ratio(self.player_hands_per_second, self.string_player_hands_per_second)

    @property
    def string_codes_ratio(self) -> float:
        """The same table from codes over from strings: what parsing the cards costs."""
        return ratio(self.string_codes_player_hands_per_second,
                     self.string_player_hands_per_second)

    @property
    def joker_ratio(self) -> float:
        """Speed with one joker per board over the joker-free speed (same deals)."""
        return ratio(self.joker_player_hands_per_second,
                     self.joker_free_player_hands_per_second)

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return {**asdict(self), "joker_ratio": self.joker_ratio,
                "string_ratio": self.string_ratio,
                "string_codes_ratio": self.string_codes_ratio}


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


def _time_public_api(cards: np.ndarray, players: int, ruleset: Ruleset
                     ) -> tuple[float, float]:
    """Seconds of :func:`score_boards` on ``cards`` as a table of card strings (one
    list column per row, hands in order), and of the same result table (one row per
    board) assembled from the cards as codes (the warehouse's card columns), after a
    warm-up of each: the better of two runs of each."""
    boards = cards.shape[1]
    hand_numbers = (pl.int_range(boards, dtype=pl.Int64) // players).cast(pl.String)
    names = pl.select(pl.format("h{}", hand_numbers.str.zfill(9)).alias("hand_id"), pl.format(
        "p{}", pl.int_range(boards, dtype=pl.Int64) % players).alias("player"))
    hands, seats = names["hand_id"].to_list(), names["player"].to_list()
    strings = boards_table_from_codes(hands, seats, cards)
    codes = pl.DataFrame({"hand_id": hands, "player": seats}).hstack(card_frame(cards.T))
    rules = compile_rules(ruleset)

    def from_codes() -> None:
        ordered, arrays = card_frame_arrays(codes, ["hand_id"])
        score_arrays(ordered, arrays, rules, keys=["hand_id"], board_columns=["player"],
                     restore_order=True, matchups=False)

    def best_of_two(run: Callable[[], object]) -> float:
        times = []
        for _ in range(2):
            started = time.perf_counter()
            run()
            times.append(time.perf_counter() - started)
        return min(times)

    score_boards(strings.head(3 * players * 1000), ruleset)
    from_codes()
    return best_of_two(lambda: score_boards(strings, ruleset)), best_of_two(from_codes)


def benchmark_scoring(deals: int = 2_000_000, players: int = 3,
                      ruleset: str | Path | Ruleset = "pineapple",
                      batch_boards: int = BATCH_BOARDS, seed: int = 0,
                      jokers: bool = True, string_deals: int = 500_000
                      ) -> ScoringBenchmark:
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
    if string_deals:
        subset = np.ascontiguousarray(cards[:, :min(string_deals, deals) * players])
        string_seconds, codes_seconds = _time_public_api(subset, players, rules_)
        count = subset.shape[1]
        result = replace(result, string_player_hands=count,
                         string_player_hands_per_second=count / string_seconds,
                         string_codes_player_hands_per_second=count / codes_seconds,
                         polars_threads=pl.thread_pool_size(),
                         peak_memory_mb=peak_memory_mb())
        del subset
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
