"""Progress reporting: what a running ingest has done so far, for progress bars."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ofc_stats.ingest.sources import ByteCounter
from ofc_stats.ingest.summary import EXAMPLES


@dataclass(frozen=True)
class IngestProgress:
    """A snapshot of a running ingest, for progress bars."""

    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    hands_read: int
    hands_stored: int
    seconds: float
    current: str | None


ProgressCallback = Callable[[IngestProgress], None]


@dataclass
class Tally:
    """What a run has counted so far, over all its files (the summary's numbers)."""

    files_total: int = 0  # sources considered (files, and each member of a zip)
    files_done: int = 0
    bytes_total: int = 0  # of the files named, on disk
    files_read: int = 0
    files_unchanged: int = 0
    files_failed: int = 0
    hands_read: int = 0
    hands_stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    rejected: int = 0
    kinds: Counter[str] = field(default_factory=Counter)  # problems by kind
    examples: list[str] = field(default_factory=list)  # the first few, one line each

    def note_problems(self, problems: Iterable[tuple[str, int | None, str, str]]) -> None:
        """Keep the first few problems (file, line, kind, reason) as lines."""
        for file, line, kind, reason in problems:
            if len(self.examples) >= EXAMPLES:
                return
            where = file if line is None else f"{file}:{line}"
            self.examples.append(f"{where}: {kind}: {reason.removeprefix(f'{file}: ')}")


class ProgressReporter:
    """Gives a :data:`ProgressCallback` (if there is one) a run's progress."""

    def __init__(self, callback: ProgressCallback | None, tally: Tally, counter: ByteCounter,
                 started: float) -> None:
        self.callback = callback
        self.tally = tally
        self.counter = counter
        self.started = started

    def __call__(self, current: str | None) -> None:
        """Report, ``current`` being the file being read (None: between files)."""
        if self.callback is None:
            return
        tally = self.tally
        self.callback(IngestProgress(
            files_done=tally.files_done, files_total=tally.files_total,
            bytes_done=min(self.counter.count, tally.bytes_total),
            bytes_total=tally.bytes_total, hands_read=tally.hands_read,
            hands_stored=tally.hands_stored, seconds=time.perf_counter() - self.started,
            current=current))
