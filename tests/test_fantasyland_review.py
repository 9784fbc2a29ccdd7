"""ofc-stats review: a table's Fantasyland hands reviewed, against values worked by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from ofc_stats import solve_fantasyland
from ofc_stats.analysis.fantasyland_review import (
    FL_REVIEW_SCHEMA,
    REVIEW_TABLE,
    SKIP_REASONS,
    _Tally,
    review_seats,
    review_warehouse,
)
from ofc_stats.cli import app
from ofc_stats.db import fantasyland_review_stats, query_warehouse
from ofc_stats.engine.rules import get_ruleset
from ofc_stats.errors import ExitCode
from ofc_stats.warehouse import Warehouse
from tests.builders import ENTRY_QQ, Hand, Seat, canonical, store
from tests.reference import Board, score_hand

runner = CliRunner()
# alice's Fantasyland hands deal her the solver test's worked hand,
# "Ah Ad Ac As Kh Kd Kc Qs Js Ts 9s 8s 2c 3d": its best is 56 royalties and a stay.
# bob shares no card with alice's boards or carol's.
BOB = ("2h 3h 4d", "7h 7d 8d 8c 9c", "Jh Jd Jc Td 6c")
# alice, in Fantasyland with 14 cards, sets the worked hand two ways:
# - good, not best: top KK (8), middle quads of aces (20), bottom the straight flush
#   (15, and it stays): 43 + 12; the best is 56 + 12 (top KKK), so 13 lost;
SHORT_OF_BEST = ("Kh Kd 2c", "As Ah Ad Ac Kc", "Qs Js Ts 9s 8s")
# - fouled: the straight flush in the middle over quads: 0, the best stays: 68 lost.
FOULED = ("Kh Kd Kc", "Qs Js Ts 9s 8s", "As Ah Ad Ac 2c")
# The history of carol's Fantasyland hand records no discards: only 13 cards known.
CAROL_FL = ("5c 5s 5d", "Ad Kd Qd 6d 3d", "Th Tc 9h 9d 2s")

HISTORY = [
    Hand("t1-0001", [Seat("alice", ENTRY_QQ), Seat("bob", BOB)], minute=0),
    Hand("t1-0002", [Seat("alice", SHORT_OF_BEST, True, 14, discards="3d"),
                     Seat("bob", BOB)], minute=1),
    Hand("t1-0003", [Seat("alice", FOULED, True, 14, discards="3d"), Seat("bob", BOB)],
         minute=2),
    Hand("t1-0004", [Seat("bob", BOB), Seat("carol", CAROL_FL, True, 14)], minute=3),
]


@pytest.fixture
def reviewed(tmp_path: Path) -> Warehouse:
    warehouse = store(tmp_path / "warehouse", HISTORY)
    summary = review_warehouse(warehouse)
    assert (summary.reviewed, summary.stored, summary.placed_only) == (3, 3, 1)
    assert summary.by_cards == {13: 1, 14: 2}
    return warehouse


def reviews(warehouse: Warehouse) -> dict[tuple[str, str], dict[str, object]]:
    frame = warehouse.scan(REVIEW_TABLE, "default").collect()
    assert frame.schema == FL_REVIEW_SCHEMA
    return {(row["hand_id"], row["player"]): row for row in frame.iter_rows(named=True)}


def points_of(board: tuple[str, str, str], opponent: tuple[str, str, str]) -> int:
    """alice's points against one opponent, by the reference scorer."""
    from ofc_stats.engine.rules import get_ruleset

    boards = [Board("fl", *(row.split() for row in board), in_fantasyland=True),
              Board("opponent", *(row.split() for row in opponent))]
    return score_hand(boards, get_ruleset("pineapple"))[0][0].points


