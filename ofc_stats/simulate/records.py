"""A played group of tables as canonical records: times, ids, then polars frames."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.engine.boards import card_frame, row_text_exprs
from ofc_stats.engine.cards import card_names_expr
from ofc_stats.engine.rules import Variant
from ofc_stats.engine.stakes import MICROS_PER_CENT
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.content_hash import content_hash
from ofc_stats.simulate.placement import DISCARD
from ofc_stats.simulate.tables import GroupResult, PlayerPool, TablePlan
from ofc_stats.warehouse.schemas import HANDS_SCHEMA, PROBLEMS_SCHEMA, SEATS_SCHEMA, STREETS_SCHEMA

I64 = npt.NDArray[np.int64]

# Street of each dealt card: Pineapple 5 then four streets of 3; classic 5 then 1s.
PINEAPPLE_STREETS = np.array([1] * 5 + [2] * 3 + [3] * 3 + [4] * 3 + [5] * 3, dtype=np.int8)
CLASSIC_STREETS = np.array([1] * 5 + list(range(2, 10)) + [0] * 4, dtype=np.int8)
ROW_NAMES = {0: "top", 1: "middle", 2: "bottom"}
SESSION_BREAK_MEAN_HOURS = 6.0
# A table sits idle at least this long between sessions (a new session, a new game).
SESSION_BREAK_MIN_SECONDS = 3600


def position_in_run(values: npt.NDArray[np.generic]) -> I64:
    """Each element's position within its run of equal neighbours: 0, 1, 2, 0, 1..."""
    count = len(values)
    if not count:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], values[1:] != values[:-1]]))
    lengths = np.diff(np.append(starts, count))
    return np.arange(count) - np.repeat(starts, lengths)


@dataclass(frozen=True)
class TimedHands:
    """When each hand of a group started (µs since the epoch, UTC) and its id."""

    started_us: I64
    sequence: I64  # 1-based position of the hand in its table's history


def hand_times(group: GroupResult, start: datetime, rng: np.random.Generator) -> TimedHands:
    """Start times: tens of seconds to two minutes a hand, sessions hours apart.

    Each table's first session starts within a day of ``start``; later sessions
    follow after a break of an hour to a day or so.
    """
    hands = len(group.table)
    seconds = (12 + 11 * group.players.astype(np.float64) + rng.gamma(2.0, 9.0, hands)
               + 20 * group.fantasyland).round()
    new_session = np.ones(hands, dtype=bool)
    new_session[1:] = group.session[1:] != group.session[:-1]
    new_table = np.ones(hands, dtype=bool)
    new_table[1:] = group.table[1:] != group.table[:-1]
    between_sessions = SESSION_BREAK_MIN_SECONDS + rng.exponential(
        SESSION_BREAK_MEAN_HOURS * 3600, hands)
    breaks = np.where(new_table, rng.uniform(0, 20 * 3600, hands), between_sessions).round()
    # Seconds since the table's start: breaks before sessions plus earlier hands.
    step = np.where(new_session, breaks, 0.0) + np.concatenate([[0.0], seconds[:-1]])
    step[new_table] = breaks[new_table]
    elapsed = np.cumsum(step)
    table_start = np.maximum.accumulate(np.where(new_table, np.arange(hands), 0))
    elapsed_in_table = elapsed - elapsed[table_start] + breaks[table_start]
    start_us = int(start.timestamp()) * 1_000_000
    sequence = np.arange(hands) - table_start + 1
    return TimedHands(start_us + (elapsed_in_table * 1_000_000).astype(np.int64),
                      sequence.astype(np.int64))


