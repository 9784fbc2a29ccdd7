"""Card notation and compact integer codes.

A card is stored as one small integer: ``rank * 4 + suit`` with ranks ``2..A`` as
``0..12`` and suits ``c d h s`` as ``0..3``, so ``2c`` is 0 and ``As`` is 51.
Codes 52 and 53 are reserved for the two jokers and :data:`NO_CARD` (-1) marks an
empty slot. Strings only exist at the edges (reading files, SQL views, reports);
every column inside the library holds codes.

>>> parse_card("Ah")
50
>>> parse_card("10d"), parse_card("td"), parse_card("T♦")
(33, 33, 33)
>>> card_text(50)
'Ah'
>>> parse_cards("Ks Qs Js")
[47, 43, 39]
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa  # type: ignore[import-untyped]

from ofc_stats.errors import InvalidCardError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
NO_CARD = -1
INVALID_CARD = -2  # in :func:`card_code_array`: a string that is not a card
JOKER = 52
SECOND_JOKER = 53
N_CARDS = 52


class Suit(StrEnum):
    """Suits, valued as their letter in card notation."""

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"


# Index = card code; the canonical spelling of every code, jokers included.
CARD_NAMES: tuple[str, ...] = (*(r + s for r in RANKS for s in SUITS), "Xj", "Xj")

_SUIT_SPELLINGS = {
    "c": "c", "d": "d", "h": "h", "s": "s",
    "♣": "c", "♦": "d", "♥": "h", "♠": "s",
    "♧": "c", "♢": "d", "♡": "h", "♤": "s",
}
_JOKER_SPELLINGS = ("xj", "jk", "joker")


def _build_spellings() -> dict[str, int]:
    """Every accepted spelling (already stripped and lower-cased) mapped to its code."""
    spellings: dict[str, int] = {}
    for rank_index, rank in enumerate(RANKS):
        rank_spellings = [rank.lower()] + (["10"] if rank == "T" else [])
        for suit_spelling, suit in _SUIT_SPELLINGS.items():
            code = rank_index * 4 + SUITS.index(suit)
            for rank_spelling in rank_spellings:
                spellings[rank_spelling + suit_spelling] = code
    for joker in _JOKER_SPELLINGS:
        spellings[joker] = JOKER
    return spellings


_SPELLINGS = _build_spellings()


def parse_card(text: str) -> int:
    """Parse one card such as ``Ah``, ``10d``, ``td``, ``Q♠`` or ``Xj`` into its code.

    Raises:
        InvalidCardError: the text is not a card.
    """
    code = _SPELLINGS.get(text.strip().lower())
    if code is None:
        raise InvalidCardError(text)
    return code


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse space- or comma-separated cards (or an iterable of card strings)."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(item) for item in items]


def card_text(code: int) -> str:
    """The canonical spelling of a card code (``Ah``, ``Td``, ``Xj``)."""
    if not 0 <= code < len(CARD_NAMES):
        raise InvalidCardError(str(code))
    return CARD_NAMES[code]


def cards_text(codes: Iterable[int]) -> str:
    """Cards as canonical text separated by spaces, skipping empty slots."""
    return " ".join(card_text(code) for code in codes if code != NO_CARD)


def display_order(cards: Iterable[str], shown_as: Iterable[str | None] | None = None
                  ) -> list[str]:
    """A row's cards in the order players read them: the biggest group of a rank first
    (quads, trips, pairs), higher ranks first within a size, a wheel's ace last;
    jokers and unreadable cards at the end, unless ``shown_as`` says, card by card,
    what to order each as (the card a joker became; None: the card itself).

    >>> display_order(["Ac", "7h", "7d", "7s", "7c"])
    ['7s', '7h', '7d', '7c', 'Ac']
    >>> display_order("Kd 3c Kh 3s 9c".split()), display_order("Ah 2c 5d 3h 4s".split())
    (['Kh', 'Kd', '3s', '3c', '9c'], ['5d', '4s', '3h', '2c', 'Ah'])
    >>> display_order(["Ac", "Xj", "7d"], [None, "7s", None])
    ['Xj', '7d', 'Ac']
    """
    items = list(cards)
    ranked = [shown or card for card, shown in
              zip(items, shown_as if shown_as is not None else [None] * len(items),
                  strict=True)]
    codes = []
    for card in ranked:
        try:
            codes.append(parse_card(card))
        except InvalidCardError:
            codes.append(-1)
    ranks = [code // 4 for code in codes if 0 <= code < N_CARDS]
    wheel = sorted(ranks) == [0, 1, 2, 3, 12]

    def key(index: int) -> tuple[int, int, int]:
        code = codes[index]
        if not 0 <= code < N_CARDS:
            return (1, 0, 0)
        rank = code // 4
        shown_rank = -1 if wheel and rank == 12 else rank
        return (0, -ranks.count(rank), -(shown_rank * 4 + code % 4))

    return [items[index] for index in sorted(range(len(items)), key=key)]


def _case_variants(text: str) -> set[str]:
    variants = {""}
    for char in text:
        variants = {prefix + c for prefix in variants for c in {char, char.upper()}}
    return variants


# Every accepted spelling in every mix of case, so clean input needs one look-up.
_CASED_SPELLINGS = {variant: code for spelling, code in _SPELLINGS.items()
                    for variant in _case_variants(spelling)}


def card_codes_expr(expr: pl.Expr) -> pl.Expr:
    """Polars expression: card strings to Int8 codes, null where a string is not a card.

    Strips white space first; :func:`card_codes` is faster on clean input.
    """
    return (
        expr.str.strip_chars()
        .replace_strict(_CASED_SPELLINGS, default=None, return_dtype=pl.Int8)
    )


def _two_byte_table() -> npt.NDArray[np.int8]:
    """Codes of the two-byte spellings (``Ah``, ``td``, ``JK``: nearly every card
    written), indexed by the spelling's two bytes read as a little-endian uint16."""
    table = np.full(1 << 16, INVALID_CARD, dtype=np.int8)
    for spelling, code in _CASED_SPELLINGS.items():
        raw = spelling.encode()
        if len(raw) == 2:
            table[raw[0] | raw[1] << 8] = code
    return table


