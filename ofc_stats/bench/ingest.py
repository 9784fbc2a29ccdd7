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

import multiprocessing
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import cast

from ofc_stats.formats import SNIFF_BYTES, Format, get_writer
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.reading import SplitFile
from ofc_stats.formats.samples import sample_hands
from ofc_stats.util.memory import process_peak_mb

GENERATE_BATCH = 50_000
SUFFIXES = {Format.JSONL: "jsonl", Format.TEXT: "txt", Format.CSV: "csv", Format.FPDB: "json"}


@dataclass(frozen=True)
class IngestBenchmark:
    """What ingesting one format's file measured."""

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

    @property
    def reader_share(self) -> float:
        """The share of the ingest's time its reader alone takes."""
        return self.reader_seconds / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return {**asdict(self), "reader_share": round(self.reader_share, 3)}

    def report(self) -> str:
        """One paragraph of text."""
        return (
            f"{self.format:6s} {self.hands:,} hands"
            f"{f' in {self.files:,} files' if self.files > 1 else ''}, "
            f"{self.megabytes:,.1f} MB ingested in "
            f"{self.seconds:.2f} s (CPU {self.cpu_seconds:.2f} s): "
            f"{self.hands_per_second:,.0f} hands/s, "
            f"{self.megabytes_per_second:,.1f} MB/s, peak memory "
            f"{self.peak_memory_mb:,.0f} MiB\n"
            f"       the reader alone{', files grouped' if self.files > 1 else ''}: "
            f"{self.reader_seconds:.2f} s "
            f"({self.reader_share:.0%} of the ingest); again as duplicates: "
            f"{self.duplicate_seconds:.2f} s, {self.duplicate_hands_per_second:,.0f} hands/s"
        )


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
    from ofc_stats.formats import FileGroupReader, get_reader, sniff
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


def _ingest_child(path: str, warehouse: str, results: multiprocessing.Queue[object]) -> None:
    from ofc_stats.ingest import ingest

    cpu_started = time.process_time()
    first = ingest([path], warehouse)
    cpu_seconds = time.process_time() - cpu_started
    peak = process_peak_mb()
    duplicate = Path(path).with_name("again-" + Path(path).name)
    if Path(path).is_dir():
        shutil.copytree(path, duplicate)
    else:
        shutil.copyfile(path, duplicate)
    again = ingest([duplicate], warehouse)
    _remove(duplicate)
    started = time.perf_counter()
    read_alone(_input_files(Path(path)))
    reader_seconds = time.perf_counter() - started
    results.put((first.as_dict(), again.as_dict(), peak, reader_seconds, cpu_seconds))


def benchmark_ingest(hands: int = 200_000, formats: Sequence[str] | None = None,
                     seed: int = 0, files: int = 1) -> list[IngestBenchmark]:
    """Measure ingest end to end (reading, dedupe, Parquet) for each format.

    Each format's file is ingested by a fresh process (``spawn``): first into an empty
    warehouse (the figures and peak memory reported), then again under another name
    (all duplicates), then read by the format's reader alone, to show what ingest
    adds to reading.
    """
    chosen = [Format(fmt) for fmt in formats] if formats else list(Format)
    results = []
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="ofc-bench-ingest-") as folder:
        for fmt in chosen:
            started = time.perf_counter()
            if files > 1:
                path = Path(folder) / f"bench-{fmt}"
                written = write_files(fmt, path, hands, files, seed)
            else:
                path = Path(folder) / f"bench-{fmt}.{SUFFIXES[fmt]}"
                written = write_format(fmt, path, hands, seed)
            write_seconds = time.perf_counter() - started
            megabytes = sum(file.stat().st_size for file in _input_files(path)) / 1e6
            queue: multiprocessing.Queue[object] = context.Queue()
            child = context.Process(target=_ingest_child,
                                    args=(str(path), str(Path(folder) / f"wh-{fmt}"), queue))
            child.start()
            first, again, peak, reader_seconds, cpu_seconds = cast(
                tuple[dict[str, float], dict[str, float], float, float, float], queue.get())
            child.join()
            results.append(IngestBenchmark(
                format=str(fmt), hands=written, files=len(_input_files(path)),
                megabytes=megabytes,
                seconds=first["seconds"], cpu_seconds=cpu_seconds,
                hands_per_second=first["hands_per_second"],
                megabytes_per_second=first["megabytes_per_second"], peak_memory_mb=peak,
                duplicate_seconds=again["seconds"],
                duplicate_hands_per_second=again["hands_per_second"],
                reader_seconds=reader_seconds, write_seconds=write_seconds))
            _remove(path)
    return results
