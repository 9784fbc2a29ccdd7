"""A deliberately plain per-hand OFC scorer, written from RULES.md.

It shares nothing with the vectorised engine but the Ruleset's data (royalty
values, thresholds, the deck): hands are ranked as Python tuples, one hand at a
time, jokers are tried as every one of the 52 cards (every pair of cards for two),
and table stakes are settled with fractions, so the tests can hold the fast code to
it. Keep it boring and obviously right.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from math import floor

from ofc_stats.engine.rules import MiddleRow, Ruleset, StayCards

RANK_ORDER = "23456789TJQKA"
SUITS = "cdhs"
CATEGORIES = ["high card", "pair", "two pair", "trips", "straight", "flush",
              "full house", "quads", "straight flush", "five of a kind"]
SUIT_ALIASES = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}
JOKER = "Xj"
# The 52 cards in the order a joker tries them: 2c 2d 2h 2s 3c ... As.
ALL_CARDS = [rank + suit for rank in RANK_ORDER for suit in SUITS]
ROWS = ("top", "middle", "bottom")


def normalise(card: str) -> str:
    card = card.strip()
    if card.lower() in ("xj", "jk", "joker"):
        return JOKER
    rank, suit = card[:-1], card[-1]
    rank = "T" if rank == "10" else rank.upper()
    suit = SUIT_ALIASES.get(suit, suit.lower())
    assert rank in RANK_ORDER, card
    assert suit in "cdhs", card
    return rank + suit


def rank_value(card: str) -> int:
    return RANK_ORDER.index(card[0])


def hand_rank(cards: list[str], ace_low_straight: bool = True) -> tuple[int, ...]:
    """(category, deciding ranks...) for a 3- or 5-card row; tuples compare per RULES §2.

    A shorter tuple that equals the start of a longer one is smaller, which is exactly
    "the top's missing kickers count as lower than any card". With two decks a row
    may repeat a card: five of a kind tops everything, and a flush holding a pair is
    still a flush (compared card by card from the highest). Deuce-to-seven lowball
    ranks as the high rules do, except that A-2-3-4-5 is no straight
    (``ace_low_straight=False``).
    """
    values = sorted((rank_value(card) for card in cards), reverse=True)
    counts = Counter(values)
    # Ranks ordered by how many of them there are, then by rank.
    grouped = sorted(counts, key=lambda value: (counts[value], value), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if len(cards) == 3:
        if shape == [3]:
            return (CATEGORIES.index("trips"), grouped[0])
        if shape == [2, 1]:
            return (CATEGORIES.index("pair"), grouped[0], grouped[1])
        return (CATEGORIES.index("high card"), *values)

    if shape == [5]:
        return (CATEGORIES.index("five of a kind"), grouped[0])
    flush = len({card[1] for card in cards}) == 1
    straight_high = None
    if len(counts) == 5:
        if values[0] - values[4] == 4:
            straight_high = values[0]
        elif values == [12, 3, 2, 1, 0] and ace_low_straight:  # the wheel is five-high
            straight_high = 3
    if straight_high is not None and flush:
        return (CATEGORIES.index("straight flush"), straight_high)
    if shape == [4, 1]:
        return (CATEGORIES.index("quads"), *grouped)
    if shape == [3, 2]:
        return (CATEGORIES.index("full house"), *grouped)
    if flush:
        return (CATEGORIES.index("flush"), *values)
    if straight_high is not None:
        return (CATEGORIES.index("straight"), straight_high)
    if shape == [3, 1, 1]:
        return (CATEGORIES.index("trips"), *grouped)
    if shape == [2, 2, 1]:
        return (CATEGORIES.index("two pair"), *grouped)
    if shape == [2, 1, 1, 1]:
        return (CATEGORIES.index("pair"), *grouped)
    return (CATEGORIES.index("high card"), *values)


def top_spec_rank(spec: str) -> tuple[int, ...]:
    """The weakest top row meeting a spec like 'QQ' or '222'."""
    value = RANK_ORDER.index(spec[0])
    if len(spec) == 3:
        return (CATEGORIES.index("trips"), value)
    return (CATEGORIES.index("pair"), value)  # any kicker is >= this prefix


def lowball(ruleset: Ruleset) -> bool:
    return ruleset.middle is MiddleRow.DEUCE_TO_SEVEN


def is_low(rank: tuple[int, ...]) -> bool:
    """A deuce-to-seven hand with no pair, straight or flush."""
    return rank[0] == CATEGORIES.index("high card")


def low_meets(rank: tuple[int, ...], spec: str) -> bool:
    """Whether a 2-7 middle is at least as good a low as ``spec``: '8' (any eight-low)
    or five cards such as '75432'."""
    if not is_low(rank):
        return False
    wanted = sorted((RANK_ORDER.index(char) for char in spec), reverse=True)
    if len(wanted) == 1:
        return rank[1] <= wanted[0]
    return list(rank[1:]) <= wanted


def low_royalty(rank: tuple[int, ...], table: dict[str, int]) -> int:
    if not is_low(rank):
        return 0
    exact = "".join(RANK_ORDER[value] for value in rank[1:])
    for key, points in table.items():
        if len(key) == 5 and sorted(key, key=RANK_ORDER.index, reverse=True) == list(exact):
            return points
    return table.get(RANK_ORDER[rank[1]], 0)


def row_royalty(row: str, rank: tuple[int, ...], ruleset: Ruleset) -> int:
    category = CATEGORIES[rank[0]]
    if row == "top":
        letter = RANK_ORDER[rank[1]] if category in ("pair", "trips") else None
        if category == "pair":
            return ruleset.royalties.top_pairs.get(letter, 0)
        if category == "trips":
            return ruleset.royalties.top_trips.get(letter, 0)
        return 0
    if row == "middle" and lowball(ruleset):
        return low_royalty(rank, dict(ruleset.lowball.royalties))
    table = ruleset.royalties.middle if row == "middle" else ruleset.royalties.bottom
    if category == "five of a kind":  # RULES §10: a straight flush's unless listed
        return table.get("five of a kind", table.get("straight flush", 0))
    if category == "straight flush" and rank[1] == 12 and "royal flush" in table:
        return table["royal flush"]
    return table.get(category, 0)


def is_fouled(ranks: dict[str, tuple[int, ...]], ruleset: Ruleset) -> bool:
    if not lowball(ruleset):
        return not (ranks["bottom"] >= ranks["middle"] >= ranks["top"])
    # A 2-7 middle: bottom >= top, and (the room's qualifier) a middle no higher than
    # the qualifying card with no pair, straight or flush.
    qualifier = ruleset.lowball.qualifier
    middle_ok = qualifier is None or low_meets(ranks["middle"], qualifier)
    return not (ranks["bottom"] >= ranks["top"] and middle_ok)


def comparable(row: str, rank: tuple[int, ...], ruleset: Ruleset) -> tuple[int, ...]:
    """A row's rank oriented so that larger is better (a 2-7 middle: the lower low)."""
    if row == "middle" and lowball(ruleset):
        return tuple(-value for value in rank)
    return rank


