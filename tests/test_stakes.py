"""Table stakes (RULES.md section 11): capped money in exact cents, against the plain
reference and in literal cases."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ofc_stats import score_boards
from ofc_stats.engine.rules import get_ruleset
from ofc_stats.engine.stakes import MICROS_PER_UNIT, apportion, hand_money
from tests.reference import capped_money, money_in_cents


def capped(points: list[int], stacks: list[str | None], point_value: str = "1"
           ) -> tuple[list[Decimal], list[bool]]:
    money = hand_money(np.array(points), np.array([0, len(points)]),
                       np.full(len(points), int(Decimal(point_value) * MICROS_PER_UNIT)),
                       np.array([-1 if s is None else int(Decimal(s) * MICROS_PER_UNIT)
                                 for s in stacks]), table_stakes=True)
    return [Decimal(int(c)) / 100 for c in money.capped], money.cap_applied.tolist()


def test_heads_up_the_loser_pays_exactly_his_stack() -> None:
    # 30 points at $1 a point; the loser sat with $10.
    amounts, flags = capped([30, -30], ["250", "10"])
    assert amounts == [Decimal(10), Decimal(-10)]
    assert flags == [True, True]


def test_heads_up_the_winner_receives_at_most_his_stack() -> None:
    amounts, _ = capped([30, -30], ["12.50", "100"])
    assert amounts == [Decimal("12.5"), Decimal("-12.5")]


def test_three_way_shares_are_proportional() -> None:
    # C owes 40 with a $20 stack: A (won 30) gets 15 and B (won 10) 5. A sat with $12,
    # so A receives 12: C pays 17 in all.
    amounts, flags = capped([30, 10, -40], ["12", "100", "20"])
    assert amounts == [Decimal(12), Decimal(5), Decimal(-17)]
    assert flags == [True, True, True]  # B too: 5 of the 10 he won
    amounts, flags = capped([30, 10, -40], ["100", "100", "20"])
    assert amounts == [Decimal(15), Decimal(5), Decimal(-20)]


def test_cents_go_to_the_largest_remainder_then_the_earlier_seat() -> None:
    # One cent to split between two equal winners: the first seat gets it.
    amounts, _ = capped([1, 1, -2], [None, None, "0.01"])
    assert amounts == [Decimal("0.01"), Decimal(0), Decimal("-0.01")]
    # $1 in three equal shares: 34, 33, 33 cents.
    assert apportion(np.array([100]), np.array([5, 5, 5]), np.array([0, 3])).tolist() == [
        34, 33, 33]


def test_no_cap_leaves_the_money_as_it_is_and_unknown_stacks_never_cap() -> None:
    amounts, flags = capped([6, -2, -4], ["100", "100", "100"], "0.25")
    assert amounts == [Decimal("1.5"), Decimal("-0.5"), Decimal(-1)]
    assert flags == [False, False, False]
    amounts, flags = capped([600, -600], [None, None])
    assert flags == [False, False]


def test_money_without_stacks_or_point_value() -> None:
    money = hand_money(np.array([4, -4]), np.array([0, 2]), np.array([-1, -1]),
                       np.array([-1, -1]), table_stakes=True)
    assert not money.money_known.any()
    assert not money.capped_known.any()


@st.composite
def stake_hands(draw: st.DrawFn) -> tuple[list[int], list[int | None], str]:
    players = draw(st.integers(2, 6))
    points = draw(st.lists(st.integers(-120, 120), min_size=players - 1,
                           max_size=players - 1))
    points.append(-sum(points))
    stacks = draw(st.lists(st.one_of(st.none(), st.integers(0, 20_000)),
                           min_size=players, max_size=players))
    point_value = draw(st.sampled_from(["0.01", "0.10", "0.25", "1", "2.5", "0.125",
                                        "0.333333"]))
    return points, stacks, point_value


@given(hands=st.lists(stake_hands(), min_size=1, max_size=12))
def test_capped_money_matches_the_reference(
        hands: list[tuple[list[int], list[int | None], str]]) -> None:
    points = np.array([p for hand, _, _ in hands for p in hand])
    starts = np.cumsum([0] + [len(hand) for hand, _, _ in hands])
    value = np.array([int(Decimal(v) * MICROS_PER_UNIT) for hand, _, v in hands for _ in hand])
    stacks = np.array([-1 if s is None else s * 10_000 for _, hand, _ in hands for s in hand])
    money = hand_money(points, starts, value, stacks, table_stakes=True)
    position = 0
    for hand, hand_stacks, point_value in hands:
        cents = money_in_cents(hand, Fraction(point_value))
        expected = (capped_money(cents, hand_stacks) if any(s is not None for s in hand_stacks)
                    else None)
        got = money.capped[position:position + len(hand)].tolist()
        if expected is None:
            assert not money.capped_known[position:position + len(hand)].any()
        else:
            assert got == expected, (hand, hand_stacks, point_value)
            assert sum(got) == 0
            for amount, stack in zip(got, hand_stacks, strict=True):
                if stack is not None:
                    assert -stack <= amount <= stack
            flags = money.cap_applied[position:position + len(hand)].tolist()
            assert flags == [a != c for a, c in zip(expected, cents, strict=True)]
        assert money.money[position:position + len(hand)].tolist() == [
            int(p * Fraction(point_value) * MICROS_PER_UNIT) for p in hand]
        position += len(hand)


def test_amounts_beyond_int64_products_stay_exact() -> None:
    # A billion-dollar point value: the products of two amounts pass 2**63.
    money = hand_money(np.array([3, -3]), np.array([0, 2]),
                       np.full(2, 10**9 * MICROS_PER_UNIT), np.array([-1, 10**9 * 10**6]),
                       table_stakes=True)
    assert money.capped.tolist() == [10**11, -10**11]


def test_score_boards_gives_money_beside_points() -> None:
    frame = pl.DataFrame({
        "hand_id": ["h1", "h1"], "player": ["Ivey", "Hellmuth"],
        "top": ["6s 6c 4h", "Ah Kd Qd"], "middle": ["Td Ts 9c Qs 8c", "9h 9d 5h 5d 4c"],
        "bottom": ["3h 3d 3s 2h 2d", "Ks Js 9s 8s 7s"],
        "point_value": ["2.50", "2.50"], "starting_stack": ["100", "7.25"],
    })
    scored = score_boards(frame, "pineapple")
    assert scored["points"].to_list() == [4, -4]
    assert scored["money"].to_list() == [Decimal(10), Decimal(-10)]
    assert scored["money_capped"].to_list() == [Decimal("7.25"), Decimal("-7.25")]
    assert scored["capped"].to_list() == [True, True]
    off = get_ruleset("pineapple").__class__(name="no stakes", variant="pineapple",
                                             table_stakes=False)
    assert score_boards(frame, off)["money_capped"].to_list() == [None, None]


@pytest.mark.parametrize("stack", [None, "abc"])
def test_a_stack_that_is_not_money_is_unknown(stack: str | None) -> None:
    frame = pl.DataFrame({
        "hand_id": ["h1", "h1"], "player": ["a", "b"],
        "top": ["6s 6c 4h", "Ah Kd Qd"], "middle": ["Td Ts 9c Qs 8c", "9h 9d 5h 5d 4c"],
        "bottom": ["3h 3d 3s 2h 2d", "Ks Js 9s 8s 7s"],
        "point_value": ["1", "1"], "starting_stack": [stack, stack],
    })
    assert score_boards(frame)["money_capped"].to_list() == [None, None]
