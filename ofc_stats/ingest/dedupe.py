"""The dedupe rule: every hand is stored once, keyed by (site, hand_id).

A batch's hands are looked up by key (:class:`~ofc_stats.ingest.keys.HandIndex`,
every hand stored so far and those pending in this run). A hand found is not stored
again; a hand not found is new, and of several copies of it in one batch only the
first (in file order) is stored. Each copy not stored is a duplicate or a conflict
by :mod:`ofc_stats.ingest.conflicts`' rule, judged against the copy kept.

Copies of a hand within one batch share their seats and streets rows (those name
their hand by site and hand_id alone): :func:`first_copies` finds the first copy's.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.engine.boards import board_list_expr
from ofc_stats.engine.cards import card_names_expr
from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.formats.content_hash import content_hash
from ofc_stats.ingest.conflicts import conflict_rejects, differing_details
from ofc_stats.ingest.keys import HandIndex, detail_matrix, hand_keys

Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Sorting:
    """A batch's hands sorted by the rule; each mask is aligned with the batch's hands."""

    keys: pl.DataFrame  # the hands' hand_keys rows
    new: Bools  # the first copy of a hand not stored yet: to store
    later_copies: Bools  # not stored yet, but not the batch's first copy of the hand
    duplicates: Bools
    conflicts: Bools
    rejects: list[pl.DataFrame]  # a conflict reject for each conflict


def sort_batch(batch: CanonicalBatch, index: HandIndex,
               stored_copies: Callable[[pl.DataFrame], pl.DataFrame]) -> Sorting:
    """Which of a batch's hands are new, duplicates or conflicts.

    Args:
        batch: hands with their seats (``batch.hands`` not empty).
        index: the keys of every hand stored (or pending) before this batch.
        stored_copies: the stored hands (``site``, ``hand_id``, ``content_hash``,
            ``source_file``, ``source_line``) with the (``site``, ``hand_id``) given.
    """
    hands = batch.hands
    keys = hand_keys(hands, batch.seats)
    key_values = keys["key"].to_numpy()
    content_values = keys["content"].to_numpy()
    details = detail_matrix(keys)
    found, stored_content, stored_details = index.lookup(key_values)
    suspect = found & (stored_content != content_values)
    # The same content, but a detail it leaves out (points, stakes...) differs.
    changed = np.where(found & ~suspect, differing_details(details, stored_details), 0)
    stored = None
    if suspect.any() or changed.any():
        stored = stored_copies(hands.filter(suspect | (changed > 0)).select("site", "hand_id"))
    if stored is not None and suspect.any():
        # A key with other content: a conflict if the stored hand really has this
        # (site, hand_id), else two keys colliding (then this hand is new).
        really = (hands.select("site", "hand_id")
                  .join(stored.select("site", "hand_id", pl.lit(True).alias("_stored")),
                        on=["site", "hand_id"], how="left", maintain_order="left")
                  ["_stored"].fill_null(False).to_numpy())
        found &= ~suspect | really
        suspect &= really
    first = hands.select(pl.struct("site", "hand_id").is_first_distinct()).to_series()
    first_copy = first.to_numpy()
    new = ~found & first_copy
    later_copy = ~found & ~first_copy
    conflict_mask = suspect | (changed > 0)
    duplicate_mask = found & ~conflict_mask
    conflict_parts = []
    if stored is not None and conflict_mask.any():
        conflict_parts.append(conflict_rejects(hands.filter(conflict_mask),
                                               changed[conflict_mask], stored, "stored", batch))
    if later_copy.any():
        firsts = hands.filter(new).select(
            "site", "hand_id", pl.col("content_hash").alias("_first_hash"),
            pl.col("source_file").alias("_first_file"),
            pl.col("source_line").alias("_first_line"),
            pl.Series("_first_row", np.flatnonzero(new)))
        joined = (hands.select("site", "hand_id", "content_hash")
                  .join(firsts, on=["site", "hand_id"], how="left", maintain_order="left"))
        same = (joined["content_hash"] == joined["_first_hash"]).fill_null(False).to_numpy()
        first_rows = joined["_first_row"].fill_null(0).to_numpy()
        copy_changed = np.where(later_copy & same,
                                differing_details(details, details[first_rows]), 0)
        duplicate_mask |= later_copy & same & (copy_changed == 0)
        differing = later_copy & ~(same & (copy_changed == 0))
        conflict_mask |= differing
        if differing.any():
            earlier = firsts.rename({"_first_hash": "content_hash",
                                     "_first_file": "source_file",
                                     "_first_line": "source_line"})
            conflict_parts.append(conflict_rejects(hands.filter(differing),
                                                   copy_changed[differing], earlier, "read",
                                                   batch))
    return Sorting(keys, new, later_copy, duplicate_mask, conflict_mask, conflict_parts)


@dataclass(frozen=True)
class Resolved:
    """The first copies of hands repeated in a batch (see :func:`first_copies`)."""

    hands: pl.DataFrame
    seats: pl.DataFrame
    streets: pl.DataFrame
    unresolved: pl.DataFrame  # (site, hand_id) of hands whose seats could not be found
    streets_dropped: int  # hands kept without their streets (they could not be told apart)


def kept_hands(batch: CanonicalBatch, sorting: Sorting
               ) -> tuple[Resolved, pl.DataFrame] | None:
    """The new hands of ``batch``, each hand's first copy only, and their hand_keys
    rows; None if it has none."""
    new, later_copy, keys = sorting.new, sorting.later_copies, sorting.keys
    if not new.any():
        return None
    hands = batch.hands
    # Every hand new (the usual first import): no joins needed.
    new_hands = batch if new.all() else batch.with_hands(hands.filter(new))
    kept = Resolved(new_hands.hands, new_hands.seats, new_hands.streets,
                    hands.select("site", "hand_id").clear(), 0)
    if later_copy.any():
        kept = first_copies(kept.hands, kept.seats, kept.streets,
                            hands.filter(new | later_copy).select("site", "hand_id"))
    accepted = kept.hands
    if accepted.is_empty():
        accepted_keys = keys.clear()
    elif accepted.height == hands.height:
        accepted_keys = keys
    elif accepted.height == int(new.sum()):
        accepted_keys = keys.filter(pl.Series(new))
    else:  # copies that could not be told apart were dropped
        accepted_keys = hand_keys(accepted, kept.seats)
    return kept, accepted_keys


def first_copies(hands: pl.DataFrame, seats: pl.DataFrame, streets: pl.DataFrame,
                 all_ids: pl.DataFrame) -> Resolved:
    """Seats and streets of only the first copy of hands that appear twice in a batch.

    Canonical seats and streets name their hand by (site, hand_id) alone, so copies in
    one batch share them. Identical copies (the usual case: a file holding a hand
    twice) are resolved in bulk by keeping one of each distinct row. Copies that
    differ (rare: a conflict inside one batch) go through a per-hand loop that finds
    the seats whose content hash is the first copy's, then the street actions that
    fit those seats; a hand whose streets cannot be told apart keeps its boards and
    loses its streets (``has_streets`` false, counted in ``streets_dropped``).
    """
    ids = ["site", "hand_id"]
    repeated = all_ids.filter(pl.struct(ids).is_duplicated()).unique()
    if repeated.is_empty():
        return Resolved(hands, seats, streets, repeated, 0)
    seat_copies = seats.join(repeated, on=ids, how="semi").unique(maintain_order=True)
    street_copies = streets.join(repeated, on=ids, how="semi").unique(maintain_order=True)
    # Identical copies leave one distinct row per seat and per street action.
    seats_per_hand = seat_copies.group_by(ids).agg(
        pl.len().alias("_rows"), pl.col("seat").n_unique().alias("_seats"))
    ambiguous = pl.concat([
        seats_per_hand.join(hands.select(*ids, "players"), on=ids, how="left")
        .filter((pl.col("_rows") != pl.col("_seats"))
                | (pl.col("_seats") != pl.col("players").cast(pl.UInt32)))
        .select(ids),
        street_copies.group_by(*ids, "action_order").len()
        .filter(pl.col("len") > 1).select(ids),
    ]).unique()
    simple = repeated.join(ambiguous, on=ids, how="anti")
    seat_parts = [seats.join(repeated, on=ids, how="anti", maintain_order="left"),
                  seat_copies.join(simple, on=ids, how="semi", maintain_order="left")]
    street_parts = [streets.join(repeated, on=ids, how="anti", maintain_order="left"),
                    street_copies.join(simple, on=ids, how="semi", maintain_order="left")]
    no_streets: list[tuple[str, str]] = []
    unresolved: list[tuple[str, str]] = []
    for hand in hands.join(ambiguous, on=ids, how="semi").iter_rows(named=True):
        key = (pl.col("site") == hand["site"]) & (pl.col("hand_id") == hand["hand_id"])
        chosen = _matching_seats(hand, seat_copies.filter(key))
        if chosen is None:
            unresolved.append((hand["site"], hand["hand_id"]))
            continue
        seat_parts.append(chosen)
        fitting = _fitting_streets(chosen, street_copies.filter(key))
        if fitting is None:
            no_streets.append((hand["site"], hand["hand_id"]))
        else:
            street_parts.append(fitting)
    gone = pl.DataFrame(unresolved, schema={"site": pl.String, "hand_id": pl.String},
                        orient="row")
    hands = hands.join(gone, on=ids, how="anti", maintain_order="left")
    if no_streets:
        hands = hands.with_columns(
            pl.when(pl.struct(ids).is_in(
                pl.DataFrame(no_streets, schema=gone.schema, orient="row")
                .select(pl.struct(ids)).to_series().implode()))
            .then(pl.lit(False)).otherwise(pl.col("has_streets")).alias("has_streets"))
    return Resolved(hands, pl.concat(seat_parts), pl.concat(street_parts), gone,
                     len(no_streets))


MAX_SEAT_COMBINATIONS = 4096


def _matching_seats(hand: dict[str, Any], candidates: pl.DataFrame) -> pl.DataFrame | None:
    """The seats among ``candidates`` whose content hash is the hand's, or None."""
    by_seat = candidates.partition_by("seat", maintain_order=True)
    players = int(hand["players"])
    if len(by_seat) == players and all(part.height == 1 for part in by_seat):
        return candidates  # identical copies: one row per seat
    options = []
    for seat_numbers in itertools.combinations(range(len(by_seat)), players):
        for rows in itertools.product(*(range(by_seat[s].height) for s in seat_numbers)):
            options.append([(s, r) for s, r in zip(seat_numbers, rows, strict=True)])
            if len(options) >= MAX_SEAT_COMBINATIONS:
                break
    if not options:
        return None
    seats = pl.concat([by_seat[s].slice(r, 1).with_columns(pl.lit(number).alias("record"))
                       for number, option in enumerate(options) for s, r in option])
    hands = pl.DataFrame({key: [hand[key]] * len(options) for key in
                          ("site", "hand_id", "table", "started_at", "variant")},
                         schema_overrides={"started_at": pl.Datetime("us", "UTC")}
                         ).with_row_index("record").with_columns(pl.col("record").cast(pl.Int64))
    hashes = content_hash(hands, seats.with_columns(pl.col("record").cast(pl.Int64)))
    matches = np.flatnonzero((hashes == hand["content_hash"]).to_numpy())
    if len(matches) == 0:
        return None
    return seats.filter(pl.col("record") == int(matches[0])).drop("record")


def _fitting_streets(seats: pl.DataFrame, streets: pl.DataFrame) -> pl.DataFrame | None:
    """The street rows of one hand that fit its chosen seats (one per action), or None."""
    if streets.is_empty():
        return streets
    if streets["action_order"].n_unique() == streets.height:
        return streets  # identical copies
    boards = seats.select(
        "seat", board_list_expr().alias("cards"),
        pl.col("discards").fill_null(""))
    joined = streets.join(boards, on="seat", how="inner", maintain_order="left")
    row_cards = (pl.when(pl.col("row") == "top").then(pl.col("cards").list.slice(0, 3))
                 .when(pl.col("row") == "middle").then(pl.col("cards").list.slice(3, 5))
                 .otherwise(pl.col("cards").list.slice(8, 5)))
    fits = joined.filter(
        pl.when(pl.col("action") == "discard")
        .then(pl.col("discards").str.split(" ").list.contains(card_names_expr(pl.col("card"))))
        .otherwise(row_cards.list.contains(pl.col("card"))))
    counts = fits.group_by("action_order").len()
    if (counts["len"] != 1).any() or counts.height != streets["action_order"].n_unique():
        return None
    return fits.select(streets.columns)
