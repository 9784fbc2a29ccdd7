"""The ``ofc-stats`` Typer application: the app, its ``bench`` group and shared options.

Each command module (:mod:`ofc_stats.cli` imports them all, in the order ``--help``
lists them) registers its commands on :data:`app` or :data:`bench_app`. The app's
command classes print help as plain text, like a manual page (usage, description,
arguments and options with their values' names, examples), and end every usage error
(an unknown option, a bad value, a missing argument) the way every other error ends:
one line on stderr (:func:`ofc_stats.cli.errors.usage_message`) and exit code 2.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from typer._click import Context, HelpFormatter
from typer._click.exceptions import ClickException, NoArgsIsHelpError
from typer.core import TyperCommand, TyperGroup

from ofc_stats.engine.rules import Variant
from ofc_stats.errors import ExitCode
from ofc_stats.version import __version__

EPILOG = ("Exit status: 0 success, 1 audit mismatches (--fail-on-mismatch), 2 usage, "
          "3 warehouse locked, 4 hands set aside (ingest --strict), 5 no warehouse, 6 "
          "nothing scored, 7 file or system error, 70 internal error, 130 interrupted "
          "(docs/cli.md).")
_TYPE_SUFFIX = re.compile(r" <[^>]*>$")


class OfcStatsCommand(TyperCommand):
    """A command whose help reads like a manual page: arguments by their names
    (``PATH...``, not ``{paths}...`` or ``<list[str]>``)."""

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        """``[OPTIONS] PATH...`` / ``[SQL|NAME]``."""
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name != "argument":
                continue
            name = param.metavar or (param.name or "").upper()
            name += "..." if param.nargs != 1 and not name.endswith("...") else ""
            pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        """Arguments and options, each with the name of its value."""
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                name = _TYPE_SUFFIX.sub("", record[0])
                arguments.append((name, record[1]))
            else:
                options.append(record)
        for title, records in (("Arguments", arguments), ("Options", options)):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)


class OfcStatsGroup(TyperGroup):
    """The command group: plain help, and one-line usage errors with exit code 2."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        """Run the command; a usage error is one line on stderr (not a boxed panel)."""
        from ofc_stats.cli.errors import usage_message

        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode,
                                windows_expand_args, **extra)
        try:
            result = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                  **extra)
        except NoArgsIsHelpError as error:
            typer.echo(error.ctx.get_help())
            sys.exit(ExitCode.OK)
        except ClickException as error:
            typer.echo(f"ofc-stats: error: {usage_message(error)}", err=True)
            sys.exit(error.exit_code)
        except typer.Abort:
            typer.echo("ofc-stats: interrupted", err=True)
            sys.exit(ExitCode.INTERRUPTED)
        sys.exit(result if isinstance(result, int) else ExitCode.OK)


class OfcStatsTyper(typer.Typer):
    """A Typer app whose commands are :class:`OfcStatsCommand`."""

    def command(self, name: str | None = None, *,  # type: ignore[override]
                cls: type[TyperCommand] | None = None, **options: Any
                ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register a command (see :meth:`typer.Typer.command`), as an
        :class:`OfcStatsCommand` unless ``cls`` says otherwise."""
        return super().command(name, cls=cls or OfcStatsCommand, **options)


app = OfcStatsTyper(
    name="ofc-stats",
    help="Open Face Chinese poker hand histories turned into trustworthy numbers.",
    epilog=EPILOG,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=OfcStatsGroup,
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
    """Open Face Chinese poker hand histories turned into trustworthy numbers.

    Start with 'ofc-stats ingest sample_data', 'ofc-stats score' and 'ofc-stats report';
    every command has --help.
    """


JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
WarehouseOption = Annotated[
    Path | None,
    typer.Option("--warehouse", "-w", envvar="OFC_STATS_WAREHOUSE", show_envvar=True,
                 metavar="DIR", help="The warehouse folder [default: ./warehouse]."),
]
ScoringOption = Annotated[str | None, typer.Option(
    "--scoring", metavar="NAME",
    help="Answer from this stored scoring, a what-if: its name, or the preset or ruleset "
         "file 'ofc-stats score --ruleset' scored it with [default: the warehouse's "
         "default scoring].", show_default=False)]
WideOption = Annotated[bool, typer.Option(
    "--wide", help="On a terminal, every column at its full width (by default a table "
                   "fits the terminal, the columns that do not fit left out).")]
ColumnsOption = Annotated[str | None, typer.Option(
    "--columns", metavar="A,B,...",
    help="Only these columns, in this order (any format).", show_default=False)]
VARIANTS_TEXT = ", ".join(variant.value for variant in Variant)
VariantOption = Annotated[str | None, typer.Option(
    "--variant", metavar="VARIANT",
    help=f"Only this variant's hands: {VARIANTS_TEXT} (or as a history writes it: "
         "'Joker Ultimate', '2-7').", show_default=False)]
SinceOption = Annotated[str | None, typer.Option(
    "--since", metavar="WHEN",
    help="Only hands from then on: a date (2026-03-01), a date and time "
         "(2026-03-01T20:00; UTC unless it gives an offset), today, yesterday, or a time "
         "ago (12h, 7d, 2w).", show_default=False)]


def interactive() -> bool:
    """Whether stdout is a terminal (progress bars and tables) or a pipe (plain text)."""
    return sys.stdout.isatty()


bench_app = OfcStatsTyper(
    help="Benchmarks: throughput and peak memory of each stage, measured on this machine.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(bench_app, name="bench")


def run() -> None:
    """Entry point for ``python -m ofc_stats``."""
    app(prog_name="ofc-stats")