def canonical_batches(group: GroupResult, times: TimedHands, keep: npt.NDArray[np.bool_],
                      reported_points: npt.NDArray[np.int32], plans: list[TablePlan],
                      pool: PlayerPool, site: str, currency: str, utc_offset_minutes: int,
                      batch_hands: int, reported_money: npt.NDArray[np.int64] | None = None
                      ) -> Iterator[CanonicalBatch]:
    """The group's kept hands as canonical batches of at most ``batch_hands`` hands
    (``reported_money``: what the room paid, in cents; by default the capped money)."""
    kept = np.flatnonzero(keep)
    board_starts = np.searchsorted(group.hand, np.arange(len(group.table) + 1))
    money = group.money if reported_money is None else reported_money
    for first in range(0, len(kept), batch_hands):
        hands = kept[first:first + batch_hands]
        yield _batch(group, times, hands, board_starts, reported_points, money, plans, pool,
                     site, currency, utc_offset_minutes)


def _money(values: npt.NDArray[np.int64], unit: int, known: npt.NDArray[np.bool_]
           ) -> pl.Series:
    """Exact money from integers counting ``unit`` millionths, as decimals; null where
    not ``known``."""
    scaled = pl.Series(values * unit).cast(pl.Decimal(38, 0)) * pl.lit(Decimal("0.000001"))
    column = pl.select(scaled.cast(SEATS_SCHEMA["starting_stack"])).to_series()
    return pl.select(pl.when(pl.Series(known)).then(column)).to_series()


def _batch(group: GroupResult, times: TimedHands, hands: I64, board_starts: I64,
           reported_points: npt.NDArray[np.int32], reported_money: npt.NDArray[np.int64],
           plans: list[TablePlan], pool: PlayerPool, site: str, currency: str,
           utc_offset_minutes: int) -> CanonicalBatch:
    variant = plans[int(group.table[hands[0]])].variant
    counts = board_starts[hands + 1] - board_starts[hands]
    boards = np.repeat(board_starts[hands] - np.concatenate([[0], np.cumsum(counts)[:-1]]),
                       counts) + np.arange(int(counts.sum()))
    board_record = np.repeat(np.arange(len(hands)), counts)
    codes = pl.Series([plan.code for plan in plans])
    names = pl.Series([plan.name for plan in plans])
    stakes = pl.Series([str(plan.point_value) for plan in plans])
    table = pl.Series(group.table[hands])

    hand_ids = (codes.gather(table) + "-"
                + pl.Series(times.sequence[hands]).cast(pl.String).str.zfill(6))
    hands_frame = pl.DataFrame({
        "record": np.arange(len(hands)),
        "site": pl.repeat(site, len(hands), eager=True),
        "hand_id": hand_ids,
        "table": names.gather(table),
        "started_at": pl.Series(times.started_us[hands]).cast(pl.Datetime("us", "UTC")),
        "utc_offset_minutes": pl.repeat(utc_offset_minutes, len(hands), dtype=pl.Int16,
                                        eager=True),
        "variant": pl.repeat(variant.value, len(hands), eager=True),
        "ruleset": pl.repeat(variant.value, len(hands), eager=True),
        "button_seat": group.button_seat[hands],
        "point_value": stakes.gather(table).cast(SEATS_SCHEMA["starting_stack"]),
        "currency": pl.repeat(currency, len(hands), eager=True),
        "players": group.players[hands],
        "has_streets": pl.repeat(True, len(hands), eager=True),
        "source_file": pl.repeat(None, len(hands), dtype=pl.String, eager=True),
        "source_line": pl.repeat(None, len(hands), dtype=pl.Int64, eager=True),
    })

    board_codes = card_frame(group.boards[boards])
    board_text = board_codes.select(row_text_exprs())
    discard_codes = np.where(group.rows[boards] == DISCARD, group.dealt[boards], np.int8(-1))
    # Discards in dealt order, packed to the left: at most four per board.
    order = np.argsort(discard_codes < 0, axis=1, kind="stable")[:, :4]
    discards = np.take_along_axis(discard_codes, order, axis=1)
    discard_text = pl.DataFrame({f"d{i}": discards[:, i] for i in range(4)}).select(
        pl.concat_str([card_names_expr(pl.col(f"d{i}").replace(-1, None))
                       for i in range(4)], separator=" ", ignore_nulls=True)
        .replace("", None).alias("discards"))
    hand_id_of_board = hand_ids.gather(pl.Series(board_record))
    seats_frame = pl.DataFrame({
        "record": board_record,
        "site": pl.repeat(site, len(boards), eager=True),
        "hand_id": hand_id_of_board,
        "seat": group.seat[boards],
        "player": pl.Series(pool.names).gather(pl.Series(group.player[boards])),
        "in_fantasyland": group.in_fl[boards],
        "fl_cards": pl.Series(group.fl_cards[boards]).replace(-1, None),
        "top": board_text["top"],
        "middle": board_text["middle"],
        "bottom": board_text["bottom"],
        "discards": discard_text.to_series(),
        "reported_points": reported_points[boards],
        "reported_royalties": group.royalties[boards],
        "starting_stack": _money(group.stacks[boards], 1, group.stacks[boards] >= 0),
        "collected": pl.repeat(None, len(boards), dtype=pl.String, eager=True),
        "reported_money": _money(reported_money[boards], MICROS_PER_CENT,
                                 group.stacks[boards] >= 0),
    }).hstack(board_codes)
    streets_frame = _streets(group, boards, board_record, hand_id_of_board, site, variant)
    hands_frame = hands_frame.with_columns(
        content_hash(hands_frame, seats_frame).alias("content_hash"))
    # Hand columns the seats schema repeats (variant, table, time).
    repeated = [name for name in SEATS_SCHEMA if name not in seats_frame.columns]
    if repeated:
        seats_frame = seats_frame.with_columns(
            hands_frame[name].gather(pl.Series(board_record)) for name in repeated)
    return CanonicalBatch(
        hands=hands_frame.select(list(HANDS_SCHEMA)).cast(HANDS_SCHEMA),
        seats=seats_frame.select(list(SEATS_SCHEMA)).cast(SEATS_SCHEMA),
        streets=streets_frame,
        problems=PROBLEMS_SCHEMA.to_frame(),
    )


