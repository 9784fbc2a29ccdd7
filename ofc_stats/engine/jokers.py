"""Jokers resolved the way RULES.md section 9 says, for many boards at once.

A joker stands for any of the 52 cards, a card on another row of the board (or on
another board) included, and two jokers on different rows may be the same card;
within one row the cards are distinct. Of every assignment, the board keeps the one
that stands (does not foul) with the most royalties, ties going to the strongest
rows compared top, middle, bottom in that order; a board fouls only if every
assignment fouls (it then keeps the assignment with the strongest rows).

A row's strength depends only on its ranks and on whether it is a flush, so each
joker's 52 cards fall into at most 26 *fills* (13 ranks, suited with the row's other
cards or not); two jokers in one row into 182 unordered pairs. Every fill of a board
is one column of candidates: the strengths are gathered from the evaluation tables
in one look-up, fouls, royalties and a packed comparison key are computed for all
columns with numpy, and ``argmax`` picks the winner; boards are taken in batches so
that a batch holds a bounded number of candidates. Of the cards a winning fill stands
for, each joker is given the lowest (by card code, the first joker on the board
first): the stored card is the one a plain search over all 52 cards would meet first.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import JOKER
from ofc_stats.engine.evaluate import (
    LOWBALL_FLIP,
    ROYALTY_SHIFT,
    _rank_triples,
    deuce_to_seven,
    evaluate_rows,
    five_card_table,
    three_card_table,
)
from ofc_stats.engine.rows import BOTTOM, MIDDLE, TOP, RuleTables, rows_fouled

I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

ROWS = (TOP, MIDDLE, BOTTOM)
MAX_JOKERS = 2  # per board: what one 54-card deck holds
CANDIDATES_PER_BATCH = 1 << 18
# Lowest set bit of a 4-bit mask of suits (-1 for none).
LOWEST_SUIT = np.array([-1, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0], dtype=np.int8)
ROYALTY_OFFSET = 1 << 13  # royalties enter the key shifted to stay non-negative


@dataclass(frozen=True)
class Fills:
    """The candidate fills of a row's jokers: ranks (C, k), flush flag (C,), the
    offset each adds to the row's evaluation-table key, and per rank the fill that
    repeats it unsuited (one joker: that rank; two: the pair of it)."""

    ranks: npt.NDArray[np.int64]
    flush: Bools
    offsets: I64
    repeating: I64


@cache
def _fills(size: int, jokers: int, suited: bool) -> Fills:
    """Every distinct way ``jokers`` jokers complete a row of ``size`` cards; flushes
    only where the row's other cards are ``suited``. Ordered as the evaluation table
    lays them out (see :func:`_row_candidates`)."""
    ranks_list, flush_list = [], []
    flush_options = (False, True) if size == 5 and suited else (False,)
    pairs = [(rank,) for rank in range(13)] if jokers == 1 else [
        (low, high) for low in range(13) for high in range(low, 13)]
    for ranks_ in pairs:
        for suited_fill in flush_options:
            if suited_fill and len(set(ranks_)) < len(ranks_):
                continue  # one card twice in a suited row: not in one deck
            ranks_list.append(ranks_)
            flush_list.append(suited_fill)
    ranks = np.array(ranks_list, dtype=np.int64)
    flush = np.array(flush_list, dtype=bool)
    # Each fill's column in the table's block of a row's other cards (jokers last).
    if size == 3:
        offsets = ranks[:, 0] if jokers == 1 else ranks[:, 0] * 13 + ranks[:, 1]
    elif jokers == 1:
        offsets = ranks[:, 0] * 2 + flush
    else:
        offsets = (ranks[:, 0] * 13 + ranks[:, 1]) * 2 + flush
    plain = ~flush & (ranks[:, 0] == ranks[:, -1])
    repeating = np.full(13, -1, dtype=np.int64)
    repeating[ranks[plain, 0]] = np.flatnonzero(plain)
    return Fills(ranks, flush, offsets.astype(np.int64), repeating)


# The lowest set bit of a 5-bit mask: the first joker's position in a row.
LOWEST_BIT = np.array([(mask & -mask).bit_length() - 1 for mask in range(32)], dtype=np.int8)


def _real_cards(row_cards: I8, jokers: int) -> tuple[list[I8], list[I8]]:
    """The row's real cards (``size - jokers`` arrays, in some order: the tables read
    ranks in any order) and its jokers' positions, first first.

    A joker among the first ``size - jokers`` positions swaps places with a real card
    from the last ``jokers`` positions; plain ``where`` over rows, no gather.
    """
    size, count = row_cards.shape
    mask = np.zeros(count, dtype=np.uint8)
    for position in range(size):
        mask |= (row_cards[position] >= JOKER).view(np.uint8) << position
    first = LOWEST_BIT[mask]
    keep = size - jokers
    if jokers == 1:
        last = row_cards[size - 1]
        return [np.where(first == i, last, row_cards[i]) for i in range(keep)], [first]
    second = LOWEST_BIT[mask & (mask - 1)]
    # The first joker takes the real card among the last two positions (the one that
    # is not the second joker); a second joker before them takes the very last.
    tail = np.where(second < keep, row_cards[size - 2],
                    np.where(second == size - 1, row_cards[size - 2], row_cards[size - 1]))
    real = [np.where(first == i, tail, np.where(second == i, row_cards[size - 1],
                                                row_cards[i])) for i in range(keep)]
    return real, [first, second]


@cache
def _blocks(size: int, jokers: int) -> I32:
    """The evaluation table cut into one block per row of the other cards: block
    ``i`` holds every completion of those cards by the jokers' ranks (and flush bit)."""
    table = three_card_table() if size == 3 else five_card_table()
    width = {(3, 1): 13, (3, 2): 169, (5, 1): 26, (5, 2): 338}[size, jokers]
    return table.reshape(-1, width)


