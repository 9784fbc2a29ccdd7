"""Benchmark of every format: write sample hands to a file, read them back, time both.

Throughput and memory are measured, never asserted: ``ofc-stats bench formats``
prints them. Memory is the peak resident size of the process sampled while each
file is read, so a reader that loads a file whole shows up as a peak that grows
with ``hands``.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ofc_stats.engine.rules import Variant
from ofc_stats.formats import BATCH_HANDS, Format, get_reader, get_writer
from ofc_stats.formats.samples import sample_hands
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
        return asdict(self)


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
            size = path.stat().st_size
            read, problems = 0, 0
            before = resident_mb()
            with sampled_peak() as peak, open(path, "rb") as stream:
                started, cpu = time.perf_counter(), time.process_time()
                for part in get_reader(fmt).read(stream, path.name, batch_hands=batch_hands):
                    read += part.batch.hands.height
                    problems += part.batch.problems.height
                seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            path.unlink()
            results.append(FormatFigures(
                format=fmt.value, hands=read, problems=problems, megabytes=size / 1e6,
                write_seconds=written, read_seconds=seconds, read_cpu_seconds=cpu,
                read_megabytes_per_second=size / 1e6 / seconds,
                read_hands_per_second=read / seconds, write_hands_per_second=hands / written,
                read_peak_memory_mb=peak[0], read_memory_growth_mb=peak[0] - before))
    return FormatsBenchmark(hands=hands, players=players, variant=str(Variant(variant)),
                            streets=streets, batch_hands=batch_hands,
                            generate_seconds=generated, formats=results,
                            peak_memory_mb=peak_memory_mb())