@dataclass
class BoardResult:
    fouled: bool
    problem: bool
    royalties: dict[str, int]
    points: int = 0
    rows_won: int = 0
    rows_lost: int = 0
    scoops: int = 0
    scooped: int = 0
    fl_entry: bool = False
    fl_stay: bool = False
    fl_cards_next: int | None = None
    fl_qualifies_entry: bool = False
    fl_entry_cards: int | None = None
    fl_qualifies_stay: bool = False
    fl_stay_cards: int | None = None
    moon: bool = False
    ranks: dict[str, tuple[int, ...]] = field(default_factory=dict)
    jokers_as: list[str] = field(default_factory=list)  # each joker's card, board order


@dataclass
class Board:
    player: str
    top: list[str]
    middle: list[str]
    bottom: list[str]
    in_fantasyland: bool = False
    fl_cards: int | None = None
    starting_stack: str | None = None

    def rows(self) -> dict[str, list[str]]:
        return {"top": self.top, "middle": self.middle, "bottom": self.bottom}


@lru_cache(maxsize=1 << 18)
def _row_rank(cards: tuple[str, ...], ace_low_straight: bool) -> tuple[int, ...]:
    return hand_rank(list(cards), ace_low_straight)  # remembered: jokers try many rows


def evaluate(rows: dict[str, list[str]], ruleset: Ruleset
             ) -> tuple[bool, dict[str, tuple[int, ...]], dict[str, int]]:
    """Fouled, ranks and royalties (0 when fouled) of a board of real cards."""
    ranks = {name: _row_rank(tuple(cards), not (name == "middle" and lowball(ruleset)))
             for name, cards in rows.items()}
    fouled = is_fouled(ranks, ruleset)
    royalties = {name: 0 if fouled else row_royalty(name, rank, ruleset)
                 for name, rank in ranks.items()}
    return fouled, ranks, royalties


