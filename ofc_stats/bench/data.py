"""What the benchmarks run on: random deals, and warehouses of them.

A random deal gives each player 13 cards of one shuffled deck in dealt order, so many
boards foul, as in random play; the warehouses hold them as ``seats`` (and ``hands``)
files of the size compaction leaves, the way ingest writes them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from ofc_stats.engine.boards import card_frame, row_text_exprs
from ofc_stats.warehouse import PendingFile, Warehouse
from ofc_stats.warehouse.schemas import HANDS_SCHEMA, SEATS_SCHEMA


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


def build_benchmark_warehouse(root: Path, player_hands: int, players: int = 3,
                              file_rows: int = 1_000_000, seed: int = 0, *,
                              player_pool: int | None = None, with_hands: bool = False) -> int:
    """A warehouse of random deals as ``seats`` files of ``file_rows`` rows (the size
    compaction leaves them at). Returns the number of files.

    Each table plays 500 hands, one a minute. With ``player_pool`` the players are
    ``player-0`` ... drawn from a pool of that many (each table seats the next ones
    around the pool), else the same ``players`` everywhere; ``with_hands`` also writes
    the ``hands`` rows, as ingest does."""
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
