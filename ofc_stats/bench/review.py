"""``ofc-stats bench review``: the Fantasyland solver by card count, and a whole review.

Two measurements:

1. **By card count.** Random Fantasyland hands of 13 to 17 cards, each with two
   opponents' boards dealt from the rest of the deck, solved with
   :func:`~ofc_stats.engine.fantasyland_solver.solve_batch` (one core). Beside each time, the
   stack's own floor on the same hands: numpy evaluating every 5-card and 3-card row
   of each hand once with :func:`~ofc_stats.engine.evaluate.evaluate_rows`, the least any
   exact search must do (the ratio says how far above it the solver runs), and how
   many (bottom, middle) pairs the search examined against the settings a brute force
   evaluates.
2. **A whole review.** The simulator's history of ``hands`` hands (the four variants
   whose Fantasyland hands the solver sets: classic, pineapple, progressive, ultimate)
   stored in a temporary warehouse (hands and seats, as ingest leaves them), then
   ``ofc-stats review`` timed on it as a real process; or an existing warehouse,
   copied first so that it is left as it was.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ofc_stats.bench.processes import run_json
from ofc_stats.engine.cards import NO_CARD
from ofc_stats.engine.evaluate import evaluate_rows
from ofc_stats.engine.fantasyland_solver import (
    MAX_CARDS,
    MAX_OPPONENTS,
    solve_batch,
    subset_tables,
)
from ofc_stats.engine.rules import Variant, get_ruleset
from ofc_stats.engine.scoring import compile_rules
from ofc_stats.simulate import Simulation, SimulationConfig
from ofc_stats.util.memory import peak_memory_mb
from ofc_stats.warehouse import PendingFile, Warehouse

CARD_COUNTS = (13, 14, 15, 16, 17)
# The games whose Fantasyland hands the solver sets (no jokers, one deck, a high middle).
REVIEWED_VARIANTS = (Variant.CLASSIC, Variant.PINEAPPLE, Variant.PROGRESSIVE, Variant.ULTIMATE)
OPPONENTS = 2


@dataclass(frozen=True)
class CardCountTiming:
    """The solver on random hands of one card count."""

    cards: int
    hands: int
    seconds: float
    ms_per_hand: float
    floor_seconds: float  # every 5- and 3-card row of the same hands evaluated once
    floor_ratio: float  # seconds / floor_seconds
    settings_per_hand: int  # what a brute force evaluates
    pairs_examined_per_hand: float  # (bottom, middle) pairs whose best top was found


@dataclass(frozen=True)
class ReviewBenchmark:
    """What one ``bench review`` run measured."""

    ruleset: str
    stay_value: float
    by_cards: list[CardCountTiming]
    history_hands: int  # 0: no whole review timed
    history_source: str  # "simulated" or the warehouse reviewed (a copy of it)
    build_seconds: float  # simulating and storing the history (not timed below)
    fantasyland_hands: int
    fantasyland_by_cards: dict[str, int] = field(default_factory=dict)
    review_seconds: float = 0.0  # ofc-stats review's own clock, end to end
    solve_seconds: float = 0.0  # of which the solver's
    ms_per_fantasyland_hand: float = 0.0
    review_peak_memory_mb: float = 0.0
    peak_memory_mb: float = 0.0

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


def random_fantasyland_hands(count: int, cards: int, seed: int
                             ) -> tuple[np.ndarray, np.ndarray]:
    """``count`` random hands of ``cards`` cards ``(count, 17)`` and two opponents'
    boards each ``(count, 3, 13)`` (the next cards of the same deck, as dealt)."""
    rng = np.random.default_rng(seed)
    decks = rng.permuted(np.broadcast_to(np.arange(52, dtype=np.int8), (count, 52)), axis=1)
    hands = np.full((count, MAX_CARDS), NO_CARD, dtype=np.int8)
    hands[:, :cards] = decks[:, :cards]
    opponents = np.full((count, MAX_OPPONENTS, 13), NO_CARD, dtype=np.int8)
    for seat in range(OPPONENTS):
        start = cards + 13 * seat
        opponents[:, seat] = decks[:, start:start + 13]
    return hands, opponents


def _floor_seconds(hands: np.ndarray, cards: int) -> float:
    """Evaluating every 5-card and 3-card row of the hands once, with numpy."""
    tables = subset_tables(cards)
    block = np.ascontiguousarray(hands[:, :cards])
    started = time.perf_counter()
    for subsets in (tables.five, tables.three):
        rows = block[:, subsets].transpose(2, 0, 1).reshape(subsets.shape[1], -1)
        evaluate_rows(np.ascontiguousarray(rows))
    return time.perf_counter() - started


def time_card_counts(hands: int = 500, ruleset: str = "progressive", stay_value: float | None
                     = None, seed: int = 0, counts: tuple[int, ...] = CARD_COUNTS
                     ) -> list[CardCountTiming]:
    """The solver on ``hands`` random hands of each card count."""
    rules_ = get_ruleset(ruleset)
    rules = compile_rules(rules_)
    value = rules_.fl_stay_value if stay_value is None else stay_value
    timings = []
    for cards in counts:
        cards_, opponents = random_fantasyland_hands(hands, cards, seed + cards)
        subset_tables(cards)  # built once per process, not timed
        solve_batch(cards_[:8], rules, value, opponents=opponents[:8])  # warm up
        started = time.perf_counter()
        solved = solve_batch(cards_, rules, value, opponents=opponents)
        seconds = time.perf_counter() - started
        floor = _floor_seconds(cards_, cards)
        timings.append(CardCountTiming(
            cards=cards, hands=hands, seconds=seconds, ms_per_hand=1000 * seconds / hands,
            floor_seconds=floor, floor_ratio=seconds / floor if floor else 0.0,
            settings_per_hand=int(solved.settings[0]),
            pairs_examined_per_hand=float(solved.examined.mean())))
    return timings


def build_simulated_history(root: Path, hands: int, seed: int = 0) -> int:
    """The simulator's history of ``hands`` hands of :data:`REVIEWED_VARIANTS` stored at
    ``root`` (hands and seats, a commit per batch). Returns the hands stored."""
    warehouse = Warehouse.open(root, create=True)
    simulation = Simulation(SimulationConfig(seed=seed, hands=hands,
                                             variants=REVIEWED_VARIANTS))
    with warehouse.writing():
        for batch in simulation:
            warehouse.commit([PendingFile("hands", batch.hands),
                              PendingFile("seats", batch.seats)], action="bench")
    return simulation.hands_written


def benchmark_review(per_count: int = 500, history_hands: int = 1_000_000,
                     warehouse: Path | str | None = None, seed: int = 0,
                     ruleset: str = "progressive") -> ReviewBenchmark:
    """Time the solver by card count, then a whole review (see the module doc).

    Args:
        per_count: random hands per card count (0: skip).
        history_hands: hands of the simulated history to review (0: skip).
        warehouse: review a copy of this warehouse instead of a simulated history.
        seed: random seed of the hands and the simulation.
        ruleset: the ruleset of the random hands.
    """
    timings = time_card_counts(per_count, ruleset, seed=seed) if per_count else []
    stay_value = get_ruleset(ruleset).fl_stay_value
    if warehouse is None and not history_hands:
        return ReviewBenchmark(ruleset, stay_value, timings, 0, "", 0.0, 0,
                               peak_memory_mb=peak_memory_mb())
    with tempfile.TemporaryDirectory(prefix="ofc-bench-") as folder:
        root = Path(folder) / "warehouse"
        started = time.perf_counter()
        if warehouse is not None:
            shutil.copytree(warehouse, root, ignore=shutil.ignore_patterns(".lock"))
            source = str(warehouse)
            stored = sum(f.rows for f in Warehouse.open(root).state().table_files("hands"))
        else:
            source, stored = "simulated", build_simulated_history(root, history_hands, seed)
        built = time.perf_counter() - started
        summary: dict[str, Any] = run_json("review", "--warehouse", str(root))["summary"]
    reviewed = int(summary["reviewed"])
    seconds = float(summary["seconds"])
    return ReviewBenchmark(
        ruleset=ruleset, stay_value=stay_value, by_cards=timings, history_hands=stored,
        history_source=source, build_seconds=built, fantasyland_hands=reviewed,
        fantasyland_by_cards={str(k): int(v) for k, v in summary["by_cards"].items()},
        review_seconds=seconds, solve_seconds=float(summary["solve_seconds"]),
        ms_per_fantasyland_hand=1000 * seconds / reviewed if reviewed else 0.0,
        review_peak_memory_mb=float(summary["peak_memory_mb"]),
        peak_memory_mb=peak_memory_mb())
