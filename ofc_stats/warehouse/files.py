"""Writing a warehouse's files atomically: a reader sees a file whole or not at all.

A file is written under a ``.tmp-`` name, flushed to disk and renamed into place; a
writer killed before the rename leaves only a temporary file, which the next writer
deletes (:meth:`ofc_stats.warehouse.Warehouse.remove_orphans`).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

import polars as pl


def _fsync_directory(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every filesystem allows it
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` is either absent or complete."""
    temporary = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    _fsync_directory(path.parent)


# zstd at its fastest level: twice as fast to write as the default level, files ~30%
# larger; the warehouse is written once and read often, by DuckDB mostly.
PARQUET_COMPRESSION_LEVEL = 1


def atomic_write_parquet(frame: pl.DataFrame, path: Path, *,
                         range_statistics: bool = True) -> None:
    """Write ``frame`` as Parquet (zstd) under a temporary name, then rename it."""
    temporary = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    statistics: bool | dict[str, bool] = True if range_statistics else {
        "min": False, "max": False, "distinct_count": False, "null_count": True}
    frame.write_parquet(temporary, compression="zstd",
                        compression_level=PARQUET_COMPRESSION_LEVEL, statistics=statistics)
    with open(temporary, "rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, path)
