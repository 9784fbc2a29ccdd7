"""The audit against the simulator's ground truth, for any format, fault mix and table
length: precision and recall 1.0.

Every fault ``faults.tsv`` lists with an audit kind is a finding of that kind at that
hand, and every hand a table's history lost (left out, or set aside by ingest: a
mangled card, a broken line, a half-written end) is inside a ``gap`` finding when
the table goes on after it; no other error or gap is found.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ofc_stats.analysis.audit import audit_warehouse
from ofc_stats.db import connect
from ofc_stats.ingest import ingest
from ofc_stats.simulate import SimulationConfig
from ofc_stats.simulate.config import FaultKind
from ofc_stats.simulate.files import WrittenSimulation, read_faults, write_simulation
from ofc_stats.warehouse import Warehouse

# Faults that take a hand out of its table's history.
LOSES_A_HAND = {FaultKind.GAP, FaultKind.CORRUPT_CARD, FaultKind.BROKEN_LINE,
                FaultKind.TRUNCATED}


def number(hand_id: str) -> int:
    found = re.search(r"(\d+)$", hand_id)
    assert found is not None
    return int(found.group(1))


def expected(written: WrittenSimulation, stored: pl.DataFrame
             ) -> tuple[set[tuple[str, str]], set[str]]:
    """(error kind, hand) of every fault the audit must find, and the hands lost
    inside a table's history (the gaps)."""
    faults = read_faults(written.faults_file)  # the ground truth file itself
    errors = {(f.kind.audit_kind, f.hand_id) for f in faults
              if f.kind.audit_kind and f.kind is not FaultKind.GAP}
    kept: dict[tuple[str, str], list[int]] = {}
    for site, table, hand_id in stored.iter_rows():
        kept.setdefault((site, table), []).append(number(hand_id))
    gaps = set()
    for fault in faults:
        if fault.kind in LOSES_A_HAND:
            numbers = kept.get((fault.site, fault.table), [])
            lost = number(fault.hand_id)
            if min(numbers, default=lost) < lost < max(numbers, default=lost):
                gaps.add(fault.hand_id)
    return errors, gaps


def found(warehouse: Warehouse) -> tuple[set[tuple[str, str]], set[str]]:
    """(error kind, hand) of every error the audit finds, and every hand its gap
    findings say is missing."""
    findings = audit_warehouse(warehouse).findings
    errors = set(findings.filter(pl.col("severity") == "error")
                 .select("kind", "hand_id").iter_rows())
    gaps = set()
    for row in findings.filter(pl.col("kind") == "gap").iter_rows(named=True):
        between = re.search(r"between (\S+) and", row["detail"])
        assert between is not None
        prefix = row["hand_id"].rsplit("-", 1)[0]
        gaps |= {f"{prefix}-{n:06d}"
                 for n in range(number(between.group(1)) + 1, number(row["hand_id"]))}
    return errors, gaps


def audit_against_truth(root: Path, config: SimulationConfig, formats: list[str],
                        gzip: bool) -> None:
    shutil.rmtree(root, ignore_errors=True)
    written = write_simulation(config, root / "histories", formats, compress=gzip)
    ingest([root / "histories"], root / "warehouse")
    warehouse = Warehouse.open(root / "warehouse")
    stored = warehouse.scan("hands").select("site", "table", "hand_id").collect()
    want_errors, want_gaps = expected(written, stored)
    got_errors, got_gaps = found(warehouse)
    assert got_errors - want_errors == set(), "false findings (precision below 1)"
    assert want_errors - got_errors == set(), "missed faults (recall below 1)"
    assert got_gaps - want_gaps == set(), "false gaps"
    assert want_gaps - got_gaps == set(), "missed gaps"


FORMATS = ["jsonl", "text", "csv", "fpdb"]
fault_mixes = st.dictionaries(st.sampled_from(list(FaultKind)), st.integers(0, 3))


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=False,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6),
       hands=st.one_of(st.integers(3, 8), st.integers(9, 60), st.integers(61, 400)),
       tables=st.integers(1, 4),
       formats=st.lists(st.sampled_from(FORMATS), min_size=1, max_size=4, unique=True),
       faults=fault_mixes, gzip=st.booleans())
