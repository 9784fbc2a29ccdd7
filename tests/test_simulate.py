"""The simulator: legal boards, streets, Fantasyland chains, button, points, faults.

Every check holds the simulated records to the real scorer (``score_batch``), the
way the auditor will: the injected faults, and nothing else, must disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from ofc_stats.engine.boards import CARD_COLUMNS, board_codes
from ofc_stats.engine.cards import JOKER
from ofc_stats.engine.rules import Variant, get_ruleset, ruleset_for_variant
from ofc_stats.engine.scoring import BoardScores, compile_rules, score_batch
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.simulate import (
    FaultKind,
    Simulation,
    SimulationConfig,
    SimulationError,
    parse_faults,
    simulate,
)
from ofc_stats.simulate.records import position_in_run

RECORD_FAULTS = {kind: 3 for kind in (FaultKind.MIS_SCORED, FaultKind.MIS_PAID,
                                      FaultKind.FL_UNEARNED, FaultKind.FL_MISSING,
                                      FaultKind.FL_CARDS, FaultKind.GAP)}


@dataclass(frozen=True)
class Played:
    """A simulation's records, concatenated, with the scorer's verdict on each board."""

    simulation: Simulation
    hands: pl.DataFrame
    seats: pl.DataFrame  # plus the scorer's columns
    streets: pl.DataFrame


def score_seats(hands: pl.DataFrame, seats: pl.DataFrame) -> pl.DataFrame:
    """``seats`` with the scorer's fouled, points, royalties and Fantasyland columns."""
    scored = []
    for variant in hands["variant"].unique(maintain_order=True).to_list():
        ids = hands.filter(pl.col("variant") == variant).select("site", "hand_id")
        part = seats.join(ids, on=["site", "hand_id"], how="semi", maintain_order="left")
        runs = part["hand_id"].rle().struct.field("len").to_numpy()
        starts = np.concatenate([[0], np.cumsum(runs)]).astype(np.int64)
        cards = board_codes(part)
        boards: BoardScores
        boards, _ = score_batch(cards, starts, compile_rules(get_ruleset(variant)),
                                in_fantasyland=part["in_fantasyland"].to_numpy(),
                                fl_cards=part["fl_cards"].fill_null(-1).to_numpy()
                                .astype(np.int8))
        scored.append(part.with_columns(
            problem=pl.Series(boards.problems), fouled=pl.Series(boards.fouled),
            points=pl.Series(boards.points), royalties=pl.Series(boards.royalties),
            fl_next=pl.Series(boards.fl_entry | boards.fl_stay),
            fl_cards_next=pl.Series(boards.fl_cards_next), fl_entry=pl.Series(boards.fl_entry),
            fl_stay=pl.Series(boards.fl_stay)))
    return pl.concat(scored)


def play(config: SimulationConfig) -> Played:
    simulation = Simulation(config)
    batch = CanonicalBatch.concat(list(simulation))
    return Played(simulation, batch.hands, score_seats(batch.hands, batch.seats),
                  batch.streets)


@pytest.fixture(scope="module")
def played() -> Played:
    """A table per variant, every record fault three times."""
    return play(SimulationConfig(seed=11, hands=6000, tables=len(Variant), players=14,
                                 faults=RECORD_FAULTS))


def faults_of(played: Played, kind: FaultKind) -> set[str]:
    return {fault.hand_id for fault in played.simulation.faults if fault.kind is kind}


