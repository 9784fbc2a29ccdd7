"""``ofc-stats repair``: mend what ``check`` finds, losing nothing that can be kept.

Under the write lock, in order:

1. **The log.** An entry that cannot be read (or a commit missing from the sequence)
   is moved to ``_quarantine/_log/`` and replaced by a ``repair`` entry: it adds the
   files the lost commit wrote when they show it was an ingest commit (its files are
   named after it, an ``imports`` file among them), else nothing, and then every
   source is read again (below). Every checkpoint is written again from the log.
2. **The files.** A file the log names that is missing comes back from
   ``_quarantine/`` if it is there (same rows); one that cannot be read, or holds
   other rows than the log says, goes to ``_quarantine/``. Either way a file that
   cannot be had is *lost*, and leaves the state.
3. **The hands.** Hands whose rows no longer hold together (a hand without all its
   seats, seats or streets without their hand, a ``(site, hand_id)`` stored twice by
   an earlier version's two writers) are taken out of ``hands``, ``seats`` and
   ``streets`` whole, and the files they came from are marked in the manifest to be
   read again from the start (their rejects with them, so they are not listed twice):
   the next ``ingest`` of those files stores each hand once more, whole. When the
   lost data cannot be traced to its files (a lost ``hands`` or ``rejects`` file, a
   lost log entry), every file is marked. ``hand_keys`` is rebuilt by the next ingest.
4. **The scores.** If hands changed or scores were lost, every scoring and the
   Fantasyland review (``fl_review``) are dropped: the next ``score`` (or ``audit``,
   ``stats``, ``report``, which score first) scores everything again, the next
   ``review`` reviews every Fantasyland hand again.

All of 2-4 is one commit. ``repair`` never deletes a file: what it takes out of the
warehouse goes to ``_quarantine/`` (or stays there).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from ofc_stats.analysis.fantasyland_review import REVIEW_TABLE
from ofc_stats.analysis.score import forget_scorings
from ofc_stats.ingest.manifest import read_again_rows
from ofc_stats.warehouse import QUARANTINE_DIR, PendingFile, StagedFile, Warehouse
from ofc_stats.warehouse.catalog import refresh_database
from ofc_stats.warehouse.errors import WarehouseDamagedError
from ofc_stats.warehouse.files import atomic_write_bytes, parquet_problem
from ofc_stats.warehouse.log import (
    LOG_DIR,
    LOG_FORMAT,
    TableFile,
    WarehouseState,
    entry_name,
    load_entry,
    log_names,
    read_state,
    write_checkpoint,
    write_commit,
)
from ofc_stats.warehouse.schemas import IMPORTS_SCHEMA, TABLE_SCHEMAS

KEY = ["site", "hand_id"]
INGEST_TABLES = ("hands", "seats", "streets", "rejects", "hand_keys", "imports")
# What is derived from the hands: dropped whole when hands change (scored, reviewed again).
SCORE_TABLES = ("player_hands", "matchups", "fl_transitions", REVIEW_TABLE)
REREAD_MESSAGE = "repair: data of this file was lost from the warehouse; read again whole"


@dataclass
class RepairReport:
    """What ``repair`` did, one line per action, and what is left to do."""

    warehouse: str
    actions: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # files that could not be had back
    restored: list[str] = field(default_factory=list)  # files back from the quarantine
    hands_removed: int = 0  # hands taken out to be read again whole
    read_again: list[str] = field(default_factory=list)  # sources marked to be read again
    read_again_all: bool = False
    rescore: bool = False  # every scoring dropped: the next score scores everything
    commit: int | None = None  # the repair commit, if one was made

    @property
    def changed(self) -> bool:
        """Whether anything was repaired."""
        return bool(self.actions)

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


def repair_warehouse(warehouse: Warehouse, *, lock_timeout: float = 30.0) -> RepairReport:
    """Repair the log, quarantine unreadable files, make the hands hold together, and
    mark what was lost to be read again (see the module doc).

    Raises:
        WarehouseLockedError: another process kept the lock for ``lock_timeout``.
    """
    report = RepairReport(str(warehouse.root))
    with warehouse.writing(lock_timeout, prepare=False):
        unknown = _repair_log(warehouse, report)
        state = read_state(warehouse.root)
        warehouse.adopt_head(state.commit)
        lost = _repair_files(warehouse, state, report)
        removes, staged, imports = _repair_hands(warehouse, state, lost, unknown, report)
        lost_tables = {f.table for f in lost}
        if unknown or report.hands_removed or lost_tables & {"hands", "seats", *SCORE_TABLES}:
            report.rescore = True
            removes.extend(f.path for f in state.files.values() if f.table in SCORE_TABLES
                           and f.path not in removes)
        removes.extend(f.path for f in lost if f.path not in removes)
        if removes or staged or imports is not None:
            adds = [] if imports is None else [PendingFile("imports", imports)]
            report.commit = warehouse.commit(adds, removes, staged=staged, action="repair",
                                             meta={"lost": report.lost,
                                                   "hands_removed": report.hands_removed})
        if report.rescore:
            forget_scorings(warehouse)
            report.actions.append("dropped every scoring and Fantasyland review: the next "
                                  "score (or audit, stats, report) scores every hand again, "
                                  "the next review reviews every Fantasyland hand again")
        swept = warehouse.sweep()
        if swept.quarantined:
            report.actions.append(f"moved {len(swept.quarantined):,} files no commit names "
                                  f"to {QUARANTINE_DIR}/")
        refresh_database(warehouse)
    return report


# -- 1. the log ------------------------------------------------------------------------


def _repair_log(warehouse: Warehouse, report: RepairReport) -> bool:
    """Replace unreadable or missing entries, write every checkpoint again; True if a
    commit's content could not be recovered (then every source is read again)."""
    root = warehouse.root
    commits, checkpoints = log_names(root)
    named: set[str] = set()
    bad: list[int] = []
    for commit_id in range(1, max(commits, default=0) + 1):
        try:
            record = load_entry(root, commits[commit_id])
        except (KeyError, WarehouseDamagedError):
            bad.append(commit_id)
            continue
        named.update(str(entry["path"]) for entry in record.get("add", []))
    unknown = False
    for commit_id in bad:
        name = entry_name(commit_id)
        if (root / LOG_DIR / name).exists():
            warehouse.quarantine(root / LOG_DIR / name)
        recovered = _recover_adds(root, commit_id, named)
        unknown |= recovered is None
        write_commit(root, {
            "format": LOG_FORMAT, "id": commit_id, "action": "repair",
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "add": recovered or [], "remove": [],
            "meta": {"replaces": f"{LOG_DIR}/{name}, unreadable or missing (now in "
                                 f"{QUARANTINE_DIR}/{LOG_DIR}/ if it was there)"}})
        report.actions.append(
            f"{LOG_DIR}/{name} was unreadable or missing: replaced"
            + (f", with the {len(recovered)} files its commit wrote" if recovered
               else " by an empty commit (its files go to the quarantine)"))
    if bad:
        _record_digests(root, min(bad))
    commits, checkpoints = log_names(root)
    last = max(commits, default=0)
    for commit_id, name in sorted(checkpoints.items()):
        if commit_id > last:
            warehouse.quarantine(root / LOG_DIR / name)
            report.actions.append(f"{LOG_DIR}/{name} names a commit the log does not hold: "
                                  "moved to the quarantine")
            continue
        truth = _replay(root, commit_id)
        try:
            listed = {str(e["path"]): int(e["rows"])
                      for e in load_entry(root, name)["files"]}
        except (WarehouseDamagedError, KeyError, TypeError, ValueError):
            listed = None
        if listed != {path: f.rows for path, f in truth.files.items()}:
            write_checkpoint(root, commit_id, truth)
            report.actions.append(f"{LOG_DIR}/{name} was unreadable or disagreed with the "
                                  "log: written again from the log")
    return unknown


