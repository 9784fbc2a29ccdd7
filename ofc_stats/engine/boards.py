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
from dataclasses import dataclass, fields
from decimal import Decimal
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa  # type: ignore[import-untyped]

from ofc_stats.engine.cards import INVALID_CARD, NO_CARD, card_code_array, card_names_expr
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


def _row_cards(boards: pl.DataFrame, row: Row) -> tuple[pl.Series, bool]:
    """The row's cards as lists of strings, whether given as lists or as text (cards
    separated by spaces or commas), and whether the lists hold empty strings to leave
    out (text split at every separator)."""
    column = boards[row.value]
    if column.dtype == pl.String:
        if column.str.contains(",", literal=True).any():
            column = column.str.replace_all(",", " ", literal=True)
        return column.str.split(" "), True
    if isinstance(column.dtype, pl.List) and column.dtype.inner in (pl.String, pl.Null):
        return column.cast(pl.List(pl.String)), False
    raise BoardsError(
        f"column {row.value!r} must hold lists of cards or text, not {column.dtype}")


@dataclass(frozen=True)
class _RowCards:
    """One row's cards of every board, flat and in input order."""

    codes: npt.NDArray[np.int8]
    # Where each code goes: its board and place in the row (null cards take none);
    # None when every board holds exactly the row's cards, the usual case.
    board: npt.NDArray[np.int64] | None
    position: npt.NDArray[np.int64] | None
    strings: pl.Series  # the card strings, to name a bad one
    element: npt.NDArray[np.int64] | None  # each code's index in ``strings``, None: same
    counts: npt.NDArray[np.int64]  # each board's cards in the row (null cards included)


def _flat_row_cards(lists: pl.Series, size: int, drop_empty: bool) -> _RowCards:
    """Every card of a list column parsed in one pass over its Arrow string views
    (:func:`card_code_array`); null cards (and with ``drop_empty`` empty strings) are
    left out and take no place."""
    array = lists.to_arrow(compat_level=pl.CompatLevel.newest())
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    offsets = array.offsets.to_numpy()
    values = array.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    lengths = np.diff(offsets)
    list_lengths = lengths
    codes = card_code_array(values)
    strings = pl.Series(values, dtype=pl.String)
    if array.null_count:  # a null list holds no cards, whatever its offsets say
        null_lists = ~array.is_valid().to_numpy(zero_copy_only=False)
        codes[np.repeat(null_lists, lengths)] = NO_CARD
        list_lengths = np.where(null_lists, 0, lengths)
    if drop_empty:
        unread = np.flatnonzero(codes == INVALID_CARD)
        if len(unread):
            codes[unread[(strings.gather(unread).str.len_bytes() == 0).to_numpy()]] = NO_CARD
    if len(lengths) and lengths.min() == lengths.max() == size and codes.min() >= 0:
        return _RowCards(codes, None, None, strings, None, lengths)
    board = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    element = None
    if (codes == NO_CARD).any():
        element = np.flatnonzero(codes != NO_CARD)
        board, codes = board[element], codes[element]
    counts = np.bincount(board, minlength=len(lengths))
    firsts = np.cumsum(counts) - counts
    position = np.arange(len(board), dtype=np.int64) - firsts[board]
    # A list's null cards count (the board reports them); a text's empty strings do not.
    return _RowCards(codes, board, position, strings, element,
                     counts if drop_empty else list_lengths)


