"""Deuce-to-seven middles (RULES.md section 10): lows written as text, and their rules.

A low is written as its high card (``"8"``: any eight-low) or as its five cards
(``"75432"``); :class:`LowballRules` holds a ruleset's 2-7 royalties and the low a
middle must make not to foul (``docs/rulesets.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ofc_stats.engine.cards import RANKS
from ofc_stats.engine.evaluate import Category, pack
from ofc_stats.errors import RulesetError


def lowball_spec(spec: str) -> tuple[int, ...]:
    """The ranks (0..12, highest first) of a deuce-to-seven hand written as its high card
    (``"8"``: any eight-low) or as its five cards (``"75432"``, ``"T9876"`` is not a low:
    a straight).

    >>> lowball_spec("75432"), lowball_spec("9")
    ((5, 3, 2, 1, 0), (7,))
    """
    text = str(spec).strip().upper().replace("10", "T").replace("-", "").replace(" ", "")
    if len(text) in (1, 5) and all(char in RANKS for char in text):
        ranks = tuple(sorted((RANKS.index(char) for char in text), reverse=True))
        distinct = len(set(ranks)) == len(ranks)
        straight = len(ranks) == 5 and ranks[0] - ranks[4] == 4
        if distinct and not straight:
            return ranks
    raise RulesetError(f"not a deuce-to-seven low: {spec!r} (expected e.g. '8' for any "
                       "eight-low, or five cards such as '75432')")


def lowball_bound(spec: str) -> int:
    """The strength (2-7 ranking, lower is better) every low meeting ``spec`` is below:
    ``"8"`` admits every eight-low or better, ``"75432"`` that hand or better.

    >>> lowball_bound("7") == pack(Category.HIGH_CARD, [6])
    True
    """
    ranks = lowball_spec(spec)
    if len(ranks) == 1:
        return pack(Category.HIGH_CARD, [ranks[0] + 1])
    return pack(Category.HIGH_CARD, list(ranks)) + 1


STANDARD_LOWBALL_ROYALTIES: Mapping[str, int] = MappingProxyType(
    {"9": 1, "8": 2, "7": 4, "75432": 8})


@dataclass(frozen=True)
class LowballRules:
    """A deuce-to-seven middle row: its royalties and the low it must make.

    ``royalties`` maps a low to points: ``"8"`` pays every eight-low, ``"75432"`` that
    exact hand (a five-card key wins over the high card's). ``qualifier`` is the
    highest card a middle may hold without fouling (it must also hold no pair,
    straight or flush); ``None``: any middle stands and only bottom >= top counts.
    """

    royalties: Mapping[str, int] = field(
        default_factory=lambda: dict(STANDARD_LOWBALL_ROYALTIES))
    qualifier: str | None = "T"

    def __post_init__(self) -> None:
        for key in self.royalties:
            lowball_spec(key)
        object.__setattr__(self, "royalties", MappingProxyType(
            {str(key): int(value) for key, value in self.royalties.items()}))
        if self.qualifier is not None and len(lowball_spec(self.qualifier)) != 1:
            raise RulesetError(f"lowball.qualifier: {self.qualifier!r} is not a rank")

    def __hash__(self) -> int:
        return hash((tuple(sorted(self.royalties.items())), self.qualifier))
