"""The seat and street checks of :mod:`ofc_stats.formats.canonical` as they were
written first, with an exploded frame per card column and joins: the plain reference
the bulk checks must equal (``tests/test_canonical_bulk.py``)."""

from __future__ import annotations

import numpy as np
import polars as pl

from ofc_stats.engine.boards import ROW_SLOTS
from ofc_stats.engine.cards import JOKER, NO_CARD, card_codes, card_codes_expr, card_names_expr
from ofc_stats.engine.rules import Row
from ofc_stats.formats.canonical import (
    _first_reason,
    _money_check_list,
    _row_size_checks,
    _seat_count_checks,
)
from ofc_stats.formats.card_reasons import DECKS, JOKERS, duplicate_reasons, twice_reasons


def reference_check_seats(seats: pl.DataFrame, hands: pl.DataFrame
                 ) -> tuple[pl.DataFrame, pl.DataFrame, np.ndarray]:
    """Seat-level checks; returns seats in (record, seat) order, reasons, (n, 13) codes."""
    seats = (seats.sort("record", "seat", maintain_order=True)
             .with_row_index("_seat_row"))
    n = seats.height
    cards = np.full((n, 13), NO_CARD, dtype=np.int8)
    exploded_parts = []
    for row in (*Row, "discards"):
        # Where the row's cards go in the 13 slots (discards go nowhere).
        start, size = ROW_SLOTS.get(row, (-1, 0)) if isinstance(row, Row) else (-1, 0)
        exploded_parts.append(
            seats.select("_seat_row", "record", "seat", pl.col(row).alias("card"),
                         pl.int_ranges(0, pl.col(row).list.len(), dtype=pl.Int64)
                         .alias("position"))
            .explode("card", "position").drop_nulls("card")
            .with_columns(pl.lit(str(row)).alias("row"), pl.lit(start).alias("_start"),
                          pl.lit(size).alias("_size"))
        )
    exploded = pl.concat(exploded_parts)
    exploded = exploded.with_columns(card_codes(exploded["card"]).alias("code"))

    variant_of = hands.select("record", "_variant")
    hand_checks = _seat_count_checks(seats, variant_of)

    where = pl.format("seat {} {}", pl.col("seat"), pl.col("row"))
    # Jokers and copies of a card a hand may hold, by record (its variant's deck).
    known = variant_of.filter(pl.col("record").is_not_null())
    record_index = known["record"].to_numpy().astype(np.int64)
    size = int(record_index.max()) + 1 if len(record_index) else 1
    jokers_of = np.zeros(size, dtype=np.int64)
    decks_of = np.ones(size, dtype=np.int64)
    jokers_of[record_index] = known["_variant"].replace_strict(
        {v.value: n for v, n in JOKERS.items()}, default=0, return_dtype=pl.Int64).to_numpy()
    decks_of[record_index] = known["_variant"].replace_strict(
        {v.value: n for v, n in DECKS.items()}, default=1, return_dtype=pl.Int64).to_numpy()
    exploded_records = exploded["record"].to_numpy()
    exploded = exploded.with_columns(
        pl.Series("_jokers", jokers_of[np.minimum(exploded_records, size - 1)]))
    card_checks = _first_reason(exploded, [
        ("card", pl.col("code").is_null(), pl.format("bad card '{}' ({})", pl.col("card"), where)),
        ("card", (pl.col("code") >= JOKER) & (pl.col("_jokers") == 0),
         pl.format("joker '{}' ({}) in a variant without jokers", pl.col("card"), where)),
    ])
    size_checks = _row_size_checks(seats)
    # Money a seat records must be money: a stack, what was collected, what was paid.
    money = [(name, pl.col(name).cast(pl.String).str.strip_chars()) for name in
             ("starting_stack", "collected", "reported_money")]
    money_checks = _first_reason(seats.select("record", "seat", *(text.alias(name)
                                                                  for name, text in money)),
                                 _money_check_list(tuple(name for name, _ in money)))
    valid = exploded.filter(pl.col("code").is_not_null())
    # A card more often in one hand than its decks hold it (a joker: than the deck's
    # jokers): count (record, card) keys with numpy.
    records = valid["record"].to_numpy()
    first_record = int(records.min()) if len(records) else 0
    codes = np.minimum(valid["code"].to_numpy(), JOKER)  # every joker is one kind
    keys = (records - first_record) * 64 + codes
    valid_records = np.minimum(records, size - 1)
    allowed = np.where(codes >= JOKER, jokers_of[valid_records], decks_of[valid_records])
    repeated = (np.bincount(keys)[keys] > allowed if len(keys)
                else np.zeros(0, dtype=bool))
    duplicate_checks = duplicate_reasons(valid.filter(pl.Series(repeated)))
    reasons = pl.concat([hand_checks, card_checks, size_checks, money_checks,
                         duplicate_checks])

    placed = valid.filter(pl.col("position") < pl.col("_size"))
    slots = placed.select("_seat_row", (pl.col("_start") + pl.col("position")).alias("slot"),
                          "code")
    cards[slots["_seat_row"].to_numpy(), slots["slot"].to_numpy()] = slots["code"].to_numpy()
    # The discards as canonical text, as they were spelled element by element.
    seats = seats.with_columns(
        pl.col("discards").list.eval(card_names_expr(card_codes_expr(pl.element())))
        .list.join(" ").replace("", None).alias("_discards"))
    return seats, reasons, cards



def reference_cards_twice(streets: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
    """The street cards placed too often, each street's deck found by a join."""
    placed = streets.filter(pl.col("code").is_not_null())
    if placed.is_empty():
        return pl.DataFrame(schema={"record": pl.Int64, "reason": pl.String})
    valid = placed
    deck = valid.select("record").join(
        hands.select("record", "_variant"), on="record", how="left", maintain_order="left"
    ).select(*(pl.col("_variant").replace_strict({v.value: n for v, n in counts.items()},
                                                 default=fallback, return_dtype=pl.Int64)
               .alias(name) for name, counts, fallback in (("decks", DECKS, 1),
                                                           ("jokers", JOKERS, 0))))
    # Count (record, card) keys with numpy, as the boards' check does.
    records = valid["record"].to_numpy()
    codes = np.minimum(valid["code"].to_numpy(), JOKER)  # every joker is one kind
    keys = (records - int(records.min())) * 64 + codes
    allowed = np.where(codes >= JOKER, np.maximum(deck["jokers"].to_numpy(), 1),
                       deck["decks"].to_numpy())
    repeated = np.bincount(keys)[keys] > allowed
    if not repeated.any():
        return pl.DataFrame(schema={"record": pl.Int64, "reason": pl.String})
    return twice_reasons(valid.filter(pl.Series(repeated)))
