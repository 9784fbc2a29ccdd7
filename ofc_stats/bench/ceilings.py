"""The stack's own speed on the same data: what each benchmark's figure is measured against.

A benchmark's throughput depends on the machine and on its load; the same work done by
the stack's native kernels alone (pyarrow, polars, DuckDB) on the same bytes, in the
same run, moves with them. The ratio of the two is the figure that says how close a
stage runs to what the stack allows on any machine.

Ingest is measured against decoding the file only, without checks, dedupe or Parquet:
- ofc-hh JSON Lines: ``pyarrow.json.read_json`` with the full explicit schema (players
  and streets as lists of structs, cards as lists of strings);
- fpdb-3 hand objects: DuckDB parsing every object (their points are keyed by player
  name, so no fixed schema holds them);
- text: polars splitting the file into lines and one regex pass over every line;
- CSV: ``polars.read_csv`` of the whole file, every field as text.

Each decoder can also store what it decoded as one Parquet file, compressed as the
warehouse compresses (:func:`store_seconds`): the least any ingest that keeps what it
reads must do, without a check.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pyarrow.json as pa_json  # type: ignore[import-untyped]

from ofc_stats.formats import Format
from ofc_stats.formats.jsonl import TYPED_PARSE_OPTIONS
from ofc_stats.util.duckdb_connection import duckdb_cursor
from ofc_stats.warehouse.files import PARQUET_COMPRESSION_LEVEL

Decoder = Callable[[Path, "Path | None"], int]  # (file, where to store it or None) -> rows


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, 0 when the denominator was not measured (0)."""
    return numerator / denominator if denominator else 0.0


def serial_share(one_core_seconds: float, seconds: float, cores: int) -> float:
    """The share of a run's one-core time that did not get faster on ``cores`` cores.

    Amdahl's law from two measurements: ``seconds = one_core_seconds * (s + (1 - s) /
    cores)``, solved for ``s`` (0 to 1; 0 when not measured).
    """
    if not one_core_seconds or not seconds or cores < 2:
        return 0.0
    share = (seconds / one_core_seconds - 1 / cores) / (1 - 1 / cores)
    return min(1.0, max(0.0, share))


def projected_speedup(serial: float, cores: int) -> float:
    """How many times faster than on one core a run with ``serial`` share would be on
    ``cores`` cores, if nothing else ran out first (Amdahl's law)."""
    return 1 / (serial + (1 - serial) / cores)


def projection_text(one_core_seconds: float, seconds: float, cores: int) -> str:
    """What the two measurements say of 16 and 64 cores, in words."""
    serial = serial_share(one_core_seconds, seconds, cores)
    return (f"{serial:.0%} of it did not speed up: Amdahl's law gives "
            f"{projected_speedup(serial, 16):.1f}x on 16 cores, "
            f"{projected_speedup(serial, 64):.1f}x on 64")


def _stored(frame: pl.DataFrame, store: Path | None) -> int:
    """``frame``'s rows, after writing it to ``store`` (if given) as the warehouse
    writes its files."""
    if store is not None:
        frame.write_parquet(store, compression="zstd",
                            compression_level=PARQUET_COMPRESSION_LEVEL)
    return frame.height


def decode_ofc_hh(path: Path, store: Path | None = None) -> int:
    """Decode an ofc-hh JSON Lines file with pyarrow's JSON reader and the typed schema
    the reader decodes with; returns its rows."""
    table = pa_json.read_json(path, parse_options=TYPED_PARSE_OPTIONS)
    if store is None:
        return int(table.num_rows)
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return _stored(frame, store)


def decode_json_objects(path: Path, store: Path | None = None) -> int:
    """Parse every JSON object of a file of one object a line with DuckDB (storing:
    the objects it parsed, as their text; the rows it counts either way)."""
    objects = ("FROM read_json_objects(?, format = 'newline_delimited', "
               "maximum_object_size = 1073741824)")
    connection = duckdb_cursor()
    try:
        if store is not None:
            row = connection.execute(
                f"COPY (SELECT json {objects} WHERE json_valid(json) IS NOT NULL) TO '{store}' "
                f"(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL "
                f"{PARQUET_COMPRESSION_LEVEL})", [str(path)]).fetchone()
        else:
            row = connection.execute(f"SELECT count(json_valid(json)) {objects}",
                                     [str(path)]).fetchone()
        return int(row[0]) if row else 0
    finally:
        connection.close()


# A text hand history's line: a label ("Seat 1", "*** SUMMARY ***", a player's name)
# and what follows it.
_TEXT_LINE = r"^(\*\*\*[^*]*\*\*\*|[^:\[]+?)[: ]\s*(.*)$"


def decode_text_lines(path: Path, store: Path | None = None) -> int:
    """Split a file into lines with polars and match one pattern on every line."""
    lines = pl.read_csv(path, has_header=False, separator="\x1f", quote_char=None,
                        new_columns=["line"], infer_schema=False)
    return _stored(lines.select(pl.col("line").str.extract_groups(_TEXT_LINE)
                                .struct.unnest()), store)


def decode_csv(path: Path, store: Path | None = None) -> int:
    """Read a CSV file whole with polars, every field as text."""
    return _stored(pl.read_csv(path, infer_schema=False), store)


DECODERS: dict[Format, tuple[str, Decoder]] = {
    Format.JSONL: ("pyarrow.json decoding", decode_ofc_hh),
    Format.FPDB: ("DuckDB parsing every object of", decode_json_objects),
    Format.TEXT: ("polars splitting lines and one regex over", decode_text_lines),
    Format.CSV: ("polars.read_csv of", decode_csv),
}


def timed(decode: Decoder, path: Path, store: Path | None = None) -> float:
    """Seconds ``decode`` takes over ``path`` (storing it in ``store``, if given)."""
    started = time.perf_counter()
    decode(path, store)
    return time.perf_counter() - started


def decode_seconds(fmt: Format | str, path: Path) -> float:
    """Seconds the stack's fastest decoder for ``fmt`` takes over ``path`` (see the
    module doc)."""
    return timed(DECODERS[Format(fmt)][1], path)


def store_seconds(fmt: Format | str, path: Path, store: Path) -> float:
    """Seconds the same decoder takes over ``path`` and to write what it decoded to
    ``store`` as one Parquet file (zstd, the warehouse's level): decoding and keeping,
    with no check, no dedupe and no second table."""
    try:
        return timed(DECODERS[Format(fmt)][1], path, store)
    finally:
        store.unlink(missing_ok=True)
