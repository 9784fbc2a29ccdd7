"""Benchmark of every format: write sample hands to a file, read them back, time both.

Throughput and memory are measured, never asserted: ``ofc-stats bench formats``
prints them. Memory is the peak resident size of the process sampled while each
file is read, so a reader that loads a file whole shows up as a peak that grows
with ``hands``.
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import polars as pl

from ofc_stats.bench.ceilings import decode_json_objects, ratio, timed
from ofc_stats.engine.rules import Variant
from ofc_stats.formats import BATCH_HANDS, Format, ReadBatch, get_reader, get_writer
from ofc_stats.formats.fpdb_database import read_database, write_database
from ofc_stats.formats.samples import sample_hands
from ofc_stats.util.duckdb_connection import duckdb_cursor
from ofc_stats.util.memory import peak_memory_mb, resident_mb, sampled_peak


@dataclass(frozen=True)
class FormatFigures:
    """What one format's write and read measured (seconds are wall-clock time)."""

    format: str
    hands: int
    problems: int
    megabytes: float
    write_seconds: float
    read_seconds: float
    read_cpu_seconds: float  # CPU time of all threads: steadier than wall time under load
    read_megabytes_per_second: float
    read_hands_per_second: float
    write_hands_per_second: float
    read_peak_memory_mb: float
    read_memory_growth_mb: float  # peak while reading minus the size before: the reader's own
    # The stack alone on the same bytes, where there is such a thing: DuckDB parsing
    # every JSON object (plus, for fpdb-3's database, sqlite3 fetching every row).
    ceiling_seconds: float | None = None

    @property
    def ceiling_ratio(self) -> float | None:
        """How many times the stack's own parse the read took."""
        return ratio(self.read_seconds, self.ceiling_seconds) if self.ceiling_seconds else None


@dataclass(frozen=True)
class FormatsBenchmark:
    """A run of :func:`benchmark_formats`."""

    hands: int
    players: int
    variant: str
    streets: bool
    batch_hands: int
    generate_seconds: float
    formats: list[FormatFigures] = field(default_factory=list)
    peak_memory_mb: float = 0.0

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        values = asdict(self)
        for row, figures in zip(values["formats"], self.formats, strict=True):
            row["ceiling_ratio"] = figures.ceiling_ratio
        return values


DATABASE = "fpdb-db"  # fpdb-3's SQLite database, measured beside the fpdb files


def _database_ceiling(path: Path) -> float:
    """Seconds sqlite3 takes to fetch every ``rawJson``, and DuckDB to parse them."""
    started = time.perf_counter()
    with sqlite3.connect(path) as connection:
        texts = [row[0] for row in connection.execute("SELECT rawJson FROM HttpOFCHands")]
    parser = duckdb_cursor()
    try:
        parser.register("texts", pl.DataFrame({"text": texts}))
        parser.execute("SELECT count(json_valid(text)) FROM texts").fetchall()
    finally:
        parser.close()
    return time.perf_counter() - started


def _measure(fmt: str, path: Path, hands: int, written: float,
             read: Callable[[], Iterator[ReadBatch]], ceiling: float | None) -> FormatFigures:
    """Read ``path`` through ``read`` once, sampling memory, and figure it all."""
    size = path.stat().st_size
    count, problems = 0, 0
    before = resident_mb()
    with sampled_peak() as peak:
        started, cpu = time.perf_counter(), time.process_time()
        for part in read():
            count += part.batch.hands.height
            problems += part.batch.problems.height
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return FormatFigures(
        format=fmt, hands=count, problems=problems, megabytes=size / 1e6,
        write_seconds=written, read_seconds=seconds, read_cpu_seconds=cpu,
        read_megabytes_per_second=size / 1e6 / seconds,
        read_hands_per_second=count / seconds, write_hands_per_second=hands / written,
        read_peak_memory_mb=peak[0], read_memory_growth_mb=peak[0] - before,
        ceiling_seconds=ceiling)


def benchmark_formats(hands: int = 100_000, players: int = 3,
                      variant: Variant | str = Variant.PINEAPPLE, *, streets: bool = True,
                      formats: Sequence[Format | str] | None = None, seed: int = 0,
                      batch_hands: int = BATCH_HANDS,
                      directory: str | Path | None = None) -> FormatsBenchmark:
    """Write ``hands`` sample hands in each format, read them back, time both.

    The hands are generated first (timed apart) as one canonical batch. Each format
    is written to a file in ``directory`` (a temporary folder by default) and read
    back through its reader in batches of ``batch_hands``; the read must give back
    every hand without a problem.
    """
    started = time.perf_counter()
    batch = sample_hands(hands, players, variant=variant, seed=seed, streets=streets)
    generated = time.perf_counter() - started
    chosen = [get_reader(fmt).format for fmt in (formats or list(Format))]
    results = []
    with tempfile.TemporaryDirectory(dir=directory) as folder:
        for fmt in chosen:
            path = Path(folder) / f"bench.{fmt.value}"
            started = time.perf_counter()
            with open(path, "wb") as stream:
                get_writer(fmt).write([batch], stream)
            written = time.perf_counter() - started
            json = fmt in (Format.JSONL, Format.FPDB)
            ceiling = timed(decode_json_objects, path) if json else None

            def read_file(fmt: Format = fmt, path: Path = path) -> Iterator[ReadBatch]:
                with open(path, "rb") as stream:
                    yield from get_reader(fmt).read(stream, path.name, batch_hands=batch_hands)

            results.append(_measure(fmt.value, path, hands, written, read_file, ceiling))
            path.unlink()
            if fmt is Format.FPDB:  # and fpdb-3's database, read in place
                path = Path(folder) / "bench.db3"
                started = time.perf_counter()
                write_database([batch], path)
                written = time.perf_counter() - started

                def read_rows(path: Path = path) -> Iterator[ReadBatch]:
                    return read_database(path, batch_hands=batch_hands)

                results.append(_measure(DATABASE, path, hands, written, read_rows,
                                        _database_ceiling(path)))
                path.unlink()
    return FormatsBenchmark(hands=hands, players=players, variant=str(Variant(variant)),
                            streets=streets, batch_hands=batch_hands,
                            generate_seconds=generated, formats=results,
                            peak_memory_mb=peak_memory_mb())
