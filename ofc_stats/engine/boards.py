"""Boards as polars tables: card strings in, scores out.

:func:`score_hands` is the public entry point of the scorer for tables of boards
(one row per player per hand). It parses the cards once, in bulk, sorts the boards
into hands, hands them to :func:`ofc_stats.engine.scoring.score_batch` in bounded batches
and assembles two tables: one row per board and one row per pair of players.

The warehouse stores a board as its card codes, one int8 column per slot
(:data:`CARD_COLUMNS`); :func:`card_frame` and :func:`board_codes` convert between
those columns and the scorer's arrays.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.engine.cards import NO_CARD, card_codes_expr, card_names_expr
from ofc_stats.engine.evaluate import CATEGORY_LABELS, CATEGORY_SHIFT
from ofc_stats.engine.rules import Row, Ruleset, get_ruleset
from ofc_stats.engine.scoring import (
    PROBLEM_TEXT,
    BoardProblem,
    BoardScores,
    PairScores,
    RuleTables,
    compile_rules,
    score_batch,
)
from ofc_stats.engine.stakes import MICROS_PER_UNIT, hand_money
from ofc_stats.errors import BoardsError, InvalidCardError

BATCH_BOARDS = 1 << 16
CATEGORY = pl.Enum(CATEGORY_LABELS)
MONEY = pl.Decimal(18, 6)  # money, exact to the millionth (the warehouse's decimals)
CENTS = pl.Decimal(18, 2)  # money capped at table stakes: whole cents
# Where each row's cards are in a board's 13 slots: (first slot, cards).
ROW_SLOTS = {Row.TOP: (0, 3), Row.MIDDLE: (3, 5), Row.BOTTOM: (8, 5)}
# The final board as card codes, one int8 column per slot (top_1 ... bottom_5): flat
# columns decode about 8x faster than one nested Int8[13] column, and scoring reads
# every board.
CARD_COLUMNS = tuple(f"{row.value}_{slot}" for row, (_, size) in ROW_SLOTS.items()
                     for slot in range(1, size + 1))


@dataclass(frozen=True)
class ScoredHands:
    """The scorer's two results: per player per hand, and per player pair per hand."""

    players: pl.DataFrame
    matchups: pl.DataFrame


@dataclass(frozen=True)
class BoardArrays:
    """Boards sorted into hands, as the arrays :func:`score_batch` reads."""

    cards: npt.NDArray[np.int8]  # (13, n)
    hand_starts: npt.NDArray[np.int64]  # (hands + 1,)
    in_fantasyland: npt.NDArray[np.bool_] | None
    fl_cards: npt.NDArray[np.int8] | None
    row_problems: npt.NDArray[np.uint8]
    # Money, in millionths (-1: unknown): the hand's point value, the player's stack.
    point_value: npt.NDArray[np.int64] | None = None
    stacks: npt.NDArray[np.int64] | None = None

    def batches(self, max_boards: int = BATCH_BOARDS) -> Iterator[tuple[int, int, int, int]]:
        """``(first hand, end hand, first board, end board)`` of batches of whole hands."""
        starts = self.hand_starts
        hands = len(starts) - 1
        first = 0
        while first < hands:
            target = starts[first] + max_boards
            end = max(int(np.searchsorted(starts, target, side="right")) - 1, first + 1)
            end = min(end, hands)
            yield first, end, int(starts[first]), int(starts[end])
            first = end


def card_frame(cards: np.ndarray) -> pl.DataFrame:
    """The ``CARD_COLUMNS`` of boards given as codes of shape ``(boards, 13)``."""
    return pl.DataFrame({name: pl.Series(name, cards[:, slot], dtype=pl.Int8)
                         for slot, name in enumerate(CARD_COLUMNS)})


def board_codes(seats: pl.DataFrame) -> np.ndarray:
    """The boards of seat rows as int8 codes of shape ``(13, boards)``, the scorer's."""
    return np.stack([seats[name].fill_null(NO_CARD).to_numpy() for name in CARD_COLUMNS]
                    ).astype(np.int8, copy=False)


