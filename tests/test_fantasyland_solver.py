"""The Fantasyland solver against hands worked by hand and a plain brute force.

``tests/reference.py``'s brute force evaluates every setting of a hand (every 13 of
its cards, every bottom, middle and top) with the reference ranks: it shares nothing
with the solver but the ruleset's data. It takes about a second for 14 cards and a few
for 15, so the random hands are few; the adversarial ones aim where a pruned search
could go wrong.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_stats import solve_fantasyland
from ofc_stats.engine.cards import NO_CARD, card_text, parse_cards
from ofc_stats.engine.fantasyland_solver import MAX_CARDS, solve_batch
from ofc_stats.engine.rules import FantasylandRules, RoyaltyTable, Ruleset, Variant, get_ruleset
from ofc_stats.engine.scoring import compile_rules
from ofc_stats.errors import FantasylandHandError
from tests.reference import (
    Board,
    brute_force_fantasyland,
    comparable,
    hand_rank,
    lowball,
    score_hand,
)

FULL_DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
RULESETS = [
    get_ruleset("pineapple"),  # stay: trips top or quads+ bottom
    get_ruleset("classic"),  # also a full house or better in the middle
    Ruleset(name="QQQ top, straight flush bottom, middle FH", variant=Variant.PINEAPPLE,
            fantasyland=FantasylandRules(entry=(("AA", 14),), stay_top="QQQ",
                                         stay_middle="full house",
                                         stay_bottom="straight flush", stay_cards=14)),
    Ruleset(name="2013 table, no top trips royalties", variant=Variant.PINEAPPLE,
            royalties=RoyaltyTable(
                top_pairs={r: p for p, r in enumerate("6789TJQKA", start=1)}, top_trips={},
                middle={"straight": 4, "flush": 8, "full house": 12, "quads": 16,
                        "straight flush": 20, "royal flush": 40},
                bottom={"straight": 2, "flush": 4, "full house": 6, "quads": 8,
                        "straight flush": 10, "royal flush": 20})),
]


def rows_of(best: object) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    return tuple(tuple(sorted(getattr(best, row))) for row in ("top", "middle", "bottom"))


def row_ranks(setting: tuple[tuple[str, ...], ...], ruleset: Ruleset | None = None
              ) -> tuple[tuple[int, ...], ...]:
    """Each row's rank, larger is better: a 2-7 middle by its low (the lower the better)."""
    low = ruleset is not None and lowball(ruleset)
    top, middle, bottom = setting[:3]
    middle_rank = (comparable("middle", hand_rank(list(middle), ace_low_straight=False),
                              ruleset) if ruleset is not None and low
                   else hand_rank(list(middle)))
    return hand_rank(list(top)), middle_rank, hand_rank(list(bottom))


def assert_agrees(cards: list[str], ruleset: Ruleset, stay_value: float) -> None:
    """The solver's value is the brute force's best, its setting one of the best, and
    among those the strongest by top, then middle, then bottom."""
    expected = brute_force_fantasyland(cards, ruleset, stay_value)
    best = solve_fantasyland(cards, ruleset, stay_value)
    assert sorted([*best.top, *best.middle, *best.bottom, *best.discards]) == sorted(cards)
    if not expected.settings:  # every setting fouls (a 2-7 middle): worth nothing
        assert (best.value, best.royalties, best.stays) == (0.0, 0, False), cards
        return
    assert best.value == expected.value, (cards, ruleset.name, stay_value)
    settings_ = {setting[:3]: setting for setting in expected.settings}
    chosen = rows_of(best)
    assert chosen in settings_, (cards, ruleset.name, stay_value, best)
    strongest = max(row_ranks(setting, ruleset) for setting in expected.settings)
    assert row_ranks(chosen, ruleset) == strongest
    _, _, _, royalties, stays = settings_[chosen]
    assert (best.royalties, best.stays) == (royalties, stays)
    assert len(best.discards) == len(cards) - 13
    assert sorted([*best.top, *best.middle, *best.bottom, *best.discards]) == sorted(cards)