_TWO_BYTE_CODES = _two_byte_table()
_PARSE_SLICE = 1 << 16


def card_code_array(strings: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.int8]:
    """Card codes of an Arrow array of strings, parsed in bulk: :data:`NO_CARD` where
    a string is null, :data:`INVALID_CARD` where it is not a card.

    Equal to :func:`card_codes_expr` on every string, at one table look-up per card:
    an Arrow string view holds each string's length and first bytes in place, so a
    two-byte string is its own 16-bit index into a table of the two-byte spellings.
    Only the other strings (``10d``, ``Q♠``, ``joker``, white space, not a card) take
    the polars expression, once per distinct string.
    """
    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks()
    if not pa.types.is_string_view(strings.type):
        strings = strings.cast(pa.string_view())
    count = len(strings)
    if not count:
        return np.empty(0, dtype=np.int8)
    # A view is 16 bytes: the length (int32), then the first four bytes of the string.
    views = strings.buffers()[1]
    window = slice(strings.offset, strings.offset + count)
    lengths = np.frombuffer(views, dtype=np.int32).reshape(-1, 4)[window, 0]
    first_two = np.frombuffer(views, dtype=np.uint16).reshape(-1, 8)[window, 2]
    codes = np.empty(count, dtype=np.int8)
    # In slices that stay in cache: the look-up widens its indices to 64 bits.
    for start in range(0, count, _PARSE_SLICE):
        part = slice(start, start + _PARSE_SLICE)
        np.take(_TWO_BYTE_CODES, first_two[part], out=codes[part])
        codes[part][lengths[part] != 2] = INVALID_CARD
    if strings.null_count:
        valid = strings.is_valid().to_numpy(zero_copy_only=False)
        codes[~valid] = NO_CARD
    missed = np.flatnonzero(codes == INVALID_CARD)
    if len(missed):
        others = pl.Series(strings, dtype=pl.String).gather(missed)
        distinct = others.unique()
        parsed = pl.select(card_codes_expr(pl.lit(distinct))).to_series()
        retried = others.replace_strict(distinct, parsed.fill_null(INVALID_CARD),
                                        return_dtype=pl.Int8)
        codes[missed] = retried.to_numpy()
    return codes


def card_codes(strings: pl.Series) -> pl.Series:
    """Vectorised :func:`parse_card` over a Series of strings; invalid cards become null.

    Parsed in bulk by :func:`card_code_array`.
    """
    codes = card_code_array(strings.to_arrow(compat_level=pl.CompatLevel.newest()))
    result = pl.Series(strings.name, codes, dtype=pl.Int8)
    missing = np.flatnonzero(codes < 0)
    return result.scatter(missing, None) if len(missing) else result


def card_names_expr(expr: pl.Expr) -> pl.Expr:
    """Polars expression: Int8 card codes to canonical card strings."""
    return expr.replace_strict(
        dict(enumerate(CARD_NAMES)), default=None, return_dtype=pl.String
    )


def deck_codes(jokers: int = 0, decks: int = 1) -> np.ndarray:
    """The codes of a shuffled deck's cards, in order: ``decks`` times the 52 cards, then
    the jokers (all :data:`JOKER`: a joker is a joker).

    >>> len(deck_codes()), len(deck_codes(jokers=2)), len(deck_codes(decks=2))
    (52, 54, 104)
    """
    cards = np.tile(np.arange(N_CARDS, dtype=np.int8), decks)
    return np.concatenate([cards, np.full(jokers * decks, JOKER, dtype=np.int8)])


def card_names(codes: np.ndarray) -> np.ndarray:
    """Vectorised :func:`card_text` over an integer array; empty slots become ``""``."""
    names = np.array((*CARD_NAMES, ""), dtype=object)
    index = np.where((codes >= 0) & (codes < len(CARD_NAMES)), codes, len(CARD_NAMES))
    return names[index]
