"""Hand histories read on Spark, with the local readers and ingest's rules.

:func:`read_histories` lists the files the way ``ofc-stats ingest`` finds them
(folders walked for history suffixes, a file named directly always read), has
Spark read their bytes (the ``binaryFile`` source: any file system Spark reaches)
and parses each file on an executor with the local reader of its format (sniffed
or forced; gzip, bzip2, xz and zip unpacked as they are locally). What each reader
batch gives is ingest's canonical frames, with their problems.

The copies of a hand are then settled as ingest settles them: the first copy in file
order (the order ingest reads the files in, then the line) is kept; a later copy with
the same content and the same reported details is a duplicate (dropped); any other
later copy is a ``conflict`` reject naming the kept copy. ``hand_keys``'
fingerprints, ``differing_details`` and the reject's text are ingest's own
functions; only the "which copy came first" is Spark's (a window by hand).

One difference, on purpose: ingest stores the seats and streets of a hand by
``(site, hand_id)`` alone, so copies that differ inside one reader batch can leave a
hand stored without streets; here every seat and street row keeps the copy it came
from, and the kept copy always keeps its own.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import io
import os
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote, urlparse

import numpy as np
import polars as pl
import pyarrow as pa  # type: ignore[import-untyped]
from pyspark import StorageLevel
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ofc_stats import formats
from ofc_stats.formats import SNIFF_BYTES, Format, UnknownFormatError
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.ingest.conflicts import conflict_reject_rows, differing_details, seat_lines
from ofc_stats.ingest.keys import DETAILS, _seat_hand_rows, detail_matrix, hand_keys
from ofc_stats.ingest.reading import failure_reason as _describe
from ofc_stats.ingest.reading import file_reject as _reject
from ofc_stats.ingest.run import READ_BATCH_HANDS, _as_format
from ofc_stats.ingest.sources import (
    GLOB_CHARACTERS,
    Compression,
    Source,
    SourceError,
    decompressed,
    detect_compression,
    inner_name,
    looks_like_history,
    stream_head,
    zip_members,
)
from ofc_stats.spark.frames import (
    arrow_batches,
    arrow_schema,
    combined_schema,
    from_arrow,
    map_whole_groups,
    spark_schema,
    tagged_batches,
)
from ofc_stats.warehouse.schemas import (
    HANDS_SCHEMA,
    PROBLEMS_SCHEMA,
    SEATS_SCHEMA,
    STREETS_SCHEMA,
)

# Columns every part's rows may carry besides its own (null where they do not apply).
# A hand copy is told apart from other copies by the file and line it starts at:
# ``_file`` and ``_line`` on its hand, seat and street rows.
META = {
    "_order": pl.Int64(),  # the file's place in ingest's reading order
    "_member": pl.Int32(),  # the zip member's place in its archive (0 for a plain file)
    "_batch": pl.Int32(),  # the reader batch of the file the hand came in
    "_single": pl.Boolean(),  # the hand is in that batch once
    "_file": pl.String(),
    "_line": pl.Int64(),
    # hand_keys' detail fingerprints, their bits as signed integers (Spark has no
    # unsigned ones); null where the hand does not record the detail
    **{f"_{name}": pl.Int64() for name in DETAILS},
}
PARTS = {"hands": HANDS_SCHEMA, "seats": SEATS_SCHEMA, "streets": STREETS_SCHEMA,
         "rejects": PROBLEMS_SCHEMA}
PARSED_SCHEMA = combined_schema(PARTS, META)
HAND = ["site", "hand_id"]
COPY = [*HAND, "_file", "_line"]
LISTING = T.StructType([T.StructField("path", T.StringType()),
                        T.StructField("_name", T.StringType()),
                        T.StructField("_order", T.LongType())])


@dataclass(frozen=True)
class SparkHistories:
    """What :func:`read_histories` read: the canonical tables as Spark DataFrames
    (``hands``, ``seats``, ``streets`` and ``rejects`` with the warehouse's columns),
    every hand once. The parsed files are kept (``persist``) until :meth:`unpersist`.
    """

    hands: DataFrame
    seats: DataFrame
    streets: DataFrame
    rejects: DataFrame
    duplicates: DataFrame  # the copies dropped as duplicates (their hand rows)
    files: int  # files read (a zip archive counts once)
    bytes: int  # their size
    ignored: int  # files in folders skipped for a suffix that is not a history's
    parsed: DataFrame  # the parse every table comes from
    later: DataFrame  # the later copies of hands, judged

    def counts(self) -> dict[str, int]:
        """Hands stored, duplicates, conflicts and other rejects (runs Spark jobs)."""
        kinds = {row["kind"]: row["count"]
                 for row in self.rejects.groupBy("kind").count().collect()}
        conflicts = int(kinds.pop("conflict", 0))
        return {"files": self.files, "ignored": self.ignored, "hands": self.hands.count(),
                "duplicates": self.duplicates.count(), "conflicts": conflicts,
                "rejected": int(sum(kinds.values()))}

    def unpersist(self) -> None:
        """Free the kept parse and copies."""
        self.parsed.unpersist()
        self.later.unpersist()


# -- which files, in which order ------------------------------------------------------


def _local_name(uri: str) -> str:
    """How hands and rejects name a file: the resolved path for a local file (as
    ingest names it), the URI for any other file system."""
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return os.path.realpath(unquote(parsed.path))
    return uri


def _walk_key(name: str) -> tuple[tuple[int, str], ...]:
    """Sorts paths in the order ingest walks a folder: at each level a folder's files
    (by name) before its sub-folders (by name)."""
    parts = PurePosixPath(name).parts
    return (*((1, part) for part in parts[:-1]), (0, parts[-1] if parts else ""))


def _given_name(given: str) -> str:
    return _local_name(given if urlparse(given).scheme else os.path.abspath(
        os.path.expanduser(given)))


def list_history_files(spark: SparkSession, paths: Sequence[str]
                       ) -> tuple[list[tuple[str, str, int]], int]:
    """The files ``paths`` name, in ingest's reading order: ``(uri, name, size)``, and
    how many files folder walks skipped for their suffix.

    Each path is a file (always read), a folder (walked for history suffixes) or a
    glob; Spark lists them (any file system it reaches). Spark leaves out names that
    start with ``.`` (as ingest does) or ``_``.

    Raises:
        SourceError: a path that does not exist, or a glob that matches nothing.
    """
    found: dict[str, tuple[str, int]] = {}
    ignored = 0
    for given in paths:
        try:
            listed = (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
                      .load(given).select("path", "length").collect())
        except AnalysisException:
            is_glob = any(character in GLOB_CHARACTERS for character in given)
            raise SourceError(f"no files match {given}" if is_glob
                              else f"no such file or folder: {given}") from None
        pattern = _given_name(given)
        is_glob = any(character in GLOB_CHARACTERS for character in given)
        files = sorted(((row["path"], _local_name(row["path"]), int(row["length"]))
                        for row in listed), key=lambda item: _walk_key(item[1]))
        for uri, name, size in files:
            named = name == pattern or (is_glob and fnmatch.fnmatchcase(name, pattern))
            if not named and not looks_like_history(PurePosixPath(name)):
                ignored += 1
            elif uri not in found:
                found[uri] = (name, size)
    return [(uri, name, size) for uri, (name, size) in found.items()], ignored


# -- one file on an executor ------------------------------------------------------------


def _street_lines(hands: pl.DataFrame, streets: pl.DataFrame) -> pl.Series:
    """The ``source_line`` of the hand copy each street row belongs to.

    Readers list a batch's streets hand by hand in the hands' order, each hand's
    actions numbered from 0: so the k-th run starting at 0 is the k-th hand with
    streets. Where that does not hold (no reader does so today), rows go to the first
    copy of their hand.
    """
    if streets.is_empty():
        return pl.Series("_line", [], dtype=pl.Int64)
    with_streets = hands.filter(pl.col("has_streets"))
    runs = np.cumsum((streets["action_order"] == 0).to_numpy()) - 1
    if runs[-1] == with_streets.height - 1 and runs.min() >= 0:
        rows = pl.Series(runs)
        if ((streets["hand_id"] == with_streets["hand_id"].gather(rows)).all()
                and (streets["site"] == with_streets["site"].gather(rows)).all()):
            return with_streets["source_line"].gather(rows).alias("_line")
    firsts = hands.unique(HAND, keep="first", maintain_order=True).select(
        *HAND, pl.col("source_line").alias("_line"))
    return streets.join(firsts, on=HAND, how="left", maintain_order="left")["_line"]


def _batch_frames(batch: CanonicalBatch, file: str, order: int, member: int, number: int,
                  schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The rows of one reader batch, each tagged with the copy of its hand."""
    hands, seats = batch.hands, batch.seats
    copy = {"_file": pl.lit(file), "_order": pl.lit(order, pl.Int64),
            "_member": pl.lit(member, pl.Int32), "_batch": pl.lit(number, pl.Int32)}
    if hands.height:
        keys = hand_keys(hands, seats)
        hand_rows = _seat_hand_rows(hands, seats)
        yield from tagged_batches(hands.with_columns(
            **copy, _line=pl.col("source_line"),
            _single=~pl.struct(HAND).is_duplicated(),
            **{f"_{name}": keys[name].reinterpret(signed=True) for name in DETAILS}),
            "hands", schema)
        yield from tagged_batches(seats.with_columns(
            _file=pl.lit(file), _line=hands["source_line"].gather(hand_rows)), "seats", schema)
        yield from tagged_batches(batch.streets.with_columns(
            pl.lit(file).alias("_file"), _street_lines(hands, batch.streets)),
            "streets", schema)
    yield from tagged_batches(batch.problems, "rejects", schema)


def _source_batches(content: bytes, name: str, compression: Compression, member: str | None,
                    order: int, member_index: int, forced: Format | None, batch_hands: int,
                    schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """One source (a file, or a zip member) read as ingest reads it."""
    source = Source(PurePosixPath(name), member, compression, len(content), 0)  # type: ignore[arg-type]
    source_name = name if member is None else f"{name}!{member}"
    try:
        with contextlib.ExitStack() as stack:
            head = stream_head(decompressed(stack, io.BytesIO(content), compression, member),
                               SNIFF_BYTES)
        if not head:
            return  # an empty file (a session just opened): nothing yet
        fmt = forced or formats.sniff(head, inner_name(source_name, compression))
    except UnknownFormatError as error:
        yield from tagged_batches(_reject(source_name, "format", str(error)), "rejects", schema)
        return
    except Exception as error:
        reason, _ = _describe(error, source)
        yield from tagged_batches(_reject(source_name, "file", reason), "rejects", schema)
        return
    reader = formats.get_reader(fmt)
    end_offset = 0
    with contextlib.ExitStack() as stack:
        stream = decompressed(stack, io.BytesIO(content), compression, member)
        try:
            for number, read in enumerate(reader.read(stream, source_name,
                                                      batch_hands=batch_hands)):
                yield from _batch_frames(read.batch, source_name, order, member_index,
                                         number, schema)
                end_offset = max(end_offset, read.end_offset)
        except Exception as error:
            reason, _ = _describe(error, source)
            if end_offset > 0:
                reason += f" (after byte {end_offset:,} of its content)"
            yield from tagged_batches(_reject(source_name, "file", reason), "rejects", schema)


def _file_batches(content: bytes, name: str, order: int, forced: Format | None,
                  batch_hands: int, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    compression = detect_compression(content[:8])
    if compression is not Compression.ZIP:
        yield from _source_batches(content, name, compression, None, order, 0, forced,
                                   batch_hands, schema)
        return
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            members = list(zip_members(archive))
    except (OSError, zipfile.BadZipFile) as error:
        source = Source(PurePosixPath(name), None, compression, len(content), 0)  # type: ignore[arg-type]
        reason, _ = _describe(error, source)
        yield from tagged_batches(_reject(name, "file", reason), "rejects", schema)
        return
    for index, member in enumerate(members):
        yield from _source_batches(content, name, compression, member, order, index, forced,
                                   batch_hands, schema)


def _parse_files(batches: Iterable[pa.RecordBatch], *, forced: Format | None,
                 batch_hands: int, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        names = batch.column("_name").to_pylist()
        orders = batch.column("_order").to_pylist()
        contents = batch.column("content")
        for index, (name, order) in enumerate(zip(names, orders, strict=True)):
            yield from _file_batches(contents[index].as_py(), name, order, forced,
                                     batch_hands, schema)


# -- copies of a hand ---------------------------------------------------------------------

KEPT = {"content_hash": "_kept_hash", "source_file": "_kept_file",
        "source_line": "_kept_line", "_file": "_kept_copy_file", "_batch": "_kept_batch",
        **{f"_{name}": f"_kept_{name}" for name in DETAILS}}
LATER_SCHEMA = pl.Schema({**{name: pl.String() for name in HAND}, "_file": pl.String(),
                          "_line": pl.Int64(), "_details": pl.Int64(),
                          "_conflict": pl.Boolean(), "_verb": pl.String()})
SEAT_TEXT_SCHEMA = pl.Schema({**{name: LATER_SCHEMA[name] for name in COPY},
                              "_seats": pl.String()})


def _details(frame: pl.DataFrame, prefix: str) -> np.ndarray:
    return detail_matrix(frame.select(
        pl.col(f"{prefix}{name}").reinterpret(signed=False).alias(name) for name in DETAILS))


def _classify(frame: pl.DataFrame) -> pl.DataFrame:
    """Later copies of hands: a duplicate, or a conflict (with the differing_details
    mask of a copy of the same content, and where the kept copy was read)."""
    same = (frame["content_hash"] == frame["_kept_hash"]).fill_null(False).to_numpy()
    details = np.where(same, differing_details(_details(frame, "_"),
                                               _details(frame, "_kept_")), 0)
    # Ingest says "read" of a copy kept from the same reader batch, else "stored".
    same_batch = ((frame["_kept_copy_file"] == frame["_file"])
                  & (frame["_kept_batch"] == frame["_batch"])).fill_null(False)
    return frame.select(
        *HAND, "_file", "_line", pl.Series("_details", details, dtype=pl.Int64),
        pl.Series("_conflict", ~same | (details > 0)),
        pl.when(same_batch).then(pl.lit("read")).otherwise(pl.lit("stored")).alias("_verb"))


def _map_frames(batches: Iterable[pa.RecordBatch], *, work: functools.partial[pl.DataFrame],
                schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        yield from arrow_batches(work(from_arrow(batch)), schema)


def map_frames(frame: DataFrame, work: functools.partial[pl.DataFrame], schema: pl.Schema
               ) -> DataFrame:
    """A local frame function over each Arrow batch of ``frame`` (rows independent)."""
    struct = spark_schema(schema)
    return frame.mapInArrow(functools.partial(_map_frames, work=work,
                                              schema=arrow_schema(struct)), struct)


def _seat_text(seats: pl.DataFrame) -> pl.DataFrame:
    return seat_lines(seats, COPY)


def _conflict_rows(frame: pl.DataFrame) -> pl.DataFrame:
    return conflict_reject_rows(frame)


def read_histories(spark: SparkSession, paths: str | Sequence[str],
                   format: str = "auto", *, batch_hands: int = READ_BATCH_HANDS,
                   partitions: int | None = None) -> SparkHistories:
    """Read hand-history files on Spark into the warehouse's canonical tables.

    Args:
        spark: the session.
        paths: files, folders and globs (local paths or any URI Spark reads:
            ``s3a://``, ``abfss://``, ``dbfs:/``...); plain or gzip/bzip2/xz/zip.
        format: ``auto`` (sniff each file) or a format to force (``jsonl``, ``text``,
            ``csv``, ``fpdb``).
        batch_hands: hands per reader batch, as ``ingest`` reads them.
        partitions: spread the files over this many tasks (default: as Spark's file
            scan packs them, by size).

    Returns:
        :class:`SparkHistories`: every hand once, its seats and streets, and the
        rejects (problems, unreadable files, conflicts) as ``ofc-stats ingest``
        would store them.

    Raises:
        SourceError: a path that does not exist, or a glob that matches nothing.
        UnknownFormatOptionError: ``format`` is not a format.
    """
    forced = _as_format(format)
    given = [paths] if isinstance(paths, str) else list(paths)
    listed, ignored = list_history_files(spark, given)
    struct = spark_schema(PARSED_SCHEMA)
    parse = functools.partial(_parse_files, forced=forced, batch_hands=max(1, batch_hands),
                              schema=arrow_schema(struct))
    if listed:
        order = spark.createDataFrame(
            [(uri, name, rank) for rank, (uri, name, _) in enumerate(listed)], LISTING)
        files = (spark.read.format("binaryFile").load([uri for uri, _, _ in listed])
                 .select("path", "content").join(F.broadcast(order), on="path"))
        if partitions:
            files = files.repartition(partitions)
        parsed = files.mapInArrow(parse, struct)
    else:
        parsed = spark.createDataFrame([], struct)
    parsed = parsed.persist(StorageLevel.MEMORY_AND_DISK)

    def part(kind: str) -> DataFrame:
        number = list(PARTS).index(kind)
        return parsed.where(F.col("_kind") == number).select(
            *META, *(F.col(f"{kind}.{name}").alias(name) for name in PARTS[kind]))

    hands = part("hands")
    copies = Window.partitionBy(*HAND).orderBy("_order", "_member", "_line")
    ranked = hands.withColumn("_copy", F.row_number().over(copies)).withColumns(
        {kept: F.first(name).over(copies) for name, kept in KEPT.items()})
    later = ranked.where(F.col("_copy") > 1)
    classified = map_frames(later.select(*HAND, "_file", "_line", "content_hash",
                                         "_batch", *KEPT.values(),
                                         *(f"_{name}" for name in DETAILS)),
                            functools.partial(_classify), LATER_SCHEMA
                            ).persist(StorageLevel.MEMORY_AND_DISK)  # every table reads it
    dropped = classified.select(*COPY)

    def kept_rows(kind: str) -> DataFrame:
        return (part(kind).join(dropped, on=COPY, how="left_anti")
                .select(*PARTS[kind]))

    conflicts = classified.where(F.col("_conflict")).join(
        ranked.select(*COPY, "source_file", "source_line", "content_hash", "variant", "table",
                      "started_at", "_single", "_kept_hash", "_kept_file", "_kept_line"),
        on=COPY)
    # The raw text of a conflict shows its seats where its reader batch held it once.
    conflict_seats = part("seats").join(conflicts.where(F.col("_single")).select(*COPY),
                                        on=COPY, how="left_semi")
    seat_text = map_whole_groups(conflict_seats, COPY, ["seat"], _seat_text, SEAT_TEXT_SCHEMA)
    conflict_rows = map_frames(conflicts.join(seat_text, on=COPY, how="left"),
                               functools.partial(_conflict_rows), PROBLEMS_SCHEMA)
    rejects = part("rejects").select(*PROBLEMS_SCHEMA).unionByName(conflict_rows)
    duplicates = (classified.where(~F.col("_conflict")).select(*COPY)
                  .join(hands, on=COPY).select(*HANDS_SCHEMA))
    return SparkHistories(
        hands=kept_rows("hands"), seats=kept_rows("seats"), streets=kept_rows("streets"),
        rejects=rejects, duplicates=duplicates, files=len(listed),
        bytes=sum(size for _, _, size in listed), ignored=ignored,
        parsed=parsed, later=classified)
