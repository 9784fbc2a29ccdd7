"""The bulk checks of ``normalise`` (cards parsed over the lists' flat strings, checks
formatted for suspect cards only, deck sizes looked up by record) give what the
first, exploded-frame checks gave (``tests/canonical_reference.py``), on random raw
batches full of mistakes; and the stored content hashes stay what they were."""

from __future__ import annotations

import hashlib
from contextlib import ExitStack
from typing import Any
from unittest.mock import patch

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from ofc_stats.formats import canonical
from ofc_stats.formats.canonical import CanonicalBatch, normalise
from ofc_stats.formats.samples import sample_hands
from tests.canonical_reference import reference_cards_twice, reference_check_seats

DECK = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
GOOD_CARDS = ["Ah", "Kd", "Qs", "Jc", "Td", "9h", "2c", "3s", "7d", "As", "Kh", "5c"]
ODD_CARDS = ["10d", " td", "q♠", "AH", "Xj", "joker", "JK", "Zz", "", "1", "A", "Ahh", None]
VARIANTS = ["pineapple", "Classic", "joker pineapple", "double deck", "2-7", "badugi", None]
MONEY_TEXT = [None, "10", " 2.50 ", "-5", "abc", "1e3", "", "7"]

cards = st.sampled_from(GOOD_CARDS) | st.sampled_from(ODD_CARDS)


def card_list(draw: st.DrawFn, dealt: list[str]) -> list[str | None] | None:
    """Mostly the cards dealt (a full row of distinct cards), else a messy list."""
    if draw(st.integers(0, 5)):
        return list(dealt)
    return draw(st.one_of(st.lists(cards, max_size=len(dealt) + 2), st.none()))


@st.composite
def raw_batches(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None]:
    hands_count = draw(st.integers(1, 6))
    hands = [{
        "record": record, "line": record * 7 + 1, "raw": f"hand {record}",
        "site": draw(st.sampled_from(["home"] * 9 + [""])), "hand_id": f"h{record % 4}",
        "table": "t1", "started_at": draw(st.sampled_from(
            ["2026-03-01T20:15:00+01:00"] * 10 + ["2026-03-01 20:15:00Z", "yesterday"])),
        "variant": draw(st.sampled_from(VARIANTS[:4] * 3 + VARIANTS)),
        "point_value": draw(st.sampled_from([None] + ["0.25"] * 8 + ["x"])),
    } for record in range(hands_count)]
    seats: list[dict[str, Any]] = []
    for record in range(hands_count):
        players = draw(st.sampled_from([2, 2, 3, 3, 4, 0, 1]))  # a hand may have no seats
        deck = draw(st.permutations(DECK))
        for seat in range(1, players + 1):
            board = deck[(seat - 1) * 13:seat * 13]
            seats.append({
                "record": record,
                "seat": draw(st.sampled_from([seat] * 12 + [2, None, 300])),
                "player": draw(st.sampled_from([f"p{seat}"] * 12 + ["p1", None])),
                "top": card_list(draw, board[:3]), "middle": card_list(draw, board[3:8]),
                "bottom": card_list(draw, board[8:]),
                "discards": draw(st.one_of(st.none(), st.lists(cards, max_size=4),
                                          st.just(deck[52 - seat:53 - seat]),
                                          st.just(board[:1]))),  # a card twice
                "in_fantasyland": draw(st.sampled_from([None, True, False])),
                **{name: draw(st.sampled_from([None] * 30 + MONEY_TEXT))
                   for name in ("starting_stack", "collected", "reported_money")},
            })
    schema = {"top": pl.List(pl.String), "middle": pl.List(pl.String),
              "bottom": pl.List(pl.String), "discards": pl.List(pl.String),
              "seat": pl.Int64, "player": pl.String, "record": pl.Int64,
              "in_fantasyland": pl.Boolean, "starting_stack": pl.String,
              "collected": pl.String, "reported_money": pl.String}
    seat_frame = (pl.DataFrame(seats, schema=schema) if seats
                  else pl.DataFrame(schema=schema))
    streets = [{"record": draw(st.integers(0, hands_count - 1)), "seat": draw(st.integers(1, 3)),
                "street": draw(st.integers(1, 5)),
                "action": draw(st.sampled_from(["place"] * 8 + ["discard", "burn"])),
                "row": draw(st.sampled_from(["top", "middle", "bottom"] * 3 + ["side", None])),
                "card": draw(st.sampled_from(["Ah", "Kd", "Xj"]) | cards)}
               for _ in range(draw(st.integers(0, 30)))]
    street_frame = pl.DataFrame(streets, schema={
        "record": pl.Int64, "seat": pl.Int64, "street": pl.Int64, "action": pl.String,
        "row": pl.String, "card": pl.String}) if streets else None
    return pl.DataFrame(hands), seat_frame, street_frame


def reference_normalise(hands: pl.DataFrame, seats: pl.DataFrame,
                        streets: pl.DataFrame | None) -> CanonicalBatch:
    seen: dict[str, pl.DataFrame] = {}

    def check_seats(seats: pl.DataFrame, hands: pl.DataFrame, _limits: object
                    ) -> tuple[pl.DataFrame, pl.DataFrame, np.ndarray]:
        seen["hands"] = hands  # the references find each deck by a join with the hands
        return reference_check_seats(seats, hands)

    def cards_twice(streets: pl.DataFrame, _limits: object) -> pl.DataFrame:
        return reference_cards_twice(streets, seen["hands"])

    with ExitStack() as stack:
        stack.enter_context(patch.object(canonical, "_check_seats", check_seats))
        stack.enter_context(patch.object(canonical, "_cards_twice", cards_twice))
        return normalise(hands, seats, streets, "batch.txt")


def assert_same(expected: CanonicalBatch, got: CanonicalBatch) -> None:
    for name in ("hands", "seats", "streets", "problems"):
        assert_frame_equal(getattr(expected, name), getattr(got, name))


@settings(max_examples=250, deadline=None)
@given(raw_batches())
def test_bulk_checks_equal_the_exploded_reference(
        batch: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None]) -> None:
    hands, seats, streets = batch
    assert_same(reference_normalise(hands, seats, streets),
                normalise(hands, seats, streets, "batch.txt"))


def test_sample_batches_keep_their_content_hashes() -> None:
    # md5 of each batch's content hashes joined, as they were before the bulk checks:
    # the hashes are stored, so they must never change.
    pinned = {
        (300, 3, "pineapple"): "64003abd9c5835022d38b9601b458ec6",
        (200, 2, "joker-pineapple"): "1188b40be1bb515aa7ba38c8207eda59",
        (200, 4, "classic"): "57c795f0c4cf99b13abfab14a519c7b2",
    }
    for (hands, players, variant), digest in pinned.items():
        batch = sample_hands(hands, players, variant=variant)
        joined = "".join(batch.hands["content_hash"].to_list())
        assert hashlib.md5(joined.encode()).hexdigest() == digest
