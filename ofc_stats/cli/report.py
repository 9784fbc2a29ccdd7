"""``ofc-stats report``: one self-contained offline HTML page."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ofc_stats.cli.app import JsonOption, WarehouseOption, app
from ofc_stats.cli.errors import reported_errors
from ofc_stats.cli.output import report_coverage


@app.command()
def report(
    player: Annotated[str | None, typer.Option(
        help="Report on this player; without it, an overview of every player.")] = None,
    table: Annotated[str | None, typer.Option(help="Only this table's hands.")] = None,
    variant: Annotated[str | None, typer.Option(
        help="Only this variant's hands (joker-ultimate, deuce-to-seven, ...).")] = None,
    since: Annotated[str | None, typer.Option(
        help="Only hands from this date or time on (ISO 8601, e.g. 2026-03-01; UTC "
             "unless it says otherwise).")] = None,
    out: Annotated[str | None, typer.Option(
        "--out", "-o", help="The HTML file to write, or a folder to put it in (default: "
        "reports/<player>.html, reports/table-<table>.html or reports/overview.html; "
        "-<variant> added with --variant).", show_default=False)] = None,
    warehouse: WarehouseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write a self-contained HTML report (charts, headline figures, biggest hands)."""
    from ofc_stats.report import write_report

    with reported_errors(warehouse):
        summary = write_report(warehouse, player=player, table=table, since=since, out=out,
                               variant=variant)
    if summary.coverage is not None:
        report_coverage(summary.coverage, "this report")
    if as_json:
        typer.echo(json.dumps({key: value for key, value in summary.as_dict().items()
                               if key != "coverage"}, indent=2))
        return
    players = f"{summary.players:,} player{'' if summary.players == 1 else 's'}"
    typer.echo(f"wrote {summary.path} ({summary.bytes / 1e6:.1f} MB, {summary.charts} charts; "
               f"{summary.hands:,} hands, {players}) in {summary.seconds:.1f} s")
