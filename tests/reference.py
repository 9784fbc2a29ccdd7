"""A deliberately plain per-hand OFC scorer, written from RULES.md.

It shares nothing with the vectorised engine but the Ruleset's data (royalty
values, thresholds): hands are ranked as Python tuples, one hand at a time, so the
tests can hold the fast scorer to it. Keep it boring and obviously right.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ofc_stats.engine.rules import Ruleset, StayCards

RANK_ORDER = "23456789TJQKA"
CATEGORIES = ["high card", "pair", "two pair", "trips", "straight", "flush",
              "full house", "quads", "straight flush"]
SUIT_ALIASES = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}


def normalise(card: str) -> str:
    card = card.strip()
    rank, suit = card[:-1], card[-1]
    rank = "T" if rank == "10" else rank.upper()
    suit = SUIT_ALIASES.get(suit, suit.lower())
    assert rank in RANK_ORDER, card
    assert suit in "cdhs", card
    return rank + suit


def rank_value(card: str) -> int:
    return RANK_ORDER.index(card[0])


def hand_rank(cards: list[str]) -> tuple[int, ...]:
    """(category, deciding ranks...) for a 3- or 5-card row; tuples compare per RULES §2.

    A shorter tuple that equals the start of a longer one is smaller, which is exactly
    "the top's missing kickers count as lower than any card".
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

    flush = len({card[1] for card in cards}) == 1
    straight_high = None
    if len(counts) == 5:
        if values[0] - values[4] == 4:
            straight_high = values[0]
        elif values == [12, 3, 2, 1, 0]:  # A-2-3-4-5, the wheel, is five-high
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


def row_royalty(row: str, rank: tuple[int, ...], ruleset: Ruleset) -> int:
    category = CATEGORIES[rank[0]]
    if row == "top":
        letter = RANK_ORDER[rank[1]] if category in ("pair", "trips") else None
        if category == "pair":
            return ruleset.royalties.top_pairs.get(letter, 0)
        if category == "trips":
            return ruleset.royalties.top_trips.get(letter, 0)
        return 0
    table = ruleset.royalties.middle if row == "middle" else ruleset.royalties.bottom
    if category == "straight flush" and rank[1] == 12 and "royal flush" in table:
        return table["royal flush"]
    return table.get(category, 0)


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


@dataclass
class Board:
    player: str
    top: list[str]
    middle: list[str]
    bottom: list[str]
    in_fantasyland: bool = False
    fl_cards: int | None = None

    def rows(self) -> dict[str, list[str]]:
        return {"top": self.top, "middle": self.middle, "bottom": self.bottom}


def score_board(board: Board, ruleset: Ruleset, duplicated: set[str]) -> BoardResult:
    rows = {name: [normalise(card) for card in cards] for name, cards in board.rows().items()}
    sizes_ok = [len(rows["top"]), len(rows["middle"]), len(rows["bottom"])] == [3, 5, 5]
    problem = not sizes_ok or any(card in duplicated for cards in rows.values()
                                  for card in cards)
    if problem:
        return BoardResult(fouled=True, problem=True,
                           royalties={"top": 0, "middle": 0, "bottom": 0})
    ranks = {name: hand_rank(cards) for name, cards in rows.items()}
    fouled = not (ranks["bottom"] >= ranks["middle"] >= ranks["top"])
    royalties = {name: 0 if fouled else row_royalty(name, rank, ruleset)
                 for name, rank in ranks.items()}
    result = BoardResult(fouled=fouled, problem=False, royalties=royalties, ranks=ranks)
    if fouled:
        return result

    fantasyland = ruleset.fantasyland
    # What the board would earn from outside Fantasyland (entry) and from inside (stay).
    for spec, cards in fantasyland.entry:  # sorted weakest first
        if ranks["top"] >= top_spec_rank(spec):
            result.fl_qualifies_entry = True
            result.fl_entry_cards = cards
    if fantasyland.stay_top and ranks["top"] >= top_spec_rank(fantasyland.stay_top):
        result.fl_qualifies_stay = True
    for row, label in (("middle", fantasyland.stay_middle),
                       ("bottom", fantasyland.stay_bottom)):
        if label and ranks[row][0] >= CATEGORIES.index(label):
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
        results = [(a.ranks[row] > b.ranks[row]) - (a.ranks[row] < b.ranks[row])
                   for row in ("top", "middle", "bottom")]
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


def score_hand(boards: list[Board], ruleset: Ruleset
               ) -> tuple[list[BoardResult], list[PairResult]]:
    """Score one hand: every board, then every pair of players in seat order."""
    seen: Counter[str] = Counter(normalise(card) for board in boards
                                 for cards in board.rows().values() for card in cards)
    duplicated = {card for card, count in seen.items() if count > 1}
    results = [score_board(board, ruleset, duplicated) for board in boards]
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


# --- Fantasyland: the best setting by brute force (RULES.md section 12) --------------


@dataclass
class FantasylandBest:
    """The best value of a Fantasyland hand and every setting that reaches it."""

    value: float
    # (top, middle, bottom, royalties, stays) of each best setting, rows as sorted tuples
    settings: list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], int, bool]]


def row_stays(row: str, rank: tuple[int, ...], ruleset: Ruleset) -> bool:
    """Whether this row alone keeps a standing board in Fantasyland (RULES.md 7)."""
    fantasyland = ruleset.fantasyland
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

    def row(name: str, subset: tuple[int, ...]) -> tuple[int, int, bool]:
        rank = ranks[subset]
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
                if not bottom_place >= middle_place >= top_place:
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