def consecutive(played: Played) -> pl.DataFrame:
    """Each player's board next to their board in the table's previous hand, where
    both hands are present and consecutive: no gap between them, and no break of
    an hour or more (a new session, a new game)."""
    hands = played.hands.sort("table", "started_at").with_columns(
        number=pl.col("hand_id").str.extract(r"(\d+)$").cast(pl.Int64))
    previous = hands.select(
        "table", pl.col("hand_id").alias("prev_hand_id"),
        (pl.col("number") + 1).alias("number"), pl.col("button_seat").alias("prev_button"),
        pl.col("started_at").alias("prev_started_at"))
    pairs = hands.join(previous, on=["table", "number"], how="inner").filter(
        pl.col("started_at") - pl.col("prev_started_at") < pl.duration(hours=1))
    seats = played.seats
    return (pairs.select("hand_id", "prev_hand_id", "button_seat", "prev_button")
            .join(seats.select("hand_id", "player", "seat", "in_fantasyland", "fl_cards"),
                  on="hand_id")
            .join(seats.select(pl.col("hand_id").alias("prev_hand_id"), "player",
                               pl.col("fl_next").alias("prev_fl_next"),
                               pl.col("fl_cards_next").alias("prev_fl_cards_next")),
                  on=["prev_hand_id", "player"], how="left"))


def test_hands_ordered_by_table_and_time_with_canonical_schemas(played: Played) -> None:
    assert played.hands.height == 6000 - 3  # three gaps
    assert played.hands["table"].n_unique() == len(Variant)
    assert set(played.hands["variant"]) == {variant.value for variant in Variant}
    order = played.hands.with_row_index().sort("table", "started_at")
    per_table = order.group_by("table", maintain_order=True).agg(pl.col("index"))
    for indices in per_table["index"]:
        assert indices.to_list() == sorted(indices)  # each table's hands in time order
    assert played.hands["hand_id"].n_unique() == played.hands.height
    assert played.hands["has_streets"].all()
    assert played.hands["content_hash"].null_count() == 0


def test_same_seed_same_records_other_seed_others() -> None:
    config = SimulationConfig(seed=5, hands=300, tables=3, faults=RECORD_FAULTS)
    first, again = (CanonicalBatch.concat(list(simulate(config))) for _ in range(2))
    for name in ("hands", "seats", "streets"):
        assert_frame_equal(getattr(first, name), getattr(again, name))
    other = CanonicalBatch.concat(list(simulate(SimulationConfig(seed=6, hands=300, tables=3))))
    assert not np.array_equal(board_codes(first.seats), board_codes(other.seats))


def test_boards_are_legal_and_cards_dealt_as_often_as_the_deck_holds_them(
        played: Played) -> None:
    assert (played.seats["problem"] == 0).all()
    cards = board_codes(played.seats)
    joker_game = played.seats["variant"].str.starts_with("joker").to_numpy()
    assert ((cards >= 0) & ((cards < 52) | ((cards == JOKER) & joker_game[None, :]))).all()
    assert (cards == JOKER).any()  # the joker tables deal jokers
    # Every card dealt in a hand (placed or discarded, any seat) at most as often as
    # its deck holds it: once, twice with two decks; a joker twice in a joker game.
    allowed = {variant.value: (ruleset_for_variant(variant).decks,
                               ruleset_for_variant(variant).jokers) for variant in Variant}
    dealt = (played.streets.join(played.hands.select("hand_id", "variant"), on="hand_id")
             .group_by("hand_id", "variant", "card").len())
    limit = dealt.select(pl.when(pl.col("card") == JOKER)
                         .then(pl.col("variant").replace_strict({k: v[1] for k, v in
                                                                 allowed.items()}))
                         .otherwise(pl.col("variant").replace_strict(
                             {k: v[0] for k, v in allowed.items()}))).to_series()
    assert (dealt["len"] <= limit).all()
    assert (dealt.filter(pl.col("variant").str.starts_with("double"))["len"] == 2).any()


