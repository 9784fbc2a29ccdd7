"""Bulk card parsing equals the per-element parsing it replaced, on any input.

The references below are the earlier code, kept verbatim but for the order of hands:
the polars expression over every string (:func:`reference_card_codes`) and the per-row
explode of :func:`reference_boards_to_arrays`. The bulk path must give the same codes,
the same boards in the same order, the same problems, and the same error for the same
bad card.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ofc_stats.engine.boards import (
    ROW_SLOTS,
    BoardArrays,
    _pair_order,
    arrays_for,
    boards_to_arrays,
)
from ofc_stats.engine.cards import (
    CARD_NAMES,
    NO_CARD,
    card_code_array,
    card_codes,
    card_codes_expr,
)
from ofc_stats.engine.rules import Row
from ofc_stats.engine.scoring import BoardProblem
from ofc_stats.errors import BoardsError, InvalidCardError


def reference_card_codes(strings: pl.Series) -> pl.Series:
    """The expression over every string: strip, then one look-up of every spelling."""
    return pl.select(card_codes_expr(pl.lit(strings))).to_series()


def _reference_row_cards(boards: pl.DataFrame, row: Row) -> pl.Expr:
    dtype = boards.schema[row.value]
    column = pl.col(row.value)
    if dtype == pl.String:
        return column.str.replace_all(",", " ").str.split(" ").list.eval(
            pl.element().filter(pl.element() != ""))
    if isinstance(dtype, pl.List):
        return column
    raise BoardsError(f"column {row.value!r} must hold lists of cards or text, not {dtype}")


def _first_seen(hand_ids: list[str | None]) -> list[int]:
    """Each row's hand, numbered in the order the hands first appear."""
    numbers: dict[str | None, int] = {}
    return [numbers.setdefault(hand_id, len(numbers)) for hand_id in hand_ids]


