"""Ctrl-C at any moment of the real ``ofc-stats`` command: one line, exit 130, no traceback.

The moments are found, not timed: Python reports each import as it finishes
(``PYTHONPROFILEIMPORTTIME``), so the interrupt lands while the heavy libraries are
still being imported, while the commands are, or once a commit of an ingest is made.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ofc_stats.simulate import SimulationConfig
from ofc_stats.simulate.files import write_simulation
from ofc_stats.warehouse import LOCK_FILE, Warehouse
from ofc_stats.warehouse.check import check_warehouse

INTERRUPTED = "ofc-stats: interrupted"


def command() -> str:
    """The ``ofc-stats`` script installed beside this Python (as a user runs it)."""
    found = (shutil.which("ofc-stats", path=str(Path(sys.executable).parent))
             or shutil.which("ofc-stats"))
    assert found is not None, "the ofc-stats command is not installed (pip install -e .)"
    return found


def interrupt_after_import(module: str, arguments: list[str], cwd: Path,
                           launcher: list[str] | None = None) -> tuple[int, list[str]]:
    """Run ``ofc-stats`` (or ``launcher``); send SIGINT as soon as ``module`` is imported;
    return the exit code and the lines on stderr other than the import report."""
    process = subprocess.Popen([*(launcher or [command()]), *arguments], cwd=cwd,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        if line.startswith("import time:") and line.rsplit("|", 1)[-1].strip() == module:
            process.send_signal(signal.SIGINT)
            break
    else:
        pytest.fail(f"{module} was never imported: {''.join(seen)[-2000:]}")
    rest = process.stderr.read()
    process.stderr.close()
    code = process.wait(60)
    lines = [line for line in rest.splitlines()
             if line.strip() and not line.startswith("import time:")]
    return code, lines


@pytest.mark.parametrize("module", ["numpy", "polars", "duckdb", "typer", "ofc_stats.cli"])
def test_ctrl_c_while_importing_is_one_line(tmp_path: Path, module: str) -> None:
    code, lines = interrupt_after_import(module, ["stats", "-w", str(tmp_path / "none")],
                                         tmp_path)
    assert lines == [INTERRUPTED], lines
    assert code == 130


@pytest.mark.parametrize("module", ["numpy", "polars", "ofc_stats.cli"])
def test_ctrl_c_while_python_m_imports_is_one_line(tmp_path: Path, module: str) -> None:
    # ``python -m ofc_stats`` imports the package before any code of the command runs.
    code, lines = interrupt_after_import(module, ["stats", "-w", str(tmp_path / "none")],
                                         tmp_path, launcher=[sys.executable, "-m", "ofc_stats"])
    assert lines == [INTERRUPTED], lines
    assert code == 130


def test_importing_the_library_leaves_ctrl_c_alone() -> None:
    # Only ``python -m ofc_stats`` takes Ctrl-C over while importing; a program that
    # imports the library keeps Python's KeyboardInterrupt.
    shown = subprocess.run(
        [sys.executable, "-c", "import signal, ofc_stats; "
         "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"],
        capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "True"


@pytest.mark.slow
def test_ctrl_c_during_an_ingest_is_one_line_and_leaves_it_whole(tmp_path: Path) -> None:
    histories = tmp_path / "histories"
    write_simulation(SimulationConfig(seed=3, hands=20_000, tables=4), histories, "jsonl")
    warehouse = tmp_path / "warehouse"
    process = subprocess.Popen(
        [command(), "ingest", str(histories), "-w", str(warehouse)],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        if (warehouse / LOCK_FILE).exists():  # it is writing
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, errors = process.communicate(timeout=120)
    if process.returncode == 0:  # it finished first: nothing to interrupt on this machine
        pytest.fail("the ingest finished before it could be interrupted; make it longer")
    assert [line for line in errors.splitlines() if line.strip()] == [INTERRUPTED]
    assert process.returncode == 130
    assert check_warehouse(Warehouse.open(warehouse)).whole
