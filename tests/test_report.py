"""``ofc-stats report``: the datasets, the figures and the page, on real warehouses.

The figures are checked against numbers computed here with polars straight from the
scored Parquet files (a path independent of the report's SQL); the page's safety
(escaping, no network) is checked in its text here and in a real browser in
``test_report_browser.py``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import plotly.graph_objects as go
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from ofc_stats.analysis.fantasyland_review import review_warehouse
from ofc_stats.analysis.score import score_warehouse
from ofc_stats.bench import build_benchmark_warehouse
from ofc_stats.cli import app
from ofc_stats.report import (
    EmptyScopeError,
    NoScoredHandsError,
    ReportError,
    UnknownPlayerError,
    UnknownTableError,
    default_report_path,
    write_report,
)
from ofc_stats.report.data import (
    ReportLimits,
    ReportScope,
    load_report_data,
    parse_since,
    wilson_interval,
)
from ofc_stats.report.figures import number_text, report_charts
from ofc_stats.report.page import (
    card_html,
    plotly_js,
    render_page,
    row_html,
    script_json,
    signed,
)
from ofc_stats.warehouse import Warehouse
from tests.builders import (
    ENTRY_QQ,
    ENTRY_QQ_2,
    FOULED_1,
    NOTHING_1,
    NOTHING_2,
    TRIPS_TOP,
    Hand,
    Seat,
    store,
)

runner = CliRunner()
EVIL_PLAYER = "<script>alert(1)</script>"
EVIL_TABLE = "</script><img src=x onerror=alert(2)>&amp;"
ALICE_BOARDS = [ENTRY_QQ, NOTHING_1, TRIPS_TOP, FOULED_1]
OTHER_BOARDS = [NOTHING_2, ENTRY_QQ_2]


def report_hands() -> list[list[Hand]]:
    """Two tables: alice against bob (alice in Fantasyland in some hands), then the
    player with a script for a name against bob at a table with markup for a name."""
    first = [Hand(f"r-{i:03d}", [
        Seat("alice", ALICE_BOARDS[i % 4], in_fantasyland=i % 4 in (1, 2)),
        Seat("bob", OTHER_BOARDS[i % 2])], table="t1", minute=i * 2.0)
        for i in range(16)]
    # A break of two hours starts a second session at t1.
    second = [Hand(f"r-{i:03d}", [
        Seat("alice", ALICE_BOARDS[i % 4]), Seat("bob", OTHER_BOARDS[i % 2])],
        table="t1", minute=120 + i * 2.0) for i in range(16, 24)]
    evil = [Hand(f"e-{i:03d}", [
        Seat(EVIL_PLAYER, ALICE_BOARDS[(i + 1) % 4]), Seat("bob", OTHER_BOARDS[i % 2])],
        table=EVIL_TABLE, minute=300 + i * 2.0) for i in range(10)]
    return [first + second, evil]


def build_report_warehouse(root: Path) -> Warehouse:
    """The warehouse of :func:`report_hands`, scored and its Fantasyland hands reviewed."""
    warehouse = store(root, *report_hands())
    score_warehouse(warehouse)
    review_warehouse(warehouse)
    return warehouse


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return build_report_warehouse(tmp_path_factory.mktemp("report") / "warehouse")


def player_hands(warehouse: Warehouse) -> pl.DataFrame:
    return warehouse.scan("player_hands", "default").collect()


def matchups_both_ways(warehouse: Warehouse) -> pl.DataFrame:
    """The stored matchups (each pair once) seen from both sides, as the view does."""
    stored = warehouse.scan("matchups", "default").collect()
    mirrored = stored.select(
        "site", "hand_id", "started_at", pl.col("opponent").alias("player"),
        pl.col("player").alias("opponent"), -pl.col("points"), -pl.col("royalty_diff"),
        *(-pl.col(f"{row}_result") for row in ("top", "middle", "bottom")))
    return pl.concat([stored.select(mirrored.columns), mirrored])


# --- the datasets --------------------------------------------------------------------


def test_headline_figures_match_the_scored_hands(warehouse: Warehouse) -> None:
    data = load_report_data(warehouse, ReportScope(player="alice"))
    row = data.headline.row(0, named=True)
    alice = player_hands(warehouse).filter(pl.col("player") == "alice")
    outside = alice.filter(~pl.col("in_fantasyland"))
    inside = alice.filter(pl.col("in_fantasyland"))
    assert row["hands"] == alice.height == 24
    assert row["points"] == alice["points"].sum()
    assert row["points_per_hand"] == pytest.approx(alice["points"].mean())
    assert row["foul_pct"] == pytest.approx(100 * alice["fouled"].mean())
    assert row["fl_entry_pct"] == pytest.approx(100 * outside["fl_entry"].mean())
    assert row["fl_stay_pct"] == pytest.approx(100 * inside["fl_stay"].mean())
    assert (row["non_fl_hands"], row["fl_hands"]) == (outside.height, inside.height)
    assert row["scoop_pct"] == pytest.approx(
        100 * alice["scoops"].sum() / alice["opponents"].sum())
    assert row["royalties_per_hand"] == pytest.approx(alice["royalties"].mean())
    for name in ("points_per_hand", "royalties_per_hand", "foul_pct", "fl_entry_pct",
                 "fl_stay_pct", "scoop_pct"):
        assert row[f"{name}_low"] <= row[name] <= row[f"{name}_high"], name
    assert data.summary["hands"] == 24
    assert data.summary["players"] == 1


def test_timeline_ends_at_the_totals_and_splits_royalties_exactly(
        warehouse: Warehouse) -> None:
    limits = ReportLimits(points=5, players_shown=10)
    data = load_report_data(warehouse, ReportScope(), limits)
    matchups = matchups_both_ways(warehouse)
    hands = player_hands(warehouse)
    for player in ("alice", "bob", EVIL_PLAYER):
        series = data.timeline.filter(pl.col("player") == player)
        mine = hands.filter(pl.col("player") == player)
        assert 1 <= series.height <= 5  # sampled, never more than the bound
        last = series.row(-1, named=True)
        assert last["hand_number"] == mine.height
        assert last["cumulative_points"] == mine["points"].sum()
        exchanged = matchups.filter(pl.col("player") == player)["royalty_diff"].sum()
        assert last["cumulative_royalties"] == exchanged
        assert last["cumulative_rows"] == mine["points"].sum() - exchanged
        assert series["hand_number"].is_sorted()
        assert series["sample_hands"].sum() == mine.height
        assert series["fl_hands"].sum() == mine["in_fantasyland"].sum()
        # The rolling window is at least 20 hands, so here the foul rate of all hands.
        window = int(last["window_hands"])
        recent = mine.sort("started_at", "site", "hand_id").tail(window)
        assert last["foul_pct"] == pytest.approx(100 * recent["fouled"].mean())


def test_timeline_samples_each_hand_when_there_are_few(warehouse: Warehouse) -> None:
    data = load_report_data(warehouse, ReportScope(player="alice"))
    assert data.timeline.height == 24
    assert data.timeline["sample_hands"].to_list() == [1] * 24
    cumulative = player_hands(warehouse).filter(pl.col("player") == "alice").sort(
        "started_at", "hand_id")["points"].cum_sum().to_list()
    assert data.timeline["cumulative_points"].to_list() == cumulative


def test_sessions_rows_and_head_to_head_add_up(warehouse: Warehouse) -> None:
    data = load_report_data(warehouse, ReportScope(player="alice"))
    hands = player_hands(warehouse)
    alice = hands.filter(pl.col("player") == "alice")
    # Two sessions at t1: the two-hour break splits them.
    assert data.sessions["hands"].to_list() == [16, 8]
    assert data.sessions["points"].sum() == alice["points"].sum()
    assert data.sessions["total_sessions"].to_list() == [2, 2]
    results = data.row_results.row(0, named=True)
    matchups = matchups_both_ways(warehouse).filter(pl.col("player") == "alice")
    for row in ("top", "middle", "bottom"):
        counts = [results[f"{row}_{outcome}"] for outcome in ("won", "tied", "lost")]
        assert sum(counts) == results["matchups"] == matchups.height
        assert counts[0] == matchups.filter(pl.col(f"{row}_result") == 1).height
    versus = data.head_to_head.row(0, named=True)
    assert (versus["opponent"], versus["hands"], versus["points"]) == (
        "bob", 24, alice["points"].sum())


def test_overview_head_to_head_is_antisymmetric_and_players_agree(
        warehouse: Warehouse) -> None:
    data = load_report_data(warehouse, ReportScope())
    pairs = {(r["player"], r["opponent"]): r for r in data.head_to_head.iter_rows(named=True)}
    assert set(pairs) == {("alice", "bob"), ("bob", "alice"), (EVIL_PLAYER, "bob"),
                          ("bob", EVIL_PLAYER)}
    for (player, opponent), row in pairs.items():
        assert row["points"] == -pairs[opponent, player]["points"]
        assert row["top_net"] == -pairs[opponent, player]["top_net"]
    # Every per-player chart shows the same players, in the table's order (points).
    by_points = data.headline.sort("points", descending=True)["player"].to_list()
    assert data.shown == by_points
    assert data.royalties["player"].to_list() == by_points
    assert data.row_results["player"].to_list() == by_points
    assert data.sessions["player"].to_list() == by_points


def test_categories_cover_every_board_of_each_row(warehouse: Warehouse) -> None:
    data = load_report_data(warehouse, ReportScope())
    per_row = data.categories.group_by("row").agg(pl.col("pct").sum(), pl.col("boards").sum())
    for row in per_row.iter_rows(named=True):
        assert row["pct"] == pytest.approx(100)
        assert row["boards"] == player_hands(warehouse).height


def test_biggest_hands_show_every_board_of_the_biggest_results(warehouse: Warehouse) -> None:
    data = load_report_data(warehouse, ReportScope(player="alice"))
    alice = player_hands(warehouse).filter(pl.col("player") == "alice")
    wins = data.biggest_hands.filter(pl.col("kind") == "win")
    losses = data.biggest_hands.filter(pl.col("kind") == "loss")
    assert wins["subject_points"][0] == alice["points"].max()
    assert losses["subject_points"][0] == alice["points"].min()
    assert wins["subject_points"].is_sorted(descending=True)
    # Two boards per hand, both drawn, with the hand's points summing to zero.
    for _, hand in data.biggest_hands.group_by(["kind", "place"]):
        assert sorted(hand["player"].to_list()) == ["alice", "bob"]
        assert hand["points"].sum() == 0


def test_the_fantasyland_review_matches_the_stored_reviews(warehouse: Warehouse) -> None:
    data = load_report_data(warehouse, ReportScope(player="alice"))
    reviews = warehouse.scan("fl_review", "default").collect().filter(
        pl.col("player") == "alice")
    review = data.fl_review
    assert review["fl_played"] == player_hands(warehouse).filter(
        (pl.col("player") == "alice") & pl.col("in_fantasyland")).height
    assert (review["fl_hands"], review["optimal"]) == (reviews.height, reviews["optimal"].sum())
    assert review["value_lost_per_hand"] == pytest.approx(reviews["value_lost"].mean())
    half = 1.959964 * reviews["value_lost"].std() / reviews.height ** 0.5
    assert review["value_lost_per_hand_low"] == pytest.approx(
        reviews["value_lost"].mean() - half)
    assert review["cards_unknown"] == reviews.height  # no discards recorded: 13 known
    assert review["royalties_left"] == (reviews["best_royalties"].cast(pl.Int64)
                                        - reviews["played_royalties"]).sum()
    misses = data.fl_misses
    assert misses.height == min(data.limits.biggest, (reviews["value_lost"] > 0).sum())
    assert misses["value_lost"].to_list() == sorted(
        reviews.filter(pl.col("value_lost") > 0)["value_lost"].to_list(),
        reverse=True)[:misses.height]


def test_the_player_page_draws_the_worst_misses_played_beside_best(
        warehouse: Warehouse, tmp_path: Path) -> None:
    page = Path(write_report(warehouse, player="alice", out=tmp_path / "a.html").path
                ).read_text(encoding="utf-8")
    section = page[page.index('<section class="review-section">'):]
    section = section[:section.index("</section>")]
    assert "Fantasyland review" in section
    misses = section.count('<article class="hand miss">')
    assert misses == load_report_data(warehouse, ReportScope(player="alice")).fl_misses.height
    assert section.count('class="board subject"') == misses  # the board played
    assert section.count('class="board best"') == misses
    assert '<span class="card s">K♠</span>' in section  # cards drawn with their suit
    assert "with only the 13 placed cards known" in section
    overview = Path(write_report(warehouse, out=tmp_path / "o.html").path).read_text(
        encoding="utf-8")
    assert 'class="review-section"' not in overview  # a player's section only


def test_a_player_not_reviewed_yet_is_asked_to_run_the_review(tmp_path: Path) -> None:
    warehouse = store(tmp_path, report_hands()[0])
    score_warehouse(warehouse)
    page = Path(write_report(warehouse, player="alice", out=tmp_path / "a.html").path
                ).read_text(encoding="utf-8")
    assert "is reviewed yet: run <code>ofc-stats review</code>" in page


def test_scope_filters_by_table_and_date(warehouse: Warehouse) -> None:
    at_t1 = load_report_data(warehouse, ReportScope(table="t1"))
    assert at_t1.summary["hands"] == 24
    assert at_t1.summary["players"] == 2
    since = parse_since("2026-03-01T22:00")  # the builders start at 20:00 UTC
    late = load_report_data(warehouse, ReportScope(player="alice", since=since))
    assert late.summary["hands"] == 8  # the second session, from 22:00
    assert late.headline["first_hand"][0] >= since


@pytest.mark.parametrize(("scope", "error", "message"), [
    (ReportScope(player="alise"), UnknownPlayerError, "did you mean 'alice'"),
    (ReportScope(table="t9"), UnknownTableError, "no table named 't9'"),
    (ReportScope(player="alice", since=dt.datetime(2030, 1, 1, tzinfo=dt.UTC)),
     EmptyScopeError, "no scored hands of alice since 2030-01-01"),
    (ReportScope(player="alice", table=EVIL_TABLE), EmptyScopeError, "no scored hands"),
])
def test_user_errors_say_what_to_do(warehouse: Warehouse, scope: ReportScope,
                                    error: type[ReportError], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        load_report_data(warehouse, scope)


def test_an_unscored_warehouse_is_scored_first_or_asks_for_ofc_stats_score(
        tmp_path: Path) -> None:
    warehouse = store(tmp_path, report_hands()[0])
    with pytest.raises(NoScoredHandsError, match="run 'ofc-stats score'"):
        write_report(warehouse, out=tmp_path / "r.html", score=False)
    assert not (tmp_path / "r.html").exists()
    summary = write_report(warehouse, out=tmp_path / "r.html")
    assert summary.scored_first == summary.hands > 0
    assert summary.unscored == 0


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-03-01", dt.datetime(2026, 3, 1, tzinfo=dt.UTC)),
    ("2026-03-01T20:15", dt.datetime(2026, 3, 1, 20, 15, tzinfo=dt.UTC)),
    ("2026-03-01T20:15+02:00", dt.datetime(2026, 3, 1, 18, 15, tzinfo=dt.UTC)),
    (dt.date(2026, 3, 1), dt.datetime(2026, 3, 1, tzinfo=dt.UTC)),
    (None, None),
])
def test_since_is_a_utc_moment(text: str | dt.date | None, expected: dt.datetime | None
                               ) -> None:
    assert parse_since(text) == expected


def test_since_rejects_what_is_not_a_date() -> None:
    with pytest.raises(ReportError, match="'last week' is not a date"):
        parse_since("last week")


@given(trials=st.integers(0, 10_000), data=st.data())
def test_wilson_interval_holds_the_rate_within_0_and_100(trials: int, data: st.DataObject
                                                        ) -> None:
    successes = data.draw(st.integers(0, trials))
    low, high = wilson_interval(pl.col("k"), pl.col("n"))
    bounds = pl.DataFrame({"k": [successes], "n": [trials]}).select(
        low.alias("low"), high.alias("high")).row(0)
    if trials == 0:
        assert bounds == (None, None)
    else:
        assert 0 <= bounds[0] <= 100 * successes / trials <= bounds[1] <= 100


# --- the figures ---------------------------------------------------------------------


@pytest.mark.parametrize("player", [None, "alice", EVIL_PLAYER])
def test_every_figure_is_valid_plotly(warehouse: Warehouse, player: str | None) -> None:
    data = load_report_data(warehouse, ReportScope(player=player))
    charts = report_charts(data)
    assert [chart.key for chart in charts] == [
        "cumulative", "sessions", "fouls", "fantasyland", "royalties", "rows",
        "categories", "head-to-head"]
    for chart in charts:
        figure = go.Figure(chart.figure)  # plotly's validators reject unknown properties
        assert figure.data, chart.key
        assert chart.title, chart.key
        assert chart.caption, chart.key


def test_names_in_figures_are_escaped_for_plotly(warehouse: Warehouse) -> None:
    charts = report_charts(load_report_data(warehouse, ReportScope()))
    text = json.dumps([chart.figure for chart in charts])
    assert EVIL_PLAYER not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


# --- the page ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def overview_page(warehouse: Warehouse, tmp_path_factory: pytest.TempPathFactory) -> str:
    target = tmp_path_factory.mktemp("pages") / "overview.html"
    summary = write_report(warehouse, out=target)
    assert summary.bytes == target.stat().st_size
    assert summary.charts == 8
    return target.read_text(encoding="utf-8")


def test_the_page_is_one_offline_file_with_plotly_once(overview_page: str) -> None:
    assert overview_page.count(plotly_js()) == 1
    # The page's own markup loads nothing (plotly.js holds links it never follows here;
    # the browser tests check that no request is made).
    own = overview_page.replace(plotly_js(), "")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", own)
    assert "<link" not in own
    assert "@import" not in own
    assert "url(" not in own
    assert "Content-Security-Policy" in overview_page
    assert "default-src 'none'" in overview_page
    assert overview_page.count('class="plot"') == 8


def test_untrusted_names_never_become_markup(overview_page: str) -> None:
    assert EVIL_PLAYER not in overview_page
    assert "<img src=x" not in overview_page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in overview_page  # shown as text
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", overview_page, re.S)
    assert len(scripts) == 4  # plotly.js, the figures, the config, the drawing code
    data = re.search(r'<script type="application/json" id="report-figures">(.*?)</script>',
                      overview_page, re.S)
    assert data is not None
    assert not re.search(r"[<>&]", data.group(1))
    assert set(json.loads(data.group(1))) == {
        "cumulative", "sessions", "fouls", "fantasyland", "royalties", "rows",
        "head-to-head", "categories"}


def test_script_json_cannot_close_its_element() -> None:
    text = script_json({"name": EVIL_TABLE})
    assert "</script" not in text
    assert "<" not in text
    assert "&" not in text
    assert json.loads(text) == {"name": EVIL_TABLE}


@pytest.mark.parametrize(("card", "expected"), [
    ("Ah", '<span class="card h">A♥</span>'),
    ("Ts", '<span class="card s">T♠</span>'),
    ("2c", '<span class="card c">2♣</span>'),
    ("Kd", '<span class="card d">K♦</span>'),
    ("Xj", '<span class="card x" title="joker">★</span>'),
    ("<b>", '<span class="card x">&lt;b&gt;</span>'),
])
def test_cards_are_drawn_with_their_suit(card: str, expected: str) -> None:
    assert card_html(card) == expected


def test_rows_are_sorted_and_padded_to_their_size() -> None:
    drawn = row_html("2c Ah", 3)
    assert drawn.index("A♥") < drawn.index("2♣")
    assert drawn.count('class="card e"') == 1
    quads = row_html("Ac 7h 7d 7s 7c", 5)  # 7777A, not A7777
    assert max(quads.index(f"7{suit}") for suit in "♠♥♦♣") < quads.index("A♣")
    full_house = row_html("3s Kd 3c Kh 3h", 5)  # the trips before the pair
    assert max(full_house.index(f"3{s}") for s in "♠♥♣") < full_house.index("K♦")
    wheel = row_html("Ah 2c 5d 3h 4s", 5)
    assert wheel.index("5♦") < wheel.index("4♠") < wheel.index("A♥")


def test_biggest_losses_are_other_deals_than_the_wins(sample_warehouse: Warehouse) -> None:
    frame = load_report_data(sample_warehouse, ReportScope()).biggest_hands
    hands = {kind: frame.filter(pl.col("kind") == kind).select("site", "hand_id").unique()
             for kind in ("win", "loss")}
    assert hands["win"].height == hands["loss"].height == 5
    assert hands["win"].join(hands["loss"], on=["site", "hand_id"]).is_empty()
    subjects = frame.select("kind", "place", "subject_points").unique()
    assert (subjects.filter(pl.col("kind") == "loss")["subject_points"] < 0).all()


def test_counts_tick_at_whole_numbers_and_nothing_reads_minus_zero(
        warehouse: Warehouse) -> None:
    data = load_report_data(warehouse, ReportScope(player="alice", table="t1",
                                                   since=parse_since("2026-03-01T22:00")))
    charts = {chart.key: chart.figure for chart in report_charts(data)}
    sessions = charts["sessions"]["layout"]
    assert sessions["xaxis"]["dtick"] == 1
    assert sessions["xaxis"]["tickformat"] == ",d"
    assert charts["cumulative"]["layout"]["xaxis"]["tickformat"] == ",d"
    page = render_page(data, report_charts(data), dt.datetime(2026, 3, 2, tzinfo=dt.UTC))
    assert not re.search(r"[-−]0\.0+(?!\d)", page.split("<script>")[0])
    figures = script_json({chart.key: chart.figure for chart in report_charts(data)})
    assert not re.search(r"[^\d.]-0(\.0+)?[,\]}]", figures)
    assert number_text(-0.004, 2) == "0.00"
    assert signed(-0.004, 2) == "0.00"


def test_the_overview_draws_one_foul_panel_per_player(sample_warehouse: Warehouse) -> None:
    data = load_report_data(sample_warehouse, ReportScope())
    fouls = next(chart for chart in report_charts(data) if chart.key == "fouls").figure
    assert len(fouls["data"]) == len(data.shown) == 10
    assert [trace["xaxis"] for trace in fouls["data"]] == ["x", *(f"x{i}" for i in range(2, 11))]
    assert fouls["layout"]["showlegend"] is False
    assert [note["text"] for note in fouls["layout"]["annotations"]] == data.shown
    assert fouls["layout"]["grid"]["rows"] == 2
    go.Figure(fouls)  # valid plotly


def test_legends_sit_under_the_plot() -> None:
    from ofc_stats.report.figures import BASE_LAYOUT

    assert BASE_LAYOUT["legend"]["yref"] == "container"
    assert BASE_LAYOUT["legend"]["y"] == 0
    assert BASE_LAYOUT["legend"]["yanchor"] == "bottom"


def test_a_player_report_names_the_player_and_defaults_under_reports(
        warehouse: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    summary = write_report(warehouse, player="alice", since="2026-03-01")
    assert Path(summary.path) == Path("reports/alice-since-2026-03-01.html")
    page = Path(summary.path).read_text(encoding="utf-8")
    assert "OFC report <span class=\"subject\">alice</span>" in page
    assert (summary.hands, summary.players, summary.charts) == (24, 1, 8)
    assert not list(Path("reports").glob(".*"))  # no temporary file left behind


@pytest.mark.parametrize(("player", "table", "path"), [
    (None, None, "reports/overview.html"),
    ("alice", None, "reports/alice.html"),
    ("Phil Ivey", None, "reports/phil-ivey-d2cbd9.html"),
    ("../../etc/passwd", None, "reports/etc-passwd-3754d6.html"),
    (EVIL_PLAYER, None, "reports/script-alert-1-script-5c140d.html"),
    ("日本", None, "reports/player-cf2abf.html"),
    (None, "t1", "reports/table-t1.html"),
    ("alice", "t1", "reports/alice-at-t1.html"),
    ("ColdWhale", None, "reports/coldwhale-9f4e77.html"),
])
def test_default_paths_are_safe_file_names(player: str | None, table: str | None,
                                           path: str) -> None:
    assert default_report_path(player, table).as_posix() == path


def test_default_paths_keep_periods_and_scorings_apart() -> None:
    paths = {default_report_path("alice", since=since, scoring=scoring).as_posix()
             for since in (None, "2026-03-01", "2026-03-08", "2026-03-01T20:00")
             for scoring in (None, "default", "thursday home game")}
    assert len(paths) == 4 * 2
    assert "reports/alice-since-2026-03-01.html" in paths
    assert "reports/alice-since-2026-03-01t2000z-thursday-home-game-6ae20f.html" in paths
    assert default_report_path(since=dt.date(2026, 3, 1)).as_posix() == (
        "reports/overview-since-2026-03-01.html")


def test_the_report_help_says_the_real_file_name() -> None:
    text = " ".join(runner.invoke(app, ["report", "--help"]).stdout.split())
    assert "(ColdWhale: coldwhale-9f4e77.html)" in text
    assert "--since -since-<date>" in text


def test_default_paths_keep_every_player_and_table_apart() -> None:
    names = ["ColdWhale", "coldwhale", "Cold Whale", "cold-whale", "日本", "中国", "overview"]
    player_paths = {default_report_path(name) for name in names}
    table_paths = {default_report_path(table=name) for name in names}
    assert len(player_paths | table_paths | {default_report_path()}) == 2 * len(names) + 1


# --- the command ---------------------------------------------------------------------


def test_out_writes_only_regular_files_or_new_paths_and_a_folder_means_inside(
        warehouse: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def report(out: str) -> tuple[int, str]:
        result = runner.invoke(app, ["report", "-w", str(warehouse.root), "--out", out])
        return result.exit_code, result.stderr

    # A folder, existing or named with a slash, and the current one: inside it.
    (tmp_path / "existing").mkdir()
    for out, written in (("existing", "existing/overview.html"),
                         ("new/", "new/overview.html"), (".", "overview.html"),
                         ("", "overview.html")):
        code, errors = report(out)
        assert code == 0, (out, errors)
        assert (tmp_path / written).is_file(), out
    assert not (tmp_path / "new").is_file()
    # A link to a regular file writes that file; the link stays a link.
    (tmp_path / "real.html").write_text("old")
    (tmp_path / "link.html").symlink_to(tmp_path / "real.html")
    assert report("link.html")[0] == 0
    assert (tmp_path / "link.html").is_symlink()
    assert (tmp_path / "real.html").read_text().startswith("<!DOCTYPE html>")
    # Never over a device, a pipe or a special file, directly or through a link.
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "to-null").symlink_to("/dev/null")
    for out, kind in (("/dev/null", "a device"), ("/dev/stdout", "a special file"),
                      ("pipe", "a named pipe"), ("to-null", "a device")):
        code, errors = report(out)
        assert code == 2, out
        assert errors == (f"ofc-stats: error: not writing the report to {out}: it is "
                          f"{kind}{' (under /dev/)' if kind == 'a special file' else ''}; "
                          "give a file or a folder\n")
    assert Path("/dev/null").is_char_device()
    assert Path("/dev/stdout").is_symlink()
    assert (tmp_path / "pipe").is_fifo()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_cli_writes_the_report_and_reports_errors_on_one_line(
        warehouse: Warehouse, tmp_path: Path) -> None:
    target = tmp_path / "bob.html"
    result = runner.invoke(app, ["report", "--player", "bob", "--out", str(target),
                                 "-w", str(warehouse.root), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["path"] == str(target)
    assert summary["bytes"] == target.stat().st_size
    text = runner.invoke(app, ["report", "--table", "t1", "--out", str(target),
                               "-w", str(warehouse.root)])
    assert text.exit_code == 0
    assert text.stdout.startswith(f"wrote {target} (")
    assert "8 charts; 24 hands, 2 players" in text.stdout
    for arguments, message in [
        (["--player", "alise"], "no player named 'alise' in the scored hands; did you mean "
                                "'alice'?"),
        (["--since", "soon"], "--since 'soon' is not a date or time; use a date "
                              "(2026-03-01), a date and time (2026-03-01T20:00 or "
                              "'2026-03-01 20:00', UTC unless it gives an offset), today, "
                              "yesterday, or a time ago (90m, 12h, 7d, 2w, '3 days ago')"),
        (["--table", "t9"], "no table named 't9' in the scored hands"),
    ]:
        failed = runner.invoke(app, ["report", *arguments, "-w", str(warehouse.root),
                                     "--out", str(tmp_path / "x.html")])
        assert failed.exit_code == 2
        assert failed.stderr == f"ofc-stats: error: {message}\n"
    folder = tmp_path / "taken.html"
    folder.mkdir()  # a folder: the report goes inside it
    inside = runner.invoke(app, ["report", "-w", str(warehouse.root), "--out", str(folder)])
    assert inside.exit_code == 0, inside.output
    assert (folder / "overview.html").is_file()
    plain = tmp_path / "plain.txt"
    plain.write_text("a file")  # the file asked for cannot be written: the error names it
    blocked = runner.invoke(app, ["report", "-w", str(warehouse.root), "--out",
                                  str(plain / "r.html")])
    assert blocked.exit_code == 7  # a file or system error
    assert blocked.stderr.count("\n") == 1
    assert str(plain) in blocked.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_report_runs_as_a_real_process(warehouse: Warehouse, tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "ofc_stats", "report", "-w", str(warehouse.root),
         "--out", str(tmp_path / "all.html")], capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    assert "8 charts; 34 hands, 3 players" in completed.stdout
    html = (tmp_path / "all.html").read_text()
    assert re.search(r"<script>/\*\*\n\* plotly\.js v\d+\.\d+", html)  # embedded,
    assert "<script src=" not in html  # nothing fetched (the page works offline)


@pytest.mark.slow
def test_a_report_of_100000_hands_is_under_5_mb(tmp_path: Path) -> None:
    root = tmp_path / "warehouse"
    build_benchmark_warehouse(root, 300_000, 3, player_pool=30, with_hands=True)
    score_warehouse(Warehouse.open(root))
    for player in (None, "player-0"):
        summary = write_report(root, player=player, out=tmp_path / "report.html")
        assert summary.hands == (100_000 if player is None else 10_000)
        assert summary.bytes < 5_000_000, (player, summary.bytes)