def row_text_exprs() -> list[pl.Expr]:
    """Each row's cards as text (``"Ah Kd Qs"``, empty slots left out) from the
    ``CARD_COLUMNS``, named ``top``, ``middle``, ``bottom``."""
    names = [card_names_expr(pl.col(name)) for name in CARD_COLUMNS]
    return [pl.concat_str(names[start:start + size], separator=" ", ignore_nulls=True)
            .alias(row.value) for row, (start, size) in ROW_SLOTS.items()]


def board_list_expr() -> pl.Expr:
    """The final board's 13 codes as one list per seat (top, middle, bottom)."""
    return pl.concat_list(CARD_COLUMNS)


def _row_cards(boards: pl.DataFrame, row: Row) -> pl.Expr:
    """The row's cards as a list of strings, whether given as a list or as text."""
    dtype = boards.schema[row.value]
    column = pl.col(row.value)
    if dtype == pl.String:
        return column.str.replace_all(",", " ").str.split(" ").list.eval(
            pl.element().filter(pl.element() != ""))
    if isinstance(dtype, pl.List):
        return column
    raise BoardsError(f"column {row.value!r} must hold lists of cards or text, not {dtype}")


def boards_to_arrays(boards: pl.DataFrame) -> tuple[pl.DataFrame, BoardArrays]:
    """Sort boards into hands and convert their cards to codes.

    Returns the boards in hand order (with ``_row``, the input position, and
    ``_top_n``/``_middle_n``/``_bottom_n``, each row's card count) and their arrays.

    Raises:
        BoardsError: a required column is missing.
        InvalidCardError: a card string is not a card (the error names it and where).
    """
    required = ["hand_id", "player", *Row]
    missing = [name for name in required if name not in boards.columns]
    if missing:
        raise BoardsError(f"boards table lacks column(s): {', '.join(missing)}")
    ordered = (
        boards.with_row_index("_row")
        .with_columns(*(_row_cards(boards, row).alias(row.value) for row in Row))
        .with_columns(*(pl.col(row.value).list.len().alias(f"_{row.value}_n") for row in Row))
        .sort("hand_id", maintain_order=True)
    )
    n = ordered.height
    cards = np.full((13, n), NO_CARD, dtype=np.int8)
    row_problems = np.zeros(n, dtype=np.uint8)
    for row in Row:
        exploded = (
            ordered.select(
                pl.int_range(pl.len(), dtype=pl.Int64).alias("board"),
                pl.col(row.value).alias("card"),
            )
            .explode("card")
            .drop_nulls("card")
            .with_columns(
                pl.int_range(pl.len(), dtype=pl.Int64).over("board").alias("position"),
                card_codes_expr(pl.col("card")).alias("code"),
            )
        )
        invalid = exploded.filter(pl.col("code").is_null())
        if invalid.height:
            board = int(invalid["board"][0])
            where = (f"hand {ordered['hand_id'][board]}, player {ordered['player'][board]}, "
                     f"{row.value}")
            raise InvalidCardError(str(invalid["card"][0]), where)
        fits = exploded.filter(pl.col("position") < row.size)
        cards[ROW_SLOTS[row][0] + fits["position"].to_numpy(),
              fits["board"].to_numpy()] = fits["code"].to_numpy()
        row_problems[(ordered[f"_{row.value}_n"] > row.size).to_numpy()] |= np.uint8(
            BoardProblem.EXTRA_CARDS)

    return ordered, arrays_for(ordered, cards, row_problems, ["hand_id"])


def hand_starts_of(frame: pl.DataFrame, keys: Sequence[str]) -> npt.NDArray[np.int64]:
    """Offsets of the runs of equal ``keys`` (hands must already be contiguous)."""
    change = pl.any_horizontal([pl.col(key) != pl.col(key).shift(1) for key in keys])
    starts = np.flatnonzero(frame.select(change.fill_null(True)).to_series().to_numpy())
    return np.append(starts, frame.height).astype(np.int64)


def micros(column: pl.Series) -> npt.NDArray[np.int64]:
    """Money (a decimal, number or text column) in exact millionths; -1 where null."""
    if not isinstance(column.dtype, pl.Decimal):
        column = column.cast(pl.String).cast(MONEY, strict=False)
    scaled = (column.cast(MONEY) * MICROS_PER_UNIT).cast(pl.Int64)
    return scaled.fill_null(-1).to_numpy()


