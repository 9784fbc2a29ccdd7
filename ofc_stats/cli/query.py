"""``ofc-stats query``: SQL or a named query on the warehouse, read-only by default."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import polars as pl
import typer

from ofc_stats.cli.app import ColumnsOption, ScoringOption, WarehouseOption, WideOption, app
from ofc_stats.cli.errors import reported_errors
from ofc_stats.cli.output import QueryFormat, output_format, report_coverage, write_frame
from ofc_stats.cli.tables import View, print_table

# What a terminal shows of each named query by default, most wanted first (a column
# that does not fit goes from the end); --wide or --columns for the rest.
QUERY_VIEWS = {
    "player_summary": View(("player", "hands", "points", "points_per_hand", "foul_pct",
                            "fl_entry_pct", "fl_stay_pct", "scoop_pct",
                            "royalties_per_hand", "ci95_low", "ci95_high")),
    "win_rates": View(("player", "hands", "points", "points_per_hand", "ci95_low",
                       "ci95_high", "money", "currency", "points_stddev")),
    "foul_rates": View(("player", "hands", "fouls", "foul_pct", "foul_pct_ci95_low",
                        "foul_pct_ci95_high", "fl_foul_pct")),
    "fantasyland": View(("player", "hands", "entries", "entry_pct", "stays", "stay_pct",
                         "fl_hands_per_100", "points_per_fl_hand")),
    "royalties_by_row": View(("player", "hands", "top_per_hand", "middle_per_hand",
                              "bottom_per_hand", "total_per_hand")),
    "session_results": View(("player", "table", "started_at", "minutes", "hands", "points",
                             "points_per_hand", "money")),
    "head_to_head": View(("player", "opponent", "hands", "points", "points_per_hand",
                          "scoops", "scooped")),
    "leaderboard": View(("rank", "player", "hands", "points", "points_per_hand",
                         "foul_pct", "tables")),
    "hand_list": View(("hand_id", "started_at", "table", "points", "royalties", "fouled",
                       "in_fantasyland", "variant"),
                      note="ofc-stats hand HAND_ID draws a hand: its boards, rows, points "
                           "and Fantasyland"),
}


def parse_params(values: list[str]) -> dict[str, str]:
    """``key=value`` pairs from repeated --param options."""
    params = {}
    for item in values:
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise typer.BadParameter(f"{item!r} is not KEY=VALUE (e.g. -p player=alice)",
                                     param_hint="--param")
        params[key.strip()] = value
    return params


EXAMPLES = """Examples:

\b
  ofc-stats query --list
  ofc-stats query leaderboard -p min_hands=500
  ofc-stats query hand_list -p player=ColdWhale -p since=7d
  ofc-stats query win_rates --scoring thursday.toml --format csv
  ofc-stats query "SELECT player, count(*) FROM player_hands GROUP BY ALL"
"""


@app.command(epilog=EXAMPLES)
def query(
    sql_or_name: Annotated[str | None, typer.Argument(
        metavar="SQL|NAME", help="A named query (see --list) or SQL to run.",
        show_default=False)] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", metavar="KEY=VALUE",
        help="A named query's parameter (repeatable; --list shows each query's).",
        show_default=False)] = None,
    output: Annotated[QueryFormat | None, typer.Option(
        "--format", metavar="FORMAT", help="table, csv, json or parquet (parquet needs "
        "--out) [default: table, or the format --out's suffix names].",
        show_default=False)] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", metavar="FILE", help="Write to this file.", show_default=False)]
    = None,
    list_queries: Annotated[bool, typer.Option(
        "--list", help="List the named queries and their parameters.")] = False,
    scoring: ScoringOption = None,
    wide: WideOption = False,
    columns: ColumnsOption = None,
    allow_write: Annotated[bool, typer.Option(
        "--allow-write", help="Run statements other than SELECT on a scratch in-memory "
        "database (never on files: COPY, EXPORT, ATTACH are refused).")] = False,
    session_gap: Annotated[int | None, typer.Option(
        min=1, metavar="MINUTES", help="Minutes between hands that start a new session "
        "[default: 30].", show_default=False)] = None,
    warehouse: WarehouseOption = None,
) -> None:
    """Run SQL or a named query against the warehouse (read-only by default).

    A single word is a named query ('ofc-stats query --list'); anything else is
    DuckDB SQL over the warehouse's views (docs/sql.md). On a terminal the result is a
    table that fits it; --format csv, json or parquet for the whole result.
    """
    from ofc_stats.db import named_queries, query_warehouse
    from ofc_stats.warehouse import Warehouse

    if list_queries:
        rows = [(q.name, q.description, ", ".join(p.describe() for p in q.params))
                for q in named_queries().values()]
        print_table(pl.DataFrame(rows, schema=["name", "description", "parameters"],
                                 orient="row"), wide=wide)
        return
    if sql_or_name is None:
        raise typer.BadParameter("give SQL or a query name (--list shows the named "
                                 "queries)", param_hint="SQL|NAME")
    values = parse_params(param or [])
    chosen = output_format(output, out)
    from ofc_stats.analysis.coverage import unscored_hands
    from ofc_stats.analysis.score import resolve_scoring

    with reported_errors(warehouse):
        store = Warehouse.open(warehouse)
        frame = query_warehouse(store, sql_or_name, values, allow_write=allow_write,
                                session_gap_minutes=session_gap, scoring=scoring)
        write_frame(frame, chosen, out, view=QUERY_VIEWS.get(sql_or_name), wide=wide,
                    columns=columns)
        # query never writes: it says what the scored views leave out, never scores.
        report_coverage(unscored_hands(store, resolve_scoring(store, scoring)),
                        "the scored views (player_hands, matchups, sessions)")
