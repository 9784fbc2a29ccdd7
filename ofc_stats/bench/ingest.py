"""The ingest benchmark: write hands in each format, ingest them, measure.

``ofc-stats bench ingest`` generates Pineapple hands (3 players, every placement and
discard as a street action, some Fantasyland hands, like a room's history), writes
them with each format's writer to a temporary folder, and ingests each file into a
fresh warehouse in its own process, so that the peak memory it reports is the
ingest's alone. It then ingests the same hands again under another file name (every
hand a duplicate) to show what dedupe costs. With ``files`` > 1 the hands are spread
over that many files in a folder (one per session, the way rooms export them), and
the folder is ingested.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import cast

from ofc_stats.bench.ceilings import (
    DECODERS,
    decode_seconds,
    projection_text,
    ratio,
    serial_share,
    store_seconds,
)
from ofc_stats.formats import SNIFF_BYTES, Format, get_reader, get_writer
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.reading import SplitFile
from ofc_stats.formats.samples import sample_hands
from ofc_stats.util.cores import available_cores
from ofc_stats.util.memory import process_peak_mb

GENERATE_BATCH = 50_000
SUFFIXES = {Format.JSONL: "jsonl", Format.TEXT: "txt", Format.CSV: "csv", Format.FPDB: "json"}


@dataclass(frozen=True)
class IngestBenchmark:
    """What ingesting one format's file measured, against the stack decoding it."""

    format: str
    hands: int
    files: int
    megabytes: float
    seconds: float
    cpu_seconds: float  # the ingest's CPU time, all threads: against seconds, cores used
    hands_per_second: float
    megabytes_per_second: float
    peak_memory_mb: float
    duplicate_seconds: float  # ingesting the same hands again under another name
    duplicate_hands_per_second: float
    reader_seconds: float  # the format's reader alone over the same file, for comparison
    write_seconds: float  # writing the input file (not part of the ingest)
    # The stack's fastest decoder on the same bytes in the same process, three times
    # (the machine's load moves, and a first run pays for warming up: their median is
    # the ceiling): see ofc_stats.bench.ceilings.
    decoder: str = ""
    decode_seconds: tuple[float, ...] = ()
    # The same decoder storing what it decoded as one Parquet file, as many times: the
    # least an ingest that keeps what it reads does (ceilings.store_seconds).
    store_seconds: tuple[float, ...] = ()
    cores: int = 0  # the cores the figures above had
    # The process first ingested a small file (see _ingest_child): what that took.
    warmup_seconds: float = 0.0
    # With cores: the ingest and the decoder again in a process pinned to one core.
    one_core_seconds: float = 0.0
    one_core_decode_seconds: float = 0.0
    one_core_peak_memory_mb: float = 0.0

    @property
    def reader_share(self) -> float:
        """The share of the ingest's time its reader alone takes."""
        return ratio(self.reader_seconds, self.seconds)

    @property
    def decode_median(self) -> float:
        """The decoder's median time over its runs (0: not measured)."""
        return statistics.median(self.decode_seconds) if self.decode_seconds else 0.0

    @property
    def store_median(self) -> float:
        """Decoding and storing: the median time over its runs (0: not measured)."""
        return statistics.median(self.store_seconds) if self.store_seconds else 0.0

    @property
    def stored_ceiling_ratio(self) -> float:
        """The ingest's speed over decoding and storing's."""
        return ratio(self.store_median, self.seconds)

    @property
    def ceiling_ratio(self) -> float:
        """The ingest's speed over the decoder's (target: at least 0.6)."""
        return ratio(self.decode_median, self.seconds)

    @property
    def speedup(self) -> float:
        """The ingest on all its cores over one core (0: not measured)."""
        return ratio(self.one_core_seconds, self.seconds)

    @property
    def decode_speedup(self) -> float:
        """The decoder on all the cores over one core (0: not measured)."""
        return ratio(self.one_core_decode_seconds, self.decode_median)

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return {**asdict(self), "reader_share": round(self.reader_share, 3),
                "decode_median": self.decode_median, "ceiling_ratio": self.ceiling_ratio,
                "store_median": self.store_median,
                "stored_ceiling_ratio": self.stored_ceiling_ratio,
                "speedup": self.speedup, "decode_speedup": self.decode_speedup,
                "serial_share": serial_share(self.one_core_seconds, self.seconds, self.cores)}

    def report(self) -> str:
        """One paragraph of text."""
        runs = [f"{seconds:.2f} s" for seconds in self.decode_seconds]
        decodes = " and ".join([", ".join(runs[:-1]), runs[-1]] if len(runs) > 1 else runs)
        lines = [
            f"{self.format:6s} {self.hands:,} hands"
            f"{f' in {self.files:,} files' if self.files > 1 else ''}, "
            f"{self.megabytes:,.1f} MB ingested in "
            f"{self.seconds:.2f} s (CPU {self.cpu_seconds:.2f} s): "
            f"{self.hands_per_second:,.0f} hands/s, "
            f"{self.megabytes_per_second:,.1f} MB/s, peak memory "
            f"{self.peak_memory_mb:,.0f} MiB",
            f"       {self.decoder} the same bytes: {decodes}; the ingest runs at "
            f"{self.ceiling_ratio:.2f}x the decoder's speed (target 0.6x; both warm: the "
            f"process first ingested {WARMUP_HANDS} hands, in {self.warmup_seconds:.2f} s)",
            f"       the same decoder storing what it decoded as Parquet (zstd, as the "
            f"warehouse; no check): {self.store_median:.2f} s (median of "
            f"{len(self.store_seconds)}), {ratio(self.decode_median, self.store_median):.2f}x "
            f"the decoder's speed; the ingest runs at {self.stored_ceiling_ratio:.2f}x that",
            f"       the reader alone{', files grouped' if self.files > 1 else ''}: "
            f"{self.reader_seconds:.2f} s "
            f"({self.reader_share:.0%} of the ingest); again as duplicates: "
            f"{self.duplicate_seconds:.2f} s, {self.duplicate_hands_per_second:,.0f} hands/s",
        ]
        if self.one_core_seconds:
            lines.append(
                f"       on 1 core: the ingest {self.one_core_seconds:.2f} s (peak "
                f"{self.one_core_peak_memory_mb:,.0f} MiB), the decoder "
                f"{self.one_core_decode_seconds:.2f} s; on {self.cores}: "
                f"{self.speedup:.2f}x and {self.decode_speedup:.2f}x; of the ingest "
                f"{projection_text(self.one_core_seconds, self.seconds, self.cores)}")
        return "\n".join(lines)


