"""A simulation written to real files, read back by the real readers."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from ofc_stats.formats import Format, get_reader
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.simulate import FaultKind, Simulation, SimulationConfig, parse_faults
from ofc_stats.simulate.files import (
    FAULTS_FILE,
    WrittenSimulation,
    read_faults,
    simulation_in,
    write_simulation,
)

# Formats whose reader and writer exist (another developer is adding them).
AVAILABLE = [fmt for fmt in Format
             if importlib.util.find_spec(f"ofc_stats.formats.{fmt.value}") is not None]
# A spreadsheet row holds a player's final board, not the streets.
WITHOUT_STREETS = {Format.CSV}
# Hand fields fpdb-3's hand object has no place for: read back as null (or as written;
# times are in UTC there).
NOT_CARRIED = {Format.FPDB: ("ruleset", "button_seat", "point_value", "currency")}
FILE_KINDS = (FaultKind.CORRUPT_CARD, FaultKind.BROKEN_LINE, FaultKind.TRUNCATED,
              FaultKind.DUPLICATE_IN_FILE, FaultKind.DUPLICATE_ACROSS_FILES)


def read_folder(folder: Path, names: tuple[str, ...]) -> CanonicalBatch:
    batches = []
    for name in names:
        reader = get_reader(Format.JSONL if name.endswith(".jsonl") else
                            {".txt": Format.TEXT, ".csv": Format.CSV,
                             ".json": Format.FPDB}[Path(name).suffix])
        with (folder / name).open("rb") as stream:
            batches.extend(read.batch for read in reader.read(stream, name))
    return CanonicalBatch.concat(batches)


def test_jsonl_is_available() -> None:
    assert Format.JSONL in AVAILABLE


@pytest.mark.parametrize("fmt", AVAILABLE)
def test_round_trip_through_writer_and_reader(tmp_path: Path, fmt: Format) -> None:
    config = SimulationConfig(seed=4, hands=600, tables=4)
    written = write_simulation(config, tmp_path, fmt)
    assert written.hands == 600
    assert len(written.files) == 4
    read = read_folder(tmp_path, written.files)
    assert read.problems.is_empty(), read.problems
    # fpdb-3 tells no Progressive or Ultimate from Pineapple: those tables are dealt
    # Pineapple there (no other format was at hand).
    simulation, _ = simulation_in(config, [fmt])
    assert ({table.variant for table in simulation.tables} & {"progressive", "ultimate"}
            == (set() if fmt is Format.FPDB else {"progressive", "ultimate"}))
    simulated = CanonicalBatch.concat(list(simulation))
    if fmt in WITHOUT_STREETS:
        simulated = CanonicalBatch(
            simulated.hands.with_columns(has_streets=False), simulated.seats,
            simulated.streets.clear(), simulated.problems)
    source = ["source_file", "source_line"]
    key = ["site", "hand_id"]
    if fmt in NOT_CARRIED:  # fields left out: so is the hash covering them
        source.extend(["content_hash", "utc_offset_minutes"])
    expected_hands = simulated.hands.drop(source).sort(key)
    read_hands = read.hands.drop(source).sort(key)
    missing = NOT_CARRIED.get(fmt, ())
    if missing:
        expected_hands = expected_hands.with_columns(
            pl.when(read_hands[name].is_null()).then(None).otherwise(pl.col(name)).alias(name)
            for name in missing)
    assert_frame_equal(read_hands, expected_hands)
    expected_seats = simulated.seats
    if "point_value" in missing:  # the seats copy the hand's point value
        expected_seats = expected_seats.with_columns(pl.lit(None, pl.Decimal(18, 6))
                                                     .alias("point_value"))
    assert_frame_equal(read.seats.sort([*key, "seat"]), expected_seats.sort([*key, "seat"]))
    assert_frame_equal(read.streets.sort([*key, "action_order"]),
                       simulated.streets.sort([*key, "action_order"]))


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, WrittenSimulation]:
    folder = tmp_path_factory.mktemp("faulty")
    config = SimulationConfig(seed=9, hands=4000, tables=6, faults=parse_faults("all"))
    return folder, write_simulation(config, folder, Format.JSONL)


def test_every_fault_kind_is_injected_and_listed(faulty: tuple[Path, WrittenSimulation]) -> None:
    folder, written = faulty
    kinds = Counter(fault.kind for fault in written.faults)
    assert kinds == {kind: parse_faults("all")[kind] for kind in FaultKind}
    assert read_faults(folder / FAULTS_FILE) == list(written.faults)
    assert all(fault.file for fault in written.faults
               if fault.kind is not FaultKind.GAP)


def test_file_faults_are_what_the_reader_reports(faulty: tuple[Path, WrittenSimulation]) -> None:
    folder, written = faulty
    faults = written.faults
    read = read_folder(folder, written.files)

    def hands(kind: FaultKind) -> set[str]:
        return {fault.hand_id for fault in faults if fault.kind is kind}

    problems = read.problems
    assert set(problems.filter(pl.col("kind") == "card")["hand_id"]) == hands(
        FaultKind.CORRUPT_CARD)
    assert problems.filter(pl.col("kind") == "syntax").height == len(hands(
        FaultKind.BROKEN_LINE))
    truncated = problems.filter(pl.col("kind") == "truncated")
    assert set(truncated["file"]) == {fault.file for fault in faults
                                      if fault.kind is FaultKind.TRUNCATED}
    assert problems.height == 2 + 1 + 1  # nothing else is wrong in the files
    repeated = read.hands.group_by("hand_id").len().filter(pl.col("len") > 1)
    assert set(repeated["hand_id"]) == hands(FaultKind.DUPLICATE_IN_FILE) | hands(
        FaultKind.DUPLICATE_ACROSS_FILES)
    lost = (hands(FaultKind.CORRUPT_CARD) | hands(FaultKind.BROKEN_LINE)
            | hands(FaultKind.TRUNCATED) | hands(FaultKind.GAP))
    assert read.hands["hand_id"].n_unique() == 4000 - len(lost)
    assert written.hands == 4000 - len(lost)
    # File faults never touch a hand that a record fault needs.
    record = {fault.hand_id for fault in faults if fault.kind.in_records}
    assert not lost & record - hands(FaultKind.GAP)


def test_broken_file_holds_every_file_fault(tmp_path: Path) -> None:
    config = SimulationConfig(seed=3, hands=2000, tables=4, faults=parse_faults("all"))
    written = write_simulation(config, tmp_path, Format.JSONL, broken_file="broken_hands")
    assert "broken_hands.jsonl" in written.files
    file_faults = [fault for fault in written.faults if fault.kind in FILE_KINDS]
    assert {fault.file for fault in file_faults} == {"broken_hands.jsonl"}
    tables = read_folder(tmp_path, tuple(f for f in written.files if "broken" not in f))
    assert tables.problems.is_empty()
    broken = read_folder(tmp_path, ("broken_hands.jsonl",))
    assert sorted(broken.problems["kind"].to_list()) == ["card", "card", "syntax", "truncated"]
    # A duplicate across files is also in its table's file; the other faulty hands
    # left theirs (the corrupt and truncated ones are lost: gaps for the auditor).
    stored = set(tables.hands["hand_id"]) | set(broken.hands["hand_id"])
    assert written.hands == len(stored)
    across = {f.hand_id for f in file_faults if f.kind is FaultKind.DUPLICATE_ACROSS_FILES}
    moved = {f.hand_id for f in file_faults} - across
    assert across <= set(tables.hands["hand_id"])
    assert not moved & set(tables.hands["hand_id"])
    twice = {f.hand_id for f in file_faults if f.kind is FaultKind.DUPLICATE_IN_FILE}
    counts = broken.hands.group_by("hand_id").len()
    assert set(counts.filter(pl.col("len") == 2)["hand_id"]) == twice


def test_record_faults_are_the_simulations(faulty: tuple[Path, WrittenSimulation]) -> None:
    _, written = faulty
    again = Simulation(SimulationConfig(seed=9, hands=4000, tables=6,
                                        faults=parse_faults("all")))
    for _ in again:
        pass
    record = [fault for fault in written.faults
              if fault.kind.in_records]
    assert [(f.hand_id, f.kind) for f in record] == [(f.hand_id, f.kind) for f in again.faults]


def test_every_format_at_once_sets_aside_exactly_the_file_faults(tmp_path: Path) -> None:
    config = SimulationConfig(seed=21, hands=6000, tables=8, faults=parse_faults("all"))
    written = write_simulation(config, tmp_path, "all")
    suffixes = {Path(name).suffix for name in written.files}
    assert suffixes == {".jsonl", ".txt", ".csv", ".json"}
    read = read_folder(tmp_path, written.files)
    kinds = Counter(fault.kind for fault in written.faults)
    lost = kinds[FaultKind.CORRUPT_CARD] + kinds[FaultKind.BROKEN_LINE] + kinds[
        FaultKind.TRUNCATED]
    assert lost == 4
    assert read.problems.height == lost, read.problems
    assert set(read.problems["kind"]) <= {"card", "syntax", "truncated"}
    copies = kinds[FaultKind.DUPLICATE_IN_FILE] + kinds[FaultKind.DUPLICATE_ACROSS_FILES]
    assert copies == 4
    assert read.hands.height == written.hands + copies
    assert read.hands["hand_id"].n_unique() == written.hands == 6000 - 3 - lost
