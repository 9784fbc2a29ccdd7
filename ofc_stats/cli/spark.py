"""``ofc-stats spark score`` and ``spark land``: the pipeline on Apache Spark.

PySpark is imported inside the commands only: the base install lists them, and says
which extra they need when it is missing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ofc_stats.cli.app import JsonOption, OfcStatsTyper, app
from ofc_stats.cli.errors import check_ruleset, reported_errors

spark_app = OfcStatsTyper(
    help="Run the pipeline on Apache Spark (needs the spark extra: pip install "
         "'ofc-stats[spark]', and Java 17).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(spark_app, name="spark",
              short_help="Run the pipeline on Apache Spark (the spark extra).")

SCORE_EXAMPLES = """Examples:

\b
  ofc-stats spark score -i histories/ -o spark-out
  ofc-stats spark score -i 's3a://bucket/histories/*.jsonl.gz' -o s3a://bucket/ofc
  ofc-stats spark score -i histories/ -o spark-out -w warehouse-spark --master 'local[2]'

On a cluster, run it under spark-submit (docs/spark.md).
"""

LAND_EXAMPLES = """Examples:

\b
  ofc-stats spark land spark-out -w warehouse-spark
  ofc-stats stats -w warehouse-spark
"""


@spark_app.command("score", epilog=SCORE_EXAMPLES,
                   short_help="Read, score and follow Fantasyland on Spark; write tables.")
def spark_score_command(
    inputs: Annotated[list[str], typer.Option(
        "--input", "-i", metavar="PATH", help="History files, folders or globs; local "
        "paths or URIs Spark reads (s3a://, abfss://, dbfs:/). Repeatable.")],
    output: Annotated[str, typer.Option(
        "--output", "-o", metavar="DIR",
        help="A new folder (or URI) for the tables, as Parquet datasets.")],
    warehouse: Annotated[Path | None, typer.Option(
        "--warehouse", "-w", metavar="DIR", help="Also land the tables in this new "
        "warehouse (a local --output only), for report, query and stats.")] = None,
    master: Annotated[str | None, typer.Option(
        metavar="URL", help="Spark master: local[*], local[2], spark://host:7077, yarn... "
        "[default: what spark-submit says, else local[*]].", show_default=False)] = None,
    fmt: Annotated[str, typer.Option(
        "--format", metavar="FORMAT", help="auto, jsonl, text, csv or fpdb.")] = "auto",
    ruleset: Annotated[str | None, typer.Option(
        metavar="NAME|FILE", help="Force a ruleset (a what-if) instead of each variant's "
        "preset.", show_default=False)] = None,
    partitions: Annotated[int | None, typer.Option(
        metavar="N", min=1, help="Partitions of the shuffles [default: Spark's].",
        show_default=False)] = None,
    as_json: JsonOption = False,
) -> None:
    """Read, score and follow Fantasyland for every hand on Spark; write the tables."""
    with reported_errors():
        from ofc_stats.analysis.landing import land_datasets
        from ofc_stats.spark import spark_session
        from ofc_stats.spark.pipeline import spark_score

        if warehouse is not None and "://" in output:
            raise typer.BadParameter("needs a local --output (copy the datasets here, then "
                                     "'ofc-stats spark land')", param_hint="--warehouse")
        check_ruleset(ruleset, "--ruleset")
        session = spark_session(master)
        session.sparkContext.setLogLevel("ERROR")  # its warnings would bury the summary
        summary = spark_score(session, inputs, output, fmt=fmt, ruleset=ruleset,
                              partitions=partitions)
        landed = land_datasets(output, warehouse) if warehouse is not None else None
    if as_json:
        typer.echo(json.dumps({**summary.as_dict(), "warehouse": landed and landed.warehouse},
                              indent=2))
        return
    typer.echo(
        f"scored {summary.hands:,} hands from {summary.files:,} files on Spark "
        f"({session.conf.get('spark.master')}) in {summary.seconds:.1f} s: "
        f"{summary.hands_per_second:,.0f} hands/s\n"
        f"  {summary.duplicates:,} duplicates, {summary.conflicts:,} conflicts, "
        f"{summary.rejected:,} rejected; {summary.player_hands:,} player-hands, "
        f"{summary.matchups:,} matchups as {summary.scoring!r}; {summary.transitions:,} "
        f"Fantasyland transitions, {summary.fl_errors:,} break the rules\n"
        f"  wrote {summary.output}")
    if landed is not None:
        typer.echo(f"  landed in warehouse {landed.warehouse} ({landed.files:,} files)")


@spark_app.command("land", epilog=LAND_EXAMPLES,
                   short_help="Make the datasets 'spark score' wrote a warehouse.")
def spark_land_command(
    source: Annotated[Path, typer.Argument(
        metavar="DIR", help="The folder 'spark score' wrote.", show_default=False)],
    warehouse: Annotated[Path, typer.Option(
        "--warehouse", "-w", metavar="DIR", help="A new warehouse folder to land the "
        "tables in.", show_default=False)],
    as_json: JsonOption = False,
) -> None:
    """Make the Parquet datasets 'spark score' wrote a warehouse (needs no Spark)."""
    from ofc_stats.analysis.landing import land_datasets

    with reported_errors():
        landed = land_datasets(source, warehouse)
    if as_json:
        typer.echo(json.dumps(landed.as_dict(), indent=2))
        return
    tables = ", ".join(f"{name} {rows:,}" for name, rows in landed.rows.items())
    typer.echo(f"landed {landed.files:,} files in warehouse {landed.warehouse} in "
               f"{landed.seconds:.1f} s ({tables} rows)")
