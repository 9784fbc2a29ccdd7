"""The report on the rooms' other games: a variant's own report, jokers drawn as what
they became, five of a kind among the categories, capped money on the boards."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from ofc_stats.cli import app
from ofc_stats.report import UnknownVariantError, write_report
from ofc_stats.report.data import ReportScope, load_report_data
from ofc_stats.report.figures import report_charts
from ofc_stats.report.page import render_page, row_html
from ofc_stats.warehouse import Warehouse

runner = CliRunner()


def test_a_variant_report_covers_that_variant_only(sample_warehouse: Warehouse) -> None:
    data = load_report_data(sample_warehouse, ReportScope(variant="joker-ultimate"))
    hands = (sample_warehouse.scan("player_hands", "default")
             .filter(pl.col("variant") == "joker-ultimate").collect())
    assert data.summary["variants"] == "joker-ultimate"
    assert data.summary["hands"] == hands["hand_id"].n_unique()
    assert data.summary["player_hands"] == hands.height
    assert set(data.biggest_hands["variant"]) == {"joker-ultimate"}
    assert data.headline["hands"].sum() == hands.height


def test_an_unknown_variant_names_the_variants_there_are(sample_warehouse: Warehouse) -> None:
    with pytest.raises(UnknownVariantError, match=r"--variant: no scored hands of variant "
                       r"'joker' \(variants: .*; in this warehouse: .*joker-ultimate"):
        load_report_data(sample_warehouse, ReportScope(variant="joker"))


def test_jokers_are_drawn_as_the_cards_they_became(sample_warehouse: Warehouse) -> None:
    data = load_report_data(sample_warehouse, ReportScope(variant="joker-pineapple"))
    with_jokers = data.biggest_hands.filter(pl.col("joker_cards").is_not_null())
    assert with_jokers.height
    page = render_page(data, report_charts(data), dt.datetime(2026, 3, 1, tzinfo=dt.UTC))
    # Every joker of the boards drawn: a tile with the star and the card it became.
    jokers = sum(len(text.split()) for text in with_jokers["joker_cards"].to_list())
    assert page.count('<span class="card j ') == jokers
    first = with_jokers["joker_cards"][0].split()[0]
    rank, suit = first[0], {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}[first[1]]
    assert f'title="joker, as {rank}{suit}"><small>★</small>{rank}{suit}</span>' in page


def test_a_joker_takes_the_place_of_the_card_it_became() -> None:
    drawn = row_html("Xj 9h 2c", 3, ["Ks"])
    assert drawn.index("K♠") < drawn.index("9♥") < drawn.index("2♣")
    assert "joker, as K♠" in drawn
    unknown = row_html("Xj 9h 2c", 3)  # no resolution known: a plain star
    assert 'title="joker">★</span>' in unknown


def test_five_of_a_kind_is_among_the_categories_of_two_decks(
        sample_warehouse: Warehouse) -> None:
    data = load_report_data(sample_warehouse, ReportScope(variant="double-deck-pineapple"))
    assert "five of a kind" in set(data.categories["category"])
    stored = (sample_warehouse.scan("player_hands", "default")
              .filter((pl.col("variant") == "double-deck-pineapple")
                      & (pl.col("bottom_category") == "five of a kind")
                      & pl.col("problem").is_null()).collect().height)
    counted = data.categories.filter((pl.col("row") == "bottom")
                                     & (pl.col("category") == "five of a kind"))["boards"]
    assert counted.to_list() == [stored]


def test_capped_money_is_a_badge_on_the_board(sample_warehouse: Warehouse,
                                              tmp_path: Path) -> None:
    summary = write_report(sample_warehouse, variant="double-deck", out=tmp_path / "dd.html")
    page = Path(summary.path).read_text(encoding="utf-8")
    data = load_report_data(sample_warehouse, ReportScope(variant="double-deck"))
    assert page.count('class="badge cap"') == int(data.biggest_hands["capped"].sum())
    assert data.biggest_hands["capped"].any()


def test_the_cli_writes_a_variant_report_under_its_own_name(
        sample_warehouse: Warehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["report", "--variant", "deuce-to-seven",
                                 "--warehouse", str(sample_warehouse.root)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "reports" / "overview-deuce-to-seven.html").is_file()
    # The names histories use are read too.
    named = runner.invoke(app, ["report", "--variant", "Joker Ultimate", "--warehouse",
                                str(sample_warehouse.root)])
    assert named.exit_code == 0, named.output
    assert (tmp_path / "reports" / "overview-joker-ultimate.html").is_file()
    stats = runner.invoke(app, ["stats", "--variant", "2-7", "--warehouse",
                                str(sample_warehouse.root), "--format", "csv"])
    assert stats.exit_code == 0, stats.output
    assert stats.stdout.startswith("player,hands")
    wrong = runner.invoke(app, ["report", "--variant", "badugi",
                                "--warehouse", str(sample_warehouse.root)])
    assert wrong.exit_code == 2
    assert wrong.stderr.startswith("ofc-stats: error: --variant: no scored hands of variant "
                                   "'badugi'")
