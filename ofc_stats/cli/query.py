"""``ofc-stats query``: SQL or a named query on the warehouse, read-only by default."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import polars as pl
import typer

from ofc_stats.cli.app import WarehouseOption, app
from ofc_stats.cli.errors import reported_errors
from ofc_stats.cli.output import (
    QueryFormat,
    output_format,
    print_frame,
    report_coverage,
    write_frame,
)


def parse_params(values: list[str]) -> dict[str, str]:
    """``key=value`` pairs from repeated --param options."""
    params = {}
    for item in values:
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise typer.BadParameter(f"--param {item!r}: expected key=value")
        params[key.strip()] = value
    return params


@app.command()
def query(
    sql_or_name: Annotated[str | None, typer.Argument(
        metavar="SQL|NAME", help="A named query (see --list) or SQL to run.")] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="A named query's parameter, key=value (repeatable).")] = None,
    output: Annotated[QueryFormat | None, typer.Option(
        "--format", help="table, csv, json or parquet (needs --out) [default: table, or "
        "the format --out's suffix names].", show_default=False)] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file.")]
    = None,
    list_queries: Annotated[bool, typer.Option(
        "--list", help="List the named queries and their parameters.")] = False,
    allow_write: Annotated[bool, typer.Option(
        "--allow-write", help="Run statements other than SELECT on a scratch in-memory "
        "database (never on files: COPY, EXPORT, ATTACH are refused).")] = False,
    session_gap: Annotated[int | None, typer.Option(
        min=1, help="Minutes between hands that start a new session [default: 30].")] = None,
    warehouse: WarehouseOption = None,
) -> None:
    """Run SQL or a named query against the warehouse (read-only by default)."""
    from ofc_stats.db import named_queries, query_warehouse
    from ofc_stats.warehouse import Warehouse

    if list_queries:
        rows = [(q.name, q.description,
                 ", ".join(f"{p.name} ({p.type.lower()}"
                           + (", required)" if p.required else
                              f", default {p.default})" if p.default else ")")
                           for p in q.params))
                for q in named_queries().values()]
        print_frame(pl.DataFrame(rows, schema=["name", "description", "parameters"],
                                 orient="row"))
        return
    if sql_or_name is None:
        raise typer.BadParameter("give SQL or a query name (see --list)")
    values = parse_params(param or [])
    chosen = output_format(output, out)
    from ofc_stats.analysis.coverage import unscored_hands

    with reported_errors(warehouse):
        store = Warehouse.open(warehouse)
        frame = query_warehouse(store, sql_or_name, values, allow_write=allow_write,
                                session_gap_minutes=session_gap)
        write_frame(frame, chosen, out)
        # query never writes: it says what the scored views leave out, never scores.
        report_coverage(unscored_hands(store), "the scored views (player_hands, matchups, "
                        "sessions)")
