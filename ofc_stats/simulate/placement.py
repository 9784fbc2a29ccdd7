"""How simulated players set their boards: a vectorised candidate model.

For every player-hand at once:

1. **Opening.** The first five cards are placed knowing only them (rank groups
   and suits down, single cards high to low, now and then a queen or better on top
   to chase Fantasyland). A Fantasyland hand, dealt at once, has no opening.
2. **Keep 13 cards.** Pineapple discards one card of each three-card street and a
   Fantasyland deal of 14-16 cards drops the extra ones: the card dropped is the
   least *useful* (pairs with the cards seen so far, belongs to a long suit, is
   high), with noise that shrinks with skill.
3. **Candidate boards.** Each plan is a pair of sort keys over the kept cards: the
   bottom takes the free cards that sort first by one, the middle by the other, the
   top what is left. Plans: rank groups, a low pair under trips, a flush or a
   straight in the bottom or the middle, the best pair, trips or the best single
   card forced on top, and a noisy group order.
4. **Choice.** All candidates are evaluated with :func:`evaluate_rows` in bulk and
   valued as royalties plus a Fantasyland bonus plus a little row strength. A board
   that fouls is valued at what it would have earned had it held, weighted by the
   player's hope that it would, against the cost of the foul: weaker players hope
   more, chase Fantasyland and big rows, and foul more. Gumbel noise, larger for
   weaker players, picks among the candidates.

A Fantasyland hand (:func:`place_fantasyland`) is set that way at a skill of at least
``fantasyland_skill``, unless the player finds the exact best setting (the solver's,
:func:`ofc_stats.engine.fantasyland_solver.solve_batch`, a stay worth ``stay_value``): a
chance that grows with skill from ``finds_best_weak`` to ``finds_best_strong``. So a
weaker player leaves more on the table, and the review can measure it.

The model sees a player's later cards, which no real player does; the committed
opening, the noise and the hope stand for what the player could not know.
``docs/simulator.md`` gives the resulting foul, Fantasyland and royalty rates.

The other games: a joker is never discarded and is planned as an ace (the sort keys
know no wild card), but every candidate is valued with its jokers resolved as the
scorer resolves them; two decks need nothing more; a deuce-to-seven middle is filled
with low cards of distinct ranks and the opening keeps the lowest two for it. The
solver sets no Fantasyland hand holding a joker (it cannot), nor, as when the shipped
histories were simulated, one holding a card twice or with a deuce-to-seven middle
(it could now): those are always set with the plans.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import JOKER, NO_CARD
from ofc_stats.engine.fantasyland_solver import MAX_CARDS, score_against, solve_batch
from ofc_stats.engine.rows import fantasyland_quality, middle_order, row_royalties
from ofc_stats.engine.scoring import RuleTables, evaluate_boards

I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
I32 = npt.NDArray[np.int32]
F32 = npt.NDArray[np.float32]

# A card's row in a placement; DISCARD marks a discarded card.
TOP, MIDDLE, BOTTOM, DISCARD = 0, 1, 2, 3
SLOT_ROW = np.array([BOTTOM] * 5 + [MIDDLE] * 5 + [TOP] * 3, dtype=np.int8)
# Board slot (0-12, top 0-2, middle 3-7, bottom 8-12) of each sorted position.
SLOT_OF_POSITION = np.array([8, 9, 10, 11, 12, 3, 4, 5, 6, 7, 0, 1, 2], dtype=np.int64)
# The row of each board slot.
BOARD_SLOT_ROW = np.array([TOP] * 3 + [MIDDLE] * 5 + [BOTTOM] * 5, dtype=np.int8)
# The card a joker is planned as (the ace of spades); its value is never below this.
JOKER_STAND_IN = 51
JOKER_USEFULNESS = 1000.0

NOISY_PLANS = 1


@dataclass(frozen=True)
class Behaviour:
    """How skill turns into play; one value per parameter, interpolated by skill.

    ``*_weak`` applies at skill 0 and ``*_strong`` at skill 1.
    """

    hope_weak: float = 0.45
    hope_strong: float = 0.2
    foul_cost: float = 7.0
    choice_noise_weak: float = 3.5
    choice_noise_strong: float = 0.8
    key_noise_weak: float = 14.0
    key_noise_strong: float = 3.0
    discard_noise_weak: float = 6.0
    discard_noise_strong: float = 1.0
    fantasyland_value: float = 9.0
    stay_value: float = 12.0
    # Fantasyland: every player sets the board with the plans at least this well, and
    # finds the exact best setting with a chance growing from weak to strong.
    fantasyland_skill: float = 0.5
    finds_best_weak: float = 0.2
    finds_best_strong: float = 0.95
    strength_weight: float = 0.4
    top_pair_chase: float = 0.5
    top_card_chase: float = 0.3


BEHAVIOUR = Behaviour()


@dataclass(frozen=True)
class Placement:
    """Where each dealt card went: ``rows`` (B, m) holds TOP/MIDDLE/BOTTOM/DISCARD,
    ``boards`` (13, B) the final boards as card codes, card-major."""

    rows: I8
    boards: I8


def _lerp(skill: F32, weak: float, strong: float) -> F32:
    return (weak + (strong - weak) * skill).astype(np.float32)


def _counts(values: npt.NDArray[np.integer], kinds: int, upto: int | None = None
            ) -> npt.NDArray[np.int32]:
    """(B, m): how many of a row's cards (its first ``upto``; default all) have each
    card's value (``values`` in ``0..kinds-1``)."""
    count = values.shape[0]
    base = (np.arange(count, dtype=np.int32) * kinds)[:, None]
    seen = values[:, :upto] if upto is not None else values
    totals = np.bincount((base + seen).ravel(), minlength=count * kinds)
    counts: npt.NDArray[np.int32] = totals[base + values].astype(np.int32)
    return counts


