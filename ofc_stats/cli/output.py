"""How ``query`` and ``stats`` write a result: a table on a terminal, CSV, JSON or Parquet."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl
import typer

from ofc_stats.cli.app import interactive

if TYPE_CHECKING:
    from ofc_stats.analysis.coverage import Coverage


class QueryFormat(StrEnum):
    """How ``query`` writes its result."""

    TABLE = "table"
    CSV = "csv"
    JSON = "json"
    PARQUET = "parquet"


def print_frame(frame: pl.DataFrame, title: str | None = None) -> None:
    """A result as a table: rich on a terminal, plain aligned text in a pipe."""
    from rich.console import Console
    from rich.table import Table

    table = Table(*frame.columns, title=title, title_justify="left")
    for row in frame.iter_rows():
        table.add_row(*("" if value is None else str(value) for value in row))
    Console(width=None if interactive() else 200).print(table)


def output_format(output: QueryFormat | None, out: Path | None) -> QueryFormat:
    """The format asked for, else the one ``out``'s suffix names, else a table."""
    if output is None:
        if out is None:
            return QueryFormat.TABLE
        named = out.suffix.lower().lstrip(".")
        if named in (QueryFormat.CSV, QueryFormat.JSON, QueryFormat.PARQUET):
            return QueryFormat(named)
        raise typer.BadParameter(
            f"cannot tell a format from {out.name!r}; give --format csv, json or parquet",
            param_hint="--out")
    if output is QueryFormat.PARQUET and out is None:
        raise typer.BadParameter("--format parquet needs --out FILE", param_hint="--format")
    if output is QueryFormat.TABLE and out is not None:
        raise typer.BadParameter("--out goes with --format csv, json or parquet",
                                 param_hint="--out")
    return output


def csv_ready(frame: pl.DataFrame) -> pl.DataFrame:
    """Columns CSV cannot hold as text: nested ones (lists, structs) as JSON, durations
    (SQL intervals) in ISO 8601."""
    nested = [name for name, dtype in frame.schema.items() if dtype.is_nested()]
    durations = [name for name, dtype in frame.schema.items() if isinstance(dtype, pl.Duration)]
    return frame.with_columns(
        *(pl.struct(pl.col(name).alias("v")).struct.json_encode()
          .str.strip_prefix('{"v":').str.strip_suffix("}").alias(name) for name in nested),
        *(pl.col(name).dt.to_string() for name in durations))


def write_frame(frame: pl.DataFrame, output: QueryFormat, out: Path | None) -> None:
    """Write a result in a format (see :func:`output_format`), to a file or stdout."""
    if output is QueryFormat.PARQUET:
        assert out is not None
        frame.write_parquet(out)
    elif output in (QueryFormat.CSV, QueryFormat.JSON):
        text = (csv_ready(frame).write_csv() if output is QueryFormat.CSV
                else frame.write_json() + "\n")
        if out is None:
            typer.echo(text, nl=False)
        else:
            out.write_text(text, encoding="utf-8")
    else:
        print_frame(frame)


def report_coverage(coverage: Coverage, what: str) -> None:
    """On stderr: the hands a reader scored first, or those its numbers leave out."""
    if coverage.scored_now:
        typer.echo(f"ofc-stats: scored {coverage.scored_now:,} hands not scored yet first",
                   err=True)
    warning = coverage.warning(what)
    if warning is not None:
        typer.echo(f"ofc-stats: warning: {warning}", err=True)
