"""The placement model on its own: literal cases and properties of any deal."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats.engine.cards import NO_CARD, parse_cards
from ofc_stats.engine.fantasyland_solver import MAX_CARDS, score_against, solve_batch
from ofc_stats.engine.rules import get_ruleset
from ofc_stats.engine.scoring import compile_rules, score_batch
from ofc_stats.simulate.placement import (
    BEHAVIOUR,
    BOTTOM,
    DISCARD,
    MIDDLE,
    TOP,
    _counts,
    _opening_rows,
    _same_before,
    place,
    place_fantasyland,
    solvable,
)


@pytest.mark.parametrize(("values", "upto", "expected"), [
    ([0, 0, 1, 2, 2, 2], None, [2, 2, 1, 3, 3, 3]),
    ([0, 0, 1, 2, 2, 2], 4, [2, 2, 1, 1, 1, 1]),
    ([3, 1, 3, 3, 1, 0], None, [3, 2, 3, 3, 2, 1]),
])
def test_counts_of_equal_values(values: list[int], upto: int | None,
                                expected: list[int]) -> None:
    assert _counts(np.array([values]), 13, upto).tolist() == [expected]


def test_same_rank_before_counts_earlier_cards_only() -> None:
    assert _same_before(np.array([[5, 3, 5, 5, 3, 7]], dtype=np.int32)).tolist() == [
        [0, 0, 1, 2, 1, 0]]


@pytest.mark.parametrize(("opening", "expected"), [
    # A pair and rags: the pair down, high cards next, the lowest card on top.
    ("9h 9d 2c 5s Jd", [BOTTOM, BOTTOM, TOP, MIDDLE, MIDDLE]),
    # Three of a suit go down together.
    ("2h 7h Th 4c 9d", [BOTTOM, BOTTOM, BOTTOM, TOP, MIDDLE]),
])
def test_openings_without_a_chase(opening: str, expected: list[int]) -> None:
    rng = np.random.default_rng(0)
    cards = np.array([parse_cards(opening)], dtype=np.int8)
    # Rows holding no queen or better never chase Fantasyland.
    for _ in range(5):
        assert _opening_rows(cards, rng, BEHAVIOUR).tolist() == [expected]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([13, 14, 15, 16, 17]),
       skill=st.floats(0, 1), fantasyland=st.booleans())
def test_any_deal_is_placed_legally(seed: int, size: int, skill: float,
                                    fantasyland: bool) -> None:
    rng = np.random.default_rng(seed)
    boards = 40
    dealt = rng.permuted(np.broadcast_to(np.arange(52, dtype=np.int8), (boards, 52)),
                         axis=1)[:, :size].copy()
    pineapple = size == 17 and not fantasyland
    placed = place(dealt, np.full(boards, skill, dtype=np.float32),
                   compile_rules(get_ruleset("progressive")), pineapple_streets=pineapple,
                   in_fantasyland=fantasyland or size in (14, 15, 16), rng=rng)
    rows = placed.rows
    for row, count in ((TOP, 3), (MIDDLE, 5), (BOTTOM, 5), (DISCARD, size - 13)):
        assert ((rows == row).sum(axis=1) == count).all()
    if pineapple:
        # One discard in each street of three after the first five cards.
        streets = (rows[:, 5:] == DISCARD).reshape(boards, 4, 3).sum(axis=2)
        assert (streets == 1).all()
        assert (rows[:, :5] != DISCARD).all()
    for board in range(boards):
        for row, slots in ((TOP, slice(0, 3)), (MIDDLE, slice(3, 8)), (BOTTOM, slice(8, 13))):
            assert sorted(placed.boards[slots, board]) == sorted(dealt[board][rows[board] == row])
    scores, _ = score_batch(placed.boards, np.arange(boards + 1), compile_rules(
        get_ruleset("progressive")))
    assert (scores.problems & 0b1111 == 0).all()


def test_strong_players_foul_less_than_weak_ones() -> None:
    rng = np.random.default_rng(5)
    boards = 6000
    dealt = rng.permuted(np.broadcast_to(np.arange(52, dtype=np.int8), (boards, 52)),
                         axis=1)[:, :17].copy()
    rules = compile_rules(get_ruleset("pineapple"))
    fouls = []
    for skill in (0.0, 1.0):
        placed = place(dealt, np.full(boards, skill, dtype=np.float32), rules,
                       pineapple_streets=True, in_fantasyland=False, rng=rng)
        scores, _ = score_batch(placed.boards, np.arange(boards + 1), rules)
        fouls.append(scores.fouled.mean())
    weak, strong = fouls
    assert 0.25 < weak < 0.42
    assert 0.05 < strong < 0.16


def test_a_weaker_player_leaves_more_in_fantasyland() -> None:
    """The same Fantasyland deals set by players of skill 0, 0.5 and 1, each board held
    to the exact best setting of its cards: the value lost per hand falls with skill, by
    far more than its sampling error, and the best player sets most boards optimally."""
    rng = np.random.default_rng(8)
    boards = 400
    rules = compile_rules(get_ruleset("progressive"))
    stay_value = BEHAVIOUR.stay_value
    dealt = rng.permuted(np.broadcast_to(np.arange(52, dtype=np.int8), (boards, 52)),
                         axis=1)[:, :14].copy()
    cards = np.full((boards, MAX_CARDS), NO_CARD, dtype=np.int8)
    cards[:, :14] = dealt
    best = solve_batch(cards, rules, stay_value).value
    lost, optimal = [], []
    for skill in (0.0, 0.5, 1.0):
        placed = place_fantasyland(dealt, np.full(boards, skill, dtype=np.float32), rules,
                                   rng=rng)
        played = score_against(np.ascontiguousarray(placed.boards.T), None, rules)
        value = np.where(played.fouled, 0.0, played.royalties + stay_value * played.stays)
        assert (value <= best).all()  # no board beats the best
        lost.append(best - value)
        optimal.append((value == best).mean())
    weak, middling, strong = lost
    error = np.sqrt(weak.var() / boards + strong.var() / boards)
    assert weak.mean() - strong.mean() > 5 * error
    assert weak.mean() > middling.mean() > strong.mean()
    assert optimal[2] > 0.9 > 0.4 > optimal[0]


def test_the_solver_sets_no_joker_repeat_or_lowball_fantasyland_hand() -> None:
    """Hands holding a joker or a card twice, and every hand of a deuce-to-seven game,
    are set with the plans: each still a legal board of the cards dealt."""
    plain, joker, twice = (parse_cards(text) for text in (
        "As Ks Qs Js Ts 9s 9h 9d 2c 2d 2h 7c 5d 4c",
        "Xj Ks Qs Js Ts 9s 9h 9d 2c 2d 2h 7c 5d 4c",
        "As As Qs Js Ts 9s 9h 9d 2c 2d 2h 7c 5d 4c"))
    dealt = np.array([plain, joker, twice], dtype=np.int8)
    pineapple = compile_rules(get_ruleset("pineapple"))
    assert solvable(dealt, pineapple).tolist() == [True, False, False]
    assert not solvable(dealt[:1], compile_rules(get_ruleset("deuce-to-seven"))).any()
    for name, hands in (("joker-pineapple", dealt[:2]), ("double-deck-pineapple", dealt[::2]),
                        ("deuce-to-seven", dealt[:1])):
        rules = compile_rules(get_ruleset(name))
        skill = np.ones(len(hands), dtype=np.float32)  # the best player: finds it if it can
        placed = place_fantasyland(hands, skill, rules, rng=np.random.default_rng(3))
        for board, cards, rows in zip(placed.boards.T, hands, placed.rows, strict=True):
            assert (rows != DISCARD).sum() == 13
            assert sorted(board.tolist()) == sorted(cards[rows != DISCARD].tolist())
