"""The commit log: which files make up each table, one JSON file per commit.

``_log/<id>.json`` names the files a commit adds and removes. A commit is a
compare-and-swap on the log: its entry is created *exclusively* under the next id
(:func:`write_commit`: written under a temporary name, then hard-linked to its name,
which fails if that name exists), so of two writers that both think they are next,
one succeeds and the other is refused, and the log stays one line of history. Every
``CHECKPOINT_EVERY`` commits, ``_log/<id>.checkpoint.json`` lists every committed
file, so reading the state (:func:`read_state`) replays only the commits since. Each
commit records a digest of the state it leaves (``state``), so a checkpoint that
parses but is wrong is noticed and replaced by a replay of the log. Readers build a
table's file list from the log, never from a folder listing.
"""

from __future__ import annotations

import calendar
import contextlib
import errno
import hashlib
import json
import os
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ofc_stats.warehouse.errors import WarehouseDamagedError
from ofc_stats.warehouse.files import atomic_write_bytes, fsync_directory

LOG_DIR = "_log"
CHECKPOINT_EVERY = 100  # commits between checkpoints of the full file list
LOG_FORMAT = 1
CHECKPOINT_SUFFIX = ".checkpoint.json"
# File systems without hard links refuse os.link with one of these: the entry is then
# created with O_CREAT | O_EXCL and written in place (see write_commit).
_NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS,
                  errno.EXDEV}
# An entry written in place (no hard links) may be read half-written for a moment.
_FRESH_SECONDS = 2.0


@dataclass(frozen=True)
class TableFile:
    """One committed Parquet file of a table."""

    table: str
    path: str  # relative to the warehouse root, with "/" separators
    partition: str | None
    rows: int


def _table_file(entry: Mapping[str, Any] | None) -> TableFile:
    if entry is None:
        raise TypeError("a file list")
    return TableFile(str(entry["table"]), str(entry["path"]), entry.get("partition"),
                     int(entry["rows"]))


@dataclass
class WarehouseState:
    """The committed contents of a warehouse: the files of every table.

    ``notes`` lists what reading the log worked around (a checkpoint that was
    unreadable or disagreed with the log: the log was replayed instead).
    """

    commit: int = 0
    files: dict[str, TableFile] = field(default_factory=dict)  # by path
    notes: list[str] = field(default_factory=list)

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
            table_file = _table_file(entry)
            self.files[table_file.path] = table_file
        self.commit = int(commit["id"])

    def digest(self) -> dict[str, Any]:
        """What a commit records of the state it leaves: the files and a digest of
        their paths and rows (a checkpoint is checked against it)."""
        return state_digest(self.files.values())


def state_digest(files: Iterable[TableFile]) -> dict[str, Any]:
    """The ``state`` a commit records: how many files, and a digest of their paths
    and rows (order-free)."""
    lines = sorted(f"{f.path}\t{f.rows}" for f in files)
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:32]
    return {"files": len(lines), "digest": digest}


def log_names(root: Path) -> tuple[dict[int, str], dict[int, str]]:
    """The commit entries and checkpoints of the log by id (names in ``_log/``).

    A writer killed mid-commit leaves a ``.tmp-...`` file: never an entry.
    """
    commits: dict[int, str] = {}
    checkpoints: dict[int, str] = {}
    for path in (root / LOG_DIR).glob("[0-9]*.json"):
        number = path.name.split(".", 1)[0]
        if not number.isdigit():
            continue
        target = checkpoints if path.name.endswith(CHECKPOINT_SUFFIX) else commits
        target[int(number)] = path.name
    return commits, checkpoints


def load_entry(root: Path, name: str) -> dict[str, Any]:
    """One log file's record.

    Raises:
        WarehouseDamagedError: it cannot be read, or is not a record of its id.
    """
    path = root / LOG_DIR / name
    for attempt in range(40):
        try:
            text = path.read_bytes()
            try:
                data = json.loads(text)
            except ValueError as error:
                raise _BadRecord(f"is not valid JSON: {error}") from None
            if not isinstance(data, dict) or int(data["id"]) != int(name.split(".")[0]):
                raise _BadRecord("is not the record of its commit")
            entries = data.get("files", data.get("add", []))
            for entry in entries if isinstance(entries, list) else [None]:
                _table_file(entry)
            data = dict(data)
            return data
        except FileNotFoundError:
            raise WarehouseDamagedError(f"{LOG_DIR}/{name} vanished while being read",
                                        str(path)) from None
        except OSError as error:
            raise WarehouseDamagedError(
                f"{LOG_DIR}/{name} cannot be read ({error.strerror or error})",
                str(path)) from None
        except (ValueError, KeyError, TypeError) as error:
            # Written in place on a file system without hard links: maybe being written.
            with contextlib.suppress(OSError):
                if attempt < 39 and time.time() - path.stat().st_mtime < _FRESH_SECONDS:
                    time.sleep(0.05)
                    continue
            what = (str(error) if isinstance(error, _BadRecord)
                    else f"is not a valid log record (bad or missing {error})")
            raise WarehouseDamagedError(f"{LOG_DIR}/{name} {what}", str(path)) from None
    raise AssertionError("unreachable")


class _BadRecord(ValueError):
    """A log file that is not the record its name says."""


def _checkpoint_state(root: Path, commit_id: int, name: str,
                      commits: Mapping[int, str]) -> WarehouseState | str:
    """The state a checkpoint lists, or why it cannot be trusted."""
    try:
        data = load_entry(root, name)
    except WarehouseDamagedError as error:
        return error.problem
    state = WarehouseState(commit=commit_id)
    for entry in data["files"]:
        table_file = _table_file(entry)
        state.files[table_file.path] = table_file
    if commit_id not in commits:
        return f"{LOG_DIR}/{name} names commit {commit_id}, which is not in the log"
    try:
        recorded = load_entry(root, commits[commit_id]).get("state")
    except WarehouseDamagedError:
        return f"{LOG_DIR}/{name} cannot be checked: its commit's entry is damaged"
    if recorded is not None and recorded != state.digest():
        return (f"{LOG_DIR}/{name} disagrees with the log (it lists "
                f"{len(state.files):,} files, commit {commit_id} left {recorded['files']:,})")
    return state