def test_a_fourteen_card_hand_worked_by_hand() -> None:
    # Four aces, three kings, a queen-high straight flush in spades, 2c and 3d.
    # Royalties (RULES.md 6): bottom straight flush 15 or quads 10; middle quads 20 or
    # straight flush 30; top KKK 21 or AAA 22. A straight flush in the middle needs a
    # stronger bottom: there is none. AAA on top needs a middle above trips of aces
    # (quads of the fourth ace cannot be made; the straight flush must then go in the
    # middle, above): impossible. So top KKK (21) with quads of aces in the middle (20)
    # over the straight flush (15): 56, and trips on top stay (pineapple): 56 + 12.
    # The fifth middle card is 2c or 3d, equal in value: the stronger middle (3d) wins
    # the tie, and 2c is thrown.
    best = solve_fantasyland("Ah Ad Ac As Kh Kd Kc Qs Js Ts 9s 8s 2c 3d", "pineapple",
                             stay_value=12)
    assert best.bottom == ("Qs", "Js", "Ts", "9s", "8s")
    assert best.middle == ("As", "Ah", "Ad", "Ac", "3d")
    assert best.top == ("Kh", "Kd", "Kc")
    assert best.discards == ("2c",)
    assert (best.royalties, best.stays, best.value) == (56, True, 68.0)
    assert_agrees(parse_text("Ah Ad Ac As Kh Kd Kc Qs Js Ts 9s 8s 2c 3d"),
                  get_ruleset("pineapple"), 12)


def parse_text(text: str) -> list[str]:
    return [card_text(code) for code in parse_cards(text)]


@pytest.mark.slow
@settings(max_examples=10)
@given(st.permutations(FULL_DECK), st.sampled_from([0.0, 2.5, 12.0, 40.0]),
       st.sampled_from(RULESETS))
def test_fourteen_random_cards_agree_with_brute_force(
        deck: list[str], stay_value: float, ruleset: Ruleset) -> None:
    assert_agrees(deck[:14], ruleset, stay_value)


@pytest.mark.slow
@settings(max_examples=3)
@given(st.permutations(FULL_DECK), st.sampled_from([0.0, 12.0]), st.sampled_from(RULESETS))
def test_fifteen_random_cards_agree_with_brute_force(
        deck: list[str], stay_value: float, ruleset: Ruleset) -> None:
    assert_agrees(deck[:15], ruleset, stay_value)


ADVERSARIAL = {
    # Quads on the bottom or trips on top both stay (and a straight flush too).
    "several ways to stay": "Ah Ad Ac As Kh Kd Kc Qs Js Ts 9s 8s 2c 3d",
    "quads or trips, which row": "9c 9d 9h 9s 7c 7d 7h Ac Kc Qd Jd 5s 4s 3h",
    # 14 royalties that do not stay against quads of jacks (10) that do: the stay value
    # decides (at 4 the two tie).
    "a stay worth less than royalties": "4s As 2d 5h Jc Jd 2c Js 9s 6h Jh Th 4h Kd",
    # The only top worth anything is trips (no pair of sixes or better anywhere).
    "tops that can only be trips": "2c 2d 2h 3c 3d 4c 4d 5c 5d 7h 8s 9d Jc Kh",
    # Every suit of two ranks: quads, full houses, pairs on top.
    "all four suits of a rank": "Qc Qd Qh Qs 8c 8d 8h 8s Ac Kd 6h 5s 2c 3d",
    # Nothing much: a search that prunes too hard finds something worse.
    "a weak hand": "2c 3d 4h 6s 7c 8d Th Js Qc Kd 5h 9s Ad 3s",
    # A top pair above the only middle pair must not be taken.
    "top above middle": "As Ad 2c 7d 9h Jc 4s 3h 8c Td 5h 6s Kc Qh",
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
@pytest.mark.parametrize("stay_value", [0.0, 4.0, 12.0, 30.0])
def test_adversarial_hands_agree_with_brute_force(name: str, stay_value: float) -> None:
    cards = parse_text(ADVERSARIAL[name])
    assert_agrees(cards, get_ruleset("pineapple"), stay_value)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS[1:], ids=lambda ruleset: ruleset.name)
