"""The file system refusing, for real: disk full, a read-only warehouse, permission
denied. Each ends in one line on stderr and exit status 1, and leaves the warehouse whole.

Disk full is a small tmpfs and the read-only warehouse a read-only bind mount, each
mounted in a private mount namespace (``unshare -rm``: util-linux, no root needed where
the kernel allows user namespaces). Permission denied is a folder made unwritable
(``chmod``; as root, who passes any mode, the immutable attribute of ``chattr``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ofc_stats.analysis.score import score_warehouse
from ofc_stats.ingest import ingest
from ofc_stats.simulate import SimulationConfig
from ofc_stats.simulate.files import write_simulation
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.check import check_warehouse

ROOT = Path(__file__).resolve().parent.parent
OFC_STATS = [sys.executable, "-m", "ofc_stats"]


def in_namespace(setup: str, arguments: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``ofc-stats arguments`` after the shell commands ``setup`` in a private mount
    namespace (the mounts vanish with it)."""
    result = subprocess.run(["unshare", "-rm", "sh", "-c", f'{setup} && exec "$@"', "sh",
                             *OFC_STATS, *arguments], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert "unshare:" not in result.stderr, (
        "these tests need unshare (util-linux) and user namespaces: " + result.stderr)
    return result


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "internal error" not in result.stderr
    return lines[0]


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("refusals") / "histories"
    write_simulation(SimulationConfig(seed=8, hands=8_000, tables=4), folder, "jsonl")
    return folder


def test_disk_full_is_one_line(tmp_path: Path, histories: Path) -> None:
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    result = in_namespace(f"mount -t tmpfs -o size=1500k tmpfs '{warehouse}'",
                          ["ingest", str(histories), "-w", str(warehouse)])
    line = one_line(result)
    assert result.returncode == 7  # a file or system error (ExitCode.SYSTEM)
    assert line.startswith("ofc-stats: error: no space left on the device writing "), line
    assert "free some space" in line


def test_a_read_only_warehouse_refuses_writes_in_one_line_and_still_reads(
        tmp_path: Path, histories: Path) -> None:
    warehouse = tmp_path / "warehouse"
    ingest([histories], warehouse)
    score_warehouse(Warehouse.open(warehouse))
    read_only = f"mount --bind '{warehouse}' '{warehouse}' && " \
                f"mount -o remount,bind,ro '{warehouse}'"
    for command in (["ingest", str(histories)], ["score", "--rescore"], ["repair"]):
        result = in_namespace(read_only, [*command, "-w", str(warehouse)])
        line = one_line(result)
        assert result.returncode == 7, command  # ExitCode.SYSTEM
        assert line.startswith("ofc-stats: error: read-only file system: "), line
    for command in (["stats"], ["audit"], ["check"], ["query", "SELECT count(*) FROM hands"]):
        result = in_namespace(read_only, [*command, "-w", str(warehouse)])
        assert result.returncode == 0, (command, result.stderr)
        assert "read-only" not in result.stderr, (command, result.stderr)
    assert check_warehouse(Warehouse.open(warehouse)).whole


@contextlib.contextmanager
def unwritable(folder: Path) -> Iterator[None]:
    """``folder`` refuses new files for the block, whoever runs the test."""
    if os.geteuid() == 0:  # root passes any mode, not the immutable attribute
        subprocess.run(["chattr", "+i", str(folder)], check=True)
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
    else:
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(mode)


def test_permission_denied_is_one_line(tmp_path: Path, histories: Path) -> None:
    warehouse = tmp_path / "warehouse"
    ingest([histories], warehouse)
    more = tmp_path / "more"
    write_simulation(SimulationConfig(seed=9, hands=500, tables=1, site="another"), more,
                     "jsonl")
    with unwritable(warehouse / "hands"):
        result = subprocess.run([*OFC_STATS, "ingest", str(more), "-w", str(warehouse)],
                                cwd=ROOT, capture_output=True, text=True, timeout=300)
    line = one_line(result)
    assert result.returncode == 7  # a file or system error (ExitCode.SYSTEM)
    assert line.startswith("ofc-stats: error: permission denied: "), line
    assert str(warehouse / "hands") in line
    assert check_warehouse(Warehouse.open(warehouse)).whole