def sample_batches(hands: int, seed: int = 0, batch: int = GENERATE_BATCH
                   ) -> Iterator[CanonicalBatch]:
    """``hands`` random Pineapple hands with streets (:mod:`ofc_stats.formats.samples`),
    in batches with distinct hand ids."""
    for number, first in enumerate(range(0, hands, batch)):
        yield sample_hands(min(batch, hands - first), 3, seed=seed * 1_000_000 + number,
                           site="bench")


def write_format(fmt: Format | str, path: Path, hands: int, seed: int = 0) -> int:
    """Write ``hands`` synthetic hands to ``path`` in format ``fmt``; returns the count."""
    with open(path, "wb") as stream:
        return get_writer(fmt).write(sample_batches(hands, seed), stream)


def write_files(fmt: Format | str, folder: Path, hands: int, files: int, seed: int = 0
                ) -> int:
    """Spread ``hands`` synthetic hands over ``files`` files in ``folder`` (distinct hand
    ids); returns the count."""
    folder.mkdir(parents=True, exist_ok=True)
    writer = get_writer(fmt)
    written = 0
    for number in range(files):
        count = hands // files + (1 if number < hands % files else 0)
        if not count:
            continue
        batch = sample_hands(count, 3, seed=seed * 1_000_000 + number, site="bench")
        with open(folder / f"session-{number:05d}.{SUFFIXES[Format(fmt)]}", "wb") as stream:
            written += writer.write([batch], stream)
    return written


def _input_files(path: Path) -> list[Path]:
    return sorted(path.iterdir()) if path.is_dir() else [path]


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