def _streets(group: GroupResult, boards: I64, board_record: I64, hand_ids: pl.Series,
             site: str, variant: Variant) -> pl.DataFrame:
    """One row per placement or discard, in action order within each hand: street by
    street, players clockwise from the button, each player's cards top, middle,
    bottom, then the discard (the order the formats write a street in)."""
    dealt = group.dealt[boards]
    rows = group.rows[boards]
    normal_streets = PINEAPPLE_STREETS if variant.pineapple_deal else CLASSIC_STREETS
    street = np.where(group.in_fl[boards][:, None], np.int8(1), normal_streets[None, :])
    valid = dealt >= 0
    board_of, position = np.nonzero(valid)
    street_of = street[board_of, position]
    record = board_record[board_of]
    turn = group.turn[boards][board_of]
    row = rows[board_of, position]
    # One int64 key: record, street, turn, row (top, middle, bottom, discard), position.
    key = ((record.astype(np.int64) << 18) | (street_of.astype(np.int64) << 12)
           | (turn.astype(np.int64) << 7) | (row.astype(np.int64) << 5) | position)
    actions = pl.DataFrame({
        "key": key, "record": record, "board": board_of,
        "seat": group.seat[boards][board_of], "street": street_of, "row_code": row,
        "card": dealt[board_of, position],
    }).sort("key")  # polars sorts on every core
    action_order = position_in_run(actions["record"].to_numpy())
    return actions.select(
        pl.lit(site).alias("site"),
        hand_ids.gather(actions["board"]).alias("hand_id"),
        "seat", "street",
        pl.Series("action_order", action_order, dtype=pl.Int16),
        pl.when(pl.col("row_code") == DISCARD).then(pl.lit("discard"))
        .otherwise(pl.lit("place")).alias("action"),
        pl.col("row_code").replace_strict(ROW_NAMES, default=None, return_dtype=pl.String)
        .alias("row"),
        "card",
    ).cast(STREETS_SCHEMA)