def resolve_jokers(rows: dict[str, list[str]], ruleset: Ruleset
                   ) -> tuple[dict[str, list[str]], list[str]]:
    """RULES §9 by brute force: every joker tried as every card (distinct within its
    row), the assignment that stands with the most royalties kept, then the strongest
    rows top, middle, bottom; the first such assignment in card order wins ties."""
    slots = [(name, index) for name in ROWS for index, card in enumerate(rows[name])
             if card == JOKER]
    best_key: tuple[object, ...] | None = None
    best: tuple[dict[str, list[str]], list[str]] = (rows, [])
    for cards in itertools.product(ALL_CARDS, repeat=len(slots)):
        resolved = {name: list(row) for name, row in rows.items()}
        for (name, index), card in zip(slots, cards, strict=True):
            resolved[name][index] = card
        if any(len(set(row)) < len(row) for row in resolved.values()):
            continue  # within one row the cards are distinct
        fouled, ranks, royalties = evaluate(resolved, ruleset)
        key = (not fouled, sum(royalties.values()),
               *(comparable(name, ranks[name], ruleset) for name in ROWS))
        if best_key is None or key > best_key:
            best_key, best = key, (resolved, list(cards))
    return best


def score_board(board: Board, ruleset: Ruleset, problem: bool) -> BoardResult:
    rows = {name: [normalise(card) for card in cards] for name, cards in board.rows().items()}
    sizes_ok = [len(rows["top"]), len(rows["middle"]), len(rows["bottom"])] == [3, 5, 5]
    if problem or not sizes_ok:
        return BoardResult(fouled=True, problem=True,
                           royalties={"top": 0, "middle": 0, "bottom": 0})
    jokers_as: list[str] = []
    if any(card == JOKER for cards in rows.values() for card in cards):
        rows, jokers_as = resolve_jokers(rows, ruleset)
    fouled, ranks, royalties = evaluate(rows, ruleset)
    result = BoardResult(fouled=fouled, problem=False, royalties=royalties, ranks=ranks,
                         jokers_as=jokers_as)
    if fouled:
        return result

    fantasyland = ruleset.fantasyland
    # What the board would earn from outside Fantasyland (entry) and from inside (stay).
    for spec, cards in fantasyland.entry:  # sorted weakest first
        if ranks["top"] >= top_spec_rank(spec):
            result.fl_qualifies_entry = True
            result.fl_entry_cards = cards
    if lowball(ruleset):
        for spec, cards in fantasyland.entry_lowball:
            if low_meets(ranks["middle"], spec):
                result.fl_qualifies_entry = True
                result.fl_entry_cards = max(result.fl_entry_cards or 0, cards)
    if fantasyland.stay_top and ranks["top"] >= top_spec_rank(fantasyland.stay_top):
        result.fl_qualifies_stay = True
    for row, label in (("middle", fantasyland.stay_middle),
                       ("bottom", fantasyland.stay_bottom)):
        if label and ranks[row][0] >= CATEGORIES.index(label):
            result.fl_qualifies_stay = True
    if fantasyland.stay_lowball and low_meets(ranks["middle"], fantasyland.stay_lowball):
        result.fl_qualifies_stay = True
    if result.fl_qualifies_stay:
        result.fl_stay_cards = (board.fl_cards if fantasyland.stay_cards is StayCards.REPEAT
                                else int(fantasyland.stay_cards))
    # What it earns given where it was played.
    if board.in_fantasyland:
        result.fl_stay = result.fl_qualifies_stay
        result.fl_cards_next = result.fl_stay_cards
    else:
        result.fl_entry = result.fl_qualifies_entry
        result.fl_cards_next = result.fl_entry_cards
    if ruleset.shoot_the_moon:
        bottom = ranks["bottom"]
        result.moon = bottom[0] == 0 and bottom[1] <= RANK_ORDER.index(ruleset.moon_high_card)
    return result


@dataclass
class PairResult:
    player: str
    opponent: str
    rows_won: int
    rows_lost: int
    scoop: bool
    scooped: bool
    royalty_diff: int
    points: int
    row_results: list[int]  # top, middle, bottom: 1 won, -1 lost, 0 tied


