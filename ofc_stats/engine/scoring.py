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

from dataclasses import dataclass
from enum import IntFlag
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import JOKER, N_CARDS, NO_CARD
from ofc_stats.engine.jokers import MAX_JOKERS, resolve_jokers
from ofc_stats.engine.rows import (
    BOTTOM,
    MIDDLE,
    TOP,
    UNREACHABLE,
    RuleTables,
    compile_rules,
    fantasyland_quality,
    middle_order,
    row_royalties,
    row_strengths,
    rows_fouled,
)

CARDS_PER_BOARD = 13
MAX_PLAYERS = 4  # the most a single 52-card deck deals (RuleTables.max_players per game)

I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


class BoardProblem(IntFlag):
    """Why a board cannot be scored as it stands. All but PLAYER_COUNT foul it."""

    INCOMPLETE = 1  # a row has fewer cards than it holds
    EXTRA_CARDS = 2  # a row has more cards than it holds (the extra ones are ignored)
    DUPLICATE_CARD = 4  # a card appears more often in the hand than the decks hold it
    JOKER = 8  # a joker in a game without jokers
    PLAYER_COUNT = 16  # the hand has fewer than 2 players, or more than the deck deals
    TOO_MANY_JOKERS = 32  # more jokers in the hand (or on the board) than the deck holds

    @property
    def fouls(self) -> bool:
        """Whether this problem makes the board count as fouled."""
        return bool(self & ~BoardProblem.PLAYER_COUNT)


PROBLEM_TEXT = {
    BoardProblem.INCOMPLETE: "incomplete board",
    BoardProblem.EXTRA_CARDS: "extra cards",
    BoardProblem.DUPLICATE_CARD: "duplicate card",
    BoardProblem.JOKER: "joker in a game without jokers",
    BoardProblem.PLAYER_COUNT: "hand needs 2-{max_players} players",
    BoardProblem.TOO_MANY_JOKERS: "more jokers than the deck holds",
}
FOULING_PROBLEMS = np.uint8(~BoardProblem.PLAYER_COUNT & 0xFF)


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
    # What each joker of a board stood for, in board order: (2, n), -1 for none (and
    # for a flagged board's); None when the batch holds no joker.
    joker_cards: I8 | None = None


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


def _board_problems(cards: I8, layout: HandLayout, row_problems: npt.NDArray[np.uint8] | None,
                    rules: RuleTables, jokers: npt.NDArray[np.uint8] | None
                    ) -> npt.NDArray[np.uint8]:
    """Each board's :class:`BoardProblem` flags (``jokers``: each board's joker count,
    None when the batch holds none)."""
    n = cards.shape[1]
    problems = np.zeros(n, dtype=np.uint8) if row_problems is None else row_problems.copy()
    lowest, highest = (int(cards.min()), int(cards.max())) if n else (0, 0)
    if lowest < 0:
        problems[(cards < 0).any(axis=0)] |= np.uint8(BoardProblem.INCOMPLETE)
    if jokers is not None:
        _joker_problems(jokers, layout, rules, problems)
    bad_size = (layout.sizes < 2) | (layout.sizes > rules.max_players)
    if bad_size.any():
        problems[layout.per_board(bad_size)] |= np.uint8(BoardProblem.PLAYER_COUNT)
    if rules.decks > 1:
        _repeated_cards(cards, layout, rules.decks, problems)
        return problems

    # Duplicates: each board as a 52-bit mask of its cards. A hand's card counts add
    # up to the popcount of the union of its masks only when no card repeats. Jokers
    # (52, 53) land on bits above the 52 and are masked off; an empty slot too (63).
    clean = lowest >= 0 and highest < N_CARDS
    real = cards if lowest >= 0 and highest < 64 else np.where(
        (cards < 0) | (cards >= N_CARDS), np.int8(63), cards)
    bits = real.astype(np.uint64)
    np.left_shift(np.uint64(1), bits, out=bits)
    masks = np.bitwise_or.reduce(bits, axis=0)
    if clean:
        card_counts: npt.NDArray[np.int32] = np.full(n, CARDS_PER_BOARD, dtype=np.int32)
    else:
        masks &= np.uint64((1 << N_CARDS) - 1)
        if lowest >= 0 and jokers is not None:
            card_counts = CARDS_PER_BOARD - jokers.astype(np.int32)
        else:
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


def _joker_problems(jokers: npt.NDArray[np.uint8], layout: HandLayout, rules: RuleTables,
                    problems: npt.NDArray[np.uint8]) -> None:
    """Flag jokers where the game has none, or more than its deck holds."""
    has_joker = jokers > 0
    if not rules.jokers:
        problems[has_joker] |= np.uint8(BoardProblem.JOKER)
        return
    if layout.uniform:
        per_hand = jokers.reshape(layout.hands, layout.width).sum(axis=1)
    else:
        per_hand = np.add.reduceat(jokers.astype(np.int64), layout.starts)
    too_many = (jokers > min(MAX_JOKERS, rules.jokers)) | (
        np.asarray(layout.per_board(per_hand > rules.jokers), dtype=bool) & has_joker)
    if too_many.any():
        problems[too_many] |= np.uint8(BoardProblem.TOO_MANY_JOKERS)