def test_adversarial_hands_under_other_rules(ruleset: Ruleset) -> None:
    for name in ("several ways to stay", "all four suits of a rank", "a weak hand"):
        assert_agrees(parse_text(ADVERSARIAL[name]), ruleset, 12.0)


@pytest.mark.slow
def test_fifteen_cards_with_quads_a_set_and_a_flush() -> None:
    cards = parse_text("Tc Td Th Ts 6c 6d 6h Ah Kh 9h 8h 2h Qs Js 3c")
    for stay_value in (0.0, 12.0):
        assert_agrees(cards, get_ruleset("progressive"), stay_value)


def test_the_stay_value_decides_between_royalties_and_a_stay() -> None:
    cards = ADVERSARIAL["a stay worth less than royalties"]
    without = solve_fantasyland(cards, "pineapple", stay_value=0)
    assert (without.royalties, without.stays, without.value) == (14, False, 14.0)
    worth_it = solve_fantasyland(cards, "pineapple", stay_value=30)
    assert (worth_it.royalties, worth_it.stays, worth_it.value) == (10, True, 40.0)
    assert {"Jc", "Jd", "Jh", "Js"} <= set(worth_it.bottom)  # quads of jacks stay


def test_ties_go_to_more_points_against_the_opponents() -> None:
    """Among the brute force's best settings, the solver takes one that scores the most
    points against the opponents' boards (the reference scorer's points), then the
    strongest rows."""
    ruleset = get_ruleset("pineapple")
    deck = np.random.default_rng(20).permutation(FULL_DECK).tolist()
    for deal in range(3):
        cards, others = deck[:14], deck[14:40]
        deck = deck[14:] + deck[:14]
        opponents = []
        for start in (0, 13):  # each opponent sets 13 cards as well as the solver can
            board = solve_fantasyland(others[start:start + 13], ruleset, stay_value=0)
            opponents.append([*board.top, *board.middle, *board.bottom])
        expected = brute_force_fantasyland(cards, ruleset, 12.0)
        best = solve_fantasyland(cards, ruleset, 12.0, opponents=opponents)
        assert best.value == expected.value

        others_boards = [Board(f"o{i}", o[:3], o[3:8], o[8:])
                         for i, o in enumerate(opponents)]
        ranked = {setting[:3]: (points_against(setting, others_boards, ruleset),
                                row_ranks(setting)) for setting in expected.settings}
        chosen = rows_of(best)
        assert ranked[chosen] == max(ranked.values()), deal
        assert best.points == ranked[chosen][0]


def points_against(setting: tuple[tuple[str, ...], ...], opponents: list[Board],
                   ruleset: Ruleset) -> int:
    board = Board("fl", list(setting[0]), list(setting[1]), list(setting[2]),
                  in_fantasyland=True)
    return score_hand([board, *opponents], ruleset)[0][0].points


def batch_of(hands: list[str]) -> np.ndarray:
    cards = np.full((len(hands), MAX_CARDS), NO_CARD, dtype=np.int8)
    for index, hand in enumerate(hands):
        codes = parse_cards(hand)
        cards[index, :len(codes)] = codes
    return cards


def test_a_batch_of_every_card_count_equals_one_hand_at_a_time() -> None:
    rng = np.random.default_rng(3)
    hands = [" ".join(rng.permutation(FULL_DECK)[:count]) for count in
             (13, 17, 14, 16, 15, 14, 13, 17)]
    rules = compile_rules(get_ruleset("progressive"))
    solved = solve_batch(batch_of(hands), rules, 12.0)
    for index, hand in enumerate(hands):
        alone = solve_fantasyland(hand, "progressive", 12.0)
        board = [card_text(code) for code in solved.boards[:, index]]
        assert (sorted(board[0:3]), sorted(board[3:8]), sorted(board[8:13])) == \
            tuple(sorted(row) for row in (alone.top, alone.middle, alone.bottom))
        assert solved.value[index] == alone.value
        thrown = [card_text(code) for code in solved.discards[index] if code != NO_CARD]
        assert sorted(thrown) == sorted(alone.discards)
    # The search examines far fewer (bottom, middle) pairs than brute force settings.
    assert (solved.examined < solved.settings).all()