def arrays_for(frame: pl.DataFrame, cards: npt.NDArray[np.int8],
               row_problems: npt.NDArray[np.uint8], keys: Sequence[str]) -> BoardArrays:
    """The scorer's arrays for boards in ``frame`` (hands contiguous by ``keys``)."""
    in_fantasyland = None
    if "in_fantasyland" in frame.columns:
        in_fantasyland = frame["in_fantasyland"].fill_null(False).cast(pl.Boolean).to_numpy()
    fl_cards = None
    if "fl_cards" in frame.columns:
        fl_cards = frame["fl_cards"].fill_null(-1).cast(pl.Int8).to_numpy()
    point_value = micros(frame["point_value"]) if "point_value" in frame.columns else None
    stacks = None
    if point_value is not None and "starting_stack" in frame.columns:
        stacks = micros(frame["starting_stack"])
    return BoardArrays(cards, hand_starts_of(frame, keys), in_fantasyland, fl_cards,
                       row_problems, point_value, stacks)


def card_frame_arrays(frame: pl.DataFrame, keys: Sequence[str]
                      ) -> tuple[pl.DataFrame, BoardArrays]:
    """Boards stored as card codes (the seats' ``CARD_COLUMNS``, -1 for an empty slot,
    hands contiguous by ``keys``) as the scorer's arrays.

    Returns the frame with ``_row`` and the row card counts added, and the arrays.
    """
    cards = board_codes(frame)
    if int(cards.min(initial=0)) < 0:
        filled = cards >= 0
        counts = [pl.Series(f"_{row.value}_n", filled[start:start + row.size].sum(axis=0),
                            dtype=pl.Int8) for row, (start, _) in ROW_SLOTS.items()]
    else:  # complete boards, the usual case
        counts = [pl.repeat(row.size, frame.height, dtype=pl.Int8, eager=True)
                  .alias(f"_{row.value}_n") for row in Row]
    ordered = frame.with_row_index("_row").with_columns(counts)
    return ordered, arrays_for(ordered, cards, np.zeros(frame.height, dtype=np.uint8), keys)


def score_hands(boards: pl.DataFrame, ruleset: str | Path | Ruleset = "pineapple",
                *, batch_boards: int = BATCH_BOARDS) -> ScoredHands:
    """Score every board of a table of hands.

    Args:
        boards: one row per player per hand with ``hand_id`` (str), ``player`` (str),
            ``top``, ``middle``, ``bottom`` (lists of card strings, or space-separated
            text), and optionally ``in_fantasyland`` (bool), ``fl_cards`` (int, the
            cards dealt in a Fantasyland hand), ``point_value`` (money per point) and
            ``starting_stack`` (the player's stack: table stakes cap the money).
        ruleset: a preset name, a TOML path or a :class:`Ruleset`.
        batch_boards: boards scored per batch (memory stays bounded by it).

    Returns:
        :class:`ScoredHands`: ``players`` in the input's row order and ``matchups``
        grouped by hand. See README "Python API" for every column.
    """
    rules = compile_rules(get_ruleset(ruleset))
    ordered, arrays = boards_to_arrays(boards)
    return score_arrays(ordered, arrays, rules, keys=["hand_id"], board_columns=["player"],
                        batch_boards=batch_boards, restore_order=True)


