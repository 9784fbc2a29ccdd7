"""``ofc-stats score``: score every stored hand not scored yet, follow Fantasyland."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ofc_stats.cli.app import JsonOption, WarehouseOption, app, interactive
from ofc_stats.cli.errors import reported_errors


@app.command()
def score(
    warehouse: WarehouseOption = None,
    ruleset: Annotated[str | None, typer.Option(
        help="Score every hand under this preset or TOML file (a what-if stored beside "
             "the default) instead of the preset each hand's variant implies.")] = None,
    rescore: Annotated[bool, typer.Option(
        "--rescore", help="Score every hand again, not only new ones.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Score every stored hand not yet scored; follow Fantasyland across hands."""
    from ofc_stats.analysis.score import score_warehouse
    from ofc_stats.warehouse import Warehouse

    with reported_errors(warehouse):
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