def read_alone(files: Sequence[Path]) -> int:
    """Read ``files`` with their format's reader on this thread, the way ingest reads
    them: a big file in batches, small files split whole and parsed in groups of about
    a batch, each format's apart. Returns the hands read."""
    from ofc_stats.formats import FileGroupReader, sniff
    from ofc_stats.ingest.grouping import SMALL_FILE_BYTES
    from ofc_stats.ingest.run import READ_BATCH_HANDS

    hands = 0
    groups: dict[Format, tuple[FileGroupReader, list[SplitFile]]] = {}
    for file in files:
        with open(file, "rb") as stream:
            fmt = sniff(stream.read(SNIFF_BYTES), str(file))
            reader = get_reader(fmt)
            stream.seek(0)
            if not isinstance(reader, FileGroupReader) or (
                    file.stat().st_size > SMALL_FILE_BYTES):
                hands += sum(read.batch.hands.height for read in reader.read(
                    stream, str(file), batch_hands=READ_BATCH_HANDS))
                continue
            group_reader, group = groups.setdefault(fmt, (reader, []))
            group.append(group_reader.split_file(stream, str(file)))
            if sum(split.hands for split in group) >= READ_BATCH_HANDS:
                hands += group_reader.parse_files(group).hands.height
                group.clear()
    return hands + sum(group_reader.parse_files(group).hands.height
                       for group_reader, group in groups.values() if group)


DECODE_RUNS = 3


def _decode_runs(fmt: str, path: Path) -> tuple[float, ...]:
    """The stack's decoder over ``path`` ``DECODE_RUNS`` times (each file of a folder in
    turn)."""
    files = _input_files(path)
    return tuple(sum(decode_seconds(fmt, file) for file in files)
                 for _ in range(DECODE_RUNS))


def _store_runs(fmt: str, path: Path, folder: Path) -> tuple[float, ...]:
    """The same decoder, storing what it decoded as Parquet in ``folder``,
    ``DECODE_RUNS`` times."""
    files = _input_files(path)
    return tuple(sum(store_seconds(fmt, file, folder / f"stored-{index}.parquet")
                     for index, file in enumerate(files))
                 for _ in range(DECODE_RUNS))


@dataclass(frozen=True)
class _ChildResult:
    """What a child process measured (see :func:`_ingest_child`)."""

    first: dict[str, float]  # the ingest's summary
    again: dict[str, float]  # the same hands again, as duplicates (empty: not measured)
    peak_memory_mb: float
    reader_seconds: float
    cpu_seconds: float
    decode_seconds: tuple[float, ...]
    store_seconds: tuple[float, ...]
    warmup_seconds: float


def _ingest_child(fmt: str, path: str, warmup: str, warehouse: str, everything: bool,
                  results: multiprocessing.Queue[object]) -> None:
    """Ingest ``warmup`` (a small file) into a scratch warehouse, then ``path`` into a
    fresh one, then decode ``path`` with the stack ``DECODE_RUNS`` times, and as many
    storing what it decoded; with ``everything`` also ingest it again as duplicates and
    read it with the reader alone.

    The warm-up pays what a process's first ingest pays once (imports done on first
    use, thread pools, DuckDB's first connection), as the decoder's first run does
    and its median leaves out: the two are compared warm.
    """
    from ofc_stats.ingest import ingest

    scratch = warehouse + "-warmup"
    warmup_seconds = ingest([warmup], scratch).seconds
    shutil.rmtree(scratch, ignore_errors=True)
    cpu_started = time.process_time()
    first = ingest([path], warehouse)
    cpu_seconds = time.process_time() - cpu_started
    peak = process_peak_mb()  # before the decoder, which holds the whole file
    decodes = _decode_runs(fmt, Path(path))
    stores: tuple[float, ...] = ()
    again: dict[str, float] = {}
    reader_seconds = 0.0
    if everything:
        stores = _store_runs(fmt, Path(path), Path(warehouse).parent)
        duplicate = Path(path).with_name("again-" + Path(path).name)
        if Path(path).is_dir():
            shutil.copytree(path, duplicate)
        else:
            shutil.copyfile(path, duplicate)
        again = ingest([duplicate], warehouse).as_dict()
        _remove(duplicate)
        started = time.perf_counter()
        read_alone(_input_files(Path(path)))
        reader_seconds = time.perf_counter() - started
    results.put(_ChildResult(first.as_dict(), again, peak, reader_seconds, cpu_seconds,
                             decodes, stores, warmup_seconds))