def _same_before(ranks: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """(B, m): how many earlier cards of the row have the same rank."""
    order = np.argsort(ranks, axis=1, kind="stable")
    ordered = np.take_along_axis(ranks, order, axis=1)
    positions = np.broadcast_to(np.arange(ranks.shape[1]), ranks.shape)
    run_start = np.where(np.diff(ordered, axis=1, prepend=-1) != 0, positions, 0)
    within = positions - np.maximum.accumulate(run_start, axis=1)
    before = np.empty_like(ranks)
    np.put_along_axis(before, order, within.astype(np.int32), axis=1)
    return before


def _usefulness(cards: I8, street_ends: tuple[int, ...] | None = None,
                lowball: bool = False) -> F32:
    """How much each card helps the hand it is in (higher keeps it).

    With ``street_ends`` (a Pineapple deal), a card is judged against the cards
    dealt up to the end of its own street; otherwise against all of them. With a
    deuce-to-seven middle, a low card of a new rank is worth as much as a high one.
    """
    ranks = (cards >> 2).astype(np.int32)
    suits = (cards & 3).astype(np.int32)
    if street_ends is None:
        rank_count, suit_count = _counts(ranks, 13), _counts(suits, 4)
    else:
        rank_count = np.empty_like(ranks)
        suit_count = np.empty_like(suits)
        start = 0
        for end in street_ends:
            rank_count[:, start:end] = _counts(ranks, 13, end)[:, start:end]
            suit_count[:, start:end] = _counts(suits, 4, end)[:, start:end]
            start = end
    if lowball:
        # A ten or lower of a rank not yet seen: what the middle is made of (the lower,
        # the better); the other cards as usual, without the suits (no flush wanted).
        low = (ranks <= 8) & (rank_count == 1)
        useful: F32 = (8.0 * (rank_count - 1) + np.where(low, 7.0 - 0.3 * ranks, 0.35 * ranks)
                       ).astype(np.float32)
        return useful
    return (8.0 * (rank_count - 1) + 1.5 * np.maximum(suit_count - 3, 0)
            + 0.35 * ranks).astype(np.float32)


def _kept_cards(dealt: I8, skill: F32, pineapple_streets: bool, behaviour: Behaviour,
                rng: np.random.Generator, lowball: bool = False
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Indices into ``dealt`` of the 13 kept cards (B, 13) and of the discards (B, m-13)."""
    count, dealt_cards = dealt.shape
    if dealt_cards == 13:
        return np.broadcast_to(np.arange(13), (count, 13)), np.empty((count, 0), np.int64)
    noise = _lerp(skill, behaviour.discard_noise_weak, behaviour.discard_noise_strong)
    street_ends = tuple(range(5, dealt_cards + 1, 3)) if pineapple_streets else None
    is_joker = dealt >= JOKER
    value = (_usefulness(np.where(is_joker, np.int8(JOKER_STAND_IN), dealt), street_ends,
                         lowball)
             + rng.standard_normal(dealt.shape, dtype=np.float32) * noise[:, None])
    if is_joker.any():
        value = np.where(is_joker, np.float32(JOKER_USEFULNESS), value)
    if pineapple_streets:
        # One discard from each street of three after the first five cards.
        streets = value[:, 5:].reshape(count, -1, 3)
        discards = 5 + np.arange(streets.shape[1]) * 3 + streets.argmin(axis=2)
    else:
        discards = np.sort(np.argsort(value, axis=1)[:, :dealt_cards - 13], axis=1)
    keep = np.ones(dealt.shape, dtype=bool)
    np.put_along_axis(keep, discards, False, axis=1)
    kept = np.nonzero(keep)[1].reshape(count, 13)
    return kept, discards


# Plans: (bottom key, middle key, card forced on top); keys index _plan_keys' bases
# (group, low pair down, flush, straight, noisy groups..., low distinct cards), tops its
# top options (none, best pair, trips, best single card).
GROUP, LOW_PAIR, FLUSH, STRAIGHT, NOISY = 0, 1, 2, 3, 4
LOWBALL = NOISY + NOISY_PLANS  # the first of the deuce-to-seven middle's keys
# A 2-7 middle takes distinct ranks in one of these orders of preference (2 first):
# the plain lowest, and orders that pass over a 6, a 5 or a 4 to dodge a straight.
LOW_ORDERS = ("23456789TJQKA", "2345789T6JQKA", "23478596TJQKA", "235784T69JQKA")
PLANS = (
    *((bottom, middle, 0) for bottom, middle in (
        (GROUP, GROUP), (LOW_PAIR, GROUP), (FLUSH, GROUP), (STRAIGHT, GROUP),
        (FLUSH, STRAIGHT), (GROUP, FLUSH))),
    *((bottom, GROUP, top) for top in (1, 2, 3) for bottom in (GROUP, FLUSH)),
    *((NOISY + noisy, NOISY + noisy, 0) for noisy in range(NOISY_PLANS)),
)
PLAN_BOTTOM = np.array([plan[0] for plan in PLANS])
PLAN_MIDDLE = np.array([plan[1] for plan in PLANS])
PLAN_TOP = np.array([plan[2] for plan in PLANS])


def _plan_keys(cards: I8, skill: F32, behaviour: Behaviour, rng: np.random.Generator,
               lowball: bool = False, committed: I8 | None = None
               ) -> tuple[I16, I16, npt.NDArray[np.bool_]]:
    """Sort values of every plan (B, plans, 13) for the bottom and the middle (lower
    sorts first: the key inverted, the card index in the low four bits), and the
    cards each plan forces on top; a deuce-to-seven middle takes low distinct ranks."""
    count = cards.shape[0]
    ranks = cards.astype(np.int32) >> 2
    suits = cards.astype(np.int32) & 3
    rank_count = _counts(ranks, 13)
    suit_count = _counts(suits, 4)
    same_before = _same_before(ranks)

    group = rank_count * 16 + ranks
    keys = [group]
    # Low pair under the trips (keeps the high pair for the middle).
    keys.append(rank_count * 16 + np.where(rank_count == 2, 12 - ranks, ranks))
    # Flush: the longest suit's cards first, singletons before paired cards.
    longest = suit_count.max(axis=1, keepdims=True)
    flush_suit = np.take_along_axis(suits, suit_count.argmax(axis=1)[:, None], axis=1)
    in_flush = (suits == flush_suit) & (longest >= 5)
    keys.append(in_flush * 128 + (rank_count == 1) * 48 + group)
    # Straight: the highest complete window, one card per rank.
    present = np.bitwise_or.reduce(np.left_shift(1, ranks), axis=1)
    best_high = np.full(count, -1, dtype=np.int32)
    for high in range(3, 13):
        needed = (0b11111 << (high - 4)) if high >= 4 else 0b1000000001111
        best_high[(present & needed) == needed] = high
    low = np.where(best_high == 3, -1, best_high - 4)[:, None]
    in_window = ((ranks >= low) & (ranks <= best_high[:, None])) | (
        (best_high[:, None] == 3) & (ranks == 12))
    in_straight = in_window & (same_before == 0) & (best_high[:, None] >= 0)
    keys.append(in_straight * 128 + group)
    noise = _lerp(skill, behaviour.key_noise_weak, behaviour.key_noise_strong)
    for _ in range(NOISY_PLANS):
        jitter = rng.standard_normal((count, 13), dtype=np.float32) * noise[:, None]
        keys.append(group + jitter.astype(np.int32))
    if lowball:
        # A rank already in the middle, or twice among the cards that may go there,
        # would pair the low: only its first such card is wanted.
        open_to_middle = (committed < 0) | (committed == MIDDLE) if committed is not None \
            else np.ones(ranks.shape, dtype=bool)
        elsewhere = 13 + np.arange(13)  # a rank of its own for a card held elsewhere
        repeated = _same_before(np.where(open_to_middle, ranks, elsewhere)) > 0
        for order in LOW_ORDERS:
            place_of = np.array([order.index(rank) for rank in "23456789TJQKA"])
            keys.append(np.where(repeated, 0, 200 - place_of[ranks] * 12))
    bases = np.clip(np.stack(keys, axis=1), 0, 255).astype(np.int16)  # (B, bases, 13)
    packed = ((255 - bases) << 4) | np.arange(13, dtype=np.int16)

    pair_ranks = np.where(rank_count == 2, ranks, -1)
    best_pair = pair_ranks.max(axis=1, keepdims=True)
    trips_rank = np.where(rank_count >= 3, ranks, -1).max(axis=1, keepdims=True)
    single_rank = np.where(rank_count == 1, ranks, -1).max(axis=1, keepdims=True)
    tops = np.stack([
        np.zeros((count, 13), dtype=bool),
        (ranks == best_pair) & (best_pair >= 0),
        (ranks == trips_rank) & (same_before < 3) & (trips_rank >= 0),
        (ranks == single_rank) & (single_rank >= 0),
    ], axis=1)
    middle = (LOWBALL + np.arange(len(PLANS)) % len(LOW_ORDERS)) if lowball else PLAN_MIDDLE
    return packed[:, PLAN_BOTTOM], packed[:, middle], tops[:, PLAN_TOP]


def _opening_rows(opening: I8, rng: np.random.Generator, behaviour: Behaviour,
                  lowball: bool = False) -> I8:
    """Rows of the first five cards, set knowing only those five: (B, 5).

    Rank groups and three or more of a suit go to the bottom, single cards fill
    bottom, middle and top from high to low (a deuce-to-seven middle takes the two
    lowest). Now and then a player chases Fantasyland: a pair of queens or better goes
    on top, or a lone queen or better does (and the low card meant for the top goes to
    the middle).
    """
    ranks = opening.astype(np.int32) >> 2
    rank_count = _counts(ranks, 13)
    if lowball:
        return _lowball_opening_rows(ranks, rank_count, rng, behaviour)
    suit_count = _counts(opening.astype(np.int32) & 3, 4)
    key = (rank_count >= 2) * 100 + (suit_count >= 3) * 50 + ranks
    order = np.argsort(-key, axis=1, kind="stable")
    three_down = np.asarray(((suit_count >= 3) | (rank_count >= 3)).any(axis=1), dtype=bool)
    template = np.where(three_down[:, None], np.array([2, 2, 2, 1, 0]),
                        np.array([2, 2, 1, 1, 0])).astype(np.int8)
    rows = np.empty_like(template)
    np.put_along_axis(rows, order, template, axis=1)
    chase = ((rank_count == 2) & (ranks >= 10)
             & (rng.random(len(opening)) < behaviour.top_pair_chase)[:, None])
    rows = np.where(chase, np.int8(TOP), rows)
    single = np.where(rank_count == 1, ranks, -1)
    best = single.argmax(axis=1)
    lone = ((single.max(axis=1) >= 10) & ~chase.any(axis=1)
            & (rng.random(len(opening)) < behaviour.top_card_chase))
    lanes = np.flatnonzero(lone)
    rows[lanes] = np.where(rows[lanes] == TOP, np.int8(MIDDLE), rows[lanes])
    rows[lanes, best[lanes]] = TOP
    return rows.astype(np.int8)


def _lowball_opening_rows(ranks: npt.NDArray[np.int32], rank_count: npt.NDArray[np.int32],
                          rng: np.random.Generator, behaviour: Behaviour) -> I8:
    """The first five cards with a deuce-to-seven middle: up to three cards of ten or
    lower of distinct ranks (the lowest; of a pair, one) start the middle, the rest go
    to the bottom; now and then a pair of kings or aces goes on top (Fantasyland)."""
    low = (ranks <= 8) & (_same_before(ranks) == 0)
    # Rank the low cards from the lowest: the first three go to the middle.
    order = np.argsort(np.where(low, ranks, 99), axis=1, kind="stable")
    place = np.empty_like(order)
    np.put_along_axis(place, order, np.broadcast_to(np.arange(5), order.shape), axis=1)
    rows = np.where(low & (place < 3), np.int8(MIDDLE), np.int8(BOTTOM)).astype(np.int8)
    chase = ((rank_count == 2) & (ranks >= 11)
             & (rng.random(len(ranks)) < behaviour.top_pair_chase)[:, None])
    return np.where(chase, np.int8(TOP), rows).astype(np.int8)


def _fill_order(bottom_keys: I16, middle_keys: I16, on_top: npt.NDArray[np.bool_],
                committed: I8) -> I16:
    """Kept-card index per board position (B, plans, 13): bottom 0-4, middle 5-9,
    top 10-12, honouring committed rows (-1: free) and the cards forced on top.

    The bottom takes its committed cards, then the free cards that sort first by
    ``bottom_keys``; the middle its committed cards, then the first by
    ``middle_keys``; the top what is left (committed and forced cards first). Each
    stage is one sort of int16 values packing (level: 3 bits, key: 8, card index: 4).
    """
    forced = on_top & (committed < 0)[:, None, :]
    # Stage 1, bottom: committed bottom (level 0), free (1), the rest (2).
    level = np.where(committed == BOTTOM, 0, np.where(committed < 0, 1 << 12, 2 << 12))
    first = np.where(forced, np.int16(2 << 12), level.astype(np.int16)[:, None, :])
    first |= bottom_keys
    bottom = np.sort(first, axis=2)[..., :5] & 15
    # Stage 2, middle then top: committed middle (0), free (1), forced (2),
    # committed top (3), already in the bottom (4).
    level = np.where(committed == MIDDLE, 0, np.where(committed < 0, 1 << 12, 3 << 12))
    second = np.where(forced, np.int16(2 << 12), level.astype(np.int16)[:, None, :])
    second |= middle_keys
    np.put_along_axis(second, bottom, np.int16(4 << 12), axis=2)
    rest = np.sort(second, axis=2)[..., :8] & 15
    return np.concatenate([bottom, rest], axis=2)


def place(dealt: I8, skill: F32, rules: RuleTables, *, pineapple_streets: bool,
          in_fantasyland: bool, rng: np.random.Generator,
          behaviour: Behaviour = BEHAVIOUR) -> Placement:
    """Set ``B`` boards from their dealt cards.

    Args:
        dealt: (B, m) card codes in dealt order (m = 13, 14, 15, 16 or 17).
        skill: (B,) player skill in [0, 1].
        rules: the compiled ruleset (royalties and Fantasyland thresholds).
        pineapple_streets: discard one card of each street of three (normal
            Pineapple hands) rather than the least useful cards overall.
        in_fantasyland: these boards are Fantasyland hands: every card is seen at
            once (no opening commitment) and staying is valued, not entry.
        rng: the random generator.

    Returns:
        Each dealt card's row and the final boards.
    """
    count = dealt.shape[0]
    kept_index, _ = _kept_cards(dealt, skill, pineapple_streets, behaviour, rng, rules.lowball)
    kept = np.take_along_axis(dealt, kept_index, axis=1)
    planned = np.where(kept >= JOKER, np.int8(JOKER_STAND_IN), kept)  # a joker as an ace
    committed = np.full((count, 13), -1, dtype=np.int8)
    if not in_fantasyland:
        # The first five dealt cards are always kept, as kept cards 0-4.
        committed[:, :5] = _opening_rows(planned[:, :5], rng, behaviour, rules.lowball)
    bottom_keys, middle_keys, on_top = _plan_keys(planned, skill, behaviour, rng,
                                                  rules.lowball, committed)
    plans = bottom_keys.shape[1]
    # (B, plans, 13): the kept card at each board position of each plan.
    if rules.lowball:
        # A deuce-to-seven middle picks its low cards first, the bottom then takes the
        # strongest of the rest: fill with the two rows' roles swapped, then swap back.
        swapped = np.where(committed == BOTTOM, np.int8(MIDDLE),
                           np.where(committed == MIDDLE, np.int8(BOTTOM), committed))
        order = _fill_order(middle_keys, bottom_keys, on_top, swapped)
        order = np.concatenate([order[..., 5:10], order[..., 0:5], order[..., 10:13]], axis=2)
    else:
        order = _fill_order(bottom_keys, middle_keys, on_top, committed)
    arranged = np.take_along_axis(np.broadcast_to(kept[:, None, :], order.shape), order, axis=2)
    flat = arranged.reshape(count * plans, 13).T  # (13, B*plans), by position
    # Board order (top, middle, bottom) from the sorted positions (bottom first).
    boards_of_plans = np.ascontiguousarray(np.concatenate([flat[10:13], flat[5:10], flat[0:5]]))
    top, middle, bottom, fouled = evaluate_boards(boards_of_plans, rules)
    top_points, middle_points, bottom_points = row_royalties(top, middle, bottom, rules)
    # As int16 and then float32: the same numbers, in the same arithmetic, as before.
    royalties = (top_points + middle_points + bottom_points).astype(np.float32).reshape(
        count, plans)
    # What each candidate would earn for the next hand, as if it stood.
    quality = fantasyland_quality(top, middle, bottom, np.ones(len(top), dtype=bool), rules)
    if in_fantasyland:
        bonus = quality.stay.reshape(count, plans) * np.float32(behaviour.stay_value)
    else:
        cards_next = quality.entry_cards.reshape(count, plans).astype(np.float32)
        bonus = np.where(cards_next > 0,
                         behaviour.fantasyland_value + 2.0 * (cards_next - 14), 0.0)
    top, middle, bottom = (row.reshape(count, plans) for row in (top, middle, bottom))
    fouled = fouled.reshape(count, plans)
    strength = (top + middle_order(middle, rules) + bottom).astype(np.float32) / np.float32(
        1 << 20)
    value = royalties + bonus.astype(np.float32) + behaviour.strength_weight * strength
    # A board that fouls is worth what it would have earned had it held, weighted by
    # the player's hope that it would, against the cost of the foul.
    hope = _lerp(skill, behaviour.hope_weak, behaviour.hope_strong)[:, None]
    value = np.where(fouled, value * hope - behaviour.foul_cost * (1 - hope), value)
    noise = _lerp(skill, behaviour.choice_noise_weak, behaviour.choice_noise_strong)
    value += rng.gumbel(size=value.shape).astype(np.float32) * noise[:, None]
    chosen = order[np.arange(count), value.argmax(axis=1)]  # (B, 13) kept index by position

    boards = np.empty((count, 13), dtype=np.int8)
    np.put_along_axis(boards, np.broadcast_to(SLOT_OF_POSITION, chosen.shape),
                      np.take_along_axis(kept, chosen, axis=1), axis=1)
    rows = np.full(dealt.shape, DISCARD, dtype=np.int8)
    np.put_along_axis(rows, np.take_along_axis(kept_index, chosen, axis=1),
                      np.broadcast_to(SLOT_ROW, chosen.shape), axis=1)
    return Placement(rows=rows, boards=np.ascontiguousarray(boards.T))


def solvable(dealt: I8, rules: RuleTables) -> npt.NDArray[np.bool_]:
    """Which Fantasyland hands the simulator lets the solver set: no joker (the solver
    resolves none), no card dealt twice and a middle ranked high. The solver sets the
    last two since; they stay with the plans so that a seed simulates the histories
    it always did (the shipped sample among them)."""
    if rules.lowball:
        return np.zeros(len(dealt), dtype=bool)
    ordered = np.sort(dealt, axis=1)
    unsolvable: npt.NDArray[np.bool_] = ((ordered >= JOKER).any(axis=1)
                                         | (ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
    return ~unsolvable


def place_fantasyland(dealt: I8, skill: F32, rules: RuleTables, *, rng: np.random.Generator,
                      behaviour: Behaviour = BEHAVIOUR) -> Placement:
    """Set ``B`` Fantasyland boards, dealt all at once (``dealt``: (B, m), m = 13-17).

    Each player finds the exact best setting with a chance interpolated by ``skill``
    from ``behaviour.finds_best_weak`` to ``finds_best_strong``; the others set it with
    the candidate plans of :func:`place` at a skill of at least
    ``behaviour.fantasyland_skill``. So are the hands :func:`solvable` keeps from the
    solver (jokers, a card dealt twice, a deuce-to-seven middle).
    """
    floor = behaviour.fantasyland_skill
    placed = place(dealt, (floor + (1 - floor) * skill).astype(np.float32), rules,
                   pineapple_streets=False, in_fantasyland=True, rng=rng, behaviour=behaviour)
    finds = np.flatnonzero((rng.random(len(dealt))
                            < _lerp(skill, behaviour.finds_best_weak, behaviour.finds_best_strong))
                           & solvable(dealt, rules))
    if not len(finds):
        return placed
    cards = np.full((len(finds), MAX_CARDS), NO_CARD, dtype=np.int8)
    cards[:, :dealt.shape[1]] = dealt[finds]
    # The board the plans set is a value the best reaches: it speeds the search.
    planned = score_against(np.ascontiguousarray(placed.boards[:, finds].T), None, rules)
    reached = np.where(planned.fouled, 0.0,
                       planned.royalties + behaviour.stay_value * planned.stays)
    best = solve_batch(cards, rules, behaviour.stay_value, lower_bound=reached).boards
    # Each dealt card's row: the slot of the best board holding it (none: discarded).
    slot = (dealt[finds][:, :, None] == best.T[:, None, :])  # (found, m, 13)
    rows = np.where(slot.any(axis=2), BOARD_SLOT_ROW[slot.argmax(axis=2)], np.int8(DISCARD))
    boards = placed.boards.copy()
    boards[:, finds] = best
    all_rows = placed.rows.copy()
    all_rows[finds] = rows
    return Placement(rows=all_rows, boards=boards)
