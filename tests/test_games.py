"""Jokers, double deck and deuce-to-seven (RULES.md sections 9-10): literal cases and
the vectorised scorer against the plain reference (jokers tried as every card)."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ofc_stats import score_boards, score_hands
from ofc_stats.engine.cards import JOKER, parse_cards
from ofc_stats.engine.jokers import resolve_jokers
from ofc_stats.engine.rules import LowballRules, Ruleset, get_ruleset
from ofc_stats.engine.scoring import compile_rules
from tests.reference import Board, hand_rank
from tests.test_scoring import FULL_DECK, RANKS, assert_matches_reference, board, boards_frame

JOKER_RULES = [*(get_ruleset(name) for name in
                 ("joker-pineapple", "joker-progressive", "joker-ultimate")),
               # A house game: jokers with a deuce-to-seven middle, and 2-4 scoring.
               dataclasses.replace(get_ruleset("deuce-to-seven"), name="2-7 jokers", jokers=2,
                                   scoring="2-4")]
DOUBLE_DECK_RULES = [get_ruleset("double-deck"), get_ruleset("double-deck-pineapple")]
LOWBALL_RULES = [
    get_ruleset("deuce-to-seven"),
    dataclasses.replace(get_ruleset("deuce-to-seven"), name="2-7 any middle",
                        lowball=LowballRules(qualifier=None)),
    dataclasses.replace(get_ruleset("deuce-to-seven"), name="2-7 eight-low, 2-4",
                        lowball=LowballRules(royalties={"8": 1, "7": 3, "76432": 5},
                                             qualifier="8"),
                        scoring="2-4"),
]


def scored(hand: list[Board], ruleset: str | Ruleset) -> list[dict[str, object]]:
    """Score one hand; a ``PLAIN`` opponent takes 13 cards the other boards do not hold."""
    if PLAIN in hand:
        taken = {card for seat in hand if seat is not PLAIN
                 for row in seat.rows().values() for card in row}
        free = tidy([card for card in FULL_DECK if card not in taken][:13])
        hand = [Board("z", free[:3], free[3:8], free[8:]) if seat is PLAIN else seat
                for seat in hand]
    return score_boards(boards_frame([hand]), ruleset).rows(named=True)


# --- jokers ---------------------------------------------------------------------------

PLAIN = Board("z", [], [], [])  # stands for an opponent with cards nobody else holds


def test_a_joker_takes_the_card_with_the_most_royalties() -> None:
    # Top Xj K 2: a king makes KK (8); the bottom's joker completes a J-high straight
    # flush (15), above the T-high one.
    hand = [board("a", "Xj Kd 2c", "5h 5c 5d 7d 8d", "Ts 9s 8s 7s Xj"), PLAIN]
    row = scored(hand, "joker-pineapple")[0]
    assert (row["fouled"], row["royalties_top"], row["royalties_bottom"]) == (False, 8, 15)
    assert row["joker_cards"] == "Kc Js"  # the lowest card of each kind, in board order
    assert row["top_category"] == "pair"
    assert row["bottom_category"] == "straight flush"


def test_a_joker_may_copy_a_card_of_another_row_to_stand() -> None:
    # Only quads of sevens hold the bottom over the aces full: every seven of the
    # bottom's suits is there already, the last one is on the top.
    hand = [board("a", "7s Qd Jc", "Ac Ad Ah Kc Kd", "7c 7d 7h 2c Xj"), PLAIN]
    row = scored(hand, "joker-pineapple")[0]
    assert (row["fouled"], row["joker_cards"]) == (False, "7s")
    assert (row["royalties_middle"], row["royalties_bottom"]) == (12, 10)


def test_two_jokers_on_different_rows_may_be_the_same_card() -> None:
    hand = [board("a", "Xj Kd Qc", "Ks Kh 9d 9c Xj", "4c 4d 4h 4s 3c"), PLAIN]
    row = scored(hand, "joker-pineapple")[0]
    assert row["joker_cards"] == "Kc Kc"
    assert (row["royalties_top"], row["royalties_middle"], row["royalties_bottom"]) == (
        8, 12, 10)


def test_two_jokers_in_one_row_are_distinct_cards() -> None:
    # Two jokers with K K K in the bottom: five kings are impossible, quads pay 10.
    hand = [board("a", "2c 3d 5h", "Qc Qd 8h 8s 4c", "Kc Kd Kh Xj Xj"), PLAIN]
    row = scored(hand, "joker-pineapple")[0]
    assert row["bottom_category"] == "quads"
    assert row["joker_cards"] == "Ks Ac"  # quads of kings, the best kicker an ace


def test_a_board_fouls_only_if_every_assignment_fouls() -> None:
    # Top Q Q + joker beats a middle pair of fives whatever the joker is.
    hand = [board("a", "Qs Qd Xj", "5h 5c 9d 7d 8d", "Ts 9s 8s 7s 6s"), PLAIN]
    row = scored(hand, "joker-pineapple")[0]
    assert row["fouled"]
    assert row["royalties"] == 0
    assert not row["fl_entry"]
    assert row["joker_cards"] == "Qc"  # the strongest rows: trips on top
    assert row["problem"] is None  # fouled by its rows, not flagged


@pytest.mark.parametrize(
    ("preset", "in_fl", "fl_cards", "next_cards"),
    [("joker-ultimate", False, None, 17), ("joker-ultimate", True, 17, 17),
     ("joker-ultimate", True, 15, 15), ("joker-progressive", False, None, 17),
     ("joker-progressive", True, 17, 14), ("joker-pineapple", False, None, 14)],
)
def test_joker_ultimate_trips_on_top_deal_17_cards(preset: str, in_fl: bool,
                                                   fl_cards: int | None,
                                                   next_cards: int) -> None:
    # PPPoker: "any Fantasyland resulting from three-of-a-kind on the top row will have
    # 17 cards ... Any Stay in Fantasyland hands that follow also will have 17 cards."
    player = board("a", "Xj Qs Qd", "Kc Kd Kh 5c 5d", "Ac Ad Ah As 2c", in_fantasyland=in_fl,
                   fl_cards=fl_cards)
    row = scored([player, PLAIN], preset)[0]
    assert row["top_category"] == "trips"
    assert row["fl_next"]
    assert row["fl_cards_next"] == next_cards


def test_jokers_beyond_the_deck_are_flagged() -> None:
    three = [board("a", "Xj Xj 2c", "5h 5c 5d 7d 8d", "Ts 9s 8s 7s 6s"),
             board("b", "Xj 3h 6c", "7h 7c Qs 4s 6h", "Jh 9h 8h 2h 4h")]
    rows = scored(three, "joker-pineapple")
    assert [row["problem"] for row in rows] == ["more jokers than the deck holds"] * 2
    assert all(row["fouled"] for row in rows)
    assert scored([three[0], PLAIN], "pineapple")[0]["problem"] == (
        "joker in a game without jokers")


def test_every_joker_spelling_is_read() -> None:
    hand = [board("a", "JK Kd 2c", "5h 5c 5d 7d 8d", "Ts 9s 8s 7s Joker"), PLAIN]
    assert scored(hand, "joker-pineapple")[0]["joker_cards"] == "Kc Js"


@st.composite
def joker_hands(draw: st.DrawFn) -> list[Board]:
    """Two or three boards and one or two jokers, both in one row, in two rows of one
    board or on two boards; the real cards often set to stand."""
    players = draw(st.integers(2, 3))
    deck = draw(st.sampled_from(["full", "few ranks", "one suit heavy"]))
    cards = list(FULL_DECK)
    if deck == "few ranks":
        ranks = draw(st.lists(st.sampled_from(RANKS), min_size=10, max_size=13, unique=True))
        cards = [card for card in FULL_DECK if card[0] in ranks]
    shuffled = list(draw(st.permutations(cards)))
    if deck == "one suit heavy":
        shuffled.sort(key=lambda card: card[1] != "s")  # spades first: flushes
    boards = []
    for seat in range(players):
        dealt = shuffled[seat * 13:(seat + 1) * 13]
        if draw(st.booleans()):
            dealt = tidy(dealt)
        boards.append(dealt)
    layout = draw(st.sampled_from(["one", "same row", "two rows", "two boards"]))
    slots = st.integers(0, 12)
    if layout == "one":
        boards[0][draw(slots)] = "Xj"
    elif layout == "same row":
        row = draw(st.sampled_from([(0, 3), (3, 8), (8, 13)]))
        first, second = draw(st.lists(st.integers(*row).filter(lambda s: s < row[1]),
                                      min_size=2, max_size=2, unique=True))
        boards[0][first] = boards[0][second] = "Xj"
    elif layout == "two rows":
        first = draw(st.integers(0, 2))
        second = draw(st.integers(3, 12))
        boards[0][first] = boards[0][second] = "Xj"
    else:
        boards[0][draw(slots)] = "Xj"
        boards[1][draw(slots)] = "Xj"
    return [Board(f"p{seat}", cards[:3], cards[3:8], cards[8:13],
                  in_fantasyland=draw(st.booleans()),
                  fl_cards=draw(st.sampled_from([14, 15, 16, 17])))
            for seat, cards in enumerate(boards)]


def tidy(cards: list[str]) -> list[str]:
    """The biggest rank groups to the bottom, then the middle: boards that often stand."""
    from tests.test_scoring import arrange_to_avoid_fouls

    return arrange_to_avoid_fouls(cards)


@given(hand_list=st.lists(joker_hands(), min_size=1, max_size=3),
       ruleset=st.sampled_from(JOKER_RULES))
def test_jokers_resolve_as_the_brute_force_reference(hand_list: list[list[Board]],
                                                     ruleset: Ruleset) -> None:
    assert_matches_reference(hand_list, ruleset)


def test_one_joker_in_every_slot_of_many_boards_matches_the_reference() -> None:
    """A joker in each of the 13 slots of 40 tidy boards each: 520 boards, every row."""
    rng = np.random.default_rng(5)
    hands = []
    for index in range(520):
        deck = [FULL_DECK[i] for i in rng.permutation(52)]
        mine, other = tidy(deck[:13]), tidy(deck[13:26])
        mine[index % 13] = "Xj"
        hands.append([Board("a", mine[:3], mine[3:8], mine[8:]),
                      Board("b", other[:3], other[3:8], other[8:])])
    assert_matches_reference(hands, get_ruleset("joker-ultimate"))


def test_resolution_batches_change_nothing() -> None:
    rng = np.random.default_rng(2)
    cards = np.stack([rng.permutation(52)[:13] for _ in range(3000)], axis=1).astype(np.int8)
    cards[rng.integers(0, 13, 3000), np.arange(3000)] = JOKER
    cards[rng.integers(0, 13, 3000), np.arange(3000)] = JOKER
    rules = compile_rules(get_ruleset("joker-pineapple"))
    whole = resolve_jokers(cards, rules)
    import ofc_stats.engine.jokers as jokers

    small = jokers.CANDIDATES_PER_BATCH
    jokers.CANDIDATES_PER_BATCH = 1000
    try:
        pieces = resolve_jokers(cards, rules)
    finally:
        jokers.CANDIDATES_PER_BATCH = small
    for name in ("top", "middle", "bottom", "joker_cards"):
        assert np.array_equal(getattr(whole, name), getattr(pieces, name)), name


# --- double deck ----------------------------------------------------------------------


def test_five_of_a_kind_ranks_above_a_straight_flush_and_pays_its_royalty() -> None:
    hand = [board("a", "2c 3d 4h", "9s 8s 7s 6s 5s", "Ah Ah Ac Ad As"),
            board("b", "Qh Qd 2d", "Js Ts 9h 8h 7h", "Ks Kc Kh Kd Kd")]
    rows = scored(hand, "double-deck")
    assert [row["bottom_category"] for row in rows] == ["five of a kind"] * 2
    assert rows[0]["middle_category"] == "straight flush"
    assert rows[0]["royalties_bottom"] == 15  # the bottom's straight flush royalty
    assert not rows[0]["fouled"]
    assert rows[0]["points"] > 0  # five aces beat five kings
    custom = Ruleset(name="dd 5k", variant="double-deck", decks=2,
                     royalties=dataclasses.replace(
                         get_ruleset("double-deck").royalties,
                         bottom={**get_ruleset("double-deck").royalties.bottom,
                                 "five of a kind": 40}))
    assert scored(hand, custom)[0]["royalties_bottom"] == 40


def test_a_flush_with_a_repeated_card_is_a_flush() -> None:
    strength = hand_rank(["Kh", "Kh", "9h", "5h", "3h"])
    assert strength[0] == 5
    row = scored([board("a", "2c 3d 4h", "Qc Qd 8s 8c 4d", "Kh Kh 9h 5h 3h"), PLAIN],
                 "double-deck")[0]
    assert (row["bottom_category"], row["royalties_bottom"]) == ("flush", 4)


def test_a_card_twice_is_fine_with_two_decks_three_times_is_not() -> None:
    twice = [board("a", "2c 3d 4h", "9s 8s 7s 6s 5s", "Ah Ah Ac Ad As"),
             board("b", "2c 3d 4h", "9s 8s 7s 6s 5s", "Kd Kd Kc Qh Qh")]
    assert [row["problem"] for row in scored(twice, "double-deck")] == [None, None]
    thrice = [twice[0], board("b", "2c 3d Ah", "9s 8s 7s 6s 5s", "Kd Kd Kc Qh Qh")]
    assert [row["problem"] for row in scored(thrice, "double-deck")] == [
        "duplicate card"] * 2
    assert scored(twice, "classic")[0]["problem"] == "duplicate card"


def test_double_deck_seats_more_players() -> None:
    rng = np.random.default_rng(1)
    deck = [FULL_DECK[i % 52] for i in rng.permutation(104)]
    hand = [Board(f"p{i}", deck[i * 13:i * 13 + 3], deck[i * 13 + 3:i * 13 + 8],
                  deck[i * 13 + 8:i * 13 + 13]) for i in range(8)]
    rows = score_hands(boards_frame([hand]), "double-deck").players
    assert rows["problem"].is_null().all()
    assert rows["points"].sum() == 0
    assert rows["opponents"].to_list() == [7] * 8
    nine = [*hand, Board("p8", ["2c", "3c", "4c"], ["5c"] * 5, ["6c"] * 5)]
    flagged = score_hands(boards_frame([nine]), "double-deck").players["problem"]
    assert flagged.str.contains("hand needs 2-8 players").all()


@st.composite
def double_deck_hands(draw: st.DrawFn) -> list[Board]:
    ranks = draw(st.sampled_from([RANKS, "AKQ5432", "AKQJ", "9876"]))
    deck = [card for card in FULL_DECK if card[0] in ranks] * 2
    players = draw(st.integers(2, min(6, len(deck) // 13)))
    shuffled = list(draw(st.permutations(deck)))
    boards = []
    for seat in range(players):
        cards = shuffled[seat * 13:(seat + 1) * 13]
        if draw(st.booleans()):
            cards = tidy(cards)
        boards.append(Board(f"p{seat}", cards[:3], cards[3:8], cards[8:13],
                            in_fantasyland=draw(st.booleans()), fl_cards=13))
    return boards


@given(hand_list=st.lists(double_deck_hands(), min_size=1, max_size=8),
       ruleset=st.sampled_from(DOUBLE_DECK_RULES))
def test_double_deck_matches_the_reference(hand_list: list[list[Board]],
                                           ruleset: Ruleset) -> None:
    assert_matches_reference(hand_list, ruleset)


# --- deuce-to-seven -----------------------------------------------------------------



def test_a_seven_five_middle_pays_and_enters_fantasyland() -> None:
    player = board("a", "Ks Kd 2c", "7h 5d 4c 3s 2h", "Ac Ad Ah 9c 9d")
    row = scored([player, PLAIN], "deuce-to-seven")[0]
    assert not row["fouled"]
    assert (row["royalties_top"], row["royalties_middle"], row["royalties_bottom"]) == (8, 8, 6)
    assert (row["fl_entry"], row["fl_cards_next"]) == (True, 14)
    assert row["middle_category"] == "high card"


FULL = "Tc Td Th Js Jc"


@pytest.mark.parametrize(
    ("top", "middle", "bottom", "fouled", "entry"),
    [
        ("Qs Qd 2c", "8h 6d 4c 3s 2h", FULL, False, False),  # QQ no longer enters
        ("Ks Kd 2c", "8h 6d 4c 3s 2h", FULL, False, True),  # KK does
        ("4s 3d 2c", "7h 5d 4c 3s 2h", FULL, False, True),  # so does the nut low
        ("4s 3d 2c", "7h 7d 4c 3s 2h", FULL, True, False),  # a pair in the middle fouls
        ("4s 3d 2c", "Jh 5d 4c 3s 2h", FULL, True, False),  # jack-low is above ten-low
        ("4s 3d 2c", "Ah 5d 4c 3s 2h", FULL, True, False),  # A-5-4-3-2 is ace-high
        ("4s 3d 2c", "6h 5d 4c 3s 2h", FULL, True, False),  # a straight counts against
        ("4s 3d 2c", "9h 7h 5h 3h 2h", FULL, True, False),  # so does a flush
        ("As Ad 2c", "9c 8d 6h 4s 3h", "Tc Td 9s 8s 7c", True, False),  # AA over TT
    ],
)
def test_deuce_to_seven_fouls_and_fantasyland(top: str, middle: str, bottom: str,
                                              fouled: bool, entry: bool) -> None:
    row = scored([board("a", top, middle, bottom), PLAIN], "deuce-to-seven")[0]
    assert row["problem"] is None
    assert (row["fouled"], row["fl_entry"]) == (fouled, entry)


def test_the_lower_middle_wins_the_row() -> None:
    eight = board("a", "4s 3d 2c", "8h 6d 4c 3s 2h", FULL)
    nine = board("b", "5h 3h 2d", "9c 7d 5s 4h 3c", "Ks Kh Kc 5c 5d")
    matchup = score_hands(boards_frame([[eight, nine]]), "deuce-to-seven").matchups.row(
        0, named=True)
    assert matchup["middle_result"] == 1
    assert matchup["bottom_result"] == -1


def test_without_a_qualifier_any_middle_stands() -> None:
    paired = board("a", "4s 3d 2c", "Kh Kd Qc 3s 2h", FULL)
    row = scored([paired, PLAIN], LOWBALL_RULES[1])[0]
    assert not row["fouled"]
    assert row["royalties_middle"] == 0


@st.composite
def lowball_hands(draw: st.DrawFn) -> list[Board]:
    deck = draw(st.sampled_from(["full", "low", "wheel"]))
    cards = {"full": FULL_DECK, "low": [c for c in FULL_DECK if c[0] in "2345678AKQ"],
             "wheel": [c for c in FULL_DECK if c[0] in "A2345789KQ"]}[deck]
    players = draw(st.integers(2, 3))
    shuffled = list(draw(st.permutations(cards)))
    boards = []
    for seat in range(players):
        dealt = shuffled[seat * 13:(seat + 1) * 13]
        if draw(st.booleans()):
            # Five low cards of distinct ranks to the middle; of the rest, the biggest
            # rank groups to the bottom.
            low: list[str] = []
            rest: list[str] = []
            for card in sorted(dealt, key=lambda card: RANKS.index(card[0])):
                ranks_taken = {taken[0] for taken in low}
                (low if len(low) < 5 and card[0] not in ranks_taken else rest).append(card)
            groups = {card[0]: sum(c[0] == card[0] for c in rest) for card in rest}
            rest.sort(key=lambda card: (groups[card[0]], RANKS.index(card[0])), reverse=True)
            dealt = rest[5:8] + low + rest[:5]
        boards.append(Board(f"p{seat}", dealt[:3], dealt[3:8], dealt[8:13],
                            in_fantasyland=draw(st.booleans()), fl_cards=14))
    return boards


@given(hand_list=st.lists(lowball_hands(), min_size=1, max_size=10),
       ruleset=st.sampled_from(LOWBALL_RULES))
def test_deuce_to_seven_matches_the_reference(hand_list: list[list[Board]],
                                              ruleset: Ruleset) -> None:
    assert_matches_reference(hand_list, ruleset)


def test_strings_of_every_game_round_trip_through_parse_cards() -> None:
    assert parse_cards("Xj JK joker") == [JOKER] * 3
    frame = boards_frame([[board("a", "Xj Kd 2c", "5h 5c 5d 7d 8d", "Ts 9s 8s 7s Xj"),
                           PLAIN]])
    assert frame.filter(pl.col("player") == "a")["top"].to_list() == [["Xj", "Kd", "2c"]]