def test_each_fantasyland_hand_against_its_best_setting(reviewed: Warehouse) -> None:
    rows = reviews(reviewed)
    assert set(rows) == {("t1-0002", "alice"), ("t1-0003", "alice"), ("t1-0004", "carol")}
    best_board = ("Kh Kd Kc", "As Ah Ad Ac 3d", "Qs Js Ts 9s 8s")

    short = rows["t1-0002", "alice"]
    assert (short["played_royalties"], short["played_stays"], short["played_value"]) == \
        (43, True, 55.0)
    assert (short["best_top"], short["best_middle"], short["best_bottom"]) == best_board
    assert (short["best_discards"], short["best_royalties"], short["best_value"]) == \
        ("2c", 56, 68.0)
    assert (short["value_lost"], short["royalties_left"], short["optimal"]) == \
        (13.0, 13, False)
    assert short["stay_missed"] is False
    assert (short["cards_known"], short["known_cards"], short["fl_cards"]) == ("dealt", 14, 14)
    assert short["dealt"] == "Kh Kd 2c As Ah Ad Ac Kc Qs Js Ts 9s 8s 3d"
    assert short["played_points"] == points_of(SHORT_OF_BEST, BOB)
    assert short["best_points"] == points_of(best_board, BOB)
    assert short["points_lost"] == short["best_points"] - short["played_points"]
    assert (short["opponents"], short["stay_value"], short["ruleset"]) == (1, 12.0, "pineapple")

    fouled = rows["t1-0003", "alice"]
    assert (fouled["played_fouled"], fouled["played_royalties"], fouled["played_value"]) == \
        (True, 0, 0.0)
    assert (fouled["value_lost"], fouled["stay_missed"], fouled["royalties_left"]) == \
        (68.0, True, 56)
    assert fouled["played_points"] == points_of(FOULED, BOB) < 0

    carol = rows["t1-0004", "carol"]
    assert (carol["cards_known"], carol["known_cards"], carol["played_discards"]) == \
        ("placed", 13, None)
    alone = solve_fantasyland(" ".join(CAROL_FL), "pineapple",
                              opponents=[" ".join(BOB)])
    assert carol["best_value"] == alone.value
    assert carol["best_top"] == " ".join(alone.top)
    assert carol["best_points"] == alone.points


def test_the_review_is_a_view_and_a_named_query(reviewed: Warehouse) -> None:
    view = query_warehouse(reviewed, "SELECT hand_id, value_lost FROM fl_review ORDER BY 1")
    assert view.rows()[:2] == [("t1-0002", 13.0), ("t1-0003", 68.0)]
    per_player = fantasyland_review_stats(reviewed)
    alice = per_player.filter(pl.col("player") == "alice").row(0, named=True)
    assert (alice["fl_hands"], alice["optimal"], alice["stays_missed"]) == (2, 0, 1)
    assert alice["value_lost_per_hand"] == 40.5
    assert alice["royalties_left"] == 13 + 56
    assert alice["cards_unknown"] == 0
    carol = per_player.filter(pl.col("player") == "carol").row(0, named=True)
    assert carol["cards_unknown"] == 1


def test_only_hands_not_reviewed_are_solved(reviewed: Warehouse) -> None:
    again = review_warehouse(reviewed)
    assert (again.reviewed, again.stored) == (0, 3)
    more = canonical([Hand("t1-0005", [Seat("alice", SHORT_OF_BEST, True, 14, discards="3d"),
                                       Seat("bob", BOB)], minute=4)], "more.jsonl")
    from ofc_stats.warehouse import PendingFile

    with reviewed.writing():
        reviewed.commit([PendingFile("hands", more.hands), PendingFile("seats", more.seats)],
                        action="ingest")
    added = review_warehouse(reviewed)
    assert (added.reviewed, added.stored) == (1, 4)
    assert len(reviews(reviewed)) == 4


def test_player_and_since_limit_what_is_solved(tmp_path: Path) -> None:
    warehouse = store(tmp_path / "warehouse", HISTORY)
    carol = review_warehouse(warehouse, player="carol")
    assert (carol.reviewed, carol.stored) == (1, 1)
    from datetime import timedelta

    from tests.builders import START

    later = review_warehouse(warehouse, since=START + timedelta(minutes=2))
    assert later.reviewed == 1  # alice's t1-0003 (carol's t1-0004 is done)
    assert review_warehouse(warehouse).reviewed == 1  # then alice's t1-0002


def test_a_what_if_scoring_is_stored_beside_and_redone_when_its_rules_change(
        tmp_path: Path) -> None:
    warehouse = store(tmp_path / "warehouse", HISTORY)
    house = tmp_path / "house.toml"
    house.write_text('name = "house"\nbase = "pineapple"\nfl_stay_value = 0\n')
    first = review_warehouse(warehouse, str(house))
    assert (first.scoring, first.reviewed, first.rules_changed) == ("house", 3, False)
    rows = {row["hand_id"]: row for row in warehouse.scan(REVIEW_TABLE, "house").collect()
            .iter_rows(named=True)}
    assert rows["t1-0002"]["best_value"] == 56.0  # no stay value
    assert warehouse.scan(REVIEW_TABLE, "default").collect().is_empty()
    house.write_text('name = "house"\nbase = "pineapple"\nfl_stay_value = 30\n')
    changed = review_warehouse(warehouse, str(house))
    assert (changed.rules_changed, changed.reviewed, changed.stored) == (True, 3, 3)
    rows = {row["hand_id"]: row for row in warehouse.scan(REVIEW_TABLE, "house").collect()
            .iter_rows(named=True)}
    assert rows["t1-0002"]["best_value"] == 86.0
    listed = fantasyland_review_stats(warehouse, scoring="house")
    assert listed["fl_hands"].sum() == 3