def _repeated_cards(cards: I8, layout: HandLayout, decks: int,
                    problems: npt.NDArray[np.uint8]) -> None:
    """Flag boards holding a card the hand holds more often than ``decks`` decks do."""
    real = (cards >= 0) & (cards < N_CARDS)
    keys = layout.hand_of_board[None, :] * N_CARDS + cards.astype(np.int64)
    counts = np.bincount(keys[real], minlength=layout.hands * N_CARDS)
    over = np.zeros(cards.shape, dtype=bool)
    over[real] = counts[keys[real]] > decks
    problems[over.any(axis=0)] |= np.uint8(BoardProblem.DUPLICATE_CARD)


def evaluate_boards(cards: I8, rules: RuleTables) -> tuple[I32, I32, I32, Bools]:
    """Top, middle and bottom strengths and fouls of ``(13, n)`` complete boards, jokers
    resolved: what a player weighs when setting a board (no duplicate checks)."""
    if int(cards.max(initial=0)) < JOKER:
        top, middle, bottom = row_strengths(cards, rules)
    else:
        jokers = (cards >= JOKER).sum(axis=0, dtype=np.uint8)
        top, middle, bottom = row_strengths(np.where(cards >= JOKER, np.int8(0), cards), rules)
        with_jokers = np.flatnonzero((jokers > 0) & (jokers <= MAX_JOKERS))
        if len(with_jokers):
            resolved = resolve_jokers(np.ascontiguousarray(cards[:, with_jokers]), rules)
            top[with_jokers] = resolved.top
            middle[with_jokers] = resolved.middle
            bottom[with_jokers] = resolved.bottom
    return top, middle, bottom, rows_fouled(top, middle, bottom, rules)


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
        cards: ``(13, n)`` card codes, card-major; :data:`NO_CARD` for an empty slot,
            :data:`~ofc_stats.cards.JOKER` for a joker.
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
    highest = int(cards.max()) if n else 0
    jokers = (cards >= JOKER).sum(axis=0, dtype=np.uint8) if highest >= JOKER else None
    problems = _board_problems(cards, layout, row_problems, rules, jokers)
    fouls_by_problem = (problems & FOULING_PROBLEMS) != 0
    resolvable = None
    if jokers is not None and rules.jokers:
        resolvable = (jokers > 0) & ~fouls_by_problem
    joker_cards = None
    if resolvable is not None and resolvable.all():  # every board holds a joker
        resolved = resolve_jokers(cards, rules)
        top, middle, bottom = resolved.top, resolved.middle, resolved.bottom
        joker_cards = resolved.joker_cards
    else:
        playable = cards
        if highest >= N_CARDS or fouls_by_problem.any():
            # Evaluate broken boards (and jokers, resolved below) on harmless cards.
            playable = np.where((cards < 0) | (cards >= N_CARDS), np.int8(0), cards)
        top, middle, bottom = row_strengths(playable, rules)
    if resolvable is not None and joker_cards is None:
        joker_cards = np.full((MAX_JOKERS, n), NO_CARD, dtype=np.int8)
        if resolvable.any():
            with_jokers = np.flatnonzero(resolvable)
            resolved = resolve_jokers(np.ascontiguousarray(cards[:, with_jokers]), rules)
            top[with_jokers] = resolved.top
            middle[with_jokers] = resolved.middle
            bottom[with_jokers] = resolved.bottom
            joker_cards[:, with_jokers] = resolved.joker_cards
    fouled = rows_fouled(top, middle, bottom, rules) | fouls_by_problem
    standing = ~fouled

    royalties_top, royalties_middle, royalties_bottom = (
        points * standing for points in row_royalties(top, middle, bottom, rules))
    royalties = royalties_top + royalties_middle + royalties_bottom
    moon = standing & (bottom < rules.moon_below)

    # Fantasyland. What the board would earn from outside (entry) and from inside
    # (stay), whatever the history says; then what it earns given where it was played.
    quality = fantasyland_quality(top, middle, bottom, standing, rules)
    entry_quality, entry_cards, stay_quality = quality.entry, quality.entry_cards, quality.stay
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

    totals, pairs = _score_pairs(layout, rules, top, middle_order(middle, rules), bottom,
                                 fouled, royalties, moon)
    return BoardScores(
        top_strength=top, middle_strength=middle, bottom_strength=bottom,
        problems=problems, fouled=fouled,
        royalties_top=royalties_top, royalties_middle=royalties_middle,
        royalties_bottom=royalties_bottom, royalties=royalties, moon=moon,
        opponents=layout.per_board(layout.sizes - 1).astype(np.int8),
        fl_entry=fl_entry, fl_stay=fl_stay, fl_cards_next=fl_cards_next,
        fl_entry_quality=entry_quality, fl_entry_cards=entry_cards,
        fl_stay_quality=stay_quality, fl_stay_cards=stay_cards, joker_cards=joker_cards,
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
    "BOTTOM",
    "MIDDLE",
    "NO_CARD",
    "TOP",
    "UNREACHABLE",
    "BoardProblem",
    "BoardScores",
    "HandLayout",
    "PairScores",
    "RuleTables",
    "compile_rules",
    "evaluate_boards",
    "score_batch",
]
