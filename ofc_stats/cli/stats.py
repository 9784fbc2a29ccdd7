"""``ofc-stats stats``: the per-player summary."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ofc_stats.cli.app import WarehouseOption, app
from ofc_stats.cli.errors import reported_errors
from ofc_stats.cli.output import QueryFormat, output_format, report_coverage, write_frame


@app.command()
def stats(
    player: Annotated[str | None, typer.Option(help="Only this player.")] = None,
    variant: Annotated[str | None, typer.Option(
        help="Only this variant (classic, pineapple, progressive, ultimate).")] = None,
    since: Annotated[str | None, typer.Option(
        help="Only hands from this date or time on (ISO 8601, e.g. 2026-03-01).")] = None,
    min_hands: Annotated[int | None, typer.Option(
        min=1, help="Only players with at least this many hands.")] = None,
    output: Annotated[QueryFormat | None, typer.Option(
        "--format", help="table, csv, json or parquet (needs --out) [default: table, or "
        "the format --out's suffix names].", show_default=False)] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file.")]
    = None,
    warehouse: WarehouseOption = None,
) -> None:
    """Per-player summary: hands, points, points/hand with 95% CI, foul %, FL %, scoops."""
    from ofc_stats.analysis.coverage import score_first
    from ofc_stats.db import player_stats
    from ofc_stats.warehouse import Warehouse

    chosen = output_format(output, out)
    with reported_errors(warehouse):
        store = Warehouse.open(warehouse)
        report_coverage(score_first(store), "these numbers")
        frame = player_stats(store, player=player, variant=variant, since=since,
                             min_hands=min_hands, score=False)
        if frame.is_empty():
            typer.echo("ofc-stats: no player matches these filters", err=True)
        write_frame(frame, chosen, out)
