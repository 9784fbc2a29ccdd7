"""``ofc-stats ingest``: hand histories into the warehouse, with a progress bar on a terminal."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ofc_stats.cli.app import JsonOption, app
from ofc_stats.cli.errors import reported_errors

if TYPE_CHECKING:
    from ofc_stats.ingest import IngestProgress, IngestSummary, ProgressCallback


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
    """The summary on stdout (text or JSON); on stderr, if anything was set aside, a
    warning line and the first few problems, each with its file, line and reason."""
    typer.echo(json.dumps(summary.as_dict(), indent=2) if as_json else summary.report())
    problems = summary.problem_text()
    if not problems:
        return
    typer.echo(f"ofc-stats: warning: {problems}; see docs/ingest.md", err=True)
    here = f"{Path.cwd()}{os.sep}"  # files under the current folder as the user names them
    for example in summary.examples:
        typer.echo(f"  {example.removeprefix(here)}", err=True)
    more = summary.rejected + summary.conflicts - len(summary.examples)
    if more > 0:
        typer.echo(f"  ... and {more:,} more: ofc-stats query 'FROM rejects'", err=True)


EXAMPLES = """Examples:

\b
  ofc-stats ingest sample_data
  ofc-stats ingest ~/histories/*.jsonl.gz --strict
  ofc-stats ingest ~/.fpdb/database/fpdb.db3        (fpdb-3's database)
  ofc-stats ingest ~/histories --watch --score       (until Ctrl-C)
"""


@app.command("ingest", epilog=EXAMPLES,
             short_help="Import hand histories into the warehouse, every hand once.")
def ingest_command(
    paths: Annotated[list[str], typer.Argument(
        metavar="PATH...", help="History files, folders (walked recursively), globs, or "
        ".gz .bz2 .xz .zip archives.", show_default=False)],
    warehouse: Annotated[Path | None, typer.Option(
        "--warehouse", "-w", metavar="DIR", help="The warehouse folder, created on first "
        "use [default: $OFC_STATS_WAREHOUSE, else ./warehouse].", show_default=False)]
    = None,
    fmt: Annotated[str, typer.Option(
        "--format", "-f", metavar="FORMAT",
        help="auto (sniff each file), jsonl, text, csv or fpdb.")] = "auto",
    strict: Annotated[bool, typer.Option(
        "--strict", help="Exit with code 4 if any hand or file was rejected or "
                         "conflicted (the good hands are still stored).")] = False,
    wait: Annotated[float, typer.Option(
        min=0, metavar="SECONDS",
        help="Seconds to wait for another process writing the warehouse.")] = 30.0,
    follow_links: Annotated[bool, typer.Option(
        "--follow-links", help="In folders, follow links that lead out of them "
        "(skipped and counted otherwise).")] = False,
    watch: Annotated[bool, typer.Option(
        "--watch", help="Keep running: import files again as they grow or appear "
                        "(Ctrl-C stops it). The warehouse stays readable meanwhile.")] = False,
    interval: Annotated[float, typer.Option(
        min=0.05, metavar="SECONDS", help="With --watch: seconds between looks at the "
        "files (on Linux a change wakes it sooner).")] = 1.0,
    score: Annotated[bool, typer.Option(
        "--score", help="Score the new hands after each import (as 'ofc-stats score').")]
    = False,
    as_json: JsonOption = False,
) -> None:
    """Import hand histories into the warehouse: every new hand once, bad ones set aside."""
    from ofc_stats.ingest import RejectedHandsError, ingest

    if watch:
        if strict:
            raise typer.BadParameter("does not go with --watch (a watch keeps going past "
                                     "rejected hands)", param_hint="--strict")
        watch_paths(paths, warehouse, fmt, interval=interval, wait=wait, score=score,
                    as_json=as_json)
        return
    with reported_errors(warehouse):
        try:
            with ingest_progress(show=not as_json) as progress:
                summary = ingest(paths, warehouse, fmt, strict, progress, lock_timeout=wait,
                                 follow_links=follow_links)
        except RejectedHandsError as error:
            print_ingest_summary(error.summary, as_json)
            raise
    print_ingest_summary(summary, as_json)
    if score:
        from ofc_stats.cli.score import score as score_command

        score_command(warehouse=warehouse, as_json=as_json)


def watch_paths(paths: list[str], warehouse: Path | None, fmt: str, *, interval: float,
                wait: float, score: bool, as_json: bool) -> None:
    """``ingest --watch``: one line per import until Ctrl-C (or SIGTERM), then one more."""
    import signal

    from ofc_stats.ingest.sources import find_files
    from ofc_stats.ingest.summary import counted
    from ofc_stats.ingest.watch import import_line, watch
    from ofc_stats.warehouse import Warehouse, WarehouseLockedError, default_warehouse

    def stop(_signal: int, _frame: object) -> None:
        raise KeyboardInterrupt

    with reported_errors():
        find_files(paths)  # a path that names nothing: said before a warehouse is made
        store = Warehouse.open(warehouse if warehouse is not None else default_warehouse(),
                               create=True)

        def on_import(result: IngestSummary) -> None:
            scored: int | None = None
            line = import_line(result)
            if score and result.hands_stored:
                from ofc_stats.analysis.score import score_warehouse

                try:
                    scored = score_warehouse(store).hands
                except WarehouseLockedError as error:
                    line += f"; not scored yet: {error}"
                except KeyboardInterrupt:  # the import is in: say so, then stop
                    typer.echo(line + "; scoring interrupted" if not as_json else json.dumps(
                        {**result.as_dict(), "scored": None}))
                    raise
            if as_json:
                typer.echo(json.dumps({**result.as_dict(), "scored": scored}))
            else:
                typer.echo(line + (f"; scored {counted(scored, 'hand')}"
                                   if scored is not None else ""))

        def on_retry(reason: str) -> None:
            typer.echo(f"ofc-stats: {reason}", err=True)

        previous = signal.signal(signal.SIGTERM, stop)
        try:
            summary = watch(paths, store, fmt=fmt, interval=interval, on_import=on_import,
                            on_retry=on_retry, lock_timeout=wait,
                            on_start=lambda how: typer.echo(
                                f"watching {len(paths):,} path{'' if len(paths) == 1 else 's'} "
                                f"({how}; every {interval:g} s at the latest); Ctrl-C stops",
                                err=True))
        finally:
            signal.signal(signal.SIGTERM, previous)
    typer.echo(f"stopped watching after {summary.seconds:,.0f} s: {summary.imports:,} "
               f"imports, {summary.hands_stored:,} hands stored", err=True)