def test_streets_rebuild_the_final_boards_and_discards(played: Played) -> None:
    placed = (played.streets.filter(pl.col("action") == "place")
              .group_by("hand_id", "seat", "row").agg(pl.col("card").sort()))
    seats = played.seats.with_columns(
        pl.concat_list(name for name in CARD_COLUMNS if name.startswith(f"{row}_")).alias(row)
        for row in ("top", "middle", "bottom"))
    for row in ("top", "middle", "bottom"):
        expected = seats.select("hand_id", "seat", pl.col(row).list.sort().alias("card"))
        got = placed.filter(pl.col("row") == row).drop("row")
        joined = expected.join(got, on=["hand_id", "seat"], how="full", suffix="_streets")
        assert joined.height == seats.height
        assert (joined["card"] == joined["card_streets"]).all(), row
    discards = (played.streets.filter(pl.col("action") == "discard")
                .group_by("hand_id", "seat").agg(pl.col("card").sort()))
    from ofc_stats.engine.cards import card_codes
    expected = (played.seats.filter(pl.col("discards").is_not_null())
                .select("hand_id", "seat", pl.col("discards").str.split(" ").alias("names")))
    expected = expected.explode("names").with_columns(card=card_codes(expected.explode(
        "names")["names"])).group_by("hand_id", "seat").agg(pl.col("card").sort())
    assert_frame_equal(discards.sort("hand_id", "seat"), expected.sort("hand_id", "seat"))


@pytest.mark.parametrize(("variant", "in_fantasyland", "shape"), [
    # street -> (placed, discarded) for one player
    ("classic", False, {1: (5, 0), **{street: (1, 0) for street in range(2, 10)}}),
    ("pineapple", False, {1: (5, 0), 2: (2, 1), 3: (2, 1), 4: (2, 1), 5: (2, 1)}),
    ("progressive", False, {1: (5, 0), 2: (2, 1), 3: (2, 1), 4: (2, 1), 5: (2, 1)}),
    ("classic", True, {1: (13, 0)}),
])
def test_each_street_deals_as_the_variant_says(played: Played, variant: str,
                                               in_fantasyland: bool,
                                               shape: dict[int, tuple[int, int]]) -> None:
    ids = played.hands.filter(pl.col("variant") == variant).select("hand_id")
    boards = played.seats.join(ids, on="hand_id").filter(
        pl.col("in_fantasyland") == in_fantasyland).filter(
        pl.col("fl_cards").is_null() | (pl.col("fl_cards") == 13))
    streets = played.streets.join(boards.select("hand_id", "seat"), on=["hand_id", "seat"])
    counts = (streets.group_by("hand_id", "seat", "street")
              .agg((pl.col("action") == "place").sum().alias("placed"),
                   (pl.col("action") == "discard").sum().alias("discarded")))
    assert counts.height == boards.height * len(shape)
    for street, (placed, discarded) in shape.items():
        at = counts.filter(pl.col("street") == street)
        assert at.height == boards.height
        assert (at["placed"] == placed).all()
        assert (at["discarded"] == discarded).all()


def test_fantasyland_deals_all_cards_at_once_and_discards_the_rest(played: Played) -> None:
    fantasyland = played.seats.filter(pl.col("in_fantasyland"))
    assert fantasyland.height > 50
    streets = played.streets.join(fantasyland.select("hand_id", "seat", "fl_cards"),
                                  on=["hand_id", "seat"])
    per_board = streets.group_by("hand_id", "seat").agg(
        pl.col("street").max().alias("last_street"), pl.len().alias("cards"),
        (pl.col("action") == "discard").sum().alias("discarded"), pl.col("fl_cards").first())
    assert (per_board["last_street"] == 1).all()
    assert (per_board["cards"] == per_board["fl_cards"]).all()
    assert (per_board["discarded"] == per_board["fl_cards"] - 13).all()


def test_streets_follow_the_button_clockwise(played: Played) -> None:
    first_actor = (played.streets.filter(pl.col("action_order") == 0)
                   .join(played.hands.select("hand_id", "button_seat"), on="hand_id"))
    seats = played.seats.group_by("hand_id").agg(pl.col("seat").sort())
    checked = first_actor.join(seats, on="hand_id", suffix="s")
    for button, seat, occupied in checked.select("button_seat", "seat", "seats").iter_rows():
        after = [s for s in occupied if s > button]
        assert seat == (after[0] if after else occupied[0])


