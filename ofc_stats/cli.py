"""The ``ofc-stats`` command: thin Typer commands over the library.

Each command parses its options, calls one library function and prints the result.
Library errors become one line on stderr and a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import polars as pl
import typer
from typer.exceptions import TyperException

from ofc_stats import __version__
from ofc_stats.errors import OfcStatsError

if TYPE_CHECKING:
    from ofc_stats.audit import AuditReport
    from ofc_stats.ingest import IngestProgress, IngestSummary, ProgressCallback

app = typer.Typer(
    name="ofc-stats",
    help="Open Face Chinese poker hand histories turned into trustworthy numbers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@contextmanager
def reported_errors() -> Iterator[None]:
    """Turn library errors (and a few system ones) into one line on stderr and an exit."""
    try:
        yield
    except OfcStatsError as error:
        typer.echo(f"ofc-stats: error: {error}", err=True)
        raise typer.Exit(error.exit_code) from None
    except OSError as error:
        where = f": {error.filename}" if error.filename else ""
        typer.echo(f"ofc-stats: error: {error.strerror or error}{where}", err=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        typer.echo("ofc-stats: interrupted", err=True)
        raise typer.Exit(130) from None
    except (typer.Exit, typer.Abort, TyperException):
        raise  # usage errors (BadParameter): typer prints them and exits 2
    except Exception as error:
        # A bug, not bad input: still one line, with a way to see the traceback.
        if os.environ.get("OFC_STATS_DEBUG"):
            raise
        typer.echo(f"ofc-stats: internal error: {type(error).__name__}: {error} "
                   "(set OFC_STATS_DEBUG=1 for the traceback, and please report it)", err=True)
        raise typer.Exit(70) from None


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"ofc-stats {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=version_callback,
                                          is_eager=True, help="Show the version and exit.")]
    = False,
) -> None:
    """Open Face Chinese poker hand histories turned into trustworthy numbers."""


JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
WarehouseOption = Annotated[
    Path | None,
    typer.Option("--warehouse", "-w", envvar="OFC_STATS_WAREHOUSE", show_envvar=True,
                 help="The warehouse folder [default: ./warehouse]."),
]


def interactive() -> bool:
    """Whether stdout is a terminal (progress bars and tables) or a pipe (plain text)."""
    return sys.stdout.isatty()

bench_app = typer.Typer(
    help="Benchmarks: throughput and peak memory of each stage, measured on this machine.",
    no_args_is_help=True,
)
app.add_typer(bench_app, name="bench")


# --- rules and scoring engine (issue 2) ----------------------------------------------


@bench_app.command("scoring")
def bench_scoring(
    deals: Annotated[int, typer.Option(min=1, help="Random deals to score.")] = 2_000_000,
    players: Annotated[int, typer.Option(min=2, max=4, help="Players per deal.")] = 3,
    ruleset: Annotated[str, typer.Option(help="Preset name or TOML file.")] = "pineapple",
    batch: Annotated[int, typer.Option(min=16, help="Boards per batch.")] = 1 << 16,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Score random deals generated in memory with the vectorised scorer (one core)."""
    from ofc_stats.bench import benchmark_scoring

    with reported_errors():
        result = benchmark_scoring(deals, players, ruleset, batch, seed)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"scored {result.deals:,} {result.players}-player deals ({result.player_hands:,} "
        f"player-hands, {result.fouled_share:.0%} fouled) under {result.ruleset} "
        f"in {result.seconds:.2f} s\n"
        f"  {result.player_hands_per_second / 1e6:.1f} M player-hands/s, "
        f"{result.deals_per_second / 1e6:.2f} M deals/s (one core)\n"
        f"  generating the deals took {result.generate_seconds:.2f} s; "
        f"peak memory {result.peak_memory_mb:,.0f} MiB"
    )


@app.command()
def rules(
    name: Annotated[str | None, typer.Argument(help="Preset name or TOML file.")] = None,
    as_json: JsonOption = False,
) -> None:
    """List the ruleset presets, or show one ruleset (a preset or a TOML file) in full."""
    from ofc_stats.rules import PRESETS, describe_ruleset, get_ruleset, ruleset_as_dict

    with reported_errors():
        if name is None:
            for preset in PRESETS.values():
                typer.echo(f"{preset.name:12s} {describe_ruleset(preset)}")
            return
        ruleset = get_ruleset(name)
    if as_json:
        typer.echo(json.dumps(ruleset_as_dict(ruleset), indent=2))
    else:
        typer.echo(f"{ruleset.name}: {describe_ruleset(ruleset)}")
        typer.echo(json.dumps(ruleset_as_dict(ruleset), indent=2))