def boards_to_arrays(boards: pl.DataFrame) -> tuple[pl.DataFrame, BoardArrays]:
    """Group boards into hands and convert their cards to codes.

    Returns the boards in hand order (hands in the order they first appear, each
    hand's boards in input order) with ``_row``, the input position, and
    ``_top_n``/``_middle_n``/``_bottom_n``, each row's card count; and their arrays.
    The cards of each row are parsed in bulk (:func:`card_code_array`), in input order,
    and only the codes are put in hand order.

    Raises:
        BoardsError: a required column is missing.
        InvalidCardError: a card string is not a card (the error names it and where).
    """
    required = ["hand_id", "player", *Row]
    missing = [name for name in required if name not in boards.columns]
    if missing:
        raise BoardsError(f"boards table lacks column(s): {', '.join(missing)}")
    lists = {row: _row_cards(boards, row) for row in Row}
    flats = {row: _flat_row_cards(cards, row.size, drop_empty)
             for row, (cards, drop_empty) in lists.items()}
    ordered = (
        boards.drop(*Row).with_row_index("_row")
        .with_columns(*(pl.Series(f"_{row.value}_n", flat.counts, dtype=pl.UInt32)
                        for row, flat in flats.items()))
    )
    if not _in_hands(ordered["hand_id"]):
        # Each hand's boards together, hands in the order they first appear: a hash
        # group-by, about twice as fast as sorting the ids.
        ordered = ordered[ordered.group_by("hand_id", maintain_order=True).agg("_row")
                          .select(pl.col("_row").explode()).to_series()]
    n = ordered.height
    order = ordered["_row"].to_numpy().astype(np.int64)
    cards = np.full((13, n), NO_CARD, dtype=np.int8)
    row_problems = np.zeros(n, dtype=np.uint8)
    for row, flat in flats.items():
        first_slot = ROW_SLOTS[row][0]
        if flat.board is None or flat.position is None:
            cards[first_slot:first_slot + row.size] = flat.codes.reshape(n, row.size).T
            continue
        invalid = np.flatnonzero(flat.codes == INVALID_CARD)
        if len(invalid):
            _raise_first_invalid(flat, flat.board, flat.position, invalid, order, ordered,
                                 row)
        fits = flat.position < row.size
        cards[first_slot + flat.position[fits], flat.board[fits]] = flat.codes[fits]
        row_problems[(ordered[f"_{row.value}_n"] > row.size).to_numpy()] |= np.uint8(
            BoardProblem.EXTRA_CARDS)
    if n and not (np.diff(order) > 0).all():  # not already in hand order
        cards = cards[:, order]
    return ordered, arrays_for(ordered, cards, row_problems, ["hand_id"])


def _in_hands(hand_ids: pl.Series) -> bool:
    """Whether every hand's rows are already together (a log writes a hand's boards one
    after another; its hand ids need not sort). The ids of the runs are checked for
    repeats only when the rows look grouped (at most half of them start a run): on rows
    in no order the check would cost as much as grouping them."""
    if hand_ids.null_count():  # the null shifted in would pass for a null id
        return False
    if hand_ids.is_sorted():
        return True
    run_firsts = hand_ids.filter(hand_ids.ne_missing(hand_ids.shift(1)))
    return 2 * run_firsts.len() <= hand_ids.len() and run_firsts.is_unique().all()


def _raise_first_invalid(flat: _RowCards, boards: npt.NDArray[np.int64],
                         positions: npt.NDArray[np.int64], invalid: npt.NDArray[np.intp],
                         order: npt.NDArray[np.int64], ordered: pl.DataFrame, row: Row
                         ) -> None:
    """Raise :class:`InvalidCardError` for the first bad card in hand order."""
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    first = int(invalid[np.lexsort((positions[invalid], rank[boards[invalid]]))[0]])
    board = int(rank[boards[first]])
    element = first if flat.element is None else int(flat.element[first])
    where = f"hand {ordered['hand_id'][board]}, player {ordered['player'][board]}, {row.value}"
    raise InvalidCardError(str(flat.strings[element]), where)


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
    return _score_board_table(boards, ruleset, batch_boards)


def _score_board_table(boards: pl.DataFrame, ruleset: str | Path | Ruleset,
                       batch_boards: int = BATCH_BOARDS, *, players: bool = True,
                       matchups: bool = True) -> ScoredHands:
    rules = compile_rules(get_ruleset(ruleset))
    ordered, arrays = boards_to_arrays(boards)
    return score_arrays(ordered, arrays, rules, keys=["hand_id"], board_columns=["player"],
                        batch_boards=batch_boards, restore_order=True, players=players,
                        matchups=matchups)


