"""Row strength: exhaustive checks against the plain reference ranking."""

import itertools

import numpy as np
import pytest

from ofc_stats.engine.cards import parse_cards
from ofc_stats.engine.evaluate import (
    CATEGORY_SHIFT,
    Category,
    describe,
    evaluate_rows,
    strength_of,
)
from tests.reference import hand_rank

DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]

# Hands and distinct strengths per category in a 52-card deck (standard counts).
FIVE_CARD_COUNTS = {
    Category.HIGH_CARD: (1_302_540, 1277),
    Category.PAIR: (1_098_240, 2860),
    Category.TWO_PAIR: (123_552, 858),
    Category.TRIPS: (54_912, 858),
    Category.STRAIGHT: (10_200, 10),
    Category.FLUSH: (5_108, 1277),
    Category.FULL_HOUSE: (3_744, 156),
    Category.QUADS: (624, 156),
    Category.STRAIGHT_FLUSH: (40, 10),
}


def dense_rank(values: np.ndarray) -> np.ndarray:
    return np.unique(values, return_inverse=True)[1]


@pytest.fixture(scope="module")
def all_five_card_hands() -> np.ndarray:
    combos = itertools.combinations(range(52), 5)
    flat = np.fromiter(itertools.chain.from_iterable(combos), dtype=np.int8,
                       count=2_598_960 * 5)
    return flat.reshape(-1, 5)


@pytest.mark.slow
def test_all_five_card_hands_rank_into_7462_strengths_in_reference_order(
    all_five_card_hands: np.ndarray,
) -> None:
    hands = all_five_card_hands
    strengths = evaluate_rows(np.ascontiguousarray(hands.T))
    assert len(strengths) == 2_598_960
    assert len(np.unique(strengths)) == 7462

    categories = strengths >> CATEGORY_SHIFT
    for category, (hands_expected, classes_expected) in FIVE_CARD_COUNTS.items():
        in_category = strengths[categories == category]
        assert (len(in_category), len(np.unique(in_category))) == (
            hands_expected, classes_expected), category.label

    # The reference ranks a hand from its sorted ranks and whether it is a flush:
    # rank every such key once with the plain evaluator, then compare the order
    # it induces on all 2,598,960 hands with the order of the strengths.
    ranks = np.sort(hands >> 2, axis=1).astype(np.int64)
    suits = hands & 3
    flush = (suits == suits[:, :1]).all(axis=1)
    keys = (ranks @ (13 ** np.arange(5))) * 2 + flush
    unique_keys, first_hand, key_of_hand = np.unique(keys, return_index=True,
                                                     return_inverse=True)
    assert len(unique_keys) == 7462
    reference = [hand_rank([DECK[card] for card in hands[index]]) for index in first_hand]
    order = sorted(range(len(reference)), key=reference.__getitem__)
    reference_rank = np.empty(len(reference), dtype=np.int64)
    reference_rank[order] = np.arange(len(reference))
    assert len(set(reference)) == 7462
    assert np.array_equal(dense_rank(strengths), reference_rank[key_of_hand])


def test_all_three_card_tops_rank_into_455_strengths_in_reference_order() -> None:
    tops = np.array(list(itertools.combinations(range(52), 3)), dtype=np.int8)
    strengths = evaluate_rows(np.ascontiguousarray(tops.T))
    assert len(strengths) == 22_100
    assert len(np.unique(strengths)) == 455
    reference = [hand_rank([DECK[card] for card in top]) for top in tops]
    reference_order = dense_rank(np.array([hash_rank(r, reference) for r in reference]))
    assert np.array_equal(dense_rank(strengths), reference_order)
    categories = {Category(c): int((strengths >> CATEGORY_SHIFT == c).sum())
                  for c in np.unique(strengths >> CATEGORY_SHIFT)}
    assert categories == {Category.HIGH_CARD: 18_304, Category.PAIR: 3_744,
                          Category.TRIPS: 52}


