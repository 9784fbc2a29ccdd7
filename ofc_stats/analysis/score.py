"""``ofc-stats score``: run the scorer over every stored hand.

Reads the warehouse's ``seats`` files one at a time (a hand's boards are contiguous
in one file, and each seat row carries its hand's variant, table and time, so no
join is needed), scores the hands not yet scored, and writes ``player_hands`` and
``matchups`` into a partition named after the scoring: ``default`` (each hand under
the warehouse's house rules, ``ofc-stats.toml``, or else the preset its variant
implies) or the name of a forced ruleset, a what-if stored beside the default, never
over it. Then it follows Fantasyland across hands
(:mod:`ofc_stats.analysis.fantasyland`) for the default scoring.

Memory is bounded by one seats file (ingest writes batches; compaction caps files
at about two million rows) plus the keys of the hands already scored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import polars as pl
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from ofc_stats.analysis.fantasyland import refresh_transitions
from ofc_stats.engine.boards import BATCH_BOARDS, CARD_COLUMNS, card_frame_arrays, score_arrays
from ofc_stats.engine.rules import Ruleset, Variant, get_ruleset, ruleset_for_variant
from ofc_stats.engine.scoring import RuleTables, compile_rules
from ofc_stats.errors import NotScoredError, OfcStatsError, RulesetError
from ofc_stats.util.cores import available_cores
from ofc_stats.util.memory import peak_memory_mb
from ofc_stats.util.suggest import alternatives, did_you_mean
from ofc_stats.warehouse import (
    PendingFile,
    StagedFile,
    Warehouse,
    atomic_write_bytes,
    partition_folder,
)
from ofc_stats.warehouse.catalog import refresh_database
from ofc_stats.warehouse.config import WarehouseConfig, read_config
from ofc_stats.warehouse.schemas import DEFAULT_SCORING
from ofc_stats.warehouse.store import SCORINGS_FILE
from ofc_stats.warehouse.upgrade import upgrade_warehouse

# Per scoring: which rules its stored rows were computed under (a digest, so that a
# ruleset file edited since is noticed and everything rescored) and which seats files
# it has scored whole (not read again: a run with nothing new reads no seats).
HAND_KEY = ["site", "hand_id"]
SEAT_COLUMNS = ["site", "hand_id", "variant", "table", "started_at", "point_value", "seat",
                "player", "in_fantasyland", "fl_cards", *CARD_COLUMNS, "reported_points",
                "reported_royalties", "starting_stack", "reported_money"]
# Seat columns carried into player_hands beside the scores.
CARRIED = ["variant", "table", "started_at", "seat", "player", "in_fantasyland", "fl_cards",
           "reported_points", "reported_royalties", "reported_money"]
# Hand columns repeated on each matchup, so head-to-head queries need no join.
MATCHUP_HAND_COLUMNS = ["variant", "table", "started_at"]
COMPACT_WHEN_FILES = 32
LOCK_TIMEOUT = 30.0  # seconds to wait for another writer
# Chunks of a seats file scored at once (each in a thread: numpy's loops run on the
# thread that calls them, so one chunk a core), and their size: the rows in flight stay
# at about 512 K (as two chunks of 256 K rows on two cores), down to chunks of 64 K on
# more cores, whatever the size of the files or the warehouse.
SCORING_THREADS = available_cores()
CHUNK_ROWS = max(1 << 16, (1 << 19) // SCORING_THREADS)

ProgressCallback = Callable[[int, int], None]  # (seats files done, of how many)
_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


@dataclass(frozen=True)
class ScoreSummary:
    """What one ``score`` run did."""

    scoring: str
    ruleset: str  # the forced ruleset's name, "by variant", or the house rules
    rescored: bool
    rules_changed: bool  # the scoring's rules differ from its stored rows': all rescored
    hands: int
    player_hands: int
    matchups: int
    transitions: int  # rows of fl_transitions: Fantasyland checks and gaps
    fl_errors: int
    database: str | None  # the refreshed DuckDB file; None if it could not be written
    seconds: float
    transitions_seconds: float  # of ``seconds``: following Fantasyland across hands
    player_hands_per_second: float
    peak_memory_mb: float

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


@dataclass(frozen=True)
class _ScoredFile:
    """Seats scored into staged (not yet committed) files."""

    files: list[StagedFile]
    hands: int
    player_rows: int
    matchup_rows: int
    tables: list[pl.DataFrame] = dataclasses.field(default_factory=list)  # site, table


def _in_parallel(work: Callable[[_Item], _Result], items: Iterable[_Item]) -> Iterator[_Result]:
    """``work`` over ``items`` on ``SCORING_THREADS`` threads, results in order.

    numpy, polars and the Parquet writer release the GIL for their heavy loops, so a
    chunk a thread keeps the cores busy; one more waits, read, so that a thread done
    with its chunk starts the next at once instead of while the caller reads it. At
    most that many are held in memory.
    """
    with ThreadPoolExecutor(max_workers=SCORING_THREADS) as pool:
        pending: deque[Future[_Result]] = deque()
        for item in items:
            pending.append(pool.submit(work, item))
            if len(pending) > SCORING_THREADS:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _seat_chunks(path: Path, rows: int = CHUNK_ROWS) -> Iterator[pl.DataFrame]:
    """The rows of a seats file in chunks of about ``rows``, each made of whole hands
    (ingest writes a hand's seats together; the hand a chunk ends on moves to the
    next chunk)."""
    seats = pl.scan_parquet(path).select(SEAT_COLUMNS)
    carry: pl.DataFrame | None = None
    for offset in range(0, pq.read_metadata(path).num_rows, rows):
        chunk = seats.slice(offset, rows).collect()  # reads only the row groups it needs
        if carry is not None:
            # One contiguous chunk: gathers over several cost several times as much.
            chunk = pl.concat([carry, chunk], rechunk=True)
        last = chunk.select(HAND_KEY).tail(1)
        last_hand = chunk.select(pl.all_horizontal(
            pl.col(key) == last[key][0] for key in HAND_KEY)).to_series()
        start = int(last_hand.arg_true()[0])
        if start > 0:
            yield chunk.head(start)
        carry = chunk.slice(start)
    if carry is not None and not carry.is_empty():
        yield carry


def scoring_name(ruleset: str | Path | Ruleset | None) -> str:
    """The partition a scoring is stored under."""
    return DEFAULT_SCORING if ruleset is None else get_ruleset(ruleset).name


def stored_scorings(warehouse: Warehouse) -> list[str]:
    """The scorings the warehouse holds, ``default`` first."""
    names = warehouse.state().partitions("player_hands")
    return sorted(names, key=lambda name: (name != DEFAULT_SCORING, name))


class UnknownScoringError(OfcStatsError):
    """``--scoring`` names no stored scoring and no ruleset."""


def resolve_scoring(warehouse: Warehouse, name: str | None) -> str:
    """The stored scoring ``--scoring NAME`` means: ``default`` (or None), a stored
    scoring's name, the name its folder has (``thursday_home_game``, as earlier
    versions showed it), or a preset or ruleset file whose name is a stored scoring.

    Raises:
        NotScoredError: ``name`` is a ruleset never scored in this warehouse (or
            nothing is scored), saying the command that scores it.
        OfcStatsError: ``name`` is neither a stored scoring nor a ruleset, naming the
            stored scorings and the closest.
    """
    if name is None or name == DEFAULT_SCORING:
        return DEFAULT_SCORING
    stored = stored_scorings(warehouse)
    if not name.strip():
        raise UnknownScoringError(f"--scoring needs a name (stored: "
                                  f"{alternatives(repr(s) for s in stored) or 'none'})")
    if name in stored:
        return name
    by_folder = {partition_folder(scoring).removeprefix("scoring="): scoring
                 for scoring in stored}
    if name in by_folder:
        return by_folder[name]
    try:
        ruleset = get_ruleset(name)
    except RulesetError:
        if name.endswith(".toml") or Path(name).exists():
            raise  # a ruleset file that does not load: say why
        listed = alternatives(repr(scoring) for scoring in stored) or "none"
        raise UnknownScoringError(
            f"--scoring {name!r}: no such scoring (stored: {listed}; or give a preset or "
            f"a ruleset file){did_you_mean(name, stored)}") from None
    if ruleset.name in stored:
        return ruleset.name
    raise NotScoredError(f"--scoring {name!r}: nothing is scored as {ruleset.name!r} yet; "
                         f"run 'ofc-stats score --ruleset {name}' first")


def rules_by_group(seats: pl.DataFrame, forced: Ruleset | None,
                    config: WarehouseConfig | None) -> list[tuple[Ruleset, pl.DataFrame]]:
    """The seat rows in groups that one ruleset scores, hands kept whole and in order:
    all under a forced ruleset, else by site and variant under the house rules, else
    by variant under its preset."""
    if forced is not None:
        return [(forced, seats)]
    if config is None or not config.house_rules:
        return [(ruleset_for_variant(str(variant)), seats.filter(pl.col("variant") == variant))
                for variant in seats["variant"].unique(maintain_order=True).to_list()]
    pairs = seats.select("site", "variant").unique(maintain_order=True)
    return [(config.ruleset_for(str(site), str(variant)),
             seats.filter((pl.col("site") == site) & (pl.col("variant") == variant)))
            for site, variant in pairs.iter_rows()]


def score_seats(seats: pl.DataFrame, scoring: str, forced: Ruleset | None,
                batch_boards: int = BATCH_BOARDS, config: WarehouseConfig | None = None
                ) -> tuple[pl.DataFrame, pl.DataFrame, int]:
    """Score stored seat rows (hands contiguous) into player_hands and matchups rows.

    Without a forced ruleset each hand is scored under the house rules of ``config``
    for its site or variant, if any, else under its variant's preset.

    Returns:
        player_hands rows, matchups rows, and the number of hands.
    """
    groups = rules_by_group(seats, forced, config)
    players_parts, matchup_parts = [], []
    hands = 0
    for ruleset, group in groups:
        ordered, arrays = card_frame_arrays(group, HAND_KEY)
        hands += len(arrays.hand_starts) - 1
        scored = score_arrays(ordered, arrays, compile_rules(ruleset), keys=HAND_KEY,
                              board_columns=CARRIED, hand_columns=MATCHUP_HAND_COLUMNS,
                              batch_boards=batch_boards)
        labels = [pl.lit(scoring, pl.Categorical).alias("scoring"),
                  pl.lit(ruleset.name, pl.Categorical).alias("ruleset")]
        players_parts.append(scored.players.with_columns(labels))
        matchup_parts.append(scored.matchups.with_columns(labels))
    return pl.concat(players_parts), pl.concat(matchup_parts), hands


def rules_digest(forced: Ruleset | None, config: WarehouseConfig | None = None) -> str:
    """A fingerprint of what the scorer reads for a scoring: the compiled rule tables
    of the forced ruleset, or of every ruleset the default applies (the house rules
    and where they apply, the variants' presets); names do not count."""
    digest = hashlib.sha256()
    if forced is not None:
        rulesets = [forced]
    elif config is not None and config.house_rules:
        scoped = config.rulesets()
        digest.update(repr([scope for scope, _ in scoped]).encode())
        rulesets = [ruleset for _, ruleset in scoped]
    else:
        rulesets = [ruleset_for_variant(v.value) for v in Variant]
    for ruleset in rulesets:
        tables = compile_rules(ruleset)
        for item in dataclasses.fields(RuleTables):
            value = getattr(tables, item.name)
            digest.update(value.tobytes() if isinstance(value, np.ndarray)
                          else repr(value).encode())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class ScoringRecord:
    """What ``scorings.json`` says of one scoring."""

    rules: str  # rules_digest of the rules its rows were computed under
    seats_files: frozenset[str] = frozenset()  # seats files it has scored whole
    # Rows were added since fl_transitions was last refreshed (a run stopped between
    # its commits and the refresh): the next run follows every table again.
    transitions_stale: bool = False


def scoring_records(warehouse: Warehouse) -> dict[str, ScoringRecord]:
    """What ``scorings.json`` says of each scoring (empty if it cannot be read)."""
    path = warehouse.root / SCORINGS_FILE
    try:
        stored = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(stored, dict):
        return {}
    records = {}
    for name, value in stored.items():
        if isinstance(value, dict):
            records[str(name)] = ScoringRecord(str(value.get("rules")), frozenset(
                str(path) for path in value.get("seats_files", [])),
                bool(value.get("transitions_stale", False)))
        else:  # written by an earlier version: the digest alone
            records[str(name)] = ScoringRecord(str(value))
    return records


def forget_scorings(warehouse: Warehouse) -> None:
    """Forget what every scoring has scored (``repair``, after dropping the scores):
    the next run scores every hand."""
    (warehouse.root / SCORINGS_FILE).unlink(missing_ok=True)


def _record_scoring(warehouse: Warehouse, scoring: str, record: ScoringRecord) -> None:
    stored = scoring_records(warehouse)
    if stored.get(scoring) != record:
        stored[scoring] = record
        data = {name: {"rules": item.rules, "seats_files": sorted(item.seats_files),
                       "transitions_stale": item.transitions_stale}
                for name, item in stored.items()}
        atomic_write_bytes(warehouse.root / SCORINGS_FILE,
                           json.dumps(data, indent=1, sort_keys=True).encode())


def _contiguous(seats: pl.DataFrame) -> pl.DataFrame:
    """Seats with each hand's rows together (ingest writes them so; this checks).

    The hands' rows are together when no hand starts a run of rows twice: only the
    run starts (a third of the rows) are counted, by hand id alone first: there are
    at least as many runs as hands and as many hands as ids, so as many ids as runs
    settles it.
    """
    starts = pl.any_horizontal(
        [pl.col(key) != pl.col(key).shift(1) for key in HAND_KEY]).fill_null(True)
    run_starts = seats.lazy().filter(starts)
    runs = run_starts.select(pl.len().alias("runs"),
                             pl.col("hand_id").n_unique().alias("ids")).collect()
    if runs["runs"][0] == runs["ids"][0]:
        return seats
    hands = run_starts.select(pl.struct(HAND_KEY).n_unique()).collect().item()
    if runs["runs"][0] == hands:
        return seats
    return seats.sort(HAND_KEY, maintain_order=True)


def score_warehouse(warehouse: Warehouse, ruleset: str | Path | Ruleset | None = None, *,
                    rescore: bool = False, progress: ProgressCallback | None = None,
                    batch_boards: int = BATCH_BOARDS,
                    lock_timeout: float = LOCK_TIMEOUT) -> ScoreSummary:
    """Score every stored hand not yet scored under this scoring (all with ``rescore``).

    Incremental runs commit after each seats file; a rescore writes the new files
    first and swaps them in with one commit, so readers see the old scoring or the
    new one, never a mix. A kill part-way leaves whole commits and a re-run finishes.

    Raises:
        WarehouseLockedError: another process kept the lock for ``lock_timeout`` seconds.
    """
    forced = None if ruleset is None else get_ruleset(ruleset)
    scoring = scoring_name(forced)
    started = time.perf_counter()
    hands = player_rows = matchup_rows = 0
    with warehouse.writing(lock_timeout):
        config = None if forced is not None else read_config(warehouse.root)
        upgrade_warehouse(warehouse)
        state = warehouse.state()
        previous = [f.path for table in ("player_hands", "matchups")
                    for f in state.table_files(table, scoring)]
        # Rows stored under other rules than these (a ruleset file edited since, a new
        # version's presets) are all redone; a warehouse without a record keeps its rows.
        digest = rules_digest(forced, config)
        record = scoring_records(warehouse).get(scoring)
        rules_changed = bool(previous) and record is not None and record.rules != digest
        rescore = rescore or rules_changed
        if not previous:  # nothing stored could disagree, nothing is scored
            record = ScoringRecord(digest)
            _record_scoring(warehouse, scoring, record)
        scored_before = (record.seats_files if record is not None and not rescore
                         else frozenset())
        all_seat_files = state.table_files("seats")
        seat_files = [f for f in all_seat_files if f.path not in scored_before]
        scored_keys = None
        if not rescore and previous and seat_files:
            # The hands of these files scored already (files merged by compaction hold
            # some): looked up for these files' hands only, not the whole scoring.
            pending = pl.scan_parquet([warehouse.root / f.path for f in seat_files]
                                      ).select(HAND_KEY).unique()
            scored_keys = (warehouse.scan("player_hands", scoring).select(HAND_KEY)
                           .join(pending, on=HAND_KEY, how="semi").unique()
                           .collect(engine="streaming"))
        def score_chunk(seats: pl.DataFrame) -> _ScoredFile:
            if scored_keys is not None:
                seats = seats.join(scored_keys, on=HAND_KEY, how="anti", maintain_order="left")
            if seats.is_empty():
                return _ScoredFile([], 0, 0, 0)
            players, matchups, scored_hands = score_seats(_contiguous(seats), scoring, forced,
                                                          batch_boards, config)
            files = [warehouse.stage(PendingFile(table, frame, scoring)) for table, frame
                     in (("player_hands", players), ("matchups", matchups))]
            return _ScoredFile([f for f in files if f is not None], scored_hands,
                               players.height, matchups.height,
                               [seats.select("site", "table").unique()])

        def each_file_scored() -> Iterator[_ScoredFile]:
            """Each seats file scored, in order. The chunks of every file go through one
            pool, so the cores stay busy across a file's end (its commit meanwhile)."""
            chunks = ((index, chunk) for index, seat_file in enumerate(seat_files)
                      for chunk in (*_seat_chunks(warehouse.root / seat_file.path), None))
            results: list[_ScoredFile] = []
            for result in _in_parallel(lambda item: None if item[1] is None
                                       else score_chunk(item[1]), chunks):
                if result is not None:
                    results.append(result)
                    continue
                # A file's end (None after its chunks, in order).
                yield _ScoredFile([f for result in results for f in result.files],
                                  sum(r.hands for r in results),
                                  sum(r.player_rows for r in results),
                                  sum(r.matchup_rows for r in results),
                                  [t for result in results for t in result.tables])
                results = []

        follows_tables = scoring == DEFAULT_SCORING
        stale_before = record is not None and record.transitions_stale
        if follows_tables and seat_files and not stale_before:
            # Before the first commit: a run stopped before its refresh leaves a mark.
            _record_scoring(warehouse, scoring,
                            ScoringRecord(digest, scored_before, transitions_stale=True))
        touched: list[pl.DataFrame] = []
        staged: list[StagedFile] = []
        for done, result in enumerate(each_file_scored(), start=1):
            if rescore:
                staged.extend(result.files)
            elif result.files:
                warehouse.commit([], staged=result.files, action="score",
                                 meta={"scoring": scoring,
                                       "seats_file": seat_files[done - 1].path})
            hands += result.hands
            player_rows += result.player_rows
            matchup_rows += result.matchup_rows
            touched.extend(result.tables)
            if progress is not None:
                progress(done, len(seat_files))
        if rescore:
            warehouse.commit([], removes=previous, staged=staged, action="rescore",
                             meta={"scoring": scoring, "rules": digest})
        # Files compacted away since leave the record; the files read now join it.
        still_there = {f.path for f in all_seat_files}
        scored_files = (scored_before & still_there) | {f.path for f in seat_files}
        refresh = follows_tables and bool(player_rows or rescore or stale_before)
        _record_scoring(warehouse, scoring, ScoringRecord(digest, scored_files,
                                                           transitions_stale=refresh))
        for table in ("player_hands", "matchups"):
            if len(warehouse.state().table_files(table, scoring)) >= COMPACT_WHEN_FILES:
                warehouse.compact(table)
        transitions = fl_errors = 0
        transitions_started = time.perf_counter()
        if refresh:
            # Each table's chain is its own: only the tables with new hands are followed
            # again, unless everything changed (or a run stopped before its refresh).
            only = (None if rescore or stale_before or not touched
                    else pl.concat(touched).unique())
            transitions, fl_errors = refresh_transitions(warehouse, tables=only)
            _record_scoring(warehouse, scoring, ScoringRecord(digest, scored_files))
        transitions_seconds = time.perf_counter() - transitions_started
        database = refresh_database(warehouse)
    seconds = time.perf_counter() - started
    return ScoreSummary(
        scoring=scoring, rescored=rescore,
        ruleset=forced.name if forced else config.describe() if config else "by variant",
        rules_changed=rules_changed,
        hands=hands, player_hands=player_rows, matchups=matchup_rows,
        transitions=transitions, fl_errors=fl_errors,
        database=None if database is None else str(database), seconds=seconds,
        transitions_seconds=transitions_seconds,
        player_hands_per_second=player_rows / seconds if seconds else 0.0,
        peak_memory_mb=peak_memory_mb(),
    )
