"""Random but complete hands as canonical batches: for benchmarks and round-trip tests.

Every field a format can carry gets a value somewhere: streets with placements and
Pineapple discards, Fantasyland hands (all cards on the first street), time zone
offsets (and times without one), point values and currencies, reported points,
royalties and money, stacks, names with spaces and accents. Boards are dealt at
random from the variant's deck (jokers, two decks), so many of them foul, as in
:func:`ofc_stats.bench.data.random_deals`.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ofc_stats.engine.cards import CARD_NAMES, card_names_expr, deck_codes
from ofc_stats.engine.rules import Row, Variant, ruleset_for_variant
from ofc_stats.formats.canonical import CanonicalBatch, normalise

NAMES = ("Ivey", "Hellmuth", "Zoë", "Phil Galfond", "dwan_88", "Ōkubo", "Ana-María",
         "x", "Lisa (home)", "ABC123")
OFFSETS = (60, 0, -300, None, 330, 120)  # minutes east of UTC; None: the source wrote none
_ROW_OF_SLOT = np.array([0] * 3 + [1] * 5 + [2] * 5)
_ROW_NAMES = np.array([row.value for row in Row])
SAMPLE_BATCH = 50_000


def _streets(variant: Variant) -> list[int]:
    """Cards placed on each street after the first five (classic 1, Pineapple 2)."""
    return [2] * 4 if variant.pineapple_deal else [1] * 8


def deck_of(variant: Variant) -> np.ndarray:
    """The codes of the variant's deck: 52 cards, twice with two decks, plus jokers."""
    rules = ruleset_for_variant(variant)
    return deck_codes(rules.jokers, rules.decks)


def sample_hands(hands: int, players: int = 3, *, variant: Variant | str = Variant.PINEAPPLE,
                 seed: int = 0, streets: bool = True, fantasyland_share: float = 0.1,
                 site: str = "sample") -> CanonicalBatch:
    """``hands`` random hands of ``players`` players as one canonical batch.

    Args:
        hands: how many hands.
        players: players per hand (2-3 for Pineapple variants, 2-4 for classic, more
            with two decks: what the variant's deck deals).
        variant: the variant every hand is played under.
        seed: random seed; the same arguments give the same hands.
        streets: record every placement and discard (``streets`` table).
        fantasyland_share: share of player-hands played in Fantasyland.
        site: the ``site`` of every hand.
    """
    variant = Variant(variant)
    batches = [_sample(min(SAMPLE_BATCH, hands - first), first, players, variant, seed,
                       streets, fantasyland_share, site)
               for first in range(0, hands, SAMPLE_BATCH)]
    return CanonicalBatch.concat(batches)


def _sample(hands: int, first: int, players: int, variant: Variant, seed: int,
            with_streets: bool, fantasyland_share: float, site: str) -> CanonicalBatch:
    rng = np.random.default_rng([seed, first])
    pineapple = variant.pineapple_deal
    dealt = 17 if pineapple else 13
    boards = hands * players
    codes = deck_of(variant)
    deck = rng.permuted(np.broadcast_to(codes, (hands, len(codes))), axis=1)
    cards = deck[:, :dealt * players].reshape(boards, dealt)
    record = np.repeat(np.arange(hands), players)
    seat = np.tile(np.arange(1, players + 1), hands)
    in_fl = rng.random(boards) < fantasyland_share
    most = 18 if ruleset_for_variant(variant).jokers else 17  # Joker Ultimate deals 17
    fl_cards = np.where(in_fl, rng.integers(14, most, boards) if pineapple else 13, 0)
    discards = np.where(in_fl, fl_cards - 13, 4 if pineapple else 0)

    raw_hands = pl.DataFrame({
        "record": np.arange(hands), "line": first + np.arange(hands) + 1,
        "offset": rng.choice(len(OFFSETS), hands), "n": first + np.arange(hands),
        "pv": rng.choice(4, hands),
    }).select(
        "record", "line", pl.lit(site).alias("site"),
        pl.format("{}-{}", pl.lit(seed), pl.col("n")).alias("hand_id"),
        pl.format("Table {}", pl.col("n") % 7 + 1).alias("table"),
        _start_times(pl.col("n"), pl.col("offset")).alias("started_at"),
        pl.lit(variant.value).alias("variant"),
        pl.when(pl.col("n") % 5 == 0).then(pl.lit("house")).alias("ruleset"),
        (pl.col("n") % players + 1).alias("button_seat"),
        pl.col("pv").replace_strict({0: None, 1: "0.25", 2: "1", 3: "12.5"},
                                    return_dtype=pl.String).alias("point_value"),
        pl.col("pv").replace_strict({0: None, 1: "USD", 2: "EUR", 3: None},
                                    return_dtype=pl.String).alias("currency"),
    )
    # Reported points as a room reports them: each hand's sum to zero (RULES.md §5).
    points = rng.integers(-30, 31, boards)
    last = seat == players
    others = np.bincount(record, weights=np.where(last, 0, points), minlength=hands)
    points = np.where(last, -others.astype(np.int64)[record], points)
    names = pl.Series("cards", cards).cast(pl.List(pl.Int8)).list.eval(
        card_names_expr(pl.element()))
    raw_seats = pl.DataFrame({
        "record": record, "seat": seat,
        "player": np.array(NAMES)[(np.arange(boards) + record * 3) % len(NAMES)],
        "cards": names, "count": discards, "in_fantasyland": in_fl,
        "fl_cards": np.where(in_fl, fl_cards, -1),
        "reported_points": points,
        "reported_royalties": rng.integers(0, 12, boards), "stacks": rng.integers(0, 3, boards),
    }).with_columns(
        pl.col("cards").list.slice(0, 3).alias("top"),
        pl.col("cards").list.slice(3, 5).alias("middle"),
        pl.col("cards").list.slice(8, 5).alias("bottom"),
        pl.col("cards").list.slice(13, pl.col("count")).alias("discards"),
    ).drop("cards", "count").with_columns(
        pl.when(pl.col("fl_cards") >= 0).then(pl.col("fl_cards")).alias("fl_cards"),
        pl.when(pl.col("stacks") == 1).then(pl.lit("150.5")).alias("starting_stack"),
        pl.when(pl.col("stacks") == 1).then(pl.lit("12")).alias("collected"),
        pl.when(pl.col("stacks") == 1).then(pl.lit("-7.25"))
        .when(pl.col("stacks") == 2).then(pl.lit("3")).alias("reported_money"),
        pl.when(pl.col("discards").list.len() > 0).then(pl.col("discards")).alias("discards"),
    ).drop("stacks")
    raw_streets = _street_rows(cards, record, seat, in_fl, discards, variant, rng) \
        if with_streets else None
    return normalise(raw_hands, raw_seats, raw_streets, "sample")