def score_arrays(ordered: pl.DataFrame, arrays: BoardArrays, rules: RuleTables, *,
                 keys: Sequence[str], board_columns: Sequence[str],
                 hand_columns: Sequence[str] = (), batch_boards: int = BATCH_BOARDS,
                 restore_order: bool = False) -> ScoredHands:
    """Score prepared boards in batches and assemble the two result tables.

    Args:
        ordered: the boards in hand order, with ``_row`` and the row card counts.
        arrays: their arrays (see :func:`boards_to_arrays`, :func:`card_frame_arrays`).
        rules: the compiled ruleset.
        keys: the columns identifying a hand, first in both results.
        board_columns: columns of ``ordered`` carried into ``players``; ``player`` (and
            ``seat``, if listed) also name each side of a matchup.
        hand_columns: columns (equal on every board of a hand) repeated on matchups.
        batch_boards: boards scored per batch.
        restore_order: sort ``players`` back into ``_row`` order.
    """
    board_parts: list[pl.DataFrame] = []
    pair_parts: list[pl.DataFrame] = []
    for first_hand, end_hand, first_board, end_board in arrays.batches(batch_boards):
        window = slice(first_board, end_board)
        starts = arrays.hand_starts[first_hand:end_hand + 1] - first_board
        board_scores, pair_scores = score_batch(
            np.ascontiguousarray(arrays.cards[:, window]), starts, rules,
            None if arrays.in_fantasyland is None else arrays.in_fantasyland[window],
            None if arrays.fl_cards is None else arrays.fl_cards[window],
            arrays.row_problems[window],
        )
        frame = board_frame(board_scores)
        if arrays.point_value is not None:
            stacks = (np.full(end_board - first_board, -1, dtype=np.int64)
                      if arrays.stacks is None else arrays.stacks[window])
            frame = frame.with_columns(money_frame(
                board_scores.points, starts, arrays.point_value[window], stacks, rules))
        board_parts.append(frame)
        pair_parts.append(pair_frame(pair_scores, offset=first_board))

    if not board_parts:
        empty_boards, empty_pairs = _empty_results()
        board_parts, pair_parts = [board_frame(empty_boards)], [pair_frame(empty_pairs, 0)]
    players = _player_table(ordered, pl.concat(board_parts, how="diagonal_relaxed"), keys,
                            board_columns, restore_order, rules.max_players)
    pairs = pl.concat(pair_parts)
    if restore_order:
        pairs = pairs.sort("_left", "_right")
    matchups = _matchup_table(ordered, pairs, keys, board_columns, hand_columns)
    return ScoredHands(players=players, matchups=matchups)


def score_boards(boards: pl.DataFrame, ruleset: str | Path | Ruleset = "pineapple"
                 ) -> pl.DataFrame:
    """One row per (``hand_id``, ``player``) with the board's score; see :func:`score_hands`.

    >>> import polars as pl
    >>> boards = pl.DataFrame({
    ...     "hand_id": ["h1", "h1"], "player": ["Ivey", "Hellmuth"],
    ...     "top": [["6s", "6c", "4h"], ["Ah", "Kd", "Qd"]],
    ...     "middle": [["Td", "Ts", "9c", "Qs", "8c"], ["9h", "9d", "5h", "5d", "4c"]],
    ...     "bottom": [["3h", "3d", "3s", "2h", "2d"], ["Ks", "Js", "9s", "8s", "7s"]],
    ... })
    >>> score_boards(boards)["points"].to_list()
    [4, -4]
    """
    return score_hands(boards, ruleset).players


def score_matchups(boards: pl.DataFrame, ruleset: str | Path | Ruleset = "pineapple"
                   ) -> pl.DataFrame:
    """One row per pair of players per hand; see :func:`score_hands`."""
    return score_hands(boards, ruleset).matchups


def money_frame(points: npt.NDArray[np.int32], hand_starts: npt.NDArray[np.int64],
                point_value: npt.NDArray[np.int64], stacks: npt.NDArray[np.int64],
                rules: RuleTables) -> pl.DataFrame:
    """``money``, ``money_capped`` and ``capped`` of scored boards (see
    :mod:`ofc_stats.engine.stakes`)."""
    count = len(points)
    if not (point_value >= 0).any():  # no point value: no money (most home games)
        return pl.DataFrame({"money": pl.repeat(None, count, dtype=MONEY, eager=True),
                             "money_capped": pl.repeat(None, count, dtype=CENTS, eager=True),
                             "capped": np.zeros(count, dtype=bool)})
    money = hand_money(points, hand_starts, point_value, stacks, rules.table_stakes)

    def decimals(values: npt.NDArray[np.int64], scale: str, dtype: pl.Decimal,
                 known: npt.NDArray[np.bool_]) -> pl.Series:
        exact = pl.Series(values).cast(pl.Decimal(38, 0)) * pl.lit(Decimal(scale))
        return pl.select(pl.when(pl.Series(known)).then(exact.cast(dtype))).to_series()

    capped = (decimals(money.capped, "0.01", CENTS, money.capped_known)
              if money.capped_known.any() else pl.repeat(None, count, dtype=CENTS, eager=True))
    return pl.DataFrame({
        "money": decimals(money.money, "0.000001", MONEY, money.money_known),
        "money_capped": capped,
        "capped": money.cap_applied,
    })


