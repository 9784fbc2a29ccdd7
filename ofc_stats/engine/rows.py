"""The three rows of many boards under a ruleset: strengths, fouls, royalties.

A :class:`Ruleset` is compiled once into :class:`RuleTables` (look-up arrays and
thresholds); the functions here apply it to whole columns of boards. The scorer
(:mod:`ofc_stats.engine.scoring`), the joker resolver (:mod:`ofc_stats.engine.jokers`) and the
simulator's players all read rows through these, so a rule is written once.

Rows are strengths as :mod:`ofc_stats.engine.evaluate` packs them. A deuce-to-seven middle
(RULES.md section 10) keeps its high-rule strength with the ace only high (so its
category still reads ``high card``, ``pair``, ...), where a *lower* strength is the
better low: :func:`middle_order` turns it into a value that compares with ``>`` like
every other row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import RANKS
from ofc_stats.engine.evaluate import (
    LOWBALL_FLIP,
    ROYALTY_INDEX_SIZE,
    ROYALTY_SHIFT,
    Category,
    deuce_to_seven,
    evaluate_rows,
    pack,
)
from ofc_stats.engine.lowball import lowball_bound, lowball_spec
from ofc_stats.engine.rules import MiddleRow, Ruleset, StayCards, top_hand_strength

TOP = slice(0, 3)
MIDDLE = slice(3, 8)
BOTTOM = slice(8, 13)

# Strength that no row reaches: a stay rule switched off compares against it.
UNREACHABLE = np.iinfo(np.int32).max

I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class RuleTables:
    """A :class:`Ruleset` compiled into the arrays and thresholds the scorer reads."""

    royalty_top: I16
    royalty_middle: I16  # by strength >> ROYALTY_SHIFT; for a 2-7 middle, its lows
    royalty_bottom: I16
    # 2-7 middle royalties paid for one exact low (e.g. 7-5-4-3-2), over the table's.
    lowball_exact: I32
    lowball_exact_points: I16
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
    jokers: int  # jokers a hand may hold (the deck's)
    decks: int  # copies of each card a hand may hold
    lowball: bool  # the middle is ranked deuce-to-seven
    lowball_qualifier: int  # a 2-7 middle stands only below this strength
    entry_lowball: I32  # 2-7 middles below each bound enter (tightest first)
    entry_lowball_cards: I8
    stay_lowball: int  # a 2-7 middle below this stays (0: none)
    max_players: int  # a hand with more is flagged (never fewer than 4: classic's)
    table_stakes: bool


def _five_card_royalties(points: Mapping[str, int]) -> I16:
    table = np.zeros(ROYALTY_INDEX_SIZE, dtype=np.int16)
    for label, value in points.items():
        if label not in ("royal flush", "five of a kind"):
            start = Category.from_label(label) * 16
            table[start:start + 16] = value
    # Five of a kind (two decks) pays the row's straight flush unless listed.
    five = points.get("five of a kind", points.get("straight flush", 0))
    table[Category.FIVE_OF_A_KIND * 16:Category.FIVE_OF_A_KIND * 16 + 16] = five
    # The royal flush is the ace-high straight flush: its own slot, set last.
    if "royal flush" in points:
        table[Category.STRAIGHT_FLUSH * 16 + len(RANKS)] = points["royal flush"]
    return table


def _lowball_royalties(points: Mapping[str, int]) -> tuple[I16, I32, I16]:
    """A 2-7 middle's royalties: by its high card (a no-pair low only), and the
    exact lows that pay their own amount."""
    table = np.zeros(ROYALTY_INDEX_SIZE, dtype=np.int16)
    exact_strengths, exact_points = [], []
    for key, value in points.items():
        ranks = lowball_spec(key)
        if len(ranks) == 1:
            table[Category.HIGH_CARD * 16 + ranks[0] + 1] = value
        else:
            exact_strengths.append(pack(Category.HIGH_CARD, list(ranks)))
            exact_points.append(value)
    return (table, np.array(exact_strengths, dtype=np.int32),
            np.array(exact_points, dtype=np.int16))


@cache
def compile_rules(ruleset: Ruleset) -> RuleTables:
    """Turn a ruleset into look-up arrays (cached per ruleset)."""
    royalties = ruleset.royalties
    top = np.zeros(ROYALTY_INDEX_SIZE, dtype=np.int16)
    for rank, value in royalties.top_pairs.items():
        top[Category.PAIR * 16 + RANKS.index(rank) + 1] = value
    for rank, value in royalties.top_trips.items():
        top[Category.TRIPS * 16 + RANKS.index(rank) + 1] = value

    lowball = ruleset.middle is MiddleRow.DEUCE_TO_SEVEN
    if lowball:
        middle, exact, exact_points = _lowball_royalties(ruleset.lowball.royalties)
    else:
        middle = _five_card_royalties(royalties.middle)
        exact, exact_points = np.zeros(0, np.int32), np.zeros(0, np.int16)
    qualifier = ruleset.lowball.qualifier
    fantasyland = ruleset.fantasyland
    stay_top, stay_middle, stay_bottom = fantasyland.stay_strengths
    moon_below = -1
    if ruleset.shoot_the_moon:
        moon_below = (RANKS.index(ruleset.moon_high_card.upper()) + 2) << ROYALTY_SHIFT
    return RuleTables(
        royalty_top=top,
        royalty_middle=middle,
        royalty_bottom=_five_card_royalties(royalties.bottom),
        lowball_exact=exact,
        lowball_exact_points=exact_points,
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
        jokers=ruleset.jokers * ruleset.decks,
        decks=ruleset.decks,
        lowball=lowball,
        lowball_qualifier=(UNREACHABLE if not lowball or qualifier is None
                           else lowball_bound(qualifier)),
        entry_lowball=np.array([lowball_bound(low) for low, _ in fantasyland.entry_lowball],
                               dtype=np.int32),
        entry_lowball_cards=np.array([cards for _, cards in fantasyland.entry_lowball],
                                     dtype=np.int8),
        stay_lowball=(0 if fantasyland.stay_lowball is None
                      else lowball_bound(fantasyland.stay_lowball)),
        max_players=max(4, ruleset.max_players),
        table_stakes=ruleset.table_stakes,
    )


def row_strengths(cards: I8, rules: RuleTables) -> tuple[I32, I32, I32]:
    """Top, middle and bottom strengths of ``(13, n)`` boards of real cards."""
    middle = evaluate_rows(cards[MIDDLE])
    if rules.lowball:
        middle = deuce_to_seven(middle)
    return evaluate_rows(cards[TOP]), middle, evaluate_rows(cards[BOTTOM])


def middle_order(middle: I32, rules: RuleTables) -> I32:
    """Middle strengths as values where more is better (a 2-7 middle: the lower low)."""
    if rules.lowball:
        return (LOWBALL_FLIP - middle).astype(np.int32)
    return middle


def rows_fouled(top: I32, middle: I32, bottom: I32, rules: RuleTables) -> Bools:
    """Whether rows break the order the ruleset asks: bottom >= middle >= top, or for a
    2-7 middle, bottom >= top with a middle low enough (``docs/rulesets.md``)."""
    if rules.lowball:
        return (top > bottom) | (middle >= rules.lowball_qualifier)
    return (top > middle) | (middle > bottom)


def row_royalties(top: I32, middle: I32, bottom: I32, rules: RuleTables
                  ) -> tuple[I16, I16, I16]:
    """Each row's royalties as if the board stood (the scorer zeroes a fouled board's)."""
    return (rules.royalty_top[top >> ROYALTY_SHIFT], middle_royalties(middle, rules),
            rules.royalty_bottom[bottom >> ROYALTY_SHIFT])


def middle_royalties(middle: I32, rules: RuleTables) -> I16:
    """The royalties of middle rows (any shape) as if they stood: a 2-7 middle's by
    its lows, and the exact lows the ruleset names."""
    middle_points: I16 = rules.royalty_middle[middle >> ROYALTY_SHIFT]
    for strength, points in zip(rules.lowball_exact.tolist(),
                                rules.lowball_exact_points.tolist(), strict=True):
        middle_points = np.where(middle == strength, np.int16(points), middle_points)
    return middle_points.astype(np.int16)


@dataclass(frozen=True, eq=False)
class FantasylandQuality:
    """What boards earn for the next hand: entry from outside, stay from inside."""

    entry: Bools
    entry_cards: I8  # -1: no entry
    stay: Bools


def fantasyland_quality(top: I32, middle: I32, bottom: I32, standing: Bools,
                        rules: RuleTables) -> FantasylandQuality:
    """Entry (and its card count) and stay of boards, whatever the history says."""
    n = len(top)
    entry = standing & (top >= rules.entry_strengths[0])
    entry_cards = np.full(n, -1, dtype=np.int8)
    qualifying = np.flatnonzero(entry)
    threshold = np.searchsorted(rules.entry_strengths, top[qualifying], side="right") - 1
    entry_cards[qualifying] = rules.entry_cards[threshold]
    if not rules.lowball:
        stay = standing & ((top >= rules.stay_top) | (middle >= rules.stay_middle)
                           | (bottom >= rules.stay_bottom))
        return FantasylandQuality(entry=entry, entry_cards=entry_cards, stay=stay)
    stay = standing & ((top >= rules.stay_top) | (middle < rules.stay_lowball)
                       | (bottom >= rules.stay_bottom))
    for bound, cards in zip(rules.entry_lowball.tolist(), rules.entry_lowball_cards.tolist(),
                            strict=True):
        low = standing & (middle < bound)
        entry |= low
        entry_cards = np.where(low, np.maximum(entry_cards, np.int8(cards)), entry_cards)
    return FantasylandQuality(entry=entry, entry_cards=entry_cards.astype(np.int8), stay=stay)


__all__ = [
    "BOTTOM",
    "MIDDLE",
    "TOP",
    "UNREACHABLE",
    "FantasylandQuality",
    "RuleTables",
    "compile_rules",
    "fantasyland_quality",
    "middle_order",
    "middle_royalties",
    "row_royalties",
    "row_strengths",
    "rows_fouled",
]
