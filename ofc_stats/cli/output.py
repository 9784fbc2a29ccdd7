"""How ``query``, ``stats`` and ``audit`` write a result: a table that fits the terminal
(:mod:`ofc_stats.cli.tables`), CSV, JSON or Parquet."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl
import typer

from ofc_stats.cli.tables import View, print_table, selected_columns

if TYPE_CHECKING:
    from ofc_stats.analysis.coverage import Coverage


class QueryFormat(StrEnum):
    """How ``query`` writes its result."""

    TABLE = "table"
    CSV = "csv"
    JSON = "json"
    PARQUET = "parquet"


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


def write_frame(frame: pl.DataFrame, output: QueryFormat, out: Path | None, *,
                view: View | None = None, wide: bool = False, columns: str | None = None
                ) -> None:
    """Write a result in a format (see :func:`output_format`), to a file or stdout.

    A table fits the terminal, in ``view``'s compact columns unless ``wide``;
    ``columns`` (``--columns a,b``) picks the columns in every format.
    """
    if output is QueryFormat.TABLE:
        print_table(frame, view=view, wide=wide, columns=columns)
        return
    if columns is not None:
        frame = frame.select(selected_columns(frame, columns))
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


def report_coverage(coverage: Coverage, what: str) -> None:
    """On stderr: the hands a reader scored first, or those its numbers leave out."""
    if coverage.scored_now:
        typer.echo(f"ofc-stats: scored {coverage.scored_now:,} hands not scored yet first",
                   err=True)
    warning = coverage.warning(what)
    if warning is not None:
        typer.echo(f"ofc-stats: warning: {warning}", err=True)
