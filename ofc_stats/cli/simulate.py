"""``ofc-stats simulate``: realistic sessions written as hand-history files."""

from __future__ import annotations

from typing import Annotated

import typer

from ofc_stats.cli.app import app
from ofc_stats.cli.errors import reported_errors


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
