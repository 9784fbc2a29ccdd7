"""fpdb-3's SQLite database: its OFC hands read in place, while fpdb-3 may be writing.

fpdb-3 keeps each OFC hand in the ``HttpOFCHands`` table, the whole hand as JSON in
``rawJson`` (the shape :mod:`~ofc_stats.formats.fpdb` reads), one row per hand with an
``id`` that only grows (``AUTOINCREMENT``: a hand captured again is deleted and
inserted anew). :func:`read_database` reads the rows after a given ``id`` with the
standard library's ``sqlite3``, opened read-only (a ``file:...?mode=ro`` URI), in
batches of short queries: no read transaction is held between them, so fpdb-3 is
never kept from committing, and a writer's open transaction does not stop the read
(SQLite readers see the last commit; in WAL mode they never wait, in rollback-journal
mode only while a commit is being written, up to ``timeout`` seconds). The ``id``
read up to is the import's high-water mark: the next import reads only the rows
after it.

:func:`write_database` writes hands into a database with fpdb-3's three OFC tables,
as fpdb-3 does (for tests and benchmarks: a database made as fpdb-3 makes one).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import polars as pl

from ofc_stats.errors import OfcStatsError
from ofc_stats.formats import BATCH_HANDS
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.fpdb import SQLITE_MAGIC, FpdbParser
from ofc_stats.formats.fpdb_writer import hand_parts, raw_json_lines
from ofc_stats.formats.reading import (
    ReadBatch,
    Units,
    empty_problems,
    parse_in_batches,
    problem_rows,
)
from ofc_stats.formats.streaming import strings_between, valid_utf8
from ofc_stats.util.duckdb_connection import duckdb_cursor

HANDS_TABLE = "HttpOFCHands"
# Seconds a read waits while a commit locks a rollback-journal database.
BUSY_TIMEOUT = 10.0
# fpdb-3's OFC tables (docs/formats.md lists their columns).
TABLES = (
    """CREATE TABLE IF NOT EXISTS HttpOFCHands (
        id INTEGER PRIMARY KEY AUTOINCREMENT, site TEXT NOT NULL,
        siteHandNo TEXT NOT NULL UNIQUE, tableName TEXT, startTime TEXT, variant TEXT,
        pineapple INTEGER, deuceToSeven INTEGER, rounds INTEGER, validationStatus TEXT,
        rawJson TEXT)""",
    """CREATE TABLE IF NOT EXISTS HttpOFCPlayers (
        id INTEGER PRIMARY KEY AUTOINCREMENT, ofcHandId INTEGER NOT NULL,
        playerName TEXT NOT NULL, seatNo INTEGER, startStack REAL, points REAL,
        collected REAL, topCards TEXT, middleCards TEXT, bottomCards TEXT)""",
    """CREATE TABLE IF NOT EXISTS HttpOFCRounds (
        id INTEGER PRIMARY KEY AUTOINCREMENT, ofcHandId INTEGER NOT NULL, roundNo INTEGER,
        stepNo INTEGER, playerName TEXT, dealt TEXT, placedJson TEXT, discarded TEXT)""",
)


class FpdbDatabaseError(OfcStatsError):
    """An SQLite database that is not fpdb-3's, or that cannot be read."""


class DatabaseBusyError(FpdbDatabaseError):
    """The database stayed locked by a writer longer than the read waits."""


def is_database(head: bytes) -> bool:
    """Whether a file's first bytes are an SQLite database's."""
    return head.startswith(SQLITE_MAGIC)


