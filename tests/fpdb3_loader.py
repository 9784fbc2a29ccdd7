"""A loader of fpdb-3's OFC hand shapes that follows their documented layout strictly.

It is written from fpdb-3's documented shapes (docs/formats.md, "fpdb-3", and the
fixtures in ``tests/fixtures/fpdb3``), not from ofc-stats' reader, so that what the
``fpdb`` writer writes is checked against what fpdb-3 itself expects: every key of
the hand object, its types (``active`` a list, ``points`` text, ``points_settled`` a
dict of integers, tens as ``10h``), the running ``round`` counter, and layouts whose
slots hold the cards placed. It then reads the hand as fpdb-3's own loader does
(``Decimal(str(value))`` for money, ``list(active)``), so a value fpdb-3 cannot read
fails here too. Plain Python, one hand at a time: a test's reference, not a reader.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

SWC_CARD = re.compile(r"^(10|[2-9JQKA])[cdhs]$")  # SwC writes tens as 10h, never Th
UTC_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")
ROWS = {"top": 3, "middle": 5, "bottom": 5}
HAND_KEYS = {"site", "hand_id", "table_id", "timestamp", "variant", "players", "rounds",
             "result", "validation", "raw_refs"}
VARIANT_KEYS = {"family", "variant", "pineapple", "deuce_to_seven", "rows", "hand_py_importable"}
PLAYER_KEYS = {"name", "seat_idx", "starting_stack", "top", "middle", "bottom", "active",
               "points", "collected"}
ROUND_KEYS = {"round", "step_num", "player", "dealt", "placed", "placed_slots", "layout",
              "discarded", "active", "source"}
BREAKDOWN_KEYS = {"lines", "top_royalty", "middle_royalty", "bottom_royalty", "total"}
ENVELOPE_KEYS = {"site", "hand_id", "game_type", "game", "gametype", "table_id", "timestamp",
                 "dealer_idx", "sb_idx", "bb_idx", "players", "steps", "actions", "showdown",
                 "raw_refs", "metadata", "ofc_variant", "ofc_rounds", "ofc_result",
                 "ofc_validation"}
SWC_GAMES = {"OFC", "Turbo OFC", "OFC/P", "OFC/P Progressive", "OFC/P 2-7", "OFC/P Variant",
             "OFC Variant"}


class ShapeError(AssertionError):
    """The hand is not in the shape fpdb-3 writes and reads."""


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise ShapeError(what)


@dataclass(frozen=True)
class LoadedPlayer:
    """A player as fpdb-3 loads them, cards spelled as ofc-stats spells them (``Th``)."""

    name: str
    seat: int | None
    top: list[str]
    middle: list[str]
    bottom: list[str]
    points: Decimal
    collected: Decimal
    starting_stack: Decimal
    royalties: int | None  # the sum of points_breakdown's row royalties
    discards: list[str]  # every card the rounds show discarded
    first_placed: int  # cards the player's first placing round laid


@dataclass(frozen=True)
class LoadedHand:
    site: str
    hand_id: str
    table: str
    timestamp: str
    variant: str  # ofc, ofcp, ofcp_27
    game_type: str | None  # the envelope's SwC game
    players: list[LoadedPlayer]


def _ours(card: str) -> str:
    return "T" + card[2:] if card.startswith("10") else card


def _cards(value: Any, what: str, *, slots: bool = False) -> list[str]:
    expect(isinstance(value, list), f"{what} must be a list, not {value!r}")
    for card in value:
        expect(isinstance(card, str) and (SWC_CARD.match(card) is not None
                                          or (slots and card == "--")),
               f"{what}: {card!r} is not a card as SwC writes one")
    return list(value)


def _decimal_text(value: Any, what: str) -> Decimal:
    expect(isinstance(value, str), f"{what} must be text (a decimal), not {value!r}")
    try:
        return Decimal(str(value))  # what fpdb-3's loader does
    except InvalidOperation:
        raise ShapeError(f"{what}: {value!r} is not a decimal") from None


def _rows(value: Any, what: str, *, layout: bool) -> dict[str, list[str]]:
    expect(isinstance(value, dict), f"{what} must be an object of rows")
    if layout:
        expect(set(value) == set(ROWS), f"{what} must hold every row: {sorted(value)}")
    else:
        expect(set(value) <= set(ROWS), f"{what}: unknown rows {sorted(set(value) - set(ROWS))}")
    rows = {row: _cards(cards, f"{what}.{row}", slots=layout) for row, cards in value.items()}
    for row, cards in rows.items():
        if layout:
            expect(len(cards) == ROWS[row], f"{what}.{row} must have {ROWS[row]} slots")
        else:
            expect(0 < len(cards) <= ROWS[row], f"{what}.{row}: {len(cards)} cards")
    return rows


def _check_rounds(rounds: Any, names: set[str], what: str) -> dict[str, list[dict[str, Any]]]:
    """The rounds checked, by player (in order)."""
    expect(isinstance(rounds, list), f"{what} must be a list")
    by_player: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for index, entry in enumerate(rounds):
        where = f"{what}[{index}]"
        expect(isinstance(entry, dict) and set(entry) == ROUND_KEYS,
               f"{where} keys: {sorted(entry) if isinstance(entry, dict) else entry!r}")
        expect(entry["round"] == index + 1, f"{where}: round {entry['round']} (a running "
                                            "counter over the hand from 1)")
        expect(isinstance(entry["step_num"], int), f"{where}.step_num must be an integer")
        expect(entry["player"] in names, f"{where}: {entry['player']!r} is not a player")
        for key in ("dealt", "discarded", "active"):
            _cards(entry[key], f"{where}.{key}")
        placed = _rows(entry["placed"], f"{where}.placed", layout=False)
        layout = _rows(entry["layout"], f"{where}.layout", layout=True)
        slots = entry["placed_slots"]
        expect(isinstance(slots, dict) and set(slots) == set(placed),
               f"{where}.placed_slots must name the rows placed")
        for row, cards in placed.items():
            expect(isinstance(slots[row], list) and len(slots[row]) == len(cards),
                   f"{where}.placed_slots.{row} must hold a slot per card placed")
            for slot in slots[row]:
                expect(isinstance(slot, dict) and set(slot) == {"card", "index"},
                       f"{where}.placed_slots.{row}: {slot!r}")
                expect(layout[row][slot["index"]] == slot["card"] and slot["card"] in cards,
                       f"{where}: the layout's {row} slot {slot['index']} must hold "
                       f"{slot['card']}")
        by_player[entry["player"]].append({"placed": placed, "layout": layout, **entry})
    return by_player


def _player_rounds(rounds: list[dict[str, Any]], rows: dict[str, list[str]]
                   ) -> tuple[list[str], int]:
    """The cards discarded over a player's rounds and how many the first placement laid;
    the last layout must hold the player's final rows."""
    discards = [card for entry in rounds for card in entry["discarded"]]
    placing = [entry for entry in rounds if entry["placed"]]
    first = sum(len(cards) for cards in placing[0]["placed"].values()) if placing else 0
    if rounds:
        last = rounds[-1]["layout"]
        for row, cards in rows.items():
            expect(sorted(card for card in last[row] if card != "--") == sorted(cards),
                   f"the last layout's {row} is not the player's {row}")
    return discards, first