# --- formats (issue 3) --------------------------------------------------------------


@bench_app.command("formats")
def bench_formats(
    hands: Annotated[int, typer.Option(min=1, help="Sample hands to write and read.")] = 100_000,
    players: Annotated[int, typer.Option(min=2, max=4, help="Players per hand.")] = 3,
    variant: Annotated[str, typer.Option(help="classic, pineapple, progressive or ultimate.")]
    = "pineapple",
    streets: Annotated[bool, typer.Option(
        "--streets/--no-streets", help="Record every placement (as rooms do), or boards only.")]
    = True,
    fmt: Annotated[list[str] | None, typer.Option(
        "--format", help="A format to measure (repeat it); all by default.")] = None,
    batch: Annotated[int, typer.Option(min=1, help="Hands per read batch.")] = 20_000,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Write sample hands in each format to a temporary file and read them back."""
    from ofc_stats.formats.benchmark import benchmark_formats

    with reported_errors():
        result = benchmark_formats(hands, players, variant, streets=streets, formats=fmt,
                                   seed=seed, batch_hands=batch)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    what = "with streets" if result.streets else "boards only"
    typer.echo(f"{result.hands:,} {result.players}-player {result.variant} hands ({what}), "
               f"generated in {result.generate_seconds:.2f} s; read in batches of "
               f"{result.batch_hands:,}")
    for row in result.formats:
        typer.echo(
            f"  {row.format:6s} {row.megabytes:7.1f} MB  read {row.read_megabytes_per_second:6.1f}"
            f" MB/s {row.read_hands_per_second:8,.0f} hands/s (CPU {row.read_cpu_seconds:5.2f} s"
            f" in {row.read_seconds:5.2f} s)  write {row.write_hands_per_second:8,.0f} hands/s"
            f"  peak {row.read_peak_memory_mb:,.0f} MiB (+{row.read_memory_growth_mb:,.0f})"
            + (f"  ({row.problems} problems!)" if row.problems else ""))
    typer.echo(f"  peak memory {result.peak_memory_mb:,.0f} MiB; the load average was "
               f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


# --- simulator (issue 3) ------------------------------------------------------------


@app.command()
def simulate(
    out: Annotated[str, typer.Option("--out", "-o", help="Folder to write the files to.")]
    = "simulated",
    hands: Annotated[int, typer.Option(min=1, help="Hands to simulate.")] = 10_000,
    tables: Annotated[int | None, typer.Option(
        min=1, help="Tables (default: one per 2,000 hands).")] = None,
    players: Annotated[int | None, typer.Option(
        min=4, help="Players in the pool (default: three per table, 12 to 2,000).")] = None,
    variant: Annotated[list[str] | None, typer.Option(
        help="Variant to deal (repeatable; tables take them in turn). Default: all four.")]
    = None,
    fmt: Annotated[list[str] | None, typer.Option(
        "--format", help="jsonl, text, csv, fpdb or all (repeatable; tables take them in "
        "turn). Default: jsonl.")] = None,
    seed: Annotated[int, typer.Option(help="Random seed: same seed, same files.")] = 0,
    faults: Annotated[str, typer.Option(
        help="Faults to inject: all, none, or kind[=count],... (kinds: mis-scored, "
        "fl-unearned, fl-missing, fl-cards, gap, corrupt-card, broken-line, truncated, "
        "duplicate-in-file, duplicate-across-files).")] = "none",
    broken_file: Annotated[str | None, typer.Option(
        help="Put every file fault in this one file (name without suffix).")] = None,
    gzip: Annotated[bool, typer.Option("--gzip", help="Gzip the table files.")] = False,
    sample_data: Annotated[str | None, typer.Option(
        help="Regenerate the sample data in this folder (other options ignored except "
        "--format).")] = None,
) -> None:
    """Simulate realistic OFC sessions and write them as hand-history files.

    Writes one file per table and faults.tsv, the ground truth of every injected fault.
    """
    from ofc_stats.simulate import SimulationConfig, parse_faults
    from ofc_stats.simulate.config import parse_variants
    from ofc_stats.simulate.files import write_sample_data, write_simulation

    with reported_errors():
        formats = [name for item in (fmt or []) for name in item.split(",")]
        if sample_data is not None:
            written = write_sample_data(sample_data, formats or None)
        else:
            config = SimulationConfig(
                seed=seed, hands=hands, tables=tables, players=players,
                variants=parse_variants(variant) if variant else SimulationConfig.variants,
                faults=parse_faults(faults))
            written = write_simulation(config, out, formats or "jsonl", broken_file, gzip)
    kinds: dict[str, int] = {}
    for fault in written.faults:
        kinds[fault.kind.value] = kinds.get(fault.kind.value, 0) + 1
    injected = ", ".join(f"{count} {kind}" for kind, count in kinds.items()) or "none"
    typer.echo(f"wrote {written.hands:,} hands to {len(written.files)} files in "
               f"{written.folder}\nfaults injected: {injected} (listed in "
               f"{written.faults_file})")


@bench_app.command("simulate")
def bench_simulate(
    hands: Annotated[int, typer.Option(min=1, help="Hands to simulate.")] = 1_000_000,
    tables: Annotated[int | None, typer.Option(min=1, help="Tables.")] = None,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Simulate hands into canonical batches in memory (all four variants, one core)."""
    from ofc_stats.simulate import benchmark_simulation

    with reported_errors():
        result = benchmark_simulation(hands, tables, seed)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"simulated {result.hands:,} hands at {result.tables:,} tables "
        f"({result.boards:,} boards, {result.street_rows:,} street actions, "
        f"{result.fantasyland_share:.1%} of boards in Fantasyland) in {result.seconds:.1f} s\n"
        f"  {result.hands_per_second:,.0f} hands/s (one core); "
        f"peak memory {result.peak_memory_mb:,.0f} MiB"
    )


