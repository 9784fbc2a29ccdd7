"""fpdb-3 OFC exports: objects, lists (pretty or on one line), JSON Lines, variants."""

from __future__ import annotations

import datetime as dt
import json
import re
from decimal import Decimal

import pytest

from ofc_stats.formats import Format
from ofc_stats.formats.fpdb import READER
from tests.test_formats_common import assert_problem, read_all, read_batches


def player(name: str, seat: int, top: str, middle: str, bottom: str,
           **fields: object) -> dict[str, object]:
    return {"name": name, "seat_idx": seat, "starting_stack": 150.5, "top": top.split(),
            "middle": middle.split(), "bottom": bottom.split(), "active": True, **fields}


IVEY = player("Ivey", 0, "6s 6c 4h", "Td Ts 9c Qs 8c", "3h 3d 3s 2h 2d", points=4, collected=1)
HELLMUTH = player("Hellmuth", 1, "Ah Kd Qd", "9h 9d 5h 5d 4c", "Ks Js 9s 8s 7s", points=-4,
                  collected=0)


def hand(hand_id: str = "h1", **fields: object) -> dict[str, object]:
    record: dict[str, object] = {
        "site": "PokerStars", "hand_id": hand_id, "table_id": "Hydra II",
        "timestamp": "2026-03-01T20:15:00+01:00",
        "variant": {"variant": "ofc", "pineapple": True, "deuce_to_seven": False},
        "players": [IVEY, HELLMUTH],
        "rounds": [
            {"round": 0, "player": "Ivey", "dealt": ["6s", "Td", "Ts", "3h", "3d"],
             "placed": {"top": ["6s"], "middle": ["Td", "Ts"], "bottom": ["3h", "3d"]},
             "discarded": []},
            {"round": 1, "player": "Ivey", "dealt": ["6c", "9c", "2c"],
             "placed": {"top": ["6c"], "middle": ["9c"], "bottom": []}, "discarded": ["2c"]},
        ],
        "result": {"points_settled": 4},
    }
    record.update(fields)
    return record


def test_one_object_reads_with_rounds_as_streets() -> None:
    batch = read_all(Format.FPDB, json.dumps(hand(), indent=2).encode())
    assert batch.problems.is_empty()
    row = batch.hands.row(0, named=True)
    assert (row["site"], row["table"], row["variant"], row["has_streets"]) == (
        "PokerStars", "Hydra II", "pineapple", True)
    assert row["started_at"] == dt.datetime(2026, 3, 1, 19, 15, tzinfo=dt.UTC)
    ivey, hellmuth = batch.seats.rows(named=True)
    assert (ivey["seat"], ivey["reported_points"], ivey["starting_stack"]) == (
        0, 4, Decimal("150.5"))
    assert hellmuth["collected"] == Decimal(0)
    # Rounds counted from 0 become streets counted from 1.
    assert batch.streets["street"].unique().sort().to_list() == [1, 2]
    assert batch.streets.filter(batch.streets["action"] == "discard")["street"].to_list() == [2]


@pytest.mark.parametrize("layout", ["pretty list", "one-line list", "json lines", "objects"])
def test_every_container_reads_the_same_hands(layout: str) -> None:
    hands = [hand(f"h{i}") for i in range(1, 4)]
    data = {
        "pretty list": json.dumps(hands, indent=2),
        "one-line list": json.dumps(hands),
        "json lines": "\n".join(json.dumps(h) for h in hands) + "\n",
        "objects": "\n".join(json.dumps(h, indent=1) for h in hands),
    }[layout].encode()
    batches = read_batches(Format.FPDB, data, chunk_bytes=700, batch_hands=2)
    hand_ids = [h for b in batches for h in b.batch.hands["hand_id"].to_list()]
    assert hand_ids == ["h1", "h2", "h3"]
    assert all(b.batch.problems.is_empty() for b in batches)
    lines = [line for b in batches for line in b.batch.hands["source_line"].to_list()]
    if layout == "one-line list":  # a list on one line: hands are found by byte offset
        assert lines == [m.start() for m in re.finditer(rb'\{"site"', data)]
    else:
        assert lines == [data.count(b"\n", 0, m.start()) + 1
                         for m in re.finditer(rb'\{\s*"site"', data)]