def _check_result(result: Any, names: set[str], what: str) -> None:
    expect(isinstance(result, dict), f"{what} must be an object")
    settled = result.get("points_settled")
    expect(isinstance(settled, dict) and set(settled) <= names
           and all(isinstance(v, int) and not isinstance(v, bool) for v in settled.values()),
           f"{what}.points_settled must be an object of integers by player, not {settled!r}")
    breakdown = result.get("points_breakdown")
    expect(isinstance(breakdown, dict) and set(breakdown) <= names,
           f"{what}.points_breakdown must be an object by player")
    for name, parts in breakdown.items():
        expect(isinstance(parts, dict) and set(parts) == BREAKDOWN_KEYS
               and all(isinstance(v, int) for v in parts.values()),
               f"{what}.points_breakdown.{name}: {parts!r}")
    expect(isinstance(result.get("rows"), dict), f"{what}.rows must be an object")
    collections = result.get("collections", [])
    expect(isinstance(collections, list), f"{what}.collections must be a list")
    for collection in collections:
        expect(isinstance(collection, dict) and collection.get("player") in names,
               f"{what}.collections: {collection!r}")
        _decimal_text(collection.get("pot"), f"{what}.collections pot")


def _variant(value: Any) -> str:
    expect(isinstance(value, dict) and set(value) == VARIANT_KEYS, f"variant: {value!r}")
    expect(value["family"] == "ofc" and value["variant"] in ("ofc", "ofcp", "ofcp_27"),
           f"variant.variant {value['variant']!r} is not one fpdb-3 writes")
    expect(isinstance(value["pineapple"], bool) and isinstance(value["deuce_to_seven"], bool),
           "variant flags must be true or false")
    expect(value["pineapple"] == (value["variant"] != "ofc"), "variant.pineapple")
    expect(value["rows"] == ROWS, "variant.rows")
    return str(value["variant"])