@dataclass(frozen=True)
class _RowCandidates:
    """One row's candidate strengths (m, C) for the boards of a batch, -1 where a fill
    cannot be made, and what choosing the cards needs."""

    fills: Fills
    strengths: I32
    real_ranks: I32  # (size - k, m)
    real_suits: I32
    suited: bool  # the row's real cards share a suit, on every board of the batch
    joker_slots: I64  # (k, m): board slots of the row's jokers, in order


def _row_candidates(row_cards: I8, first_slot: int, jokers: int, suited: bool,
                    lowball: bool) -> _RowCandidates:
    size = row_cards.shape[0]
    real, joker_positions = _real_cards(row_cards, jokers)
    ranks = np.stack(real).astype(np.int32) >> 2
    suits = np.stack(real).astype(np.int32) & 3
    fills = _fills(size, jokers, suited)
    # The table's key for the real cards followed by the jokers is block * width +
    # the fill's offset: one block per board holds every candidate, gathered at once.
    if size == 3:
        block = ranks[0] * 13 + ranks[1] if jokers == 1 else ranks[0]
    else:
        triple = _rank_triples()[0][(ranks[0] * 13 + ranks[1]) * 13 + ranks[2]]
        block = triple * 13 + ranks[3] if jokers == 1 else triple
    rows = _blocks(size, jokers)[block]  # (m, width)
    if (size, jokers, suited) == (5, 1, False):
        strengths = rows[:, 0::2]  # unsuited fills are the even columns
    elif len(fills.offsets) == rows.shape[1]:
        strengths = rows
    else:
        strengths = rows[:, fills.offsets]
    if size == 5:
        if lowball:
            strengths = deuce_to_seven(strengths)
        # An unsuited fill fails only on a fifth card of a rank (one deck holds four):
        # the row's other cards all of one rank (quads, or trips with two jokers).
        alike = ranks[0] == ranks[1]
        for position in range(2, len(ranks)):
            alike &= ranks[position] == ranks[0]
        rare = np.flatnonzero(alike)
        strengths[rare, fills.repeating[ranks[0, rare]]] = -1
        if suited:
            # A suited fill needs ranks new to the row (its cards are all one suit).
            present = np.bitwise_or.reduce(np.left_shift(1, ranks), axis=0)
            fill_bits = np.left_shift(1, fills.ranks).sum(axis=1)  # distinct in a flush
            clash = fills.flush[None, :] & ((present[:, None] & fill_bits[None, :]) != 0)
            strengths = np.where(clash, np.int32(-1), strengths)
    slots = np.stack(joker_positions).astype(np.int64) + first_slot
    return _RowCandidates(fills, strengths.astype(np.int32, copy=False), ranks, suits, suited,
                          slots)


