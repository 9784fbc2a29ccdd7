"""``ofc-stats report``: one self-contained offline HTML page."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ofc_stats.cli.app import (
    JsonOption,
    ScoringOption,
    SinceOption,
    VariantOption,
    WarehouseOption,
    app,
)
from ofc_stats.cli.errors import reported_errors
from ofc_stats.cli.output import report_coverage

EXAMPLES = """Examples:

\b
  ofc-stats report                          reports/overview.html
  ofc-stats report --player ColdWhale       reports/coldwhale-9f4e77.html
  ofc-stats report --player alice --since 2026-03-01
                                            reports/alice-since-2026-03-01.html
  ofc-stats report --variant joker-ultimate reports/overview-joker-ultimate.html
  ofc-stats report --scoring thursday.toml  reports/overview-thursday-home-game-....html
"""


@app.command(epilog=EXAMPLES, short_help="Write an offline HTML report: charts, figures, "
                                         "biggest hands.")
def report(
    player: Annotated[str | None, typer.Option(
        metavar="NAME", help="Report on this player; without it, an overview of every "
        "player.", show_default=False)] = None,
    table: Annotated[str | None, typer.Option(
        metavar="TABLE", help="Only this table's hands.", show_default=False)] = None,
    variant: VariantOption = None,
    since: SinceOption = None,
    scoring: ScoringOption = None,
    out: Annotated[str | None, typer.Option(
        "--out", "-o", metavar="FILE|DIR", help="The HTML file to write, or a folder to "
        "put it in [default: in reports/, named after the scope: overview.html, or the "
        "player's name in lower case with anything but letters and digits as '-' and, "
        "when that changed it, a 6-character hash of the exact name (ColdWhale: "
        "coldwhale-9f4e77.html); --table adds -at-<table> (or table-<table> alone), "
        "--variant -<variant>, --since -since-<date>, --scoring the scoring's name; the "
        "command prints the name].", show_default=False)] = None,
    warehouse: WarehouseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write a self-contained HTML report (charts, headline figures, biggest hands).

    The page opens offline in any browser; how each figure is computed:
    docs/reports.md.
    """
    from ofc_stats.report import write_report

    with reported_errors(warehouse):
        summary = write_report(warehouse, player=player, table=table, since=since, out=out,
                               scoring=scoring, variant=variant)
    if summary.coverage is not None:
        report_coverage(summary.coverage, "this report")
    if as_json:
        typer.echo(json.dumps({key: value for key, value in summary.as_dict().items()
                               if key != "coverage"}, indent=2))
        return
    players = f"{summary.players:,} player{'' if summary.players == 1 else 's'}"
    typer.echo(f"wrote {summary.path} ({summary.bytes / 1e6:.1f} MB, {summary.charts} charts; "
               f"{summary.hands:,} hands, {players}) in {summary.seconds:.1f} s")
