"""Why a hand's cards are refused: the reasons :func:`ofc_stats.formats.canonical.normalise`
gives for a card its board or its streets hold more often than the deck does."""

from __future__ import annotations

import polars as pl

from ofc_stats.engine.cards import JOKER, card_names_expr


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
