"""``ofc-stats check`` and ``ofc-stats repair``: is the warehouse whole, and mending it."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ofc_stats.cli.app import JsonOption, WarehouseOption, app
from ofc_stats.cli.errors import reported_errors
from ofc_stats.errors import ExitCode

DAMAGED_EXIT = ExitCode.NO_WAREHOUSE  # a damaged warehouse: docs/cli.md's exit codes

CHECK_EXAMPLES = """Examples:

\b
  ofc-stats check
  ofc-stats check --deep --json
"""

REPAIR_EXAMPLES = """Examples:

\b
  ofc-stats repair && ofc-stats ingest ~/histories     (the files it names read again)
"""


@app.command(epilog=CHECK_EXAMPLES,
             short_help="Check the warehouse is whole: its log, files and hands.")
def check(
    warehouse: WarehouseOption = None,
    deep: Annotated[bool, typer.Option(
        "--deep", help="Read every page of every file, not only its footer.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Check the warehouse: its log, every file the log names, each hand once."""
    from ofc_stats.warehouse import Warehouse
    from ofc_stats.warehouse.check import check_warehouse

    with reported_errors():
        report = check_warehouse(Warehouse.open(warehouse), deep=deep)
    if as_json:
        typer.echo(json.dumps(report.as_dict(), indent=2))
    else:
        typer.echo(f"checked {report.warehouse} at commit {report.commit:,}: "
                   f"{report.files:,} files, {report.rows:,} rows, {report.hands:,} hands")
        for finding in report.findings:
            where = f" {finding.file}:" if finding.file else ""
            typer.echo(f"  {finding.severity}: {finding.kind}:{where} {finding.detail}")
        count = len(report.errors)
        typer.echo("the warehouse is whole" if report.whole else
                   f"{count:,} problem{'' if count == 1 else 's'}: run 'ofc-stats repair'")
    if not report.whole:
        raise typer.Exit(DAMAGED_EXIT)


@app.command(epilog=REPAIR_EXAMPLES,
             short_help="Mend what 'check' finds; the next ingest reads the rest again.")
def repair(
    warehouse: WarehouseOption = None,
    wait: Annotated[float, typer.Option(
        min=0, metavar="SECONDS",
        help="Seconds to wait for another process writing the warehouse.")] = 30.0,
    as_json: JsonOption = False,
) -> None:
    """Mend what 'check' finds: the log, unreadable files (to _quarantine/), hands that
    do not hold together (marked to be read again by the next ingest)."""
    from ofc_stats.analysis.repair import repair_warehouse
    from ofc_stats.warehouse import Warehouse
    from ofc_stats.warehouse.check import check_warehouse

    with reported_errors():
        store = Warehouse.open(warehouse)
        report = repair_warehouse(store, lock_timeout=wait)
        after = check_warehouse(store)
    if as_json:
        typer.echo(json.dumps({**report.as_dict(), "whole": after.whole}, indent=2))
    else:
        if not report.changed:
            typer.echo(f"nothing to repair in {report.warehouse}")
        for action in report.actions:
            typer.echo(f"  {action}")
        if report.read_again:
            shown = ", ".join(report.read_again[:5]) + (
                f" and {len(report.read_again) - 5:,} more" if len(report.read_again) > 5
                else "")
            typer.echo(f"next: 'ofc-stats ingest' those files again ({shown}): only what "
                       "was lost is stored")
        typer.echo("the warehouse is whole" if after.whole else
                   "still damaged: see 'ofc-stats check'")
    if not after.whole:
        raise typer.Exit(DAMAGED_EXIT)