def _row_choice_cards(candidates: _RowCandidates, choice: I64, size: int) -> I64:
    """The lowest cards that make the chosen fills: (k, m) codes, in slot order."""
    fills = candidates.fills
    ranks = fills.ranks[choice].T  # (k, m)
    flush = fills.flush[choice]
    count = len(choice)
    real_ranks, real_suits = candidates.real_ranks, candidates.real_suits
    suit_of_row = real_suits[0]
    five_suited = np.full(count, candidates.suited and size == 5)

    def used(rank: I64) -> I64:
        bits = np.zeros(count, dtype=np.int64)
        for position in range(len(real_ranks)):
            bits |= np.where(real_ranks[position] == rank, 1 << real_suits[position], 0)
        return bits

    first_allowed = ~used(ranks[0]) & 15
    if len(ranks) == 1:
        # An unsuited fill in a suited row needs another suit than the row's.
        first_allowed &= ~np.where(five_suited, 1 << suit_of_row, 0)
    first_suit = np.where(flush, suit_of_row, LOWEST_SUIT[first_allowed])
    cards = [ranks[0] * 4 + first_suit]
    if len(ranks) == 2:
        second_allowed = ~used(ranks[1]) & 15
        second_allowed &= ~np.where(ranks[1] == ranks[0], 1 << first_suit, 0)
        # Two jokers in a suited row, not a flush: if the first took the row's suit,
        # the second must not.
        second_allowed &= ~np.where(five_suited & (first_suit == suit_of_row),
                                    1 << suit_of_row, 0)
        cards.append(ranks[1] * 4 + np.where(flush, suit_of_row, LOWEST_SUIT[second_allowed]))
    return np.stack(cards)


def _royalties_of(row: int, strengths: I32, rules: RuleTables) -> I16:
    index = np.maximum(strengths, 0) >> ROYALTY_SHIFT
    if row == 0:
        return rules.royalty_top[index]  # type: ignore[no-any-return]
    if row == 2:
        return rules.royalty_bottom[index]  # type: ignore[no-any-return]
    points = rules.royalty_middle[index]
    for strength, value in zip(rules.lowball_exact.tolist(),
                               rules.lowball_exact_points.tolist(), strict=True):
        points = np.where(strengths == strength, np.int16(value), points)
    return points  # type: ignore[no-any-return]


def _order_of(row: int, strengths: I32, rules: RuleTables) -> I32:
    """Strengths as values where more is better (24 bits), -1 where impossible."""
    if row == 1 and rules.lowball:
        return np.where(strengths < 0, np.int32(-1), LOWBALL_FLIP - strengths)
    return strengths


def _royalty_keys(row: int, strengths: I32, rules: RuleTables) -> I32:
    """``(royalties + 1) << 24`` of each candidate: its place in a 32-bit key (garbage
    where the candidate is impossible, which its order of -1 overrides)."""
    table = (rules.royalty_top, rules.royalty_middle, rules.royalty_bottom)[row]
    keys = ((table.astype(np.int32) + 1) << 24)[strengths >> ROYALTY_SHIFT]
    if row == 1:
        for strength, value in zip(rules.lowball_exact.tolist(),
                                   rules.lowball_exact_points.tolist(), strict=True):
            keys = np.where(strengths == strength, np.int32((value + 1) << 24), keys)
    return keys  # type: ignore[no-any-return]


def _small_royalties(rules: RuleTables) -> bool:
    """Whether one row's royalties fit the 7 bits of a 32-bit candidate key."""
    tables = (rules.royalty_top, rules.royalty_middle, rules.royalty_bottom,
              rules.lowball_exact_points)
    return all(len(t) == 0 or (int(t.min()) >= 0 and int(t.max()) < 127) for t in tables)


@dataclass(frozen=True, eq=False)
class ResolvedBoards:
    """Boards with their jokers resolved: each row's strength, and each joker's card
    (``(2, n)`` in board order, -1 where a board has fewer jokers)."""

    top: I32
    middle: I32
    bottom: I32
    joker_cards: I8


