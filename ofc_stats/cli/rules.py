"""``ofc-stats rules``: the ruleset presets, or one ruleset as a readable table."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import polars as pl
import typer
from rich.text import Text

from ofc_stats.cli.app import JsonOption, app
from ofc_stats.cli.errors import reported_errors
from ofc_stats.cli.tables import console, print_table, terminal_width

if TYPE_CHECKING:
    from ofc_stats.engine.rules import Ruleset

ROYALTY_ROWS = ("pair", "trips", "straight", "flush", "full house", "quads", "straight flush",
                "royal flush")


def royalty_table(ruleset: Ruleset) -> pl.DataFrame:
    """The royalties as one row per hand and one column per row of the board."""
    table = ruleset.royalties

    def top(hands: dict[str, int], size: int) -> str:
        return ", ".join(f"{rank * size} {points}" for rank, points in hands.items()
                         if points) or "-"

    rows = []
    for hand in ROYALTY_ROWS:
        top_cell = (top(dict(table.top_pairs), 2) if hand == "pair"
                    else top(dict(table.top_trips), 3) if hand == "trips" else "")
        rows.append((hand, top_cell, table.middle.get(hand, 0), table.bottom.get(hand, 0)))
    return pl.DataFrame(rows, schema={"hand": pl.String, "top": pl.String,
                                      "middle": pl.Int64, "bottom": pl.Int64}, orient="row")


def ruleset_lines(ruleset: Ruleset) -> list[str]:
    """The ruleset's scoring and Fantasyland in a few lines."""
    from ofc_stats.engine.rules_text import deck_words, stay_rows

    fantasyland = ruleset.fantasyland
    method = ruleset.scoring
    scoop = 3 + method.scoop_bonus
    entry = ", ".join([f"{hand}+ top: {cards} cards" for hand, cards in fantasyland.entry]
                      + [f"{low} middle: {cards} cards"
                         for low, cards in fantasyland.entry_lowball]) or "nothing"
    stays = stay_rows(fantasyland)
    stay_cards = (f"{fantasyland.stay_cards} cards" if isinstance(fantasyland.stay_cards, int)
                  else "the count just played")
    moon = (f"on: a J-high or lower bottom on a standing board collects "
            f"{ruleset.moon_points} from everyone" if ruleset.shoot_the_moon else "off")
    if ruleset.shoot_the_moon and ruleset.moon_high_card != "J":
        moon = moon.replace("J-high", f"{ruleset.moon_high_card}-high")
    return [
        f"{ruleset.name}: {ruleset.variant.value} deals, {method.value} scoring",
        f"  points from each opponent: 1 a row won net, {1 + method.majority_bonus} for two "
        f"rows of three, {scoop} for a scoop; a fouled board loses every row and its "
        "royalties",
        f"  Fantasyland: enters with {entry}; stays with "
        f"{' or '.join(stays) or 'nothing'} ({stay_cards}); a stay is worth "
        f"{ruleset.fl_stay_value:g} points to 'ofc-stats review'",
        f"  deck and table: {', '.join(deck_words(ruleset))}; table stakes "
        f"{'on: money capped at the stacks a history records' if ruleset.table_stakes else 'off'}",
        f"  shoot the moon: {moon}",
    ]


@app.command(short_help="List the ruleset presets, or show one ruleset in full.")
def rules(
    name: Annotated[str | None, typer.Argument(
        metavar="NAME|FILE", help="A preset name or a TOML ruleset file.",
        show_default=False)] = None,
    as_json: JsonOption = False,
) -> None:
    """List the ruleset presets, or show one ruleset (a preset or a TOML file) in full.

    A ruleset is shown as its scoring, Fantasyland and royalty table; --json prints it
    in the TOML file's layout (docs/rulesets.md).
    """
    from ofc_stats.engine.rules import PRESETS, get_ruleset, ruleset_as_dict
    from ofc_stats.engine.rules_text import defaults_taken, describe_ruleset

    with reported_errors():
        if name is None:
            print_table(pl.DataFrame(
                {"preset": list(PRESETS),
                 "rules": [describe_ruleset(preset) for preset in PRESETS.values()]}))
            return
        ruleset = get_ruleset(name)
    if as_json:
        typer.echo(json.dumps(ruleset_as_dict(ruleset), indent=2))
        return
    width = terminal_width()
    out = console(width)
    notes = [] if name in PRESETS else defaults_taken(Path(name))
    lines = [*ruleset_lines(ruleset), *(f"  note: {Path(name).name} {note}" for note in notes)]
    for line in lines:
        text = line if width is None else textwrap.fill(
            line, width - 1, subsequent_indent="      ", break_on_hyphens=False)
        out.print(Text(text, style="dim" if line.startswith("  note:") else ""))
    out.print()
    from ofc_stats.engine.rules import MiddleRow

    royalties = royalty_table(ruleset)
    if ruleset.middle is MiddleRow.DEUCE_TO_SEVEN:  # a low middle: its own royalties
        royalties = royalties.drop("middle")
        lows = ", ".join(f"{low}{'-low' if len(low) == 1 else ''} {points}"
                         for low, points in ruleset.lowball.royalties.items())
        out.print(Text(f"  2-7 middle royalties: {lows or 'none'}"))
        out.print()
    print_table(royalties, title="Royalties (points per row)")
