"""Writing a warehouse's files atomically: a reader sees a file whole or not at all.

A file is written under a ``.tmp-`` name, flushed to disk and renamed into place; a
writer killed before the rename leaves only a temporary file, which the next writer
deletes (:meth:`ofc_stats.warehouse.Warehouse.sweep`). The system refusing (disk
full, permissions) is raised as the ``OSError`` it is, naming the file, whatever
library wrapped it.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from ofc_stats.util.system_errors import system_error

PARQUET_MAGIC = b"PAR1"


def fsync_directory(path: Path) -> None:
    """Flush a folder's entries (a rename or link into it) to disk, where allowed."""
    with contextlib.suppress(OSError):  # not every filesystem allows it
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` is either absent or complete."""
    temporary = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror, str(path)) from error
    fsync_directory(path.parent)


# zstd at its fastest level: twice as fast to write as the default level, files ~30%
# larger; the warehouse is written once and read often, by DuckDB mostly.
PARQUET_COMPRESSION_LEVEL = 1


def atomic_write_parquet(frame: pl.DataFrame, path: Path, *,
                         range_statistics: bool = True) -> None:
    """Write ``frame`` as Parquet (zstd) under a temporary name, then rename it.

    Raises:
        OSError: the system refused (disk full, permissions), naming ``path``.
    """
    temporary = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    statistics: bool | dict[str, bool] = True if range_statistics else {
        "min": False, "max": False, "distinct_count": False, "null_count": True}
    try:
        frame.write_parquet(temporary, compression="zstd",
                            compression_level=PARQUET_COMPRESSION_LEVEL, statistics=statistics)
        with open(temporary, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except Exception as error:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        refused = system_error(error, path)
        if refused is None:
            raise
        raise OSError(refused.errno, refused.strerror, str(path)) from error


def parquet_problem(path: Path, rows: int | None = None, *, deep: bool = False,
                    footer: bool = True) -> str | None:
    """Why a file the log names is not the Parquet file it should be, or None.

    Args:
        path: the file.
        rows: the rows the log says it holds, to compare (None: not compared).
        deep: read every page, not only the footer.
        footer: read the footer (else only Parquet's marks at both ends: cheap).
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return "is missing"
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if not path.is_file():
        return "is not a regular file"
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
            handle.seek(max(0, size - 4))
            tail = handle.read(4)
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    if size < 12 or head != PARQUET_MAGIC or tail != PARQUET_MAGIC:
        return f"is not a Parquet file (or was cut short: {size:,} bytes)"
    if not footer:
        return None
    try:
        found = pq.read_metadata(path).num_rows
        if deep:
            pq.read_table(path)
    except Exception as error:  # pyarrow's own errors: a damaged footer or page
        return f"is damaged ({type(error).__name__}: {str(error).splitlines()[0][:160]})"
    if rows is not None and found != rows:
        return f"holds {found:,} rows where the log says {rows:,}"
    return None
