"""The ``ofc-stats`` Typer application: the app, its ``bench`` group and shared options.

Each command module (:mod:`ofc_stats.cli` imports them all, in the order ``--help``
lists them) registers its commands on :data:`app` or :data:`bench_app`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ofc_stats.version import __version__

app = typer.Typer(
    name="ofc-stats",
    help="Open Face Chinese poker hand histories turned into trustworthy numbers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


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


def run() -> None:
    """Entry point for ``python -m ofc_stats``."""
    app(prog_name="ofc-stats")