def board_frame(scores: BoardScores) -> pl.DataFrame:
    """Per-board score arrays as a polars table (no names yet, batch order)."""
    jokers = (pl.lit(None, pl.String) if scores.joker_cards is None else
              pl.concat_str([card_names_expr(pl.lit(pl.Series(row)).replace(NO_CARD, None))
                             for row in scores.joker_cards], separator=" ",
                            ignore_nulls=True).replace("", None))
    return pl.DataFrame({
        "top_strength": scores.top_strength,
        "middle_strength": scores.middle_strength,
        "bottom_strength": scores.bottom_strength,
        "fouled": scores.fouled,
        "royalties_top": scores.royalties_top,
        "royalties_middle": scores.royalties_middle,
        "royalties_bottom": scores.royalties_bottom,
        "royalties": scores.royalties,
        "points": scores.points,
        "opponents": scores.opponents,
        "rows_won": scores.rows_won,
        "rows_lost": scores.rows_lost,
        "scoops": scores.scoops,
        "scooped": scores.scooped,
        "moon": scores.moon,
        "fl_entry": scores.fl_entry,
        "fl_stay": scores.fl_stay,
        "fl_cards_next": scores.fl_cards_next,
        "fl_qualifies_entry": scores.fl_entry_quality,
        "fl_entry_cards": scores.fl_entry_cards,
        "fl_qualifies_stay": scores.fl_stay_quality,
        "fl_stay_cards": scores.fl_stay_cards,
        "_problems": scores.problems,
    }).with_columns(jokers.alias("joker_cards"))


def pair_frame(pairs: PairScores, offset: int) -> pl.DataFrame:
    """Per-pair score arrays as a polars table, board indices shifted by ``offset``."""
    return pl.DataFrame({
        "_left": pairs.left + offset,
        "_right": pairs.right + offset,
        "rows_won": pairs.rows_won,
        "rows_lost": pairs.rows_lost,
        "scoop": pairs.scoop,
        "royalty_diff": pairs.royalty_diff,
        "points": pairs.points,
        "top_result": pairs.top_result,
        "middle_result": pairs.middle_result,
        "bottom_result": pairs.bottom_result,
    })


def _empty_results() -> tuple[BoardScores, PairScores]:
    return score_batch(np.empty((13, 0), dtype=np.int8), np.zeros(1, dtype=np.int64),
                       compile_rules(get_ruleset("pineapple")))


