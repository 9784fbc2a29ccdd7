"""``ofc-stats bench STAGE``: each stage's throughput and peak memory on this machine."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from ofc_stats.cli.app import VARIANTS_TEXT, JsonOption, bench_app
from ofc_stats.cli.errors import reported_errors


@bench_app.command("scoring")
def bench_scoring(
    deals: Annotated[int, typer.Option(
        metavar="N", min=1, help="Random deals to score.")] = 2_000_000,
    players: Annotated[int, typer.Option(metavar="N", min=2, max=4, help="Players per deal.")] = 3,
    ruleset: Annotated[str, typer.Option(
        metavar="NAME|FILE", help="Preset name or TOML file.")] = "pineapple",
    batch: Annotated[int, typer.Option(metavar="N", min=16, help="Boards per batch.")] = 1 << 16,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed.")] = 0,
    jokers: Annotated[bool, typer.Option(
        help="Also score two-player deals with one joker on every board, against the "
             "same deals without.")] = True,
    string_deals: Annotated[int, typer.Option(
        metavar="N", min=0, help="Of the deals, how many to score through score_boards with card "
                    "strings in, against codes (0: skip).")] = 500_000,
    as_json: JsonOption = False,
) -> None:
    """Score random deals generated in memory with the vectorised scorer (one core)."""
    from ofc_stats.bench.scoring import benchmark_scoring

    with reported_errors():
        result = benchmark_scoring(deals, players, ruleset, batch, seed, jokers,
                                   string_deals)
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
    if result.string_player_hands:
        typer.echo(
            f"score_boards with card strings in ({result.string_player_hands:,} player-hands, "
            f"{result.polars_threads} polars threads): "
            f"{result.string_player_hands_per_second / 1e6:.2f} M player-hands/s; the "
            f"scorer on codes above is {result.string_ratio:.1f}x that; the same table "
            f"from codes {result.string_codes_player_hands_per_second / 1e6:.2f} M/s "
            f"({result.string_codes_ratio:.2f}x)")
    if result.joker_player_hands:
        typer.echo(
            f"one joker on every board ({result.joker_player_hands:,} player-hands of "
            f"2-player deals, {result.joker_ruleset}): "
            f"{result.joker_player_hands_per_second / 1e6:.2f} M player-hands/s; the same "
            f"boards without the joker {result.joker_free_player_hands_per_second / 1e6:.1f}"
            f" M/s: {result.joker_ratio:.2f} of the joker-free speed (1/"
            f"{1 / result.joker_ratio:.1f})")


@bench_app.command("formats")
def bench_formats(
    hands: Annotated[int, typer.Option(
        metavar="N", min=1, help="Sample hands to write and read.")] = 100_000,
    players: Annotated[int, typer.Option(metavar="N", min=2, max=4, help="Players per hand.")] = 3,
    variant: Annotated[str, typer.Option(
        metavar="VARIANT", help=f"{VARIANTS_TEXT}.")]
    = "pineapple",
    streets: Annotated[bool, typer.Option(
        "--streets/--no-streets", help="Record every placement (as rooms do), or boards only.")]
    = True,
    fmt: Annotated[list[str] | None, typer.Option(
        "--format", metavar="FORMAT", help="A format to measure (repeat it); all by default.",
        show_default=False)] = None,
    batch: Annotated[int, typer.Option(metavar="N", min=1, help="Hands per read batch.")] = 20_000,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Write sample hands in each format to a temporary file and read them back."""
    from ofc_stats.bench.formats import benchmark_formats

    with reported_errors():
        result = benchmark_formats(hands, players, variant, streets=streets, formats=fmt,
                                   seed=seed, batch_hands=batch)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    what = "with streets" if result.streets else "boards only"
    typer.echo(f"{result.hands:,} {result.players}-player {result.variant} hands ({what}), "
               f"generated in {result.generate_seconds:.2f} s; read in batches of "
               f"{result.batch_hands:,}")
    for row in result.formats:
        typer.echo(
            f"  {row.format:7s} {row.megabytes:7.1f} MB  read {row.read_megabytes_per_second:6.1f}"
            f" MB/s {row.read_hands_per_second:8,.0f} hands/s (CPU {row.read_cpu_seconds:5.2f} s"
            f" in {row.read_seconds:5.2f} s)  write {row.write_hands_per_second:8,.0f} hands/s"
            f"  peak {row.read_peak_memory_mb:,.0f} MiB (+{row.read_memory_growth_mb:,.0f})"
            + (f"  {row.ceiling_ratio:.1f}x the stack's own parse"
               if row.ceiling_ratio is not None else "")
            + (f"  ({row.problems} problems!)" if row.problems else ""))
    typer.echo(f"  peak memory {result.peak_memory_mb:,.0f} MiB; the load average was "
               f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


@bench_app.command("simulate")
def bench_simulate(
    hands: Annotated[int, typer.Option(metavar="N", min=1, help="Hands to simulate.")] = 1_000_000,
    tables: Annotated[int | None, typer.Option(metavar="N", min=1, help="Tables.",
                                              show_default=False)] = None,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Simulate hands into canonical batches in memory (every variant, one core)."""
    from ofc_stats.bench.simulate import benchmark_simulation

    with reported_errors():
        result = benchmark_simulation(hands, tables, seed)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"simulated {result.hands:,} hands at {result.tables:,} tables "
        f"({result.boards:,} boards, {result.street_rows:,} street actions, "
        f"{result.fantasyland_share:.1%} of boards in Fantasyland) in {result.seconds:.1f} s\n"
        f"  {result.hands_per_second:,.0f} hands/s (one core); "
        f"peak memory {result.peak_memory_mb:,.0f} MiB"
    )


@bench_app.command("ingest")
def bench_ingest(
    hands: Annotated[list[int] | None, typer.Option(
        metavar="N", min=1, help="Hands per format, repeatable (default: 10000 and 100000).",
        show_default=False)] = None,
    formats: Annotated[list[str] | None, typer.Option(
        "--format", "-f", metavar="FORMAT", help="Formats to measure, repeatable (default: all).",
        show_default=False)] = None,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed.")] = 0,
    files: Annotated[int, typer.Option(
        metavar="N", min=1,
        help="Spread the hands over this many files (sessions) in a folder.")] = 1,
    cores: Annotated[bool, typer.Option(
        "--cores", help="Also ingest and decode each file on one core.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Write hands in each format to a temporary folder, ingest them, and report
    throughput against the stack's own decoder on the same file."""
    from ofc_stats.bench.ingest import benchmark_ingest

    with reported_errors():
        results = benchmark_ingest(hands or (10_000, 100_000), formats or None, seed, files,
                                   cores)
    if as_json:
        typer.echo(json.dumps([result.as_dict() for result in results], indent=2))
        return
    for result in results:
        typer.echo(result.report())


@bench_app.command("score")
def bench_score(
    player_hands: Annotated[int, typer.Option(
        metavar="N", min=3, help="Player-hands in the warehouse.")]
    = 10_000_000,
    players: Annotated[int, typer.Option(metavar="N", min=2, max=4, help="Players per hand.")] = 3,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed.")] = 0,
    cores: Annotated[bool, typer.Option(
        "--cores", help="Also score again and copy on one core and on all.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Build a warehouse of random deals, then time 'ofc-stats score' on it (a real process)
    against DuckDB copying its seats to Parquet."""
    from ofc_stats.bench.ceilings import projection_text
    from ofc_stats.bench.score import benchmark_warehouse_scoring

    with reported_errors():
        result = benchmark_warehouse_scoring(player_hands, players, seed, cores)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"built a warehouse of {result.player_hands:,} player-hands in {result.seats_files} "
        f"seats files ({result.build_seconds:.1f} s, not timed)\n"
        f"ofc-stats score: {result.score_seconds:.2f} s, "
        f"{result.player_hands_per_second / 1e6:.2f} M player-hands/s end to end into "
        f"Parquet (Fantasyland across hands included: {result.fl_transitions:,} checks "
        f"in {result.fl_seconds:.2f} s); "
        f"peak memory {result.peak_memory_mb:,.0f} MiB"
    )
    copies = " and ".join(f"{seconds:.2f} s" for seconds in result.copy_seconds)
    typer.echo(f"DuckDB copying the seats to Parquet (zstd, {result.cores} cores): {copies} "
               f"(twice); the score takes {result.copy_ratio:.1f}x the copy")
    if result.all_cores_score_seconds:
        typer.echo(
            f"score --rescore on 1 core {result.one_core_score_seconds:.2f} s, on "
            f"{result.cores} {result.all_cores_score_seconds:.2f} s: "
            f"{result.score_speedup:.2f}x; the copy {result.one_core_copy_seconds:.2f} s "
            f"and {result.all_cores_copy_seconds:.2f} s: {result.copy_speedup:.2f}x\n"
            f"of the score " + projection_text(result.one_core_score_seconds,
                                               result.all_cores_score_seconds, result.cores))


@bench_app.command("stats")
def bench_stats(
    player_hands: Annotated[int, typer.Option(
        metavar="N", min=3, help="Player-hands in the warehouse.")]
    = 10_000_000,
    repeats: Annotated[int, typer.Option(metavar="N", min=1, help="Times to run the query.")] = 3,
    as_json: JsonOption = False,
) -> None:
    """Time the per-player summary ('ofc-stats stats') over a scored warehouse."""
    from ofc_stats.bench.stats import benchmark_stats

    with reported_errors():
        result = benchmark_stats(player_hands, repeats)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"per-player summary of {result.player_hands:,} player-hands ({result.players} "
        f"players): first run {result.first_seconds:.2f} s (views included), best "
        f"{result.best_seconds:.2f} s; building and scoring took {result.prepare_seconds:.0f} s"
    )


@bench_app.command("report")
def bench_report(
    hands: Annotated[int, typer.Option(
        metavar="N", min=10, help="Hands in the warehouse.")] = 1_000_000,
    players: Annotated[int, typer.Option(metavar="N", min=2, max=4, help="Players per hand.")] = 3,
    pool: Annotated[int, typer.Option(
        metavar="N", min=2, help="Players in the pool the tables seat.")]
    = 12,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Build and score a warehouse of random deals, then time 'ofc-stats report' on it."""
    from ofc_stats.bench.report import benchmark_report

    with reported_errors():
        result = benchmark_report(hands, players, pool, seed)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"built a warehouse of {result.hands:,} hands ({result.player_hands:,} player-hands, "
        f"{result.players} players) in {result.build_seconds:.1f} s and scored it in "
        f"{result.score_seconds:.1f} s (neither timed below)\n"
        f"report, every player: {result.overview_seconds:.2f} s, "
        f"{result.overview_bytes / 1e6:.2f} MB, peak memory "
        f"{result.overview_peak_memory_mb:,.0f} MiB\n"
        f"report, one player:   {result.player_seconds:.2f} s, "
        f"{result.player_bytes / 1e6:.2f} MB, peak memory "
        f"{result.player_peak_memory_mb:,.0f} MiB"
    )


@bench_app.command("review")
def bench_review(
    per_count: Annotated[int, typer.Option(
        metavar="N", min=0,
        help="Random hands of each card count (13-17) to solve (0: skip).")] = 500,
    hands: Annotated[int, typer.Option(
        metavar="N", min=0,
        help="Hands of the simulated history to review whole (0: skip).")]
    = 1_000_000,
    warehouse: Annotated[Path | None, typer.Option(
        "--warehouse", "-w", metavar="DIR", help="Review a copy of this warehouse instead "
        "of a simulated history.", show_default=False)] = None,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Time the Fantasyland solver by card count, then a whole 'ofc-stats review'."""
    from ofc_stats.bench.review import benchmark_review

    with reported_errors():
        result = benchmark_review(per_count, hands, warehouse, seed)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    if result.by_cards:
        typer.echo(f"solver, random hands ({result.ruleset} rules, a stay worth "
                   f"{result.stay_value:g}, two opponents each), one core:")
    for row in result.by_cards:
        typer.echo(
            f"  {row.cards} cards: {row.ms_per_hand:6.2f} ms a hand ({row.hands:,} in "
            f"{row.seconds:.2f} s); {row.floor_ratio:5.1f} x numpy evaluating each 5- and "
            f"3-card row once; {row.pairs_examined_per_hand:,.0f} (bottom, middle) pairs "
            f"examined of {row.settings_per_hand:,} settings")
    if result.fantasyland_hands or result.history_source:
        counts = ", ".join(f"{count:,} of {cards}" for cards, count
                           in result.fantasyland_by_cards.items())
        typer.echo(
            f"review of {result.history_source} history ({result.history_hands:,} hands, "
            f"built in {result.build_seconds:.0f} s, not timed): "
            f"{result.fantasyland_hands:,} Fantasyland hands ({counts} cards) in "
            f"{result.review_seconds:.1f} s, {result.ms_per_fantasyland_hand:.2f} ms a hand "
            f"(solving {result.solve_seconds:.1f} s); peak memory "
            f"{result.review_peak_memory_mb:,.0f} MiB; the load average was "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


@bench_app.command("spark")
def bench_spark(
    hands: Annotated[int, typer.Option(
        metavar="N", min=10_000, help="Hands (three players each).")] = 1_000_000,
    master: Annotated[list[str] | None, typer.Option(
        metavar="URL", help="Spark masters to time, repeatable [default: local[1] and "
        "local[2]].", show_default=False)] = None,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Score the same hands on Spark (each master) and with the local pipeline."""
    with reported_errors():
        from ofc_stats.spark.benchmark import benchmark_spark

        result = benchmark_spark(hands, master or ["local[1]", "local[2]"], seed)
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
        return
    typer.echo(
        f"{result.hands:,} hands ({result.player_hands:,} player-hands), built in "
        f"{result.build_seconds:.0f} s (not timed)\n"
        f"  local pipeline ('ofc-stats score'): {result.local_seconds:.1f} s, "
        f"{result.local_player_hands_per_second / 1e6:.2f} M player-hands/s (Fantasyland "
        f"{result.local_transitions_seconds:.1f} s of it), {result.local_cpu_seconds:.1f} "
        "CPU s")
    for run in result.runs:
        typer.echo(
            f"  Spark {run.master} ({run.cores} cores): {run.seconds:.1f} s "
            f"(scoring {run.score_seconds:.1f} s, Fantasyland {run.transitions_seconds:.1f} s), "
            f"{run.player_hands_per_second / 1e6:.2f} M player-hands/s, speed-up "
            f"{result.speedup(run):.2f}x, {result.ratio_to_local(run):.2f}x the local "
            f"pipeline; {run.cpu_seconds:.1f} CPU s; start-up and warm-up "
            f"{run.start_seconds:.0f} s (not counted)")
