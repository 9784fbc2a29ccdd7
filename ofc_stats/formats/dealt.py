"""Dealt cards checked against the cards placed and discarded, for every reader."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import polars as pl

from ofc_stats.engine.cards import card_codes_expr


def dealt_mismatch(entries: pl.DataFrame, checked: pl.DataFrame, tokens: pl.Series,
                   entry: npt.NDArray[np.int64], kind: npt.NDArray[np.int64]) -> pl.DataFrame:
    """(record, error) for entries whose dealt cards are not those placed and discarded.

    Each side's cards are summed as hashes (count and two 32-bit halves, order-free)
    with numpy; the few entries whose sums differ are compared again as card codes,
    so that ``10d`` and ``Td`` count as the same card.
    """
    dealt = kind == 4
    with_dealt = np.zeros(len(entries), dtype=bool)
    with_dealt[entry[dealt]] = True
    with_dealt &= entries["dealt"].is_not_null().to_numpy()
    if not with_dealt.any():
        return pl.DataFrame(schema={"record": pl.Int64, "error": pl.String, "kind": pl.String})
    hashes = tokens.hash(seed=0).to_numpy()
    slot = entry * 2 + dealt
    size = 2 * len(entries)
    sums = [np.bincount(slot, minlength=size),
            np.bincount(slot, weights=(hashes & 0xFFFFFFFF).astype(np.float64), minlength=size),
            np.bincount(slot, weights=(hashes >> 32).astype(np.float64), minlength=size)]
    differ = np.zeros(len(entries), dtype=bool)
    for total in sums:
        differ |= total[0::2] != total[1::2]
    suspects = np.flatnonzero(differ & with_dealt)
    if not len(suspects):
        return pl.DataFrame(schema={"record": pl.Int64, "error": pl.String, "kind": pl.String})
    # Rare: compare the suspects' cards as codes.
    mine = np.isin(entry, suspects)
    cards = pl.DataFrame({"entry": entry[mine], "dealt": dealt[mine],
                          "card": tokens.filter(pl.Series(mine))}).with_columns(
        card_codes_expr(pl.col("card")).alias("code"))
    sides = cards.group_by("entry", "dealt").agg(pl.col("code").sort(), pl.col("card"))
    kept = sides.filter(~pl.col("dealt")).select("entry", pl.col("code").alias("kept"),
                                                   pl.col("card").alias("kept_cards"))
    given = sides.filter(pl.col("dealt")).join(kept, on="entry", how="left")
    wrong = given.filter(pl.col("code") != pl.col("kept").fill_null([]))
    where = checked.with_row_index("entry").with_columns(pl.col("entry").cast(pl.Int64))
    # A dealt card that is no card is a card problem (a mangled card), not the rows
    # disagreeing: the board it ends on cannot exist.
    not_cards = (cards.filter(pl.col("dealt") & pl.col("code").is_null())
                 .group_by("entry", maintain_order=True).agg(pl.col("card").first()))
    return wrong.with_columns(pl.col("entry").cast(pl.Int64)).join(
        where, on="entry", how="left").join(
        not_cards.select(pl.col("entry").cast(pl.Int64), pl.col("card").alias("_bad")),
        on="entry", how="left").sort("entry").select(
        "record",
        pl.when(pl.col("_bad").is_not_null()).then(
            pl.format("bad card '{}' (seat {} street {} dealt)", "_bad", "seat", "street"))
        .otherwise(pl.format("street {} seat {}: dealt [{}] but placed and discarded [{}]",
                             "street", "seat", pl.col("card").list.join(" "),
                             pl.col("kept_cards").fill_null([]).list.join(" ")))
        .alias("error"),
        pl.when(pl.col("_bad").is_not_null()).then(pl.lit("card")).alias("kind"),
    )