def connect_read_only(path: Path | str, timeout: float | None = None) -> sqlite3.Connection:
    """A read-only connection to the database at ``path`` (never writes to it; in WAL
    mode it shares the ``-shm`` index, as every reader does), waiting up to ``timeout``
    seconds (default ``BUSY_TIMEOUT``) while a commit locks it.

    Raises:
        FpdbDatabaseError: it cannot be opened, or holds no ``HttpOFCHands`` table.
        DatabaseBusyError: a writer kept it locked for ``timeout`` seconds.
    """
    uri = Path(path).absolute().as_uri() + "?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True, isolation_level=None,
                                     timeout=BUSY_TIMEOUT if timeout is None else timeout,
                                     check_same_thread=False)
    except sqlite3.Error as error:
        raise FpdbDatabaseError(f"{path}: cannot open the SQLite database: {error}") from None
    connection.text_factory = bytes  # rawJson as bytes: checked as UTF-8 in bulk
    try:
        found = _run(connection, "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                     "AND name = ?", (HANDS_TABLE,), path).fetchone()
    except FpdbDatabaseError:
        connection.close()
        raise
    if found is None:
        connection.close()
        raise FpdbDatabaseError(f"{path}: an SQLite database without fpdb-3's {HANDS_TABLE} "
                                "table (not fpdb-3's database)")
    return connection


def _run(connection: sqlite3.Connection, sql: str, parameters: tuple[object, ...],
         path: Path | str) -> sqlite3.Cursor:
    """Run one statement (autocommit: its read lock ends with it)."""
    try:
        return connection.execute(sql, parameters)
    except sqlite3.OperationalError as error:
        if "locked" in str(error) or "busy" in str(error):
            raise DatabaseBusyError(
                f"{path}: the database is locked by a writer (fpdb-3 committing?): "
                "read again later") from None
        raise FpdbDatabaseError(f"{path}: {error}") from None
    except sqlite3.DatabaseError as error:
        raise FpdbDatabaseError(f"{path}: {error}") from None


def high_water(connection: sqlite3.Connection, path: Path | str) -> int:
    """The largest ``id`` of ``HttpOFCHands`` (0 when it is empty)."""
    value = _run(connection, f"SELECT max(id) FROM {HANDS_TABLE}", (), path).fetchone()[0]
    return int(value or 0)


def row_digest(connection: sqlite3.Connection, row_id: int, path: Path | str) -> str | None:
    """SHA-256 of the ``rawJson`` of row ``row_id``, or None if there is no such row
    (a database that still has it as it was is the one imported before)."""
    found = _run(connection, f"SELECT rawJson FROM {HANDS_TABLE} WHERE id = ?",
                 (row_id,), path).fetchone()
    if found is None:
        return None
    raw = found[0] or b""
    return hashlib.sha256(raw if isinstance(raw, bytes) else str(raw).encode()).hexdigest()


def _units(connection: sqlite3.Connection, path: Path | str, file: str, after_id: int,
           batch_hands: int) -> Iterator[Units]:
    """The rows after ``after_id`` as units: ``line`` is the row's ``id``."""
    last = after_id
    while True:
        rows = _run(connection, f"SELECT id, coalesce(rawJson, x'') "
                    f"FROM {HANDS_TABLE} WHERE id > ? ORDER BY id LIMIT ?",
                    (last, batch_hands), path).fetchall()
        if not rows:
            return
        ids, texts = zip(*rows, strict=True)
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        data, bad = valid_utf8(b"\n".join(texts))
        starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1])).astype(np.int64)
        ends = starts + lengths
        frame = pl.DataFrame({"line": np.asarray(ids, dtype=np.int64),
                              "text": strings_between(data, starts, ends)})
        problems = empty_problems()
        if len(bad):  # rare: rows whose bytes are not UTF-8, set aside
            row_of_byte = np.searchsorted(starts, bad, side="right") - 1
            broken, first = np.unique(row_of_byte, return_index=True)
            problems = problem_rows(
                file, frame["line"].gather(broken), "encoding",
                [f"rawJson bytes that are not valid UTF-8 at byte {int(at)}"
                 for at in bad[first] - starts[broken]],
                frame["text"].gather(broken))
            frame = frame.filter(~pl.int_range(pl.len()).is_in(broken.tolist()))
        last = int(ids[-1])
        yield Units(frame, problems, len(data), last)


def read_database(path: Path | str, file: str | None = None, *, after_id: int = 0,
                  batch_hands: int = BATCH_HANDS, timeout: float | None = None
                  ) -> Iterator[ReadBatch]:
    """The hands of fpdb-3's database at ``path`` whose ``HttpOFCHands.id`` is above
    ``after_id``, in batches; each batch's ``end_offset`` is the last ``id`` it read.

    Hands and problems are located by ``file`` (default: the path) and, as their
    ``line``, the row's ``id``.

    Raises:
        FpdbDatabaseError: not fpdb-3's database, or damaged.
        DatabaseBusyError: a writer kept it locked for ``timeout`` seconds.
    """
    name = str(path) if file is None else file
    connection = connect_read_only(path, timeout)
    try:
        yield from parse_in_batches(
            lambda _limit: _units(connection, path, name, after_id, max(1, batch_hands)),
            FpdbParser(name, b""), name, batch_hands)
    finally:
        connection.close()


def _round_rows(lines: pl.Series) -> pl.DataFrame:
    """``HttpOFCRounds``' columns of each round of the hands' JSON lines (``hand``: the
    hand's position in ``lines``)."""
    structure = json.dumps({"rounds": [{
        "round": "BIGINT", "step_num": "BIGINT", "player": "VARCHAR", "dealt": ["VARCHAR"],
        "placed": "JSON", "discarded": ["VARCHAR"]}]})
    connection = duckdb_cursor()
    try:
        connection.register("lines", pl.DataFrame({"line": lines}).with_row_index("hand"))
        rounds: pl.DataFrame = connection.sql(
            f"SELECT hand, unnest(json_transform(line, '{structure}').rounds, recursive := true) "
            "FROM lines").pl()
    finally:
        connection.close()
    # fpdb-3 stores placements with json.dumps(sort_keys=True): ", " and ": " apart.
    placed = (rounds["placed"].str.replace_all('","', '", "', literal=True)
              .str.replace_all('":', '": ', literal=True)
              .str.replace_all('],"', '], "', literal=True))
    return rounds.select(
        "hand", "round", "step_num", "player", pl.col("dealt").list.join(" "),
        placed.alias("placed"), pl.col("discarded").list.join(" "))


