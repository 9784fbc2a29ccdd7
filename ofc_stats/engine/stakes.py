"""Money and table stakes (RULES.md section 11), exact in integers, for many hands.

A hand's money is each player's points times the hand's point value, exact to the
millionth (the warehouse's decimal scale). Where stacks are recorded and the ruleset
plays table stakes, the result is also *capped*, in cents:

1. each net result is rounded to cents (largest remainder: the hand still sums to 0);
2. a player who lost more than their stack pays exactly their stack; what the losers
   pay is shared among the winners in proportion to what each won (their net
   results: a loser owes the hand's winners), in cents by largest remainder;
3. a winner due more than their stack receives exactly their stack; what the winners
   receive is taken from the payers in proportion to what each paid in step 2, in
   cents by largest remainder.

Largest remainder: every share is first rounded down to the cent; the cents left over
go one each to the largest fractional parts, equal parts to the earlier seat. With no
cap in force the capped money equals the rounded money. Integers are numpy's int64
while the products of two amounts fit; beyond (a billion dollars at stake) the same
code runs on Python integers, never on floats.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Integers = npt.NDArray[Any]  # int64, or Python integers (object) past int64's range

MICROS_PER_UNIT = 1_000_000  # money is stored as decimal(18, 6)
MICROS_PER_CENT = 10_000
SAFE_PRODUCT = 1 << 62


@dataclass(frozen=True, eq=False)
class HandMoney:
    """Per board: money won (micro-units) and, where table stakes are in force, the
    capped money (cents) and whether a cap changed it."""

    money: I64  # points * point value, in millionths
    money_known: Bools  # the hand has a point value
    capped: I64  # cents; 0 where not in force
    capped_known: Bools  # table stakes in force: point value and a stack recorded
    cap_applied: Bools  # the cap changed this board's money


def _hand_index(hand_starts: I64) -> I64:
    return np.repeat(np.arange(len(hand_starts) - 1), np.diff(hand_starts))


def _per_hand(values: Integers, hand_starts: I64) -> Integers:
    if len(values) == 0:
        return values[:0]
    return np.add.reduceat(values, hand_starts[:-1])


def apportion(totals: Integers, weights: Integers,
              hand_starts: I64) -> Integers:
    """Split each hand's integer ``totals`` over its boards in proportion to
    ``weights`` (non-negative integers), by largest remainder.

    >>> starts = np.array([0, 3])
    >>> apportion(np.array([100]), np.array([1, 1, 1]), starts).tolist()
    [34, 33, 33]
    """
    hands = _hand_index(hand_starts)
    weight_sums = _per_hand(weights, hand_starts)
    total_of_board = totals[hands]
    divisor = np.where(weight_sums > 0, weight_sums, 1)[hands]
    product = total_of_board * weights
    shares = product // divisor
    remainders = product % divisor
    leftover = (totals - _per_hand(shares, hand_starts))[hands]
    # Rank each board's remainder within its hand: largest first, earlier seat first.
    largest_first = (_descending(remainders) if remainders.dtype == object
                     else -remainders)
    order = np.lexsort((np.arange(len(weights)), largest_first, hands))
    rank = np.empty(len(weights), dtype=np.int64)
    position = np.arange(len(order)) - hand_starts[:-1][hands[order]]
    rank[order] = position
    extra = (rank < leftover) & (weights > 0)
    apportioned: Integers = shares + extra.astype(shares.dtype)
    return apportioned


def _descending(values: Integers) -> I64:
    """Dense ranks of Python integers, largest first (a sort key for ``lexsort``)."""
    unique = sorted(set(values.tolist()), reverse=True)
    place = {value: index for index, value in enumerate(unique)}
    return np.array([place[value] for value in values.tolist()], dtype=np.int64)


def _integers(*arrays: I64) -> list[Integers]:
    """The arrays as int64 if the products of two of their values fit, else as
    Python integers (object arrays): exact either way."""
    largest = max((int(np.abs(array).max()) for array in arrays if len(array)), default=0)
    if largest * largest * 4 < SAFE_PRODUCT:
        return [np.asarray(array, dtype=np.int64) for array in arrays]
    return [np.asarray(array, dtype=np.int64).astype(object) for array in arrays]


def cents_of(micros: Integers, hand_starts: I64) -> Integers:
    """Zero-sum money in millionths rounded to cents per hand, by largest remainder."""
    floors = micros // MICROS_PER_CENT
    remainders = micros - floors * MICROS_PER_CENT
    leftover = -_per_hand(floors, hand_starts)  # each hand sums to 0 in millionths
    return floors + apportion(leftover, remainders, hand_starts)


def cap_at_stacks(net: Integers, stacks: Integers,
                  stack_known: Bools, hand_starts: I64) -> Integers:
    """Capped results (cents) of zero-sum ``net`` results (cents) with ``stacks``
    (cents, where ``stack_known``), each hand's boards ``hand_starts`` apart."""
    stacks = np.maximum(stacks, 0)
    owes = np.maximum(-net, 0)
    owed = np.maximum(net, 0)
    pays = np.where(stack_known, np.minimum(owes, stacks), owes)
    due = apportion(_per_hand(pays, hand_starts), owed, hand_starts)
    receives = np.where(stack_known, np.minimum(due, stacks), due)
    paid = apportion(_per_hand(receives, hand_starts), pays, hand_starts)
    capped: Integers = receives - paid
    return capped


def hand_money(points: npt.NDArray[np.integer[Any]], hand_starts: I64, point_value: I64,
               stacks: I64, table_stakes: bool) -> HandMoney:
    """Money of scored boards.

    Args:
        points: each board's net points; each hand sums to zero.
        hand_starts: ``(hands + 1,)`` board offsets of the hands.
        point_value: each board's hand's point value in millionths (-1: unknown).
        stacks: each board's stack at the start of the hand in millionths (-1: unknown).
        table_stakes: the ruleset caps money at the stacks.
    """
    n = len(points)
    hand_starts = np.asarray(hand_starts, dtype=np.int64)
    known = point_value >= 0
    money = np.where(known, points.astype(np.int64) * np.maximum(point_value, 0), 0)
    capped = np.zeros(n, dtype=np.int64)
    in_force = np.zeros(n, dtype=bool)
    applied = np.zeros(n, dtype=bool)
    stack_known = stacks >= 0
    if table_stakes and n and stack_known.any():
        hands = _hand_index(hand_starts)
        in_force = (_per_hand(stack_known.astype(np.int64), hand_starts)[hands] > 0) & known
        if in_force.any():
            micros, stack_micros = _integers(np.where(in_force, money, 0),
                                             np.where(stack_known, stacks, 0))
            net = cents_of(micros, hand_starts)
            limits = stack_micros // MICROS_PER_CENT  # a fraction of a cent cannot be paid
            result = cap_at_stacks(net, limits, stack_known & in_force, hand_starts)
            capped = np.where(in_force, result, 0).astype(np.int64)
            applied = in_force & (result != net).astype(bool)
    return HandMoney(money, known, capped, in_force, applied)


__all__ = ["HandMoney", "apportion", "cap_at_stacks", "cents_of", "hand_money"]
