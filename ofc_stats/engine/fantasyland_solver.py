"""The best setting of a Fantasyland hand, exactly: every legal setting is considered.

A Fantasyland hand deals 13 to 17 cards at once; the player keeps 13 and sets them as
top (3), middle (5) and bottom (5) without fouling (``bottom >= middle >= top``; with a
deuce-to-seven middle, ``bottom >= top`` and a middle low enough, RULES.md section 10).
A setting's *value* is its royalties plus the ruleset's ``fl_stay_value`` if it stays
in Fantasyland (RULES.md section 12). :func:`solve_fantasyland` returns the setting of
highest value; :func:`solve_batch` does the same for many hands at once, in numpy.

How, for each card count ``n`` (its tables of subsets are built once):

1. Every 5-card subset of the hand is evaluated once (``C(n, 5)``: 6,188 for 17 cards)
   and every 3-card subset (680): strengths, royalties as a bottom or middle or top,
   whether each stays. A setting is a bottom, a middle among the 5-card subsets
   disjoint from it, and a top among the 3-card subsets of the cards left.
2. For a given bottom and middle, the best top is the strongest legal one (at most
   the middle; at most the bottom under a 2-7 middle) among the cards left: a top's
   royalty and stay never fall as its strength grows, and a stronger top also wins at
   least as many rows. So a setting is searched as a (bottom, middle) pair, its top
   found by one ``max``. A 2-7 middle stands or not by itself (low enough), so its
   bounds and its pairs with a bottom ignore the bottom's class.
3. Pruning. Each bottom gets an upper bound on any setting built on it: its royalty,
   plus the most any middle of a class at most its own could earn, plus the most any
   top could, plus the stay value if any row could stay (each term ignores which
   cards are left, so the bound is never below a true value). A middle gets the same
   bound with its own royalty. A few bottoms of highest bound are solved exactly
   first; their best value is reached by some setting, so every bottom or pair whose
   bound is *below* it cannot be the best and is dropped. Equal bounds are kept: a
   setting that ties the best is still examined, for the tie-break.
4. Ties (equal value) go to the setting that wins more points against the opponents'
   actual boards when they are given (scored by :func:`~ofc_stats.engine.scoring.score_batch`),
   then to the strongest rows compared top, middle, bottom in that order (the order
   RULES.md section 9 uses for jokers), then to the first in enumeration order.

Many hands of one card count are solved together: each stage is a few numpy calls
over every surviving candidate of the block of hands, in bounded chunks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import N_CARDS, NO_CARD, card_text, parse_card
from ofc_stats.engine.evaluate import (
    ROYALTY_INDEX_SIZE,
    ROYALTY_SHIFT,
    deuce_to_seven,
    evaluate_rows,
)
from ofc_stats.engine.rows import middle_order, middle_royalties
from ofc_stats.engine.rules import Ruleset, get_ruleset
from ofc_stats.engine.scoring import RuleTables, compile_rules, score_batch
from ofc_stats.errors import FantasylandHandError

MIN_CARDS = 13
MAX_CARDS = 17
MAX_OPPONENTS = 7  # the most any ruleset seats is 8 (double deck)
# Candidates (bottom-middle pairs, or pairs times tops) handled at once: memory stays
# bounded by it whatever the number of hands.
CHUNK_CANDIDATES = 1 << 20
# Bottoms per hand, and middles per bottom, searched first (those of highest bound):
# the value they reach is what every other bound must reach.
FIRST_BOTTOMS = 4
FIRST_MIDDLES = 16
# Hands searched together: their 5-card subsets (and the arrays of each) stay below it.
BLOCK_SUBSETS = 1 << 20

I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class FantasylandSetting:
    """The best setting of one hand (cards as text, each row strongest card first)."""

    top: tuple[str, ...]
    middle: tuple[str, ...]
    bottom: tuple[str, ...]
    discards: tuple[str, ...]
    royalties: int
    stays: bool
    value: float  # royalties, plus the stay value if it stays
    points: int | None = None  # against the opponents' boards, if they were given


@dataclass(frozen=True, eq=False)
class SolvedHands:
    """The best setting of each hand of a batch, as arrays aligned with its hands.

    ``boards`` is ``(13, hands)`` card codes, card-major like the scorer's (top 0-2,
    middle 3-7, bottom 8-12); ``discards`` is ``(hands, 4)``, :data:`NO_CARD` padded.
    """

    boards: I8
    discards: I8
    royalties: I16
    stays: Bools
    value: F64
    settings: I64  # legal and illegal settings the hand has (what brute force examines)
    examined: I64  # (bottom, middle) pairs whose best top was computed


@dataclass(frozen=True, eq=False)
class SubsetTables:
    """The subsets of ``n`` card positions a search walks, built once per ``n``."""

    n: int
    five: I8  # (K5, 5) positions of each 5-card subset, in lexicographic order
    three: I8  # (K3, 3) positions of each 3-card subset
    mask5: I32  # (K5,) the positions of each 5-card subset as bits
    middles: npt.NDArray[np.int16]  # (K5, C(n-5, 5)) the 5-card subsets disjoint from each
    tops_outside: npt.NDArray[np.int16]  # (K5, C(n-5, 3)) the 3-card subsets disjoint from each
    remainder_rank: I32  # (2**n,) index of a mask of n - 10 positions among them
    tops: npt.NDArray[np.int16]  # (C(n, 10), C(n-10, 3)) the 3-card subsets of each

    @property
    def settings(self) -> int:
        """Settings of a hand of ``n`` cards: choose 13, then bottom, middle and top."""
        return comb(self.n, 13) * comb(13, 5) * comb(8, 5)


def _subsets(n: int, k: int) -> I8:
    return np.array(list(combinations(range(n), k)), dtype=np.int8).reshape(-1, k)


def _masks(positions: npt.NDArray[np.integer]) -> I32:
    masks: I32 = np.bitwise_or.reduce(np.left_shift(1, positions.astype(np.int32)), axis=-1)
    return masks


@cache
def subset_tables(n: int) -> SubsetTables:
    """The subset tables of hands of ``n`` cards (13 to 17)."""
    if not MIN_CARDS <= n <= MAX_CARDS:
        raise FantasylandHandError(f"a Fantasyland hand has 13 to 17 cards, not {n}")
    five, three = _subsets(n, 5), _subsets(n, 3)
    mask5, mask3 = _masks(five), _masks(three)
    index5 = np.full(1 << n, -1, dtype=np.int32)
    index5[mask5] = np.arange(len(five))
    index3 = np.full(1 << n, -1, dtype=np.int32)
    index3[mask3] = np.arange(len(three))
    # The positions outside each bottom, in order, then the middles among them.
    member = np.zeros((len(five), n), dtype=bool)
    np.put_along_axis(member, five.astype(np.int64), True, axis=1)
    outside = np.nonzero(~member)[1].reshape(len(five), n - 5)
    middles = index5[_masks(outside[:, _subsets(n - 5, 5)])].astype(np.int16)
    tops_outside = index3[_masks(outside[:, _subsets(n - 5, 3)])].astype(np.int16)
    remainders = _subsets(n, n - 10)
    remainder_rank = np.full(1 << n, -1, dtype=np.int32)
    remainder_rank[_masks(remainders)] = np.arange(len(remainders))
    tops = index3[_masks(remainders[:, _subsets(n - 10, 3)])].astype(np.int16)
    for array in (five, three, mask5, middles, tops_outside, remainder_rank, tops):
        array.flags.writeable = False
    return SubsetTables(n, five, three, mask5, middles, tops_outside, remainder_rank, tops)


@dataclass(frozen=True, eq=False)
class _HandRows:
    """Every row a block of hands can make, valued (``(hands, subsets)`` arrays)."""

    five: I32  # strengths of the 5-card subsets
    middle: I32  # the same as middles: ``five``, or as a 2-7 middle (lower is better)
    middle_stands: Bools | None  # a 2-7 middle low enough to stand (None: not 2-7)
    three: I32  # strengths of the 3-card subsets
    bottom_royalty: I16
    middle_royalty: I16
    top_royalty: I16
    bottom_stays: Bools
    middle_stays: Bools
    top_stays: Bools
    # Bounds by row class (strength >> ROYALTY_SHIFT), (hands, classes): the most a
    # middle (a top) of that class or below could earn, and whether one could stay.
    middle_cap: I16
    middle_cap_stays: Bools
    top_cap: I16
    top_cap_stays: Bools


def _evaluate_subsets(cards: I8, subsets: I8) -> I32:
    hands, size = cards.shape[0], subsets.shape[1]
    gathered = cards[:, subsets]  # (hands, K, size)
    rows = np.ascontiguousarray(gathered.transpose(2, 0, 1).reshape(size, -1))
    return evaluate_rows(rows).reshape(hands, -1)


def _class_caps(strengths: I32, royalty: I16, stays: Bools) -> tuple[I16, Bools]:
    """Per hand and class: the best royalty of a row of that class or below, and
    whether any such row stays."""
    hands = strengths.shape[0]
    keys = (np.arange(hands)[:, None] * ROYALTY_INDEX_SIZE
            + (strengths >> ROYALTY_SHIFT)).ravel()
    best = np.zeros(hands * ROYALTY_INDEX_SIZE, dtype=np.int16)
    np.maximum.at(best, keys, royalty.ravel())
    staying = np.zeros(hands * ROYALTY_INDEX_SIZE, dtype=bool)
    staying[keys[stays.ravel()]] = True
    best = np.maximum.accumulate(best.reshape(hands, -1), axis=1)
    staying = np.logical_or.accumulate(staying.reshape(hands, -1), axis=1)
    return best, staying


def _hand_rows(cards: I8, tables: SubsetTables, rules: RuleTables) -> _HandRows:
    five = _evaluate_subsets(cards, tables.five)
    three = _evaluate_subsets(cards, tables.three)
    middle = deuce_to_seven(five) if rules.lowball else five
    bottom_royalty = rules.royalty_bottom[five >> ROYALTY_SHIFT]
    middle_royalty = middle_royalties(middle, rules)
    top_royalty = rules.royalty_top[three >> ROYALTY_SHIFT]
    bottom_stays = five >= rules.stay_bottom
    top_stays = three >= rules.stay_top
    stands = None
    if rules.lowball:
        # A 2-7 middle stands or not whatever the bottom: its bound is the best of the
        # hand's standing middles, for a bottom of any class.
        stands = middle < rules.lowball_qualifier
        middle_stays = middle < rules.stay_lowball
        shape = (five.shape[0], ROYALTY_INDEX_SIZE)
        middle_cap = np.broadcast_to(np.where(stands, middle_royalty, 0).max(
            axis=1, initial=0)[:, None], shape).astype(np.int16)
        standing_stays: Bools = np.asarray((stands & middle_stays).any(axis=1))
        middle_cap_stays = np.broadcast_to(standing_stays[:, None], shape)
    else:
        middle_stays = five >= rules.stay_middle
        middle_cap, middle_cap_stays = _class_caps(five, middle_royalty, middle_stays)
    top_cap, top_cap_stays = _class_caps(three, top_royalty, top_stays)
    return _HandRows(
        five=five, middle=middle, middle_stands=stands, three=three,
        bottom_royalty=bottom_royalty,
        middle_royalty=middle_royalty,
        top_royalty=top_royalty, bottom_stays=bottom_stays, middle_stays=middle_stays,
        top_stays=top_stays, middle_cap=middle_cap, middle_cap_stays=middle_cap_stays,
        top_cap=top_cap, top_cap_stays=top_cap_stays)


def _bottom_bounds(rows: _HandRows, stay_value: float) -> F64:
    """Upper bound of any setting on each bottom, (hands, K5)."""
    hand = np.arange(rows.five.shape[0])[:, None]
    cls = rows.five >> ROYALTY_SHIFT
    could_stay = (rows.bottom_stays | rows.middle_cap_stays[hand, cls]
                  | rows.top_cap_stays[hand, cls])
    bound: F64 = (rows.bottom_royalty + rows.middle_cap[hand, cls]
                  + rows.top_cap[hand, cls] + stay_value * could_stay)
    return bound


def boards_of(cards: I8, tables: SubsetTables, bottom: I64, middle: I64, top: I64
              ) -> I8:
    """The boards ``(N, 13)`` (top, middle, bottom) of settings given by subset index,
    each of the hand ``cards[i]`` (``cards``: ``(N, n)``)."""
    positions = np.concatenate([tables.three[top], tables.five[middle], tables.five[bottom]],
                               axis=1).astype(np.int64)
    boards: I8 = np.take_along_axis(cards, positions, axis=1)
    return boards


@dataclass(frozen=True, eq=False)
class Against:
    """What a board scores against its hand's opponents (arrays over the boards)."""

    fouled: Bools
    royalties: I16
    stays: Bools  # would stay if played in Fantasyland
    points: npt.NDArray[np.int32]