def write_database(batches: Iterable[CanonicalBatch], path: Path | str) -> int:
    """Write every hand of ``batches`` into the SQLite database at ``path`` (created if
    missing), in fpdb-3's three OFC tables as fpdb-3 fills them; return the hands written.

    A hand already there (the same ``siteHandNo``) is replaced, as fpdb-3 replaces a
    hand captured again: deleted, then inserted with a new ``id``.
    """
    written = 0
    with sqlite3.connect(path) as connection:
        for statement in TABLES:
            connection.execute(statement)
        for batch in batches:
            if batch.hands.is_empty():
                continue
            parts = hand_parts(batch)
            lines = raw_json_lines(batch)
            hands = parts.select("hand_id", "site", "_variant", "round_count").with_columns(
                lines.alias("raw"))
            numbers = json.dumps(hands["hand_id"].to_list())
            _replace(connection, numbers)
            rows = hands.join(batch.hands.select("hand_id", "table", "started_at"),
                              on="hand_id", how="left", maintain_order="left").select(
                "site", "hand_id", "table",
                pl.col("started_at").dt.strftime("%Y-%m-%dT%H:%M:%S%.6fZ"),
                pl.when(pl.col("_variant") == "classic").then(pl.lit("ofc"))
                .otherwise(pl.lit("ofcp")).alias("variant"),
                (pl.col("_variant") != "classic").cast(pl.Int64).alias("pineapple"),
                "round_count", "raw")
            connection.executemany(
                f"INSERT INTO {HANDS_TABLE} (site, siteHandNo, tableName, startTime, variant, "
                "pineapple, deuceToSeven, rounds, validationStatus, rawJson) "
                "VALUES (?, ?, ?, ?, ?, ?, 0, ?, 'valid', ?)", rows.iter_rows())
            stored = dict(connection.execute(
                f"SELECT siteHandNo, id FROM {HANDS_TABLE} WHERE siteHandNo IN "
                "(SELECT value FROM json_each(?))", (numbers,)).fetchall())
            ids = hands["hand_id"].replace_strict(stored, return_dtype=pl.Int64).to_list()
            hand_ids = pl.Series("ofcHandId", ids, dtype=pl.Int64)
            seats = batch.seats.join(
                batch.hands.select("site", "hand_id").with_columns(hand_ids),
                on=["site", "hand_id"], how="left", maintain_order="left")
            connection.executemany(
                "INSERT INTO HttpOFCPlayers (ofcHandId, playerName, seatNo, startStack, points, "
                "collected, topCards, middleCards, bottomCards) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                seats.select(
                    "ofcHandId", "player", pl.col("seat").cast(pl.Int64),
                    pl.col("starting_stack").cast(pl.Float64).fill_null(0.0),
                    pl.col("reported_points").cast(pl.Float64).fill_null(0.0),
                    pl.col("collected").cast(pl.Float64).fill_null(0.0),
                    *(pl.col(row).fill_null("").str.replace_all(r"(^| )T", "${1}10")
                      for row in ("top", "middle", "bottom"))).iter_rows())
            rounds = _round_rows(lines).with_columns(
                pl.lit(hand_ids).gather(pl.col("hand")).alias("ofcHandId"))
            connection.executemany(
                "INSERT INTO HttpOFCRounds (ofcHandId, roundNo, stepNo, playerName, dealt, "
                "placedJson, discarded) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rounds.select("ofcHandId", "round", "step_num", "player", "dealt", "placed",
                              "discarded").iter_rows())
            written += batch.hands.height
    return written


def _replace(connection: sqlite3.Connection, site_hand_numbers: str) -> None:
    """Delete the hands stored before under these numbers (a JSON list), with their
    players and rounds."""
    hands = (f"SELECT id FROM {HANDS_TABLE} WHERE siteHandNo IN "
             "(SELECT value FROM json_each(?))")
    for table in ("HttpOFCPlayers", "HttpOFCRounds"):
        connection.execute(f"DELETE FROM {table} WHERE ofcHandId IN ({hands})",
                           (site_hand_numbers,))
    connection.execute(f"DELETE FROM {HANDS_TABLE} WHERE id IN ({hands})", (site_hand_numbers,))
