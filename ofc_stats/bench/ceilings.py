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
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.json as pa_json  # type: ignore[import-untyped]

from ofc_stats.formats import Format
from ofc_stats.util.duckdb_connection import duckdb_cursor


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


def _ofc_hh_schema() -> pa.Schema:
    cards = pa.list_(pa.string())
    player = pa.struct([
        ("seat", pa.int64()), ("name", pa.string()), ("top", cards), ("middle", cards),
        ("bottom", cards), ("in_fantasyland", pa.bool_()), ("fl_cards", pa.int64()),
        ("discards", cards), ("reported_points", pa.int64()),
        ("reported_royalties", pa.int64()), ("starting_stack", pa.string()),
        ("collected", pa.string()), ("reported_money", pa.string())])
    street = pa.struct([
        ("street", pa.int64()), ("seat", pa.int64()), ("dealt", cards),
        ("placed", pa.struct([("top", cards), ("middle", cards), ("bottom", cards)])),
        ("discarded", cards)])
    return pa.schema([
        ("format", pa.string()), ("version", pa.int64()), ("site", pa.string()),
        ("hand_id", pa.string()), ("table", pa.string()), ("started_at", pa.string()),
        ("variant", pa.string()), ("ruleset", pa.string()), ("button_seat", pa.int64()),
        ("point_value", pa.string()), ("currency", pa.string()),
        ("players", pa.list_(player)), ("streets", pa.list_(street))])


def decode_ofc_hh(path: Path) -> int:
    """Decode an ofc-hh JSON Lines file with pyarrow's JSON reader; returns its rows."""
    options = pa_json.ParseOptions(explicit_schema=_ofc_hh_schema(),
                                   unexpected_field_behavior="ignore")
    return int(pa_json.read_json(path, parse_options=options).num_rows)


def decode_json_objects(path: Path) -> int:
    """Parse every JSON object of a file of one object a line with DuckDB."""
    connection = duckdb_cursor()
    try:
        row = connection.execute(
            "SELECT count(json_valid(json)) FROM read_json_objects(?, "
            "format = 'newline_delimited', maximum_object_size = 1073741824)",
            [str(path)]).fetchone()
        return int(row[0]) if row else 0
    finally:
        connection.close()


# A text hand history's line: a label ("Seat 1", "*** SUMMARY ***", a player's name)
# and what follows it.
_TEXT_LINE = r"^(\*\*\*[^*]*\*\*\*|[^:\[]+?)[: ]\s*(.*)$"


def decode_text_lines(path: Path) -> int:
    """Split a file into lines with polars and match one pattern on every line."""
    lines = pl.read_csv(path, has_header=False, separator="\x1f", quote_char=None,
                        new_columns=["line"], infer_schema=False)
    return lines.select(pl.col("line").str.extract_groups(_TEXT_LINE)).height


def decode_csv(path: Path) -> int:
    """Read a CSV file whole with polars, every field as text."""
    return pl.read_csv(path, infer_schema=False).height


DECODERS: dict[Format, tuple[str, Callable[[Path], int]]] = {
    Format.JSONL: ("pyarrow.json decoding", decode_ofc_hh),
    Format.FPDB: ("DuckDB parsing every object of", decode_json_objects),
    Format.TEXT: ("polars splitting lines and one regex over", decode_text_lines),
    Format.CSV: ("polars.read_csv of", decode_csv),
}


def timed(decode: Callable[[Path], int], path: Path) -> float:
    """Seconds ``decode`` takes over ``path``."""
    started = time.perf_counter()
    decode(path)
    return time.perf_counter() - started


def decode_seconds(fmt: Format | str, path: Path) -> float:
    """Seconds the stack's fastest decoder for ``fmt`` takes over ``path`` (see the
    module doc)."""
    return timed(DECODERS[Format(fmt)][1], path)
