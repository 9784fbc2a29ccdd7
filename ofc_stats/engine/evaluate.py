"""Row strength: every 3-card and 5-card row as one comparable integer.

A strength packs the category and the ranks that decide ties::

    strength = category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

``r1..r5`` are the row's ranks ordered by (count, rank) descending, each stored as
``rank + 1`` (deuce = 1, ace = 13) so that an absent card is 0 and ranks below
every real card. A straight keeps only its top card (the wheel is 5-high). So

- two rows compare with plain ``<`` whatever their length: a top ``K K A`` is
  ``pair | K K A 0 0`` and beats a middle ``pair | K K Q J T``; a top ``K K 5``
  (``K K 5 0 0``) is below a middle ``K K 5 4 3``, as RULES.md section 2 requires;
- ``strength >> 20`` is the category and ``strength >> 16`` is category and the
  leading rank, which is all any royalty depends on.

Two decks (RULES.md section 10) add rows one deck cannot hold: five of a kind, above
a straight flush, and flushes holding a repeated card (still flushes, compared card by
card from the highest). The tables rank them too; a single-deck game never meets them
(a repeated card is a duplicate there, flagged before evaluation).

Evaluation is a table look-up on the ranks in dealt order (unsorted): a 3-card row
reads its ranks as a base-13 number; a 5-card row folds its first three ranks into
the id of their multiset, appends the last two and a flush bit. The tables are
filled for every ordering when first used (a few tens of milliseconds).

>>> from ofc_stats.engine.cards import parse_cards
>>> describe(strength_of(parse_cards("Ah Kh Qh Jh Th")))
'straight flush, A high'
>>> describe(strength_of(parse_cards("Kd Kc Ah")))
'pair of K, kickers A'
>>> strength_of(parse_cards("Kd Kc Ah")) > strength_of(parse_cards("Ks Kh Qc Jd Ts"))
True
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import RANKS

CATEGORY_SHIFT = 20
# strength >> ROYALTY_SHIFT = category * 16 + leading rank: the royalty table's index.
ROYALTY_SHIFT = 16
ROYALTY_INDEX_SIZE = 10 * 16

IntArray = npt.NDArray[np.int32]


class Category(IntEnum):
    """Hand categories, weakest first; the value is the strength's top field."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8
    FIVE_OF_A_KIND = 9  # two decks only

    @property
    def label(self) -> str:
        """The name used in notation, Parquet and SQL, e.g. ``"full house"``."""
        return self.name.lower().replace("_", " ")

    @classmethod
    def from_label(cls, label: str) -> Category:
        """Inverse of :attr:`label`; also accepts ``full_house`` and upper case."""
        return cls[label.strip().upper().replace(" ", "_").replace("-", "_")]


CATEGORY_LABELS: tuple[str, ...] = tuple(category.label for category in Category)


def pack(category: int, ranks: list[int]) -> int:
    """Strength of a category with its deciding ranks (0..12, best first)."""
    fields = [rank + 1 for rank in ranks] + [0] * (5 - len(ranks))
    strength = category
    for field in fields:
        strength = (strength << 4) | field
    return strength


