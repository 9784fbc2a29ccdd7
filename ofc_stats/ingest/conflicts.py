"""The conflict rule: two copies of one hand (the same site and hand_id) that disagree.

The copy kept is the first (stored, or read earlier); a later copy is a duplicate
when it has the kept copy's content hash (players, boards, table, time, variant) and
no detail that both copies record differs: reported points, reported royalties,
stakes, the button (:func:`differing_details`). Otherwise it is a conflict: it is
set aside as a ``conflict`` row in ``rejects`` saying which copy was kept and how
they differ (:func:`conflict_rejects`), and the kept copy stays as it is.
:mod:`ofc_stats.ingest.dedupe` applies the rule to each batch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.formats.canonical import CanonicalBatch
from ofc_stats.ingest.keys import DETAILS
from ofc_stats.warehouse.schemas import PROBLEMS_SCHEMA


def differing_details(mine: npt.NDArray[np.uint64], theirs: npt.NDArray[np.uint64]
                      ) -> npt.NDArray[np.int64]:
    """Per row, a bit per ``DETAILS`` entry that both record and that differs."""
    differ = (mine != 0) & (theirs != 0) & (mine != theirs)
    masks: npt.NDArray[np.int64] = differ.astype(np.int64) @ (
        np.int64(1) << np.arange(len(DETAILS), dtype=np.int64))
    return masks


def _detail_names(mask: int) -> str:
    """``reported points``, ``stakes and button seat``, ... for a differing_details bit mask."""
    names = [name for bit, name in enumerate(DETAILS.values()) if mask >> bit & 1]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# A differing_details mask as text, for every mask.
_DETAIL_TEXT = {mask: _detail_names(mask) for mask in range(1, 1 << len(DETAILS))}


def conflict_rejects(incoming: pl.DataFrame, details: npt.NDArray[np.int64],
                     kept: pl.DataFrame, verb: str, batch: CanonicalBatch) -> pl.DataFrame:
    """A ``conflict`` reject for each incoming hand, naming the copy that was kept.

    Args:
        incoming: the copies set aside (hands of ``batch``).
        details: per incoming hand, the :func:`differing_details` mask of a copy with
            the same content; 0 for a copy with different content.
        kept: the copies kept (``site``, ``hand_id``, ``content_hash``,
            ``source_file``, ``source_line``).
        verb: ``stored`` (kept in the warehouse) or ``read`` (earlier in this batch).
        batch: the batch of ``incoming``, whose seats the rejects show.
    """
    kept = kept.select("site", "hand_id", pl.col("content_hash").alias("_kept_hash"),
                       pl.col("source_file").alias("_kept_file"),
                       pl.col("source_line").alias("_kept_line"))
    # Seats as text for the raw column, where the batch holds one copy of the hand.
    single = incoming.select("site", "hand_id").filter(
        ~pl.struct("site", "hand_id").is_in(
            batch.hands.filter(pl.struct("site", "hand_id").is_duplicated())
            .select(pl.struct("site", "hand_id")).to_series().implode()))
    seat_text = seat_lines(batch.seats.join(single, on=["site", "hand_id"], how="semi"))
    return conflict_reject_rows(
        incoming.with_columns(pl.Series("_details", details, dtype=pl.Int64),
                              pl.lit(verb).alias("_verb"))
        .join(kept, on=["site", "hand_id"], how="left", maintain_order="left")
        .join(seat_text, on=["site", "hand_id"], how="left", maintain_order="left"))


def seat_lines(seats: pl.DataFrame, keys: Sequence[str] = ("site", "hand_id")
               ) -> pl.DataFrame:
    """``keys`` and ``_seats``: each hand's seats (grouped by ``keys``) as one line of
    text, ``seat 1 alice (fantasyland): Ah Kd Qs / ... / ...``, a conflict's raw text."""
    return (
        seats.sort(*keys, "seat")
        .group_by(*keys, maintain_order=True)
        .agg(pl.format("seat {} {}{}: {} / {} / {}", "seat", "player",
                       pl.when(pl.col("in_fantasyland")).then(pl.lit(" (fantasyland)"))
                       .otherwise(pl.lit("")),
                       pl.col("top").fill_null(""), pl.col("middle").fill_null(""),
                       pl.col("bottom").fill_null("")).str.join("; ").alias("_seats"))
    )


def conflict_reject_rows(conflicts: pl.DataFrame) -> pl.DataFrame:
    """The ``rejects`` rows (``PROBLEMS_SCHEMA``) of copies that conflict with the copy
    kept, row by row (what :func:`conflict_rejects` and the Spark reader both write).

    ``conflicts`` holds, per rejected copy, its ``source_file``, ``source_line``,
    ``site``, ``hand_id``, ``content_hash``, ``variant``, ``table`` and ``started_at``;
    the kept copy's ``_kept_hash``, ``_kept_file`` and ``_kept_line``; ``_details``,
    the differing_details mask (0: the content differs); ``_verb``, ``stored`` (the
    kept copy was stored before) or ``read`` (read earlier in the same batch); and
    ``_seats``, the copy's seats as text (:func:`seat_lines`) or null.
    """
    kept_copy = (pl.when(pl.col("_verb") == "stored").then(pl.lit("the stored copy"))
                 .otherwise(pl.lit("the earlier copy")))
    details = pl.col("_details").replace_strict(_DETAIL_TEXT, default=None,
                                                return_dtype=pl.String)
    return (
        conflicts.select(
            pl.col("source_file").alias("file"), pl.col("source_line").alias("line"),
            "site", "hand_id", pl.lit("conflict").alias("kind"),
            pl.when(details.is_null()).then(pl.format(
                "hand {} of {} was already {} from {} line {} with different content "
                "(content hash {} there, {} here): the copy already there was kept",
                "hand_id", "site", "_verb", "_kept_file", "_kept_line",
                pl.col("_kept_hash").str.slice(0, 12), pl.col("content_hash").str.slice(0, 12)))
            .otherwise(pl.format(
                "hand {} of {} was already {} from {} line {} with the same players and "
                "boards, but this copy differs from {} in its {}: the copy already there "
                "was kept", "hand_id", "site", "_verb", "_kept_file", "_kept_line",
                kept_copy, details)).alias("reason"),
            pl.concat_str([
                pl.format("{} {} {} at {}", "variant", pl.col("table"), "hand_id",
                          pl.col("started_at").dt.strftime("%Y-%m-%dT%H:%M:%SZ")),
                pl.col("_seats")], separator=": ", ignore_nulls=True).alias("raw"),
        )
        .cast(PROBLEMS_SCHEMA)
    )


def unresolved_rejects(ids: pl.DataFrame, firsts: pl.DataFrame) -> pl.DataFrame:
    """``conflict`` rejects of the first copies (``firsts``: hands) of the hands ``ids``
    whose differing copies in one batch could not be told apart (the later copies are
    conflicts already)."""
    return (firsts.join(ids, on=["site", "hand_id"], how="semi", maintain_order="left")
            .select(pl.col("source_file").alias("file"), pl.col("source_line").alias("line"),
                    "site", "hand_id", pl.lit("conflict").alias("kind"),
                    pl.lit("different copies of this hand in one stretch of the file "
                           "could not be told apart: none was stored").alias("reason"),
                    pl.lit(None, pl.String).alias("raw"))
            .cast(PROBLEMS_SCHEMA))
