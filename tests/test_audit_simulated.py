"""The auditor against the simulator's ground truth: every injected mis-score and broken
Fantasyland chain is found, and nothing else is."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from ofc_stats.analysis.audit import audit_warehouse
from ofc_stats.analysis.score import score_warehouse
from ofc_stats.ingest import ingest
from ofc_stats.simulate import SimulationConfig, parse_faults
from ofc_stats.simulate.config import Fault, FaultKind
from ofc_stats.simulate.files import read_faults, write_simulation
from ofc_stats.warehouse import Warehouse
from tests.conftest import SAMPLE_DATA

AUDITED = {FaultKind.MIS_SCORED: "points", FaultKind.MIS_PAID: "money",
           FaultKind.FL_MISSING: "fl_missing", FaultKind.FL_UNEARNED: "fl_unearned",
           FaultKind.FL_CARDS: "fl_cards"}


def expected_findings(faults: list[Fault]) -> set[tuple[str, str]]:
    return {(AUDITED[f.kind], f.hand_id) for f in faults if f.kind in AUDITED}


def found_errors(warehouse: Warehouse) -> set[tuple[str, str]]:
    findings = audit_warehouse(warehouse).findings
    return set(findings.filter(pl.col("kind").is_in(list(AUDITED.values())))
               .select("kind", "hand_id").iter_rows())


def test_sample_data_audit_finds_exactly_the_injected_faults(
        sample_warehouse: Warehouse) -> None:
    expected = expected_findings(read_faults(SAMPLE_DATA / "faults.tsv"))
    assert len(expected) == 13
    assert {kind for kind, _ in expected} == set(AUDITED.values())
    assert found_errors(sample_warehouse) == expected


@pytest.mark.slow
@pytest.mark.parametrize(("fmt", "seed"), [("jsonl", 11), ("text", 12)])
def test_a_fresh_simulation_is_audited_exactly(tmp_path: Path, fmt: str, seed: int) -> None:
    config = SimulationConfig(seed=seed, hands=6000, tables=10,
                              faults=parse_faults("mis-scored=4,fl-missing=3,fl-unearned=3,"
                                                  "fl-cards=3,gap=3,mis-paid=3"))
    written = write_simulation(config, tmp_path / "histories", fmt)
    ingest([tmp_path / "histories"], tmp_path / "warehouse")
    warehouse = Warehouse.open(tmp_path / "warehouse")
    score_warehouse(warehouse)
    expected = expected_findings(list(written.faults))
    assert len(expected) == 16
    assert found_errors(warehouse) == expected
    gaps = audit_warehouse(warehouse).findings.filter(pl.col("kind") == "gap")
    assert gaps.height == 3


def test_scoring_in_steps_follows_fantasyland_like_scoring_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A later run follows only the tables with new hands again; the other tables' rows
    # are kept. In steps or at once, fl_transitions must be the same.
    config = SimulationConfig(seed=13, hands=3000, tables=6, faults=parse_faults(
        "fl-missing=3,fl-unearned=3,fl-cards=3,gap=3"))
    written = write_simulation(config, tmp_path / "all", "jsonl")
    files = sorted(tmp_path / "all" / name for name in written.files)
    assert len(files) == 6

    def transitions(root: Path) -> pl.DataFrame:
        frame = Warehouse.open(root).scan("fl_transitions").collect()
        return frame.sort(frame.columns, nulls_last=True)

    ingest(files, tmp_path / "once")
    score_warehouse(Warehouse.open(tmp_path / "once"))
    at_once = transitions(tmp_path / "once")
    assert at_once.filter(pl.col("status") != "ok").height > 0

    steps = Warehouse.open(tmp_path / "steps", create=True)
    for part in (files[:3], files[3:5], files[5:]):
        ingest(part, steps)
        score_warehouse(steps)
    assert_frame_equal(transitions(tmp_path / "steps"), at_once)

    # A run stopped between its scores' commits and the Fantasyland refresh: the next
    # run, even with nothing new, follows every table again.
    from ofc_stats.analysis import score

    stopped = Warehouse.open(tmp_path / "stopped", create=True)
    ingest(files[:3], stopped)
    score_warehouse(stopped)
    ingest(files[3:], stopped)

    def killed(*args: object, **options: object) -> tuple[int, int]:
        raise KeyboardInterrupt

    monkeypatch.setattr(score, "refresh_transitions", killed)
    with pytest.raises(KeyboardInterrupt):
        score_warehouse(stopped)
    monkeypatch.undo()
    assert score_warehouse(stopped).hands == 0
    assert_frame_equal(transitions(tmp_path / "stopped"), at_once)