def test_reported_points_and_royalties_are_the_scorers_except_mis_scores(
        played: Played) -> None:
    seats = played.seats
    assert (seats["reported_royalties"] == seats["royalties"]).all()
    wrong = set(seats.filter(pl.col("reported_points") != pl.col("points"))["hand_id"])
    assert wrong == faults_of(played, FaultKind.MIS_SCORED)
    assert len(wrong) == 3
    # A room's bug still moves points between players: each hand sums to zero.
    assert (seats.group_by("hand_id").agg(pl.col("reported_points").sum())
            ["reported_points"] == 0).all()


def test_money_at_table_stakes_is_capped_except_where_mis_paid(played: Played) -> None:
    from ofc_stats.engine.boards import micros
    from ofc_stats.engine.stakes import hand_money

    at_stakes = played.seats.filter(pl.col("starting_stack").is_not_null())
    assert set(at_stakes["variant"]) == {"joker-pineapple", "joker-progressive", "joker-ultimate",
                                         "double-deck", "double-deck-pineapple",
                                         "deuce-to-seven"}
    assert played.seats.filter(pl.col("starting_stack").is_null())["reported_money"].is_null(
    ).all()
    starts = np.flatnonzero(np.concatenate([[True], at_stakes["hand_id"].to_numpy()[1:]
                                            != at_stakes["hand_id"].to_numpy()[:-1]]))
    starts = np.append(starts, at_stakes.height)
    money = hand_money(at_stakes["points"].to_numpy(), starts,
                       micros(at_stakes["point_value"]), micros(at_stakes["starting_stack"]),
                       table_stakes=True)
    paid = (micros(at_stakes["reported_money"]) // 10_000)
    wrong = set(at_stakes.filter(pl.Series(paid != money.capped))["hand_id"])
    assert wrong == faults_of(played, FaultKind.MIS_PAID)
    assert len(wrong) == 3
    assert money.cap_applied.any()  # stacks run short now and then
    # Paid or mis-paid, a hand's money sums to zero and a stack pays no more than it holds.
    assert (at_stakes.group_by("hand_id").agg(pl.col("reported_money").sum())
            ["reported_money"] == 0).all()


def test_fantasyland_chains_follow_the_ruleset_except_injected_faults(played: Played) -> None:
    pairs = consecutive(played).filter(pl.col("prev_fl_next").is_not_null())
    wrong_flag = pairs.filter(pl.col("in_fantasyland") != pl.col("prev_fl_next"))
    unearned = set(wrong_flag.filter(pl.col("in_fantasyland"))["hand_id"])
    missing = set(wrong_flag.filter(~pl.col("in_fantasyland"))["hand_id"])
    wrong_cards = set(pairs.filter(pl.col("in_fantasyland") & pl.col("prev_fl_next")
                                   & (pl.col("fl_cards") != pl.col("prev_fl_cards_next")))
                      ["hand_id"])
    assert unearned == faults_of(played, FaultKind.FL_UNEARNED)
    assert missing == faults_of(played, FaultKind.FL_MISSING)
    assert wrong_cards == faults_of(played, FaultKind.FL_CARDS)
    assert len(unearned) == len(missing) == len(wrong_cards) == 3
    # Nobody is due Fantasyland and then absent from the table's next hand.
    hands = consecutive(played).select("prev_hand_id", "hand_id").unique()
    due = played.seats.filter(pl.col("fl_next")).select(
        pl.col("hand_id").alias("prev_hand_id"), "player")
    followed = due.join(hands, on="prev_hand_id").join(
        played.seats.select("hand_id", "player"), on=["hand_id", "player"], how="anti")
    assert followed.is_empty()


def test_progressive_and_ultimate_card_counts_appear(played: Played) -> None:
    counts = (played.seats.filter(pl.col("in_fantasyland"))
              .join(played.hands.select("hand_id", "variant"), on="hand_id")
              .group_by("variant").agg(pl.col("fl_cards").unique().sort()))
    by_variant = dict(zip(counts["variant"], counts["fl_cards"].to_list(), strict=True))
    assert set(by_variant["classic"]) <= {13, 14}  # 14 only where a wrong count is injected
    assert {14, 15, 16} <= set(by_variant["progressive"]) | set(by_variant["ultimate"])


def test_several_players_in_fantasyland_at_once(played: Played) -> None:
    at_once = played.seats.group_by("hand_id").agg(pl.col("in_fantasyland").sum())
    assert (at_once["in_fantasyland"] >= 2).sum() > 0


def test_button_moves_clockwise_except_on_fantasyland_hands(played: Played) -> None:
    pairs = consecutive(played)
    per_hand = pairs.group_by("hand_id", maintain_order=True).agg(
        pl.col("button_seat").first(), pl.col("prev_button").first(),
        pl.col("in_fantasyland").any().alias("fantasyland"), pl.col("seat").sort())
    stayed = per_hand.filter(pl.col("fantasyland"))
    assert stayed.height > 20
    assert (stayed["button_seat"] == stayed["prev_button"]).all()
    for button, previous, seats in per_hand.filter(~pl.col("fantasyland")).select(
            "button_seat", "prev_button", "seat").iter_rows():
        after = [seat for seat in seats if seat > previous]
        assert button == (after[0] if after else seats[0])


def test_gaps_are_missing_numbers_in_a_tables_sequence(played: Played) -> None:
    gaps = faults_of(played, FaultKind.GAP)
    assert len(gaps) == 3
    assert not gaps & set(played.hands["hand_id"])
    numbers = played.hands.with_columns(
        number=pl.col("hand_id").str.extract(r"(\d+)$").cast(pl.Int64),
        code=pl.col("hand_id").str.extract(r"^(.*)-\d+$"))
    for gap in gaps:
        code, number = gap.rsplit("-", 1)
        table = numbers.filter(pl.col("code") == code)["number"]
        assert int(number) - 1 in table.to_list()
        assert int(number) + 1 in table.to_list()


def test_players_join_and_leave_and_tables_seat_two_to_four(played: Played) -> None:
    sizes = played.hands.group_by("variant").agg(pl.col("players").min().alias("low"),
                                                  pl.col("players").max().alias("high"))
    limits = dict(zip(sizes["variant"], zip(sizes["low"], sizes["high"], strict=True),
                      strict=True))
    assert limits["classic"] == (2, 4)
    assert all(limits[v] == (2, 3) for v in ("pineapple", "progressive", "ultimate"))
    per_table = played.seats.group_by("table").agg(pl.col("player").n_unique())
    assert (per_table["player"] > 4).all()  # line-ups change over the sessions


def test_times_are_realistic(played: Played) -> None:
    hands = played.hands.sort("table", "started_at").with_columns(
        gap=pl.col("started_at").diff().over("table").dt.total_seconds())
    within = hands.filter(pl.col("gap") < 3600)["gap"]
    assert within.min() >= 20
    assert within.max() <= 240
    assert 40 <= within.median() <= 110
    breaks = hands.filter(pl.col("gap") >= 3600)
    assert breaks.height >= 8 * 3  # several sessions per table
    span = hands["started_at"].max() - hands["started_at"].min()
    assert span.days >= 3
    assert set(played.hands["utc_offset_minutes"]) == {60}
    assert played.hands["point_value"].null_count() == 0
    assert set(played.hands["currency"]) == {"USD"}


def test_foul_and_fantasyland_rates_by_skill() -> None:
    result = play(SimulationConfig(seed=2, hands=12_000, tables=6, players=12,
                                   variants=(Variant.PINEAPPLE,)))
    skill = dict(zip(result.simulation.pool.names, result.simulation.pool.skill.tolist(),
                     strict=True))
    normal = result.seats.filter(~pl.col("in_fantasyland"))
    rates = (normal.group_by("player").agg(pl.col("fouled").mean(),
                                            pl.col("fl_entry").mean(), pl.len())
             .with_columns(skill=pl.col("player").replace_strict(skill)).sort("skill"))
    assert (rates["len"] > 500).all()
    assert rates["fouled"].is_between(0.06, 0.4).all(), rates
    weak = rates.filter(pl.col("skill") < 0.3)["fouled"].mean()
    strong = rates.filter(pl.col("skill") > 0.7)["fouled"].mean()
    assert 0.25 <= weak <= 0.38, rates  # type: ignore[operator]
    assert 0.08 <= strong <= 0.18, rates  # type: ignore[operator]
    assert np.corrcoef(rates["skill"], rates["fouled"])[0, 1] < -0.8
    assert 0.02 <= normal["fl_entry"].mean() <= 0.15  # type: ignore[operator]
    fantasyland = result.seats.filter(pl.col("in_fantasyland"))
    assert fantasyland["fouled"].mean() < 0.1  # type: ignore[operator]
    assert 0.02 <= fantasyland["fl_stay"].mean() <= 0.3  # type: ignore[operator]
    categories = normal.filter(~pl.col("fouled"))
    assert 2.0 <= categories["royalties"].mean() <= 6.0  # type: ignore[operator]


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), hands=st.integers(1, 120),
       variant=st.sampled_from(list(Variant)))