def _replay(root: Path, until: int) -> WarehouseState:
    commits, _ = log_names(root)
    state = WarehouseState()
    for commit_id in range(1, until + 1):
        state.apply(load_entry(root, commits[commit_id]))
    return state


def _record_digests(root: Path, first: int) -> None:
    """Write again the state digest of every entry from ``first`` on (an entry before
    them was replaced, so the states they leave changed)."""
    commits, _ = log_names(root)
    state = _replay(root, first - 1)
    for commit_id in range(first, max(commits) + 1):
        record = load_entry(root, commits[commit_id])
        state.apply(record)
        if record.get("state") != state.digest():
            record["state"] = state.digest()
            atomic_write_bytes(root / LOG_DIR / commits[commit_id],
                               json.dumps(record, indent=1, default=str).encode())


def _recover_adds(root: Path, commit_id: int, named: set[str]) -> list[dict[str, object]] | None:
    """The files a lost ingest commit added, from their names (``<commit>-<token>-<n>``)
    and footers; None if they do not show one whole ingest commit."""
    prefix = f"{commit_id:09d}-"
    found = []
    for table in INGEST_TABLES:
        folder = root / table
        for path in sorted(folder.glob(f"{prefix}*.parquet")) if folder.is_dir() else []:
            relative = path.relative_to(root).as_posix()
            if relative in named:
                continue
            try:
                rows = pq.read_metadata(path).num_rows
            except Exception:  # damaged: not recoverable
                return None
            found.append({"table": table, "partition": None, "path": relative, "rows": rows})
    tokens = {str(entry["path"]).split("/")[-1].split("-")[1] for entry in found}
    if len(tokens) != 1 or not any(entry["table"] == "imports" for entry in found):
        return None
    return found


