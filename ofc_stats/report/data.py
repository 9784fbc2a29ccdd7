"""The report's datasets: small aggregates computed by DuckDB from the warehouse.

Each dataset is one ``sql/report/<name>.sql`` file (a header comment says what it
returns) run through :func:`ofc_stats.db.connect`, with the report's scope as
``$player``, ``$table``, ``$variant`` and ``$since`` and its bounds (points per series, players
shown, ...) as further parameters. Every result is bounded by those parameters,
never by the number of hands, so the page stays small however large the warehouse.
Confidence intervals are computed here from the aggregates the SQL returns.
"""

from __future__ import annotations

import datetime as dt
import re
import tempfile
from dataclasses import dataclass
from typing import Any

import duckdb
import polars as pl

from ofc_stats.db import NOTHING_SCORED, closest_names_hint, connect, report_sql, run_sql
from ofc_stats.engine.rules import Variant
from ofc_stats.errors import ExitCode, NotScoredError, OfcStatsError
from ofc_stats.util.moments import MomentError, parse_moment
from ofc_stats.util.suggest import alternatives, did_you_mean
from ofc_stats.warehouse import Warehouse
from ofc_stats.warehouse.config import read_config
from ofc_stats.warehouse.schemas import DEFAULT_SCORING

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval
DUCKDB_MEMORY_LIMIT = "1GB"


class ReportError(OfcStatsError):
    """A report that cannot be made from what the user asked for."""

    exit_code = ExitCode.USAGE


class UnknownPlayerError(ReportError):
    """``--player`` names nobody in the scored hands."""


class UnknownTableError(ReportError):
    """``--table`` names no table in the scored hands."""


class UnknownVariantError(ReportError):
    """``--variant`` names no variant of the scored hands."""


class NoScoredHandsError(ReportError, NotScoredError):
    """The warehouse holds no scored hands (``ofc-stats score`` has not run)."""

    exit_code = ExitCode.NOT_SCORED


class EmptyScopeError(ReportError):
    """The player, table and date asked for select no hand."""


@dataclass(frozen=True)
class ReportScope:
    """Which hands a report covers: one player's or everyone's, optionally one table's
    or one variant's, from a moment on, under the default scoring or a stored what-if."""

    player: str | None = None
    table: str | None = None
    since: dt.datetime | None = None
    scoring: str = DEFAULT_SCORING
    variant: str | None = None

    def describe(self) -> str:
        """The hands in words, e.g. ``hands of alice at table T1 since 2026-03-01``."""
        parts = ["hands"]
        if self.variant is not None:
            parts.insert(0, self.variant)
        if self.player is not None:
            parts.append(f"of {self.player}")
        if self.table is not None:
            parts.append(f"at table {self.table}")
        if self.since is not None:
            parts.append(f"since {format_moment(self.since)}")
        return " ".join(parts)


@dataclass(frozen=True)
class ReportLimits:
    """Bounds on what the page holds, whatever the number of hands."""

    points: int  # samples per player in the cumulative and rolling series
    players_shown: int  # players (or opponents) in the per-player charts
    players_listed: int = 50  # players in the overview's table
    buckets: int = 30  # stretches of time in the Fantasyland chart
    sessions_shown: int = 200  # latest sessions in a player's session chart
    biggest: int = 5  # biggest wins, and biggest losses, drawn as boards


PLAYER_LIMITS = ReportLimits(points=400, players_shown=15)
OVERVIEW_LIMITS = ReportLimits(points=160, players_shown=10)


@dataclass(frozen=True)
class ReportData:
    """Every dataset of one report (polars frames, each a few hundred rows at most)."""

    scope: ReportScope
    limits: ReportLimits
    summary: dict[str, Any]  # the one row of scope.sql
    rules: str  # the rules the scores are under, in words
    shown: list[str]  # the players the per-player charts show, in the table's order
    headline: pl.DataFrame
    timeline: pl.DataFrame
    fantasyland: pl.DataFrame
    sessions: pl.DataFrame  # a player's sessions, or each shown player's spread
    royalties: pl.DataFrame
    row_results: pl.DataFrame
    head_to_head: pl.DataFrame
    categories: pl.DataFrame
    biggest_hands: pl.DataFrame
    fl_review: dict[str, Any]  # the one row of fl_review.sql, with intervals
    fl_misses: pl.DataFrame  # the worst Fantasyland misses, played beside best

    @property
    def overview(self) -> bool:
        """Whether the report covers every player (no ``player`` in its scope)."""
        return self.scope.player is None


