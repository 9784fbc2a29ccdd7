"""Parquet datasets another engine wrote (Spark), landed as an ofc-stats warehouse.

``ofc-stats spark score`` writes each table as a folder of Parquet part files, the way
Spark writes: ``hands/``, ``seats/``, ``streets/``, ``rejects/``,
``player_hands/scoring=<name>/``, ``matchups/scoring=<name>/`` and
``fl_transitions/``, each finished by Spark's ``_SUCCESS`` marker. :func:`land_datasets`
checks every file against the warehouse's schema and commits them into a new
warehouse (hard links where the file system allows, else copies: the source is never
changed), so that ``report``, ``query``, ``stats`` and ``audit`` read them. It needs
no Spark: output written to object storage lands once copied to this machine.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from ofc_stats.analysis.score import (
    ScoringRecord,
    _record_scoring,
    rules_digest,
)
from ofc_stats.errors import ExitCode, OfcStatsError
from ofc_stats.warehouse import StagedFile, Warehouse
from ofc_stats.warehouse.catalog import refresh_database
from ofc_stats.warehouse.schemas import DEFAULT_SCORING, TABLE_SCHEMAS

SUCCESS_MARKER = "_SUCCESS"  # Spark writes it once a dataset's every file is in place
SCORED_TABLES = ("player_hands", "matchups")


class LandingError(OfcStatsError):
    """Datasets that cannot be landed: incomplete, of another shape, or a target
    warehouse that already holds data."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True)
class LandSummary:
    """What :func:`land_datasets` committed."""

    warehouse: str
    rows: dict[str, int]  # per table (scored tables as ``player_hands/<scoring>``)
    files: int
    seconds: float

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


def table_schemas() -> dict[str, pl.Schema]:
    """The schema of every table a landing takes (scored ones as stored: text, not
    categories)."""
    return {table: TABLE_SCHEMAS[table] for table in (
        "hands", "seats", "streets", "rejects", "fl_transitions", *SCORED_TABLES)}


def _as_stored(dtype: pl.DataType) -> pl.DataType:
    return pl.String() if isinstance(dtype, (pl.Categorical, pl.Enum)) else dtype


def _datasets(source: Path) -> list[tuple[str, str | None, Path]]:
    """(table, partition, folder) of every dataset under ``source``."""
    found: list[tuple[str, str | None, Path]] = []
    for table in table_schemas():
        folder = source / table
        if not folder.is_dir():
            continue
        if table in SCORED_TABLES:
            for partition in sorted(folder.glob("scoring=*")):
                found.append((table, partition.name.removeprefix("scoring="), partition))
        else:
            found.append((table, None, folder))
    return found


def _check_file(path: Path, table: str, expected: pl.Schema) -> int:
    """The rows of a part file, after checking its columns and types."""
    try:
        schema = pl.read_parquet_schema(path)
        rows = int(pq.read_metadata(path).num_rows)
    except Exception as error:
        raise LandingError(f"{path}: not a readable Parquet file ({error})") from None
    wanted = {name: _as_stored(dtype) for name, dtype in expected.items()}
    got = {name: _as_stored(dtype) for name, dtype in schema.items()}
    if got != wanted:
        missing = [name for name in wanted if name not in got]
        other = [f"{name} is {got[name]}, not {wanted[name]}" for name in wanted
                 if name in got and got[name] != wanted[name]]
        extra = [name for name in got if name not in wanted]
        problems = ([f"lacks {', '.join(missing)}"] if missing else []) + other + (
            [f"has unknown column(s) {', '.join(extra)}"] if extra else [])
        raise LandingError(f"{path}: not a {table} file of ofc-stats: {'; '.join(problems)}")
    return rows


def _place(source: Path, target: Path) -> None:
    """``source``'s bytes at ``target``, linked if possible, else copied (renamed into
    place, so ``target`` is whole or absent)."""
    temporary = target.with_name(f".tmp-{target.name}")
    try:
        os.link(source, temporary)
    except OSError:
        shutil.copyfile(source, temporary)
        with open(temporary, "rb+") as handle:
            os.fsync(handle.fileno())
    os.replace(temporary, target)


def land_datasets(source: Path | str, warehouse: Path | str | Warehouse) -> LandSummary:
    """Commit Parquet datasets written by ``ofc-stats spark score`` (or any engine
    writing the same columns) into a new warehouse.

    Args:
        source: the folder holding the datasets (``hands/``, ``seats/``, ...).
        warehouse: a new or empty warehouse folder.

    Raises:
        LandingError: no datasets, a dataset without its ``_SUCCESS`` marker (Spark
            did not finish it), a file of another shape, or a warehouse holding data.
    """
    started = time.perf_counter()
    source = Path(source)
    if not source.is_dir():
        raise LandingError(f"no such folder: {source}")
    datasets = _datasets(source)
    if not datasets:
        raise LandingError(f"no ofc-stats datasets in {source} (expected folders such as "
                           "hands/, seats/, player_hands/scoring=default/)")
    unfinished = [str(folder) for _, _, folder in datasets
                  if not (folder / SUCCESS_MARKER).exists()]
    if unfinished:
        raise LandingError(f"{unfinished[0]} has no {SUCCESS_MARKER} marker: the job that "
                           "wrote it did not finish; run it again")
    schemas = table_schemas()
    parts = [(table, partition, path, _check_file(path, table, schemas[table]))
             for table, partition, folder in datasets
             for path in sorted(folder.glob("*.parquet")) if not path.name.startswith(".")]
    store = (warehouse if isinstance(warehouse, Warehouse)
             else Warehouse.open(warehouse, create=True))
    rows: dict[str, int] = {}
    with store.writing():
        if store.state().files:
            raise LandingError(f"warehouse {store.root} already holds data: land into a "
                               "new folder (ingest merges histories into a warehouse)")
        staged: list[StagedFile] = []
        for table, partition, path, count in parts:
            name = table if partition is None else f"{table}/{partition}"
            rows[name] = rows.get(name, 0) + count
            if count == 0:
                continue  # Spark writes an empty file for an empty dataset
            target = store.new_path(table, partition)
            _place(path, target)
            staged.append(store.adopt(table, target, count, partition))
        store.commit([], staged=staged, action="land", meta={"source": str(source)})
        if any(f.table == "player_hands" and f.partition == DEFAULT_SCORING for f in staged):
            # The default scoring covers every seats file landed: `score` finds nothing new.
            followed = any(f.table == "fl_transitions" for f in staged)
            _record_scoring(store, DEFAULT_SCORING, ScoringRecord(
                rules_digest(None), frozenset(f.path for f in staged if f.table == "seats"),
                transitions_stale=not followed))
        with contextlib.suppress(OfcStatsError):
            refresh_database(store)
    return LandSummary(warehouse=str(store.root), rows=rows, files=len(staged),
                       seconds=time.perf_counter() - started)