# -- 2. the files ----------------------------------------------------------------------


def _in_quarantine(root: Path, table_file: TableFile) -> Path | None:
    """A copy of a missing file in the quarantine with the rows the log says."""
    base = root / QUARANTINE_DIR / table_file.path
    for candidate in [base, *sorted(base.parent.glob(base.name + ".*"))]:
        if candidate.is_file() and parquet_problem(candidate, table_file.rows) is None:
            return candidate
    return None


def _repair_files(warehouse: Warehouse, state: WarehouseState, report: RepairReport
                  ) -> list[TableFile]:
    root = warehouse.root
    lost = []
    for table_file in state.files.values():
        path = root / table_file.path
        problem = parquet_problem(path, table_file.rows, deep=True)
        if problem is None:
            continue
        if problem == "is missing":
            copy = _in_quarantine(root, table_file)
            if copy is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                os.replace(copy, path)
                report.restored.append(table_file.path)
                report.actions.append(f"{table_file.path} was missing: back from "
                                      f"{copy.relative_to(root).as_posix()}")
                continue
        else:
            warehouse.quarantine(path)
        lost.append(table_file)
        report.lost.append(table_file.path)
        report.actions.append(f"{table_file.path} {problem}: lost"
                              + ("" if problem == "is missing" else ", moved to the quarantine"))
    return lost


# -- 3. the hands ----------------------------------------------------------------------


def _scan(root: Path, table: str, files: list[TableFile], columns: list[str]) -> pl.DataFrame:
    """Some columns of some files of a table (empty, of its schema, if no file)."""
    if not files:
        return TABLE_SCHEMAS[table].to_frame().select(columns)
    return pl.scan_parquet([root / f.path for f in files]).select(columns).collect()