def test_a_changed_ruleset_stopped_part_way_is_redone_next_time(tmp_path: Path) -> None:
    warehouse = store(tmp_path / "warehouse", HISTORY[:2], HISTORY[2:])
    house = tmp_path / "house.toml"
    house.write_text('name = "house"\nbase = "pineapple"\nfl_stay_value = 0\n')
    review_warehouse(warehouse, str(house))
    house.write_text('name = "house"\nbase = "pineapple"\nfl_stay_value = 30\n')

    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        review_warehouse(warehouse, str(house), progress=stop)
    kept = warehouse.scan(REVIEW_TABLE, "house").collect()
    assert set(kept["stay_value"]) == {0.0}  # the old reviews, whole
    again = review_warehouse(warehouse, str(house))
    assert (again.rules_changed, again.reviewed, again.stored) == (True, 3, 3)
    assert set(warehouse.scan(REVIEW_TABLE, "house").collect()["stay_value"]) == {30.0}
    (warehouse.root / "reviews.json").write_text("{not json")  # a damaged record
    assert review_warehouse(warehouse, str(house)).reviewed == 0  # keeps its rows
    house.write_text('name = "house"\nbase = "pineapple"\nfl_stay_value = 5\n')
    assert review_warehouse(warehouse, str(house)).rules_changed  # recorded again


def test_a_review_stopped_part_way_keeps_whole_commits(tmp_path: Path) -> None:
    warehouse = store(tmp_path / "warehouse", HISTORY[:2], HISTORY[2:])  # two seats files

    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        review_warehouse(warehouse, progress=stop)
    assert len(reviews(warehouse)) == 1  # the first file's review, committed
    finished = review_warehouse(warehouse)
    assert (finished.reviewed, finished.stored) == (2, 3)


def test_boards_the_solver_cannot_set_are_counted_not_stored() -> None:
    seats = canonical(HISTORY[1:2]).seats.with_columns(pl.lit(True).alias("_review"))
    joker = seats.with_columns(pl.when(pl.col("player") == "alice").then(pl.lit("Xj"))
                               .otherwise(pl.col("discards")).alias("discards"))
    incomplete = seats.with_columns(pl.lit(-1, pl.Int8).alias("top_1"))
    twice = seats.with_columns(pl.when(pl.col("player") == "alice").then(pl.lit("As"))
                               .otherwise(pl.col("discards")).alias("discards"))
    garbage = seats.with_columns(pl.when(pl.col("player") == "alice").then(pl.lit("3d Zz"))
                                 .otherwise(pl.col("discards")).alias("discards"))
    for frame, reason, counted in ((joker, "joker", 1), (incomplete, "incomplete", 2),
                                   (twice, "copies", 1), (garbage, "unreadable", 1)):
        tally = _Tally()
        result = review_seats(frame, "default", None, tally)
        assert tally.skipped == {reason: counted}
        assert result.height == 2 - counted  # bob's board, reviewed as if in Fantasyland
        assert SKIP_REASONS[reason]


def test_two_decks_at_a_table_of_six_are_reviewed_card_twice_and_all() -> None:
    """With two decks a card may be dealt twice (here five aces, two of them twice, on
    the bottom) and six players sit: the board is reviewed against all five others."""
    fantasyland = ("Qd Qc 7c", "Ks Kh Kd Kc 4d", "As As Ah Ah Ad")
    deck = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
    dealt = [*" ".join(fantasyland).split(), "2s"]
    left = list((Counter(deck * 2) - Counter(dealt)).elements())
    others = [Seat(f"p{seat}", (" ".join(left[13 * seat:13 * seat + 3]),
                                " ".join(left[13 * seat + 3:13 * seat + 8]),
                                " ".join(left[13 * seat + 8:13 * seat + 13])))
              for seat in range(5)]
    hand = Hand("dd-1", [Seat("alice", fantasyland, True, 14, discards="2s"), *others],
                variant="double-deck")
    seats = canonical([hand]).seats.with_columns(
        (pl.col("player") == "alice").alias("_review"))
    tally = _Tally()
    review = review_seats(seats, "default", None, tally)
    assert tally.skipped == {}
    row = review.row(0, named=True)
    assert (row["player"], row["ruleset"], row["opponents"]) == ("alice", "double-deck", 5)
    best = solve_fantasyland(dealt, "double-deck",
                             opponents=[" ".join(seat.board) for seat in others])
    assert (row["best_value"], row["best_points"]) == (best.value, best.points)
    assert (row["played_royalties"], row["played_stays"]) == (42, True)
    assert row["optimal"] is True