def _start_times(number: pl.Expr, offset: pl.Expr) -> pl.Expr:
    """ISO 8601 text, 47 s apart, with the offset chosen from OFFSETS (or none)."""
    utc = pl.lit(np.datetime64("2026-03-01T12:00:00", "us")) + pl.duration(
        seconds=number * 47, microseconds=pl.when(number % 9 == 0).then(250_000).otherwise(0))
    minutes = offset.replace_strict(dict(enumerate(OFFSETS)), return_dtype=pl.Int64)
    local = utc + pl.duration(minutes=minutes.fill_null(0))
    size = minutes.abs()
    zone = pl.format("{}{}:{}", pl.when(minutes < 0).then(pl.lit("-")).otherwise(pl.lit("+")),
                     (size // 60).cast(pl.String).str.zfill(2),
                     (size % 60).cast(pl.String).str.zfill(2))
    return pl.concat_str([local.dt.strftime("%Y-%m-%dT%H:%M:%S%.f"),
                          pl.when(minutes.is_not_null()).then(zone).otherwise(pl.lit(""))])


def _street_rows(cards: np.ndarray, record: np.ndarray, seat: np.ndarray,
                 in_fl: np.ndarray, discards: np.ndarray, variant: Variant,
                 rng: np.random.Generator) -> pl.DataFrame:
    """Raw streets: each board's 13 cards placed over the streets in a random order."""
    boards = len(cards)
    later = _streets(variant)
    # The street each placement order step belongs to: 5 on street 1, then later streets.
    step_street = np.repeat(np.arange(1, len(later) + 2), [5, *later])
    order = rng.permuted(np.broadcast_to(np.arange(13), (boards, 13)), axis=1)
    street = np.where(in_fl[:, None], 1, step_street[None, :])
    place = pl.DataFrame({
        "record": np.repeat(record, 13), "seat": np.repeat(seat, 13),
        "street": street.ravel(), "kind": _ROW_OF_SLOT[order].ravel(),
        "card": np.array(CARD_NAMES)[np.take_along_axis(cards[:, :13], order, axis=1)].ravel(),
    })
    # Discards: Pineapple throws one card a street from street 2; Fantasyland all at once.
    count = int(discards.max()) if len(discards) else 0
    which = np.arange(count)[None, :] < discards[:, None]
    throw = pl.DataFrame({
        "record": np.repeat(record, count), "seat": np.repeat(seat, count),
        "street": np.where(in_fl[:, None], 1, 2 + np.arange(count)[None, :]).ravel(),
        "kind": np.full(boards * count, 3),
        "card": np.array(CARD_NAMES)[cards[:, 13:13 + count]].ravel() if count else
        np.array([], dtype=str),
        "keep": which.ravel(),
    }).filter(pl.col("keep")).drop("keep")
    return (
        pl.concat([place, throw])
        .sort("record", "street", "seat", "kind", maintain_order=True)
        .with_columns(
            pl.when(pl.col("kind") == 3).then(pl.lit("discard")).otherwise(pl.lit("place"))
            .alias("action"),
            pl.when(pl.col("kind") < 3).then(
                pl.col("kind").replace_strict(dict(enumerate(_ROW_NAMES)),
                                              return_dtype=pl.String, default=None))
            .alias("row"),
        )
        .select("record", "seat", "street", "action", "row", "card")
    )
