"""The auditor against the simulator's ground truth: every injected mis-score and broken
Fantasyland chain is found, and nothing else is."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from ofc_stats.audit import audit_warehouse
from ofc_stats.ingest import ingest
from ofc_stats.simulate import SimulationConfig, parse_faults
from ofc_stats.simulate.config import Fault, FaultKind
from ofc_stats.simulate.files import read_faults, write_simulation
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse_scoring import score_warehouse
from tests.conftest import SAMPLE_DATA

AUDITED = {FaultKind.MIS_SCORED: "points", FaultKind.FL_MISSING: "fl_missing",
           FaultKind.FL_UNEARNED: "fl_unearned", FaultKind.FL_CARDS: "fl_cards"}


def expected_findings(faults: list[Fault]) -> set[tuple[str, str]]:
    return {(AUDITED[f.kind], f.hand_id) for f in faults if f.kind in AUDITED}


def found_errors(warehouse: Warehouse) -> set[tuple[str, str]]:
    findings = audit_warehouse(warehouse).findings
    return set(findings.filter(pl.col("kind").is_in(list(AUDITED.values())))
               .select("kind", "hand_id").iter_rows())


def test_sample_data_audit_finds_exactly_the_injected_faults(
        sample_warehouse: Warehouse) -> None:
    expected = expected_findings(read_faults(SAMPLE_DATA / "faults.tsv"))
    assert len(expected) == 9
    assert found_errors(sample_warehouse) == expected


@pytest.mark.slow
@pytest.mark.parametrize(("fmt", "seed"), [("jsonl", 11), ("text", 12)])
def test_a_fresh_simulation_is_audited_exactly(tmp_path: Path, fmt: str, seed: int) -> None:
    config = SimulationConfig(seed=seed, hands=6000, tables=6,
                              faults=parse_faults("mis-scored=4,fl-missing=3,fl-unearned=3,"
                                                  "fl-cards=3,gap=3"))
    written = write_simulation(config, tmp_path / "histories", fmt)
    ingest([tmp_path / "histories"], tmp_path / "warehouse")
    warehouse = Warehouse.open(tmp_path / "warehouse")
    score_warehouse(warehouse)
    expected = expected_findings(list(written.faults))
    assert len(expected) == 13
    assert found_errors(warehouse) == expected
    gaps = audit_warehouse(warehouse).findings.filter(pl.col("kind") == "gap")
    assert gaps.height == 3
