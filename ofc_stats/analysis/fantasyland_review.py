"""``ofc-stats review``: the exact best setting of every Fantasyland hand in the warehouse.

A Fantasyland hand is the one place where how well a player set a board is exact:
every card dealt is known, and the board played can be compared with the best one
(RULES.md section 12). For each board played in Fantasyland that is not reviewed yet
the review:

- gathers the cards dealt: the 13 placed and the discards the history records (when it
  records none, only the 13 placed are known and the review optimises over those,
  saying so in ``cards_known``);
- values the board played (royalties, plus the ruleset's ``fl_stay_value`` if it
  stays) and scores it against the opponents' actual boards;
- solves the hand (:func:`ofc_stats.engine.fantasyland_solver.solve_batch`; ties go to the
  setting that scores more against those boards) and scores the best setting too;
- stores one row in the warehouse table ``fl_review`` (a view of the same name in
  DuckDB), partitioned by scoring like ``player_hands``.

Boards it cannot review are counted and skipped, never stored: an incomplete board,
a card dealt more often than the ruleset's decks hold it, more players than any
ruleset seats, and until the solver resolves them, jokers. With two decks a card may
be dealt twice (five of a kind is then a row); a deuce-to-seven middle is set as the
scorer ranks it.

It follows the warehouse's commit protocol as ``ofc-stats score`` does: one seats file
at a time, each chunk of reviews one commit (a kill part-way keeps whole commits; the
next run goes on), or with changed rules everything again, swapped in with one commit;
small files are compacted once there are many.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.analysis.score import (
    COMPACT_WHEN_FILES,
    HAND_KEY,
    rules_by_group,
    rules_digest,
    scoring_name,
)
from ofc_stats.engine.boards import CARD_COLUMNS, board_codes, hand_starts_of
from ofc_stats.engine.cards import (
    N_CARDS,
    NO_CARD,
    card_codes,
    card_names,
    card_names_expr,
)
from ofc_stats.engine.fantasyland_solver import (
    MAX_CARDS,
    MAX_OPPONENTS,
    score_against,
    solve_batch,
)
from ofc_stats.engine.rules import (
    Ruleset,
    StayCards,
    Variant,
    get_ruleset,
    ruleset_for_variant,
)
from ofc_stats.engine.scoring import compile_rules
from ofc_stats.util.memory import peak_memory_mb
from ofc_stats.warehouse import PendingFile, StagedFile, Warehouse, atomic_write_bytes
from ofc_stats.warehouse.catalog import refresh_database
from ofc_stats.warehouse.config import WarehouseConfig, read_config
from ofc_stats.warehouse.schemas import FL_REVIEW_BOARD_COLUMNS, FL_REVIEW_SCHEMA
from ofc_stats.warehouse.upgrade import upgrade_warehouse

REVIEW_TABLE = "fl_review"
# Per scoring: a digest of what its reviews were computed under (rules, stay values,
# the solver's version), so that a change is noticed and everything reviewed again.
REVIEWS_FILE = "reviews.json"
# Bump when the review's results change for the same rules (a solver that resolves
# jokers, say): every stored review is then done again.
REVIEW_VERSION = 1
# Fantasyland boards solved at once: memory is bounded by it.
CHUNK_BOARDS = 4096
MAX_DISCARDS = MAX_CARDS - 13
SEAT_COLUMNS = ["site", "hand_id", "variant", "table", "started_at", "seat", "player",
                "in_fantasyland", "fl_cards", *CARD_COLUMNS, "top", "middle", "bottom",
                "discards"]

# Why a Fantasyland board was not reviewed (counted in the summary, not stored).
SKIP_REASONS = {
    "players": f"more than {MAX_OPPONENTS + 1} players",
    "incomplete": "incomplete board",
    "joker": "jokers (the solver does not resolve them yet)",
    "copies": "a card dealt more often than the ruleset's decks hold it",
    "cards": "more than 17 cards dealt",
    "unreadable": "a discard that is not a card",
}
UNREADABLE = 127  # the code an unreadable discard is given: never a card

ProgressCallback = Callable[[int, int], None]  # (seats files done, of how many)


@dataclass(frozen=True)
class ReviewSummary:
    """What one ``review`` run did."""

    scoring: str
    ruleset: str  # the forced ruleset's name, "by variant", or the house rules
    rules_changed: bool  # the rules differ from the stored reviews': all done again
    reviewed: int  # Fantasyland boards solved by this run
    placed_only: int  # of which only the 13 placed cards were known
    by_cards: dict[int, int]  # of which, by cards known (13 to 17)
    skipped: dict[str, int]  # boards not reviewed, by reason (SKIP_REASONS' text)
    stored: int  # reviews of this scoring in the warehouse now
    seconds: float
    solve_seconds: float  # of ``seconds``: the solver's own time
    boards_per_second: float
    peak_memory_mb: float
    database: str | None  # the refreshed DuckDB file; None if it could not be written

    def as_dict(self) -> dict[str, object]:
        """Plain values, for JSON output."""
        return asdict(self)


@dataclass
class _Tally:
    reviewed: int = 0
    placed_only: int = 0
    solve_seconds: float = 0.0
    by_cards: dict[int, int] = dataclasses.field(default_factory=dict)
    skipped: dict[str, int] = dataclasses.field(default_factory=dict)

    @staticmethod
    def count(mapping: dict[Any, int], values: npt.NDArray[np.generic]) -> None:
        """Add how many times each value occurs to ``mapping``."""
        keys, counts = np.unique(values, return_counts=True)
        for key, number in zip(keys.tolist(), counts.tolist(), strict=True):
            mapping[key] = mapping.get(key, 0) + int(number)


def review_digest(forced: Ruleset | None, config: WarehouseConfig | None = None) -> str:
    """A fingerprint of what a scoring's reviews read: the rules the scorer compiles
    (:func:`~ofc_stats.analysis.score.rules_digest`, the house rules of ``config``
    included), each ruleset's stay value and :data:`REVIEW_VERSION`."""
    if forced is not None:
        rulesets = [forced]
    elif config is not None and config.house_rules:
        rulesets = [ruleset for _, ruleset in config.rulesets()]
    else:
        rulesets = [ruleset_for_variant(v.value) for v in Variant]
    stays = ",".join(f"{ruleset.fl_stay_value!r}" for ruleset in rulesets)
    text = f"{rules_digest(forced, config)}|{stays}|{REVIEW_VERSION}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _stored_digests(warehouse: Warehouse) -> dict[str, str]:
    try:
        stored = json.loads((warehouse.root / REVIEWS_FILE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(stored, dict):
        return {}
    return {str(name): str(value.get("rules")) for name, value in stored.items()
            if isinstance(value, dict)}


def _record_digest(warehouse: Warehouse, scoring: str, digest: str) -> None:
    stored = _stored_digests(warehouse)
    if stored.get(scoring) != digest:
        stored[scoring] = digest
        data = {name: {"rules": value} for name, value in sorted(stored.items())}
        atomic_write_bytes(warehouse.root / REVIEWS_FILE,
                           json.dumps(data, indent=1, sort_keys=True).encode())


def review_warehouse(warehouse: Warehouse, ruleset: str | Ruleset | None = None, *,
                     player: str | None = None, since: dt.datetime | None = None,
                     progress: ProgressCallback | None = None) -> ReviewSummary:
    """Review every Fantasyland board not reviewed yet under this scoring.

    Args:
        warehouse: the warehouse (its ``seats``; nothing else need be scored first).
        ruleset: None for the default scoring (each hand under the warehouse's house
            rules, ``ofc-stats.toml``, else its variant's preset), or a preset name, a
            TOML path or a :class:`Ruleset` (the scoring named after it, as
            ``ofc-stats score --ruleset`` names it).
        player: only this player's Fantasyland boards.
        since: only hands from this moment on.
        progress: called after each seats file with (files done, files in all).

    Returns:
        What was reviewed, skipped and stored.
    """
    forced = None if ruleset is None else get_ruleset(ruleset)
    scoring = scoring_name(forced)
    config = None if forced is not None else read_config(warehouse.root)
    started = time.perf_counter()
    tally = _Tally()
    with warehouse.writing():
        upgrade_warehouse(warehouse)
        state = warehouse.state()
        previous = [f.path for f in state.table_files(REVIEW_TABLE, scoring)]
        digest = review_digest(forced, config)
        recorded = _stored_digests(warehouse).get(scoring)
        rules_changed = bool(previous) and recorded is not None and recorded != digest
        seat_files = state.table_files("seats")
        staged: list[StagedFile] = []
        for done, seat_file in enumerate(seat_files, start=1):
            seats = _fantasyland_hands(warehouse, warehouse.root / seat_file.path, scoring,
                                       player, since, everything=rules_changed)
            for chunk in _chunks(seats):
                frame = review_seats(chunk, scoring, forced, tally, config)
                written = warehouse.stage(PendingFile(REVIEW_TABLE, frame, scoring))
                if written is None:
                    continue
                if rules_changed:
                    staged.append(written)
                else:  # each chunk its own commit: a run stopped loses one chunk at most
                    warehouse.commit([], staged=[written], action="review",
                                     meta={"scoring": scoring, "seats_file": seat_file.path})
            if progress is not None:
                progress(done, len(seat_files))
        if rules_changed:
            warehouse.commit([], removes=previous, staged=staged, action="review",
                             meta={"scoring": scoring, "rules": digest})
        # Only now: a run stopped before its swap leaves the old digest, so the next run
        # sees the change again (a warehouse without a record keeps its rows).
        _record_digest(warehouse, scoring, digest)
        if len(warehouse.state().table_files(REVIEW_TABLE, scoring)) >= COMPACT_WHEN_FILES:
            warehouse.compact(REVIEW_TABLE)
        stored = sum(f.rows for f in warehouse.state().table_files(REVIEW_TABLE, scoring))
        database = refresh_database(warehouse)
    seconds = time.perf_counter() - started
    return ReviewSummary(
        scoring=scoring,
        ruleset=forced.name if forced else config.describe() if config else "by variant",
        rules_changed=rules_changed, reviewed=tally.reviewed, placed_only=tally.placed_only,
        by_cards=dict(sorted(tally.by_cards.items())),
        skipped={SKIP_REASONS[key]: count for key, count in sorted(tally.skipped.items())},
        stored=stored, seconds=seconds, solve_seconds=tally.solve_seconds,
        boards_per_second=tally.reviewed / seconds if seconds else 0.0,
        peak_memory_mb=peak_memory_mb(),
        database=None if database is None else str(database))


def _fantasyland_hands(warehouse: Warehouse, path: object, scoring: str,
                       player: str | None, since: dt.datetime | None, *,
                       everything: bool) -> pl.DataFrame:
    """Every seat of the hands in one seats file with a Fantasyland board to review
    (in scope and, unless ``everything``, not reviewed yet), with ``_review`` marking
    those boards; hands contiguous, in the file's order."""
    seats = pl.scan_parquet(path).select(SEAT_COLUMNS)  # type: ignore[arg-type]
    wanted = pl.col("in_fantasyland")
    if player is not None:
        wanted &= pl.col("player") == player
    if since is not None:
        wanted &= pl.col("started_at") >= since
    boards = seats.filter(wanted).select("site", "hand_id", "seat").collect()
    if not everything and not boards.is_empty():
        done = (warehouse.scan(REVIEW_TABLE, scoring, FL_REVIEW_SCHEMA)
                .select("site", "hand_id", "seat")
                .join(boards.lazy(), on=["site", "hand_id", "seat"], how="semi").collect())
        boards = boards.join(done, on=["site", "hand_id", "seat"], how="anti")
    if boards.is_empty():
        return seats.head(0).collect().with_columns(pl.lit(False).alias("_review"))
    marked = boards.with_columns(pl.lit(True).alias("_review"))
    return (seats.join(boards.select(HAND_KEY).unique().lazy(), on=HAND_KEY, how="semi",
                       maintain_order="left")
            .join(marked.lazy(), on=["site", "hand_id", "seat"], how="left",
                  maintain_order="left")
            .with_columns(pl.col("_review").fill_null(False))
            .collect())


def _chunks(seats: pl.DataFrame) -> list[pl.DataFrame]:
    """The seats in runs of whole hands, each with about ``CHUNK_BOARDS`` boards to
    review (a run starts at the hand where the count so far passes a multiple)."""
    if seats.is_empty():
        return []
    starts = hand_starts_of(seats, HAND_KEY)
    before = np.concatenate([[0], np.cumsum(seats["_review"].to_numpy())])[starts[:-1]]
    run = before // CHUNK_BOARDS
    cuts = np.append(starts[:-1][np.append(True, run[1:] != run[:-1])], seats.height)
    return [seats.slice(int(a), int(b - a)) for a, b in itertools.pairwise(cuts.tolist())]


def _discard_codes(discards: pl.Series) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """Discards as text to codes ``(rows, MAX_DISCARDS)`` (:data:`NO_CARD` padded, an
    unreadable card :data:`UNREADABLE`) and how many each row has."""
    lists = discards.fill_null("").str.split(" ").list.eval(
        pl.element().filter(pl.element() != ""))
    counts = lists.list.len().to_numpy().astype(np.int64)
    exploded = (pl.DataFrame({"row": np.arange(len(lists)), "card": lists})
                .explode("card").drop_nulls("card"))
    exploded = (exploded.with_columns(  # the cards parsed in bulk, not one by one
        pl.int_range(pl.len()).over("row").alias("position"),
        card_codes(exploded["card"]).fill_null(UNREADABLE).alias("code"))
        .filter(pl.col("position") < MAX_DISCARDS))
    codes = np.full((len(lists), MAX_DISCARDS), NO_CARD, dtype=np.int8)
    codes[exploded["row"].to_numpy(), exploded["position"].to_numpy()] = \
        exploded["code"].to_numpy()
    return codes, counts


def _texts(cards: npt.NDArray[np.int8]) -> pl.Series:
    """Each row of codes ``(rows, k)`` as text, strongest card first, empty slots out."""
    ordered = -np.sort(-cards.astype(np.int16), axis=1)
    names = card_names(ordered)
    return pl.DataFrame({str(i): names[:, i] for i in range(cards.shape[1])}).select(
        pl.concat_str(pl.all().replace("", None), separator=" ", ignore_nulls=True)
        .replace("", None)).to_series()


def _dealt_count(ruleset: Ruleset) -> int | None:
    """The cards every Fantasyland hand of this ruleset deals, if they are always the
    same (13 in classic), else None."""
    fantasyland = ruleset.fantasyland
    counts = {cards for _, cards in fantasyland.entry}
    if not isinstance(fantasyland.stay_cards, StayCards):
        counts.add(int(fantasyland.stay_cards))
    return counts.pop() if len(counts) == 1 else None


def review_seats(seats: pl.DataFrame, scoring: str, forced: Ruleset | None,
                 tally: _Tally | None = None, config: WarehouseConfig | None = None
                 ) -> pl.DataFrame:
    """Review the boards marked ``_review`` among seat rows of whole hands (contiguous
    by hand, in seat order within each hand): one ``fl_review`` row per board reviewed.

    Without a forced ruleset each hand is reviewed under the rules the default scoring
    scores it with: the house rules of ``config`` for its site or variant, if any, else
    its variant's preset.
    """
    tally = tally if tally is not None else _Tally()
    groups = rules_by_group(seats, forced, config)
    parts = [_review_group(group, ruleset, scoring, tally) for ruleset, group in groups]
    parts = [part for part in parts if not part.is_empty()]
    return pl.concat(parts) if parts else FL_REVIEW_SCHEMA.to_frame()


def _review_group(seats: pl.DataFrame, ruleset: Ruleset, scoring: str, tally: _Tally
                  ) -> pl.DataFrame:
    starts = hand_starts_of(seats, HAND_KEY)
    sizes = np.diff(starts)
    hand_of_row = np.repeat(np.arange(len(sizes)), sizes)
    slot = np.arange(seats.height) - starts[hand_of_row]
    review = seats["_review"].to_numpy()
    boards = board_codes(seats).T  # (rows, 13)
    discards, discard_counts = _discard_codes(seats["discards"])
    known = np.concatenate([boards, discards], axis=1)  # (rows, 17)
    # Sorted, a card held more often than the decks hold it starts a run that long.
    ordered = np.sort(known, axis=1)
    decks = ruleset.decks
    too_many = ((ordered[:, decks:] == ordered[:, :-decks])
                & (ordered[:, decks:] >= 0)).any(axis=1)
    reasons = np.select(
        [sizes[hand_of_row] > MAX_OPPONENTS + 1, (boards < 0).any(axis=1),
         ((known >= N_CARDS) & (known != UNREADABLE)).any(axis=1), too_many,
         discard_counts > MAX_DISCARDS, (known == UNREADABLE).any(axis=1)],
        list(SKIP_REASONS), "")
    skipped = review & (reasons != "")
    tally.count(tally.skipped, reasons[skipped])
    rows = np.flatnonzero(review & ~skipped)
    if not len(rows):
        return FL_REVIEW_SCHEMA.to_frame()

    # The opponents: every other seat of the hand, in seat order.
    seat_boards = np.full((len(sizes), MAX_OPPONENTS + 1, 13), NO_CARD, dtype=np.int8)
    fits = slot <= MAX_OPPONENTS
    seat_boards[hand_of_row[fits], slot[fits]] = boards[fits]
    others = np.array([[s for s in range(MAX_OPPONENTS + 1) if s != own]
                       for own in range(MAX_OPPONENTS + 1)])
    opponents = seat_boards[hand_of_row[rows][:, None], others[slot[rows]]]  # (R, 7, 13)

    rules = compile_rules(ruleset)
    stay_value = ruleset.fl_stay_value
    played = score_against(boards[rows], opponents, rules)
    played_value = np.where(played.fouled, 0.0,
                            played.royalties + stay_value * played.stays)
    solving = time.perf_counter()
    best = solve_batch(known[rows], rules, stay_value, opponents=opponents,
                       lower_bound=played_value)
    tally.solve_seconds += time.perf_counter() - solving
    best_boards = best.boards.T
    best_points = score_against(best_boards, opponents, rules).points

    known_count = 13 + np.minimum(discard_counts[rows], MAX_DISCARDS)
    recorded = seats["fl_cards"].fill_null(-1).to_numpy().astype(np.int64)[rows]
    implied = _dealt_count(ruleset)
    expected = np.where(recorded >= 0, recorded, -1 if implied is None else implied)
    # Discards recorded are taken to be all of them unless the count dealt says more.
    cards_known = np.select(
        [known_count >= np.where(expected >= 0, expected, 14), known_count == 13],
        ["dealt", "placed"], "partial")
    tally.reviewed += len(rows)
    tally.placed_only += int((cards_known == "placed").sum())
    tally.count(tally.by_cards, known_count)

    chosen = seats[rows]
    royalties_left = best.royalties.astype(np.int16) - np.where(
        played.fouled, 0, played.royalties).astype(np.int16)
    played_royalties = np.where(played.fouled, 0, played.royalties).astype(np.int16)
    played_stays = ~played.fouled & played.stays
    return pl.DataFrame({
        **{name: chosen[name] for name in FL_REVIEW_BOARD_COLUMNS},
        "scoring": pl.repeat(scoring, len(rows), eager=True),
        "ruleset": pl.repeat(ruleset.name, len(rows), eager=True),
        "fl_cards": chosen["fl_cards"],
        "known_cards": known_count,
        "cards_known": cards_known,
        "dealt": _texts_in_order(known[rows]),
        "played_top": chosen["top"],
        "played_middle": chosen["middle"],
        "played_bottom": chosen["bottom"],
        "played_discards": chosen["discards"],
        "played_fouled": played.fouled,
        "played_royalties": played_royalties,
        "played_stays": played_stays,
        "played_value": played_value,
        "played_points": played.points,
        "best_top": _texts(best_boards[:, 0:3]),
        "best_middle": _texts(best_boards[:, 3:8]),
        "best_bottom": _texts(best_boards[:, 8:13]),
        "best_discards": _texts(best.discards),
        "best_royalties": best.royalties,
        "best_stays": best.stays,
        "best_value": best.value,
        "best_points": best_points,
        "value_lost": best.value - played_value,
        "optimal": best.value == played_value,
        "stay_missed": best.stays & ~played_stays,
        "royalties_left": royalties_left,
        "points_lost": best_points - played.points,
        "stay_value": np.full(len(rows), stay_value),
        "opponents": sizes[hand_of_row[rows]] - 1,
    }).select(list(FL_REVIEW_SCHEMA)).cast(FL_REVIEW_SCHEMA)


def _texts_in_order(cards: npt.NDArray[np.int8]) -> pl.Series:
    """Each row of codes as text in the order given, empty slots left out."""
    frame = pl.DataFrame({str(i): cards[:, i] for i in range(cards.shape[1])})
    return frame.select(pl.concat_str(
        [card_names_expr(pl.col(str(i)).replace(NO_CARD, None)) for i in range(cards.shape[1])],
        separator=" ", ignore_nulls=True)).to_series()
