"""Benchmarks: throughput and peak memory, measured, never asserted in tests."""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

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


def random_deals(deals: int, players: int, seed: int, chunk: int = 1 << 16
                 ) -> np.ndarray:
    """``deals`` random deals as card codes of shape ``(13, deals * players)``.

    Each deal takes ``13 * players`` cards of one shuffled deck; a player's 13 cards
    fill top, middle and bottom in dealt order (so many boards foul, as in random
    play). Generated in chunks so temporary memory stays small.
    """
    rng = np.random.default_rng(seed)
    cards = np.empty((13, deals * players), dtype=np.int8)
    deck = np.arange(52, dtype=np.int8)
    for start in range(0, deals, chunk):
        count = min(chunk, deals - start)
        shuffled = rng.permuted(np.broadcast_to(deck, (count, 52)), axis=1)
        boards = shuffled[:, :13 * players].reshape(count * players, 13)
        cards[:, start * players:(start + count) * players] = boards.T
    return cards


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


def build_benchmark_warehouse(root: Path, player_hands: int, players: int = 3,
                              file_rows: int = 1_000_000, seed: int = 0, *,
                              player_pool: int | None = None, with_hands: bool = False) -> int:
    """A warehouse of random deals as ``seats`` files of ``file_rows`` rows (the size
    compaction leaves them at). Returns the number of files.

    Each table plays 500 hands, one a minute. With ``player_pool`` the players are
    ``player-0`` ... drawn from a pool of that many (each table seats the next ones
    around the pool), else the same ``players`` everywhere; ``with_hands`` also writes
    the ``hands`` rows, as ingest does."""
    import polars as pl

    from ofc_stats.engine.boards import card_frame, row_text_exprs
    from ofc_stats.warehouse import PendingFile, Warehouse
    from ofc_stats.warehouse.schemas import HANDS_SCHEMA, SEATS_SCHEMA

    warehouse = Warehouse.open(root, create=True)
    deals = player_hands // players
    hands_per_file = max(1, file_rows // players)
    files = 0
    with warehouse.writing():
        for first in range(0, deals, hands_per_file):
            count = min(hands_per_file, deals - first)
            cards = random_deals(count, players, seed + first).T  # (boards, 13)
            board = pl.int_range(count * players, eager=True) // players + first
            seats = card_frame(cards).with_columns(
                pl.lit("bench").alias("site"),
                pl.format("b-{}", board).alias("hand_id"),
                pl.lit("pineapple").alias("variant"),
                pl.format("table-{}", board // 500).alias("table"),
                (pl.lit(0).cast(pl.Datetime("us", "UTC"))
                 + pl.duration(seconds=pl.lit(board * 60))).alias("started_at"),
                (pl.int_range(pl.len()) % players + 1).cast(pl.Int8).alias("seat"),
                pl.format("player-{}", pl.int_range(pl.len()) % players
                          if player_pool is None else
                          (board // 500 * players + pl.int_range(pl.len()) % players)
                          % max(player_pool, players)).alias("player"),
                pl.lit(False).alias("in_fantasyland"),
            )
            seats = seats.with_columns(row_text_exprs())
            seats = seats.select(
                [pl.col(name).cast(dtype) if name in seats.columns
                 else pl.lit(None, dtype).alias(name) for name, dtype in SEATS_SCHEMA.items()])
            pending = [PendingFile("seats", seats)]
            if with_hands:
                hands = seats.filter(pl.col("seat") == 1).select(
                    "site", "hand_id", "table", "started_at", "variant",
                    pl.lit(1).alias("button_seat"), pl.lit("1").alias("point_value"),
                    pl.lit("EUR").alias("currency"), pl.lit(players).alias("players"),
                    pl.lit(False).alias("has_streets"))
                pending.append(PendingFile("hands", hands.select(
                    [pl.col(name).cast(dtype) if name in hands.columns
                     else pl.lit(None, dtype).alias(name)
                     for name, dtype in HANDS_SCHEMA.items()])))
            warehouse.commit(pending, action="bench")
            files += 1
    return files


def benchmark_warehouse_scoring(player_hands: int = 10_000_000, players: int = 3,
                                seed: int = 0) -> WarehouseScoringBenchmark:
    """Build a warehouse of random deals, then time ``ofc-stats score`` on it as a real
    process (its own peak memory, without the build's)."""
    import json
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ofc-bench-") as folder:
        root = Path(folder) / "warehouse"
        started = time.perf_counter()
        # With the hands table, as ingest leaves it: the Fantasyland pass orders it.
        files = build_benchmark_warehouse(root, player_hands, players, seed=seed,
                                          with_hands=True)
        built = time.perf_counter() - started
        completed = subprocess.run(
            [sys.executable, "-m", "ofc_stats", "score", "--warehouse", str(root), "--json"],
            capture_output=True, text=True, check=False)
        if completed.returncode != 0:
            raise RuntimeError(f"ofc-stats score failed: {completed.stderr.strip()}")
        summary = json.loads(completed.stdout)
    return WarehouseScoringBenchmark(
        player_hands=int(summary["player_hands"]), seats_files=files, build_seconds=built,
        score_seconds=float(summary["seconds"]),
        player_hands_per_second=float(summary["player_hands_per_second"]),
        peak_memory_mb=float(summary["peak_memory_mb"]),
        fl_transitions=int(summary["transitions"]),
        fl_seconds=float(summary["transitions_seconds"]),
    )


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
    import tempfile

    from ofc_stats.analysis.score import score_warehouse
    from ofc_stats.db import player_stats
    from ofc_stats.warehouse import Warehouse

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


def _run_json(*arguments: str) -> dict[str, Any]:
    """Run ``python -m ofc_stats ARGUMENTS --json`` and return its JSON output."""
    import json
    import subprocess

    completed = subprocess.run([sys.executable, "-m", "ofc_stats", *arguments, "--json"],
                               capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"ofc-stats {arguments[0]} failed: {completed.stderr.strip()}")
    result: dict[str, Any] = json.loads(completed.stdout)
    return result


def benchmark_report(hands: int = 1_000_000, players: int = 3, player_pool: int = 12,
                     seed: int = 0) -> ReportBenchmark:
    """Build and score a warehouse of random deals, then time ``ofc-stats report`` on it,
    the overview and one player's report, each as a real process (its own peak memory)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ofc-bench-") as folder:
        root = Path(folder) / "warehouse"
        started = time.perf_counter()
        build_benchmark_warehouse(root, hands * players, players, seed=seed,
                                  player_pool=player_pool, with_hands=True)
        built = time.perf_counter() - started
        scored = _run_json("score", "--warehouse", str(root))
        overview = _run_json("report", "--warehouse", str(root),
                             "--out", str(Path(folder) / "overview.html"))
        player = _run_json("report", "--warehouse", str(root), "--player", "player-0",
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