def test_a_lower_bound_only_speeds_the_search() -> None:
    hands = [ADVERSARIAL["several ways to stay"], ADVERSARIAL["a weak hand"]]
    rules = compile_rules(get_ruleset("pineapple"))
    plain = solve_batch(batch_of(hands), rules, 12.0)
    # A bound the best reaches, and one it does not (found out: searched again).
    for bound in (plain.value - 1, plain.value + 5):
        bounded = solve_batch(batch_of(hands), rules, 12.0, lower_bound=bound)
        assert (bounded.value == plain.value).all()
        assert (bounded.boards == plain.boards).all()


def test_the_stay_value_defaults_to_the_rulesets() -> None:
    cards = ADVERSARIAL["a stay worth less than royalties"]
    ruleset = get_ruleset("pineapple")
    assert solve_fantasyland(cards, ruleset).value == solve_fantasyland(
        cards, ruleset, stay_value=ruleset.fl_stay_value).value


@pytest.mark.parametrize(("cards", "message"), [
    ("Ah Kd Qs Jc Th 9d 8s 7c 6h 5d 4s 3c", "13 to 17 cards, not 12"),
    (" ".join(FULL_DECK[:18]), "13 to 17 cards, not 18"),
    ("Ah Ah Qs Jc Th 9d 8s 7c 6h 5d 4s 3c 2h", "twice"),
    ("Xj Kd Qs Jc Th 9d 8s 7c 6h 5d 4s 3c 2h", "jokers"),
])
def test_hands_the_solver_refuses(cards: str, message: str) -> None:
    with pytest.raises(FantasylandHandError, match=message):
        solve_fantasyland(cards)


@pytest.mark.slow
@settings(max_examples=10)
@given(st.permutations(FULL_DECK), st.sampled_from([0.0, 12.0, 40.0]))
def test_deuce_to_seven_hands_agree_with_brute_force(deck: list[str],
                                                     stay_value: float) -> None:
    """A 2-7 middle stands when low enough, whatever the bottom; the top answers to the
    bottom."""
    assert_agrees(deck[:14], get_ruleset("deuce-to-seven"), stay_value)


def test_a_deuce_to_seven_hand_worked_by_hand() -> None:
    # 7-5-4-3-2 in the middle (8, and it stays), kings on top (21) under quads of aces on
    # the bottom (10): 39. A standard middle could not be set at all below KKK here.
    hand = parse_text("7c 5d 4h 3s 2c Kh Kd Ks Ac Ad Ah As 9s 9d")
    best = solve_fantasyland(hand, "deuce-to-seven", stay_value=12)
    assert (best.top, best.middle, best.bottom, best.discards) == (
        ("Ks", "Kh", "Kd"), ("7c", "5d", "4h", "3s", "2c"), ("As", "Ah", "Ad", "Ac", "9s"),
        ("9d",))
    assert (best.royalties, best.stays, best.value) == (39, True, 51.0)
    for stay_value in (0.0, 12.0):
        assert_agrees(hand, get_ruleset("deuce-to-seven"), stay_value)
    # Here no middle is a low (every five cards pair): every setting fouls, worth 0.
    paired = parse_text("2c 2d 2h 2s 3c 3d 3h 3s 4c 4d 4h 4s 5c 5d")
    fouled = solve_fantasyland(paired, "deuce-to-seven")
    assert (fouled.value, fouled.royalties, fouled.stays) == (0.0, 0, False)
    assert sorted([*fouled.top, *fouled.middle, *fouled.bottom, *fouled.discards]) == \
        sorted(paired)
    assert_agrees(paired, get_ruleset("deuce-to-seven"), 12.0)


