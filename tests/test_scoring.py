"""The vectorised scorer against RULES.md examples and the plain reference scorer."""

from __future__ import annotations

import dataclasses
from collections import Counter

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from ofc_stats import score_boards, score_hands, score_matchups
from ofc_stats.engine.rules import (
    PRESETS,
    FantasylandRules,
    MiddleRow,
    RoyaltyTable,
    Ruleset,
    ScoringMethod,
    Variant,
    get_ruleset,
)
from tests.reference import Board, hand_rank, score_hand

RANKS = "23456789TJQKA"
FULL_DECK = [rank + suit for rank in RANKS for suit in "cdhs"]

HOUSE_RULES = [
    Ruleset(name="2-4", variant=Variant.PINEAPPLE, scoring=ScoringMethod.TWO_FOUR),
    Ruleset(name="2-6 moon", variant=Variant.CLASSIC, scoring=ScoringMethod.TWO_SIX,
            shoot_the_moon=True),
    Ruleset(name="moon", variant=Variant.CLASSIC, shoot_the_moon=True, moon_high_card="Q"),
    Ruleset(
        name="AA entry, middle FH stays", variant=Variant.PINEAPPLE,
        fantasyland=FantasylandRules(entry=(("AA", 14), ("222", 15)), stay_top="QQQ",
                                     stay_middle="full house", stay_bottom="straight flush",
                                     stay_cards=15),
    ),
    Ruleset(
        name="2013 table", variant=Variant.CLASSIC,
        royalties=RoyaltyTable(
            top_pairs={r: p for p, r in enumerate("6789TJQKA", start=1)}, top_trips={},
            middle={"straight": 4, "flush": 8, "full house": 12, "quads": 16,
                    "straight flush": 20, "royal flush": 40},
            bottom={"straight": 2, "flush": 4, "full house": 6, "quads": 8,
                    "straight flush": 10, "royal flush": 20}),
    ),
]
ALL_RULESETS = list(PRESETS.values()) + HOUSE_RULES
# The presets whose middle row is ranked high, as in RULES.md's worked examples.
HIGH_MIDDLE = [name for name, rules in PRESETS.items() if rules.middle is MiddleRow.HIGH]


def boards_frame(hands: list[list[Board]]) -> pl.DataFrame:
    rows = []
    for index, hand in enumerate(hands):
        for board in hand:
            rows.append({
                "hand_id": f"h{index:05d}", "player": board.player,
                "top": board.top, "middle": board.middle, "bottom": board.bottom,
                "in_fantasyland": board.in_fantasyland, "fl_cards": board.fl_cards,
            })
    return pl.DataFrame(rows, schema={
        "hand_id": pl.String, "player": pl.String, "top": pl.List(pl.String),
        "middle": pl.List(pl.String), "bottom": pl.List(pl.String),
        "in_fantasyland": pl.Boolean, "fl_cards": pl.Int8,
    })


def board(player: str, top: str, middle: str, bottom: str, **extra: object) -> Board:
    return Board(player, top.split(), middle.split(), bottom.split(), **extra)  # type: ignore[arg-type]


IVEY = board("Ivey", "6s 6c 4h", "Td Ts 9c Qs 8c", "3h 3d 3s 2h 2d")
HELLMUTH = board("Hellmuth", "Ah Kd Qd", "9h 9d 5h 5d 4c", "Ks Js 9s 8s 7s")


# --- RULES.md examples and literal cases --------------------------------------------


@pytest.mark.parametrize("preset", HIGH_MIDDLE)
def test_ivey_hellmuth_scores_plus_four_minus_four(preset: str) -> None:
    scores = score_boards(boards_frame([[IVEY, HELLMUTH]]), preset)
    assert scores.select("player", "points", "royalties", "rows_won").rows() == [
        ("Ivey", 4, 7, 2), ("Hellmuth", -4, 4, 1)]


