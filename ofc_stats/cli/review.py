"""``ofc-stats review``: the exact best setting of every Fantasyland hand not reviewed yet."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from ofc_stats.cli.app import JsonOption, SinceOption, WarehouseOption, app, interactive
from ofc_stats.cli.errors import check_ruleset, reported_errors
from ofc_stats.cli.tables import print_table

if TYPE_CHECKING:
    from ofc_stats.analysis.fantasyland_review import ReviewSummary

EXAMPLES = """Examples:

\b
  ofc-stats review
  ofc-stats review --player ColdWhale --since 7d
  ofc-stats review --scoring thursday.toml      (a what-if: score --ruleset it first)
  ofc-stats review --json
"""


@app.command(short_help="Solve every Fantasyland hand not reviewed yet: the best setting.",
             epilog=EXAMPLES)
def review(
    player: Annotated[str | None, typer.Option(
        metavar="NAME", help="Only this player's Fantasyland hands (reviewed and shown).",
        show_default=False)] = None,
    since: SinceOption = None,
    scoring: Annotated[str, typer.Option(
        metavar="NAME|FILE", help="'default' (the default scoring: the warehouse's house "
        "rules, else each variant's preset), or the preset or TOML ruleset file a what-if "
        "was scored under ('ofc-stats score --ruleset'), reviewed under its rules.")]
    = "default",
    warehouse: WarehouseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Solve every Fantasyland hand not reviewed yet: the best setting, what was left.

    Each board played in Fantasyland is set again as well as its cards allow (value:
    royalties, plus the ruleset's fl_stay_value for a stay) and stored in the table
    fl_review; then per player: the share set optimally, the value lost per hand with
    a 95% CI, stays missed and royalties left. On a terminal the table fits it; --json
    for every column.
    """
    from ofc_stats.analysis.fantasyland_review import review_warehouse
    from ofc_stats.analysis.score import stored_scorings
    from ofc_stats.db import fantasyland_points, fantasyland_review_stats
    from ofc_stats.report.data import parse_since
    from ofc_stats.warehouse import Warehouse

    with reported_errors():
        moment = parse_since(since)
        store = Warehouse.open(warehouse)
        ruleset = None if scoring == "default" else scoring
        if ruleset is not None:
            stored = (f"; {ruleset!r} is a stored scoring: give the preset or TOML file "
                      "it was scored with (the review needs its rules)"
                      if ruleset in stored_scorings(store) else "")
            check_ruleset(ruleset, "--scoring", stored)
        if interactive() and not as_json:
            from rich.progress import Progress

            with Progress(transient=True) as bar:
                task = bar.add_task("reviewing", total=None)
                summary = review_warehouse(
                    store, ruleset, player=player, since=moment,
                    progress=lambda done, total: bar.update(task, completed=done, total=total))
        else:
            summary = review_warehouse(store, ruleset, player=player, since=moment)
        players = fantasyland_review_stats(
            store, player=player, scoring=summary.scoring,
            since=None if moment is None else moment.isoformat())
        earned = fantasyland_points(store)
    if as_json:
        typer.echo(json.dumps({"summary": summary.as_dict(), "players": players.to_dicts(),
                               "fl_points_per_hand": earned}, indent=2))
        return
    for line in review_report(summary):
        typer.echo(line)
    if earned is not None:
        typer.echo(f"  a Fantasyland hand earns {earned:.1f} points on average here (the "
                   "default scoring): a measure for the ruleset's fl_stay_value "
                   "(docs/rulesets.md)")
    if players.is_empty():
        typer.echo("no Fantasyland hand reviewed in this scope")
    else:
        print_table(players.select(REVIEW_COLUMNS),
                    title="Fantasyland review per player (value: royalties, plus the "
                    "ruleset's fl_stay_value for a stay; every column: --json or "
                    "'ofc-stats query fantasyland_review')")


# The per-player columns ``review`` prints (--json gives them all).
REVIEW_COLUMNS = ["player", "fl_hands", "optimal_pct", "value_lost_per_hand", "ci95_low",
                  "ci95_high", "stays_missed", "stays_possible", "royalties_left",
                  "points_lost_per_hand", "cards_unknown"]


def review_report(summary: ReviewSummary) -> list[str]:
    """The lines ``review`` prints about its run."""
    counts = ", ".join(f"{count:,} of {cards} cards" for cards, count in summary.by_cards.items())
    lines = []
    if summary.rules_changed:
        lines.append(f"the rules of '{summary.scoring}' changed since its reviews were "
                     "stored: every Fantasyland hand reviewed again")
    lines.append(f"reviewed {summary.reviewed:,} Fantasyland hands as '{summary.scoring}' "
                 f"({summary.ruleset}) in {summary.seconds:.2f} s (solving "
                 f"{summary.solve_seconds:.2f} s)" + (f": {counts}" if counts else ""))
    if summary.placed_only:
        lines.append(f"  {summary.placed_only:,} with only the 13 placed cards known (the "
                     "history records no discards): the best setting of those 13")
    for reason, count in summary.skipped.items():
        lines.append(f"  skipped {count:,}: {reason}")
    lines.append(f"  {summary.stored:,} Fantasyland hands reviewed in the warehouse")
    if summary.database is None:
        lines.append("  warning: could not refresh the DuckDB file in the warehouse")
    return lines
