"""Why a hand's cards are refused: how often each variant's deck holds a card, and the
reasons :func:`ofc_stats.formats.canonical.normalise` gives for a card its board or
its streets hold more often than that."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.engine.cards import JOKER, card_names_expr
from ofc_stats.engine.rules import Variant, ruleset_for_variant

# Copies of each card a hand may hold, and jokers, per variant (RULES §1, §9, §10).
DECKS = {variant: ruleset_for_variant(variant).decks for variant in Variant}
JOKERS = {variant: ruleset_for_variant(variant).jokers * DECKS[variant] for variant in Variant}


@dataclass(frozen=True)
class DeckLimits:
    """How many jokers, and copies of a card, each record's deck holds (its variant's;
    no jokers and one deck for an unknown variant or a record not listed)."""

    jokers: npt.NDArray[np.int64]  # indexed by record
    copies: npt.NDArray[np.int64]

    @classmethod
    def of(cls, variants: pl.DataFrame) -> DeckLimits:
        """The limits of ``variants`` (``record``, ``_variant``): one look-up for both
        counts, not a join (each polars step costs a batch a fixed ~0.2 ms)."""
        if variants["record"].null_count():
            variants = variants.filter(pl.col("record").is_not_null())
        records = variants["record"].to_numpy().astype(np.int64)
        size = int(records.max()) + 1 if len(records) else 1
        # Packed as jokers * 16 + decks: a deck holds fewer than 16 jokers.
        packed = variants["_variant"].replace_strict(
            {v.value: JOKERS[v] * 16 + DECKS[v] for v in Variant}, default=1,
            return_dtype=pl.Int64).fill_null(1).to_numpy()
        jokers = np.zeros(size, dtype=np.int64)
        copies = np.ones(size, dtype=np.int64)
        jokers[records], copies[records] = np.divmod(packed, 16)
        return cls(jokers, copies)

    def at(self, records: npt.NDArray[np.int64]
           ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(jokers, copies) of each of ``records``."""
        listed = records < len(self.jokers)
        index = np.where(listed, records, 0)
        return (np.where(listed, self.jokers[index], 0),
                np.where(listed, self.copies[index], 1))


def twice_reasons(repeated: pl.DataFrame) -> pl.DataFrame:
    """(``record``, ``reason``) of the street cards placed more often than allowed."""
    where = pl.format("seat {} street {} {}", "seat", "street",
                      pl.coalesce(pl.col("row"), pl.col("action")))
    cards = (repeated.group_by("record", "code", maintain_order=True)
             .agg(where.alias("places")))
    return cards.group_by("record", maintain_order=True).agg(
        pl.len().alias("cards"), pl.col("code").first(), pl.col("places").first(),
    ).select(
        pl.col("record").cast(pl.Int64),
        pl.format("{} placed twice in the streets ({}: {}): the hand is stored without them",
                  pl.when(pl.col("cards") == 1).then(pl.lit("a card"))
                  .otherwise(pl.format("{} cards", pl.col("cards"))),
                  card_names_expr(pl.col("code")), pl.col("places").list.join(", "))
        .alias("reason"))


def duplicate_reasons(repeated: pl.DataFrame) -> pl.DataFrame:
    """``record``, ``kind``, ``reason`` of the board cards (``record``, ``seat``,
    ``row``, ``code``, in the order of the rows) a hand holds more often than allowed."""
    return (
        repeated
        .group_by("record", "code")
        .agg(pl.format("seat {} {}", "seat", "row").alias("places"), pl.len().alias("times"))
        .sort("record", "code")
        .select("record", pl.lit("duplicate card").alias("kind"),
                pl.when(pl.col("code") >= JOKER)
                .then(pl.format("{} jokers ({}): more than the deck holds", pl.col("times"),
                                pl.col("places").list.join(", ")))
                .otherwise(pl.format("duplicate card {} ({})", card_names_expr(pl.col("code")),
                                     pl.col("places").list.join(", "))).alias("reason"))
    )