@pytest.mark.parametrize(
    ("flags", "variant"),
    [
        ({"variant": "ofc", "pineapple": False, "deuce_to_seven": False}, "classic"),
        ({"variant": "ofc", "pineapple": True, "deuce_to_seven": False}, "pineapple"),
        ({"variant": "progressive", "pineapple": True}, "progressive"),
        ({"variant": "Ultimate Pineapple"}, "ultimate"),
        ("pineapple", "pineapple"),
    ],
)
def test_variant_flags_map_to_variants(flags: object, variant: str) -> None:
    batch = read_all(Format.FPDB, json.dumps(hand(variant=flags)).encode())
    assert batch.hands["variant"].to_list() == [variant]


def test_swc_deuce_to_seven_hands_are_read_as_the_2_7_variant() -> None:
    # fpdb-3 records SwC's OFC/P 2-7 as variant ofcp_27 with the deuce_to_seven flag.
    lowball = hand("h2", variant={"variant": "ofcp_27", "pineapple": True,
                                  "deuce_to_seven": True})
    flag_only = hand("h3", variant={"variant": "ofc", "pineapple": True,
                                    "deuce_to_seven": "1"})
    data = "\n".join(json.dumps(h) for h in (hand("h1"), lowball, flag_only)).encode()
    batch = read_all(Format.FPDB, data)
    assert batch.hands["variant"].to_list() == ["pineapple", "deuce-to-seven",
                                                "deuce-to-seven"]
    assert batch.problems.is_empty()


def test_inactive_players_and_epoch_timestamps() -> None:
    sitting_out = player("Dwan", 2, "", "", "", active=False)
    batch = read_all(Format.FPDB, json.dumps(hand(
        players=[IVEY, HELLMUTH, sitting_out],
        timestamp=dt.datetime(2026, 3, 1, 19, 15, tzinfo=dt.UTC).timestamp())).encode())
    assert batch.seats["player"].to_list() == ["Ivey", "Hellmuth"]
    row = batch.hands.row(0, named=True)
    assert row["started_at"] == dt.datetime(2026, 3, 1, 19, 15, tzinfo=dt.UTC)
    assert row["utc_offset_minutes"] is None


@pytest.mark.parametrize(
    ("bad", "kind", "reason"),
    [
        (hand("h2", players=[IVEY, {**HELLMUTH, "top": ["Ah", "Kd", "Zz"]}]), "card",
         "bad card 'Zz'"),
        (hand("h2", players=[IVEY, {**HELLMUTH, "top": ["Ah", "Kd", "6s"]}]), "duplicate card",
         "duplicate card 6s"),
        (hand("h2", timestamp="yesterday"), "timestamp", "bad timestamp 'yesterday'"),
        (hand("h2", rounds=[{"round": 1, "player": "Dwan", "placed": {"top": ["2c"]}}]),
         "syntax", "round 1 names 'Dwan', who is not an active player"),
        ('{"site": "PokerStars", "hand_id": "h2" "players": []}', "syntax", "invalid JSON"),
    ],
)
def test_a_bad_hand_in_a_list_is_set_aside(bad: dict[str, object] | str, kind: str,
                                           reason: str) -> None:
    items = [json.dumps(hand("h1"), indent=1), bad if isinstance(bad, str)
             else json.dumps(bad, indent=1), json.dumps(hand("h3"), indent=1)]
    text = "[\n" + ",\n".join(items) + "\n]\n"
    batch = read_all(Format.FPDB, text.encode())
    assert batch.hands["hand_id"].to_list() == ["h1", "h3"]
    line = text.count("\n", 0, text.index(items[1])) + 1
    assert_problem(batch.problems, kind, reason, line=line)
    assert batch.problems.height == 1


def test_a_list_cut_short_is_truncated_and_not_counted() -> None:
    text = json.dumps([hand("h1"), hand("h2")], indent=1)
    cut = text.index('"h2"') + 200
    batches = read_batches(Format.FPDB, text[:cut].encode())
    assert batches[0].batch.hands["hand_id"].to_list() == ["h1"]
    problem = assert_problem(batches[-1].batch.problems, "truncated", "ends inside this hand")
    assert batches[-1].end_offset == text.rindex("{", 0, text.index('"h2"'))
    assert problem["line"] > 1


def test_text_between_hands_is_reported() -> None:
    data = (json.dumps(hand("h1")) + "\n# exported 2026-03-01\n" + json.dumps(hand("h2"))
            + "\n").encode()
    batch = read_all(Format.FPDB, data)
    assert batch.hands["hand_id"].to_list() == ["h1", "h2"]
    assert_problem(batch.problems, "syntax", "text between hands", line=2)


def test_sniff() -> None:
    assert READER.sniff(json.dumps([hand()]).encode()) >= 90
    assert READER.sniff(json.dumps(hand()).encode()) >= 90
    assert READER.sniff(b'{"format": "ofc-hh", "version": 1}') == 0