def category_expr(strength_column: str) -> pl.Expr:
    """The category label of a strength column, as an Enum.

    The labels are gathered by category number: four times cheaper than mapping each
    value to its label."""
    labels = pl.Series(CATEGORY_LABELS, dtype=CATEGORY)
    return pl.lit(labels).gather(pl.col(strength_column) // (1 << CATEGORY_SHIFT))


def problem_text_expr(max_players: int = 4) -> pl.Expr:
    """Human-readable problems of a board from its flags and row card counts."""
    flags = pl.col("_problems")
    parts = []
    for flag, template in PROBLEM_TEXT.items():
        text = template.format(max_players=max_players)
        if flag in (BoardProblem.INCOMPLETE, BoardProblem.EXTRA_CARDS):
            detail = pl.concat_str(
                [pl.when(pl.col(f"_{row.value}_n") != row.size).then(
                    pl.format(f"{row.value} has {{}} of {row.size}", pl.col(f"_{row.value}_n")))
                 for row in Row], separator=", ", ignore_nulls=True)
            message = pl.format(f"{text} ({{}})", detail)
        else:
            message = pl.lit(text)
        parts.append(pl.when((flags & int(flag)) != 0).then(message))
    return pl.concat_str(parts, separator="; ", ignore_nulls=True).replace("", None)


PLAYER_SCORE_COLUMNS = (
    "fouled", "royalties_top", "royalties_middle", "royalties_bottom", "royalties",
    "points", "rows_won", "rows_lost", "rows_tied", "scoops", "scooped",
    "fl_entry", "fl_stay", "fl_next", "fl_cards_next",
    "fl_qualifies_entry", "fl_entry_cards", "fl_qualifies_stay", "fl_stay_cards", "moon",
    "top_category", "middle_category", "bottom_category",
    "top_strength", "middle_strength", "bottom_strength", "joker_cards",
    "money", "money_capped", "capped",
    "opponents", "problem",
)
# A matchup names both sides: the board's own column and the opponent's.
OPPONENT_COLUMNS = {"player": "opponent", "seat": "opponent_seat"}
MATCHUP_SCORE_COLUMNS = ("rows_won", "rows_lost", "rows_tied", "scoop", "scooped",
                         "royalty_diff", "points", "top_result", "middle_result",
                         "bottom_result")


def _player_table(ordered: pl.DataFrame, scores: pl.DataFrame, keys: Sequence[str],
                  board_columns: Sequence[str], restore_order: bool, max_players: int
                  ) -> pl.DataFrame:
    keep = ["_row", *keys, *board_columns, "_top_n", "_middle_n", "_bottom_n"]
    table = pl.concat([ordered.select(keep), scores], how="horizontal")
    if "money" not in table.columns:
        table = table.with_columns(pl.lit(None, MONEY).alias("money"),
                                   pl.lit(None, CENTS).alias("money_capped"),
                                   pl.lit(False).alias("capped"))
    unscorable = (pl.col("_problems") & int(~BoardProblem.PLAYER_COUNT & 0xFF)) != 0
    table = (
        table.with_columns(
            *(pl.when(~unscorable).then(pl.col(f"{row.value}_strength"))
              .alias(f"{row.value}_strength") for row in Row),
        )
        .with_columns(
            *(category_expr(f"{row.value}_strength").alias(f"{row.value}_category")
              for row in Row),
            (pl.col("opponents") * 3 - pl.col("rows_won") - pl.col("rows_lost"))
            .cast(pl.Int8).alias("rows_tied"),
            (pl.col("fl_entry") | pl.col("fl_stay")).alias("fl_next"),
            *(pl.col(name).replace(-1, None)
              for name in ("fl_cards_next", "fl_entry_cards", "fl_stay_cards")),
            (problem_text_expr(max_players) if (table["_problems"] != 0).any()
             else pl.lit(None, pl.String)).alias("problem"),
        )
    )
    if restore_order:
        table = table.sort("_row")
    return table.select(*keys, *board_columns, *PLAYER_SCORE_COLUMNS)


def _matchup_table(ordered: pl.DataFrame, pairs: pl.DataFrame, keys: Sequence[str],
                   board_columns: Sequence[str], hand_columns: Sequence[str]) -> pl.DataFrame:
    sides = [column for column in OPPONENT_COLUMNS if column in board_columns]
    left = ordered.select(*keys, *hand_columns, *sides)[pairs["_left"].to_numpy()]
    right = ordered.select(*(pl.col(side).alias(OPPONENT_COLUMNS[side]) for side in sides)
                           )[pairs["_right"].to_numpy()]
    return pl.concat([left, right, pairs.drop("_left", "_right")], how="horizontal").select(
        *keys, *hand_columns, *sides, *right.columns, "rows_won", "rows_lost",
        (3 - pl.col("rows_won") - pl.col("rows_lost")).cast(pl.Int8).alias("rows_tied"),
        (pl.col("scoop") == 1).alias("scoop"),
        (pl.col("scoop") == -1).alias("scooped"),
        "royalty_diff", "points", "top_result", "middle_result", "bottom_result",
    )


def boards_table_from_codes(hand_ids: list[str], players: list[str],
                            cards: npt.NDArray[np.int8]) -> pl.DataFrame:
    """A boards table (card strings) from codes of shape ``(13, n)``; for tests and demos."""
    frame = pl.DataFrame({"hand_id": hand_ids, "player": players})
    columns = {f"c{i}": cards[i] for i in range(13)}
    names = pl.DataFrame(columns).select(
        *(card_names_expr(pl.col(f"c{i}")).alias(f"c{i}") for i in range(13)))
    return frame.with_columns(
        pl.concat_list([names[f"c{i}"] for i in range(0, 3)]).alias("top"),
        pl.concat_list([names[f"c{i}"] for i in range(3, 8)]).alias("middle"),
        pl.concat_list([names[f"c{i}"] for i in range(8, 13)]).alias("bottom"),
    )