@pytest.mark.parametrize(
    ("hand", "ruleset", "expected_points"),
    [
        # A fouled board loses 6 plus the opponent's royalties (flush bottom: 4).
        ([board("a", "Ah Ad Kc", "2c 3d 4h 5s 7c", "Ks Js 9s 8s 7s"),
          board("b", "2h 3h 4c", "9c 9d 5h 5d 4d", "Kh Jh 9h 8h 7h")], "pineapple", [-10, 10]),
        # Two fouled boards exchange nothing.
        ([board("a", "Ah Ad Kc", "2c 3d 4h 5s 7c", "Ks Js 9s 8s 7s"),
          board("b", "Kh Kd Qc", "2h 3c 4d 5c 7d", "Qs Ts 9c 8c 6h")], "pineapple", [0, 0]),
        # Scoop: 3 rows + 3 bonus; royalties cancel: 66 (1) vs nothing, FH bottom 6.
        ([board("a", "6s 6c 4h", "Td Ts 9c Qs 8c", "3h 3d 3s 2h 2d"),
          board("b", "5h 4d 2c", "9h 9d 7h 6d 4c", "Ks Jd 9s 8s 7s")], "pineapple", [13, -13]),
        # 2-4: two rows of three is worth 2, plus royalties 7 - 4.
        ([IVEY, HELLMUTH], "2-4", [5, -5]),
        # Equal rows tie; equal royalties (QQ 7 + straight 2) cancel.
        ([board("a", "Qs Qd 2c", "Kh Kd 4c 4d 3s", "9s 8h 7d 6c 5s"),
          board("b", "Qh Qc 2d", "Ks Kc 4h 4s 3c", "9h 8d 7c 6d 5h")], "pineapple", [0, 0]),
        # A royalty is collected on a lost row: a's 66 loses to 77 but still earns 1.
        ([board("a", "6s 6c 4h", "Td Ts 9c Qs 8c", "3h 3d 3s 2h 2d"),
          board("b", "7h 7d 2c", "8h 8d 5c 4d 3c", "Ks Kd 9s 8s 7c")], "pineapple", [6, -6]),
    ],
)
def test_literal_hands(hand: list[Board], ruleset: str, expected_points: list[int]) -> None:
    rules = next(r for r in ALL_RULESETS if r.name == ruleset)
    assert score_boards(boards_frame([hand]), rules)["points"].to_list() == expected_points


def test_fouled_board_earns_no_royalties_and_no_fantasyland() -> None:
    fouled = board("a", "Qs Qh Qc", "2c 3d 4h 5s 7c", "Ac Jc 9c 8c 6c")
    scores = score_boards(boards_frame([[fouled, HELLMUTH]]))
    first = scores.row(0, named=True)
    assert first["fouled"]
    assert first["royalties"] == 0
    assert not first["fl_entry"]
    assert first["points"] == -6 - 4


@pytest.mark.parametrize(
    ("top", "preset", "cards"),
    [("Qs Qd 2c", "pineapple", 14), ("Ks Kd 2c", "pineapple", 14),
     ("Qs Qd 2c", "classic", 13), ("Qs Qd 2c", "progressive", 14),
     ("Ks Kd 2c", "progressive", 15), ("As Ad 2c", "progressive", 16),
     ("4s 4d 4c", "ultimate", 16), ("Js Jd Ac", "progressive", None)],
)
def test_fantasyland_entry_and_card_counts(top: str, preset: str, cards: int | None) -> None:
    entering = board("a", top, "5h 5c 5d 7d 8d", "Ts 9s 8s 7s 6s")
    other = board("b", "2h 3h 6c", "Th Td Tc 3c 2d", "Kh Qh Jh 8h 7h")
    row = score_boards(boards_frame([[entering, other]]), preset).row(0, named=True)
    assert row["fl_entry"] is (cards is not None)
    assert row["fl_cards_next"] == cards