# Found by this test: a table of five hands (a gap and a false fl_unearned), a CSV hand
# cut between two rows, two Fantasyland faults on one board, mangled dealt cards in text,
# a long table that lost more hands than it kept steps of one.
@example(seed=0, hands=5, tables=2, formats=["jsonl"],
         faults={kind: count for kind, count in
                 {FaultKind.MIS_SCORED: 3, FaultKind.GAP: 3, FaultKind.FL_UNEARNED: 2,
                  FaultKind.FL_MISSING: 2, FaultKind.FL_CARDS: 2}.items()}, gzip=False)
@example(seed=76748, hands=30, tables=2, formats=["csv", "jsonl"],
         faults={FaultKind.BROKEN_LINE: 3, FaultKind.FL_UNEARNED: 2, FaultKind.TRUNCATED: 2,
                 FaultKind.FL_CARDS: 3}, gzip=False)
@example(seed=26681, hands=200, tables=1, formats=["text", "fpdb", "jsonl", "csv"],
         faults={FaultKind.DUPLICATE_IN_FILE: 3, FaultKind.FL_MISSING: 1,
                 FaultKind.FL_UNEARNED: 2, FaultKind.DUPLICATE_ACROSS_FILES: 2,
                 FaultKind.GAP: 3}, gzip=False)
@example(seed=105837, hands=200, tables=3, formats=["text"],
         faults={FaultKind.FL_MISSING: 2, FaultKind.CORRUPT_CARD: 2}, gzip=True)
@example(seed=235994, hands=30, tables=3, formats=["text", "jsonl", "csv"],
         faults={FaultKind.FL_CARDS: 3, FaultKind.DUPLICATE_IN_FILE: 1,
                 FaultKind.BROKEN_LINE: 1, FaultKind.DUPLICATE_ACROSS_FILES: 2,
                 FaultKind.GAP: 3, FaultKind.MIS_SCORED: 1}, gzip=False)
# A table of 17 hands that lost six, one in three (more than half its steps jump).
@example(seed=2, hands=17, tables=1, formats=["jsonl"],
         faults={FaultKind.GAP: 3, FaultKind.CORRUPT_CARD: 3}, gzip=False)
@example(seed=0, hands=17, tables=1, formats=["jsonl"],
         faults={FaultKind.GAP: 3, FaultKind.CORRUPT_CARD: 3}, gzip=False)
# fpdb alone at three tables: the Progressive table, written as fpdb-3's Pineapple.
@example(seed=1868, hands=398, tables=3, formats=["fpdb"], faults={}, gzip=False)
def test_the_audit_finds_exactly_the_injected_faults(
        tmp_path: Path, seed: int, hands: int, tables: int, formats: list[str],
        faults: dict[FaultKind, int], gzip: bool) -> None:
    config = SimulationConfig(seed=seed, hands=hands, tables=min(tables, hands),
                              faults=faults)
    # The tables take the formats in turn: as many formats as there are tables (the
    # simulator refuses an explicit --tables fewer than the formats).
    audit_against_truth(tmp_path / "trial", config, formats[:config.table_count], gzip)


def test_a_mangled_dealt_card_in_the_text_format_is_a_card_problem(tmp_path: Path) -> None:
    config = SimulationConfig(seed=105837, hands=200, tables=3,
                              faults={FaultKind.CORRUPT_CARD: 2})
    written = write_simulation(config, tmp_path / "histories", "text")
    ingest([tmp_path / "histories"], tmp_path / "warehouse")
    rejects = Warehouse.open(tmp_path / "warehouse").scan("rejects").collect()
    corrupt = {f.hand_id for f in written.faults if f.kind is FaultKind.CORRUPT_CARD}
    assert set(rejects["hand_id"]) == corrupt
    assert rejects["kind"].to_list() == ["card", "card"]
    assert all(re.match(r"bad card '..?x' \(seat \d street 1 dealt\)", reason)
               for reason in rejects["reason"])


