"""Golden results of every named query on sample_data/, cross-checked with polars.

Each query's result on the scored sample warehouse is compared with
tests/golden/<query>.parquet; each figure is also recomputed independently from the
warehouse's Parquet files with polars. After a deliberate change (new sample data, a
new column), regenerate the golden files with OFC_STATS_UPDATE_GOLDEN=1 and review
the diff.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from ofc_stats.db import named_queries, query_warehouse
from ofc_stats.warehouse import Warehouse

GOLDEN = Path(__file__).parent / "golden"
HAND_LIST_PLAYER = "redwhale"


def run(warehouse: Warehouse, name: str) -> pl.DataFrame:
    values = {"player": HAND_LIST_PLAYER} if name == "hand_list" else {}
    return query_warehouse(warehouse, name, values)


@pytest.mark.parametrize("name", sorted(named_queries()))
def test_named_query_matches_its_golden_result(sample_warehouse: Warehouse, name: str) -> None:
    result = run(sample_warehouse, name)
    path = GOLDEN / f"{name}.parquet"
    if os.environ.get("OFC_STATS_UPDATE_GOLDEN"):
        result.write_parquet(path)
    assert path.exists(), f"{name}: no golden file; run with OFC_STATS_UPDATE_GOLDEN=1"
    expected = pl.read_parquet(path)
    assert result.height > 0, name
    try:
        assert_frame_equal(result, expected)
    except AssertionError as error:
        raise AssertionError(f"query {name!r} differs from {path.name}: {error}") from None


# --- the same figures, computed independently with polars ---------------------------


def player_hands(warehouse: Warehouse) -> pl.DataFrame:
    return warehouse.scan("player_hands", "default").collect()


def matchups_both_ways(warehouse: Warehouse) -> pl.DataFrame:
    stored = warehouse.scan("matchups", "default").collect()
    mirrored = stored.select(
        pl.col("opponent").alias("player"), pl.col("player").alias("opponent"),
        pl.col("rows_lost").alias("rows_won"), pl.col("rows_won").alias("rows_lost"),
        pl.col("scooped").alias("scoop"), pl.col("scoop").alias("scooped"),
        -pl.col("points"), "started_at")
    return pl.concat([stored.select(mirrored.columns), mirrored])


def by_player(frame: pl.DataFrame) -> dict[str, dict[str, object]]:
    return {row["player"]: row for row in frame.iter_rows(named=True)}


def close(a: object, b: object, places: int = 3) -> bool:
    if a is None or b is None:
        return a is b
    # Rounded in SQL to `places` decimals: half a unit, and a hair for the float.
    return math.isclose(float(a), float(b), abs_tol=0.5 * 10 ** -places + 1e-9)  # type: ignore[arg-type]


def test_player_summary_and_win_rates_agree_with_polars(sample_warehouse: Warehouse) -> None:
    hands = player_hands(sample_warehouse)
    point_values = sample_warehouse.scan("hands").select(
        "site", "hand_id", "point_value", "currency").collect()
    expected = (
        hands.join(point_values, on=["site", "hand_id"], how="left")
        .group_by("player").agg(
            pl.len().alias("hands"), pl.col("points").sum(),
            pl.col("points").mean().alias("mean"), pl.col("points").std().alias("std"),
            pl.col("fouled").mean().alias("foul"),
            (~pl.col("in_fantasyland")).sum().alias("non_fl"),
            pl.col("fl_entry").sum().alias("entries"),
            pl.col("in_fantasyland").sum().alias("fl"), pl.col("fl_stay").sum().alias("stays"),
            pl.col("scoops").sum(), pl.col("opponents").sum(),
            pl.col("royalties").mean().alias("royalties"),
            (pl.col("points") * pl.col("point_value").cast(pl.Float64)).sum().alias("money"),
            pl.col("point_value").count().alias("money_hands"),
            pl.col("currency").drop_nulls().unique().alias("currencies"))
    )
    summary = by_player(run(sample_warehouse, "player_summary"))
    wins = by_player(run(sample_warehouse, "win_rates"))
    assert set(summary) == set(wins) == set(expected["player"])
    for row in expected.iter_rows(named=True):
        got, win = summary[row["player"]], wins[row["player"]]
        half_width = 1.96 * row["std"] / math.sqrt(row["hands"])
        assert (got["hands"], got["points"]) == (row["hands"], row["points"])
        assert close(got["points_per_hand"], row["mean"])
        assert close(got["ci95_low"], row["mean"] - half_width)
        assert close(got["ci95_high"], row["mean"] + half_width)
        assert close(got["foul_pct"], 100 * row["foul"], 2)
        assert got["non_fl_hands"] == row["non_fl"]
        assert got["fl_hands"] == row["fl"]
        assert close(got["fl_entry_pct"], 100 * row["entries"] / row["non_fl"], 2)
        assert close(got["fl_stay_pct"], 100 * row["stays"] / row["fl"] if row["fl"] else None,
                     2)
        assert close(got["scoop_pct"], 100 * row["scoops"] / row["opponents"], 2)
        assert close(got["royalties_per_hand"], row["royalties"])
        assert close(win["points_stddev"], row["std"])
        assert close(win["money"], row["money"], 4)
        assert win["money_hands"] == row["money_hands"]
        assert [win["currency"]] == row["currencies"]


def test_foul_fantasyland_and_royalty_queries_agree_with_polars(
        sample_warehouse: Warehouse) -> None:
    hands = player_hands(sample_warehouse)
    fouls = by_player(run(sample_warehouse, "foul_rates"))
    fantasyland = by_player(run(sample_warehouse, "fantasyland"))
    royalties = by_player(run(sample_warehouse, "royalties_by_row"))
    for player, rows in hands.group_by("player"):
        name = player[0]
        n = rows.height
        p = rows["fouled"].mean()
        centre = (p + 1.96**2 / (2 * n)) / (1 + 1.96**2 / n)
        margin = 1.96 * math.sqrt(p * (1 - p) / n + 1.96**2 / (4 * n * n)) / (1 + 1.96**2 / n)
        assert close(fouls[name]["foul_pct_ci95_low"], 100 * (centre - margin), 2)
        assert close(fouls[name]["foul_pct_ci95_high"], 100 * (centre + margin), 2)
        in_fl = rows.filter(pl.col("in_fantasyland"))
        assert fouls[name]["fl_fouls"] == in_fl["fouled"].sum()
        assert fantasyland[name]["entries"] == rows["fl_entry"].sum()
        assert close(fantasyland[name]["fl_hands_per_100"], 100 * in_fl.height / n, 2)
        assert close(fantasyland[name]["points_per_fl_hand"],
                     in_fl["points"].mean() if in_fl.height else None)
        assert close(fantasyland[name]["points_per_other_hand"],
                     rows.filter(~pl.col("in_fantasyland"))["points"].mean())
        for row in ("top", "middle", "bottom"):
            column = rows[f"royalties_{row}"]
            assert close(royalties[name][f"{row}_per_hand"], column.mean())
            assert close(royalties[name][f"{row}_pct"], 100 * (column > 0).mean(), 2)


def test_head_to_head_and_leaderboard_agree_with_polars(sample_warehouse: Warehouse) -> None:
    pairs = matchups_both_ways(sample_warehouse).group_by("player", "opponent").agg(
        pl.len().alias("hands"), pl.col("points").sum(), pl.col("rows_won").sum(),
        pl.col("scoop").sum().alias("scoops"))
    got = run(sample_warehouse, "head_to_head")
    assert_frame_equal(
        got.select("player", "opponent", "hands", "points", "rows_won", "scoops"),
        pairs.sort("player", "opponent").select(got.select(
            "player", "opponent", "hands", "points", "rows_won", "scoops").columns),
        check_dtypes=False)
    matrix = run(sample_warehouse, "head_to_head_matrix")
    expected_matrix = pairs.sort("opponent").pivot(
        "opponent", index="player", values="points").sort("player")
    assert matrix.columns == ["player", *sorted(expected_matrix.columns[1:])]
    assert_frame_equal(matrix, expected_matrix.select(matrix.columns), check_dtypes=False)
    totals = player_hands(sample_warehouse).group_by("player").agg(pl.col("points").sum())
    leaderboard = run(sample_warehouse, "leaderboard")
    expected = totals.sort("points", "player", descending=[True, False]).head(20)
    assert leaderboard["player"].to_list() == expected["player"].to_list()
    assert leaderboard["points"].to_list() == expected["points"].to_list()


def test_sessions_and_hand_list_agree_with_polars(sample_warehouse: Warehouse) -> None:
    hands = player_hands(sample_warehouse).sort("site", "table", "player", "started_at",
                                                "hand_id")
    gap = pl.col("started_at").diff().over("site", "table", "player")
    sessions = (
        hands.with_columns(((gap.is_null()) | (gap > pl.duration(minutes=30)))
                           .cum_sum().over("site", "table", "player").alias("session"))
        .group_by("site", "table", "player", "session")
        .agg(pl.len().alias("hands"), pl.col("points").sum(),
             pl.col("started_at").min().alias("started_at"))
    )
    got = run(sample_warehouse, "session_results")
    assert got.height == sessions.height
    assert_frame_equal(
        got.select("player", "table", "started_at", "hands", "points")
        .sort("player", "table", "started_at"),
        sessions.select("player", "table", "started_at", "hands", "points")
        .sort("player", "table", "started_at"), check_dtypes=False)
    listed = run(sample_warehouse, "hand_list")
    mine = hands.filter(pl.col("player") == HAND_LIST_PLAYER).sort(
        "started_at", "hand_id", descending=True).head(100)
    assert listed["hand_id"].to_list() == mine["hand_id"].to_list()
    assert listed["points"].to_list() == mine["points"].to_list()
    assert all(len(board.split()) == 5 for board in listed["bottom"].to_list())


def test_fantasyland_review_agrees_with_polars(sample_warehouse: Warehouse) -> None:
    reviews = sample_warehouse.scan("fl_review", "default").collect()
    got = by_player(run(sample_warehouse, "fantasyland_review"))
    fl_boards = player_hands(sample_warehouse).filter(pl.col("in_fantasyland"))
    # Every board played in Fantasyland is reviewed but those the solver cannot set yet
    # (a joker); a card twice (two decks), a 2-7 middle and eight players are reviewed.
    seats = sample_warehouse.scan("seats").collect()
    cards = pl.concat_list([pl.col(row).str.split(" ") for row in ("top", "middle", "bottom")]
                           + [pl.col("discards").fill_null("").str.split(" ")
                              .list.eval(pl.element().filter(pl.element() != ""))])
    unsolvable = (fl_boards.join(seats.select("site", "hand_id", "seat", "top", "middle",
                                              "bottom", "discards"),
                                 on=["site", "hand_id", "seat"])
                  .with_columns(cards.alias("cards"))
                  .filter(pl.col("cards").list.contains("Xj")))
    assert unsolvable.height > 0
    assert fl_boards.filter(pl.col("variant") == "deuce-to-seven").height > 0
    assert fl_boards.filter(pl.col("opponents") > 3).height > 0
    assert reviews.height == fl_boards.height - unsolvable.height
    assert reviews.join(unsolvable, on=["site", "hand_id", "seat"]).is_empty()
    assert set(got) == set(reviews["player"])
    for player, rows in reviews.group_by("player"):
        row = got[player[0]]
        n = rows.height
        lost = rows["value_lost"]
        half_width = 1.96 * (lost.std() or 0.0) / math.sqrt(n)
        assert (row["fl_hands"], row["optimal"]) == (n, rows["optimal"].sum())
        assert close(row["optimal_pct"], 100 * rows["optimal"].mean(), 2)
        assert close(row["value_lost_per_hand"], lost.mean())
        assert close(row["ci95_low"], lost.mean() - half_width)
        assert close(row["ci95_high"], lost.mean() + half_width)
        assert row["stays_missed"] == (rows["best_stays"] & ~rows["played_stays"]).sum()
        assert row["royalties_left"] == (rows["best_royalties"].cast(pl.Int64)
                                         - rows["played_royalties"]).sum()
        assert close(row["points_lost_per_hand"],
                     (rows["best_points"] - rows["played_points"]).mean())
    # The board played as the review values it is the scorer's.
    joined = reviews.join(fl_boards, on=["site", "hand_id", "seat"])
    assert (joined["played_fouled"] == joined["fouled"]).all()
    assert (joined["played_royalties"] == joined["royalties"]).all()
    assert (joined["played_stays"] == joined["fl_stay"]).all()
    assert (joined["played_points"] == joined["points"]).all()
    assert (joined["best_value"] >= joined["played_value"]).all()