@pytest.mark.parametrize(
    ("preset", "middle", "bottom", "fl_cards", "stays", "cards"),
    [
        ("classic", "Th Td Tc 3c 3d", "Ks Kc Kd Kh 2s", None, True, 13),  # quads bottom
        ("classic", "Th Td Tc 3c 3d", "Ah Ac Ad 9c 9d", None, True, 13),  # FH middle
        ("pineapple", "Th Td Tc 3c 3d", "Ah Ac Ad 9c 9d", None, False, None),  # not here
        ("pineapple", "Th Td 8c 3c 3d", "Ks Kc Kd Kh 2s", None, True, 14),
        ("progressive", "Th Td 8c 3c 3d", "Ks Kc Kd Kh 2s", 16, True, 14),  # repeat at 14
        ("ultimate", "Th Td 8c 3c 3d", "Ks Kc Kd Kh 2s", 16, True, 16),  # same count
        ("ultimate", "Th Td 8c 3c 3d", "Ks Kc Kd Kh 2s", 15, True, 15),
    ],
)
def test_fantasyland_stay(preset: str, middle: str, bottom: str, fl_cards: int | None,
                          stays: bool, cards: int | None) -> None:
    # QQ on top while in Fantasyland is not a stay, and not an entry either.
    player = board("a", "Qs Qd 2c", middle, bottom, in_fantasyland=True, fl_cards=fl_cards)
    other = board("b", "2h 3h 6c", "7h 7d 5s 4s 6s", "Jh 9h 8h 5h 4h")
    row = score_boards(boards_frame([[player, other]]), preset).row(0, named=True)
    assert (row["fl_stay"], row["fl_entry"], row["fl_cards_next"]) == (stays, False, cards)


def test_trips_on_top_stay_and_enter_everywhere() -> None:
    for preset in HIGH_MIDDLE:
        inside = board("a", "4s 4d 4c", "5h 5c 5d 7d 8h", "Ah Ac Ad 9c 9d", in_fantasyland=True,
                       fl_cards=14)
        outside = board("b", "2h 2c 2d", "Th Td Tc 3c 3d", "Ks Kh Kd Qs Qh")
        rows = score_boards(boards_frame([[inside, outside]]), preset).rows(named=True)
        assert rows[0]["fl_stay"], preset
        assert rows[1]["fl_entry"], preset


def test_shooting_the_moon_collects_from_everyone_when_on() -> None:
    moon_rules = next(r for r in HOUSE_RULES if r.name == "moon")
    # J-high bottom: within this room's Q-high limit.
    shooter = board("a", "2c 3d 4h", "5c 6d 7h 9s Tc", "Jd 8h 7s 5s 3c")
    others = [board("b", "Ah Ad Kc", "2h 2s 3h 3s 8c", "Ks Kh Kd 9d 9c"),
              board("c", "Qh 9h 8d", "Td Th 6c 6h Qc", "As Ac 4d 4s Ts")]
    hand = [shooter, *others]
    scored = score_hands(boards_frame([hand]), moon_rules)
    assert scored.players["points"].to_list()[0] == 40
    assert scored.players["moon"].to_list() == [True, False, False]
    assert scored.matchups["points"].to_list()[:2] == [20, 20]
    assert score_boards(boards_frame([hand]), "classic")["points"].to_list()[0] < 0


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ([board("short", "Jc Jd", "2c 3c 6c 5c 7d", "Tc Th 8d 8c 6d"), HELLMUTH],
         [(True, -10, "incomplete board (top has 2 of 3)"), (False, 10, None)]),
        ([board("extra", "Jc Jd 2d Ac", "2c 3c 6c 5c 7d", "Tc Th 8d 8c 6d"), HELLMUTH],
         [(True, -10, "extra cards (top has 4 of 3)"), (False, 10, None)]),
        ([board("dup", "Ah Kd 2d", "2c 3c 6c 5c 7d", "Jc Jh 8d 8h 6d"), IVEY],
         [(True, 0, "duplicate card"), (True, 0, "duplicate card")]),
        ([board("twice", "Tc Tc 2d", "2c 3c 6c 5c 7d", "Jc Jh 8d 8h 6d"), HELLMUTH],
         [(True, -10, "duplicate card"), (False, 10, None)]),
        ([board("joker", "Jc Jd Xj", "2c 3c 6c 5c 7d", "Tc Th 8d 8c 6d"), HELLMUTH],
         [(True, -10, "joker in a game without jokers"), (False, 10, None)]),
        ([IVEY], [(False, 0, "hand needs 2-4 players")]),
    ],
)
def test_problems_are_flagged_and_fouled_not_silently_scored(
        hand: list[Board], expected: list[tuple[bool, int, str | None]]) -> None:
    scores = score_boards(boards_frame([hand])).select("fouled", "points", "problem")
    assert scores.rows() == expected