def _strengths_of_rank_tuples(ranks: npt.NDArray[np.int64], flush: bool) -> IntArray:
    """Strengths of every row in ``ranks`` (shape ``(n, k)``, k = 3 or 5), -1 if impossible.

    Built once for the look-up tables, vectorised over all 13**k rank tuples.
    """
    n, k = ranks.shape
    counts = (ranks[:, :, None] == np.arange(13)).sum(axis=1)
    count_of_card = np.take_along_axis(counts, ranks, axis=1)
    # Order the cards by (count, rank) descending: pairs before kickers.
    order = np.argsort(-(count_of_card * 16 + ranks), axis=1, kind="stable")
    ordered = np.take_along_axis(ranks, order, axis=1)
    top_count = counts.max(axis=1)
    distinct = (counts > 0).sum(axis=1)

    category = np.full(n, Category.HIGH_CARD, dtype=np.int64)
    category[top_count == 2] = Category.PAIR
    category[(top_count == 2) & (distinct == k - 2)] = Category.TWO_PAIR
    category[top_count == 3] = Category.TRIPS
    straight_high = np.full(n, -1, dtype=np.int64)
    if k == 5:
        category[(top_count == 3) & (distinct == 2)] = Category.FULL_HOUSE
        category[top_count == 4] = Category.QUADS
        category[top_count == 5] = Category.FIVE_OF_A_KIND
        spread = ordered[:, 0] - ordered[:, 4]
        straight = (distinct == 5) & (spread == 4)
        wheel = (distinct == 5) & (ordered[:, 0] == 12) & (ordered[:, 1] == 3)
        straight_high[straight] = ordered[straight, 0]
        straight_high[wheel] = 3
        is_straight = straight_high >= 0
        category[is_straight] = Category.STRAIGHT
        if flush:
            # A flush with a repeated card (two decks) is still a flush.
            category[:] = np.where(is_straight, Category.STRAIGHT_FLUSH,
                                   np.maximum(category, Category.FLUSH))

    fields = ordered + 1
    if flush:
        # A flush compares card by card from the highest, a repeated card as often as
        # it is held (ordering by count first would rank A-9-9-8-7 under 9-9-A-8-7).
        by_rank = -np.sort(-ranks, axis=1) + 1
        fields = np.where((category == Category.FLUSH)[:, None], by_rank, fields)
    is_straight_like = straight_high >= 0
    fields[is_straight_like] = 0
    fields[is_straight_like, 0] = straight_high[is_straight_like] + 1
    strength = category
    for column in range(5):
        field = fields[:, column] if column < k else 0
        strength = (strength << 4) | field
    # Suited trips need three copies of one card: more than two decks hold.
    impossible = (top_count >= 3) if flush else (top_count > 5)
    return np.where(impossible, -1, strength).astype(np.int32)


def _strengths_in_any_order(ranks: npt.NDArray[np.int64], flush: bool) -> IntArray:
    """Strengths of rank tuples given in any order: each distinct multiset is
    evaluated once and every ordering takes its result."""
    size = ranks.shape[1]
    sorted_keys = np.sort(ranks, axis=1) @ (13 ** np.arange(size - 1, -1, -1))
    unique_keys, inverse = np.unique(sorted_keys, return_inverse=True)
    unique_ranks = np.stack(np.unravel_index(unique_keys, (13,) * size), axis=1)
    return _strengths_of_rank_tuples(unique_ranks, flush)[inverse]


@cache
def _rank_triples() -> tuple[IntArray, npt.NDArray[np.int64]]:
    """Every ordered triple of ranks (as ``base13``) mapped to the id of its multiset,
    and the 455 multisets themselves (sorted ranks)."""
    ordered = np.indices((13,) * 3).reshape(3, -1).T
    multisets, ids = np.unique(np.sort(ordered, axis=1), axis=0, return_inverse=True)
    triple_id = ids.reshape(-1).astype(np.int32)
    triple_id.flags.writeable = False
    return triple_id, multisets


@cache
def five_card_table() -> IntArray:
    """Strength of a 5-card row indexed by
    ``((triple_id(r0, r1, r2) * 13 + r3) * 13 + r4) * 2 + is_flush``.

    Folding the first three ranks into their multiset id (455 values) keeps the table
    at 154k entries (600 KiB), small enough to stay in a core's L2 cache.
    """
    _, triples = _rank_triples()
    tails = np.indices((13, 13)).reshape(2, -1).T
    ranks = np.concatenate([np.repeat(triples, len(tails), axis=0),
                            np.tile(tails, (len(triples), 1))], axis=1)
    table = np.empty(len(ranks) * 2, dtype=np.int32)
    table[0::2] = _strengths_in_any_order(ranks, flush=False)
    table[1::2] = _strengths_in_any_order(ranks, flush=True)
    table.flags.writeable = False
    return table


@cache
def three_card_table() -> IntArray:
    """Strength indexed by ``base13(ranks)`` for 3-card rows (no straights or flushes)."""
    table = _strengths_in_any_order(np.indices((13,) * 3).reshape(3, -1).T, flush=False)
    table.flags.writeable = False
    return table