def _hand_header(data: dict[str, Any]) -> tuple[str, str, str, str]:
    expect(isinstance(data["site"], str), "site must be text")
    hand_id = data["hand_id"]
    expect((isinstance(hand_id, int) and not isinstance(hand_id, bool))
           or (isinstance(hand_id, str) and re.fullmatch(r"0|[1-9][0-9]*", hand_id) is None),
           f"hand_id {hand_id!r}: SwC's numbers are integers (fpdb-3 allows other text)")
    expect(isinstance(data["table_id"], str), "table_id must be text")
    expect(isinstance(data["timestamp"], str) and UTC_TIME.match(data["timestamp"]) is not None,
           f"timestamp {data['timestamp']!r} is not UTC ISO 8601 with a Z")
    return data["site"], str(hand_id), data["table_id"], data["timestamp"]


def _royalties(breakdown: dict[str, Any], name: str) -> int | None:
    parts = breakdown.get(name)
    if parts is None:
        return None
    return int(parts["top_royalty"] + parts["middle_royalty"] + parts["bottom_royalty"])


def load_hand(text: str) -> LoadedHand:
    """One hand object as fpdb-3's database keeps it (``HttpOFCHands.rawJson``)."""
    data = json.loads(text)
    expect(isinstance(data, dict) and set(data) == HAND_KEYS,
           f"hand keys: {sorted(data) if isinstance(data, dict) else data!r}")
    site, hand_id, table, timestamp = _hand_header(data)
    variant = _variant(data["variant"])
    expect(isinstance(data["players"], list) and data["players"], "players must be a list")
    names = set()
    for player in data["players"]:
        expect(isinstance(player, dict) and {"name", "seat_idx", "top", "middle", "bottom",
                                             "active"} <= set(player) <= PLAYER_KEYS,
               f"player keys: {player!r}")
        names.add(player["name"])
    expect(len(names) == len(data["players"]), "a player twice")
    rounds = _check_rounds(data["rounds"], names, "rounds")
    _check_result(data["result"], names, "result")
    expect(data["validation"].keys() == {"valid", "errors", "warnings"}, "validation")
    expect(isinstance(data["raw_refs"], list), "raw_refs must be a list")
    players = []
    for player in data["players"]:
        where = f"player {player['name']!r}"
        seat = player["seat_idx"]
        expect(seat is None or (isinstance(seat, int) and not isinstance(seat, bool)),
               f"{where}: seat_idx must be an integer or null")
        rows = {row: _cards(player[row], f"{where} {row}") for row in ROWS}
        expect(all(len(rows[row]) <= size for row, size in ROWS.items()),
               f"{where}: a row too long")
        active = list(_cards(player["active"], f"{where} active"))  # fpdb-3: list(active)
        expect(not active or sum(map(len, rows.values())) < 13, f"{where}: active cards "
                                                                "beside a full board")
        discards, first = _player_rounds(rounds[player["name"]], rows)
        players.append(LoadedPlayer(
            name=player["name"], seat=seat,
            **{row: [_ours(card) for card in cards] for row, cards in rows.items()},
            points=_decimal_text(player.get("points", "0"), f"{where} points"),
            collected=_decimal_text(player.get("collected", "0"), f"{where} collected"),
            starting_stack=_decimal_text(player.get("starting_stack", "0"),
                                         f"{where} starting_stack"),
            royalties=_royalties(data["result"]["points_breakdown"], player["name"]),
            discards=[_ours(card) for card in discards], first_placed=first))
    settled = data["result"]["points_settled"]
    for player in players:
        if player.name in settled:
            expect(Decimal(settled[player.name]) == player.points,
                   f"{player.name}: points {player.points} but settled {settled[player.name]}")
    return LoadedHand(site, hand_id, table, timestamp, variant, None, players)


