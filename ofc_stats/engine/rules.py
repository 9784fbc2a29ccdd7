"""Rules as data: a frozen :class:`Ruleset` with named presets and TOML loading.

Every rule value the scorer uses (royalty table, scoring method, Fantasyland entry,
stay and card counts, shooting the moon) lives here; the scorer only reads a
ruleset. Presets follow ``RULES.md``:

======================  ===========  ==================  ==========================
preset                  FL entry     FL cards            FL stay
======================  ===========  ==================  ==========================
``classic``             QQ+          13                  trips top / FH+ middle /
                                                         quads+ bottom, repeat 13
``pineapple``           QQ+          14                  trips top / quads+ bottom,
                                                         repeat 14
``progressive``         QQ+          QQ 14, KK 15,       as pineapple, repeat 14
                                     AA 16, trips 16
``ultimate``            QQ+          as progressive      as pineapple, repeat the
                                                         same count
``joker-pineapple``     QQ+          14                  as pineapple (two jokers)
``joker-progressive``   QQ+          QQ 14, KK 15,       as pineapple, repeat 14
                                     AA 16, trips 17
``joker-ultimate``      QQ+          as joker-progr.     as pineapple, repeat the
                                                         same count
``double-deck``         AA+          13                  as classic (two decks)
``double-deck-          AA+          14                  as pineapple (two decks)
pineapple``
``deuce-to-seven``      KK+ top or   14                  trips top / 7-5-4-3-2
                        7-5-4-3-2                        middle / quads+ bottom
                        middle
======================  ===========  ==================  ==========================

>>> ruleset = get_ruleset("pineapple")
>>> ruleset.royalties.top_royalty("QQ"), ruleset.royalties.bottom["full house"]
(7, 6)
>>> progressive = get_ruleset("progressive")
>>> ruleset.fantasyland.cards_for_entry("KK"), progressive.fantasyland.cards_for_entry("KK")
(14, 15)
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ofc_stats.engine.cards import RANKS
from ofc_stats.engine.evaluate import Category, pack
from ofc_stats.engine.lowball import LowballRules as LowballRules
from ofc_stats.engine.lowball import lowball_bound as lowball_bound
from ofc_stats.engine.lowball import lowball_spec as lowball_spec
from ofc_stats.errors import RulesetError
from ofc_stats.util.suggest import did_you_mean


class Variant(StrEnum):
    """Game variants, valued as they are written in histories, Parquet and the CLI."""

    CLASSIC = "classic"
    PINEAPPLE = "pineapple"
    PROGRESSIVE = "progressive"
    ULTIMATE = "ultimate"
    JOKER_PINEAPPLE = "joker-pineapple"
    JOKER_PROGRESSIVE = "joker-progressive"
    JOKER_ULTIMATE = "joker-ultimate"
    DOUBLE_DECK = "double-deck"
    DOUBLE_DECK_PINEAPPLE = "double-deck-pineapple"
    DEUCE_TO_SEVEN = "deuce-to-seven"

    @property
    def pineapple_deal(self) -> bool:
        """Whether the variant deals as Pineapple (5, then 4 streets of 3) rather than
        as classic OFC (5, then 8 streets of 1)."""
        return self not in (Variant.CLASSIC, Variant.DOUBLE_DECK)

    @property
    def cards_per_player(self) -> int:
        """Cards a player sees in a normal hand (13 placed, plus Pineapple's discards)."""
        return 17 if self.pineapple_deal else 13


class MiddleRow(StrEnum):
    """How the middle row is ranked."""

    HIGH = "high"  # as any poker hand, like the other rows
    DEUCE_TO_SEVEN = "deuce-to-seven"  # 2-7 lowball: the lowest hand wins


class Row(StrEnum):
    """The three rows of a board; the value is the column name everywhere."""

    TOP = "top"
    MIDDLE = "middle"
    BOTTOM = "bottom"

    @property
    def size(self) -> int:
        """Number of cards the row holds."""
        return 3 if self is Row.TOP else 5


class ScoringMethod(StrEnum):
    """How rows and scoops turn into points between two players.

    Every method pays one unit per row won. ``1-6`` adds 3 for a scoop (a scoop is
    6). ``2-4`` adds 1 to whoever wins more rows than the opponent, scoop included
    (2 for two rows of three, 4 for a scoop). ``2-6`` adds 1 for winning more rows
    without scooping and 3 for a scoop (2 and 6).
    """

    ONE_SIX = "1-6"
    TWO_FOUR = "2-4"
    TWO_SIX = "2-6"

    @property
    def majority_bonus(self) -> int:
        """Extra units for winning more rows than the opponent without a scoop."""
        return 0 if self is ScoringMethod.ONE_SIX else 1

    @property
    def scoop_bonus(self) -> int:
        """Extra units for a scoop (replaces the majority bonus)."""
        return 1 if self is ScoringMethod.TWO_FOUR else 3


def top_hand_strength(spec: str) -> int:
    """The weakest top row matching a spec: ``"QQ"`` (pair of queens, any kicker),
    ``"222"`` (trips of deuces) or ``"trips"`` (any trips, same as ``"222"``).

    >>> top_hand_strength("QQ") < top_hand_strength("KK") < top_hand_strength("222")
    True
    """
    text = spec.strip().upper().replace("10", "T")
    if text == "TRIPS":
        text = "222"
    if len(text) in (2, 3) and len(set(text)) == 1 and text[0] in RANKS:
        rank = RANKS.index(text[0])
        if len(text) == 3:
            return pack(Category.TRIPS, [rank] * 3)
        lowest_kicker = 1 if rank == 0 else 0
        return pack(Category.PAIR, [rank, rank, lowest_kicker])
    raise RulesetError(f"not a top hand: {spec!r} (expected e.g. 'QQ', 'AA' or '222')")


def _five_card_category(label: str | None) -> Category | None:
    if not label:
        return None
    try:
        return Category.from_label(str(label))
    except KeyError:
        known = ", ".join(Category.__members__)
        raise RulesetError(f"unknown hand category {label!r} (one of {known})") from None


FIVE_CARD_ROYALTY_KEYS = (
    "straight", "flush", "full house", "quads", "straight flush", "royal flush", "trips",
    "five of a kind",
)


@dataclass(frozen=True)
class RoyaltyTable:
    """Royalty points per row.

    ``top_pairs`` and ``top_trips`` map a rank letter (``"6"``, ``"A"``) to points;
    ``middle`` and ``bottom`` map a category label (plus ``"royal flush"``) to points.
    Anything not listed earns nothing.
    """

    top_pairs: Mapping[str, int]
    top_trips: Mapping[str, int]
    middle: Mapping[str, int]
    bottom: Mapping[str, int]

    def __post_init__(self) -> None:
        for name in ("top_pairs", "top_trips"):
            table = getattr(self, name)
            bad = [rank for rank in table if rank not in RANKS]
            if bad:
                raise RulesetError(f"royalties.{name}: unknown ranks {bad}")
            object.__setattr__(self, name, MappingProxyType(dict(table)))
        for name in ("middle", "bottom"):
            table = getattr(self, name)
            bad = [key for key in table if key not in FIVE_CARD_ROYALTY_KEYS]
            if bad:
                raise RulesetError(
                    f"royalties.{name}: unknown hands {bad} (known: {FIVE_CARD_ROYALTY_KEYS})"
                )
            object.__setattr__(self, name, MappingProxyType(dict(table)))

    def top_royalty(self, hand: str) -> int:
        """Royalty of a top hand written as ``"QQ"`` or ``"777"``."""
        text = hand.upper().replace("10", "T")
        table = self.top_trips if len(text) == 3 else self.top_pairs
        return table.get(text[0], 0)

    def __hash__(self) -> int:
        return hash(tuple(tuple(sorted(getattr(self, f.name).items()))
                          for f in dataclasses.fields(self)))


STANDARD_ROYALTIES = RoyaltyTable(
    top_pairs={rank: points for points, rank in enumerate("6789TJQKA", start=1)},
    top_trips={rank: points for points, rank in enumerate(RANKS, start=10)},
    middle={"trips": 2, "straight": 4, "flush": 8, "full house": 12, "quads": 20,
            "straight flush": 30, "royal flush": 50},
    bottom={"straight": 2, "flush": 4, "full house": 6, "quads": 10,
            "straight flush": 15, "royal flush": 25},
)


# Points a Fantasyland stay is worth by default: a conservative round figure below what
# a Fantasyland hand earns in the simulated histories (docs/rulesets.md).
DEFAULT_FL_STAY_VALUE = 12.0


class StayCards(StrEnum):
    """How many cards a Fantasyland stay deals, when not a fixed number."""

    REPEAT = "repeat"  # the same count as the hand just played (ultimate)


@dataclass(frozen=True)
class FantasylandRules:
    """Fantasyland entry, card counts and staying.

    ``entry`` lists ``(top hand, cards)`` thresholds: a non-fouled board enters with
    the card count of the strongest threshold its top row reaches; the weakest
    threshold is the entry requirement. ``stay_top``/``stay_middle``/``stay_bottom``
    are the weakest hands on each row that keep a player in Fantasyland (``None``:
    that row cannot). ``stay_cards`` is the count dealt after a stay, or
    :attr:`StayCards.REPEAT` for the same count as the hand just played.

    A deuce-to-seven middle enters with ``entry_lowball`` (``(low, cards)``, e.g.
    ``("75432", 14)``) and stays with ``stay_lowball``; a board meeting both a top and
    a lowball threshold is dealt the larger count.
    """

    entry: tuple[tuple[str, int], ...]
    stay_top: str | None
    stay_middle: str | None
    stay_bottom: str | None
    stay_cards: int | StayCards
    entry_lowball: tuple[tuple[str, int], ...] = ()
    stay_lowball: str | None = None

    def __post_init__(self) -> None:
        if not self.entry and not self.entry_lowball:
            raise RulesetError("fantasyland.entry needs at least one threshold")
        lowball = tuple(sorted(((str(low), int(cards)) for low, cards in self.entry_lowball),
                               key=lambda item: -lowball_bound(item[0])))
        for low, cards in lowball:
            if not 13 <= cards <= 17:
                raise RulesetError(f"fantasyland.entry_lowball: {low} deals {cards} cards "
                                   "(13..17)")
        object.__setattr__(self, "entry_lowball", lowball)
        if self.stay_lowball is not None:
            lowball_spec(self.stay_lowball)
        ordered = tuple(sorted(((hand, int(cards)) for hand, cards in self.entry),
                               key=lambda item: top_hand_strength(item[0])))
        for hand, cards in ordered:
            if not 13 <= cards <= 17:
                raise RulesetError(f"fantasyland.entry: {hand} deals {cards} cards (13..17)")
        object.__setattr__(self, "entry", ordered)
        if self.stay_top is not None:
            top_hand_strength(self.stay_top)
        _five_card_category(self.stay_middle)
        _five_card_category(self.stay_bottom)
        if not isinstance(self.stay_cards, StayCards):
            if isinstance(self.stay_cards, str):
                try:
                    object.__setattr__(self, "stay_cards", StayCards(self.stay_cards))
                except ValueError:
                    raise RulesetError(
                        f"fantasyland.stay_cards: {self.stay_cards!r} is neither a number "
                        "nor 'repeat'") from None
            elif not 13 <= int(self.stay_cards) <= 17:
                raise RulesetError(f"fantasyland.stay_cards: {self.stay_cards} (13..17)")

    @property
    def entry_strength(self) -> int | None:
        """Weakest top-row strength that enters Fantasyland (None: the top cannot)."""
        return top_hand_strength(self.entry[0][0]) if self.entry else None

    def cards_for_entry(self, top_hand: str) -> int | None:
        """Cards dealt in Fantasyland after entering with ``top_hand`` (None: no entry)."""
        strength = top_hand_strength(top_hand)
        cards = None
        for hand, count in self.entry:
            if strength >= top_hand_strength(hand):
                cards = count
        return cards

    @property
    def stay_strengths(self) -> tuple[int | None, int | None, int | None]:
        """Weakest strengths that stay, per row (top, middle, bottom)."""
        middle = _five_card_category(self.stay_middle)
        bottom = _five_card_category(self.stay_bottom)
        return (
            None if self.stay_top is None else top_hand_strength(self.stay_top),
            None if middle is None else pack(middle, []),
            None if bottom is None else pack(bottom, []),
        )


@dataclass(frozen=True)
class Ruleset:
    """Everything the scorer needs to know about a game's rules.

    ``moon_high_card`` is the highest rank a bottom row may have and still shoot the
    moon (high card only); ``moon_points`` is what the shooter collects from each
    other player. Shooting the moon is a home-game rule, off unless ``shoot_the_moon``.

    The deck: ``jokers`` wild cards (0-2, RULES.md section 9) and ``decks`` French
    decks (1 or 2, section 10; a card may then appear twice in a hand). ``middle``
    ranks the middle row high or as deuce-to-seven lowball (``lowball`` holds its
    royalties and foul rule). ``table_stakes``: where a history records stacks, a
    hand's money is capped at them (section 11).

    ``fl_stay_value`` is what staying in Fantasyland is worth, in points, when the
    Fantasyland review (:mod:`~ofc_stats.engine.fantasyland_solver`) values a setting: its
    royalties plus this if it stays (RULES.md section 12). Scoring never reads it.
    """

    name: str
    variant: Variant
    royalties: RoyaltyTable = STANDARD_ROYALTIES
    scoring: ScoringMethod = ScoringMethod.ONE_SIX
    fantasyland: FantasylandRules = field(
        default_factory=lambda: FantasylandRules(
            entry=(("QQ", 14),), stay_top="222", stay_middle=None, stay_bottom="quads",
            stay_cards=14,
        )
    )
    shoot_the_moon: bool = False
    moon_points: int = 20
    moon_high_card: str = "J"
    jokers: int = 0
    decks: int = 1
    middle: MiddleRow = MiddleRow.HIGH
    lowball: LowballRules = field(default_factory=LowballRules)
    table_stakes: bool = True
    fl_stay_value: float = DEFAULT_FL_STAY_VALUE

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", Variant(self.variant))
        object.__setattr__(self, "scoring", ScoringMethod(self.scoring))
        try:
            object.__setattr__(self, "middle", MiddleRow(self.middle))
        except ValueError:
            known = ", ".join(MiddleRow)
            raise RulesetError(f"middle: {self.middle!r} is not one of {known}") from None
        if self.moon_high_card.upper() not in RANKS:
            raise RulesetError(f"moon_high_card: {self.moon_high_card!r} is not a rank")
        if not 0 <= int(self.jokers) <= 2:
            raise RulesetError(f"jokers: {self.jokers} (a deck holds 0, 1 or 2)")
        if int(self.decks) not in (1, 2):
            raise RulesetError(f"decks: {self.decks} (1 or 2)")
        if self.jokers and self.decks > 1:
            raise RulesetError("jokers with two decks are not supported")
        object.__setattr__(self, "jokers", int(self.jokers))
        object.__setattr__(self, "decks", int(self.decks))
        lowball = self.middle is MiddleRow.DEUCE_TO_SEVEN
        fantasyland = self.fantasyland
        if lowball and fantasyland.stay_middle is not None:
            raise RulesetError("fantasyland.stay_middle names a high hand, but the middle "
                               "is deuce-to-seven: use fantasyland.stay_lowball")
        if not lowball and (fantasyland.entry_lowball or fantasyland.stay_lowball):
            raise RulesetError("fantasyland.entry_lowball and stay_lowball need "
                               "middle = 'deuce-to-seven'")
        if not fantasyland.entry:
            raise RulesetError("fantasyland.entry needs at least one top-row threshold")

        stay_value = float(self.fl_stay_value)
        if not math.isfinite(stay_value) or stay_value < 0:
            raise RulesetError(f"fl_stay_value: {self.fl_stay_value!r} is not a number >= 0")
        object.__setattr__(self, "fl_stay_value", stay_value)

    @property
    def deck_cards(self) -> int:
        """Cards in the shuffled deck (jokers included)."""
        return self.decks * (52 + self.jokers)

    @property
    def max_players(self) -> int:
        """The most players the deck deals a normal hand to (4 in classic, 3 in
        Pineapple; twice that, about, with two decks)."""
        return self.deck_cards // self.variant.cards_per_player


_PINEAPPLE_STAY: dict[str, Any] = {"stay_top": "222", "stay_middle": None,
                                   "stay_bottom": "quads"}
_PROGRESSIVE_ENTRY = (("QQ", 14), ("KK", 15), ("AA", 16), ("222", 16))
# Joker Ultimate (PPPoker's OFC Hub): trips on top deal 17 cards (four discards).
_JOKER_ENTRY = (("QQ", 14), ("KK", 15), ("AA", 16), ("222", 17))
_CLASSIC_STAY: dict[str, Any] = {"stay_top": "222", "stay_middle": "full house",
                                 "stay_bottom": "quads"}

PRESETS: Mapping[str, Ruleset] = MappingProxyType({
    "classic": Ruleset(
        name="classic", variant=Variant.CLASSIC,
        fantasyland=FantasylandRules(entry=(("QQ", 13),), stay_top="222",
                                     stay_middle="full house", stay_bottom="quads",
                                     stay_cards=13),
    ),
    "pineapple": Ruleset(
        name="pineapple", variant=Variant.PINEAPPLE,
        fantasyland=FantasylandRules(entry=(("QQ", 14),), stay_cards=14, **_PINEAPPLE_STAY),
    ),
    "progressive": Ruleset(
        name="progressive", variant=Variant.PROGRESSIVE,
        fantasyland=FantasylandRules(entry=_PROGRESSIVE_ENTRY, stay_cards=14,
                                     **_PINEAPPLE_STAY),
    ),
    "ultimate": Ruleset(
        name="ultimate", variant=Variant.ULTIMATE,
        fantasyland=FantasylandRules(entry=_PROGRESSIVE_ENTRY, stay_cards=StayCards.REPEAT,
                                     **_PINEAPPLE_STAY),
    ),
    "joker-pineapple": Ruleset(
        name="joker-pineapple", variant=Variant.JOKER_PINEAPPLE, jokers=2,
        fantasyland=FantasylandRules(entry=(("QQ", 14),), stay_cards=14, **_PINEAPPLE_STAY),
    ),
    "joker-progressive": Ruleset(
        name="joker-progressive", variant=Variant.JOKER_PROGRESSIVE, jokers=2,
        fantasyland=FantasylandRules(entry=_JOKER_ENTRY, stay_cards=14, **_PINEAPPLE_STAY),
    ),
    "joker-ultimate": Ruleset(
        name="joker-ultimate", variant=Variant.JOKER_ULTIMATE, jokers=2,
        fantasyland=FantasylandRules(entry=_JOKER_ENTRY, stay_cards=StayCards.REPEAT,
                                     **_PINEAPPLE_STAY),
    ),
    # Double deck: "some players suggest AA+ as a minimum requirement for fantasy land".
    "double-deck": Ruleset(
        name="double-deck", variant=Variant.DOUBLE_DECK, decks=2,
        fantasyland=FantasylandRules(entry=(("AA", 13),), stay_cards=13, **_CLASSIC_STAY),
    ),
    "double-deck-pineapple": Ruleset(
        name="double-deck-pineapple", variant=Variant.DOUBLE_DECK_PINEAPPLE, decks=2,
        fantasyland=FantasylandRules(entry=(("AA", 14),), stay_cards=14, **_PINEAPPLE_STAY),
    ),
    "deuce-to-seven": Ruleset(
        name="deuce-to-seven", variant=Variant.DEUCE_TO_SEVEN, middle=MiddleRow.DEUCE_TO_SEVEN,
        fantasyland=FantasylandRules(entry=(("KK", 14),), entry_lowball=(("75432", 14),),
                                     stay_top="222", stay_middle=None, stay_bottom="quads",
                                     stay_lowball="75432", stay_cards=14),
    ),
})


def get_ruleset(name_or_path: str | Path | Ruleset) -> Ruleset:
    """A preset by name (``classic``, ``pineapple``, ``joker-ultimate``, ...; see
    :data:`PRESETS`), or a ruleset loaded from a TOML file path."""
    if isinstance(name_or_path, Ruleset):
        return name_or_path
    text = str(name_or_path)
    if text in PRESETS:
        return PRESETS[text]
    if text.endswith(".toml") or Path(text).is_file():
        return load_ruleset(Path(text))
    raise RulesetError(
        f"unknown ruleset {text!r}: use one of {', '.join(PRESETS)} or a .toml file"
        f"{did_you_mean(text, PRESETS)}"
    )


def load_ruleset(path: Path) -> Ruleset:
    """Load a ruleset from TOML: ``base`` names a preset, every other key overrides it.

    See ``docs/rulesets.md`` for the keys and a complete example.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise RulesetError(f"cannot read ruleset {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise RulesetError(f"{path}: invalid TOML: {error}") from None
    try:
        return ruleset_from_mapping(data, default_name=path.stem)
    except RulesetError as error:
        raise RulesetError(f"{path}: {error}") from None


_TOP_LEVEL_KEYS = {"name", "base", "variant", "scoring", "shoot_the_moon", "moon_points",
                   "moon_high_card", "fl_stay_value", "royalties", "fantasyland", "jokers",
                   "decks", "middle", "lowball", "table_stakes"}


def ruleset_from_mapping(data: Mapping[str, Any], default_name: str = "custom") -> Ruleset:
    """Build a ruleset from a parsed TOML/JSON mapping (see :func:`load_ruleset`)."""
    unknown = set(data) - _TOP_LEVEL_KEYS
    if unknown:
        raise RulesetError(f"unknown keys {sorted(unknown)}")
    base_name = str(data.get("base", data.get("variant", "pineapple")))
    if base_name not in PRESETS:
        raise RulesetError(f"base {base_name!r} is not a preset ({', '.join(PRESETS)})")
    base = PRESETS[base_name]
    try:
        royalties = _royalties_from_mapping(base.royalties, data.get("royalties", {}))
        fantasyland = _fantasyland_from_mapping(base.fantasyland, data.get("fantasyland", {}))
        return Ruleset(
            name=str(data.get("name", default_name)),
            variant=Variant(data.get("variant", base.variant)),
            royalties=royalties,
            scoring=ScoringMethod(data.get("scoring", base.scoring)),
            fantasyland=fantasyland,
            shoot_the_moon=_boolean(data, "shoot_the_moon", base.shoot_the_moon),
            moon_points=int(data.get("moon_points", base.moon_points)),
            moon_high_card=str(data.get("moon_high_card", base.moon_high_card)),
            fl_stay_value=_points(data.get("fl_stay_value", base.fl_stay_value),
                                  "fl_stay_value"),
            jokers=_integer(data, "jokers", base.jokers),
            decks=_integer(data, "decks", base.decks),
            middle=data.get("middle", base.middle),
            lowball=_lowball_from_mapping(base.lowball, data.get("lowball", {})),
            table_stakes=_boolean(data, "table_stakes", base.table_stakes),
        )
    except (ValueError, TypeError) as error:
        if isinstance(error, RulesetError):
            raise
        raise RulesetError(str(error)) from None


def _points(value: Any, key: str) -> float:
    """A number of points from TOML (an integer or a float, not a boolean or text)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RulesetError(f"{key}: {value!r} is not a number")
    return float(value)


def _integer(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesetError(f"{key}: {value!r} is not a whole number")
    return value


def _boolean(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise RulesetError(f"{key}: {value!r} is not true or false")
    return value


def _lowball_from_mapping(base: LowballRules, data: Mapping[str, Any]) -> LowballRules:
    unknown = set(data) - {"royalties", "qualifier"}
    if unknown:
        raise RulesetError(f"lowball: unknown keys {sorted(unknown)}")
    qualifier = data.get("qualifier", base.qualifier)
    royalties = data.get("royalties")
    return LowballRules(
        royalties={str(key): int(value) for key, value in royalties.items()}
        if royalties is not None else dict(base.royalties),
        qualifier=None if qualifier in (None, False, "", "none") else str(qualifier))


def _royalties_from_mapping(base: RoyaltyTable, data: Mapping[str, Any]) -> RoyaltyTable:
    unknown = set(data) - {"top_pairs", "top_trips", "middle", "bottom"}
    if unknown:
        raise RulesetError(f"royalties: unknown keys {sorted(unknown)}")

    def ranks(table: Mapping[str, Any]) -> dict[str, int]:
        # Accept "QQ"/"QQQ" as well as "Q" for readability in TOML.
        return {str(key).upper().replace("10", "T")[0]: int(value)
                for key, value in table.items()}

    def hands(table: Mapping[str, Any]) -> dict[str, int]:
        return {str(key).lower().replace("_", " "): int(value) for key, value in table.items()}

    return RoyaltyTable(
        top_pairs=ranks(data["top_pairs"]) if "top_pairs" in data else dict(base.top_pairs),
        top_trips=ranks(data["top_trips"]) if "top_trips" in data else dict(base.top_trips),
        middle=hands(data["middle"]) if "middle" in data else dict(base.middle),
        bottom=hands(data["bottom"]) if "bottom" in data else dict(base.bottom),
    )


def _fantasyland_from_mapping(base: FantasylandRules, data: Mapping[str, Any]
                              ) -> FantasylandRules:
    unknown = set(data) - {"entry", "stay_top", "stay_middle", "stay_bottom", "stay_cards",
                           "entry_lowball", "stay_lowball"}
    if unknown:
        raise RulesetError(f"fantasyland: unknown keys {sorted(unknown)}")

    def optional(key: str) -> str | None:
        value = data.get(key, getattr(base, key))
        return None if value in (None, False, "", "none") else str(value)

    def thresholds(key: str) -> tuple[tuple[str, int], ...]:
        given = data.get(key)
        if given is None:
            return tuple(getattr(base, key))
        if not isinstance(given, Mapping):
            raise RulesetError(f"fantasyland.{key}: expected a table such as "
                               "{ QQ = 14 }")
        return tuple((str(hand), int(cards)) for hand, cards in given.items())

    return FantasylandRules(
        entry=thresholds("entry"),
        stay_top=optional("stay_top"),
        stay_middle=optional("stay_middle"),
        stay_bottom=optional("stay_bottom"),
        stay_cards=data.get("stay_cards", base.stay_cards),
        entry_lowball=thresholds("entry_lowball"),
        stay_lowball=optional("stay_lowball"),
    )


@cache
def ruleset_for_variant(variant: str) -> Ruleset:
    """The preset a variant implies when no ruleset is forced."""
    return PRESETS[Variant(variant).value]


def ruleset_as_dict(ruleset: Ruleset) -> dict[str, Any]:
    """A ruleset as plain data in the TOML file layout (round-trips through
    :func:`ruleset_from_mapping`)."""
    fantasyland = ruleset.fantasyland
    return {
        "name": ruleset.name,
        "variant": ruleset.variant.value,
        "scoring": ruleset.scoring.value,
        "shoot_the_moon": ruleset.shoot_the_moon,
        "moon_points": ruleset.moon_points,
        "moon_high_card": ruleset.moon_high_card,
        "fl_stay_value": ruleset.fl_stay_value,
        "jokers": ruleset.jokers,
        "decks": ruleset.decks,
        "middle": ruleset.middle.value,
        "table_stakes": ruleset.table_stakes,
        "lowball": {
            "royalties": dict(ruleset.lowball.royalties),
            "qualifier": ruleset.lowball.qualifier or False,
        },
        "royalties": {
            "top_pairs": dict(ruleset.royalties.top_pairs),
            "top_trips": dict(ruleset.royalties.top_trips),
            "middle": dict(ruleset.royalties.middle),
            "bottom": dict(ruleset.royalties.bottom),
        },
        "fantasyland": {
            "entry": dict(fantasyland.entry),
            "stay_top": fantasyland.stay_top or False,
            "stay_middle": fantasyland.stay_middle or False,
            "stay_bottom": fantasyland.stay_bottom or False,
            "stay_cards": fantasyland.stay_cards if isinstance(fantasyland.stay_cards, int)
            else fantasyland.stay_cards.value,
            "entry_lowball": dict(fantasyland.entry_lowball),
            "stay_lowball": fantasyland.stay_lowball or False,
        },
    }
