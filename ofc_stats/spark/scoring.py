"""The scorer over Spark DataFrames: the local functions, run on whole hands.

:func:`score_boards` and :func:`score_matchups` take and give the same columns as
``ofc_stats.score_boards`` and ``ofc_stats.score_matchups``; :func:`score_seats`
scores the warehouse's ``seats`` rows into its ``player_hands`` and ``matchups``
rows, as ``ofc-stats score`` does. Each shuffles the boards by hand, so that every
hand is whole inside one batch, and runs the local scorer on the executors
(``mapInArrow``); hands are independent, so the work splits over any number of cores.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ofc_stats.analysis.score import HAND_KEY, SEAT_COLUMNS, scoring_name
from ofc_stats.analysis.score import score_seats as score_seat_frame
from ofc_stats.engine.boards import BATCH_BOARDS, boards_table_from_codes, score_hands
from ofc_stats.engine.boards import score_boards as local_score_boards
from ofc_stats.engine.boards import score_matchups as local_score_matchups
from ofc_stats.engine.rules import Row, Ruleset, get_ruleset
from ofc_stats.errors import BoardsError
from ofc_stats.spark.frames import map_whole_groups, spark_type
from ofc_stats.warehouse.schemas import (
    DEFAULT_SCORING,
    MATCHUPS_SCHEMA,
    PLAYER_HANDS_SCHEMA,
    SEATS_SCHEMA,
)

BOARD_KEY = ["hand_id"]
INPUT_ORDER = "_input_order"  # the boards' order in the input: a matchup's two sides
OPTIONAL_BOARD_COLUMNS = ("in_fantasyland", "fl_cards")


@functools.cache
def board_result_schemas() -> tuple[pl.Schema, pl.Schema]:
    """The polars schemas of ``ofc_stats.score_boards`` and ``score_matchups``."""
    cards = np.arange(26, dtype=np.int8).reshape(2, 13).T.copy()
    boards = boards_table_from_codes(["h"] * 2, ["a", "b"], cards).with_columns(
        pl.lit(False).alias("in_fantasyland"), pl.lit(None, pl.Int8).alias("fl_cards"))
    scored = score_hands(boards)
    return scored.players.schema, scored.matchups.schema


def _board_columns(frame: DataFrame) -> list[str]:
    required = ["hand_id", "player", *Row]
    missing = [name for name in required if name not in frame.columns]
    if missing:
        raise BoardsError(f"boards table lacks column(s): {', '.join(missing)}")
    return [*required, *(name for name in OPTIONAL_BOARD_COLUMNS if name in frame.columns)]


def _score_board_frame(boards: pl.DataFrame, *, ruleset: Ruleset, matchups: bool,
                       batch_boards: int) -> pl.DataFrame:
    score = local_score_matchups if matchups else local_score_boards
    return score(boards.drop(INPUT_ORDER), ruleset, batch_boards=batch_boards)


def _score_boards(frame: DataFrame, ruleset: str | Path | Ruleset, matchups: bool,
                  batch_boards: int, partitions: int | None) -> DataFrame:
    columns = _board_columns(frame)
    rules = get_ruleset(ruleset)  # on the driver: a TOML file need not reach the executors
    boards = frame.select(*columns).withColumn(INPUT_ORDER, F.monotonically_increasing_id())
    players_schema, matchups_schema = board_result_schemas()
    work = functools.partial(_score_board_frame, ruleset=rules, matchups=matchups,
                             batch_boards=batch_boards)
    return map_whole_groups(boards, BOARD_KEY, [INPUT_ORDER], work,
                            matchups_schema if matchups else players_schema,
                            batch_rows=batch_boards, partitions=partitions)


def score_boards(boards: DataFrame, ruleset: str | Path | Ruleset = "pineapple", *,
                 batch_boards: int = BATCH_BOARDS, partitions: int | None = None
                 ) -> DataFrame:
    """One row per (``hand_id``, ``player``) with the board's score, as
    ``ofc_stats.score_boards`` gives it (same input and output columns; README
    "Python API"), computed on the executors.

    Args:
        boards: one row per player per hand: ``hand_id``, ``player``, ``top``,
            ``middle``, ``bottom`` (arrays of card strings, or text), optionally
            ``in_fantasyland`` and ``fl_cards``.
        ruleset: a preset name, a TOML path (read here, on the driver) or a Ruleset.
        batch_boards: boards the local scorer takes at once (whole hands).
        partitions: partitions of the shuffle by hand (default: Spark's
            ``spark.sql.shuffle.partitions``).

    Raises:
        BoardsError: a required column is missing. A card that is not a card fails
            the Spark job with the local ``InvalidCardError`` naming it.
    """
    return _score_boards(boards, ruleset, False, batch_boards, partitions)


def score_matchups(boards: DataFrame, ruleset: str | Path | Ruleset = "pineapple", *,
                   batch_boards: int = BATCH_BOARDS, partitions: int | None = None
                   ) -> DataFrame:
    """One row per pair of players per hand, as ``ofc_stats.score_matchups`` gives it
    (``player`` is the board that comes first in the input); see :func:`score_boards`."""
    return _score_boards(boards, ruleset, True, batch_boards, partitions)


@dataclass(frozen=True)
class ScoredSeats:
    """The scored rows of seats: ``player_hands`` and ``matchups`` as the warehouse
    stores them (each computed when used: one scoring pass per table, cheaper than
    keeping one pass's rows for both)."""

    scoring: str
    players: DataFrame
    matchups: DataFrame


def _seat_scores(seats: pl.DataFrame, *, scoring: str, forced: Ruleset | None,
                 batch_boards: int, matchups: bool) -> pl.DataFrame:
    players_rows, matchup_rows, _ = score_seat_frame(seats, scoring, forced, batch_boards)
    return matchup_rows if matchups else players_rows


def score_seats(seats: DataFrame, ruleset: str | Path | Ruleset | None = None, *,
                batch_boards: int = BATCH_BOARDS, partitions: int | None = None
                ) -> ScoredSeats:
    """Score the warehouse's ``seats`` rows (``SEATS_SCHEMA``; at least
    ``warehouse_scoring.SEAT_COLUMNS``) into ``player_hands`` and ``matchups`` rows,
    exactly as ``ofc-stats score`` stores them.

    Args:
        seats: one row per seat per hand.
        ruleset: None to score each hand under its variant's preset (the ``default``
            scoring), or a ruleset to force (a what-if, named after it).
        batch_boards: boards the local scorer takes at once (whole hands).
        partitions: partitions of the shuffle by hand.
    """
    forced = None if ruleset is None else get_ruleset(ruleset)
    scoring = scoring_name(forced) if forced is not None else DEFAULT_SCORING
    missing = [name for name in SEAT_COLUMNS if name not in seats.columns]
    if missing:
        raise BoardsError(f"seats lack column(s): {', '.join(missing)}")
    columns = seats.select(*(F.col(name).cast(spark_type(SEATS_SCHEMA[name]))
                             for name in SEAT_COLUMNS))
    players_schema, matchups_schema = PLAYER_HANDS_SCHEMA, MATCHUPS_SCHEMA

    def scored(matchups: bool, schema: pl.Schema) -> DataFrame:
        work = functools.partial(_seat_scores, scoring=scoring, forced=forced,
                                 batch_boards=batch_boards, matchups=matchups)
        return map_whole_groups(columns, HAND_KEY, ["seat"], work, schema,
                                batch_rows=batch_boards, partitions=partitions)

    return ScoredSeats(scoring=scoring, players=scored(False, players_schema),
                       matchups=scored(True, matchups_schema))