def read_state(root: Path, until: int | None = None) -> WarehouseState:
    """The committed state (up to commit ``until``, if given), replayed from the
    latest trustworthy checkpoint and the commits since.

    A checkpoint that cannot be read, or disagrees with the digest its commit
    recorded, is passed over (noted in :attr:`WarehouseState.notes`).

    Raises:
        WarehouseDamagedError: a commit entry is unreadable, or missing from the log.
    """
    commits, checkpoints = log_names(root)
    state = WarehouseState()
    notes: list[str] = []
    for commit_id in sorted(checkpoints, reverse=True):
        if until is not None and commit_id > until:
            continue
        found = _checkpoint_state(root, commit_id, checkpoints[commit_id], commits)
        if isinstance(found, WarehouseState):
            state = found
            break
        notes.append(found + ": the log was replayed instead")
    last = max(commits, default=0) if until is None else until
    for commit_id in range(state.commit + 1, last + 1):
        name = commits.get(commit_id)
        if name is None:
            raise WarehouseDamagedError(
                f"commit {commit_id} is missing from {root / LOG_DIR} (the log goes on to "
                f"commit {max(commits)})", str(root / LOG_DIR / f"{commit_id:012d}.json"))
        state.apply(load_entry(root, name))
    state.notes = notes
    return state


def read_commits(root: Path) -> list[dict[str, Any]]:
    """Every commit record still in the log, oldest first."""
    commits, _ = log_names(root)
    return [load_entry(root, commits[commit_id]) for commit_id in sorted(commits)]


@dataclass(frozen=True)
class LogHistory:
    """What the whole log says of every file it ever named."""

    live: Mapping[str, TableFile]  # the state, replayed from the commits alone
    named: frozenset[str]  # every path any commit or checkpoint named
    removed: Mapping[str, float]  # path -> when a commit removed it (epoch seconds)


def _commit_time(record: Mapping[str, Any]) -> float:
    try:
        return float(calendar.timegm(time.strptime(str(record["time"]), "%Y-%m-%dT%H:%M:%SZ")))
    except (KeyError, ValueError, OverflowError):
        return time.time()  # unknown: as if just removed (kept the longest)


def read_history(root: Path) -> LogHistory:
    """The whole log replayed: the files it holds now, every file it ever named, and
    which of them a commit removed (and no later commit added again), with when.

    Raises:
        WarehouseDamagedError: a commit entry is unreadable, or missing from the log.
    """
    commits, checkpoints = log_names(root)
    named: set[str] = set()
    removed: dict[str, float] = {}
    for commit_id in sorted(checkpoints):
        with contextlib.suppress(WarehouseDamagedError):  # a bad checkpoint names nothing
            named.update(str(e["path"]) for e in load_entry(root, checkpoints[commit_id])[
                "files"])
    state = WarehouseState()
    for commit_id in range(1, max(commits, default=0) + 1):
        if commit_id not in commits:
            raise WarehouseDamagedError(f"commit {commit_id} is missing from {root / LOG_DIR}",
                                        str(root / LOG_DIR / entry_name(commit_id)))
        record = load_entry(root, commits[commit_id])
        when = _commit_time(record)
        for path in record.get("remove", []):
            removed[str(path)] = when
        for entry in record.get("add", []):
            named.add(str(entry["path"]))
            removed.pop(str(entry["path"]), None)
        state.apply(record)
    return LogHistory(state.files, frozenset(named), removed)


def entry_name(commit_id: int) -> str:
    """The name of a commit's entry in ``_log/``."""
    return f"{commit_id:012d}.json"


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
    """Create the entry of commit ``record["id"]``, exclusively; then a checkpoint when due.

    The entry is written under a temporary name, flushed, and hard-linked to its
    name: the link fails if the name exists, so two writers can never both make
    commit N (a compare-and-swap; on local file systems and NFSv3+, where ``link`` is
    atomic). Without hard links (some FUSE and SMB mounts), the entry is created with
    ``O_CREAT | O_EXCL``, exclusive as well, and written in place.

    Raises:
        FileExistsError: commit ``record["id"]`` exists: another writer made it.
    """
    commit_id = int(record["id"])
    log = root / LOG_DIR
    target = log / entry_name(commit_id)
    data = json.dumps(record, indent=1, default=str).encode()
    temporary = log / f".tmp-{uuid.uuid4().hex}-{target.name}"
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(temporary, target)
    except FileExistsError:
        raise
    except OSError as error:
        if error.errno not in _NO_HARD_LINKS:
            raise
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(descriptor, data)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    finally:
        temporary.unlink(missing_ok=True)
    fsync_directory(log)
    if commit_id % CHECKPOINT_EVERY == 0:
        write_checkpoint(root, commit_id)


def write_checkpoint(root: Path, commit_id: int, state: WarehouseState | None = None) -> None:
    """Write (or rewrite) the checkpoint of commit ``commit_id`` from the log."""
    state = state if state is not None else read_state(root, until=commit_id)
    files = [{"table": f.table, "path": f.path, "partition": f.partition, "rows": f.rows}
             for f in state.files.values()]
    atomic_write_bytes(root / LOG_DIR / f"{commit_id:012d}{CHECKPOINT_SUFFIX}",
                       json.dumps({"id": commit_id, "files": files}).encode())
