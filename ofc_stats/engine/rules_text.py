"""Rulesets in words, for people: one line per preset (:func:`describe_ruleset`), the
rows that enter and keep Fantasyland, the deck, and what a TOML ruleset leaves to the
defaults (:func:`defaults_taken`). ``ofc-stats rules``, ``score`` and ``config`` print
them."""

from __future__ import annotations

import tomllib
from pathlib import Path

from ofc_stats.engine.rules import PRESETS, FantasylandRules, MiddleRow, Ruleset


def stay_rows(fantasyland: FantasylandRules) -> list[str]:
    """The rows that keep a player in Fantasyland, e.g. ``["222+ top", "quads+ bottom"]``
    (a 2-7 middle's stay as its low: ``"9-low middle"``)."""
    rows = [f"{fantasyland.stay_top}+ top" if fantasyland.stay_top else "",
            f"{fantasyland.stay_middle}+ middle" if fantasyland.stay_middle else "",
            f"{fantasyland.stay_lowball} middle" if fantasyland.stay_lowball else "",
            f"{fantasyland.stay_bottom}+ bottom" if fantasyland.stay_bottom else ""]
    return [row for row in rows if row]


def entry_hands(fantasyland: FantasylandRules) -> list[str]:
    """The hands that enter Fantasyland and the cards each deals, e.g. ``["QQ 14"]``
    (a 2-7 middle's as its low: ``"9-low middle 14"``)."""
    return ([f"{hand} {cards}" for hand, cards in fantasyland.entry]
            + [f"{low} middle {cards}" for low, cards in fantasyland.entry_lowball])


def deck_words(ruleset: Ruleset) -> list[str]:
    """The deck and table in words: jokers, decks, a 2-7 middle and its qualifier, and
    how many players a table seats, e.g. ``["2 jokers", "up to 3 players"]``."""
    deck = []
    if ruleset.jokers:
        deck.append(f"{ruleset.jokers} jokers")
    if ruleset.decks > 1:
        deck.append(f"{ruleset.decks} decks")
    if ruleset.middle is MiddleRow.DEUCE_TO_SEVEN:
        qualifier = ruleset.lowball.qualifier
        deck.append("2-7 middle" + (f" ({qualifier}-low or better)" if qualifier else ""))
    deck.append(f"up to {ruleset.max_players} players")
    return deck


def describe_ruleset(ruleset: Ruleset) -> str:
    """One line: scoring, Fantasyland entry and counts, stay rule."""
    fantasyland = ruleset.fantasyland
    entry = ", ".join(entry_hands(fantasyland))
    stay_cards = (f"{fantasyland.stay_cards} cards" if isinstance(fantasyland.stay_cards, int)
                  else "same count")
    deck = deck_words(ruleset)
    moon = f"; shoot the moon {ruleset.moon_points}" if ruleset.shoot_the_moon else ""
    stakes = "; table stakes" if ruleset.table_stakes else ""
    return (f"{ruleset.variant.value} ({', '.join(deck)}), {ruleset.scoring.value} "
            f"scoring; FL entry {entry}; stay on {' / '.join(stay_rows(fantasyland))} "
            f"({stay_cards}, worth {ruleset.fl_stay_value:g} points){moon}{stakes}")


def defaults_taken(path: Path) -> list[str]:
    """What a TOML ruleset leaves to the defaults, in words: a missing ``base`` (so
    pineapple), a missing ``name`` (so the file's name), nothing set at all.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     empty = Path(folder) / "house.toml"
    ...     _ = empty.write_text("")
    ...     for note in defaults_taken(empty):
    ...         print(note[:50])
    sets no base: it is 'pineapple' with the changes i
    sets no name: it is called 'house', after the file
    sets nothing else: the rules are exactly pineapple
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []  # loading it says what is wrong
    notes = []
    if "base" not in data and "variant" not in data:
        others = [f'"{name}"' for name in PRESETS if name != "pineapple"]
        notes.append(f"sets no base: it is 'pineapple' with the changes it lists (base = "
                     f"{', '.join(others[:-1])} or {others[-1]} starts from another)")
    if "name" not in data:
        notes.append(f"sets no name: it is called {path.stem!r}, after the file")
    if not set(data) - {"name", "base", "variant"}:
        base = str(data.get("base", data.get("variant", "pineapple")))
        notes.append(f"sets nothing else: the rules are exactly {base}'s")
    return notes
