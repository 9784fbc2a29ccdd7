"""Grouping small files: a folder of sessions parsed a group at a time, not file by file.

A batch's fixed cost (tens of milliseconds) dwarfs a small file's own, so a file up to
``SMALL_FILE_BYTES`` is split whole as it is found (:meth:`FileGroups.add`) and
parsed with the other small files of its format in one batch, on a thread while the
next files are split. Groups are accepted in file order all the same, and a hand that
several files of a group hold is accepted copy by copy in file order, so the copy
kept is the one reading each file alone would keep.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import BinaryIO, cast

import polars as pl

from ofc_stats import formats
from ofc_stats.formats import FileGroupReader, Format
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.reading import BATCH_BYTES, PARSE_THREADS, SplitFile
from ofc_stats.ingest.manifest import FileRun, ImportStatus
from ofc_stats.ingest.reading import Sink
from ofc_stats.ingest.sources import ByteCounter, OpenArchive, PrefixHashingStream, open_source

# Files up to this size are read whole and parsed with others in one batch: a batch's
# fixed cost (tens of milliseconds) dwarfs a small file's own (one file per session),
# and groups of files are parsed side by side where one file alone would use one core.
# A file found to hold more than a batch of hands is read in batches instead.
SMALL_FILE_BYTES = 16 << 20
GROUP_BYTES = BATCH_BYTES  # a group is parsed once this much is split, at the latest
# Groups being parsed (each on its own thread) while the next files are split.
GROUPS_IN_FLIGHT = PARSE_THREADS


@dataclass(frozen=True)
class GroupedFile:
    """A small file split whole, waiting to be parsed with others."""

    run: FileRun
    reader: FileGroupReader
    split: SplitFile
    digest: str | None  # of its bytes up to the end of its last complete hand


class FileGroups:
    """The small files of a run split so far, and the groups being parsed."""

    def __init__(self, sink: Sink, counter: ByteCounter, archives: OpenArchive,
                 batch_hands: int) -> None:
        self.sink = sink
        self.counter = counter
        self.archives = archives
        self.batch_hands = batch_hands
        self.items: list[GroupedFile] = []  # small files split, not yet parsed
        self.hands = self.bytes = 0  # of those
        # The groups being parsed while the next files are split (flush), oldest first.
        self.pool = ThreadPoolExecutor(max_workers=GROUPS_IN_FLIGHT,
                                       thread_name_prefix="ofc-parse-group")
        self.parsing: deque[tuple[list[GroupedFile], Future[CanonicalBatch]]] = deque()

    def add(self, run: FileRun) -> bool:
        """Split a small file read whole and keep it for :meth:`flush`; False if it
        is not one (too big, or in a format read file by file)."""
        source = run.source
        size = source.content_size
        if size is None:  # gz, bz2, xz: judged by the packed size, the content ~10x it
            size = source.size * 16
        reader = formats.get_reader(Format(str(run.format)))
        if size > SMALL_FILE_BYTES or not isinstance(reader, FileGroupReader):
            return False
        counted = self.counter.count
        try:
            with open_source(source, self.counter, self.archives) as raw:
                stream = PrefixHashingStream(raw)
                split = reader.split_file(cast(BinaryIO, stream), source.name,
                                          max_hands=self.batch_hands)
                end_offset = split.end_offset or 0
                stream.advance(end_offset)
                digest = stream.digest()
        except Exception as error:
            self.sink.fail(run, error)
            return True
        if split.hands > self.batch_hands:  # more than a batch: read it in batches
            self.counter.count = counted
            return False
        self.items.append(GroupedFile(run, reader, split, digest))
        self.hands += split.hands
        self.bytes += end_offset
        if self.hands >= self.batch_hands or self.bytes >= GROUP_BYTES:
            self.flush(later=True)
        return True

    def flush(self, *, later: bool = False) -> None:
        """Parse the small files kept so far (each format's together) and accept them.

        With ``later``, the group is parsed on a thread while the next files are split
        (``GROUPS_IN_FLIGHT`` at most); groups are accepted in file order all the same.
        """
        items, self.items = self.items, []
        self.hands = self.bytes = 0
        if items:
            self.parsing.append((items, self.pool.submit(parse_group, items)))
        while self.parsing and (not later or len(self.parsing) > GROUPS_IN_FLIGHT
                                or self.parsing[0][1].done()):
            self._accept(*self.parsing.popleft())

    def _accept(self, items: list[GroupedFile], parsed: Future[CanonicalBatch]) -> None:
        """Accept a parsed group.

        A hand held by several files of the group is accepted copy by copy in file
        order (a batch cannot tell copies' seats and streets apart, and the first copy
        in file order is the one kept): the group's other hands go in one batch, then
        each round of copies is parsed again from its source text and accepted.
        """
        try:
            batch = parsed.result()
        except Exception:
            # Readers do not raise for bad input; should one, each file is read alone,
            # so that the failure is told per file.
            for item in items:
                counted = self.counter.count  # its bytes were counted when split
                self.sink.read_alone(item.run)
                self.counter.count = counted
            return
        runs = {item.run.source.name: item.run for item in items}
        ids = ["site", "hand_id"]
        order = {item.run.source.name: index for index, item in enumerate(items)}
        copies = (batch.hands.select(*ids, "source_file", "source_line")
                  .with_columns(pl.col("source_file").replace_strict(order, return_dtype=pl.Int64)
                                .alias("_order"))
                  .filter(pl.col("_order").n_unique().over(ids) > 1))
        if copies.is_empty():
            self.sink.accept(batch, runs)
        else:
            shared = copies.select(ids).unique()
            others = [frame.join(shared, on=ids, how="anti", maintain_order="left")
                      for frame in (batch.hands, batch.seats, batch.streets)]
            self.sink.accept(CanonicalBatch(others[0], others[1], others[2], batch.problems), runs)
            rounds = copies.with_columns(
                (pl.col("_order").rank("dense").over(ids) - 1).alias("_round"))
            for _, copy_round in rounds.group_by("_round", maintain_order=True):
                self.sink.accept(parse_group(items, copy_round), runs)
        for item in items:
            item.run.end_offset = item.split.end_offset or 0
            item.run.digest = item.digest
            item.run.dirty = True
            if item.split.failure is None:
                item.run.status = ImportStatus.COMPLETE
            else:  # its hands before the damage are in; the damage is reported
                self.sink.fail(item.run, item.split.failure)
        self.sink.batch_done(None)

    def close(self) -> None:
        """Stop parsing; a group still being parsed is dropped (none of its files was
        committed: the next run reads them)."""
        self.pool.shutdown(wait=True, cancel_futures=True)


def parse_group(items: Sequence[GroupedFile], only: pl.DataFrame | None = None
                ) -> CanonicalBatch:
    """The hands of grouped files as one batch (each format parsed together); with
    ``only`` (``source_file``, ``source_line`` rows), just those hands, and no
    problems of the files' splitting (reported with the rest of the group)."""
    splits: dict[str, tuple[FileGroupReader, list[SplitFile]]] = {}
    for item in items:
        split = item.split
        if only is not None:
            lines = only.filter(pl.col("source_file") == split.file)["source_line"]
            if lines.is_empty():
                continue
            split = dataclasses.replace(split, parts=[part.only(lines)
                                                      for part in split.parts])
        splits.setdefault(str(item.run.format), (item.reader, []))[1].append(split)
    return CanonicalBatch.concat([reader.parse_files(files)
                                  for reader, files in splits.values()])
