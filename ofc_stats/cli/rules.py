"""``ofc-stats rules``: the ruleset presets, or one ruleset in full."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ofc_stats.cli.app import JsonOption, app
from ofc_stats.cli.errors import reported_errors


@app.command()
def rules(
    name: Annotated[str | None, typer.Argument(help="Preset name or TOML file.")] = None,
    as_json: JsonOption = False,
) -> None:
    """List the ruleset presets, or show one ruleset (a preset or a TOML file) in full."""
    from ofc_stats.engine.rules import PRESETS, describe_ruleset, get_ruleset, ruleset_as_dict

    with reported_errors():
        if name is None:
            width = max(len(name) for name in PRESETS)
            for preset in PRESETS.values():
                typer.echo(f"{preset.name:{width}s}  {describe_ruleset(preset)}")
            return
        ruleset = get_ruleset(name)
    if as_json:
        typer.echo(json.dumps(ruleset_as_dict(ruleset), indent=2))
    else:
        typer.echo(f"{ruleset.name}: {describe_ruleset(ruleset)}")
        typer.echo(json.dumps(ruleset_as_dict(ruleset), indent=2))
