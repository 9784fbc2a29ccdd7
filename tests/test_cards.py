import numpy as np
import polars as pl
import pytest

from ofc_stats.engine.cards import (
    CARD_NAMES,
    JOKER,
    card_codes,
    card_names,
    card_text,
    cards_text,
    parse_card,
    parse_cards,
)
from ofc_stats.errors import InvalidCardError


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("2c", 0), ("2d", 1), ("2h", 2), ("2s", 3), ("As", 51), ("Ah", 50),
        ("Td", 33), ("10d", 33), ("td", 33), ("TD", 33), ("10D", 33),
        ("Q♠", 43), ("q♤", 43), ("K♥", 46), ("3♦", 5), ("4♣", 8),
        (" 9h ", 30), ("Xj", JOKER), ("JK", JOKER), ("joker", JOKER),
    ],
)
def test_parse_card_accepts_every_notation(text: str, code: int) -> None:
    assert parse_card(text) == code


@pytest.mark.parametrize("text", ["", "A", "1h", "11c", "Ax", "AhK", "Zz", "10", "♠"])
def test_invalid_card_is_a_clear_error_naming_the_card(text: str) -> None:
    with pytest.raises(InvalidCardError, match=f"invalid card {text!r}"):
        parse_card(text)


def test_codes_round_trip_through_text() -> None:
    assert [parse_card(card_text(code)) for code in range(52)] == list(range(52))
    assert len(set(CARD_NAMES[:52])) == 52


def test_parse_cards_splits_text_and_lists() -> None:
    assert parse_cards("Ah, Kd 10c") == [50, 45, 32]
    assert parse_cards(["Ah", "Kd"]) == [50, 45]
    assert cards_text([50, -1, 45]) == "Ah Kd"


def test_vectorised_parsing_matches_scalar_and_nulls_invalid() -> None:
    strings = pl.Series(["Ah", "10c", "q♠", "bogus", None])
    assert card_codes(strings).to_list() == [50, 32, 43, None, None]
    names = card_names(np.array([50, -1, 52], dtype=np.int8))
    assert names.tolist() == ["Ah", "", "Xj"]
