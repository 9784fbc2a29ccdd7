"""ofc-stats ingest end to end: real files, real readers, a real Parquet warehouse."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import shutil
import zipfile
import zlib
from pathlib import Path
from typing import Any, cast

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from ofc_stats.engine.boards import CARD_COLUMNS
from ofc_stats.engine.cards import parse_card
from ofc_stats.formats import Format, get_reader, get_writer
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.samples import sample_hands
from ofc_stats.formats.streaming import CHUNK_BYTES
from ofc_stats.ingest import (
    IngestProgress,
    IngestSummary,
    RejectedHandsError,
    UnknownFormatOptionError,
    grouping,
    ingest,
)
from ofc_stats.ingest.commits import COMPACT_SMALL_FILES
from ofc_stats.ingest.dedupe import first_copies
from ofc_stats.ingest.sources import SourceError
from ofc_stats.warehouse import PendingFile, Warehouse
from ofc_stats.warehouse.schemas import (
    HAND_KEYS_SCHEMA,
    HANDS_SCHEMA,
    IMPORTS_SCHEMA,
    PROBLEM_KINDS,
    PROBLEMS_SCHEMA,
    SEATS_SCHEMA,
    STREETS_SCHEMA,
)

IVEY = ("6s 6c 4h", "Td Ts 9c Qs 8c", "3h 3d 3s 2h 2d")
HELLMUTH = ("Ah Kd Qd", "9h 9d 5h 5d 4c", "Ks Js 9s 8s 7s")
SUFFIX = {Format.JSONL: "jsonl", Format.TEXT: "txt", Format.CSV: "csv", Format.FPDB: "json"}
FORMATS_WITH_STREETS = (Format.JSONL, Format.TEXT, Format.FPDB)


def hand(hand_id: str, boards: tuple[tuple[str, str, str], ...] = (IVEY, HELLMUTH),
         names: tuple[str, ...] = ("Ivey", "Hellmuth"), **fields: object) -> dict[str, object]:
    """One native JSON Lines hand (docs/formats.md), as a dict to tamper with."""
    record: dict[str, object] = {
        "format": "ofc-hh", "version": 1, "site": "home", "hand_id": hand_id,
        "table": "kitchen", "started_at": "2026-03-01T20:15:00+01:00", "variant": "pineapple",
        "players": [{"seat": seat + 1, "name": name, "top": board[0], "middle": board[1],
                     "bottom": board[2]}
                    for seat, (name, board) in enumerate(zip(names, boards, strict=True))],
    }
    record.update(fields)
    return record


def lines(*hands: dict[str, object]) -> bytes:
    return "".join(json.dumps(h) + "\n" for h in hands).encode()


def write_hands(path: Path, batch: CanonicalBatch, fmt: Format = Format.JSONL) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as stream:
        get_writer(fmt).write([batch], stream)
    return path


SCHEMAS = {"hands": HANDS_SCHEMA, "seats": SEATS_SCHEMA, "streets": STREETS_SCHEMA,
           "rejects": PROBLEMS_SCHEMA, "imports": IMPORTS_SCHEMA, "hand_keys": HAND_KEYS_SCHEMA}


def table(warehouse: Path, name: str) -> pl.DataFrame:
    return Warehouse.open(warehouse).scan(name, schema=SCHEMAS[name]).collect()


def assert_consistent(warehouse: Path) -> None:
    """What must hold after any ingest, whole or killed: each hand once, indexes agree."""
    hands = table(warehouse, "hands")
    seats = table(warehouse, "seats")
    assert hands.select("site", "hand_id").is_duplicated().sum() == 0
    assert table(warehouse, "hand_keys").height == hands.height
    assert seats.height == int(hands["players"].cast(pl.Int64).sum() or 0)
    assert seats.join(hands, on=["site", "hand_id"], how="anti").is_empty()
    streets = table(warehouse, "streets")
    if not streets.is_empty():
        assert streets.join(hands, on=["site", "hand_id"], how="anti").is_empty()
        assert streets.select("site", "hand_id", "action_order").is_duplicated().sum() == 0
    imports = table(warehouse, "imports")
    if not hands.is_empty():
        per_file = hands.group_by("source_file").len()
        stored = imports.group_by("file").agg(pl.col("hands_stored").sum())
        joined = per_file.join(stored, left_on="source_file", right_on="file", how="left")
        assert (joined["len"] == joined["hands_stored"]).all()


# -- round trips -------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", list(Format))
def test_every_format_round_trips_into_the_warehouse(tmp_path: Path, fmt: Format) -> None:
    batch = sample_hands(300, 3, seed=7, site="room")
    path = write_hands(tmp_path / f"session.{SUFFIX[fmt]}", batch, fmt)
    summary = ingest([path], tmp_path / "wh")  # the format is sniffed
    assert (summary.hands_stored, summary.rejected, summary.conflicts) == (300, 0, 0)
    hands = table(tmp_path / "wh", "hands")
    key = ["site", "hand_id"]
    assert hands.select(*key, "content_hash").sort(key).equals(
        batch.hands.select(*key, "content_hash").sort(key))
    assert (hands["source_file"] == str(path.resolve())).all()
    seats = table(tmp_path / "wh", "seats").select(*key, "seat", "player", *CARD_COLUMNS,
                                                   "in_fantasyland")
    assert seats.sort(*key, "seat").equals(
        batch.seats.select(seats.columns).sort(*key, "seat"))
    if fmt in FORMATS_WITH_STREETS:
        columns = [*key, "seat", "street", "action", "row", "card"]
        assert table(tmp_path / "wh", "streets").select(columns).sort(columns).equals(
            batch.streets.select(columns).sort(columns))
    [row] = table(tmp_path / "wh", "imports").rows(named=True)
    assert (row["format"], row["status"], row["hands_stored"]) == (str(fmt), "complete", 300)
    assert row["end_offset"] == path.stat().st_size
    assert_consistent(tmp_path / "wh")


# -- exactly once --------------------------------------------------------------------------


def test_importing_twice_adds_nothing_and_reads_nothing(tmp_path: Path) -> None:
    path = write_hands(tmp_path / "a.jsonl", sample_hands(200, 3, seed=1))
    first = ingest([tmp_path], tmp_path / "wh")
    before = {name: table(tmp_path / "wh", name) for name in ("hands", "seats", "streets")}
    again = ingest([path], tmp_path / "wh")
    assert (first.hands_stored, first.files_read) == (200, 1)
    assert (again.files_unchanged, again.files_read, again.hands_read) == (1, 0, 0)
    assert (again.commits, again.bytes_read) == (0, 0)
    for name, frame in before.items():
        assert table(tmp_path / "wh", name).equals(frame)


def test_the_same_hands_in_another_file_are_duplicates(tmp_path: Path) -> None:
    batch = sample_hands(150, 3, seed=2)
    write_hands(tmp_path / "in" / "a.jsonl", batch)
    copy = write_hands(tmp_path / "in" / "copy.jsonl", batch)
    summary = ingest([tmp_path / "in"], tmp_path / "wh")
    assert (summary.hands_stored, summary.duplicates, summary.conflicts) == (150, 150, 0)
    assert table(tmp_path / "wh", "hands").height == 150
    imports = table(tmp_path / "wh", "imports")
    assert imports.filter(pl.col("file") == str(copy.resolve()))["duplicates"].to_list() == [
        150]
    assert_consistent(tmp_path / "wh")


def test_hands_twice_in_one_file_are_stored_once_with_their_seats_and_streets(
        tmp_path: Path) -> None:
    batch = sample_hands(300, 3, seed=3)
    once = write_hands(tmp_path / "a.jsonl", batch).read_bytes()
    path = tmp_path / "a.jsonl"
    path.write_bytes(once + once)  # two exports concatenated: every hand twice
    summary = ingest([path], tmp_path / "wh")
    assert (summary.hands_stored, summary.duplicates) == (300, 300)
    assert table(tmp_path / "wh", "seats").height == 900
    streets = table(tmp_path / "wh", "streets")
    columns = ["site", "hand_id", "seat", "street", "action_order", "action", "row", "card"]
    assert streets.select(columns).sort(columns).equals(
        batch.streets.select(columns).sort(columns))
    assert_consistent(tmp_path / "wh")


def placed_streets(*boards: tuple[str, str, str]) -> list[dict[str, object]]:
    """Streets that place each board on the first street (as in Fantasyland)."""
    return [{"street": 1, "seat": seat + 1,
             "placed": {"top": board[0].split(), "middle": board[1].split(),
                        "bottom": board[2].split()}}
            for seat, board in enumerate(boards)]


def test_differing_copies_in_one_batch_keep_the_first_copys_streets(tmp_path: Path) -> None:
    swapped = ("Ah Kd Qd", HELLMUTH[2], HELLMUTH[1])
    path = tmp_path / "a.jsonl"
    path.write_bytes(lines(
        hand("h1", streets=placed_streets(IVEY, HELLMUTH)),
        hand("h1", boards=(IVEY, swapped), streets=placed_streets(IVEY, swapped))))
    summary = ingest([path], tmp_path / "wh")
    assert (summary.hands_stored, summary.conflicts) == (1, 1)
    streets = table(tmp_path / "wh", "streets").filter(pl.col("seat") == 2)
    assert streets.filter(pl.col("row") == "middle")["card"].sort().to_list() == sorted(
        parse_card(card) for card in HELLMUTH[1].split())
    assert table(tmp_path / "wh", "hands")["has_streets"].to_list() == [True]
    assert_consistent(tmp_path / "wh")


def test_copies_that_match_no_first_copy_are_not_stored_half(tmp_path: Path) -> None:
    swapped = ("Ah Kd Qd", HELLMUTH[2], HELLMUTH[1])
    path = tmp_path / "a.jsonl"
    path.write_bytes(lines(hand("h1"), hand("h1", boards=(IVEY, swapped))))
    with open(path, "rb") as stream:
        [read] = list(get_reader(Format.JSONL).read(stream, str(path)))
    batch = read.batch
    first = batch.hands.head(1).with_columns(pl.lit("0" * 32).alias("content_hash"))
    resolved = first_copies(first, batch.seats, batch.streets,
                            batch.hands.select("site", "hand_id"))
    assert resolved.hands.is_empty()  # no seats give that hash: the hand is not stored
    assert resolved.unresolved.rows() == [("home", "h1")]
    assert resolved.seats.is_empty()


def test_copies_whose_streets_cannot_be_told_apart_keep_their_boards(tmp_path: Path) -> None:
    forwards = placed_streets(IVEY, HELLMUTH)
    path = tmp_path / "a.jsonl"
    path.write_bytes(lines(hand("h1", streets=forwards),
                           hand("h1", streets=forwards[::-1])))  # seat 2 acts first
    summary = ingest([path], tmp_path / "wh")
    assert (summary.hands_stored, summary.duplicates, summary.conflicts) == (1, 1, 0)
    assert table(tmp_path / "wh", "hands")["has_streets"].to_list() == [False]
    assert table(tmp_path / "wh", "streets").is_empty()
    assert table(tmp_path / "wh", "seats").height == 2
    message = table(tmp_path / "wh", "imports")["message"].to_list()[-1]
    assert message == ("1 hand stored without streets: copies in one batch could "
                       "not be told apart")


def test_a_changed_hand_is_a_conflict_and_never_overwrites(tmp_path: Path) -> None:
    first = tmp_path / "first.jsonl"
    first.write_bytes(lines(hand("h1"), hand("h2")))
    changed = hand("h1", boards=(IVEY, ("Ah Kd Qd", HELLMUTH[2], HELLMUTH[1])))
    second = tmp_path / "second.jsonl"
    second.write_bytes(lines(hand("h3"), changed))
    ingest([first], tmp_path / "wh")
    summary = ingest([second], tmp_path / "wh")
    assert (summary.hands_stored, summary.conflicts, summary.duplicates) == (1, 1, 0)
    [conflict] = table(tmp_path / "wh", "rejects").rows(named=True)
    assert (conflict["kind"], conflict["file"], conflict["line"]) == (
        "conflict", str(second.resolve()), 2)
    assert (conflict["site"], conflict["hand_id"]) == ("home", "h1")
    assert f"{first.resolve()} line 1" in conflict["reason"]
    assert "Ah Kd Qd" in conflict["raw"]
    stored = table(tmp_path / "wh", "seats").filter(pl.col("hand_id") == "h1")
    assert stored.filter(pl.col("player") == "Hellmuth")["middle"].to_list() == [HELLMUTH[1]]
    assert summary.problem_text() == (
        "1 problem set aside in the warehouse's rejects table (conflict 1)")
    assert_consistent(tmp_path / "wh")


def test_a_conflict_inside_one_file_keeps_the_first_copy_and_its_seats(tmp_path: Path) -> None:
    changed = hand("h1", boards=(("Ah Kd Qd", HELLMUTH[2], HELLMUTH[1]), IVEY),
                   names=("Hellmuth", "Ivey"))
    path = tmp_path / "a.jsonl"
    path.write_bytes(lines(hand("h1"), hand("h2"), changed, hand("h1")))
    summary = ingest([path], tmp_path / "wh")
    assert (summary.hands_stored, summary.conflicts, summary.duplicates) == (2, 1, 1)
    assert summary.hands_read == 4
    seats = table(tmp_path / "wh", "seats").filter(pl.col("hand_id") == "h1").sort("seat")
    assert seats.select("seat", "player", "top").rows() == [
        (1, "Ivey", IVEY[0]), (2, "Hellmuth", HELLMUTH[0])]
    [conflict] = table(tmp_path / "wh", "rejects").rows(named=True)
    assert conflict["line"] == 3
    assert f"{path.resolve()} line 1" in conflict["reason"]
    assert_consistent(tmp_path / "wh")


def scored(hand_id: str, points: tuple[int, int] = (5, -5),
           royalties: tuple[int, int] = (0, 2), **fields: object) -> dict[str, object]:
    """A hand with reported points and royalties, stakes and a button (``fields`` win)."""
    record = hand(hand_id, **{"point_value": "5", "currency": "EUR", "button_seat": 1,
                              **fields})
    players = cast(list[dict[str, object]], record["players"])
    record["players"] = [{**player, "reported_points": point, "reported_royalties": royalty}
                         for player, point, royalty in zip(players, points, royalties,
                                                           strict=True)]
    return record


DETAIL_CHANGES = [
    pytest.param({"points": (6, -6)}, "reported points", id="points"),
    pytest.param({"royalties": (0, 4)}, "reported royalties", id="royalties"),
    pytest.param({"point_value": "50"}, "stakes", id="point value"),
    pytest.param({"currency": "USD"}, "stakes", id="currency"),
    pytest.param({"button_seat": 2}, "button seat", id="button"),
    pytest.param({"points": (6, -6), "point_value": "50", "button_seat": 2},
                 "reported points, stakes and button seat", id="several"),
]


@pytest.mark.parametrize(("changes", "named"), DETAIL_CHANGES)
def test_a_hand_with_changed_details_is_a_conflict_and_never_overwrites(
        tmp_path: Path, changes: dict[str, object], named: str) -> None:
    first = tmp_path / "first.jsonl"
    first.write_bytes(lines(scored("h1"), scored("h2")))
    second = tmp_path / "second.jsonl"
    second.write_bytes(lines(scored("h1", **changes)))
    ingest([first], tmp_path / "wh")
    before = {name: table(tmp_path / "wh", name) for name in ("hands", "seats", "hand_keys")}
    summary = ingest([second], tmp_path / "wh")
    assert (summary.hands_stored, summary.conflicts, summary.duplicates) == (0, 1, 0)
    [conflict] = table(tmp_path / "wh", "rejects").rows(named=True)
    assert (conflict["kind"], conflict["file"], conflict["line"], conflict["hand_id"]) == (
        "conflict", str(second.resolve()), 1, "h1")
    assert conflict["reason"] == (
        f"hand h1 of home was already stored from {first.resolve()} line 1 with the same "
        f"players and boards, but this copy differs from the stored copy in its {named}: "
        "the copy already there was kept")
    for name, frame in before.items():
        assert table(tmp_path / "wh", name).equals(frame)
    assert table(tmp_path / "wh", "imports").sort("commit_id")["conflicts"].to_list() == [0, 1]
    assert_consistent(tmp_path / "wh")


@pytest.mark.parametrize("batch_hands", [100, 1])  # copies in one batch, and in two
@pytest.mark.parametrize(("changes", "named"), DETAIL_CHANGES)
def test_a_hand_with_changed_details_inside_one_file_keeps_the_first_copy(
        tmp_path: Path, changes: dict[str, object], named: str, batch_hands: int) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(lines(scored("h1"), scored("h2"), scored("h1", **changes)))
    summary = ingest([path], tmp_path / "wh", batch_hands=batch_hands)
    assert (summary.hands_stored, summary.conflicts, summary.duplicates) == (2, 1, 0)
    [conflict] = table(tmp_path / "wh", "rejects").rows(named=True)
    verb, kept = ("read", "earlier") if batch_hands > 1 else ("stored", "stored")
    assert (conflict["kind"], conflict["line"]) == ("conflict", 3)
    assert conflict["reason"] == (
        f"hand h1 of home was already {verb} from {path.resolve()} line 1 with the same "
        f"players and boards, but this copy differs from the {kept} copy in its {named}: "
        "the copy already there was kept")
    hands = table(tmp_path / "wh", "hands").filter(pl.col("hand_id") == "h1")
    assert hands.select(pl.col("point_value").cast(pl.String), "currency", "button_seat"
                        ).rows() == [("5.000000", "EUR", 1)]
    seats = table(tmp_path / "wh", "seats").filter(pl.col("hand_id") == "h1").sort("seat")
    assert seats.select("reported_points", "reported_royalties").rows() == [(5, 0), (-5, 2)]
    assert_consistent(tmp_path / "wh")


def csv_copy(*hand_ids: str) -> bytes:
    """Hands as ``scored`` writes them, in a CSV without stakes, button or royalties."""
    rows = ["site,hand_id,started_at,table,variant,seat,player,top,middle,bottom,points"]
    for hand_id in hand_ids:
        for seat, (name, board, points) in enumerate(
                [("Ivey", IVEY, 5), ("Hellmuth", HELLMUTH, -5)], start=1):
            rows.append(f"home,{hand_id},2026-03-01T20:15:00+01:00,kitchen,pineapple,{seat},"
                        f"{name},{','.join(board)},{points}")
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("csv_first", [True, False])
def test_a_hand_in_a_format_without_some_details_is_a_duplicate(
        tmp_path: Path, csv_first: bool) -> None:
    sheet = tmp_path / "in" / "sheet.csv"
    sheet.parent.mkdir()
    sheet.write_bytes(csv_copy("h1", "h2"))
    export = tmp_path / "in" / "export.jsonl"
    export.write_bytes(lines(scored("h1"), scored("h2", point_value="50", button_seat=2)))
    first, second = (sheet, export) if csv_first else (export, sheet)
    assert ingest([first], tmp_path / "wh").hands_stored == 2
    summary = ingest([second], tmp_path / "wh")
    assert (summary.hands_stored, summary.duplicates, summary.conflicts) == (0, 2, 0)
    assert table(tmp_path / "wh", "rejects").is_empty()
    # Points both record are still compared.
    changed = tmp_path / "in" / "changed.jsonl"
    changed.write_bytes(lines(scored("h1", points=(4, -4))))
    summary = ingest([changed], tmp_path / "wh")
    assert (summary.duplicates, summary.conflicts) == (0, 1)
    assert_consistent(tmp_path / "wh")


def test_an_identical_hand_under_another_file_name_is_a_duplicate(tmp_path: Path) -> None:
    record = lines(scored("h1"), scored("h2", point_value="0.25", button_seat=None))
    (tmp_path / "a.jsonl").write_bytes(record)
    (tmp_path / "b.jsonl").write_bytes(record)
    ingest([tmp_path / "a.jsonl"], tmp_path / "wh")
    summary = ingest([tmp_path / "b.jsonl"], tmp_path / "wh")
    assert (summary.hands_stored, summary.duplicates, summary.conflicts) == (0, 2, 0)
    assert_consistent(tmp_path / "wh")


def test_old_hand_keys_without_details_are_rebuilt(tmp_path: Path) -> None:
    first = tmp_path / "first.jsonl"
    first.write_bytes(lines(scored("h1"), scored("h2"), hand("h3")))
    ingest([first], tmp_path / "wh")
    expected = table(tmp_path / "wh", "hand_keys").sort("key")
    warehouse = Warehouse.open(tmp_path / "wh")
    with warehouse.writing():  # as an older ofc-stats wrote it: keys and content only
        old = expected.select("key", "content")
        warehouse.commit([PendingFile("hand_keys", old)], warehouse.files("hand_keys"),
                         action="test")
    second = tmp_path / "second.jsonl"
    second.write_bytes(lines(scored("h1", points=(6, -6)), scored("h2"), hand("h4")))
    summary = ingest([second], tmp_path / "wh")
    assert (summary.hands_stored, summary.duplicates, summary.conflicts) == (1, 1, 1)
    assert "in its reported points:" in table(tmp_path / "wh", "rejects")["reason"][0]
    for path in warehouse.files("hand_keys"):
        assert pl.read_parquet_schema(path) == dict(HAND_KEYS_SCHEMA)
    rebuilt = table(tmp_path / "wh", "hand_keys")
    assert rebuilt.join(expected, on="key", how="semi").sort("key").equals(expected)
    assert_consistent(tmp_path / "wh")


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(st.lists(st.integers(0, 11), max_size=15), min_size=1, max_size=4))
def test_any_spread_of_hands_over_files_is_stored_exactly_once(
        tmp_path_factory: pytest.TempPathFactory, files: list[list[int]]) -> None:
    folder = tmp_path_factory.mktemp("spread")
    pool = write_hands(folder / "pool.jsonl", sample_hands(12, 3, seed=11)).read_bytes()
    pool_lines = pool.splitlines(keepends=True)
    (folder / "pool.jsonl").unlink()
    for number, picks in enumerate(files):
        (folder / "in" / f"{number}.jsonl").parent.mkdir(exist_ok=True)
        (folder / "in" / f"{number}.jsonl").write_bytes(b"".join(pool_lines[i] for i in picks))
    summary = ingest([folder / "in"], folder / "wh")
    unique = {i for picks in files for i in picks}
    total = sum(len(picks) for picks in files)
    assert summary.hands_stored == len(unique)
    assert summary.duplicates == total - len(unique)
    assert summary.hands_read == total
    assert sorted(table(folder / "wh", "hands")["hand_id"].to_list()) == sorted(
        f"11-{i}" for i in unique)
    assert_consistent(folder / "wh")


# -- growing files -----------------------------------------------------------------------


def test_a_growing_file_imports_only_its_new_hands(tmp_path: Path) -> None:
    path = write_hands(tmp_path / "live.jsonl", sample_hands(100, 3, seed=4))
    ingest([path], tmp_path / "wh")
    size = path.stat().st_size
    with open(path, "ab") as stream:
        get_writer(Format.JSONL).write([sample_hands(40, 3, seed=5)], stream)
    summary = ingest([path], tmp_path / "wh")
    assert (summary.hands_read, summary.hands_stored, summary.duplicates) == (40, 40, 0)
    latest = table(tmp_path / "wh", "imports").sort("commit_id").tail(1).row(0, named=True)
    assert (latest["start_offset"], latest["end_offset"]) == (size, path.stat().st_size)
    assert latest["status"] == "complete"
    assert table(tmp_path / "wh", "hands").height == 140
    assert_consistent(tmp_path / "wh")


def test_a_half_written_hand_is_read_once_it_is_complete(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    last = json.dumps(hand("h3")).encode()
    path.write_bytes(lines(hand("h1"), hand("h2")) + last[:40])
    first = ingest([path], tmp_path / "wh")
    assert (first.hands_stored, first.problems_by_kind) == (2, {"truncated": 1})
    path.write_bytes(lines(hand("h1"), hand("h2")) + last + b"\n" + lines(hand("h4")))
    second = ingest([path], tmp_path / "wh")
    assert (second.hands_read, second.hands_stored, second.rejected) == (2, 2, 0)
    assert sorted(table(tmp_path / "wh", "hands")["hand_id"]) == ["h1", "h2", "h3", "h4"]
    assert_consistent(tmp_path / "wh")


def test_a_file_rewritten_since_is_read_again_whole(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(lines(hand("h1"), hand("h2")))
    ingest([path], tmp_path / "wh")
    # The same hands, re-exported with other spacing, and a new one.
    path.write_bytes(b"\n".join(json.dumps(h, indent=None, separators=(",", ":")).encode()
                                for h in (hand("h1"), hand("h2"), hand("h5"))) + b"\n")
    summary = ingest([path], tmp_path / "wh")
    assert (summary.hands_read, summary.hands_stored, summary.duplicates) == (3, 1, 2)
    latest = table(tmp_path / "wh", "imports").sort("commit_id").tail(1).row(0, named=True)
    assert latest["start_offset"] == 0
    assert "changed since the last import" in latest["message"]
    assert_consistent(tmp_path / "wh")


def test_a_file_replaced_by_another_format_is_sniffed_again(tmp_path: Path) -> None:
    path = tmp_path / "export.dat"
    path.write_bytes(lines(hand("h1")))
    assert ingest([path], tmp_path / "wh").hands_stored == 1
    write_hands(path, sample_hands(30, 3, seed=9), Format.TEXT)
    summary = ingest([path], tmp_path / "wh")
    assert (summary.hands_stored, summary.rejected) == (30, 0)
    assert table(tmp_path / "wh", "imports")["format"].to_list() == ["jsonl", "text"]


def test_an_empty_file_waits_for_hands(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    path.write_bytes(b"")
    summary = ingest([path], tmp_path / "wh")
    assert (summary.files_read, summary.rejected, summary.hands_read) == (1, 0, 0)
    path.write_bytes(lines(hand("h1")))
    assert ingest([path], tmp_path / "wh").hands_stored == 1


# -- archives ----------------------------------------------------------------------------


@pytest.mark.parametrize(("suffix", "compress"), [
    ("gz", gzip.compress), ("bz2", bz2.compress), ("xz", lzma.compress)])
def test_compressed_files_are_read_in_place(tmp_path: Path, suffix: str,
                                            compress: object) -> None:
    data = write_hands(tmp_path / "plain.jsonl", sample_hands(120, 3, seed=6)).read_bytes()
    path = tmp_path / "in" / f"day.jsonl.{suffix}"
    path.parent.mkdir()
    path.write_bytes(compress(data))  # type: ignore[operator]
    summary = ingest([tmp_path / "in"], tmp_path / "wh")
    assert (summary.hands_stored, summary.rejected) == (120, 0)
    row = table(tmp_path / "wh", "imports").row(0, named=True)
    assert (row["compression"], row["end_offset"], row["size"]) == (
        {"gz": "gzip", "bz2": "bzip2", "xz": "xz"}[suffix], len(data), path.stat().st_size)
    assert summary.bytes_read == path.stat().st_size
    assert ingest([path], tmp_path / "wh").files_unchanged == 1


def test_every_member_of_a_zip_is_imported(tmp_path: Path) -> None:
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("monday.jsonl", lines(hand("h1"), hand("h2")))
        archive.writestr("week/tuesday.jsonl", lines(hand("h3")))
        archive.writestr("README.jsonl", b"")
    summary = ingest([path], tmp_path / "wh")
    assert (summary.files, summary.hands_stored) == (3, 3)
    hands = table(tmp_path / "wh", "hands").sort("hand_id")
    assert hands["source_file"].to_list() == [
        f"{path.resolve()}!monday.jsonl", f"{path.resolve()}!monday.jsonl",
        f"{path.resolve()}!week/tuesday.jsonl"]
    assert table(tmp_path / "wh", "imports")["member"].sort().to_list() == [
        "README.jsonl", "monday.jsonl", "week/tuesday.jsonl"]
    assert ingest([path], tmp_path / "wh").files_unchanged == 3


def assert_damage_reported(summary: IngestSummary) -> None:
    """One damaged file; besides, the hand the damage cut, if it fell inside one."""
    assert summary.files_failed == 1
    assert summary.problems_by_kind["file"] == 1
    assert set(summary.problems_by_kind) <= {"file", "truncated"}
    assert summary.problems_by_kind.get("truncated", 0) <= 1


def test_a_corrupt_archive_keeps_the_hands_before_the_damage(tmp_path: Path) -> None:
    data = write_hands(tmp_path / "plain.jsonl", sample_hands(5000, 3, seed=8)).read_bytes()
    assert len(data) > 2 * CHUNK_BYTES  # the reader gets whole chunks before the damage
    packed = gzip.compress(data)
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(packed[:len(packed) * 3 // 4])  # a download cut short
    summary = ingest([path], tmp_path / "wh", batch_hands=500)
    assert 0 < summary.hands_stored < 5000
    assert_damage_reported(summary)
    [reject] = table(tmp_path / "wh", "rejects").filter(pl.col("kind") == "file").rows(
        named=True)
    assert reject["reason"].startswith("corrupt gzip archive: ")
    assert (reject["file"], reject["line"]) == (str(path.resolve()), None)
    assert table(tmp_path / "wh", "imports")["status"].to_list()[-1] == "failed"
    again = ingest([path], tmp_path / "wh")  # unchanged: not read, not reported again
    assert (again.files_unchanged, again.rejected) == (1, 0)
    path.write_bytes(packed)  # downloaded again, whole
    whole = ingest([path], tmp_path / "wh")
    assert whole.hands_stored == 5000 - summary.hands_stored
    assert_consistent(tmp_path / "wh")


@pytest.mark.parametrize(("suffix", "pack"), [
    (".gz", gzip.compress), (".bz2", bz2.compress), (".xz", lzma.compress)])
@pytest.mark.parametrize("fmt", [Format.JSONL, Format.TEXT])
def test_damage_in_the_first_chunk_keeps_the_hands_before_it(
        tmp_path: Path, suffix: str, pack: object, fmt: Format) -> None:
    path = tmp_path / f"cut.{fmt.value}"
    data = write_hands(path, sample_hands(800, 3, seed=9), fmt).read_bytes()
    assert len(data) < CHUNK_BYTES  # the whole file is one chunk
    packed = pack(data)  # type: ignore[operator]
    cut = path.with_name(path.name + suffix)
    # (bz2 unpacks whole blocks of 900 kB: the first must be there)
    cut.write_bytes(packed[:len(packed) * 3 // 4])
    path.unlink()
    summary = ingest([cut], tmp_path / "wh", batch_hands=100)
    assert 100 < summary.hands_stored < 800
    assert_damage_reported(summary)
    cut.write_bytes(packed)  # downloaded again, whole
    whole = ingest([cut], tmp_path / "wh")
    assert whole.hands_stored == 800 - summary.hands_stored
    assert whole.rejected == 0
    assert_consistent(tmp_path / "wh")


def test_a_corrupt_zip_is_reported_as_a_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.zip"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    good = tmp_path / "good.jsonl"
    good.write_bytes(lines(hand("h1")))
    summary = ingest([path, good], tmp_path / "wh")
    assert (summary.hands_stored, summary.files_failed) == (1, 1)
    [reject] = table(tmp_path / "wh", "rejects").rows(named=True)
    assert (reject["kind"], reject["file"]) == ("file", str(path.resolve()))
    assert reject["reason"].startswith("corrupt zip archive: ")


# -- rejects -----------------------------------------------------------------------------


BAD_HANDS = [
    (b'{"format": "ofc-hh", "version": 1, "site": "home", "hand_id": "b1"',
     "syntax", "invalid JSON"),
    (json.dumps(hand("b2", version=7)).encode(), "version", "version '7' is not supported"),
    (json.dumps(hand("b3", variant="omaha")).encode(), "variant", "unknown variant 'omaha'"),
    (json.dumps(hand("b4", started_at="yesterday")).encode(), "timestamp",
     "bad timestamp 'yesterday'"),
    (json.dumps(hand("b5", point_value="1,5")).encode(), "money", "bad point value '1,5'"),
    (json.dumps(hand("b6", boards=(IVEY, ("Ah Kd Zz", *HELLMUTH[1:]))))
     .encode(), "card", "bad card 'Zz' (seat 2 top)"),
    (json.dumps(hand("b7", boards=(IVEY, ("Ah Kd 6s", *HELLMUTH[1:])))).encode(),
     "duplicate card", "duplicate card 6s (seat 1 top, seat 2 top)"),
    (json.dumps(hand("b8", boards=(IVEY, (HELLMUTH[0], HELLMUTH[1] + " 2c", HELLMUTH[2]))))
     .encode(), "row size", "wrong row size: seat 2 middle has 6 cards (holds 5)"),
    (json.dumps(hand("b9", names=("Ivey", "Ivey"))).encode(), "seat",
     "the same player in two seats"),
    (json.dumps({k: v for k, v in hand("b10").items() if k != "table"}).encode(),
     "missing field", "missing table"),
    (json.dumps(hand("b11")).encode().replace(b"kitchen", b"kitch\xff\xfen"), "encoding", ""),
]


def test_every_bad_hand_is_set_aside_with_its_reason_and_the_rest_imports(
        tmp_path: Path) -> None:
    parts = [json.dumps(hand("g0")).encode()]
    for number, (raw, _, _) in enumerate(BAD_HANDS):
        parts += [raw, json.dumps(hand(f"g{number + 1}")).encode()]
    truncated = json.dumps(hand("b12")).encode()[:50]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(parts) + b"\n" + truncated)
    (tmp_path / "notes.jsonl").write_bytes(b"these are my notes, not hands\n")
    summary = ingest([path, tmp_path / "notes.jsonl"], tmp_path / "wh")
    assert summary.hands_stored == len(BAD_HANDS) + 1
    assert sorted(table(tmp_path / "wh", "hands")["hand_id"]) == sorted(
        f"g{n}" for n in range(len(BAD_HANDS) + 1))
    rejects = table(tmp_path / "wh", "rejects")
    assert set(rejects["kind"]) <= set(PROBLEM_KINDS)
    by_line = {row["line"]: row for row in rejects.rows(named=True)}
    for number, (raw, kind, reason) in enumerate(BAD_HANDS):
        row = by_line[2 * number + 2]
        assert (row["kind"], row["file"]) == (kind, str(path.resolve())), row
        assert reason in row["reason"], row
        # The source text as it was (an undecodable byte shows as "?").
        assert row["raw"] == raw.decode(errors="replace").replace("\ufffd", "?"), row
    tail = by_line[2 * len(BAD_HANDS) + 2]
    assert (tail["kind"], tail["raw"]) == ("truncated", truncated.decode())
    [notes] = rejects.filter(pl.col("kind") == "format").rows(named=True)
    assert notes["file"] == str((tmp_path / "notes.jsonl").resolve())
    assert "not a hand history" in notes["reason"]
    assert summary.rejected == len(BAD_HANDS) + 2
    assert summary.problems_by_kind["format"] == 1
    again = ingest([path, tmp_path / "notes.jsonl"], tmp_path / "wh")
    assert (again.files_unchanged, again.rejected) == (2, 0)


def test_strict_mode_raises_after_storing_the_good_hands(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(lines(hand("h1"), hand("h2", variant="omaha")))
    with pytest.raises(RejectedHandsError, match=r"1 problem set aside .*variant 1") as caught:
        ingest([path], tmp_path / "wh", strict=True)
    assert caught.value.summary.hands_stored == 1
    assert caught.value.exit_code == 4
    assert table(tmp_path / "wh", "hands")["hand_id"].to_list() == ["h1"]


def test_user_errors_are_specific(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file or folder"):
        ingest([tmp_path / "missing.jsonl"], tmp_path / "wh")
    with pytest.raises(UnknownFormatOptionError, match="unknown format 'xml'"):
        ingest([tmp_path], tmp_path / "wh", fmt="xml")


def test_a_forced_format_reads_what_sniffing_cannot(tmp_path: Path) -> None:
    path = tmp_path / "export.dat"
    path.write_bytes(b"\n\n" + lines(hand("h1")))
    forced = ingest([path], tmp_path / "wh", fmt="jsonl")
    assert (forced.hands_stored, forced.rejected) == (1, 0)
    assert table(tmp_path / "wh", "imports")["format"].to_list() == ["jsonl"]


def test_a_wrong_forced_format_does_not_stick_to_the_file(tmp_path: Path) -> None:
    path = write_hands(tmp_path / "in" / "h.jsonl", sample_hands(20, 2, seed=3))
    wrong = ingest([path], tmp_path / "wh", fmt="text")
    assert (wrong.hands_stored, wrong.rejected > 0) == (0, True)
    right = ingest([path], tmp_path / "wh")  # auto: the head says JSON Lines
    assert (right.files_read, right.hands_stored, right.rejected) == (1, 20, 0)
    again = ingest([path], tmp_path / "wh")
    assert (again.files_unchanged, again.hands_stored) == (1, 0)
    # A file of bad hands in the format it looks like is not read again and again.
    bad = tmp_path / "in" / "bad.jsonl"
    bad.write_text('{"hand_id": "x"}\n')
    assert ingest([bad], tmp_path / "wh").rejected == 1
    assert ingest([bad], tmp_path / "wh").files_unchanged == 1


# -- progress, compaction ----------------------------------------------------------------


def test_an_interrupted_ingest_keeps_whole_commits_and_resumes(tmp_path: Path) -> None:
    for number in range(4):
        write_hands(tmp_path / "in" / f"{number}.jsonl", sample_hands(300, 3, seed=30 + number))
    calls = 0

    def interrupt(progress: IngestProgress) -> None:
        nonlocal calls
        calls += 1
        if calls == 12:  # Ctrl-C in the middle of the second file
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest([tmp_path / "in"], tmp_path / "wh", progress=interrupt, commit_hands=100,
               batch_hands=50)
    assert_consistent(tmp_path / "wh")
    stored = table(tmp_path / "wh", "hands").height
    assert 0 < stored < 1200
    summary = ingest([tmp_path / "in"], tmp_path / "wh")
    assert (summary.hands_stored, summary.duplicates) == (1200 - stored, 0)
    assert_consistent(tmp_path / "wh")


def test_progress_reports_files_bytes_and_hands(tmp_path: Path) -> None:
    for number in range(3):
        write_hands(tmp_path / "in" / f"{number}.jsonl", sample_hands(50, 3, seed=20 + number))
    seen: list[IngestProgress] = []
    summary = ingest([tmp_path / "in"], tmp_path / "wh", progress=seen.append)
    assert seen[-1].files_done == seen[-1].files_total == 3
    assert seen[-1].bytes_done == seen[-1].bytes_total == summary.bytes_read
    assert seen[-1].hands_read == 150
    assert [p.hands_read for p in seen] == sorted(p.hands_read for p in seen)


def test_many_small_commits_are_compacted(tmp_path: Path) -> None:
    for number in range(COMPACT_SMALL_FILES + 2):
        (tmp_path / "in" / f"{number:02d}.jsonl").parent.mkdir(exist_ok=True)
        (tmp_path / "in" / f"{number:02d}.jsonl").write_bytes(lines(hand(f"h{number}")))
    # One hand a batch (small files are otherwise parsed together) and a commit each.
    summary = ingest([tmp_path / "in"], tmp_path / "wh", commit_hands=1, batch_hands=1)
    assert summary.commits >= COMPACT_SMALL_FILES + 2
    assert summary.files_compacted > 0
    warehouse = Warehouse.open(tmp_path / "wh")
    assert len(warehouse.files("hands")) == 1
    assert len(warehouse.files("imports")) == 1
    assert table(tmp_path / "wh", "hands").height == COMPACT_SMALL_FILES + 2
    assert_consistent(tmp_path / "wh")


def test_the_summary_reads_well_and_serialises(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(lines(hand("h1"), hand("h2", variant="omaha")))
    summary = ingest([path], tmp_path / "wh")
    text = summary.report()
    assert text.startswith("ingested 1 file (1 read, 0 unchanged) into ")
    assert "  1 good hand read: 1 stored, 0 duplicates, 0 conflicts; 1 broken hand set aside\n" in (
        text)
    assert text.endswith(" MB read, 1 commit)")
    values = json.loads(json.dumps(summary.as_dict()))
    assert values["problems_by_kind"] == {"variant": 1}
    assert set(values) >= {f for f in IngestSummary.__dataclass_fields__} | {
        "hands_per_second", "megabytes_per_second"}


def test_a_warehouse_missing_its_keys_is_reindexed(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(lines(hand("h1"), hand("h2")))
    ingest([path], tmp_path / "wh")
    warehouse = Warehouse.open(tmp_path / "wh")
    with warehouse.writing():  # as if hands had been written by an older tool
        warehouse.commit([], [f for f in warehouse.files("hand_keys")], action="test")
    copy = tmp_path / "b.jsonl"
    copy.write_bytes(lines(hand("h2"), hand("h3")))
    summary = ingest([copy], tmp_path / "wh")
    assert (summary.hands_stored, summary.duplicates) == (1, 1)
    assert_consistent(tmp_path / "wh")


def test_a_log_file_left_half_written_by_a_kill_is_not_a_commit(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(lines(hand("h1")))
    ingest([path], tmp_path / "wh")
    # Killed between writing the next commit's log file and renaming it into place.
    (tmp_path / "wh" / "_log" / ".tmp-0123abcd-000000000002.json").write_text('{"id": 2, "ad')
    assert table(tmp_path / "wh", "hands").height == 1  # readers are not disturbed
    other = tmp_path / "b.jsonl"
    other.write_bytes(lines(hand("h2")))
    assert ingest([other], tmp_path / "wh").hands_stored == 1
    assert not list((tmp_path / "wh" / "_log").glob(".tmp-*"))
    assert table(tmp_path / "wh", "hands").height == 2


def test_small_files_parsed_together_store_and_reject_what_one_by_one_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ofc_stats.ingest import run as ingest_module
    from ofc_stats.simulate import SimulationConfig, parse_faults
    from ofc_stats.simulate.files import write_simulation

    # Small session files in both formats, with damage of every kind a file can carry,
    # hands copied within and across files, a gzipped file and a zip of members.
    config = SimulationConfig(seed=11, hands=800, tables=40, faults=parse_faults(
        "corrupt-card=3,broken-line=3,truncated=2,duplicate-in-file=2,"
        "duplicate-across-files=3,mis-scored=2"))
    folder = tmp_path / "in"
    written = write_simulation(config, folder, list(Format))
    (folder / "copy.jsonl").write_bytes((folder / written.files[0]).read_bytes())
    (folder / "packed.jsonl.gz").write_bytes(
        gzip.compress(lines(hand("packed-1"), hand("packed-2"))))
    with zipfile.ZipFile(folder / "month.zip", "w") as archive:
        for number, name in enumerate(written.files[:3]):
            archive.writestr(f"sessions/{number}-{name}", (folder / name).read_bytes())
        archive.writestr("sessions/extra.jsonl", lines(hand("zipped-1")))
    # The first copy in file order is kept, whatever the formats in between.
    write_hands(folder / "x" / "order-a.jsonl", sample_hands(2, 2, seed=20, site="other"))
    first = sample_hands(3, 2, seed=21, site="order")
    write_hands(folder / "x" / "order-b.txt", first, Format.TEXT)
    other = sample_hands(3, 2, seed=22, site="order")
    same_ids = dict(zip(other.hands["hand_id"], first.hands["hand_id"], strict=True))
    write_hands(folder / "x" / "order-c.jsonl", CanonicalBatch(
        *(frame.with_columns(pl.col("hand_id").replace_strict(same_ids))
          for frame in (other.hands, other.seats, other.streets)), other.problems))
    # The same hand in two files, its street actions listed in another order.
    copies = sample_hands(5, 3, seed=23, site="copies")
    write_hands(folder / "x" / "twice-a.jsonl", copies)
    [record] = [json.loads(line) for line in write_hands(
        tmp_path / "one.jsonl", copies.with_hands(copies.hands[2:3])).read_text().splitlines()]
    record["streets"] = sorted(record["streets"], key=lambda e: (e["street"], -e["seat"]))
    (folder / "x" / "twice-b.jsonl").write_bytes(lines(record))
    # A line no layout fits, inside a text hand: the reason names its line in its file.
    text = write_hands(tmp_path / "t.txt", sample_hands(3, 2, seed=24, site="garbled"),
                       Format.TEXT).read_text().split("\n")
    (folder / "x" / "garbled.txt").write_text("\n".join([*text[:30], "GARBAGE LINE", *text[30:]]))
    # Sheets: each file read by its own header (order, separator, width), a sheet
    # without the required columns, a hand whose rows are split within its file, a row
    # wider than its header, and a hand copied into a second sheet.
    sheet = [
        "Player;Hand ID;Time;Top;Middle;Bottom;Points",
        "ivey;s-1;2026-03-01 20:00;Ah Ad 2c;Kh Kd Ks 2d 3d;Qh Qd Qs Qc 4d;6",
        "phil;s-1;2026-03-01 20:00;3c 4c 5c;6h 7h 8h 9s Jd;Tc Td Th 2h 2s;-6",
        "ivey;s-2;2026-03-01 20:01;Ah Ad 2c;Kh Kd Ks 2d 3d;Qh Qd Qs Qc 4d;0",
        "phil;s-3;2026-03-01 20:02;3c 4c 5c;6h 7h 8h 9s Jd;Tc Td Th 2h 2s;0",
        "ivey;s-3;2026-03-01 20:02;Ah Ad 2c;Kh Kd Ks 2d 3d;Qh Qd Qs Qc 4d;0",
        "phil;s-2;2026-03-01 20:01;3c 4c 5c;6h 7h 8h 9s Jd;Tc Td Th 2h 2s;0",
        "ivey;s-4;2026-03-01 20:03;Ah Ad 2c;Kh Kd Ks 2d 3d;Qh Qd Qs Qc 4d;0;extra",
        "phil;s-4;2026-03-01 20:03;3c 4c 5c;6h 7h 8h 9s Jd;Tc Td Th 2h 2s;0",
    ]
    (folder / "x" / "sheet-a.csv").write_text("\n".join(sheet) + "\n")
    (folder / "x" / "sheet-b.csv").write_text(
        "top,bottom,middle,started_at,hand_id,player\n"
        "Ah Ad 2c,Qh Qd Qs Qc 4d,Kh Kd Ks 2d 3d,2026-03-01 20:00,s-1,ivey\n"
        "3c 4c 5c,Tc Td Th 2h 2s,6h 7h 8h 9s Jd,2026-03-01 20:00,s-1,phil\n"
        "Ah Ad 2c,Qh Qd Qs Qc 4d,Kh Kd Ks 2d 3d,2026-03-01 20:05,s-5,ivey\n"
        "3c 4c 5c,Tc Td Th 2h 2s,6h 7h 8h 9s Jd,2026-03-01 20:05,s-5,phil\n")
    (folder / "x" / "sheet-c.csv").write_text(
        "hand_id,started_at,player,top,middle,bottom\n"
        "s-6,2026-03-01 20:06,ivey,Ah Ad 2c,Kh Kd Ks 2d 3d,Qh Qd Qs Qc 4d\n"
        "s-6,2026-03-01 20:06,phil,3c 4c 5c,6h 7h 8h 9s Jd,Tc Td Th 2h 2s\n")
    (folder / "x" / "no-cards.csv").write_text(
        "hand_id,started_at,player,notes\ns-9,2026-03-01 20:09,ivey,lost the sheet\n")
    # Read as a sheet (every required name is there) but split on ';': no columns.
    (folder / "x" / "semicolons.csv").write_text(
        "hand_id,started_at,player,top,middle,bottom;notes;a;b;c;d;e\ns-8,x,y,z,w,v;1;2\n")
    # A blank line after the header, and a first row wider than the header.
    ivey, phil = (line.split(",", 1)[1] for line in (
        "x,2026-03-01 20:07,ivey,Ah Ad 2c,Kh Kd Ks 2d 3d,Qh Qd Qs Qc 4d",
        "x,2026-03-01 20:07,phil,3c 4c 5c,6h 7h 8h 9s Jd,Tc Td Th 2h 2s"))
    header = "hand_id,started_at,player,top,middle,bottom\n"
    (folder / "x" / "sheet-d.csv").write_text(
        f"{header}\ns-7,{ivey}\ns-7,{phil}\n")
    (folder / "x" / "sheet-e.csv").write_text(
        f"{header}s-10,{ivey},extra\ns-10,{phil}\ns-11,{ivey}\ns-11,{phil}\n")
    (folder / "x" / "opened.csv").write_text(header)  # a session's sheet, no hand yet
    # fpdb exports as a pretty list, a list on one line (hands told by byte offset)
    # and one object, beside the JSON Lines the simulator writes.
    from tests.test_formats_fpdb import hand as fpdb_hand

    (folder / "x" / "fpdb-list.json").write_text(
        json.dumps([fpdb_hand("f-1"), fpdb_hand("f-2")], indent=2))
    (folder / "x" / "fpdb-line.json").write_text(
        json.dumps([fpdb_hand("f-3"), fpdb_hand("f-4", timestamp="yesterday")]))
    (folder / "x" / "fpdb-one.json").write_text(json.dumps(fpdb_hand("f-5"), indent=1))
    # Damage inside the first hand of a small archive: nothing read, the file reported.
    long_line = lines({**hand("cut-1"), "notes": " ".join(f"{i:x}" for i in range(60_000))})
    (folder / "x" / "cut-first.jsonl.gz").write_bytes(gzip.compress(long_line)[:60_000])
    files = len(written.files) + 2 + 4 + 6 + 4 + 3 + 4 + 1

    groups: dict[str, list[int]] = {}
    for fmt in Format:
        reader_class = type(get_reader(fmt))
        parse_files = reader_class.parse_files

        def counted(self: Any, files: list[object], real: Any = parse_files) -> object:
            groups.setdefault(self.format, []).append(len(files))
            return real(self, files)

        monkeypatch.setattr(reader_class, "parse_files", counted)
    alone_reads: list[str] = []
    read_alone = ingest_module._Ingestion._read

    def counted_read(self: Any, run: Any, *args: Any) -> None:
        alone_reads.append(run.source.name)
        read_alone(self, run, *args)

    monkeypatch.setattr(ingest_module._Ingestion, "_read", counted_read)
    grouped = ingest([folder], tmp_path / "grouped")
    # Each format's files are parsed together, and none is read alone.
    assert {fmt: max(sizes) > 5 for fmt, sizes in groups.items()} == dict.fromkeys(Format, True)
    assert alone_reads == []  # again alone (copies across files are parsed in rounds)
    # Many small groups: each parsed on a thread while the next is split.
    groups.clear()
    many = ingest([folder], tmp_path / "many", batch_hands=60)
    assert sum(len(sizes) for sizes in groups.values()) > 10
    monkeypatch.setattr(grouping, "SMALL_FILE_BYTES", 0)  # every file alone
    alone = ingest([folder], tmp_path / "alone")

    assert grouped.files_read == alone.files_read == many.files_read == files
    for count in ("hands_read", "hands_stored", "duplicates", "conflicts", "rejected"):
        assert getattr(grouped, count) == getattr(alone, count) == getattr(many, count), count
    assert grouped.rejected > 0
    assert grouped.duplicates > 0
    assert dict(grouped.problems_by_kind) == dict(alone.problems_by_kind)
    assert dict(many.problems_by_kind) == dict(alone.problems_by_kind)
    ignore = ["import_id", "commit_id", "imported_at"]
    for name in ("hands", "seats", "streets", "rejects", "imports", "hand_keys"):
        frames = [table(tmp_path / wh, name).drop(ignore, strict=False)
                  for wh in ("grouped", "alone", "many")]
        sorted_frames = [frame.sort(frame.columns, nulls_last=True) for frame in frames]
        assert_frame_equal(sorted_frames[0], sorted_frames[1])
        assert_frame_equal(sorted_frames[2], sorted_frames[1])
    hands = table(tmp_path / "grouped", "hands")
    order = hands.filter(pl.col("site") == "order")["source_file"]
    assert (order.len(), order.str.ends_with("order-b.txt").all()) == (3, True)
    twice = hands.filter(pl.col("site") == "copies")
    assert twice["has_streets"].all()
    assert table(tmp_path / "grouped", "streets").filter(
        pl.col("site") == "copies").height == copies.streets.height
    [garbled] = table(tmp_path / "grouped", "rejects").filter(
        pl.col("file").str.ends_with("garbled.txt")).rows(named=True)
    assert garbled["reason"].startswith("line 31: cannot read 'GARBAGE LINE'")
    sheets = table(tmp_path / "grouped", "rejects").filter(
        pl.col("file").str.contains("/x/(sheet|no-cards|opened)")).sort("file", "line")
    # A sheet without the card columns is not read as one; a hand whose rows are split
    # is set aside (its first run, alone, is one player short), and so is a row wider
    # than its header: each with its own file and line.
    assert sheets.select(pl.col("file").str.extract(r"([a-z-]+)\.csv$"), "line",
                         "hand_id", "kind", "reason").rows() == [
        ("no-cards", None, None, "format", sheets["reason"][0]),
        ("sheet-a", 4, "s-2", "players", "1 players in a pineapple hand (allowed 2-3)"),
        ("sheet-a", 7, "s-2", "syntax", "this hand's rows continue after other hands' rows "
         "(a hand's rows must be together)"),
        ("sheet-a", 8, "s-4", "syntax", "line 8: 8 fields but the header has 7"),
        ("sheet-e", 2, "s-10", "syntax", "line 2: 7 fields but the header has 6"),
    ]
    sheet_hands = hands.filter(pl.col("source_file").str.contains("/x/sheet")).sort("hand_id")
    assert sheet_hands.select(pl.col("source_file").str.extract(r"([a-z-]+)\.csv$"),
                              "hand_id", "source_line").rows() == [
        ("sheet-a", "s-1", 2), ("sheet-e", "s-11", 4), ("sheet-a", "s-3", 5),
        ("sheet-b", "s-5", 4), ("sheet-c", "s-6", 2), ("sheet-d", "s-7", 3)]
    [semicolons] = table(tmp_path / "grouped", "rejects").filter(
        pl.col("file").str.ends_with("semicolons.csv")).rows(named=True)
    assert (semicolons["kind"], semicolons["line"]) == ("missing field", 1)
    fpdb_hands = hands.filter(pl.col("source_file").str.contains("/x/fpdb")).sort("hand_id")
    pretty = (folder / "x" / "fpdb-list.json").read_text()
    second = pretty.count("\n", 0, pretty.index('{\n    "site"', 10)) + 1
    assert fpdb_hands.select(pl.col("source_file").str.extract(r"(fpdb-[a-z]+)\.json$"),
                             "hand_id", "source_line").rows() == [
        ("fpdb-list", "f-1", 2), ("fpdb-list", "f-2", second), ("fpdb-line", "f-3", 1),
        ("fpdb-one", "f-5", 1)]
    [bad_time] = table(tmp_path / "grouped", "rejects").filter(
        pl.col("hand_id") == "f-4").rows(named=True)
    line_list = (folder / "x" / "fpdb-line.json").read_text()
    assert (bad_time["file"].endswith("fpdb-line.json"), bad_time["kind"],
            bad_time["line"]) == (True, "timestamp", line_list.index('{"site"', 2))
    # s-1 in sheet-b is the same hand, its columns in another order: a duplicate.
    assert table(tmp_path / "grouped", "rejects").filter(
        pl.col("hand_id") == "s-1").is_empty()
    imports = table(tmp_path / "grouped", "imports")
    assert imports["file"].n_unique() == grouped.files_read  # a manifest row each
    assert_consistent(tmp_path / "grouped")
    # A file grows: only its new hand is read, from where the grouped import ended.
    clean = imports.filter((pl.col("rejected") == 0) & pl.col("file").str.ends_with(".jsonl")
                           & (pl.col("hands_stored") > 0))["file"][0]
    with open(clean, "ab") as stream:
        stream.write(lines(hand("grown-1")))
    again = ingest([folder], tmp_path / "grouped")
    assert (again.files_read, again.hands_read, again.hands_stored) == (1, 1, 1)
    [row] = table(tmp_path / "grouped", "imports").filter(
        (pl.col("file") == clean) & (pl.col("start_offset") > 0)).rows(named=True)
    assert row["end_offset"] == Path(clean).stat().st_size


@pytest.mark.parametrize("alone", [False, True])
def test_a_sheet_holding_only_its_header_is_read_again_once_rows_arrive(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alone: bool) -> None:
    if alone:
        monkeypatch.setattr(grouping, "SMALL_FILE_BYTES", 0)
    sheet = tmp_path / "in" / "session.csv"
    sheet.parent.mkdir()
    sheet.write_text("hand_id,started_at,player,top,middle,bottom\n")  # just opened
    first = ingest([sheet.parent], tmp_path / "wh")
    assert (first.files_read, first.hands_read, first.rejected) == (1, 0, 0)
    [row] = table(tmp_path / "wh", "imports").rows(named=True)
    assert (row["status"], row["end_offset"]) == ("complete", sheet.stat().st_size)
    with open(sheet, "a") as stream:
        stream.write("h1,2026-03-01 20:00,ivey,Ah Ad 2c,Kh Kd Ks 2d 3d,Qh Qd Qs Qc 4d\n"
                     "h1,2026-03-01 20:00,phil,3c 4c 5c,6h 7h 8h 9s Jd,Tc Td Th 2h 2s\n")
    grown = ingest([sheet.parent], tmp_path / "wh")
    assert (grown.hands_stored, grown.rejected) == (1, 0)
    assert table(tmp_path / "wh", "seats")["player"].to_list() == ["ivey", "phil"]


@pytest.mark.parametrize("alone", [False, True])
def test_a_small_damaged_archive_keeps_every_hand_before_the_damage(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alone: bool) -> None:
    from ofc_stats.ingest import run as ingest_module

    if alone:  # read by itself, in batches, rather than parsed with other small files
        monkeypatch.setattr(grouping, "SMALL_FILE_BYTES", 0)
    data = write_hands(tmp_path / "plain.jsonl", sample_hands(60, 3, seed=5)).read_bytes()
    packed = gzip.compress(data)
    assert len(packed) * 16 < ingest_module.READ_BATCH_HANDS * 100  # small, one batch
    cut = tmp_path / "in" / "cut.jsonl.gz"
    cut.parent.mkdir()
    cut.write_bytes(packed[:len(packed) * 3 // 4])
    # Every line gzip can unpack from the part that is there is a whole hand.
    complete = zlib.decompressobj(31).decompress(cut.read_bytes()).count(b"\n")
    (tmp_path / "in" / "good.jsonl").write_bytes(lines(hand("good-1")))
    summary = ingest([tmp_path / "in"], tmp_path / "wh")
    kept = summary.hands_stored - 1
    assert 0 < kept == complete < 60
    assert_damage_reported(summary)
    [reject] = table(tmp_path / "wh", "rejects").filter(pl.col("kind") == "file").rows(
        named=True)
    assert reject["reason"].startswith("corrupt gzip archive: ")
    assert "(after byte " in reject["reason"]
    cut.write_bytes(packed)  # downloaded again, whole
    whole = ingest([tmp_path / "in"], tmp_path / "wh")
    assert (whole.hands_stored, whole.rejected) == (60 - kept, 0)
    assert_consistent(tmp_path / "wh")


def test_an_upgrade_with_nothing_new_still_refreshes_the_duckdb_file(tmp_path: Path) -> None:
    import duckdb

    from tests.builders import to_nested_board_layout

    path = write_hands(tmp_path / "a.jsonl", sample_hands(20, 3, seed=3))
    ingest([path], tmp_path / "wh")
    to_nested_board_layout(Warehouse.open(tmp_path / "wh"))
    assert ingest([path], tmp_path / "wh").commits == 0  # nothing new; seats rewritten
    ingest([path], tmp_path / "wh")  # the next writer deletes the old files
    with duckdb.connect(str(tmp_path / "wh" / "ofc.duckdb"), read_only=True) as connection:
        assert connection.execute("SELECT count(*) FROM seats").fetchone() == (60,)


def test_a_moved_warehouse_or_a_missed_refresh_gets_a_fresh_duckdb_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import duckdb

    from ofc_stats.ingest import run as ingest_run
    from ofc_stats.warehouse import catalog

    def hands_in_database(root: Path) -> object:
        with duckdb.connect(str(root / "ofc.duckdb"), read_only=True) as connection:
            return connection.execute("SELECT count(*) FROM hands").fetchone()

    path = write_hands(tmp_path / "a.jsonl", sample_hands(20, 3, seed=4))
    ingest([path], tmp_path / "wh")
    # ofc.duckdb names its files by absolute path: moved, its views find nothing ...
    shutil.move(tmp_path / "wh", tmp_path / "moved")
    with pytest.raises(duckdb.IOException):
        hands_in_database(tmp_path / "moved")
    assert not catalog.database_is_current(Warehouse.open(tmp_path / "moved"))
    # ... until the next run, even one with nothing new.
    assert ingest([path], tmp_path / "moved").commits == 0
    assert hands_in_database(tmp_path / "moved") == (20,)
    assert catalog.database_is_current(Warehouse.open(tmp_path / "moved"))
    # A run killed between its commit and the refresh: the next run refreshes.
    monkeypatch.setattr(ingest_run, "refresh_database", lambda warehouse: None)
    ingest([write_hands(tmp_path / "b.jsonl", sample_hands(5, 3, seed=5))], tmp_path / "moved")
    assert hands_in_database(tmp_path / "moved") == (20,)
    monkeypatch.undo()
    assert ingest([tmp_path / "b.jsonl"], tmp_path / "moved").commits == 0
    assert hands_in_database(tmp_path / "moved") == (25,)


def test_a_file_with_more_than_a_batch_of_hands_is_read_in_batches_not_grouped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ofc_stats.formats.jsonl import JsonLinesReader

    split_hands: list[int] = []
    split_file = JsonLinesReader.split_file

    def counted(self: JsonLinesReader, *args: Any, **options: Any) -> Any:
        split = split_file(self, *args, **options)
        split_hands.append(split.hands)
        return split

    monkeypatch.setattr(JsonLinesReader, "split_file", counted)
    write_hands(tmp_path / "in" / "small.jsonl", sample_hands(20, 3, seed=30))
    write_hands(tmp_path / "in" / "big.jsonl", sample_hands(400, 3, seed=31))
    summary = ingest([tmp_path / "in"], tmp_path / "wh", batch_hands=50)
    assert summary.hands_stored == 420
    # The big file's split stopped just past a batch, and it was read in batches.
    assert sorted(split_hands)[0] == 20
    assert 50 < sorted(split_hands)[1] < 400
    assert_consistent(tmp_path / "wh")