def _broken_hands(root: Path, kept: dict[str, list[TableFile]]) -> pl.DataFrame:
    """The (site, hand_id) of hands whose rows do not hold together, with the files
    they came from where their hands row says (``source_file``, else null)."""
    hands = _scan(root, "hands", kept["hands"],
                  [*KEY, "players", "has_streets", "source_file"])
    seats = _scan(root, "seats", kept["seats"], KEY).group_by(KEY).len("seats")
    streets = _scan(root, "streets", kept["streets"], KEY).unique()
    counted = hands.group_by(KEY).agg(pl.len().alias("copies"),
                                      pl.col("players").first(),
                                      pl.col("has_streets").any())
    checked = (counted.join(seats, on=KEY, how="left")
               .join(streets.with_columns(pl.lit(True).alias("streets")), on=KEY, how="left"))
    broken = checked.filter(
        (pl.col("copies") > 1) | (pl.col("seats").fill_null(0) != pl.col("players"))
        | (pl.col("has_streets") & pl.col("streets").is_null())).select(KEY)
    without_hand = pl.concat([seats.select(KEY), streets]).join(hands.select(KEY), on=KEY,
                                                                 how="anti")
    sources = hands.join(broken, on=KEY, how="semi").select(*KEY, "source_file")
    return pl.concat([sources, without_hand.unique().with_columns(
        pl.lit(None, pl.String).alias("source_file"))])


def _without(root: Path, warehouse: Warehouse, files: list[TableFile], drop: pl.DataFrame,
             on: list[str]) -> tuple[list[str], list[StagedFile]]:
    """Rewrite the files holding rows of ``drop`` (by ``on``) without them."""
    removes, staged = [], []
    for table_file in files:
        rows = pl.read_parquet(root / table_file.path)
        kept = rows.join(drop, on=on, how="anti", maintain_order="left")
        if kept.height == rows.height:
            continue
        removes.append(table_file.path)
        written = warehouse.stage(PendingFile(table_file.table, kept, table_file.partition))
        if written is not None:
            staged.append(written)
    return removes, staged


def _repair_hands(warehouse: Warehouse, state: WarehouseState, lost: list[TableFile],
                  unknown: bool, report: RepairReport
                  ) -> tuple[list[str], list[StagedFile], pl.DataFrame | None]:
    """Take out the hands that do not hold together; mark their sources to be read again."""
    root = warehouse.root
    gone = {f.path for f in lost}
    kept = {table: [f for f in state.table_files(table) if f.path not in gone]
            for table in INGEST_TABLES}
    broken = _broken_hands(root, kept)
    lost_tables = {f.table for f in lost}
    everything = unknown or bool(lost_tables & {"hands", "rejects"}) or bool(
        broken["source_file"].is_null().any())
    sources = set(broken["source_file"].drop_nulls().to_list())
    if not everything and not sources and not lost_tables & {"seats", "streets"}:
        return [], [], None
    removes: list[str] = []
    staged: list[StagedFile] = []
    keys = broken.select(KEY).unique()
    if not keys.is_empty():
        report.hands_removed = keys.height
        for table in ("hands", "seats", "streets"):
            table_removes, table_staged = _without(root, warehouse, kept[table], keys, KEY)
            removes += table_removes
            staged += table_staged
        removes += [f.path for f in kept["hand_keys"]]  # rebuilt by the next ingest
        report.actions.append(
            f"took out the rows of {report.hands_removed:,} hands that did not hold together "
            "(a hand without all its seats or streets, seats or streets without their hand, "
            "a hand stored twice), to be read again whole")
    marked = None if everything else sources
    if marked is None or marked:
        file_column = pl.DataFrame({"file": sorted(marked)}) if marked is not None else None
        if file_column is not None:
            rejects_removes, rejects_staged = _without(root, warehouse, kept["rejects"],
                                                      file_column, ["file"])
        else:
            rejects_removes = [f.path for f in kept["rejects"]]
            rejects_staged = []
        removes += rejects_removes
        staged += rejects_staged
        manifest = _scan(root, "imports", kept["imports"], list(IMPORTS_SCHEMA))
        imports = read_again_rows(manifest.lazy(), marked, warehouse.head + 1, REREAD_MESSAGE)
        report.read_again = sorted(imports["file"].to_list())
        report.read_again_all = marked is None
        report.actions.append(
            f"marked {len(report.read_again):,} imported files to be read again from the "
            "start by the next ingest" + (" (every file: what was lost cannot be traced "
                                          "to its files)" if marked is None else ""))
        return removes, staged, imports.cast(IMPORTS_SCHEMA)
    return removes, staged, None
