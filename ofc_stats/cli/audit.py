"""``ofc-stats audit``: where the history and the rules disagree, as a table, CSV or JSON."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import polars as pl
import typer

from ofc_stats.cli.app import WarehouseOption, app, interactive
from ofc_stats.cli.errors import reported_errors
from ofc_stats.cli.output import report_coverage

if TYPE_CHECKING:
    from ofc_stats.analysis.audit import AuditReport


class AuditFormat(StrEnum):
    """How ``audit`` prints its findings."""

    TABLE = "table"
    CSV = "csv"
    JSON = "json"


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
    from ofc_stats.analysis.audit import audit_warehouse
    from ofc_stats.warehouse import Warehouse

    with reported_errors(warehouse):
        report = audit_warehouse(Warehouse.open(warehouse))
    findings = report.findings
    if report.coverage is not None:
        report_coverage(report.coverage, "this audit")
    if output is AuditFormat.JSON:
        typer.echo(json.dumps({
            "coverage": report.coverage.as_dict() if report.coverage else None,
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