def hash_rank(rank: tuple[int, ...], population: list[tuple[int, ...]]) -> int:
    """Position of a reference rank in the sorted distinct population (memoised)."""
    table = _positions.get(id(population))
    if table is None:
        table = {value: position for position, value in enumerate(sorted(set(population)))}
        _positions[id(population)] = table
    return table[rank]


_positions: dict[int, dict[tuple[int, ...], int]] = {}


def test_every_top_compares_with_every_middle_as_the_reference_does() -> None:
    """455 top classes x 7462 five-card classes: the sign of every comparison agrees."""
    tops = np.array(list(itertools.combinations(range(52), 3)), dtype=np.int8)
    top_strengths, first_top = np.unique(evaluate_rows(np.ascontiguousarray(tops.T)),
                                         return_index=True)
    rng = np.random.default_rng(7)
    fives = np.array([rng.choice(52, 5, replace=False) for _ in range(60_000)], dtype=np.int8)
    five_strengths, first_five = np.unique(evaluate_rows(np.ascontiguousarray(fives.T)),
                                           return_index=True)
    top_refs = [hand_rank([DECK[c] for c in tops[i]]) for i in first_top]
    five_refs = [hand_rank([DECK[c] for c in fives[i]]) for i in first_five]
    union_strengths = np.concatenate([top_strengths, five_strengths])
    union_refs = top_refs + five_refs
    ref_positions = np.array([hash_rank(r, union_refs) for r in union_refs])
    assert np.array_equal(dense_rank(union_strengths), dense_rank(ref_positions))


@pytest.mark.parametrize(
    ("stronger", "weaker"),
    [
        ("Kd Kc Ah", "Ks Kh Qc Jd Ts"),  # RULES §2: top K-K-A beats middle K-K-Q-J-T
        ("Ks Kh 5c 4d 3s", "Kd Kc 5h"),  # ...but top K-K-5 does not beat K-K-5-4-3
        ("2c 2d 2h", "As Ad Kc Qd Jh"),  # trips on top beat a pair of aces
        ("3c 3d 3h 2s 4d", "2c 2d 2h"),  # a 5-card trips beats the same-or-lower top trips
        ("6c 5d 4h 3s 2c", "Ac 2d 3h 4s 5c"),  # the wheel is the lowest straight
        ("Ac 2d 3h 4s 5c", "Ah Ad Ac Kd Qd"),  # ...but beats trips
        ("As Ks Qs Js Ts", "9h 9d 9c 9s Ad"),  # royal flush beats quads
        ("Ah Kd Qc", "Kh Qd Jc Tc 8c"),  # top A-K-Q beats a king-high middle
        ("Ah Kd Qc Jh 3d", "Ac Kh Qh"),  # top A-K-Q loses to A-K-Q-J-3
    ],
)
def test_literal_comparisons(stronger: str, weaker: str) -> None:
    assert strength_of(parse_cards(stronger)) > strength_of(parse_cards(weaker))


@pytest.mark.parametrize(
    ("cards", "text"),
    [
        ("Ah Kh Qh Jh Th", "straight flush, A high"),
        ("5d 4d 3d 2d Ad", "straight flush, 5 high"),
        ("9s 9h 9c 4d 4s", "full house, 9 over 4"),
        ("As Ad 3c 3d 7h", "two pair, A and 3, 7 kicker"),
        ("Kd Kc 5h", "pair of K, kickers 5"),
        ("7c 5d 4h 3s 2c", "high card, 75432"),
        ("Qc Qd Qh", "trips of Q"),
    ],
)
def test_describe(cards: str, text: str) -> None:
    assert describe(strength_of(parse_cards(cards))) == text


def test_category_is_recoverable_from_strength() -> None:
    assert strength_of(parse_cards("9s 9h 9c 4d 4s")) >> CATEGORY_SHIFT == Category.FULL_HOUSE
    assert Category.from_label("full house") is Category.FULL_HOUSE
