"""``ofc-stats score``: score every stored hand not scored yet, follow Fantasyland."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ofc_stats.cli.app import JsonOption, WarehouseOption, app, interactive
from ofc_stats.cli.errors import check_ruleset, reported_errors

EXAMPLES = """Examples:

\b
  ofc-stats score
  ofc-stats config set ruleset thursday.toml && ofc-stats score
  ofc-stats score --ruleset ultimate        (then: ofc-stats stats --scoring ultimate)
"""


@app.command(epilog=EXAMPLES, short_help="Score every stored hand not scored yet; follow "
                                         "Fantasyland.")
def score(
    warehouse: WarehouseOption = None,
    ruleset: Annotated[str | None, typer.Option(
        metavar="NAME|FILE",
        help="A what-if: score every hand under this preset or TOML ruleset file, stored "
             "beside the default under the ruleset's name (read it back with --scoring "
             "NAME on stats, report, audit, query and hand) [default: the default "
             "scoring: the warehouse's house rules ('ofc-stats config'), else each "
             "variant's preset].", show_default=False)] = None,
    rescore: Annotated[bool, typer.Option(
        "--rescore", help="Score every hand again, not only new ones.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Score every stored hand not yet scored; follow Fantasyland across hands.

    The default scoring applies the warehouse's house rules (ofc-stats config set
    ruleset FILE), else each hand's variant's preset; changing them rescores every
    hand on the next run.
    """
    from pathlib import Path

    from ofc_stats.analysis.score import score_warehouse
    from ofc_stats.engine.rules import PRESETS
    from ofc_stats.engine.rules_text import defaults_taken
    from ofc_stats.warehouse import Warehouse

    if ruleset is not None and ruleset not in PRESETS and not as_json:
        for note in defaults_taken(Path(ruleset)):
            typer.echo(f"ofc-stats: note: {Path(ruleset).name} {note}", err=True)
    with reported_errors(warehouse):
        check_ruleset(ruleset, "--ruleset")
        store = Warehouse.open(warehouse)
        if interactive() and not as_json:
            from rich.progress import Progress

            with Progress(transient=True) as bar:
                task = bar.add_task("scoring", total=None)
                summary = score_warehouse(
                    store, ruleset, rescore=rescore,
                    progress=lambda done, total: bar.update(task, completed=done, total=total))
        else:
            summary = score_warehouse(store, ruleset, rescore=rescore)
    if as_json:
        typer.echo(json.dumps(summary.as_dict(), indent=2))
        return
    if summary.rules_changed:
        typer.echo(f"the rules of '{summary.scoring}' changed since its scores were stored: "
                   "every hand rescored")
    typer.echo(
        f"scored {summary.hands:,} hands ({summary.player_hands:,} player-hands, "
        f"{summary.matchups:,} matchups) as '{summary.scoring}' ({summary.ruleset}) "
        f"in {summary.seconds:.2f} s: {summary.player_hands_per_second:,.0f} player-hands/s"
    )
    if summary.transitions:
        typer.echo(f"Fantasyland across hands: {summary.transitions:,} transitions checked, "
                   f"{summary.fl_errors:,} break the rules (see 'ofc-stats audit')")
    if summary.database is None:
        typer.echo("warning: could not refresh the DuckDB file in the warehouse; "
                   "'ofc-stats query' is unaffected", err=True)