def test_invalid_card_raises_naming_card_and_where() -> None:
    bad = board("a", "Ah Kd Zz", "2c 3c 4c 5c 7d", "9s 9h 9c 8d 8c")
    with pytest.raises(ValueError, match=r"invalid card 'Zz' \(hand h00000, player a, top\)"):
        score_boards(boards_frame([[bad, HELLMUTH]]))


def test_text_rows_and_symbols_are_accepted() -> None:
    frame = pl.DataFrame({
        "hand_id": ["1", "1"], "player": ["Ivey", "Hellmuth"],
        "top": ["6♠ 6♣ 4♥", "A♥ K♦ Q♦"], "middle": ["10d Ts 9c Qs 8c", "9h 9d 5h 5d 4c"],
        "bottom": ["3h 3d 3s 2h 2d", "ks js 9s 8s 7s"],
    })
    assert score_boards(frame)["points"].to_list() == [4, -4]


def test_matchups_hold_one_row_per_pair_and_match_player_totals() -> None:
    third = board("Negreanu", "Jh Jd 3c", "Qh Qc 7d 7s 2s", "Ac Kc Tc 6c 4c")
    scored = score_hands(boards_frame([[IVEY, HELLMUTH, third]]))
    matchups = scored.matchups
    assert matchups.select("player", "opponent").rows() == [
        ("Ivey", "Hellmuth"), ("Ivey", "Negreanu"), ("Hellmuth", "Negreanu")]
    totals = Counter[str]()
    for row in matchups.iter_rows(named=True):
        totals[row["player"]] += row["points"]
        totals[row["opponent"]] -= row["points"]
    assert dict(totals) == dict(scored.players.select("player", "points").rows())


# --- Property tests against the reference ------------------------------------------


@st.composite
def decks(draw: st.DrawFn) -> list[str]:
    """A deck biased towards some kind of trouble: full, few ranks, or two suits."""
    kind = draw(st.sampled_from(["full", "few ranks", "two suits", "wheel"]))
    if kind == "few ranks":
        ranks = draw(st.lists(st.sampled_from(RANKS), min_size=7, max_size=13, unique=True))
        return [card for card in FULL_DECK if card[0] in ranks]
    if kind == "two suits":
        suits = draw(st.lists(st.sampled_from("cdhs"), min_size=2, max_size=2, unique=True))
        return [card for card in FULL_DECK if card[1] in suits]
    if kind == "wheel":
        return [card for card in FULL_DECK if card[0] in "A2345KQ"]
    return FULL_DECK


def arrange_to_avoid_fouls(cards: list[str]) -> list[str]:
    """Bottom gets the biggest rank groups, then middle, then top; swap if still fouled."""
    counts = Counter(card[0] for card in cards)
    ordered = sorted(cards, key=lambda c: (counts[c[0]], RANKS.index(c[0])), reverse=True)
    bottom, middle, top = ordered[:5], ordered[5:10], ordered[10:]
    if hand_rank(middle) > hand_rank(bottom):
        bottom, middle = middle, bottom
    return top + middle + bottom


