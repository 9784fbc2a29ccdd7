"""``ofc-stats config``: the warehouse's settings (its house rules), in ``ofc-stats.toml``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ofc_stats.cli.app import OfcStatsTyper, WarehouseOption, app
from ofc_stats.cli.errors import reported_errors

EXAMPLES = """Settings:

\b
  ruleset                    the default scoring's ruleset for every hand
  ruleset.site.<site>        ... for the hands of one site (room)
  ruleset.variant.<variant>  ... for one variant (classic, pineapple, ...)

A hand takes its site's ruleset, else its variant's, else 'ruleset', else the preset
its variant implies. A ruleset is a preset name or a TOML ruleset file. The next
'ofc-stats score' rescores every hand under the new rules.

Examples:

\b
  ofc-stats config set ruleset thursday.toml
  ofc-stats config set ruleset.site.homegame thursday.toml
  ofc-stats config
  ofc-stats config unset ruleset
"""

config_app = OfcStatsTyper(
    help="Show or change the warehouse's settings: the house rules its default scoring "
         "applies (kept in <warehouse>/ofc-stats.toml).",
    epilog=EXAMPLES, rich_markup_mode=None, invoke_without_command=True,
    no_args_is_help=False)
app.add_typer(config_app, name="config")
KeyArgument = Annotated[str, typer.Argument(
    metavar="KEY", help="ruleset, ruleset.site.<site> or ruleset.variant.<variant>.",
    show_default=False)]


def _print_settings(settings: dict[str, str], house_rules: str) -> None:
    if not settings:
        typer.echo("no settings: every hand is scored under the preset its variant implies "
                   "(ofc-stats config set ruleset FILE sets house rules)")
        return
    width = max(len(key) for key in settings)
    for key, value in settings.items():
        typer.echo(f"{key:{width}s} = {value}")
    typer.echo(f"default scoring: {house_rules}")


@config_app.callback()
def config(ctx: typer.Context, warehouse: WarehouseOption = None) -> None:
    """Show or change the warehouse's settings (its house rules).

    Without a subcommand, lists every setting.
    """
    from ofc_stats.warehouse import Warehouse
    from ofc_stats.warehouse.config import read_config

    ctx.obj = {"warehouse": warehouse}
    if ctx.invoked_subcommand is not None:
        return
    with reported_errors():
        settings = read_config(Warehouse.open(warehouse).root)
        _print_settings(settings.settings(), settings.describe())


def _warehouse(ctx: typer.Context, given: Path | None) -> Path | None:
    """``--warehouse`` given after the subcommand, or before it (``config -w DIR set``)."""
    if given is not None:
        return given
    before = (ctx.obj or {}).get("warehouse")
    return before if isinstance(before, Path) else None


@config_app.command("get")
def config_get(ctx: typer.Context, key: KeyArgument, warehouse: WarehouseOption = None
               ) -> None:
    """Print one setting's value (nothing if it is not set, and a note on stderr)."""
    from ofc_stats.warehouse import Warehouse
    from ofc_stats.warehouse.config import parse_key, read_config

    with reported_errors():
        parse_key(key)
        settings = read_config(Warehouse.open(_warehouse(ctx, warehouse)).root).settings()
    if key in settings:
        typer.echo(settings[key])
    else:
        typer.echo(f"ofc-stats: {key} is not set", err=True)


@config_app.command("set")
def config_set(ctx: typer.Context, key: KeyArgument,
               value: Annotated[str, typer.Argument(
                   metavar="RULESET", help="A preset name or a TOML ruleset file.",
                   show_default=False)],
               warehouse: WarehouseOption = None) -> None:
    """Set a ruleset of the house rules (checked by loading it)."""
    from ofc_stats.engine.rules import PRESETS
    from ofc_stats.engine.rules_text import defaults_taken
    from ofc_stats.warehouse import Warehouse
    from ofc_stats.warehouse.config import set_setting

    with reported_errors():
        store = Warehouse.open(_warehouse(ctx, warehouse))
        with store.writing():
            settings = set_setting(store.root, key, value)
    if value not in PRESETS:
        for note in defaults_taken(Path(value)):
            typer.echo(f"ofc-stats: note: {Path(value).name} {note}", err=True)
    typer.echo(f"{key} = {settings.settings()[key]}")
    typer.echo(f"default scoring: {settings.describe()}; the next 'ofc-stats score' "
               "rescores every hand under it")


@config_app.command("unset")
def config_unset(ctx: typer.Context, key: KeyArgument, warehouse: WarehouseOption = None
                 ) -> None:
    """Remove a setting (the scope falls back to the next rule, or to the presets)."""
    from ofc_stats.warehouse import Warehouse
    from ofc_stats.warehouse.config import unset_setting

    with reported_errors():
        store = Warehouse.open(_warehouse(ctx, warehouse))
        with store.writing():
            settings = unset_setting(store.root, key)
    typer.echo(f"unset {key}; default scoring: {settings.describe()}")