def test_any_seed_gives_legal_consistent_hands(seed: int, hands: int, variant: Variant) -> None:
    batch = CanonicalBatch.concat(list(simulate(SimulationConfig(
        seed=seed, hands=hands, variants=(variant,), batch_hands=50))))
    assert batch.hands.height == hands
    seats = score_seats(batch.hands, batch.seats)
    assert (seats["problem"] == 0).all()
    assert (seats["reported_points"] == seats["points"]).all()
    rules = ruleset_for_variant(variant)
    copies = batch.streets.group_by("hand_id", "card").len()
    assert (copies.filter(pl.col("card") != JOKER)["len"] <= rules.decks).all()
    assert (copies.filter(pl.col("card") == JOKER)["len"] <= rules.jokers).all()
    assert batch.problems.is_empty()
    # The room's money (table stakes) is the capped money, and never past a stack.
    if batch.seats["starting_stack"].is_not_null().any():
        money = batch.seats["reported_money"].cast(pl.Float64)
        assert (money.abs() <= batch.seats["starting_stack"].cast(pl.Float64) + 1e-9).all()
        assert money.sum() == pytest.approx(0, abs=1e-6)


@pytest.mark.parametrize(("spec", "expected"), [
    ("all", 11), ("none", 0), ("gap=4", 1), ("gap,mis-scored=2", 2),
])
def test_fault_specs(spec: str, expected: int) -> None:
    assert len(parse_faults(spec)) == expected


@pytest.mark.parametrize("spec", ["nonsense", "gap=x", "gap=-1"])
def test_bad_fault_specs_are_clear_errors(spec: str) -> None:
    with pytest.raises(SimulationError):
        parse_faults(spec)


@pytest.mark.parametrize("settings_", [{"hands": 0}, {"variants": ()}, {"tables": 0},
                                       {"players": 2}])
def test_bad_configs_are_clear_errors(settings_: dict[str, object]) -> None:
    with pytest.raises(SimulationError):
        SimulationConfig(**settings_)  # type: ignore[arg-type]


@pytest.mark.parametrize(("values", "expected"), [
    ([3, 3, 3, 5, 5, 7, 3], [0, 1, 2, 0, 1, 0, 0]),
    ([1], [0]),
    ([], []),
])
def test_position_in_run(values: list[int], expected: list[int]) -> None:
    assert position_in_run(np.array(values, dtype=np.int64)).tolist() == expected
