"""``ofc-stats stats``: the per-player summary."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ofc_stats.cli.app import (
    ColumnsOption,
    ScoringOption,
    SinceOption,
    VariantOption,
    WarehouseOption,
    WideOption,
    app,
)
from ofc_stats.cli.errors import reported_errors
from ofc_stats.cli.output import QueryFormat, output_format, report_coverage, write_frame
from ofc_stats.cli.query import QUERY_VIEWS

EXAMPLES = """Examples:

\b
  ofc-stats stats
  ofc-stats stats --player ColdWhale --since 2026-03-01
  ofc-stats stats --min-hands 500 --wide
  ofc-stats stats --scoring thursday.toml --format csv
"""


@app.command(epilog=EXAMPLES)
def stats(
    player: Annotated[str | None, typer.Option(
        metavar="NAME", help="Only this player.", show_default=False)] = None,
    variant: VariantOption = None,
    since: SinceOption = None,
    min_hands: Annotated[int | None, typer.Option(
        min=1, metavar="N", help="Only players with at least N hands.",
        show_default=False)] = None,
    scoring: ScoringOption = None,
    output: Annotated[QueryFormat | None, typer.Option(
        "--format", metavar="FORMAT", help="table, csv, json or parquet (parquet needs "
        "--out) [default: table, or the format --out's suffix names].",
        show_default=False)] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", metavar="FILE", help="Write to this file.", show_default=False)]
    = None,
    wide: WideOption = False,
    columns: ColumnsOption = None,
    warehouse: WarehouseOption = None,
) -> None:
    """Per-player summary: hands, points, points/hand with 95% CI, foul %, FL %, scoops.

    On a terminal the table fits it: player, hands, points, points per hand, foul,
    Fantasyland entry and stay, scoop rates and royalties per hand first; --wide for
    every column (intervals and sample sizes), --format csv or json for the data.
    Hands not scored yet are scored first.
    """
    from ofc_stats.analysis.coverage import score_first
    from ofc_stats.db import player_stats
    from ofc_stats.warehouse import Warehouse

    chosen = output_format(output, out)
    with reported_errors(warehouse):
        store = Warehouse.open(warehouse)
        if scoring in (None, "default"):
            report_coverage(score_first(store), "these numbers")
        frame = player_stats(store, player=player, variant=variant, since=since,
                             min_hands=min_hands, scoring=scoring, score=False)
        if frame.is_empty():
            typer.echo("ofc-stats: no player matches these filters", err=True)
        write_frame(frame, chosen, out, view=QUERY_VIEWS["player_summary"], wide=wide,
                    columns=columns)