def score_arrays(ordered: pl.DataFrame, arrays: BoardArrays, rules: RuleTables, *,
                 keys: Sequence[str], board_columns: Sequence[str],
                 hand_columns: Sequence[str] = (), batch_boards: int = BATCH_BOARDS,
                 restore_order: bool = False, players: bool = True,
                 matchups: bool = True) -> ScoredHands:
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
        players, matchups: build that table; one not asked for comes back empty, with
            no columns. The scorer works out every pair either way, but building a
            table costs about as much as scoring.
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
        if players:
            frame = board_frame(board_scores)
            if arrays.point_value is not None:
                stacks = (np.full(end_board - first_board, -1, dtype=np.int64)
                          if arrays.stacks is None else arrays.stacks[window])
                frame = frame.with_columns(money_frame(
                    board_scores.points, starts, arrays.point_value[window], stacks, rules))
            board_parts.append(frame)
        if matchups:
            if restore_order:  # matchups grouped by hand, each hand's in seat order
                order = _pair_order(pair_scores.left, pair_scores.right, starts)
                pair_scores = PairScores(*(getattr(pair_scores, field.name)[order]
                                           for field in fields(pair_scores)))
            pair_parts.append(pair_frame(pair_scores, offset=first_board))

    if len(arrays.hand_starts) <= 1:  # no hand: no batch
        empty_boards, empty_pairs = _empty_results()
        board_parts, pair_parts = [board_frame(empty_boards)], [pair_frame(empty_pairs, 0)]
    return ScoredHands(
        players=_player_table(ordered, pl.concat(board_parts, how="diagonal_relaxed"), keys,
                              board_columns, restore_order, rules.max_players)
        if players else pl.DataFrame(),
        matchups=_matchup_table(ordered, pl.concat(pair_parts), keys, board_columns,
                                hand_columns) if matchups else pl.DataFrame(),
    )


def _inverse(order: npt.NDArray[np.integer]) -> npt.NDArray[np.int64] | None:
    """The inverse of a permutation (None: it is the identity, nothing to undo)."""
    if not len(order) or (np.diff(order.astype(np.int64)) > 0).all():
        return None
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = np.arange(len(order))
    return inverse


def _pair_order(left: npt.NDArray[np.int64], right: npt.NDArray[np.int64],
                hand_starts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The order of pairs of boards that sorts them by (``left``, ``right``), without a
    sort (every pair of every hand of boards grouped by ``hand_starts``).

    When every hand has ``s`` seats, the scorer emits the pairs seat pair by seat pair,
    ``hands`` of each: their order is a transpose, checked. Otherwise each pair's place
    is computed: the pair of seats ``l < r`` is the ``l(2s-l-1)/2 + (r-l-1)``-th of its
    hand of ``s`` seats.
    """
    sizes = np.diff(hand_starts)
    hand_pairs = sizes * (sizes - 1) // 2
    if len(left) != int(hand_pairs.sum()) or not len(left):  # not every pair: sort them
        return np.lexsort((right, left)).astype(np.int64)
    hands = len(sizes)
    if sizes.min() == sizes.max():
        lexical = np.lexsort((right[::hands], left[::hands]))
        order = (lexical[None, :] * hands + np.arange(hands)[:, None]).ravel()
        if (np.diff(left[order] * 4 + (right[order] - left[order])) > 0).all():
            return order
    hand = np.repeat(np.arange(hands), sizes)[left - hand_starts[0]]
    start = hand_starts[hand]
    size = sizes[hand]
    seat_left, seat_right = left - start, right - start
    first_pair = np.cumsum(hand_pairs) - hand_pairs
    place = (first_pair[hand] + seat_left * (2 * size - seat_left - 1) // 2
             + (seat_right - seat_left - 1))
    order = np.empty(len(left), dtype=np.int64)
    order[place] = np.arange(len(left))
    return order


def score_boards(boards: pl.DataFrame, ruleset: str | Path | Ruleset = "pineapple",
                 *, batch_boards: int = BATCH_BOARDS) -> pl.DataFrame:
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
    return _score_board_table(boards, ruleset, batch_boards, matchups=False).players


def score_matchups(boards: pl.DataFrame, ruleset: str | Path | Ruleset = "pineapple",
                   *, batch_boards: int = BATCH_BOARDS) -> pl.DataFrame:
    """One row per pair of players per hand; see :func:`score_hands`."""
    return _score_board_table(boards, ruleset, batch_boards, players=False).matchups


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
        inverse = _inverse(table["_row"].to_numpy())
        if inverse is not None:
            table = table[inverse]
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