def score_pair(a: BoardResult, b: BoardResult, a_name: str, b_name: str, ruleset: Ruleset
               ) -> PairResult:
    if a.fouled and b.fouled:
        results = [0, 0, 0]
    elif a.fouled:
        results = [-1, -1, -1]
    elif b.fouled:
        results = [1, 1, 1]
    else:
        results = []
        for row in ROWS:
            mine = comparable(row, a.ranks[row], ruleset)
            theirs = comparable(row, b.ranks[row], ruleset)
            results.append((mine > theirs) - (mine < theirs))
    won, lost = results.count(1), results.count(-1)
    scoop, scooped = won == 3, lost == 3
    method = ruleset.scoring.value
    points = won - lost
    if method == "1-6":
        points += 3 if scoop else -3 if scooped else 0
    elif method == "2-4":
        points += 1 if won > lost else -1 if lost > won else 0
    elif method == "2-6":
        if scoop:
            points += 3
        elif scooped:
            points -= 3
        else:
            points += 1 if won > lost else -1 if lost > won else 0
    royalty_diff = sum(a.royalties.values()) - sum(b.royalties.values())
    points += royalty_diff
    if a.moon or b.moon:
        points = ruleset.moon_points * (int(a.moon) - int(b.moon))
    return PairResult(a_name, b_name, won, lost, scoop, scooped, royalty_diff, points, results)


def board_problems(boards: list[Board], ruleset: Ruleset) -> list[bool]:
    """Which boards hold a card more often than the decks do, or a joker the deck has
    not (RULES §1, §9, §10)."""
    cards = [[normalise(card) for row in board.rows().values() for card in row]
             for board in boards]
    seen = Counter(card for board_cards in cards for card in board_cards)
    jokers_in_deck = ruleset.jokers * ruleset.decks
    problems = []
    for board_cards in cards:
        jokers = board_cards.count(JOKER)
        bad = any(card != JOKER and seen[card] > ruleset.decks for card in board_cards)
        bad |= jokers > 0 and (seen[JOKER] > jokers_in_deck or jokers > 2)
        problems.append(bad)
    return problems


def score_hand(boards: list[Board], ruleset: Ruleset
               ) -> tuple[list[BoardResult], list[PairResult]]:
    """Score one hand: every board, then every pair of players in seat order."""
    problems = board_problems(boards, ruleset)
    results = [score_board(board, ruleset, problem)
               for board, problem in zip(boards, problems, strict=True)]
    pairs = []
    for i in range(len(boards)):
        for j in range(i + 1, len(boards)):
            pair = score_pair(results[i], results[j], boards[i].player, boards[j].player,
                              ruleset)
            pairs.append(pair)
            results[i].points += pair.points
            results[j].points -= pair.points
            results[i].rows_won += pair.rows_won
            results[i].rows_lost += pair.rows_lost
            results[j].rows_won += pair.rows_lost
            results[j].rows_lost += pair.rows_won
            results[i].scoops += pair.scoop
            results[j].scoops += pair.scooped
            results[i].scooped += pair.scooped
            results[j].scooped += pair.scoop
    return results, pairs


# --- table stakes (RULES §11), with fractions ---------------------------------------


def largest_remainder(total: int, shares: list[Fraction]) -> list[int]:
    """Whole cents summing to ``total`` from exact shares that sum to it: each share
    rounded down, the cents left over to the largest fractional parts (earlier first)."""
    floors = [floor(share) for share in shares]
    left = total - sum(floors)
    by_remainder = sorted(range(len(shares)), key=lambda i: (-(shares[i] - floors[i]), i))
    for index in by_remainder[:left]:
        floors[index] += 1
    return floors


def proportional(total: int, weights: list[int]) -> list[int]:
    """``total`` cents split in proportion to ``weights``, by largest remainder."""
    weight = sum(weights)
    if weight == 0:
        return [0] * len(weights)
    return largest_remainder(total, [Fraction(total * w, weight) for w in weights])


def capped_money(net_cents: list[int], stacks_cents: list[int | None]) -> list[int]:
    """One hand's results (cents) capped at the players' stacks (None: no stack).

    First every loser pays at most their stack, what the losers pay going to the
    winners in proportion to what each won; then every winner receives at most their
    stack, what the winners receive taken from the payers in proportion to what each
    paid. Each split is in cents, by largest remainder.
    """
    players = range(len(net_cents))
    owes = [max(-net, 0) for net in net_cents]
    owed = [max(net, 0) for net in net_cents]
    pays = [owes[i] if stacks_cents[i] is None else min(owes[i], max(stacks_cents[i] or 0, 0))
            for i in players]
    due = proportional(sum(pays), owed)
    receives = [due[i] if stacks_cents[i] is None else min(due[i], max(stacks_cents[i] or 0, 0))
                for i in players]
    paid = proportional(sum(receives), pays)
    return [receives[i] - paid[i] for i in players]