def resolve_jokers(cards: I8, rules: RuleTables) -> ResolvedBoards:
    """Resolve the jokers of ``(13, n)`` boards (each with 1 or 2 jokers, every other
    slot a real card; :data:`~ofc_stats.cards.JOKER` and above are jokers)."""
    n = cards.shape[1]
    is_joker = cards >= JOKER
    per_row = np.stack([is_joker[row].sum(axis=0) for row in ROWS])  # (3, n)
    # Boards are taken in groups with the same jokers per row and, for the five-card
    # rows holding one, whether the row's other cards share a suit (flushes possible).
    suits = np.where(is_joker, -1, cards & 3)
    suited = [np.zeros(n, dtype=bool)]
    for slots in ROWS[1:]:
        row_suits = suits[slots]
        first = row_suits.max(axis=0)
        suited.append(((row_suits == first) | (row_suits < 0)).all(axis=0))
    pattern = (per_row[0] * 9 + per_row[1] * 3 + per_row[2]
               + 27 * ((per_row[1] > 0) & suited[1]) + 54 * ((per_row[2] > 0) & suited[2]))
    top = np.empty(n, dtype=np.int32)
    middle = np.empty(n, dtype=np.int32)
    bottom = np.empty(n, dtype=np.int32)
    joker_cards = np.full((MAX_JOKERS, n), -1, dtype=np.int8)
    for code in np.flatnonzero(np.bincount(pattern)).tolist():
        counts = (code // 9 % 3, code // 3 % 3, code % 3)
        rows_suited = (False, bool(code // 27 % 2), bool(code // 54 % 2))
        varying = [row for row in range(3) if counts[row]]
        candidates = 1
        for row in varying:
            candidates *= len(_fills(5 if row else 3, counts[row], rows_suited[row]).flush)
        which = np.flatnonzero(pattern == code)
        step = max(1, CANDIDATES_PER_BATCH // candidates)
        for start in range(0, len(which), step):
            boards = which[start:start + step]
            strengths, chosen = _resolve_batch(np.ascontiguousarray(cards[:, boards]),
                                               counts, rows_suited, varying, rules)
            top[boards], middle[boards], bottom[boards] = strengths
            joker_cards[:len(chosen), boards] = chosen
    return ResolvedBoards(top, middle, bottom, joker_cards)


def _resolve_batch(cards: I8, counts: tuple[int, int, int], suited: tuple[bool, ...],
                   varying: list[int], rules: RuleTables) -> tuple[list[I32], I8]:
    """Resolve boards sharing one layout of jokers (``counts`` per row)."""
    count = cards.shape[1]
    dims = len(varying)
    rows = [_row_candidates(cards[ROWS[row]], ROWS[row].start, counts[row], suited[row],
                            lowball=row == 1 and rules.lowball) for row in varying]
    shapes = [len(candidates.fills.flush) for candidates in rows]

    def spread(values: npt.NDArray[Any], position: int) -> npt.NDArray[Any]:
        """A varying row's (m, C) values shaped to broadcast against the other's."""
        shape = [count] + [1] * dims
        shape[1 + position] = shapes[position]
        return values.reshape(shape)

    # Every row's strengths, broadcast to (m, C), or (m, C_first, C_second) for two
    # varying rows; a row without a joker is evaluated once.
    full: list[npt.NDArray[Any]] = []
    for row in range(3):
        if row in varying:
            full.append(spread(rows[varying.index(row)].strengths, varying.index(row)))
        else:
            strength = evaluate_rows(np.ascontiguousarray(cards[ROWS[row]]))
            if row == 1 and rules.lowball:
                strength = deuce_to_seven(strength)
            full.append(strength.reshape((count,) + (1,) * dims))
    standing = ~rows_fouled(full[0], full[1], full[2], rules)
    orders = [spread(_order_of(row, rows[position].strengths, rules), position)
              for position, row in enumerate(varying)]
    # The key: standing first, then royalties (only the varying rows' differ between a
    # board's candidates), then the varying rows' strengths in row order; an impossible
    # fill's order is -1, which makes its key negative.
    if dims == 1 and _small_royalties(rules):
        key: npt.NDArray[np.integer] = _royalty_keys(
            varying[0], rows[0].strengths, rules) * standing
        key |= orders[0]
    else:
        royalties = [spread(_royalties_of(row, rows[position].strengths, rules), position)
                     for position, row in enumerate(varying)]
        total = sum((points.astype(np.int64) for points in royalties), np.int64(0))
        key = np.where(standing, (np.int64(1) << 62)
                       | (np.clip(total + ROYALTY_OFFSET, 0, (1 << 14) - 1) << 48),
                       np.int64(0))
        shifts = (24, 0) if dims == 2 else (0,)
        for order, shift in zip(orders, shifts, strict=True):
            key = key | (order.astype(np.int64) << shift)
    best = key.reshape(count, -1).argmax(axis=1)  # (m,): flat index over the fills
    board = np.arange(count)
    choices = np.unravel_index(best, shapes)
    strengths = []
    for row in range(3):
        if row in varying:
            position = varying.index(row)
            strengths.append(rows[position].strengths[board, choices[position]])
        else:
            strengths.append(full[row].reshape(count))
    picked = [(_row_choice_cards(candidates, np.asarray(choice, dtype=np.int64),
                                 5 if row else 3), candidates.joker_slots)
              for candidates, choice, row in zip(rows, choices, varying, strict=True)]
    codes = np.concatenate([cards_ for cards_, _ in picked])
    if dims == 1:  # one row's jokers are in slot order already
        return strengths, codes.astype(np.int8)
    slots = np.concatenate([slots_ for _, slots_ in picked])
    order = np.argsort(slots, axis=0, kind="stable")  # each board's jokers in slot order
    chosen = np.take_along_axis(codes, order, axis=0).astype(np.int8)
    return strengths, chosen


__all__ = ["MAX_JOKERS", "ResolvedBoards", "resolve_jokers"]