def test_a_csv_hand_cut_between_two_rows_waits_and_its_reject_is_resolved(
        tmp_path: Path) -> None:
    config = SimulationConfig(seed=3, hands=20, tables=1, variants=("classic",))
    write_simulation(config, tmp_path / "full", "csv")
    sheet = next((tmp_path / "full").glob("*.csv")).read_bytes()
    lines = sheet.splitlines(keepends=True)
    last_hand = lines[-1].split(b",")[1]
    first_row = next(i for i, line in enumerate(lines) if line.split(b",")[1] == last_hand)
    assert len(lines) - first_row >= 3  # a hand of three or four players
    live = tmp_path / "live" / "table.csv"
    live.parent.mkdir()
    live.write_bytes(b"".join(lines[:first_row + 2]))  # cut after its second row
    warehouse = tmp_path / "warehouse"
    ingest([live.parent], warehouse)
    store = Warehouse.open(warehouse)
    hands = store.scan("hands").collect()
    assert last_hand.decode() not in set(hands["hand_id"])  # never stored short
    assert hands.height == 19
    assert store.scan("rejects").collect()["kind"].to_list() == ["truncated"]
    assert audit_warehouse(store).findings.filter(pl.col("kind") == "points").is_empty()
    live.write_bytes(sheet)  # the rest of the hand arrives
    summary = ingest([live.parent], warehouse)
    assert summary.hands_stored == 1
    seats = store.scan("seats").filter(pl.col("hand_id") == last_hand.decode()).collect()
    assert seats.height == len(lines) - first_row
    connection = connect(store)  # the view's rule, as SQL sees it
    try:
        resolved = connection.execute("SELECT kind, resolved FROM rejects").fetchall()
    finally:
        connection.close()
    assert resolved == [("truncated", True)]


def test_a_reject_whose_hand_arrived_whole_later_is_no_finding(tmp_path: Path) -> None:
    config = SimulationConfig(seed=8, hands=40, tables=1)
    written = write_simulation(config, tmp_path / "whole", "jsonl")
    text = next((tmp_path / "whole").glob("*.jsonl")).read_bytes()
    lines = text.splitlines(keepends=True)
    broken = re.sub(rb'"([2-9TJQKA])[cdhs]"', rb'"\1x"', lines[5], count=1)  # a card mangled
    assert broken != lines[5]
    (tmp_path / "first").mkdir()
    (tmp_path / "first" / "export.jsonl").write_bytes(b"".join([*lines[:5], broken,
                                                               *lines[6:]]))
    warehouse = Warehouse.open(tmp_path / "warehouse", create=True)
    ingest([tmp_path / "first"], warehouse)
    assert audit_warehouse(warehouse).findings.filter(pl.col("kind") == "impossible").height == 1
    ingest([tmp_path / "whole"], warehouse)  # the same hands, the sixth one whole
    assert audit_warehouse(warehouse).findings.filter(pl.col("kind") == "impossible").is_empty()
    assert written.hands == 40


def test_a_progressive_table_with_no_other_format_at_hand_is_dealt_as_fpdb_reads_it(
        tmp_path: Path) -> None:
    # fpdb-3's hand object writes Progressive as Pineapple (ofcp). Dealt Progressive,
    # this table's Fantasyland hands of 16 cards (capella-000002 and -000008, after
    # aces on top) read back as Pineapple ones due 14: two false fl_cards findings.
    config = SimulationConfig(seed=4, hands=30, tables=3)
    write_simulation(config, tmp_path / "histories", "fpdb")
    ingest([tmp_path / "histories"], tmp_path / "warehouse")
    warehouse = Warehouse.open(tmp_path / "warehouse")
    hands = warehouse.scan("hands").collect()
    assert dict(hands.group_by("table").agg(pl.col("variant").unique()).iter_rows()) == {
        "Aldebaran": ["classic"], "Betelgeuse": ["pineapple"], "Capella": ["pineapple"]}
    dealt = warehouse.scan("seats").filter(pl.col("in_fantasyland")).collect()
    assert set(dealt.filter(pl.col("table") == "Capella")["fl_cards"]) == {14}
    findings = audit_warehouse(warehouse).findings
    assert findings.filter(pl.col("severity") == "error").is_empty()
