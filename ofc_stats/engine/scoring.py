"""Vectorised scoring: fouls, royalties, pairwise points, scoops and Fantasyland.

The unit of work is a batch of boards held as card codes of shape ``(13, n)``
(card-major: ``cards[0:3]`` top, ``cards[3:8]`` middle, ``cards[8:13]`` bottom),
sorted so each hand's boards are contiguous, with ``hand_starts`` giving the
offsets of the hands. Everything is numpy over whole columns; the only Python loops
run over the at most six seat pairs of a table, never over hands or cards.

:func:`score_batch` is the pure function at the centre: arrays in, arrays out, no
I/O. The polars API (:func:`ofc_stats.score_boards`) and the warehouse scorer feed it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntFlag
from functools import cache, cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import N_CARDS, NO_CARD, RANKS
from ofc_stats.engine.evaluate import (
    ROYALTY_INDEX_SIZE,
    ROYALTY_SHIFT,
    Category,
    evaluate_rows,
)
from ofc_stats.engine.rules import Ruleset, StayCards, top_hand_strength

CARDS_PER_BOARD = 13
TOP = slice(0, 3)
MIDDLE = slice(3, 8)
BOTTOM = slice(8, 13)
MAX_PLAYERS = 4

# Strength that no row reaches: a stay rule switched off compares against it.
UNREACHABLE = np.iinfo(np.int32).max

I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


class BoardProblem(IntFlag):
    """Why a board cannot be scored as it stands. Any of the first four fouls it."""

    INCOMPLETE = 1  # a row has fewer cards than it holds
    EXTRA_CARDS = 2  # a row has more cards than it holds (the extra ones are ignored)
    DUPLICATE_CARD = 4  # a card appears twice in the hand
    JOKER = 8  # jokers are not scored by these rulesets
    PLAYER_COUNT = 16  # the hand has fewer than 2 or more than 4 players

    @property
    def fouls(self) -> bool:
        """Whether this problem makes the board count as fouled."""
        return bool(self & ~BoardProblem.PLAYER_COUNT)


PROBLEM_TEXT = {
    BoardProblem.INCOMPLETE: "incomplete board",
    BoardProblem.EXTRA_CARDS: "extra cards",
    BoardProblem.DUPLICATE_CARD: "duplicate card",
    BoardProblem.JOKER: "joker not supported",
    BoardProblem.PLAYER_COUNT: "hand needs 2-4 players",
}


@dataclass(frozen=True, eq=False)
class RuleTables:
    """A :class:`Ruleset` compiled into the arrays and thresholds the scorer reads."""

    royalty_top: I16
    royalty_middle: I16
    royalty_bottom: I16
    entry_strengths: I32  # ascending thresholds on the top row's strength
    entry_cards: I8  # cards dealt for each threshold
    stay_top: int
    stay_middle: int
    stay_bottom: int
    stay_cards: int  # -1: repeat the count of the hand just played
    majority_bonus: int
    scoop_bonus: int
    moon_points: int
    moon_below: int  # bottom strengths below this shoot the moon (-1: rule off)


@cache
def compile_rules(ruleset: Ruleset) -> RuleTables:
    """Turn a ruleset into look-up arrays (cached per ruleset)."""
    royalties = ruleset.royalties

    def five_card_table(points: Mapping[str, int]) -> I16:
        table = np.zeros(ROYALTY_INDEX_SIZE, dtype=np.int16)
        for label, value in points.items():
            if label != "royal flush":
                start = Category.from_label(label) * 16
                table[start:start + 16] = value
        # The royal flush is the ace-high straight flush: its own slot, set last.
        if "royal flush" in points:
            table[Category.STRAIGHT_FLUSH * 16 + len(RANKS)] = points["royal flush"]
        return table

    top = np.zeros(ROYALTY_INDEX_SIZE, dtype=np.int16)
    for rank, value in royalties.top_pairs.items():
        top[Category.PAIR * 16 + RANKS.index(rank) + 1] = value
    for rank, value in royalties.top_trips.items():
        top[Category.TRIPS * 16 + RANKS.index(rank) + 1] = value

    fantasyland = ruleset.fantasyland
    stay_top, stay_middle, stay_bottom = fantasyland.stay_strengths
    moon_below = -1
    if ruleset.shoot_the_moon:
        moon_below = (RANKS.index(ruleset.moon_high_card.upper()) + 2) << ROYALTY_SHIFT
    return RuleTables(
        royalty_top=top,
        royalty_middle=five_card_table(royalties.middle),
        royalty_bottom=five_card_table(royalties.bottom),
        entry_strengths=np.array([top_hand_strength(hand) for hand, _ in fantasyland.entry],
                                 dtype=np.int32),
        entry_cards=np.array([cards for _, cards in fantasyland.entry], dtype=np.int8),
        stay_top=UNREACHABLE if stay_top is None else stay_top,
        stay_middle=UNREACHABLE if stay_middle is None else stay_middle,
        stay_bottom=UNREACHABLE if stay_bottom is None else stay_bottom,
        stay_cards=-1 if fantasyland.stay_cards is StayCards.REPEAT
        else int(fantasyland.stay_cards),
        majority_bonus=ruleset.scoring.majority_bonus,
        scoop_bonus=ruleset.scoring.scoop_bonus,
        moon_points=ruleset.moon_points,
        moon_below=moon_below,
    )


@dataclass(frozen=True, eq=False)
class BoardScores:
    """Per-board results of a batch, aligned with the input boards."""

    top_strength: I32
    middle_strength: I32
    bottom_strength: I32
    problems: npt.NDArray[np.uint8]  # BoardProblem flags
    fouled: Bools
    royalties_top: I16
    royalties_middle: I16
    royalties_bottom: I16
    royalties: I16
    moon: Bools
    points: I32
    opponents: I8
    rows_won: I8
    rows_lost: I8
    scoops: I8
    scooped: I8
    fl_entry: Bools
    fl_stay: Bools
    fl_cards_next: I8  # -1: not in Fantasyland next hand, or count unknown
    fl_entry_quality: Bools  # would enter Fantasyland if played outside it
    fl_entry_cards: I8  # cards such an entry deals (-1: no entry)
    fl_stay_quality: Bools  # would stay if played inside Fantasyland
    fl_stay_cards: I8  # cards such a stay deals (-1: no stay, or a repeat count unknown)


@dataclass(frozen=True, eq=False)
class PairScores:
    """One entry per pair of boards in the same hand, seen from the first board."""

    left: I64  # board index within the batch
    right: I64
    rows_won: I8
    rows_lost: I8
    scoop: I8  # 1: left scooped right, -1: right scooped left
    royalty_diff: I16
    points: I32
    top_result: I8  # each row: 1 won by left, -1 won by right, 0 tied
    middle_result: I8
    bottom_result: I8


@dataclass(frozen=True, eq=False)
class HandLayout:
    """Where each board of a batch sits: its hand and its seat slot.

    Per-board columns are turned into seat-major matrices of shape ``(width, hands)``
    so that a pair of seats is two contiguous rows; when every hand has the same
    number of players that is a reshape, otherwise a scatter with absent seats masked.
    """

    starts: I64
    sizes: I64
    width: int
    uniform: bool

    @classmethod
    def from_starts(cls, hand_starts: I64) -> HandLayout:
        """Layout of boards grouped into hands by ``hand_starts`` offsets."""
        starts = np.asarray(hand_starts[:-1], dtype=np.int64)
        sizes = np.diff(hand_starts).astype(np.int64)
        width = int(sizes.max(initial=0))
        uniform = bool(len(sizes) == 0 or sizes.min() == width)
        return cls(starts, sizes, width, uniform)

    @property
    def hands(self) -> int:
        """Number of hands."""
        return len(self.sizes)

    @cached_property
    def hand_of_board(self) -> I64:
        """Index of each board's hand."""
        return np.repeat(np.arange(self.hands), self.sizes)

    @cached_property
    def seat_of_board(self) -> I64:
        """Seat slot of each board within its hand (0-based, in input order)."""
        return np.arange(len(self.hand_of_board)) - self.starts[self.hand_of_board]

    def per_board(self, per_hand: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
        """Spread one value per hand to each of its boards."""
        return np.repeat(per_hand, self.sizes)

    def to_seats(self, values: npt.NDArray[np.generic], fill: object = 0
                 ) -> npt.NDArray[np.generic]:
        """Per-board values as a ``(width, hands)`` matrix; absent seats hold ``fill``.

        When every hand has ``width`` boards this is a strided *view* of ``values``
        (no copy; writing to it writes to ``values``).
        """
        if self.uniform:
            return values.reshape(self.hands, self.width).T
        matrix = np.full((self.width, self.hands), fill, dtype=values.dtype)
        matrix[self.seat_of_board, self.hand_of_board] = values
        return matrix

    def board_totals(self, dtype: type[np.generic], count: int = 1
                     ) -> tuple[npt.NDArray[np.generic], npt.NDArray[np.generic]]:
        """Zeroed per-board accumulators ``(count, boards)`` and their seat-major form
        ``(count, width, hands)``; call :meth:`settle` once the seat form is filled."""
        if self.uniform:
            boards = np.zeros((count, self.hands * self.width), dtype=dtype)
            return boards, boards.reshape(count, self.hands, self.width).transpose(0, 2, 1)
        seats = np.zeros((count, self.width, self.hands), dtype=dtype)
        return seats, seats

    def settle(self, totals: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
        """The ``(count, boards)`` totals of :meth:`board_totals` accumulators."""
        return totals if self.uniform else self.to_boards(totals)

    def to_boards(self, matrix: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
        """Inverse of :meth:`to_seats`; a stack of matrices ``(k, width, hands)`` gives
        ``(k, boards)`` in one copy."""
        if self.uniform:
            if matrix.ndim == 3:
                return matrix.transpose(0, 2, 1).reshape(matrix.shape[0], -1)
            return matrix.T.reshape(-1)
        return matrix[..., self.seat_of_board, self.hand_of_board]

    def seat_pairs(self) -> list[tuple[int, int, Bools | None]]:
        """Every pair of seat slots with the hands where both are taken (None: all)."""
        pairs: list[tuple[int, int, Bools | None]] = []
        for right in range(1, self.width):
            valid = None if self.uniform else self.sizes > right
            pairs.extend((left, right, valid) for left in range(right))
        return pairs


def _board_problems(cards: I8, layout: HandLayout, row_problems: npt.NDArray[np.uint8] | None
                    ) -> npt.NDArray[np.uint8]:
    n = cards.shape[1]
    problems = np.zeros(n, dtype=np.uint8) if row_problems is None else row_problems.copy()
    lowest, highest = (int(cards.min()), int(cards.max())) if n else (0, 0)
    clean = lowest >= 0 and highest < N_CARDS
    if lowest < 0:
        problems[(cards < 0).any(axis=0)] |= np.uint8(BoardProblem.INCOMPLETE)
    if highest >= N_CARDS:
        problems[(cards >= N_CARDS).any(axis=0)] |= np.uint8(BoardProblem.JOKER)
    bad_size = (layout.sizes < 2) | (layout.sizes > MAX_PLAYERS)
    if bad_size.any():
        problems[layout.per_board(bad_size)] |= np.uint8(BoardProblem.PLAYER_COUNT)

    # Duplicates: each board as a 52-bit mask of its cards. A hand's card counts add
    # up to the popcount of the union of its masks only when no card repeats.
    real = cards if clean else np.where((cards < 0) | (cards >= N_CARDS), np.int8(63), cards)
    bits = real.astype(np.uint64)
    np.left_shift(np.uint64(1), bits, out=bits)
    masks = np.bitwise_or.reduce(bits, axis=0)
    if clean:
        card_counts: npt.NDArray[np.int32] = np.full(n, CARDS_PER_BOARD, dtype=np.int32)
    else:
        masks &= np.uint64((1 << N_CARDS) - 1)
        card_counts = ((cards >= 0) & (cards < N_CARDS)).sum(axis=0, dtype=np.int32)
    repeats_within = np.bitwise_count(masks) != card_counts
    seat_masks = layout.to_seats(masks)
    if layout.uniform:  # each hand's boards side by side: reduce along contiguous rows
        union = np.bitwise_or.reduce(masks.reshape(layout.hands, layout.width), axis=1)
    else:
        union = np.bitwise_or.reduce(seat_masks, axis=0)
    if clean:
        hand_counts = layout.sizes * CARDS_PER_BOARD
    else:
        hand_counts = layout.to_seats(card_counts).sum(axis=0)
    if (np.bitwise_count(union) != hand_counts).any():
        shared = layout.to_seats(repeats_within, False)
        for left, right, _ in layout.seat_pairs():
            overlap = (seat_masks[left] & seat_masks[right]) != 0
            shared[left] |= overlap
            shared[right] |= overlap
        problems[layout.to_boards(shared)] |= np.uint8(BoardProblem.DUPLICATE_CARD)
    return problems


def score_batch(
    cards: I8,
    hand_starts: I64,
    rules: RuleTables,
    in_fantasyland: Bools | None = None,
    fl_cards: I8 | None = None,
    row_problems: npt.NDArray[np.uint8] | None = None,
) -> tuple[BoardScores, PairScores]:
    """Score a batch of boards.

    Args:
        cards: ``(13, n)`` card codes, card-major; :data:`NO_CARD` for an empty slot.
        hand_starts: ``(hands + 1,)`` offsets: hand ``h`` is boards
            ``hand_starts[h]:hand_starts[h + 1]``.
        rules: compiled ruleset, from :func:`compile_rules`.
        in_fantasyland: whether each board was played in Fantasyland.
        fl_cards: cards dealt to each board in Fantasyland (-1 or absent: unknown);
            only needed where a stay repeats the count.
        row_problems: problems found before the cards became codes (extra cards).

    Returns:
        Per-board scores and per-pair scores.
    """
    n = cards.shape[1]
    layout = HandLayout.from_starts(np.asarray(hand_starts, dtype=np.int64))
    problems = _board_problems(cards, layout, row_problems)
    fouls_by_problem = (problems & np.uint8(~BoardProblem.PLAYER_COUNT & 0xFF)) != 0
    playable = cards
    if fouls_by_problem.any():
        # Evaluate broken boards on harmless cards; they are fouled regardless.
        playable = np.where((cards < 0) | (cards >= N_CARDS), np.int8(0), cards)

    top = evaluate_rows(playable[TOP])
    middle = evaluate_rows(playable[MIDDLE])
    bottom = evaluate_rows(playable[BOTTOM])
    fouled = (top > middle) | (middle > bottom) | fouls_by_problem
    standing = ~fouled

    def royalty(table: I16, strength: I32) -> I16:
        return table[strength >> ROYALTY_SHIFT] * standing  # type: ignore[no-any-return]

    royalties_top = royalty(rules.royalty_top, top)
    royalties_middle = royalty(rules.royalty_middle, middle)
    royalties_bottom = royalty(rules.royalty_bottom, bottom)
    royalties = royalties_top + royalties_middle + royalties_bottom
    moon = standing & (bottom < rules.moon_below)

    # Fantasyland. What the board would earn from outside (entry) and from inside
    # (stay), whatever the history says; then what it earns given where it was played.
    entry_quality = standing & (top >= rules.entry_strengths[0])
    entry_cards = np.full(n, -1, dtype=np.int8)
    qualifying = np.flatnonzero(entry_quality)
    threshold = np.searchsorted(rules.entry_strengths, top[qualifying], side="right") - 1
    entry_cards[qualifying] = rules.entry_cards[threshold]
    stay_quality = standing & ((top >= rules.stay_top) | (middle >= rules.stay_middle)
                               | (bottom >= rules.stay_bottom))
    if rules.stay_cards >= 0:
        stay_cards = np.where(stay_quality, np.int8(rules.stay_cards), np.int8(-1))
    elif fl_cards is not None:
        stay_cards = np.where(stay_quality, fl_cards, np.int8(-1)).astype(np.int8)
    else:
        stay_cards = np.full(n, -1, dtype=np.int8)
    if in_fantasyland is None:
        fl_entry, fl_stay = entry_quality, np.zeros(n, dtype=bool)
        fl_cards_next = entry_cards
    else:
        fl_entry = entry_quality & ~in_fantasyland
        fl_stay = stay_quality & in_fantasyland
        fl_cards_next = np.where(in_fantasyland, stay_cards, entry_cards)

    totals, pairs = _score_pairs(layout, rules, top, middle, bottom, fouled, royalties, moon)
    return BoardScores(
        top_strength=top, middle_strength=middle, bottom_strength=bottom,
        problems=problems, fouled=fouled,
        royalties_top=royalties_top, royalties_middle=royalties_middle,
        royalties_bottom=royalties_bottom, royalties=royalties, moon=moon,
        opponents=layout.per_board(layout.sizes - 1).astype(np.int8),
        fl_entry=fl_entry, fl_stay=fl_stay, fl_cards_next=fl_cards_next,
        fl_entry_quality=entry_quality, fl_entry_cards=entry_cards,
        fl_stay_quality=stay_quality, fl_stay_cards=stay_cards,
        **totals,
    ), pairs


def _score_pairs(layout: HandLayout, rules: RuleTables, top: I32, middle: I32, bottom: I32,
                 fouled: Bools, royalties: I16, moon: Bools
                 ) -> tuple[dict[str, Any], PairScores]:
    """Score every pair of seats; return each board's totals and the pairs themselves."""
    # A fouled board loses every row to a standing one and ties another fouled one:
    # exactly what a strength below every real row (-1) gives in plain comparisons.
    # Absent seats count as fouled; their pairs are masked out below.
    strengths = np.stack([top, middle, bottom])
    strengths |= -fouled.view(np.int8).astype(np.int32)  # all bits set (-1) where fouled
    rows = [layout.to_seats(strength, -1) for strength in strengths]
    seat_royalties = layout.to_seats(royalties)
    seat_moon = layout.to_seats(moon, False) if rules.moon_below >= 0 else None
    point_boards, (points,) = layout.board_totals(np.int32)
    count_boards, (rows_won, rows_lost, scoops, scooped) = layout.board_totals(np.int8, 4)
    pair_parts: list[tuple[npt.NDArray[np.generic], ...]] = []

    for left, right, valid in layout.seat_pairs():
        wins = np.zeros(layout.hands, dtype=np.int8)
        losses = np.zeros(layout.hands, dtype=np.int8)
        row_results = []
        for row in rows:
            result_of_row = ((row[left] > row[right]).view(np.int8)
                             - (row[left] < row[right]).view(np.int8))
            if valid is not None:
                result_of_row *= valid
            wins += result_of_row == 1
            losses += result_of_row == -1
            row_results.append(result_of_row)
        royalty_diff = seat_royalties[left] - seat_royalties[right]
        if valid is not None:
            royalty_diff *= valid
        won_all, lost_all = wins == 3, losses == 3
        scoop = won_all.view(np.int8) - lost_all.view(np.int8)
        net_rows = wins - losses
        result = royalty_diff.astype(np.int32)
        result += net_rows
        result += scoop * np.int8(rules.scoop_bonus)
        if rules.majority_bonus:
            result += np.where(scoop == 0, np.sign(net_rows) * np.int8(rules.majority_bonus),
                               np.int8(0))
        if seat_moon is not None:
            left_moon, right_moon = seat_moon[left], seat_moon[right]
            moon_result = (left_moon.view(np.int8) - right_moon.view(np.int8)).astype(np.int32)
            result = np.where(left_moon | right_moon, moon_result * rules.moon_points, result)
            if valid is not None:
                result *= valid

        points[left] += result
        points[right] -= result
        rows_won[left] += wins
        rows_won[right] += losses
        rows_lost[left] += losses
        rows_lost[right] += wins
        scoops[left] += won_all
        scoops[right] += lost_all
        scooped[left] += lost_all
        scooped[right] += won_all

        hands = slice(None) if valid is None else np.flatnonzero(valid)
        base = layout.starts[hands]
        pair_parts.append((base + left, base + right, wins[hands], losses[hands],
                           scoop[hands], royalty_diff[hands], result[hands],
                           *(row_result[hands] for row_result in row_results)))

    counts = layout.settle(count_boards)
    totals = {"points": layout.settle(point_boards)[0],
              "rows_won": counts[0], "rows_lost": counts[1], "scoops": counts[2],
              "scooped": counts[3]}
    dtypes = (np.int64, np.int64, np.int8, np.int8, np.int8, np.int16, np.int32,
              np.int8, np.int8, np.int8)
    if not pair_parts:
        pair_parts.append(tuple(np.empty(0, dtype=dtype) for dtype in dtypes))
    columns = [np.concatenate(parts).astype(dtype, copy=False)
               for parts, dtype in zip(zip(*pair_parts, strict=True), dtypes, strict=True)]
    return totals, PairScores(*columns)


__all__ = [
    "NO_CARD",
    "BoardProblem",
    "BoardScores",
    "HandLayout",
    "PairScores",
    "RuleTables",
    "compile_rules",
    "score_batch",
]