@st.composite
def hands(draw: st.DrawFn, tidy: bool | None = None) -> list[Board]:
    deck = draw(decks())
    most = min(4, len(deck) // 13)
    players = draw(st.integers(min_value=2, max_value=max(2, most)))
    shuffled = draw(st.permutations(deck))
    tidy = draw(st.booleans()) if tidy is None else tidy
    boards = []
    for seat in range(players):
        cards = list(shuffled[seat * 13:(seat + 1) * 13])
        if tidy:
            cards = arrange_to_avoid_fouls(cards)
        in_fl = draw(st.booleans())
        boards.append(Board(f"p{seat}", cards[:3], cards[3:8], cards[8:13],
                            in_fantasyland=in_fl,
                            fl_cards=draw(st.sampled_from([14, 15, 16])) if in_fl else None))
    return boards


def assert_matches_reference(hand_list: list[list[Board]], ruleset: Ruleset,
                             batch_boards: int = 1 << 16) -> None:
    frame = boards_frame(hand_list)
    scored = score_hands(frame, ruleset, batch_boards=batch_boards)
    # The one-table entry points build only their table, the same one.
    assert_frame_equal(score_boards(frame, ruleset), scored.players)
    assert_frame_equal(score_matchups(frame, ruleset), scored.matchups)
    players = scored.players.rows(named=True)
    matchups = scored.matchups.rows(named=True)
    position = 0
    pair_position = 0
    for hand in hand_list:
        results, pairs = score_hand(hand, ruleset)
        for board_, expected in zip(hand, results, strict=True):
            got = players[position]
            position += 1
            assert got["player"] == board_.player
            context = (board_, got)
            assert got["fouled"] == expected.fouled, context
            assert (got["problem"] is not None) == expected.problem, context
            assert got["royalties_top"] == expected.royalties["top"], context
            assert got["royalties_middle"] == expected.royalties["middle"], context
            assert got["royalties_bottom"] == expected.royalties["bottom"], context
            assert got["royalties"] == sum(expected.royalties.values()), context
            assert got["points"] == expected.points, context
            assert got["rows_won"] == expected.rows_won, context
            assert got["rows_lost"] == expected.rows_lost, context
            assert got["scoops"] == expected.scoops, context
            assert got["scooped"] == expected.scooped, context
            assert got["fl_entry"] == expected.fl_entry, context
            assert got["fl_stay"] == expected.fl_stay, context
            assert got["fl_cards_next"] == expected.fl_cards_next, context
            assert got["fl_qualifies_entry"] == expected.fl_qualifies_entry, context
            assert got["fl_entry_cards"] == expected.fl_entry_cards, context
            assert got["fl_qualifies_stay"] == expected.fl_qualifies_stay, context
            assert got["fl_stay_cards"] == expected.fl_stay_cards, context
            assert got["moon"] == expected.moon, context
            assert got["joker_cards"] == (" ".join(expected.jokers_as) or None), context
        for pair in pairs:
            got = matchups[pair_position]
            pair_position += 1
            assert (got["player"], got["opponent"]) == (pair.player, pair.opponent)
            assert got["points"] == pair.points, (hand, got, pair)
            assert (got["rows_won"], got["rows_lost"]) == (pair.rows_won, pair.rows_lost)
            assert (got["scoop"], got["scooped"]) == (pair.scoop, pair.scooped)
            assert got["royalty_diff"] == pair.royalty_diff
            assert [got["top_result"], got["middle_result"], got["bottom_result"]] == (
                pair.row_results)


@given(hand_list=st.lists(hands(), min_size=1, max_size=12),
       ruleset=st.sampled_from(ALL_RULESETS))
def test_vectorised_equals_reference(hand_list: list[list[Board]], ruleset: Ruleset) -> None:
    assert_matches_reference(hand_list, ruleset)


@given(hand_list=st.lists(hands(tidy=True), min_size=1, max_size=12),
       ruleset=st.sampled_from(ALL_RULESETS))
def test_vectorised_equals_reference_on_mostly_legal_boards(
        hand_list: list[list[Board]], ruleset: Ruleset) -> None:
    assert_matches_reference(hand_list, ruleset)


@given(hand_list=st.lists(hands(), min_size=3, max_size=30),
       batch=st.integers(min_value=2, max_value=20), ruleset=st.sampled_from(ALL_RULESETS))
def test_batches_split_at_hand_boundaries_change_nothing(
        hand_list: list[list[Board]], batch: int, ruleset: Ruleset) -> None:
    assert_matches_reference(hand_list, ruleset, batch_boards=batch)


@given(hand_list=st.lists(hands(), min_size=1, max_size=10),
       ruleset=st.sampled_from(ALL_RULESETS))
def test_points_sum_to_zero_per_hand(hand_list: list[list[Board]], ruleset: Ruleset) -> None:
    scored = score_hands(boards_frame(hand_list), ruleset)
    per_hand = scored.players.group_by("hand_id").agg(pl.col("points").sum())
    assert per_hand["points"].to_list() == [0] * len(hand_list)
    assert scored.players["rows_won"].sum() == scored.players["rows_lost"].sum()
    assert scored.players["scoops"].sum() == scored.players["scooped"].sum()


@given(hand=hands(), ruleset=st.sampled_from(ALL_RULESETS), data=st.data())
def test_swapping_two_seats_swaps_their_results(hand: list[Board], ruleset: Ruleset,
                                                data: st.DataObject) -> None:
    i, j = data.draw(st.lists(st.integers(0, len(hand) - 1), min_size=2, max_size=2,
                              unique=True))
    swapped = list(hand)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    original = score_hands(boards_frame([hand]), ruleset)
    after = score_hands(boards_frame([swapped]), ruleset)
    assert original.players.sort("player").equals(after.players.sort("player"))

    def by_pair(matchups: pl.DataFrame) -> dict[tuple[str, str], int]:
        result = {}
        for row in matchups.iter_rows(named=True):
            result[(row["player"], row["opponent"])] = row["points"]
            result[(row["opponent"], row["player"])] = -row["points"]
        return result

    assert by_pair(original.matchups) == by_pair(after.matchups)


def test_every_preset_is_covered_by_the_property_tests() -> None:
    assert {r.name for r in ALL_RULESETS} >= set(PRESETS)
    assert get_ruleset("classic").fantasyland.stay_middle == "full house"
    assert dataclasses.replace(get_ruleset("pineapple"), name="x").scoring is ScoringMethod.ONE_SIX


def test_no_boards_give_empty_tables_with_every_column() -> None:
    """A table of no hands scores to the same empty tables by every entry point."""
    empty = boards_frame([])
    scored = score_hands(empty)
    assert scored.players.is_empty()
    assert scored.matchups.is_empty()
    assert "points" in scored.players.columns
    assert "opponent" in scored.matchups.columns
    assert_frame_equal(score_boards(empty), scored.players)
    assert_frame_equal(score_matchups(empty), scored.matchups)


@given(hand_list=st.lists(hands(), min_size=1, max_size=10),
       ruleset=st.sampled_from(ALL_RULESETS), data=st.data())
def test_any_row_order_scores_each_board_the_same(hand_list: list[list[Board]],
                                                  ruleset: Ruleset,
                                                  data: st.DataObject) -> None:
    """Boards in any order (grouped by hand under ids that do not sort, hands
    interleaved, or all mixed up) score as in hand order: players in the input's
    order; matchups hand by hand, in the order the hands first appear."""
    frame = boards_frame(hand_list)
    ids = data.draw(st.permutations([f"x{index}" for index in range(len(hand_list))]))
    renamed = frame.with_columns(pl.col("hand_id").replace_strict(
        [f"h{index:05d}" for index in range(len(hand_list))], ids))
    # Each board by its hand: in hand order, or hands interleaved, each hand's boards
    # still in their order (which orients its matchups).
    slots = [hand for hand, boards in enumerate(hand_list) for _ in boards]
    order = data.draw(st.sampled_from(["grouped", "interleaved", "mixed up"]))
    if order != "grouped":
        slots = data.draw(st.permutations(slots))
    next_board = [sum(len(boards) for boards in hand_list[:hand])
                  for hand in range(len(hand_list))]
    rows = []
    for hand in slots:
        rows.append(next_board[hand])
        next_board[hand] += 1
    if order == "mixed up":
        rows = data.draw(st.permutations(rows))
    mixed = renamed[rows]
    expected = score_hands(renamed, ruleset)
    scored = score_hands(mixed, ruleset)
    assert_frame_equal(scored.players, expected.players[rows])
    assert_frame_equal(score_boards(mixed, ruleset), scored.players)
    if order == "mixed up":
        return
    first_seen = pl.DataFrame({"hand_id": list(dict.fromkeys(mixed["hand_id"]))})
    assert_frame_equal(scored.matchups, first_seen.join(expected.matchups, on="hand_id",
                                                        maintain_order="left_right"))
