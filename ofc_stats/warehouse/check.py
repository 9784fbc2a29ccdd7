"""``ofc-stats check``: is the warehouse whole? Every file the log names, checked.

:func:`check_warehouse` reads the log (every entry parses and is the record of its
id, no commit missing, every checkpoint equal to the log replayed), then every file
the log names (present, a readable Parquet file, as many rows as the log says;
``deep`` reads every page too), then what the files hold together (each
``(site, hand_id)`` once in ``hands``; as many ``hand_keys`` rows as hands; each
hand's seats all there), and says what else lies in the folder (files no commit
names, files removed but kept a while, the quarantine). Errors are damage
(``ofc-stats repair`` mends it), warnings a thing ofc-stats mends by itself, the
rest information.

:func:`first_damage` is the cheap part (the log, and every file present with
Parquet's marks at both ends), for commands to name a broken file when a read fails.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import polars as pl

from ofc_stats.warehouse.errors import WarehouseDamagedError
from ofc_stats.warehouse.files import parquet_problem
from ofc_stats.warehouse.log import (
    LOG_DIR,
    LogHistory,
    TableFile,
    WarehouseState,
    entry_name,
    load_entry,
    log_names,
    read_history,
    read_state,
    state_digest,
)
from ofc_stats.warehouse.schemas import TABLE_SCHEMAS
from ofc_stats.warehouse.store import (
    KEEP_REMOVED_SECONDS,
    QUARANTINE_DIR,
    SCORINGS_FILE,
    Warehouse,
)

ERROR, WARNING, INFO = "error", "warning", "info"


@dataclass(frozen=True)
class Finding:
    """One thing ``check`` found."""

    severity: str  # error (damage), warning (mended by itself), info
    kind: str  # log, checkpoint, missing, unreadable, rows, keys, seats, orphans, ...
    file: str | None  # relative to the warehouse
    detail: str


@dataclass(frozen=True)
class CheckReport:
    """What ``check`` found, and what it looked at."""

    warehouse: str
    commit: int
    files: int  # files the log names
    rows: int  # their rows, as the log says
    hands: int
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def errors(self) -> list[Finding]:
        """The damage found."""
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def whole(self) -> bool:
        """Whether no damage was found."""
        return not self.errors

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return {**asdict(self), "whole": self.whole,
                "findings": [asdict(f) for f in self.findings]}


def first_damage(warehouse: Warehouse) -> WarehouseDamagedError | None:
    """The first damage a look at the log and every file's footer finds (present, a
    Parquet file, the rows the log says), or None: for commands whose read failed,
    to name the file."""
    try:
        state = read_state(warehouse.root)
        for table_file in state.files.values():
            path = warehouse.root / table_file.path
            problem = parquet_problem(path, table_file.rows)
            if problem is not None:
                return WarehouseDamagedError(f"{path} {problem}", str(path))
    except WarehouseDamagedError as error:
        return error
    except OSError:
        return None
    return None


def _log_findings(root: Path) -> tuple[list[Finding], WarehouseState, LogHistory | None]:
    """Every entry and checkpoint of the log, and the state replayed from the entries
    that can be read."""
    findings: list[Finding] = []
    commits, checkpoints = log_names(root)
    state = WarehouseState()
    replayed: dict[int, WarehouseState] = {}
    last = max([*commits, *checkpoints], default=0)
    for commit_id in range(1, max(commits, default=0) + 1):
        name = commits.get(commit_id)
        if name is None:
            findings.append(Finding(ERROR, "log", f"{LOG_DIR}/{entry_name(commit_id)}",
                                    f"commit {commit_id} is missing from the log"))
            continue
        try:
            state.apply(load_entry(root, name))
        except WarehouseDamagedError as error:
            findings.append(Finding(ERROR, "log", f"{LOG_DIR}/{name}",
                                    error.problem.removeprefix(f"{LOG_DIR}/{name} ")))
            state.commit = commit_id
            continue
        if commit_id in checkpoints:
            replayed[commit_id] = WarehouseState(commit_id, dict(state.files))
    for commit_id, name in sorted(checkpoints.items()):
        where = f"{LOG_DIR}/{name}"
        try:
            listed = [TableFile(e["table"], e["path"], e.get("partition"), int(e["rows"]))
                      for e in load_entry(root, name)["files"]]
        except (WarehouseDamagedError, KeyError, TypeError, ValueError) as error:
            problem = (error.problem.removeprefix(f"{where} ")
                       if isinstance(error, WarehouseDamagedError) else f"bad entry {error}")
            findings.append(Finding(WARNING, "checkpoint", where,
                                    f"{problem}: readers pass it over; the next writer "
                                    "(or repair) writes it again"))
            continue
        truth = replayed.get(commit_id)
        if truth is None:
            findings.append(Finding(WARNING, "checkpoint", where,
                                    f"names commit {commit_id}, not in the log (last {last})"))
        elif state_digest(listed) != truth.digest():
            recorded = False
            with contextlib.suppress(WarehouseDamagedError):
                recorded = "state" in load_entry(root, commits[commit_id])
            findings.append(Finding(
                WARNING if recorded else ERROR, "checkpoint", where,
                f"lists {len(listed):,} files where the log holds {len(truth.files):,} at "
                f"commit {commit_id}" + (": readers pass it over; the next writer (or "
                                         "repair) writes it again" if recorded else
                                         ": readers trust it (repair writes it again)")))
    history = None
    if not any(f.kind == "log" for f in findings):
        history = read_history(root)
    return findings, state, history


def _file_findings(root: Path, state: WarehouseState, deep: bool) -> list[Finding]:
    findings = []
    for table_file in state.files.values():
        problem = parquet_problem(root / table_file.path, table_file.rows, deep=deep)
        if problem is not None:
            kind = ("missing" if problem == "is missing" else
                    "rows" if problem.startswith("holds") else "unreadable")
            findings.append(Finding(ERROR, kind, table_file.path,
                                    f"{table_file.table} file {problem}"))
    return findings


def _paths(root: Path, files: Iterable[TableFile]) -> list[Path]:
    return [root / f.path for f in files]


def _content_findings(root: Path, state: WarehouseState, broken: set[str]
                      ) -> tuple[list[Finding], int]:
    """Each hand once, its hand_keys row and all its seats: (findings, hands)."""
    def readable(table: str) -> list[Path]:
        return _paths(root, [f for f in state.table_files(table) if f.path not in broken])

    hands_files = readable("hands")
    if not hands_files:
        return [], 0
    findings = []
    hands = pl.scan_parquet(hands_files).select("site", "hand_id", "players").collect()
    repeated = hands.group_by("site", "hand_id").len().filter(pl.col("len") > 1)
    if not repeated.is_empty():
        example = repeated.row(0, named=True)
        findings.append(Finding(
            ERROR, "keys", "hands",
            f"{repeated.height:,} hands are stored more than once "
            f"({int(repeated['len'].sum()) - repeated.height:,} extra rows; e.g. "
            f"{example['site']} {example['hand_id']} x{example['len']})"))
    key_rows = sum(f.rows for f in state.table_files("hand_keys"))
    if key_rows != hands.height:
        findings.append(Finding(WARNING, "keys", "hand_keys",
                                f"{key_rows:,} rows for {hands.height:,} hands: the next "
                                "ingest rebuilds it"))
    seats_files = readable("seats")
    seat_rows = sum(f.rows for f in state.table_files("seats"))
    players = int(hands["players"].cast(pl.Int64).sum())
    if seat_rows != players and not broken:
        seats = (pl.scan_parquet(seats_files).group_by("site", "hand_id").len().collect()
                 if seats_files else pl.DataFrame(schema={"site": pl.String,
                                                          "hand_id": pl.String,
                                                          "len": pl.UInt32}))
        short = hands.join(seats, on=["site", "hand_id"], how="left").filter(
            pl.col("len").fill_null(0) != pl.col("players"))
        findings.append(Finding(ERROR, "seats", "seats",
                                f"{seat_rows:,} seat rows for {players:,} players: "
                                f"{short.height:,} hands lack seats or have too many"))
    return findings, hands.height


def _folder_findings(root: Path, state: WarehouseState, history: LogHistory | None
                     ) -> list[Finding]:
    findings = []
    stray: list[str] = []
    kept: list[str] = []
    for table in TABLE_SCHEMAS:
        for path in sorted((root / table).rglob("*.parquet")) if (root / table).is_dir() else []:
            relative = path.relative_to(root).as_posix()
            if relative in state.files:
                continue
            if history is not None and relative in history.removed:
                kept.append(relative)
            elif history is None or relative not in history.named:
                stray.append(relative)
    if stray:
        findings.append(Finding(INFO, "orphans", stray[0],
                                f"{len(stray):,} files no commit names (left by a writer "
                                "that was stopped): the next writer moves them to "
                                f"{QUARANTINE_DIR}/"))
    if kept:
        findings.append(Finding(INFO, "kept", kept[0],
                                f"{len(kept):,} files removed by commits, kept "
                                f"{KEEP_REMOVED_SECONDS // 3600} hours for readers still "
                                "using them"))
    quarantined = [p for p in (root / QUARANTINE_DIR).rglob("*") if p.is_file()]
    if quarantined:
        size = sum(p.stat().st_size for p in quarantined)
        findings.append(Finding(INFO, "quarantine", QUARANTINE_DIR,
                                f"{len(quarantined):,} files set aside ({size / 1e6:,.1f} MB); "
                                "delete them once the warehouse checks whole"))
    scorings = root / SCORINGS_FILE
    if scorings.exists():
        try:
            json.loads(scorings.read_text())
        except (OSError, ValueError) as error:
            findings.append(Finding(WARNING, "scorings", SCORINGS_FILE,
                                    f"cannot be read ({error}): the next score rescores "
                                    "what it cannot tell is scored"))
    return findings


def check_warehouse(warehouse: Warehouse, *, deep: bool = False) -> CheckReport:
    """Check the warehouse: the log, every file it names, what they hold together.

    Args:
        warehouse: the warehouse (not written: check takes no lock).
        deep: read every page of every file, not only its footer.
    """
    root = warehouse.root
    findings, state, history = _log_findings(root)
    file_findings = _file_findings(root, state, deep)
    broken = {f.file for f in file_findings if f.file is not None}
    content, hands = _content_findings(root, state, broken)
    findings = [*findings, *file_findings, *content, *_folder_findings(root, state, history)]
    return CheckReport(str(root), state.commit, len(state.files),
                       sum(f.rows for f in state.files.values()), hands, tuple(findings))