def evaluate_rows(cards: npt.NDArray[np.integer]) -> IntArray:
    """Strengths of many rows at once.

    Args:
        cards: card codes of shape ``(3, n)`` or ``(5, n)``, one row per column
            (card-major, so each card position is a contiguous array). Codes must be
            real cards (0..51); callers mask empty slots and jokers first.

    Returns:
        ``int32`` strengths of shape ``(n,)``.
    """
    size = cards.shape[0]
    key = (cards[0] >> 2).astype(np.int32)
    for position in (1, 2):
        key *= 13
        key += cards[position] >> 2
    if size == 3:
        return three_card_table()[key]  # type: ignore[no-any-return]
    key = _rank_triples()[0][key]
    for position in (3, 4):
        key *= 13
        key += cards[position] >> 2
    # Same suit <=> the low two bits of every card equal the first card's.
    suit_difference = cards[1] ^ cards[0]
    for position in range(2, size):
        suit_difference |= cards[position] ^ cards[0]
    key *= 2
    key += (suit_difference & 3) == 0
    return five_card_table()[key]  # type: ignore[no-any-return]


def strength_of(cards: list[int]) -> int:
    """Strength of one 3- or 5-card row given as card codes."""
    column = np.asarray(cards, dtype=np.int8).reshape(-1, 1)
    return int(evaluate_rows(column)[0])


# 2-7 lowball (RULES.md section 10) ranks a five-card hand as the high rules do, but
# the ace is only high: A-2-3-4-5 is ace-high, no straight (and suited, a flush).
_WHEEL = pack(Category.STRAIGHT, [3])
_WHEEL_FLUSH = pack(Category.STRAIGHT_FLUSH, [3])
_ACE_FIVE = [12, 3, 2, 1, 0]
_ACE_HIGH = pack(Category.HIGH_CARD, _ACE_FIVE)
_ACE_FLUSH = pack(Category.FLUSH, _ACE_FIVE)
LOWBALL_FLIP = (1 << 24) - 1  # above every strength: flip - strength orders lows


def deuce_to_seven(strengths: IntArray) -> IntArray:
    """Five-card strengths as deuce-to-seven ranks them (the lower, the better low).

    >>> from ofc_stats.engine.cards import parse_cards
    >>> wheel = strength_of(parse_cards("Ac 2d 3h 4s 5c"))
    >>> describe(int(deuce_to_seven(np.array([wheel], dtype=np.int32))[0]))
    'high card, A5432'
    """
    return np.where(strengths == _WHEEL, np.int32(_ACE_HIGH),
                    np.where(strengths == _WHEEL_FLUSH, np.int32(_ACE_FLUSH), strengths)
                    ).astype(np.int32)


def category_of(strength: int) -> Category:
    """The category packed in a strength."""
    return Category(strength >> CATEGORY_SHIFT)


def describe(strength: int) -> str:
    """A short English description of a strength, e.g. ``'full house, K over 7'``."""
    category = category_of(strength)
    fields = [(strength >> shift) & 15 for shift in (16, 12, 8, 4, 0)]
    ranks = [RANKS[field - 1] for field in fields if field]
    match category:
        case Category.HIGH_CARD | Category.FLUSH:
            return f"{category.label}, {''.join(ranks)}"
        case Category.PAIR:
            kickers = " ".join(ranks[2:])
            return f"pair of {ranks[0]}" + (f", kickers {kickers}" if kickers else "")
        case Category.TWO_PAIR:
            return f"two pair, {ranks[0]} and {ranks[2]}, {ranks[4]} kicker"
        case Category.TRIPS:
            return f"trips of {ranks[0]}"
        case Category.STRAIGHT | Category.STRAIGHT_FLUSH:
            return f"{category.label}, {ranks[0]} high"
        case Category.FULL_HOUSE:
            return f"full house, {ranks[0]} over {ranks[3]}"
        case Category.QUADS:
            return f"quads of {ranks[0]}"
        case Category.FIVE_OF_A_KIND:
            return f"five of a kind, {ranks[0]}"
    raise AssertionError(category)  # pragma: no cover