def score_against(boards: I8, opponents: I8 | None, rules: RuleTables) -> Against:
    """Score boards ``(N, 13)`` each against its own opponents ``(N, 3, 13)`` (an absent
    opponent all :data:`NO_CARD`; None: no opponent, no points)."""
    count = boards.shape[0]
    if opponents is None:
        opponents = np.full((count, MAX_OPPONENTS, 13), NO_CARD, dtype=np.int8)
    present = (opponents != NO_CARD).any(axis=2)
    per_hand = 1 + present.sum(axis=1)
    starts = np.concatenate([[0], np.cumsum(per_hand)]).astype(np.int64)
    stacked = np.empty((int(starts[-1]), 13), dtype=np.int8)
    stacked[starts[:-1]] = boards
    which, slot = np.nonzero(present)
    seat = np.cumsum(present, axis=1) - 1
    stacked[starts[which] + 1 + seat[which, slot]] = opponents[which, slot]
    scores, _ = score_batch(np.ascontiguousarray(stacked.T), starts, rules,
                            in_fantasyland=np.ones(len(stacked), dtype=bool))
    first = starts[:-1]
    return Against(scores.fouled[first], scores.royalties[first],
                   scores.fl_stay_quality[first], scores.points[first])


class _BlockSearch:
    """The search of a block of hands with the same card count.

    It keeps one champion per hand: the best setting seen so far by (value, points
    against the opponents, top, middle, bottom strength); a later setting replaces it
    only when strictly better, so a full tie keeps the first found.
    """

    def __init__(self, cards: I8, rules: RuleTables, stay_value: float,
                 opponents: I8 | None) -> None:
        hands, n = cards.shape
        self.cards = cards
        self.rules = rules
        self.stay_value = stay_value
        self.opponents = opponents
        self.tables = subset_tables(n)
        self.rows = rows = _hand_rows(cards, self.tables, rules)
        # Flat copies for np.take, and each 5-card subset's part of a bound as a middle:
        # its royalty, the best top below it, and the stay value if the middle or such a
        # top could stay; with the bottom staying (second half), the stay value always.
        self.five = rows.five.ravel()
        # What a middle must not exceed the bottom's strength by: its own strength, or
        # under a 2-7 middle -1 where it stands (below any bottom), else above every one.
        self.middle_key = (rows.five if rows.middle_stands is None else np.where(
            rows.middle_stands, -1, np.iinfo(np.int32).max)).ravel()
        self.three = rows.three.ravel()
        self.top_royalty = rows.top_royalty.ravel()
        self.bottom_royalty = rows.bottom_royalty.ravel()
        self.bottom_stays = rows.bottom_stays.ravel().astype(np.int64)
        hand = np.arange(hands)[:, None]
        # The best top below the middle; under a 2-7 middle the top answers to the
        # bottom, not known here: any top.
        cls = (np.full_like(rows.five, ROYALTY_INDEX_SIZE - 1) if rules.lowball
               else rows.five >> ROYALTY_SHIFT)
        plain = rows.middle_royalty + rows.top_cap[hand, cls]
        could_stay = rows.middle_stays | rows.top_cap_stays[hand, cls]
        self.middle_bound = np.stack([plain + stay_value * could_stay, plain + stay_value],
                                     axis=1).ravel()
        self.value = np.full(hands, -np.inf)  # the best value seen, per hand
        self.champion_value = np.full(hands, -np.inf)  # the value of the champion
        self.points = np.zeros(hands, dtype=np.int64)
        self.strengths = np.full((hands, 3), -1, dtype=np.int64)  # top, middle, bottom
        self.setting = np.zeros((hands, 3), dtype=np.int64)  # bottom, middle, top index
        self.examined = np.zeros(hands, dtype=np.int64)

    def run(self, lower_bound: F64 | None) -> None:
        """Search every hand of the block."""
        hands = self.cards.shape[0]
        bounds = _bottom_bounds(self.rows, self.stay_value)
        given = np.full(hands, -np.inf) if lower_bound is None else lower_bound
        # First a value some setting reaches: the few bottoms of highest bound, each with
        # its few middles of highest bound.
        first = min(FIRST_BOTTOMS, bounds.shape[1])
        ranked = np.argpartition(-bounds, first - 1, axis=1)[:, :first]
        self.search(np.repeat(np.arange(hands), first), ranked.ravel().astype(np.int64),
                    given, best_middles=FIRST_MIDDLES)
        # Then every bottom and middle whose bound reaches it (settings already seen are
        # offered again and change nothing).
        threshold = np.maximum(self.value, given)
        hand, bottom = np.nonzero(bounds >= threshold[:, None])
        keep = self.refined_bounds(hand, bottom) >= threshold[hand]
        self.search(hand[keep], bottom[keep], threshold)
        short = np.flatnonzero(self.value < threshold)
        if len(short):  # a lower bound that was not reached: search those hands whole
            every = np.arange(bounds.shape[1])
            self.search(np.repeat(short, len(every)), np.tile(every, len(short)),
                        np.full(hands, -np.inf))

    def refined_bounds(self, hand: I64, bottom: I64) -> F64:
        """The bottoms' bounds again, the top's part now from the cards the bottom
        leaves (the best top of a class at most the bottom's, among those cards)."""
        rows, tables = self.rows, self.tables
        bound = np.empty(len(hand))
        step = max(1, CHUNK_CANDIDATES // tables.tops_outside.shape[1])
        for start in range(0, len(hand), step):
            h, b = hand[start:start + step], bottom[start:start + step]
            strengths = np.take(self.three, (h * rows.three.shape[1])[:, None]
                                + tables.tops_outside[b])
            legal = strengths <= rows.five[h, b][:, None]
            top = np.take(self.top_royalty, (h * rows.three.shape[1])[:, None]
                          + tables.tops_outside[b])
            stays = legal & (strengths >= self.rules.stay_top)
            cls = rows.five[h, b] >> ROYALTY_SHIFT
            could_stay = (rows.bottom_stays[h, b] | rows.middle_cap_stays[h, cls]
                          | stays.any(axis=1))
            bound[start:start + step] = (rows.bottom_royalty[h, b] + rows.middle_cap[h, cls]
                                         + np.where(legal, top, 0).max(axis=1)
                                         + self.stay_value * could_stay)
        return bound

    def search(self, hand: I64, bottom: I64, threshold: F64,
               best_middles: int | None = None) -> None:
        """Every setting on the (hand, bottom) pairs whose bound reaches the hand's
        ``threshold`` (or only the ``best_middles`` of highest bound of each bottom):
        the pairs with their middles, then each pair's best top."""
        rows, tables = self.rows, self.tables
        subsets = rows.five.shape[1]
        step = max(1, CHUNK_CANDIDATES // tables.middles.shape[1])
        for start in range(0, len(hand), step):
            h, b = hand[start:start + step], bottom[start:start + step]
            at = h * subsets + b
            middle = tables.middles[b]  # (N, middles)
            middle_key = np.take(self.middle_key, (h * subsets)[:, None] + middle)
            # The bound's middle part, taken from the half where the bottom stays or not.
            half = (h * 2 + np.take(self.bottom_stays, at)) * subsets
            bound = (np.take(self.bottom_royalty, at)[:, None]
                     + np.take(self.middle_bound, half[:, None] + middle))
            keep = middle_key <= np.take(self.five, at)[:, None]
            keep &= bound >= threshold[h][:, None]
            if best_middles is not None and best_middles < keep.shape[1]:
                ranked = np.where(keep, bound, -np.inf)
                best = np.argpartition(-ranked, best_middles - 1, axis=1)[:, :best_middles]
                chosen = np.zeros_like(keep)
                np.put_along_axis(chosen, best, True, axis=1)
                keep &= chosen
            pair, slot = np.nonzero(keep)
            self.tops(h[pair], b[pair], middle[pair, slot].astype(np.int64))

    def tops(self, hand: I64, bottom: I64, middle: I64) -> None:
        """The best top of each (hand, bottom, middle), offered as a setting."""
        tables = self.tables
        full = (1 << tables.n) - 1
        five, three = self.rows.five.shape[1], self.rows.three.shape[1]
        step = max(1, CHUNK_CANDIDATES // tables.tops.shape[1])
        for start in range(0, len(hand), step):
            h = hand[start:start + step]
            b, m = bottom[start:start + step], middle[start:start + step]
            left = full ^ tables.mask5[b] ^ tables.mask5[m]
            tops = tables.tops[tables.remainder_rank[left]]  # (N, tops)
            strengths = np.take(self.three, (h * three)[:, None] + tops)
            above = b if self.rules.lowball else m  # the row the top must not beat
            strengths[strengths > np.take(self.five, h * five + above)[:, None]] = -1
            choice = strengths.argmax(axis=1)
            lanes = np.arange(len(h))
            legal = strengths[lanes, choice] >= 0
            top = tops[lanes, choice].astype(np.int64)
            self.examined += np.bincount(h, minlength=len(self.examined))
            self.offer(h[legal], b[legal], m[legal], top[legal])

    def offer(self, hand: I64, bottom: I64, middle: I64, top: I64) -> None:
        """Settings that may beat their hand's champion."""
        rows = self.rows
        royalties = (rows.bottom_royalty[hand, bottom] + rows.middle_royalty[hand, middle]
                     + rows.top_royalty[hand, top])
        stays = (rows.bottom_stays[hand, bottom] | rows.middle_stays[hand, middle]
                 | rows.top_stays[hand, top])
        value = royalties + self.stay_value * stays
        np.maximum.at(self.value, hand, value)
        level = value == self.value[hand]  # only these can still be best
        hand, bottom, middle, top, value = (column[level] for column in
                                            (hand, bottom, middle, top, value))
        points = np.zeros(len(hand), dtype=np.int64)
        if self.opponents is not None and len(hand):
            board = boards_of(self.cards[hand], self.tables, bottom, middle, top)
            points = score_against(board, self.opponents[hand],
                                   self.rules).points.astype(np.int64)
        strengths = np.stack([rows.three[hand, top],
                              middle_order(rows.middle[hand, middle], self.rules),
                              rows.five[hand, bottom]], axis=1).astype(np.int64)
        # The best of each hand here: sorted by hand, then by the tie-break keys.
        order = np.lexsort((-np.arange(len(hand)), strengths[:, 2], strengths[:, 1],
                            strengths[:, 0], points, hand))
        last = order[np.append(hand[order][1:] != hand[order][:-1], True)] if len(hand) \
            else order
        hand = hand[last]
        champion = self.champion_value[hand]
        better = value[last] > champion
        same = value[last] == champion
        for ours, theirs in ((self.points[hand], points[last]),
                             *((self.strengths[hand, column], strengths[last, column])
                               for column in range(3))):
            better |= same & (ours < theirs)
            same &= ours == theirs
        win, chosen = hand[better], last[better]
        self.champion_value[win] = value[chosen]
        self.points[win] = points[chosen]
        self.strengths[win] = strengths[chosen]
        self.setting[win] = np.stack([bottom[chosen], middle[chosen], top[chosen]], axis=1)


def solve_batch(cards: I8, rules: RuleTables, stay_value: float, *,
                opponents: I8 | None = None, lower_bound: F64 | None = None) -> SolvedHands:
    """The best setting of every hand.

    Args:
        cards: ``(hands, 17)`` card codes, each hand's dealt cards first and
            :data:`NO_CARD` after them (13 to 17 real cards per hand, none more often
            than the ruleset's decks hold it: with two decks five of a kind is a row).
        rules: the compiled ruleset (royalties, stays, scoring method for ties).
        stay_value: what a setting that stays in Fantasyland is worth, in points.
        opponents: ``(hands, k, 13)`` the opponents' boards, ``k`` up to
            :data:`MAX_OPPONENTS` (rows as the scorer's: top 0-2, middle 3-7, bottom
            8-12), an absent opponent all
            :data:`NO_CARD`; ties go to the setting that wins more points against them.
        lower_bound: a value each hand's best is known to reach (the board played,
            say); it only speeds the search (a bound too high is found out and the
            hand searched again without it).

    Returns:
        :class:`SolvedHands` aligned with ``cards``.
    """
    cards = np.asarray(cards, dtype=np.int8)
    hands = cards.shape[0]
    counts = (cards != NO_CARD).sum(axis=1)
    boards = np.full((13, hands), NO_CARD, dtype=np.int8)
    discards = np.full((hands, MAX_CARDS - 13), NO_CARD, dtype=np.int8)
    royalties = np.zeros(hands, dtype=np.int16)
    stays = np.zeros(hands, dtype=bool)
    value = np.zeros(hands)
    settings = np.zeros(hands, dtype=np.int64)
    examined = np.zeros(hands, dtype=np.int64)
    for n in np.unique(counts).tolist():
        tables = subset_tables(n)
        same_count = np.flatnonzero(counts == n)
        block_hands = max(1, BLOCK_SUBSETS // len(tables.five))
        for start in range(0, len(same_count), block_hands):
            which = same_count[start:start + block_hands]
            block = np.ascontiguousarray(cards[which, :n])
            search = _BlockSearch(block, rules, stay_value,
                                  None if opponents is None else opponents[which])
            search.run(None if lower_bound is None else lower_bound[which])
            # No setting stands (under a 2-7 middle every middle may be too high): any
            # setting fouls and is worth nothing; the first one is given.
            fouled = ~np.isfinite(search.champion_value)
            search.setting[fouled] = _first_setting(tables)
            search.champion_value[fouled] = 0.0
            bottom, middle, top = search.setting.T
            lanes = np.arange(len(which))
            placed = boards_of(block, tables, bottom, middle, top)
            boards[:, which] = placed.T
            kept = np.zeros(block.shape, dtype=bool)
            positions = np.concatenate([tables.three[top], tables.five[middle],
                                        tables.five[bottom]], axis=1).astype(np.int64)
            np.put_along_axis(kept, positions, True, axis=1)
            thrown = np.where(kept, NO_CARD, block)
            order = np.argsort(kept, axis=1, kind="stable")[:, :n - 13]
            discards[which, :n - 13] = np.take_along_axis(thrown, order, axis=1)
            rows = search.rows
            royalties[which] = np.where(fouled, 0, rows.bottom_royalty[lanes, bottom]
                                        + rows.middle_royalty[lanes, middle]
                                        + rows.top_royalty[lanes, top])
            stays[which] = ~fouled & (rows.bottom_stays[lanes, bottom]
                                      | rows.middle_stays[lanes, middle]
                                      | rows.top_stays[lanes, top])
            value[which] = search.champion_value
            settings[which] = tables.settings
            examined[which] = search.examined
    return SolvedHands(boards, discards, royalties, stays, value, settings, examined)


def _first_setting(tables: SubsetTables) -> list[int]:
    """The (bottom, middle, top) subsets of the first setting in enumeration order."""
    middle = int(tables.middles[0, 0])
    left = (1 << tables.n) - 1 ^ int(tables.mask5[0]) ^ int(tables.mask5[middle])
    return [0, middle, int(tables.tops[tables.remainder_rank[left], 0])]


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _decks_hold(decks: int) -> str:
    return "one deck holds" if decks == 1 else f"{decks} decks hold"


def _card_codes(cards: str | Iterable[str | int]) -> list[int]:
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    return [card if isinstance(card, int) else parse_card(card) for card in cards]


def solve_fantasyland(cards: str | Iterable[str | int],
                      ruleset: str | Path | Ruleset = "progressive",
                      stay_value: float | None = None, *,
                      opponents: Sequence[Sequence[str | int] | str] | None = None
                      ) -> FantasylandSetting:
    """The best setting of one Fantasyland hand.

    Args:
        cards: the 13 to 17 cards dealt, as text (``"Ah Kd ..."``), card strings or codes.
        ruleset: a preset name, a TOML path or a :class:`Ruleset`.
        stay_value: points a setting that stays in Fantasyland is worth; None takes
            the ruleset's ``fl_stay_value``.
        opponents: the other players' boards, each 13 cards top, middle, bottom (text
            or a sequence); ties go to the setting that wins more points against them.

    Returns:
        The best setting; ``points`` is what it scores against ``opponents``, if given.

    Raises:
        FantasylandHandError: not 13 to 17 cards, a card more often than the ruleset's
            decks hold it, a joker, more than
            :data:`MAX_OPPONENTS` opponents, or an opponent board that is not 13 cards
            or holds a card the decks hold no more of.

    >>> best = solve_fantasyland("As Ks Qs Js Ts 9s 9h 9d 2c 2d 2h 7c 5d 4c", "pineapple",
    ...                          stay_value=0)
    >>> best.bottom, best.top, best.royalties
    (('As', 'Ks', 'Qs', 'Js', 'Ts'), ('2h', '2d', '2c'), 37)
    """
    rules_ = get_ruleset(ruleset)
    codes = _card_codes(cards)
    if not MIN_CARDS <= len(codes) <= MAX_CARDS:
        raise FantasylandHandError(
            f"a Fantasyland hand has 13 to 17 cards, not {len(codes)}")
    if any(code >= N_CARDS for code in codes):
        raise FantasylandHandError("jokers are not supported by the Fantasyland solver yet")
    copies = Counter(codes)
    card, most = copies.most_common(1)[0]
    if most > rules_.decks:
        raise FantasylandHandError(
            f"{card_text(card)} appears {_times(most)} in the hand, and "
            f"{_decks_hold(rules_.decks)} it {_times(rules_.decks)}")
    row = np.full((1, MAX_CARDS), NO_CARD, dtype=np.int8)
    row[0, :len(codes)] = codes
    opponent_array = None
    if opponents:
        if len(opponents) > MAX_OPPONENTS:
            raise FantasylandHandError(f"at most {MAX_OPPONENTS} opponents")
        opponent_array = np.full((1, MAX_OPPONENTS, 13), NO_CARD, dtype=np.int8)
        for index, opponent in enumerate(opponents):
            board_codes = _card_codes(opponent)
            if len(board_codes) != 13:
                raise FantasylandHandError(
                    f"opponent {index + 1}: a board has 13 cards, not {len(board_codes)}")
            copies.update(board_codes)
            over = [code for code in board_codes if copies[code] > rules_.decks]
            if over:
                raise FantasylandHandError(
                    f"opponent {index + 1} holds {card_text(over[0])}: with the hand and "
                    f"the boards before it that makes {_times(copies[over[0]])}, and "
                    f"{_decks_hold(rules_.decks)} it {_times(rules_.decks)}")
            opponent_array[0, index] = board_codes
    value = rules_.fl_stay_value if stay_value is None else float(stay_value)
    rules = compile_rules(rules_)
    solved = solve_batch(row, rules, value, opponents=opponent_array)
    board = solved.boards[:, 0]
    points = None
    if opponent_array is not None:
        points = int(score_against(board[None, :], opponent_array, rules).points[0])

    def text(codes_: Iterable[int]) -> tuple[str, ...]:
        return tuple(card_text(code) for code in sorted(codes_, reverse=True))

    return FantasylandSetting(
        top=text(board[0:3].tolist()), middle=text(board[3:8].tolist()),
        bottom=text(board[8:13].tolist()),
        discards=text(code for code in solved.discards[0].tolist() if code != NO_CARD),
        royalties=int(solved.royalties[0]), stays=bool(solved.stays[0]),
        value=float(solved.value[0]), points=points)