@contextlib.contextmanager
def _pinned(cores: int | None) -> Iterator[None]:
    """This process on its first ``cores`` cores meanwhile (a child started now
    inherits it: its thread pools size themselves to it); as it is where unsupported."""
    if cores is None or not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(sorted(before)[:cores]))
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


WARMUP_HANDS = 200  # the small file a child ingests first (see _ingest_child)


def _run_child(fmt: str, path: Path, warmup: Path, warehouse: Path, *, everything: bool,
               cores: int | None = None) -> _ChildResult:
    context = multiprocessing.get_context("spawn")
    queue: multiprocessing.Queue[object] = context.Queue()
    child = context.Process(target=_ingest_child,
                            args=(fmt, str(path), str(warmup), str(warehouse), everything,
                                  queue))
    with _pinned(cores):
        child.start()
    result = cast(_ChildResult, queue.get())
    child.join()
    shutil.rmtree(warehouse, ignore_errors=True)
    return result


def benchmark_ingest(hands: int | Sequence[int] = (10_000, 100_000),
                     formats: Sequence[str] | None = None, seed: int = 0, files: int = 1,
                     cores: bool = False) -> list[IngestBenchmark]:
    """Measure ingest end to end (reading, dedupe, Parquet) for each format and size,
    against the stack's fastest decoder on the same file (:mod:`ofc_stats.bench.ceilings`).

    Each format's file is ingested by a fresh process (``spawn``), after a warm-up
    ingest of a small file: first into an empty warehouse (the figures and peak memory
    reported), then the decoder runs three times, and three times more storing what it
    decoded as Parquet, then the file is ingested again under another name (all
    duplicates), then read by the format's reader alone, to show what ingest adds to
    reading. With ``cores``, a second process pinned to one core ingests and decodes
    the file again.
    """
    chosen = [get_reader(fmt).format for fmt in formats] if formats else list(Format)
    sizes = [hands] if isinstance(hands, int) else list(hands)
    results = []
    with tempfile.TemporaryDirectory(prefix="ofc-bench-ingest-") as folder:
        for size in sizes:
            for fmt in chosen:
                results.append(_measure_format(fmt, size, Path(folder), seed, files, cores))
    return results


def _measure_format(fmt: Format, hands: int, folder: Path, seed: int, files: int,
                    cores: bool) -> IngestBenchmark:
    started = time.perf_counter()
    if files > 1:
        path = folder / f"bench-{fmt}"
        written = write_files(fmt, path, hands, files, seed)
    else:
        path = folder / f"bench-{fmt}.{SUFFIXES[fmt]}"
        written = write_format(fmt, path, hands, seed)
    write_seconds = time.perf_counter() - started
    warmup = folder / f"warmup-{fmt}.{SUFFIXES[fmt]}"
    write_format(fmt, warmup, WARMUP_HANDS, seed + 1)
    megabytes = sum(file.stat().st_size for file in _input_files(path)) / 1e6
    file_count = len(_input_files(path))
    measured = _run_child(fmt, path, warmup, folder / f"wh-{fmt}", everything=True)
    one_core = {}
    if cores:
        pinned = _run_child(fmt, path, warmup, folder / f"wh-{fmt}-1", everything=False,
                            cores=1)
        one_core = {"one_core_seconds": pinned.first["seconds"],
                    "one_core_decode_seconds": statistics.median(pinned.decode_seconds),
                    "one_core_peak_memory_mb": pinned.peak_memory_mb}
    _remove(path)
    _remove(warmup)
    first, again = measured.first, measured.again
    return IngestBenchmark(
        format=str(fmt), hands=written, files=file_count, megabytes=megabytes,
        seconds=first["seconds"], cpu_seconds=measured.cpu_seconds,
        hands_per_second=first["hands_per_second"],
        megabytes_per_second=first["megabytes_per_second"],
        peak_memory_mb=measured.peak_memory_mb,
        duplicate_seconds=again["seconds"],
        duplicate_hands_per_second=again["hands_per_second"],
        reader_seconds=measured.reader_seconds, write_seconds=write_seconds,
        decoder=DECODERS[fmt][0], decode_seconds=measured.decode_seconds,
        store_seconds=measured.store_seconds, cores=available_cores(),
        warmup_seconds=measured.warmup_seconds, **one_core)
