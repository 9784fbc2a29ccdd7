"""Tables and sessions: who sits where, the button and Fantasyland, hand after hand.

A table plays a series of *sessions* (about an hour each, hours apart). Sessions
are independent of each other (a session never ends while a player is due a
Fantasyland hand), so every session of a group of tables is one *lane* and all
lanes advance together, one hand per step: the work of a step is a few numpy calls
over thousands of boards, never a loop over hands.

Per step and lane: players may join or leave (never just before a Fantasyland
hand), the button moves to the next occupied seat (not on a hand in which anyone
plays Fantasyland), the deck is shuffled and dealt, the boards are set
(:mod:`ofc_stats.simulate.placement`), scored (:func:`score_batch`) and who plays
Fantasyland next, with how many cards, is read off the scorer's ``fl_entry``,
``fl_stay`` and ``fl_cards_next``, except where a Fantasyland fault is injected.

The deck is the variant's (jokers, two decks). Tables of the rooms' games (jokers,
double deck, 2-7) play for table stakes: a player sits down with 40 to 150 points'
worth of money, tops up below 10 points' worth, and each hand's money is capped at
the stacks (:mod:`ofc_stats.engine.stakes`); the stacks and what the room paid are recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import numpy.typing as npt

from ofc_stats.engine.cards import deck_codes
from ofc_stats.engine.rules import Variant, get_ruleset, ruleset_for_variant
from ofc_stats.engine.scoring import RuleTables, compile_rules, score_batch
from ofc_stats.engine.stakes import MICROS_PER_CENT, MICROS_PER_UNIT, hand_money
from ofc_stats.simulate.config import FaultKind
from ofc_stats.simulate.placement import place, place_fantasyland

I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

PINEAPPLE_DEAL = 17  # the most cards a player is dealt (Pineapple; a 17-card Fantasyland)
# The rooms' games, played for table stakes: stacks recorded, money capped at them.
STAKES_VARIANTS = frozenset({
    Variant.JOKER_PINEAPPLE, Variant.JOKER_PROGRESSIVE, Variant.JOKER_ULTIMATE,
    Variant.DOUBLE_DECK, Variant.DOUBLE_DECK_PINEAPPLE, Variant.DEUCE_TO_SEVEN})
BUY_IN_POINTS = (40, 80, 150)  # a stack sits down with this many points' worth
TOP_UP_BELOW_POINTS = 10
LINEUP_CHANGE_CHANCE = 1 / 30  # per hand, when nobody is due Fantasyland
MAX_EXTENSION = 60  # hands a session may run over to play out Fantasyland

TABLE_NAMES = (
    "Aldebaran", "Betelgeuse", "Capella", "Deneb", "Electra", "Fomalhaut", "Gemma",
    "Hadar", "Izar", "Jabbah", "Kochab", "Lesath", "Mira", "Nashira", "Orion", "Pollux",
    "Rigel", "Sirius", "Thuban", "Vega", "Wasat", "Zaurak", "Alcor", "Bellatrix",
    "Castor", "Diphda", "Enif", "Mizar", "Procyon", "Spica",
)
POINT_VALUES = ("0.10", "0.25", "0.50", "1", "2", "5")
NAME_STARTS = (
    "Ace", "Big", "Lucky", "Quiet", "Royal", "Sly", "Wild", "Lone", "Happy", "Red",
    "Cold", "Night", "River", "Grand", "Silver", "Iron", "Brave", "Crazy", "Dark", "Swift",
)
NAME_ENDS = (
    "Fox", "Shark", "Moon", "Pineapple", "Joker", "Donk", "Grinder", "Nit", "Whale",
    "Fish", "Rider", "Queen", "King", "Wizard", "Tiger", "Owl", "Bear", "Falcon", "Crab",
    "Wolf",
)


def deal_size(variant: Variant) -> int:
    """Cards a player is dealt in a normal hand of ``variant``."""
    return variant.cards_per_player


def max_seats(variant: Variant) -> int:
    """Seats at a table of ``variant``: as many as its deck deals (4 classic, 3
    Pineapple; 8 and 6 with two decks)."""
    return ruleset_for_variant(variant).max_players


@dataclass(frozen=True)
class PlayerPool:
    """The simulated players: screen name, skill in [0, 1] and how often they play."""

    names: tuple[str, ...]
    skill: npt.NDArray[np.float32]
    weight: npt.NDArray[np.float64]


def player_pool(size: int, rng: np.random.Generator) -> PlayerPool:
    """``size`` players with distinct names and skills spread evenly over [0, 1]."""
    combos = [start + end for start in NAME_STARTS for end in NAME_ENDS]
    picks = rng.permutation(len(combos))
    names = [combos[i] for i in picks[:size]]
    # Past 400 players, numbered names (as rooms do).
    names += [f"{combos[picks[i % len(combos)]]}{i // len(combos) + 1}"
              for i in range(len(names), size)]
    names = [name if rng.random() < 0.5 else name.lower() for name in names]
    skill = ((rng.permutation(size) + 0.5) / size).astype(np.float32)
    # Some players play much more than others.
    weight = 1.0 / (1.0 + 0.35 * rng.permutation(size))
    return PlayerPool(tuple(names), skill, weight / weight.sum())


@dataclass(frozen=True)
class TablePlan:
    """A table: its name, id prefix, variant, stakes and how many hands it plays."""

    name: str
    code: str
    variant: Variant
    point_value: Decimal
    hands: int


def plan_tables(hands: int, tables: int, variants: tuple[Variant, ...],
                rng: np.random.Generator, first_table: int = 0) -> list[TablePlan]:
    """Split ``hands`` over ``tables`` tables (unevenly), variants in turn; the tables
    are named from the ``first_table``-th name on."""
    share = rng.uniform(0.6, 1.4, tables)
    counts = np.floor(share / share.sum() * hands).astype(np.int64)
    counts[: hands - int(counts.sum())] += 1
    for empty in np.flatnonzero(counts == 0):  # every table plays (hands >= tables)
        counts[int(counts.argmax())] -= 1
        counts[empty] = 1
    plans = []
    for index in range(tables):
        named = first_table + index
        base = TABLE_NAMES[named % len(TABLE_NAMES)]
        number = named // len(TABLE_NAMES) + 1
        name = base if first_table + tables <= len(TABLE_NAMES) else f"{base} {number}"
        plans.append(TablePlan(
            name=name, code=name.lower().replace(" ", ""),
            variant=variants[index % len(variants)],
            point_value=Decimal(POINT_VALUES[int(rng.integers(len(POINT_VALUES)))]),
            hands=int(counts[index])))
    return plans


@dataclass
class GroupResult:
    """Everything a group of tables played, as arrays; hands in (table, time) order.

    Hands: ``table`` (index in the group's plans), ``session``, ``button_seat``
    (1-based), ``players``, ``fantasyland`` (anyone in it). Boards, in (hand, seat)
    order: ``hand``, ``seat`` (1-based), ``player`` (pool index), ``turn`` (position
    in the action order), ``in_fl``, ``fl_cards`` (-1 outside Fantasyland),
    ``dealt`` and ``rows`` (card codes in dealt order and where each went, -1
    padded to 17), ``boards`` (13 codes), ``points``, ``royalties``; at tables played
    for table stakes ``stacks`` (millionths, -1 elsewhere), ``money`` (what the room
    paid, cents: capped) and ``money_uncapped`` (cents).
    ``faults``: (kind, hand, board, details) of the Fantasyland faults injected.
    """

    table: I32
    session: I32
    button_seat: I8
    players: I8
    fantasyland: Bools
    hand: I64
    seat: I8
    player: I32
    turn: I8
    in_fl: Bools
    fl_cards: I8
    dealt: I8
    rows: I8
    boards: I8
    points: I32
    royalties: npt.NDArray[np.int16]
    faults: list[tuple[FaultKind, int, int, str]]
    stacks: I64
    money: I64
    money_uncapped: I64


def _session_lengths(plans: list[TablePlan], session_hands: int, rng: np.random.Generator
                     ) -> tuple[I32, I32, Bools]:
    """Lanes: (table, nominal length, final session of its table) per session."""
    tables, lengths, finals = [], [], []
    for index, plan in enumerate(plans):
        remaining = plan.hands
        while remaining > 0:
            length = int(rng.integers(session_hands // 2, session_hands * 3 // 2 + 1))
            if remaining - length < session_hands // 3:
                length = remaining
            tables.append(index)
            lengths.append(length)
            finals.append(length == remaining)
            remaining -= length
    return (np.array(tables, dtype=np.int32), np.array(lengths, dtype=np.int32),
            np.array(finals, dtype=bool))


def _random_pick(mask: Bools, rng: np.random.Generator) -> I64:
    """Per row, a random column where ``mask`` is true (rows need at least one)."""
    keys = rng.random(mask.shape)
    keys[~mask] = -1.0
    picked: I64 = keys.argmax(axis=1)
    return picked


def _draw_new_players(seated: I32, count: int, pool: PlayerPool, rng: np.random.Generator
                      ) -> I32:
    """One player per row, by popularity, not already in that row's ``seated``."""
    chosen = rng.choice(len(pool.names), size=count, p=pool.weight).astype(np.int32)
    for _ in range(50):
        clash = (seated == chosen[:, None]).any(axis=1)
        if not clash.any():
            break
        chosen[clash] = rng.choice(len(pool.names), size=int(clash.sum()), p=pool.weight)
    return chosen


def simulate_group(plans: list[TablePlan], variant: Variant, pool: PlayerPool,
                   session_hands: int, quota: dict[FaultKind, int],
                   rng: np.random.Generator) -> GroupResult:
    """Play every session of ``plans`` (tables of one variant) to the end."""
    ruleset = get_ruleset(variant.value)
    rules = compile_rules(ruleset)
    seats_at_table = max_seats(variant)
    per_player = deal_size(variant)
    deck_template = deck_codes(ruleset.jokers, ruleset.decks)
    lane_table, lane_length, lane_final = _session_lengths(plans, session_hands, rng)
    lanes = len(lane_table)

    # Opening line-ups: 2 to all seats, drawn by popularity.
    seated = np.full((lanes, seats_at_table), -1, dtype=np.int32)
    sizes = rng.integers(2, seats_at_table + 1, lanes)
    for seat in range(seats_at_table):
        joining = np.flatnonzero(sizes > seat)
        seated[joining, seat] = _draw_new_players(seated[joining], len(joining), pool, rng)
    # Open seats are spread around the table, not always the last ones.
    seated = np.take_along_axis(seated, np.argsort(rng.random(seated.shape), axis=1), axis=1)
    in_fl = np.zeros((lanes, seats_at_table), dtype=bool)
    fl_cards = np.full((lanes, seats_at_table), -1, dtype=np.int8)
    button = _random_pick(seated >= 0, rng)
    stakes = variant in STAKES_VARIANTS
    # Money per point of each lane's table, in millionths; stacks (-1: nobody there).
    lane_value = np.array([int(plans[int(t)].point_value * MICROS_PER_UNIT)
                           for t in lane_table.tolist()], dtype=np.int64)
    stacks = np.full((lanes, seats_at_table), -1, dtype=np.int64)
    hold = np.zeros(lanes, dtype=bool)  # keep the line-up: a fault needs the next hand
    done = np.zeros(lanes, dtype=bool)
    targets = {kind: sorted(rng.integers(0, session_hands, count).tolist())
               for kind, count in quota.items() if count}
    injected = dict.fromkeys(targets, 0)

    hand_parts: list[dict[str, np.ndarray]] = []
    board_parts: list[dict[str, np.ndarray]] = []
    pending_faults: list[tuple[FaultKind, int, int, int, str]] = []  # kind, lane, step, seat
    seat_numbers = np.arange(seats_at_table)
    step = 0
    while not done.all():
        active = np.flatnonzero(~done)
        lineup = seated[active]
        fl_now = in_fl[active] & (lineup >= 0)
        anyone_fl = np.asarray(fl_now.any(axis=1), dtype=bool)
        joined = lineup >= 0
        if step > 0:
            before = lineup
            lineup = _change_lineups(lineup, ~anyone_fl & ~hold[active], pool, rng)
            seated[active] = lineup
            joined = lineup != before
        occupied = lineup >= 0
        if stakes:
            stacks[active] = _buy_in(stacks[active], occupied, joined, lane_value[active], rng)
        # The button moves to the next occupied seat, except on Fantasyland hands.
        moving = ~anyone_fl if step > 0 else np.zeros(len(active), dtype=bool)
        lane_button = button[active]
        distance = (seat_numbers[None, :] - lane_button[:, None] - 1) % seats_at_table
        next_seat = np.where(occupied, distance, seats_at_table).argmin(axis=1)
        lane_button = np.where(moving | ~occupied[np.arange(len(active)), lane_button],
                               next_seat, lane_button)
        button[active] = lane_button
        # Action order: clockwise from the seat left of the button.
        turn_of_seat = (seat_numbers[None, :] - lane_button[:, None] - 1) % seats_at_table

        deck = rng.permuted(np.broadcast_to(deck_template,
                                            (len(active), len(deck_template))), axis=1)
        board_lane, board_seat = np.nonzero(occupied)  # (lane, seat) order
        count = len(board_lane)
        dealt = np.full((count, PINEAPPLE_DEAL), -1, dtype=np.int8)
        dealt_all = deck.reshape(len(active), -1)[
            board_lane[:, None], board_seat[:, None] * per_player + np.arange(per_player)]
        players = lineup[board_lane, board_seat]
        board_fl = fl_now[board_lane, board_seat]
        board_fl_cards = np.where(board_fl, fl_cards[active][board_lane, board_seat],
                                  np.int8(-1)).astype(np.int8)
        skill = pool.skill[players]
        rows = np.full((count, PINEAPPLE_DEAL), -1, dtype=np.int8)
        boards = np.empty((13, count), dtype=np.int8)

        normal = np.flatnonzero(~board_fl)
        if len(normal):
            placed = place(dealt_all[normal], skill[normal], rules,
                           pineapple_streets=per_player == PINEAPPLE_DEAL,
                           in_fantasyland=False, rng=rng)
            dealt[normal, :per_player] = dealt_all[normal]
            rows[normal, :per_player] = placed.rows
            boards[:, normal] = placed.boards
        for cards in np.unique(board_fl_cards[board_fl]):
            which = np.flatnonzero(board_fl & (board_fl_cards == cards))
            fl_dealt = _fantasyland_deal(deck, board_lane[which], board_seat[which],
                                         int(cards), per_player, occupied)
            placed = place_fantasyland(fl_dealt, skill[which], rules, rng=rng)
            dealt[which, :cards] = fl_dealt
            rows[which, :cards] = placed.rows
            boards[:, which] = placed.boards

        per_hand = occupied.sum(axis=1)
        starts = np.concatenate([[0], np.cumsum(per_hand)]).astype(np.int64)
        scores, _ = score_batch(boards, starts, rules, in_fantasyland=board_fl,
                                fl_cards=board_fl_cards)
        board_stacks = stacks[active][board_lane, board_seat]
        if stakes:
            money = hand_money(scores.points, starts, lane_value[active][board_lane],
                               board_stacks, table_stakes=True)
            paid = money.capped
            uncapped = (money.money + MICROS_PER_CENT // 2) // MICROS_PER_CENT
            stacks[active[board_lane], board_seat] += paid * MICROS_PER_CENT
        else:
            paid = uncapped = np.zeros(count, dtype=np.int64)
        next_fl = scores.fl_entry | scores.fl_stay
        next_cards = scores.fl_cards_next.copy()

        hold[active] = False
        will_continue = step + 1 < lane_length[active[board_lane]]
        # One fault per board: a second would undo the first (an unearned entry then
        # "missing" is no fault at all), and the ground truth would list two.
        untouched = np.ones(count, dtype=bool)
        for kind in targets:
            due = sum(target <= step for target in targets[kind]) - injected[kind]
            if due <= 0:
                continue
            chosen = _inject_fantasyland_fault(kind, due, next_fl, next_cards, board_fl,
                                               will_continue & untouched, per_hand[board_lane],
                                               per_player, len(deck_template), rules, rng)
            for board, _ in chosen:
                untouched[board] = False
            for board, details in chosen:
                lane = int(active[board_lane[board]])
                hold[lane] = True
                pending_faults.append((kind, lane, step + 1, int(board_seat[board]), details))
            injected[kind] += len(chosen)

        in_fl[active] = False
        fl_cards[active] = -1
        in_fl[active[board_lane], board_seat] = next_fl
        fl_cards[active[board_lane], board_seat] = next_cards
        played = step + 1
        due_fl = np.bincount(board_lane, weights=next_fl, minlength=len(active)) > 0
        length = lane_length[active]
        finished = ((played >= length) & (lane_final[active] | ~due_fl)) | (
            played >= length + MAX_EXTENSION)
        done[active[finished]] = True

        hand_parts.append({
            "lane": active.astype(np.int32), "step": np.full(len(active), step, np.int32),
            "button_seat": (lane_button + 1).astype(np.int8),
            "players": per_hand.astype(np.int8), "fantasyland": anyone_fl,
        })
        board_parts.append({
            "lane": active[board_lane].astype(np.int32), "step": np.full(count, step, np.int32),
            "seat": (board_seat + 1).astype(np.int8), "player": players,
            "turn": turn_of_seat[board_lane, board_seat].astype(np.int8),
            "in_fl": board_fl, "fl_cards": board_fl_cards, "dealt": dealt, "rows": rows,
            "boards": np.ascontiguousarray(boards.T), "points": scores.points,
            "royalties": scores.royalties, "stacks": board_stacks, "money": paid,
            "money_uncapped": uncapped,
        })
        step += 1
    return _assemble(hand_parts, board_parts, pending_faults, lane_table, plans)


def _buy_in(stacks: I64, occupied: Bools, new: Bools, point_value: I64,
            rng: np.random.Generator) -> I64:
    """Stacks (millionths) after players sit down with a buy-in and short stacks top up;
    empty seats hold -1."""
    value = point_value[:, None]
    buy_in = np.array(BUY_IN_POINTS, dtype=np.int64)[rng.integers(0, len(BUY_IN_POINTS),
                                                                  stacks.shape)] * value
    short = occupied & (stacks < TOP_UP_BELOW_POINTS * value)
    stacks = np.where(occupied & (new | short), np.maximum(stacks, buy_in), stacks)
    return np.where(occupied, stacks, np.int64(-1))


def _change_lineups(lineup: I32, allowed: Bools, pool: PlayerPool, rng: np.random.Generator
                    ) -> I32:
    """Now and then a player leaves or joins (rows where ``allowed``)."""
    events = np.flatnonzero(allowed & (rng.random(len(lineup)) < LINEUP_CHANGE_CHANCE))
    if not len(events):
        return lineup
    lineup = lineup.copy()
    rows = lineup[events]
    occupied = rows >= 0
    count = occupied.sum(axis=1)
    seats = rows.shape[1]
    join = (count < seats) & ((count <= 2) | (rng.random(len(events)) < 0.5))
    leave = ~join
    if leave.any():
        seat = _random_pick(occupied[leave], rng)
        rows[np.flatnonzero(leave), seat] = -1
    if join.any():
        seat = _random_pick(~occupied[join], rng)
        rows[np.flatnonzero(join), seat] = _draw_new_players(rows[join], int(join.sum()),
                                                             pool, rng)
    lineup[events] = rows
    return lineup


def _fantasyland_deal(deck: I8, lanes: I64, seats: I64, cards: int, per_player: int,
                      occupied: Bools) -> I8:
    """A Fantasyland deal of ``cards`` cards from each seat's share of the deck.

    Classic gives each seat a 13-card share; a classic Fantasyland hand of more cards
    (only ever an injected wrong count, below four players) takes the extra cards
    from an empty seat's share.
    """
    own: I8 = deck[lanes[:, None], seats[:, None] * per_player + np.arange(min(cards, per_player))]
    if cards <= per_player:
        return own
    spare_seat = occupied[lanes].argmin(axis=1)
    extra = deck[lanes[:, None], spare_seat[:, None] * per_player
                 + np.arange(cards - per_player)]
    return np.concatenate([own, extra], axis=1)


def _inject_fantasyland_fault(kind: FaultKind, due: int, next_fl: Bools, next_cards: I8,
                              board_fl: Bools, will_continue: Bools, hand_players: I64,
                              per_player: int, deck_size: int, rules: RuleTables,
                              rng: np.random.Generator) -> list[tuple[int, str]]:
    """Break the Fantasyland chain of up to ``due`` boards; returns (board, details)."""
    first_count = int(rules.entry_cards[0])
    if kind is FaultKind.FL_UNEARNED:
        eligible = ~next_fl & ~board_fl & will_continue
    elif kind is FaultKind.FL_MISSING:
        eligible = next_fl & will_continue
    else:
        # A wrong count needs a spare card: pineapple always has them; classic
        # only below the deck's full table.
        spare = (per_player != 13) | (hand_players * per_player < deck_size)
        eligible = next_fl & will_continue & (next_cards > 0) & spare
    candidates = np.flatnonzero(eligible)
    if not len(candidates):
        return []
    chosen = rng.choice(candidates, size=min(due, len(candidates)), replace=False)
    out = []
    for board in chosen.tolist():
        if kind is FaultKind.FL_UNEARNED:
            next_fl[board] = True
            next_cards[board] = first_count
            details = (f"recorded in Fantasyland ({first_count} cards) without qualifying "
                       "the hand before")
        elif kind is FaultKind.FL_MISSING:
            details = (f"qualified for Fantasyland ({int(next_cards[board])} cards) the hand "
                       "before, recorded as a normal hand")
            next_fl[board] = False
            next_cards[board] = -1
        else:
            right = int(next_cards[board])
            wrong = right + 1 if right < 16 else right - 1
            next_cards[board] = wrong
            details = f"Fantasyland dealt {wrong} cards, the ruleset gives {right}"
        out.append((board, details))
    return out


def _assemble(hand_parts: list[dict[str, np.ndarray]], board_parts: list[dict[str, np.ndarray]],
              pending: list[tuple[FaultKind, int, int, int, str]], lane_table: I32,
              plans: list[TablePlan]) -> GroupResult:
    """Stack the steps and sort hands into (table, session, step) order."""
    hands = {name: np.concatenate([part[name] for part in hand_parts])
             for name in hand_parts[0]}
    boards = {name: np.concatenate([part[name] for part in board_parts])
              for name in board_parts[0]}
    # Lanes are numbered table by table, session by session: (lane, step) is time order.
    hand_order = np.lexsort((hands["step"], hands["lane"]))
    hands = {name: values[hand_order] for name, values in hands.items()}
    lanes = len(lane_table)
    steps = int(hands["step"].max()) + 1
    hand_index = np.full(lanes * steps, -1, dtype=np.int64)
    hand_index[hands["lane"].astype(np.int64) * steps + hands["step"]] = np.arange(
        len(hand_order))
    board_hand = hand_index[boards["lane"].astype(np.int64) * steps + boards["step"]]
    board_order = np.lexsort((boards["seat"], board_hand))
    boards = {name: values[board_order] for name, values in boards.items()}
    board_hand = board_hand[board_order]

    # Per table, keep exactly its planned hands: sessions that ran over to play out
    # Fantasyland push the end of the table's last session out.
    table = lane_table[hands["lane"]]
    position = np.arange(len(table)) - np.searchsorted(table, table, side="left")
    planned = np.array([plan.hands for plan in plans], dtype=np.int64)
    keep = position < planned[table]
    new_index = np.cumsum(keep) - 1
    keep_board = keep[board_hand]

    board_new = np.cumsum(keep_board) - 1
    starts = np.concatenate([[0], np.cumsum(np.bincount(board_hand, minlength=len(table)))])
    faults = []
    for kind, lane, step, seat, details in pending:
        hand = int(hand_index[lane * steps + step]) if step < steps else -1
        if hand < 0 or not keep[hand]:
            continue  # the hand was cut with the end of its table
        where = starts[hand] + np.flatnonzero(boards["seat"][starts[hand]:starts[hand + 1]]
                                              == seat + 1)
        faults.append((kind, int(new_index[hand]), int(board_new[where[0]]), details))
    return GroupResult(
        table=table[keep].astype(np.int32),
        session=hands["lane"][keep].astype(np.int32),
        button_seat=hands["button_seat"][keep], players=hands["players"][keep],
        fantasyland=hands["fantasyland"][keep],
        hand=new_index[board_hand[keep_board]].astype(np.int64),
        seat=boards["seat"][keep_board], player=boards["player"][keep_board],
        turn=boards["turn"][keep_board], in_fl=boards["in_fl"][keep_board],
        fl_cards=boards["fl_cards"][keep_board], dealt=boards["dealt"][keep_board],
        rows=boards["rows"][keep_board], boards=boards["boards"][keep_board],
        points=boards["points"][keep_board].astype(np.int32),
        royalties=boards["royalties"][keep_board].astype(np.int16),
        faults=faults,
        stacks=boards["stacks"][keep_board].astype(np.int64),
        money=boards["money"][keep_board].astype(np.int64),
        money_uncapped=boards["money_uncapped"][keep_board].astype(np.int64),
    )