# --- ingest (issue 4) ----------------------------------------------------------------


@contextmanager
def ingest_progress(show: bool) -> Iterator[ProgressCallback | None]:
    """A callback drawing a progress bar on stderr, or None when it is not a terminal."""
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not show or not console.is_terminal:
        yield None
        return
    with Progress(TextColumn("ingest"), BarColumn(), DownloadColumn(),
                  TextColumn("{task.fields[files]}"), TextColumn("{task.fields[rate]}"),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("ingest", total=None, files="", rate="")

        def update(state: IngestProgress) -> None:
            rate = state.hands_read / state.seconds if state.seconds > 0 else 0.0
            bar.update(task, total=state.bytes_total or None, completed=state.bytes_done,
                       files=f"{state.files_done:,}/{state.files_total:,} files",
                       rate=f"{rate:,.0f} hands/s")

        yield update


def print_ingest_summary(summary: IngestSummary, as_json: bool) -> None:
    """The summary on stdout (text or JSON); a warning line on stderr if hands were set aside."""
    typer.echo(json.dumps(summary.as_dict(), indent=2) if as_json else summary.report())
    problems = summary.problem_text()
    if problems:
        typer.echo(f"ofc-stats: warning: {problems}; see docs/ingest.md", err=True)


@app.command("ingest")
def ingest_command(
    paths: Annotated[list[str], typer.Argument(
        help="History files, folders (walked recursively), globs, or .gz .bz2 .xz .zip "
             "archives.", show_default=False)],
    warehouse: Annotated[Path | None, typer.Option(
        "--warehouse", "-w", help="The warehouse folder, created on first use "
        "(default: $OFC_STATS_WAREHOUSE, else ./warehouse).", show_default=False)] = None,
    fmt: Annotated[str, typer.Option(
        "--format", "-f", help="auto (sniff each file), jsonl, text, csv or fpdb.")] = "auto",
    strict: Annotated[bool, typer.Option(
        "--strict", help="Exit with code 4 if any hand or file was rejected or "
                         "conflicted (the good hands are still stored).")] = False,
    wait: Annotated[float, typer.Option(
        min=0, help="Seconds to wait for another process writing the warehouse.")] = 30.0,
    as_json: JsonOption = False,
) -> None:
    """Import hand histories into the warehouse: every new hand once, bad ones set aside."""
    from ofc_stats.ingest import RejectedHandsError, ingest

    with reported_errors():
        try:
            with ingest_progress(show=not as_json) as progress:
                summary = ingest(paths, warehouse, fmt, strict, progress, lock_timeout=wait)
        except RejectedHandsError as error:
            print_ingest_summary(error.summary, as_json)
            raise
    print_ingest_summary(summary, as_json)


@bench_app.command("ingest")
def bench_ingest(
    hands: Annotated[int, typer.Option(min=1, help="Hands per format.")] = 200_000,
    formats: Annotated[list[str] | None, typer.Option(
        "--format", "-f", help="Formats to measure, repeatable (default: all).")] = None,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    files: Annotated[int, typer.Option(
        min=1, help="Spread the hands over this many files (sessions) in a folder.")] = 1,
    as_json: JsonOption = False,
) -> None:
    """Write hands in each format to a temporary folder, ingest them, report throughput."""
    from ofc_stats.ingest_bench import benchmark_ingest

    with reported_errors():
        results = benchmark_ingest(hands, formats or None, seed, files)
    if as_json:
        typer.echo(json.dumps([result.as_dict() for result in results], indent=2))
        return
    for result in results:
        typer.echo(result.report())


# --- score and audit (issue 5) -------------------------------------------------------


class AuditFormat(StrEnum):
    """How ``audit`` prints its findings."""

    TABLE = "table"
    CSV = "csv"
    JSON = "json"


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
    from ofc_stats.warehouse import Warehouse
    from ofc_stats.warehouse_scoring import score_warehouse

    with reported_errors():
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


@bench_app.command("score")
def bench_score(
    player_hands: Annotated[int, typer.Option(min=3, help="Player-hands in the warehouse.")]
    = 10_000_000,
    players: Annotated[int, typer.Option(min=2, max=4, help="Players per hand.")] = 3,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Build a warehouse of random deals, then time 'ofc-stats score' on it (a real process)."""
    from ofc_stats.bench import benchmark_warehouse_scoring

    with reported_errors():
        result = benchmark_warehouse_scoring(player_hands, players, seed)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"built a warehouse of {result.player_hands:,} player-hands in {result.seats_files} "
        f"seats files ({result.build_seconds:.1f} s, not timed)\n"
        f"ofc-stats score: {result.score_seconds:.2f} s, "
        f"{result.player_hands_per_second / 1e6:.2f} M player-hands/s end to end into "
        f"Parquet (Fantasyland across hands included: {result.fl_transitions:,} checks "
        f"in {result.fl_seconds:.2f} s); "
        f"peak memory {result.peak_memory_mb:,.0f} MiB"
    )


@app.command()
def audit(
    warehouse: WarehouseOption = None,
    output: Annotated[AuditFormat, typer.Option(
        "--format", help="table (on a terminal), csv (the counts per kind and site on "
        "stderr) or json.")] = AuditFormat.TABLE,
    fail_on_mismatch: Annotated[bool, typer.Option(
        "--fail-on-mismatch", help="Exit with status 1 when any error is found.")] = False,
) -> None:
    """Report hands the room mis-scored, broken Fantasyland chains and impossible boards."""
    from ofc_stats.audit import audit_warehouse
    from ofc_stats.warehouse import Warehouse

    with reported_errors():
        report = audit_warehouse(Warehouse.open(warehouse))
    findings = report.findings
    if output is AuditFormat.JSON:
        typer.echo(json.dumps({
            "summary": report.summary.to_dicts(),
            "findings": findings.with_columns(pl.col("started_at").dt.to_string())
            .to_dicts()}, indent=2))
    elif output is AuditFormat.CSV:
        typer.echo(findings.write_csv(), nl=False)
        # The counts go beside the findings, on stderr, so stdout stays one CSV table.
        for kind, severity, site, count in report.summary.iter_rows():
            typer.echo(f"summary: {count:,} {kind} ({severity}) at {site}", err=True)
    else:
        _print_audit(report)
    if fail_on_mismatch and report.errors:
        raise typer.Exit(1)


def _print_audit(report: AuditReport) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if interactive() else 160)
    if report.findings.is_empty():
        console.print("no findings: every stored hand agrees with the rules")
        return
    summary = Table("kind", "severity", "site", "count", title="Audit summary")
    for counts in report.summary.iter_rows():
        summary.add_row(*(str(value) for value in counts))
    console.print(summary)
    findings = Table("kind", "hand", "when", "player", "detail", "ours", "reported",
                     title=f"{report.findings.height:,} findings ({report.errors:,} errors)",
                     show_lines=True)
    for row in report.findings.iter_rows(named=True):
        detail = row["detail"] + (f"\n{row['boards']}" if row["boards"] else "")
        when = row["started_at"].strftime("%Y-%m-%d %H:%M") if row["started_at"] else ""
        findings.add_row(row["kind"], row["hand_id"] or row["source"] or "", when,
                         row["player"] or "", detail, row["ours"] or "", row["reported"] or "")
    console.print(findings)


# --- SQL: query and stats (issue 6) --------------------------------------------------


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
        "--allow-write", help="Run statements other than SELECT (on a scratch in-memory "
        "database; the warehouse's files are still reachable by COPY).")] = False,
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
    with reported_errors():
        frame = query_warehouse(Warehouse.open(warehouse), sql_or_name, values,
                                allow_write=allow_write, session_gap_minutes=session_gap)
        write_frame(frame, chosen, out)


@bench_app.command("stats")
def bench_stats(
    player_hands: Annotated[int, typer.Option(min=3, help="Player-hands in the warehouse.")]
    = 10_000_000,
    repeats: Annotated[int, typer.Option(min=1, help="Times to run the query.")] = 3,
    as_json: JsonOption = False,
) -> None:
    """Time the per-player summary ('ofc-stats stats') over a scored warehouse."""
    from ofc_stats.bench import benchmark_stats

    with reported_errors():
        result = benchmark_stats(player_hands, repeats)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"per-player summary of {result.player_hands:,} player-hands ({result.players} "
        f"players): first run {result.first_seconds:.2f} s (views included), best "
        f"{result.best_seconds:.2f} s; building and scoring took {result.prepare_seconds:.0f} s"
    )


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
    from ofc_stats.db import player_stats
    from ofc_stats.warehouse import Warehouse

    chosen = output_format(output, out)
    with reported_errors():
        frame = player_stats(Warehouse.open(warehouse), player=player, variant=variant,
                             since=since, min_hands=min_hands)
        if frame.is_empty():
            typer.echo("ofc-stats: no player matches these filters", err=True)
        write_frame(frame, chosen, out)


# --- reports (issue 7) ---------------------------------------------------------------


@app.command()
def report(
    player: Annotated[str | None, typer.Option(
        help="Report on this player; without it, an overview of every player.")] = None,
    table: Annotated[str | None, typer.Option(help="Only this table's hands.")] = None,
    since: Annotated[str | None, typer.Option(
        help="Only hands from this date or time on (ISO 8601, e.g. 2026-03-01; UTC "
             "unless it says otherwise).")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="The HTML file to write (default: reports/<player>.html, "
        "reports/table-<table>.html or reports/overview.html).", show_default=False)] = None,
    warehouse: WarehouseOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write a self-contained HTML report (charts, headline figures, biggest hands)."""
    from ofc_stats.report import write_report

    with reported_errors():
        summary = write_report(warehouse, player=player, table=table, since=since, out=out)
    if as_json:
        typer.echo(json.dumps(summary.as_dict(), indent=2))
        return
    players = f"{summary.players:,} player{'' if summary.players == 1 else 's'}"
    typer.echo(f"wrote {summary.path} ({summary.bytes / 1e6:.1f} MB, {summary.charts} charts; "
               f"{summary.hands:,} hands, {players}) in {summary.seconds:.1f} s")


@bench_app.command("report")
def bench_report(
    hands: Annotated[int, typer.Option(min=10, help="Hands in the warehouse.")] = 1_000_000,
    players: Annotated[int, typer.Option(min=2, max=4, help="Players per hand.")] = 3,
    pool: Annotated[int, typer.Option(min=2, help="Players in the pool the tables seat.")]
    = 12,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Build and score a warehouse of random deals, then time 'ofc-stats report' on it."""
    from ofc_stats.bench import benchmark_report

    with reported_errors():
        result = benchmark_report(hands, players, pool, seed)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"built a warehouse of {result.hands:,} hands ({result.player_hands:,} player-hands, "
        f"{result.players} players) in {result.build_seconds:.1f} s and scored it in "
        f"{result.score_seconds:.1f} s (neither timed below)\n"
        f"report, every player: {result.overview_seconds:.2f} s, "
        f"{result.overview_bytes / 1e6:.2f} MB, peak memory "
        f"{result.overview_peak_memory_mb:,.0f} MiB\n"
        f"report, one player:   {result.player_seconds:.2f} s, "
        f"{result.player_bytes / 1e6:.2f} MB, peak memory "
        f"{result.player_peak_memory_mb:,.0f} MiB"
    )


# --- Apache Spark (issue 22) -------------------------------------------------------

spark_app = typer.Typer(
    help="Run the pipeline on Apache Spark (needs the spark extra: pip install "
         "'ofc-stats[spark]', and Java 17).",
    no_args_is_help=True,
)
app.add_typer(spark_app, name="spark")


@spark_app.command("score")
def spark_score_command(
    inputs: Annotated[list[str], typer.Option(
        "--input", "-i", help="History files, folders or globs; local paths or URIs Spark "
        "reads (s3a://, abfss://, dbfs:/). Repeatable.")],
    output: Annotated[str, typer.Option(
        "--output", "-o", help="A new folder (or URI) for the tables, as Parquet datasets.")],
    warehouse: Annotated[Path | None, typer.Option(
        "--warehouse", "-w", help="Also land the tables in this new warehouse (a local "
        "--output only), for report, query and stats.")] = None,
    master: Annotated[str | None, typer.Option(
        help="Spark master: local[*], local[2], spark://host:7077, yarn... [default: what "
        "spark-submit says, else local[*]].", show_default=False)] = None,
    fmt: Annotated[str, typer.Option(
        "--format", help="auto, jsonl, text, csv or fpdb.")] = "auto",
    ruleset: Annotated[str | None, typer.Option(
        help="Force a ruleset (a what-if) instead of each variant's preset.")] = None,
    partitions: Annotated[int | None, typer.Option(
        min=1, help="Partitions of the shuffles [default: Spark's].")] = None,
    as_json: JsonOption = False,
) -> None:
    """Read, score and follow Fantasyland for every hand on Spark; write the tables."""
    with reported_errors():
        from ofc_stats.landing import land_datasets
        from ofc_stats.spark import spark_session
        from ofc_stats.spark.pipeline import spark_score

        if warehouse is not None and "://" in output:
            raise typer.BadParameter("--warehouse needs a local --output (copy the datasets "
                                     "here, then 'ofc-stats spark land')")
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


@bench_app.command("spark")
def bench_spark(
    hands: Annotated[int, typer.Option(min=10_000, help="Hands (three players each).")]
    = 1_000_000,
    master: Annotated[list[str] | None, typer.Option(
        help="Spark masters to time, repeatable [default: local[1] and local[2]].",
        show_default=False)] = None,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Score the same hands on Spark (each master) and with the local pipeline."""
    with reported_errors():
        from ofc_stats.spark.benchmark import benchmark_spark

        result = benchmark_spark(hands, master or ["local[1]", "local[2]"], seed)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"{result.hands:,} hands ({result.player_hands:,} player-hands), built in "
        f"{result.build_seconds:.0f} s (not timed)\n"
        f"  local pipeline ('ofc-stats score'): {result.local_seconds:.1f} s, "
        f"{result.local_player_hands_per_second / 1e6:.2f} M player-hands/s (Fantasyland "
        f"{result.local_transitions_seconds:.1f} s of it), {result.local_cpu_seconds:.1f} "
        "CPU s")
    for run in result.runs:
        typer.echo(
            f"  Spark {run.master} ({run.cores} cores): {run.seconds:.1f} s "
            f"(scoring {run.score_seconds:.1f} s, Fantasyland {run.transitions_seconds:.1f} s), "
            f"{run.player_hands_per_second / 1e6:.2f} M player-hands/s, speed-up "
            f"{result.speedup(run):.2f}x, {result.ratio_to_local(run):.2f}x the local "
            f"pipeline; {run.cpu_seconds:.1f} CPU s; start-up and warm-up "
            f"{run.start_seconds:.0f} s (not counted)")


@spark_app.command("land")
def spark_land_command(
    source: Annotated[Path, typer.Argument(help="The folder 'spark score' wrote.")],
    warehouse: Annotated[Path, typer.Option(
        "--warehouse", "-w", help="A new warehouse folder to land the tables in.")],
    as_json: JsonOption = False,
) -> None:
    """Make the Parquet datasets 'spark score' wrote a warehouse (needs no Spark)."""
    from ofc_stats.landing import land_datasets

    with reported_errors():
        landed = land_datasets(source, warehouse)
    if as_json:
        typer.echo(json.dumps(landed.as_dict(), indent=2))
        return
    tables = ", ".join(f"{name} {rows:,}" for name, rows in landed.rows.items())
    typer.echo(f"landed {landed.files:,} files in warehouse {landed.warehouse} in "
               f"{landed.seconds:.1f} s ({tables} rows)")


def run() -> None:
    """Entry point for ``python -m ofc_stats``."""
    app(prog_name="ofc-stats")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())  # type: ignore[func-returns-value]
