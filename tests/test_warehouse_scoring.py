"""`ofc-stats score`: scoring the warehouse, incrementally, with what-if rulesets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from ofc_stats import score_hands
from ofc_stats.analysis.score import score_warehouse
from ofc_stats.warehouse.schemas import DEFAULT_SCORING
from tests.builders import (
    ENTRY_KK,
    ENTRY_QQ,
    ENTRY_QQ_2,
    FOULED_1,
    NOTHING_1,
    NOTHING_2,
    TRIPS_TOP,
    Hand,
    Seat,
    store,
    to_nested_board_layout,
)

BOARDS_1 = [ENTRY_QQ, ENTRY_KK, TRIPS_TOP, NOTHING_1, FOULED_1]
BOARDS_2 = [NOTHING_2, ENTRY_QQ_2]


def sample_hands(count: int, start: int = 0, variant: str = "pineapple") -> list[Hand]:
    return [Hand(f"h{start + i:04d}", [Seat("alice", BOARDS_1[(start + i) % 5]),
                                       Seat("bob", BOARDS_2[(start + i) % 2])],
                 minute=start + i, variant=variant)
            for i in range(count)]


def test_scores_match_the_library_scorer_for_every_stored_hand(tmp_path: Path) -> None:
    hands = sample_hands(10)
    warehouse = store(tmp_path, hands[:6], hands[6:])
    summary = score_warehouse(warehouse)
    assert (summary.hands, summary.player_hands, summary.matchups) == (10, 20, 10)
    stored = warehouse.scan("player_hands", DEFAULT_SCORING).collect().sort("hand_id", "seat")
    expected = score_hands(pl.DataFrame({
        "hand_id": [h.hand_id for h in hands for _ in h.seats],
        "player": [s.player for h in hands for s in h.seats],
        "top": [s.board[0] for h in hands for s in h.seats],
        "middle": [s.board[1] for h in hands for s in h.seats],
        "bottom": [s.board[2] for h in hands for s in h.seats],
    }), "pineapple").players
    assert_frame_equal(stored.select(expected.columns), expected, check_dtypes=False)
    assert stored["ruleset"].unique().to_list() == ["pineapple"]
    assert stored["site"].unique().to_list() == ["home"]
    matchups = warehouse.scan("matchups", DEFAULT_SCORING).collect().sort("hand_id")
    assert matchups.select("player", "opponent", "seat", "opponent_seat").unique().rows() == [
        ("alice", "bob", 1, 2)]
    assert matchups["points"].sum() == stored.filter(pl.col("player") == "alice")[
        "points"].sum()


def test_scoring_is_incremental_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    warehouse = store(tmp_path, sample_hands(6))
    assert score_warehouse(warehouse).hands == 6
    before = warehouse.scan("player_hands", DEFAULT_SCORING).collect().sort("hand_id", "seat")
    again = score_warehouse(warehouse)
    assert (again.hands, again.player_hands) == (0, 0)
    after = warehouse.scan("player_hands", DEFAULT_SCORING).collect().sort("hand_id", "seat")
    assert_frame_equal(before, after)

    store(tmp_path, sample_hands(4, start=6))  # new hands arrive
    assert score_warehouse(warehouse).hands == 4
    assert warehouse.scan("player_hands", DEFAULT_SCORING).collect().height == 20


def test_rescore_replaces_the_scoring_in_one_commit(tmp_path: Path) -> None:
    warehouse = store(tmp_path, sample_hands(6))
    score_warehouse(warehouse)
    files_before = set(warehouse.files("player_hands", DEFAULT_SCORING))
    summary = score_warehouse(warehouse, rescore=True)
    assert summary.hands == 6
    assert warehouse.scan("player_hands", DEFAULT_SCORING).collect().height == 12
    assert not files_before & set(warehouse.files("player_hands", DEFAULT_SCORING))
    assert warehouse.commits()[-2]["action"] == "rescore"


def test_each_variant_scores_under_its_own_preset(tmp_path: Path) -> None:
    hands = [*sample_hands(2, variant="classic"), *sample_hands(2, start=2,
                                                                variant="progressive")]
    warehouse = store(tmp_path, hands)
    score_warehouse(warehouse)
    stored = warehouse.scan("player_hands", DEFAULT_SCORING).collect()
    rulesets = dict(stored.select("hand_id", "ruleset").unique().rows())
    assert rulesets == {"h0000": "classic", "h0001": "classic",
                        "h0002": "progressive", "h0003": "progressive"}
    alice = stored.filter(pl.col("player") == "alice").sort("hand_id")
    # h0000 enters with QQ: 13 cards in classic; h0002 trips on top: 16 in progressive.
    assert alice["fl_cards_next"].to_list() == [13, 13, 16, None]


HOUSE_RULES = """
name = "house 2-4 AA"
base = "pineapple"
scoring = "2-4"
[fantasyland]
entry = { AA = 14, "222" = 15 }
"""


def test_a_forced_ruleset_is_stored_beside_the_default(tmp_path: Path) -> None:
    warehouse = store(tmp_path / "wh", sample_hands(4))
    rules_file = tmp_path / "house.toml"
    rules_file.write_text(HOUSE_RULES)
    default = score_warehouse(warehouse)
    what_if = score_warehouse(warehouse, ruleset=rules_file)
    assert (default.scoring, what_if.scoring) == ("default", "house 2-4 AA")
    assert warehouse.state().partitions("player_hands") == ["default", "house 2-4 AA"]

    def alice(scoring: str) -> pl.DataFrame:
        return (warehouse.scan("player_hands", scoring).collect()
                .filter(pl.col("player") == "alice").sort("hand_id"))

    # Worked by hand. h0000 QQ/two pair/straight (royalties 7+2) scoops nothing (0):
    # 1-6: 3 rows + 3 + 9 = 15; 2-4: 3 + 1 + 9 = 13. h0001 KK (8+2) scoops QQ (7):
    # 6 + 3 = 9 vs 4 + 3 = 7. h0002 trips/full house/straight flush (10+12+15) scoops:
    # 6 + 37 = 43 vs 4 + 37 = 41. h0003 loses top and middle, wins bottom, pays QQ (7):
    # -1 - 7 = -8 vs -1 - 1 - 7 = -9.
    assert alice("default")["points"].to_list() == [15, 9, 43, -8]
    assert alice("house 2-4 AA")["points"].to_list() == [13, 7, 41, -9]
    # AA+ entry: QQ and KK no longer enter; trips enter with 15 cards instead of 14.
    assert alice("default")["fl_cards_next"].to_list() == [14, 14, 14, None]
    assert alice("house 2-4 AA")["fl_cards_next"].to_list() == [None, None, 15, None]
    assert alice("house 2-4 AA")["royalties"].to_list() == alice("default")[
        "royalties"].to_list()
    assert warehouse.scan("player_hands", "default").collect().height == 8
    # What-ifs don't rewrite the Fantasyland audit, which follows the default scoring.
    assert what_if.transitions == 0


def test_an_edited_ruleset_file_rescores_its_scoring(tmp_path: Path) -> None:
    warehouse = store(tmp_path / "wh", sample_hands(4))
    rules_file = tmp_path / "house.toml"
    rules_file.write_text(HOUSE_RULES)
    score_warehouse(warehouse)
    first = score_warehouse(warehouse, rules_file)
    assert (first.hands, first.rules_changed) == (4, False)
    unchanged = score_warehouse(warehouse, rules_file)
    assert (unchanged.hands, unchanged.rules_changed) == (0, False)

    def points(scoring: str) -> list[int]:
        return (warehouse.scan("player_hands", scoring).collect()
                .filter(pl.col("player") == "alice").sort("hand_id")["points"].to_list())

    two_four = points("house 2-4 AA")
    rules_file.write_text(HOUSE_RULES.replace('scoring = "2-4"', 'scoring = "1-6"'))
    edited = score_warehouse(warehouse, rules_file)
    assert (edited.hands, edited.rules_changed, edited.rescored) == (4, True, True)
    assert points("house 2-4 AA") == points(DEFAULT_SCORING)  # now 1-6 like pineapple
    assert points("house 2-4 AA") != two_four
    assert warehouse.scan("player_hands", "house 2-4 AA").collect().height == 8
    default_again = score_warehouse(warehouse)
    assert (default_again.hands, default_again.rules_changed) == (0, False)


def test_seats_of_a_hand_are_brought_together_if_a_file_has_them_apart() -> None:
    from ofc_stats.analysis.score import _contiguous

    together = pl.DataFrame({"site": ["s"] * 5, "hand_id": ["a", "a", "b", "b", "c"],
                             "seat": [1, 2, 1, 2, 1]})
    assert _contiguous(together) is together
    apart = together[[0, 2, 1, 3, 4]]  # a, b, a, b, c
    fixed = _contiguous(apart)
    assert fixed["hand_id"].to_list() == ["a", "a", "b", "b", "c"]
    assert fixed["seat"].to_list() == [1, 2, 1, 2, 1]
    other_site = together.with_columns(
        pl.Series("site", ["s", "s", "t", "t", "s"]), pl.Series("hand_id", ["a"] * 5))
    assert _contiguous(other_site)["site"].to_list() == ["s", "s", "s", "t", "t"]
    same_id_two_sites = together.with_columns(pl.Series("site", ["s", "s", "t", "t", "s"]),
                                              pl.Series("hand_id", ["a"] * 4 + ["b"]))
    assert _contiguous(same_id_two_sites) is same_id_two_sites


def test_seats_written_with_the_nested_board_column_are_upgraded_once(tmp_path: Path) -> None:
    from ofc_stats.warehouse.schemas import SEATS_SCHEMA
    from ofc_stats.warehouse.upgrade import upgrade_warehouse

    warehouse = store(tmp_path, sample_hands(6), sample_hands(4, start=6))
    current = warehouse.scan("seats").collect().sort("hand_id", "seat")
    score_warehouse(warehouse)
    scored = warehouse.scan("player_hands", DEFAULT_SCORING).collect().sort("hand_id", "seat")
    to_nested_board_layout(warehouse)
    assert all("cards" in pl.read_parquet_schema(path) for path in warehouse.files("seats"))

    summary = score_warehouse(warehouse, rescore=True)
    assert summary.player_hands == 20
    assert_frame_equal(warehouse.scan("player_hands", DEFAULT_SCORING).collect()
                       .sort("hand_id", "seat"), scored)
    upgraded = warehouse.scan("seats").collect().sort("hand_id", "seat")
    assert upgraded.schema == SEATS_SCHEMA
    assert_frame_equal(upgraded, current)
    actions = [commit["action"] for commit in warehouse.commits()]
    assert actions[actions.index("old layout") + 1] == "upgrade"
    with warehouse.writing():
        assert upgrade_warehouse(warehouse) == 0


def test_a_run_reads_only_the_seats_files_it_has_not_scored_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ofc_stats.analysis import score as warehouse_scoring

    read: list[str] = []
    chunks = warehouse_scoring._seat_chunks

    def counted(path: Path, rows: int = warehouse_scoring.CHUNK_ROWS) -> Iterator[pl.DataFrame]:
        read.append(path.name)
        return chunks(path, rows)

    monkeypatch.setattr(warehouse_scoring, "_seat_chunks", counted)
    warehouse = store(tmp_path, sample_hands(6), sample_hands(3, start=6))
    assert score_warehouse(warehouse).hands == 9
    assert len(read) == 2
    read.clear()
    assert score_warehouse(warehouse).hands == 0  # nothing new: no seats read
    assert read == []
    store(tmp_path, sample_hands(4, start=9))  # new hands arrive in a new file
    assert score_warehouse(warehouse).hands == 4
    assert len(read) == 1
    read.clear()
    # Compaction merges the seats files into a new one: read once, nothing scored twice.
    with warehouse.writing():
        assert warehouse.compact("seats", small_rows=1_000) > 0
    again = score_warehouse(warehouse)
    assert (again.hands, len(read)) == (0, 1)
    read.clear()
    assert score_warehouse(warehouse).hands == 0
    assert read == []
    assert warehouse.scan("player_hands", DEFAULT_SCORING).collect().height == 26
    # A rescore reads everything and remembers it all again.
    assert score_warehouse(warehouse, rescore=True).hands == 13
    read.clear()
    assert (score_warehouse(warehouse).hands, read) == (0, [])


def test_a_record_from_an_earlier_version_keeps_the_rows_and_is_rewritten(
        tmp_path: Path) -> None:
    from ofc_stats.analysis.score import SCORINGS_FILE, rules_digest

    warehouse = store(tmp_path, sample_hands(5))
    score_warehouse(warehouse)
    (tmp_path / SCORINGS_FILE).write_text(json.dumps({DEFAULT_SCORING: rules_digest(None)}))
    summary = score_warehouse(warehouse)
    assert (summary.hands, summary.rules_changed, summary.rescored) == (0, False, False)
    record = json.loads((tmp_path / SCORINGS_FILE).read_text())[DEFAULT_SCORING]
    assert record["rules"] == rules_digest(None)
    assert record["seats_files"] == [f.path for f in warehouse.state().table_files("seats")]


def test_each_seats_file_is_committed_with_its_own_hands_when_chunks_span_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ofc_stats.analysis import score as warehouse_scoring

    chunks = warehouse_scoring._seat_chunks
    # Chunks of a few seats, so each file ends while the next file's chunks are in flight.
    monkeypatch.setattr(warehouse_scoring, "_seat_chunks", lambda path: chunks(path, 5))
    warehouse = store(tmp_path, sample_hands(7), sample_hands(4, start=7),
                      sample_hands(6, start=11))
    assert score_warehouse(warehouse).hands == 17
    seat_files = [f.path for f in warehouse.state().table_files("seats")]
    scores = [commit for commit in warehouse.commits() if commit["action"] == "score"]
    assert [commit["meta"]["seats_file"] for commit in scores] == seat_files
    for commit, seat_file in zip(scores, seat_files, strict=True):
        players = [tmp_path / added["path"] for added in commit["add"]
                   if added["table"] == "player_hands"]
        assert len(players) > 1  # a file a chunk
        assert_frame_equal(
            pl.read_parquet(players).select("hand_id", "seat").sort(pl.all()),
            pl.read_parquet(tmp_path / seat_file).select("hand_id", "seat").sort(pl.all()))
