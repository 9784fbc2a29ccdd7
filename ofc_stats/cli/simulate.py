"""``ofc-stats simulate``: realistic sessions written as hand-history files."""

from __future__ import annotations

from typing import Annotated

import typer

from ofc_stats.cli.app import VARIANTS_TEXT, app
from ofc_stats.cli.errors import reported_errors
from ofc_stats.simulate.config import MAX_PLAYERS

EXAMPLES = """Examples:

\b
  ofc-stats simulate --out sim --hands 20000 --format all --faults all --seed 1
  ofc-stats simulate --sample-data sample_data
"""


@app.command(epilog=EXAMPLES, short_help="Write realistic simulated sessions as "
                                         "hand-history files.")
def simulate(
    out: Annotated[str, typer.Option(
        "--out", "-o", metavar="DIR", help="Folder to write the files to (a simulation "
        "already there is replaced).")] = "simulated",
    hands: Annotated[int, typer.Option(min=1, metavar="N", help="Hands to simulate.")]
    = 10_000,
    tables: Annotated[int | None, typer.Option(
        min=1, metavar="N", help="Tables [default: one per 2,000 hands, at least 2 and at "
        "least one per format].", show_default=False)] = None,
    players: Annotated[int | None, typer.Option(
        min=4, max=MAX_PLAYERS, metavar="N",
        help=f"Players in the pool, 4 to {MAX_PLAYERS:,} (a table seats 2 to 4 of them) "
             "[default: three per table, at least 12, at most 2,000].",
        show_default=False)] = None,
    variant: Annotated[list[str] | None, typer.Option(
        metavar="VARIANT", help=f"{VARIANTS_TEXT} (repeatable; tables take them in turn) "
        "[default: all of them].", show_default=False)] = None,
    fmt: Annotated[list[str] | None, typer.Option(
        "--format", metavar="FORMAT", help="jsonl, text, csv, fpdb or all (repeatable; "
        "tables take them in turn) [default: jsonl].", show_default=False)] = None,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed: same seed and "
                                      "options, same files.")] = 0,
    faults: Annotated[str, typer.Option(
        metavar="SPEC", help="Faults to inject: all, none, or kind[=count],... (kinds: "
        "mis-scored, fl-unearned, fl-missing, fl-cards, gap, corrupt-card, broken-line, "
        "truncated, duplicate-in-file, duplicate-across-files).")] = "none",
    broken_file: Annotated[str | None, typer.Option(
        metavar="NAME", help="Put every file fault in this one file (name without suffix).",
        show_default=False)] = None,
    gzip: Annotated[bool, typer.Option("--gzip", help="Gzip the table files.")] = False,
    sample_data: Annotated[str | None, typer.Option(
        metavar="DIR", help="Regenerate the sample data in this folder (other options "
        "ignored except --format).", show_default=False)] = None,
) -> None:
    """Simulate realistic OFC sessions and write them as hand-history files.

    Writes one file per table and faults.tsv, the ground truth of every injected fault.
    The hands' site is ofc-sim-<tag>, the tag naming the settings, so simulations of
    other seeds or options never share hand ids in one warehouse.
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
    if written.replaced is not None:
        typer.echo(f"ofc-stats: note: {written.folder} held {written.replaced}; "
                   "replaced by this one", err=True)
    kinds: dict[str, int] = {}
    for fault in written.faults:
        kinds[fault.kind.value] = kinds.get(fault.kind.value, 0) + 1
    injected = ", ".join(f"{count} {kind}" for kind, count in kinds.items()) or "none"
    typer.echo(f"wrote {written.hands:,} hands of site {written.site} to "
               f"{len(written.files)} files in {written.folder}\nfaults injected: {injected} "
               f"(listed in {written.faults_file})")