def test_a_deuce_to_seven_middle_is_reviewed_as_the_scorer_ranks_it() -> None:
    """Under 2-7 the board alice played (quads of aces in the middle) is no low and
    fouls; the best setting puts a low in the middle and the quads below it."""
    seats = canonical(HISTORY[1:2]).seats.with_columns(
        (pl.col("player") == "alice").alias("_review"))
    for forced, frame in ((get_ruleset("deuce-to-seven"), seats),
                          (None, seats.with_columns(pl.lit("deuce-to-seven").alias("variant")))):
        tally = _Tally()
        review = review_seats(frame, "default", forced, tally)
        assert tally.skipped == {}
        row = review.row(0, named=True)
        assert (row["player"], row["ruleset"], row["played_fouled"]) == (
            "alice", "deuce-to-seven", True)
        best = solve_fantasyland(row["dealt"], "deuce-to-seven",
                                 opponents=[" ".join(BOB)])
        assert (row["best_value"], row["best_points"]) == (best.value, best.points)
        assert row["best_middle"] == " ".join(best.middle)
        assert row["value_lost"] == best.value > 0


def test_the_command_prints_the_run_and_each_player(tmp_path: Path) -> None:
    root = tmp_path / "warehouse"
    store(root, HISTORY)
    result = runner.invoke(app, ["review", "-w", str(root)])
    assert result.exit_code == 0, result.output
    assert "reviewed 3 Fantasyland hands as 'default' (by variant)" in result.stdout
    assert "1 with only the 13 placed cards known" in result.stdout
    assert "alice" in result.stdout
    assert "carol" in result.stdout
    again = runner.invoke(app, ["review", "-w", str(root), "--player", "alice", "--json"])
    assert again.exit_code == 0, again.output
    data = json.loads(again.stdout)
    assert data["summary"]["reviewed"] == 0
    assert [row["player"] for row in data["players"]] == ["alice"]
    assert data["players"][0]["stays_missed"] == 1
    assert data["fl_points_per_hand"] is None  # nothing scored: nothing measured
    from ofc_stats.analysis.score import score_warehouse

    score_warehouse(Warehouse.open(root))
    scored = runner.invoke(app, ["review", "-w", str(root)])
    assert "a Fantasyland hand earns" in scored.stdout


@pytest.mark.parametrize(("arguments", "message"), [
    (["--scoring", "omaha"], "unknown ruleset 'omaha'"),
    (["--since", "yesterdy"], "--since 'yesterdy' is not a date"),
    (["--scoring", "clasic"], "--scoring: unknown ruleset 'clasic': use one of classic, "
                              "pineapple, progressive, ultimate, "),
    (["--scoring", "clasic"], "did you mean 'classic'?"),
])
def test_mistakes_are_one_line_errors(tmp_path: Path, arguments: list[str],
                                      message: str) -> None:
    root = tmp_path / "warehouse"
    store(root, HISTORY)
    result = runner.invoke(app, ["review", "-w", str(root), *arguments])
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_no_warehouse_is_a_one_line_error(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "ofc_stats", "review", "-w",
                             str(tmp_path / "nowhere")], capture_output=True, text=True,
                            check=False)
    assert result.returncode == ExitCode.NO_WAREHOUSE
    assert result.stderr.startswith("ofc-stats: error: no warehouse at")


def test_weaker_simulated_players_leave_more_in_fantasyland(tmp_path: Path) -> None:
    """A simulated history reviewed whole: the weaker half of the players loses more
    value per Fantasyland hand than the stronger half, by far more than the noise."""
    from ofc_stats.bench.review import build_simulated_history
    from ofc_stats.simulate import Simulation, SimulationConfig

    root = tmp_path / "warehouse"
    build_simulated_history(root, 4000, seed=7)
    review_warehouse(Warehouse.open(root))
    pool = Simulation(SimulationConfig(seed=7, hands=4000)).pool
    skills = pl.DataFrame({"player": list(pool.names), "skill": pool.skill})
    rows = Warehouse.open(root).scan(REVIEW_TABLE, "default").collect().join(
        skills, on="player")
    weak, strong = (rows.filter(half) for half in (pl.col("skill") < 0.5,
                                                    pl.col("skill") >= 0.5))
    assert min(weak.height, strong.height) > 100
    error = (weak["value_lost"].var() / weak.height
             + strong["value_lost"].var() / strong.height) ** 0.5
    assert weak["value_lost"].mean() - strong["value_lost"].mean() > 3 * error
    assert strong["optimal"].mean() > weak["optimal"].mean()
