"""The commit log: which files make up each table, one JSON file per commit.

``_log/<id>.json`` names the files a commit adds and removes; it is written last and
atomically, so a commit is all or nothing. Every ``CHECKPOINT_EVERY`` commits,
``_log/<id>.checkpoint.json`` lists every committed file, so reading the state
(:func:`read_state`) replays only the commits since. Readers build a table's file
list from the log, never from a folder listing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ofc_stats.warehouse.files import atomic_write_bytes

LOG_DIR = "_log"
CHECKPOINT_EVERY = 100  # commits between checkpoints of the full file list
LOG_FORMAT = 1


@dataclass(frozen=True)
class TableFile:
    """One committed Parquet file of a table."""

    table: str
    path: str  # relative to the warehouse root, with "/" separators
    partition: str | None
    rows: int


@dataclass
class WarehouseState:
    """The committed contents of a warehouse: the files of every table."""

    commit: int = 0
    files: dict[str, TableFile] = field(default_factory=dict)  # by path

    def table_files(self, table: str, partition: str | None = None) -> list[TableFile]:
        """Files of ``table`` (of one partition, if given), in commit order."""
        return [f for f in self.files.values() if f.table == table
                and (partition is None or f.partition == partition)]

    def partitions(self, table: str) -> list[str]:
        """Partition values present in ``table``."""
        return sorted({f.partition for f in self.files.values()
                       if f.table == table and f.partition is not None})

    def apply(self, commit: Mapping[str, Any]) -> None:
        """Replay one commit record."""
        for path in commit.get("remove", []):
            self.files.pop(path, None)
        for entry in commit.get("add", []):
            self.files[entry["path"]] = TableFile(
                entry["table"], entry["path"], entry.get("partition"), int(entry["rows"]))
        self.commit = int(commit["id"])


def read_state(root: Path) -> WarehouseState:
    """The committed state, replayed from the latest checkpoint and later commits."""
    log = root / LOG_DIR
    # A writer killed mid-commit leaves a ".tmp-..." log file: never a commit.
    names = sorted(p.name for p in log.glob("[0-9]*.json"))
    checkpoints = [n for n in names if n.endswith(".checkpoint.json")]
    state = WarehouseState()
    start = 0
    if checkpoints:
        data = json.loads((log / checkpoints[-1]).read_text())
        for entry in data["files"]:
            state.files[entry["path"]] = TableFile(
                entry["table"], entry["path"], entry.get("partition"), int(entry["rows"]))
        state.commit = start = int(data["id"])
    for name in names:
        if name.endswith(".checkpoint.json"):
            continue
        commit_id = int(name.split(".")[0])
        if commit_id > start:
            state.apply(json.loads((log / name).read_text()))
    return state


def read_commits(root: Path) -> list[dict[str, Any]]:
    """Every commit record still in the log, oldest first."""
    log = root / LOG_DIR
    return [json.loads(p.read_text()) for p in sorted(log.glob("[0-9]*.json"))
            if not p.name.endswith(".checkpoint.json")]


def read_commits_after(root: Path, commit_id: int) -> list[dict[str, Any]]:
    """The commit records after ``commit_id``, oldest first (read one by one by id, so a
    long log costs nothing; a commit whose record is gone is skipped)."""
    state = read_state(root)
    records = []
    for later in range(commit_id + 1, state.commit + 1):
        path = root / LOG_DIR / f"{later:012d}.json"
        if path.exists():
            records.append(json.loads(path.read_text()))
    return records


def write_commit(root: Path, record: Mapping[str, Any]) -> None:
    """Write one commit record (its ``id`` the next commit's), and a checkpoint when due."""
    commit_id = int(record["id"])
    atomic_write_bytes(root / LOG_DIR / f"{commit_id:012d}.json",
                       json.dumps(record, indent=1, default=str).encode())
    if commit_id % CHECKPOINT_EVERY == 0:
        _checkpoint(root, commit_id)


def _checkpoint(root: Path, commit_id: int) -> None:
    state = read_state(root)
    files = [{"table": f.table, "path": f.path, "partition": f.partition, "rows": f.rows}
             for f in state.files.values()]
    atomic_write_bytes(root / LOG_DIR / f"{commit_id:012d}.checkpoint.json",
                       json.dumps({"id": commit_id, "files": files}).encode())
