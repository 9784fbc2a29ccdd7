"""``ofc-stats hand ID``: one hand drawn in the terminal, and the data behind it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc_stats.analysis.audit import audit_warehouse
from ofc_stats.cli import app
from ofc_stats.db import query_warehouse
from ofc_stats.db.hand import UnknownHandError, hand_detail
from ofc_stats.engine.cards import display_order
from ofc_stats.warehouse import Warehouse
from tests.builders import NOTHING_1, NOTHING_2, Hand, Seat, store

runner = CliRunner()


def shown(warehouse: Warehouse, *arguments: str, width: int = 80, colour: bool = False
          ) -> str:
    env = {"COLUMNS": str(width), **({"TTY_COMPATIBLE": "1"} if colour else {})}
    result = runner.invoke(app, ["hand", *arguments, "-w", str(warehouse.root)], env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def mis_scored(warehouse: Warehouse) -> str:
    findings = audit_warehouse(warehouse).findings
    return str(findings.filter(findings["kind"] == "points")["hand_id"][0])


def test_a_hand_shows_boards_rows_points_and_what_the_room_said(
        sample_warehouse: Warehouse) -> None:
    hand_id = mis_scored(sample_warehouse)
    detail = hand_detail(sample_warehouse, hand_id)
    text = shown(sample_warehouse, hand_id)
    assert text.startswith(f"hand {hand_id} · {detail.hand['site']} · table ")
    for line in text.splitlines():
        assert len(line) <= 80, line
    for seat in detail.seats.iter_rows(named=True):
        assert seat["player"] in text
        assert f"{seat['points']:+d} points" in text
        assert f"(room {seat['reported_points']:+d})" in text
        for row in ("top", "middle", "bottom"):
            cards = " ".join(card[0] + "♣♦♥♠"["cdhs".index(card[1])]
                             for card in display_order(seat[row].split()))
            assert f"  {row:7s} {cards}" in text
            assert seat[f"{row}_made"] in text  # e.g. "pair of Q, kickers 4"
        assert f"royalties {seat['royalties']} (room {seat['reported_royalties']})" in text
    assert "Between each pair" in text
    pairs = detail.matchups.filter(detail.matchups["seat"] < detail.matchups["opponent_seat"])
    assert pairs.height == detail.seats.height * (detail.seats.height - 1) // 2
    assert "audit: 1 finding" in text
    assert "points (error): reported points differ from ours" in " ".join(text.split())


def test_suits_are_coloured_and_fantasyland_is_said(sample_warehouse: Warehouse) -> None:
    row = query_warehouse(sample_warehouse, "SELECT hand_id, player, fl_cards FROM "
                                            "player_hands WHERE in_fantasyland AND fl_next "
                                            "ORDER BY hand_id LIMIT 1").row(0, named=True)
    text = shown(sample_warehouse, row["hand_id"])
    assert f"{row['player']}  in Fantasyland, {row['fl_cards']} cards" in text or (
        f"{row['player']}  (button)  in Fantasyland" in text)
    assert "stays in Fantasyland next hand" in text
    coloured = shown(sample_warehouse, row["hand_id"], colour=True)
    assert "\x1b[31m" in coloured  # hearts in red
    assert "\x1b[34m" in coloured  # diamonds in blue
    assert "\x1b[32m" in coloured  # clubs in green


def test_streets_replay_the_placements(sample_warehouse: Warehouse) -> None:
    hand_id = query_warehouse(sample_warehouse, "SELECT h.hand_id FROM hands h WHERE "
                                                "h.has_streets AND h.variant = 'pineapple' "
                                                "ORDER BY 1 LIMIT 1")["hand_id"][0]
    detail = hand_detail(sample_warehouse, hand_id)
    text = shown(sample_warehouse, hand_id, "--streets")
    streets = sorted(set(detail.streets["street"].to_list()))
    assert streets == [1, 2, 3, 4, 5]  # five cards, then four streets of three
    for street in streets:
        assert f"street {street} (" in text
    assert "street 1 (5 cards)" in text
    assert "street 2 (3 cards)" in text
    assert "+ top" in text or "+ middle" in text
    assert "discards" in text  # pineapple discards one card a street
    last_board = text.split(f"street {streets[-1]} (")[1]
    for seat in detail.seats.iter_rows(named=True):
        top = " ".join(card[0] + "♣♦♥♠"["cdhs".index(card[1])]
                       for card in display_order(seat["top"].split()))
        assert top in last_board  # after the last street, the final board


def test_unknown_and_ambiguous_ids(sample_warehouse: Warehouse) -> None:
    hand_id = mis_scored(sample_warehouse)
    with pytest.raises(UnknownHandError, match=f"did you mean '{hand_id}'"):
        hand_detail(sample_warehouse, hand_id.upper())
    with pytest.raises(UnknownHandError, match="did you mean"):
        hand_detail(sample_warehouse, hand_id + "9")
    with pytest.raises(UnknownHandError, match="at site 'elsewhere'"):
        hand_detail(sample_warehouse, hand_id, site="elsewhere")


def test_json_holds_the_same(sample_warehouse: Warehouse) -> None:
    hand_id = mis_scored(sample_warehouse)
    result = runner.invoke(app, ["hand", hand_id, "--json", "-w", str(sample_warehouse.root)])
    data = json.loads(result.stdout)
    assert data["hand"]["hand_id"] == hand_id
    assert data["scored"] is True
    assert [f["kind"] for f in data["findings"]] == ["points"]
    assert {seat["player"] for seat in data["seats"]} == {
        m["player"] for m in data["matchups"]}


def test_an_id_at_two_sites_needs_the_site(tmp_path: Path) -> None:
    warehouse = store(tmp_path / "wh", [
        Hand("h1", [Seat("ann", NOTHING_1), Seat("bo", NOTHING_2)], site="north"),
        Hand("h1", [Seat("cy", NOTHING_1), Seat("di", NOTHING_2)], site="south")])
    result = runner.invoke(app, ["hand", "h1", "-w", str(warehouse.root)])
    assert result.exit_code == 2
    assert result.stderr == ("ofc-stats: error: hand 'h1' is at 2 sites ('north' or "
                             "'south'): say which with --site\n")
    south = shown(warehouse, "h1", "--site", "south")
    assert "cy" in south
    assert "ann" not in south
    assert "not scored yet: run 'ofc-stats score'" in south


def test_a_joker_is_drawn_as_the_card_it_stood_for(sample_warehouse: Warehouse) -> None:
    row = query_warehouse(sample_warehouse, (
        "SELECT hand_id, p.player, middle, joker_cards FROM player_hands p JOIN seats "
        "USING (site, hand_id, seat) WHERE middle ILIKE '%Xj%' AND joker_cards <> '' "
        "ORDER BY hand_id LIMIT 1")).row(0, named=True)
    text = shown(sample_warehouse, row["hand_id"])
    assert "★" in text
    assert "Xj" not in text  # every joker drawn as what it became
    # The middle's joker stands where its card goes in reading order.
    middle = next(line for line in text.splitlines()[text.splitlines().index(
        next(line for line in text.splitlines() if row["player"] in line)):]
        if line.startswith("  middle"))
    assert middle.count("★") == row["middle"].lower().count("xj")


def test_money_and_table_stakes_are_shown(sample_warehouse: Warehouse) -> None:
    capped = query_warehouse(sample_warehouse, (
        "SELECT hand_id FROM player_hands WHERE capped ORDER BY hand_id LIMIT 1"))
    paid = query_warehouse(sample_warehouse, (
        "SELECT hand_id FROM player_hands WHERE money IS NOT NULL ORDER BY hand_id LIMIT 1"))
    assert "money " in shown(sample_warehouse, paid["hand_id"][0], width=120)
    assert "capped at the stacks" in shown(sample_warehouse, capped["hand_id"][0],
                                           width=120)