def test_opponents_must_be_whole_boards_of_other_cards() -> None:
    hand = " ".join(FULL_DECK[:14])
    with pytest.raises(FantasylandHandError, match="13 cards, not 3"):
        solve_fantasyland(hand, opponents=["Ac Ad Ah"])
    with pytest.raises(FantasylandHandError,
                       match=r"opponent 1 holds 5d: with the hand .* twice, and one deck "
                             r"holds it once"):
        solve_fantasyland(hand, opponents=[" ".join(FULL_DECK[13:26])])
    eight = [" ".join(FULL_DECK[14 + 13 * i:27 + 13 * i]) for i in range(2)] * 4
    with pytest.raises(FantasylandHandError, match="at most 7 opponents"):
        solve_fantasyland(hand, "double-deck", opponents=eight)


# Two decks: every card of a few ranks twice, so that hands repeat cards, pair up and
# make five of a kind far more often than a shuffled double deck deals them.
TWO_DECKS_OF_FEW_RANKS = [rank + suit for rank in "2579JKA" for suit in "cdhs"] * 2
DOUBLE_DECK_RULESETS = [get_ruleset("double-deck"), get_ruleset("double-deck-pineapple")]


@pytest.mark.slow
@settings(max_examples=10)
@given(st.permutations(TWO_DECKS_OF_FEW_RANKS), st.sampled_from([0.0, 12.0, 40.0]),
       st.sampled_from(DOUBLE_DECK_RULESETS))
def test_double_deck_hands_agree_with_brute_force(deck: list[str], stay_value: float,
                                                  ruleset: Ruleset) -> None:
    """A card dealt twice is two cards: five of a kind, flushes holding a pair."""
    assert_agrees(deck[:14], ruleset, stay_value)


def test_five_of_a_kind_on_the_bottom_under_two_decks() -> None:
    # Five aces (two of hearts and spades), four kings, a pair of queens: five of a kind
    # pays what a straight flush does on the bottom (15), quads of kings 20 in the
    # middle, QQ on top 7: 42, and the five aces stay.
    hand = parse_text("Ah Ah As As Ad Kc Kd Kh Ks Qc Qd 7c 4d 2s")
    best = solve_fantasyland(hand, "double-deck", stay_value=12)
    assert (best.bottom, best.middle, best.top) == (
        ("As", "As", "Ah", "Ah", "Ad"), ("Ks", "Kh", "Kd", "Kc", "4d"), ("Qd", "Qc", "7c"))
    assert (best.royalties, best.stays, best.value) == (42, True, 54.0)
    assert best.discards == ("2s",)
    assert_agrees(hand, get_ruleset("double-deck"), 12.0)


def test_a_card_dealt_more_often_than_the_decks_hold_it_is_refused() -> None:
    with pytest.raises(FantasylandHandError,
                       match="Ah appears 3 times in the hand, and 2 decks hold it twice"):
        solve_fantasyland("Ah Ah Ah Kc Kd Kh Ks Qc Qd 7c 4d 2s 3s", "double-deck")
    # With two decks a card twice in the hand and once more on a board is one too many.
    with pytest.raises(FantasylandHandError, match="opponent 1 holds Ah"):
        solve_fantasyland("Ah Ah Kc Kd Kh Ks Qc Qd 7c 4d 2s 3s 5s", "double-deck",
                          opponents=["Ah 2c 3c 4c 5c 6c 7d 8d 9d Tc Jh Qh Kh"])
    # Seven opponents (eight players, as two decks seat), none holding a third copy.
    hand = "Ah Ah Kc Kd Kh Ks Qc Qd 7c 4d 2s 3s 5s"
    left = list((Counter(FULL_DECK * 2) - Counter(hand.split())).elements())
    opponents = [" ".join(left[13 * seat:13 * seat + 13]) for seat in range(7)]
    best = solve_fantasyland(hand, "double-deck", opponents=opponents)
    assert best.points is not None
    assert best.value == solve_fantasyland(hand, "double-deck").value
