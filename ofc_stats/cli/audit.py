"""``ofc-stats audit``: where the history and the rules disagree, as a table, CSV or JSON."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import polars as pl
import typer

from ofc_stats.cli.app import ColumnsOption, ScoringOption, WarehouseOption, WideOption, app
from ofc_stats.cli.errors import reported_errors
from ofc_stats.cli.output import report_coverage
from ofc_stats.cli.tables import View, console, print_table, selected_columns, terminal_width
from ofc_stats.errors import ExitCode

if TYPE_CHECKING:
    from ofc_stats.analysis.audit import AuditReport

FINDINGS_VIEW = View(("kind", "hand", "detail", "ours", "reported", "when", "player",
                      "boards"),
                     wrap=frozenset({"detail", "ours", "reported", "player"}),
                     whole_lines=frozenset({"boards"}),
                     lines=True, note="ofc-stats hand HAND_ID draws a hand and its findings")


class AuditFormat(StrEnum):
    """How ``audit`` prints its findings."""

    TABLE = "table"
    CSV = "csv"
    JSON = "json"


@app.command(short_help="Find hands the room mis-scored, broken Fantasyland chains, "
                        "impossible boards.")
def audit(
    warehouse: WarehouseOption = None,
    output: Annotated[AuditFormat, typer.Option(
        "--format", metavar="FORMAT", help="table (on a terminal), csv (the counts per "
        "kind and site on stderr) or json.")] = AuditFormat.TABLE,
    scoring: ScoringOption = None,
    wide: WideOption = False,
    columns: ColumnsOption = None,
    fail_on_mismatch: Annotated[bool, typer.Option(
        "--fail-on-mismatch", help="Exit with status 1 when any error is found (for "
        "scripts and CI).")] = False,
) -> None:
    """Report hands the room mis-scored, broken Fantasyland chains and impossible boards.

    Under the default scoring, or with --scoring under a stored what-if's rules (its
    Fantasyland chains followed under them). 'ofc-stats hand HAND_ID' draws a hand.
    """
    from ofc_stats.analysis.audit import audit_warehouse
    from ofc_stats.analysis.score import resolve_scoring
    from ofc_stats.warehouse import Warehouse

    with reported_errors(warehouse):
        store = Warehouse.open(warehouse)
        report = audit_warehouse(store, resolve_scoring(store, scoring))
    findings = report.findings
    if report.coverage is not None:
        report_coverage(report.coverage, "this audit")
    if output is AuditFormat.JSON:
        if columns is not None:
            findings = findings.select(selected_columns(findings, columns))
        typer.echo(json.dumps({
            "coverage": report.coverage.as_dict() if report.coverage else None,
            "summary": report.summary.to_dicts(),
            "findings": findings.with_columns(
                pl.col(name).dt.to_string() for name, dtype in findings.schema.items()
                if isinstance(dtype, pl.Datetime)).to_dicts()}, indent=2))
    elif output is AuditFormat.CSV:
        if columns is not None:
            findings = findings.select(selected_columns(findings, columns))
        typer.echo(findings.write_csv(), nl=False)
        # The counts go beside the findings, on stderr, so stdout stays one CSV table.
        for kind, severity, site, count in report.summary.iter_rows():
            typer.echo(f"summary: {count:,} {kind} ({severity}) at {site}", err=True)
    else:
        _print_audit(report, wide, columns)
    if fail_on_mismatch and report.errors:
        raise typer.Exit(ExitCode.MISMATCHES)


def _print_audit(report: AuditReport, wide: bool, columns: str | None) -> None:
    if report.findings.is_empty():
        console(terminal_width()).print("no findings: every stored hand agrees with the rules")
        return
    print_table(report.summary, title="Audit summary")
    console(terminal_width()).print()
    findings = report.findings.select(
        "kind",
        pl.coalesce("hand_id", "source").fill_null("").alias("hand"),
        pl.col("started_at").dt.strftime("%Y-%m-%d %H:%M").alias("when"),
        pl.col("player").fill_null(""), "detail",
        pl.col("ours").fill_null(""), pl.col("reported").fill_null(""),
        pl.col("boards").str.replace_all("; ", "\n").fill_null(""),
        "severity", "site", "table")
    print_table(findings, view=FINDINGS_VIEW, wide=wide, columns=columns,
                title=f"{report.findings.height:,} findings ({report.errors:,} errors)")