def reference_boards_to_arrays(boards: pl.DataFrame) -> tuple[pl.DataFrame, BoardArrays]:
    """The per-element conversion ``score_boards`` used before bulk parsing. It sorted
    the hand ids; hands now come in the order they first appear, which this does
    plainly, one row at a time."""
    ordered = (
        boards.with_row_index("_row")
        .with_columns(*(_reference_row_cards(boards, row).alias(row.value) for row in Row))
        .with_columns(*(pl.col(row.value).list.len().alias(f"_{row.value}_n") for row in Row))
        .with_columns(pl.Series("_hand", _first_seen(boards["hand_id"].to_list())))
        .sort("_hand", maintain_order=True).drop("_hand")
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


# Every kind of string a user writes: canonical and other spellings of cards and
# jokers, padded ones, two-byte strings that are not cards (some of them non-ASCII),
# and anything else.
SPELLINGS = [*CARD_NAMES, "10d", "10D", "td", "TD", "q♠", "Q♤", "K♥", "3♦", "4♣", " 9h ",
             "\t9h", "Ah\n", "Xj", "xJ", "JK", "jk", "Joker", "JOKER", "joker"]
NOT_CARDS = ["", " ", "Zz", "A", "1h", "11c", "Ax", "AhK", "10", "♠", "é", "ñh", "\u212ah",
             "Ah Kd", "a\x00", "XJJ", "jokers"]
card_strings = st.one_of(st.sampled_from(SPELLINGS), st.sampled_from(NOT_CARDS),
                         st.text(max_size=4))
cells = st.one_of(st.none(), card_strings)


@given(st.lists(cells, max_size=60), st.integers(0, 5))
def test_card_codes_equal_the_expression_on_any_strings(strings: list[str | None],
                                                        cut: int) -> None:
    series = pl.Series(strings, dtype=pl.String)[cut:]  # sliced: an Arrow offset
    assert card_codes(series).to_list() == reference_card_codes(series).to_list()


def test_card_code_array_takes_any_arrow_string_type() -> None:
    import pyarrow as pa  # type: ignore[import-untyped]

    strings = ["Ah", None, "10c", "bogus"]
    for kind in (pa.string(), pa.large_string(), pa.string_view()):
        chunked = pa.chunked_array([pa.array(strings[:2], kind), pa.array(strings[2:], kind)])
        assert card_code_array(chunked).tolist() == [50, NO_CARD, 32, -2]


hand_ids = st.one_of(st.none(), st.sampled_from(["h1", "h2", "h3", "h10"]))
players = st.sampled_from(["a", "b", "c"])
rows_as_lists = st.one_of(st.none(), st.lists(cells, max_size=7))
mostly_cards = st.one_of(st.sampled_from(SPELLINGS), st.sampled_from(NOT_CARDS))


@st.composite
def boards_tables(draw: st.DrawFn) -> pl.DataFrame:
    """Boards with rows as lists or text, often valid, in any hand order."""
    size = draw(st.integers(0, 12))
    as_text = draw(st.sampled_from([set(), {Row.TOP}, set(Row)]))
    columns: dict[str, pl.Series] = {
        "hand_id": pl.Series(draw(st.lists(hand_ids, min_size=size, max_size=size))),
        "player": pl.Series(draw(st.lists(players, min_size=size, max_size=size))),
    }
    valid_only = draw(st.booleans())
    for row in Row:
        lists: list[list[str | None] | None]
        if valid_only:
            valid_cards: st.SearchStrategy[str | None] = st.sampled_from(SPELLINGS[:52])
            lists = [draw(st.lists(valid_cards, min_size=row.size, max_size=row.size))
                     for _ in range(size)]
        else:
            lists = [draw(rows_as_lists) for _ in range(size)]
        if row in as_text:
            separators = draw(st.lists(st.sampled_from([" ", ",", ", ", "  ", " ,"]),
                                       min_size=1, max_size=3))
            texts = [None if cards is None else
                     separators[index % len(separators)].join(card or "" for card in cards)
                     for index, cards in enumerate(lists)]
            columns[row.value] = pl.Series(texts, dtype=pl.String)
        else:
            columns[row.value] = pl.Series(lists, dtype=pl.List(pl.String))
    return pl.DataFrame(columns)


def _converted(boards: pl.DataFrame, convert: object) -> tuple[str, object]:
    assert callable(convert)
    try:
        ordered, arrays = convert(boards)
    except InvalidCardError as error:
        return "error", (str(error), error.text, error.where)
    kept = ordered.select("_row", "hand_id", "player", "_top_n", "_middle_n", "_bottom_n")
    return "arrays", (kept.rows(), arrays.cards.tolist(), arrays.row_problems.tolist(),
                      arrays.hand_starts.tolist())


def _without_null_rows(boards: pl.DataFrame) -> pl.DataFrame:
    """Null rows as empty ones (the per-element conversion failed on a null row with
    an IndexError; the bulk one reads it as a row without cards)."""
    return boards.with_columns(
        pl.col(row.value).fill_null("" if boards.schema[row.value] == pl.String
                                    else pl.lit([], dtype=pl.List(pl.String)))
        for row in Row)


@given(boards_tables())
def test_bulk_boards_equal_the_per_element_conversion(boards: pl.DataFrame) -> None:
    try:
        expected = _converted(boards, reference_boards_to_arrays)
    except IndexError:
        expected = _converted(_without_null_rows(boards), reference_boards_to_arrays)
    assert _converted(boards, boards_to_arrays) == expected


@pytest.mark.parametrize("rows", [
    {"top": [["Ah", "Kd", "Zz"]]},
    {"middle": [["2c", None, "3c", "4c", "5c", "é"]]},
    {"bottom": ["9s,9h 9c,,8d 8c 7c"], "top": ["Ah  Kd ♠"]},
])
def test_the_first_bad_card_is_named_as_before(rows: dict[str, list[object]]) -> None:
    columns: dict[str, object] = {"hand_id": ["h1"], "player": ["a"],
                                  "top": [["Ah", "Kd", "Qd"]],
                                  "middle": [["2c", "3c", "4c", "5c", "7d"]],
                                  "bottom": [["9s", "9h", "9c", "8d", "8c"]], **rows}
    boards = pl.DataFrame(columns)
    assert _converted(boards, boards_to_arrays)[0] == "error"
    assert _converted(boards, boards_to_arrays) == _converted(boards,
                                                              reference_boards_to_arrays)


def test_rows_of_other_types_are_a_clear_error() -> None:
    boards = pl.DataFrame({"hand_id": ["h1"], "player": ["a"], "top": [[1, 2, 3]],
                           "middle": [["2c"]], "bottom": [["3c"]]})
    with pytest.raises(BoardsError, match="lists of cards or text"):
        boards_to_arrays(boards)


@given(st.lists(st.integers(0, 5), max_size=30), st.randoms())
def test_pairs_are_put_in_order_as_a_sort_would(sizes: list[int], shuffle: object) -> None:
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    pairs = [(int(start) + left, int(start) + right)
             for start, size in zip(starts, sizes, strict=False)
             for right in range(1, size) for left in range(right)]
    shuffle.shuffle(pairs)  # type: ignore[attr-defined]
    frame = pl.DataFrame({"_left": [left for left, _ in pairs],
                          "_right": [right for _, right in pairs]},
                         schema={"_left": pl.Int64, "_right": pl.Int64})
    order = _pair_order(frame["_left"].to_numpy(), frame["_right"].to_numpy(), starts)
    assert frame[order].equals(frame.sort("_left", "_right"))


@given(st.integers(1, 40), st.integers(2, 4))
def test_pairs_of_equal_hands_are_put_in_order_as_a_sort_would(hands: int, seats: int
                                                                ) -> None:
    from ofc_stats.engine.scoring import HandLayout

    starts = np.arange(0, hands * seats + 1, seats, dtype=np.int64)
    layout = HandLayout.from_starts(starts)
    left = np.concatenate([starts[:-1] + low for low, _, _ in layout.seat_pairs()])
    right = np.concatenate([starts[:-1] + high for _, high, _ in layout.seat_pairs()])
    frame = pl.DataFrame({"_left": left, "_right": right})
    assert frame[_pair_order(left, right, starts)].equals(frame.sort("_left", "_right"))