def format_moment(moment: dt.datetime) -> str:
    """A UTC moment as ``2026-03-01`` at midnight, else ``2026-03-01 20:15``."""
    moment = moment.astimezone(dt.UTC)
    if moment.time() == dt.time(0):
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%d %H:%M")


def parse_since(text: str | dt.date | dt.datetime | None) -> dt.datetime | None:
    """A ``--since`` value as a UTC moment (:func:`ofc_stats.util.moments.parse_moment`:
    a date means its midnight, UTC; ``yesterday`` and ``7d`` are understood).

    >>> parse_since("2026-03-01")
    datetime.datetime(2026, 3, 1, 0, 0, tzinfo=datetime.timezone.utc)
    >>> parse_since("2026-03-01T20:00+01:00").isoformat()
    '2026-03-01T19:00:00+00:00'

    Raises:
        ReportError: the text is no moment in a form accepted.
    """
    if text is None:
        return None
    try:
        return parse_moment(text, "--since")
    except MomentError as error:
        raise ReportError(str(error)) from None


def wilson_interval(successes: pl.Expr, trials: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The 95% Wilson score interval of a proportion, in percent; null with no trials.

    >>> frame = pl.DataFrame({"k": [5, 0], "n": [10, 0]})
    >>> low, high = wilson_interval(pl.col("k"), pl.col("n"))
    >>> frame.select(low.round(1).alias("low"), high.round(1).alias("high")).rows()
    [(23.7, 76.3), (None, None)]
    """
    n = pl.when(trials > 0).then(trials.cast(pl.Float64))
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    spread = Z95 * (p * (1 - p) / n + z2 / (4 * n * n)).sqrt() / (1 + z2 / n)
    # Exact at 0 and n successes, where rounding would leave a bound a hair off 0 or 100.
    low = pl.when(successes == 0).then(0.0).otherwise(100 * (centre - spread))
    high = pl.when(successes == trials).then(100.0).otherwise(100 * (centre + spread))
    some = trials > 0
    return (pl.when(some).then(low.clip(0.0, 100.0)),
            pl.when(some).then(high.clip(0.0, 100.0)))


def mean_interval(mean: pl.Expr, sd: pl.Expr, count: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The 95% normal-approximation interval of a mean, from its standard deviation.

    >>> frame = pl.DataFrame({"mean": [1.0], "sd": [10.0], "n": [100]})
    >>> low, high = mean_interval(pl.col("mean"), pl.col("sd"), pl.col("n"))
    >>> frame.select(low.round(2).alias("low"), high.round(2).alias("high")).rows()
    [(-0.96, 2.96)]
    """
    half = Z95 * sd / count.cast(pl.Float64).sqrt()
    return mean - half, mean + half


def run_dataset(connection: duckdb.DuckDBPyConnection, name: str,
                values: dict[str, object]) -> pl.DataFrame:
    """Run one report dataset, binding the values its SQL uses (DuckDB refuses others)."""
    sql = report_sql(name)
    used = set(re.findall(r"\$(\w+)", re.sub(r"--[^\n]*", "", sql)))
    return run_sql(connection, sql, {key: value for key, value in values.items()
                                     if key in used})


def _check_scope(connection: duckdb.DuckDBPyConnection, scope: ReportScope,
                 summary: dict[str, Any]) -> None:
    """Raise the error a user can act on if the scope selects nothing."""
    if not summary["scored_player_hands"]:
        raise NoScoredHandsError(NOTHING_SCORED)
    unknown = [(kind, name) for kind, name, known in (
        ("player", scope.player, summary["player_known"]),
        ("table", scope.table, summary["table_known"])) if name is not None and not known]
    if unknown:
        kind, name = unknown[0]
        error = UnknownPlayerError if kind == "player" else UnknownTableError
        raise error(f"no {kind} named {name!r} in the scored hands"
                    f"{closest_names_hint(connection, kind, name)}")
    if scope.variant is not None and not summary["variant_known"]:
        played = [str(row[0]) for row in connection.sql(
            "SELECT DISTINCT variant FROM player_hands ORDER BY 1").fetchall()]
        variants = [variant.value for variant in Variant]
        raise UnknownVariantError(
            f"--variant: no scored hands of variant {scope.variant!r} (variants: "
            f"{alternatives(variants)}; in this warehouse: {', '.join(played)})"
            f"{did_you_mean(scope.variant, variants)}")
    if not summary["player_hands"]:
        raise EmptyScopeError(f"no scored {scope.describe()}")


def load_report_data(warehouse: Warehouse, scope: ReportScope,
                     limits: ReportLimits | None = None) -> ReportData:
    """Run every dataset of the report for ``scope`` (``limits``: by default
    :data:`PLAYER_LIMITS` or :data:`OVERVIEW_LIMITS`).

    Raises:
        NoScoredHandsError: nothing is scored yet.
        UnknownPlayerError, UnknownTableError: with the closest names, if any.
        UnknownVariantError: no scored hand of that variant.
        EmptyScopeError: the scope holds no hand (e.g. ``since`` after the last one).
    """
    if limits is None:
        limits = OVERVIEW_LIMITS if scope.player is None else PLAYER_LIMITS
    values: dict[str, object] = {
        "player": scope.player, "table": scope.table, "since": scope.since,
        "variant": scope.variant,
        "points": limits.points, "players_shown": limits.players_shown,
        "players_listed": limits.players_listed, "buckets": limits.buckets,
        "sessions_shown": limits.sessions_shown, "count": limits.biggest,
    }
    rules = (f"what-if: scored under {scope.scoring!r}" if scope.scoring != DEFAULT_SCORING
             else _default_rules(warehouse))
    with tempfile.TemporaryDirectory(prefix="ofc-report-") as spill:
        # Bounded memory: past the limit DuckDB spills its sorts to disk.
        connection = connect(warehouse, scoring=scope.scoring, settings={
            "memory_limit": DUCKDB_MEMORY_LIMIT, "temp_directory": spill,
            "preserve_insertion_order": False})
        try:
            return _load(connection, scope, limits, values, rules)
        finally:
            connection.close()


def _default_rules(warehouse: Warehouse) -> str:
    config = read_config(warehouse.root)
    return ("scored under each variant's preset" if not config.house_rules
            else f"scored under the {config.describe()}")


def _load(connection: duckdb.DuckDBPyConnection, scope: ReportScope, limits: ReportLimits,
          values: dict[str, object], rules: str) -> ReportData:
    summary = run_dataset(connection, "scope", values).row(0, named=True)
    _check_scope(connection, scope, summary)

    def dataset(name: str) -> pl.DataFrame:
        return run_dataset(connection, name, values)

    headline = dataset("headline")
    # The players every per-player chart shows, in the table's order (points).
    shown: list[str] = (headline.sort("hands", "player", descending=[True, False])
                        .head(limits.players_shown)
                        .sort("points", "player", descending=[True, False])
                        ["player"].to_list())
    values["shown"] = shown
    points_low, points_high = mean_interval(pl.col("points_per_hand"),
                                            pl.col("points_sd"), pl.col("hands"))
    royalties_low, royalties_high = mean_interval(
        pl.col("royalties_per_hand"), pl.col("royalties_sd"), pl.col("hands"))
    rates = {"foul": ("fouls", "hands"), "fl_entry": ("fl_entries", "non_fl_hands"),
             "fl_stay": ("fl_stays", "fl_hands"), "scoop": ("scoops", "matchups")}
    headline = headline.with_columns(
        points_low.alias("points_per_hand_low"), points_high.alias("points_per_hand_high"),
        royalties_low.alias("royalties_per_hand_low"),
        royalties_high.alias("royalties_per_hand_high"),
        *(expr for name, (k, n) in rates.items() for expr in _rate(name, k, n)))
    lost_low, lost_high = mean_interval(pl.col("value_lost_per_hand"),
                                        pl.col("value_lost_sd"), pl.col("fl_hands"))
    fl_review = dataset("fl_review").with_columns(
        lost_low.alias("value_lost_per_hand_low"), lost_high.alias("value_lost_per_hand_high"),
        *_rate("optimal", "optimal", "fl_hands"))
    return ReportData(
        scope=scope, limits=limits, summary=summary, rules=rules, shown=shown,
        headline=headline,
        timeline=dataset("timeline"), fantasyland=dataset("fantasyland"),
        sessions=dataset("session_spread" if scope.player is None else "sessions"),
        royalties=dataset("royalties"), row_results=dataset("row_results"),
        head_to_head=dataset("head_to_head"), categories=dataset("categories"),
        biggest_hands=dataset("biggest_hands"),
        fl_review=fl_review.row(0, named=True), fl_misses=dataset("fl_misses"))


def _rate(name: str, successes: str, trials: str) -> list[pl.Expr]:
    """``<name>_pct`` and its Wilson interval ``<name>_pct_low`` / ``_high``."""
    low, high = wilson_interval(pl.col(successes), pl.col(trials))
    share = 100 * pl.col(successes) / pl.when(pl.col(trials) > 0).then(pl.col(trials))
    return [share.alias(f"{name}_pct"), low.alias(f"{name}_pct_low"),
            high.alias(f"{name}_pct_high")]