def money_in_cents(points: list[int], point_value: Fraction) -> list[int]:
    """Each player's points times the point value, rounded to cents so the hand still
    sums to zero (largest remainder; exact when the point value is whole cents)."""
    exact = [point * point_value * 100 for point in points]
    assert sum(exact) == 0
    return largest_remainder(0, exact)


# --- Fantasyland: the best setting by brute force (RULES.md section 12) --------------


@dataclass
class FantasylandBest:
    """The best value of a Fantasyland hand and every setting that reaches it."""

    value: float
    # (top, middle, bottom, royalties, stays) of each best setting, rows as sorted tuples
    settings: list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], int, bool]]


def row_stays(row: str, rank: tuple[int, ...], ruleset: Ruleset) -> bool:
    """Whether this row alone keeps a standing board in Fantasyland (RULES.md 7); a
    2-7 middle (ranked with ``ace_low_straight=False``) by the ruleset's low."""
    fantasyland = ruleset.fantasyland
    if row == "middle" and lowball(ruleset):
        return bool(fantasyland.stay_lowball) and low_meets(rank, fantasyland.stay_lowball)
    if row == "top":
        return bool(fantasyland.stay_top) and rank >= top_spec_rank(str(fantasyland.stay_top))
    label = fantasyland.stay_middle if row == "middle" else fantasyland.stay_bottom
    return bool(label) and rank[0] >= CATEGORIES.index(str(label))


def brute_force_fantasyland(cards: list[str], ruleset: Ruleset, stay_value: float
                            ) -> FantasylandBest:
    """Every way to set 13 of ``cards`` as bottom, middle and top (the rest discarded),
    valued as royalties plus ``stay_value`` if the board stays; a fouled setting is
    worth nothing and never best. No pruning: every arrangement is evaluated.

    What a row of given cards ranks, pays and whether it stays is computed once per
    row; ranks are then compared as their places in the sorted list of the hand's
    row ranks (the same order as the rank tuples, cheaper to compare).
    """
    from itertools import combinations

    cards = [normalise(card) for card in cards]
    positions = range(len(cards))
    ranks = {subset: hand_rank([cards[i] for i in subset])
             for size in (3, 5) for subset in combinations(positions, size)}
    place = {rank: index for index, rank in enumerate(sorted(set(ranks.values())))}
    low = lowball(ruleset)
    qualifier = ruleset.lowball.qualifier if low else None

    def row(name: str, subset: tuple[int, ...]) -> tuple[int, int, bool]:
        rank = ranks[subset]
        if name == "middle" and low:
            # A 2-7 middle: its place says only whether it stands (1) or not (0).
            rank = hand_rank([cards[i] for i in subset], ace_low_straight=False)
            stands = qualifier is None or low_meets(rank, qualifier)
            return int(stands), row_royalty(name, rank, ruleset), row_stays(name, rank,
                                                                             ruleset)
        return place[rank], row_royalty(name, rank, ruleset), row_stays(name, rank, ruleset)

    bottoms = {subset: row("bottom", subset) for subset in combinations(positions, 5)}
    middles = {subset: row("middle", subset) for subset in combinations(positions, 5)}
    tops = {subset: row("top", subset) for subset in combinations(positions, 3)}

    def text(subset: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(sorted(cards[i] for i in subset))

    best_value = -1.0
    best: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int, bool]] = []
    for bottom, (bottom_place, bottom_royalty, bottom_stays) in bottoms.items():
        rest = [i for i in positions if i not in bottom]
        for middle in combinations(rest, 5):
            middle_place, middle_royalty, middle_stays = middles[middle]
            left = [i for i in rest if i not in middle]
            for top in combinations(left, 3):
                top_place, top_royalty, top_stays = tops[top]
                if not (bottom_place >= top_place and middle_place == 1 if low
                        else bottom_place >= middle_place >= top_place):
                    continue  # fouled: no royalties, no stay, worth 0
                royalties = bottom_royalty + middle_royalty + top_royalty
                stays = bottom_stays or middle_stays or top_stays
                value = royalties + (stay_value if stays else 0.0)
                if value > best_value:
                    best_value, best = value, []
                if value == best_value:
                    best.append((top, middle, bottom, royalties, stays))
    return FantasylandBest(best_value, [(text(top), text(middle), text(bottom), royalties,
                                         stays) for top, middle, bottom, royalties, stays
                                        in best])
