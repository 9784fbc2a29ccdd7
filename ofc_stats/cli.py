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
from typing import Annotated

import typer

from ofc_stats import __version__
from ofc_stats.errors import OfcStatsError

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


# --- formats and simulator (issue 3) -------------------------------------------------


# --- ingest (issue 4) ----------------------------------------------------------------


# --- score and audit (issue 5) -------------------------------------------------------


# --- SQL: query and stats (issue 6) --------------------------------------------------


# --- reports (issue 7) ---------------------------------------------------------------


def run() -> None:
    """Entry point for ``python -m ofc_stats``."""
    app(prog_name="ofc-stats")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())  # type: ignore[func-returns-value]