def load_envelope(text: str) -> LoadedHand:
    """One capture envelope (``hand_<id>.json``), read as fpdb-3's ``build_ofc_hand``
    does: the final boards from the last step, points from ``ofc_result``."""
    data = json.loads(text)
    expect(isinstance(data, dict) and set(data) >= ENVELOPE_KEYS,
           f"envelope keys missing: {sorted(ENVELOPE_KEYS - set(data))}")
    site, hand_id, table, timestamp = _hand_header(data)
    expect(data["game"]["base"] == "ofc", "game.base must be ofc (fpdb-3 refuses others)")
    expect(data["game_type"] in SWC_GAMES and data["game"]["label"] == data["game_type"],
           f"game_type {data['game_type']!r} is not an SwC OFC game")
    variant = _variant(data["ofc_variant"])
    names = set()
    for player in data["players"]:
        expect(isinstance(player, dict) and {"name", "seat_idx"} <= set(player)
               <= {"name", "seat_idx", "starting_stack"}, f"envelope player: {player!r}")
        names.add(player["name"])
    rounds = _check_rounds(data["ofc_rounds"], names, "ofc_rounds")
    _check_result(data["ofc_result"], names, "ofc_result")
    expect(isinstance(data["steps"], list) and data["steps"], "steps must be a non-empty list")
    final = data["steps"][-1]["placed"]
    expect(isinstance(final, dict) and set(final) == names, "the last step places every player")
    pots: dict[str, Decimal] = {}
    for collection in data["ofc_result"].get("collections", []):
        pots[collection["player"]] = pots.get(collection["player"], Decimal(0)) + Decimal(
            collection["pot"])
    settled = data["ofc_result"]["points_settled"]
    players = []
    for player in data["players"]:
        board = final[player["name"]]
        rows = {row: [card for card in _cards(board[row], f"step {row}", slots=True)
                      if card != "--"] for row in ROWS}
        discards, first = _player_rounds(rounds[player["name"]], rows)
        players.append(LoadedPlayer(
            name=player["name"], seat=player["seat_idx"],
            **{row: [_ours(card) for card in cards] for row, cards in rows.items()},
            points=Decimal(str(settled.get(player["name"], 0))),
            collected=pots.get(player["name"], Decimal(0)),
            starting_stack=Decimal(str(player.get("starting_stack", 0))),
            royalties=_royalties(data["ofc_result"]["points_breakdown"], player["name"]),
            discards=[_ours(card) for card in discards], first_placed=first))
    return LoadedHand(site, hand_id, table, timestamp, variant, data["game_type"], players)
